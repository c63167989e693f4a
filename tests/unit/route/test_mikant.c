/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MiKANT routing: entries of MiKANT(3, 3) worked by hand from the slides'
 * Algorithm 1 and the documented spread (mikant.c), every route as short
 * as the graph allows, and the all-to-all link load against the counts
 * the structure forces (docs/design.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "kr.h"
#include "mikant_rules.h"
#include "truth.h"

struct mk {
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_tables r;
};

static void mk_route(struct mk *m, unsigned k, unsigned n, uint64_t seed,
		     unsigned lmc)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_MIKANT, .ndim = n,
				 .k = { k }, .shuffle = seed != 0,
				 .shuffle_seed = seed, .assign_lids = 1,
				 .lmc = lmc };
	struct kr_diag d = { 0 };

	assert_int_equal(kr_gen(&o, &m->f, NULL, NULL, NULL, NULL), KR_OK);
	if (kr_topo_recognize(&m->f, NULL, &m->t, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(kr_route(&m->f, &m->t, NULL, &m->r, &d), KR_OK);
}

static void mk_free(struct mk *m)
{
	kr_tables_free(&m->r);
	kr_topo_free(&m->t);
	kr_fabric_free(&m->f);
}

/* The LFT entry of the switch named sw for the base LID (+ off) of the
 * node named to. */
static unsigned entry(const struct mk *m, const char *sw, const char *to,
		      unsigned off)
{
	uint32_t s = truth_node_named(&m->f, sw), d = truth_node_named(&m->f, to);
	uint32_t port = kr_is_switch(&m->f, d) ? m->f.port0[d] : m->f.port0[d] + 1;

	return kr_lft_port(&m->r, s, m->f.lid[port] + off);
}

/* Unshuffled MiKANT(3, 3): the generator's ports are 1..3 down (a leaf's:
 * CA slot c on port c+1; else the child with digit L-1 = port-1) and 4..6
 * up, or across at the top, to the switch with digit L = port-4. The
 * recognised addresses are the names (checked first), so the spread's
 * free values are: climbing from a leaf, the CA slot c; the first
 * crossing, the destination's D_0. Rows: switch, destination, port,
 * why. */
static void test_hand_worked_3_3(void **state)
{
	static const struct { const char *sw, *to; unsigned off, port; } want[] = {
		{ "sw(0,0,00)", "ca(0,200)", 0, 3 },	/* own leaf: slot 2 */
		{ "sw(0,0,00)", "ca(0,102)", 0, 5 },	/* up, slot 1 */
		{ "sw(0,0,00)", "ca(0,102)", 1, 6 },	/* LID offset 1: slot+1 */
		{ "sw(0,1,01)", "ca(0,102)", 0, 3 },	/* above it: down D_0=2 */
		{ "sw(0,0,00)", "ca(1,212)", 0, 6 },	/* up, slot 2 */
		{ "sw(0,1,02)", "ca(1,212)", 0, 5 },	/* across to D_1=1 */
		{ "sw(1,1,12)", "ca(1,212)", 0, 3 },	/* down D_0=2 */
		{ "sw(1,0,12)", "ca(1,212)", 0, 3 },	/* deliver slot 2 */
		{ "sw(0,1,00)", "ca(0,121)", 0, 5 },	/* top digit 2 not 0:
							 * across, free D_0=1 */
		{ "sw(1,1,10)", "ca(0,121)", 0, 6 },	/* back across, D_1=2 */
		{ "sw(0,1,20)", "ca(0,121)", 0, 2 },	/* down D_0=1 */
		{ "sw(0,0,21)", "ca(0,121)", 0, 2 },	/* deliver slot 1 */
		{ "sw(0,1,11)", "ca(0,121)", 0, 5 },	/* across, free D_0=1 */
		{ "sw(0,0,11)", "sw(1,1,02)", 0, 6 },	/* switch LID: up to
							 * its D_0=2, forced */
		{ "sw(0,1,12)", "sw(1,1,02)", 0, 4 },	/* across to D_1=0 */
		{ "sw(1,1,02)", "sw(1,1,02)", 0, 0 },	/* itself */
		{ "sw(1,0,02)", "sw(1,1,02)", 0, 6 },	/* up to D_0=2 */
	};
	struct mk m;
	char name[32];

	(void)state;
	mk_route(&m, 3, 3, 0, 1);
	for (uint32_t sw = 0; sw < m.f.nsw; sw++) {
		kr_topo_fmt_pos(&m.t, m.t.sw_pos[sw], KR_NO_DIM, name, sizeof(name));
		assert_string_equal(kr_node_name(&m.f, sw) + 2, name);
	}
	for (uint32_t sw = 0; sw < m.f.nsw; sw++)	/* LID 0: no route */
		assert_int_equal(kr_lft_port(&m.r, sw, 0), KR_NO_PORT);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (entry(&m, want[i].sw, want[i].to, want[i].off) != want[i].port)
			fail_msg("row %u: %s to %s+%u: port %u, want %u", i,
				 want[i].sw, want[i].to, want[i].off,
				 entry(&m, want[i].sw, want[i].to, want[i].off),
				 want[i].port);
	mk_free(&m);
}

/* Hops equal the switch graph's distances for every CA and LID (switch
 * LIDs too), shuffled, with LMC ranges. */
static void test_minimal(void **state)
{
	static const unsigned shape[][3] = { { 3, 3, 1 }, { 4, 3, 0 },
					     { 3, 4, 1 }, { 2, 5, 0 } };

	(void)state;
	for (unsigned i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		struct mk m;

		mk_route(&m, shape[i][0], shape[i][1], 11 + i, shape[i][2]);
		free(truth_assert_minimal(&m.f, &m.r));
		mk_free(&m);
	}
}

/* All-to-all, each directed link carries what the structure forces (the
 * least its kind can carry, so the most too): an up or down link between
 * stages L and L+1 the 2k^n - k^(L+1) pairs leaving (entering) the
 * subtree of k^(L+1) CAs it serves, a link across k^(n-1) (3k - 2): k^n
 * pairs between the groups and twice (k-1) k^(n-1) crossing twice. */
static void test_load_forced_counts(void **state)
{
	static const unsigned shape[][2] = { { 4, 3 }, { 3, 4 }, { 6, 3 } };

	(void)state;
	for (unsigned i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		unsigned k = shape[i][0], n = shape[i][1], kn = 1;
		uint64_t sum = 0, nlink = 0, max = 0;
		uint32_t *load;
		struct mk m;

		for (unsigned j = 0; j < n; j++)
			kn *= k;
		mk_route(&m, k, n, 5 + i, 0);
		load = truth_assert_minimal(&m.f, &m.r);
		for (uint32_t s = 0; s < m.f.port0[m.f.nsw]; s++) {
			uint32_t a = m.f.owner[s], b;
			struct mk_addr x, y;
			unsigned lo, want, sub = k;

			if (m.f.peer[s] < 0 || !kr_is_switch(&m.f, b = m.f.owner[m.f.peer[s]]))
				continue;
			x = mk_addr(k, n, m.t.sw_pos[a]);
			y = mk_addr(k, n, m.t.sw_pos[b]);
			lo = x.stage < y.stage ? x.stage : y.stage;
			for (unsigned j = 0; j < lo; j++)
				sub *= k;
			want = x.group != y.group ? kn / k * (3 * k - 2)
						  : 2 * kn - sub;
			assert_int_equal(load[s], want);
			sum += load[s];
			nlink++;
			max = load[s] > max ? load[s] : max;
		}
		print_message("MiKANT(%u, %u): link load max %llu, mean %.2f, "
			      "max/mean %.3f\n", k, n, (unsigned long long)max,
			      (double)sum / (double)nlink,
			      (double)max * (double)nlink / (double)sum);
		free(load);
		mk_free(&m);
	}
}

/* The offsets of an LMC range leave every switch below the top by
 * different up ports for destinations outside its subtree. */
static void test_lmc_offsets_differ(void **state)
{
	struct mk m;
	unsigned differ = 0, same = 0;

	(void)state;
	mk_route(&m, 4, 3, 3, 2);
	for (uint32_t ca = m.f.nsw; ca < m.f.nnode; ca++) {
		uint32_t port = m.f.port0[ca] + 1;

		for (uint32_t sw = 0; sw < m.f.nsw; sw++) {
			unsigned p0 = kr_lft_port(&m.r, sw, m.f.lid[port]);
			unsigned p1 = kr_lft_port(&m.r, sw, m.f.lid[port] + 1);
			uint32_t s0 = kr_port(&m.f, sw, p0);

			if (!p0 || m.t.port_dir[s0] != kr_mk_dir_up(&m.t))
				continue;
			differ += p0 != p1;
			same += p0 == p1;
		}
	}
	assert_true(differ > 0);
	assert_int_equal(same, 0);
	mk_free(&m);
}

/* Every CA reaches every CA's LID over a shortest path of the (faulty)
 * graph; returns the most CA-to-CA paths a link between switches
 * carries. */
static uint32_t assert_ca_pairs_minimal(const struct kr_fabric *f,
					const struct kr_tables *r)
{
	uint32_t *load = calloc(f->nport, sizeof(*load)), max = 0;

	assert_non_null(load);
	for (uint32_t ca = f->nsw; ca < f->nnode; ca++) {
		uint32_t src = kr_port(f, ca, 1);
		uint32_t *dist = truth_bfs(f, f->owner[f->peer[src]]);

		for (uint32_t to = f->nsw; to < f->nnode; to++) {
			uint32_t dst = kr_port(f, to, 1);
			int hops = to == ca ? 0 :
				   truth_walk(f, r, src, f->lid[dst], load);

			if (to != ca && hops != (int)dist[f->owner[f->peer[dst]]])
				fail_msg("%s -> %s: %d hops, BFS says %u",
					 kr_node_name(f, ca), kr_node_name(f, to),
					 hops, dist[f->owner[f->peer[dst]]]);
		}
		free(dist);
	}
	for (uint32_t s = 0; s < f->nport; s++)
		max = load[s] > max ? load[s] : max;
	free(load);
	return max;
}

/* One link down, any of them: the free choices avoid the switches that
 * cannot deliver any more, so routing alone (no repair) still brings
 * every CA pair over a shortest path, for MiKANT(3, 3) and (4, 3). And
 * the routes a cut link carried go to the other links of its choice by
 * the source switch too, not all to one: no link carries its own load
 * and a whole leaf link's, 2 (2k^n - k) paths (102 and 248 when the
 * destination alone chose). The same with the intact fabric's labels
 * (as knsroute faults routes its trials): the routing finds the link
 * gone itself. */
static void test_single_link_faults_route_alone(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 4, 3 } };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		uint32_t max, worst = 0, kn = 1;
		struct kr_topo intact;
		struct mk m;

		for (unsigned j = 0; j < shape[i][1]; j++)
			kn *= shape[i][0];
		mk_route(&m, shape[i][0], shape[i][1], 41 + i, 0);
		kr_tables_free(&m.r);
		intact = m.t;
		for (uint32_t s = 0; s < m.f.port0[m.f.nsw]; s++) {
			int32_t peer = m.f.peer[s];
			struct kr_diag d = { 0 };

			if (peer < (int32_t)s || !kr_is_switch(&m.f, m.f.owner[peer]))
				continue;
			m.f.peer[s] = m.f.peer[peer] = -1;
			if (kr_topo_recognize(&m.f, NULL, &m.t, &d))
				fail_msg("%s", d.msg);
			assert_int_equal(m.t.nmissing_link, 1);
			assert_int_equal(kr_route(&m.f, &m.t, NULL, &m.r, &d), KR_OK);
			max = assert_ca_pairs_minimal(&m.f, &m.r);
			worst = max > worst ? max : worst;
			kr_tables_free(&m.r);
			kr_topo_free(&m.t);
			assert_int_equal(kr_route(&m.f, &intact, NULL, &m.r, &d),
					 KR_OK);
			max = assert_ca_pairs_minimal(&m.f, &m.r);
			worst = max > worst ? max : worst;
			kr_tables_free(&m.r);
			m.f.peer[s] = peer;
			m.f.peer[peer] = (int32_t)s;
		}
		kr_topo_free(&intact);
		kr_fabric_free(&m.f);
		print_message("MiKANT(%u, %u), one link down: busiest link %u\n",
			      shape[i][0], shape[i][1], worst);
		assert_true(worst < 2 * (2 * kn - shape[i][0]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked_3_3),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_load_forced_counts),
		cmocka_unit_test(test_lmc_offsets_differ),
		cmocka_unit_test(test_single_link_faults_route_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
