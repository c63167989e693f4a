/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Columns towards the switches of fat-tree subnets (s > 1), up*-down*.
 *
 * A packet to a subnet switch reaches its line by dimension order, but
 * then turns against the order at a router and still climbs and descends
 * inside the subnet, on links that other packets to subnet switches cross
 * in order: no SL2VL map (per in and out port) can keep these apart, and
 * such routes close credit loops (knsroute check found one on the 8-ary
 * 2-direct 3-indirect KNS). So these LIDs, and only these, are routed
 * up*-down* over the ranks of updn.c, on SL 15, whose VL on the fabric's
 * switch-to-switch links carries nothing else (slvl.c): routes that climb
 * and then only descend cannot close a loop among themselves.
 *
 * A switch with an all-down path to the target takes it (so a packet that
 * came down never climbs again), every other switch climbs towards the
 * neighbour of lower rank whose own route is shortest. */
#include "kr_route.h"

#include <stdlib.h>
#include <string.h>

#include "kr_updn.h"

#define FAR UINT32_MAX

struct ucol {
	const struct kr_fabric *f;
	const struct kr_topo *topo;
	uint32_t *rank, *comp, *lvl, *queue;
	uint32_t *down;		/* [nsw] hops of the all-down path, FAR */
	uint32_t *best;		/* [nsw] hops of the route */
	uint32_t *byrank;	/* [nsw] switches by rising rank */
};

static const uint32_t *sort_rank;

static int cmp_rank(const void *a, const void *b)
{
	uint32_t x = sort_rank[*(const uint32_t *)a];
	uint32_t y = sort_rank[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

/* down[u]: u reaches target by down hops only (towards higher ranks). */
static void down_paths(struct ucol *u, uint32_t target)
{
	const struct kr_fabric *f = u->f;
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < f->nsw; s++)
		u->down[s] = FAR;
	u->down[target] = 0;
	u->queue[tail++] = target;
	while (head < tail) {
		uint32_t v = u->queue[head++];

		for (unsigned p = 1; p <= f->nports[v]; p++) {
			uint32_t w = kr_updn_next(f, u->topo, v, p);

			if (w != KR_NONE && u->rank[w] < u->rank[v] &&
			    u->down[w] == FAR) {
				u->down[w] = u->down[v] + 1;
				u->queue[tail++] = w;
			}
		}
	}
}

/* The port of sw's route; best[] of lower ranks must be known. */
static unsigned next_port(struct ucol *u, uint32_t sw)
{
	const struct kr_fabric *f = u->f;
	unsigned port = KR_NO_PORT;

	u->best[sw] = u->down[sw];
	for (unsigned p = 1; p <= f->nports[sw]; p++) {
		uint32_t w = kr_updn_next(f, u->topo, sw, p);

		if (w == KR_NONE)
			continue;
		if (u->down[sw] != FAR) {
			if (u->rank[w] > u->rank[sw] && u->down[w] + 1 == u->down[sw])
				return p;
		} else if (u->rank[w] < u->rank[sw] && u->best[w] != FAR &&
			   (port == KR_NO_PORT || u->best[w] + 1 < u->best[sw])) {
			u->best[sw] = u->best[w] + 1;
			port = p;
		}
	}
	return port;
}

static void column(struct ucol *u, struct kr_tables *t, uint32_t target,
		   unsigned lid)
{
	down_paths(u, target);
	for (uint32_t i = 0; i < u->f->nsw; i++) {
		uint32_t sw = u->byrank[i];

		if (sw == target) {
			u->best[sw] = 0;
			t->lft[(size_t)sw * t->stride + lid] = 0;
			continue;
		}
		t->lft[(size_t)sw * t->stride + lid] = (uint8_t)next_port(u, sw);
	}
}

static void ucol_free(struct ucol *u)
{
	free(u->rank);
	free(u->comp);
	free(u->lvl);
	free(u->queue);
	free(u->down);
	free(u->best);
	free(u->byrank);
}

int kr_route_subnet_switches(const struct kr_fabric *f,
			     const struct kr_topo *topo, struct kr_tables *t)
{
	size_t n = (size_t)f->nsw + 1;
	struct ucol u = { .f = f, .topo = topo };

	u.rank = malloc(n * sizeof(*u.rank));
	u.comp = malloc(n * sizeof(*u.comp));
	u.lvl = malloc(n * sizeof(*u.lvl));
	u.queue = malloc(n * sizeof(*u.queue));
	u.down = malloc(n * sizeof(*u.down));
	u.best = malloc(n * sizeof(*u.best));
	u.byrank = malloc(n * sizeof(*u.byrank));
	if (!u.rank || !u.comp || !u.lvl || !u.queue || !u.down || !u.best ||
	    !u.byrank) {
		ucol_free(&u);
		return KR_ENOMEM;
	}
	kr_updn_ranks(f, topo, kr_updn_sm_switch(f, t->sm_lid), u.rank,
		      u.comp, u.lvl, u.queue);
	for (uint32_t s = 0; s < f->nsw; s++)
		u.byrank[s] = s;
	sort_rank = u.rank;
	qsort(u.byrank, f->nsw, sizeof(*u.byrank), cmp_rank);
	for (uint32_t s = 0; s < f->nsw; s++) {
		unsigned nlid, lid = kr_lid_range(f, f->port0[s], &nlid);

		if (topo->sw_pos[s] != KR_NONE || !lid)
			continue;
		for (unsigned j = 0; j < nlid && lid + j < t->stride; j++)
			column(&u, t, s, lid + j);
	}
	ucol_free(&u);
	return KR_OK;
}
