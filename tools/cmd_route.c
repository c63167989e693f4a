/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
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
"(ibnetdiscover or iblinkinfo output, opensm-subnet.lst or an ibsim net\n"
"file; a directory: its topology.net, opensm-subnet.lst or\n"
"ibdiagnet.lst), routes it, plans SLs and VLs,\n"
"checks the result for undelivered pairs and credit loops, and writes into\n"
"DIR (all files or none):\n"
"  opensm-lfts.dump   LFTs, byte for byte as OpenSM dumps them\n"
"  opensm-sl2vl.dump  SL2VL maps, as OpenSM dumps them\n"
"  opensm.mcfdbs      multicast forwarding tables of --mcast-groups, as\n"
"                     OpenSM dumps them (empty without groups)\n"
"  path-sl            the SL of every destination LID (\"dlid sl\" lines)\n"
"  vlarb              VL arbitration: the VLs each port uses, equal weights\n"
"  topology.net       the fabric with the LIDs the tables use (for check)\n"
"  knsroute-tables    what the plugin keeps of these tables for its next\n"
"                     start (its tables cache), for a later --in-force\n"
"  summary            recognised fabric, SL/VL plan, hops, link load, times\n"
"\n"
"LIDs come from TOPOLOGY when it has them, else from --guid2lid, else\n"
"knsroute assigns them: switches in GUID order, then CA ports in file order,\n"
"CA ranges aligned to 2^LMC (LIDs already known are kept).\n"
"\n"
"Options:\n"
"  -o, --out DIR        output directory (created if missing)\n"
"  --in-force FILE     the tables in force: a tables cache (OpenSM's cache\n"
"                       directory's knsroute-tables, or an earlier run's\n"
"                       knsroute-tables); the repair keeps their routes and\n"
"                       SLs as the plugin's next sweep would\n"
"  --mcast-groups FILE  multicast groups, \"MLID SL MEMBER...\" lines (members:\n"
"                       node names, GUIDs or LIDs; # comments): their trees\n"
"                       go to opensm.mcfdbs; a group whose SL the plan does\n"
"                       not keep for multicast is left out with a warning\n"
PLAN_OPTIONS_HELP
"  --json               one JSON object on stdout instead of the summary line:\n"
"                       fabric, lids, plan, check, ms {topo, route, slvl,\n"
"                       repair, check}, out; or error and phase\n"
"  -q, --quiet          no progress lines on stderr\n"
"  -v, --verbose        progress lines from the start (else after 2 s)\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                       map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0 routed and checked, 1 a fabric that is not KNS, torus or\n"
"mesh, or the check found a problem (nothing written), 2 bad input or an\n"
"error on the way (out of memory, an output that cannot be written).\n");
}

struct route_args {
	struct plan_opts po;
	const char *topo, *out, *groups, *in_force;
	int json, level;
};

static int parse_args(int argc, char **argv, struct route_args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "mcast-groups", required_argument, NULL, 'M' },
		{ "in-force", required_argument, NULL, 'I' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		PLAN_OPTIONS,
		{ 0 }
	};
	int c;

	*a = (struct route_args){ .level = CLI_NORMAL };
	plan_opts_init(&a->po);
	while ((c = getopt_long(argc, argv, "o:c:qvh", opts, NULL)) != -1) {
		if (plan_opts_take(&a->po, "route", c, optarg))
			continue;
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'M': a->groups = optarg; break;
		case 'I': a->in_force = optarg; break;
		case 'j': a->json = 1; cli_json_errors(); break;
		case 'q': a->level = CLI_QUIET; break;
		case 'v': a->level = CLI_VERBOSE; break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': route_usage(stdout); exit(cli_flush_stdout(0));
		default: return cli_usage_error("route", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("route", "expected one TOPOLOGY file");
	a->topo = argv[optind];
	if (!a->out)
		return cli_usage_error("route", "--out DIR is required");
	return 0;
}

static void print_json(const struct route_args *a, const struct kr_fabric *f,
		       const struct kr_plan *p)
{
	static const char *const key[KR_NPHASE] = { "topo", "route", "slvl",
						    "repair", "check" };
	char topo[256];
	unsigned lids = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		lids += f->lid_port[lid] != KR_NONE;
	kr_topo_describe(topo, sizeof(topo), f, &p->topo);
	putchar('{');
	kr_json_version(stdout);
	fputs(", \"fabric\": ", stdout);
	kr_json_string(stdout, topo);
	printf(", \"lids\": %u, \"plan\": ", lids);
	kr_json_string(stdout, p->slvl.text);
	printf(", \"check\": \"%s\", \"ms\": {", p->checked ? "passed"
						       : "skipped");
	for (int ph = 0; ph < KR_NPHASE; ph++)
		printf("%s\"%s\": %.1f", ph ? ", " : "", key[ph], p->ms[ph]);
	fputs("}, \"out\": ", stdout);
	kr_json_string(stdout, a->out);
	fputs("}\n", stdout);
}

/* Why the plan failed: on stderr, and as {"error", "phase"} with --json. */
static int failed(const struct route_args *a, const struct kr_fabric *f,
		  const struct kr_plan *p, int rc, const struct kr_diag *d)
{
	if (a->json) {
		putchar('{');
		kr_json_version(stdout);
		fputs(", \"error\": ", stdout);
		kr_json_string(stdout, d->msg);
		fputs(", \"phase\": ", stdout);
		kr_json_string(stdout, kr_phase_name(p->failed));
		fputs("}\n", stdout);
		cli_json_error_done();
	}
	cli_plan_error(rc, d, kr_phase_name(p->failed), "");
	/* a check cut short (out of memory) has a report that proves nothing */
	if (p->checked && (rc == KR_ECYCLE || rc == KR_EROUTE))
		kr_check_report_write(stderr, f, &p->check, 0);
	return cli_plan_exit(rc);
}

/* The check, and the multicast groups that need the plan it proves, run
 * while the dumps that need neither are written (kr_plan_write_dir_proving). */
struct proving {
	const struct route_args *a;
	const struct kr_fabric *f;
	const struct kr_conf *c;
	struct kr_plan *p;
	struct kr_diag d;	/* the check's: about the topology */
	int plan_rc;		/* kr_plan_prove's */
	int groups_exit;	/* cli_mcast_groups' exit status */
};

static int prove(void *arg)
{
	struct proving *pr = arg;

	pr->plan_rc = kr_plan_prove(pr->f, pr->c, pr->p, &pr->d);
	if (pr->plan_rc)
		return pr->plan_rc;
	if (pr->a->groups &&
	    (pr->groups_exit = cli_mcast_groups(pr->a->groups, pr->f, pr->p)))
		return KR_EINVAL;
	return KR_OK;
}

/* opensm-lfts.dump holds a line per switch and LID: past 40,000 CAs that
 * is gigabytes, which a dry run should not spring on the disk unsaid.
 * Each line is "0xLLLL PPP # TYPE portguid 0xGGGGGGGGGGGGGGGG: 'DESC'":
 * 46 bytes, the owner's type ("Switch", "Channel Adapter") and its
 * description. */
#define LFT_LINE_FIXED 46
#define LFT_WARN_BYTES (1ull << 30)

static void warn_lfts_size(const char *dir, const struct kr_fabric *f)
{
	uint64_t per_switch = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t n;

		if (f->lid_port[lid] == KR_NONE)
			continue;
		n = f->owner[f->lid_port[lid]];
		per_switch += LFT_LINE_FIXED + (kr_is_switch(f, n) ? 6 : 15) +
			      strlen(kr_node_desc(f, n));
	}
	if (per_switch * f->nsw >= LFT_WARN_BYTES)
		fprintf(stderr, "knsroute route: %s/opensm-lfts.dump will take "
			"about %.1f GB (%u switches, a line for each LID)\n",
			dir, (double)(per_switch * f->nsw) / 1e9, f->nsw);
}

/* Errors of writing name the output file they are about, not the
 * topology. */
static int write_out(const struct route_args *a, const struct kr_fabric *f,
		     const struct kr_conf *c, struct kr_plan *p,
		     const struct kr_diag *topo_d)
{
	struct proving pr = { a, f, c, p, *topo_d, KR_OK, 0 };
	struct kr_diag d = { 0 };
	char line[1024];
	int rc;

	warn_lfts_size(a->out, f);
	cli_progress("writing %s/ while checking", a->out);
	rc = kr_plan_write_dir_proving(a->out, f, p, prove, &pr, &d);
	if (pr.plan_rc)
		return failed(a, f, p, pr.plan_rc, &pr.d);
	if (pr.groups_exit)
		return pr.groups_exit;
	if (rc)
		return cli_error(&d);
	/* such a plan's SA traffic rides unicast VLs it does not follow:
	 * whether it closes a loop depends on where the SM is, which OpenSM's
	 * check knows and this one was not told */
	if (!c->sm_lid && p->slvl.mcast_vl == KR_NONE)
		fprintf(stderr, "knsroute route: this plan leaves the SA's "
			"traffic no VL of its own; OpenSM's check includes it: "
			"--sm-lid LID checks it here\n");
	if (a->json) {
		print_json(a, f, p);
		return 0;
	}
	kr_plan_summary(line, sizeof(line), f, p, "; ");
	printf("%s\nwritten to %s/\n", line, a->out);
	return 0;
}

int cmd_route(int argc, char **argv)
{
	struct route_args a;
	struct kr_conf c;
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_tables was = { 0 };
	struct kr_diag d = { 0 };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) ||
	    (rc = plan_opts_conf(&a.po, "route", &c)))
		return rc;
	cli_progress_begin(a.level);
	if ((rc = cli_read_fabric(a.topo, &f)))
		return rc;
	if ((rc = plan_opts_lids(&a.po, &c, a.topo, &f))) {
		kr_fabric_free(&f);
		return rc;
	}
	if (a.in_force && kr_tables_cache_read(a.in_force, &f, &was, &d)) {
		rc = cli_error(&d);
		kr_fabric_free(&f);
		return rc;
	}
	d = (struct kr_diag){ .file = a.topo };
	c.on_phase = cli_progress_phase;
	rc = kr_plan_tables(&f, &c, a.in_force ? &was : NULL, &p, &d);
	if (rc)
		rc = failed(&a, &f, &p, rc, &d);
	else
		rc = write_out(&a, &f, &c, &p, &d);
	kr_plan_free(&p);
	kr_tables_free(&was);
	kr_fabric_free(&f);
	return rc;
}
