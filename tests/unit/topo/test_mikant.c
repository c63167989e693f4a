/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MiKANT recognition from the graph alone: generated fabrics with GUIDs,
 * port numbers and record order shuffled, with links and switches
 * missing, read against the slides' rules (mikant_rules.c decodes the
 * addresses by hand) and against the generator's stages and groups; and
 * the other families, which must not read as a MiKANT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "mikant_rules.h"
#include "topo_check.h"

static struct kr_gen_opts mk_opts(unsigned k, unsigned n, uint64_t seed)
{
	return (struct kr_gen_opts){ .family = KR_FAMILY_MIKANT, .ndim = n,
				     .k = { k }, .shuffle = seed != 0,
				     .shuffle_seed = seed };
}

static unsigned kpow(unsigned k, unsigned e)
{
	unsigned v = 1;

	while (e--)
		v *= k;
	return v;
}

static void recognise(const struct kr_fabric *f, struct kr_topo *t,
		      unsigned k, unsigned n)
{
	struct kr_diag d = { 0 };

	if (kr_topo_recognize(f, NULL, t, &d))
		fail_msg("MiKANT(%u, %u): %s", k, n, d.msg);
	assert_int_equal(t->family, KR_FAMILY_MIKANT);
	assert_int_equal(t->ndim, n + 1);
	assert_int_equal(t->k[0], k);
	assert_int_equal(t->npos, (2 * n - 2) * kpow(k, n - 1));
	tc_assert_valid(f, t);
}

static void test_shuffled(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 4, 3 }, { 3, 4 },
					     { 6, 3 }, { 2, 3 }, { 2, 5 },
					     { 3, 2 }, { 5, 2 } };

	(void)state;
	for (unsigned i = 0; i < sizeof(shape) / sizeof(shape[0]); i++)
		for (uint64_t seed = 0; seed < 3; seed++) {
			unsigned k = shape[i][0], n = shape[i][1];
			struct kr_gen_opts o = mk_opts(k, n, seed * 104729);
			struct kr_fabric f;
			struct kr_topo t;
			struct tc_truth tr;

			tc_gen(&o, &f, &tr);
			recognise(&f, &t, k, n);
			mk_assert_rules(&f, t.sw_pos, k, n, true);
			assert_null(tc_iso(&f, &tr, &t));
			assert_int_equal(t.p, k);
			assert_int_equal(t.nmissing_link + t.nmissing_sw, 0);
			kr_topo_free(&t);
			tc_truth_free(&tr);
			kr_fabric_free(&f);
		}
}

/* Whether t lists the link between switches a and b as missing. */
static bool listed(const struct kr_topo *t, uint32_t a, uint32_t b)
{
	uint32_t pa = t->sw_pos[a], pb = t->sw_pos[b];

	for (uint32_t i = 0; i < t->nmissing_link; i++) {
		const struct kr_missing_link *m = &t->missing_link[i];
		uint32_t to = kr_mk_up_pos(t, m->pos, m->dim);

		if ((m->pos == pa && to == pb) || (m->pos == pb && to == pa))
			return true;
	}
	return false;
}

/* Links left out by the generator (shuffled): every one reported
 * missing between the switches it joined, and nothing else. */
static void links_out(unsigned k, unsigned n, unsigned nfail, uint64_t seed)
{
	struct kr_gen_opts o = mk_opts(k, n, seed);
	struct kr_gen_fault *x;
	struct kr_fabric f;
	struct kr_topo t;
	unsigned nx;

	o.fail = nfail;
	o.fail_seed = seed + 1;
	assert_int_equal(kr_gen(&o, &f, NULL, &x, &nx, NULL), KR_OK);
	recognise(&f, &t, k, n);
	mk_assert_rules(&f, t.sw_pos, k, n, false);
	assert_int_equal(t.nmissing_link, nfail);
	assert_int_equal(t.nmissing_sw, 0);
	for (unsigned i = 0; i < nx; i++)
		assert_true(listed(&t, x[i].node_a, x[i].node_b));
	free(x);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

static void test_links_missing(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 27; seed++)
		links_out(3, 3, 1, seed);
	for (uint64_t seed = 1; seed <= 5; seed++) {
		links_out(4, 3, 6, seed);
		links_out(3, 4, 8, seed);
		links_out(4, 2, 3, seed);
	}
}

/* n = 2 is K_{k,k} with k CAs on every switch. k = 2 is a ring of 4,
 * the torus 4 with 2 CAs per switch: read as that, and said so. A ring
 * of 6 with 3 CAs each is K_{3,3} without three links, and no two of its
 * switches share 3 neighbours: a torus, not a MiKANT(3, 2). */
static void test_flat(void **state)
{
	struct kr_gen_opts o = mk_opts(2, 2, 5);
	struct kr_gen_opts ring = { .family = KR_FAMILY_TORUS, .ndim = 1,
				    .k = { 6 }, .wrap = { 1 }, .p = 3,
				    .shuffle = 1, .shuffle_seed = 5 };
	struct kr_fabric f;
	struct kr_topo t;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_TORUS);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "MiKANT(2, 2) and the torus 4 alike"));
	kr_topo_free(&t);
	kr_fabric_free(&f);
	assert_int_equal(kr_gen(&ring, &f, NULL, NULL, NULL, NULL), KR_OK);
	assert_int_equal(kr_topo_recognize(&f, NULL, &t, NULL), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_TORUS);
	assert_null(t.report);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Every switch of a shuffled MiKANT(3, 3) taken out in turn, and some of
 * a MiKANT(3, 4): its place reported missing, the rest by the rules. */
static void switches_out(unsigned k, unsigned n, unsigned step)
{
	struct kr_gen_opts o = mk_opts(k, n, 31);
	struct kr_fabric f, g;
	struct tc_truth tr, tr2;
	struct kr_topo t;

	tc_gen(&o, &f, &tr);
	for (uint32_t s = 0; s < f.nsw; s += step) {
		uint8_t *drop = calloc(f.nnode, 1);
		int32_t gone;

		assert_non_null(drop);
		drop[s] = 1;
		tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
		recognise(&g, &t, k, n);
		mk_assert_rules(&g, t.sw_pos, k, n, false);
		assert_null(tc_iso(&g, &tr2, &t));
		assert_int_equal(t.nmissing_sw, 1);
		assert_int_equal(t.nmissing_link, 0);
		gone = t.pos_sw[t.missing_sw[0].pos];
		assert_int_equal(gone, -1);
		kr_topo_free(&t);
		tc_truth_free(&tr2);
		kr_fabric_free(&g);
		free(drop);
	}
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_switches_missing(void **state)
{
	(void)state;
	switches_out(3, 3, 1);
	switches_out(3, 4, 7);
}

/* A leaf whose k hosts are all away (MiKANT(3, 3) and (3, 4), shuffled):
 * still a leaf, the rest read as before. */
static void test_hostless_leaf(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 3, 4 } };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		unsigned k = shape[i][0], n = shape[i][1];
		struct kr_gen_opts o = mk_opts(k, n, 77);
		struct kr_fabric f, g;
		struct tc_truth tr, tr2;
		struct kr_topo t;
		uint8_t *drop;
		uint32_t leaf;

		tc_gen(&o, &f, &tr);
		drop = calloc(f.nnode, 1);
		assert_non_null(drop);
		/* the leaf of the first CA, and all its CAs */
		leaf = f.owner[f.peer[f.port0[f.nsw] + 1]];
		for (uint32_t s = f.port0[leaf] + 1; s < f.port0[leaf + 1]; s++)
			if (!kr_is_switch(&f, f.owner[f.peer[s]]))
				drop[f.owner[f.peer[s]]] = 1;
		tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
		recognise(&g, &t, k, n);
		mk_assert_rules(&g, t.sw_pos, k, n, false);
		assert_null(tc_iso(&g, &tr2, &t));
		assert_int_equal(t.nmissing_link + t.nmissing_sw, 0);
		kr_topo_free(&t);
		tc_truth_free(&tr2);
		tc_truth_free(&tr);
		kr_fabric_free(&g);
		kr_fabric_free(&f);
		free(drop);
	}
}

/* A switch of stage L >= 2 with every link up (across, at the top) cut,
 * shuffled: it has only stage L-1 neighbours, as a hostless leaf has,
 * but stays at its place, and the cut links are listed. */
static void orphan(unsigned k, unsigned n, unsigned stage)
{
	struct kr_gen_opts o = mk_opts(k, n, 53 + stage);
	struct kr_fabric f;
	struct tc_truth tr;
	struct kr_topo t;
	uint32_t v = 0;

	tc_gen(&o, &f, &tr);
	while (kr_mk_stage(&tr.grid, tr.pos[v]) != stage)
		v++;
	for (uint32_t s = f.port0[v] + 1; s < f.port0[v + 1]; s++)
		if (kr_mk_stage(&tr.grid, tr.pos[f.owner[f.peer[s]]]) >= stage) {
			f.peer[f.peer[s]] = -1;
			f.peer[s] = -1;
		}
	recognise(&f, &t, k, n);
	mk_assert_rules(&f, t.sw_pos, k, n, false);
	assert_null(tc_iso(&f, &tr, &t));
	assert_int_equal(t.nmissing_link, k);
	assert_int_equal(t.nmissing_sw, 0);
	kr_topo_free(&t);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_no_way_up(void **state)
{
	(void)state;
	orphan(3, 4, 2);	/* the top: no link across */
	orphan(3, 5, 2);
	orphan(3, 5, 3);
	orphan(2, 5, 2);
	orphan(4, 4, 2);
}

/* KNS with crossbars or fat-tree subnets (a 1-dimensional one is a fat
 * tree with routers for leaves), tori and meshes keep their family. */
static void test_others_not_mikant(void **state)
{
	static const struct kr_gen_opts other[] = {
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 2 },
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1,
		  .radix = 4 },
		{ .family = KR_FAMILY_KNS, .ndim = 1, .k = { 8 }, .p = 2,
		  .radix = 4 },
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 4 },
		  .wrap = { 1, 1 }, .p = 1 },
		{ .family = KR_FAMILY_MESH, .ndim = 2, .k = { 3, 5 }, .p = 0 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		struct kr_gen_opts o = other[i];
		struct kr_fabric f;
		struct kr_topo t;
		int rc;

		o.shuffle = 1;
		o.shuffle_seed = 17 + i;
		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
		rc = kr_topo_recognize(&f, NULL, &t, NULL);
		if (o.ndim > 1 || !o.radix) {
			assert_int_equal(rc, KR_OK);
			assert_int_equal(t.family, o.family);
		} else {
			assert_true(rc != KR_OK || t.family != KR_FAMILY_MIKANT);
		}
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}

/* Two top switches of one group, in one tree below (switches 9 and 10
 * of the unshuffled MiKANT(3, 3): (0,1,00) and (0,1,01)), linked to each
 * other instead of across: that link closes an odd cycle with the trees,
 * so there are no two groups. */
static void test_top_within_group_refused(void **state)
{
	struct kr_gen_opts o = mk_opts(3, 3, 0);
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_diag d = { 0 };
	struct kr_conf c;
	uint32_t a, b;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	assert_string_equal(kr_node_name(&f, 9), "sw(0,1,00)");
	assert_string_equal(kr_node_name(&f, 10), "sw(0,1,01)");
	kr_conf_init(&c);
	c.family = KR_FAMILY_MIKANT;
	a = kr_port(&f, 9, 4);
	b = kr_port(&f, 10, 4);
	f.peer[f.peer[a]] = -1;
	f.peer[f.peer[b]] = -1;
	f.peer[a] = (int32_t)b;
	f.peer[b] = (int32_t)a;
	assert_int_equal(kr_topo_recognize(&f, &c, &t, &d), KR_ETOPO);
	assert_non_null(strstr(d.msg, "not a MiKANT: links across the top "
			       "close an odd cycle"));
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_links_missing),
		cmocka_unit_test(test_switches_missing),
		cmocka_unit_test(test_hostless_leaf),
		cmocka_unit_test(test_no_way_up),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_others_not_mikant),
		cmocka_unit_test(test_top_within_group_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
