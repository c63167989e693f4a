/* Recognition from the graph alone: generated KNS, tori and meshes (GUIDs,
 * port numbers and record order shuffled) against the generator's truth,
 * with links and switches missing, fabrics worked by hand, and graphs that
 * are neither family. Conf, pins and cache: test_conf.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
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

static struct kr_gen_opts kns_opts(const char *dims, unsigned p)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .p = p };

	assert_int_equal(kr_parse_dims(dims, o.k, &o.ndim, NULL), KR_OK);
	return o;
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
	assert_int_equal(t->parallel, o.family == KR_FAMILY_KNS || !o.parallel ?
			 1 : o.parallel);
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
