/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute topo: recognise a topology file as KNS, torus, mesh or MiKANT and say
 * what it is, what is missing, and where every switch sits. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pictures.h"

static void topo_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute topo FILE [--conf F] [--coords] [--json] [--cache-out F]\n"
"                     [--svg F]\n"
"\n"
"Recognises the fabric in FILE (ibnetdiscover or iblinkinfo output,\n"
"opensm-subnet.lst or an ibsim net file; a directory: its topology.net,\n"
"opensm-subnet.lst or ibdiagnet.lst) as a KNS (k-ary n-direct\n"
"s-indirect), torus, mesh or MiKANT (mirrored k-ary n-tree) from its\n"
"links alone and prints the family and sizes (KNS with s > 1: the\n"
"stages, the radix and every subnet switch's [dimension, position,\n"
"stage, order]; MiKANT: every switch's address (G,L,D[n-2]..D[0])), then the\n"
"expected links and switches that are missing. Pendant switches (trees\n"
"that reach the rest only through one switch: a leaf switch for a few\n"
"hosts) are left out of the grid and hang off that switch.\n"
"knsroute.conf(5) describes the labelling rule and what a conf file\n"
"can pin.\n"
"\n"
"  --conf F       knsroute.conf to honour (family, dims, seed, coordinates)\n"
"  --coords       also list every switch: GUID and coordinates ('*' marks a\n"
"                 crossbar's own dimension), the coordinates file format\n"
"  --json         one JSON object instead: family, dims, wrap (not for KNS),\n"
"                 p, parallel, switches, cas, coords (GUID -> list),\n"
"                 crossbars (KNS: GUID -> {dim, line}, null in its own\n"
"                 dimension; s > 1: also stage, order), s (KNS), radix,\n"
"                 missing_subnet_links, missing_subnet_switches (s > 1),\n"
"                 pendants (GUID -> {parent, host}, when there are),\n"
"                 missing_links, missing_switches; when nothing\n"
"                 is recognised: error (and report, one line per conflict)\n"
"  --cache-out F  write the coordinates file F (atomically), the cache that\n"
"                 keeps labels stable across sweeps (coords_cache)\n"
"  --svg F        draw the fabric into F (SVG, written atomically): the\n"
"                 grid by its coordinates (KNS crossbars as\n"
"                 bars beside their lines), missing links dashed red,\n"
"                 missing switches as dashed red boxes; a fabric not\n"
"                 recognised is laid out by Graphviz's dot\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags' map;\n"
"                 default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help     this text\n"
"\n"
"Exit status: 0 recognised, 1 not recognised, 2 usage or input error.\n");
}

static void summary(FILE *out, const struct kr_fabric *f, const struct kr_topo *t)
{
	char line[512];

	kr_topo_describe(line, sizeof(line), f, t);
	fprintf(out, "%s\n", line);
	if (t->family == KR_FAMILY_MIKANT) {
		fprintf(out, "addresses (G,L,D[n-2]..D[0]) of the switches:\n");
		for (uint32_t pos = 0; pos < t->npos; pos++) {
			if (t->pos_sw[pos] < 0)
				continue;
			kr_topo_fmt_pos(t, pos, KR_NO_DIM, line, sizeof(line));
			fprintf(out, "  %s %s\n", line,
				kr_node_label(f, (uint32_t)t->pos_sw[pos]).s);
		}
	}
	if (t->s < 2)
		return;
	fprintf(out, "subnets: s=%u stages, radix %u (%u down, %u up), "
		"[d, p, e, o] of each switch:\n", t->s, 2 * t->arity,
		t->arity, t->arity);
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (t->sw_pos[s] != KR_NONE)
			continue;
		kr_topo_fmt_pos(t, t->sw_xline[s], t->sw_xdim[s], line,
				sizeof(line));
		fprintf(out, "  [%u, %s, %u, %u] %s\n", t->sw_xdim[s], line,
			t->sw_stage[s], t->sw_order[s], kr_node_label(f, s).s);
	}
}

static void missing(FILE *out, const struct kr_topo *t)
{
	char a[96], z[96], nm[16];

	if (t->nmissing_link)
		fprintf(out, "missing links: %u\n", t->nmissing_link);
	for (uint32_t i = 0; i < t->nmissing_link; i++) {
		const struct kr_missing_link *m = &t->missing_link[i];
		unsigned c;

		kr_topo_fmt_pos(t, m->pos, KR_NO_DIM, a, sizeof(a));
		if (t->family == KR_FAMILY_MIKANT) {
			kr_topo_fmt_pos(t, kr_mk_up_pos(t, m->pos, m->dim),
					KR_NO_DIM, z, sizeof(z));
			fprintf(out, "  %s - %s\n", a, z);
			continue;
		}
		c = kr_topo_coord(t, m->pos, m->dim);
		if (t->family == KR_FAMILY_KNS) {
			kr_topo_fmt_pos(t, m->pos - c * t->stride[m->dim], m->dim,
					z, sizeof(z));
			fprintf(out, "  router %s - %s %s\n", a,
				t->s > 1 ? "subnet" : "crossbar", z);
			continue;
		}
		kr_topo_fmt_pos(t, m->pos - c * t->stride[m->dim] +
				(c + 1) % t->k[m->dim] * t->stride[m->dim],
				KR_NO_DIM, z, sizeof(z));
		fprintf(out, "  %s +%s %s\n", a, kr_dim_name(m->dim, nm, sizeof(nm)), z);
	}
	if (t->nmissing_sublink || t->nmissing_subsw)
		fprintf(out, "missing inside subnets: %u links, %u switches\n",
			t->nmissing_sublink, t->nmissing_subsw);
	if (t->nmissing_sw)
		fprintf(out, "missing switches: %u\n", t->nmissing_sw);
	for (uint32_t i = 0; i < t->nmissing_sw; i++) {
		const struct kr_missing_sw *m = &t->missing_sw[i];

		kr_topo_fmt_pos(t, m->pos, m->xdim, a, sizeof(a));
		fprintf(out, "  %s %s\n", m->xdim == KR_NO_DIM ?
			(t->family == KR_FAMILY_KNS ? "router" : "switch") :
			"crossbar", a);
	}
}

static void coords(FILE *out, const struct kr_fabric *f, const struct kr_topo *t)
{
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint32_t pos = t->sw_pos[s] != KR_NONE ? t->sw_pos[s] : t->sw_xline[s];

		fprintf(out, "0x%016" PRIx64, f->guid[s]);
		for (unsigned d = 0; d < t->ndim; d++) {
			if (t->sw_pos[s] == KR_NONE && d == t->sw_xdim[s])
				fputs(" *", out);
			else
				fprintf(out, " %u", kr_topo_coord(t, pos, d));
		}
		fprintf(out, "  # %s\n", kr_node_label(f, s).s);
	}
}

/* The report's lines (conflicts, notes) as a JSON list. */
static void json_report(FILE *out, const char *report)
{
	const char *p = report;

	fputs("[", out);
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char line[400];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		fputs(p == report ? "" : ", ", out);
		kr_json_string(out, line);
		p += n + (p[n] == '\n');
	}
	fputs("]", out);
}

struct topo_opts {
	const char *file, *conf, *cache_out, *svg;
	int coords, json;
};

static void report(const struct topo_opts *o, const struct kr_fabric *f,
		   const struct kr_topo *t)
{
	const char *p = t->report;

	if (o->json) {
		kr_topo_write_json(stdout, f, t);
		return;
	}
	summary(stdout, f, t);
	missing(stdout, t);
	while (p && *p) {	/* e.g. a cache set aside */
		size_t n = strcspn(p, "\n");

		printf("note: %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (o->coords)
		coords(stdout, f, t);
}

static int failed(const struct topo_opts *o, const struct kr_topo *t,
		  const struct kr_diag *d)
{
	if (!o->json) {
		cli_say("%s: not recognised: %s", o->file, d->msg);
		if (t->report)
			fprintf(stderr, "%s", t->report);
		return EXIT_PROBLEM;
	}
	putchar('{');
	kr_json_version(stdout);
	fputs(", \"error\": ", stdout);
	kr_json_string(stdout, d->msg);
	fputs(", \"report\": ", stdout);
	json_report(stdout, t->report);
	fputs("}\n", stdout);
	cli_json_error_done();
	return EXIT_PROBLEM;
}

static int write_cache(const char *path, const struct kr_fabric *f,
		       const struct kr_topo *t)
{
	struct kr_diag d = { 0 };

	return kr_topo_cache_save(path, KR_TO_NAMED, f, t, &d) ? cli_error(&d) : 0;
}

/* The picture, recognised (t) or not (NULL): laid out by dot then. */
static int draw(const struct topo_opts *o, const struct kr_fabric *f,
		const struct kr_topo *t)
{
	struct kr_draw_layout l;
	char title[600];
	struct kr_draw_opts d = { .id = "topo", .title = title };
	int rc = pictures_layout(f, t, &l);

	if (rc)
		return rc;
	snprintf(title, sizeof(title), "%s: %s", o->file, l.how);
	rc = pictures_write(o->svg, f, &l, &d);
	kr_draw_layout_free(&l);
	return rc;
}

static int run(const struct topo_opts *o)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_diag d = { .file = o->conf };
	int rc;

	kr_conf_init(&c);
	if (o->conf && kr_conf_load(&c, o->conf, KR_IN_STREAM, &d))
		return cli_error(&d);
	if (cli_read_fabric(o->file, &f))
		return EXIT_USAGE;
	d = (struct kr_diag){ .file = o->file };
	rc = kr_topo_recognize(&f, &c, &t, &d);
	if (o->svg && (!rc || rc == KR_ETOPO)) {
		int drawn = draw(o, &f, rc ? NULL : &t);

		if (drawn) {
			kr_topo_free(&t);
			kr_fabric_free(&f);
			return drawn;
		}
	}
	if (rc == KR_ETOPO)
		rc = failed(o, &t, &d);
	else if (rc)
		rc = cli_error(&d);
	if (!rc && o->cache_out)
		rc = write_cache(o->cache_out, &f, &t);
	if (!rc)
		report(o, &f, &t);
	kr_topo_free(&t);
	kr_fabric_free(&f);
	return rc;
}

int cmd_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "coords", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "cache-out", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 's' },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct topo_opts o = { 0 };
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': o.conf = optarg; break;
		case 'C': o.coords = 1; break;
		case 'j': o.json = 1; cli_json_errors(); break;
		case 'o': o.cache_out = optarg; break;
		case 's': o.svg = optarg; break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': topo_usage(stdout); return 0;
		default: return cli_usage_error("topo", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("topo", "expected one topology file");
	o.file = argv[optind];
	return run(&o);
}
