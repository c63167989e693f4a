/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Recognition from the graph alone: generated KNS, tori and meshes (GUIDs,
 * port numbers and record order shuffled) against the generator's truth,
 * with links and switches missing, fabrics worked by hand, and graphs that
 * are neither family. Conf, pins and cache: test_conf.c. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"
#include "truth.h"
#include "topo_check.h"

static struct kr_gen_opts grid_opts(const char *dims, const char *wrap,
				    unsigned p, unsigned parallel)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_MESH, .p = p,
				 .parallel = parallel };

	assert_int_equal(kr_parse_dims(dims, o.k, &o.ndim, NULL), KR_OK);
	for (unsigned d = 0; d < o.ndim; d++)
		if (wrap[d % strlen(wrap)] == '1') {
			o.wrap[d] = 1;
			o.family = KR_FAMILY_TORUS;
		}
	return o;
}

/* A generated fabric f with its truth tr, and g, tr2 the same without
 * some switches (tc_without). */
static void free_without(struct kr_fabric *f, struct tc_truth *tr,
			 struct kr_fabric *g, struct tc_truth *tr2)
{
	tc_truth_free(tr2);
	tc_truth_free(tr);
	kr_fabric_free(g);
	kr_fabric_free(f);
}

static struct kr_gen_opts kns_opts(const char *dims, unsigned p)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .p = p };

	assert_int_equal(kr_parse_dims(dims, o.k, &o.ndim, NULL), KR_OK);
	return o;
}

/* K2s that all carry the same even number of links read as rings of 2
 * (a 4x4 torus with two links per pair and a 2x2x2x2 torus of 2-rings are
 * the same multigraph); then parallel counts one direction. */
static int all_two_rings(const struct kr_topo *t)
{
	for (unsigned d = 0; d < t->ndim; d++)
		if (t->k[d] != 2 || !t->wrap[d])
			return 0;
	return 1;
}

/* Recognises o's fabric (shuffled with seed, 0: not) and checks it against
 * the truth; returns the fabric and result for more checks. */
static void recognise_ok(struct kr_gen_opts o, uint64_t seed,
			 struct kr_fabric *f, struct kr_topo *t)
{
	struct tc_truth tr;
	struct kr_diag d = { 0 };
	const char *why;

	o.shuffle = seed != 0;
	o.shuffle_seed = seed;
	tc_gen(&o, f, &tr);
	if (kr_topo_recognize(f, NULL, t, &d))
		fail_msg("%s %ux%u.. p%u seed %llu: %s", kr_family_name(o.family),
			 o.k[0], o.k[1], o.p, (unsigned long long)seed, d.msg);
	tc_assert_valid(f, t);
	why = tc_iso(f, &tr, t);
	if (why)
		fail_msg("seed %llu: %s", (unsigned long long)seed, why);
	assert_int_equal(t->npos, tr.grid.npos);
	assert_int_equal(t->p, o.p);
	if (o.family == KR_FAMILY_KNS)
		assert_int_equal(t->parallel, 1);
	else if (!all_two_rings(t))
		assert_int_equal(t->parallel, o.parallel);
	else	/* half the links on each pair of the generated fabric */
		assert_int_equal(2 * t->parallel, o.parallel *
				 (o.wrap[0] && o.k[0] == 2 ? 2 : 1));
	assert_int_equal(t->nmissing_link, 0);
	assert_int_equal(t->nmissing_sw, 0);
	tc_truth_free(&tr);
}

static void check_shape(struct kr_gen_opts o)
{
	for (uint64_t seed = 0; seed < 3; seed++) {
		struct kr_fabric f;
		struct kr_topo t;

		recognise_ok(o, seed * 7919, &f, &t);
		assert_int_equal(t.family == KR_FAMILY_KNS, o.family == KR_FAMILY_KNS);
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}

/* Tori and meshes: k = 2, 3, 4 and more, 1 to 6 dimensions, wrap per
 * dimension, one or two links per neighbour pair, CAs or none. */
static void test_grids_from_the_graph(void **state)
{
	static const struct { const char *dims, *wrap; } shapes[] = {
		{ "3", "1" }, { "8", "1" }, { "5", "0" }, { "3x3", "1" },
		{ "4x4", "1" }, { "5x3", "10" }, { "2x5", "01" }, { "2x5", "11" },
		{ "3x4", "0" }, { "2x2x2", "1" }, { "2x2x2", "0" },
		{ "4x4x4", "1" }, { "3x4x5", "101" }, { "2x3x4", "0" },
		{ "2x2x2x2", "1" }, { "3x3x3x3", "1" }, { "4x2x3x2", "1001" },
		{ "2x2x2x2x2x2", "1" }, { "3x2x2x3x2x2", "110010" },
		{ "4x4x4x4", "1" }, { "6x6", "1" }, { "7x3", "01" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (unsigned par = 1; par <= 2; par++)
			check_shape(grid_opts(shapes[i].dims, shapes[i].wrap,
					      (unsigned)i % 3, par));
}

/* KNS, n = 1..4, k = 2..6, p = 0..3 (p = 0: only n = 1, k = 2 and n = 2,
 * k = 2 read otherwise: a path of 3 and a ring of 8). */
static void test_kns_from_the_graph(void **state)
{
	static const char *shapes[] = { "2", "3", "6", "2x2", "3x3", "5x5",
					"6x6", "2x2x2", "3x3x3", "4x4x4",
					"2x2x2x2", "3x3x3x3", "5x5x5x5" };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (unsigned p = 0; p <= 3; p++)
			if (p || i > 3)
				check_shape(kns_opts(shapes[i], p));
}

static void assert_gen_coords(struct kr_gen_opts o)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;

	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	assert_int_equal(t.family, o.family);
	assert_int_equal(t.ndim, o.ndim);
	for (unsigned d = 0; d < o.ndim; d++) {
		assert_int_equal(t.k[d], o.k[d]);
		assert_int_equal(t.wrap[d], o.family == KR_FAMILY_TORUS && o.wrap[d]);
	}
	for (uint32_t s = 0; s < f.nsw; s++) {
		assert_int_equal(t.sw_pos[s], tr.pos[s]);
		assert_int_equal(t.sw_xdim[s], tr.xdim[s]);
		assert_int_equal(t.sw_xline[s], tr.xline[s]);
	}
	kr_topo_free(&t);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* Without --shuffle, GUIDs grow with the generator's position, so the
 * labelling rule (origin at the lowest GUID, + towards the lower-GUID
 * slice, dimensions by the lowest GUID on the origin's line, 4-rings from
 * K2s paired by the same key) gives the generator's own coordinates. */
static void test_rule_reproduces_generator(void **state)
{
	(void)state;
	assert_gen_coords(grid_opts("4x4x4", "1", 1, 1));
	assert_gen_coords(grid_opts("5x3", "10", 2, 2));
	assert_gen_coords(grid_opts("3x4", "0", 1, 1));
	assert_gen_coords(grid_opts("2x3x4", "0", 0, 1));
	assert_gen_coords(grid_opts("2x2x2", "1", 1, 1));
	assert_gen_coords(grid_opts("4x2", "10", 1, 1));
	assert_gen_coords(grid_opts("4x4x4x4", "1", 0, 1));
	assert_gen_coords(grid_opts("6", "1", 1, 1));
	assert_gen_coords(kns_opts("4x4", 2));
	assert_gen_coords(kns_opts("3x3x3", 1));
	assert_gen_coords(kns_opts("2x2x2", 3));
}

/* Routers without CAs: half of them (a 2-ary 2-direct KNS without CAs
 * at all would read as an 8-ring; with some, the routers are known). */
static void test_kns_some_routers_without_cas(void **state)
{
	static const char *shapes[] = { "2x2", "2x2x2", "3x3" };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct kr_gen_opts o = kns_opts(shapes[i], 1);
		struct kr_fabric f, g;
		struct kr_topo t;
		struct tc_truth tr, tr2;
		uint8_t *drop;

		o.shuffle = 1;
		o.shuffle_seed = 17 + (uint64_t)i;
		tc_gen(&o, &f, &tr);
		drop = calloc(f.nnode, 1);
		assert_non_null(drop);
		for (uint32_t n = f.nsw; n < f.nnode; n++)
			drop[n] = tr.pos[f.owner[f.peer[f.port0[n] + 1]]] % 2;
		tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
		assert_int_equal(kr_topo_recognize(&g, NULL, &t, NULL), KR_OK);
		assert_int_equal(t.family, KR_FAMILY_KNS);
		tc_assert_valid(&g, &t);
		assert_null(tc_iso(&g, &tr2, &t));
		kr_topo_free(&t);
		free_without(&f, &tr, &g, &tr2);
		free(drop);
	}
}

/* Where the graph reads several ways the documented preference decides:
 * K2s with single links pair into 4-rings (the fewest dimensions), and a
 * fabric without CAs is a torus before it is a KNS. */
static void test_preferred_readings(void **state)
{
	struct kr_gen_opts o;
	struct kr_fabric f;
	struct kr_topo t;

	(void)state;
	recognise_ok(grid_opts("2x2x2", "0", 1, 1), 5, &f, &t);
	assert_int_equal(t.family, KR_FAMILY_TORUS);
	assert_int_equal(t.ndim, 2);	/* C4 x K2 */
	assert_int_equal(t.k[0] * t.k[1], 8);
	kr_topo_free(&t);
	kr_fabric_free(&f);
	o = kns_opts("2x2", 0);			/* an 8-ring */
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_TORUS);
	assert_int_equal(t.ndim, 1);
	assert_int_equal(t.k[0], 8);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* A 4x4 torus with doubled links is also a 2x2x2x2 one (C4 = K2 x K2, each
 * doubled link a ring of 2), which recognition prefers; `dims 4x4` in
 * knsroute.conf must win, with the generator's grid, for any shuffle. */
static void test_pinned_dims_pair_rings_of_two(void **state)
{
	struct kr_gen_opts o = grid_opts("4x4", "1", 1, 2);
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct tc_truth tr;

	(void)state;
	kr_conf_init(&c);
	c.ndim = 2;
	c.k[0] = c.k[1] = 4;
	for (uint64_t seed = 0; seed < 8; seed++) {
		struct kr_diag d = { 0 };
		const char *why;

		o.shuffle = seed != 0;
		o.shuffle_seed = seed;
		tc_gen(&o, &f, &tr);
		assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
		assert_int_equal(t.ndim, 4);	/* the preferred reading */
		kr_topo_free(&t);
		if (kr_topo_recognize(&f, &c, &t, &d))
			fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
		assert_int_equal(t.ndim, 2);
		assert_int_equal(t.k[0], 4);
		assert_int_equal(t.k[1], 4);
		assert_int_equal(t.parallel, 2);
		tc_assert_valid(&f, &t);
		why = tc_iso(&f, &tr, &t);
		if (why)
			fail_msg("seed %llu: %s", (unsigned long long)seed, why);
		kr_topo_free(&t);
		tc_truth_free(&tr);
		kr_fabric_free(&f);
	}
}

/* The missing-link entry m names the link between switches a and z: from a
 * router to its crossbar, or from either end towards the other. */
static int reports_link(const struct kr_fabric *f, const struct kr_topo *t,
			const struct kr_missing_link *m, uint64_t a, uint64_t z)
{
	uint32_t sa = kr_node_by_guid(f, a), sz = kr_node_by_guid(f, z);
	uint32_t pa = t->sw_pos[sa], pz = t->sw_pos[sz];
	unsigned d = m->dim, c;

	if (t->family == KR_FAMILY_KNS) {
		uint32_t r = pa != KR_NONE ? sa : sz, x = r == sa ? sz : sa;

		return m->pos == t->sw_pos[r] && d == t->sw_xdim[x];
	}
	if (m->pos != pa && m->pos != pz)
		return 0;
	c = kr_topo_coord(t, m->pos, d);
	return m->pos - c * t->stride[d] + (c + 1) % t->k[d] * t->stride[d] ==
	       (m->pos == pa ? pz : pa);
}

static uint32_t next_link(const struct kr_fabric *f, uint32_t from)
{
	for (uint32_t s = from; s < f->port0[f->nsw]; s++)
		if (f->peer[s] > (int32_t)s && kr_is_switch(f, f->owner[f->peer[s]]))
			return s;
	return KR_NONE;
}

/* Every single inter-switch link taken out in turn: the same coordinates
 * as with all links (the rule reads slices and lines, which one link does
 * not change), and exactly that link reported missing. */
static void each_link_out(struct kr_gen_opts o, uint64_t seed)
{
	struct kr_fabric f, g;
	struct kr_topo all, t;
	struct tc_truth tr, tr2;
	struct kr_diag d = { 0 };

	o.shuffle = seed != 0;
	o.shuffle_seed = seed;
	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &all, NULL), KR_OK);
	for (uint32_t s = next_link(&f, 0); s != KR_NONE; s = next_link(&f, s + 1)) {
		tc_without(&f, &tr, NULL, s, &g, &tr2);
		if (kr_topo_recognize(&g, NULL, &t, &d))
			fail_msg("%s %ux%u without link \"%s\"[%u]: %s",
				 kr_family_name(o.family), o.k[0], o.k[1],
				 kr_node_name(&f, f.owner[s]),
				 kr_port_num(&f, s), d.msg);
		tc_assert_valid(&g, &t);
		tc_assert_same(&f, &all, &g, &t);
		assert_int_equal(t.nmissing_link, 1);
		assert_true(reports_link(&g, &t, &t.missing_link[0],
					 f.guid[f.owner[s]],
					 f.guid[f.owner[f.peer[s]]]));
		kr_topo_free(&t);
		tc_truth_free(&tr2);
		kr_fabric_free(&g);
	}
	kr_topo_free(&all);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_any_one_link_missing(void **state)
{
	(void)state;
	each_link_out(grid_opts("4x4", "1", 1, 1), 3);
	each_link_out(grid_opts("3x4x5", "101", 0, 1), 4);
	each_link_out(grid_opts("3x4", "0", 1, 1), 5);
	each_link_out(grid_opts("3x3x3", "0", 1, 1), 6);
	each_link_out(grid_opts("2x2x2x2", "1", 1, 1), 7);
	each_link_out(grid_opts("4x4x2", "110", 1, 1), 8);
	each_link_out(kns_opts("4x4", 2), 9);
	each_link_out(kns_opts("3x3x3", 1), 10);
	each_link_out(kns_opts("2x2x2", 1), 11);
}

/* Every single switch taken out in turn: a grid isomorphic to the truth
 * (the origin or a slice's lowest GUID may be the one that went), and that
 * switch's place reported missing. */
static void each_switch_out(struct kr_gen_opts o, uint64_t seed)
{
	struct kr_fabric f, g;
	struct kr_topo t;
	struct tc_truth tr, tr2;
	struct kr_diag d = { 0 };

	o.shuffle = seed != 0;
	o.shuffle_seed = seed;
	tc_gen(&o, &f, &tr);
	for (uint32_t s = 0; s < f.nsw; s++) {
		uint8_t *drop = calloc(f.nnode, 1);
		const char *why;

		assert_non_null(drop);
		drop[s] = 1;
		tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
		if (kr_topo_recognize(&g, NULL, &t, &d))
			fail_msg("%s %ux%u.. without \"%s\": %s",
				 kr_family_name(o.family), o.k[0], o.k[1],
				 kr_node_name(&f, s), d.msg);
		tc_assert_valid(&g, &t);
		why = tc_iso(&g, &tr2, &t);
		if (why)
			fail_msg("without \"%s\": %s", kr_node_name(&f, s), why);
		assert_int_equal(t.nmissing_sw, 1);
		assert_int_equal(t.missing_sw[0].xdim == KR_NO_DIM,
				 tr.pos[s] != KR_NONE);
		kr_topo_free(&t);
		tc_truth_free(&tr2);
		kr_fabric_free(&g);
		free(drop);
	}
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_any_one_switch_missing(void **state)
{
	(void)state;
	each_switch_out(grid_opts("4x4", "1", 1, 1), 3);
	each_switch_out(grid_opts("3x5", "01", 2, 2), 166);
	each_switch_out(grid_opts("7x3", "10", 1, 1), 5);
	each_switch_out(grid_opts("4x3", "0", 1, 1), 6);
	each_switch_out(grid_opts("3x3x3", "1", 0, 1), 7);
	each_switch_out(grid_opts("2x2x2x2", "1", 1, 1), 8);
	each_switch_out(grid_opts("4x4x2", "110", 1, 1), 9);
	each_switch_out(kns_opts("4x4", 2), 10);
	each_switch_out(kns_opts("3x3x3", 1), 11);
}

/* Faulty grids whose links left several switches without a settled
 * dimension: the potentials start where most switches can be reached, so
 * that what is left for the placement search stays small, and of
 * arrangements that tie the search keeps the one with the fewest links
 * missing towards switches that are there. The sweep that found them saw
 * each refused in some orderings only (a 4x5 torus with a mesh dimension
 * and switches (0,2) and (1,1) gone: "switch(2,0) cannot be placed"; a
 * 5x4 one without (4,0) and (3,2): "switch(4,2) fits at (4,2) better than
 * at (4,0)"). Every ordering must now be read as the truth. */
static void test_faulty_grids_any_order(void **state)
{
	static const struct { const char *dims, *wrap; unsigned x[2], y[2]; } cases[] = {
		{ "4x5", "10", { 0, 1 }, { 2, 1 } },
		{ "4x5", "11", { 0, 1 }, { 2, 1 } },
		{ "5x4", "01", { 4, 3 }, { 0, 2 } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (unsigned seed = 0; seed <= 6; seed++) {
			struct kr_gen_opts o = grid_opts(cases[i].dims, cases[i].wrap, 2, 1);
			struct kr_fabric f, g;
			struct kr_topo t;
			struct tc_truth tr, tr2;
			struct kr_diag d = { 0 };
			uint8_t *drop;
			const char *why;

			o.shuffle = seed != 0;
			o.shuffle_seed = seed;
			tc_gen(&o, &f, &tr);
			drop = calloc(f.nnode, 1);
			assert_non_null(drop);
			for (uint32_t s = 0; s < f.nsw; s++)
				for (unsigned j = 0; j < 2; j++)
					drop[s] |= tr.pos[s] == cases[i].x[j] +
						   o.k[0] * cases[i].y[j];
			tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
			if (kr_topo_recognize(&g, NULL, &t, &d))
				fail_msg("%s wrap %s seed %u: %s", cases[i].dims,
					 cases[i].wrap, seed, d.msg);
			tc_assert_valid(&g, &t);
			why = tc_iso(&g, &tr2, &t);
			if (why)
				fail_msg("%s seed %u: %s", cases[i].dims, seed, why);
			assert_int_equal(t.nmissing_sw, 2);
			kr_topo_free(&t);
			free_without(&f, &tr, &g, &tr2);
			free(drop);
		}
}

/* A grid (dims, wrap as grid_opts) without fail random links (knsroute
 * gen --fail FAIL --seed SEED), in the generator's order (order 0) or
 * shuffled: recognised as the truth, up to a symmetry of the grid, or,
 * when choice allows, as a reading the report says it chose. f and t
 * stay for more assertions. */
static void read_faulty(const char *dims, const char *wrap, unsigned fail,
			unsigned seed, unsigned order, bool choice,
			struct kr_fabric *f, struct kr_topo *t)
{
	struct kr_gen_opts o = grid_opts(dims, wrap, 1, 1);
	struct tc_truth tr;
	struct kr_diag d = { 0 };
	const char *why;

	o.fail = fail;
	o.fail_seed = seed;
	o.shuffle = order != 0;
	o.shuffle_seed = order;
	tc_gen(&o, f, &tr);
	if (kr_topo_recognize(f, NULL, t, &d))
		fail_msg("%s fail %u seed %u, order %u: %s", dims, fail, seed,
			 order, d.msg);
	tc_assert_valid(f, t);
	why = tc_iso(f, &tr, t);
	if (why && !(choice && t->report &&
		     strstr(t->report, "placed by choice")))
		fail_msg("%s fail %u seed %u, order %u: %s", dims, fail, seed,
			 order, why);
	tc_truth_free(&tr);
}

/* Meshes whose faults leave the classes a small part: the rest hangs off
 * it in clusters, the first of which, best on its own, took the place of
 * a later one, which then fitted nowhere ("cannot be placed"), in the
 * file's order and shuffled alike; e.g. a 4x6 mesh without (1,1)-(1,2)
 * and (2,1)-(2,2) (fail 2, seed 16), its halves joined by the border
 * links alone. Placed again together (or in larger clusters when they
 * are too many for one search), and the whole reading taken again with
 * them placed together when topo_build refuses it, every ordering is
 * read as the truth, or as a reading that fits equally, noted. */
static void test_clusters_placed_together(void **state)
{
	static const struct { const char *dims; unsigned fail, seed; } cases[] = {
		{ "4x6", 2, 16 }, { "3x5", 3, 6 }, { "4x4", 4, 7 },
		{ "6x6", 4, 4 }, { "5x5", 5, 8 },
		/* more left after the first search than one search takes:
		 * clusters of up to 32, one by one */
		{ "8x8", 15, 13 },
		/* placed cluster by cluster, a switch went where rigid()
		 * found it fitted better elsewhere ("switch(0,0) fits at
		 * (0,2) better than at (0,0)"): the reading is taken again,
		 * all of them placed together */
		{ "4x4", 6, 17 }, { "3x5", 6, 6 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (unsigned order = 0; order <= 4; order++) {
			struct kr_fabric f;
			struct kr_topo t;

			/* or, where missing links leave the graph two ways
			 * to read, one of them, noted */
			read_faulty(cases[i].dims, "0", cases[i].fail,
				    cases[i].seed, order, true, &f, &t);
			kr_topo_free(&t);
			kr_fabric_free(&f);
		}
}

/* Random faults, many at once: each run is either recognised as the truth
 * (up to isomorphism), or as a valid reading with the routers it placed
 * by choice noted (missing links can leave places that fit equally), or
 * refused; never something else. Most must pass. */
static void test_random_faults(void **state)
{
	static const struct { const char *dims, *wrap; unsigned par; int kns; } shapes[] = {
		{ "6x6", "1", 1, 0 }, { "8x4", "10", 2, 0 }, { "5x5x4", "1", 1, 0 },
		{ "4x4x4", "0", 1, 0 }, { "3x3x3x3", "1", 2, 0 },
		{ "3x2x2x3x2x2", "110010", 1, 0 }, { "4x4x2x2x2x2", "1", 1, 0 },
		{ "6x6", "", 1, 1 }, { "4x4x4", "", 1, 1 }, { "8x8", "", 1, 1 },
	};
	unsigned runs = 0, passed = 0, chosen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (unsigned seed = 1; seed <= 12; seed++) {
			struct kr_gen_opts o = shapes[i].kns ? kns_opts(shapes[i].dims, 1) :
					       grid_opts(shapes[i].dims, shapes[i].wrap, 1,
							 shapes[i].par);
			struct kr_fabric f, g;
			struct kr_topo t;
			struct tc_truth tr, tr2;
			uint8_t *drop;
			const char *why;

			o.shuffle = 1;
			o.shuffle_seed = seed;
			o.fail = 1 + seed % 4;
			o.fail_seed = seed * 31 + i;
			tc_gen(&o, &f, &tr);
			drop = calloc(f.nnode, 1);
			assert_non_null(drop);
			drop[seed * 7 % f.nsw] = seed % 3 == 0;
			tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
			runs++;
			if (kr_topo_recognize(&g, NULL, &t, NULL) == KR_OK) {
				tc_assert_valid(&g, &t);
				why = tc_iso(&g, &tr2, &t);
				if (why && !(t.report && strstr(t.report, "links leave open")))
					fail_msg("%s seed %u: %s", shapes[i].dims, seed, why);
				passed++;
				chosen += why != NULL;
			}
			kr_topo_free(&t);
			free_without(&f, &tr, &g, &tr2);
			free(drop);
		}
	if (passed * 10 < runs * 9)
		fail_msg("only %u of %u faulty fabrics recognised", passed, runs);
	print_message("%u of %u faulty fabrics recognised, %u of them with "
		      "routers placed by choice\n", passed, runs, chosen);
}

/* Fabrics whose missing links leave some switch several places that fit
 * equally (knsroute gen ... --fail F --seed S): 4-ary 2-direct KNSes
 * whose routers (0,2) and (1,2) both lost their dimension-1 link (each
 * fits x = 0 and x = 1 alike), or whose open places constrain each other,
 * and 4x4 meshes with a corner or an edge cut loose. Recognition takes one reading and says so, and the whole
 * plan, repair and check included, routes it. These fabrics used to be
 * refused, and OpenSM fell back to an engine with credit loops. */
static void test_places_chosen(void **state)
{
	static const struct {
		int kns;
		unsigned fail, seed;
		const char *note;
	} cases[] = {
		{ 1, 2, 3, "of the 2 places its missing links leave open" },
		/* (2,3) fits x = 2 and 3, (3,1) and (3,3) y = 1 and 3: only
		 * (2,3) at x = 2 leaves (3,3) a place */
		{ 1, 4, 1, "router router(3,1) placed at" },
		{ 0, 4, 4, "placed by choice: 2 arrangements fit its links equally" },
		/* seed 31 read as 5x4 with four switches missing, now as
		 * 5x3 with the two switches left with one link each hanging
		 * off it (pendant.c): fewer faults, no choice */
		{ 0, 4, 54, "by choice: it fits at (" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kr_gen_opts o = cases[i].kns ? kns_opts("4x4", 2) :
				       grid_opts("4x4", "0", 1, 1);
		struct kr_fabric f;
		struct kr_topo t;
		struct kr_plan p;
		struct tc_truth tr;
		struct kr_diag d = { 0 };
		uint32_t faults;

		o.fail = cases[i].fail;
		o.fail_seed = cases[i].seed;
		tc_gen(&o, &f, &tr);
		if (kr_topo_recognize(&f, NULL, &t, &d))
			fail_msg("case %zu: %s", i, d.msg);
		tc_assert_valid(&f, &t);
		/* a reading may grow the grid (the mesh of seed 54 reads as
		 * 3x6 with two switches missing), so only some fault */
		faults = t.nmissing_link + t.nmissing_sw;
		assert_true(faults >= 1);
		if (!t.report || !strstr(t.report, cases[i].note))
			fail_msg("case %zu: report: %s", i,
				 t.report ? t.report : "(none)");
		kr_topo_free(&t);
		if (kr_plan_build(&f, NULL, &p, &d))
			fail_msg("case %zu: plan: %s", i, d.msg);
		assert_int_equal(p.repair.faults, faults);
		assert_true(p.checked);
		kr_plan_free(&p);
		tc_truth_free(&tr);
		kr_fabric_free(&f);
	}
}

/* Faulty grids a tester found refused although every switch still has
 * one place (knsroute gen ... --fail F --seed S), each for its own reason:
 * - mesh 6x4, 3 faults: (5,2) took the place of the unplaced (4,3), which
 *   looked free of missing links only because (4,3) was not there yet;
 * - torus 6x4, 3 faults: (1,1) lost both y links, and its x ring had read
 *   as a path whose ends only a link between placed switches joins;
 * - torus 6x3 with a mesh dimension, 3 faults: (3,2)'s place is one step
 *   from (4,2) round the closing ring, none from its first neighbour;
 * - torus 6x4 with a mesh dimension, 2 faults: the BFS went round the x
 *   ring both ways, and only a link whose squares were all cut joined the
 *   two ends.
 * Each reading must be the truth, up to a symmetry of the grid. */
static void test_faults_leaving_one_place(void **state)
{
	static const struct {
		const char *dims, *wrap;
		unsigned fail, seed;
	} cases[] = {
		{ "6x4", "0", 3, 7 },
		{ "6x4", "1", 3, 4 },
		{ "6x3", "10", 3, 2 },
		{ "6x4", "10", 2, 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kr_fabric f;
		struct kr_topo t;

		read_faulty(cases[i].dims, cases[i].wrap, cases[i].fail,
			    cases[i].seed, 0, false, &f, &t);
		assert_int_equal(t.nmissing_link, cases[i].fail);
		assert_int_equal(t.nmissing_sw, 0);
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}

/* A 3-ary 2-direct KNS (knsroute gen kns --k 3 --n 2 --p 2 --fail 3
 * --seed 3) whose crossbar xbar1(2,*) keeps one router, (2,0), and whose
 * xbar1(1,*) lost (1,0): in dimension 0 four single routers tie for the
 * third hyperplane, and taking (1,0) for it put (2,0), and with it the
 * one-link crossbar, on xbar1(1,*)'s line. The search now weighs the tie
 * and keeps crossbars on lines of their own: the reading is the truth. */
static void test_one_link_crossbar(void **state)
{
	struct kr_gen_opts o = kns_opts("3x3", 2);
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_plan p;
	struct tc_truth tr;
	struct kr_diag d = { 0 };
	const char *why;

	(void)state;
	o.fail = 3;
	o.fail_seed = 3;
	tc_gen(&o, &f, &tr);
	if (kr_topo_recognize(&f, NULL, &t, &d))
		fail_msg("%s", d.msg);
	tc_assert_valid(&f, &t);
	why = tc_iso(&f, &tr, &t);
	if (why)
		fail_msg("%s", why);
	assert_int_equal(t.nmissing_link, 3);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "places its missing links leave open"));
	kr_topo_free(&t);
	if (kr_plan_build(&f, NULL, &p, &d))
		fail_msg("plan: %s", d.msg);
	assert_true(p.checked);
	kr_plan_free(&p);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static int add_sw(struct kr_fabric_builder *b, const char *name, uint64_t guid,
		  unsigned nports)
{
	int id = kr_fb_add_node(b, KR_SWITCH, nports, guid, name, NULL, 0, NULL);

	assert_true(id >= 0);
	return id;
}

static void add_link(struct kr_fabric_builder *b, int a, unsigned pa, int z,
		     unsigned pz)
{
	assert_int_equal(kr_fb_link(b, a, pa, z, pz, 0, NULL), KR_OK);
}

static void add_ca(struct kr_fabric_builder *b, int sw, unsigned port,
		   uint64_t guid)
{
	char name[32];
	int id;

	snprintf(name, sizeof(name), "ca-%llx", (unsigned long long)guid);
	id = kr_fb_add_node(b, KR_CA, 1, guid, name, NULL, 0, NULL);
	assert_true(id >= 0);
	add_link(b, sw, port, id, 1);
}

/* Recognition must refuse b's fabric, with a reason containing want. */
static void assert_refused(struct kr_fabric_builder *b, const char *want)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_diag d = { 0 };

	assert_int_equal(kr_fb_finish(b, &f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, &d), KR_ETOPO);
	if (!strstr(d.msg, want))
		fail_msg("expected \"%s\" in: %s", want, d.msg);
	assert_null(t.pos_sw);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Two levels: 4 leaves with 2 CAs each, each leaf up to both spines. */
static void test_fat_tree_refused(void **state)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int leaf[4], spine[2];
	char name[16];

	(void)state;
	for (int j = 0; j < 2; j++) {
		snprintf(name, sizeof(name), "spine%d", j);
		spine[j] = add_sw(b, name, 0x100 + (uint64_t)j, 4);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "leaf%d", i);
		leaf[i] = add_sw(b, name, 0x200 + (uint64_t)i, 4);
		add_ca(b, leaf[i], 1, 0x1000 + 16 * (uint64_t)i);
		add_ca(b, leaf[i], 2, 0x1008 + 16 * (uint64_t)i);
		for (int j = 0; j < 2; j++)
			add_link(b, leaf[i], 3 + (unsigned)j, spine[j], 1 + (unsigned)i);
	}
	assert_refused(b, "not a KNS: crossbars");
}

/* What ibsim ships as examples: one switch; two switches joined twice,
 * with CAs on one or on both. Too small to be anything in particular. */
static void test_ibsim_examples_refused(void **state)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int s1 = add_sw(b, "Switch1", 0x10, 8), s2;

	(void)state;
	add_ca(b, s1, 1, 0x100);
	add_ca(b, s1, 4, 0x110);
	assert_refused(b, "1 switch: too few");
	for (int cas_on_both = 0; cas_on_both < 2; cas_on_both++) {
		b = kr_fb_new();
		s1 = add_sw(b, "Switch1", 0x10, 8);
		s2 = add_sw(b, "Switch2", 0x20, 8);
		add_link(b, s1, 3, s2, 3);
		add_link(b, s1, 5, s2, 5);
		add_ca(b, s1, 1, 0x100);
		add_ca(b, cas_on_both ? s2 : s1, 2, 0x110);
		assert_refused(b, "2 switches: too few");
	}
}

/* A kx x ky torus, one CA a switch, with `extra` cables beside those of
 * the first row's +x links: more bandwidth between a few neighbours. */
static void torus_with_extra_cables(struct kr_fabric *f, unsigned kx,
				    unsigned ky, unsigned extra)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int sw[8][8];
	char name[32];

	for (unsigned y = 0; y < ky; y++)
		for (unsigned x = 0; x < kx; x++) {
			snprintf(name, sizeof(name), "s%u.%u", x, y);
			sw[x][y] = add_sw(b, name, 0x1000 + 16 * y + x, 8);
			add_ca(b, sw[x][y], 5, 0x9000 + 16 * y + x);
		}
	for (unsigned y = 0; y < ky; y++)
		for (unsigned x = 0; x < kx; x++) {
			add_link(b, sw[x][y], 1, sw[(x + 1) % kx][y], 2);
			add_link(b, sw[x][y], 3, sw[x][(y + 1) % ky], 4);
		}
	for (unsigned x = 0; x < extra; x++)
		add_link(b, sw[x][0], 6, sw[x + 1][0], 7);
	assert_int_equal(kr_fb_finish(b, f, NULL), KR_OK);
	kr_fb_free(b);
}

/* Extra cables between a few neighbours are extra bandwidth, not the
 * grid's parallel count: the torus reads as built, nothing missing, and
 * routes and checks with them. Counting the most cables on any pair read
 * a 4x4 with one extra as 2x4x2 with 7 links missing, a 6x6 as parallel
 * 2 with 71 missing. */
static void test_extra_parallel_cables(void **state)
{
	static const unsigned cases[][3] = { { 4, 4, 1 }, { 4, 4, 3 },
					     { 6, 6, 1 }, { 6, 6, 5 },
					     { 5, 3, 2 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned kx = cases[i][0], ky = cases[i][1];
		char note[96];
		struct kr_fabric f;
		struct kr_plan p;
		struct kr_conf c;
		struct kr_diag d = { 0 };

		torus_with_extra_cables(&f, kx, ky, cases[i][2]);
		kr_conf_init(&c);
		if (kr_plan_build(&f, &c, &p, &d))
			fail_msg("%ux%u + %u cables: %s", kx, ky, cases[i][2],
				 d.msg);
		assert_int_equal(p.topo.family, KR_FAMILY_TORUS);
		assert_int_equal(p.topo.ndim, 2);
		assert_int_equal(p.topo.k[0] * p.topo.k[1], kx * ky);
		assert_true(p.topo.k[0] == kx || p.topo.k[0] == ky);
		assert_int_equal(p.topo.parallel, 1);
		assert_int_equal(p.topo.nmissing_link, 0);
		assert_int_equal(p.topo.nmissing_sw, 0);
		snprintf(note, sizeof(note), "%u neighbour pair%s with more "
			 "links than the grid's 1: extra cables", cases[i][2],
			 cases[i][2] == 1 ? "" : "s");
		assert_non_null(p.topo.report);
		assert_non_null(strstr(p.topo.report, note));
		assert_true(p.checked);
		kr_plan_free(&p);
		kr_fabric_free(&f);
	}
}

static uint32_t slot_to(const struct kr_fabric *f, uint32_t sw, uint32_t nb)
{
	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		if (f->peer[s] >= 0 && f->owner[f->peer[s]] == nb)
			return s;
	return KR_NONE;
}

/* A 5x5 torus whose wrap links (4,0)-(0,0) and (4,1)-(0,1) are crossed:
 * (4,0)-(0,1) and (4,1)-(0,0). */
static void test_twisted_torus_refused(void **state)
{
	struct kr_gen_opts o = grid_opts("5x5", "1", 1, 1);
	struct kr_fabric f;
	struct tc_truth tr;
	struct kr_fabric_builder *b = kr_fb_new();
	uint32_t s0, s1;
	int id[64];

	(void)state;
	tc_gen(&o, &f, &tr);
	s0 = slot_to(&f, (uint32_t)tr.at[4], (uint32_t)tr.at[0]);
	s1 = slot_to(&f, (uint32_t)tr.at[9], (uint32_t)tr.at[5]);
	for (uint32_t n = 0; n < f.nnode; n++)
		id[n] = kr_fb_add_node(b, f.type[n], f.nports[n], f.guid[n],
				       kr_node_name(&f, n), NULL, 0, NULL);
	for (uint32_t s = 0; s < f.nport; s++)
		if (f.peer[s] > (int32_t)s && s != s0 && s != s1 &&
		    f.peer[s] != (int32_t)s0 && f.peer[s] != (int32_t)s1)
			add_link(b, id[f.owner[s]], kr_port_num(&f, s),
				 id[f.owner[f.peer[s]]],
				 kr_port_num(&f, (uint32_t)f.peer[s]));
	add_link(b, id[tr.at[4]], kr_port_num(&f, s0), id[tr.at[5]],
		 kr_port_num(&f, (uint32_t)f.peer[s1]));
	add_link(b, id[tr.at[9]], kr_port_num(&f, s1), id[tr.at[0]],
		 kr_port_num(&f, (uint32_t)f.peer[s0]));
	tc_truth_free(&tr);
	kr_fabric_free(&f);
	assert_refused(b, "not a torus or mesh");
}

/* f copied into a new builder (*id: each node's id there; free it), with
 * spare ports after the others on every switch, without the links
 * between switch cut and other switches (KR_NONE: none). */
static struct kr_fabric_builder *copy_fabric(const struct kr_fabric *f,
					     unsigned spare, uint32_t cut,
					     int **id)
{
	struct kr_fabric_builder *b = kr_fb_new();

	*id = malloc(((size_t)f->nnode + 1) * sizeof(**id));
	assert_non_null(*id);
	for (uint32_t v = 0; v < f->nnode; v++)
		(*id)[v] = kr_fb_add_node(b, f->type[v], f->nports[v] +
					  spare * kr_is_switch(f, v), f->guid[v],
					  kr_node_name(f, v), NULL, 0, NULL);
	for (uint32_t s = 0; s < f->nport; s++)
		if (f->peer[s] > (int32_t)s &&
		    !(kr_is_switch(f, f->owner[f->peer[s]]) &&
		      (f->owner[s] == cut || f->owner[f->peer[s]] == cut)))
			add_link(b, (*id)[f->owner[s]], kr_port_num(f, s),
				 (*id)[f->owner[f->peer[s]]],
				 kr_port_num(f, (uint32_t)f->peer[s]));
	return b;
}

/* f copied without switch cut's links to switches, and the first spare
 * ports of switches pair[i][0] and pair[i][1] linked: cables plugged into
 * the wrong switch (one switch twice: a loopback cable from its first
 * spare port to its second). */
static struct kr_fabric_builder *with_stray_cut(const struct kr_fabric *f,
						const uint32_t (*pair)[2],
						unsigned n, uint32_t cut)
{
	int *id;
	struct kr_fabric_builder *b = copy_fabric(f, 2, cut, &id);

	for (unsigned i = 0; i < n; i++) {
		uint32_t a = pair[i][0], z = pair[i][1];

		add_link(b, id[a], f->nports[a] + 1, id[z],
			 f->nports[z] + 1 + (a == z));
	}
	free(id);
	return b;
}

static struct kr_fabric_builder *with_stray(const struct kr_fabric *f,
					    const uint32_t (*pair)[2],
					    unsigned n)
{
	return with_stray_cut(f, pair, n, KR_NONE);
}

/* A coordinates file (the cache's text) of f's reading, in path. */
static void coords_of(const struct kr_fabric *f, char *path)
{
	struct kr_topo t;
	int fd = mkstemp(path);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");

	assert_non_null(fp);
	assert_int_equal(kr_topo_recognize(f, NULL, &t, NULL), KR_OK);
	assert_int_equal(kr_topo_cache_write(fp, f, &t), KR_OK);
	assert_int_equal(fclose(fp), 0);
	kr_topo_free(&t);
}

static unsigned count_in(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = text; p && (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* One cable between switches that are no neighbours: in a torus and in a
 * KNS (router to router), each read from the graph and placed by a
 * coordinates file, as the plugin's later sweeps place it; between the
 * subnets of two lines of a KNS with fat-tree subnets (placed); and a
 * loopback cable on a torus switch (a port tester's plug, both ways).
 * The cable's ports get no direction, the notes name it, and the plan's
 * tables pass the check with neither an LFT entry nor a multicast tree
 * link on it. Six such cables in the torus (6 of its 38 links) are no
 * cabling slips where a coordinates file places the switches: refused;
 * placed by knsroute's own cache, the reading of this very fabric, they
 * are routed around. */
static void test_stray_links(void **state)
{
	static const struct {
		const char *a, *z, *why;
		int from_graph;		/* also read without coordinates */
	} cases[] = {
		{ "switch(1,1)", "switch(3,3)",
		  "which are not neighbours; not used", 1 },
		{ "router(0,0)", "router(1,1)",
		  "is not a router on its own line's crossbar; not used", 1 },
		{ "sw0(*,1)e1o0", "sw0(*,2)e1o0",
		  "does not join adjacent stages of one subnet; not used", 0 },
		{ "switch(1,1)", "switch(1,1)",
		  "is linked to itself (ports 6 and 7); not used", 1 },
	};
	static const char *const six[6][2] = {
		{ "switch(0,0)", "switch(2,2)" }, { "switch(1,0)", "switch(3,2)" },
		{ "switch(2,0)", "switch(0,2)" }, { "switch(3,0)", "switch(1,2)" },
		{ "switch(0,1)", "switch(2,3)" }, { "switch(1,1)", "switch(3,3)" } };
	struct kr_gen_opts shapes[4] = { grid_opts("4x4", "1", 1, 1),
					 kns_opts("3x3", 1), kns_opts("8x8", 1),
					 grid_opts("4x4", "1", 1, 1) };

	(void)state;
	shapes[2].radix = 4;
	for (unsigned k = 0; k < 4; k++) {
		char path[] = "/tmp/kr-test-coords.XXXXXX";
		struct kr_diag d = { 0 };
		struct kr_fabric f, g;
		struct tc_truth tr;
		struct kr_topo t;
		struct kr_plan p;
		struct kr_fabric_builder *b;
		struct kr_conf c;
		uint32_t pair[6][2];
		unsigned pa, pz;

		tc_gen(&shapes[k], &f, &tr);
		coords_of(&f, path);
		kr_conf_init(&c);
		snprintf(c.coords_file, sizeof(c.coords_file), "%s", path);
		pair[0][0] = truth_node_named(&f, cases[k].a);
		pair[0][1] = truth_node_named(&f, cases[k].z);
		b = with_stray(&f, pair, 1);
		assert_int_equal(kr_fb_finish(b, &g, NULL), KR_OK);
		kr_fb_free(b);
		assert_int_equal(kr_fabric_assign_lids(&g, 0, NULL), KR_OK);
		pa = f.nports[pair[0][0]] + 1;
		pz = f.nports[pair[0][1]] + 1 + (pair[0][0] == pair[0][1]);
		for (int placed = !cases[k].from_graph; placed < 2; placed++) {
			assert_int_equal(kr_topo_recognize(&g, placed ? &c : NULL,
							   &t, NULL), KR_OK);
			assert_int_equal(t.family, shapes[k].family);
			assert_int_equal(t.port_dir[kr_port(&g, pair[0][0], pa)],
					 KR_DIR_NONE);
			assert_int_equal(t.port_dir[kr_port(&g, pair[0][1], pz)],
					 KR_DIR_NONE);
			assert_non_null(strstr(t.report, cases[k].why));
			kr_topo_free(&t);
		}
		assert_int_equal(kr_plan_build(&g, &c, &p, NULL), KR_OK);
		assert_true(g.max_lid > g.nsw);
		for (unsigned lid = 1; lid <= g.max_lid; lid++) {
			assert_int_not_equal(kr_lft_port(&p.tables, pair[0][0],
							 lid), pa);
			assert_int_not_equal(kr_lft_port(&p.tables, pair[0][1],
							 lid), pz);
		}
		/* nor does the multicast forest (nor, on its ranks, the
		 * detour layer) */
		for (uint32_t v = 0; v < g.nsw; v++) {
			uint32_t up = p.mtree.parent[v];

			assert_false(v == pair[0][0] && p.mtree.up[v] == pa);
			assert_false(v == pair[0][1] && p.mtree.up[v] == pz);
			assert_false(up == pair[0][0] && p.mtree.down[v] == pa);
			assert_false(up == pair[0][1] && p.mtree.down[v] == pz);
		}
		kr_plan_free(&p);
		kr_fabric_free(&g);
		if (k == 0) {
			for (unsigned i = 0; i < 6; i++) {
				pair[i][0] = truth_node_named(&f, six[i][0]);
				pair[i][1] = truth_node_named(&f, six[i][1]);
			}
			b = with_stray(&f, pair, 6);
			assert_int_equal(kr_fb_finish(b, &g, NULL), KR_OK);
			kr_fb_free(b);
			assert_int_equal(kr_topo_recognize(&g, &c, &t, &d),
					 KR_ETOPO);
			assert_non_null(strstr(d.msg, "(6 of the 38 links "
					       "between switches are so)"));
			kr_topo_free(&t);
			/* the same coordinates from knsroute's own cache are
			 * this fabric's: its cables went astray since */
			c.coords_file[0] = '\0';
			snprintf(c.coords_cache, sizeof(c.coords_cache), "%s",
				 path);
			assert_int_equal(kr_topo_recognize(&g, &c, &t, NULL),
					 KR_OK);
			assert_int_equal(count_in(t.report, "; not used"), 6);
			kr_topo_free(&t);
			kr_fabric_free(&g);
		}
		unlink(path);
		tc_truth_free(&tr);
		kr_fabric_free(&f);
	}
}

/* A KNS router whose crossbar cables are all gone but one plugged into
 * another router: the stray cable is its only way, so the walks that may
 * (detour layer, trees) take it, and every pair, its CA's too, is
 * delivered without a credit loop. */
static void test_stray_link_only_way(void **state)
{
	struct kr_gen_opts o = kns_opts("3x3", 1);
	char path[] = "/tmp/kr-test-coords.XXXXXX";
	struct kr_fabric f, g;
	struct kr_fabric_builder *b;
	struct tc_truth tr;
	struct kr_conf c;
	struct kr_plan p;
	uint32_t pair[1][2];

	(void)state;
	tc_gen(&o, &f, &tr);
	coords_of(&f, path);
	kr_conf_init(&c);
	snprintf(c.coords_file, sizeof(c.coords_file), "%s", path);
	pair[0][0] = truth_node_named(&f, "router(0,0)");
	pair[0][1] = truth_node_named(&f, "router(1,1)");
	b = with_stray_cut(&f, pair, 1, pair[0][0]);
	assert_int_equal(kr_fb_finish(b, &g, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_fabric_assign_lids(&g, 0, NULL), KR_OK);
	assert_int_equal(kr_plan_build(&g, &c, &p, NULL), KR_OK);
	assert_int_equal(p.topo.strays_bridge, 1);
	assert_true(p.check.cls[KR_CHECK_ALL].pairs > 0);
	assert_int_equal(p.check.cls[KR_CHECK_ALL].delivered,
			 p.check.cls[KR_CHECK_ALL].pairs);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	unlink(path);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* f copied, with a host (a one-port CA) on a new port of each of the n
 * switches named sw[i], into g (LIDs assigned). */
static struct kr_fabric *with_hosts(const struct kr_fabric *f,
				    const char *const *sw, unsigned n,
				    struct kr_fabric *g)
{
	int *id;
	struct kr_fabric_builder *b = copy_fabric(f, 1, KR_NONE, &id);

	for (unsigned i = 0; i < n; i++) {
		uint32_t x = truth_node_named(f, sw[i]);

		add_ca(b, id[x], f->nports[x] + 1, 0x7000 + 16 * (uint64_t)i);
	}
	assert_int_equal(kr_fb_finish(b, g, NULL), KR_OK);
	kr_fb_free(b);
	free(id);
	assert_int_equal(kr_fabric_assign_lids(g, 0, NULL), KR_OK);
	return g;
}

/* The port of host i (with_hosts) on its crossbar. */
static uint32_t host_port(const struct kr_fabric *g, const char *const *sw,
			  unsigned i)
{
	uint32_t x = truth_node_named(g, sw[i]);

	return kr_port(g, x, g->nports[x]);
}

/* Hosts on the spare ports of two crossbars of a KNS's second dimension:
 * read from the graph alone as a KNS whose routers keep their one slot;
 * each host's LID is a destination on its crossbar's line (SL 15), and
 * its crossbar sends every SL from it on one VL that nothing else takes
 * out of a crossbar. Both classes of traffic are then proven; on the
 * class VLs that first hop closed a loop with the packets passing
 * through. In 3 dimensions the hosts' packets to switches still turn
 * against the order after their first hop: refused, naming them and the
 * remedy, which passes. Hosts on five crossbars of sixteen routers' KNS
 * (more than one switch with CAs there for four routers') are no KNS
 * reading. */
static void test_hosts_on_crossbars(void **state)
{
	static const char *const two[2] = { "xbar1(0,*)", "xbar1(1,*)" };
	static const char *const deep[2] = { "xbar2(0,0,*)", "xbar2(1,0,*)" };
	static const char *const many[5] = { "xbar0(*,0)", "xbar0(*,1)",
					     "xbar0(*,2)", "xbar0(*,3)",
					     "xbar1(0,*)" };
	struct kr_gen_opts o = kns_opts("4x4", 1);
	struct kr_diag d = { 0 };
	struct kr_fabric f, g;
	struct tc_truth tr;
	struct kr_plan p;
	struct kr_conf c;
	uint32_t xbar, hp;
	unsigned lid, dim;

	(void)state;
	tc_gen(&o, &f, &tr);
	with_hosts(&f, two, 2, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.family, KR_FAMILY_KNS);
	assert_int_equal(p.topo.p, 1);
	assert_true(p.check.cls[KR_CHECK_ALL].pairs >
		    p.check.cls[KR_CHECK_DATA].pairs);
	assert_int_equal(p.check.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
	assert_int_not_equal(p.slvl.host_vl, KR_NONE);
	assert_non_null(strstr(p.slvl.text, "2 hosts on crossbars (VL"));
	for (unsigned i = 0; i < 2; i++) {
		hp = host_port(&g, two, i);
		xbar = g.owner[hp];
		assert_int_equal(p.topo.port_dir[hp], KR_DIR_CA);
		assert_int_equal(p.topo.ca_slot[g.peer[hp]], KR_NONE);
		lid = g.lid[g.peer[hp]];
		assert_int_equal(p.tables.dlid_sl[lid], 15);
		assert_int_equal(kr_lft_port(&p.tables, xbar, lid),
				 kr_port_num(&g, hp));
		for (unsigned out = 0; out <= g.nports[xbar]; out++)
			assert_true(*kr_tables_sl2vl_ref(&g, &p.tables, xbar,
							 kr_port_num(&g, hp), out) ==
				    p.slvl.host_vl * 0x1111111111111111ull);
		/* nothing else leaves a crossbar on that VL */
		for (unsigned in = 1; in < g.nports[xbar]; in++)
			for (unsigned out = 1; out < g.nports[xbar]; out++)
				for (unsigned sl = 0; sl < 15; sl++)
					assert_int_not_equal(kr_map_vl(
						*kr_tables_sl2vl_ref(&g, &p.tables,
								     xbar, in, out),
						sl), p.slvl.host_vl);
	}
	kr_plan_free(&p);
	kr_fabric_free(&g);

	with_hosts(&f, many, 5, &g);
	kr_conf_init(&c);
	c.family = KR_FAMILY_KNS;
	assert_int_equal(kr_plan_build(&g, &c, &p, &d), KR_ETOPO);
	assert_non_null(strstr(d.msg, "neither side has four times as many "
			       "switches with CAs"));
	kr_plan_free(&p);
	kr_fabric_free(&g);
	tc_truth_free(&tr);
	kr_fabric_free(&f);

	o = kns_opts("3x3x3", 1);
	tc_gen(&o, &f, &tr);
	with_hosts(&f, deep, 2, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_ECYCLE);
	assert_non_null(strstr(d.msg, "order puts their crossbars' dimension "
			       "first"));
	assert_non_null(strstr(d.msg, "off \"xbar2(0,0,*)\""));
	dim = p.topo.sw_xdim[truth_node_named(&g, deep[0])];
	kr_plan_free(&p);
	kr_conf_init(&c);
	c.order[c.norder++] = dim;
	for (unsigned i = 0; i < 3; i++)
		if (i != dim)
			c.order[c.norder++] = i;
	assert_int_equal(kr_plan_build(&g, &c, &p, &d), KR_OK);
	assert_int_equal(p.check.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* A pendant switch for with_pendants: its name and GUID, the switch it
 * hangs off (of f or an earlier pendant), the cables between them, its
 * CAs. */
struct pendant {
	const char *name;
	uint64_t guid;
	const char *parent;
	unsigned cables, cas;
	const char *also;	/* NULL, or a switch of f it has a cable to */
};

/* f copied with the pendant switches pd added, into g (LIDs assigned). */
static void with_pendants(const struct kr_fabric *f, const struct pendant *pd,
			  unsigned n, struct kr_fabric *g)
{
	int *id, pid[8];
	unsigned next[8], *spare = calloc(f->nsw + 1, sizeof(*spare));
	struct kr_fabric_builder *b = copy_fabric(f, 4, KR_NONE, &id);

	assert_non_null(spare);
	assert_true(n <= 8);
	for (unsigned i = 0; i < n; i++) {
		int up = -1;

		pid[i] = add_sw(b, pd[i].name, pd[i].guid, 12);
		next[i] = 1;
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(pd[j].name, pd[i].parent))
				up = (int)j;
		for (unsigned c = 0; c < pd[i].cables; c++) {
			if (up >= 0) {
				add_link(b, pid[i], next[i]++, pid[up], next[up]);
				next[up]++;
			} else {
				uint32_t x = truth_node_named(f, pd[i].parent);

				add_link(b, pid[i], next[i]++, id[x],
					 f->nports[x] + 1 + spare[x]++);
			}
		}
		for (unsigned c = 0; c < pd[i].cas; c++)
			add_ca(b, pid[i], next[i]++, pd[i].guid + 0x100 + 16 * c);
		if (pd[i].also) {
			uint32_t x = truth_node_named(f, pd[i].also);

			add_link(b, pid[i], next[i]++, id[x],
				 f->nports[x] + 1 + spare[x]++);
		}
	}
	assert_int_equal(kr_fb_finish(b, g, NULL), KR_OK);
	kr_fb_free(b);
	free(id);
	free(spare);
	assert_int_equal(kr_fabric_assign_lids(g, 0, NULL), KR_OK);
}

/* The LID of the CA on port number port of switch sw. */
static unsigned ca_lid_on(const struct kr_fabric *g, uint32_t sw,
			  unsigned port)
{
	int32_t peer = g->peer[kr_port(g, sw, port)];

	assert_true(peer >= 0 && !kr_is_switch(g, g->owner[peer]));
	return g->lid[peer];
}

/* Whether port number port of switch a leads to switch z. */
static bool leads_to(const struct kr_fabric *g, uint32_t a, unsigned port,
		     uint32_t z)
{
	int32_t peer = g->peer[kr_port(g, a, port)];

	return port && peer >= 0 && g->owner[peer] == z;
}

/* f without the switch named name (and its CAs), into h and tr2. */
static void without_switch(const struct kr_fabric *f,
			   const struct tc_truth *tr, const char *name,
			   struct kr_fabric *h, struct tc_truth *tr2)
{
	uint8_t *drop = calloc(f->nnode, 1);

	assert_non_null(drop);
	drop[truth_node_named(f, name)] = 1;
	tc_without(f, tr, drop, KR_NONE, h, tr2);
	free(drop);
}

/* Every pair of both classes delivered, no credit loop. */
static void assert_proven(const struct kr_plan *p)
{
	assert_int_equal(p->check.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
	assert_int_equal(p->check.cls[KR_CHECK_ALL].delivered,
			 p->check.cls[KR_CHECK_ALL].pairs);
}

/* Switches that reach the others only through one switch: a leaf switch
 * with hosts on two cables, a switch hanging off it, a management switch
 * without CAs. Recognised as the grid alone (a 4x4 torus, not the 3x4x2
 * one with seven switches missing that the whole graph reads as), the
 * pendants hanging off their hosts: their LIDs are routed as the host's
 * CAs are up to the host (same ports, same SL), then down the tree, and
 * the pendants send everything else up. Both classes are proven. A leaf
 * with a cable to each of two grid switches hangs off one of them, its
 * other cable unused. When a
 * grid switch next to the host is gone, a leaf on one cable could fill
 * the hole as that switch with its other links down, and is read so,
 * unless the coordinates cache written before places the grid and not
 * the leaf: then both classes are proven with the leaf hanging off. A KNS
 * with a leaf switch on a router, which no reading of the whole fabric
 * fits, is routed the same way, also with a router gone, and with
 * fat-tree subnets when the leaf is on a router (on a subnet switch it is
 * refused, as a CA there is); a ring with a link down and a leaf, a tree,
 * as a line with the rest hanging off.
 * Where the rest is no grid either, the refusal names the leaf and its
 * one neighbour, the first thing an admin should look at. */
/* Leaves with a cable to each of two switches where a grid switch may
 * have two neighbours too (a ring, mesh corners, every router of a 2-D
 * KNS): told apart by their neighbours, each a grid switch with a cable
 * more than its kind, they hang off one, the grid reads whole, and both
 * classes are proven. Each was refused ("runs both ways", "cannot be
 * placed", "cannot tell the dimension of crossbar") or, on a router and a
 * crossbar of a 4-ary KNS, read as a 5-ary one with 8 routers missing. */
static void test_two_homed_leaves(void **state)
{
	static const struct {
		struct kr_gen_opts o;
		const char *a, *b;
		unsigned missing;	/* links the generator left out */
	} cases[] = {
		{ { .family = KR_FAMILY_TORUS, .ndim = 1, .k = { 6 },
		    .wrap = { 1 }, .p = 1, .parallel = 1 },
		  "switch(0)", "switch(3)", 0 },
		{ { .family = KR_FAMILY_MESH, .ndim = 2, .k = { 3, 3 }, .p = 1,
		    .parallel = 1 }, "switch(0,0)", "switch(2,2)", 0 },
		{ { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1 },
		  "router(0,0)", "router(2,1)", 0 },
		{ { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1 },
		  "router(0,0)", "xbar1(2,*)", 0 },
		{ { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1 },
		  "xbar0(*,1)", "xbar1(2,*)", 0 },
		{ { .family = KR_FAMILY_KNS, .ndim = 3, .k = { 3, 3, 3 }, .p = 1 },
		  "router(0,0,0)", "router(1,2,2)", 0 },
		/* three links down: fifteen switches of two neighbours in
		 * small groups, the leaf's the tenth */
		{ { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1,
		    .fail = 3, .fail_seed = 1 }, "xbar0(*,1)", "xbar1(2,*)", 3 },
		/* a link down leaves a router hanging, peeled first: the
		 * leaf is looked for after that reading (a 7-ary KNS with
		 * 15 switches missing) too */
		{ { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 6, 6 }, .p = 1,
		    .fail = 1, .fail_seed = 3 }, "router(1,1)", "xbar0(*,3)", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pendant pd = { "leaf", 0x6000, cases[i].a, 1, 2,
				      cases[i].b };
		struct kr_fabric f, g;
		struct tc_truth tr;
		struct kr_plan p;
		struct kr_diag d = { 0 };
		uint32_t leaf, a, b;

		tc_gen(&cases[i].o, &f, &tr);
		with_pendants(&f, &pd, 1, &g);
		if (kr_plan_build(&g, NULL, &p, &d))
			fail_msg("%s + %s: %s", cases[i].a, cases[i].b, d.msg);
		assert_int_equal(p.topo.family, cases[i].o.family);
		assert_int_equal(p.topo.npendant, 1);
		assert_int_equal(p.topo.nmissing_sw, 0);
		assert_int_equal(p.topo.nmissing_link, cases[i].missing);
		leaf = truth_node_named(&g, "leaf");
		a = truth_node_named(&g, cases[i].a);
		b = truth_node_named(&g, cases[i].b);
		assert_int_equal(p.topo.sw_parent[leaf],
				 g.guid[a] < g.guid[b] ? a : b);
		assert_proven(&p);
		kr_plan_free(&p);
		kr_fabric_free(&g);
		tc_truth_free(&tr);
		kr_fabric_free(&f);
	}
}

/* OperVLs 2 on every port of a pendant tree (an older leaf switch and
 * the host's port down to it): the plan keeps the grid's VLs, folds its
 * own below 2 on the tree's links and is proven, with no port on a VL it
 * lacks. The same 2 on one grid link takes the plan down to 2 VLs. */
static void test_pendant_low_vls(void **state)
{
	static const struct pendant pd[2] = {
		{ "leaf", 0x6000, "switch(1,2)", 2, 2, NULL },
		{ "leaf2", 0x6200, "leaf", 1, 1, NULL },
	};
	struct kr_fabric f, g;
	struct tc_truth tr;
	struct kr_plan p;
	unsigned grid_vls;
	uint32_t grid;

	(void)state;
	tc_gen(&(struct kr_gen_opts){ .family = KR_FAMILY_TORUS, .ndim = 2,
				      .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1,
				      .parallel = 1 }, &f, &tr);
	with_pendants(&f, pd, 2, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, NULL), KR_OK);
	grid_vls = p.slvl.vls;
	assert_true(grid_vls > 2);
	kr_plan_free(&p);
	for (uint32_t s = 0; s < g.port0[g.nsw]; s++) {
		uint32_t u = g.owner[s];
		int32_t peer = g.peer[s];
		bool tree = peer >= 0 && kr_is_switch(&g, g.owner[peer]) &&
			    (truth_node_named(&g, "leaf") == u ||
			     truth_node_named(&g, "leaf2") == u ||
			     truth_node_named(&g, "leaf") == g.owner[peer]);

		if (tree)
			g.oper_vls[s] = 2;
	}
	assert_int_equal(kr_plan_build(&g, NULL, &p, NULL), KR_OK);
	assert_int_equal(p.slvl.vls, grid_vls);
	assert_proven(&p);
	assert_int_equal(p.check.oper_vl_ports, 0);
	kr_plan_free(&p);
	grid = truth_node_named(&g, "switch(0,0)");
	for (uint32_t s = g.port0[grid] + 1; s < g.port0[grid + 1]; s++)
		if (g.peer[s] >= 0 && kr_is_switch(&g, g.owner[g.peer[s]])) {
			g.oper_vls[s] = g.oper_vls[g.peer[s]] = 2;
			break;
		}
	assert_int_equal(kr_plan_build(&g, NULL, &p, NULL), KR_OK);
	assert_int_equal(p.slvl.vls, 2);
	kr_plan_free(&p);
	tc_truth_free(&tr);
	kr_fabric_free(&g);
	kr_fabric_free(&f);
}

static void test_pendant_switches(void **state)
{
	static const struct pendant torus_pd[3] = {
		{ "leaf", 0x6000, "switch(1,2)", 2, 2, NULL },
		{ "leaf2", 0x6200, "leaf", 1, 1, NULL },
		{ "mgmt", 0x6400, "switch(3,3)", 1, 0, NULL },
	};
	static const struct pendant two_homes[1] = {
		{ "leaf", 0x6000, "switch(0,0)", 1, 2, "switch(2,2)" },
	};
	static const struct pendant one_leaf[1] = {
		{ "leaf", 0x6000, "switch(1,2)", 1, 2, NULL },
	};
	static const struct pendant ring_pd[1] = {
		{ "leaf", 0x6000, "switch(3)", 1, 2, NULL },
	};
	static const struct pendant sub_pd[2] = {
		{ "leaf", 0x6000, "router(1,5)", 1, 2, NULL },
		{ "leaf", 0x6000, "sw0(*,0)e1o0", 1, 2, NULL },
	};
	static const struct pendant kns_pd[1] = {
		{ "leaf", 0x6000, "router(0,0)", 1, 2, NULL },
	};
	char cache[] = "/tmp/kr-test-pendant-XXXXXX";
	struct kr_fabric_builder *b;
	int ring[5], leaf_id;
	struct kr_diag d = { 0 };
	struct kr_fabric f, g, h;
	struct tc_truth tr, tr2;
	struct kr_plan p;
	struct kr_conf c;
	uint32_t host, leaf, leaf2, cut = KR_NONE, stray;
	unsigned lid2, host_lid;

	(void)state;
	tc_gen(&(struct kr_gen_opts){ .family = KR_FAMILY_TORUS, .ndim = 2,
				      .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1,
				      .parallel = 1 }, &f, &tr);
	with_pendants(&f, torus_pd, 3, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.family, KR_FAMILY_TORUS);
	assert_int_equal(p.topo.npos, 16);
	assert_int_equal(p.topo.nmissing_sw + p.topo.nmissing_link, 0);
	assert_int_equal(p.topo.npendant, 3);
	assert_non_null(strstr(p.topo.report, "pendant switch leaf2 (1 "
			       "CAs) hangs off leaf:"));
	host = truth_node_named(&g, "switch(1,2)");
	leaf = truth_node_named(&g, "leaf");
	leaf2 = truth_node_named(&g, "leaf2");
	assert_int_equal(p.topo.sw_host[leaf2], host);
	assert_int_equal(p.topo.sw_parent[leaf2], leaf);
	assert_int_equal(p.topo.sw_host[host], KR_NONE);
	assert_proven(&p);
	assert_int_equal(p.repair.pairs_disconnected, 0);
	lid2 = ca_lid_on(&g, leaf2, 2);	/* port 1 is its cable up */
	host_lid = 0;
	for (unsigned pn = 1; pn <= g.nports[host] && !host_lid; pn++)
		if (p.topo.port_dir[kr_port(&g, host, pn)] == KR_DIR_CA)
			host_lid = ca_lid_on(&g, host, pn);
	assert_int_not_equal(host_lid, 0);
	assert_int_equal(p.tables.dlid_sl[lid2], p.tables.dlid_sl[host_lid]);
	for (uint32_t sw = 0; sw < g.nsw; sw++) {
		unsigned out = kr_lft_port(&p.tables, sw, lid2);

		if (sw == host)
			assert_true(leads_to(&g, sw, out, leaf));
		else if (sw == leaf)
			assert_true(leads_to(&g, sw, out, leaf2));
		else if (sw == leaf2)
			assert_int_equal(out, 2);
		else if (p.topo.sw_host[sw] == KR_NONE)
			assert_int_equal(out, kr_lft_port(&p.tables, sw,
							  host_lid));
		else	/* mgmt: up */
			assert_true(leads_to(&g, sw, out, p.topo.sw_parent[sw]));
		/* and a pendant sends the host's CA up */
		if (p.topo.sw_host[sw] != KR_NONE)
			assert_true(leads_to(&g, sw, kr_lft_port(&p.tables, sw,
								 host_lid),
					     p.topo.sw_parent[sw]));
	}
	kr_plan_free(&p);
	kr_fabric_free(&g);

	/* a leaf with a cable to each of two switches: it hangs off the one
	 * of lower GUID, and no entry takes the other cable */
	with_pendants(&f, two_homes, 1, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.npos, 16);
	assert_int_equal(p.topo.npendant, 1);
	leaf = truth_node_named(&g, "leaf");
	assert_int_equal(p.topo.sw_parent[leaf],
			 truth_node_named(&g, "switch(0,0)"));
	assert_non_null(strstr(p.topo.report, "its cables to other switches "
			       "are not used"));
	stray = kr_port(&g, leaf, 4);	/* cable up, CAs, then the other */
	assert_true(g.peer[stray] >= 0);
	assert_int_equal(p.topo.port_dir[stray], KR_DIR_NONE);
	assert_int_equal(p.topo.port_dir[g.peer[stray]], KR_DIR_NONE);
	for (uint32_t sw = 0; sw < g.nsw; sw++)
		for (unsigned lid = 1; lid <= g.max_lid; lid++) {
			unsigned out = kr_lft_port(&p.tables, sw, lid);

			assert_false(sw == leaf && out == 4);
			assert_false(out && kr_port(&g, sw, out) ==
				     (uint32_t)g.peer[stray]);
		}
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);

	/* switch(2,2) gone, next to a leaf's host: the leaf could be it,
	 * with three links down, and is read so, unless the coordinates
	 * cache of the reading before says the grid had no place for it */
	without_switch(&f, &tr, "switch(2,2)", &h, &tr2);
	with_pendants(&f, one_leaf, 1, &g);
	coords_of(&g, cache);
	kr_fabric_free(&g);
	with_pendants(&h, one_leaf, 1, &g);
	assert_int_equal(kr_topo_recognize(&g, NULL, &p.topo, &d), KR_OK);
	assert_int_equal(p.topo.npendant, 0);
	assert_int_equal(p.topo.npos, 16);
	assert_int_equal(p.topo.nmissing_sw, 0);
	assert_int_equal(p.topo.nmissing_link, 3);
	kr_topo_free(&p.topo);
	kr_conf_init(&c);
	snprintf(c.coords_cache, sizeof(c.coords_cache), "%s", cache);
	assert_int_equal(kr_plan_build(&g, &c, &p, &d), KR_OK);
	assert_int_equal(p.topo.npos, 16);
	assert_int_equal(p.topo.nmissing_sw, 1);
	assert_int_equal(p.topo.npendant, 1);
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	unlink(cache);
	free_without(&f, &tr, &h, &tr2);

	tc_gen(&(struct kr_gen_opts){ .family = KR_FAMILY_KNS, .ndim = 2,
				      .k = { 3, 3 }, .p = 1 }, &f, &tr);
	with_pendants(&f, kns_pd, 1, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.family, KR_FAMILY_KNS);
	assert_int_equal(p.topo.npendant, 1);
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);

	without_switch(&f, &tr, "router(2,2)", &h, &tr2);
	with_pendants(&h, kns_pd, 1, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.family, KR_FAMILY_KNS);
	assert_int_equal(p.topo.nmissing_sw, 1);
	assert_int_equal(p.topo.npendant, 1);
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	free_without(&f, &tr, &h, &tr2);

	/* a ring of six with a link down and a leaf on it: a tree, which
	 * peels away whole; its longest path is read as the grid, a line,
	 * and the rest hangs off it */
	tc_gen(&(struct kr_gen_opts){ .family = KR_FAMILY_TORUS, .ndim = 1,
				      .k = { 6 }, .wrap = { 1 }, .p = 1,
				      .parallel = 1 }, &f, &tr);
	host = truth_node_named(&f, "switch(0)");
	for (unsigned pn = 1; pn <= f.nports[host]; pn++)
		if (f.peer[kr_port(&f, host, pn)] >= 0 &&
		    kr_is_switch(&f, f.owner[f.peer[kr_port(&f, host, pn)]]))
			cut = kr_port(&f, host, pn);
	tc_without(&f, &tr, NULL, cut, &h, &tr2);
	with_pendants(&h, ring_pd, 1, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.family, KR_FAMILY_MESH);
	assert_int_equal(p.topo.ndim, 1);
	assert_int_equal(p.topo.npos + p.topo.npendant, 7);
	assert_true(p.topo.npendant >= 1);
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	free_without(&f, &tr, &h, &tr2);

	/* KNS with fat-tree subnets (s = 3): a leaf on a router is routed;
	 * on a subnet switch it is refused, as a CA there is */
	tc_gen(&(struct kr_gen_opts){ .family = KR_FAMILY_KNS, .ndim = 2,
				      .k = { 8, 8 }, .p = 1, .radix = 4 }, &f,
	       &tr);
	with_pendants(&f, sub_pd, 1, &g);
	assert_int_equal(kr_plan_build(&g, NULL, &p, &d), KR_OK);
	assert_int_equal(p.topo.s, 3);
	assert_int_equal(p.topo.npendant, 1);
	assert_proven(&p);
	kr_plan_free(&p);
	kr_fabric_free(&g);
	with_pendants(&f, sub_pd + 1, 1, &g);
	assert_int_equal(kr_topo_recognize(&g, NULL, &p.topo, &d), KR_ETOPO);
	kr_topo_free(&p.topo);
	kr_fabric_free(&g);
	tc_truth_free(&tr);
	kr_fabric_free(&f);

	/* two rings of three sharing a switch: no grid, leaf or not */
	b = kr_fb_new();
	for (unsigned i = 0; i < 5; i++) {
		char name[8];

		snprintf(name, sizeof(name), "r%u", i);
		ring[i] = add_sw(b, name, 0x500 + i, 8);
		add_ca(b, ring[i], 8, 0x9000 + 16 * (uint64_t)i);
	}
	add_link(b, ring[0], 1, ring[1], 2);
	add_link(b, ring[1], 1, ring[2], 2);
	add_link(b, ring[2], 1, ring[0], 2);
	add_link(b, ring[2], 3, ring[3], 2);
	add_link(b, ring[3], 1, ring[4], 2);
	add_link(b, ring[4], 1, ring[2], 4);
	leaf_id = add_sw(b, "leaf", 0x6000, 4);
	add_link(b, leaf_id, 1, ring[0], 3);
	add_ca(b, leaf_id, 2, 0x6100);
	assert_refused(b, "switch leaf reaches the others only through "
		       "r0: a leaf switch hanging off the grid");
}

/* Random connected graphs: a random tree plus random extra links. */
static void test_random_graphs_refused(void **state)
{
	uint64_t rng = 12345;

	(void)state;
	for (unsigned run = 0; run < 40; run++) {
		struct kr_fabric_builder *b = kr_fb_new();
		unsigned n = 8 + run % 30, used[64] = { 0 };
		int id[64];
		char name[16];

		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "r%u", i);
			id[i] = add_sw(b, name, 0x500 + i, 16);
			if (i % 2)
				add_ca(b, id[i], 16, 0x9000 + 16 * (uint64_t)i);
		}
		for (unsigned i = 1; i < 3 * n; i++) {
			unsigned x, y;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			x = i < n ? i : (unsigned)(rng >> 33) % n;
			y = (unsigned)(rng >> 45) % (i < n ? i : n);
			if (x == y || used[x] == 15 || used[y] == 15)
				continue;
			add_link(b, id[x], ++used[x], id[y], ++used[y]);
		}
		assert_refused(b, "not a");
	}
}

/* A 3x2 mesh by hand: port 1 +x, 2 -x, 3 +y, 4 -y, CAs from port 5.
 *   y=1:  0x14 - 0x12 - 0x16
 *   y=0:  0x13 - 0x11 - 0x15      (0x11 has CAs on ports 6 and 5)
 * Worked by the rule: origin 0x11; the y line through it holds 0x12, the x
 * line 0x13 and 0x15, so y is dimension 0; coordinate 0 at the end slice
 * with the lower GUID (x: 0x13 < 0x15, y: 0x11 < 0x12). */
static void test_mesh_by_hand(void **state)
{
	static const uint64_t guid[2][3] = { { 0x13, 0x11, 0x15 },
					     { 0x14, 0x12, 0x16 } };
	static const uint32_t want_pos[2][3] = { { 0, 2, 4 }, { 1, 3, 5 } };
	struct kr_fabric_builder *b = kr_fb_new();
	struct kr_fabric f;
	struct kr_topo t;
	int id[2][3];
	uint32_t g1;

	(void)state;
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 3; x++) {
			char name[8];

			snprintf(name, sizeof(name), "s%d%d", x, y);
			id[y][x] = add_sw(b, name, guid[y][x], 6);
			if (x)
				add_link(b, id[y][x - 1], 1, id[y][x], 2);
			if (y)
				add_link(b, id[0][x], 3, id[1][x], 4);
			if (x != 1 || y)
				add_ca(b, id[y][x], 5, 0x100 * guid[y][x]);
		}
	add_ca(b, id[0][1], 6, 0x7700);
	add_ca(b, id[0][1], 5, 0x7800);
	assert_int_equal(kr_fb_finish(b, &f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	tc_assert_valid(&f, &t);
	assert_int_equal(t.family, KR_FAMILY_MESH);
	assert_int_equal(t.ndim, 2);
	assert_int_equal(t.k[0], 2);
	assert_int_equal(t.k[1], 3);
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 3; x++)
			assert_int_equal(t.sw_pos[kr_node_by_guid(&f, guid[y][x])],
					 want_pos[y][x]);
	g1 = kr_node_by_guid(&f, 0x11);
	assert_int_equal(t.port_dir[kr_port(&f, g1, 1)], 2);	/* +x: dim 1 + */
	assert_int_equal(t.port_dir[kr_port(&f, g1, 2)], 3);
	assert_int_equal(t.port_dir[kr_port(&f, g1, 3)], 0);	/* +y: dim 0 + */
	assert_int_equal(t.ca_slot[f.peer[kr_port(&f, g1, 5)]], 0);
	assert_int_equal(t.ca_slot[f.peer[kr_port(&f, g1, 6)]], 1);
	assert_int_equal(t.p, 2);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* A 2-ary 2-direct KNS by hand. Routers r(a,b) with GUIDs r00 0x24,
 * r10 0x21, r01 0x23, r11 0x22; crossbar (dim a, line b) 0x31 + b,
 * (dim b, line a) 0x33 + a. Worked by the rule: origin r10; in each
 * dimension the origin's hyperplane is 0; the line in b (r11, 0x22) beats
 * the line in a (r00, 0x24), so b is dimension 0 and a dimension 1. */
static void test_kns_by_hand(void **state)
{
	static const uint64_t rg[2][2] = { { 0x24, 0x23 }, { 0x21, 0x22 } };
	static const uint32_t want[2][2] = { { 2, 3 }, { 0, 1 } };	/* [a][b] */
	struct kr_fabric_builder *b = kr_fb_new();
	struct kr_fabric f;
	struct kr_topo t;
	int r[2][2], xa[2], xb[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		xa[i] = add_sw(b, i ? "xa1" : "xa0", 0x31 + (uint64_t)i, 2);
		xb[i] = add_sw(b, i ? "xb1" : "xb0", 0x33 + (uint64_t)i, 2);
	}
	for (int a = 0; a < 2; a++)
		for (int c = 0; c < 2; c++) {
			char name[8];

			snprintf(name, sizeof(name), "r%d%d", a, c);
			r[a][c] = add_sw(b, name, rg[a][c], 3);
			add_ca(b, r[a][c], 1, 0x100 * rg[a][c]);
			add_link(b, r[a][c], 2, xa[c], 1 + (unsigned)a);
			add_link(b, r[a][c], 3, xb[a], 1 + (unsigned)c);
		}
	assert_int_equal(kr_fb_finish(b, &f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	tc_assert_valid(&f, &t);
	assert_int_equal(t.family, KR_FAMILY_KNS);
	for (int a = 0; a < 2; a++)
		for (int c = 0; c < 2; c++)
			assert_int_equal(t.sw_pos[kr_node_by_guid(&f, rg[a][c])],
					 want[a][c]);
	for (int i = 0; i < 2; i++) {
		uint32_t x = kr_node_by_guid(&f, 0x31 + (uint64_t)i);
		uint32_t y = kr_node_by_guid(&f, 0x33 + (uint64_t)i);

		assert_int_equal(t.sw_xdim[x], 1);
		assert_int_equal(t.sw_xline[x], (uint32_t)i);	/* b = i */
		assert_int_equal(t.sw_xdim[y], 0);
		assert_int_equal(t.sw_xline[y], i ? 0u : 2u);	/* a = i */
	}
	assert_int_equal(t.port_dir[kr_port(&f, kr_node_by_guid(&f, 0x21), 2)], 2);
	assert_int_equal(t.port_dir[kr_port(&f, kr_node_by_guid(&f, 0x21), 3)], 0);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* A ring of three switches 0x1 - 0x2 - 0x3 - 0x1, one CA each. */
static void ring3(struct kr_fabric *f)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int s[3];

	for (int i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%d", i + 1);
		s[i] = add_sw(b, name, 1 + (uint64_t)i, 3);
		add_ca(b, s[i], 3, 0x10 * (uint64_t)(i + 1));
	}
	for (int i = 0; i < 3; i++)
		add_link(b, s[i], 1, s[(i + 1) % 3], 2);
	assert_int_equal(kr_fb_finish(b, f, NULL), KR_OK);
	kr_fb_free(b);
}

static char *written(int (*fn)(FILE *, const struct kr_fabric *,
			       const struct kr_topo *),
		     const struct kr_fabric *f, const struct kr_topo *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(fn(fp, f, t), KR_OK);
	fclose(fp);
	return buf;
}

static void test_json_and_cache_text(void **state)
{
	static const char want_json[] =
		"{\n  \"version\": \"" PACKAGE_VERSION "\",\n"
		"  \"family\": \"torus\",\n  \"dims\": [3],\n"
		"  \"wrap\": [true],\n  \"p\": 1,\n  \"parallel\": 1,\n"
		"  \"switches\": 3,\n  \"cas\": 3,\n  \"coords\": {\n"
		"    \"0x0000000000000001\": [0],\n"
		"    \"0x0000000000000002\": [1],\n"
		"    \"0x0000000000000003\": [2]\n  },\n"
		"  \"missing_links\": [],\n  \"missing_switches\": []\n}\n";
	static const char want_cache_tail[] =
		"family torus\ndims 3\nwrap yes\n0x0000000000000001 0 cas 3:0\n"
		"0x0000000000000002 1 cas 3:0\n0x0000000000000003 2 cas 3:0\n";
	struct kr_fabric f;
	struct kr_topo t;
	char *text;

	(void)state;
	ring3(&f);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	text = written(kr_topo_write_json, &f, &t);
	assert_string_equal(text, want_json);
	free(text);
	text = written(kr_topo_cache_write, &f, &t);
	assert_non_null(strstr(text, want_cache_tail));
	assert_string_equal(strstr(text, want_cache_tail), want_cache_tail);
	free(text);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* The generator's 4x4 torus (coordinates = its own, see above) without
 * the link (0,0) - (1,0): reported from (0,0) in +x. */
static void test_json_missing_link(void **state)
{
	struct kr_gen_opts o = grid_opts("4x4", "1", 0, 1);
	struct kr_fabric f, g;
	struct kr_topo t;
	struct tc_truth tr, tr2;
	char *text;

	(void)state;
	tc_gen(&o, &f, &tr);
	tc_without(&f, &tr, NULL, slot_to(&f, (uint32_t)tr.at[0],
					  (uint32_t)tr.at[1]), &g, &tr2);
	assert_int_equal(kr_topo_recognize(&g, NULL, &t, NULL), KR_OK);
	text = written(kr_topo_write_json, &g, &t);
	assert_non_null(strstr(text, "\"missing_links\": [\n    {\"from\": [0, 0], "
			       "\"to\": [1, 0], \"dim\": 0}\n  ]"));
	free(text);
	kr_topo_free(&t);
	free_without(&f, &tr, &g, &tr2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grids_from_the_graph),
		cmocka_unit_test(test_kns_from_the_graph),
		cmocka_unit_test(test_rule_reproduces_generator),
		cmocka_unit_test(test_kns_some_routers_without_cas),
		cmocka_unit_test(test_preferred_readings),
		cmocka_unit_test(test_pinned_dims_pair_rings_of_two),
		cmocka_unit_test(test_any_one_link_missing),
		cmocka_unit_test(test_any_one_switch_missing),
		cmocka_unit_test(test_clusters_placed_together),
		cmocka_unit_test(test_random_faults),
		cmocka_unit_test(test_faulty_grids_any_order),
		cmocka_unit_test(test_places_chosen),
		cmocka_unit_test(test_faults_leaving_one_place),
		cmocka_unit_test(test_one_link_crossbar),
		cmocka_unit_test(test_fat_tree_refused),
		cmocka_unit_test(test_ibsim_examples_refused),
		cmocka_unit_test(test_extra_parallel_cables),
		cmocka_unit_test(test_twisted_torus_refused),
		cmocka_unit_test(test_stray_links),
		cmocka_unit_test(test_stray_link_only_way),
		cmocka_unit_test(test_hosts_on_crossbars),
		cmocka_unit_test(test_pendant_switches),
		cmocka_unit_test(test_pendant_low_vls),
		cmocka_unit_test(test_two_homed_leaves),
		cmocka_unit_test(test_random_graphs_refused),
		cmocka_unit_test(test_mesh_by_hand),
		cmocka_unit_test(test_kns_by_hand),
		cmocka_unit_test(test_json_and_cache_text),
		cmocka_unit_test(test_json_missing_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
