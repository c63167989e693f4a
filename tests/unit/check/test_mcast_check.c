/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker with multicast trees. Unicast: knsroute's own DOR plan on a
 * generated torus (checked loop-free by the classes without multicast).
 * Trees: shaped as OpenSM's default builder makes them, a breadth-first
 * spanning tree from one root switch over every CA (ports tried in
 * ascending order), built here by the test. A witness is checked hop by
 * hop against the tables with code of its own: each multicast hop must be
 * a tree forwarding step on the group's SL, each unicast hop two
 * consecutive channels of the named pair's path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "truth.h"
#include "kr_cdg.h"	/* the proof's edges and order */

struct fixture {
	struct kr_fabric f;
	struct kr_plan p;
};

static void torus_plan(struct fixture *x, unsigned k)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { k, k }, .wrap = { 1, 1 }, .p = 1,
				 .parallel = 1, .assign_lids = 1 };
	struct kr_conf c;

	assert_int_equal(kr_gen(&o, &x->f, NULL, NULL, NULL, NULL), KR_OK);
	kr_conf_init(&c);
	/* multicast (and the SA, which joins it) on SL 15 keeps SL 0 a
	 * unicast class SL, as on a fabric whose partitions.conf and sm_sl
	 * chose SL 15: the trees below then share a VL with unicast, as
	 * OpenSM's own trees do under other engines */
	c.mcast_sls = 1u << 15;
	c.sm_sl = 15;
	assert_int_equal(kr_plan_build(&x->f, &c, &x->p, NULL), KR_OK);
}

static void add_port(struct kr_mgroup *g, uint32_t sw, unsigned port)
{
	g->ports[(size_t)sw * KR_MCAST_WORDS + port / 64] |= 1ull << port % 64;
}

/* One group, MLID 0xC000 on SL sl: the breadth-first tree from root with
 * every CA a member. */
static void minhop_tree(struct fixture *x, uint32_t root, unsigned sl,
			int sl_given)
{
	const struct kr_fabric *f = &x->f;
	struct kr_tables *t = &x->p.tables;
	struct kr_mgroup *g = calloc(1, sizeof(*g));
	uint32_t *queue = calloc(f->nsw, sizeof(*queue)), nq = 0;
	bool *seen = calloc(f->nsw, sizeof(*seen));

	g->mlid = 0xc000;
	g->sl = (uint8_t)sl;
	g->sl_given = (uint8_t)sl_given;
	g->ports = calloc((size_t)f->nsw * KR_MCAST_WORDS, sizeof(uint64_t));
	queue[nq++] = root;
	seen[root] = true;
	for (uint32_t i = 0; i < nq; i++) {
		uint32_t u = queue[i];

		for (unsigned p = 1; p <= f->nports[u]; p++) {
			int32_t q = f->peer[f->port0[u] + p];
			uint32_t v;

			if (q < 0)
				continue;
			v = f->owner[q];
			if (!kr_is_switch(f, v)) {
				add_port(g, u, p);
			} else if (!seen[v]) {
				seen[v] = true;
				queue[nq++] = v;
				add_port(g, u, p);
				add_port(g, v, kr_port_num(f, (uint32_t)q));
			}
		}
	}
	assert_int_equal(nq, f->nsw);
	free(queue);
	free(seen);
	t->mgroup = g;
	t->nmgroup = 1;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	kr_plan_free(&x->p);
	kr_fabric_free(&x->f);
	free(x);
	return 0;
}

/* Channels (slot << 4 | vl) of the pair's path, in order. */
static unsigned path_channels(const struct kr_fabric *f,
			      const struct kr_tables *t, unsigned slid,
			      unsigned dlid, uint32_t *ch, unsigned max)
{
	uint32_t s = kr_port_by_lid(f, slid), node = f->owner[s];
	unsigned sl = kr_tables_path_sl(t, slid, dlid), n = 0, in;
	unsigned port = kr_port_num(f, s);
	int32_t peer;

	ch[n++] = s << 4 | kr_map_vl(kr_tables_sl2vl(f, t, node, port, port),
				     sl);
	peer = f->peer[s];
	while (n < max && kr_is_switch(f, f->owner[peer])) {
		node = f->owner[peer];
		in = kr_port_num(f, (uint32_t)peer);
		port = kr_lft_port(t, node, dlid);
		if (port == 0 || port > f->nports[node])
			break;
		ch[n++] = (f->port0[node] + port) << 4 |
			  kr_map_vl(kr_tables_sl2vl(f, t, node, in, port), sl);
		peer = f->peer[f->port0[node] + port];
	}
	return n;
}

static void verify_witness(const struct kr_fabric *f,
			   const struct kr_tables *t,
			   const struct kr_check_class *c, unsigned *nmcast)
{
	*nmcast = 0;
	assert_true(c->ncycle >= 2);
	for (unsigned i = 0; i < c->ncycle; i++) {
		const struct kr_check_chan *h = &c->cycle[i];
		const struct kr_check_chan *nx = &c->cycle[(i + 1) % c->ncycle];
		int32_t peer = f->peer[h->slot];
		uint32_t sw = f->owner[peer];

		assert_true(kr_is_switch(f, sw));
		assert_int_equal(f->owner[nx->slot], sw);
		if (h->dlid >= 0xc000) {
			const struct kr_mgroup *g = &t->mgroup[0];
			unsigned in = kr_port_num(f, (uint32_t)peer);
			unsigned out = kr_port_num(f, nx->slot);

			assert_int_equal(h->dlid, g->mlid);
			assert_true(kr_mgroup_has(g, sw, out) && out != in);
			assert_int_equal(nx->vl, kr_map_vl(kr_tables_sl2vl(f, t,
					 sw, in, out), g->sl));
			(*nmcast)++;
		} else {
			uint32_t ch[64];
			unsigned n = path_channels(f, t, h->slid, h->dlid, ch,
						   64), k;

			for (k = 0; k + 1 < n; k++)
				if (ch[k] == (h->slot << 4 | h->vl) &&
				    ch[k + 1] == (nx->slot << 4 | nx->vl))
					break;
			if (k + 1 >= n)
				fail_msg("hop %u: not on LID %u -> %u", i,
					 h->slid, h->dlid);
		}
	}
}

static char *report_text(const struct kr_fabric *f,
			 const struct kr_check_report *r, int json)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_int_equal(kr_check_report_write(out, f, r, json), KR_OK);
	fclose(out);
	return buf;
}

static void assert_has(const char *text, const char *want)
{
	size_t n = strlen(text);

	if (!strstr(text, want))
		fail_msg("report lacks \"%s\"; it ends:\n%s", want,
			 text + (n > 700 ? n - 700 : 0));
}

static int setup_t5(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	torus_plan(x, 5);
	*state = x;
	return 0;
}

/* 5x5 torus: the tree from switch(0,0) forwards from switch(0,1) through
 * the root down to switch(0,4), a turn DOR's paths on the y ring never
 * take on the same VL, and DOR's paths from (0,4) towards (0,1) wait the
 * rest of the way round: a credit loop only multicast closes. */
static void test_minhop_tree_closes_loop(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_check_report r;
	unsigned nmcast;
	char *text;

	minhop_tree(x, truth_node_named(f, "switch(0,0)"), 0, 1);
	assert_int_equal(kr_check_run(f, &x->p.tables, &o, &r, NULL),
			 KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_DATA].loop, KR_LOOP_NONE);
	assert_int_equal(r.cls[KR_CHECK_ALL].loop, KR_LOOP_NONE);
	assert_int_equal(r.cls[KR_CHECK_MCAST].loop, KR_LOOP_PROVEN);
	assert_int_equal(r.ngroups, 1);
	assert_true(r.mcast_deps > 0);
	verify_witness(f, &x->p.tables, &r.cls[KR_CHECK_MCAST], &nmcast);
	assert_true(nmcast >= 1 && nmcast < r.cls[KR_CHECK_MCAST].ncycle);
	text = report_text(f, &r, 0);
	assert_has(text, "verdict: PROBLEM: credit loop with multicast\n");
	assert_has(text, "-> MLID 0xC000 (multicast)");
	assert_has(text, "counted unicast + multicast: 1225 pairs, 0 "
			 "undelivered, credit loops: found");
	free(text);
	text = report_text(f, &r, 1);
	assert_has(text, "\"multicast\": {\"groups\": 1, ");
	assert_has(text, "\"mlid\": 49152");
	assert_has(text, "\"verdict\": \"credit_loop\"}\n");
	assert_has(text, "\"groups_sl\": 0}");
	free(text);
	kr_check_report_free(&r);
}

/* The same tree with no SL given: the loop is an assumption (exit 3). */
static void test_minhop_tree_sl_assumed(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_check_report r;
	char *text;

	minhop_tree(x, truth_node_named(f, "switch(0,0)"), 0, 0);
	assert_int_equal(kr_check_run(f, &x->p.tables, &o, &r, NULL),
			 KR_EASSUMED);
	assert_int_equal(r.cls[KR_CHECK_MCAST].loop, KR_LOOP_ASSUMED);
	assert_int_equal(r.assumed.groups_sl, 1);
	assert_int_equal(r.exact, 0);
	text = report_text(f, &r, 0);
	assert_has(text, "multicast groups without an SL: 1 of 1 (SL 0 taken)");
	assert_has(text, "verdict: UNPROVEN: credit loop with multicast through "
			 "1 pairs or groups whose SL was assumed");
	free(text);
	kr_check_report_free(&r);
}

/* The same tree with switches as its only members (port 0 in every mask,
 * no CA ports): their own packets make the same turn through the root. */
static void test_switch_members(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_check_report r;
	struct kr_mgroup *g;
	unsigned nmcast;

	minhop_tree(x, truth_node_named(f, "switch(0,0)"), 0, 1);
	g = x->p.tables.mgroup;
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		for (unsigned p = 1; p <= f->nports[sw]; p++) {
			int32_t q = f->peer[f->port0[sw] + p];

			if (q >= 0 && !kr_is_switch(f, f->owner[q]))
				g->ports[(size_t)sw * KR_MCAST_WORDS] &= ~(1ull << p);
		}
		add_port(g, sw, 0);
	}
	assert_int_equal(kr_check_run(f, &x->p.tables, &o, &r, NULL),
			 KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_MCAST].loop, KR_LOOP_PROVEN);
	verify_witness(f, &x->p.tables, &r.cls[KR_CHECK_MCAST], &nmcast);
	assert_true(nmcast >= 1);
	kr_check_report_free(&r);
}

/* Only data counted: the multicast class grows the data graph alone. */
static void test_minhop_tree_data_counted(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_CAS };
	struct kr_check_report r;
	unsigned nmcast;

	minhop_tree(x, truth_node_named(f, "switch(0,0)"), 0, 1);
	assert_int_equal(kr_check_run(f, &x->p.tables, &o, &r, NULL),
			 KR_ECYCLE);
	assert_int_equal(r.cls[KR_CHECK_MCAST].pairs,
			 r.cls[KR_CHECK_DATA].pairs);
	verify_witness(f, &x->p.tables, &r.cls[KR_CHECK_MCAST], &nmcast);
	kr_check_report_free(&r);
}

static int setup_t3(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	torus_plan(x, 3);
	*state = x;
	return 0;
}

/* 3x3 torus: DOR paths are at most one hop per ring and turn only from x
 * to y, so a dependency between two tree channels is one the tree's own
 * forwarding makes; a tree's forwarding has no cycle: loop-free. */
static void test_good_tree(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_check_report r;
	char *text;

	minhop_tree(x, truth_node_named(f, "switch(1,1)"), 0, 1);
	assert_int_equal(kr_check_run(f, &x->p.tables, &o, &r, NULL), KR_OK);
	assert_int_equal(r.cls[KR_CHECK_MCAST].loop, KR_LOOP_NONE);
	assert_true(r.mcast_deps > 0);
	text = report_text(f, &r, 0);
	assert_has(text, "counted unicast + multicast: 153 pairs, 0 "
			 "undelivered, credit loops: none");
	assert_has(text, "verdict: OK\n");
	free(text);
	kr_check_report_free(&r);
}

/* The trees alone against the plan's unicast proof find the loop the full
 * check finds, and leave the proof's edges and order as they were: the
 * same call again gives the same answer. Without groups there is nothing
 * to add (KR_EINVAL). */
static void test_incremental_tree_loop(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_cdg *g = x->p.proof;
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	uint32_t edges;

	assert_non_null(g);
	edges = g->nedge;
	assert_int_equal(kr_check_mcast_incremental(f, &x->p.tables, g, &r, &d),
			 KR_EINVAL);
	kr_check_report_free(&r);
	minhop_tree(x, truth_node_named(f, "switch(0,0)"), 0, 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(kr_check_mcast_incremental(f, &x->p.tables, g,
							    &r, &d), KR_ECYCLE);
		assert_has(d.msg, "a dependency of a multicast tree closes a "
			   "cycle with earlier ones");
		assert_int_equal(r.ngroups, 1);
		assert_int_equal(r.pairs, 0);
		assert_int_equal(g->nedge, edges);
		assert_true(g->ordered);
		kr_check_report_free(&r);
	}
}

/* A loop-free tree passes against the proof, as in the full check, and
 * adds nothing to it for good. */
static void test_incremental_good_tree(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_cdg *g = x->p.proof;
	struct kr_check_report r;
	uint32_t edges;

	assert_non_null(g);
	edges = g->nedge;
	minhop_tree(x, truth_node_named(f, "switch(1,1)"), 0, 1);
	assert_int_equal(kr_check_mcast_incremental(f, &x->p.tables, g, &r,
						    NULL), KR_OK);
	assert_int_equal(r.ngroups, 1);
	assert_true(r.mcast_deps > 0);
	assert_int_equal(g->nedge, edges);
	kr_check_report_free(&r);
}

/* The tree from every switch of the fabric in turn: the trees alone
 * against the fresh proof give the full check's verdict, loop or not. */
static void test_incremental_agrees(void **state)
{
	struct fixture *x = *state;
	const struct kr_fabric *f = &x->f;
	struct kr_tables *t = &x->p.tables;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	unsigned loops = 0;

	for (uint32_t root = 0; root < f->nsw; root++) {
		struct kr_check_report full, incr;
		int rc;

		minhop_tree(x, root, 0, 1);
		rc = kr_check_run(f, t, &o, &full, NULL);
		assert_true(rc == KR_OK || rc == KR_ECYCLE);
		assert_int_equal(kr_check_mcast_incremental(f, t, x->p.proof,
							    &incr, NULL), rc);
		loops += rc == KR_ECYCLE;
		kr_check_report_free(&full);
		kr_check_report_free(&incr);
		kr_mgroup_free(&t->mgroup[0]);
		free(t->mgroup);
		t->mgroup = NULL;
		t->nmgroup = 0;
	}
	/* on the 5x5 torus some roots' trees close a loop and some do not:
	 * both verdicts were compared */
	if (f->nsw == 25)
		assert_true(loops > 0 && loops < f->nsw);
}

/* Without groups the report has no multicast class (as before). */
static void test_no_groups_no_class(void **state)
{
	struct fixture *x = *state;
	struct kr_check_opts o = { .dests = KR_CHECK_DESTS_ALL };
	struct kr_check_report r;
	char *text;

	assert_int_equal(kr_check_run(&x->f, &x->p.tables, &o, &r, NULL),
			 KR_OK);
	text = report_text(&x->f, &r, 1);
	assert_null(strstr(text, "multicast"));
	free(text);
	kr_check_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_minhop_tree_closes_loop,
						setup_t5, teardown),
		cmocka_unit_test_setup_teardown(test_minhop_tree_sl_assumed,
						setup_t5, teardown),
		cmocka_unit_test_setup_teardown(test_minhop_tree_data_counted,
						setup_t5, teardown),
		cmocka_unit_test_setup_teardown(test_switch_members, setup_t5,
						teardown),
		cmocka_unit_test_setup_teardown(test_good_tree, setup_t3,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_groups_no_class,
						setup_t3, teardown),
		cmocka_unit_test_setup_teardown(test_incremental_tree_loop,
						setup_t5, teardown),
		cmocka_unit_test_setup_teardown(test_incremental_good_tree,
						setup_t3, teardown),
		cmocka_unit_test_setup_teardown(test_incremental_agrees,
						setup_t5, teardown),
		cmocka_unit_test_setup_teardown(test_incremental_agrees,
						setup_t3, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
