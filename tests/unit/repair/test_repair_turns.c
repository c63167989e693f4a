/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Where repaired routes turn against the dimension order: each
 * destination class at its own anchor, and in fat-tree subnets where the
 * turn VL covers the turn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "repair_util.h"
#include "truth.h"

/* The top-dimension coordinates (a bit each) of the grid switches where
 * the route from CA port src to dlid along r turns into a lower
 * dimension. */
static uint32_t turn_rows(const struct kr_fabric *f, const struct kr_topo *t,
			  const struct kr_tables *r, uint32_t src, unsigned dlid)
{
	uint32_t in = (uint32_t)f->peer[src], u = f->owner[in], rows = 0;

	for (unsigned hops = 0; hops < f->nsw; hops++) {
		unsigned port = kr_lft_port(r, u, dlid);
		uint32_t out = f->port0[u] + port;
		unsigned din = t->port_dir[in], dout = t->port_dir[out];

		assert_true(port != KR_NO_PORT && f->peer[out] >= 0);
		if (!kr_is_switch(f, f->owner[f->peer[out]]))
			return rows;	/* delivered */
		if (t->sw_pos[u] != KR_NONE && din < 2 * KR_MAX_DIM &&
		    dout < 2 * KR_MAX_DIM && din >> 1 > dout >> 1)
			rows |= 1u << kr_topo_coord(t, t->sw_pos[u], t->ndim - 1);
		in = (uint32_t)f->peer[out];
		u = f->owner[in];
	}
	fail_msg("route from slot %u to LID %u loops", src, dlid);
	return 0;
}

/* o's fabric with the link of the router at grid position pos in
 * direction dir cut, routed, planned and repaired: no pair may change SL. */
struct cut {
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_tables r;
	struct kr_slvl p;
};

static void cut_and_repair(const struct kr_gen_opts *o, uint32_t pos,
			   unsigned dir, struct cut *x)
{
	struct kr_conf c;
	struct kr_repair_stats st;
	uint32_t sw;

	kr_conf_init(&c);
	truth_gen(o, &x->f, &x->t);
	sw = (uint32_t)x->t.pos_sw[pos];
	cut_port(&x->f, kr_port(&x->f, sw, port_dir(&x->f, &x->t, sw, dir)));
	assert_int_equal(kr_route(&x->f, &x->t, &c, &x->r, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&x->f, &x->t, &c, &x->r, &x->p, NULL),
			 KR_OK);
	assert_int_equal(repair_into(&x->f, &x->t, &c, &x->p, NULL, &x->r,
				     &st, NULL), KR_OK);
	assert_int_equal(st.pairs_sl_changed, 0);
}

static void uncut(struct cut *x)
{
	kr_slvl_free(&x->p);
	kr_tables_free(&x->r);
	kr_topo_free(&x->t);
	kr_fabric_free(&x->f);
}

/* 8-ary 2-direct KNS, XORDET's 4 classes on 4 VLs, the x link of router
 * (3,5) cut. Its own packets and those coming to it along row 5 must
 * turn from y into x somewhere. One anchor would put every such turn in
 * one row, and all the detours' load on its links; each class keeps to
 * an anchor of its own instead, in rows clear of the fault. So: every
 * pair keeps its SL, the turns of all destinations on one SL are in one
 * row, and the four classes' rows are four, none of them row 5. */
static void test_kns_class_anchors(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 8, 8 }, .p = 1 };
	struct cut x;
	const struct kr_fabric *f = &x.f;
	uint32_t row_of_sl[KR_NSL] = { 0 }, used = 0;
	unsigned classes = 0;

	(void)state;
	cut_and_repair(&o, 5 * 8 + 3, 0, &x);
	assert_int_equal(x.p.nclass, 4);
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		for (uint32_t q = f->port0[f->nsw]; q < f->nport; q++) {
			unsigned sl = x.r.dlid_sl[f->lid[q]];
			uint32_t rows;

			if (q == s || !f->lid[s] || !f->lid[q] || f->peer[s] < 0)
				continue;
			rows = turn_rows(f, &x.t, &x.r, s, f->lid[q]);
			row_of_sl[sl] |= rows;
			if (rows & (rows - 1))
				fail_msg("LID %u: turns in two rows", f->lid[q]);
		}
	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		if (!row_of_sl[sl])
			continue;
		if (row_of_sl[sl] & (row_of_sl[sl] - 1))
			fail_msg("SL %u: turns in rows %#x", sl, row_of_sl[sl]);
		assert_false(row_of_sl[sl] & used);	/* a row of its own */
		assert_false(row_of_sl[sl] & 1u << 5);
		used |= row_of_sl[sl];
		classes++;
	}
	assert_int_equal(classes, 4);
	uncut(&x);
}

/* 8-ary 2-direct KNS whose lines are fat trees of radix-4 switches, the
 * y link of router (0,1) cut: routes to column 0 from row 1 must turn
 * against the order. The turn VL carries a turned packet over its first
 * hop only, and deeper in a subnet its switches put it back on the VL of
 * packets bound for every router of the line: turns where the subnet's
 * first switch is shared with the next router come first, and every pair
 * keeps its SL (without them three pairs to router (0,4) moved). */
static void test_kns_subnet_turns_one_leaf(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 8, 8 }, .p = 1, .radix = 4 };
	struct cut x;
	const struct kr_fabric *f = &x.f;
	unsigned turns = 0;

	(void)state;
	cut_and_repair(&o, 8, 2, &x);	/* (0,1)'s y link */
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		for (uint32_t q = f->port0[f->nsw]; q < f->nport; q++)
			if (q != s && f->lid[s] && f->lid[q] && f->peer[s] >= 0)
				turns += turn_rows(f, &x.t, &x.r, s, f->lid[q]) != 0;
	assert_true(turns > 0);
	uncut(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kns_class_anchors),
		cmocka_unit_test(test_kns_subnet_turns_one_leaf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
