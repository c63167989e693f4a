/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The MiKANT SL/VL plan through the whole pipeline: the second hop across
 * the top on a VL of its own (and nothing else on it), the check proving
 * the tables credit-loop-free, the same tables with that hop back on the
 * class VLs closing a loop, and a budget of one VL refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "mikant_rules.h"

static void gen(struct kr_fabric *f, unsigned k, unsigned n)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_MIKANT, .ndim = n,
				 .k = { k }, .shuffle = 1, .shuffle_seed = 21,
				 .assign_lids = 1 };

	assert_int_equal(kr_gen(&o, f, NULL, NULL, NULL, NULL), KR_OK);
}

/* Whether the link at slot joins the top stages of the two groups, by
 * the addresses decoded here. */
static bool across(const struct kr_fabric *f, const struct kr_topo *t,
		   uint32_t slot, unsigned k, unsigned n)
{
	struct mk_addr a, b;

	if (f->peer[slot] < 0 || slot == f->port0[f->owner[slot]] ||
	    !kr_is_switch(f, f->owner[f->peer[slot]]))
		return false;
	a = mk_addr(k, n, t->sw_pos[f->owner[slot]]);
	b = mk_addr(k, n, t->sw_pos[f->owner[f->peer[slot]]]);
	return a.group != b.group;
}

/* Every used SL rides turn_vl on a hop in across and out across, and
 * never elsewhere; returns the number of such (in, out) pairs. */
static unsigned assert_turn_maps(const struct kr_fabric *f,
				 const struct kr_plan *p, unsigned k, unsigned n)
{
	unsigned pairs = 0;

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned in = 1; in <= f->nports[sw]; in++)
			for (unsigned out = 1; out <= f->nports[sw]; out++) {
				bool turn = across(f, &p->topo, kr_port(f, sw, in), k, n) &&
					    across(f, &p->topo, kr_port(f, sw, out), k, n);
				uint64_t map = kr_tables_sl2vl(f, &p->tables, sw, in, out);

				pairs += turn;
				for (unsigned lid = 1; lid < p->tables.stride; lid++) {
					unsigned sl = p->tables.dlid_sl[lid];

					if (kr_port_by_lid(f, lid) == KR_NONE)
						continue;
					assert_int_equal(kr_map_vl(map, sl) == p->slvl.turn_vl,
							 turn);
				}
			}
	return pairs;
}

static void test_second_crossing_vl(void **state)
{
	static const unsigned vls[] = { 2, 4, 8 };
	struct kr_fabric f;

	(void)state;
	gen(&f, 4, 3);
	for (unsigned i = 0; i < sizeof(vls) / sizeof(vls[0]); i++) {
		struct kr_conf c;
		struct kr_plan p;
		struct kr_diag d = { 0 };

		kr_conf_init(&c);
		c.vls = vls[i];
		if (kr_plan_build(&f, &c, &p, &d))
			fail_msg("%u VLs: %s", vls[i], d.msg);
		assert_true(p.slvl.turn_vl < vls[i]);
		/* 32 top switches, each with k = 4 links across: 4 x 4
		 * (in, out) pairs each, turning back included */
		assert_int_equal(assert_turn_maps(&f, &p, 4, 3), 32 * 4 * 4);
		assert_non_null(strstr(p.slvl.text, "second hop across the top"));
		kr_plan_free(&p);
	}
	kr_fabric_free(&f);
}

/* The VL split is what the proof needs: the same tables with every SL on
 * VL 0 on those hops have a credit loop. */
static void test_without_split_loops(void **state)
{
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_check_report rep;
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_conf c;
	struct kr_diag d = { 0 };

	(void)state;
	gen(&f, 3, 4);
	kr_conf_init(&c);
	c.classify = KR_CLASSIFY_NONE;
	c.detour_vls = 0;
	assert_int_equal(kr_plan_build(&f, &c, &p, &d), KR_OK);
	for (uint32_t sw = 0; sw < f.nsw; sw++)
		for (unsigned in = 1; in <= f.nports[sw]; in++)
			for (unsigned out = 1; out <= f.nports[sw]; out++) {
				uint64_t *m = kr_tables_sl2vl_ref(&f, &p.tables, sw,
								  in, out);

				for (unsigned sl = 0; sl < KR_NSL; sl++)
					if (kr_map_vl(*m, sl) == p.slvl.turn_vl)
						*m = kr_map_set(*m, sl, 0);
			}
	assert_int_equal(kr_check_run(&f, &p.tables, &o, &rep, NULL), KR_ECYCLE);
	kr_check_report_free(&rep);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

static void test_one_vl_refused(void **state)
{
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_conf c;
	struct kr_diag d = { 0 };

	(void)state;
	gen(&f, 3, 3);
	kr_conf_init(&c);
	c.vls = 1;
	assert_int_equal(kr_plan_build(&f, &c, &p, &d), KR_ENOVL);
	assert_non_null(strstr(d.msg, "2 VLs (one for the second hop across "
			       "the top)"));
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_crossing_vl),
		cmocka_unit_test(test_without_split_loops),
		cmocka_unit_test(test_one_vl_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
