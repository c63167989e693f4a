/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The channel dependency graph: bulk ordering with witness cycles, and
 * Pearce-Kelly insertion checked against brute-force reachability. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr_cdg.h"
#include "kr_fabric.h"

/* Every edge goes forward in the order, and ord is a permutation. */
static void assert_order(const struct kr_cdg *g)
{
	uint8_t *seen = calloc(g->nnode, 1);

	for (uint32_t v = 0; v < g->nnode; v++) {
		assert_true(g->ord[v] < g->nnode);
		assert_false(seen[g->ord[v]]);
		seen[g->ord[v]] = 1;
	}
	for (uint32_t e = 0; e < g->nedge; e++)
		assert_true(g->ord[g->from[e]] < g->ord[g->to[e]]);
	free(seen);
}

/* g->cycle is a cycle of g: consecutive nodes (and last -> first) are
 * edges, no node twice. */
static void assert_cycle(const struct kr_cdg *g)
{
	assert_true(g->ncycle >= 1);
	for (uint32_t i = 0; i < g->ncycle; i++) {
		assert_int_not_equal(kr_cdg_find(g, g->cycle[i],
						 g->cycle[(i + 1) % g->ncycle]),
				     KR_NONE);
		for (uint32_t j = 0; j < i; j++)
			assert_int_not_equal(g->cycle[i], g->cycle[j]);
	}
}

static void test_dedupe_and_tags(void **state)
{
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, 10), KR_OK);
	assert_int_equal(kr_cdg_add(&g, 1, 2, 77), 1);
	assert_int_equal(kr_cdg_add(&g, 1, 2, 88), 0);
	assert_int_equal(g.nedge, 1);
	assert_int_equal(g.tag[kr_cdg_find(&g, 1, 2)], 77);	/* first wins */
	assert_int_equal(kr_cdg_find(&g, 2, 1), KR_NONE);
	/* enough edges to grow the hash and the edge arrays several times */
	for (uint32_t i = 0; i < 9; i++)
		for (uint32_t j = 0; j < 10; j++)
			assert_true(kr_cdg_add(&g, i, j, i * 10 + j) >= 0);
	assert_int_equal(g.nedge, 90);
	assert_int_equal(g.tag[kr_cdg_find(&g, 4, 7)], 47);
	kr_cdg_free(&g);
	kr_cdg_free(&g);	/* freeing twice (zeroed) is fine */
}

static void test_order_dag(void **state)
{
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, 6), KR_OK);
	/* a diamond plus a tail, added against node numbering */
	kr_cdg_add(&g, 5, 3, 0);
	kr_cdg_add(&g, 5, 4, 0);
	kr_cdg_add(&g, 3, 1, 0);
	kr_cdg_add(&g, 4, 1, 0);
	kr_cdg_add(&g, 1, 0, 0);
	assert_false(g.ordered);
	assert_int_equal(kr_cdg_order(&g), KR_OK);
	assert_true(g.ordered);
	assert_order(&g);
	kr_cdg_free(&g);
}

/* A 4-cycle with a tail into it and a chord making a 2-cycle elsewhere:
 * the witness must be a real cycle, and the shortest through its node. */
static void test_order_cycle_witness(void **state)
{
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, 8), KR_OK);
	kr_cdg_add(&g, 7, 0, 0);	/* tail */
	kr_cdg_add(&g, 0, 1, 0);
	kr_cdg_add(&g, 1, 2, 0);
	kr_cdg_add(&g, 2, 3, 0);
	kr_cdg_add(&g, 3, 0, 0);
	assert_int_equal(kr_cdg_order(&g), KR_ECYCLE);
	assert_false(g.ordered);
	assert_cycle(&g);
	assert_int_equal(g.ncycle, 4);
	kr_cdg_add(&g, 2, 0, 0);	/* now 0 -> 1 -> 2 -> 0 is shorter */
	assert_int_equal(kr_cdg_order(&g), KR_ECYCLE);
	assert_cycle(&g);
	assert_int_equal(g.ncycle, 3);
	kr_cdg_free(&g);
}

static void test_self_loop(void **state)
{
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, 3), KR_OK);
	assert_int_equal(kr_cdg_insert(&g, 2, 2, 0), KR_ECYCLE);
	assert_int_equal(g.ncycle, 1);
	assert_int_equal(g.cycle[0], 2);
	kr_cdg_add(&g, 1, 1, 0);
	assert_int_equal(kr_cdg_order(&g), KR_ECYCLE);
	assert_int_equal(g.ncycle, 1);
	assert_int_equal(g.cycle[0], 1);
	kr_cdg_free(&g);
}

/* Insertions against the initial order force every kind of reordering;
 * the closing edge is refused with the cycle to .. from. */
static void test_insert_reorders_and_refuses(void **state)
{
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, 5), KR_OK);
	assert_int_equal(kr_cdg_insert(&g, 3, 2, 32), 1);
	assert_int_equal(kr_cdg_insert(&g, 2, 1, 21), 1);
	assert_int_equal(kr_cdg_insert(&g, 1, 0, 10), 1);
	assert_int_equal(kr_cdg_insert(&g, 1, 0, 99), 0);
	assert_order(&g);
	assert_false(kr_cdg_closes_cycle(&g, 3, 0));
	assert_true(kr_cdg_closes_cycle(&g, 0, 3));
	assert_int_equal(g.nedge, 3);	/* asking adds nothing */
	assert_int_equal(kr_cdg_insert(&g, 0, 3, 3), KR_ECYCLE);
	assert_int_equal(kr_cdg_find(&g, 0, 3), KR_NONE);
	assert_int_equal(g.ncycle, 4);
	assert_int_equal(g.cycle[0], 3);	/* to ... from */
	assert_int_equal(g.cycle[1], 2);
	assert_int_equal(g.cycle[2], 1);
	assert_int_equal(g.cycle[3], 0);
	assert_order(&g);
	kr_cdg_add(&g, 4, 3, 0);	/* bulk add drops the order ... */
	assert_int_equal(kr_cdg_insert(&g, 0, 4, 0), KR_EINVAL);
	assert_int_equal(kr_cdg_order(&g), KR_OK);	/* ... order restores */
	assert_int_equal(kr_cdg_insert(&g, 0, 4, 0), KR_ECYCLE);
	assert_int_equal(g.ncycle, 5);
	kr_cdg_free(&g);
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Brute force: is to reachable from from in adjacency matrix adj? */
static int reaches(const uint8_t *adj, uint32_t n, uint32_t from, uint32_t to)
{
	uint8_t seen[64] = { 0 };
	uint32_t todo[64], top = 0;

	todo[top++] = from;
	seen[from] = 1;
	while (top) {
		uint32_t u = todo[--top];

		if (u == to)
			return 1;
		for (uint32_t v = 0; v < n; v++)
			if (adj[u * n + v] && !seen[v]) {
				seen[v] = 1;
				todo[top++] = v;
			}
	}
	return 0;
}

/* Random edges one at a time: refused exactly when the reverse path
 * exists, order valid after each; then the accepted set, added in bulk,
 * orders, and one refused edge makes it cyclic. */
static void test_insert_matches_brute_force(void **state)
{
	enum { N = 40, TRIES = 1500 };
	uint8_t adj[N * N] = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	uint32_t refused_from = KR_NONE, refused_to = 0, nref = 0;
	struct kr_cdg g, bulk;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, N), KR_OK);
	for (int i = 0; i < TRIES; i++) {
		uint32_t a = (uint32_t)(rng_next(&rng) % N);
		uint32_t b = (uint32_t)(rng_next(&rng) % N);
		int want = a == b || reaches(adj, N, b, a);
		int rc = kr_cdg_insert(&g, a, b, 0);

		if (adj[a * N + b]) {
			assert_int_equal(rc, 0);
			continue;
		}
		if (want) {
			assert_int_equal(rc, KR_ECYCLE);
			assert_int_equal(g.cycle[0], b);
			assert_int_equal(g.cycle[g.ncycle - 1], a);
			refused_from = a;
			refused_to = b;
			nref++;
		} else {
			assert_int_equal(rc, 1);
			adj[a * N + b] = 1;
		}
		assert_order(&g);
	}
	assert_true(nref > 0 && g.nedge > N);
	assert_int_equal(kr_cdg_init(&bulk, N), KR_OK);
	for (uint32_t e = 0; e < g.nedge; e++)
		kr_cdg_add(&bulk, g.from[e], g.to[e], 0);
	assert_int_equal(kr_cdg_order(&bulk), KR_OK);
	assert_order(&bulk);
	kr_cdg_add(&bulk, refused_from, refused_to, 0);
	assert_int_equal(kr_cdg_order(&bulk), KR_ECYCLE);
	assert_cycle(&bulk);
	kr_cdg_free(&bulk);
	kr_cdg_free(&g);
}

/* A cycle through 300000 nodes: every search is iterative. */
static void test_long_cycle_no_recursion(void **state)
{
	enum { N = 300000 };
	struct kr_cdg g;

	(void)state;
	assert_int_equal(kr_cdg_init(&g, N), KR_OK);
	for (uint32_t v = 0; v + 1 < N; v++)
		kr_cdg_add(&g, v, v + 1, 0);
	assert_int_equal(kr_cdg_order(&g), KR_OK);
	assert_true(kr_cdg_closes_cycle(&g, N - 1, 0));
	assert_int_equal(g.ncycle, N);
	/* against the order: the whole chain is searched and reordered */
	assert_int_equal(kr_cdg_insert(&g, N - 1, 0, 0), KR_ECYCLE);
	kr_cdg_add(&g, N - 1, 0, 0);
	assert_int_equal(kr_cdg_order(&g), KR_ECYCLE);
	assert_int_equal(g.ncycle, N);
	kr_cdg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedupe_and_tags),
		cmocka_unit_test(test_order_dag),
		cmocka_unit_test(test_order_cycle_witness),
		cmocka_unit_test(test_self_loop),
		cmocka_unit_test(test_insert_reorders_and_refuses),
		cmocka_unit_test(test_insert_matches_brute_force),
		cmocka_unit_test(test_long_cycle_no_recursion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
