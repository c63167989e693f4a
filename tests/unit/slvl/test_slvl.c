/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The SL/VL plan against the thesis' tables and the plan's own rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "truth.h"

struct planned {
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_tables r;
	struct kr_slvl p;
};

static int plan(struct planned *x, const struct kr_gen_opts *o,
		enum kr_classify cl, unsigned vls, unsigned classes,
		struct kr_diag *d)
{
	struct kr_conf c = { .classify = cl, .vls = vls, .classes = classes };

	truth_gen(o, &x->f, &x->t);
	assert_int_equal(kr_route(&x->f, &x->t, &c, &x->r, NULL), KR_OK);
	return kr_slvl_plan(&x->f, &x->t, &c, &x->r, &x->p, d);
}

static void unplan(struct planned *x)
{
	kr_slvl_free(&x->p);
	kr_tables_free(&x->r);
	kr_topo_free(&x->t);
	kr_fabric_free(&x->f);
}

/* CA destinations per VL on the port of switch sw that points along dir. */
static void count_port(const struct planned *x, uint32_t sw, unsigned dir,
		       unsigned *per_vl)
{
	const struct kr_fabric *f = &x->f;

	memset(per_vl, 0, 16 * sizeof(*per_vl));
	for (uint32_t ca = f->nsw; ca < f->nnode; ca++) {
		unsigned lid = f->lid[kr_port(f, ca, 1)];
		unsigned port = kr_lft_port(&x->r, sw, lid);
		uint64_t map;

		if (x->t.port_dir[kr_port(f, sw, port)] != dir)
			continue;
		map = kr_tables_sl2vl(f, &x->r, sw, 0, port);
		per_vl[kr_map_vl(map, kr_tables_path_sl(&x->r, 1, lid))]++;
	}
}

/* 8x8 mesh, p = 1, 4 VLs, switch (0,0), index y * 8 + x: thesis tables
 * 11.1 (DBBM), 11.2 (IODET) and 11.3 (XORDET). */
static void test_thesis_tables(void **state)
{
	static const struct {
		enum kr_classify cl;
		unsigned x[4], y[4];
	} want[] = {
		{ KR_CLASSIFY_DBBM, { 8, 16, 16, 16 }, { 7, 0, 0, 0 } },
		{ KR_CLASSIFY_IODET, { 8, 16, 16, 16 }, { 1, 2, 2, 2 } },
		{ KR_CLASSIFY_XORDET, { 14, 14, 14, 14 }, { 1, 2, 2, 2 } },
	};
	struct kr_gen_opts o = { .family = KR_FAMILY_MESH, .ndim = 2,
				 .k = { 8, 8 }, .p = 1, .shuffle = 1,
				 .shuffle_seed = 5 };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct planned x;
		unsigned per_vl[16];
		uint32_t sw;

		assert_int_equal(plan(&x, &o, want[i].cl, 4, 0, NULL), KR_OK);
		assert_int_equal(x.p.nclass, 4);
		sw = (uint32_t)x.t.pos_sw[0];
		count_port(&x, sw, 0, per_vl);
		for (unsigned vl = 0; vl < 4; vl++)
			assert_int_equal(per_vl[vl], want[i].x[vl]);
		count_port(&x, sw, 2, per_vl);
		for (unsigned vl = 0; vl < 4; vl++)
			assert_int_equal(per_vl[vl], want[i].y[vl]);
		unplan(&x);
	}
}

/* OSHA/SASHA figure 3: 16-node 2D KNS (4-ary 2-direct, p = 1), 4 classes per
 * VN: VN 0 bands are rows (index * 4 / 16 = c1), VN 1 bands columns (c0). */
static void test_dbbq_bands(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 1, .lmc = 1 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_DBBQ, 8, 0, NULL), KR_OK);
	assert_int_equal(x.p.nvn, 2);
	assert_int_equal(x.p.nclass, 4);
	for (uint32_t ca = x.f.nsw; ca < x.f.nnode; ca++) {
		uint32_t slot = kr_port(&x.f, ca, 1);
		uint32_t pos = x.t.sw_pos[x.f.owner[x.f.peer[slot]]];
		unsigned lid = x.f.lid[slot];
		unsigned sl0 = kr_tables_path_sl(&x.r, 1, lid);
		unsigned sl1 = kr_tables_path_sl(&x.r, 1, lid + 1);

		assert_int_equal(sl0 >> x.p.vn_shift & 1, 0);
		assert_int_equal(sl1 >> x.p.vn_shift & 1, 1);
		assert_int_equal(sl0 >> x.p.class_shift, kr_topo_coord(&x.t, pos, 1));
		assert_int_equal(sl1 >> x.p.class_shift, kr_topo_coord(&x.t, pos, 0));
	}
	/* VN 0 stays on VLs 0-3 and VN 1 on 4-7 on every port */
	for (uint32_t n = 0; n < x.f.nsw; n++)
		for (unsigned out = 0; out <= x.f.nports[n]; out++) {
			uint64_t map = kr_tables_sl2vl(&x.f, &x.r, n, 1, out);

			for (unsigned sl = 0; sl < 15; sl++)	/* 15: crossbars */
				assert_int_equal(kr_map_vl(map, sl) / 4,
						 sl >> x.p.vn_shift & 1);
		}
	unplan(&x);
}

/* Ring halves: a 3D torus of 4s takes 3 SL bits; SLs depend on the
 * destination's coordinates only; ring ports split halves, others don't. */
static void test_torus_ring_bits(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 4, 3, 6 }, .wrap = { 1, 1, 1 }, .p = 1 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, 0, NULL), KR_OK);
	assert_int_equal(x.p.nring, 2);	/* k = 3 needs none */
	assert_int_equal(x.p.ring_bit[1], KR_NO_DIM);
	assert_int_equal(x.p.nclass, 4);	/* 8 VLs / 2 halves, 2 SL bits */
	assert_non_null(strstr(x.p.text, "ring halves x,z"));
	for (uint32_t ca = x.f.nsw; ca < x.f.nnode; ca++) {
		uint32_t slot = kr_port(&x.f, ca, 1);
		uint32_t pos = x.t.sw_pos[x.f.owner[x.f.peer[slot]]];
		unsigned sl = kr_tables_path_sl(&x.r, 1, x.f.lid[slot]);

		assert_int_equal(sl & 1, kr_topo_coord(&x.t, pos, 0) >= 2);
		assert_int_equal(sl >> 1 & 1, kr_topo_coord(&x.t, pos, 2) >= 3);
	}
	unplan(&x);
}

static void test_budget_degrades_then_fails(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1 };
	struct kr_gen_opts big = { .family = KR_FAMILY_TORUS, .ndim = 5,
				   .k = { 4, 4, 4, 4, 4 },
				   .wrap = { 1, 1, 1, 1, 1 }, .p = 0 };
	struct kr_gen_opts kns = { .family = KR_FAMILY_KNS, .ndim = 2,
				   .k = { 3, 3 }, .p = 1 };
	struct kr_diag d = { 0 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, 16, &d), KR_OK);
	assert_int_equal(x.p.nclass, 4);
	assert_non_null(strstr(x.p.text, "16 classes asked, 4 fit"));
	unplan(&x);
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 2, 0, &d), KR_OK);
	assert_int_equal(x.p.nclass, 1);
	assert_int_equal(x.p.vls_used, 2);
	unplan(&x);
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 1, 0, &d), KR_ENOVL);
	unplan(&x);
	assert_int_equal(plan(&x, &big, KR_CLASSIFY_NONE, 8, 0, &d), KR_ENOVL);
	assert_non_null(strstr(d.msg, "5 ring halves"));
	unplan(&x);
	assert_int_equal(plan(&x, &kns, KR_CLASSIFY_DBBQ, 8, 0, &d), KR_EINVAL);
	assert_non_null(strstr(d.msg, "LMC"));
	unplan(&x);
}

/* Without the detour layer (detour_vls 0) multicast needs a VL of its
 * own: classes leave one (4x4 torus, 8 VLs: 2 classes x 2 ring halves,
 * multicast on VL 4) unless a count asked for fills every VL exactly:
 * four classes take all 8 and groups get none. Eight, which cannot fit,
 * are cut as far as multicast's VL needs. */
static void test_mcast_vl_without_detour_layer(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 2 };
	struct kr_conf c = { .classify = KR_CLASSIFY_XORDET, .vls = 8,
			     .detour_vls = 0, .mcast_sls = 1 };
	struct planned x;
	unsigned fix;

	(void)state;
	for (unsigned asked = 0; asked <= 8; asked += 4) {
		c.classes = asked;
		truth_gen(&o, &x.f, &x.t);
		assert_int_equal(kr_route(&x.f, &x.t, &c, &x.r, NULL), KR_OK);
		assert_int_equal(kr_slvl_plan(&x.f, &x.t, &c, &x.r, &x.p, NULL),
				 KR_OK);
		if (asked == 4) {
			assert_int_equal(x.p.nclass, 4);
			assert_int_equal(x.p.mcast_vl, KR_NONE);
			assert_false(kr_slvl_mcast_ok(&x.p, 0, &fix));
		} else {
			assert_int_equal(x.p.nclass, 2);
			assert_int_equal(x.p.mcast_vl, 4);
			assert_true(kr_slvl_mcast_ok(&x.p, 0, &fix));
		}
		unplan(&x);
	}
}

static void test_iodet_refused_without_bits(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 4, 4, 4 }, .wrap = { 1, 1, 1 }, .p = 1 };
	struct kr_diag d = { 0 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_IODET, 8, 0, &d), KR_EINVAL);
	assert_non_null(strstr(d.msg, "iodet needs a class bit per dimension"));
	unplan(&x);
}

/* Every VL a port uses is below the budget; VL arbitration needs the mask. */
static void test_vl_masks_within_budget(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 5, 4 }, .wrap = { 1, 1 }, .p = 2,
				 .lmc = 1 };
	struct planned x;
	uint16_t all = 0;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, 0, NULL), KR_OK);
	assert_int_equal(x.p.nvn, 2);
	for (uint32_t s = 0; s < x.f.nport; s++) {
		assert_true(x.p.vl_mask[s] < (1u << 8));
		all |= x.p.vl_mask[s];
	}
	assert_int_equal(all, 0xff);
	unplan(&x);
}

static int check(const struct planned *x)
{
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_check_report rep;
	int rc = kr_check_run(&x->f, &x->r, &o, &rep, NULL);

	kr_check_report_free(&rep);
	return rc;
}

/* One CA link with fewer VLs than the rest (an older HCA among many): the
 * links between switches keep every VL, the plan's VLs fold onto that
 * link's, and the check, which honours OperVLs on every port, passes. A CA
 * on one VL no longer costs a torus the two VLs its rings need. */
static void test_ca_link_fewer_vls(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 2 };
	struct kr_conf c = { .classify = KR_CLASSIFY_XORDET, .vls = 8 };

	(void)state;
	for (unsigned oper = 1; oper <= 4; oper *= 2) {
		struct planned x;
		uint32_t ca, s, peer, sw;
		uint16_t between = 0;

		truth_gen(&o, &x.f, &x.t);
		ca = x.f.nsw;		/* the first CA */
		s = kr_port(&x.f, ca, 1);
		peer = (uint32_t)x.f.peer[s];
		sw = x.f.owner[peer];
		x.f.oper_vls[s] = x.f.oper_vls[peer] = (uint8_t)oper;
		assert_int_equal(kr_route(&x.f, &x.t, &c, &x.r, NULL), KR_OK);
		assert_int_equal(kr_slvl_plan(&x.f, &x.t, &c, &x.r, &x.p, NULL),
				 KR_OK);
		assert_int_equal(x.p.vls, 8);
		assert_true(x.p.vl_mask[s] >> oper == 0);
		assert_true(x.p.vl_mask[peer] >> oper == 0);
		for (unsigned sl = 0; sl < KR_NSL; sl++) {
			unsigned port = kr_port_num(&x.f, peer);

			assert_true(kr_map_vl(kr_tables_sl2vl(&x.f, &x.r, ca, 1,
							      1), sl) < oper);
			for (unsigned in = 0; in <= x.f.nports[sw]; in++)
				assert_true(kr_map_vl(kr_tables_sl2vl(&x.f, &x.r,
						sw, in, port), sl) < oper);
		}
		for (uint32_t t = 0; t < x.f.port0[x.f.nsw]; t++)
			if (x.f.peer[t] >= 0 &&
			    kr_is_switch(&x.f, x.f.owner[x.f.peer[t]]))
				between |= x.p.vl_mask[t];
		assert_true(between >> oper != 0);
		assert_int_equal(check(&x), KR_OK);
		unplan(&x);
	}
}

/* Every classifier that applies, on KNS and tori with and without LMC 1,
 * yields tables the checker passes. */
static void test_all_plans_pass_check(void **state)
{
	static const struct kr_gen_opts shapes[] = {
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 2 },
		{ .family = KR_FAMILY_KNS, .ndim = 3, .k = { 3, 3, 3 }, .p = 1, .lmc = 1 },
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 5 }, .wrap = { 1, 1 }, .p = 1 },
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 6, 4 }, .wrap = { 1, 1 }, .p = 2, .lmc = 1 },
		{ .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 4, 4 }, .wrap = { 1, 1, 1 }, .p = 1 },
		{ .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 3, 4 }, .wrap = { 1, 1, 1 }, .p = 1, .lmc = 1 },
	};
	static const enum kr_classify all[] = {
		KR_CLASSIFY_XORDET, KR_CLASSIFY_DBBM, KR_CLASSIFY_BBQ,
		KR_CLASSIFY_DBBQ, KR_CLASSIFY_IODET, KR_CLASSIFY_NONE,
	};
	unsigned planned = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (size_t j = 0; j < sizeof(all) / sizeof(all[0]); j++) {
			struct planned x;
			struct kr_diag d = { 0 };
			int rc = plan(&x, &shapes[i], all[j], 8, 0, &d);

			if (rc == KR_EINVAL) {	/* dbbq w/o LMC, iodet w/o bits */
				unplan(&x);
				continue;
			}
			assert_int_equal(rc, KR_OK);
			if (check(&x) != KR_OK)
				fail_msg("shape %zu, %s: check fails", i,
					 kr_classify_name(all[j]));
			planned++;
			unplan(&x);
		}
	assert_true(planned >= 25);
}

/* Orders beyond the first get only the SLs and VLs that the ring halves,
 * multicast and the detour layers leave. A 3-D torus of 4s takes 3 ring
 * bits, so LMC 1's second order (a fourth bit) would leave no SL for
 * multicast or a detour, and LMC 2's four orders no plan at all: both
 * route every offset in the first order, keep multicast and both
 * layers, and say so; their offsets then share routes and SLs. A 2-D
 * torus keeps two orders, unless 4 VLs leave no room for them beside the
 * layers. DBBQ cannot do without its two. Every plan passes the check. */
static void test_lmc_orders_leave_room(void **state)
{
	static const struct {
		struct kr_gen_opts o;
		enum kr_classify cl;
		unsigned vls, nvn, wanted;
		bool layers;
	} cases[] = {
		{ { .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 4, 4 },
		    .wrap = { 1, 1, 1 }, .p = 1, .lmc = 1 },
		  KR_CLASSIFY_XORDET, 8, 1, 2, true },
		{ { .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 5, 4 },
		    .wrap = { 1, 1, 1 }, .p = 1, .lmc = 2 },
		  KR_CLASSIFY_XORDET, 8, 1, 4, true },
		{ { .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 4 },
		    .wrap = { 1, 1 }, .p = 1, .lmc = 1 },
		  KR_CLASSIFY_XORDET, 8, 2, 2, true },
		{ { .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 4 },
		    .wrap = { 1, 1 }, .p = 1, .lmc = 1 },
		  KR_CLASSIFY_XORDET, 4, 1, 2, true },
		{ { .family = KR_FAMILY_KNS, .ndim = 3, .k = { 3, 3, 3 },
		    .p = 1, .lmc = 2 },
		  KR_CLASSIFY_XORDET, 8, 4, 4, true },
		{ { .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 4, 4 },
		    .wrap = { 1, 1, 1 }, .p = 1, .lmc = 1 },
		  KR_CLASSIFY_DBBQ, 8, 2, 2, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kr_conf c;
		struct planned x;
		unsigned fix, same = 0;

		kr_conf_init(&c);
		c.classify = cases[i].cl;
		c.vls = cases[i].vls;
		truth_gen(&cases[i].o, &x.f, &x.t);
		assert_int_equal(kr_route(&x.f, &x.t, &c, &x.r, NULL), KR_OK);
		assert_int_equal(kr_slvl_plan(&x.f, &x.t, &c, &x.r, &x.p, NULL),
				 KR_OK);
		if (x.p.nvn != cases[i].nvn || x.p.nvn_wanted != cases[i].wanted)
			fail_msg("case %zu: %u of %u orders (%s)", i, x.p.nvn,
				 x.p.nvn_wanted, x.p.text);
		assert_int_equal(x.p.detour_vl != KR_NONE, cases[i].layers);
		assert_int_equal(x.p.ntree > 0, cases[i].layers);
		assert_int_equal(kr_slvl_mcast_ok(&x.p, 0, &fix), cases[i].layers);
		assert_int_equal(strstr(x.p.text, "LMC offsets take") != NULL,
				 x.p.nvn < x.p.nvn_wanted);
		/* a CA's offsets: the same route and SL iff they share an order */
		for (uint32_t ca = x.f.nsw; ca < x.f.nnode; ca++) {
			unsigned lid = x.f.lid[kr_port(&x.f, ca, 1)];
			bool col = true;

			for (uint32_t sw = 0; sw < x.f.nsw; sw++)
				col &= kr_lft_port(&x.r, sw, lid) ==
				       kr_lft_port(&x.r, sw, lid + 1);
			same += col && x.r.dlid_sl[lid] == x.r.dlid_sl[lid + 1];
		}
		assert_int_equal(same, x.p.nvn == 1 ? x.f.nnode - x.f.nsw : 0);
		if (check(&x) != KR_OK)
			fail_msg("case %zu: check fails (%s)", i, x.p.text);
		unplan(&x);
	}
}

/* Unicast's proof comes before multicast's VL: a KNS on 2 VLs (one for
 * its traffic, one for the turns into crossbars) plans, with groups
 * refused; on 3 multicast gets the third. Reserving the multicast VL
 * first used to fail the plan ("no VL left for traffic to KNS
 * crossbars"), and OpenSM fell back to minhop. */
static void test_kns_unicast_before_mcast_vl(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 1 };

	(void)state;
	for (unsigned vls = 2; vls <= 3; vls++) {
		struct kr_conf c;
		struct planned x;
		unsigned fix;

		kr_conf_init(&c);
		c.vls = vls;
		truth_gen(&o, &x.f, &x.t);
		assert_int_equal(kr_route(&x.f, &x.t, &c, &x.r, NULL), KR_OK);
		assert_int_equal(kr_slvl_plan(&x.f, &x.t, &c, &x.r, &x.p, NULL),
				 KR_OK);
		assert_int_not_equal(x.p.xbar_vl, KR_NONE);
		assert_int_equal(x.p.detour_vl, KR_NONE);
		assert_int_equal(kr_slvl_mcast_ok(&x.p, 0, &fix), vls == 3);
		assert_true(x.p.vls_used <= vls);
		assert_int_equal(check(&x), KR_OK);
		unplan(&x);
	}
}

/* The ring halves matter: the same torus routes with every SL 0 (one VL)
 * have a credit loop. */
static void test_torus_sl0_has_credit_loop(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 5, 4 }, .wrap = { 1, 1 }, .p = 1 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_NONE, 8, 0, NULL), KR_OK);
	assert_int_equal(check(&x), KR_OK);
	memset(x.r.dlid_sl, 0, x.r.stride);
	assert_int_equal(check(&x), KR_ECYCLE);
	unplan(&x);
}

/* KNS crossbar LIDs: their last hop turns against the dimension order. The
 * plan gives those turns SL 15's own VL; without that (SL 15 on VL 0
 * everywhere) the same tables have a credit loop. With 8 classes on 8 VLs
 * nothing is spare, so the top VL is folded on router-to-crossbar ports. */
static void test_kns_crossbar_turns_matter(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 2 };
	struct planned x;

	(void)state;
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, 0, NULL), KR_OK);
	assert_int_equal(x.p.nclass, 8);
	assert_int_equal(x.p.xbar_vl, 7);
	assert_int_equal(x.p.fold, 7);
	assert_int_equal(check(&x), KR_OK);
	for (uint32_t i = 0; i < x.r.sl2vl_base[x.f.nnode]; i++)
		x.r.sl2vl[i] = kr_map_set(x.r.sl2vl[i], 15, 0);
	assert_int_equal(check(&x), KR_ECYCLE);
	unplan(&x);
	/* with a VL to spare, nothing is folded */
	assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, 4, NULL), KR_OK);
	assert_int_equal(x.p.xbar_vl, 4);
	assert_int_equal(x.p.fold, KR_NONE);
	assert_int_equal(check(&x), KR_OK);
	unplan(&x);
}

/* The class kr_slvl_class_of gives an SL is the VL the maps send it on
 * from a router's CA port to its crossbars, where no turn is made and
 * the first virtual network's VL is its class's: with 4 classes and a VL
 * to spare, and with 8 classes whose top VL is folded into the one below
 * on router-to-crossbar ports. Every SL a LID is routed on is seen, and
 * so are packets to crossbars (SL 15, the first class's VL). */
static void test_class_of_follows_vls(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 2 };
	const unsigned classes[] = { 4, 0 };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct planned x;
		const struct kr_fabric *f = &x.f;
		uint16_t seen = 0;

		assert_int_equal(plan(&x, &o, KR_CLASSIFY_XORDET, 8, classes[i],
				      NULL), KR_OK);
		assert_int_equal(x.p.fold != KR_NONE, i == 1);
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			unsigned sl = x.r.dlid_sl[lid];

			for (uint32_t s = 0; x.p.nclass > 1 &&
			     s < f->port0[f->nsw]; s++) {
				uint32_t sw = f->owner[s], in;
				int32_t peer = f->peer[s];

				if (x.t.sw_pos[sw] == KR_NONE || peer < 0 ||
				    x.t.port_dir[s] >= 2 * KR_MAX_DIM)
					continue;
				in = f->port0[sw] + 1;
				while (in < f->port0[sw + 1] && (f->peer[in] < 0 ||
				       kr_is_switch(f, f->owner[f->peer[in]])))
					in++;
				assert_true(in < f->port0[sw + 1]);
				assert_int_equal(kr_map_vl(kr_tables_sl2vl(f,
					&x.r, sw, kr_port_num(f, in),
					kr_port_num(f, s)), sl),
					kr_slvl_class_of(&x.p, sl));
				seen |= (uint16_t)(1u << sl);
			}
		}
		assert_true(seen >> 15 & 1);
		assert_int_equal(__builtin_popcount(seen), x.p.nclass + 1);
		unplan(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thesis_tables),
		cmocka_unit_test(test_dbbq_bands),
		cmocka_unit_test(test_torus_ring_bits),
		cmocka_unit_test(test_budget_degrades_then_fails),
		cmocka_unit_test(test_mcast_vl_without_detour_layer),
		cmocka_unit_test(test_lmc_orders_leave_room),
		cmocka_unit_test(test_kns_unicast_before_mcast_vl),
		cmocka_unit_test(test_iodet_refused_without_bits),
		cmocka_unit_test(test_vl_masks_within_budget),
		cmocka_unit_test(test_all_plans_pass_check),
		cmocka_unit_test(test_ca_link_fewer_vls),
		cmocka_unit_test(test_torus_sl0_has_credit_loop),
		cmocka_unit_test(test_kns_crossbar_turns_matter),
		cmocka_unit_test(test_class_of_follows_vls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
