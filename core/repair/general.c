/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* General repair: switches no intermediate serves are routed along live
 * distances, then the paths are classified and reshaped so that the detour
 * layers can prove them. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

/* Whether packets entering u from direction din and following the column
 * from there turn only where an anchored column may. */
static int onward_ok(const struct repair *r, uint32_t u, unsigned din,
		     uint32_t target)
{
	for (uint32_t step = 0; u != target; step++) {
		unsigned out = r->col[u];

		if (step > r->nsw || repair_next(r, u, out) == KR_NONE ||
		    !repair_turn_ok(r, u, din, out, target, step == 0))
			return 0;
		din = repair_arrival_dir(r, u, out);
		u = repair_next(r, u, out);
	}
	return 1;
}

/* Last resort: shortest live paths to any routed switch, layer by layer,
 * so each new entry points at a switch routed before it; in an anchored
 * column first only where the packets' onward turns are anchored too.
 * Routed switches with no unrouted neighbour can route nothing, so the
 * search starts from the others alone, in grid order (r->by_place). */
static void route_general(struct repair *r, uint32_t target, int anchored)
{
	const struct kr_fabric *f = r->f;
	uint32_t head = 0, tail = 0, left = 0;
	uint8_t *seed = r->seed;

	memset(seed, 0, r->nsw);
	for (uint32_t s = 0; s < r->nsw; s++) {
		if (r->lvl[s] != LVL_NONE || r->live[s] == UNREACHED)
			continue;
		left++;
		for (uint32_t l = r->link_start[s]; l < r->link_start[s + 1]; l++)
			if (r->lvl[r->link_to[l]] != LVL_NONE)
				seed[r->link_to[l]] = 1;
	}
	for (uint32_t i = 0; i < r->nsw && left; i++)
		if (seed[r->by_place[i]])
			r->queue[tail++] = r->by_place[i];
	while (left && head < tail) {
		uint32_t u = r->queue[head++];

		for (uint32_t l = r->link_start[u]; l < r->link_start[u + 1]; l++) {
			uint32_t v = r->link_to[l];
			unsigned p = r->link_port[l];

			if (r->lvl[v] != LVL_NONE ||
			    (anchored && !onward_ok(r, u, repair_port_dir(r, u, p),
						    target)))
				continue;
			r->lvl[v] = LVL_GENERAL;
			left--;
			r->cost[v] = r->cost[u] + 1;
			r->col[v] = (uint8_t)kr_port_num(f,
				(uint32_t)f->peer[f->port0[u] + p]);
			r->queue[tail++] = v;
		}
	}
}

/* Entries an anchored column re-pointed but no packet uses after all
 * return to dimension order: fewer LFT blocks change, no route does. */
static void restore_unused(struct repair *r, const struct rdest *x)
{
	if (!r->repointed)
		return;
	repair_mark_carriers(r, x->target);
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->carrier[s] == DEMOTED) {
			r->col[s] = r->bylid[(size_t)x->lid * r->nsw + s];
			r->lvl[s] = LVL_GOOD;
		}
	repair_walk(r, r->col, x, r->dist);
}

/* Whether the path nodes p[a..b] follow the dimension-order route to
 * p[b], the vi-th intermediate, from p[a] (R1, R2 of the thesis). */
static int follows_dor(const struct repair *r, const uint32_t *p, uint32_t a,
		       uint32_t b, uint32_t vi)
{
	for (uint32_t k = a; k < b; k++)
		if (r->first[(size_t)p[k] * r->ni + vi] != r->col[p[k]])
			return 0;
	return 1;
}

/* How many intermediates the path s's packets now take amounts to, by its
 * shape: the thesis' dimension-order path to one intermediate (two) and
 * on from there, whatever built it. The last intermediate must route on
 * unchanged (LVL_GOOD); the target itself does not count as one. */
static unsigned path_shape(struct repair *r, uint32_t s, uint32_t target)
{
	uint32_t *p = r->queue, n = 0, g = KR_NONE;

	for (uint32_t u = s; u != KR_NONE && n < r->nsw;
	     u = repair_next(r, u, r->col[u])) {
		if (g == KR_NONE && r->lvl[u] == LVL_GOOD)
			g = n;
		p[n++] = u;
		if (u == target)
			break;
	}
	if (g == KR_NONE || p[n - 1] != target)
		return LVL_GENERAL;
	for (uint32_t j = g; j + 1 < n; j++)
		if (r->isw_of[p[j]] != KR_NONE &&
		    follows_dor(r, p, 0, j, r->isw_of[p[j]]))
			return 1;
	for (uint32_t j = g; j + 1 < n; j++)
		for (uint32_t i = 1; i < j && r->isw_of[p[j]] != KR_NONE; i++)
			if (r->isw_of[p[i]] != KR_NONE &&
			    follows_dor(r, p, 0, i, r->isw_of[p[i]]) &&
			    follows_dor(r, p, i, j, r->isw_of[p[j]]))
				return 2;
	return LVL_GENERAL;
}

/* Each repaired switch counts the intermediates its path's shape shows
 * (see path_shape), up to the configured number: what a switch was routed
 * by need not be what its packets take, as the switches after it may be
 * routed through other intermediates. */
static void classify_paths(struct repair *r, uint32_t target)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->lvl[s] != LVL_GOOD && r->lvl[s] != LVL_NONE &&
		    r->dist[s] != UNREACHED) {
			unsigned k = path_shape(r, s, target);

			r->lvl[s] = (uint8_t)(k <= r->max_int ? k : LVL_GENERAL);
		}
}

/* Points s, and the rerouted switches after it on its dimension-order
 * path to the vi-th intermediate, along that path: their own paths then
 * end on it too. The entries it changed are listed in r->order (old ones
 * in r->seed) for unpoint. */
static uint32_t point_chain(struct repair *r, uint32_t s, uint32_t vi)
{
	uint32_t n = 0, in = r->isw[vi];

	for (uint32_t u = s; u != KR_NONE && u != in &&
	     (u == s || r->lvl[u] != LVL_GOOD) && n < r->nsw;
	     u = repair_next(r, u, r->col[u])) {
		r->order[n++] = u;
		r->seed[u] = r->col[u];
		r->col[u] = r->first[(size_t)u * r->ni + vi];
	}
	return n;
}

static void unpoint(struct repair *r, uint32_t n)
{
	while (n--)
		r->col[r->order[n]] = r->seed[r->order[n]];
}

/* A free column's switches whose packets take more intermediates than
 * allowed (each switch picked its intermediate alone, and the switches
 * after it picked others) are pointed anew, one at a time, along the
 * dimension-order path to the cheapest intermediate whose whole path then
 * keeps within the bound, with the rerouted switches on the way. Those
 * paths end at an unchanged switch, so no loop forms; a switch whose path
 * ran through them is looked at again in the next round. Anchored
 * columns keep their turns. */
static void reshape(struct repair *r, const struct rdest *x)
{
	for (int round = 0; round < 3; round++) {
		int changed = 0;

		for (uint32_t s = 0; s < r->nsw; s++) {
			uint32_t best = UNREACHED, pick = KR_NONE;

			if (r->lvl[s] != LVL_GENERAL || r->dist[s] == UNREACHED ||
			    s == x->target)
				continue;
			for (uint32_t i = 0; i < r->ni; i++) {
				uint32_t in = r->isw[i], n,
					 h = r->hops[(size_t)s * r->ni + i];

				if (h == HOPS_CUT || r->lvl[in] != LVL_GOOD ||
				    r->dist[in] == UNREACHED ||
				    h + r->dist[in] >= best)
					continue;
				n = point_chain(r, s, i);
				if (path_shape(r, s, x->target) <= r->max_int) {
					best = h + r->dist[in];
					pick = i;
				}
				unpoint(r, n);
			}
			if (pick == KR_NONE)
				continue;
			point_chain(r, s, pick);
			repair_walk(r, r->col, x, r->dist);
			classify_paths(r, x->target);
			changed = 1;
		}
		if (!changed)
			return;
	}
}

/* Repairs r->col for x in place; r->lvl says how each switch is routed. */
void repair_column(struct repair *r, const struct rdest *x,
		   enum col_mode mode)
{
	repair_walk(r, r->col, x, r->dist);
	repair_live_distances(r, x->target);
	repair_anchor_for(r, x, mode);
	r->anchored = mode == COL_ANCHORED || mode == COL_ONE_ANCHOR;
	if (r->anchored) {
		memset(r->carrier, 0, r->nsw);
		repair_mark_carriers(r, x->target);
		r->repointed = 0;
	}
	for (uint32_t s = 0; s < r->nsw; s++) {
		r->lvl[s] = r->dist[s] != UNREACHED ? LVL_GOOD : LVL_NONE;
		r->cost[s] = r->dist[s];
	}
	if (mode == COL_RING)
		repair_ring_column(r, x);
	/* two levels even when one is allowed: a switch routed through two
	 * intermediates often ends on a path of one's shape */
	for (unsigned lvl = 1; lvl <= 2 && r->max_int && mode != COL_GENERAL;
	     lvl++)
		repair_route_via_intermediates(r, lvl, x->target);
	if (r->anchored) {
		repair_unroute_incomplete(r, x);
		route_general(r, x->target, 1);
	}
	route_general(r, x->target, 0);
	repair_walk(r, r->col, x, r->dist);
	if (r->anchored)
		restore_unused(r, x);
	classify_paths(r, x->target);
	if (mode == COL_FREE || mode == COL_RING)
		reshape(r, x);
	if (repair_fit_sa(r, x))
		classify_paths(r, x->target);
}
