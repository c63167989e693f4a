/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* KNS recognition, part two: router coordinates once every crossbar has
 * its dimension.
 *
 * A router's coordinate in dimension d is its hyperplane: the component of
 * the routers joined by crossbars of the other dimensions. A router cut off
 * from its hyperplane by missing links forms a small component of its own.
 * The k largest components are the hyperplanes (those tied in size with
 * the k-th, when more of them than places are left, only may be); a
 * cut-off component goes to the one hyperplane that no router on its own
 * dimension-d crossbars holds (those differ from it in d). When several
 * remain, the places the settled routers already occupy decide (two
 * routers never share one), then a search for the first reading in which
 * every hyperplane holds a router and every crossbar a line of its own;
 * each choice it makes is noted. */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

/* A cut-off component of dimension d with more than one hyperplane left. */
struct open_comp {
	unsigned d;
	uint32_t root;
	uint8_t *cand;		/* [k] 1: hyperplane still possible */
};

struct kp {
	struct khyper *h;
	uint32_t *root;		/* [nsw * n] component root per dimension */
	uint32_t *major;	/* [nsw] major index + 1 of a root (scratch) */
	struct open_comp *open;
	unsigned nopen;
	size_t cap;
};

static int is_router(const struct kp *kp, uint32_t s)
{
	return kp->h->router[s];
}

static int by_key(const void *pa, const void *pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	return (x > y) - (x < y);
}

/* Roots of the routers' components, largest first (ties by root). */
static uint32_t sorted_roots(const struct kp *kp, struct uf *u, uint64_t *key)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < kp->h->g->n; r++)
		if (is_router(kp, r) && uf_find(u, r, NULL) == r)
			key[n++] = (uint64_t)(UINT32_MAX - u->size[r]) << 32 | r;
	qsort(key, n, sizeof(*key), by_key);
	return n;
}

/* Hyperplanes that a component's dimension-d crossbars already hold. */
static void taken_by_lines(struct kp *kp, struct uf *u, unsigned d,
			   uint32_t comp, uint8_t *taken)
{
	const struct tgraph *g = kp->h->g;

	for (uint32_t w = 0; w < g->n; w++) {
		if (!is_router(kp, w) || uf_find(u, w, NULL) != comp)
			continue;
		for (uint32_t i = g->off[w]; i < g->off[w + 1]; i++) {
			uint32_t x = g->nbr[i];

			if (kp->h->xdim[x] != (int)d)
				continue;
			for (uint32_t j = g->off[x]; j < g->off[x + 1]; j++) {
				uint32_t m = kp->major[uf_find(u, g->nbr[j], NULL)];

				if (m)
					taken[m - 1] = 1;
			}
		}
	}
}

static int add_open(struct kp *kp, unsigned d, uint32_t root, uint8_t *cand)
{
	if (kr_grow(&kp->open, &kp->cap, (size_t)kp->nopen + 1,
		    sizeof(*kp->open)))
		return KR_ENOMEM;
	kp->open[kp->nopen++] = (struct open_comp){ d, root, cand };
	return KR_OK;
}

/* Cut-off components (key[nmajor ..]): one free hyperplane joins them to
 * it, several are kept open for the occupancy pass. Hyperplane j's root
 * is key[j] below nmajor; above, the first component it is left to. */
static int cut_off(struct kp *kp, struct uf *u, unsigned d, const uint64_t *key,
		   uint32_t nroot, uint32_t nmajor)
{
	unsigned k = kp->h->k;
	uint32_t *hroot = malloc(((size_t)k + 1) * sizeof(*hroot));

	if (!hroot)
		return KR_ENOMEM;
	for (uint32_t j = 0; j < k; j++)
		hroot[j] = j < nmajor ? (uint32_t)key[j] : KR_NONE;
	for (uint32_t i = nmajor; i < nroot; i++) {
		uint32_t e = (uint32_t)key[i], pick = 0, nfree = 0;
		uint8_t *cand = calloc(k, 1);

		if (!cand) {
			free(hroot);
			return KR_ENOMEM;
		}
		taken_by_lines(kp, u, d, e, cand);
		for (uint32_t j = 0; j < k; j++) {
			cand[j] ^= 1;
			if (cand[j]) {
				pick = j;
				nfree++;
			}
		}
		if (nfree == 1 && hroot[pick] != KR_NONE) {
			uf_union(u, hroot[pick], e, 0);	/* it stays the root */
		} else if (nfree == 1) {
			hroot[pick] = e;
			kp->major[e] = pick + 1;
		}
		if (nfree == 1 || !nfree)
			free(cand);
		if (!nfree) {
			free(hroot);
			return kr_fail(kp->h->d, KR_ETOPO, 0, "router %s fits no "
				       "place in dimension %u",
				       kr_node_label(kp->h->f, e).s, d);
		}
		if (nfree > 1 && add_open(kp, d, e, cand)) {
			free(cand);
			free(hroot);
			return KR_ENOMEM;
		}
	}
	free(hroot);
	return KR_OK;
}

static int one_dim(struct kp *kp, struct uf *u, unsigned d, uint64_t *key)
{
	const struct khyper *h = kp->h;
	const struct tgraph *g = h->g;
	uint32_t nroot, nmajor;
	int rc;

	for (uint32_t x = 0; x < g->n; x++)
		if (!h->router[x] && h->xdim[x] != (int)d)
			for (uint32_t i = g->off[x] + 1; i < g->off[x + 1]; i++)
				uf_union(u, g->nbr[g->off[x]], g->nbr[i], 0);
	nroot = sorted_roots(kp, u, key);
	nmajor = nroot < h->k ? nroot : h->k;
	/* components as large as the k-th, more of them than places: which
	 * are hyperplanes is for the search (a crossbar left with one
	 * router makes such a tie) */
	if (nroot > h->k && key[h->k - 1] >> 32 == key[h->k] >> 32)
		while (nmajor > 0 && key[nmajor - 1] >> 32 == key[h->k] >> 32)
			nmajor--;
	memset(kp->major, 0, g->n * sizeof(*kp->major));
	for (uint32_t j = 0; j < nmajor; j++)
		kp->major[(uint32_t)key[j]] = j + 1;
	rc = cut_off(kp, u, d, key, nroot, nmajor);
	for (uint32_t r = 0; r < g->n && !rc; r++) {
		uint32_t m;

		if (!h->router[r])
			continue;
		kp->root[(size_t)r * h->n + d] = uf_find(u, r, NULL);
		m = kp->major[kp->root[(size_t)r * h->n + d]];
		h->hp[(size_t)r * h->n + d] = m ? m - 1 : KR_NONE;
	}
	return rc;
}

/* Place of a router (hyperplanes as digits), KR_NONE while one is open. */
static uint32_t place_of(const struct khyper *h, uint32_t r)
{
	uint32_t pos = 0, st = 1;

	for (unsigned d = 0; d < h->n; st *= h->k, d++) {
		if (h->hp[(size_t)r * h->n + d] == KR_NONE)
			return KR_NONE;
		pos += h->hp[(size_t)r * h->n + d] * st;
	}
	return pos;
}

static void occupy(uint8_t *busy, uint32_t pos)
{
	if (pos != KR_NONE)
		busy[pos >> 3] |= (uint8_t)(1u << (pos & 7));
}

/* Puts an open component's routers into hyperplane c. */
static void settle(struct kp *kp, struct open_comp *oc, unsigned c,
		   uint8_t *busy)
{
	struct khyper *h = kp->h;

	for (uint32_t r = 0; r < h->g->n; r++)
		if (h->router[r] && kp->root[(size_t)r * h->n + oc->d] == oc->root) {
			h->hp[(size_t)r * h->n + oc->d] = c;
			occupy(busy, place_of(h, r));
		}
	free(oc->cand);
	oc->cand = NULL;
}

/* oc's routers out of their hyperplane again, the places of those
 * before router upto freed. */
static void unplace(struct kp *kp, struct open_comp *oc, uint8_t *busy,
		    uint32_t upto)
{
	struct khyper *h = kp->h;

	for (uint32_t r = 0; r < h->g->n; r++) {
		uint32_t pos;

		if (!h->router[r] || kp->root[(size_t)r * h->n + oc->d] != oc->root)
			continue;
		pos = place_of(h, r);
		if (pos != KR_NONE && r < upto)
			busy[pos >> 3] &= (uint8_t)~(1u << (pos & 7));
		h->hp[(size_t)r * h->n + oc->d] = KR_NONE;
	}
}

/* Whether putting oc's routers into hyperplane c collides with a taken
 * place; if not, puts them there and takes the places now known. */
static int try_place(struct kp *kp, struct open_comp *oc, unsigned c,
		     uint8_t *busy)
{
	struct khyper *h = kp->h;
	uint32_t n = h->g->n;

	for (uint32_t r = 0; r < n; r++)
		if (h->router[r] && kp->root[(size_t)r * h->n + oc->d] == oc->root)
			h->hp[(size_t)r * h->n + oc->d] = c;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t pos;

		if (!h->router[r] || kp->root[(size_t)r * h->n + oc->d] != oc->root)
			continue;
		pos = place_of(h, r);
		if (pos == KR_NONE)
			continue;
		if (busy[pos >> 3] >> (pos & 7) & 1) {
			unplace(kp, oc, busy, r);
			return 0;
		}
		occupy(busy, pos);
	}
	return 1;
}

/* Whether, every router placed, each hyperplane holds a router, each
 * crossbar's routers sit on one line of its dimension and no two crossbars
 * of a dimension share a line. Only this tells apart the readings that
 * swap a crossbar left with one router for a full one. */
static int reading_holds(const struct kp *kp)
{
	const struct khyper *h = kp->h;
	const struct tgraph *g = h->g;
	uint32_t npos = 1, stride[KR_MAX_DIM], *own;
	int ok = 1;

	for (unsigned d = 0; d < h->n; npos *= h->k, d++)
		stride[d] = npos;
	own = malloc(((size_t)npos * h->n + 1) * sizeof(*own));
	if (!own)
		return 0;	/* no reading to offer: refused, not crashed */
	memset(own, 0xff, (size_t)npos * h->n * sizeof(*own));
	for (uint32_t r = 0; r < g->n; r++)	/* hyperplanes held: first k */
		for (unsigned d = 0; h->router[r] && d < h->n; d++)
			if (h->hp[(size_t)r * h->n + d] != KR_NONE)
				own[(size_t)d * npos + h->hp[(size_t)r * h->n + d]] = r;
	for (unsigned d = 0; d < h->n; d++)
		for (unsigned c = 0; c < h->k; c++)
			ok &= own[(size_t)d * npos + c] != KR_NONE;
	memset(own, 0xff, (size_t)npos * h->n * sizeof(*own));
	for (uint32_t x = 0; ok && x < g->n; x++) {
		uint32_t line = KR_NONE;
		unsigned d;

		if (h->router[x] || h->xdim[x] < 0)
			continue;
		d = (unsigned)h->xdim[x];
		for (uint32_t i = g->off[x]; ok && i < g->off[x + 1]; i++) {
			uint32_t r = g->nbr[i], pos = h->router[r] ?
				place_of(h, r) : KR_NONE, l;

			if (pos == KR_NONE)
				continue;
			l = pos - h->hp[(size_t)r * h->n + d] * stride[d];
			ok = line == KR_NONE || line == l;
			line = l;
		}
		if (ok && line != KR_NONE) {
			uint32_t *o = &own[(size_t)d * npos + line];

			ok = *o == KR_NONE || *o == x;
			*o = x;
		}
	}
	free(own);
	return ok;
}

/* Depth-first over the open components from the i-th: the first
 * hyperplanes (in order) under which no two routers share a place and the
 * reading holds. */
static int search(struct kp *kp, unsigned i, uint8_t *busy, unsigned *budget)
{
	struct open_comp *oc;

	while (i < kp->nopen && !kp->open[i].cand)
		i++;
	if (i == kp->nopen)
		return reading_holds(kp);
	oc = &kp->open[i];
	for (unsigned c = 0; c < kp->h->k; c++) {
		if (!oc->cand[c] || !*budget)
			continue;
		--*budget;
		if (!try_place(kp, oc, c, busy))
			continue;
		if (search(kp, i + 1, busy, budget))
			return 1;
		unplace(kp, oc, busy, kp->h->g->n);
	}
	return 0;
}

/* The open components narrowing could not settle, settled together by a
 * search (the choice of one constrains the others'): the first reading
 * that fits, each choice noted. The places left fit the links equally
 * (missing ones from the same crossbars), so any such reading is a KNS
 * the fabric is a part of; the coordinates cache keeps it, and drops it
 * should a returning link disagree. 0 when none fits. */
static int choose(struct kp *kp, uint8_t *busy)
{
	unsigned budget = 100000;

	if (!search(kp, 0, busy, &budget))
		return 0;
	for (unsigned i = 0; i < kp->nopen; i++) {
		struct open_comp *oc = &kp->open[i];
		unsigned n = 0;

		if (!oc->cand)
			continue;
		for (unsigned c = 0; c < kp->h->k; c++)
			n += oc->cand[c];
		notes_add(kp->h->notes, "router %s placed at %u in "
			  "dimension %u of the %u places its missing links "
			  "leave open", kr_node_label(kp->h->f, oc->root).s,
			  kp->h->hp[(size_t)oc->root * kp->h->n + oc->d],
			  oc->d, n);
		free(oc->cand);
		oc->cand = NULL;
	}
	return 1;
}

/* Drops the hyperplanes of an open component that would put one of its
 * routers on a taken place; settles it when one is left. */
static int narrow(struct kp *kp, struct open_comp *oc, uint8_t *busy)
{
	struct khyper *h = kp->h;
	unsigned left = 0, last = 0;

	for (unsigned c = 0; c < h->k; c++) {
		for (uint32_t r = 0; r < h->g->n && oc->cand[c]; r++) {
			uint32_t pos;

			if (!h->router[r] || kp->root[(size_t)r * h->n + oc->d] != oc->root)
				continue;
			h->hp[(size_t)r * h->n + oc->d] = c;
			pos = place_of(h, r);
			h->hp[(size_t)r * h->n + oc->d] = KR_NONE;
			if (pos != KR_NONE && (busy[pos >> 3] >> (pos & 7) & 1))
				oc->cand[c] = 0;
		}
		if (oc->cand[c]) {
			left++;
			last = c;
		}
	}
	if (left != 1)
		return 0;
	settle(kp, oc, last, busy);
	return 1;
}

static int settle_open(struct kp *kp)
{
	struct khyper *h = kp->h;
	uint64_t npos = 1;
	uint8_t *busy;
	int progress = 1;

	for (unsigned d = 0; d < h->n; d++)
		npos *= h->k;
	if (!kp->nopen)
		return KR_OK;
	if (!(busy = calloc(npos / 8 + 1, 1)))	/* npos checked by sides() */
		return KR_ENOMEM;
	for (uint32_t r = 0; r < h->g->n; r++)
		if (h->router[r])
			occupy(busy, place_of(h, r));
	while (progress) {
		progress = 0;
		for (unsigned i = 0; i < kp->nopen; i++)
			if (kp->open[i].cand && narrow(kp, &kp->open[i], busy))
				progress = 1;
	}
	choose(kp, busy);
	free(busy);
	for (unsigned i = 0; i < kp->nopen; i++)
		if (kp->open[i].cand)
			return kr_fail(h->d, KR_ETOPO, 0, "router %s cannot be "
				       "placed in dimension %u: too many links "
				       "around it are missing",
				       kr_node_label(h->f, kp->open[i].root).s,
				       kp->open[i].d);
	return KR_OK;
}

int kns_hyperplanes(struct khyper *h)
{
	const struct tgraph *g = h->g;
	struct kp kp = { .h = h };
	struct uf u = { 0 };
	uint64_t *key = malloc(((size_t)g->n + 1) * sizeof(*key));
	int rc = KR_OK;

	kp.root = malloc(((size_t)g->n * h->n + 1) * sizeof(*kp.root));
	kp.major = malloc(((size_t)g->n + 1) * sizeof(*kp.major));
	if (!key || !kp.root || !kp.major)
		rc = KR_ENOMEM;
	for (unsigned d = 0; d < h->n && !rc; d++) {
		uf_free(&u);
		rc = uf_init(&u, g->n);
		if (!rc)
			rc = one_dim(&kp, &u, d, key);
	}
	if (!rc)
		rc = settle_open(&kp);
	for (unsigned i = 0; i < kp.nopen; i++)
		free(kp.open[i].cand);
	free(kp.open);
	uf_free(&u);
	free(kp.root);
	free(kp.major);
	free(key);
	return rc;
}
