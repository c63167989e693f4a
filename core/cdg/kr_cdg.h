/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Channel dependency graph: nodes are channels (a sending port slot and a
 * VL: slot * 16 + vl), edges say "a packet holding the first channel waits
 * for the second". Credit loops are cycles.
 *
 * Two ways to use it:
 * - bulk: kr_cdg_add every dependency (deduplicated, no checking), then
 *   kr_cdg_order once: a topological order, or KR_ECYCLE and a witness;
 * - incremental, once ordered: kr_cdg_insert keeps the order as edges come
 *   (Pearce and Kelly's dynamic topological sort: only the nodes whose
 *   positions lie between the new edge's ends are searched and reordered)
 *   and refuses an edge that would close a cycle, so a repair step can try
 *   a detour's dependencies one at a time. kr_cdg_closes_cycle asks without
 *   adding.
 * Each edge keeps a tag from its first addition (the checker stores the
 * SLID << 16 | DLID of a path that creates it). */
#ifndef KR_CDG_INT_H
#define KR_CDG_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kr_base.h"
#include "kr_index.h"

struct kr_cdg {
	uint32_t nnode;
	uint32_t nedge, cap;
	uint32_t *from, *to, *tag;	/* [cap] */
	uint32_t *next_out, *next_in;	/* [cap] edge lists, KR_NONE ends */
	uint32_t *head_out, *head_in;	/* [nnode] */
	struct kr_index edges;	/* edge ids by (from, to): 4 bytes a slot,
				 * as the ends are in from[] and to[] */

	uint32_t *ord;		/* [nnode] topological position */
	bool ordered;		/* ord is valid for every edge */

	uint32_t *mark;		/* [nnode] scratch, == stamp when visited */
	uint32_t *aux;		/* [nnode] scratch: in-degrees, parents */
	uint32_t *stack;	/* [nnode] scratch: visit lists, BFS queue */
	uint32_t *todo;		/* [nnode] scratch: DFS stack */
	uint32_t stamp;

	uint32_t *cycle;	/* last cycle found: cycle[i] -> cycle[i+1], */
	uint32_t ncycle;	/* the last one back to cycle[0] */
};

int kr_cdg_init(struct kr_cdg *g, uint32_t nnode);
void kr_cdg_free(struct kr_cdg *g);	/* fine on a zeroed struct */

/* 1 when added, 0 when already there, KR_ENOMEM. Drops the order. */
int kr_cdg_add(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag);
/* Edge id of from -> to, or KR_NONE. */
uint32_t kr_cdg_find(const struct kr_cdg *g, uint32_t from, uint32_t to);

/* Orders every node. KR_ECYCLE when the graph has a cycle: g->cycle is
 * then a shortest cycle through one node of a cyclic part. */
int kr_cdg_order(struct kr_cdg *g);

/* Needs an order (kr_cdg_order succeeded, or no kr_cdg_add since init).
 * Adds from -> to and repairs the order: 1, or 0 when the edge was there
 * already; KR_ECYCLE, without adding, when
 * it would close a cycle: g->cycle is then to ... from (the new edge
 * closes it). KR_EINVAL without an order, KR_ENOMEM. */
int kr_cdg_insert(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag);
/* Removes the edges added after the first n (newest first), so that a
 * batch of insertions can be undone; the order stays valid. */
void kr_cdg_truncate(struct kr_cdg *g, uint32_t n);
/* Whether from -> to would close a cycle (needs an order; fills g->cycle
 * like kr_cdg_insert). */
bool kr_cdg_closes_cycle(struct kr_cdg *g, uint32_t from, uint32_t to);

#endif
