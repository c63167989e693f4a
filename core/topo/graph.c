/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Building blocks of recognition: the simple switch graph, union-find with
 * parity, pair counters, and the rule that sorts classes into dimensions. */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void tg_free(struct tgraph *g)
{
	free(g->off);
	free(g->nbr);
	free(g->eid);
	free(g->eu);
	free(g->ev);
	free(g->mult);
	free(g->nca);
	*g = (struct tgraph){ 0 };
}

uint32_t tg_find(const struct tgraph *g, uint32_t a, uint32_t b)
{
	uint32_t lo = g->off[a], hi = g->off[a + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->nbr[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->off[a + 1] && g->nbr[lo] == b ? lo : KR_NONE;
}

/* Every switch-to-switch port's far switch, sorted per switch; CA links
 * counted on the side. */
static int gather(const struct kr_fabric *f, struct tgraph *g, uint32_t **raw,
		  uint32_t *rawoff)
{
	uint32_t total = 0;

	for (uint32_t v = 0; v < f->nsw; v++) {
		rawoff[v] = total;
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
			uint32_t w;

			if (f->peer[s] < 0)
				continue;
			w = f->owner[f->peer[s]];
			if (w == v)
				continue;	/* a loopback cable: no link of the
						 * grid (label_ports says so) */
			if (w < f->nsw)
				total++;
			else
				g->nca[v]++;
		}
	}
	rawoff[f->nsw] = total;
	*raw = malloc(((size_t)total + 1) * sizeof(**raw));
	if (!*raw)
		return KR_ENOMEM;
	for (uint32_t v = 0, i = 0; v < f->nsw; v++) {
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++)
			if (f->peer[s] >= 0 && f->owner[f->peer[s]] < f->nsw &&
			    f->owner[f->peer[s]] != v)
				(*raw)[i++] = f->owner[f->peer[s]];
		qsort(*raw + rawoff[v], rawoff[v + 1] - rawoff[v],
		      sizeof(**raw), cmp_u32);
	}
	return KR_OK;
}

static int tg_alloc(struct tgraph *g, uint32_t n, uint32_t nraw)
{
	g->n = n;
	g->off = calloc((size_t)n + 1, sizeof(*g->off));
	g->nbr = malloc(((size_t)nraw + 1) * sizeof(*g->nbr));
	g->eid = malloc(((size_t)nraw + 1) * sizeof(*g->eid));
	g->eu = malloc(((size_t)nraw / 2 + 1) * sizeof(*g->eu));
	g->ev = malloc(((size_t)nraw / 2 + 1) * sizeof(*g->ev));
	g->mult = malloc(((size_t)nraw / 2 + 1) * sizeof(*g->mult));
	return g->off && g->nbr && g->eid && g->eu && g->ev && g->mult ?
	       KR_OK : KR_ENOMEM;
}

/* Deduplicates the sorted runs into neighbour lists; an edge gets its id
 * at its lower end, the higher end looks it up there. */
static void dedupe(struct tgraph *g, const uint32_t *raw, const uint32_t *rawoff)
{
	uint32_t m = 0;

	for (uint32_t v = 0; v < g->n; v++) {
		g->off[v] = m;
		for (uint32_t i = rawoff[v]; i < rawoff[v + 1]; ) {
			uint32_t w = raw[i], j = i;

			while (j < rawoff[v + 1] && raw[j] == w)
				j++;
			g->nbr[m] = w;
			if (v < w) {
				g->eid[m] = g->nedge;
				g->eu[g->nedge] = v;
				g->ev[g->nedge] = w;
				g->mult[g->nedge++] = (uint16_t)(j - i);
			} else {
				g->eid[m] = g->eid[tg_find(g, w, v)];
			}
			m++;
			i = j;
		}
		g->off[v + 1] = m;
	}
}

int tg_from_lists(struct tgraph *g, uint32_t n, uint32_t *raw,
		  const uint32_t *rawoff)
{
	int rc;

	for (uint32_t v = 0; v < n; v++)
		qsort(raw + rawoff[v], rawoff[v + 1] - rawoff[v], sizeof(*raw),
		      cmp_u32);
	rc = tg_alloc(g, n, rawoff[n]);
	if (!rc)
		dedupe(g, raw, rawoff);
	else
		tg_free(g);
	return rc;
}

int tg_filter(const struct tgraph *g,
	      bool (*keep)(const void *ctx, uint32_t u, uint32_t w),
	      const void *ctx, struct tgraph *out)
{
	uint32_t *off, *raw, n = 0;
	int rc;

	for (uint32_t e = 0; e < g->nedge; e++)
		n += 2 * g->mult[e];	/* each link from both ends */
	*out = (struct tgraph){ 0 };
	off = malloc(((size_t)g->n + 1) * sizeof(*off));
	raw = malloc(((size_t)n + 1) * sizeof(*raw));
	out->nca = malloc(((size_t)g->n + 1) * sizeof(*out->nca));
	if (!off || !raw || !out->nca) {
		free(off);
		free(raw);
		tg_free(out);
		return KR_ENOMEM;
	}
	memcpy(out->nca, g->nca, (size_t)g->n * sizeof(*g->nca));
	n = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		off[v] = n;
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
			for (unsigned m = keep(ctx, v, g->nbr[i]) ?
					  g->mult[g->eid[i]] : 0; m; m--)
				raw[n++] = g->nbr[i];
	}
	off[g->n] = n;
	rc = tg_from_lists(out, g->n, raw, off);
	free(raw);
	free(off);
	return rc;
}

int tg_build(const struct kr_fabric *f, struct tgraph *g)
{
	uint32_t *raw = NULL, *rawoff = malloc(((size_t)f->nsw + 1) * sizeof(*rawoff));
	int rc;

	*g = (struct tgraph){ 0 };
	g->nca = calloc((size_t)f->nsw + 1, sizeof(*g->nca));
	rc = rawoff && g->nca ? gather(f, g, &raw, rawoff) : KR_ENOMEM;
	if (!rc)
		rc = tg_alloc(g, f->nsw, rawoff[f->nsw]);
	if (!rc)
		dedupe(g, raw, rawoff);
	free(raw);
	free(rawoff);
	if (rc)
		tg_free(g);
	return rc;
}

unsigned tg_usual_mult(const uint32_t nlinks[256])
{
	unsigned best = 0;

	for (unsigned m = 1; m < 256; m++)
		if (nlinks[m] && nlinks[m] >= nlinks[best])
			best = m;
	return best;
}

int uf_init(struct uf *u, uint32_t n)
{
	u->parent = malloc(((size_t)n + 1) * sizeof(*u->parent));
	u->size = malloc(((size_t)n + 1) * sizeof(*u->size));
	u->par = calloc((size_t)n + 1, 1);
	if (!u->parent || !u->size || !u->par)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		u->parent[i] = i;
		u->size[i] = 1;
	}
	return KR_OK;
}

void uf_free(struct uf *u)
{
	free(u->parent);
	free(u->size);
	free(u->par);
	*u = (struct uf){ 0 };
}

uint32_t uf_find(struct uf *u, uint32_t x, uint8_t *par)
{
	uint32_t r = x;
	uint8_t p = 0, q;

	while (u->parent[r] != r) {
		p ^= u->par[r];
		r = u->parent[r];
	}
	/* second walk: hang every node on the way directly below the root */
	for (q = p; u->parent[x] != r && x != r; ) {
		uint32_t next = u->parent[x];
		uint8_t qn = q ^ u->par[x];

		u->parent[x] = r;
		u->par[x] = q;
		x = next;
		q = qn;
	}
	if (par)
		*par = p;
	return r;
}

int uf_union(struct uf *u, uint32_t a, uint32_t b, unsigned rel)
{
	uint8_t pa, pb;
	uint32_t ra = uf_find(u, a, &pa), rb = uf_find(u, b, &pb);

	if (ra == rb)
		return (pa ^ pb) == (rel & 1) ? 0 : -1;
	if (u->size[ra] < u->size[rb]) {
		uint32_t t = ra;

		ra = rb;
		rb = t;
	}
	u->parent[rb] = ra;
	u->par[rb] = (uint8_t)((pa ^ pb ^ rel) & 1);
	u->size[ra] += u->size[rb];
	return 0;
}

static uint32_t pmap_slot(const struct pmap *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(h >> 32) & (m->cap - 1);

	while (m->key[i] && m->key[i] != key + 1)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int pmap_grow(struct pmap *m)
{
	struct pmap nm = { .cap = m->cap ? m->cap * 2 : 256, .n = m->n };

	nm.key = calloc(nm.cap, sizeof(*nm.key));
	nm.val = calloc((size_t)nm.cap * 2, sizeof(*nm.val));
	if (!nm.key || !nm.val) {
		pmap_free(&nm);
		return KR_ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->key[i])
			continue;
		j = pmap_slot(&nm, m->key[i] - 1);
		nm.key[j] = m->key[i];
		nm.val[2 * j] = m->val[2 * i];
		nm.val[2 * j + 1] = m->val[2 * i + 1];
	}
	pmap_free(m);
	*m = nm;
	return KR_OK;
}

int pmap_add(struct pmap *m, uint32_t a, uint32_t b, unsigned which)
{
	uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
	uint32_t i;

	if (2 * (m->n + 1) > m->cap && pmap_grow(m))
		return KR_ENOMEM;
	i = pmap_slot(m, key);
	if (!m->key[i]) {
		m->key[i] = key + 1;
		m->n++;
	}
	m->val[2 * i + (which & 1)]++;
	return KR_OK;
}

void pmap_free(struct pmap *m)
{
	free(m->key);
	free(m->val);
	*m = (struct pmap){ 0 };
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Each key of m whose counter (which, or both when which < 0) is non-zero,
 * visited as (a, b, count). */
static void pmap_each(const struct pmap *m, int which,
		      void (*fn)(void *ctx, uint32_t a, uint32_t b, uint32_t c),
		      void *ctx)
{
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t c;

		if (!m->key[i])
			continue;
		c = which < 0 ? m->val[2 * i] + m->val[2 * i + 1]
			      : m->val[2 * i + which];
		if (c)
			fn(ctx, (uint32_t)((m->key[i] - 1) >> 32),
			   (uint32_t)(m->key[i] - 1), c);
	}
}

struct csr_fill {
	uint32_t *off;
	uint32_t *fill;
	uint64_t *tmp;
};

static void csr_count(void *ctx, uint32_t a, uint32_t b, uint32_t c)
{
	struct csr_fill *cf = ctx;

	(void)c;
	cf->off[a + 1]++;
	cf->off[b + 1]++;
}

static void csr_put(void *ctx, uint32_t a, uint32_t b, uint32_t c)
{
	struct csr_fill *cf = ctx;

	cf->tmp[cf->fill[a]++] = (uint64_t)b << 32 | c;
	cf->tmp[cf->fill[b]++] = (uint64_t)a << 32 | c;
}

int pmap_csr(const struct pmap *m, uint32_t n, int which, uint32_t **off,
	     uint32_t **adj, uint32_t **cnt)
{
	struct csr_fill cf;
	uint32_t total;

	*off = cf.off = calloc((size_t)n + 1, sizeof(**off));
	*adj = malloc(((size_t)m->n * 2 + 1) * sizeof(**adj));
	*cnt = malloc(((size_t)m->n * 2 + 1) * sizeof(**cnt));
	cf.tmp = malloc(((size_t)m->n * 2 + 1) * sizeof(*cf.tmp));
	cf.fill = malloc(((size_t)n + 1) * sizeof(*cf.fill));
	if (!cf.off || !*adj || !*cnt || !cf.tmp || !cf.fill) {
		free(cf.tmp);
		free(cf.fill);
		return KR_ENOMEM;
	}
	pmap_each(m, which, csr_count, &cf);
	for (uint32_t v = 0; v < n; v++) {
		cf.off[v + 1] += cf.off[v];
		cf.fill[v] = cf.off[v];
	}
	pmap_each(m, which, csr_put, &cf);
	total = cf.off[n];
	for (uint32_t v = 0; v < n; v++)
		qsort(cf.tmp + cf.off[v], cf.off[v + 1] - cf.off[v],
		      sizeof(*cf.tmp), cmp_u64);
	for (uint32_t i = 0; i < total; i++) {
		(*adj)[i] = (uint32_t)(cf.tmp[i] >> 32);
		(*cnt)[i] = (uint32_t)cf.tmp[i];
	}
	free(cf.fill);
	free(cf.tmp);
	return KR_OK;
}

static int csr_has(const uint32_t *off, const uint32_t *adj, uint32_t a,
		   uint32_t b)
{
	uint32_t lo = off[a], hi = off[a + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (adj[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < off[a + 1] && adj[lo] == b;
}

/* Groups that c may not join: those of the classes it excludes. */
static uint32_t blocked(const struct grouping *gp, uint32_t c)
{
	uint32_t mask = 0;

	for (uint32_t i = gp->xoff[c]; i < gp->xoff[c + 1]; i++)
		if (gp->group[gp->xadj[i]] >= 0)
			mask |= 1u << gp->group[gp->xadj[i]];
	return mask;
}


/* Seeds: a largest class, then every class that excludes all seeds so
 * far. Classes of one dimension never exclude each other, so the seeds
 * are in distinct dimensions. */
static int seed_groups(struct grouping *gp, const uint32_t *order)
{
	uint32_t seed[32];

	for (uint32_t i = 0; i < gp->ncls; i++) {
		uint32_t c = order[i];
		unsigned s = 0;

		while (s < gp->ng && csr_has(gp->xoff, gp->xadj, c, seed[s]))
			s++;
		if (s < gp->ng)
			continue;
		if (gp->ng == gp->maxg || gp->ng == 32) {
			gp->stuck = c;
			return KR_ETOPO;
		}
		seed[gp->ng] = c;
		gp->group[c] = (int)gp->ng++;
	}
	return KR_OK;
}

/* A class's own dimension is never blocked, so one open group is its
 * dimension and none means a dimension without a seed yet. */
static int place_forced(struct grouping *gp, const uint32_t *order,
			uint32_t *left)
{
	int changed = 1;

	while (changed && *left) {
		changed = 0;
		for (uint32_t i = 0; i < gp->ncls; i++) {
			uint32_t c = order[i], open;

			if (gp->group[c] >= 0)
				continue;
			open = ((1u << gp->ng) - 1) & ~blocked(gp, c);
			if (open & (open - 1))
				continue;
			if (!open && gp->ng == gp->maxg) {
				gp->stuck = c;
				return KR_ETOPO;
			}
			gp->group[c] = open ? __builtin_ctz(open) : (int)gp->ng++;
			(*left)--;
			changed = 1;
		}
	}
	return KR_OK;
}

/* What the exclusions cannot place stays out (partial) or fails. */
static int leftovers(struct grouping *gp, const uint32_t *order, uint32_t left)
{
	for (uint32_t i = 0; i < gp->ncls && left; i++)
		if (gp->group[order[i]] < 0) {
			gp->stuck = order[i];
			return gp->partial ? KR_OK : KR_ETOPO;
		}
	return KR_OK;
}

int group_classes(struct grouping *gp)
{
	uint64_t *key = malloc(((size_t)gp->ncls + 1) * sizeof(*key));
	uint32_t *order = malloc(((size_t)gp->ncls + 1) * sizeof(*order));
	uint32_t left;
	int rc = KR_ENOMEM;

	gp->ng = 0;
	gp->stuck = KR_NONE;
	if (!order || !key)
		goto out;
	/* largest first, ties by id */
	for (uint32_t c = 0; c < gp->ncls; c++) {
		key[c] = (uint64_t)(UINT32_MAX - gp->size[c]) << 32 | c;
		gp->group[c] = -1;
	}
	qsort(key, gp->ncls, sizeof(*key), cmp_u64);
	for (uint32_t c = 0; c < gp->ncls; c++)
		order[c] = (uint32_t)key[c];
	rc = seed_groups(gp, order);
	left = gp->ncls - gp->ng;
	if (!rc)
		rc = place_forced(gp, order, &left);
	if (!rc)
		rc = leftovers(gp, order, left);
out:
	free(key);
	free(order);
	return rc;
}
