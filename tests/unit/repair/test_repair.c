/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault repair: hand-worked detours, and every single link and switch fault
 * of small KNS, tori and a MiKANT routed completely and without credit
 * loops, as the checker and an independent path walker see it. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"
#include "repair_util.h"
#include "truth.h"




/* A dead switch: no links, and its CAs leave the subnet with it. */
static void kill_switch(struct kr_fabric *f, uint32_t sw)
{
	for (uint32_t s = f->port0[sw]; s < f->port0[sw + 1]; s++) {
		int32_t peer = f->peer[s];

		if (peer >= 0 && !kr_is_switch(f, f->owner[peer]))
			f->lid[peer] = 0;
		cut_port(f, s);
	}
	f->lid[f->port0[sw]] = 0;
	assert_int_equal(kr_fabric_index_lids(f, NULL), KR_OK);
}

/* A group of every live CA port on SL 0 (IPoIB's broadcast group, on
 * the SA's SL) into p's tables, its tree from f's forest, as the plugin
 * proves trees and unicast together. */
static void add_all_cas(const struct kr_fabric *f, const struct kr_topo *t,
			struct kr_plan *p, unsigned sm_lid)
{
	struct kr_mcast_info info;
	struct kr_diag d = { 0 };
	uint32_t *m = malloc((f->nport + 1) * sizeof(*m));
	size_t nm = 0;

	assert_non_null(m);
	assert_int_equal(kr_mtree_build(f, t, sm_lid, &p->mtree, &d), KR_OK);
	for (uint32_t q = f->port0[f->nsw]; q < f->nport; q++)
		if (f->lid[q] && f->peer[q] >= 0)
			m[nm++] = q;
	assert_int_equal(kr_plan_add_group(f, p, 0xc000, 0, m, nm, &info, &d),
			 KR_OK);
	assert_int_equal(info.members, nm);
	free(m);
}

/* Routes f with its faults on the pristine labels t, the SM at sm_lid
 * (0: unknown): repair must succeed, the checker must find every pair
 * delivered and no credit loop (with the SM known: the SA's traffic and
 * a group of every CA too), and the walker must deliver every CA pair
 * without a loop. */
static void route_and_prove(const struct kr_fabric *f, const struct kr_topo *t,
			    unsigned sm_lid, struct kr_repair_stats *st)
{
	struct kr_conf c;
	struct kr_plan p = { 0 };
	struct kr_check_report rep;
	struct kr_check_opts o = { .max_examples = 3 };
	struct kr_diag d = { 0 };

	kr_conf_init(&c);
	c.sm_lid = sm_lid;
	assert_int_equal(kr_route(f, t, &c, &p.tables, &d), KR_OK);
	assert_int_equal(kr_slvl_plan(f, t, &c, &p.tables, &p.slvl, &d), KR_OK);
	if (repair_into(f, t, &c, &p.slvl, NULL, &p.tables, st, &d))
		fail_msg("repair: %s", d.msg);
	if (sm_lid)
		add_all_cas(f, t, &p, sm_lid);
	if (kr_check_run(f, &p.tables, &o, &rep, &d))
		fail_msg("check: %s", d.msg);
	assert_int_equal(rep.delivered, rep.pairs);
	assert_true(!sm_lid || rep.sm_pairs > 0);
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++) {
		if (!f->lid[s] || f->peer[s] < 0)
			continue;
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t dst = kr_port_by_lid(f, lid);

			if (dst == KR_NONE || dst == s)
				continue;
			if (truth_walk(f, &p.tables, s, lid, NULL) < 0)
				fail_msg("slot %u to LID %u lost", s, lid);
		}
	}
	kr_check_report_free(&rep);
	kr_plan_free(&p);
}

/* The LID of the SM for the tests that know one: the first CA's. */
static unsigned first_ca_lid(const struct kr_fabric *f)
{
	for (uint32_t q = f->port0[f->nsw]; q < f->nport; q++)
		if (f->lid[q] && f->peer[q] >= 0)
			return f->lid[q];
	return 0;
}

/* o's fabric with the labels recognition gives it intact, as the plugin
 * keeps them in its coordinates cache (the generator's own may number a
 * subnet's switches otherwise, which routes them otherwise). */
static void gen_recognised(const struct kr_gen_opts *o, struct kr_fabric *f,
			   struct kr_topo *t)
{
	struct kr_diag d = { 0 };

	truth_gen(o, f, t);
	kr_topo_free(t);
	if (kr_topo_recognize(f, NULL, t, &d))
		fail_msg("recognition: %s", d.msg);
}

/* Every inter-switch link of o's fabric, one at a time, the SM known
 * (with_sm: on the first CA) or not: no CA pair changes its SL for a
 * single fault. */
static void every_link(const struct kr_gen_opts *o, bool with_sm)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_repair_stats st;
	unsigned n = 0, repaired = 0;

	gen_recognised(o, &f, &t);
	for (uint32_t s = 0; s < f.port0[f.nsw]; s++) {
		int32_t peer = f.peer[s];

		if (peer < (int32_t)s || !kr_is_switch(&f, f.owner[peer]))
			continue;	/* each link once, switch to switch */
		if (n++ % stride())
			continue;
		cut_port(&f, s);
		route_and_prove(&f, &t, with_sm ? first_ca_lid(&f) : 0, &st);
		if (st.pairs_sl_changed)
			fail_msg("link %s[%u]-%s: %llu pairs changed SL",
				 kr_node_desc(&f, f.owner[s]), kr_port_num(&f, s),
				 kr_node_desc(&f, f.owner[peer]),
				 (unsigned long long)st.pairs_sl_changed);
		repaired += st.dests_repaired > 0;
		f.peer[s] = peer;
		f.peer[peer] = (int32_t)s;
	}
	assert_true(repaired > 0);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Every switch of o's fabric dead, one at a time, the SM known (with_sm:
 * on the first CA, whose switch stays) or not: every pair of live CAs
 * delivered, none on a new SL. */
static void every_switch(const struct kr_gen_opts *o, bool with_sm)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_repair_stats st;
	uint32_t nsw;
	unsigned sm_lid;

	gen_recognised(o, &f, &t);
	nsw = f.nsw;
	sm_lid = with_sm ? first_ca_lid(&f) : 0;
	kr_topo_free(&t);
	kr_fabric_free(&f);
	for (uint32_t sw = 0; sw < nsw; sw += stride()) {
		gen_recognised(o, &f, &t);
		if (sm_lid && f.owner[f.peer[kr_port_by_lid(&f, sm_lid)]] == sw) {
			kr_topo_free(&t);
			kr_fabric_free(&f);
			continue;	/* the SM dies with it */
		}
		kill_switch(&f, sw);
		route_and_prove(&f, &t, sm_lid, &st);
		assert_int_equal(st.pairs_disconnected, 0);
		if (st.pairs_sl_changed)
			fail_msg("switch %u dead: %llu pairs changed SL", sw,
				 (unsigned long long)st.pairs_sl_changed);
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}


static void test_kns43_every_link(void **state)
{
	(void)state;
	every_link(&kns43, false);
}

static void test_torus444_every_link(void **state)
{
	(void)state;
	every_link(&torus444, false);
}

static void test_kns43_every_switch(void **state)
{
	(void)state;
	every_switch(&kns43, false);
}

static void test_torus444_every_switch(void **state)
{
	(void)state;
	every_switch(&torus444, false);
}

/* Fabrics where detours around one fault used to close loops on the SL
 * and move pairs (a link of the 6x6x6 torus moved 31): the long way
 * round a broken ring and the turn VL keep every pair on its SL, also
 * with the SM known, whose routes ride the multicast VL (and moved 12
 * pairs per link, 376 per switch in a million on the 8x8 torus while
 * they had to keep to its ranks). */
static const struct kr_gen_opts torus666 = { .family = KR_FAMILY_TORUS,
					     .ndim = 3, .k = { 6, 6, 6 },
					     .wrap = { 1, 1, 1 }, .p = 1 };
static const struct kr_gen_opts torus88 = { .family = KR_FAMILY_TORUS,
					    .ndim = 2, .k = { 8, 8 },
					    .wrap = { 1, 1 }, .p = 2 };

static const struct kr_gen_opts kns63 = { .family = KR_FAMILY_KNS, .ndim = 3,
					  .k = { 6, 6, 6 }, .p = 1 };

static void test_torus_every_fault_keeps_sls(void **state)
{
	(void)state;
	every_link(&torus88, false);
	every_switch(&torus88, false);
	every_link(&torus88, true);
	every_switch(&torus88, true);
	every_link(&torus666, false);
	every_switch(&torus666, true);
}

static void test_kns63_every_fault_keeps_sls(void **state)
{
	(void)state;
	every_link(&kns63, true);
	every_switch(&kns63, false);
	every_switch(&kns63, true);
}

/* A mesh has no way round a cut link, but the turn VL carries the
 * detours' turns: every single link of a 6x6 mesh keeps every pair's SL
 * (without it on meshes, `knsroute faults` measured 1,925 pairs in a
 * million moving per link of a shuffled 6x6 mesh). */
static void test_mesh66_every_link_keeps_sls(void **state)
{
	static const struct kr_gen_opts mesh66 = {
		.family = KR_FAMILY_MESH, .ndim = 2, .k = { 6, 6 }, .p = 1 };

	(void)state;
	every_link(&mesh66, false);
	every_link(&mesh66, true);
}

/* MiKANT(4, 3), shuffled: every single link and switch fault routed
 * completely, loop-free, and every pair on its SL. */
static void test_mikant43_every_fault(void **state)
{
	static const struct kr_gen_opts mikant43 = {
		.family = KR_FAMILY_MIKANT, .ndim = 3, .k = { 4 },
		.shuffle = 1, .shuffle_seed = 12 };

	(void)state;
	every_link(&mikant43, true);
	every_switch(&mikant43, true);
}

/* A ring of 6 cut twice: (0,0)-(1,0) and (3,0)-(4,0) leave two segments. */
static void test_torus_ring_split(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 6, 4 }, .wrap = { 1, 1 }, .p = 1 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_repair_stats st;

	(void)state;
	truth_gen(&o, &f, &t);
	cut_port(&f, kr_port(&f, (uint32_t)t.pos_sw[0], port_dir(&f, &t, (uint32_t)t.pos_sw[0], 0)));
	cut_port(&f, kr_port(&f, (uint32_t)t.pos_sw[3], port_dir(&f, &t, (uint32_t)t.pos_sw[3], 0)));
	route_and_prove(&f, &t, first_ca_lid(&f), &st);
	assert_true(st.dests_repaired > 0);
	assert_int_equal(st.pairs_disconnected, 0);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* A dead crossbar cuts a whole dimension line of a KNS. */
static void test_kns_dead_crossbar(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 2 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_repair_stats st;

	(void)state;
	truth_gen(&o, &f, &t);
	for (uint32_t pos = 0; pos < t.npos; pos++)
		if (kr_topo_coord(&t, pos, 0) == 0 && kr_topo_coord(&t, pos, 1) == 1) {
			kill_switch(&f, (uint32_t)t.xbar[pos * t.ndim + 0]);
			break;
		}
	route_and_prove(&f, &t, first_ca_lid(&f), &st);
	assert_true(st.paths[KR_REPAIR_ONE] + st.paths[KR_REPAIR_TWO] +
		    st.paths[KR_REPAIR_GENERAL] + st.paths[KR_REPAIR_DETOUR] > 0);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Whether the path from sw to lid along t leaves a by port pa or z by pz. */
static int crosses(const struct kr_fabric *f, const struct kr_tables *t,
		   uint32_t sw, unsigned lid, uint32_t a, unsigned pa,
		   uint32_t z, unsigned pz)
{
	for (unsigned hops = 0; hops < f->nsw; hops++) {
		unsigned port = kr_lft_port(t, sw, lid);
		int32_t peer;

		if ((sw == a && port == pa) || (sw == z && port == pz))
			return 1;
		if (port == 0 || port == KR_NO_PORT)
			return 0;
		peer = f->peer[kr_port(f, sw, port)];
		if (peer < 0 || !kr_is_switch(f, f->owner[peer]))
			return 0;
		sw = f->owner[peer];
	}
	return 0;
}

/* 5x5 torus, the x link (0,0)-(1,0) cut, one destination class (so one
 * anchor). Worked by hand: the anchor is
 * the first position whose y differs from the fault's, (0,1), so every
 * turn into x (and every run straight on where two paths join) happens in
 * the row y = 1:
 * - (0,0) to (2,0): +y to (0,1), +x twice, -y: 4 hops, first +y (the 3
 *   hops -x through I = (4,0) would run three hops along the x ring where
 *   dimension order runs two, past what the ring-half SL bit planned).
 * - (0,0) to (1,0): +y, +x at (0,1), -y: +y.
 * - (1,0) to (0,0): +y, -x at (1,1), -y: +y.
 * No pair leaves its SL. Every entry that moved had a dimension-order path
 * over the cut link (each switch has a CA, so every entry carries traffic
 * and none is re-pointed for its own sake). */
static void test_torus5x5_hand_worked(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 5, 5 }, .wrap = { 1, 1 }, .p = 1 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables pristine, r;
	struct kr_slvl p;
	struct kr_repair_stats st;
	uint32_t s00, s10, s20;
	unsigned l00, l10, l20, a, z;

	(void)state;
	kr_conf_init(&c);
	c.classify = KR_CLASSIFY_NONE;
	truth_gen(&o, &f, &t);
	s00 = (uint32_t)t.pos_sw[0];
	s10 = (uint32_t)t.pos_sw[1];
	s20 = (uint32_t)t.pos_sw[2];
	l00 = f.lid[f.port0[s00]];
	l10 = f.lid[f.port0[s10]];
	l20 = f.lid[f.port0[s20]];
	assert_int_equal(kr_route(&f, &t, &c, &pristine, NULL), KR_OK);
	a = port_dir(&f, &t, s00, 0);
	z = port_dir(&f, &t, s10, 1);
	cut_port(&f, kr_port(&f, s00, a));
	assert_int_equal(kr_route(&f, &t, &c, &r, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r, &p, NULL), KR_OK);
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &r, &st, NULL), KR_OK);
	assert_int_equal(st.pairs_sl_changed, 0);
	assert_int_equal(st.dests_detour, 0);
	assert_int_equal(kr_lft_port(&r, s00, l20), port_dir(&f, &t, s00, 2));
	assert_int_equal(kr_lft_port(&r, s00, l10), port_dir(&f, &t, s00, 2));
	assert_int_equal(kr_lft_port(&r, s10, l00), port_dir(&f, &t, s10, 2));
	for (uint32_t sw = 0; sw < f.nsw; sw++)
		for (unsigned lid = 1; lid <= f.max_lid; lid++)
			if (kr_lft_port(&pristine, sw, lid) != kr_lft_port(&r, sw, lid))
				assert_true(crosses(&f, &pristine, sw, lid, s00, a, s10, z));
	kr_slvl_free(&p);
	kr_tables_free(&r);
	kr_tables_free(&pristine);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* The port of switch a whose link leads to switch b. */
static unsigned port_to(const struct kr_fabric *f, uint32_t a, uint32_t b)
{
	for (unsigned p = 1; p <= f->nports[a]; p++) {
		int32_t peer = f->peer[kr_port(f, a, p)];

		if (peer >= 0 && f->owner[peer] == b)
			return p;
	}
	fail_msg("switch %u has no link to %u", a, b);
	return 0;
}

/* 4-ary 2-direct KNS, x before y, one destination class (so one anchor),
 * the link of router (0,0) to its x crossbar cut. Worked by hand for the
 * destination router (2,0):
 * - (0,0) can only leave through its y crossbar; the intermediates whose
 *   dimension-order path from (0,0) survives are (0,1), (0,2), (0,3), each
 *   6 hops in all (2 to I, x then y from I), the shortest the live graph
 *   has; (0,1) comes first in switch order: (0,0) -> y crossbar.
 * - That y crossbar's own entry pointed back at (0,0), whose route is cut:
 *   it takes the intermediate (0,1) too (1 + 4 hops): -> (0,1).
 * - (0,1) keeps its entry: x to (2,1), then y to (2,0) survive. */
static void test_kns42_hand_worked(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 1 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables pristine, r;
	struct kr_slvl p;
	struct kr_repair_stats st;
	uint32_t r00, r01, r20, xy;
	unsigned lid, sl;

	(void)state;
	kr_conf_init(&c);
	c.classify = KR_CLASSIFY_NONE;
	truth_gen(&o, &f, &t);
	r00 = (uint32_t)t.pos_sw[0];
	r01 = (uint32_t)t.pos_sw[4];
	r20 = (uint32_t)t.pos_sw[2];
	xy = (uint32_t)t.xbar[0 * t.ndim + 1];
	lid = f.lid[f.port0[r20]];
	assert_int_equal(kr_route(&f, &t, &c, &pristine, NULL), KR_OK);
	cut_port(&f, kr_port(&f, r00, port_dir(&f, &t, r00, 0)));
	assert_int_equal(kr_route(&f, &t, &c, &r, NULL), KR_OK);
	assert_int_equal(kr_lft_port(&r, r00, lid), KR_NO_PORT);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r, &p, NULL), KR_OK);
	sl = r.dlid_sl[lid];
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &r, &st, NULL), KR_OK);
	assert_int_equal(kr_lft_port(&r, r00, lid), port_dir(&f, &t, r00, 2));
	assert_int_equal(kr_lft_port(&r, xy, lid), port_to(&f, xy, r01));
	assert_int_equal(kr_lft_port(&r, r01, lid), kr_lft_port(&pristine, r01, lid));
	assert_int_equal(r.dlid_sl[lid], sl);	/* admitted on its own SL */
	kr_slvl_free(&p);
	kr_tables_free(&r);
	kr_tables_free(&pristine);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Four mesh link faults whose detours do not all fit on their own SLs,
 * in any pass (the generator's fault set 12 of four links on a 4x4x4
 * mesh, found by `knsroute route`):
 * only the pairs from switches whose entry the repair changed move, to a
 * layer of repaired trees; their destination keeps its SL for all others. */
static void test_mesh_moves_pairs_only(void **state)
{
	struct kr_gen_opts o = mesh444;
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables cut, r;
	struct kr_slvl p;
	struct kr_repair_stats st;
	struct kr_check_report rep;
	struct kr_check_opts co = { 0 };
	uint8_t *plan_sl;

	(void)state;
	kr_conf_init(&c);
	truth_gen(&o, &f, &t);
	assert_int_equal(kr_route(&f, &t, &c, &cut, NULL), KR_OK);
	assert_int_equal(kr_route(&f, &t, &c, &r, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r, &p, NULL), KR_OK);
	plan_sl = malloc(r.stride);
	memcpy(plan_sl, r.dlid_sl, r.stride);
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &r, &st, NULL), KR_OK);
	assert_true(r.npair_sl > 0);
	assert_true(st.pairs_sl_changed > 0);
	assert_true(st.pairs_sl_changed < st.pairs / 10);
	for (size_t i = 0; i < r.npair_sl; i++) {
		const struct kr_sl_pair *e = &r.pair_sl[i];
		uint32_t port = kr_port_by_lid(&f, e->slid);
		int tree = 0;

		for (unsigned j = 0; j < p.ntree; j++)
			tree |= e->sl == p.tree_sl[j];
		assert_true(tree);
		assert_int_equal(r.dlid_sl[e->dlid], plan_sl[e->dlid]);
		/* its dimension-order route was cut: only repaired pairs move */
		assert_true(truth_walk(&f, &cut, port, e->dlid, NULL) < 0);
	}
	assert_int_equal(kr_check_run(&f, &r, &co, &rep, NULL), KR_OK);
	kr_check_report_free(&rep);
	free(plan_sl);
	kr_slvl_free(&p);
	kr_tables_free(&r);
	kr_tables_free(&cut);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* The switch a port of sw leads to, KR_NONE for none. */
static uint32_t next_switch(const struct kr_fabric *f, uint32_t sw,
			    unsigned port)
{
	int32_t peer;

	if (port == 0 || port > f->nports[sw])
		return KR_NONE;
	peer = f->peer[f->port0[sw] + port];
	return peer >= 0 && kr_is_switch(f, f->owner[peer]) ?
	       f->owner[peer] : KR_NONE;
}

static unsigned entry(const struct kr_tables *t, uint32_t sw, unsigned lid)
{
	return t->lft[(size_t)sw * t->stride + lid];
}

/* Whether path[a..b] follows the cut fabric's dimension-order entries
 * towards router path[b]'s LID (intermediates are routers: grid
 * positions, not crossbars, with a LID). */
static int dor_to(const struct kr_fabric *f, const struct kr_topo *t,
		  const struct kr_tables *dor, const uint32_t *path, unsigned a,
		  unsigned b)
{
	unsigned lid = f->lid[f->port0[path[b]]];

	if (!lid || t->sw_pos[path[b]] == KR_NONE)
		return 0;
	for (unsigned k = a; k < b; k++)
		if (next_switch(f, path[k], entry(dor, path[k], lid)) !=
		    path[k + 1])
			return 0;
	return 1;
}

/* The thesis' reading of a repaired path from switch sw to dlid's switch
 * along rep: 1 (2) when it is the dimension-order path to one switch I
 * (through one switch I1 to I2) followed by I's own unchanged
 * dimension-order path on; else general. From the tables alone. */
static unsigned shape_of(const struct kr_fabric *f, const struct kr_topo *t,
			 const struct kr_tables *dor, const struct kr_tables *rep,
			 uint32_t sw, unsigned dlid, uint32_t target)
{
	uint32_t path[64];
	unsigned n = 0, tail = 0;

	for (uint32_t u = sw; n < 64; u = next_switch(f, u, entry(rep, u, dlid))) {
		assert_true(u != KR_NONE);
		path[n++] = u;
		if (u == target)
			break;
	}
	assert_int_equal(path[n - 1], target);
	/* tail: the first switch from which the path is dlid's own
	 * dimension-order route, unchanged, to the target */
	for (tail = n - 1; tail > 0 &&
	     entry(rep, path[tail - 1], dlid) == entry(dor, path[tail - 1], dlid);
	     tail--)
		;
	for (unsigned j = tail; j + 1 < n; j++)
		if (dor_to(f, t, dor, path, 0, j))
			return KR_REPAIR_ONE;
	for (unsigned j = tail; j + 1 < n; j++)
		for (unsigned i = 1; i < j; i++)
			if (dor_to(f, t, dor, path, 0, i) &&
			    dor_to(f, t, dor, path, i, j))
				return KR_REPAIR_TWO;
	return KR_REPAIR_GENERAL;
}

/* The repair's path counts by kind (pairs through 1 or 2 intermediates,
 * general) equal the shapes an independent reading of the tables finds:
 * a route built by general repair that is the thesis' path through one
 * intermediate counts as one. Fault sets of 3 links on kns43 and torus444,
 * those the up*-down* layer is not needed for. */
static void shapes(const struct kr_gen_opts *base, uint64_t seed,
		   unsigned *sets)
{
	struct kr_gen_opts o = *base;
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables dor, rep;
	struct kr_slvl p;
	struct kr_repair_stats st;
	uint64_t paths[KR_REPAIR_NKIND] = { 0 };

	o.fail = 3;
	o.fail_seed = seed;
	kr_conf_init(&c);
	truth_gen(&o, &f, &t);
	assert_int_equal(kr_route(&f, &t, &c, &dor, NULL), KR_OK);
	assert_int_equal(kr_route(&f, &t, &c, &rep, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &rep, &p, NULL), KR_OK);
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &rep, &st, NULL), KR_OK);
	for (unsigned dlid = 1; dlid < rep.stride && !st.dests_updn; dlid++) {
		uint32_t d = kr_port_by_lid(&f, dlid), target;

		if (d == KR_NONE || kr_is_switch(&f, f.owner[d]) || f.peer[d] < 0)
			continue;
		target = f.owner[f.peer[d]];
		for (uint32_t s = f.port0[f.nsw]; s < f.nport; s++) {
			uint32_t sw;

			if (!f.lid[s] || f.peer[s] < 0 || s == d)
				continue;
			sw = f.owner[f.peer[s]];
			if (sw == target || truth_walk(&f, &dor, s, dlid, NULL) >= 0)
				continue;	/* not repaired */
			paths[shape_of(&f, &t, &dor, &rep, sw, dlid, target)]++;
		}
	}
	if (!st.dests_updn) {
		(*sets)++;
		assert_int_equal(paths[KR_REPAIR_ONE], st.paths[KR_REPAIR_ONE]);
		assert_int_equal(paths[KR_REPAIR_TWO], st.paths[KR_REPAIR_TWO]);
		assert_int_equal(paths[KR_REPAIR_GENERAL],
				 st.paths[KR_REPAIR_GENERAL]);
	}
	kr_slvl_free(&p);
	kr_tables_free(&rep);
	kr_tables_free(&dor);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

static void test_path_kinds_by_shape(void **state)
{
	unsigned sets = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		shapes(&kns43, seed, &sets);
		shapes(&torus444, seed, &sets);
	}
	assert_true(sets >= 6);
}

/* With the SM known (on a switch, then on a CA), every single link fault
 * of a 4x4 torus and of a 4-ary 2-direct KNS: the SM node's routes may
 * leave the trees' order where the repair proves them, and the checker
 * proves unicast, the SM's traffic and a group of every CA port on SL 0
 * (the SA's SL) loop-free together. */
static void sa_faults(const struct kr_gen_opts *o)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_repair_stats st;

	truth_gen(o, &f, &t);
	for (unsigned on_ca = 0; on_ca < 2; on_ca++) {
		uint32_t sm_slot = on_ca ? f.port0[f.nsw] + 1 : f.port0[0];

		for (uint32_t s = 0; s < f.port0[f.nsw]; s++) {
			int32_t peer = f.peer[s];

			if (peer < (int32_t)s || !kr_is_switch(&f, f.owner[peer]))
				continue;
			cut_port(&f, s);
			route_and_prove(&f, &t, f.lid[sm_slot], &st);
			f.peer[s] = peer;
			f.peer[peer] = (int32_t)s;
		}
	}
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

static void test_sa_routes_proven(void **state)
{
	static const struct kr_gen_opts torus44 = {
		.family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 4 },
		.wrap = { 1, 1 }, .p = 1 };
	static const struct kr_gen_opts kns42 = {
		.family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 1 };

	(void)state;
	sa_faults(&torus44);
	sa_faults(&kns42);
}

static void test_pristine_untouched(void **state)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables r;
	struct kr_slvl p;
	struct kr_repair_stats st;
	uint8_t *before;

	(void)state;
	kr_conf_init(&c);
	truth_gen(&kns43, &f, &t);
	assert_int_equal(kr_route(&f, &t, &c, &r, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r, &p, NULL), KR_OK);
	assert_int_not_equal(p.detour_vl, KR_NONE);
	assert_true(p.detour_vl >= p.nclass);
	before = malloc((size_t)f.nsw * r.stride);
	memcpy(before, r.lft, (size_t)f.nsw * r.stride);
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &r, &st, NULL), KR_OK);
	assert_memory_equal(before, r.lft, (size_t)f.nsw * r.stride);
	assert_int_equal(st.dests_repaired, 0);
	assert_int_equal(st.paths[KR_REPAIR_NONE], st.pairs);
	free(before);
	kr_slvl_free(&p);
	kr_tables_free(&r);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pristine_untouched),
		cmocka_unit_test(test_sa_routes_proven),
		cmocka_unit_test(test_torus5x5_hand_worked),
		cmocka_unit_test(test_kns42_hand_worked),
		cmocka_unit_test(test_mesh_moves_pairs_only),
		cmocka_unit_test(test_path_kinds_by_shape),
		cmocka_unit_test(test_torus_ring_split),
		cmocka_unit_test(test_kns_dead_crossbar),
		cmocka_unit_test(test_kns43_every_link),
		cmocka_unit_test(test_torus444_every_link),
		cmocka_unit_test(test_kns43_every_switch),
		cmocka_unit_test(test_torus444_every_switch),
		cmocka_unit_test(test_torus_every_fault_keeps_sls),
		cmocka_unit_test(test_kns63_every_fault_keeps_sls),
		cmocka_unit_test(test_mesh66_every_link_keeps_sls),
		cmocka_unit_test(test_mikant43_every_fault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
