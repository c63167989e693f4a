/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The long way round a broken torus ring (as torus-2QoS routes link
 * faults): a switch whose dimension-order way along a ring crosses a dead
 * link goes the other way round to the destination's coordinate instead.
 *
 * Why this keeps every SL and VL: the packet still fixes the dimensions
 * in order, so dependencies between dimensions only climb, and within the
 * broken ring every channel lies on the path the ring became, which closes
 * no cycle on any VL. Each switch decides alone, yet the column stays a
 * loop-free in-tree: a ring with one break leaves each switch exactly one
 * live way to the coordinate, and the switches along that way have the
 * rest of it as theirs. A ring broken twice leaves some switches neither
 * way; they stay cut for the intermediates. */
#include "kr_repair.h"

#include "kr_route.h"
#include "repair_int.h"

static bool is_live_dir(const struct repair *r, uint32_t u, unsigned p,
			unsigned dir)
{
	return r->topo->port_dir[r->f->port0[u] + p] == dir &&
	       repair_next(r, u, p) != KR_NONE;
}

/* The n-th live port of switch u pointing in direction dir (a grid
 * direction), of those there are; KR_NO_PORT: none. */
static unsigned live_port(const struct repair *r, uint32_t u, unsigned dir,
			  unsigned n)
{
	unsigned count = 0;

	for (unsigned p = 1; p <= r->f->nports[u]; p++)
		count += is_live_dir(r, u, p, dir);
	if (!count)
		return KR_NO_PORT;
	n %= count;
	for (unsigned p = 1; p <= r->f->nports[u]; p++)
		if (is_live_dir(r, u, p, dir) && n-- == 0)
			return p;
	return KR_NO_PORT;
}

/* Whether the way from u in direction dir reaches coordinate c of
 * dimension dir / 2 over live links. */
static bool way_live(const struct repair *r, uint32_t u, unsigned dir,
		     unsigned c)
{
	const struct kr_topo *t = r->topo;

	for (unsigned n = 0; kr_topo_coord(t, t->sw_pos[u], dir / 2) != c; n++) {
		unsigned p = live_port(r, u, dir, 0);

		if (p == KR_NO_PORT || n >= t->k[dir / 2])
			return false;
		u = repair_next(r, u, p);
	}
	return true;
}

/* The dimension dimension-order routing corrects next at grid switch u
 * on the way to grid position pos, KR_NO_DIM: none is left. */
static unsigned next_dim(const struct repair *r, const unsigned *order,
			 uint32_t u, uint32_t pos)
{
	const struct kr_topo *t = r->topo;

	for (unsigned i = 0; i < t->ndim; i++)
		if (kr_topo_coord(t, t->sw_pos[u], order[i]) !=
		    kr_topo_coord(t, pos, order[i]))
			return order[i];
	return KR_NO_DIM;
}

void repair_ring_column(struct repair *r, const struct rdest *x)
{
	const struct kr_topo *t = r->topo;
	uint32_t pos = t->sw_pos[x->target];
	unsigned order[KR_MAX_DIM];
	uint32_t base = r->f->lid[kr_port_by_lid(r->f, x->lid)];

	if (t->family != KR_FAMILY_TORUS || pos == KR_NONE)
		return;
	kr_route_order(t, r->c, (x->lid - base) % r->plan->nvn, order);
	for (uint32_t u = 0; u < r->nsw; u++) {
		unsigned d, c, p;
		bool plus;

		if (r->dist[u] != UNREACHED || t->sw_pos[u] == KR_NONE ||
		    (d = next_dim(r, order, u, pos)) == KR_NO_DIM ||
		    !t->wrap[d] || t->k[d] < 3)
			continue;
		c = kr_topo_coord(t, pos, d);
		plus = way_live(r, u, 2 * d, c);
		if (plus == way_live(r, u, 2 * d + 1, c))
			continue;	/* both: cut later; neither: split */
		if ((p = live_port(r, u, 2 * d + !plus, x->lid)) != KR_NO_PORT)
			r->col[u] = (uint8_t)p;
	}
	repair_walk_rerouted(r, x);
}
