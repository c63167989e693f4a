/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pictures read back: every SVG is checked for balanced, well-formed
 * elements, then its parts are counted against the fabric: a link
 * element per direction of every switch-to-switch cable, a box per
 * switch, a dashed piece per missing link (two for a ring's wraparound or
 * a tick dimension: one stub at each end), a dashed box per missing
 * switch, a cycle edge per witness channel. The report page's sections
 * and its JSON reader are checked the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "draw_int.h"
#include "kr.h"
#include "kr_draw.h"
#include "topo_check.h"

/* Balanced tags, quoted attributes, no stray '<' or '&' in text: NULL,
 * or what is wrong. Enough for what kr_draw_svg writes. */
static const char *well_formed(const char *s)
{
	static char why[160];
	char stack[64][24];
	unsigned depth = 0;

	for (const char *p = s; *p; p++) {
		size_t n;
		int closing;

		if (*p == '&' && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
		    strncmp(p, "&amp;", 5) && strncmp(p, "&quot;", 6) &&
		    strncmp(p, "&#", 2))
			return "a bare '&'";
		if (*p != '<')
			continue;
		closing = p[1] == '/';
		p += 1 + closing;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-");
		if (!n || n >= sizeof(stack[0]))
			return "a '<' that opens no element";
		if (closing) {
			if (!depth || strncmp(stack[depth - 1], p, n) ||
			    stack[depth - 1][n])
				return "a closing tag that closes nothing open";
			depth--;
		} else {
			const char *end = p + n;
			int quoted = 0;

			while (*end && (quoted || *end != '>')) {
				quoted ^= *end == '"';
				end++;
			}
			if (!*end)
				return "an unfinished tag";
			if (end[-1] != '/') {
				if (depth == 64)
					return "too deep";
				snprintf(stack[depth++], sizeof(stack[0]), "%.*s",
					 (int)n, p);
			}
			p = end;
		}
	}
	if (depth) {
		snprintf(why, sizeof(why), "<%s> never closed", stack[depth - 1]);
		return why;
	}
	return NULL;
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static char *svg_of(const struct kr_fabric *f, const struct kr_draw_layout *l,
		    const struct kr_draw_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	const char *why;

	assert_non_null(mem);
	assert_int_equal(kr_draw_svg(mem, f, l, o), KR_OK);
	assert_int_equal(fclose(mem), 0);
	why = well_formed(text);
	if (why)
		fail_msg("not well formed: %s", why);
	return text;
}

/* Directed links between two switches: each is drawn once. */
static unsigned switch_links(const struct kr_fabric *f)
{
	unsigned n = 0;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)
		n += f->peer[s] >= 0 && kr_is_switch(f, f->owner[f->peer[s]]);
	return n;
}

/* Dashed pieces recognition's missing links make: a line, or two stubs
 * (wraparound, or a dimension drawn as ticks) for a torus; one line or
 * tick for KNS, router to crossbar. */
static unsigned missing_pieces(const struct kr_topo *t)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < t->nmissing_link; i++) {
		const struct kr_missing_link *m = &t->missing_link[i];
		unsigned c = kr_topo_coord(t, m->pos, m->dim);

		n += t->family == KR_FAMILY_KNS ? 1 :
		     m->dim >= 2 || c + 1 == t->k[m->dim] ? 2 : 1;
	}
	return n;
}

static void gen(struct kr_gen_opts o, struct kr_fabric *f, struct kr_topo *t)
{
	struct kr_diag d = { 0 };

	assert_int_equal(kr_gen(&o, f, NULL, NULL, NULL, &d), KR_OK);
	if (kr_topo_recognize(f, NULL, t, &d))
		fail_msg("not recognised: %s", d.msg);
}

static void grid_counts(struct kr_gen_opts o, unsigned want_missing)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_draw_layout l;
	struct kr_draw_opts opt = { .id = "t" };
	char *svg;

	gen(o, &f, &t);
	assert_int_equal(t.nmissing_link, want_missing);
	assert_int_equal(kr_draw_layout_grid(&f, &t, &l), KR_OK);
	svg = svg_of(&f, &l, &opt);
	assert_int_equal(count(svg, "class=\"link\""), switch_links(&f));
	assert_int_equal(count(svg, "class=\"switch\""), f.nsw);
	assert_int_equal(count(svg, "class=\"missing-link\""),
			 missing_pieces(&t));
	assert_int_equal(count(svg, "class=\"missing-switch\""), 0);
	assert_int_equal(count(svg, "class=\"cycle-edge\""), 0);
	assert_int_equal(count(svg, "<svg "), 1);
	free(svg);
	kr_draw_layout_free(&l);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* 4x4 torus, links left out at random (wraparounds among them, seed 3). */
static void test_torus_2d(void **state)
{
	(void)state;
	grid_counts((struct kr_gen_opts){ .family = KR_FAMILY_TORUS, .ndim = 2,
		.k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1, .shuffle = 1,
		.shuffle_seed = 5, .fail = 3, .fail_seed = 3 }, 3);
}

/* 4x3x3: z links as ticks, slices with captions. */
static void test_torus_3d(void **state)
{
	(void)state;
	grid_counts((struct kr_gen_opts){ .family = KR_FAMILY_TORUS, .ndim = 3,
		.k = { 4, 3, 3 }, .wrap = { 1, 1, 1 }, .p = 1, .fail = 4,
		.fail_seed = 2 }, 4);
}

static void test_mesh_parallel(void **state)
{
	(void)state;
	grid_counts((struct kr_gen_opts){ .family = KR_FAMILY_MESH, .ndim = 2,
		.k = { 3, 5 }, .p = 2, .parallel = 2, .fail = 1 }, 1);
}

/* KNS: crossbars as bars, each router's link to one; fat-tree subnets. */
static void test_kns(void **state)
{
	(void)state;
	grid_counts((struct kr_gen_opts){ .family = KR_FAMILY_KNS, .ndim = 2,
		.k = { 4, 4 }, .p = 2, .shuffle = 1, .shuffle_seed = 9,
		.fail = 2, .fail_seed = 5 }, 2);
	grid_counts((struct kr_gen_opts){ .family = KR_FAMILY_KNS, .ndim = 2,
		.k = { 8, 8 }, .p = 1, .radix = 4 }, 0);
}

/* A switch taken out: one dashed box, with its coordinates, and no link
 * element for the cables it took along. */
static void test_missing_switch(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1 };
	struct kr_fabric f, g;
	struct tc_truth tr, tr2;
	struct kr_topo t;
	struct kr_draw_layout l;
	struct kr_draw_opts opt = { .id = "m" };
	struct kr_diag d = { 0 };
	uint8_t *drop;
	char *svg;

	(void)state;
	tc_gen(&o, &f, &tr);
	drop = calloc(f.nnode, 1);
	assert_non_null(drop);
	drop[5] = 1;
	tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
	assert_int_equal(kr_topo_recognize(&g, NULL, &t, &d), KR_OK);
	assert_int_equal(t.nmissing_sw, 1);
	assert_int_equal(kr_draw_layout_grid(&g, &t, &l), KR_OK);
	svg = svg_of(&g, &l, &opt);
	assert_int_equal(count(svg, "class=\"missing-switch\""), 1);
	assert_int_equal(count(svg, "class=\"switch\""), 15);
	assert_int_equal(count(svg, "class=\"link\""), switch_links(&g));
	assert_non_null(strstr(svg, "<title>missing switch ("));
	free(svg);
	free(drop);
	kr_draw_layout_free(&l);
	kr_topo_free(&t);
	tc_truth_free(&tr);
	tc_truth_free(&tr2);
	kr_fabric_free(&f);
	kr_fabric_free(&g);
}

/* A ring of 4 switches S0..S3 (port 2 to the next, 3 to the previous),
 * a CA on port 1 of each; every LID routed the + way on VL 0: a credit
 * loop of 4 channels. */
static void ring(struct kr_fabric *f, struct kr_tables *t)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int sw[4], ca[4];
	char name[16];

	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "S%u", i);
		sw[i] = kr_fb_add_node(b, KR_SWITCH, 3, 0x100 + i, name, NULL,
				       0, NULL);
		snprintf(name, sizeof(name), "H%u", i);
		ca[i] = kr_fb_add_node(b, KR_CA, 1, 0x1000 + i, name, NULL, 0,
				       NULL);
	}
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(kr_fb_link(b, sw[i], 1, ca[i], 1, 0, NULL), 0);
		assert_int_equal(kr_fb_link(b, sw[i], 2, sw[(i + 1) % 4], 3, 0,
					    NULL), 0);
		kr_fb_set_port(b, sw[i], 0, 0, (uint16_t)(i + 1), 0, 0, NULL);
		kr_fb_set_port(b, ca[i], 1, 0, (uint16_t)(5 + i), 0, 0, NULL);
	}
	assert_int_equal(kr_fb_finish(b, f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_tables_init(t, f, f->max_lid + 1, 1, 1), KR_OK);
	for (uint32_t s = 0; s < 4; s++)
		for (unsigned lid = 1; lid <= 8; lid++)
			t->lft[s * t->stride + lid] =
				(lid - 1) % 4 != s ? 2 : lid <= 4 ? 0 : 1;
}

/* What `dot -Tplain` says of the ring, by hand: a square. */
static const char ring_plain[] =
	"graph 1 2.5 2.5\n"
	"node s0 0.5 0.5 0.62 0.34 s0 solid box black lightgrey\n"
	"node s1 2.0 0.5 0.62 0.34 s1 solid box black lightgrey\n"
	"node s2 2.0 2.0 0.62 0.34 s2 solid box black lightgrey\n"
	"node s3 0.5 2.0 0.62 0.34 s3 solid box black lightgrey\n"
	"edge s0 s1 4 0.5 0.5 1 0.5 1.5 0.5 2.0 0.5 solid black\n"
	"stop\n";

static void read_plain(const char *text, const struct kr_fabric *f,
		       struct kr_draw_layout *l, int want, unsigned line)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct kr_diag d = { 0 };

	assert_non_null(in);
	assert_int_equal(kr_draw_plain_read(in, f, l, &d), want);
	assert_int_equal(d.line, line);
	fclose(in);
}

static void test_cycle_on_dot_layout(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	struct kr_check_opts co = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_diag d = { 0 };
	struct kr_draw_layout l;
	struct kr_draw_opts o = { .id = "c" };
	const struct kr_check_class *c;
	char *svg;

	(void)state;
	ring(&f, &t);
	assert_int_equal(kr_check_run(&f, &t, &co, &r, &d), KR_ECYCLE);
	c = &r.cls[kr_check_deciding(&r)];
	assert_int_equal(c->ncycle, 4);
	read_plain(ring_plain, &f, &l, KR_OK, 0);
	o.load = r.link_load;
	o.load_max = r.load_max;
	o.cycle = c->cycle;
	o.ncycle = c->ncycle;
	svg = svg_of(&f, &l, &o);
	assert_int_equal(count(svg, "class=\"cycle-edge\""), 4);
	assert_int_equal(count(svg, ": VL 0</text>"), 4);
	assert_int_equal(count(svg, "class=\"link\""), 8);
	assert_int_equal(count(svg, "class=\"switch\""), 4);
	assert_non_null(strstr(svg, "marker-end=\"url(#c-arrow)\""));
	assert_non_null(strstr(svg, "paths per link direction"));
	free(svg);
	kr_draw_layout_free(&l);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static char *dot_of(const struct kr_fabric *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	assert_non_null(mem);
	assert_int_equal(kr_draw_dot_write(mem, f), KR_OK);
	fclose(mem);
	return text;
}

/* Two leaves with a CA each under one spine, cabled twice to leaf 0. */
static void tree(struct kr_fabric *f)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int spine = kr_fb_add_node(b, KR_SWITCH, 4, 0x300, "spine", NULL, 0,
				   NULL);

	for (unsigned i = 0; i < 2; i++) {
		int leaf = kr_fb_add_node(b, KR_SWITCH, 4, 0x200 + i,
					  i ? "leaf1" : "leaf0", NULL, 0, NULL);
		int ca = kr_fb_add_node(b, KR_CA, 1, 0x2000 + i,
					i ? "ca1" : "ca0", NULL, 0, NULL);

		assert_int_equal(kr_fb_link(b, leaf, 1, ca, 1, 0, NULL), 0);
		assert_int_equal(kr_fb_link(b, leaf, 2, spine, 1 + i, 0, NULL),
				 0);
		if (i == 0)
			assert_int_equal(kr_fb_link(b, leaf, 3, spine, 3, 0,
						    NULL), 0);
	}
	assert_int_equal(kr_fb_finish(b, f, NULL), KR_OK);
	kr_fb_free(b);
}

/* The graph for dot: a node per switch, an edge per linked pair (from
 * the leaf up); the tree in layers, the ring (switches with CAs linked
 * to each other) by the spring model. */
static void test_dot_write_and_bad_plain(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_draw_layout l;
	char *text;

	(void)state;
	tree(&f);
	text = dot_of(&f);
	assert_int_equal(count(text, " -> "), 2);
	assert_non_null(strstr(text, "s0 -> s2;"));	/* leaves 0, 1; spine 2 */
	assert_non_null(strstr(text, "{ rank=same; s0; s1; }"));
	assert_null(strstr(text, "neato"));
	free(text);
	kr_fabric_free(&f);
	ring(&f, &t);
	text = dot_of(&f);
	assert_int_equal(count(text, " -> "), 4);
	assert_non_null(strstr(text, "layout=neato;"));
	assert_null(strstr(text, "rank=same"));
	free(text);
	read_plain("graph 1 2 2\nnode s7 1 1 0.5 0.3 x\nstop\n", &f, &l,
		   KR_EPARSE, 2);
	read_plain("graph 1 2 2\nnode s0 1 1 0.5 0.3 x\n", &f, &l, KR_EPARSE, 2);
	read_plain("graph 1 2 2\nnode s0 1 1 0.5 0.3 x\nstop\n", &f, &l,
		   KR_EPARSE, 3);	/* s1..s3 have no place */
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static void test_json_reader(void **state)
{
	struct draw_json_member m[8];
	const char *s = " {\"a\": 1.5e3, \"b\": \"x\\\"y\", \"c\": [1, {\"d\": "
			"\"]\"}], \"e\": null}\n{}";
	size_t at = 0;

	(void)state;
	assert_int_equal(draw_json_object(s, &at, m, 8), 4);
	assert_int_equal(m[0].kind, 'n');
	assert_int_equal(m[0].nval, 5);
	assert_int_equal(m[1].kind, 's');
	assert_memory_equal(m[1].val, "x\\\"y", 4);
	assert_int_equal(m[2].kind, '[');
	assert_int_equal(m[2].nval, 15);
	assert_int_equal(m[3].nval, 4);
	assert_int_equal(draw_json_object(s, &at, m, 8), 0);
	at = 0;
	assert_int_equal(draw_json_object("{\"a\": [1, 2}", &at, m, 8), -1);
	at = 0;
	assert_int_equal(draw_json_object("{\"a\" 1}", &at, m, 8), -1);
	assert_int_equal(at, 5);
}

static char *page(const struct kr_report *rep, int want, struct kr_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	assert_non_null(mem);
	assert_int_equal(kr_report_write(mem, rep, d), want);
	fclose(mem);
	return text;
}

/* The page's sections, the results tables, and a bad faults file named
 * with the byte where it goes wrong. */
static void test_report(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	struct kr_check_opts co = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_diag d = { 0 };
	struct kr_report_file svg = { "picture", "<svg class=\"kr-fabric\"></svg>" };
	struct kr_report_file faults = { "faults.json", "{\"trials\": 3, "
					 "\"first_failure\": null}" };
	struct kr_report_file sim[2] = {
		{ "sim.json", "{\"pattern\":\"uniform\",\"accepted\":0.5,"
			      "\"windows\":[]}\n{\"pattern\":\"uniform\","
			      "\"accepted\":0.7,\"windows\":[]}\n" },
		{ "sim-bad.json", "{\"pattern\" \"x\"}" } };
	struct kr_report rep = { .title = "dir<1>", .fabric = "a ring",
		.summary = "plan: SL bits: 0-1 x; SL 0: m (VL 4; u)\n",
		.f = &f, .t = &t, .r = &r, .check_text = "verdict: <x>",
		.svg = &svg, .nsvg = 1, .faults = &faults, .nfaults = 1,
		.sim = sim, .nsim = 1 };
	char *html;

	(void)state;
	ring(&f, &t);
	assert_int_equal(kr_check_run(&f, &t, &co, &r, &d), KR_ECYCLE);
	html = page(&rep, KR_OK, &d);
	for (const char *const *id = (const char *const[]){ "summary", "plan",
	     "check", "pictures", "links", "faults", "sim", NULL }; *id; id++) {
		char want[64];

		snprintf(want, sizeof(want), "<section id=\"%s\">", *id);
		if (!strstr(html, want))
			fail_msg("no %s", want);
	}
	assert_non_null(strstr(html, "<title>knsroute report: dir&lt;1&gt;"));
	assert_int_equal(count(html, "<li>"), 2);	/* "; u" stays inside */
	assert_non_null(strstr(html, "<span class=\"bad\">credit_loop</span>"));
	assert_int_equal(count(html, "<tr><th>trials</th>"), 1);
	assert_int_equal(count(html, "<td class=\"n\">0.7</td>"), 1);
	assert_null(strstr(html, "windows"));	/* arrays stay out */
	assert_null(strstr(html, "http"));	/* nothing to fetch */
	free(html);
	rep.sim = sim + 1;
	html = page(&rep, KR_EPARSE, &d);
	assert_non_null(strstr(d.msg, "sim-bad.json: byte 12: expected"));
	free(html);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torus_2d),
		cmocka_unit_test(test_torus_3d),
		cmocka_unit_test(test_mesh_parallel),
		cmocka_unit_test(test_kns),
		cmocka_unit_test(test_missing_switch),
		cmocka_unit_test(test_cycle_on_dot_layout),
		cmocka_unit_test(test_dot_write_and_bad_plain),
		cmocka_unit_test(test_json_reader),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
