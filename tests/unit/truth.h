/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Test support: turns the generator's ground truth (positions, crossbar
 * dims and lines) into a complete struct kr_topo (port directions, CA slots,
 * crossbar table), derived from the graph and the truth alone, so routing
 * can be tested without the recognizer. Also a reference path walker. */
#ifndef KR_TEST_TRUTH_H
#define KR_TEST_TRUTH_H

#include "kr.h"

int truth_complete(const struct kr_fabric *f, struct kr_topo *t);

/* Generates o's fabric with LIDs and its completed truth. */
void truth_gen(const struct kr_gen_opts *o, struct kr_fabric *f,
	       struct kr_topo *t);

/* Switch-level BFS distances from switch src ([nsw], UINT32_MAX if
 * unreachable). Caller frees. */
uint32_t *truth_bfs(const struct kr_fabric *f, uint32_t src);

/* Follows the LFTs from CA port slot src to dlid: returns the number of
 * switch-to-switch hops, or -1 when the packet is lost or loops. When load is
 * not NULL, every inter-switch hop adds 1 to load[sending port slot]. */
int truth_walk(const struct kr_fabric *f, const struct kr_tables *t,
	       uint32_t src, unsigned dlid, uint32_t *load);

/* Every CA reaches every LID over a shortest path (asserts); returns the
 * per-port load of all CA-to-CA paths (caller frees). */
uint32_t *truth_assert_minimal(const struct kr_fabric *f,
			       const struct kr_tables *r);

/* The node of f named name (the generator names nodes "switch(1,2)",
 * "router(0,1)", ...); fails the test when there is none. */
uint32_t truth_node_named(const struct kr_fabric *f, const char *name);

#endif
