/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute stats: destinations per (output port, VL), per switch and
 * fabric-wide, for knsroute's own plan or for tables read from dumps. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kr_dump.h"
#include "kr_plan.h"
#include "kr_stats.h"
#include "plan_opts.h"

static void stats_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute stats TOPOLOGY [--switch SW]... [--all-lids] [plan options]\n"
"       knsroute stats TOPOLOGY --lfts FILE [--sl2vl FILE] [--path-sl FILE]\n"
"                      [--switch SW]... [--all-lids]\n"
"\n"
"How destinations spread over output ports and VLs: for each switch named\n"
"with --switch (name, node description or GUID), a table of destination\n"
"LIDs per (output port, VL), as in tables 11.1-11.3 of the KNS thesis; then\n"
"fabric-wide balance: the busiest (port, VL) against the mean over all\n"
"inter-switch ports and the VLs in use.\n"
"\n"
"Without --lfts the tables are knsroute's own plan for TOPOLOGY (the same\n"
"computation as knsroute route, which takes the same plan options).\n"
"A destination's VL is the one its SL maps to for traffic entering the\n"
"switch at port 0 (knsroute's maps do not depend on the in port), with the\n"
"per-destination SL (the path-sl file's \"dlid sl\" lines).\n"
"\n"
"Options:\n"
"  -s, --switch SW      switch to tabulate (repeatable)\n"
"  --all-lids           count switch LIDs as destinations too (default: CAs)\n"
"  --lfts FILE          LFTs from a dump (opensm-lfts.dump, ibroute output)\n"
"  --sl2vl FILE         SL2VL maps (opensm-sl2vl.dump, smpquery output)\n"
"  --path-sl FILE       path SLs (knsroute path-sl file, saquery -p output)\n"
"  --json               one JSON object: plan (own plan only), switches\n"
"                       [{guid, name, ports [{port, to, vl [destinations\n"
"                       per VL]}]}], balance {vls, port_vls, max, mean}\n"
PLAN_OPTIONS_HELP
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                       map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help           this text\n");
}

enum { OPT_ALL = 400, OPT_LFTS, OPT_SL2VL, OPT_PATHSL, OPT_JSON };

struct stats_args {
	struct plan_opts po;
	const char *topo, *lfts, *sl2vl, *path_sl;
	const char *sw[64];
	unsigned nsw;
	int all_lids, json;
};

static int parse_args(int argc, char **argv, struct stats_args *a)
{
	static const struct option opts[] = {
		{ "switch", required_argument, NULL, 's' },
		{ "all-lids", no_argument, NULL, OPT_ALL },
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "sl2vl", required_argument, NULL, OPT_SL2VL },
		{ "path-sl", required_argument, NULL, OPT_PATHSL },
		{ "json", no_argument, NULL, OPT_JSON },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		PLAN_OPTIONS,
		{ 0 }
	};
	int c;

	memset(a, 0, sizeof(*a));
	plan_opts_init(&a->po);
	while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
		if (plan_opts_take(&a->po, "stats", c, optarg))
			continue;
		switch (c) {
		case 's':
			if (a->nsw == sizeof(a->sw) / sizeof(a->sw[0]))
				return cli_usage_error("stats", "too many --switch");
			a->sw[a->nsw++] = optarg;
			break;
		case OPT_ALL: a->all_lids = 1; break;
		case OPT_LFTS: a->lfts = optarg; break;
		case OPT_SL2VL: a->sl2vl = optarg; break;
		case OPT_PATHSL: a->path_sl = optarg; break;
		case OPT_JSON: a->json = 1; cli_json_errors(); break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': stats_usage(stdout); exit(cli_flush_stdout(0));
		default: return cli_usage_error("stats", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("stats", "expected one TOPOLOGY file");
	a->topo = argv[optind];
	if (!a->lfts && (a->sl2vl || a->path_sl))
		return cli_usage_error("stats", "--sl2vl and --path-sl need --lfts");
	return 0;
}

static uint32_t find_switch(const struct kr_fabric *f, const char *s)
{
	char *end;
	unsigned long long guid = strtoull(s, &end, 0);

	if (*s && !*end) {
		uint32_t n = kr_node_by_guid(f, guid);

		if (n != KR_NONE && kr_is_switch(f, n))
			return n;
	}
	for (uint32_t n = 0; n < f->nsw; n++)
		if (!strcmp(kr_node_name(f, n), s) || !strcmp(kr_node_desc(f, n), s))
			return n;
	return KR_NONE;
}

/* What a switch port leads to: the text names the peer with its
 * description, JSON by the id the other keys use. */
static struct kr_label port_to(const struct kr_fabric *f, uint32_t slot,
			       int json)
{
	struct kr_label l = { "(this switch)" };

	if (kr_port_num(f, slot) && f->peer[slot] < 0)
		snprintf(l.s, sizeof(l.s), "(no link)");
	else if (kr_port_num(f, slot) && json)
		snprintf(l.s, sizeof(l.s), "%s",
			 kr_node_name(f, f->owner[f->peer[slot]]));
	else if (kr_port_num(f, slot))
		l = kr_node_label(f, f->owner[f->peer[slot]]);
	return l;
}

/* The destinations per VL of a switch's ports, in text or as the JSON
 * "switches" element; VLs up to the highest any port uses. */
static void print_switch(const struct kr_fabric *f, const struct kr_tables *t,
			 uint32_t sw, int all_lids, int json)
{
	uint32_t counts[256 * KR_NSL];
	unsigned top = 0, nrow = 0;

	kr_stats_switch(f, t, sw, all_lids, counts);
	for (unsigned i = 0; i < (f->nports[sw] + 1u) * KR_NSL; i++)
		if (counts[i] && i % KR_NSL >= top)
			top = i % KR_NSL + 1;
	if (json) {
		printf("{\"guid\": \"0x%016" PRIx64 "\", \"name\": ", f->guid[sw]);
		kr_json_string(stdout, kr_node_name(f, sw));
		fputs(", \"ports\": [", stdout);
	} else {
		printf("switch 0x%016" PRIx64 " %s: destinations per output "
		       "port and VL\n  port  %-24s", f->guid[sw],
		       kr_node_label(f, sw).s, "to");
		for (unsigned vl = 0; vl < top; vl++)
			printf(" %5s%u", "VL", vl);
		printf("\n");
	}
	for (unsigned p = 0; p <= f->nports[sw]; p++) {
		uint32_t slot = kr_port(f, sw, p), sum = 0;
		struct kr_label peer = port_to(f, slot, json);
		const char *to = peer.s;

		for (unsigned vl = 0; vl < KR_NSL; vl++)
			sum += counts[p * KR_NSL + vl];
		if (!sum)
			continue;
		if (json) {
			printf("%s{\"port\": %u, \"to\": ", nrow++ ? ", " : "", p);
			kr_json_string(stdout, to);
			fputs(", \"vl\": [", stdout);
		} else {
			printf("  %4u  %-24s", p, to);
		}
		for (unsigned vl = 0; vl < top; vl++) {
			if (json)
				printf("%s%u", vl ? ", " : "",
				       counts[p * KR_NSL + vl]);
			else
				printf(" %6u", counts[p * KR_NSL + vl]);
		}
		fputs(json ? "]}" : "\n", stdout);
	}
	if (json)
		fputs("]}", stdout);
}

static int read_tables(const struct stats_args *a, const struct kr_fabric *f,
		       struct kr_tables *t)
{
	struct kr_diag d = { 0 };

	if (kr_lfts_read(a->lfts, f, t, &d) ||
	    (a->sl2vl && kr_sl2vl_read(a->sl2vl, f, t, &d)) ||
	    (a->path_sl && kr_path_sl_read(a->path_sl, f, t, &d)))
		return cli_error(&d);
	return cli_lfts_whole("stats", a->lfts, f, t);
}

static int report(const struct stats_args *a, const struct kr_fabric *f,
		  const struct kr_tables *t, const char *plan)
{
	struct kr_balance b;

	if (kr_stats_balance(f, t, a->all_lids, &b))
		return cli_usage_error("stats", "out of memory");
	for (unsigned i = 0; i < a->nsw; i++)
		if (find_switch(f, a->sw[i]) == KR_NONE)
			return cli_usage_error("stats", "no switch \"%s\" in %s",
					       a->sw[i], a->topo);
	if (a->json) {
		putchar('{');
		kr_json_version(stdout);
		fputs(", \"plan\": ", stdout);
		if (plan)
			kr_json_string(stdout, plan);
		else
			fputs("null", stdout);
		fputs(", \"switches\": [", stdout);
	} else if (plan) {
		printf("plan: %s\n", plan);
	}
	for (unsigned i = 0; i < a->nsw; i++) {
		if (a->json && i)
			fputs(", ", stdout);
		print_switch(f, t, find_switch(f, a->sw[i]), a->all_lids,
			     a->json);
	}
	if (a->json)
		printf("], \"balance\": {\"vls\": %u, \"port_vls\": %u, "
		       "\"max\": %u, \"mean\": %.3f}}\n", b.vls, b.nportvl,
		       b.max, b.mean);
	else
		printf("balance: %u VL%s over %u inter-switch port-VLs: max %u, "
		       "mean %.2f destinations per port-VL (max/mean %.3f)\n",
		       b.vls, b.vls == 1 ? "" : "s", b.nportvl, b.max, b.mean,
		       b.mean > 0 ? b.max / b.mean : 0.0);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	struct stats_args a;
	struct kr_conf c;
	struct kr_fabric f;
	struct kr_plan p = { 0 };
	struct kr_tables t = { 0 };
	struct kr_diag d = { 0 };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) ||
	    (rc = plan_opts_conf(&a.po, "stats", &c)) ||
	    (rc = cli_read_fabric(a.topo, &f)))
		return rc;
	if (a.lfts) {
		rc = cli_read_lids("stats", a.topo, a.po.guid2lid, a.lfts, &f);
		if (!rc)
			rc = read_tables(&a, &f, &t);
	} else if (!(rc = plan_opts_lids(&a.po, &c, a.topo, &f))) {
		d.file = a.topo;
		if ((rc = kr_plan_build(&f, &c, &p, &d)))
			rc = cli_plan_error(rc, &d, kr_phase_name(p.failed),
					    "");
	}
	if (!rc)
		rc = a.lfts ? report(&a, &f, &t, NULL)
			    : report(&a, &f, &p.tables, p.slvl.text);
	kr_tables_free(&t);
	kr_plan_free(&p);
	kr_fabric_free(&f);
	return rc;
}
