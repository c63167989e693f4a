/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute check: read a topology and the tables some engine programmed,
 * report delivery, hops, link load, VLs and credit loops. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pictures.h"

static void check_usage_more(FILE *out);

static void check_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute check TOPOLOGY --lfts FILE [--sl2vl FILE] [--path-sl FILE]\n"
"                      [--mfts FILE [--mcast-sl FILE]]\n"
"                      [--guid2lid FILE] [--dests cas|all|auto] [--json]\n"
"                      [--max-examples N] [--switch-sources]\n"
"                      [--sm-lid LID [--sm-sl SL]]\n"
"                      [--write-lfts FILE] [--write-sl2vl FILE]\n"
"                      [--write-path-sl FILE] [--svg FILE]\n"
"       knsroute check DIR [OPTIONS]\n"
"       knsroute check --live [CAPTURE OPTIONS] [OPTIONS]\n"
"\n"
"Checks the tables a fabric is (or would be) programmed with, whatever\n"
"engine made them: every source CA port (its base LID as SLID) to every\n"
"destination LID (each LID of an LMC range, every switch LID) must arrive,\n"
"and the channel dependency graph (a channel is a sending port and a VL;\n"
"consecutive hops of a path depend on each other) must have no cycle: a\n"
"cycle is a credit loop, a possible deadlock.\n"
"\n"
"  TOPOLOGY            ibnetdiscover or iblinkinfo output, opensm-subnet.lst\n"
"                      or an ibsim net file; LIDs from\n"
"                      it, else --guid2lid, else the LFT dump's port GUIDs\n"
"  DIR                 a capture: DIR/topology.net, DIR/lfts.dump and, if\n"
"                      there, DIR/sl2vl.dump, DIR/path-sl, DIR/oper-vls,\n"
"                      DIR/mfts.dump, DIR/mcast-sl (`knsroute route`\n"
"                      output's opensm-*.dump and opensm.mcfdbs names\n"
"                      too), DIR/capture.log (the SM, as --sm-lid and\n"
"                      --sm-sl); an OpenSM dump directory\n"
"                      (opensm-subnet.lst); an ibdiagnet -vlr output\n"
"                      directory (ibdiagnet.lst, .fdbs, .mcfdbs, .slvl,\n"
"                      .psl, .sm); options win\n"
"  --lfts FILE         opensm-lfts.dump or opensm.fdbs, or ibroute /\n"
"                      dump_fts / dump_lfts output (told apart\n"
"                      automatically)\n"
"  --sl2vl FILE        opensm-sl2vl.dump, `smpquery sl2vl` output or\n"
"                      ibdiagnet.slvl; default: every SL on VL 0\n"
"                      everywhere\n"
"  --path-sl FILE      knsroute path-sl file (\"DLID SL\", \"SLID DLID SL\"),\n"
"                      `saquery -p` output or ibdiagnet.psl; default: SL 0\n"
"                      for every pair\n"
"  --mfts FILE         multicast forwarding tables: opensm.mcfdbs, or\n"
"                      ibroute -M / dump_fts -M / dump_mfts output (with\n"
"                      or without -n; a block for every switch); adds\n"
"                      every group's tree to the check (a third verdict:\n"
"                      unicast + multicast)\n"
"  --mcast-sl FILE     group SLs: `saquery -g` output or \"MLID SL\" lines;\n"
"                      default: SL 0 for every group (an assumption)\n"
"  --guid2lid FILE     take LIDs from OpenSM's guid2lid cache\n"
"  --switch-sources    also route from every switch (port 0)\n"
"  --sm-lid LID        the SM's LID: every CA port's SA queries to it and\n"
"                      its answers back, on --sm-sl whatever the\n"
"                      destinations' own SLs, join the management class\n"
"                      (OpenSM: PortInfo MasterSMLID, `sminfo`); a\n"
"                      capture DIR's capture.log names it otherwise\n"
"  --sm-sl SL          the SL of that traffic (OpenSM's sm_sl, PortInfo\n"
"                      MasterSMSL; default 0)\n"
"  --dests WHICH       the traffic the exit status stands for: cas (data:\n"
"                      CA to CA), all (data and management: to and from\n"
"                      switch LIDs too), auto (default: all when every\n"
"                      management pair's SL was given, else cas)\n"
"  --max-examples N    undelivered pairs to list (default 10)\n"
"  --json              one JSON object instead of the text report\n"
"  -q, --quiet         no progress lines on stderr\n"
"  -v, --verbose       progress lines from the start (else after 2 s)\n"
"  --write-lfts FILE   write the LFTs read as an opensm-lfts.dump\n"
"  --write-sl2vl FILE  write the maps read as an opensm-sl2vl.dump\n"
"  --write-path-sl FILE  write the path SLs read as a path-sl file\n"
"  --svg FILE          draw the fabric into FILE (SVG, as topo --svg), each\n"
"                      link direction coloured by its CA-to-CA paths (a\n"
"                      legend gives the scale) and the credit loop's\n"
"                      witness, if any, as numbered arrows with their VLs\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                      map; default /etc/rdma/ib-node-name-map when there)\n"
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
"Assumptions: ports without an SL2VL map (VL 0 taken), pairs without a path\n"
"SL (SL 0, or the SL most PathRecords towards the DLID carry), LIDs the\n"
"LFTs route that no port owns, ports without a LID. Each traffic class,\n"
"data and data + management, gets a verdict: ok, undelivered, credit_loop\n"
"(the given inputs alone close it) or assumed_credit_loop (only with\n"
"assumed values: capture them to decide).\n"
"\n");
	check_usage_more(out);
}

/* The second half of --help: JSON keys, multicast, exit status. */
static void check_usage_more(FILE *out)
{
	fputs(
"JSON keys: pairs, sources, destinations, delivered, undelivered, fail\n"
"{no_entry, down_port, loop, wrong_dest, vl15, oper_vl}, examples [{src,\n"
"src_name, src_port, slid, dlid, reason, at, at_name, at_port, vl}], hops\n"
"[pairs by link count], links {count, max, mean, top [{node, name,\n"
"node_port, peer, peer_name, peer_port, load}]}, vls {max_vl,\n"
"oper_vl_ports, ports_by_vls [{vls, ports}]}, cdg\n"
"{channels, dependencies}, sa {sm_lid, sl, perfmgr_sl, pairs} (with\n"
"--sm-lid), multicast {groups, dependencies} (with --mfts),\n"
"assumed {exact, sl2vl_ports, ports, sl_pairs {data, management}, sl_taken,\n"
"lids_without_port, ports_without_lid, groups_sl}, classes {data, all and,\n"
"with groups, multicast: {pairs, delivered, verdict, loop_sl_pairs,\n"
"loop_map_deps, credit_loop}}, credit_loop (the deciding class's: null or\n"
"[{node, name, node_port, vl, slid, dlid (mlid for a tree's hop), assumed\n"
"[sl, sl2vl]}]), dests (cas, all), verdict (ok, undelivered, credit_loop,\n"
"assumed_credit_loop, or nothing_checked when no pair had LIDs: exit 2).\n"
"A *name key is there when the node has a description of its own (its\n"
"NodeDescription or the node-name-map's name); the text names such a node\n"
"NODE \"DESCRIPTION\"[PORT].\n"
"\n"
"Multicast: every group's tree joins the dependency graph (a packet enters\n"
"at any member and leaves each switch through every other port of its\n"
"mask, on the VL the map gives the group's SL); the class multicast is the\n"
"counted class plus the trees, with its own verdict and witness.\n"
"\n"
"Exit status (for the class --dests counts and, with groups, multicast):\n"
"0 all delivered and no credit loop, 1 a problem the inputs prove\n"
"(undelivered pairs, a credit loop, one only multicast closes included),\n"
"2 usage or input error (FILE:LINE: what was expected), 3 a credit loop\n"
"only through assumed SLs (path or group) or SL2VL maps.\n", out);
}

struct check_args {
	struct cli_inputs in;
	const char *w_lfts, *w_sl2vl, *w_path_sl, *svg;
	struct kr_check_opts o;
	struct cli_sm sm;
	int json, level;
};

enum { OPT_LFTS = 256, OPT_SL2VL, OPT_PSL, OPT_G2L, OPT_JSON, OPT_MAXEX,
       OPT_SWSRC, OPT_WLFTS, OPT_WSL2VL, OPT_WPSL, OPT_DESTS, OPT_MFTS,
       OPT_MSL, OPT_SMLID, OPT_SMSL, OPT_SVG };

static int parse_dests(const char *s)
{
	static const char *const names[] = { [KR_CHECK_DESTS_ALL] = "all",
					     [KR_CHECK_DESTS_CAS] = "cas",
					     [KR_CHECK_DESTS_AUTO] = "auto" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_args(int argc, char **argv, struct check_args *a)
{
	static const struct option opts[] = {
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "sl2vl", required_argument, NULL, OPT_SL2VL },
		{ "path-sl", required_argument, NULL, OPT_PSL },
		{ "guid2lid", required_argument, NULL, OPT_G2L },
		{ "mfts", required_argument, NULL, OPT_MFTS },
		{ "mcast-sl", required_argument, NULL, OPT_MSL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "max-examples", required_argument, NULL, OPT_MAXEX },
		{ "switch-sources", no_argument, NULL, OPT_SWSRC },
		{ "sm-lid", required_argument, NULL, OPT_SMLID },
		{ "sm-sl", required_argument, NULL, OPT_SMSL },
		{ "dests", required_argument, NULL, OPT_DESTS },
		{ "write-lfts", required_argument, NULL, OPT_WLFTS },
		{ "write-sl2vl", required_argument, NULL, OPT_WSL2VL },
		{ "write-path-sl", required_argument, NULL, OPT_WPSL },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LFTS: a->in.lfts = optarg; break;
		case OPT_SL2VL: a->in.sl2vl = optarg; break;
		case OPT_PSL: a->in.path_sl = optarg; break;
		case OPT_G2L: a->in.guid2lid = optarg; break;
		case OPT_MFTS: a->in.mfts = optarg; break;
		case OPT_MSL: a->in.mcast_sl = optarg; break;
		case OPT_DESTS:
			a->o.dests = parse_dests(optarg);
			if (a->o.dests < 0)
				return cli_usage_error("check", "--dests expects "
						       "cas, all or auto, not "
						       "\"%s\"", optarg);
			break;
		case OPT_JSON: a->json = 1; cli_json_errors(); break;
		case OPT_MAXEX:
			a->o.max_examples = (unsigned)cli_number(
				"check", "--max-examples", optarg, 0, 100000);
			break;
		case OPT_SWSRC: a->o.switch_sources = 1; break;
		case OPT_SMLID:
			a->sm.lid = (unsigned)cli_number("check", "--sm-lid",
							 optarg, 1, 0xbfff);
			break;
		case OPT_SMSL:
			a->sm.sl = (unsigned)cli_number("check", "--sm-sl",
							optarg, 0, 15);
			a->sm.sl_given = 1;
			break;
		case OPT_WLFTS: a->w_lfts = optarg; break;
		case OPT_WSL2VL: a->w_sl2vl = optarg; break;
		case OPT_WPSL: a->w_path_sl = optarg; break;
		case OPT_SVG: a->svg = optarg; break;
		case 'q': a->level = CLI_QUIET; break;
		case 'v': a->level = CLI_VERBOSE; break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': check_usage(stdout); return -1;
		default: return cli_usage_error("check", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("check", optind < argc ?
				       "expected one TOPOLOGY, not several" :
				       "expected a TOPOLOGY file or DIR");
	a->in.topo = argv[optind];
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
	return kr_write_atomic(path, KR_TO_NAMED, write_table, &c, &d) ? cli_error(&d) : 0;
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

/* The fabric with r's load and witness, laid out as topo --svg does. */
static int draw(const struct check_args *a, const struct kr_fabric *f,
		const struct kr_check_report *r)
{
	struct kr_draw_layout l;
	struct kr_topo t;
	char title[600];
	struct kr_draw_opts o = { .id = "check", .title = title };
	int known = pictures_recognise(f, &t), rc;

	if (known < 0)
		return EXIT_USAGE;
	rc = pictures_layout(f, known ? &t : NULL, &l);
	if (!rc) {
		snprintf(title, sizeof(title), "%s: %s; link load%s", a->in.topo,
			 l.how, r->cls[kr_check_deciding(r)].ncycle ?
			 " and the credit loop" : "");
		pictures_check_opts(r, &o);
		rc = pictures_write(a->svg, f, &l, &o);
		kr_draw_layout_free(&l);
	}
	if (known)
		kr_topo_free(&t);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct check_args a = { .o = { .max_examples = 10,
				       .dests = KR_CHECK_DESTS_AUTO },
				.level = CLI_NORMAL };
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
	cli_progress_begin(a.level);
	rc = cli_read_inputs("check", &a.in, &f, &t);
	if (!rc)
		rc = cli_lfts_whole("check", a.in.lfts, &f, &t);
	if (!rc)
		rc = cli_mfts_whole("check", a.in.mfts, &f, &t);
	if (!rc)
		rc = cli_sm_inputs("check", &a.in, &a.sm, &f, &t);
	if (!rc)
		rc = write_tables(&a, &f, &t);
	if (!rc) {
		int res;

		cli_progress("checking %u switches, LIDs up to %u", f.nsw,
			     f.max_lid);
		res = kr_check_run(&f, &t, &a.o, &r, &d);
		cli_progress("check done");

		if (res == KR_ENOMEM) {
			rc = cli_error(&d);
		} else if (kr_check_report_write(stdout, &f, &r, a.json) ||
			   fflush(stdout)) {
			cli_say("cannot write the report");
			rc = EXIT_USAGE;
		} else if (!r.pairs) {
			/* an empty check proves nothing: not an OK */
			fprintf(stderr, "knsroute check: no pair to check: give "
				"every CA port a LID (a topology with LIDs, "
				"--guid2lid, or an LFT dump naming port GUIDs)\n");
			rc = EXIT_USAGE;
		} else if (!a.svg || !(rc = draw(&a, &f, &r))) {
			rc = res == KR_EASSUMED ? EXIT_ASSUMED
			     : res ? EXIT_PROBLEM : 0;
		}
		kr_check_report_free(&r);
	}
	kr_tables_free(&t);
	kr_fabric_free(&f);
	return rc;
}
