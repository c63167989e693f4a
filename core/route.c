/* Dimension-order routing for KNS (Hybrid-DOR, thesis 4.4.1) and for tori
 * and meshes, one LFT row at a time.
 *
 * Every destination LID is reduced to a target switch and the port that
 * delivers at that switch (port 0 for the switch itself). A KNS crossbar is
 * a target "on a line": routers reach it through the line's routers, so its
 * own dimension is ignored on the way ("masked"). At a switch the first
 * dimension in the LID's order where the switch and the target differ picks
 * a port group: a direction of a torus ring, a router's crossbar, or a
 * crossbar's router. Groups of parallel links are used round robin within
 * each row, so every link of a group gets the same number of destinations
 * (give or take one). */
#include "kr_route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a switch row needs to know about one LID. */
struct dest {
	uint32_t target;	/* switch, KR_NONE: LID unused */
	uint32_t tpos;		/* grid position, or a crossbar's line */
	uint8_t local;		/* port delivering at the target */
	uint8_t mask;		/* dimension to ignore (crossbar), KR_NO_DIM */
	uint8_t order;		/* dimension order index (LMC offset) */
	uint8_t parity;		/* tie-break bit, see tie_goes_minus() */
};

struct router {
	const struct kr_fabric *f;
	const struct kr_topo *t;
	struct dest *dest;		/* [stride] */
	uint8_t *coord;			/* [npos * ndim] */
	unsigned norder;
	unsigned order[128][KR_MAX_DIM];
	unsigned ngroup;		/* groups per switch */
	uint32_t *gstart;		/* [nsw * ngroup + 1] into gport */
	uint8_t *gport;
	uint32_t broken;		/* entries without a port */
	uint32_t broken_sw, broken_lid;
};

static unsigned factorial(unsigned n)
{
	unsigned r = 1;

	while (n > 1)
		r *= n--;
	return r;
}

static int next_perm(unsigned *a, unsigned n)
{
	int i = (int)n - 2, j = (int)n - 1;

	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (a[j] <= a[i])
		j--;
	unsigned tmp = a[i];

	a[i] = a[j];
	a[j] = tmp;
	for (unsigned l = (unsigned)i + 1, r = n - 1; l < r; l++, r--) {
		tmp = a[l];
		a[l] = a[r];
		a[r] = tmp;
	}
	return 1;
}

/* Position permutation number j in the documented sequence: identity,
 * first two swapped, then the rest lexicographically. */
static void nth_perm(unsigned n, unsigned j, unsigned *perm)
{
	unsigned skipped = 0;

	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	j %= factorial(n);
	if (j == 1 && n >= 2) {
		perm[0] = 1;
		perm[1] = 0;
		return;
	}
	while (j > 1 && next_perm(perm, n)) {
		if (n >= 2 && perm[0] == 1 && perm[1] == 0 && !skipped) {
			int rest_sorted = 1;

			for (unsigned i = 2; i + 1 < n; i++)
				rest_sorted &= perm[i] < perm[i + 1];
			if (rest_sorted) {
				skipped = 1;
				continue;
			}
		}
		j--;
	}
}

void kr_route_order(const struct kr_topo *topo, const struct kr_conf *c,
		    unsigned j, unsigned *order)
{
	unsigned base[KR_MAX_DIM], perm[KR_MAX_DIM], n = topo->ndim;

	for (unsigned i = 0; i < n; i++)
		base[i] = c && c->norder == n ? c->order[i] : i;
	nth_perm(n, j, perm);
	for (unsigned i = 0; i < n; i++)
		order[i] = base[perm[i]];
}

unsigned kr_route_norders(const struct kr_fabric *f, const struct kr_topo *topo)
{
	unsigned lmc = 0, n;

	for (uint32_t s = 0; s < f->nport; s++)
		if (f->lid[s] && f->lmc[s] > lmc)
			lmc = f->lmc[s];
	n = factorial(topo->ndim);
	return (1u << lmc) < n ? 1u << lmc : n;
}

static void router_free(struct router *r)
{
	free(r->dest);
	free(r->coord);
	free(r->gstart);
	free(r->gport);
}

/* The group a port belongs to at its switch, or -1. Torus and KNS routers
 * use the direction code; crossbars the coordinate of the router behind. */
static int port_group(const struct router *r, uint32_t sw, uint32_t slot)
{
	const struct kr_topo *t = r->t;
	const struct kr_fabric *f = r->f;
	uint8_t dir = t->port_dir[slot];

	if (dir == KR_DIR_XBAR) {
		uint32_t nb = f->owner[f->peer[slot]];

		return (int)kr_topo_coord(t, t->sw_pos[nb], t->sw_xdim[sw]);
	}
	return dir < 2 * KR_MAX_DIM ? dir : -1;
}

/* CSR lists of the ports in each (switch, group): gstart[sw * ngroup + g]
 * .. gstart[sw * ngroup + g + 1] - 1 index gport. */
static int build_groups(struct router *r)
{
	const struct kr_fabric *f = r->f;
	size_t ng, *fill;

	r->ngroup = 2 * r->t->ndim;
	for (unsigned d = 0; d < r->t->ndim; d++)
		if (r->t->family == KR_FAMILY_KNS && r->t->k[d] > r->ngroup)
			r->ngroup = r->t->k[d];
	ng = (size_t)f->nsw * r->ngroup;
	r->gstart = calloc(ng + 1, sizeof(*r->gstart));
	r->gport = malloc(f->port0[f->nsw] + 1);
	fill = malloc((ng + 1) * sizeof(*fill));
	if (!r->gstart || !r->gport || !fill) {
		free(fill);
		return KR_ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
				int g = f->peer[s] >= 0 ? port_group(r, sw, s) : -1;
				size_t gi = (size_t)sw * r->ngroup + (unsigned)g;

				if (g < 0 || (unsigned)g >= r->ngroup)
					continue;
				if (pass == 0)
					r->gstart[gi + 1]++;
				else
					r->gport[fill[gi]++] =
						(uint8_t)(s - f->port0[sw]);
			}
		if (pass == 0) {
			for (size_t gi = 0; gi < ng; gi++)
				r->gstart[gi + 1] += r->gstart[gi];
			for (size_t gi = 0; gi <= ng; gi++)
				fill[gi] = r->gstart[gi];
		}
	}
	free(fill);
	return KR_OK;
}

static int build_coords(struct router *r)
{
	const struct kr_topo *t = r->t;

	r->coord = malloc((size_t)t->npos * t->ndim + 1);
	if (!r->coord)
		return KR_ENOMEM;
	for (uint32_t pos = 0; pos < t->npos; pos++)
		for (unsigned d = 0; d < t->ndim; d++)
			r->coord[(size_t)pos * t->ndim + d] =
				(uint8_t)kr_topo_coord(t, pos, d);
	return KR_OK;
}

/* The switch a LID's port hangs off and the port that reaches it there. */
static int lid_target(const struct router *r, uint32_t slot, struct dest *x)
{
	const struct kr_fabric *f = r->f;
	const struct kr_topo *t = r->t;
	uint32_t node = f->owner[slot], sw;

	if (kr_is_switch(f, node)) {
		sw = node;
		x->local = 0;
	} else {
		if (f->peer[slot] < 0)
			return 0;	/* a CA port without a link: unreachable */
		sw = f->owner[f->peer[slot]];
		x->local = (uint8_t)kr_port_num(f, (uint32_t)f->peer[slot]);
		if (!kr_is_switch(f, sw))
			return 0;	/* CA to CA: not part of the fabric */
	}
	x->target = sw;
	x->mask = KR_NO_DIM;
	if (t->sw_pos[sw] != KR_NONE) {
		x->tpos = t->sw_pos[sw];
	} else if (t->sw_xdim && t->sw_xdim[sw] != KR_NO_DIM) {
		x->tpos = t->sw_xline[sw];
		x->mask = t->sw_xdim[sw];
	} else {
		return KR_ETOPO;
	}
	return 0;
}

/* Ties (distance k/2 both ways) are split by the parity of the entry
 * coordinate plus the target's other coordinates plus the CA slot: within
 * one ring, half of the tie traffic entering at each switch goes each way
 * whenever the other dimensions or the slots give an even count. */
static uint8_t tie_parity(const struct router *r, const struct dest *x,
			  uint32_t slot)
{
	const struct kr_topo *t = r->t;
	unsigned sum = t->ca_slot && t->ca_slot[slot] != KR_NONE ?
		       t->ca_slot[slot] : 0;

	for (unsigned d = 0; d < t->ndim; d++)
		sum += r->coord[(size_t)x->tpos * t->ndim + d];
	return (uint8_t)(sum & 1);
}

static int build_dests(struct router *r, uint32_t stride, struct kr_diag *d)
{
	const struct kr_fabric *f = r->f;

	r->dest = malloc((size_t)stride * sizeof(*r->dest));
	if (!r->dest)
		return KR_ENOMEM;
	for (uint32_t lid = 0; lid < stride; lid++) {
		struct dest *x = &r->dest[lid];
		uint32_t slot = kr_port_by_lid(f, lid);
		int rc;

		x->target = KR_NONE;
		if (slot == KR_NONE)
			continue;
		rc = lid_target(r, slot, x);
		if (rc)
			return kr_fail(d, rc, 0, "LID %u (\"%s\" port %u) hangs "
				       "off switch \"%s\", which is not part of "
				       "the recognised grid", lid,
				       kr_node_name(f, f->owner[slot]),
				       kr_port_num(f, slot),
				       kr_node_name(f, x->target));
		x->order = (uint8_t)((lid - f->lid[slot]) % r->norder);
		x->parity = tie_parity(r, x, slot);
	}
	return KR_OK;
}

/* Direction group (2d or 2d+1) from coordinate c towards v in ring/line d. */
static unsigned direction(const struct kr_topo *t, unsigned d, unsigned c,
			  unsigned v, unsigned parity)
{
	unsigned k = t->k[d], fwd, bwd;

	if (!t->wrap[d])
		return 2 * d + (v < c);
	fwd = (v + k - c) % k;
	bwd = k - fwd;
	if (fwd != bwd)
		return 2 * d + (bwd < fwd);
	return 2 * d + ((c + v + parity) & 1);
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
		unsigned e = ord[i];

		if (e == x->mask || tc[e] == sc[e])
			continue;
		if (t->family == KR_FAMILY_KNS)
			return (int)(2 * e);
		return (int)direction(t, e, sc[e], tc[e], x->parity);
	}
	return -1;
}

static uint8_t pick(struct router *r, uint32_t sw, unsigned g, uint32_t *rr)
{
	size_t gi = (size_t)sw * r->ngroup + g;
	uint32_t n = r->gstart[gi + 1] - r->gstart[gi];

	if (!n)
		return KR_NO_PORT;
	return r->gport[r->gstart[gi] + rr[g]++ % n];
}

static void route_row(struct router *r, uint32_t sw, uint8_t *row,
		      uint32_t stride, uint32_t *rr)
{
	const struct kr_topo *t = r->t;
	uint32_t pos = t->sw_pos[sw];
	unsigned xdim = t->sw_xdim ? t->sw_xdim[sw] : KR_NO_DIM;
	const uint8_t *sc = pos != KR_NONE ? r->coord + (size_t)pos * t->ndim : NULL;

	memset(rr, 0, r->ngroup * sizeof(*rr));
	for (uint32_t lid = 0; lid < stride; lid++) {
		const struct dest *x = &r->dest[lid];
		int g;

		if (x->target == KR_NONE)
			continue;
		if (x->target == sw) {
			row[lid] = x->local;
			continue;
		}
		if (sc) {
			g = grid_group(r, sc, x);
			row[lid] = pick(r, sw, g >= 0 ? (unsigned)g : 2u * x->mask, rr);
		} else if (xdim != KR_NO_DIM) {
			/* to the router on this line that matches the target in
			 * this dimension; a crossbar target of this dimension on
			 * another line is never reached this way (DOR climbs to
			 * a crossbar only on its own line), it gets coordinate
			 * 0 of the line to keep every entry defined */
			unsigned v = xdim == x->mask ? 0
				     : r->coord[(size_t)x->tpos * t->ndim + xdim];

			row[lid] = pick(r, sw, v, rr);
		}
		if (row[lid] == KR_NO_PORT && !r->broken++) {
			r->broken_sw = sw;
			r->broken_lid = lid;
		}
	}
}

static int check_topo(const struct kr_topo *t, const struct kr_fabric *f,
		      struct kr_diag *d)
{
	if (t->family == KR_FAMILY_NONE || !t->ndim || !t->sw_pos ||
	    !t->port_dir)
		return kr_fail(d, KR_ETOPO, 0, "no recognised topology to route");
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		if (t->sw_pos[sw] == KR_NONE &&
		    (!t->sw_xdim || t->sw_xdim[sw] == KR_NO_DIM))
			return kr_fail(d, KR_ETOPO, 0, "switch \"%s\" has no "
				       "place in the recognised %s",
				       kr_node_name(f, sw),
				       kr_family_name(t->family));
	return KR_OK;
}

int kr_route(const struct kr_fabric *f, const struct kr_topo *topo,
	     const struct kr_conf *c, struct kr_tables *t, struct kr_diag *d)
{
	struct router r = { .f = f, .t = topo };
	uint32_t stride = f->max_lid + 1, *rr = NULL;
	int rc = check_topo(topo, f, d);

	*t = (struct kr_tables){ 0 };
	if (rc)
		return rc;
	r.norder = kr_route_norders(f, topo);
	for (unsigned j = 0; j < r.norder; j++)
		kr_route_order(topo, c, j, r.order[j]);
	rc = kr_tables_init(t, f, stride, 1, 1);
	if (!rc)
		rc = build_coords(&r);
	if (!rc)
		rc = build_groups(&r);
	if (!rc)
		rc = build_dests(&r, stride, d);
	if (!rc && !(rr = malloc(r.ngroup * sizeof(*rr))))
		rc = KR_ENOMEM;
	for (uint32_t sw = 0; !rc && sw < f->nsw; sw++)
		route_row(&r, sw, t->lft + (size_t)sw * stride, stride, rr);
	if (!rc && r.broken)
		rc = kr_fail(d, KR_EROUTE, 0, "%u LFT entries have no "
			     "dimension-order path (first: switch \"%s\" to "
			     "LID %u); a link or switch on the way is missing",
			     r.broken, kr_node_name(f, r.broken_sw),
			     r.broken_lid);
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	if (rc)
		kr_tables_free(t);
	free(rr);
	router_free(&r);
	return rc;
}
