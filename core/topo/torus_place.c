/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Torus and mesh recognition, part three: the switches that the classes
 * could not place, because every link that would tell their dimension
 * lost its squares to missing links or switches.
 *
 * Coordinates here are potentials (paths unbounded, rings modulo k). The
 * unplaced switches connected to each other form a cluster hanging off
 * placed ones; every arrangement of a cluster next to its placed
 * neighbours is tried (each switch one step from a neighbour already
 * placed, on a free place, next to all its placed neighbours). The
 * arrangement on the smallest grid wins, then the one with the fewest
 * missing (or surplus) links. Clusters that are ambiguous alone are tried
 * once more together; a tie that still stands means the graph cannot
 * tell, and when nothing else can be placed the first of the tied
 * arrangements is taken and noted: each is a grid the live fabric is a
 * part of. Should a switch then fit nowhere (a cluster best on its own
 * took another's place), all that were left are placed again in one
 * search, or, too many for that, again cluster by cluster with clusters
 * of up to 32. A link that spans a path from end to end closes it into a
 * ring of that length. */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

#define CLUSTER_MAX 12			/* switches in one cluster */
#define SEARCH_MAX 32			/* in a search after that failed */
#define SEARCH_BUDGET 200000ul		/* arrangements tried */

struct ptab {
	uint32_t *slot;		/* switch + 1, 0 empty */
	uint32_t mask;
};

static int32_t wrap_c(const struct tplace *p, unsigned h, int32_t c)
{
	int32_t k = (int32_t)p->ring[h];

	return k ? ((c % k) + k) % k : c;
}

static uint32_t hash_pos(const struct tplace *p, const int32_t *c)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < p->ng; i++)
		h = (h ^ (uint32_t)c[i]) * 16777619u;
	return h;
}

static const int32_t *pot_of(const struct tplace *p, uint32_t sw)
{
	return p->pot + (size_t)sw * p->ng;
}

/* The switch at c, or KR_NONE; *at gets the slot to fill. */
static uint32_t ptab_find(const struct tplace *p, const struct ptab *t,
			  const int32_t *c, uint32_t *at)
{
	uint32_t i = hash_pos(p, c) & t->mask;

	while (t->slot[i] && memcmp(pot_of(p, t->slot[i] - 1), c,
				    p->ng * sizeof(*c)))
		i = (i + 1) & t->mask;
	if (at)
		*at = i;
	return t->slot[i] ? t->slot[i] - 1 : KR_NONE;
}

/* Grid neighbours, given the extent lo..hi of each path: a path whose
 * ends are joined is a ring. */
static int adjacent(const struct tplace *p, const int32_t *a, const int32_t *b,
		    const int32_t *lo, const int32_t *hi)
{
	unsigned diff = 0;

	for (unsigned h = 0; h < p->ng; h++) {
		int32_t dd = a[h] - b[h];

		if (!dd)
			continue;
		if (p->ring[h])
			dd = wrap_c(p, h, dd) == 1 ? 1 :
			     wrap_c(p, h, -dd) == 1 ? -1 : 2;
		else if (hi[h] - lo[h] >= 2 &&
			 (dd == hi[h] - lo[h] || -dd == hi[h] - lo[h]))
			dd = 1;
		if (dd != 1 && dd != -1)
			return 0;
		diff++;
	}
	return diff == 1;
}

static void extend(struct tplace *p, const int32_t *c)
{
	for (unsigned h = 0; h < p->ng; h++) {
		p->lo[h] = c[h] < p->lo[h] ? c[h] : p->lo[h];
		p->hi[h] = c[h] > p->hi[h] ? c[h] : p->hi[h];
	}
}

/* One cluster of unplaced switches (connected among themselves), every
 * arrangement of it tried: the smallest grid wins, then the fewest
 * missing links; a tie means the graph cannot tell. */
struct search {
	struct tplace *p;
	const struct ptab *t;
	uint32_t *cl;		/* [SEARCH_MAX + 2] cluster, each after a
				 * neighbour */
	unsigned m, limit;	/* listed, at most */
	int32_t cur[SEARCH_MAX][TOPO_MAX_PRIME];
	int32_t best[SEARCH_MAX][TOPO_MAX_PRIME];
	uint64_t best_npos;
	unsigned best_miss, best_beside, nbest;
	unsigned long budget;
};

static int idx_of(const struct search *sr, uint32_t sw, unsigned upto)
{
	for (unsigned j = 0; j < upto; j++)
		if (sr->cl[j] == sw)
			return (int)j;
	return -1;
}

/* Where neighbour sw of the switch being placed sits, or NULL. */
static const int32_t *where(const struct search *sr, uint32_t sw, unsigned upto)
{
	int j;

	if (sr->p->seen[sw])
		return pot_of(sr->p, sw);
	j = idx_of(sr, sw, upto);
	return j >= 0 ? sr->cur[j] : NULL;
}

static uint32_t occupant(const struct search *sr, const int32_t *c, unsigned upto)
{
	uint32_t sw = ptab_find(sr->p, sr->t, c, NULL);

	for (unsigned j = 0; j < upto && sw == KR_NONE; j++)
		if (!memcmp(sr->cur[j], c, sr->p->ng * sizeof(*c)))
			sw = sr->cl[j];
	return sw;
}

/* Links missing (or in excess) between neighbours a and b of group h. */
static unsigned link_gap(const struct tplace *p, uint32_t a, uint32_t b,
			 unsigned h)
{
	uint32_t i = tg_find(p->g, a, b);
	unsigned have = i == KR_NONE ? 0 : p->g->mult[p->g->eid[i]];

	return have > p->mult[h] ? have - p->mult[h] : p->mult[h] - have;
}

/* The extent with the first n cluster switches, and c when not NULL. */
static void extent(const struct search *sr, unsigned n, const int32_t *c,
		   int32_t *lo, int32_t *hi)
{
	const struct tplace *p = sr->p;

	memcpy(lo, p->lo, p->ng * sizeof(*lo));
	memcpy(hi, p->hi, p->ng * sizeof(*hi));
	for (unsigned j = 0; j <= n; j++) {
		const int32_t *x = j < n ? sr->cur[j] : c;

		for (unsigned h = 0; x && h < p->ng; h++) {
			lo[h] = x[h] < lo[h] ? x[h] : lo[h];
			hi[h] = x[h] > hi[h] ? x[h] : hi[h];
		}
	}
}

/* Cluster switch i at c agrees with each neighbour placed before it. */
static int fits(const struct search *sr, unsigned i, const int32_t *c,
		const int32_t *lo, const int32_t *hi)
{
	const struct tgraph *g = sr->p->g;
	uint32_t w = sr->cl[i];

	for (uint32_t n = g->off[w]; n < g->off[w + 1]; n++) {
		const int32_t *at = where(sr, g->nbr[n], i);

		if (at && !adjacent(sr->p, c, at, lo, hi))
			return 0;
	}
	return 1;
}

/* Paths that this arrangement closes into rings: a link of a cluster
 * switch spans them from end to end. */
static uint32_t closures(const struct search *sr, const int32_t *lo,
			 const int32_t *hi)
{
	const struct tgraph *g = sr->p->g;
	uint32_t mask = 0;

	for (unsigned j = 0; j < sr->m; j++)
		for (uint32_t n = g->off[sr->cl[j]]; n < g->off[sr->cl[j] + 1]; n++) {
			const int32_t *at = where(sr, g->nbr[n], sr->m);

			for (unsigned h = 0; h < sr->p->ng && at; h++)
				if (!sr->p->ring[h] && hi[h] - lo[h] >= 2 &&
				    (at[h] - sr->cur[j][h] == hi[h] - lo[h] ||
				     sr->cur[j][h] - at[h] == hi[h] - lo[h]))
					mask |= 1u << h;
		}
	return mask;
}

/* c one step along h, round the ends of a closed path. */
static void step(const struct tplace *p, int32_t *c, unsigned h, int s,
		 uint32_t closed, const int32_t *lo, const int32_t *hi)
{
	c[h] = wrap_c(p, h, c[h] + s);
	if (closed >> h & 1)
		c[h] = c[h] > hi[h] ? lo[h] : c[h] < lo[h] ? hi[h] : c[h];
}

/* Links missing or in excess next to the cluster, and between placed
 * switches that a closed path makes neighbours. A grid place next to a
 * cluster switch that nothing occupies yet counts its links as missing
 * too: whatever switch ends up there has no link to the cluster (it would
 * be part of it), so a place is not better for being next to switches
 * still unplaced elsewhere. */
static unsigned gaps(const struct search *sr, uint32_t closed,
		     const int32_t *lo, const int32_t *hi, unsigned *beside)
{
	const struct tplace *p = sr->p;
	int32_t c[TOPO_MAX_PRIME];
	unsigned miss = 0;

	*beside = 0;
	for (unsigned j = 0; j < sr->m; j++)
		for (unsigned h = 0; h < p->ng; h++)
			for (int s = -1; s <= 1; s += 2) {
				uint32_t o;

				memcpy(c, sr->cur[j], p->ng * sizeof(*c));
				step(p, c, h, s, closed, lo, hi);
				if (!p->ring[h] && (c[h] < lo[h] || c[h] > hi[h]))
					continue;	/* off the grid */
				o = occupant(sr, c, sr->m);
				if (o == KR_NONE) {
					miss += p->mult[h];
				} else if (o != sr->cl[j]) {
					unsigned gap = link_gap(p, sr->cl[j], o, h);

					miss += gap;
					*beside += gap;
				}
			}
	for (uint32_t v = 0; v < p->g->n && closed; v++)
		for (unsigned h = 0; h < p->ng && p->seen[v]; h++) {
			uint32_t o;

			if (!(closed >> h & 1) || pot_of(p, v)[h] != lo[h])
				continue;
			memcpy(c, pot_of(p, v), p->ng * sizeof(*c));
			c[h] = hi[h];
			o = ptab_find(p, sr->t, c, NULL);
			if (o != KR_NONE) {
				unsigned gap = link_gap(p, v, o, h);

				miss += gap;
				*beside += gap;
			}
		}
	return miss;
}

/* The best arrangement and this one put every switch at the same place,
 * counting a path that became a ring modulo its length (one step beyond
 * either end is the same place then). */
static int same_place(const struct search *sr, const int32_t *lo,
		      const int32_t *hi)
{
	const struct tplace *p = sr->p;

	for (unsigned j = 0; j < sr->m; j++)
		for (unsigned h = 0; h < p->ng; h++) {
			int32_t a = sr->cur[j][h], b = sr->best[j][h];
			int32_t len = hi[h] - lo[h] + 1;

			if (a != b && (p->ring[h] || len < 3 ||
				       ((a - b) % len + len) % len))
				return 0;
		}
	return 1;
}

/* A complete arrangement: still valid with the final extent (a path that
 * became a ring), then scored: the smallest grid, then the fewest links
 * missing. Of arrangements that tie, the one kept for a choice has the
 * fewest missing towards switches that are there: an empty place may be a
 * switch gone, while a switch that is there without a link is a worse fit,
 * as topo_build's rigid() judges (the first of the best could put a switch
 * where rigid() then refuses the whole reading). */
static void judge(struct search *sr)
{
	const struct tplace *p = sr->p;
	int32_t lo[TOPO_MAX_PRIME], hi[TOPO_MAX_PRIME];
	uint64_t npos = 1;
	unsigned miss, beside;

	extent(sr, sr->m, NULL, lo, hi);
	for (unsigned j = 0; j < sr->m; j++)
		if (!fits(sr, j, sr->cur[j], lo, hi))
			return;
	for (unsigned h = 0; h < p->ng; h++)
		npos *= p->ring[h] ? p->ring[h] : (uint64_t)(hi[h] - lo[h] + 1);
	miss = gaps(sr, closures(sr, lo, hi), lo, hi, &beside);
	if (sr->nbest && (npos > sr->best_npos ||
			  (npos == sr->best_npos && miss > sr->best_miss)))
		return;
	if (sr->nbest && npos == sr->best_npos && miss == sr->best_miss) {
		if (same_place(sr, lo, hi))
			return;
		sr->nbest++;
		if (beside < sr->best_beside) {
			sr->best_beside = beside;
			memcpy(sr->best, sr->cur, sizeof(sr->cur));
		}
		return;
	}
	sr->nbest = 1;
	sr->best_npos = npos;
	sr->best_miss = miss;
	sr->best_beside = beside;
	memcpy(sr->best, sr->cur, sizeof(sr->cur));
}

/* c was tried already, one plain step from a neighbour of w listed
 * before slot `upto` (an extent of one place closes no path). */
static int tried(const struct search *sr, uint32_t w, uint32_t upto,
		 unsigned i, const int32_t *c)
{
	static const int32_t one_place[TOPO_MAX_PRIME];
	const struct tgraph *g = sr->p->g;

	for (uint32_t n = g->off[w]; n < upto; n++) {
		const int32_t *at = where(sr, g->nbr[n], i);

		if (at && adjacent(sr->p, at, c, one_place, one_place))
			return 1;
	}
	return 0;
}

/* Switch i goes one step from each of its placed neighbours in turn: a
 * place that only a path closed into a ring makes its neighbour's (one
 * end of the path next to the other) is a plain step from no other. */
static void arrange(struct search *sr, unsigned i)
{
	const struct tgraph *g = sr->p->g;
	uint32_t w;

	if (!sr->budget)
		return;
	sr->budget--;
	if (i == sr->m) {
		judge(sr);
		return;
	}
	w = sr->cl[i];
	for (uint32_t n = g->off[w]; n < g->off[w + 1]; n++) {
		const int32_t *anchor = where(sr, g->nbr[n], i);

		for (unsigned h = 0; anchor && h < sr->p->ng; h++)
			for (int s = -1; s <= 1; s += 2) {
				int32_t lo[TOPO_MAX_PRIME], hi[TOPO_MAX_PRIME];

				memcpy(sr->cur[i], anchor,
				       sr->p->ng * sizeof(*anchor));
				sr->cur[i][h] = wrap_c(sr->p, h, sr->cur[i][h] + s);
				if (tried(sr, w, n, i, sr->cur[i]))
					continue;
				extent(sr, i, sr->cur[i], lo, hi);
				if (occupant(sr, sr->cur[i], i) == KR_NONE &&
				    fits(sr, i, sr->cur[i], lo, hi))
					arrange(sr, i + 1);
			}
	}
}

/* Appends to sr->cl the unplaced switches connected to w, each after a
 * neighbour that is placed or listed; 0 when that makes too many. */
static int gather(struct search *sr, uint32_t w, uint8_t *mark)
{
	const struct tplace *p = sr->p;
	const struct tgraph *g = p->g;
	unsigned head = sr->m;

	if (sr->m == sr->limit)
		return 0;
	sr->cl[sr->m++] = w;
	mark[w] = 1;
	while (head < sr->m)
		for (uint32_t v = sr->cl[head++], n = g->off[v]; n < g->off[v + 1]; n++) {
			uint32_t x = g->nbr[n];

			if (p->seen[x] || mark[x])
				continue;
			if (sr->m == sr->limit)
				return 0;
			mark[x] = 1;
			sr->cl[sr->m++] = x;
		}
	return 1;
}

static void put(struct tplace *p, struct ptab *t, uint32_t sw)
{
	uint32_t at;

	if (ptab_find(p, t, pot_of(p, sw), &at) == KR_NONE)
		t->slot[at] = sw + 1;
	extend(p, pot_of(p, sw));
}

/* Positions of the placed switches, rings modulo their size, and the
 * extent they span. */
static void index_placed(struct tplace *p, struct ptab *t)
{
	memset(t->slot, 0, ((size_t)t->mask + 1) * sizeof(*t->slot));
	for (unsigned h = 0; h < p->ng; h++) {
		p->lo[h] = INT32_MAX;
		p->hi[h] = INT32_MIN;
	}
	for (uint32_t v = 0; v < p->g->n; v++) {
		if (!p->seen[v])
			continue;
		for (unsigned h = 0; h < p->ng; h++)
			p->pot[(size_t)v * p->ng + h] = wrap_c(p, h, pot_of(p, v)[h]);
		put(p, t, v);
	}
}

/* Places the switches listed in sr when one arrangement is best, or
 * (tie) the first of the best. */
static int settle_list(struct search *sr, struct ptab *t, int tie)
{
	struct tplace *p = sr->p;

	sr->nbest = 0;
	sr->budget = SEARCH_BUDGET;
	arrange(sr, 0);
	if (!sr->nbest || (sr->nbest > 1 && !tie) || !sr->budget)
		return 0;
	if (sr->nbest > 1)
		notes_add(p->notes, "switch %s%s placed by choice: %u "
			  "arrangements fit its links equally",
			  kr_node_label(p->f, sr->cl[0]).s,
			  sr->m > 1 ? " and the unplaced ones next to it" : "",
			  sr->nbest);
	for (unsigned j = 0; j < sr->m; j++) {
		memcpy(p->pot + (size_t)sr->cl[j] * p->ng, sr->best[j],
		       p->ng * sizeof(*p->pot));
		p->seen[sr->cl[j]] = 1;
		put(p, t, sr->cl[j]);
	}
	if (close_rings(p))
		index_placed(p, t);
	return 1;
}

static int has_placed_neighbour(const struct tplace *p, uint32_t w)
{
	for (uint32_t n = p->g->off[w]; n < p->g->off[w + 1]; n++)
		if (p->seen[p->g->nbr[n]])
			return 1;
	return 0;
}

/* One pass over the clusters, each placed on its own when that has one
 * best answer; how many were placed. The others are listed in joint (as
 * far as they fit) for one search over all of them. With tie, the first
 * cluster that fits at all takes the first of its best arrangements, and
 * the pass stops there. */
static unsigned one_pass(struct search *sr, struct ptab *t, uint8_t *mark,
			 uint32_t *joint, unsigned *njoint, int tie)
{
	struct tplace *p = sr->p;
	unsigned placed = 0;

	memset(mark, 0, p->g->n);
	*njoint = 0;
	for (uint32_t w = 0; w < p->g->n && !(tie && placed); w++) {
		if (p->seen[w] || mark[w] || !has_placed_neighbour(p, w))
			continue;
		sr->m = 0;
		if (gather(sr, w, mark) && settle_list(sr, t, tie)) {
			placed++;
			continue;
		}
		for (unsigned j = 0; j < sr->m; j++)
			if (*njoint <= CLUSTER_MAX)
				joint[(*njoint)++] = sr->cl[j];
	}
	return placed;
}

/* Clusters that only fit together (each alone could grow the grid two
 * ways, together only one way) get one search over all of them. */
static int joint_try(struct search *sr, struct ptab *t, const uint32_t *joint,
		     unsigned njoint)
{
	if (!njoint || njoint > CLUSTER_MAX)
		return 0;
	memcpy(sr->cl, joint, njoint * sizeof(*joint));
	sr->m = njoint;
	return settle_list(sr, t, 0);
}

/* Every switch left to place, cluster after cluster, in one search
 * (with the first of tied arrangements): 0 when they are too many. Its
 * arrangements are bounded by the budget, not by the clusters' size:
 * it runs once, where the passes before ran a search per cluster. */
static int all_at_once(struct search *sr, struct ptab *t, uint8_t *mark)
{
	struct tplace *p = sr->p;
	int rc = 1;

	memset(mark, 0, p->g->n);
	sr->m = 0;
	sr->limit = SEARCH_MAX;
	for (uint32_t w = 0; w < p->g->n && rc; w++)
		if (!p->seen[w] && !mark[w] && has_placed_neighbour(p, w))
			rc = gather(sr, w, mark);
	rc = rc && sr->m && settle_list(sr, t, 1);
	sr->limit = CLUSTER_MAX;
	return rc;
}

/* The switches placed so far (by the classes), to start again from. */
struct placed {
	uint8_t *seen;
	int32_t *pot;
	uint32_t ring[TOPO_MAX_PRIME];
};

static int keep_placed(const struct tplace *p, struct placed *k)
{
	size_t n = p->g->n;

	k->seen = malloc(n + 1);
	k->pot = malloc((n * p->ng + 1) * sizeof(*k->pot));
	if (!k->seen || !k->pot)
		return KR_ENOMEM;
	memcpy(k->seen, p->seen, n);
	memcpy(k->pot, p->pot, n * p->ng * sizeof(*k->pot));
	memcpy(k->ring, p->ring, sizeof(k->ring));
	return KR_OK;
}

static void back_to(struct tplace *p, const struct placed *k)
{
	size_t n = p->g->n;

	memcpy(p->seen, k->seen, n);
	memcpy(p->pot, k->pot, n * p->ng * sizeof(*p->pot));
	memcpy(p->ring, k->ring, sizeof(p->ring));
}

static uint32_t first_unplaced(const struct tplace *p)
{
	for (uint32_t w = 0; w < p->g->n; w++)
		if (!p->seen[w])
			return w;
	return KR_NONE;
}

/* From the switches the classes placed (start), or from those placed so
 * far when start is NULL. */
static void start_from(struct tplace *p, struct ptab *t,
		       const struct placed *start)
{
	if (start)
		back_to(p, start);
	index_placed(p, t);
	/* a ring whose closing links lost their squares spans a path from
	 * end to end already: unplaced switches step round it */
	if (close_rings(p))
		index_placed(p, t);
}

/* Cluster by cluster, clusters of up to sr->limit switches; a tie is
 * taken only when nothing has a single best place. */
static void by_clusters(struct search *sr, struct ptab *t, uint8_t *mark,
			uint32_t *joint)
{
	unsigned njoint = 0;

	while (one_pass(sr, t, mark, joint, &njoint, 0) ||
	       joint_try(sr, t, joint, njoint) ||
	       one_pass(sr, t, mark, joint, &njoint, 1))
		;
}

int place_rest(struct tplace *p, uint32_t *stuck)
{
	const struct tgraph *g = p->g;
	struct ptab t = { 0 };
	struct search *sr = calloc(1, sizeof(*sr));
	struct placed start = { 0 };
	uint8_t *mark = calloc((size_t)g->n + 1, 1);
	uint32_t size = 16, joint[CLUSTER_MAX + 2];
	int rc = KR_OK;

	while (size < 2 * g->n)
		size *= 2;
	t.mask = size - 1;
	t.slot = calloc(size, sizeof(*t.slot));
	if (sr) {
		sr->cl = malloc((SEARCH_MAX + 2) * sizeof(*sr->cl));
		sr->p = p;
		sr->t = &t;
		sr->limit = CLUSTER_MAX;
	}
	if (!t.slot || !sr || !mark || !sr->cl || keep_placed(p, &start)) {
		rc = KR_ENOMEM;
		goto out;
	}
	start_from(p, &t, NULL);
	if (!p->jointly)
		by_clusters(sr, &t, mark, joint);
	/* A cluster best on its own can take the place of one that comes
	 * later and then fits nowhere: all that were left, searched
	 * together, go where they fit with each other; too many for that,
	 * clusters as large go one by one. */
	if (first_unplaced(p) != KR_NONE) {
		start_from(p, &t, &start);
		while (all_at_once(sr, &t, mark))
			;
	}
	if (first_unplaced(p) != KR_NONE) {
		start_from(p, &t, &start);
		sr->limit = SEARCH_MAX;
		by_clusters(sr, &t, mark, joint);
	}
	if ((*stuck = first_unplaced(p)) != KR_NONE)
		rc = KR_ETOPO;
out:
	if (sr)
		free(sr->cl);
	free(sr);
	free(start.seen);
	free(start.pot);
	free(mark);
	free(t.slot);
	return rc;
}

int close_rings(struct tplace *p)
{
	const struct tgraph *g = p->g;
	int closed = 0;

	for (uint32_t e = 0; e < g->nedge; e++) {
		const int32_t *a = pot_of(p, g->eu[e]), *b = pot_of(p, g->ev[e]);
		int h = -1;

		if (!p->seen[g->eu[e]] || !p->seen[g->ev[e]])
			continue;
		for (unsigned i = 0; i < p->ng; i++)
			if (wrap_c(p, i, a[i] - b[i]))
				h = h < 0 ? (int)i : TOPO_MAX_PRIME;
		if (h < 0 || h == TOPO_MAX_PRIME || p->ring[h])
			continue;
		if (p->hi[h] - p->lo[h] >= 2 &&
		    (a[h] - b[h] == p->hi[h] - p->lo[h] ||
		     b[h] - a[h] == p->hi[h] - p->lo[h])) {
			p->ring[h] = (uint32_t)(p->hi[h] - p->lo[h] + 1);
			closed = 1;
		}
	}
	return closed;
}
