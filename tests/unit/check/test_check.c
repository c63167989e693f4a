/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker on hand-built tables. Fixture: a ring of n switches "S0" ..,
 * each with one CA "H<i>" on port 1; port 2 goes to the next switch (+),
 * port 3 to the previous one, port 4 stays unlinked. Switch i has LID
 * i + 1, its CA LID n + 1 + i. Expected numbers are worked out by hand in
 * the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

#define MAXN 8

static unsigned ring_n;

static void build_ring(struct kr_fabric *f, unsigned n, unsigned ca_lmc)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int sw[MAXN], ca[MAXN];
	char name[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "S%u", i);
		sw[i] = kr_fb_add_node(b, KR_SWITCH, 4, 0x100 + i, name, NULL,
				       0, NULL);
		snprintf(name, sizeof(name), "H%u", i);
		ca[i] = kr_fb_add_node(b, KR_CA, 1, 0x1000 + 0x10 * i, name,
				       NULL, 0, NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned calid = (n + 1 + i) << ca_lmc;

		assert_int_equal(kr_fb_link(b, sw[i], 1, ca[i], 1, 0, NULL), 0);
		assert_int_equal(kr_fb_link(b, sw[i], 2, sw[(i + 1) % n], 3, 0,
					    NULL), 0);
		kr_fb_set_port(b, sw[i], 0, 0, (uint16_t)(i + 1), 0, 0, NULL);
		kr_fb_set_port(b, ca[i], 1, 0, (uint16_t)calid,
			       (uint8_t)ca_lmc, 0, NULL);
	}
	assert_int_equal(kr_fb_finish(b, f, NULL), KR_OK);
	kr_fb_free(b);
	ring_n = n;
}

/* Switch of a LID: switches are nodes 0..n-1, CA i is node n + i. */
static unsigned home(const struct kr_fabric *f, unsigned lid)
{
	uint32_t node = f->owner[kr_port_by_lid(f, lid)];

	return kr_is_switch(f, node) ? node : node - ring_n;
}

/* Everything goes the + way round. */
static void route_one_way(const struct kr_fabric *f, struct kr_tables *t)
{
	assert_int_equal(kr_tables_init(t, f, f->max_lid + 1, 1, 1), KR_OK);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t slot = kr_port_by_lid(f, lid);

			if (slot == KR_NONE)
				continue;
			if (home(f, lid) != sw)
				t->lft[sw * t->stride + lid] = 2;
			else
				t->lft[sw * t->stride + lid] =
					kr_is_switch(f, f->owner[slot]) ? 0 : 1;
		}
}

static int run(const struct kr_fabric *f, const struct kr_tables *t,
	       struct kr_check_report *r)
{
	struct kr_check_opts o = { .max_examples = 10 };
	struct kr_diag d = { 0 };

	return kr_check_run(f, t, &o, r, &d);
}

/* Follows the LFTs from source slot s to dlid and says whether channel
 * (slot a) is directly followed by channel (slot b) on the way; VLs are
 * checked by the caller. Independent of the checker's memo walk. */
static int path_has(const struct kr_fabric *f, const struct kr_tables *t,
		    uint32_t s, unsigned dlid, uint32_t a, uint32_t b)
{
	uint32_t prev = s, sw = f->owner[f->peer[s]];

	for (unsigned hop = 0; hop < 64; hop++) {
		unsigned out = kr_lft_port(t, sw, dlid);
		uint32_t slot = f->port0[sw] + out;

		if (out == 0)
			return 0;
		if (prev == a && slot == b)
			return 1;
		if (!kr_is_switch(f, f->owner[f->peer[slot]]))
			return 0;
		prev = slot;
		sw = f->owner[f->peer[slot]];
	}
	return 0;
}

/* One way round on one VL: the CDG cycle is the n "+" channels on VL 0,
 * each followed by the next switch's, each dependency made by a real path. */
static void check_ring_cycle(unsigned n)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	build_ring(&f, n, 0);
	route_one_way(&f, &t);
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.cls[KR_CHECK_ALL].ncycle, n);
	for (unsigned i = 0; i < n; i++) {
		const struct kr_check_chan *c = &r.cls[KR_CHECK_ALL].cycle[i];
		const struct kr_check_chan *next = &r.cls[KR_CHECK_ALL].cycle[(i + 1) % n];
		uint32_t sw = f.owner[c->slot];

		assert_int_equal(c->vl, 0);
		assert_int_equal(kr_port_num(&f, c->slot), 2);
		assert_int_equal(f.owner[next->slot], (sw + 1) % n);
		assert_true(path_has(&f, &t, kr_port_by_lid(&f, c->slid),
				     c->dlid, c->slot, next->slot));
	}
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static void test_ring4_one_way_cycle(void **state)
{
	(void)state;
	check_ring_cycle(4);
}

static void test_ring5_one_way_cycle(void **state)
{
	(void)state;
	check_ring_cycle(5);
}

/* Ring of 4, one way. Pairs: 4 CAs x 7 other LIDs = 28. A CA d switches
 * ahead reaches another CA in d + 2 links (d = 1..3, 4 pairs each) and a
 * switch in d + 1 (d = 0..3, 4 each): hops 1:4 2:4 3:8 4:8 5:4. Link load
 * counts CA-to-CA paths: each crosses d "+" links, 4 * (1+2+3) = 24
 * crossings over 4 "+" links, 6 each; the 4 "-" links carry none: 8 links,
 * max 6, mean 3. */
static void test_ring4_counts(void **state)
{
	static const uint64_t hops[] = { 0, 4, 4, 8, 8, 4 };
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	run(&f, &t, &r);
	assert_int_equal(r.pairs, 28);
	assert_int_equal(r.nsrc, 4);
	assert_int_equal(r.ndst, 8);
	for (unsigned h = 0; h < r.nhops; h++)
		assert_int_equal(r.hops[h], h < 6 ? hops[h] : 0);
	assert_int_equal(r.nlinks, 8);
	assert_int_equal(r.load_max, 6);
	assert_true(r.load_mean > 2.999 && r.load_mean < 3.001);
	assert_int_equal(r.ntop, 4);	/* links without load are not "top" */
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(r.top[i].load, 6);
		assert_int_equal(kr_port_num(&f, r.top[i].slot), 2);
	}
	/* channels, all VL 0: 4 CA ports, 4 "+" ports, and the 4 switch
	 * ports that deliver to the CAs */
	assert_int_equal(r.channels, 12);
	/* dependencies: each "+" channel waits for the next one, 4; it also
	 * waits for the next switch's CA port, and a CA's channel for its "+"
	 * one, but the CA takes what it is sent and nothing waits for what a
	 * CA sends, so those 8 lie on no cycle and are left out */
	assert_int_equal(r.deps, 4);
	assert_int_equal(r.max_vl, 0);
	assert_int_equal(r.vl_mask[kr_port(&f, 0, 3)], 0);
	assert_int_equal(r.vl_mask[kr_port(&f, 0, 2)], 1);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* The same ring, SL = the destination's switch index, and at switch i SL d
 * maps to VL 1 when i < d: a path moves from VL 0 to VL 1 when it crosses
 * the link S(n-1) -> S0 (the dateline) and never back, so neither VL's
 * dependencies go all the way round. */
static void route_dateline(struct kr_fabric *f, struct kr_tables *t,
			   unsigned n)
{
	build_ring(f, n, 0);
	route_one_way(f, t);
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		t->dlid_sl[lid] = (uint8_t)home(f, lid);
	for (uint32_t sw = 0; sw < n; sw++)
		for (unsigned in = 0; in <= 4; in++)
			for (unsigned out = 0; out <= 4; out++) {
				uint64_t *m = kr_tables_sl2vl_ref(f, t, sw, in,
								  out);

				for (unsigned sl = 0; sl < n; sl++)
					*m = kr_map_set(*m, sl, sw < sl);
			}
}

/* ... and the checker finds it clean. */
static void check_dateline(unsigned n)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	route_dateline(&f, &t, n);
	assert_int_equal(run(&f, &t, &r), KR_OK);
	assert_null(r.cls[KR_CHECK_ALL].cycle);
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.max_vl, 1);
	/* what leaves S0 on "+" goes to S1 .. S(n-1): i = 0 < d, VL 1 only */
	assert_int_equal(r.vl_mask[kr_port(&f, 0, 2)], 2);
	/* S(n-1) never has i < d: VL 0 only */
	assert_int_equal(r.vl_mask[kr_port(&f, n - 1, 2)], 1);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static void test_ring_dateline_clean(void **state)
{
	(void)state;
	check_dateline(4);
	check_dateline(5);
}

/* The dateline ring of 4 (clean) with the SA's traffic on SL 7, which
 * every map sends to VL 0: SM -> H1 (S2+ S3+ S0+), H3 -> SM (S3+ S0+ S1+)
 * and the data pair H1 -> H0, which stays on VL 0 from S1 to S3, (S1+
 * S2+) close the four "+" channels of VL 0. The SM on H2, then on S2
 * itself: the same channels; 3 + 3 SA pairs on SL 7, and on SL 0 the
 * PerfMgr's 3 + 3 with the CAs and 4 + 4 with the switches; then 4 + 4,
 * and 4 + 4 and 3 + 3. */
static void test_sa_traffic_loop(void **state)
{
	static const unsigned sm_lid[] = { 5 + 2, 3 }, sa_pairs[] = { 20, 22 };
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	route_dateline(&f, &t, 4);
	for (unsigned i = 0; i < 2; i++) {
		t.sm_lid = (uint16_t)sm_lid[i];
		t.sm_sl = 7;
		assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
		assert_int_equal(r.sm_lid, sm_lid[i]);
		assert_int_equal(r.sm_pairs, sa_pairs[i]);
		assert_int_equal(r.pairs, 28 + sa_pairs[i]);
		assert_int_equal(r.delivered, r.pairs);
		/* data alone stays clean; the loop needs the SA's pairs */
		assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
		assert_int_equal(r.cls[KR_CHECK_ALL].ncycle, 4);
		for (unsigned k = 0; k < 4; k++) {
			const struct kr_check_chan *c =
				&r.cls[KR_CHECK_ALL].cycle[k];

			assert_int_equal(c->vl, 0);
			assert_int_equal(kr_port_num(&f, c->slot), 2);
		}
		kr_check_report_free(&r);
	}
	/* no input gave the SA's SL: its 3 + 3 pairs taken on SL 7 count as
	 * assumed (the loop stays proven: the PerfMgr's given pairs on SL 0
	 * close it too); on SL 0 the SA's 6 pairs are walked apart from the
	 * PerfMgr's 14 and only they are assumed */
	t.sm_lid = 5 + 2;
	t.sm_sl = 7;
	t.sm_sl_taken = 1;
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_true(r.sm_sl_taken);
	assert_int_equal(r.sm_pairs, 20);
	assert_int_equal(r.assumed.sl_pairs[KR_CHECK_DATA], 0);
	assert_int_equal(r.assumed.sl_pairs[KR_CHECK_ALL], 6);
	assert_false(r.exact);
	assert_int_equal(r.cls[KR_CHECK_ALL].loop, KR_LOOP_PROVEN);
	kr_check_report_free(&r);
	t.sm_sl = 0;
	run(&f, &t, &r);
	assert_int_equal(r.sm_pairs, 6 + 14);
	assert_int_equal(r.assumed.sl_pairs[KR_CHECK_ALL], 6);
	kr_check_report_free(&r);
	t.sm_sl_taken = 0;
	run(&f, &t, &r);
	assert_int_equal(r.sm_pairs, 14);
	assert_int_equal(r.assumed.sl_pairs[KR_CHECK_ALL], 0);
	assert_true(r.exact);
	kr_check_report_free(&r);
	/* the SA on SL 2, H2's own SL, where the dateline holds for it; the
	 * PerfMgr's SL 0, which every map here sends to VL 0 as it does SL
	 * 7, still closes the loop */
	t.sm_lid = 5 + 2;
	t.sm_sl = 2;
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_int_equal(r.sm_pairs, 6 + 14);
	kr_check_report_free(&r);
	/* SL 0 on a VL of its own (2), the LIDs behind S0 moved to SL 4,
	 * which every map sends to VL 0 as the dateline sent SL 0: VL 2
	 * carries only the SM node's traffic, which starts or ends at S2 and
	 * never passes it, so no cycle */
	for (unsigned lid = 1; lid <= f.max_lid; lid++)
		if (t.dlid_sl[lid] == 0)
			t.dlid_sl[lid] = 4;
	for (uint32_t sw = 0; sw < 4; sw++)
		for (unsigned in = 0; in <= 4; in++)
			for (unsigned out = 0; out <= 4; out++) {
				uint64_t *m = kr_tables_sl2vl_ref(&f, &t, sw, in,
								  out);

				*m = kr_map_set(*m, 0, 2);
			}
	assert_int_equal(run(&f, &t, &r), KR_OK);
	assert_int_equal(r.sm_pairs, 6 + 14);
	assert_int_equal(r.max_vl, 2);
	kr_check_report_free(&r);
	/* the SA back on SL 7 (VL 0) closes the loop alone: proven when its
	 * SL was given, assumed when it was taken */
	t.sm_sl = 7;
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	kr_check_report_free(&r);
	t.sm_sl_taken = 1;
	assert_int_equal(run(&f, &t, &r), KR_EASSUMED);
	assert_int_equal(r.cls[KR_CHECK_ALL].loop, KR_LOOP_ASSUMED);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* The dateline ring of 4 with LIDs on H1 and H2 only, the SM on H2, its
 * traffic on SL 0 (VL 0 everywhere). Its pairs with H1 and H1's towards S0
 * (SL 0 too) hold S1+ S2+, S2+ S3+ and S3+ S0+ on VL 0;
 * only a switch's reply to the SM from S0 or S3 (its PerfMgr) adds
 * S0+ S1+ and closes the four "+" channels. 1 + 1 SA pairs, 4 + 4 with
 * the switches. */
static void test_switch_replies_to_sm_loop(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	route_dateline(&f, &t, 4);
	for (unsigned i = 0; i < 4; i += 3) {	/* H0 and H3 */
		unsigned lid = f.lid[kr_port(&f, 4 + i, 1)];

		f.lid[kr_port(&f, 4 + i, 1)] = 0;
		for (uint32_t sw = 0; sw < 4; sw++)
			t.lft[sw * t.stride + lid] = KR_NO_PORT;
	}
	assert_int_equal(kr_fabric_index_lids(&f, NULL), KR_OK);
	t.sm_lid = 5 + 2;
	t.sm_sl = 0;
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_int_equal(r.sm_pairs, 10);
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	assert_int_equal(r.cls[KR_CHECK_ALL].ncycle, 4);
	for (unsigned k = 0; k < 4; k++) {
		const struct kr_check_chan *c = &r.cls[KR_CHECK_ALL].cycle[k];

		assert_int_equal(c->vl, 0);
		assert_int_equal(kr_port_num(&f, c->slot), 2);
	}
	kr_check_report_free(&r);
	/* without the SM nothing closes it */
	t.sm_lid = 0;
	assert_int_equal(run(&f, &t, &r), KR_OK);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* 3 switches, DLID of H2 sent S2 -> S0 -> S1 -> S2 -> ...: the 2 other
 * CAs loop (H2 itself is not a source towards its own LID). */
static void test_forwarding_loop(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	unsigned lid = 4 + 2;	/* H2 */

	(void)state;
	build_ring(&f, 3, 0);
	route_one_way(&f, &t);
	t.lft[2 * t.stride + lid] = 2;	/* S2 passes it on instead */
	assert_int_equal(run(&f, &t, &r), KR_EROUTE);
	assert_int_equal(r.pairs, 3 * 5);
	assert_int_equal(r.fail[KR_CHECK_LOOP], 2);
	assert_int_equal(r.delivered, 13);
	assert_int_equal(r.nex, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(r.ex[i].reason, KR_CHECK_LOOP);
		assert_int_equal(r.ex[i].dlid, lid);
		assert_true(kr_is_switch(&f, f.owner[r.ex[i].at]));
	}
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* Ring of 4, three entries broken:
 * - S1 lacks H3's LID: H0 and H1 pass S1 on their way, 2 pairs;
 * - S2 sends H0's LID to its unlinked port 4: H1 and H2 pass S2, 2 pairs;
 * - S3 sends S1's LID to its CA port: H2 (via S3) and H3 (whose switch is
 *   S3) reach H3 instead, 2 pairs. */
static void test_no_entry_down_port_wrong_dest(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	t.lft[1 * t.stride + 5 + 3] = KR_NO_PORT;
	t.lft[2 * t.stride + 5 + 0] = 4;
	t.lft[3 * t.stride + 2] = 1;
	assert_int_equal(run(&f, &t, &r), KR_EROUTE);
	assert_int_equal(r.fail[KR_CHECK_NO_ENTRY], 2);
	assert_int_equal(r.fail[KR_CHECK_DOWN_PORT], 2);
	assert_int_equal(r.fail[KR_CHECK_WRONG_DEST], 2);
	assert_int_equal(r.delivered, 28 - 6);
	for (unsigned i = 0; i < r.nex; i++) {
		const struct kr_check_example *e = &r.ex[i];

		if (e->reason == KR_CHECK_NO_ENTRY)
			assert_int_equal(e->at, f.port0[1]);
		else if (e->reason == KR_CHECK_DOWN_PORT)
			assert_int_equal(e->at, kr_port(&f, 2, 4));
		else
			assert_int_equal(e->at, kr_port(&f, 4 + 3, 1));
	}
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* Ring of 4: at S1, traffic from S0 (in 3) to S2 (out 2) on SL 0 goes to
 * VL 15. Paths over S0 -> S1 -> S2: from H0 to H2, H3, S2, S3 and from H3
 * to H2, S2 (H3 -> S3 -> S0 -> S1 -> S2): 6 pairs dropped. */
static void test_vl15_drop(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	*kr_tables_sl2vl_ref(&f, &t, 1, 3, 2) = 0xf;
	assert_int_equal(run(&f, &t, &r), KR_EROUTE);
	assert_int_equal(r.fail[KR_CHECK_VL15], 6);
	assert_int_equal(r.ex[0].reason, KR_CHECK_VL15);
	assert_int_equal(r.ex[0].at, kr_port(&f, 1, 2));
	assert_int_equal(r.ex[0].vl, 15);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* S2's "+" port operates one VL; SL 3 (used towards H1 only) maps to VL 2
 * everywhere. Of the paths to H1 only H2's (S2 -> S3 -> S0 -> S1) crosses
 * S2 -> S3: 1 pair dropped, 1 port over its OperVLs. */
static void test_oper_vls(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 0);
	f.oper_vls[kr_port(&f, 2, 2)] = 1;
	route_one_way(&f, &t);
	t.dlid_sl[5 + 1] = 3;
	for (uint32_t i = 0; i < t.sl2vl_base[f.nnode]; i++)
		t.sl2vl[i] = kr_map_set(0, 3, 2);
	assert_int_equal(run(&f, &t, &r), KR_EROUTE);
	assert_int_equal(r.fail[KR_CHECK_OPER_VL], 1);
	assert_int_equal(r.oper_vl_ports, 1);
	assert_int_equal(r.ex[0].slid, 5 + 2);
	assert_int_equal(r.max_vl, 2);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* LMC 1 on the CAs: 8 CA LIDs + 4 switch LIDs; each CA sends to 10 LIDs
 * that are not its own. With switch sources: + 4 x 11. Pair exceptions:
 * H0 -> H2's second LID on SL 1 must be looked up per pair. */
static void test_lmc_switch_sources_pair_sl(void **state)
{
	struct kr_check_opts o = { .max_examples = 0, .switch_sources = 1 };
	struct kr_sl_pair p = { .slid = 10, .dlid = 15, .sl = 1 };
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 1);	/* CA i: LIDs 10 + 2i, 11 + 2i */
	route_one_way(&f, &t);
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_int_equal(r.ndst, 12);
	assert_int_equal(r.pairs, 4 * 10);
	kr_check_report_free(&r);
	assert_int_equal(kr_check_run(&f, &t, &o, &r, NULL), KR_ECYCLE);
	assert_int_equal(r.pairs, 4 * 10 + 4 * 11);
	assert_int_equal(r.nex, 0);
	kr_check_report_free(&r);
	/* SL 1 -> VL 15 everywhere: only the one pair using SL 1 drops */
	t.pair_sl = malloc(sizeof(p));
	t.pair_sl[0] = p;
	t.npair_sl = 1;
	for (uint32_t i = 0; i < t.sl2vl_base[f.nnode]; i++)
		t.sl2vl[i] = kr_map_set(0, 1, 15);
	assert_int_equal(run(&f, &t, &r), KR_EROUTE);
	assert_int_equal(r.fail[KR_CHECK_VL15], 1);
	assert_int_equal(r.ex[0].slid, 10);
	assert_int_equal(r.ex[0].dlid, 15);
	assert_int_equal(r.ex[0].at, kr_port(&f, 4, 1));	/* H0 itself */
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* The report names ports and the cycle, and JSON keeps its keys. */
static void test_report_write(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	char *buf;
	size_t len;
	FILE *out;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	run(&f, &t, &r);
	out = open_memstream(&buf, &len);
	assert_int_equal(kr_check_report_write(out, &f, &r, 0), KR_OK);
	fclose(out);
	assert_non_null(strstr(buf, "credit loop of 4 channels"));
	assert_non_null(strstr(buf, "S0[2] VL 0 -> S1[2] VL 0"));
	assert_non_null(strstr(buf, "max 6, mean 3.00, max/mean 2.00"));
	assert_non_null(strstr(buf, "verdict: PROBLEM: credit loop"));
	free(buf);
	out = open_memstream(&buf, &len);
	assert_int_equal(kr_check_report_write(out, &f, &r, 1), KR_OK);
	fclose(out);
	assert_non_null(strstr(buf, "\"pairs\": 28"));
	assert_non_null(strstr(buf, "\"hops\": [0, 4, 4, 8, 8, 4]"));
	assert_non_null(strstr(buf, "\"verdict\": \"credit_loop\""));
	assert_non_null(strstr(buf, "{\"node\": \"S0\", \"node_port\": 2, "
				    "\"vl\": 0"));
	free(buf);
	/* ports grouped by their VL sets, in the order of the sets' masks
	 * (both bytes of them: VL 15 last) */
	static const uint16_t masks[] = { 0x3, 0x8000, 0x1, 0x101, 0x3, 0x1 };
	assert_true(f.nport >= sizeof(masks) / sizeof(masks[0]));
	memset(r.vl_mask, 0, f.nport * sizeof(*r.vl_mask));
	memcpy(r.vl_mask, masks, sizeof(masks));
	out = open_memstream(&buf, &len);
	assert_int_equal(kr_check_report_write(out, &f, &r, 0), KR_OK);
	fclose(out);
	assert_non_null(strstr(buf, "ports by the VLs they send on):\n"
				    "  {0}: 2 ports\n  {0,1}: 2 ports\n"
				    "  {0,8}: 1 ports\n  {15}: 1 ports\n"));
	free(buf);
	out = open_memstream(&buf, &len);
	assert_int_equal(kr_check_report_write(out, &f, &r, 1), KR_OK);
	fclose(out);
	assert_non_null(strstr(buf, "\"ports_by_vls\": [{\"vls\": [0], "
				    "\"ports\": 2}, {\"vls\": [0,1], \"ports\": 2}, "
				    "{\"vls\": [0,8], \"ports\": 1}, "
				    "{\"vls\": [15], \"ports\": 1}]"));
	free(buf);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* ------------------------------------------------------------------ */
/* Classes versus pair by pair                                        */

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Hops from every switch to switch d, over switch links. */
static void bfs(const struct kr_fabric *f, uint32_t d, uint32_t *dist)
{
	uint32_t queue[64], head = 0, tail = 0;

	memset(dist, 0xff, f->nsw * sizeof(*dist));
	dist[d] = 0;
	queue[tail++] = d;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
			uint32_t v = f->peer[s] < 0 ? KR_NONE : f->owner[f->peer[s]];

			if (v < f->nsw && dist[v] == KR_NONE) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

/* The lowest port of sw one hop closer (dist) to the switch it measures. */
static uint8_t closer(const struct kr_fabric *f, uint32_t sw,
		      const uint32_t *dist)
{
	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		if (f->peer[s] >= 0 && f->owner[f->peer[s]] < f->nsw &&
		    dist[f->owner[f->peer[s]]] + 1 == dist[sw])
			return (uint8_t)kr_port_num(f, s);
	return KR_NO_PORT;
}

/* Min-hop LFTs by BFS towards each switch, then a few entries broken. */
static void route_bfs(const struct kr_fabric *f, struct kr_tables *t,
		      uint64_t *x)
{
	uint32_t dist[64];

	for (unsigned lid = 1; lid <= f->max_lid; lid++) {
		uint32_t slot = kr_port_by_lid(f, lid), d;
		bool sw_lid;

		if (slot == KR_NONE)
			continue;
		sw_lid = kr_is_switch(f, f->owner[slot]);
		d = sw_lid ? f->owner[slot] : f->owner[f->peer[slot]];
		bfs(f, d, dist);
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			t->lft[sw * t->stride + lid] = sw != d ? closer(f, sw, dist)
				: sw_lid ? 0 : (uint8_t)kr_port_num(f, f->peer[slot]);
	}
	for (unsigned i = 0; i < 6; i++)
		t->lft[rng_next(x) % ((size_t)f->nsw * t->stride)] =
			(uint8_t)(rng_next(x) % 8);
}

/* A map sending SLs 0..14 to distinct VLs 0..14 (SL 15 to any of them),
 * so that every SL has dependencies of its own. */
static uint64_t random_map(uint64_t *x)
{
	unsigned vl[KR_NSL];
	uint64_t m = 0;

	for (unsigned i = 0; i < 15; i++)
		vl[i] = i;
	for (unsigned i = 14; i > 0; i--) {
		unsigned j = (unsigned)(rng_next(x) % (i + 1)), v = vl[i];

		vl[i] = vl[j];
		vl[j] = v;
	}
	vl[15] = (unsigned)(rng_next(x) % 15);
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		m = kr_map_set(m, sl, vl[sl]);
	return m;
}

/* Every CA port one map; per switch, CA in-ports share one map per out
 * port (so CAs group), other in-ports get their own; now and then an SL
 * goes to VL 15. */
static void random_maps(const struct kr_fabric *f, struct kr_tables *t,
			uint64_t *x)
{
	uint64_t ca_map = random_map(x);

	for (uint32_t n = 0; n < f->nnode; n++)
		for (unsigned out = 0; out <= f->nports[n]; out++) {
			uint64_t shared = random_map(x);

			for (unsigned in = 0; in <= f->nports[n]; in++) {
				uint64_t *m = kr_tables_sl2vl_ref(f, t, n, in, out);
				int32_t p = f->peer[kr_port(f, n, in)];
				bool ca_in = p >= 0 && !kr_is_switch(f, f->owner[p]);

				if (!kr_is_switch(f, n)) {
					*m = ca_map;
					continue;
				}
				*m = ca_in ? shared : random_map(x);
				if (rng_next(x) % 50 == 0)
					*m = kr_map_set(*m, (unsigned)(rng_next(x) % 16),
							15);
			}
		}
}

static void assert_same_report(const struct kr_fabric *f,
			       const struct kr_check_report *a,
			       const struct kr_check_report *b)
{
	assert_int_equal(a->pairs, b->pairs);
	assert_int_equal(a->delivered, b->delivered);
	for (unsigned i = 0; i < KR_CHECK_NFAIL; i++)
		assert_int_equal(a->fail[i], b->fail[i]);
	for (unsigned h = 0; h < a->nhops; h++)
		assert_int_equal(a->hops[h], b->hops[h]);
	assert_memory_equal(a->link_load, b->link_load,
			    f->nport * sizeof(*a->link_load));
	assert_memory_equal(a->vl_mask, b->vl_mask,
			    f->nport * sizeof(*a->vl_mask));
	assert_int_equal(a->channels, b->channels);
	assert_int_equal(a->deps, b->deps);
	for (unsigned k = 0; k < KR_CHECK_NCLASS; k++) {
		assert_int_equal(a->cls[k].pairs, b->cls[k].pairs);
		assert_int_equal(a->cls[k].delivered, b->cls[k].delivered);
		assert_int_equal(a->cls[k].loop, b->cls[k].loop);
	}
}

/* Every pair of f with its SL under t, or (some) a random other one. */
static struct kr_sl_pair *list_pairs(const struct kr_fabric *f,
				     const struct kr_tables *t, uint64_t *x,
				     size_t *n)
{
	struct kr_sl_pair *p = malloc((size_t)t->stride * t->stride * sizeof(*p));

	*n = 0;
	for (uint32_t s = 0; s < f->nport; s++)
		for (unsigned l = 1; f->lid[s] && l < t->stride; l++) {
			unsigned sl = kr_tables_path_sl(t, f->lid[s], l);

			if (x && rng_next(x) % 3)
				continue;
			p[(*n)++] = (struct kr_sl_pair){
				.slid = f->lid[s], .dlid = (uint16_t)l,
				.sl = (uint8_t)(x ? rng_next(x) % 16 : sl) };
		}
	return p;
}

/* Generated tori with BFS routes (a few entries broken), random maps and
 * SLs, a third of the pairs with an SL of their own: the same report
 * whether sources go by class or, every pair listed, one by one. (Marking
 * a class's (out port, SL) done while a member sits out fails this.) */
static void test_classes_match_pairs(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 3 }, .wrap = { 1, 1 }, .p = 3,
				 .parallel = 1, .shuffle = 1, .assign_lids = 1,
				 .lmc = 1 };
	struct kr_check_opts co = { .max_examples = 0, .switch_sources = 1 };

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ull;
		struct kr_check_report a, b;
		struct kr_fabric f;
		struct kr_tables t;
		struct kr_sl_pair *all;
		size_t n;

		o.shuffle_seed = seed;
		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
		assert_int_equal(kr_tables_init(&t, &f, f.max_lid + 1, 1, 1), 0);
		route_bfs(&f, &t, &x);
		random_maps(&f, &t, &x);
		/* two SLs by DLID, so each (out port, SL) recurs; pairs of
		 * their own take any */
		for (unsigned l = 1; l < t.stride; l++)
			t.dlid_sl[l] = (uint8_t)(rng_next(&x) % 2);
		all = list_pairs(&f, &t, &x, &n);
		t.pair_sl = all;
		t.npair_sl = n;
		assert_int_equal(kr_tables_sort_pairs(&t, NULL), KR_OK);
		kr_check_run(&f, &t, &co, &a, NULL);
		all = list_pairs(&f, &t, NULL, &n);
		free(t.pair_sl);
		t.pair_sl = all;
		t.npair_sl = n;
		assert_int_equal(kr_tables_sort_pairs(&t, NULL), KR_OK);
		kr_check_run(&f, &t, &co, &b, NULL);
		assert_true(a.pairs > 1000 && a.delivered > a.pairs / 2);
		assert_same_report(&f, &a, &b);
		kr_check_report_free(&a);
		kr_check_report_free(&b);
		kr_tables_free(&t);
		kr_fabric_free(&f);
	}
}

/* ------------------------------------------------------------------ */
/* Assumptions and traffic classes                                     */

/* Every map of f: SL s on VL s (SLs 0..3). */
static void identity_maps(const struct kr_fabric *f, struct kr_tables *t)
{
	uint64_t m = 0;

	for (unsigned sl = 0; sl < 4; sl++)
		m = kr_map_set(m, sl, sl);
	for (uint32_t n = 0; n < f->nnode; n++)
		for (unsigned out = 0; out <= f->nports[n]; out++)
			for (unsigned in = 0; in <= f->nports[n]; in++) {
				uint64_t *r = kr_tables_sl2vl_ref(f, t, n, in, out);

				if (r)
					*r = m;
			}
}

/* Ring of 4 routed one way, maps SL s -> VL s. CA i's LID is given SL i:
 * each destination's paths stay on a VL of their own and end at its
 * switch, so data has no credit loop. Switch LIDs take SL 0, not given:
 * their paths together go all the way round on VL 0, the loop exists only
 * through assumed SLs. Given (sw_given), the same loop is proven. */
static void ring4_mgmt_loop(struct kr_fabric *f, struct kr_tables *t,
			    bool sw_given)
{
	build_ring(f, 4, 0);
	route_one_way(f, t);
	identity_maps(f, t);
	t->sl_given = calloc(t->stride, 1);
	for (unsigned i = 0; i < 4; i++) {
		t->dlid_sl[4 + 1 + i] = (uint8_t)i;
		t->sl_given[4 + 1 + i] = KR_SL_ALL;
		t->sl_given[1 + i] = sw_given ? KR_SL_ALL : KR_SL_ASSUMED;
	}
}

static int run_dests(const struct kr_fabric *f, const struct kr_tables *t,
		     int dests, struct kr_check_report *r)
{
	struct kr_check_opts o = { .max_examples = 10, .dests = dests };

	return kr_check_run(f, t, &o, r, NULL);
}

static void test_assumed_loop(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	const struct kr_check_class *all = &r.cls[KR_CHECK_ALL];

	(void)state;
	ring4_mgmt_loop(&f, &t, false);
	assert_int_equal(run_dests(&f, &t, KR_CHECK_DESTS_ALL, &r), KR_EASSUMED);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	assert_null(r.cls[KR_CHECK_DATA].cycle);
	assert_int_equal(all->loop, KR_LOOP_ASSUMED);
	/* the 4 "+" channels on VL 0. Data towards CA 0 (SL 0, given)
	 * proves S1 -> S2 -> S3 -> S0; the two dependencies through S0's
	 * "+" channel are made only by CA -> switch pairs, SL assumed */
	assert_int_equal(all->ncycle, 4);
	assert_int_equal(all->loop_map_deps, 0);
	assert_true(all->loop_sl_pairs >= 1 && all->loop_sl_pairs <= 2);
	for (unsigned i = 0, n = 0; i < 4; i++) {
		const struct kr_check_chan *c = &all->cycle[i];
		uint32_t dst = kr_port_by_lid(&f, c->dlid);

		assert_int_equal(c->vl, 0);
		assert_true(c->assumed == 0 || c->assumed == KR_CHECK_ASSUMED_SL);
		assert_true(!c->assumed || kr_is_switch(&f, f.owner[dst]));
		assert_true(c->assumed || !kr_is_switch(&f, f.owner[dst]));
		n += c->assumed != 0;
		if (i == 3)
			assert_int_equal(n, 2);
	}
	assert_int_equal(r.assumed.sl_pairs[0], 0);
	assert_int_equal(r.assumed.sl_pairs[1], 16);	/* 4 CAs x 4 switches */
	kr_check_report_free(&r);
	/* data alone, and auto (a management SL was assumed): no problem */
	assert_int_equal(run_dests(&f, &t, KR_CHECK_DESTS_CAS, &r), KR_OK);
	assert_int_equal(r.dests, KR_CHECK_DESTS_CAS);
	kr_check_report_free(&r);
	assert_int_equal(run_dests(&f, &t, KR_CHECK_DESTS_AUTO, &r), KR_OK);
	assert_int_equal(r.dests, KR_CHECK_DESTS_CAS);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);

	/* the switch LIDs' SL 0 given: the same loop, proven; auto counts
	 * management now */
	ring4_mgmt_loop(&f, &t, true);
	assert_int_equal(run_dests(&f, &t, KR_CHECK_DESTS_AUTO, &r), KR_ECYCLE);
	assert_int_equal(r.dests, KR_CHECK_DESTS_ALL);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	assert_int_equal(all->loop, KR_LOOP_PROVEN);
	for (unsigned i = 0; i < all->ncycle; i++)
		assert_int_equal(all->cycle[i].assumed, 0);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* An assumed SL does not matter where the maps send every SL to one VL:
 * the one-way ring on VL 0 everywhere is a proven loop with no SL given. */
static void test_assumed_sl_fixed_maps(void **state)
{
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	t.sl_given = calloc(t.stride, 1);
	assert_int_equal(run(&f, &t, &r), KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_PROVEN);
	assert_int_equal(r.assumed.sl_pairs[0], 12);
	kr_check_report_free(&r);
	/* the same with S2's map from port 3 to port 2 missing: the
	 * dependency into S2's "+" channel is made only through it; the one
	 * out of it also by CA 2's packets (in port 1, map given) */
	t.sl2vl_given = malloc(t.sl2vl_base[f.nnode]);
	memset(t.sl2vl_given, 1, t.sl2vl_base[f.nnode]);
	*(kr_tables_sl2vl_ref(&f, &t, 2, 3, 2) - t.sl2vl + t.sl2vl_given) = 0;
	assert_int_equal(run(&f, &t, &r), KR_EASSUMED);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_ASSUMED);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop_map_deps, 1);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop_sl_pairs, 0);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* Each counter on its own: two maps missing (a CA's, one of switch 1's
 * out port 2), one CA LID's SL missing, a LID routed past the fabric's
 * LIDs, a CA without a LID. */
static void test_assumption_counters(void **state)
{
	struct kr_fabric f;
	struct kr_tables t, big;
	struct kr_check_report r;
	uint8_t *given;

	(void)state;
	build_ring(&f, 4, 0);
	route_one_way(&f, &t);
	/* the same tables two LIDs wider, LID max + 1 routed at switch 0 */
	assert_int_equal(kr_tables_init(&big, &f, t.stride + 2, 1, 1), KR_OK);
	for (uint32_t sw = 0; sw < f.nsw; sw++)
		memcpy(big.lft + sw * big.stride, t.lft + sw * t.stride, t.stride);
	big.lft[0 * big.stride + f.max_lid + 1] = 2;
	kr_tables_free(&t);
	given = malloc(big.sl2vl_base[f.nnode]);
	memset(given, 1, big.sl2vl_base[f.nnode]);
	given[kr_tables_sl2vl_ref(&f, &big, 4, 1, 1) - big.sl2vl] = 0;
	given[kr_tables_sl2vl_ref(&f, &big, 1, 3, 2) - big.sl2vl] = 0;
	big.sl2vl_given = given;
	big.sl_given = malloc(big.stride);
	memset(big.sl_given, KR_SL_ALL, big.stride);
	big.sl_given[4 + 1 + 2] = KR_SL_ASSUMED;	/* CA 2's LID */
	f.lid[kr_port_by_lid(&f, 4 + 1 + 3)] = 0;	/* CA 3 loses its LID */
	assert_int_equal(kr_fabric_index_lids(&f, NULL), KR_OK);
	run(&f, &big, &r);
	assert_false(r.exact);
	assert_int_equal(r.assumed.ports, 16);	/* 3 linked per switch, 4 CAs */
	assert_int_equal(r.assumed.map_ports, 2);
	assert_int_equal(r.assumed.sl_pairs[0], 2);	/* CAs 0, 1 -> CA 2 */
	assert_int_equal(r.assumed.sl_pairs[1], 0);
	assert_int_equal(r.assumed.sl_nonzero, 0);
	assert_int_equal(r.assumed.lids_no_port, 2);	/* CA 3's, max + 1 */
	assert_int_equal(r.assumed.ports_no_lid, 1);
	kr_check_report_free(&r);
	kr_tables_free(&big);
	kr_fabric_free(&f);
}

/* ------------------------------------------------------------------ */
/* Reference: every pair walked hop by hop, every multicast member's
 * copies followed port by port, no code shared with the checker; per
 * class, delivered pairs and whether the dependency graph, and its proven
 * part, has a cycle. */

struct ref_edge {
	uint32_t from, to;
	bool proven, mgmt, mcast;
};

struct ref {
	struct ref_edge *e;
	size_t n, cap;
	uint64_t pairs[2], delivered[2];	/* data, management */
	/* when not NULL, of delivered pairs: hop counts (links crossed), data
	 * pairs on each switch-to-switch link, VLs on each switch port */
	uint64_t *hops;		/* [REF_HOPS] */
	uint64_t *load;		/* [nport] */
	uint16_t *vls;		/* [nport] */
};
#define REF_HOPS 72		/* ref_route follows at most 64 switches */

static void ref_add(struct ref *rf, uint32_t from, uint32_t to, bool proven,
		    bool mgmt)
{
	if (rf->n == rf->cap) {
		rf->cap = rf->cap ? 2 * rf->cap : 4096;
		rf->e = realloc(rf->e, rf->cap * sizeof(*rf->e));
		assert_non_null(rf->e);
	}
	rf->e[rf->n++] = (struct ref_edge){ from, to, proven, mgmt, false };
}

static bool ref_map_given(const struct kr_fabric *f, const struct kr_tables *t,
			  uint32_t node, unsigned in, unsigned out)
{
	uint64_t *m = kr_tables_sl2vl_ref(f, (struct kr_tables *)t, node, in, out);

	return !t->sl2vl_given || t->sl2vl_given[m - t->sl2vl];
}

/* Where the LFTs take dlid from sw: true when it arrives. */
static bool ref_route(const struct kr_fabric *f, const struct kr_tables *t,
		      uint32_t sw, unsigned dlid)
{
	for (unsigned hop = 0; hop < 64; hop++) {
		unsigned out = t->lft[sw * t->stride + dlid];
		int32_t peer;

		if (out > f->nports[sw])
			return false;
		if (out == 0)
			return kr_port_by_lid(f, dlid) == f->port0[sw];
		peer = f->peer[f->port0[sw] + out];
		if (peer < 0)
			return false;
		if (!kr_is_switch(f, f->owner[peer]))
			return kr_port_by_lid(f, dlid) == (uint32_t)peer;
		sw = f->owner[peer];
	}
	return false;
}

/* Whether VL vl is unusable on the port at slot. */
static bool ref_vl_bad(const struct kr_fabric *f, uint32_t slot, unsigned vl)
{
	return vl == 15 || (f->oper_vls[slot] && vl >= f->oper_vls[slot]);
}

/* A delivered pair's path into rf's counts: its links (slots; CA source
 * first when ca), channels of switch ports (slot * 16 + VL). */
static void ref_count(struct ref *rf, const struct kr_fabric *f, bool data,
		      const uint32_t *link, unsigned nlink, bool ca,
		      const uint32_t *ch, unsigned nch)
{
	if (!rf->hops)
		return;
	rf->hops[nlink]++;
	for (unsigned i = ca; data && i < nlink; i++)
		if (kr_is_switch(f, f->owner[f->peer[link[i]]]))
			rf->load[link[i]]++;
	for (unsigned i = 0; i < nch; i++)
		rf->vls[ch[i] / 16] |= (uint16_t)(1u << ch[i] % 16);
}

static void ref_pair(struct ref *rf, const struct kr_fabric *f,
		     const struct kr_tables *t, uint32_t s, unsigned dlid,
		     bool mgmt)
{
	uint32_t node = f->owner[s], sw = node, prev = KR_NONE;
	uint32_t link[REF_HOPS], ch[REF_HOPS];
	unsigned nlink = 0, nch = 0;
	unsigned sl = kr_tables_path_sl(t, f->lid[s], dlid), in = 0;
	uint8_t g = t->sl_given ? t->sl_given[dlid] : KR_SL_ALL;
	bool sl_known = g == KR_SL_ALL ||
			(g == KR_SL_CAS && !kr_is_switch(f, node)) ||
			kr_tables_pair_given(t, f->lid[s], dlid);
	bool prev_ok = true, prev_fixed = true;

	rf->pairs[mgmt]++;
	if (!kr_is_switch(f, node)) {
		unsigned p = kr_port_num(f, s);
		uint64_t m = kr_tables_sl2vl(f, t, node, p, p);
		unsigned vl = kr_map_vl(m, sl);

		if (ref_vl_bad(f, s, vl))
			return;
		link[nlink++] = s;
		sw = f->owner[f->peer[s]];
		in = kr_port_num(f, f->peer[s]);
		if (!ref_route(f, t, sw, dlid))
			return;
		prev = s * 16 + vl;
		prev_ok = ref_map_given(f, t, node, p, p);
		prev_fixed = m == (m & 0xf) * 0x1111111111111111ull;
	} else if (!ref_route(f, t, sw, dlid)) {
		return;
	}
	for (;;) {
		unsigned out = t->lft[sw * t->stride + dlid];
		uint32_t slot = f->port0[sw] + out;
		uint64_t m;
		unsigned vl;
		bool ok, fixed;

		if (out == 0)
			break;
		m = kr_tables_sl2vl(f, t, sw, in, out);
		vl = kr_map_vl(m, sl);
		ok = ref_map_given(f, t, sw, in, out);
		fixed = m == (m & 0xf) * 0x1111111111111111ull;
		if (prev != KR_NONE)
			ref_add(rf, prev, slot * 16 + vl, prev_ok && ok &&
				(sl_known || (prev_fixed && fixed)), mgmt);
		if (ref_vl_bad(f, slot, vl))
			return;
		link[nlink++] = slot;
		ch[nch++] = slot * 16 + vl;
		if (!kr_is_switch(f, f->owner[f->peer[slot]]))
			break;
		prev = slot * 16 + vl;
		prev_ok = ok;
		prev_fixed = fixed;
		in = kr_port_num(f, f->peer[slot]);
		sw = f->owner[f->peer[slot]];
	}
	rf->delivered[mgmt]++;
	ref_count(rf, f, !mgmt, link, nlink, !kr_is_switch(f, node), ch, nch);
}

static bool ref_map_fixed(uint64_t m)
{
	return m == (m & 0xf) * 0x1111111111111111ull;
}

/* One copy of group g's packet leaving switch sw, which it entered
 * through port in (0: the switch sent it), having held channel prev
 * (KR_NONE: none). seen: the member's (channel, map given, map SL-blind)
 * states already followed. */
static void ref_mcast_copy(struct ref *rf, const struct kr_fabric *f,
			   const struct kr_tables *t, const struct kr_mgroup *g,
			   uint32_t sw, unsigned in, uint32_t prev,
			   bool prev_ok, bool prev_fixed, bool *seen)
{
	for (unsigned out = 1; out <= f->nports[sw]; out++) {
		uint32_t slot = f->port0[sw] + out, c;
		int32_t peer = f->peer[slot];
		uint64_t m;
		bool ok, fixed;
		size_t st;

		if (out == in || !kr_mgroup_has(g, sw, out) || peer < 0)
			continue;
		m = kr_tables_sl2vl(f, t, sw, in, out);
		c = slot * 16 + kr_map_vl(m, g->sl);
		ok = ref_map_given(f, t, sw, in, out);
		fixed = ref_map_fixed(m);
		if (prev != KR_NONE)
			ref_add(rf, prev, c, prev_ok && ok &&
				(g->sl_given || (prev_fixed && fixed)), false);
		if (prev != KR_NONE)
			rf->e[rf->n - 1].mcast = true;
		st = (size_t)c * 4 + ok * 2 + fixed;
		if (seen[st] || !kr_is_switch(f, f->owner[peer]))
			continue;
		seen[st] = true;
		ref_mcast_copy(rf, f, t, g, f->owner[peer],
			       kr_port_num(f, (uint32_t)peer), c, ok, fixed, seen);
	}
}

/* Every member of every group on its own: CA ports behind mask ports, and
 * switches with port 0 in their mask. */
static void ref_mcast(struct ref *rf, const struct kr_fabric *f,
		      const struct kr_tables *t)
{
	bool *seen = malloc((size_t)f->nport * 16 * 4);

	for (size_t i = 0; i < t->nmgroup; i++) {
		const struct kr_mgroup *g = &t->mgroup[i];

		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (unsigned p = 0; p <= f->nports[sw]; p++) {
				int32_t q = f->peer[f->port0[sw] + p];
				uint64_t m;
				unsigned qp;

				if (!kr_mgroup_has(g, sw, p))
					continue;
				memset(seen, 0, (size_t)f->nport * 16 * 4);
				if (p == 0) {
					ref_mcast_copy(rf, f, t, g, sw, 0,
						       KR_NONE, true, true, seen);
					continue;
				}
				if (q < 0 || kr_is_switch(f, f->owner[q]))
					continue;
				qp = kr_port_num(f, (uint32_t)q);
				m = kr_tables_sl2vl(f, t, f->owner[q], qp, qp);
				ref_mcast_copy(rf, f, t, g, sw, p,
					       (uint32_t)q * 16 + kr_map_vl(m, g->sl),
					       ref_map_given(f, t, f->owner[q],
							     qp, qp),
					       ref_map_fixed(m), seen);
			}
	}
	free(seen);
}

/* Whether the edges passing keep (class: mgmt, mcast allowed; proven
 * only) hold a cycle: Kahn's algorithm on nn nodes. */
static bool ref_cyclic(const struct ref *rf, uint32_t nn, bool with_mgmt,
		       bool with_mcast, bool proven_only)
{
	uint32_t *indeg = calloc(nn, sizeof(*indeg)), *first = calloc(nn + 1, 4);
	uint32_t *adj = malloc((rf->n + 1) * 4), *queue = malloc(nn * 4);
	uint32_t head = 0, tail = 0, done = 0, live = 0;
	bool *used = calloc(nn, 1);

	for (size_t i = 0; i < rf->n; i++) {
		const struct ref_edge *e = &rf->e[i];

		if ((e->mgmt && !with_mgmt) || (e->mcast && !with_mcast) ||
		    (proven_only && !e->proven))
			continue;
		first[e->from + 1]++;
		indeg[e->to]++;
		used[e->from] = used[e->to] = true;
	}
	for (uint32_t v = 0; v < nn; v++)
		first[v + 1] += first[v];
	for (size_t i = 0, *fill = NULL; i < rf->n; i++) {
		const struct ref_edge *e = &rf->e[i];

		(void)fill;
		if ((e->mgmt && !with_mgmt) || (e->mcast && !with_mcast) ||
		    (proven_only && !e->proven))
			continue;
		adj[first[e->from]++] = e->to;
	}
	for (uint32_t v = nn; v > 0; v--)	/* undo the fill shift */
		first[v] = first[v - 1];
	first[0] = 0;
	for (uint32_t v = 0; v < nn; v++) {
		live += used[v];
		if (used[v] && !indeg[v])
			queue[tail++] = v;
	}
	while (head < tail) {
		uint32_t v = queue[head++];

		done++;
		for (uint32_t k = first[v]; k < first[v + 1]; k++)
			if (!--indeg[adj[k]])
				queue[tail++] = adj[k];
	}
	free(indeg);
	free(first);
	free(adj);
	free(queue);
	free(used);
	return done < live;
}

static uint8_t ref_loop(const struct ref *rf, uint32_t nn, bool with_mgmt,
		       bool with_mcast)
{
	if (!ref_cyclic(rf, nn, with_mgmt, with_mcast, false))
		return KR_LOOP_NONE;
	return ref_cyclic(rf, nn, with_mgmt, with_mcast, true)
		       ? KR_LOOP_PROVEN : KR_LOOP_ASSUMED;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Sorts and deduplicates k[0 .. n), returns the count left. */
static size_t ref_unique(uint64_t *k, size_t n)
{
	size_t m = 0;

	qsort(k, n, sizeof(*k), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || k[m - 1] != k[i])
			k[m++] = k[i];
	return m;
}

/* Distinct dependencies out of switch channels (what the checker counts):
 * unicast ones (mcast false), or the multicast ones no unicast pair
 * makes. */
static size_t ref_ndeps(const struct ref *rf, const struct kr_fabric *f,
			bool mcast)
{
	uint64_t *u = malloc((rf->n + 1) * sizeof(*u));
	uint64_t *m = malloc((rf->n + 1) * sizeof(*m));
	size_t nu = 0, nm = 0, extra = 0;

	for (size_t i = 0; i < rf->n; i++) {
		const struct ref_edge *e = &rf->e[i];
		uint64_t key = (uint64_t)e->from << 32 | e->to;

		if (!kr_is_switch(f, f->owner[e->from / 16]) ||
		    !kr_is_switch(f, f->owner[f->peer[e->to / 16]]))
			continue;
		if (e->mcast)
			m[nm++] = key;
		else
			u[nu++] = key;
	}
	nu = ref_unique(u, nu);
	nm = ref_unique(m, nm);
	for (size_t i = 0; i < nm; i++)
		extra += !bsearch(&m[i], u, nu, sizeof(*u), cmp_u64);
	free(u);
	free(m);
	return mcast ? extra : nu;
}

/* Three groups of random masks (not trees: cycles and one-way ports
 * too), random SLs, some given when sl_given. */
static void random_groups(const struct kr_fabric *f, struct kr_tables *t,
			  uint64_t *x, bool sl_given)
{
	t->nmgroup = 3;
	t->mgroup = calloc(3, sizeof(*t->mgroup));
	for (unsigned i = 0; i < 3; i++) {
		struct kr_mgroup *g = &t->mgroup[i];

		g->mlid = (uint16_t)(0xc000 + i);
		g->sl = (uint8_t)(rng_next(x) % 4);
		g->sl_given = sl_given && rng_next(x) % 3 != 0;
		g->ports = calloc((size_t)f->nsw * KR_MCAST_WORDS,
				  sizeof(uint64_t));
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (unsigned p = 0; p <= f->nports[sw]; p++)
				if (rng_next(x) % (p ? 5 : 8) == 0)
					g->ports[(size_t)sw * KR_MCAST_WORDS] |=
						1ull << p;
	}
}

static void ref_walk(struct ref *rf, const struct kr_fabric *f,
		     const struct kr_tables *t, bool switch_sources)
{
	for (uint32_t s = 0; s < f->nport; s++) {
		bool sw_src = kr_is_switch(f, f->owner[s]);

		if (!f->lid[s] || (sw_src ? s != f->port0[f->owner[s]] ||
					    !switch_sources
					  : f->peer[s] < 0))
			continue;
		for (unsigned dlid = 1; dlid <= f->max_lid; dlid++) {
			uint32_t d = kr_port_by_lid(f, dlid);
			bool sw_dst;

			if (d == KR_NONE || d == s)
				continue;
			sw_dst = kr_is_switch(f, f->owner[d]);
			if (sw_dst ? d != f->port0[f->owner[d]] : f->peer[d] < 0)
				continue;
			ref_pair(rf, f, t, s, dlid, sw_src || sw_dst);
		}
	}
}

/* The checker on f and t against the reference: per class delivered pairs
 * and loop verdict, and the dependencies it counts. */
static void match_reference(const struct kr_fabric *f, const struct kr_tables *t,
			    bool switch_sources, struct kr_check_report *r)
{
	struct kr_check_opts co = { .switch_sources = switch_sources };
	struct ref rf = { .hops = calloc(REF_HOPS, sizeof(uint64_t)),
			  .load = calloc(f->nport, sizeof(uint64_t)),
			  .vls = calloc(f->nport, sizeof(uint16_t)) };

	ref_walk(&rf, f, t, switch_sources);
	ref_mcast(&rf, f, t);
	kr_check_run(f, t, &co, r, NULL);
	for (unsigned h = 0; h < REF_HOPS || h < r->nhops; h++)
		assert_int_equal(h < r->nhops ? r->hops[h] : 0,
				 h < REF_HOPS ? rf.hops[h] : 0);
	for (uint32_t s = 0; s < f->nport; s++) {
		assert_int_equal(r->link_load[s], rf.load[s]);
		/* with every pair delivered, the VLs of switch ports (a CA
		 * port's are its class's) are the pairs'; multicast adds */
		if (r->delivered == r->pairs && !t->nmgroup &&
		    kr_is_switch(f, f->owner[s]))
			assert_int_equal(r->vl_mask[s], rf.vls[s]);
	}
	free(rf.hops);
	free(rf.load);
	free(rf.vls);
	assert_int_equal(r->cls[KR_CHECK_DATA].pairs, rf.pairs[0]);
	assert_int_equal(r->cls[KR_CHECK_DATA].delivered, rf.delivered[0]);
	assert_int_equal(r->cls[KR_CHECK_ALL].pairs, rf.pairs[0] + rf.pairs[1]);
	assert_int_equal(r->cls[KR_CHECK_ALL].delivered,
			 rf.delivered[0] + rf.delivered[1]);
	assert_int_equal(r->cls[KR_CHECK_DATA].loop,
			 ref_loop(&rf, f->nport * 16, false, false));
	assert_int_equal(r->cls[KR_CHECK_ALL].loop,
			 ref_loop(&rf, f->nport * 16, true, false));
	assert_int_equal(r->ngroups, t->nmgroup);
	if (t->nmgroup)
		assert_int_equal(r->cls[KR_CHECK_MCAST].loop,
				 ref_loop(&rf, f->nport * 16, true, true));
	assert_int_equal(r->deps, ref_ndeps(&rf, f, false));
	assert_int_equal(r->mcast_deps, ref_ndeps(&rf, f, true));
	free(rf.e);
}

/* Maps on two VLs (so credit loops happen), SLs 0..3 by DLID and per pair,
 * a random part of the SLs and maps not given, random multicast groups:
 * per class the checker's delivered pairs and loop verdict (none, proven,
 * assumed) are the reference's. Then the same tables with every SL and map
 * given (the exact walk; pairs with an SL of their own keep theirs), with
 * and without multicast. */
static void test_classes_match_reference(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 3 }, .wrap = { 1, 1 }, .p = 2,
				 .parallel = 1, .shuffle = 1, .assign_lids = 1 };
	struct kr_check_opts co = { .switch_sources = 1 };
	unsigned seen[3][3] = { { 0 } };
	unsigned mseen[3] = { 0 }, alone[3] = { 0 }, exact[3] = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		uint64_t x = seed * 0x9e3779b97f4a7c15ull;
		struct kr_check_report r;
		struct ref rf = { 0 };
		struct kr_fabric f;
		struct kr_tables t;
		uint8_t *lft;
		uint32_t nmap;

		/* every fourth fabric a line: min-hop routes there cannot
		 * close a credit loop */
		o.ndim = seed % 4 ? 2 : 1;
		o.wrap[0] = seed % 4 != 0;
		o.shuffle_seed = seed;
		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
		assert_int_equal(kr_tables_init(&t, &f, f.max_lid + 1, 1, 1), 0);
		route_bfs(&f, &t, &x);
		nmap = t.sl2vl_base[f.nnode];
		for (uint32_t i = 0; i < nmap; i++)
			for (unsigned sl = 0; sl < KR_NSL; sl++)
				t.sl2vl[i] = kr_map_set(t.sl2vl[i], sl,
					seed % 3 ? (unsigned)(rng_next(&x) % 2) : 0);
		t.sl2vl_given = malloc(nmap);
		for (uint32_t i = 0; i < nmap; i++)
			t.sl2vl_given[i] = rng_next(&x) % 40 != 0;
		t.sl_given = malloc(t.stride);
		for (unsigned l = 0; l < t.stride; l++) {
			t.dlid_sl[l] = (uint8_t)(rng_next(&x) % 4);
			t.sl_given[l] = (uint8_t)(rng_next(&x) % 3);
		}
		t.npair_sl = 0;
		t.pair_sl = malloc(64 * sizeof(*t.pair_sl));
		for (unsigned i = 0; i < 64; i++) {
			uint32_t s = (uint32_t)(rng_next(&x) % f.nport);
			unsigned d = 1 + (unsigned)(rng_next(&x) % f.max_lid);

			if (f.lid[s])
				t.pair_sl[t.npair_sl++] = (struct kr_sl_pair){
					.slid = f.lid[s], .dlid = (uint16_t)d,
					.sl = (uint8_t)((f.lid[s] + d) % 4) };
		}
		assert_int_equal(kr_tables_sort_pairs(&t, NULL), KR_OK);
		random_groups(&f, &t, &x, seed % 2);
		ref_walk(&rf, &f, &t, true);
		ref_mcast(&rf, &f, &t);
		kr_check_run(&f, &t, &co, &r, NULL);
		assert_int_equal(r.cls[KR_CHECK_DATA].pairs, rf.pairs[0]);
		assert_int_equal(r.cls[KR_CHECK_DATA].delivered, rf.delivered[0]);
		assert_int_equal(r.cls[KR_CHECK_ALL].pairs, rf.pairs[0] + rf.pairs[1]);
		assert_int_equal(r.cls[KR_CHECK_ALL].delivered,
				 rf.delivered[0] + rf.delivered[1]);
		assert_int_equal(r.cls[KR_CHECK_DATA].loop,
				 ref_loop(&rf, f.nport * 16, false, false));
		assert_int_equal(r.cls[KR_CHECK_ALL].loop,
				 ref_loop(&rf, f.nport * 16, true, false));
		assert_int_equal(r.ngroups, 3);
		assert_int_equal(r.cls[KR_CHECK_MCAST].loop,
				 ref_loop(&rf, f.nport * 16, true, true));
		assert_int_equal(r.deps, ref_ndeps(&rf, &f, false));
		assert_int_equal(r.mcast_deps, ref_ndeps(&rf, &f, true));
		seen[0][r.cls[KR_CHECK_DATA].loop]++;
		seen[1][r.cls[KR_CHECK_ALL].loop]++;
		mseen[r.cls[KR_CHECK_MCAST].loop]++;
		kr_check_report_free(&r);
		/* without unicast routes the trees alone decide */
		lft = malloc((size_t)f.nsw * t.stride);
		memcpy(lft, t.lft, (size_t)f.nsw * t.stride);
		memset(t.lft, KR_NO_PORT, (size_t)f.nsw * t.stride);
		rf.n = 0;
		ref_walk(&rf, &f, &t, true);
		ref_mcast(&rf, &f, &t);
		kr_check_run(&f, &t, &co, &r, NULL);
		assert_int_equal(r.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
		assert_int_equal(r.cls[KR_CHECK_MCAST].loop,
				 ref_loop(&rf, f.nport * 16, true, true));
		assert_int_equal(r.deps, ref_ndeps(&rf, &f, false));
		assert_int_equal(r.mcast_deps, ref_ndeps(&rf, &f, true));
		alone[r.cls[KR_CHECK_MCAST].loop]++;
		free(rf.e);
		kr_check_report_free(&r);
		memcpy(t.lft, lft, (size_t)f.nsw * t.stride);
		free(t.sl2vl_given);
		free(t.sl_given);
		t.sl2vl_given = NULL;
		t.sl_given = NULL;
		for (size_t i = 0; i < t.nmgroup; i++)
			t.mgroup[i].sl_given = 1;
		match_reference(&f, &t, true, &r);
		exact[r.cls[KR_CHECK_ALL].loop]++;
		kr_check_report_free(&r);
		for (size_t i = 0; i < t.nmgroup; i++)
			free(t.mgroup[i].ports);
		free(t.mgroup);
		t.mgroup = NULL;
		t.nmgroup = 0;
		match_reference(&f, &t, true, &r);
		kr_check_report_free(&r);
		free(lft);
		kr_tables_free(&t);
		kr_fabric_free(&f);
	}
	/* the seeds reach every verdict */
	for (unsigned v = 0; v < 3; v++)
		assert_true(seen[0][v] + seen[1][v] > 0 && mseen[v] > 0 &&
			    alone[v] > 0);
	assert_true(exact[KR_LOOP_NONE] > 0 && exact[KR_LOOP_PROVEN] > 0);
}

/* The CA ports switch d delivers LIDs to, by LID: up to 8 (LID, port). */
static unsigned switch_cas(const struct kr_fabric *f, uint32_t d,
			   unsigned *lid, unsigned *port)
{
	unsigned n = 0;

	for (unsigned l = 1; l <= f->max_lid && n < 8; l++) {
		uint32_t s = kr_port_by_lid(f, l);

		if (s == KR_NONE || kr_is_switch(f, f->owner[s]) ||
		    f->peer[s] < 0 || f->owner[f->peer[s]] != d)
			continue;
		lid[n] = l;
		port[n++] = kr_port_num(f, (uint32_t)f->peer[s]);
	}
	return n;
}

/* Whether port in of switch sw leads to a CA. */
static bool from_ca(const struct kr_fabric *f, uint32_t sw, unsigned in)
{
	int32_t peer = f->peer[f->port0[sw] + in];

	return peer >= 0 && !kr_is_switch(f, f->owner[peer]);
}

/* knsroute's own tables for fabric o without classes (whose SLs would tell
 * a switch's CAs apart), which must match the reference and be clean. */
static void plan_classless(const struct kr_gen_opts *o, struct kr_fabric *f,
			   struct kr_plan *p)
{
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	struct kr_conf conf;

	assert_int_equal(kr_gen(o, f, NULL, NULL, NULL, &d), KR_OK);
	kr_conf_init(&conf);
	conf.check = 0;
	conf.classify = KR_CLASSIFY_NONE;
	assert_int_equal(kr_plan_build(f, &conf, p, &d), KR_OK);
	match_reference(f, &p->tables, false, &r);
	assert_int_equal(r.delivered, r.pairs);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	kr_check_report_free(&r);
}

/* DBBQ on a 4x4x4 torus with LMC 1 keeps its two virtual networks, and
 * with 3 ring bits they take every SL: nothing is left for the up*-down*
 * layer or multicast, whose VL the SA's and PerfMgr's traffic (on sm_sl
 * 0, from a CA's port here) rides. On a VL of unicast code 0 it closes a
 * loop of its own; the refusal says so and what would help. Without
 * DBBQ the offsets share one order, and the plan passes. */
static void test_mgmt_loop_says_why(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 4, 4, 4 }, .wrap = { 1, 1, 1 }, .p = 1,
				 .parallel = 1, .assign_lids = 1, .lmc = 1 };

	(void)state;
	for (int dbbq = 1; dbbq >= 0; dbbq--) {
		struct kr_fabric f;
		struct kr_plan p;
		struct kr_diag d = { 0 };
		struct kr_conf conf;
		int rc;

		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, &d), KR_OK);
		kr_conf_init(&conf);
		if (dbbq)
			conf.classify = KR_CLASSIFY_DBBQ;
		conf.sm_lid = f.lid[kr_port(&f, f.nsw, 1)];
		rc = kr_plan_build(&f, &conf, &p, &d);
		if (dbbq) {
			assert_int_equal(rc, KR_ECYCLE);
			assert_int_equal(p.check.cls[KR_CHECK_DATA].loop,
					 KR_LOOP_NONE);
			assert_non_null(strstr(d.msg, "credit loop in management "
					       "traffic only"));
			assert_non_null(strstr(d.msg, "more VLs"));
		} else {
			assert_int_equal(rc, KR_OK);
		}
		kr_plan_free(&p);
		kr_fabric_free(&f);
	}
}

/* A KNS on 2 VLs: one for its traffic, one for the turns into crossbars,
 * none for the SA's and PerfMgr's (on sm_sl 0, from a CA's port here).
 * Their packets to crossbars take those turns too: the plan sends SL 0 on
 * the turns' VL there, as SL 15, and the check passes. With SL 0 put back
 * on VL 0 on those turns the same tables close a loop in management
 * traffic alone. */
static void test_kns_two_vls_mgmt_on_turns(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 1, .parallel = 1,
				 .assign_lids = 1 };
	struct kr_check_opts co = { .max_examples = 1 };
	struct kr_check_report r;
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_diag d = { 0 };
	struct kr_conf conf;
	unsigned turns = 0;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, &d), KR_OK);
	kr_conf_init(&conf);
	conf.vls = 2;
	conf.sm_lid = f.lid[kr_port(&f, f.nsw, 1)];
	assert_int_equal(kr_plan_build(&f, &conf, &p, &d), KR_OK);
	assert_int_equal(p.slvl.mcast_vl, KR_NONE);
	assert_int_equal(p.slvl.xbar_vl, 1);
	for (uint32_t n = 0; n < f.nsw; n++)
		for (unsigned out = 1; out <= f.nports[n]; out++)
			for (unsigned in = 1; in <= f.nports[n]; in++) {
				uint64_t *m = kr_tables_sl2vl_ref(&f, &p.tables,
								  n, in, out);

				if (kr_map_vl(*m, 15) != 1)
					continue;
				assert_int_equal(kr_map_vl(*m, 0), 1);
				*m = kr_map_set(*m, 0, 0);
				turns++;
			}
	assert_true(turns > 0);
	assert_int_equal(kr_check_run(&f, &p.tables, &co, &r, NULL), KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	assert_int_not_equal(r.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
	kr_check_report_free(&r);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* Destinations on one switch that the LFTs reach alike are walked once
 * (check_twin.c). knsroute's own tables without classes (whose SLs
 * would tell a switch's CAs apart), a torus whose ties split a switch's
 * CAs two ways and a KNS, match the reference in every count.
 * Then, on one switch, the CA ports after the first get maps sending
 * every SL from another switch to VL 15, and then their LFT entries send
 * to the first's port: the walk of the first is clean, so only a repeat
 * can take the others, and each of their pairs must still fail. */
static void test_twins_match_reference(void **state)
{
	static const struct kr_gen_opts fabrics[] = {
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 4 },
		  .wrap = { 1, 1 }, .p = 4, .parallel = 1, .shuffle = 1,
		  .shuffle_seed = 5, .assign_lids = 1 },
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 3, 3 }, .p = 3,
		  .parallel = 1, .assign_lids = 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct kr_check_report r;
		struct kr_fabric f;
		struct kr_plan p;
		unsigned lid[8], port[8], n;
		uint64_t map[8][64];
		uint32_t sw;
		uint8_t *row;

		plan_classless(&fabrics[i], &f, &p);

		sw = f.owner[f.peer[kr_port_by_lid(&f, f.max_lid)]];
		n = switch_cas(&f, sw, lid, port);
		assert_true(n >= 3 && f.nports[sw] < 64);
		for (unsigned k = 1; k < n; k++)
			for (unsigned in = 0; in <= f.nports[sw]; in++)
				map[k][in] = *kr_tables_sl2vl_ref(&f, &p.tables,
							sw, in, port[k]);
		/* from other switches, then from the switch's own CAs */
		for (unsigned local = 0; local < 2; local++) {
			for (unsigned k = 1; k < n; k++)
				for (unsigned in = 1; in <= f.nports[sw]; in++)
					if (from_ca(&f, sw, in) == local)
						*kr_tables_sl2vl_ref(&f,
							&p.tables, sw, in,
							port[k]) = UINT64_MAX;
			match_reference(&f, &p.tables, false, &r);
			assert_int_equal(r.fail[KR_CHECK_VL15],
					 (uint64_t)(n - 1) *
					 (local ? n - 1 : f.nnode - f.nsw - n));
			kr_check_report_free(&r);
			for (unsigned k = 1; k < n; k++)
				for (unsigned in = 0; in <= f.nports[sw]; in++)
					*kr_tables_sl2vl_ref(&f, &p.tables, sw,
							     in, port[k]) =
						map[k][in];
		}

		row = p.tables.lft + (size_t)sw * p.tables.stride;
		for (unsigned k = 1; k < n; k++)
			row[lid[k]] = (uint8_t)port[0];
		match_reference(&f, &p.tables, false, &r);
		assert_true(r.fail[KR_CHECK_WRONG_DEST] >=
			    (uint64_t)(n - 1) * (f.nnode - f.nsw - 1));
		kr_check_report_free(&r);
		kr_plan_free(&p);
		kr_fabric_free(&f);
	}
}

/* A switch's own LID routed like its first CA is counted from that CA's
 * walk (check_twin_switch): knsroute's tables without classes match the
 * reference. Then each way the LID's pairs can differ from the CA's must
 * show: the CA's own channel on VL 15 (it sat its walk out), the LID on an
 * SL that every switch sends to VL 15, a switch off the way without an
 * entry for it, and the switch itself sending it to the CA. */
static void test_switch_twins_match_reference(void **state)
{
	static const struct kr_gen_opts fabrics[] = {
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 3 },
		  .wrap = { 1, 1 }, .p = 3, .parallel = 1, .shuffle = 1,
		  .shuffle_seed = 9, .assign_lids = 1 },
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 3, 3 }, .p = 2,
		  .parallel = 1, .assign_lids = 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++) {
		struct kr_check_report r;
		struct kr_fabric f;
		struct kr_plan p;
		struct kr_tables *t = &p.tables;
		unsigned lid[8], port[8], n, slid, sl, spare = 0;
		uint32_t sw, other, ca;
		uint64_t *m, saved;
		uint8_t used[KR_NSL] = { 0 }, entry;

		plan_classless(&fabrics[i], &f, &p);

		sw = f.owner[f.peer[kr_port_by_lid(&f, f.max_lid)]];
		n = switch_cas(&f, sw, lid, port);
		slid = f.lid[f.port0[sw]];
		sl = t->dlid_sl[slid];
		assert_true(n >= 2);
		assert_int_equal(sl, t->dlid_sl[lid[0]]);

		ca = f.owner[kr_port_by_lid(&f, lid[0])];
		m = kr_tables_sl2vl_ref(&f, t, ca, 1, 1);
		saved = *m;
		*m = kr_map_set(saved, sl, KR_VL15);
		match_reference(&f, t, false, &r);
		assert_true(r.fail[KR_CHECK_VL15] > 0);
		kr_check_report_free(&r);
		*m = saved;

		for (unsigned l = 1; l <= f.max_lid; l++)
			used[t->dlid_sl[l]] = 1;
		while (used[spare])
			spare++;
		t->dlid_sl[slid] = (uint8_t)spare;
		for (uint32_t u = 0; u < f.nsw; u++)
			for (unsigned a = 0; a <= f.nports[u]; a++)
				for (unsigned b = 0; b <= f.nports[u]; b++) {
					m = kr_tables_sl2vl_ref(&f, t, u, a, b);
					*m = kr_map_set(*m, spare, KR_VL15);
				}
		match_reference(&f, t, false, &r);
		assert_int_equal(r.fail[KR_CHECK_VL15],
				 (uint64_t)f.nnode - f.nsw - n);
		kr_check_report_free(&r);
		t->dlid_sl[slid] = (uint8_t)sl;

		other = (sw + 1) % f.nsw;
		entry = t->lft[(size_t)other * t->stride + slid];
		t->lft[(size_t)other * t->stride + slid] = KR_NO_PORT;
		match_reference(&f, t, false, &r);
		assert_true(r.fail[KR_CHECK_NO_ENTRY] > 0);
		kr_check_report_free(&r);
		t->lft[(size_t)other * t->stride + slid] = entry;

		t->lft[(size_t)sw * t->stride + slid] = (uint8_t)port[0];
		match_reference(&f, t, false, &r);
		assert_int_equal(r.fail[KR_CHECK_WRONG_DEST],
				 (uint64_t)f.nnode - f.nsw);
		kr_check_report_free(&r);
		kr_plan_free(&p);
		kr_fabric_free(&f);
	}
}

/* The ring cut between S3 and S0: + towards higher switches, - towards
 * lower ones, so no path crosses the S3-S0 link. A path, not a cycle. */
static void route_line(const struct kr_fabric *f, struct kr_tables *t)
{
	route_one_way(f, t);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++)
			if (home(f, lid) < sw)
				t->lft[sw * t->stride + lid] = 3;
}

/* Destination columns of the switches at home h set to "+ everywhere". */
static void one_way_to(const struct kr_fabric *f, struct kr_tables *t,
		       unsigned h, uint8_t *only)
{
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		if (home(f, lid) == h) {
			for (uint32_t sw = 0; sw < f->nsw; sw++)
				if (sw != h)
					t->lft[sw * t->stride + lid] = 2;
			only[lid] = 1;
		}
}

/* Incremental checks on a 4-ring: the line routes pass the full check,
 * which keeps its graph. By hand: sending S0's LIDs (1 and 5) + all the
 * way round adds (S2,+) -> (S3,+) only, no cycle with the line's
 * (S0,+) -> (S1,+) -> (S2,+): proven walking those 2 LIDs alone. Then
 * also S1's LIDs: S2 -> S3 -> S0 -> S1 adds (S3,+) -> (S0,+), which closes
 * (S0,+) (S1,+) (S2,+) (S3,+): refused, and the full check finds the loop
 * the refusal could not exclude. A link no route takes going down leaves
 * the graph usable; a graph of other ports is refused. */
static void test_incremental(void **state)
{
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_fabric f, f5;
	struct kr_tables t;
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	struct kr_cdg *g = NULL, *g5 = NULL;
	uint8_t only[16] = { 0 };

	(void)state;
	build_ring(&f, 4, 0);
	route_line(&f, &t);
	o.keep = &g;
	assert_int_equal(kr_check_run(&f, &t, &o, &r, &d), KR_OK);
	assert_non_null(g);
	kr_check_report_free(&r);

	one_way_to(&f, &t, 0, only);
	assert_int_equal(kr_check_incremental(&f, &t, only, g, &r, &d), KR_OK);
	assert_int_equal(r.ndst, 2);		/* LIDs 1 and 5 */
	assert_int_equal(r.pairs, 3 + 4);	/* 3 CAs to LID 5, 4 to LID 1 */
	assert_int_equal(r.delivered, r.pairs);
	kr_check_report_free(&r);

	/* the S3-S0 link, which no route takes, fails: the graph still
	 * fits (its nodes do not depend on which links are up) */
	{
		uint32_t a = kr_port(&f, 3, 2), b = kr_port(&f, 0, 3);
		uint8_t none[16] = { 0 };

		f.peer[a] = f.peer[b] = -1;
		assert_int_equal(kr_check_incremental(&f, &t, none, g, &r, &d),
				 KR_OK);
		kr_check_report_free(&r);
		f.peer[a] = (int32_t)b;
		f.peer[b] = (int32_t)a;
	}

	one_way_to(&f, &t, 1, only);
	assert_int_equal(kr_check_incremental(&f, &t, only, g, &r, &d), KR_ECYCLE);
	kr_check_report_free(&r);
	o.keep = NULL;
	assert_int_equal(kr_check_run(&f, &t, &o, &r, &d), KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_ALL].ncycle, 4);
	kr_check_report_free(&r);

	build_ring(&f5, 5, 0);
	kr_tables_free(&t);
	route_line(&f5, &t);
	o.keep = &g5;
	assert_int_equal(kr_check_run(&f5, &t, &o, &r, &d), KR_OK);
	kr_check_report_free(&r);
	assert_int_equal(kr_check_incremental(&f5, &t, only, g, &r, &d), KR_EINVAL);
	kr_check_report_free(&r);
	kr_check_graph_free(g);
	kr_check_graph_free(g5);
	kr_tables_free(&t);
	kr_fabric_free(&f);
	kr_fabric_free(&f5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring4_one_way_cycle),
		cmocka_unit_test(test_ring5_one_way_cycle),
		cmocka_unit_test(test_ring4_counts),
		cmocka_unit_test(test_ring_dateline_clean),
		cmocka_unit_test(test_sa_traffic_loop),
		cmocka_unit_test(test_switch_replies_to_sm_loop),
		cmocka_unit_test(test_forwarding_loop),
		cmocka_unit_test(test_no_entry_down_port_wrong_dest),
		cmocka_unit_test(test_vl15_drop),
		cmocka_unit_test(test_oper_vls),
		cmocka_unit_test(test_lmc_switch_sources_pair_sl),
		cmocka_unit_test(test_report_write),
		cmocka_unit_test(test_classes_match_pairs),
		cmocka_unit_test(test_assumed_loop),
		cmocka_unit_test(test_assumed_sl_fixed_maps),
		cmocka_unit_test(test_assumption_counters),
		cmocka_unit_test(test_classes_match_reference),
		cmocka_unit_test(test_twins_match_reference),
		cmocka_unit_test(test_mgmt_loop_says_why),
		cmocka_unit_test(test_kns_two_vls_mgmt_on_turns),
		cmocka_unit_test(test_switch_twins_match_reference),
		cmocka_unit_test(test_incremental),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
