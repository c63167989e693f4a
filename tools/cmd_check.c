/* knsroute check: read a topology and the tables some engine programmed,
 * report delivery, hops, link load, VLs and credit loops. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void check_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute check TOPOLOGY --lfts FILE [--sl2vl FILE] [--path-sl FILE]\n"
"                      [--guid2lid FILE] [--json] [--max-examples N]\n"
"                      [--switch-sources] [--write-lfts FILE]\n"
"                      [--write-sl2vl FILE] [--write-path-sl FILE]\n"
"\n"
"Checks the tables a fabric is (or would be) programmed with, whatever\n"
"engine made them: every source CA port (its base LID as SLID) to every\n"
"destination LID (each LID of an LMC range, every switch LID) must arrive,\n"
"and the channel dependency graph (a channel is a sending port and a VL;\n"
"consecutive hops of a path depend on each other) must have no cycle: a\n"
"cycle is a credit loop, a possible deadlock.\n"
"\n"
"  TOPOLOGY            ibnetdiscover output or ibsim net file, with LIDs\n"
"  --lfts FILE         opensm-lfts.dump, or ibroute / dump_fts /\n"
"                      dump_lfts.sh output (told apart automatically)\n"
"  --sl2vl FILE        opensm-sl2vl.dump or `smpquery sl2vl` output;\n"
"                      default: every SL on VL 0 everywhere\n"
"  --path-sl FILE      knsroute path-sl file (\"DLID SL\", \"SLID DLID SL\")\n"
"                      or `saquery -p` output; default: SL 0 for every pair\n"
"  --guid2lid FILE     take LIDs from OpenSM's guid2lid cache\n"
"  --switch-sources    also route from every switch (port 0)\n"
"  --max-examples N    undelivered pairs to list (default 10)\n"
"  --json              one JSON object instead of the text report\n"
"  --write-lfts FILE   write the LFTs read as an opensm-lfts.dump\n"
"  --write-sl2vl FILE  write the maps read as an opensm-sl2vl.dump\n"
"  --write-path-sl FILE  write the path SLs read as a path-sl file\n"
"  -h, --help          this text\n"
"\n");
	fprintf(out,
"The report: pairs delivered and why others are not (no_entry: no LFT\n"
"entry; down_port: LFT points at a port without a link; loop: forwarding\n"
"loop; wrong_dest: arrives at a port not owning the DLID; vl15: an SL2VL map\n"
"sends it to VL 15; oper_vl: a VL at or above the port's OperVLs), with the\n"
"first examples; a histogram of links per delivered path; CA-to-CA paths\n"
"per directed switch-switch link (max, mean, max/mean, top 5); ports by the\n"
"VLs they send on; the dependency graph's size; and a credit loop as its\n"
"channels \"NAME[PORT] VL v\", each with a SLID -> DLID path that makes it\n"
"wait for the next.\n"
"\n"
"JSON keys: pairs, sources, destinations, delivered, undelivered, fail\n"
"{no_entry, down_port, loop, wrong_dest, vl15, oper_vl}, examples [{src,\n"
"src_port, slid, dlid, reason, at, at_port, vl}], hops [pairs by link\n"
"count], links {count, max, mean, top [{node, node_port, peer, peer_port,\n"
"load}]}, vls {max_vl, oper_vl_ports, ports_by_vls [{vls, ports}]}, cdg\n"
"{channels, dependencies}, credit_loop (null or [{node, node_port, vl,\n"
"slid, dlid}]), verdict (ok, undelivered, credit_loop).\n"
"\n"
"Exit status: 0 all delivered and no credit loop, 1 a problem was found,\n"
"2 usage or input error (FILE:LINE: what was expected).\n");
}

struct check_args {
	const char *topo, *lfts, *sl2vl, *path_sl, *guid2lid;
	const char *w_lfts, *w_sl2vl, *w_path_sl;
	struct kr_check_opts o;
	int json;
};

enum { OPT_LFTS = 256, OPT_SL2VL, OPT_PSL, OPT_G2L, OPT_JSON, OPT_MAXEX,
       OPT_SWSRC, OPT_WLFTS, OPT_WSL2VL, OPT_WPSL };

static int parse_args(int argc, char **argv, struct check_args *a)
{
	static const struct option opts[] = {
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "sl2vl", required_argument, NULL, OPT_SL2VL },
		{ "path-sl", required_argument, NULL, OPT_PSL },
		{ "guid2lid", required_argument, NULL, OPT_G2L },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "max-examples", required_argument, NULL, OPT_MAXEX },
		{ "switch-sources", no_argument, NULL, OPT_SWSRC },
		{ "write-lfts", required_argument, NULL, OPT_WLFTS },
		{ "write-sl2vl", required_argument, NULL, OPT_WSL2VL },
		{ "write-path-sl", required_argument, NULL, OPT_WPSL },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LFTS: a->lfts = optarg; break;
		case OPT_SL2VL: a->sl2vl = optarg; break;
		case OPT_PSL: a->path_sl = optarg; break;
		case OPT_G2L: a->guid2lid = optarg; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_MAXEX:
			a->o.max_examples = (unsigned)cli_number(
				"check", "--max-examples", optarg, 0, 100000);
			break;
		case OPT_SWSRC: a->o.switch_sources = 1; break;
		case OPT_WLFTS: a->w_lfts = optarg; break;
		case OPT_WSL2VL: a->w_sl2vl = optarg; break;
		case OPT_WPSL: a->w_path_sl = optarg; break;
		case 'h': check_usage(stdout); return -1;
		default: return cli_usage_error("check", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("check", optind < argc ?
				       "expected one TOPOLOGY, not several" :
				       "expected a TOPOLOGY file");
	a->topo = argv[optind];
	if (!a->lfts)
		return cli_usage_error("check", "--lfts FILE is required");
	return 0;
}

/* Everything the command reads; on failure the reason is printed. */
static int read_inputs(const struct check_args *a, struct kr_fabric *f,
		       struct kr_tables *t)
{
	struct kr_diag d = { 0 };
	int rc = cli_read_fabric(a->topo, f);

	if (rc)
		return rc;
	if (a->guid2lid && (d.file = a->guid2lid,
			    kr_guid2lid_read(a->guid2lid, f, &d)))
		return cli_error(&d);
	if (!f->max_lid) {
		d = (struct kr_diag){ .file = a->topo,
				      .msg = "no LIDs: use a topology with LIDs "
					     "(ibnetdiscover output) or --guid2lid" };
		return cli_error(&d);
	}
	if (kr_lfts_read(a->lfts, f, t, &d) ||
	    (a->sl2vl && kr_sl2vl_read(a->sl2vl, f, t, &d)) ||
	    (a->path_sl && kr_path_sl_read(a->path_sl, f, t, &d)))
		return cli_error(&d);
	return 0;
}

typedef int table_writer(FILE *, const struct kr_fabric *, const struct kr_tables *);

struct table_out {
	const struct kr_fabric *f;
	const struct kr_tables *t;
	table_writer *wr;
};

static int write_table(FILE *out, const void *ctx)
{
	const struct table_out *c = ctx;

	return c->wr(out, c->f, c->t);
}

static int write_one(const char *path, const struct kr_fabric *f,
		     const struct kr_tables *t, table_writer *wr)
{
	struct table_out c = { f, t, wr };
	struct kr_diag d = { 0 };

	if (!path)
		return 0;
	return kr_write_atomic(path, write_table, &c, &d) ? cli_error(&d) : 0;
}

static int write_tables(const struct check_args *a, const struct kr_fabric *f,
			const struct kr_tables *t)
{
	int rc = write_one(a->w_lfts, f, t, kr_lfts_write);

	if (!rc)
		rc = write_one(a->w_sl2vl, f, t, kr_sl2vl_write);
	if (!rc)
		rc = write_one(a->w_path_sl, f, t, kr_path_sl_write);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct check_args a = { .o = { .max_examples = 10 } };
	struct kr_fabric f = { 0 };
	struct kr_tables t = { 0 };
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	int rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--live"))
			return cmd_check_live(argc, argv, cmd_check);
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = read_inputs(&a, &f, &t);
	if (!rc)
		rc = write_tables(&a, &f, &t);
	if (!rc) {
		int res = kr_check_run(&f, &t, &a.o, &r, &d);

		if (res == KR_ENOMEM) {
			rc = cli_error(&d);
		} else if (kr_check_report_write(stdout, &f, &r, a.json) ||
			   fflush(stdout)) {
			fprintf(stderr, "knsroute: cannot write the report\n");
			rc = EXIT_USAGE;
		} else {
			rc = res ? EXIT_PROBLEM : 0;
		}
		kr_check_report_free(&r);
	}
	kr_tables_free(&t);
	kr_fabric_free(&f);
	return rc;
}
