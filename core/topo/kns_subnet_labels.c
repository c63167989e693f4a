/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* KNS with fat-tree subnets: the labels of the subnet switches.
 *
 * ksub_build labels every subnet switch [d, p, e, o] from the links
 * (for recognition and for pinned coordinates alike). Order o has base-a
 * digits w_0 .. w_{s-2}; a link between stages j and j+1 changes digit j
 * only. So a stage-e switch's digits e .. s-2 are those of the routers
 * below it (a stage-0 switch's order is its routers' coordinate / a), and
 * its digit j < e numbers its component of the switches above stage j
 * among those of its component above stage j-1, by lowest GUID (the tree
 * is symmetric there: any numbering routes alike). */
#include "topo_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct skey {
	uint64_t line;		/* xline * ndim + xdim */
	uint32_t key;		/* order without digit e */
	uint64_t guid;
	uint32_t sw;
};

static int cmp_skey(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->guid > y->guid) - (x->guid < y->guid);
}

static const char *nm(const struct rctx *x, uint32_t sw)
{
	return kr_node_name(x->f, sw);
}

/* Arity from the first stage; a^s must be k. */
static int arity(struct rctx *x, struct kr_topo *t, const uint8_t *router)
{
	const struct tgraph *g = x->g;
	uint32_t reach = 1;

	t->arity = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		unsigned nr = 0;

		if (!router[v] && t->sw_stage[v] == KR_NO_DIM)
			return kr_fail(x->d, KR_ETOPO, 0, "switch \"%s\" reaches "
				       "no router through its subnet", nm(x, v));
		for (uint32_t i = g->off[v]; t->sw_stage[v] == 0 && i < g->off[v + 1]; i++)
			nr += router[g->nbr[i]];
		if (nr > t->arity)
			t->arity = nr;
	}
	for (unsigned e = 0; e < t->s && reach <= t->k[0]; e++)
		reach *= t->arity;
	if (t->arity < 2 || reach != t->k[0])
		return kr_fail(x->d, KR_ETOPO, 0, "subnets of %u stages whose "
			       "first stage meets up to %u routers cannot join "
			       "the %u routers of a line as a fat tree", t->s,
			       t->arity, t->k[0]);
	return KR_OK;
}

/* A stage-0 switch's order: its routers' coordinate / a, one block. */
static int first_stage(struct rctx *x, struct kr_topo *t, uint32_t v)
{
	const struct tgraph *g = x->g;
	unsigned d = t->sw_xdim[v];
	uint32_t o = KR_NONE, any = KR_NONE;

	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		uint32_t w = g->nbr[i], c;

		if (t->sw_pos[w] == KR_NONE)
			continue;
		c = kr_topo_coord(t, t->sw_pos[w], d) / t->arity;
		if (o != KR_NONE && c != o)
			return kr_fail(x->d, KR_ETOPO, 0, "subnet switch \"%s\" "
				       "links routers \"%s\" and \"%s\" of "
				       "different blocks of %u", nm(x, v),
				       nm(x, any), nm(x, w), t->arity);
		o = c;
		any = w;
	}
	t->sw_order[v] = o;
	for (unsigned j = 0; j < t->arity; j++) {
		uint32_t pos = t->sw_xline[v] + (o * t->arity + j) * t->stride[d];
		int32_t *xb = &t->xbar[(size_t)pos * t->ndim + d];

		if (*xb >= 0)
			return kr_fail(x->d, KR_ETOPO, 0, "subnet switches \"%s\" "
				       "and \"%s\" would serve the same routers",
				       nm(x, (uint32_t)*xb), nm(x, v));
		*xb = (int32_t)v;
	}
	return KR_OK;
}

/* Digits e .. s-2 of a stage-e switch name the routers below it: those of
 * any child without its digit e-1. */
static int high_digits(struct rctx *x, struct kr_topo *t, unsigned e)
{
	const struct tgraph *g = x->g;
	uint32_t unit = 1, a = t->arity;

	for (unsigned i = 1; i < e; i++)
		unit *= a;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t key = KR_NONE;

		if (t->sw_stage[v] != e)
			continue;
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t w = g->nbr[i], o = t->sw_order[w], kk;

			if (t->sw_pos[w] != KR_NONE || t->sw_stage[w] + 1u != e)
				continue;
			kk = o - o / unit % a * unit;
			if (key != KR_NONE && kk != key)
				return kr_fail(x->d, KR_ETOPO, 0, "subnet switch "
					       "\"%s\" joins stage-%u switches "
					       "of different subtrees", nm(x, v),
					       e - 1);
			key = kk;
		}
		t->sw_order[v] = key;
	}
	return KR_OK;
}

/* Digit j (< e) of a stage-e switch changes only on links between stages
 * j and j+1: it tells apart the components of stages above j, ranked by
 * lowest GUID within their component of stages above j-1 (or line). */
static int low_digit(struct rctx *x, struct kr_topo *t, unsigned j,
		     uint32_t *comp, uint32_t *queue, struct skey *sk)
{
	const struct tgraph *g = x->g;
	uint32_t unit = 1, nc = 0;

	for (unsigned i = 0; i < j; i++)
		unit *= t->arity;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t head = 0, tail = 0;
		uint64_t parent;

		if (t->sw_pos[v] != KR_NONE || t->sw_stage[v] <= j ||
		    comp[(size_t)j * g->n + v] != KR_NONE)
			continue;
		parent = j ? comp[(size_t)(j - 1) * g->n + v] :
			 (uint64_t)t->sw_xline[v] * t->ndim + t->sw_xdim[v];
		sk[nc] = (struct skey){ parent, 0, x->f->guid[v], nc };
		comp[(size_t)j * g->n + v] = nc;
		queue[tail++] = v;
		while (head < tail)
			for (uint32_t u = queue[head++], i = g->off[u]; i < g->off[u + 1]; i++) {
				uint32_t w = g->nbr[i];

				if (t->sw_pos[w] != KR_NONE || t->sw_stage[w] <= j ||
				    comp[(size_t)j * g->n + w] != KR_NONE)
					continue;
				comp[(size_t)j * g->n + w] = nc;
				if (x->f->guid[w] < sk[nc].guid)
					sk[nc].guid = x->f->guid[w];
				queue[tail++] = w;
			}
		nc++;
	}
	qsort(sk, nc, sizeof(*sk), cmp_skey);
	for (uint32_t i = 0, rank = 0; i < nc; i++) {
		rank = i && sk[i].line == sk[i - 1].line ? rank + 1 : 0;
		if (rank >= t->arity)
			return kr_fail(x->d, KR_ETOPO, 0, "more than %u parts of "
				       "a subnet above stage %u: too many links "
				       "missing inside it", t->arity, j);
		queue[sk[i].sw] = rank;
	}
	for (uint32_t v = 0; v < g->n; v++)
		if (t->sw_pos[v] == KR_NONE && t->sw_stage[v] > j)
			t->sw_order[v] += queue[comp[(size_t)j * g->n + v]] * unit;
	return KR_OK;
}

/* No two switches of a line with one stage and order. */
static int distinct(struct rctx *x, struct kr_topo *t, struct skey *sk)
{
	uint32_t ns = 0;

	for (uint32_t v = 0; v < x->g->n; v++)
		if (t->sw_pos[v] == KR_NONE)
			sk[ns++] = (struct skey){ (uint64_t)t->sw_xline[v] * t->ndim +
						  t->sw_xdim[v], t->sw_stage[v] *
						  65536u + t->sw_order[v], 0, v };
	qsort(sk, ns, sizeof(*sk), cmp_skey);
	for (uint32_t i = 1; i < ns; i++)
		if (sk[i].line == sk[i - 1].line && sk[i].key == sk[i - 1].key)
			return kr_fail(x->d, KR_ETOPO, 0, "subnet switches \"%s\" "
				       "and \"%s\" would both be stage %u, order "
				       "%u", nm(x, sk[i - 1].sw), nm(x, sk[i].sw),
				       t->sw_stage[sk[i].sw], t->sw_order[sk[i].sw]);
	return KR_OK;
}

static void count_missing(struct rctx *x, struct kr_topo *t)
{
	const struct tgraph *g = x->g;
	uint64_t per = t->k[0] / t->arity, nline = (uint64_t)t->ndim * t->npos / t->k[0];
	uint64_t nsw = 0, nlink = 0, want_sw = nline * t->s * per,
		 want_link = nline * (t->s - 1) * per * t->arity;

	for (uint32_t v = 0; v < g->n; v++)
		nsw += t->sw_pos[v] == KR_NONE;
	for (uint32_t e = 0; e < g->nedge; e++)
		if (t->sw_pos[g->eu[e]] == KR_NONE && t->sw_pos[g->ev[e]] == KR_NONE)
			nlink += g->mult[e];
	t->nmissing_subsw = (uint32_t)(want_sw > nsw ? want_sw - nsw : 0);
	t->nmissing_sublink = (uint32_t)(want_link > nlink ? want_link - nlink : 0);
}

/* Whether the labelling has a place for link u - w: a router on its own
 * line's subnet, or two switches of one subnet. Another one is a cable in
 * the wrong switch, which label_ports (build.c) leaves alone. */
static bool in_place(const void *ctx, uint32_t u, uint32_t w)
{
	const struct kr_topo *t = ctx;
	bool ru = t->sw_pos[u] != KR_NONE, rw = t->sw_pos[w] != KR_NONE;
	uint32_t r = ru ? u : w, x = ru ? w : u;
	unsigned d = t->sw_xdim[x];

	if (ru == rw)
		return !ru && t->sw_xdim[u] == t->sw_xdim[w] &&
		       t->sw_xline[u] == t->sw_xline[w];
	return d < t->ndim && t->sw_pos[r] - kr_topo_coord(t, t->sw_pos[r], d) *
					     t->stride[d] == t->sw_xline[x];
}

/* ksub_build on a graph whose every link has its place. */
static int ksub_label(struct rctx *x, struct kr_topo *t)
{
	const struct tgraph *g = x->g;
	uint8_t *router = malloc((size_t)g->n + 1);
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	struct skey *sk = malloc(((size_t)g->n + 1) * sizeof(*sk));
	uint32_t *comp = NULL;
	int rc = KR_ENOMEM;

	t->sw_stage = malloc((size_t)g->n + 1);
	t->sw_order = malloc(((size_t)g->n + 1) * sizeof(*t->sw_order));
	if (!router || !queue || !sk || !t->sw_stage || !t->sw_order)
		goto out;
	for (uint32_t v = 0; v < g->n; v++)
		router[v] = t->sw_pos[v] != KR_NONE;
	t->s = kns_stages(g, router, t->sw_stage, queue);
	rc = arity(x, t, router);
	for (uint32_t v = 0; !rc && v < g->n; v++)
		if (t->sw_stage[v] == 0)
			rc = first_stage(x, t, v);
	for (unsigned e = 1; !rc && e < t->s; e++)
		rc = high_digits(x, t, e);
	if (!rc && !(comp = malloc(((size_t)t->s * g->n + 1) * sizeof(*comp))))
		rc = KR_ENOMEM;
	if (!rc)
		memset(comp, 0xff, (size_t)t->s * g->n * sizeof(*comp));
	for (unsigned j = 0; !rc && j + 1 < t->s; j++)
		rc = low_digit(x, t, j, comp, queue, sk);
	if (!rc)
		rc = distinct(x, t, sk);
	if (!rc)
		count_missing(x, t);
out:
	free(router);
	free(queue);
	free(sk);
	free(comp);
	return rc;
}

int ksub_build(struct rctx *x, struct kr_topo *t)
{
	const struct tgraph *all = x->g;
	struct tgraph placed;
	int rc = tg_filter(x->g, in_place, t, &placed);

	if (rc)
		return rc;
	x->g = &placed;
	rc = ksub_label(x, t);
	x->g = all;
	tg_free(&placed);
	return rc;
}
