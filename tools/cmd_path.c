/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute path: one pair hop by hop through the tables check reads, with
 * the SL and the VL on every hop, to delivery or to where it fails. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void path_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute path TOPOLOGY|DIR SRC DST [--lfts FILE] [--sl2vl FILE]\n"
"                     [--path-sl FILE] [--guid2lid FILE] [--json]\n"
"                     [--node-name-map FILE]\n"
"\n"
"Follows the LFTs from SRC to DST and prints every hop: node, in port, out\n"
"port and the VL its SL2VL map gives the pair's SL there, to delivery or to\n"
"the failure (the reasons of `knsroute check`).\n"
"\n"
"  TOPOLOGY, DIR, --lfts, --sl2vl, --path-sl, --guid2lid  as for check\n"
"                      (DIR: a capture or `knsroute route` output)\n"
"  SRC, DST            a node name or description, a node or port GUID\n"
"                      (0x...) or a LID;\n"
"                      a node is its first linked port with a LID (a\n"
"                      switch: port 0); the SLID is the source's base LID,\n"
"                      the DLID the LID given or the destination's base LID\n"
"  --json              one JSON object: slid, dlid, sl, sl_assumed, hops\n"
"                      [{node, name, in, out, vl, map_assumed}], result\n"
"                      (delivered or a check failure name), at, at_name,\n"
"                      at_port (the names where the node has a\n"
"                      description of its own)\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                      map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 delivered, 1 not delivered, 2 usage or input error.\n");
}

static const char *const fail_names[KR_CHECK_NFAIL] = {
	"no_entry", "down_port", "loop", "wrong_dest", "vl15", "oper_vl",
};

/* SRC or DST: a port slot, and the LID it was named by (0: none). */
static int resolve(const struct kr_fabric *f, const char *arg, uint32_t *slot,
		   unsigned *lid)
{
	struct cli_names ix;
	int rc;

	if (cli_names_init(&ix, f))
		return cli_input_error("path", "out of memory");
	rc = cli_resolve_port(f, &ix, arg, slot, lid);
	cli_names_free(&ix);
	if (rc == -2)
		return cli_usage_error("path", "\"%s\": several nodes have "
				       "that description; name one by GUID",
				       arg);
	if (rc)
		return cli_usage_error("path", "\"%s\": no node, GUID or LID "
				       "of the topology with a LID", arg);
	return 0;
}

static void text_path(const struct kr_fabric *f, const struct kr_path *p)
{
	int w = 24;	/* the node column: as wide as its widest label */

	for (unsigned i = 0; i < p->nhop; i++) {
		int n = (int)strlen(kr_node_label(f, p->hop[i].node).s);

		w = n > w ? n : w;
	}
	printf("SLID %u -> DLID %u, SL %u%s\n", p->slid, p->dlid, p->sl,
	       p->sl_assumed ? " (assumed: no input gave it)" : "");
	printf("  %-4s %-*s %4s %4s  %s\n", "hop", w, "node", "in", "out", "VL");
	for (unsigned i = 0; i < p->nhop; i++) {
		const struct kr_hop *h = &p->hop[i];
		char in[8] = "-", out[8] = "-", vl[24] = "-";

		if (kr_is_switch(f, h->node))
			snprintf(in, sizeof(in), "%u", h->in);
		if (h->out != KR_NO_PORT)
			snprintf(out, sizeof(out), "%u", h->out);
		if (h->out && h->out != KR_NO_PORT)
			snprintf(vl, sizeof(vl), "%u%s", h->vl, h->why ?
				 " (map assumed)" : "");
		printf("  %-4u %-*s %4s %4s  %s\n", i, w,
		       kr_node_label(f, h->node).s, in, out, vl);
	}
	if (p->fail < 0)
		printf("delivered at %s\n", kr_port_label(f, p->at).s);
	else
		printf("not delivered: %s at %s\n", fail_names[p->fail],
		       kr_port_label(f, p->at).s);
}

/* , "KEY": "DESCRIPTION" where the node has one of its own */
static void json_name(const struct kr_fabric *f, uint32_t node,
		      const char *key)
{
	if (!kr_node_described(f, node))
		return;
	printf(", \"%s\": ", key);
	kr_json_string(stdout, kr_node_desc(f, node));
}

static void json_path(const struct kr_fabric *f, const struct kr_path *p)
{
	putchar('{');
	kr_json_version(stdout);
	printf(", \"slid\": %u, \"dlid\": %u, \"sl\": %u, \"sl_assumed\": %s, "
	       "\"hops\": [", p->slid, p->dlid, p->sl,
	       p->sl_assumed ? "true" : "false");
	for (unsigned i = 0; i < p->nhop; i++) {
		const struct kr_hop *h = &p->hop[i];

		printf("%s{\"node\": ", i ? ", " : "");
		kr_json_string(stdout, kr_node_name(f, h->node));
		json_name(f, h->node, "name");
		printf(", \"in\": %u, \"out\": ", h->in);
		if (h->out == KR_NO_PORT)
			printf("null, \"vl\": null");
		else
			printf("%u, \"vl\": %u", h->out, h->vl);
		printf(", \"map_assumed\": %s}", h->why ? "true" : "false");
	}
	printf("], \"result\": \"%s\", \"at\": ",
	       p->fail < 0 ? "delivered" : fail_names[p->fail]);
	kr_json_string(stdout, kr_node_name(f, f->owner[p->at]));
	json_name(f, f->owner[p->at], "at_name");
	printf(", \"at_port\": %u}\n", kr_port_num(f, p->at));
}

enum { OPT_LFTS = 256, OPT_SL2VL, OPT_PSL, OPT_G2L, OPT_JSON };

static int parse_args(int argc, char **argv, struct cli_inputs *in,
		      const char **src, const char **dst, int *json)
{
	static const struct option opts[] = {
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "sl2vl", required_argument, NULL, OPT_SL2VL },
		{ "path-sl", required_argument, NULL, OPT_PSL },
		{ "guid2lid", required_argument, NULL, OPT_G2L },
		{ "json", no_argument, NULL, OPT_JSON },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_LFTS: in->lfts = optarg; break;
		case OPT_SL2VL: in->sl2vl = optarg; break;
		case OPT_PSL: in->path_sl = optarg; break;
		case OPT_G2L: in->guid2lid = optarg; break;
		case OPT_JSON: *json = 1; cli_json_errors(); break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': path_usage(stdout); return -1;
		default: return cli_usage_error("path", "bad option");
		}
	}
	if (optind + 3 != argc)
		return cli_usage_error("path", "expected TOPOLOGY (or DIR), SRC "
				       "and DST");
	in->topo = argv[optind];
	*src = argv[optind + 1];
	*dst = argv[optind + 2];
	return 0;
}

int cmd_path(int argc, char **argv)
{
	struct cli_inputs in = { 0 };
	struct kr_fabric f = { 0 };
	struct kr_tables t = { 0 };
	struct kr_path p = { 0 };
	const char *src_arg = NULL, *dst_arg = NULL;
	uint32_t src, dst;
	unsigned lid, dlid;
	int json = 0, rc = parse_args(argc, argv, &in, &src_arg, &dst_arg, &json);

	if (rc)
		return rc < 0 ? 0 : rc;
	rc = cli_read_inputs("path", &in, &f, &t);
	if (!rc)
		rc = resolve(&f, src_arg, &src, &lid);
	if (!rc)
		rc = resolve(&f, dst_arg, &dst, &dlid);
	if (!rc && kr_check_path(&f, &t, src, dlid ? dlid : f.lid[dst], &p)) {
		rc = cli_input_error("path", "out of memory");
	} else if (!rc) {
		if (json)
			json_path(&f, &p);
		else
			text_path(&f, &p);
		rc = fflush(stdout) ? EXIT_USAGE : p.fail < 0 ? 0 : EXIT_PROBLEM;
	}
	kr_path_free(&p);
	kr_tables_free(&t);
	kr_fabric_free(&f);
	return rc;
}
