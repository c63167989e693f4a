/* knsroute route: the plugin's computation, offline, into OpenSM's dump
 * formats. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kr_plan.h"
#include "plan_opts.h"

static void route_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute route TOPOLOGY --out DIR [OPTIONS]\n"
"\n"
"Dry run of the OpenSM engine: recognises the fabric in TOPOLOGY\n"
"(ibnetdiscover output or ibsim net file), routes it, plans SLs and VLs,\n"
"checks the result for undelivered pairs and credit loops, and writes into\n"
"DIR (all files or none):\n"
"  opensm-lfts.dump   LFTs, byte for byte as OpenSM dumps them\n"
"  opensm-sl2vl.dump  SL2VL maps, as OpenSM dumps them\n"
"  opensm.mcfdbs      multicast forwarding tables of --mcast-groups, as\n"
"                     OpenSM dumps them (empty without groups)\n"
"  path-sl            the SL of every destination LID (\"dlid sl\" lines)\n"
"  vlarb              VL arbitration: the VLs each port uses, equal weights\n"
"  topology.net       the fabric with the LIDs the tables use (for check)\n"
"  summary            recognised fabric, SL/VL plan, hops, link load, times\n"
"\n"
"LIDs come from TOPOLOGY when it has them, else from --guid2lid, else\n"
"knsroute assigns them: switches and then CA ports in file order, CA ranges\n"
"aligned to 2^LMC (LIDs already known are kept).\n"
"\n"
"Options:\n"
"  -o, --out DIR        output directory (created if missing)\n"
"  --mcast-groups FILE  multicast groups, \"MLID SL MEMBER...\" lines (members:\n"
"                       node names, GUIDs or LIDs; # comments): their trees\n"
"                       go to opensm.mcfdbs; a group whose SL the plan does\n"
"                       not keep for multicast is left out with a warning\n"
PLAN_OPTIONS_HELP
"  -h, --help           this text\n"
"\n"
"Exit status: 0 routed and checked, 1 a fabric that is not KNS, torus or\n"
"mesh, or the check found a problem (nothing written), 2 bad input or an\n"
"error on the way (out of memory, an output that cannot be written).\n");
}

static int parse_args(int argc, char **argv, struct plan_opts *po,
		      const char **topo, const char **out, const char **groups)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "mcast-groups", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		PLAN_OPTIONS,
		{ 0 }
	};
	int c;

	plan_opts_init(po);
	*out = NULL;
	while ((c = getopt_long(argc, argv, "o:c:h", opts, NULL)) != -1) {
		if (plan_opts_take(po, "route", c, optarg))
			continue;
		switch (c) {
		case 'o': *out = optarg; break;
		case 'M': *groups = optarg; break;
		case 'h': route_usage(stdout); exit(cli_flush_stdout(0));
		default: return cli_usage_error("route", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("route", "expected one TOPOLOGY file");
	*topo = argv[optind];
	if (!*out)
		return cli_usage_error("route", "--out DIR is required");
	return 0;
}

/* Its errors name the output file they are about, not the topology. */
static int write_out(const char *out, const struct kr_fabric *f,
		     const struct kr_plan *p)
{
	struct kr_diag d = { 0 };
	char line[1024];

	if (kr_plan_write_dir(out, f, p, &d))
		return cli_error(&d);
	kr_plan_oneline(line, sizeof(line), f, p);
	printf("%s\nwritten to %s/\n", line, out);
	return 0;
}

int cmd_route(int argc, char **argv)
{
	struct plan_opts po;
	const char *topo = NULL, *out = NULL, *groups = NULL;
	struct kr_conf c;
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_diag d = { 0 };
	int rc;

	if ((rc = parse_args(argc, argv, &po, &topo, &out, &groups)) ||
	    (rc = plan_opts_conf(&po, "route", &c)))
		return rc;
	if ((rc = cli_read_fabric(topo, &f)))
		return rc;
	if ((rc = plan_opts_lids(&po, &c, topo, &f))) {
		kr_fabric_free(&f);
		return rc;
	}
	d.file = topo;
	rc = kr_plan_build(&f, &c, &p, &d);
	if (rc) {
		fprintf(stderr, "knsroute: %s: %s failed: %s\n", topo,
			kr_phase_name(p.failed), d.msg);
		/* a check cut short (out of memory) has a report that
		 * proves nothing */
		if (p.checked && (rc == KR_ECYCLE || rc == KR_EROUTE))
			kr_check_report_write(stderr, &f, &p.check, 0);
		rc = cli_plan_exit(rc);
	} else if (groups && (rc = cli_mcast_groups(groups, &f, &p))) {
		/* cli_mcast_groups said why */
	} else {
		rc = write_out(out, &f, &p);
	}
	kr_plan_free(&p);
	kr_fabric_free(&f);
	return rc;
}
