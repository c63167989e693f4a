/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Dimension-order routing for KNS (Hybrid-DOR, thesis 4.4.1) and for tori
 * and meshes, one LFT row at a time (MiKANT: mikant.c).
 *
 * Every destination LID is reduced to a target switch and the port that
 * delivers at that switch (port 0 for the switch itself). A KNS crossbar is
 * a target "on a line": routers reach it through the line's routers, so its
 * own dimension is ignored on the way ("masked"). At a switch the first
 * dimension in the LID's order where the switch and the target differ picks
 * a port group: a direction of a torus ring, a router's crossbar, or a
 * crossbar's router. The destinations of a group of parallel links are
 * shared out so that each link carries about the same CA-to-CA traffic
 * (row_parallel). */
#include "kr_route.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route_int.h"

/* row_scratch's: a router's own, also in a second thread's. */
static void row_scratch_free(struct router *b)
{
	free(b->portof);
	free(b->multi);
	free(b->gof);
	free(b->wof);
	free(b->plid);
	free(b->pcount);
	free(b->pload);
}

static void router_free(struct router *r)
{
	row_scratch_free(r);
	free(r->cls);
	free(r->dcl);
	free(r->lstart);
	free(r->llid);
	free(r->lport);
	free(r->is_ca);
	free(r->coord);
	free(r->gstart);
	for (unsigned d = 0; d < KR_MAX_DIM; d++)
		free(r->through[d]);
	free(r->gport);
	free(r->dok);
	free(r->uok);
}

#define TIE 0xff

/* The way from place c towards v != c along a line of k places: 0 up
 * (c + 1), 1 down, TIE where both ways round a ring are equally short
 * (grid_group splits those by parity). */
static unsigned line_way(unsigned c, unsigned v, unsigned k, bool ring)
{
	unsigned fwd = (v + k - c) % k, bwd = k - fwd;

	if (!ring)
		return v < c;
	return fwd == bwd ? TIE : bwd < fwd;
}

/* This row's direction group (2d or 2d+1) from coordinate c towards each
 * v in every dimension d, or TIE where both ways are equally short. */
static void row_directions(struct router *r, const uint8_t *sc)
{
	const struct kr_topo *t = r->t;

	for (unsigned d = 0; d < t->ndim; d++)
		for (unsigned v = 0; v < t->k[d]; v++) {
			unsigned w = line_way(sc[d], v, t->k[d], t->wrap[d]);

			r->dirtab[d][v] = (uint8_t)(w == TIE ? TIE : 2 * d + w);
		}
}

/* The group to use at grid switch sw (coordinates sc) for destination x, or
 * -1 when sw is on the target crossbar's line (go up to it). */
static int grid_group(const struct router *r, const uint8_t *sc,
		      const struct dest *x)
{
	const struct kr_topo *t = r->t;
	const uint8_t *tc = r->coord + (size_t)x->tpos * t->ndim;
	const unsigned *ord = r->order[x->order];

	for (unsigned i = 0; i < t->ndim; i++) {
		unsigned e = ord[i], g;

		if (e == x->mask || tc[e] == sc[e])
			continue;
		if (t->family == KR_FAMILY_KNS)
			return (int)(2 * e);
		g = r->dirtab[e][tc[e]];
		return (int)(g != TIE ? g : 2 * e + ((sc[e] + tc[e] + x->parity) & 1));
	}
	return -1;
}

static uint32_t group_size(const struct router *r, uint32_t sw, unsigned g)
{
	size_t gi = (size_t)sw * r->ngroup + g;

	return r->gstart[gi + 1] - r->gstart[gi];
}

/* Fat-tree routing (thesis 4.4.2) at stage e, order w, towards the router
 * with coordinate c on the line: down by c's digit e when c is below w
 * (c's digits above e are w's digits from e on), else up by the same
 * digit. */
static unsigned to_router(unsigned a, unsigned e, uint32_t w, unsigned c)
{
	uint32_t blk = 1;

	for (unsigned j = 0; j < e; j++)
		blk *= a;
	return c / (blk * a) == w / blk ? route_digit(c, a, e) : a + route_digit(c, a, e);
}

static uint32_t group_size(const struct router *r, uint32_t sw, unsigned g);

static int has(const uint64_t *set, unsigned c)
{
	return set[c >> 6] >> (c & 63) & 1;
}

/* The switch behind group g of sw (its first port), or KR_NONE. */
static uint32_t group_nb(const struct router *r, uint32_t sw, unsigned g)
{
	const struct kr_fabric *f = r->f;

	if (!group_size(r, sw, g))
		return KR_NONE;
	return f->owner[f->peer[f->port0[sw] +
			r->gport[r->gstart[(size_t)sw * r->ngroup + g]]]];
}

/* Faults inside subnets are repaired there: dok, uok say which routers of
 * its line each subnet switch still reaches down the digits' path, or up
 * any parent and then down; on a pristine subnet both are everything
 * below it and every router of the line. */
static int subnet_reach(struct router *r)
{
	const struct kr_topo *t = r->t;
	const struct kr_fabric *f = r->f;
	unsigned a = t->arity;

	r->dok = calloc((size_t)f->nsw + 1, sizeof(*r->dok));
	r->uok = calloc((size_t)f->nsw + 1, sizeof(*r->uok));
	if (!r->dok || !r->uok)
		return KR_ENOMEM;
	for (unsigned e = 0; e < t->s; e++)
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (unsigned g = 0; t->sw_pos[sw] == KR_NONE &&
					     t->sw_stage[sw] == e && g < a; g++) {
				uint32_t nb = group_nb(r, sw, g);

				if (nb == KR_NONE)
					continue;
				if (!e) {
					unsigned c = kr_topo_coord(t, t->sw_pos[nb],
								   t->sw_xdim[sw]);

					r->dok[sw][c >> 6] |= 1ull << (c & 63);
				} else {
					for (unsigned i = 0; i < 4; i++)
						r->dok[sw][i] |= r->dok[nb][i];
				}
			}
	for (unsigned e = t->s; e-- > 0;)
		for (uint32_t sw = 0; sw < f->nsw; sw++) {
			if (t->sw_pos[sw] != KR_NONE || t->sw_stage[sw] != e)
				continue;
			memcpy(r->uok[sw], r->dok[sw], sizeof(r->uok[sw]));
			for (unsigned g = a; g < 2 * a; g++) {
				uint32_t nb = group_nb(r, sw, g);

				for (unsigned i = 0; i < 4 && nb != KR_NONE; i++)
					r->uok[sw][i] |= r->uok[nb][i];
			}
		}
	return KR_OK;
}

/* Down by the digit where the router is still reached below, else up to
 * the parent the digit names or, if that one cannot reach it any more,
 * the next one that can (a switch whose own way down broke only gets
 * packets that climb: its parents see that it cannot deliver); no group
 * left: the digit's, maybe without a link (kr_repair's turn). */
static unsigned subnet_group(const struct router *r, uint32_t sw,
			     const struct dest *x)
{
	const struct kr_topo *t = r->t;
	unsigned d = t->sw_xdim[sw], a = t->arity, e = t->sw_stage[sw];
	/* subnet switches get their columns from route_updn.c */
	unsigned c = x->mask == d ? 0 : r->coord[(size_t)x->tpos * t->ndim + d];
	unsigned g = to_router(a, e, t->sw_order[sw], c);

	if (has(r->dok[sw], c))
		return g;
	for (unsigned i = 0; i < a; i++) {
		unsigned up = a + (route_digit(c, a, e) + i) % a;
		uint32_t nb = group_nb(r, sw, up);

		if (nb != KR_NONE && has(r->uok[nb], c))
			return up;
	}
	return g;
}

/* The group class x leaves switch sw by. */
static unsigned class_group(const struct router *r, uint32_t sw,
			    const uint8_t *sc, unsigned xdim,
			    const struct dest *x)
{
	const struct kr_topo *t = r->t;
	int g;

	if (sc) {
		g = grid_group(r, sc, x);
		return g >= 0 ? (unsigned)g : 2u * x->mask;
	}
	if (t->s > 1)
		return subnet_group(r, sw, x);
	/* a crossbar: to the router on its line that matches the target in
	 * its dimension; a crossbar target of this dimension on another line
	 * is never reached this way (DOR climbs to a crossbar only on its own
	 * line), it gets coordinate 0 of the line to keep every entry defined */
	return xdim == x->mask ? 0 : r->coord[(size_t)x->tpos * t->ndim + xdim];
}

/* One step from c towards t along a line of k places, as grid_group
 * goes: a tie by the parity of c + t + parity (odd: down). */
static unsigned line_step(unsigned c, unsigned t, unsigned k, bool ring,
			  unsigned parity)
{
	unsigned w = line_way(c, t, k, ring);

	if (w == TIE)
		w = (c + t + parity) & 1;
	return w ? (c + k - 1) % k : (c + 1) % k;
}

/* r->through: for each target t, place c and tie parity of a dimension,
 * the places whose way to t passes c and leaves it (c itself included). */
static int build_through(struct router *r)
{
	const struct kr_topo *t = r->t;

	for (unsigned j = 0; j < r->norder; j++)
		for (unsigned i = 0, prod = 1; i < t->ndim; i++) {
			r->before[j][r->order[j][i]] = prod;
			prod *= t->k[r->order[j][i]];
		}
	for (unsigned d = 0; d < t->ndim; d++) {
		unsigned k = t->k[d];
		uint32_t *n = calloc((size_t)k * k * 2, sizeof(*n));

		if (!n)
			return KR_ENOMEM;
		r->through[d] = n;
		for (unsigned to = 0; to < k; to++)
			for (unsigned par = 0; par < 2; par++)
				for (unsigned x = 0; x < k; x++)
					for (unsigned c = x; c != to;
					     c = line_step(c, to, k, t->wrap[d], par))
						n[((size_t)to * k + c) * 2 + par]++;
	}
	return KR_OK;
}

/* The CA-to-CA traffic towards x that leaves grid switch sc by dimension
 * e, per CA of a switch, on the pristine grid: sources anywhere in the
 * dimensions x's order corrects before e, on sc's line of e behind sc,
 * and at sc in the later ones. */
static uint64_t draw(const struct router *r, const uint8_t *sc,
		     const struct dest *x, unsigned e)
{
	const struct kr_topo *t = r->t;
	const uint8_t *tc = r->coord + (size_t)x->tpos * t->ndim;
	uint64_t n = r->through[e][((size_t)tc[e] * t->k[e] + sc[e]) * 2 +
				   x->parity];

	return n * r->before[x->order][e];
}

/* portof[] for this row; returns whether any class needs parallel links. */
static int row_classes(struct router *r, uint32_t sw, const uint8_t *sc,
		       unsigned xdim)
{
	int any_multi = 0;

	for (uint32_t u = 0; u < r->ncls; u++) {
		const struct dest *x = &r->cls[u];
		unsigned g;
		uint32_t n;

		r->multi[u] = 0;
		r->portof[u] = KR_NO_PORT;
		if (x->target == sw)
			continue;	/* delivered here: patched per LID */
		g = class_group(r, sw, sc, xdim, x);
		n = group_size(r, sw, g);
		if (n == 1) {
			r->portof[u] = r->gport[r->gstart[(size_t)sw * r->ngroup + g]];
		} else if (n > 1) {
			r->multi[u] = 1;
			r->gof[u] = (uint8_t)g;
			r->wof[u] = r->through[0] && sc ? draw(r, sc, x, g / 2) : 1;
			any_multi = 1;
		}
	}
	return any_multi;
}

/* The row's LIDs on parallel links, heaviest draw first (then by LID):
 * a counting sort on the draw, whose values are few and small. */
struct par_lid {
	uint32_t lid;
	unsigned g;
	uint64_t w;
};

static void sort_by_draw(struct par_lid *pl, struct par_lid *tmp, size_t n,
			 uint32_t *count, uint64_t maxw)
{
	memset(count, 0, (maxw + 2) * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[maxw - pl[i].w + 1]++;
	for (uint64_t w = 1; w <= maxw + 1; w++)
		count[w] += count[w - 1];
	for (size_t i = 0; i < n; i++)
		tmp[count[maxw - pl[i].w]++] = pl[i];
	memcpy(pl, tmp, n * sizeof(*pl));
}

/* Parallel links: the row's LIDs on each group, heaviest draw first, each
 * to the link with the least traffic so far (then the fewest LIDs):
 * longest processing time first, so that the busiest link of a group
 * carries little more than its share, whatever the LIDs' order. A LID
 * draws CA-to-CA traffic (r->wof) when it is a CA's; a switch's LID draws
 * management traffic alone. */
static void row_parallel(struct router *r, uint32_t sw, uint8_t *row,
			 uint32_t stride)
{
	uint64_t *load = r->pload, *nlid = r->pload + 256, maxw = 0;
	size_t n = 0;

	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t u = r->dcl[lid];
		uint64_t w;

		if (u == KR_NONE || !r->multi[u])
			continue;
		w = r->is_ca[lid] ? r->wof[u] : 0;
		r->plid[n++] = (struct par_lid){ lid, r->gof[u], w };
		maxw = w > maxw ? w : maxw;
	}
	sort_by_draw(r->plid, r->plid + stride, n, r->pcount, maxw);
	memset(load, 0, 512 * sizeof(*load));
	for (size_t i = 0; i < n; i++) {
		const struct par_lid *pl = &r->plid[i];
		const uint8_t *port = r->gport +
				      r->gstart[(size_t)sw * r->ngroup + pl->g];
		size_t size = group_size(r, sw, pl->g);
		unsigned best;

		best = port[0];
		for (size_t j = 1; j < size; j++)
			if (load[port[j]] < load[best] ||
			    (load[port[j]] == load[best] &&
			     nlid[port[j]] < nlid[best]))
				best = port[j];
		load[best] += pl->w;
		nlid[best]++;
		row[pl->lid] = (uint8_t)best;
	}
}

/* A pendant switch's row: its own LIDs and its CAs' delivered, those of
 * the trees below it down to them, every other one up to its parent. */
static void pendant_row(const struct router *r, uint32_t sw, uint8_t *row,
			uint32_t stride)
{
	const struct kr_fabric *f = r->f;
	const struct kr_topo *t = r->t;

	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t slot = kr_port_by_lid(f, lid), below, at;

		row[lid] = KR_NO_PORT;
		if (r->dcl[lid] == KR_NONE)
			continue;	/* no target in the fabric */
		at = f->owner[slot];
		if (!kr_is_switch(f, at)) {
			at = f->owner[f->peer[slot]];
			if (at == sw) {
				row[lid] = (uint8_t)kr_port_num(f, (uint32_t)
							       f->peer[slot]);
				continue;
			}
		} else if (at == sw) {
			row[lid] = 0;
			continue;
		}
		for (below = at; below != KR_NONE && t->sw_parent[below] != sw;)
			below = t->sw_parent[below];
		row[lid] = (uint8_t)route_port_towards(f, sw, below != KR_NONE ? below
						 : t->sw_parent[sw], lid);
	}
}

static void route_row(struct router *r, uint32_t sw, uint8_t *row,
		      uint32_t stride)
{
	const struct kr_topo *t = r->t;
	uint32_t pos = t->sw_pos[sw];
	unsigned xdim = t->sw_xdim ? t->sw_xdim[sw] : KR_NO_DIM;
	const uint8_t *sc = pos != KR_NONE ? r->coord + (size_t)pos * t->ndim : NULL;
	const uint32_t *dcl = r->dcl;
	const uint8_t *portof = r->portof;
	int multi;

	if (kr_topo_grid_switch(t, sw) != sw) {
		pendant_row(r, sw, row, stride);
		return;
	}
	if (sc && t->family != KR_FAMILY_KNS)
		row_directions(r, sc);
	multi = row_classes(r, sw, sc, xdim);
	for (uint32_t lid = 0; lid < stride; lid++)
		row[lid] = dcl[lid] == KR_NONE ? KR_NO_PORT : portof[dcl[lid]];
	for (uint32_t i = r->lstart[sw]; i < r->lstart[sw + 1]; i++)
		row[r->llid[i]] = r->lport[i];
	if (multi)
		row_parallel(r, sw, row, stride);
}

/* row_parallel's tables, when some group has parallel links (then
 * r->npcount is set, for row_scratch). The counting sort's range: no LID
 * draws more than every source of the grid (per CA of a switch), or one
 * per LID on a KNS. */
static int parallel_scratch(struct router *r, uint32_t stride)
{
	int torus = r->t->family != KR_FAMILY_KNS;
	uint64_t maxw = torus ? r->t->npos : 1;
	bool any = false;

	for (uint32_t sw = 0; sw < r->f->nsw && !any; sw++)
		for (unsigned g = 0; g < r->ngroup && !any; g++)
			any = group_size(r, sw, g) > 1;
	if (!any)
		return KR_OK;
	if (torus && build_through(r))
		return KR_ENOMEM;
	r->npcount = maxw + 2;
	if (!(r->is_ca = malloc(stride)))
		return KR_ENOMEM;
	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t slot = kr_port_by_lid(r->f, lid);

		r->is_ca[lid] = slot != KR_NONE &&
				!kr_is_switch(r->f, r->f->owner[slot]);
	}
	return KR_OK;
}

static int check_topo(const struct kr_topo *t, const struct kr_fabric *f,
		      struct kr_diag *d)
{
	if (t->family == KR_FAMILY_NONE || !t->ndim || !t->sw_pos ||
	    !t->port_dir)
		return kr_fail(d, KR_ETOPO, 0, "no recognised topology to route");
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		if (t->sw_pos[sw] == KR_NONE &&
		    (!t->sw_xdim || t->sw_xdim[sw] == KR_NO_DIM) &&
		    kr_topo_grid_switch(t, sw) == sw)
			return kr_fail(d, KR_ETOPO, 0, "switch \"%s\" has no "
				       "place in the recognised %s",
				       kr_node_name(f, sw),
				       kr_family_name(t->family));
	return KR_OK;
}

/* What route_row writes, for one thread: the port per class and, with
 * parallel links (r->npcount), row_parallel's scratch. */
static int row_scratch(struct router *r, uint32_t stride)
{
	r->portof = malloc(stride);
	r->multi = malloc(stride);
	if (r->npcount) {
		r->plid = malloc(2 * (size_t)stride * sizeof(*r->plid));
		r->pcount = malloc(r->npcount * sizeof(*r->pcount));
		r->pload = malloc(512 * sizeof(*r->pload));
		r->gof = malloc(r->ncls + 1);
		r->wof = malloc((r->ncls + 1) * sizeof(*r->wof));
	}
	return r->portof && r->multi && (!r->npcount || (r->plid &&
	       r->pcount && r->pload && r->gof && r->wof)) ? KR_OK : KR_ENOMEM;
}

struct rows {
	struct router *r;
	uint8_t *lft;
	uint32_t stride, from, to;
};

static void *route_rows(void *arg)
{
	const struct rows *w = arg;

	for (uint32_t sw = w->from; sw < w->to; sw++)
		route_row(w->r, sw, w->lft + (size_t)sw * w->stride, w->stride);
	return NULL;
}

/* Rows are independent: with threads 2 (0: when the table is large
 * enough to gain), a second thread takes the upper half of the switches.
 * Without the memory or the thread for it, this one takes them all. */
static void route_all(struct router *r, uint8_t *lft, uint32_t stride,
		      unsigned threads)
{
	uint32_t nsw = r->f->nsw;
	struct router b;
	struct rows lo = { r, lft, stride, 0, nsw }, hi = lo;
	pthread_t th;

	if (!threads)
		threads = (uint64_t)nsw * stride >= KR_ROUTE_THREAD_MIN ? 2 : 1;
	if (threads < 2 || nsw < 2) {
		route_rows(&lo);
		return;
	}
	b = *r;	/* r's tables, its own scratch */
	if (row_scratch(&b, stride)) {
		row_scratch_free(&b);
		route_rows(&lo);
		return;
	}
	lo.to = hi.from = nsw / 2;
	hi.r = &b;
	if (pthread_create(&th, NULL, route_rows, &hi)) {
		lo.to = nsw;
		route_rows(&lo);
	} else {
		route_rows(&lo);
		pthread_join(th, NULL);
	}
	row_scratch_free(&b);
}

int kr_route(const struct kr_fabric *f, const struct kr_topo *topo,
	     const struct kr_conf *c, struct kr_tables *t, struct kr_diag *d)
{
	return kr_route_threads(f, topo, c, t, d, 0);
}

int kr_route_threads(const struct kr_fabric *f, const struct kr_topo *topo,
		     const struct kr_conf *c, struct kr_tables *t,
		     struct kr_diag *d, unsigned threads)
{
	struct router r = { .f = f, .t = topo };
	uint32_t stride = f->max_lid + 1;
	int rc = check_topo(topo, f, d);

	*t = (struct kr_tables){ 0 };
	if (rc)
		return rc;
	r.norder = kr_route_norders(f, topo, c, NULL);
	for (unsigned j = 0; j < r.norder; j++)
		kr_route_order(topo, c, j, r.order[j]);
	/* route_row writes every entry of its row: the LFT's pages are
	 * first touched there, by both threads */
	rc = kr_tables_init_unset(t, f, stride, 1, 1);
	if (!rc && c) {
		t->sm_lid = c->sm_lid;
		t->sm_sl = c->sm_sl;
	}
	if (!rc && topo->family == KR_FAMILY_MIKANT) {
		rc = route_mikant(f, topo, t);
		if (rc)
			kr_tables_free(t);
		return rc ? kr_fail(d, rc, 0, "out of memory") : KR_OK;
	}
	r.slot_ties = route_slots_split_ties(&r);
	if (!rc)
		rc = route_build_coords(&r);
	if (!rc)
		rc = route_build_groups(&r);
	if (!rc && topo->s > 1)
		rc = subnet_reach(&r);
	if (!rc)
		rc = route_build_classes(&r, stride, d);
	if (!rc)
		rc = parallel_scratch(&r, stride);
	if (!rc)
		rc = row_scratch(&r, stride);
	if (!rc)
		route_all(&r, t->lft, stride, threads);
	if (!rc && topo->s > 1)
		rc = kr_route_subnet_switches(f, topo, t);
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	if (rc)
		kr_tables_free(t);
	router_free(&r);
	return rc;
}
