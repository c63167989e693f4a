/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* KNS recognition (s = 1): routers and crossbars, from the graph alone.
 *
 * The switch graph of a KNS is bipartite: routers (the side with the CAs)
 * and crossbars. Each crossbar is a line: the routers that differ in one
 * coordinate. Two lines meet in at most one router, and two disjoint
 * lines are parallel (same dimension) exactly when at least two of their
 * routers are pairwise joined by other crossbars (lines of different
 * dimensions have at most one such pair). Union-find over that relation
 * gives parallel classes; crossbars at one router exclude each other's
 * class, and group_classes() sorts the classes into n dimensions.
 * A router's coordinate in dimension d is its hyperplane: the component
 * of the routers joined by crossbars of the other dimensions. A router cut
 * off from its hyperplane by faults is put back by elimination: on its
 * dimension-d crossbar, every other hyperplane is taken.
 *
 * Labelling: the origin is the lowest-GUID router (or the conf seed); in
 * each dimension the hyperplanes are numbered by their lowest router GUID,
 * the origin's first; dimensions are numbered by the lowest GUID on the
 * origin's line in each. Cost per crossbar is O(k^2 n^2). */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

struct kan {
	struct rctx *x;
	const struct tgraph *g;
	uint8_t *side;		/* [nsw] 0 router, 1 crossbar */
	uint8_t rside;		/* colour of the routers */
	unsigned n, k;
	struct uf xu;		/* crossbars into parallel classes */
	uint32_t *xcls;		/* [nsw] class of a crossbar */
	uint32_t ncls;
	uint32_t *csize, *crep;	/* [ncls] crossbars, one of them */
	int *cgroup;		/* [ncls] dimension (recognition order) */
	uint32_t *hp;		/* [nsw * n] hyperplane of a router per dim */
	uint32_t *cnt, *stamp;	/* [nsw] scratch */
	uint32_t o;		/* origin router */
};

static const char *nm(const struct kan *a, uint32_t sw)
{
	return kr_node_name(a->x->f, sw);
}

static int is_router(const struct kan *a, uint32_t sw)
{
	return a->side[sw] == a->rside;
}

/* 2-colouring; returns -1 when an odd cycle exists (*bad gets a switch on
 * it). */
static int colour(const struct tgraph *g, uint8_t *side, uint32_t *queue,
		  uint32_t *bad)
{
	uint32_t head = 0, tail = 0;

	memset(side, 2, g->n);
	side[0] = 0;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t w = g->nbr[i];

			if (side[w] == 2) {
				side[w] = side[v] ^ 1;
				queue[tail++] = w;
			} else if (side[w] == side[v]) {
				*bad = v;
				return -1;
			}
		}
	}
	return 0;
}

/* The side of a 2-coloured g holding the routers, the switches with CAs:
 * 0 or 1; 2 when no switch has CAs; -1 when both sides have them and
 * neither is clearly the routers' (*a and *b: a switch with CAs on each
 * side). A crossbar may carry a few CAs (a host on a spare port), so the
 * side with at least four times as many switches with CAs is the routers';
 * a bipartite torus (even rings) has them evenly. */
static int router_side(const struct tgraph *g, const uint8_t *side,
		       uint32_t *a, uint32_t *b)
{
	uint32_t with[2] = { 0, 0 }, one[2] = { KR_NONE, KR_NONE };

	for (uint32_t v = 0; v < g->n; v++)
		if (g->nca[v] && side[v] < 2) {
			with[side[v]]++;
			one[side[v]] = v;
		}
	*a = one[0];
	*b = one[1];
	if (!with[0] && !with[1])
		return 2;
	if (with[1] <= with[0] / 4)
		return 0;
	if (with[0] <= with[1] / 4)
		return 1;
	return -1;
}

int kns_candidate(const struct tgraph *g)
{
	uint8_t *side = malloc((size_t)g->n + 1);
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	uint32_t bad, a, b;
	int rc = 0;

	if (side && queue && !colour(g, side, queue, &bad)) {
		int r = router_side(g, side, &a, &b);

		if (r == 2)
			rc = 2;
		else if (r >= 0)
			rc = a != KR_NONE && b != KR_NONE ? 3 : 1;
	}
	free(side);
	free(queue);
	return rc;
}

/* Router side and sizes; no_ca_side picks the routers when no switch has
 * CAs (0: the side of the lowest GUID). */
static int sides(struct kan *a, int no_ca_side)
{
	const struct tgraph *g = a->g;
	uint32_t bad = 0, one0, one1;
	int r;

	if (colour(g, a->side, a->stamp, &bad))
		return kr_fail(a->x->d, KR_ETOPO, 0, "switch \"%s\" is on an odd "
			       "cycle; routers and crossbars alternate",
			       nm(a, bad));
	r = router_side(g, a->side, &one0, &one1);
	if (r < 0)
		return kr_fail(a->x->d, KR_ETOPO, 0, "switches \"%s\" and "
			       "\"%s\" both have CAs but would be a router "
			       "and a crossbar, and neither side has four "
			       "times as many switches with CAs", nm(a, one0),
			       nm(a, one1));
	a->rside = r < 2 ? (uint8_t)r :
		   (uint8_t)(a->side[lowest_guid(a->x->f)] ^ no_ca_side);
	for (uint32_t v = 0; v < g->n; v++) {
		unsigned deg = tg_deg(g, v);

		if (is_router(a, v) && deg > a->n)
			a->n = deg;
		if (!is_router(a, v) && deg > a->k)
			a->k = deg;
	}
	if (!a->n || a->n > KR_MAX_DIM || a->k < 2 || a->k > 255)
		return kr_fail(a->x->d, KR_ETOPO, 0, "routers meet up to %u "
			       "crossbars and crossbars up to %u routers; a KNS "
			       "has 1 to %d dimensions and k from 2 to 255",
			       a->n, a->k, KR_MAX_DIM);
	for (unsigned d = 0, npos = 1; d < a->n; d++)
		if ((npos *= a->k) > TOPO_MAX_POS)
			return kr_fail(a->x->d, KR_ETOPO, 0, "%u-ary %u-direct "
				       "would have more than %u routers", a->k,
				       a->n, TOPO_MAX_POS);
	return KR_OK;
}

/* Two lines of a KNS share at most one router. */
static int shared(struct kan *a)
{
	const struct tgraph *g = a->g;

	memset(a->stamp, 0xff, g->n * sizeof(*a->stamp));
	for (uint32_t x = 0; x < g->n; x++) {
		if (is_router(a, x))
			continue;
		for (uint32_t i = g->off[x]; i < g->off[x + 1]; i++)
			for (uint32_t j = g->off[g->nbr[i]]; j < g->off[g->nbr[i] + 1]; j++) {
				uint32_t y = g->nbr[j];

				if (y == x)
					continue;
				if (a->stamp[y] != x) {
					a->stamp[y] = x;
					a->cnt[y] = 0;
				}
				if (++a->cnt[y] == 2)
					return kr_fail(a->x->d, KR_ETOPO, 0,
						       "crossbars \"%s\" and \"%s\" "
						       "share several routers; lines "
						       "of a KNS meet at most once",
						       nm(a, x), nm(a, y));
			}
	}
	return KR_OK;
}

/* Crossbars reached from x by router - crossbar - router - crossbar,
 * counted per crossbar; the stamp of those sharing a router with x (set by
 * the caller) keeps them out. */
static void count_parallel(struct kan *a, uint32_t x, uint32_t *touch,
			   uint32_t *ntouch)
{
	const struct tgraph *g = a->g;

	for (uint32_t i = g->off[x]; i < g->off[x + 1]; i++) {
		uint32_t r = g->nbr[i];

		for (uint32_t j = g->off[r]; j < g->off[r + 1]; j++) {
			uint32_t y = g->nbr[j];

			if (y == x)
				continue;
			for (uint32_t m = g->off[y]; m < g->off[y + 1]; m++) {
				uint32_t r2 = g->nbr[m];

				if (r2 == r)
					continue;
				for (uint32_t q = g->off[r2]; q < g->off[r2 + 1]; q++) {
					uint32_t w = g->nbr[q];

					if (w == y || w == x || a->stamp[w] == x)
						continue;
					if (a->stamp[w] != x + g->n) {
						a->stamp[w] = x + g->n;
						a->cnt[w] = 0;
						touch[(*ntouch)++] = w;
					}
					a->cnt[w]++;
				}
			}
		}
	}
}

static int parallel(struct kan *a)
{
	const struct tgraph *g = a->g;
	uint32_t *touch = malloc(((size_t)g->n + 1) * sizeof(*touch));

	if (!touch || uf_init(&a->xu, g->n)) {
		free(touch);
		return KR_ENOMEM;
	}
	memset(a->stamp, 0xff, g->n * sizeof(*a->stamp));
	for (uint32_t x = 0; x < g->n; x++) {
		uint32_t nt = 0;

		if (is_router(a, x))
			continue;
		for (uint32_t i = g->off[x]; i < g->off[x + 1]; i++)
			for (uint32_t j = g->off[g->nbr[i]]; j < g->off[g->nbr[i] + 1]; j++)
				a->stamp[g->nbr[j]] = x;
		count_parallel(a, x, touch, &nt);
		for (uint32_t i = 0; i < nt; i++)
			if (a->cnt[touch[i]] >= 2)
				uf_union(&a->xu, x, touch[i], 0);
	}
	free(touch);
	return KR_OK;
}

static int crossbar_classes(struct kan *a)
{
	const struct tgraph *g = a->g;
	uint32_t *id = malloc(((size_t)g->n + 1) * sizeof(*id));

	a->xcls = malloc(((size_t)g->n + 1) * sizeof(*a->xcls));
	a->csize = calloc((size_t)g->n + 1, sizeof(*a->csize));
	a->crep = malloc(((size_t)g->n + 1) * sizeof(*a->crep));
	if (!id || !a->xcls || !a->csize || !a->crep) {
		free(id);
		return KR_ENOMEM;
	}
	memset(id, 0xff, ((size_t)g->n + 1) * sizeof(*id));
	for (uint32_t x = 0; x < g->n; x++) {
		uint32_t r;

		a->xcls[x] = KR_NONE;
		if (is_router(a, x))
			continue;
		r = uf_find(&a->xu, x, NULL);
		if (id[r] == KR_NONE) {
			id[r] = a->ncls;
			a->crep[a->ncls++] = x;
		}
		a->xcls[x] = id[r];
		a->csize[id[r]]++;
	}
	free(id);
	return KR_OK;
}

/* Crossbars at one router are in different dimensions. */
static int exclusions(struct kan *a, struct pmap *m)
{
	const struct tgraph *g = a->g;

	for (uint32_t r = 0; r < g->n; r++) {
		if (!is_router(a, r))
			continue;
		for (uint32_t i = g->off[r]; i < g->off[r + 1]; i++)
			for (uint32_t j = i + 1; j < g->off[r + 1]; j++) {
				uint32_t c1 = a->xcls[g->nbr[i]], c2 = a->xcls[g->nbr[j]];

				if (c1 == c2)
					return kr_fail(a->x->d, KR_ETOPO, 0, "router "
						       "\"%s\" meets the parallel "
						       "crossbars \"%s\" and \"%s\"",
						       nm(a, r), nm(a, g->nbr[i]),
						       nm(a, g->nbr[j]));
				if (pmap_add(m, c1, c2, 0))
					return KR_ENOMEM;
			}
	}
	return KR_OK;
}

static int dimensions(struct kan *a)
{
	struct pmap m = { 0 };
	uint32_t *xo = NULL, *xa = NULL, *xc = NULL;
	struct grouping gp = { .maxg = a->n };
	int rc = crossbar_classes(a);

	if (!rc)
		rc = exclusions(a, &m);
	a->cgroup = malloc(((size_t)a->ncls + 1) * sizeof(*a->cgroup));
	if (!rc)
		rc = a->cgroup ? pmap_csr(&m, a->ncls, -1, &xo, &xa, &xc) : KR_ENOMEM;
	if (!rc) {
		gp.ncls = a->ncls;
		gp.size = a->csize;
		gp.xoff = xo, gp.xadj = xa, gp.group = a->cgroup;
		rc = group_classes(&gp);
	}
	if (rc == KR_ETOPO)
		kr_fail(a->x->d, rc, 0, "cannot tell the dimension of crossbar "
			"\"%s\"", nm(a, a->crep[gp.stuck]));
	pmap_free(&m);
	free(xo), free(xa), free(xc);
	return rc;
}

static int dim_of(const struct kan *a, uint32_t x)
{
	return a->cgroup[a->xcls[x]];
}

/* Hyperplane of every router in every dimension (kns_place.c). */
static int hyperplanes(struct kan *a)
{
	const struct tgraph *g = a->g;
	uint8_t *router = malloc((size_t)g->n + 1);
	int *xdim = malloc(((size_t)g->n + 1) * sizeof(*xdim));
	struct khyper h = { .f = a->x->f, .g = g, .router = router, .xdim = xdim,
			    .n = a->n, .k = a->k, .d = a->x->d,
			    .notes = a->x->notes };
	int rc = KR_ENOMEM;

	a->hp = h.hp = malloc(((size_t)g->n * a->n + 1) * sizeof(*a->hp));
	if (router && xdim && a->hp) {
		for (uint32_t s = 0; s < g->n; s++) {
			router[s] = (uint8_t)is_router(a, s);
			xdim[s] = router[s] ? -1 : dim_of(a, s);
		}
		rc = kns_hyperplanes(&h);
	}
	free(router);
	free(xdim);
	return rc;
}

/* What labelling adds: the dimension numbers and per dimension the value
 * of each hyperplane. */
struct klab {
	int dim[KR_MAX_DIM];		/* recognition dim -> grid dim */
	int16_t val[KR_MAX_DIM][256];	/* hyperplane -> coordinate, -1 */
	uint64_t hmin[KR_MAX_DIM][256];	/* lowest GUID per hyperplane */
};

static uint32_t hpl(const struct kan *a, uint32_t r, unsigned d)
{
	return a->hp[(size_t)r * a->n + d];
}

static void hyper_minima(const struct kan *a, struct klab *kl)
{
	const struct kr_fabric *f = a->x->f;

	for (unsigned d = 0; d < a->n; d++)
		for (unsigned h = 0; h < 256; h++) {
			kl->hmin[d][h] = UINT64_MAX;
			kl->val[d][h] = -1;
		}
	for (uint32_t r = 0; r < a->g->n; r++)
		for (unsigned d = 0; d < a->n && is_router(a, r); d++)
			if (f->guid[r] < kl->hmin[d][hpl(a, r, d)])
				kl->hmin[d][hpl(a, r, d)] = f->guid[r];
}

/* Hyperplanes without a value yet take the free values, the origin's
 * first, then by their lowest GUID. */
static void fill_values(const struct kan *a, struct klab *kl, unsigned d)
{
	uint8_t used[256] = { 0 };
	unsigned next = 0, ho = hpl(a, a->o, d);

	for (unsigned h = 0; h < a->k; h++)
		if (kl->val[d][h] >= 0)
			used[kl->val[d][h]] = 1;
	for (;;) {
		int best = -1;

		for (unsigned h = 0; h < a->k; h++) {
			if (kl->val[d][h] >= 0 || kl->hmin[d][h] == UINT64_MAX)
				continue;
			if (best < 0 || ((unsigned)best != ho &&
			    (h == ho || kl->hmin[d][h] < kl->hmin[d][best])))
				best = (int)h;
		}
		if (best < 0)
			return;
		while (used[next])
			next++;
		used[next] = 1;
		kl->val[d][best] = (int16_t)next;
	}
}

/* Unnumbered dimensions take the free numbers by the lowest GUID on the
 * origin's line. */
static void order_dims(const struct kan *a, struct klab *kl)
{
	uint64_t key[KR_MAX_DIM];
	unsigned taken = 0;

	for (unsigned d = 0; d < a->n; d++) {
		key[d] = UINT64_MAX;
		if (kl->dim[d] >= 0)
			taken |= 1u << kl->dim[d];
	}
	for (uint32_t r = 0; r < a->g->n; r++) {
		unsigned diff = 0, dd = 0;

		for (unsigned d = 0; d < a->n && is_router(a, r); d++)
			if (hpl(a, r, d) != hpl(a, a->o, d)) {
				diff++;
				dd = d;
			}
		if (diff == 1 && a->x->f->guid[r] < key[dd])
			key[dd] = a->x->f->guid[r];
	}
	for (;;) {
		int best = -1, j = 0;

		for (unsigned d = 0; d < a->n; d++)
			if (kl->dim[d] < 0 && (best < 0 || key[d] < key[best]))
				best = (int)d;
		if (best < 0)
			return;
		while (taken >> j & 1)
			j++;
		kl->dim[best] = j;
		taken |= 1u << j;
	}
}

static void conf_kns(struct kan *a, struct klab *kl)
{
	const struct kr_conf *c = a->x->c;
	struct notes *cf = a->x->conflicts;

	if (c->ndim && c->ndim != a->n)
		notes_add(cf, "dims: %u dimensions, but the fabric is a %u-ary "
			  "%u-direct KNS", c->ndim, a->k, a->n);
	for (unsigned j = 0; j < c->ndim; j++)
		if (c->k[j] && c->k[j] != a->k)
			notes_add(cf, "dims: dimension %u has size %u, but the "
				  "fabric is a %u-ary KNS", j, c->k[j], a->k);
	for (unsigned j = 0; j < KR_MAX_DIM; j++)
		if (c->wrap[j] == 1)
			notes_add(cf, "wrap: dimension %u of a KNS cannot wrap", j);
	for (unsigned i = 0; i < c->nseed_port; i++) {
		const struct kr_seed_port *sp = &c->seed_port[i];
		const struct kr_fabric *f = a->x->f;
		uint32_t slot = kr_port(f, a->o, sp->port), x;

		if (sp->port > f->nports[a->o] || f->peer[slot] < 0 ||
		    (x = f->owner[f->peer[slot]]) >= f->nsw ||
		    is_router(a, x) || sp->dir < 0 || sp->dim >= a->n ||
		    (kl->dim[dim_of(a, x)] >= 0 &&
		     kl->dim[dim_of(a, x)] != sp->dim)) {
			notes_add(cf, "seed_port %u: expected a + port of the seed "
				  "router leading to a crossbar of dimension %u",
				  sp->port, sp->dim);
			continue;
		}
		for (unsigned d = 0; d < a->n; d++)
			if (kl->dim[d] == sp->dim && (int)d != dim_of(a, x))
				notes_add(cf, "seed_port %u: dimension %u is "
					  "already another crossbar's", sp->port,
					  sp->dim);
		kl->dim[dim_of(a, x)] = sp->dim;
	}
}

static unsigned pinned_coord(const struct lab *pl, uint32_t pos, unsigned j)
{
	uint32_t st = 1;

	for (unsigned i = 0; i < j; i++)
		st *= pl->k[i];
	return pos / st % pl->k[j];
}

/* Recognition dimension d explains pinned dimension j when equal
 * hyperplanes always carry equal pinned values and vice versa. */
static int pin_match(const struct kan *a, struct klab *kl, unsigned d,
		     unsigned j)
{
	const struct lab *pl = &a->x->pins->lab;
	int16_t val[256], back[256];

	memset(val, 0xff, sizeof(val));
	memset(back, 0xff, sizeof(back));
	for (uint32_t r = 0; r < a->g->n; r++) {
		unsigned h, v;

		if (!is_router(a, r) || pl->sw_pos[r] == KR_NONE)
			continue;
		h = hpl(a, r, d);
		v = pinned_coord(pl, pl->sw_pos[r], j);
		if ((val[h] >= 0 && val[h] != (int)v) ||
		    (back[v] >= 0 && back[v] != (int)h))
			return 0;
		val[h] = (int16_t)v;
		back[v] = (int16_t)h;
	}
	memcpy(kl->val[d], val, sizeof(val));
	kl->dim[d] = (int)j;
	return 1;
}

static int pins_kns(const struct kan *a, struct klab *kl)
{
	const struct lab *pl = &a->x->pins->lab;

	if (pl->family != KR_FAMILY_KNS || pl->ndim != a->n)
		return 0;
	for (unsigned j = 0; j < a->n; j++) {
		int ok = pl->k[j] == a->k;

		for (unsigned d = 0; d < a->n && ok; d++)
			if (kl->dim[d] < 0 && pin_match(a, kl, d, j))
				break;
			else if (d + 1 == a->n)
				ok = 0;
		if (!ok)
			return 0;
	}
	return 1;
}

static int fill_kns(const struct kan *a, const struct klab *kl, struct lab *l)
{
	const struct tgraph *g = a->g;
	uint32_t stride[KR_MAX_DIM];
	int rc = lab_alloc(l, g->n);

	if (rc)
		return rc;
	l->family = KR_FAMILY_KNS;
	l->ndim = a->n;
	for (unsigned j = 0, st = 1; j < a->n; st *= a->k, j++) {
		l->k[j] = a->k;
		stride[j] = st;
	}
	for (uint32_t r = 0; r < g->n; r++) {
		if (!is_router(a, r))
			continue;
		l->sw_pos[r] = 0;
		for (unsigned d = 0; d < a->n; d++)
			l->sw_pos[r] += (uint32_t)kl->val[d][hpl(a, r, d)] *
					stride[kl->dim[d]];
	}
	for (uint32_t x = 0; x < g->n; x++) {
		unsigned d, j;
		uint32_t r = x;

		if (is_router(a, x))
			continue;
		d = (unsigned)dim_of(a, x);
		j = (unsigned)kl->dim[d];
		/* its line is a router's: the first neighbour may be a leaf
		 * switch hanging off the crossbar */
		for (uint32_t i = g->off[x]; i < g->off[x + 1]; i++)
			if (is_router(a, r = g->nbr[i]))
				break;
		if (!is_router(a, r))
			continue;
		l->sw_xdim[x] = (uint8_t)j;
		l->sw_xline[x] = l->sw_pos[r] -
				 (uint32_t)kl->val[d][hpl(a, r, d)] * stride[j];
	}
	return KR_OK;
}

static int pins_hold(const struct kan *a, const struct lab *l)
{
	const struct lab *pl = &a->x->pins->lab;

	for (uint32_t s = 0; s < a->g->n; s++) {
		if (pl->sw_pos[s] != KR_NONE && pl->sw_pos[s] != l->sw_pos[s])
			return 0;
		if (pl->sw_xdim[s] != KR_NO_DIM &&
		    (pl->sw_xdim[s] != l->sw_xdim[s] ||
		     pl->sw_xline[s] != l->sw_xline[s]))
			return 0;
	}
	return 1;
}

static void klab_reset(const struct kan *a, struct klab *kl)
{
	hyper_minima(a, kl);
	for (unsigned d = 0; d < KR_MAX_DIM; d++)
		kl->dim[d] = -1;
}

static int numbered(struct kan *a, struct klab *kl, struct lab *l)
{
	order_dims(a, kl);
	for (unsigned d = 0; d < a->n; d++)
		fill_values(a, kl, d);
	return fill_kns(a, kl, l);
}

/* Pinned coordinates when they fit every pinned switch, else conf and the
 * default rules (a coordinates file that does not fit is a conflict, a
 * cache that does not fit is set aside). */
static int label(struct kan *a, struct klab *kl, struct lab *l)
{
	const struct pins *p = a->x->pins;
	struct notes_mark m = notes_mark(a->x->notes);
	int rc;

	klab_reset(a, kl);
	if (p && p->npinned) {
		if (pins_kns(a, kl)) {
			rc = numbered(a, kl, l);
			if (rc || pins_hold(a, l))
				return rc;
			lab_free(l);
		}
		if (!p->from_cache) {
			notes_add(a->x->conflicts, "coords_file %s: its "
				  "coordinates do not fit the fabric's KNS",
				  p->path);
			return KR_OK;
		}
		notes_rewind(a->x->notes, m);
		notes_add(a->x->notes, "coords_cache %s not used: its "
			  "coordinates do not fit the fabric's KNS", p->path);
		klab_reset(a, kl);
	}
	conf_kns(a, kl);
	return numbered(a, kl, l);
}

static void pick_origin(struct kan *a)
{
	const struct kr_fabric *f = a->x->f;
	uint32_t seed = a->x->c->seed_guid ?
			kr_node_by_guid(f, a->x->c->seed_guid) : KR_NONE;

	a->o = KR_NONE;
	for (uint32_t v = 0; v < a->g->n; v++)
		if (is_router(a, v) && (a->o == KR_NONE || f->guid[v] < f->guid[a->o]))
			a->o = v;
	if (!a->x->c->seed_guid)
		return;
	if (seed < f->nsw && is_router(a, seed))
		a->o = seed;
	else
		notes_add(a->x->conflicts, "seed 0x%016llx: no such router",
			  (unsigned long long)a->x->c->seed_guid);
}

static void kan_free(struct kan *a)
{
	free(a->side);
	uf_free(&a->xu);
	free(a->xcls);
	free(a->csize);
	free(a->crep);
	free(a->cgroup);
	free(a->hp);
	free(a->cnt);
	free(a->stamp);
}

static int attempt(struct rctx *x, int no_ca_side, struct lab *l)
{
	struct kan a = { .x = x, .g = x->g };
	struct klab *kl = malloc(sizeof(*kl));
	unsigned before = x->conflicts->n;
	size_t n = (size_t)x->g->n + 1;
	int rc;

	a.side = malloc(n);
	a.cnt = malloc(n * sizeof(*a.cnt));
	a.stamp = malloc(n * sizeof(*a.stamp));
	rc = a.side && a.cnt && a.stamp && kl ? sides(&a, no_ca_side) : KR_ENOMEM;
	if (!rc)
		rc = shared(&a);
	if (!rc)
		rc = parallel(&a);
	if (!rc)
		rc = dimensions(&a);
	if (!rc)
		rc = hyperplanes(&a);
	if (!rc) {
		pick_origin(&a);
		rc = label(&a, kl, l);
	}
	if (!rc && x->conflicts->n > before)
		rc = kr_fail(x->d, KR_ETOPO, 0, "knsroute.conf does not fit the "
			     "fabric");
	if (rc)
		lab_free(l);
	kan_free(&a);
	free(kl);
	return rc;
}

int kns_lines(struct rctx *x, struct lab *l)
{
	int rc = attempt(x, 0, l);

	if (rc == KR_ETOPO && kns_candidate(x->g) == 2)
		rc = attempt(x, 1, l);
	if (rc == KR_ENOMEM)
		kr_fail(x->d, rc, 0, "out of memory");
	return rc;
}
