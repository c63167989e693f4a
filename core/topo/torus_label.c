/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Torus and mesh recognition, part two: from prime factors to the grid
 * the engine routes on, and the labelling rule.
 *
 * Reading (the same graph may read several ways; all of them give minimal
 * dimension-order routes, only the labels differ):
 * - a K2 factor whose edges carry at least twice the links of the other
 *   factors (or, with K2s only, an even number that is the same on all of
 *   them) is a ring of 2: half of its links are +, half -;
 * - the other K2s pair up into rings of 4 (C4 = K2 x K2), the fewest
 *   dimensions; one left over stays a mesh dimension of 2;
 * - knsroute.conf (family, dims, wrap, seed ports) or pinned coordinates
 *   override these choices.
 * Labelling (deterministic, from GUIDs):
 * - the origin is the lowest-GUID switch (or the conf seed); in a ring it
 *   gets coordinate 0;
 * - in a ring, + points to whichever neighbouring slice (coordinate +1 or
 *   -1 of the origin) holds the lower GUID; in a path, coordinate 0 is the
 *   end slice holding the lower GUID;
 * - dimensions are numbered by the lowest GUID on the origin's line in
 *   each (the switches that differ from the origin in that dimension only).
 * A fabric from `knsroute gen` without --shuffle therefore gets the
 * generator's own coordinates back. */
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	int g1, g2;		/* prime groups; g2 >= 0: a 4-ring of two K2s */
	unsigned k;		/* size in the grid */
	uint8_t wrap;
	int sigma, t;		/* c = sigma * raw + t, mod k when wrapping */
	int fixed;		/* sigma and t decided (seed port, pins) */
	int dim;		/* index in the grid, -1 until decided */
	uint64_t key;		/* lowest GUID on the origin's line */
};

struct tl {
	struct rctx *x;
	const struct prime *pr;
	uint32_t o;			/* origin switch */
	uint16_t *mask;			/* [nsw] groups differing from o */
	uint64_t gkey[TOPO_MAX_PRIME];	/* lowest GUID on o's line */
	uint8_t single[TOPO_MAX_PRIME];	/* K2 that may pair into a 4-ring */
	int force[TOPO_MAX_PRIME];	/* partner demanded by seed ports */
	struct unit u[TOPO_MAX_PRIME];
	unsigned nu;
	uint32_t used;			/* groups already in a unit */
	char shape[96];			/* prime factors, for messages */
};

static unsigned coord_of(const struct tl *l, uint32_t sw, int g)
{
	return l->pr->coord[(size_t)sw * l->pr->ng + (unsigned)g];
}

static unsigned raw(const struct tl *l, const struct unit *u, uint32_t sw)
{
	unsigned a = coord_of(l, sw, u->g1), b;

	if (u->g2 < 0)
		return a;
	b = coord_of(l, sw, u->g2);	/* Gray order round the square */
	return a ? (b ? 2 : 1) : (b ? 3 : 0);
}

static unsigned raw_k(const struct tl *l, const struct unit *u)
{
	return u->g2 >= 0 ? 4 : l->pr->k[u->g1];
}

static uint32_t umask(const struct unit *u)
{
	return (1u << u->g1) | (u->g2 >= 0 ? 1u << u->g2 : 0);
}

static int apply(const struct unit *u, unsigned r)
{
	int c = u->sigma * (int)r + u->t;

	return u->wrap ? ((c % (int)u->k) + (int)u->k) % (int)u->k : c;
}

static void describe_shape(struct tl *l)
{
	size_t n = 0;

	for (unsigned h = 0; h < l->pr->ng && n < sizeof(l->shape); h++)
		n += (size_t)snprintf(l->shape + n, sizeof(l->shape) - n, "%s%u%s",
				      h ? " x " : "", l->pr->k[h],
				      l->pr->ring[h] ? " (ring)" : "");
	if (!l->pr->ng)
		snprintf(l->shape, sizeof(l->shape), "a single switch");
}

/* Which K2s are rings of 2: those with at least twice the base links per
 * pair, the base being the least, over the non-K2 factors, of the most
 * links on one of their edges (with K2s only: half their common even
 * count, else their least). */
static void classify_k2(struct tl *l)
{
	const struct prime *pr = l->pr;
	unsigned base = 0, m0 = 0, same = 1;

	for (unsigned h = 0; h < pr->ng; h++) {
		if (pr->k[h] != 2) {
			base = !base || pr->mult[h] < base ? pr->mult[h] : base;
			continue;
		}
		same &= !m0 || pr->mult[h] == m0;
		m0 = !m0 || pr->mult[h] < m0 ? pr->mult[h] : m0;
	}
	if (!base)
		base = same && m0 % 2 == 0 ? m0 / 2 : m0;
	for (unsigned h = 0; h < pr->ng; h++)
		l->single[h] = pr->k[h] == 2 &&
			       (pr->mult[h] < 2 * base ||
				l->x->c->family == KR_FAMILY_MESH);
}

static void origin_lines(struct tl *l)
{
	const struct kr_fabric *f = l->x->f;
	unsigned ng = l->pr->ng;

	for (unsigned h = 0; h < ng; h++)
		l->gkey[h] = UINT64_MAX;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint16_t m = 0;

		for (unsigned h = 0; h < ng; h++)
			m |= (uint16_t)((coord_of(l, s, (int)h) !=
					 coord_of(l, l->o, (int)h)) << h);
		l->mask[s] = m;
		if (m && !(m & (m - 1)) && f->guid[s] < l->gkey[__builtin_ctz(m)])
			l->gkey[__builtin_ctz(m)] = f->guid[s];
	}
}

static struct unit *add_unit(struct tl *l, int g1, int g2)
{
	struct unit *u = &l->u[l->nu++];
	const struct prime *pr = l->pr;

	*u = (struct unit){ .g1 = g1, .g2 = g2, .sigma = 1, .dim = -1 };
	u->k = g2 >= 0 ? 4 : pr->k[g1];
	u->wrap = g2 >= 0 || pr->ring[g1] || (pr->k[g1] == 2 && !l->single[g1]);
	l->used |= umask(u);
	return u;
}

/* The first group outside `taken` in order of its origin line's lowest
 * GUID; singles >= 0 asks for (non-)pairable K2s only. */
static int next_group(const struct tl *l, uint32_t taken, int singles)
{
	int best = -1;

	for (unsigned h = 0; h < l->pr->ng; h++) {
		if (taken >> h & 1)
			continue;
		if (singles >= 0 && l->single[h] != singles)
			continue;
		if (best < 0 || l->gkey[h] < l->gkey[best])
			best = (int)h;
	}
	return best;
}

/* The partner a K2 pairs with: the one seed ports demand, else the next
 * unused single by key. */
static int partner(const struct tl *l, int g)
{
	if (l->force[g] >= 0 && !(l->used >> l->force[g] & 1))
		return l->force[g];
	return next_group(l, l->used | 1u << g, 1);
}

static void default_units(struct tl *l, unsigned want_pairs)
{
	int g;

	while ((g = next_group(l, l->used, -1)) >= 0) {
		int p = l->single[g] && want_pairs ? partner(l, g) : -1;

		if (p >= 0)
			want_pairs--;
		add_unit(l, g, p);
	}
}

static unsigned count_singles(const struct tl *l)
{
	unsigned n = 0;

	for (unsigned h = 0; h < l->pr->ng; h++)
		n += l->single[h] && !(l->used >> h & 1);
	return n;
}

static unsigned count_unused(const struct tl *l)
{
	return l->pr->ng - (unsigned)__builtin_popcount(l->used);
}

/* An unused group of size k for a conf dimension, in key order: one
 * whose wrap is as asked, or (loose) a path to be read as a ring whose wrap
 * links are all missing. A ring is never read as a path. */
static int conf_group(const struct tl *l, unsigned k, int wrap, int loose)
{
	uint32_t taken = l->used;
	int h;

	while ((h = next_group(l, taken, -1)) >= 0) {
		taken |= 1u << h;
		if (l->pr->k[h] != k)
			continue;
		if (wrap < 0 || k == 2 || wrap == l->pr->ring[h] ||
		    (loose && wrap == 1))
			return h;
	}
	return -1;
}

/* Two unused K2s with the same links per edge, in key order, for a pinned
 * 4-ring: C4 x C4 with doubled links reads as four rings of 2 (K2s whose
 * doubled links look like + and -), and the pin asks for the other reading.
 * *p < 0 when there are no two. */
static int k2_pair(const struct tl *l, int *p)
{
	uint32_t taken = l->used;
	int g;

	*p = -1;
	while ((g = next_group(l, taken, -1)) >= 0) {
		uint32_t rest = taken |= 1u << g;

		if (l->pr->k[g] != 2)
			continue;
		while ((*p = next_group(l, rest, -1)) >= 0) {
			rest |= 1u << *p;
			if (l->pr->k[*p] == 2 && l->pr->mult[*p] == l->pr->mult[g])
				return g;
		}
	}
	return -1;
}

static int conf_dim(struct tl *l, unsigned j)
{
	const struct kr_conf *c = l->x->c;
	int wrap = c->wrap[j], g = conf_group(l, c->k[j], wrap, 0), p = -1;
	struct unit *u;

	if (g < 0 && c->k[j] == 4 && wrap != 0 &&
	    (g = next_group(l, l->used, 1)) >= 0 && (p = partner(l, g)) < 0)
		g = -1;
	if (g < 0 && c->k[j] == 4 && wrap != 0 && (g = k2_pair(l, &p)) >= 0)
		l->single[g] = l->single[p] = 1;	/* a pair, no longer rings */
	if (g < 0)
		g = conf_group(l, c->k[j], wrap, 1);
	if (g < 0) {
		notes_add(l->x->conflicts, "dims: no dimension of size %u%s left "
			  "for dimension %u (the fabric's prime factors: %s)",
			  c->k[j], wrap == 1 ? " that wraps" : "", j, l->shape);
		return KR_ETOPO;
	}
	u = add_unit(l, g, p);
	u->dim = (int)j;
	if (wrap == 1)
		u->wrap = 1;
	else if (wrap == 0 && u->k == 2)
		u->wrap = 0;
	return KR_OK;
}

/* dims / ndim in knsroute.conf: sizes given are matched in order, the
 * dimensions given only by count take the rest in key order. */
static int conf_units(struct tl *l)
{
	const struct kr_conf *c = l->x->c;
	unsigned open = 0, pairs;
	int rc = KR_OK;

	if (!l->pr->ng) {	/* a single switch: dims 1 (or 1x1...) */
		for (unsigned j = 0; j < c->ndim; j++)
			if (c->k[j] > 1)
				rc = KR_ETOPO;
		if (rc)
			notes_add(l->x->conflicts, "dims: a single switch is "
				  "no grid of %u", c->k[0]);
		return rc;
	}
	for (unsigned j = 0; j < c->ndim; j++) {
		if (!c->k[j])
			open++;
		else if (conf_dim(l, j))
			rc = KR_ETOPO;
	}
	if (rc)
		return rc;
	pairs = count_unused(l) > open ? count_unused(l) - open : 0;
	if (pairs > count_singles(l) / 2 || count_unused(l) < open) {
		notes_add(l->x->conflicts, "dims: %u dimension%s, but the "
			  "fabric's prime factors are %s", c->ndim,
			  c->ndim == 1 ? "" : "s", l->shape);
		return KR_ETOPO;
	}
	default_units(l, pairs);
	for (unsigned j = 0, i = 0; j < c->ndim; j++) {
		if (c->k[j])
			continue;
		while (l->u[i].dim >= 0)
			i++;
		l->u[i].dim = (int)j;
	}
	return KR_OK;
}

static uint32_t seed_neighbour(struct tl *l, const struct kr_seed_port *sp)
{
	const struct kr_fabric *f = l->x->f;
	uint32_t slot;

	if (sp->port > f->nports[l->o]) {
		notes_add(l->x->conflicts, "seed_port %u: the seed switch has %u "
			  "ports", sp->port, f->nports[l->o]);
		return KR_NONE;
	}
	slot = kr_port(f, l->o, sp->port);
	if (f->peer[slot] < 0 || !kr_is_switch(f, f->owner[f->peer[slot]])) {
		notes_add(l->x->conflicts, "seed_port %u: not linked to a switch",
			  sp->port);
		return KR_NONE;
	}
	return f->owner[f->peer[slot]];
}

/* Two seed ports of one dimension on two pairable K2s make them a 4-ring. */
static void seed_pairs(struct tl *l)
{
	const struct kr_conf *c = l->x->c;

	for (unsigned i = 0; i < c->nseed_port; i++)
		for (unsigned j = i + 1; j < c->nseed_port; j++) {
			const struct kr_fabric *f = l->x->f;
			uint32_t si = kr_port(f, l->o, c->seed_port[i].port);
			uint32_t sj = kr_port(f, l->o, c->seed_port[j].port);
			int gi, gj;

			if (c->seed_port[i].dim != c->seed_port[j].dim ||
			    c->seed_port[i].port > f->nports[l->o] ||
			    c->seed_port[j].port > f->nports[l->o] ||
			    f->peer[si] < 0 || f->peer[sj] < 0 ||
			    f->owner[f->peer[si]] >= f->nsw ||
			    f->owner[f->peer[sj]] >= f->nsw)
				continue;
			gi = __builtin_ctz(l->mask[f->owner[f->peer[si]]] | 1u << 16);
			gj = __builtin_ctz(l->mask[f->owner[f->peer[sj]]] | 1u << 16);
			if (gi < 16 && gj < 16 && gi != gj && l->single[gi] &&
			    l->single[gj]) {
				l->force[gi] = gj;
				l->force[gj] = gi;
			}
		}
}

static struct unit *unit_of(struct tl *l, uint32_t groups)
{
	for (unsigned i = 0; i < l->nu; i++)
		if (umask(&l->u[i]) & groups)
			return &l->u[i];
	return NULL;
}

static int sense_from(struct tl *l, struct unit *u, uint32_t w, int dir)
{
	int dd = (int)raw(l, u, w) - (int)raw(l, u, l->o), sigma;

	if (u->wrap)
		dd = dd == 1 - (int)u->k ? 1 : dd == (int)u->k - 1 ? -1 : dd;
	sigma = dir * dd;
	if (u->fixed && u->sigma != sigma && u->k > 2)
		return -1;
	u->sigma = sigma;
	u->t = u->wrap ? -sigma * (int)raw(l, u, l->o)
		       : sigma > 0 ? 0 : (int)raw_k(l, u) - 1;
	u->fixed = 1;
	return 0;
}

static void seed_ports(struct tl *l)
{
	const struct kr_conf *c = l->x->c;

	for (unsigned i = 0; i < c->nseed_port; i++) {
		const struct kr_seed_port *sp = &c->seed_port[i];
		uint32_t w = seed_neighbour(l, sp);
		struct unit *u, *other;

		if (w == KR_NONE)
			continue;
		u = unit_of(l, l->mask[w]);
		other = NULL;
		for (unsigned j = 0; j < l->nu; j++)
			if (l->u[j].dim == sp->dim && &l->u[j] != u)
				other = &l->u[j];
		if (!u || (u->dim >= 0 && u->dim != sp->dim) || other) {
			notes_add(l->x->conflicts, "seed_port %u: its neighbour "
				  "is not in dimension %u of the fabric as "
				  "read (or another seed port says otherwise)",
				  sp->port, sp->dim);
			continue;
		}
		u->dim = sp->dim;
		if (sense_from(l, u, w, sp->dir))
			notes_add(l->x->conflicts, "seed_port %u: direction %c "
				  "contradicts another seed port", sp->port,
				  sp->dir > 0 ? '+' : '-');
	}
}

struct pinned {
	uint32_t *sw;		/* switches with a pinned position */
	uint32_t n;
	uint32_t stride[KR_MAX_DIM];
};

static unsigned pin_coord(const struct tl *l, const struct pinned *pd,
			  uint32_t sw, unsigned j)
{
	const struct lab *pl = &l->x->pins->lab;

	return pl->sw_pos[sw] / pd->stride[j] % pl->k[j];
}

/* Finds sigma and t that map u onto pinned dimension j for every pinned
 * switch; a path must also fit inside the dimension. */
static int fit(const struct tl *l, const struct pinned *pd, struct unit *u,
	       unsigned j)
{
	unsigned rk = raw_k(l, u);

	for (int sigma = 1; sigma >= -1; sigma -= 2) {
		uint32_t i = 0, s0 = pd->sw[0];

		u->sigma = sigma;
		u->t = (int)pin_coord(l, pd, s0, j) - sigma * (int)raw(l, u, s0);
		if (!u->wrap && (apply(u, 0) < 0 || apply(u, 0) >= (int)u->k ||
				 apply(u, rk - 1) < 0 ||
				 apply(u, rk - 1) >= (int)u->k))
			continue;
		while (i < pd->n && apply(u, raw(l, u, pd->sw[i])) ==
		       (int)pin_coord(l, pd, pd->sw[i], j))
			i++;
		if (i == pd->n)
			return 1;
	}
	return 0;
}

static int try_unit(struct tl *l, const struct pinned *pd, unsigned j,
		    int g1, int g2)
{
	const struct lab *pl = &l->x->pins->lab;
	struct unit u = { .g1 = g1, .g2 = g2, .k = pl->k[j],
			  .wrap = pl->wrap[j], .dim = (int)j, .fixed = 1 };

	if (g2 < 0 && l->pr->ring[g1] &&
	    (!pl->wrap[j] || l->pr->k[g1] != pl->k[j]))
		return 0;
	if (raw_k(l, &u) > pl->k[j] || (pl->wrap[j] && raw_k(l, &u) != pl->k[j] &&
					l->pr->ring[g1]))
		return 0;
	if (!fit(l, pd, &u, j))
		return 0;
	l->u[l->nu++] = u;
	l->used |= umask(&u);
	return 1;
}

static int pin_dim(struct tl *l, const struct pinned *pd, unsigned j)
{
	const struct lab *pl = &l->x->pins->lab;
	uint32_t taken = l->used;
	int h;

	while ((h = next_group(l, taken, -1)) >= 0) {
		taken |= 1u << h;
		if (try_unit(l, pd, j, h, -1))
			return 1;
	}
	if (pl->k[j] != 4 || !pl->wrap[j])
		return 0;
	for (unsigned a = 0; a < l->pr->ng; a++)
		for (unsigned b = a + 1; b < l->pr->ng; b++)
			if (l->pr->k[a] == 2 && l->pr->k[b] == 2 &&
			    !((l->used >> a | l->used >> b) & 1) &&
			    try_unit(l, pd, j, (int)a, (int)b))
				return 1;
	return 0;
}

/* Pinned coordinates decide the reading, the senses and the order; every
 * prime factor must explain one pinned dimension. */
static int pin_units(struct tl *l, char *why, size_t len)
{
	const struct lab *pl = &l->x->pins->lab;
	struct pinned pd = { 0 };
	int ok = pl->family == KR_FAMILY_TORUS || pl->family == KR_FAMILY_MESH;

	if (!ok)
		snprintf(why, len, "it describes a %s", kr_family_name(pl->family));
	pd.sw = malloc(((size_t)l->x->f->nsw + 1) * sizeof(*pd.sw));
	if (!pd.sw)
		return KR_ENOMEM;
	for (uint32_t s = 0; s < l->x->f->nsw; s++)
		if (pl->sw_pos[s] != KR_NONE)
			pd.sw[pd.n++] = s;
	for (unsigned j = 0, st = 1; j < pl->ndim; st *= pl->k[j++])
		pd.stride[j] = st;
	for (unsigned j = 0; ok && j < pl->ndim; j++)
		if (!(ok = pd.n && pin_dim(l, &pd, j)))
			snprintf(why, len, "nothing in the fabric (prime factors "
				 "%s) fits its dimension %u", l->shape, j);
	if (ok && count_unused(l)) {
		ok = 0;
		snprintf(why, len, "the fabric (prime factors %s) has more "
			 "dimensions than its %u", l->shape, pl->ndim);
	}
	free(pd.sw);
	return ok ? KR_OK : KR_ETOPO;
}

/* Default sense: see the rule at the top of the file. */
static int default_sense(struct tl *l, struct unit *u)
{
	uint64_t *smin = malloc(256 * sizeof(*smin));
	unsigned rk = raw_k(l, u), ro = raw(l, u, l->o);

	if (!smin)
		return KR_ENOMEM;
	for (unsigned r = 0; r < 256; r++)
		smin[r] = UINT64_MAX;
	for (uint32_t s = 0; s < l->x->f->nsw; s++) {
		unsigned r = raw(l, u, s);

		if (l->x->f->guid[s] < smin[r])
			smin[r] = l->x->f->guid[s];
	}
	if (u->wrap) {
		u->sigma = smin[(ro + 1) % rk] <= smin[(ro + rk - 1) % rk] ? 1 : -1;
		u->t = -u->sigma * (int)ro;
	} else {
		u->sigma = smin[0] <= smin[rk - 1] ? 1 : -1;
		u->t = u->sigma > 0 ? 0 : (int)rk - 1;
	}
	free(smin);
	return KR_OK;
}

/* Unnumbered units take the free indices by the lowest GUID on the
 * origin's line, then the larger size, then prime group. */
static void order_units(struct tl *l)
{
	const struct kr_fabric *f = l->x->f;
	uint32_t taken = 0;

	for (unsigned i = 0; i < l->nu; i++) {
		l->u[i].key = UINT64_MAX;
		if (l->u[i].dim >= 0)
			taken |= 1u << l->u[i].dim;
	}
	for (uint32_t s = 0; s < f->nsw; s++)
		for (unsigned i = 0; i < l->nu && l->mask[s]; i++)
			if (!(l->mask[s] & ~umask(&l->u[i])) && f->guid[s] < l->u[i].key)
				l->u[i].key = f->guid[s];
	for (;;) {
		struct unit *best = NULL;
		int dim = 0;

		for (unsigned i = 0; i < l->nu; i++) {
			struct unit *u = &l->u[i];

			if (u->dim >= 0)
				continue;
			if (!best || u->key < best->key ||
			    (u->key == best->key && (u->k > best->k ||
			     (u->k == best->k && u->g1 < best->g1))))
				best = u;
		}
		if (!best)
			return;
		while (taken >> dim & 1)
			dim++;
		best->dim = dim;
		taken |= 1u << dim;
	}
}

/* wrap in knsroute.conf without dims: per dimension as numbered here. */
static void conf_wrap(struct tl *l)
{
	const struct kr_conf *c = l->x->c;

	for (unsigned i = 0; i < l->nu; i++) {
		struct unit *u = &l->u[i];
		int w = u->dim < KR_MAX_DIM ? c->wrap[u->dim] : -1;

		if (w == 1 && !u->wrap) {
			u->wrap = 1;
		} else if (w == 0 && u->wrap && u->k == 2) {
			u->wrap = 0;
		} else if (w == 0 && u->wrap) {
			notes_add(l->x->conflicts, "wrap: dimension %d (size %u) "
				  "is a ring in the fabric", u->dim, u->k);
		}
	}
}

static void family_check(struct tl *l)
{
	const struct kr_conf *c = l->x->c;
	unsigned rings = 0;

	for (unsigned i = 0; i < l->nu; i++)
		rings += l->u[i].wrap;
	if (c->family == KR_FAMILY_MESH && rings)
		notes_add(l->x->conflicts, "family mesh: %u dimension%s of the "
			  "fabric wrap%s", rings, rings == 1 ? "" : "s",
			  rings == 1 ? "s" : "");
	if (c->family == KR_FAMILY_TORUS && !rings && l->nu)
		notes_add(l->x->conflicts, "family torus: no dimension of the "
			  "fabric wraps (say which with wrap)");
	for (unsigned i = 0; i < c->nseed_port; i++)
		if (c->seed_port[i].dim >= l->nu)
			notes_add(l->x->conflicts, "seed_port %u: dimension %u, "
				  "but the fabric has %u", c->seed_port[i].port,
				  c->seed_port[i].dim, l->nu);
}

static int fill_lab(struct tl *l, struct lab *out)
{
	const struct kr_fabric *f = l->x->f;
	uint32_t stride[KR_MAX_DIM];
	int rc;

	rc = lab_alloc(out, f->nsw);
	if (rc)
		return rc;
	out->family = KR_FAMILY_MESH;
	out->ndim = l->nu ? l->nu : 1;
	out->k[0] = 1;
	for (unsigned i = 0; i < l->nu; i++) {
		const struct unit *u = &l->u[i];

		out->k[u->dim] = u->k;
		out->wrap[u->dim] = u->wrap;
		if (u->wrap)
			out->family = KR_FAMILY_TORUS;
	}
	for (unsigned j = 0, st = 1; j < out->ndim; st *= out->k[j++])
		stride[j] = st;
	for (uint32_t s = 0; s < f->nsw; s++) {
		uint32_t pos = 0;

		for (unsigned i = 0; i < l->nu; i++)
			pos += (uint32_t)apply(&l->u[i], raw(l, &l->u[i], s)) *
			       stride[l->u[i].dim];
		out->sw_pos[s] = pos;
	}
	return KR_OK;
}

static void pick_origin(struct tl *l)
{
	const struct kr_fabric *f = l->x->f;
	uint64_t seed = l->x->c->seed_guid;

	l->o = lowest_guid(f);
	if (!seed)
		return;
	if (kr_node_by_guid(f, seed) < f->nsw)
		l->o = kr_node_by_guid(f, seed);
	else
		notes_add(l->x->conflicts, "seed 0x%016llx: no such switch",
			  (unsigned long long)seed);
}

/* Pinned coordinates decide everything when they fit: KR_OK; 1 when there
 * are none or the cache does not fit (noted); KR_ETOPO when a coordinates
 * file does not fit (a conflict). */
static int from_pins(struct tl *l)
{
	const struct pins *p = l->x->pins;
	struct notes_mark m = notes_mark(l->x->notes);
	char why[200] = "";
	int rc;

	if (!p || !p->npinned)
		return 1;
	rc = pin_units(l, why, sizeof(why));
	if (rc != KR_ETOPO)
		return rc;
	l->nu = 0;
	l->used = 0;
	if (!p->from_cache) {
		notes_add(l->x->conflicts, "coords_file %s: %s", p->path, why);
		return KR_ETOPO;
	}
	notes_rewind(l->x->notes, m);
	notes_add(l->x->notes, "coords_cache %s not used: %s", p->path, why);
	return 1;
}

static int from_conf(struct tl *l)
{
	const struct kr_conf *c = l->x->c;

	seed_pairs(l);
	if (c->ndim && conf_units(l))
		return KR_ETOPO;
	if (!c->ndim)
		default_units(l, c->family == KR_FAMILY_MESH ? 0 : TOPO_MAX_PRIME);
	if (l->nu > KR_MAX_DIM)
		return kr_fail(l->x->d, KR_ETOPO, 0, "more than %d dimensions "
			       "(prime factors %s)", KR_MAX_DIM, l->shape);
	seed_ports(l);
	order_units(l);
	if (!c->ndim)
		conf_wrap(l);
	family_check(l);
	return KR_OK;
}

int torus_label(struct rctx *x, const struct prime *pr, struct lab *out)
{
	struct tl l = { .x = x, .pr = pr };
	unsigned before = x->conflicts->n;
	int rc;

	l.mask = malloc(((size_t)x->f->nsw + 1) * sizeof(*l.mask));
	if (!l.mask)
		return KR_ENOMEM;
	pick_origin(&l);
	describe_shape(&l);
	classify_k2(&l);
	origin_lines(&l);
	for (unsigned h = 0; h < TOPO_MAX_PRIME; h++)
		l.force[h] = -1;
	rc = from_pins(&l);
	if (rc == 1)
		rc = from_conf(&l);
	for (unsigned i = 0; i < l.nu && !rc; i++)
		if (!l.u[i].fixed)
			rc = default_sense(&l, &l.u[i]);
	if (rc != KR_ENOMEM && x->conflicts->n > before)
		rc = kr_fail(x->d, KR_ETOPO, 0, "knsroute.conf does not fit the "
			     "fabric");
	if (!rc)
		rc = fill_lab(&l, out);
	free(l.mask);
	return rc;
}
