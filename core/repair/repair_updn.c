/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The detour layer's routes: up*-down* over a BFS spanning forest, one
 * destination at a time.
 *
 * Ranks order the switches (BFS level from a root, then id); a hop towards
 * a lower rank is "up". Every route is some up hops, then only down hops,
 * so on a VL that carries nothing else no dependency leads from a down
 * channel back to an up one and the channels of each kind are ordered by
 * rank: no cycle is possible, whatever the faults. The root is the SM's
 * switch where the SM is known (kr_updn_sm_switch), so that the SA's
 * traffic, which rides this VL, needs no down-then-up turn. */
#include "repair_int.h"

#include <stdlib.h>

#include "kr_updn.h"

int repair_updn_ranks(struct repair *r)
{
	r->sm_sw = kr_updn_sm_switch(r->f, r->t->sm_lid);
	kr_updn_ranks(r->f, r->topo, r->sm_sw, r->rank, r->comp, r->cnt,
		      r->queue);
	if (!(r->up_port = malloc(r->nsw + 1)))
		return KR_ENOMEM;
	for (uint32_t v = 0; v < r->nsw; v++)	/* r->cnt: the BFS levels */
		r->up_port[v] = (uint8_t)kr_updn_up_port(r->f, r->topo, r->cnt, v);
	return KR_OK;
}

/* Points every unrouted neighbour v of u that satisfies the rank test at
 * u, and queues it. */
static uint32_t reach(struct repair *r, uint8_t *col, uint32_t u, int down,
		      uint32_t tail)
{
	const struct kr_fabric *f = r->f;

	for (unsigned p = 1; p <= f->nports[u]; p++) {
		uint32_t v = repair_next(r, u, p), vs;

		if (v == KR_NONE || r->dist[v] != UNREACHED)
			continue;
		/* v -> u is a down hop when v is nearer the root */
		if ((r->rank[v] < r->rank[u]) != down)
			continue;
		vs = (uint32_t)f->peer[f->port0[u] + p];
		col[v] = (uint8_t)kr_port_num(f, vs);
		r->dist[v] = r->dist[u] + 1;
		r->queue[tail++] = v;
	}
	return tail;
}

/* The first parent the searches met is as good as any other one hop
 * nearer that keeps the route up*, then down*: choosing among them by
 * destination spreads the layer's destinations over the links instead of
 * funnelling them all through the first switches of the BFS. r->queue
 * holds the tail switches with a route, r->lvl 1 for those going down. */
static void spread(struct repair *r, const struct rdest *x, uint8_t *col,
		   uint32_t tail)
{
	const struct kr_fabric *f = r->f;

	for (uint32_t i = 1; i < tail; i++) {
		uint32_t v = r->queue[i], n = 0, pick = 0;
		int down = r->lvl[v] == 1;

		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				pick = (uint32_t)(((uint64_t)(x->lid * 2654435761u) ^ v) % n);
			for (unsigned p = 1; p <= f->nports[v]; p++) {
				uint32_t u = repair_next(r, v, p);

				if (u == KR_NONE || r->dist[u] + 1 != r->dist[v] ||
				    (r->rank[v] < r->rank[u]) != down ||
				    (down && r->lvl[u] != 1))
					continue;
				if (pass && !pick--) {
					col[v] = (uint8_t)p;
					break;
				}
				n += !pass;
			}
		}
	}
}

/* First the switches that reach the target by down hops alone (a reverse
 * BFS over down hops), then the rest climb to the nearest of those: each
 * route is up*, then down*, and follows routes already set. */
void repair_updn_column(struct repair *r, const struct rdest *x, uint8_t *col)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < r->nsw; s++) {
		r->dist[s] = UNREACHED;
		r->lvl[s] = 0;
		if (s != x->target)
			col[s] = KR_NO_PORT;
	}
	r->dist[x->target] = 0;
	r->queue[tail++] = x->target;
	while (head < tail)
		tail = reach(r, col, r->queue[head++], 1, tail);
	for (uint32_t i = 0; i < tail; i++)
		r->lvl[r->queue[i]] = 1;	/* reaches the target going down */
	for (head = 0; head < tail;)
		tail = reach(r, col, r->queue[head++], 0, tail);
	spread(r, x, col, tail);
}
