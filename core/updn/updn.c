/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Up*-down* ranks: a BFS level from a root in each component, then the id
 * (switch ids follow GUID order, whatever the input's: kr_fabric.h).
 * The root is the SM's switch where the SM is known: the SA's traffic
 * rides the same VL along the unicast routes, and a shortest route from or
 * to the root only descends or only climbs. Elsewhere it is the
 * best-connected switch (the lowest GUID among equals, so that any
 * capture of the same fabric, whatever its node order, gets the same
 * levels). A hop towards a lower rank is "up". Routes that climb and then
 * only descend, on a VL nothing else uses, cannot close a credit loop
 * (repair_updn.c, mcast.c and docs/design.md say why). */
#include "kr_updn.h"

#define UNSEEN UINT32_MAX

static unsigned switch_degree(const struct kr_fabric *f,
			      const struct kr_topo *topo, uint32_t s)
{
	unsigned n = 0;

	for (unsigned p = 1; p <= f->nports[s]; p++)
		n += kr_updn_next(f, topo, s, p) != KR_NONE;
	return n;
}

/* BFS from root over live switch links; levels into lvl, visit order into
 * queue[from ..]; returns the new end of the queue. */
static uint32_t bfs(const struct kr_fabric *f, const struct kr_topo *topo,
		    uint32_t root, uint32_t *lvl, uint32_t *queue, uint32_t from)
{
	uint32_t head = from, tail = from;

	lvl[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (unsigned p = 1; p <= f->nports[u]; p++) {
			uint32_t v = kr_updn_next(f, topo, u, p);

			if (v != KR_NONE && lvl[v] == UNSEEN) {
				lvl[v] = lvl[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	return tail;
}

uint32_t kr_updn_sm_switch(const struct kr_fabric *f, unsigned sm_lid)
{
	uint32_t slot, node;

	if (!sm_lid || sm_lid > f->max_lid ||
	    (slot = f->lid_port[sm_lid]) == KR_NONE)
		return KR_NONE;
	node = f->owner[slot];
	if (kr_is_switch(f, node))
		return node;
	if (f->peer[slot] < 0 || !kr_is_switch(f, f->owner[f->peer[slot]]))
		return KR_NONE;
	return f->owner[f->peer[slot]];
}

void kr_updn_ranks(const struct kr_fabric *f, const struct kr_topo *topo,
		   uint32_t prefer, uint32_t *rank, uint32_t *comp,
		   uint32_t *lvl, uint32_t *queue)
{
	uint32_t nsw = f->nsw, done = 0;

	for (uint32_t s = 0; s < nsw; s++)
		lvl[s] = rank[s] = UNSEEN;
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t end, root = KR_NONE;
		unsigned best = 0;

		if (rank[s] != UNSEEN)
			continue;
		/* find the component, pick its root, then level it from there */
		end = bfs(f, topo, s, lvl, queue, done);
		for (uint32_t i = done; i < end; i++) {
			uint32_t q = queue[i];
			unsigned deg = switch_degree(f, topo, q);

			if (q == prefer) {
				root = q;
				break;
			}
			if (root == KR_NONE || deg > best ||
			    (deg == best && f->guid[q] < f->guid[root])) {
				best = deg;
				root = q;
			}
		}
		for (uint32_t i = done; i < end; i++)
			lvl[queue[i]] = UNSEEN;
		end = bfs(f, topo, root, lvl, queue, done);
		for (uint32_t i = done; i < end; i++) {
			uint32_t u = queue[i];

			rank[u] = lvl[u] * nsw + u;
			comp[u] = root;
		}
		done = end;
	}
}

unsigned kr_updn_up_port(const struct kr_fabric *f, const struct kr_topo *topo,
			 const uint32_t *lvl, uint32_t v)
{
	unsigned best = 0;
	uint32_t parent = KR_NONE;

	for (unsigned p = 1; p <= f->nports[v]; p++) {
		uint32_t u = kr_updn_next(f, topo, v, p);

		if (u == KR_NONE || lvl[u] + 1 != lvl[v] ||
		    (parent != KR_NONE && f->guid[u] >= f->guid[parent]))
			continue;
		parent = u;
		best = p;
	}
	return best;
}
