/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Channel dependency graph: deduplicated edges in flat arrays with
 * intrusive out/in lists, a topological order by Kahn's algorithm, shortest
 * witness cycles by BFS, and Pearce-Kelly incremental insertion. Every
 * search is iterative: graphs of a million channels must not recurse. */
#include "kr_cdg.h"

#include <stdlib.h>
#include <string.h>

#include "kr_fabric.h"

/* One multiply: the check finds an edge for every dependency it meets,
 * and channel ids are dense, so Fibonacci hashing spreads them enough. */
static uint32_t hash_of(uint32_t from, uint32_t to)
{
	return (uint32_t)((((uint64_t)from << 32 | to) *
			   0x9e3779b97f4a7c15ull) >> 32);
}

/* kr_index_hash_fn of the edge index. */
static uint32_t hash_of_edge(const void *ctx, uint32_t e)
{
	const struct kr_cdg *g = ctx;

	return hash_of(g->from[e], g->to[e]);
}

int kr_cdg_init(struct kr_cdg *g, uint32_t nnode)
{
	size_t n = (size_t)nnode + 1;

	*g = (struct kr_cdg){ .nnode = nnode };
	g->head_out = malloc(n * sizeof(uint32_t));
	g->head_in = malloc(n * sizeof(uint32_t));
	g->ord = malloc(n * sizeof(uint32_t));
	g->mark = calloc(n, sizeof(uint32_t));
	g->aux = malloc(n * sizeof(uint32_t));
	g->stack = malloc(n * sizeof(uint32_t));
	g->todo = malloc(n * sizeof(uint32_t));
	if (!g->head_out || !g->head_in || !g->ord || !g->mark || !g->aux ||
	    !g->stack || !g->todo || kr_index_init(&g->edges, 512)) {
		kr_cdg_free(g);
		return KR_ENOMEM;
	}
	memset(g->head_out, 0xff, n * sizeof(uint32_t));
	memset(g->head_in, 0xff, n * sizeof(uint32_t));
	for (uint32_t i = 0; i < nnode; i++)
		g->ord[i] = i;	/* no edges: any permutation is an order */
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
	kr_index_free(&g->edges);
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
	for (uint32_t h = hash_of(from, to);; h++) {
		uint32_t e = kr_index_at(&g->edges, h);

		if (e == KR_NONE || (g->from[e] == from && g->to[e] == to))
			return e;
	}
}

static int grow_edges(struct kr_cdg *g)
{
	uint32_t **arr[] = { &g->from, &g->to, &g->tag, &g->next_out,
			     &g->next_in };
	size_t cap = g->cap;

	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
		cap = g->cap;	/* each array as large as the others */
		if (kr_grow(arr[i], &cap, (size_t)g->cap + 1, sizeof(uint32_t)))
			return KR_ENOMEM;
	}
	if (cap > UINT32_MAX)
		return KR_ENOMEM;
	g->cap = (uint32_t)cap;
	return KR_OK;
}

/* Appends a new edge (the caller knows it is absent). */
static int append(struct kr_cdg *g, uint32_t from, uint32_t to, uint32_t tag)
{
	uint32_t e = g->nedge;

	if (e == g->cap && grow_edges(g))
		return KR_ENOMEM;
	g->from[e] = from;
	g->to[e] = to;
	if (kr_index_add(&g->edges, hash_of(from, to), e, hash_of_edge, g))
		return KR_ENOMEM;
	g->tag[e] = tag;
	g->next_out[e] = g->head_out[from];
	g->head_out[from] = e;
	g->next_in[e] = g->head_in[to];
	g->head_in[to] = e;
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

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)

/* Sorts n keys by their high 32 bits (a least significant digit radix
 * sort in three passes, tmp as large as k): the regions an insert
 * reorders run to thousands of channels, and a comparison sort of each
 * was most of a big repair's time. */
static void sort_high(uint64_t *k, uint64_t *tmp, uint32_t n)
{
	uint32_t cnt[RADIX];

	if (n <= 64) {		/* the digits' counts would cost more */
		for (uint32_t i = 1; i < n; i++) {
			uint64_t x = k[i];
			uint32_t j = i;

			for (; j && k[j - 1] >> 32 > x >> 32; j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
		return;
	}
	for (unsigned shift = 32; shift < 64; shift += RADIX_BITS) {
		uint32_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < n; i++)
			cnt[(k[i] >> shift) & (RADIX - 1)]++;
		for (uint32_t d = 0; d < RADIX; d++) {
			uint32_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			tmp[cnt[(k[i] >> shift) & (RADIX - 1)]++] = k[i];
		memcpy(k, tmp, (size_t)n * sizeof(*k));
	}
}

/* stack holds the forward set F, then the backward set B. B moves before
 * F; each keeps its inner order; together they reuse the positions they
 * held: sorted by (in F, position), the i-th takes the i-th position of
 * the two sets' sorted positions merged. */
static int reorder(struct kr_cdg *g, uint32_t nf, uint32_t nb)
{
	uint32_t n = nf + nb, a = 0, b = 0;
	uint64_t *k = malloc(((size_t)n + 1) * 2 * sizeof(*k)), *tmp;

	if (!k)
		return KR_ENOMEM;
	tmp = k + n + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = g->stack[i];

		k[i] = (uint64_t)(i < nf) << 63 | (uint64_t)g->ord[v] << 32 | v;
	}
	sort_high(k, tmp, n);
	/* k is B by position, then F by position: merge the two runs'
	 * positions into tmp (as plain numbers) */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t pb = b < nb ? (uint32_t)(k[b] >> 32) : UINT32_MAX;
		uint32_t pf = a < nf ? (uint32_t)(k[nb + a] >> 32) & 0x7fffffffu
				      : UINT32_MAX;

		tmp[i] = pb < pf ? pb : pf;
		b += pb < pf;
		a += pb >= pf;
	}
	for (uint32_t i = 0; i < n; i++)
		g->ord[(uint32_t)k[i]] = (uint32_t)tmp[i];
	free(k);
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

void kr_cdg_truncate(struct kr_cdg *g, uint32_t n)
{
	while (g->nedge > n) {
		uint32_t e = --g->nedge;

		/* newest first: e heads both of its lists */
		g->head_out[g->from[e]] = g->next_out[e];
		g->head_in[g->to[e]] = g->next_in[e];
		kr_index_del(&g->edges, hash_of(g->from[e], g->to[e]), e,
			     hash_of_edge, g);
	}
}
