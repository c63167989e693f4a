/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Channel dependency graph: deduplicated edges in flat arrays with
 * intrusive out/in lists, a topological order by Kahn's algorithm, shortest
 * witness cycles by BFS, and Pearce-Kelly incremental insertion. Every
 * search is iterative: graphs of a million channels must not recurse. */
#include "kr_cdg.h"

#include <stdlib.h>
#include <string.h>

#include "kr_fabric.h"

static uint32_t hash_of(uint32_t from, uint32_t to, uint32_t mask)
{
	uint64_t key = (uint64_t)from << 32 | to;

	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static uint32_t hash_of_edge(const struct kr_cdg *g, uint32_t e)
{
	return hash_of(g->from[e], g->to[e], g->hmask);
}

int kr_cdg_init(struct kr_cdg *g, uint32_t nnode)
{
	size_t n = (size_t)nnode + 1;

	*g = (struct kr_cdg){ .nnode = nnode, .hmask = 1023 };
	g->head_out = malloc(n * sizeof(uint32_t));
	g->head_in = malloc(n * sizeof(uint32_t));
	g->ord = malloc(n * sizeof(uint32_t));
	g->mark = calloc(n, sizeof(uint32_t));
	g->aux = malloc(n * sizeof(uint32_t));
	g->stack = malloc(n * sizeof(uint32_t));
	g->todo = malloc(n * sizeof(uint32_t));
	g->hash = malloc((g->hmask + 1) * sizeof(*g->hash));
	if (!g->head_out || !g->head_in || !g->ord || !g->mark || !g->aux ||
	    !g->stack || !g->todo || !g->hash) {
		kr_cdg_free(g);
		return KR_ENOMEM;
	}
	memset(g->head_out, 0xff, n * sizeof(uint32_t));
	memset(g->head_in, 0xff, n * sizeof(uint32_t));
	for (uint32_t i = 0; i < nnode; i++)
		g->ord[i] = i;	/* no edges: any permutation is an order */
	memset(g->hash, 0xff, (g->hmask + 1) * sizeof(*g->hash));
	g->ordered = true;
	return KR_OK;
}

void kr_cdg_free(struct kr_cdg *g)
{
	free(g->from);
	free(g->to);
	free(g->tag);
	free(g->next_out);
	free(g->next_in);
	free(g->head_out);
	free(g->head_in);
	free(g->hash);
	free(g->ord);
	free(g->mark);
	free(g->aux);
	free(g->stack);
	free(g->todo);
	free(g->cycle);
	*g = (struct kr_cdg){ 0 };
}

uint32_t kr_cdg_find(const struct kr_cdg *g, uint32_t from, uint32_t to)
{
	for (uint32_t i = hash_of(from, to, g->hmask);;
	     i = (i + 1) & g->hmask) {
		uint32_t e = g->hash[i];

		if (e == KR_NONE || (g->from[e] == from && g->to[e] == to))
			return e;
	}
}

static void hash_put(struct kr_cdg *g, uint32_t e)
{
	uint32_t i = hash_of_edge(g, e);

	while (g->hash[i] != KR_NONE)
		i = (i + 1) & g->hmask;
	g->hash[i] = e;
}

static int grow_hash(struct kr_cdg *g)
{
	uint32_t mask = g->hmask * 2 + 1;
	uint32_t *h = malloc(((size_t)mask + 1) * sizeof(*h));

	if (!h)
		return KR_ENOMEM;
	memset(h, 0xff, ((size_t)mask + 1) * sizeof(*h));
	free(g->hash);
	g->hash = h;
	g->hmask = mask;
	for (uint32_t e = 0; e < g->nedge; e++)
		hash_put(g, e);
	return KR_OK;
}

static int grow_edges(struct kr_cdg *g)
{
	uint32_t cap = g->cap ? g->cap * 2 : 1024;
	uint32_t **arr[] = { &g->from, &g->to, &g->tag, &g->next_out,
			     &g->next_in };

	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
		uint32_t *p = realloc(*arr[i], (size_t)cap * sizeof(uint32_t));

		if (!p)
			return KR_ENOMEM;
		*arr[i] = p;
	}
	g->cap = cap;
	return KR_OK;
}

/* Appends a new edge (the caller knows it is absent). */
static int append(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag)
{
	uint32_t e = g->nedge;

	if ((g->nedge + 1) * 2 > g->hmask && grow_hash(g))
		return KR_ENOMEM;
	if (e == g->cap && grow_edges(g))
		return KR_ENOMEM;
	g->from[e] = from;
	g->to[e] = to;
	g->tag[e] = tag;
	g->next_out[e] = g->head_out[from];
	g->head_out[from] = e;
	g->next_in[e] = g->head_in[to];
	g->head_in[to] = e;
	hash_put(g, e);
	g->nedge++;
	return KR_OK;
}

int kr_cdg_add(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag)
{
	if (kr_cdg_find(g, from, to) != KR_NONE)
		return 0;
	if (append(g, from, to, tag))
		return KR_ENOMEM;
	g->ordered = false;
	return 1;
}

static int set_cycle(struct kr_cdg *g, const uint32_t *nodes, uint32_t n,
		     bool reverse)
{
	uint32_t *c = realloc(g->cycle, ((size_t)n + 1) * sizeof(*c));

	if (!c)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		c[i] = nodes[reverse ? n - 1 - i : i];
	g->cycle = c;
	g->ncycle = n;
	return KR_ECYCLE;
}

/* Shortest cycle through x among nodes with mark == live: BFS over out
 * edges with parents in aux, queue in stack. */
static int shortest_cycle(struct kr_cdg *g, uint32_t x, uint32_t live)
{
	uint32_t seen = ++g->stamp, head = 0, tail = 0, n = 0;

	g->stack[tail++] = x;
	g->mark[x] = seen;
	while (head < tail) {
		uint32_t u = g->stack[head++];

		for (uint32_t e = g->head_out[u]; e != KR_NONE; e = g->next_out[e]) {
			uint32_t v = g->to[e];

			if (v == x) {	/* back at the start: unwind parents */
				for (uint32_t w = u; w != x; w = g->aux[w])
					g->stack[n++] = w;
				g->stack[n++] = x;
				return set_cycle(g, g->stack, n, true);
			}
			if (g->mark[v] != live)
				continue;
			g->mark[v] = seen;
			g->aux[v] = u;
			g->stack[tail++] = v;
		}
	}
	return KR_EINVAL;	/* x was on no cycle: cannot happen */
}

/* After Kahn's algorithm, every node left (mark == live) has a predecessor
 * left; walking predecessors must repeat a node, which lies on a cycle. */
static int find_cycle(struct kr_cdg *g, uint32_t live)
{
	uint32_t v = 0, walk;

	while (g->mark[v] != live)
		v++;
	walk = ++g->stamp;
	while (g->mark[v] != walk) {
		uint32_t e = g->head_in[v];

		g->mark[v] = walk;
		while (g->mark[g->from[e]] != live && g->mark[g->from[e]] != walk)
			e = g->next_in[e];
		v = g->from[e];
	}
	/* the walk's nodes are no longer "live": mark the remaining set again
	 * so that the BFS may use all of it */
	for (uint32_t u = 0; u < g->nnode; u++)
		if (g->mark[u] == walk)
			g->mark[u] = live;
	return shortest_cycle(g, v, live);
}

int kr_cdg_order(struct kr_cdg *g)
{
	uint32_t *indeg = g->aux, head = 0, tail = 0, live;

	memset(indeg, 0, (size_t)g->nnode * sizeof(*indeg));
	for (uint32_t e = 0; e < g->nedge; e++)
		indeg[g->to[e]]++;
	for (uint32_t v = 0; v < g->nnode; v++)
		if (!indeg[v])
			g->stack[tail++] = v;
	while (head < tail) {
		uint32_t u = g->stack[head];

		g->ord[u] = head++;
		for (uint32_t e = g->head_out[u]; e != KR_NONE; e = g->next_out[e])
			if (!--indeg[g->to[e]])
				g->stack[tail++] = g->to[e];
	}
	g->ordered = tail == g->nnode;
	if (g->ordered)
		return KR_OK;
	live = ++g->stamp;
	for (uint32_t v = 0; v < g->nnode; v++)
		if (indeg[v])
			g->mark[v] = live;
	return find_cycle(g, live);
}

/* Pearce-Kelly, forward half: the nodes reachable from y whose position
 * is at most ub go to stack[0 .. *nf). Returns true when x is among them;
 * aux then holds DFS parents, so the path y .. x can be read back. */
static bool search_forward(struct kr_cdg *g, uint32_t y, uint32_t x,
			   uint32_t ub, uint32_t *nf)
{
	uint32_t seen = ++g->stamp, n = 0, top = 0;

	g->mark[y] = seen;
	g->stack[n++] = y;
	g->todo[top++] = y;
	while (top) {
		uint32_t u = g->todo[--top];

		for (uint32_t e = g->head_out[u]; e != KR_NONE; e = g->next_out[e]) {
			uint32_t v = g->to[e];

			if (g->mark[v] == seen || g->ord[v] > ub)
				continue;
			g->mark[v] = seen;
			g->aux[v] = u;
			if (v == x) {
				*nf = n;
				return true;
			}
			g->stack[n++] = v;
			g->todo[top++] = v;
		}
	}
	*nf = n;
	return false;
}

/* Backward half: the nodes reaching x whose position is at least lb, into
 * stack[nf .. nf + *nb). Disjoint from the forward set, or x would have
 * been found there. */
static void search_backward(struct kr_cdg *g, uint32_t x, uint32_t lb,
			    uint32_t nf, uint32_t *nb)
{
	uint32_t seen = ++g->stamp, n = nf, top = 0;

	g->mark[x] = seen;
	g->stack[n++] = x;
	g->todo[top++] = x;
	while (top) {
		uint32_t u = g->todo[--top];

		for (uint32_t e = g->head_in[u]; e != KR_NONE; e = g->next_in[e]) {
			uint32_t v = g->from[e];

			if (g->mark[v] == seen || g->ord[v] < lb)
				continue;
			g->mark[v] = seen;
			g->stack[n++] = v;
			g->todo[top++] = v;
		}
	}
	*nb = n - nf;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* stack holds the forward set F, then the backward set B. B moves before
 * F; each keeps its inner order; together they reuse the positions they
 * held. */
static int reorder(struct kr_cdg *g, uint32_t nf, uint32_t nb)
{
	uint32_t n = nf + nb;
	uint64_t *k = malloc(((size_t)n + 1) * sizeof(*k));
	uint32_t *pos = malloc(((size_t)n + 1) * sizeof(*pos));

	if (!k || !pos) {
		free(k);
		free(pos);
		return KR_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = g->stack[i];

		pos[i] = g->ord[v];
		k[i] = (uint64_t)(i < nf) << 63 | (uint64_t)g->ord[v] << 32 | v;
	}
	qsort(k, n, sizeof(*k), cmp_u64);
	qsort(pos, n, sizeof(*pos), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		g->ord[(uint32_t)k[i]] = pos[i];
	free(k);
	free(pos);
	return KR_OK;
}

/* Would from -> to close a cycle? With parents in aux when it would. */
static int probe(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t *nf)
{
	if (!g->ordered)
		return KR_EINVAL;
	if (from == to)
		return set_cycle(g, &from, 1, false);
	*nf = 0;
	if (g->ord[from] < g->ord[to])
		return KR_OK;
	if (!search_forward(g, to, from, g->ord[from], nf))
		return KR_OK;
	{
		uint32_t n = 0;

		for (uint32_t w = from; w != to; w = g->aux[w])
			g->stack[n++] = w;
		g->stack[n++] = to;
		return set_cycle(g, g->stack, n, true);
	}
}

bool kr_cdg_closes_cycle(struct kr_cdg *g, uint32_t from, uint32_t to)
{
	uint32_t nf;

	if (kr_cdg_find(g, from, to) != KR_NONE)
		return false;
	return probe(g, from, to, &nf) == KR_ECYCLE;
}

int kr_cdg_insert(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag)
{
	uint32_t nf, nb;
	int rc;

	if (kr_cdg_find(g, from, to) != KR_NONE)
		return 0;
	rc = probe(g, from, to, &nf);
	if (rc)
		return rc;
	if (nf) {		/* to was searched: its region needs reordering */
		search_backward(g, from, g->ord[to], nf, &nb);
		if (reorder(g, nf, nb))
			return KR_ENOMEM;
	}
	if (append(g, from, to, tag))
		return KR_ENOMEM;
	return 1;
}

/* Linear probing deletion: later entries of the run shift back into the
 * hole unless their home slot lies cyclically after it. */
static void hash_del(struct kr_cdg *g, uint32_t e)
{
	uint32_t mask = g->hmask, i = hash_of_edge(g, e), j;

	while (g->hash[i] != e)
		i = (i + 1) & mask;
	for (j = i;;) {
		uint32_t h;

		j = (j + 1) & mask;
		if (g->hash[j] == KR_NONE)
			break;
		h = hash_of_edge(g, g->hash[j]);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		g->hash[i] = g->hash[j];
		i = j;
	}
	g->hash[i] = KR_NONE;
}

void kr_cdg_truncate(struct kr_cdg *g, uint32_t n)
{
	while (g->nedge > n) {
		uint32_t e = --g->nedge;

		/* newest first: e heads both of its lists */
		g->head_out[g->from[e]] = g->next_out[e];
		g->head_in[g->to[e]] = g->next_in[e];
		hash_del(g, e);
	}
}
