/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute info: what a topology file holds, at a glance. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void info_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute info [--json | --links | --nodes] FILE\n"
"\n"
"Summarises a topology (ibnetdiscover or iblinkinfo output, opensm-subnet.lst\n"
"or an ibsim net file; a directory: its topology.net, opensm-subnet.lst or\n"
"ibdiagnet.lst): node and link counts, unconnected ports, LIDs, switch\n"
"port counts, parallel links and connected components. Use /dev/stdin to\n"
"read a pipe.\n"
"\n"
"Options:\n"
"  --json      one JSON object instead of text, with these keys:\n"
"                switches, cas, routers      node counts\n"
"                links.switch_switch, links.switch_ca, links.ca_ca\n"
"                                            link counts (routers count as CAs)\n"
"                unconnected.switch_ports, unconnected.ca_ports\n"
"                                            ports 1..N without a link\n"
"                lids.present                \"all\", \"some\" or \"none\" of the\n"
"                                            endpoints (switch port 0, linked\n"
"                                            CA ports) carry a LID\n"
"                lids.with_lid, lids.endpoints   the two counts behind it\n"
"                lids.lmc                    sorted LMC values in use\n"
"                switch_ports                {\"PORTS\": switches} histogram\n"
"                parallel.pairs              switch pairs joined by >1 link\n"
"                parallel.max                most links between one pair\n"
"                                            (0 without switch-switch links)\n"
"                components.count            connected components\n"
"                components.sizes            their node counts, largest first\n"
"  --links     one line per link, \"GUID_A PORT_A GUID_B PORT_B\" (node GUIDs\n"
"              in hex, the smaller end first), sorted: two files with the\n"
"              same GUIDs and cabling print the same lines\n"
"  --nodes     one line per node, \"GUID TYPE NPORTS PORTGUID...\" (switch:\n"
"              port 0's GUID; CA, router: each port's), sorted by GUID\n"
"  -h, --help  this text\n"
"\n"
"Exit status: 0, or 2 (with FILE:LINE) when the file does not parse.\n");
}

struct info {
	uint32_t ca, rt;
	uint32_t l_sw, l_ca, l_caca;	/* links by kind */
	uint32_t un_sw, un_ca;		/* unconnected ports */
	uint32_t with_lid, endpoints;
	uint8_t lmc_used[8];
	uint32_t hist[256];		/* switches by port count */
	uint32_t par_pairs, par_max;
	uint32_t ncomp;
	uint32_t *comp_size;		/* [ncomp], largest first */
};

static void count_ports(const struct kr_fabric *f, struct info *in)
{
	for (uint32_t n = 0; n < f->nnode; n++) {
		bool sw = kr_is_switch(f, n);

		if (sw)
			in->hist[f->nports[n]]++;
		else if (f->type[n] == KR_ROUTER)
			in->rt++;
		else
			in->ca++;
		for (unsigned p = 1; p <= f->nports[n]; p++) {
			int32_t peer = f->peer[kr_port(f, n, p)];
			bool far_sw = peer >= 0 && kr_is_switch(f, f->owner[peer]);

			if (peer < 0 && sw)
				in->un_sw++;
			else if (peer < 0)
				in->un_ca++;
			else if ((uint32_t)peer < kr_port(f, n, p))
				continue;	/* counted from the other end */
			else if (sw && far_sw)
				in->l_sw++;
			else if (sw || far_sw)
				in->l_ca++;
			else
				in->l_caca++;
		}
	}
}

static void count_lids(const struct kr_fabric *f, struct info *in)
{
	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t n = f->owner[s];
		bool endpoint = kr_is_switch(f, n) ? s == f->port0[n] :
				s != f->port0[n] && f->peer[s] >= 0;

		if (!endpoint)
			continue;
		in->endpoints++;
		if (f->lid[s]) {
			in->with_lid++;
			in->lmc_used[f->lmc[s] & 7] = 1;
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Far switches of each switch, sorted: equal neighbours are parallel links. */
static void count_parallel(const struct kr_fabric *f, struct info *in)
{
	uint32_t nb[256];

	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned m = 0;

		for (unsigned p = 1; p <= f->nports[sw]; p++) {
			int32_t peer = f->peer[kr_port(f, sw, p)];

			if (peer >= 0 && f->owner[peer] > sw &&
			    kr_is_switch(f, f->owner[peer]))
				nb[m++] = f->owner[peer];
		}
		qsort(nb, m, sizeof(nb[0]), cmp_u32);
		for (unsigned i = 0, j; i < m; i = j) {
			for (j = i + 1; j < m && nb[j] == nb[i]; j++)
				;
			in->par_pairs += j - i > 1;
			if (j - i > in->par_max)
				in->par_max = j - i;
		}
	}
}

static int cmp_desc(const void *a, const void *b)
{
	return cmp_u32(b, a);
}

/* Breadth-first over nodes; queue doubles as the visit order. */
static int count_components(const struct kr_fabric *f, struct info *in)
{
	uint32_t *queue = malloc(f->nnode * sizeof(*queue));
	uint8_t *seen = calloc(f->nnode, 1);

	in->comp_size = malloc(f->nnode * sizeof(*in->comp_size));
	if (!queue || !seen || !in->comp_size) {
		free(queue);
		free(seen);
		return -1;
	}
	for (uint32_t root = 0, tail = 0; root < f->nnode; root++) {
		uint32_t head = tail, start = tail;

		if (seen[root])
			continue;
		seen[root] = 1;
		queue[tail++] = root;
		for (; head < tail; head++) {
			uint32_t n = queue[head];

			for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++) {
				uint32_t m;

				if (f->peer[s] < 0 || seen[m = f->owner[f->peer[s]]])
					continue;
				seen[m] = 1;
				queue[tail++] = m;
			}
		}
		in->comp_size[in->ncomp++] = tail - start;
	}
	free(queue);
	free(seen);
	qsort(in->comp_size, in->ncomp, sizeof(uint32_t), cmp_desc);
	return 0;
}

static void lmc_list(const struct info *in, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned l = 0; l < 8 && used < len; l++)
		if (in->lmc_used[l])
			used += (size_t)snprintf(buf + used, len - used, "%s%u",
						 used ? "," : "", l);
}

static const char *lid_presence(const struct info *in)
{
	if (!in->with_lid)
		return "none";
	return in->with_lid == in->endpoints ? "all" : "some";
}

static void print_text(const struct kr_fabric *f, const struct info *in)
{
	char lmc[32];
	const char *sep = " (";

	printf("switches     %" PRIu32, f->nsw);
	for (unsigned p = 255; p-- > 0;)
		if (in->hist[p]) {
			printf("%s%" PRIu32 " with %u ports", sep, in->hist[p], p);
			sep = ", ";
		}
	printf("%s\n", f->nsw ? ")" : "");
	printf("CAs          %" PRIu32 "\n", in->ca);
	printf("routers      %" PRIu32 "\n", in->rt);
	printf("links        %" PRIu32 " switch-switch, %" PRIu32 " switch-CA, %"
	       PRIu32 " CA-CA\n", in->l_sw, in->l_ca, in->l_caca);
	printf("unconnected  %" PRIu32 " switch ports, %" PRIu32 " CA ports\n",
	       in->un_sw, in->un_ca);
	lmc_list(in, lmc, sizeof(lmc));
	printf("LIDs         %s (%" PRIu32 " of %" PRIu32 " endpoints)%s%s\n",
	       lid_presence(in), in->with_lid, in->endpoints,
	       in->with_lid ? ", LMC " : "", lmc);
	printf("parallel     %" PRIu32 " switch pairs with more than one link, "
	       "at most %" PRIu32 "\n", in->par_pairs, in->par_max);
	printf("components   %" PRIu32 " (", in->ncomp);
	for (uint32_t i = 0; i < in->ncomp && i < 8; i++)
		printf("%s%" PRIu32, i ? ", " : "", in->comp_size[i]);
	printf("%s nodes)\n", in->ncomp > 8 ? ", ..." : "");
}

static void print_json(const struct kr_fabric *f, const struct info *in)
{
	char lmc[32];
	const char *sep = "";

	lmc_list(in, lmc, sizeof(lmc));
	putchar('{');
	kr_json_version(stdout);
	printf(", \"switches\": %" PRIu32 ", \"cas\": %" PRIu32 ", \"routers\": %"
	       PRIu32 ",\n", f->nsw, in->ca, in->rt);
	printf(" \"links\": {\"switch_switch\": %" PRIu32 ", \"switch_ca\": %"
	       PRIu32 ", \"ca_ca\": %" PRIu32 "},\n", in->l_sw, in->l_ca,
	       in->l_caca);
	printf(" \"unconnected\": {\"switch_ports\": %" PRIu32 ", \"ca_ports\": %"
	       PRIu32 "},\n", in->un_sw, in->un_ca);
	printf(" \"lids\": {\"present\": \"%s\", \"with_lid\": %" PRIu32
	       ", \"endpoints\": %" PRIu32 ", \"lmc\": [%s]},\n",
	       lid_presence(in), in->with_lid, in->endpoints, lmc);
	printf(" \"switch_ports\": {");
	for (unsigned p = 0; p < 256; p++)
		if (in->hist[p]) {
			printf("%s\"%u\": %" PRIu32, sep, p, in->hist[p]);
			sep = ", ";
		}
	printf("},\n \"parallel\": {\"pairs\": %" PRIu32 ", \"max\": %" PRIu32
	       "},\n", in->par_pairs, in->par_max);
	printf(" \"components\": {\"count\": %" PRIu32 ", \"sizes\": [",
	       in->ncomp);
	for (uint32_t i = 0; i < in->ncomp; i++)
		printf("%s%" PRIu32, i ? ", " : "", in->comp_size[i]);
	printf("]}}\n");
}

struct link_row {
	uint64_t ga, gb;
	unsigned pa, pb;
};

static int cmp_link(const void *a, const void *b)
{
	const struct link_row *x = a, *y = b;

	if (x->ga != y->ga)
		return x->ga < y->ga ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	if (x->gb != y->gb)
		return x->gb < y->gb ? -1 : 1;
	return (x->pb > y->pb) - (x->pb < y->pb);
}

static int print_links(const struct kr_fabric *f)
{
	struct link_row *row = malloc((f->nport / 2 + 1) * sizeof(*row));
	uint32_t n = 0;

	if (!row)
		return -1;
	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t t = (uint32_t)f->peer[s];
		struct link_row r;

		if (f->peer[s] < 0 || t < s)
			continue;	/* no link, or listed from its other end */
		r = (struct link_row){ f->guid[f->owner[s]], f->guid[f->owner[t]],
				       kr_port_num(f, s), kr_port_num(f, t) };
		if (r.gb < r.ga || (r.gb == r.ga && r.pb < r.pa))
			r = (struct link_row){ r.gb, r.ga, r.pb, r.pa };
		row[n++] = r;
	}
	qsort(row, n, sizeof(*row), cmp_link);
	for (uint32_t i = 0; i < n; i++)
		printf("0x%016" PRIx64 " %u 0x%016" PRIx64 " %u\n", row[i].ga,
		       row[i].pa, row[i].gb, row[i].pb);
	free(row);
	return 0;
}

struct node_row {
	uint64_t guid;
	uint32_t node;
};

static int cmp_node_row(const void *a, const void *b)
{
	uint64_t x = ((const struct node_row *)a)->guid;
	uint64_t y = ((const struct node_row *)b)->guid;

	return (x > y) - (x < y);
}

static int print_nodes(const struct kr_fabric *f)
{
	static const char *const type_name[] = { "?", "Ca", "Switch", "Rt" };
	struct node_row *row = malloc(f->nnode * sizeof(*row));

	if (!row)
		return -1;
	for (uint32_t n = 0; n < f->nnode; n++)
		row[n] = (struct node_row){ f->guid[n], n };
	qsort(row, f->nnode, sizeof(*row), cmp_node_row);
	for (uint32_t i = 0; i < f->nnode; i++) {
		uint32_t n = row[i].node;
		bool sw = kr_is_switch(f, n);

		printf("0x%016" PRIx64 " %s %u", f->guid[n],
		       type_name[f->type[n] & 3], f->nports[n]);
		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0u : f->nports[n]); p++)
			printf(" 0x%016" PRIx64, f->port_guid[kr_port(f, n, p)]);
		putchar('\n');
	}
	free(row);
	return 0;
}

enum info_mode { MODE_TEXT, MODE_JSON, MODE_LINKS, MODE_NODES };

static int summarise(const struct kr_fabric *f, bool json)
{
	struct info in = { 0 };
	int rc;

	count_ports(f, &in);
	count_lids(f, &in);
	count_parallel(f, &in);
	rc = count_components(f, &in);
	if (!rc && json)
		print_json(f, &in);
	else if (!rc)
		print_text(f, &in);
	free(in.comp_size);
	return rc;
}

static int report(const struct kr_fabric *f, enum info_mode mode)
{
	int rc;

	if (mode == MODE_LINKS)
		rc = print_links(f);
	else if (mode == MODE_NODES)
		rc = print_nodes(f);
	else
		rc = summarise(f, mode == MODE_JSON);
	if (rc)
		fprintf(stderr, "knsroute info: out of memory\n");
	if (!rc && fflush(stdout))
		rc = -1;
	return rc ? EXIT_USAGE : 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "links", no_argument, NULL, 'l' },
		{ "nodes", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	enum info_mode mode = MODE_TEXT;
	unsigned nmode = 0;
	struct kr_fabric f;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': mode = MODE_JSON; nmode++; cli_json_errors(); break;
		case 'l': mode = MODE_LINKS; nmode++; break;
		case 'n': mode = MODE_NODES; nmode++; break;
		case 'h': info_usage(stdout); return 0;
		default: return cli_usage_error("info", "bad option");
		}
	}
	if (nmode > 1)
		return cli_usage_error("info", "--json, --links and --nodes "
				       "exclude each other");
	if (optind != argc - 1)
		return cli_usage_error("info", "expected one topology FILE");
	rc = cli_read_fabric(argv[optind], &f);
	if (rc)
		return rc;
	rc = report(&f, mode);
	kr_fabric_free(&f);
	return rc;
}
