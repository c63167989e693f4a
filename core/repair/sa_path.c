/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The SM node's routes in a repaired column, made to fit the up*-down*
 * VL they ride where they would close a loop there (see sa_deps.c):
 * instead of moving the destination off its SL, the switches on their
 * way are pointed along a shortest live path, which only descends from
 * the SM's switch (or, to the SM's own LID, only climbs). Other switches'
 * packets that joined that way follow it too; all of them are routed
 * anew, so admission sees their dependencies. */
#include "kr_repair.h"

#include "repair_int.h"

/* The port of u to a live neighbour one BFS level nearer the root (the
 * lowest rank of them), 0: none (u is the root, or in another tree). */
static unsigned port_up(const struct repair *r, uint32_t u)
{
	unsigned best = 0;
	uint32_t best_rank = r->rank[u];

	for (unsigned p = 1; p <= r->f->nports[u]; p++) {
		uint32_t v = repair_next(r, u, p);

		if (v != KR_NONE && r->rank[v] / r->nsw + 1 == r->rank[u] / r->nsw &&
		    r->rank[v] < best_rank) {
			best = p;
			best_rank = r->rank[v];
		}
	}
	return best;
}

/* Points every switch whose next hop towards the SM's LID does not climb
 * at its parent: routes to the root then only climb. */
static void climb_to_root(struct repair *r, uint8_t *fixed)
{
	for (uint32_t u = 0; u < r->nsw; u++) {
		uint32_t v = repair_next(r, u, r->col[u]);
		unsigned p;

		if (u == r->sm_sw || r->comp[u] != r->comp[r->sm_sw] ||
		    (v != KR_NONE && r->rank[v] < r->rank[u]) ||
		    !(p = port_up(r, u)))
			continue;
		r->col[u] = (uint8_t)p;
		fixed[u] = 1;
	}
}

/* ok[w]: w's route along r->col only descends to x's target (ranks
 * rise hop by hop); switches nearest the target first. */
static void descending(struct repair *r, const struct rdest *x, uint8_t *ok)
{
	uint32_t n = repair_by_distance(r, r->dist);

	for (uint32_t u = 0; u < r->nsw; u++)
		ok[u] = u == x->target;
	while (n--) {
		uint32_t u = r->order[n], v = repair_next(r, u, r->col[u]);

		if (u != x->target && v != KR_NONE)
			ok[u] = ok[v] && r->rank[v] > r->rank[u];
	}
}

/* The fewest entries from the SM's switch on that make its route only
 * descend: a breadth-first search down the ranks to the nearest switch
 * whose own route does, and the switches before it pointed that way. */
static void descend_from_root(struct repair *r, const struct rdest *x,
			      uint8_t *fixed)
{
	uint8_t *ok = r->moved;	/* scratch until mark_repaired */
	uint32_t *from = r->cost, head = 0, tail = 0, w = KR_NONE;

	repair_walk(r, r->col, x, r->dist);
	descending(r, x, ok);
	for (uint32_t u = 0; u < r->nsw; u++)
		from[u] = UNREACHED;
	from[r->sm_sw] = r->sm_sw;
	r->queue[tail++] = r->sm_sw;
	while (head < tail && w == KR_NONE) {
		uint32_t u = r->queue[head++];

		if (ok[u]) {
			w = u;
			break;
		}
		for (unsigned p = 1; p <= r->f->nports[u]; p++) {
			uint32_t v = repair_next(r, u, p);

			if (v != KR_NONE && from[v] == UNREACHED &&
			    r->rank[v] > r->rank[u]) {
				from[v] = u;
				r->queue[tail++] = v;
			}
		}
	}
	for (uint32_t v = w; v != KR_NONE && v != r->sm_sw; v = from[v]) {
		uint32_t u = from[v];

		for (unsigned p = 1; p <= r->f->nports[u]; p++)
			if (repair_next(r, u, p) == v) {
				r->col[u] = (uint8_t)p;
				break;
			}
		fixed[u] = 1;
	}
}

/* Whether u's route along r->col meets a switch marked in fixed. */
static bool meets(const struct repair *r, const struct rdest *x,
		  const uint8_t *fixed, uint32_t u)
{
	for (uint32_t n = 0; u != KR_NONE && u != x->target && n <= r->nsw; n++) {
		if (fixed[u])
			return true;
		u = repair_next(r, u, r->col[u]);
	}
	return false;
}

bool repair_fit_sa(struct repair *r, const struct rdest *x)
{
	uint8_t *fixed = r->seed;	/* free scratch after route_general */

	if (!repair_sa_breaks_ranks(r, x) || !repair_sa_refuses(r, x))
		return false;
	for (uint32_t u = 0; u < r->nsw; u++)
		fixed[u] = 0;
	if (x->lid == r->t->sm_lid)
		climb_to_root(r, fixed);
	else
		descend_from_root(r, x, fixed);
	for (uint32_t u = 0; u < r->nsw; u++)
		if (r->lvl[u] == LVL_GOOD && meets(r, x, fixed, u))
			r->lvl[u] = LVL_GENERAL;
	repair_walk_rerouted(r, x);
	return true;
}
