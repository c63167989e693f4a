/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Torus and mesh recognition, part one: the prime factors of the switch
 * graph, read from the graph alone.
 *
 * A torus or mesh is a Cartesian product of rings and paths. Its prime
 * factors are rings of k >= 3 except 4 (C4 = K2 x K2), paths of k >= 3 and
 * K2s; the 4-rings and 2-rings come back in the reading (torus_label.c).
 *
 * 1. Opposite links of a chordless square are translates of each other,
 *    and so are the links of a triangle (only a 3-ring has triangles). A
 *    union-find over links, with one orientation bit per link, turns these
 *    into classes: "cuts", the links between two neighbouring layers of one
 *    dimension (all links of a 3-ring, of a K2).
 * 2. Two links at a switch that span a square belong to different
 *    dimensions, so their classes exclude each other; group_classes()
 *    sorts the classes into dimensions by these exclusions alone. Two
 *    links that span neither a square nor a triangle are consecutive in
 *    one dimension and orient each other's classes.
 * 3. Integer potentials along a BFS tree over the settled links give
 *    coordinates, and the gcd of the mismatches around cycles is the ring
 *    size (none: a path). Switches reached only over links whose
 *    dimension the exclusions left open are placed by torus_place.c.
 *
 * Missing links and switches only remove squares and consecutive pairs;
 * they never add any, which is why the exclusions are trusted. Everything
 * is local (switch degree <= 16), so the cost is linear in links. */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEG (2 * KR_MAX_DIM)

struct tan {
	struct rctx *x;
	const struct tgraph *g;
	struct uf eu;		/* links (edges) into classes */
	uint32_t *ecls;		/* [nedge] class */
	uint8_t *epar;		/* [nedge] orientation relative to the class */
	uint32_t ncls;
	uint32_t *csize;	/* [ncls] edges */
	uint32_t *cedge;	/* [ncls] one edge, for messages */
	struct pmap orth;	/* classes spanning a square */
	struct pmap cons;	/* consecutive classes; counter = orientation */
	int *cgroup;		/* [ncls] prime dimension */
	unsigned ng;
	struct uf cu;		/* class orientation within a dimension */
	uint8_t *flip;		/* [ncls] per orientation root: 0, 1, 2 unknown */
	int32_t *pot;		/* [nsw * ng] */
	uint8_t *seen;		/* [nsw] */
	uint32_t gcd[TOPO_MAX_PRIME];
	uint32_t root;		/* where potentials start (pick_root) */
};

static const char *nm(const struct tan *t, uint32_t sw)
{
	return kr_node_name(t->x->f, sw);
}

static unsigned dirbit(const struct tgraph *g, uint32_t e, uint32_t from)
{
	return from != g->eu[e];
}

/* Common neighbours of a and b other than skip: how many, and the first. */
static unsigned common(const struct tgraph *g, uint32_t a, uint32_t b,
		       uint32_t skip, uint32_t *w)
{
	uint32_t i = g->off[a], j = g->off[b];
	unsigned n = 0;

	while (i < g->off[a + 1] && j < g->off[b + 1]) {
		if (g->nbr[i] < g->nbr[j]) {
			i++;
		} else if (g->nbr[i] > g->nbr[j]) {
			j++;
		} else {
			if (g->nbr[i] != skip && !n++)
				*w = g->nbr[i];
			i++;
			j++;
		}
	}
	return n;
}

static uint32_t edge(const struct tgraph *g, uint32_t a, uint32_t b)
{
	return g->eid[tg_find(g, a, b)];
}

enum { PAIR_NONE, PAIR_TRI, PAIR_SQUARE };

/* What links v-a and v-b span; negative with a reason when no product of
 * rings and paths has that shape. */
static int pair_kind(struct tan *t, uint32_t v, uint32_t a, uint32_t b,
		     uint32_t *w)
{
	const struct tgraph *g = t->g;
	unsigned n = common(g, a, b, v, w);

	if (tg_find(g, a, b) != KR_NONE) {
		if (n)
			return kr_fail(t->x->d, KR_ETOPO, 0, "switches \"%s\", "
				       "\"%s\" and \"%s\" form a triangle with "
				       "another common neighbour", nm(t, v),
				       nm(t, a), nm(t, b));
		return PAIR_TRI;
	}
	if (n >= 2)
		return kr_fail(t->x->d, KR_ETOPO, 0, "switches \"%s\" and \"%s\" "
			       "have %u common neighbours; in a torus or mesh "
			       "two switches share at most 2", nm(t, a),
			       nm(t, b), n + 1);
	return n ? PAIR_SQUARE : PAIR_NONE;
}

static int join_pair(struct tan *t, uint32_t v, uint32_t a, uint32_t b,
		     int kind, uint32_t w)
{
	const struct tgraph *g = t->g;
	uint32_t e1 = edge(g, v, a), e2 = edge(g, v, b), e3, e4;
	int bad;

	if (kind == PAIR_TRI) {	/* v->a, a->b, b->v turn the same way */
		e3 = edge(g, a, b);
		bad = uf_union(&t->eu, e1, e3, dirbit(g, e1, v) ^ dirbit(g, e3, a)) |
		      uf_union(&t->eu, e3, e2, dirbit(g, e3, a) ^ dirbit(g, e2, b));
	} else {		/* v->a parallels b->w, v->b parallels a->w */
		e3 = edge(g, a, w);
		e4 = edge(g, b, w);
		bad = uf_union(&t->eu, e1, e4, dirbit(g, e1, v) ^ dirbit(g, e4, b)) |
		      uf_union(&t->eu, e2, e3, dirbit(g, e2, v) ^ dirbit(g, e3, a));
	}
	if (bad)
		return kr_fail(t->x->d, KR_ETOPO, 0, "the squares around switch "
			       "\"%s\" contradict each other (a twisted or "
			       "crossed link?)", nm(t, v));
	return KR_OK;
}

static int squares(struct tan *t)
{
	const struct tgraph *g = t->g;

	for (uint32_t v = 0; v < g->n; v++) {
		if (tg_deg(g, v) > MAX_DEG)
			return kr_fail(t->x->d, KR_ETOPO, 0, "switch \"%s\" has "
				       "%u switch neighbours; a torus or mesh of "
				       "up to %d dimensions has at most %d",
				       nm(t, v), tg_deg(g, v), KR_MAX_DIM, MAX_DEG);
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
			for (uint32_t j = i + 1; j < g->off[v + 1]; j++) {
				uint32_t w = 0;
				int kind = pair_kind(t, v, g->nbr[i], g->nbr[j], &w);

				if (kind < 0)
					return kind;
				if (kind != PAIR_NONE &&
				    join_pair(t, v, g->nbr[i], g->nbr[j], kind, w))
					return KR_ETOPO;
			}
	}
	return KR_OK;
}

static int number_classes(struct tan *t)
{
	const struct tgraph *g = t->g;
	uint32_t *id = malloc(((size_t)g->nedge + 1) * sizeof(*id));

	t->ecls = malloc(((size_t)g->nedge + 1) * sizeof(*t->ecls));
	t->epar = malloc((size_t)g->nedge + 1);
	t->csize = calloc((size_t)g->nedge + 1, sizeof(*t->csize));
	t->cedge = malloc(((size_t)g->nedge + 1) * sizeof(*t->cedge));
	if (!id || !t->ecls || !t->epar || !t->csize || !t->cedge) {
		free(id);
		return KR_ENOMEM;
	}
	memset(id, 0xff, ((size_t)g->nedge + 1) * sizeof(*id));
	for (uint32_t e = 0; e < g->nedge; e++) {
		uint32_t r = uf_find(&t->eu, e, &t->epar[e]);

		if (id[r] == KR_NONE) {
			id[r] = t->ncls;
			t->cedge[t->ncls++] = e;
		}
		t->ecls[e] = id[r];
		t->csize[id[r]]++;
	}
	free(id);
	return KR_OK;
}

static int relate(struct tan *t, uint32_t v, uint32_t a, uint32_t b)
{
	const struct tgraph *g = t->g;
	uint32_t w, e1 = edge(g, v, a), e2 = edge(g, v, b);
	uint32_t c1 = t->ecls[e1], c2 = t->ecls[e2];
	int kind = pair_kind(t, v, a, b, &w);

	unsigned rel = (t->epar[e1] ^ dirbit(g, e1, a)) ^
		       (t->epar[e2] ^ dirbit(g, e2, v));	/* a->v, v->b */

	if (kind == PAIR_TRI)
		return KR_OK;
	/* one class twice at a switch: only a 3-ring that lost a link */
	if (c1 == c2 && (kind == PAIR_SQUARE || rel))
		return kr_fail(t->x->d, KR_ETOPO, 0, "links \"%s\" - \"%s\" and "
			       "\"%s\" - \"%s\" would be translates of each "
			       "other", nm(t, v), nm(t, a), nm(t, v), nm(t, b));
	if (c1 == c2)
		return KR_OK;
	if (kind == PAIR_SQUARE)
		return pmap_add(&t->orth, c1, c2, 0);
	return pmap_add(&t->cons, c1, c2, rel);
}

static int relations(struct tan *t)
{
	const struct tgraph *g = t->g;
	int rc = KR_OK;

	for (uint32_t v = 0; v < g->n && !rc; v++)
		for (uint32_t i = g->off[v]; i < g->off[v + 1] && !rc; i++)
			for (uint32_t j = i + 1; j < g->off[v + 1] && !rc; j++)
				rc = relate(t, v, g->nbr[i], g->nbr[j]);
	return rc;
}

static int dimensions(struct tan *t)
{
	uint32_t *xo = NULL, *xa = NULL, *xc = NULL;
	struct grouping gp = { .ncls = t->ncls, .size = t->csize,
			       .maxg = TOPO_MAX_PRIME, .partial = 1 };
	int rc;

	t->cgroup = malloc(((size_t)t->ncls + 1) * sizeof(*t->cgroup));
	rc = t->cgroup ? pmap_csr(&t->orth, t->ncls, -1, &xo, &xa, &xc) : KR_ENOMEM;
	if (!rc) {
		gp.xoff = xo, gp.xadj = xa;
		gp.group = t->cgroup;
		rc = group_classes(&gp);
		t->ng = gp.ng;
	}
	if (rc == KR_ETOPO) {
		uint32_t e = t->cedge[gp.stuck];

		kr_fail(t->x->d, rc, 0, "cannot tell the dimension of link "
			"\"%s\" - \"%s\"%s", nm(t, t->g->eu[e]), nm(t, t->g->ev[e]),
			t->ng >= TOPO_MAX_PRIME ? " (too many dimensions)" : "");
	}
	free(xo), free(xa), free(xc);
	return rc;
}

/* Orients the classes of each dimension against each other along the
 * consecutive pairs; the orientation of what stays apart (the halves of a
 * K2 cut split by faults) is settled from the potentials later. */
static int orient(struct tan *t)
{
	const struct pmap *m = &t->cons;

	if (uf_init(&t->cu, t->ncls))
		return KR_ENOMEM;
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t a, b;

		if (!m->key[i])
			continue;
		a = (uint32_t)((m->key[i] - 1) >> 32);
		b = (uint32_t)(m->key[i] - 1);
		if (t->cgroup[a] != t->cgroup[b] || t->cgroup[a] < 0)
			continue;
		if ((m->val[2 * i] && m->val[2 * i + 1]) ||
		    uf_union(&t->cu, a, b, m->val[2 * i + 1] ? 1 : 0)) {
			uint32_t e = t->cedge[a];

			return kr_fail(t->x->d, KR_ETOPO, 0, "dimension of link "
				       "\"%s\" - \"%s\" runs both ways",
				       nm(t, t->g->eu[e]), nm(t, t->g->ev[e]));
		}
	}
	t->flip = malloc((size_t)t->ncls + 1);
	if (!t->flip)
		return KR_ENOMEM;
	memset(t->flip, 2, t->ncls);
	/* the component of each dimension's largest class sets the sense */
	for (unsigned h = 0; h < t->ng; h++) {
		uint32_t best = KR_NONE;

		for (uint32_t c = 0; c < t->ncls; c++)
			if (t->cgroup[c] == (int)h &&
			    (best == KR_NONE || t->csize[c] > t->csize[best]))
				best = c;
		if (best != KR_NONE)
			t->flip[uf_find(&t->cu, best, NULL)] = 0;
	}
	return KR_OK;
}

static uint32_t orient_root(struct tan *t, uint32_t e, uint8_t *par)
{
	return uf_find(&t->cu, t->ecls[e], par);
}

/* Links whose dimension and sense are settled. */
static int known(struct tan *t, uint32_t e)
{
	return t->cgroup[t->ecls[e]] >= 0 &&
	       t->flip[orient_root(t, e, NULL)] != 2;
}

/* +1 when going from `from` along e is the + sense of its dimension. */
static int step(struct tan *t, uint32_t e, uint32_t from)
{
	uint8_t p;
	uint32_t r = orient_root(t, e, &p);

	return (t->epar[e] ^ p ^ t->flip[r] ^ dirbit(t->g, e, from)) ? -1 : 1;
}

/* The potentials start in the largest part that the settled links join
 * (the first of equals): the rest goes to the placement search, which
 * then has the fewest switches left to place. Faults can cut the settled
 * links into parts; a walk that started in a small one left a cluster
 * too large to search. */
static int pick_root(struct tan *t)
{
	const struct tgraph *g = t->g;
	uint8_t *met = calloc((size_t)g->n + 1, 1);
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	uint32_t best = 0;

	if (!met || !queue) {
		free(met);
		free(queue);
		return KR_ENOMEM;
	}
	t->root = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t head = 0, tail = 0;

		if (met[v])
			continue;
		met[v] = 1;
		queue[tail++] = v;
		while (head < tail)
			for (uint32_t u = queue[head++], i = g->off[u]; i < g->off[u + 1]; i++)
				if (!met[g->nbr[i]] && known(t, g->eid[i])) {
					met[g->nbr[i]] = 1;
					queue[tail++] = g->nbr[i];
				}
		if (tail > best) {
			best = tail;
			t->root = v;
		}
	}
	free(met);
	free(queue);
	return KR_OK;
}

static void bfs(struct tan *t, uint32_t *queue)
{
	const struct tgraph *g = t->g;
	uint32_t head = 0, tail = 0;
	unsigned ng = t->ng;

	memset(t->seen, 0, g->n);
	memset(t->pot, 0, (size_t)g->n * ng * sizeof(*t->pot));
	t->seen[t->root] = 1;
	queue[tail++] = t->root;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t e = g->eid[i], w = g->nbr[i];

			if (t->seen[w] || !known(t, e))
				continue;
			t->seen[w] = 1;
			memcpy(t->pot + (size_t)w * ng, t->pot + (size_t)v * ng,
			       ng * sizeof(*t->pot));
			t->pot[(size_t)w * ng + t->cgroup[t->ecls[e]]] += step(t, e, v);
			queue[tail++] = w;
		}
	}
}

/* The potential difference of a link in dimension h, the smallest in
 * absolute value modulo the ring size found so far (0: none). */
static uint32_t apart(const struct tan *t, uint32_t u, uint32_t v, unsigned h)
{
	int32_t dd = t->pot[(size_t)v * t->ng + h] - t->pot[(size_t)u * t->ng + h];
	uint32_t a = (uint32_t)(dd < 0 ? -dd : dd), k = t->gcd[h];

	if (k) {
		a %= k;
		a = a > k - a ? k - a : a;
	}
	return a;
}

/* A link whose dimension is unknown (faults took all its squares) still
 * joins neighbours: one step in one dimension. When its ends lie one step
 * apart in one dimension and far apart in exactly one other, the BFS went
 * round that other one both ways, and it is a ring of that length. */
static void unknown_link_rings(struct tan *t)
{
	const struct tgraph *g = t->g;

	for (uint32_t e = 0; e < g->nedge; e++) {
		uint32_t u = g->eu[e], v = g->ev[e], far = 0;
		unsigned nunit = 0, nfar = 0, hfar = 0;

		if (!t->seen[u] || !t->seen[v] || known(t, e))
			continue;
		for (unsigned h = 0; h < t->ng; h++) {
			uint32_t a = apart(t, u, v, h);

			nunit += a == 1;
			if (a >= 2) {
				nfar++;
				hfar = h;
				far = a;
			}
		}
		if (nunit == 1 && nfar == 1 && far >= 3)
			t->gcd[hfar] = kr_gcd(t->gcd[hfar], far);
	}
}

/* Around every cycle the potentials of a ring dimension may differ by a
 * multiple of its size, those of a path not at all. */
static void mismatch(struct tan *t)
{
	const struct tgraph *g = t->g;
	unsigned ng = t->ng;

	memset(t->gcd, 0, sizeof(t->gcd));
	for (uint32_t e = 0; e < g->nedge; e++) {
		uint32_t u = g->eu[e], v = g->ev[e];
		int s, g0 = t->cgroup[t->ecls[e]];

		if (!t->seen[u] || !t->seen[v] || !known(t, e))
			continue;
		s = step(t, e, u);
		for (unsigned h = 0; h < ng; h++) {
			int32_t dd = t->pot[(size_t)u * ng + h] + ((int)h == g0 ? s : 0) -
				     t->pot[(size_t)v * ng + h];

			t->gcd[h] = kr_gcd(t->gcd[h], (uint32_t)(dd < 0 ? -dd : dd));
		}
	}
	unknown_link_rings(t);
}

static int congruent(int32_t a, int32_t b, uint32_t m)
{
	int64_t dd = (int64_t)a - b;

	return m ? dd % (int64_t)m == 0 : dd == 0;
}

/* Orients a class component nobody oriented yet from the potentials its
 * ends already have. */
static int settle(struct tan *t, int *progress)
{
	const struct tgraph *g = t->g;

	for (uint32_t e = 0; e < g->nedge; e++) {
		uint32_t u = g->eu[e], v = g->ev[e], r = orient_root(t, e, NULL);
		int g0 = t->cgroup[t->ecls[e]], s;
		int32_t dd;

		if (g0 < 0 || t->flip[r] != 2 || !t->seen[u] || !t->seen[v])
			continue;
		dd = t->pot[(size_t)v * t->ng + g0] - t->pot[(size_t)u * t->ng + g0];
		t->flip[r] = 0;
		s = step(t, e, u);
		if (!congruent(dd, s, t->gcd[g0])) {
			t->flip[r] = 1;
			if (!congruent(dd, -s, t->gcd[g0]))
				return kr_fail(t->x->d, KR_ETOPO, 0, "link \"%s\" - "
					       "\"%s\" joins switches that are not "
					       "neighbours in its dimension",
					       nm(t, u), nm(t, v));
		}
		*progress = 1;
	}
	return KR_OK;
}

static int potentials(struct tan *t)
{
	uint32_t *queue = malloc(((size_t)t->g->n + 1) * sizeof(*queue));
	int rc = KR_OK, progress = 1;

	t->pot = malloc(((size_t)t->g->n * t->ng + 1) * sizeof(*t->pot));
	t->seen = malloc((size_t)t->g->n + 1);
	if (!queue || !t->pot || !t->seen) {
		free(queue);
		return KR_ENOMEM;
	}
	while (progress && !rc) {
		progress = 0;
		bfs(t, queue);
		mismatch(t);
		rc = settle(t, &progress);
	}
	free(queue);
	return rc;
}

static int coordinates(struct tan *t, struct prime *pr)
{
	const struct tgraph *g = t->g;
	struct tplace pl = { .g = g, .ng = t->ng, .pot = t->pot, .seen = t->seen,
			     .f = t->x->f, .notes = t->x->notes,
			     .jointly = t->x->jointly };
	uint32_t stuck = 0, (*nlinks)[256] = calloc(TOPO_MAX_PRIME,
						     sizeof(*nlinks));
	uint64_t npos = 1;
	int rc, left = 0;

	if (!nlinks)
		return KR_ENOMEM;
	memcpy(pl.ring, t->gcd, sizeof(pl.ring));
	for (uint32_t e = 0; e < g->nedge; e++) {
		int h = t->cgroup[t->ecls[e]];

		if (h >= 0)
			nlinks[h][g->mult[e] < 256 ? g->mult[e] : 255]++;
	}
	for (unsigned h = 0; h < t->ng; h++)
		pr->mult[h] = tg_usual_mult(nlinks[h]);
	free(nlinks);
	memcpy(pl.mult, pr->mult, sizeof(pl.mult));
	for (unsigned h = 0; h < t->ng; h++)
		if (pl.ring[h] && pl.ring[h] < 3)
			return kr_fail(t->x->d, KR_ETOPO, 0, "a cycle winds %u "
				       "step%s round a dimension: twisted links",
				       pl.ring[h], pl.ring[h] == 1 ? "" : "s");
	for (uint32_t v = 0; v < g->n; v++)
		left |= !t->seen[v];
	rc = place_rest(&pl, &stuck);
	/* refused later, the search's placement is the one to doubt */
	t->x->searched = !rc && left;
	if (rc == KR_ETOPO)
		return kr_fail(t->x->d, rc, 0, "switch \"%s\" cannot be placed: "
			       "too many links or switches around it are "
			       "missing (a coords_file places every switch, "
			       "knsroute.conf(5))", nm(t, stuck));
	if (rc)
		return rc;
	close_rings(&pl);
	pr->ng = t->ng;
	pr->coord = malloc(((size_t)g->n * t->ng + 1) * sizeof(*pr->coord));
	if (!pr->coord)
		return KR_ENOMEM;
	for (unsigned h = 0; h < t->ng; h++) {
		int32_t k = (int32_t)pl.ring[h];

		pr->ring[h] = k != 0;
		pr->k[h] = k ? (unsigned)k : (unsigned)(pl.hi[h] - pl.lo[h] + 1);
		npos *= pr->k[h];
		if (npos > TOPO_MAX_POS || pr->k[h] > 255)
			return kr_fail(t->x->d, KR_ETOPO, 0, "the grid would have "
				       "more than %u positions or a side above "
				       "255", TOPO_MAX_POS);
		for (uint32_t v = 0; v < g->n; v++) {
			int32_t c = t->pot[(size_t)v * t->ng + h];

			pr->coord[(size_t)v * t->ng + h] =
				(uint16_t)(k ? ((c % k) + k) % k : c - pl.lo[h]);
		}
	}
	return KR_OK;
}

void prime_free(struct prime *p)
{
	free(p->coord);
	*p = (struct prime){ 0 };
}

static void tan_free(struct tan *t)
{
	uf_free(&t->eu);
	uf_free(&t->cu);
	free(t->ecls);
	free(t->epar);
	free(t->csize);
	free(t->cedge);
	pmap_free(&t->orth);
	pmap_free(&t->cons);
	free(t->cgroup);
	free(t->flip);
	free(t->pot);
	free(t->seen);
}

int topo_torus(struct rctx *x, struct lab *l)
{
	struct tan t = { .x = x, .g = x->g };
	struct prime pr = { 0 };
	int rc = uf_init(&t.eu, x->g->nedge);

	if (!rc)
		rc = squares(&t);
	if (!rc)
		rc = number_classes(&t);
	if (!rc)
		rc = relations(&t);
	if (!rc)
		rc = dimensions(&t);
	if (!rc)
		rc = orient(&t);
	if (!rc)
		rc = pick_root(&t);
	if (!rc)
		rc = potentials(&t);
	if (!rc)
		rc = coordinates(&t, &pr);
	tan_free(&t);
	if (!rc)
		rc = torus_label(x, &pr, l);
	prime_free(&pr);
	if (rc == KR_ENOMEM)
		kr_fail(x->d, rc, 0, "out of memory");
	return rc;
}
