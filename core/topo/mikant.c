/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MiKANT recognition: groups, stages and address digits from the switch
 * graph alone.
 *
 * The stage of a switch is its distance from the switches with CAs (the
 * leaves): a stage-L switch reaches a leaf in L hops down its own group,
 * and any other way is longer. Links join adjacent stages, except across
 * the top (stage n - 2), which is how the graph is told from a fat tree
 * or KNS (no links inside their top stage). Without those links across,
 * the switches fall into 2k trees, one per group and top digit; the links
 * across join each tree of one group to every tree of the other, so the
 * trees two-colour into the groups.
 *
 * Digits: an up link (stage L to L+1) keeps every digit but L, a link
 * across every digit but n - 2. So, for digit j:
 *  - switches at stages <= j joined by the up links between those stages
 *    share digits j .. n-2 (the leaves below them); within a class of
 *    digits j+1 .. n-2 its subclasses are the k values of digit j;
 *  - switches at stages >= j+1 joined by the up links between those
 *    stages and by the links across share digits 0 .. j (the way they
 *    were reached from below); within a class of digits 0 .. j-1 its
 *    subclasses are the k values of digit j.
 * A switch at stage L takes digits L .. n-2 from the first kind and
 * 0 .. L-1 from the second. Values go to subclasses in the order of their
 * lowest switch GUID, so the labelling does not depend on port numbers
 * or record order; a subclass with switches a coordinates file or the
 * cache names keeps their value (and the groups theirs), so a switch
 * replaced or added since the cache was written moves no other. Missing
 * links and switches leave the classes whole as long as each stays
 * connected; topo_build then lists what is absent and refuses links the
 * rules do not allow. */
#include "topo_int.h"

#include <stdlib.h>
#include <string.h>

struct mk {
	struct rctx *x;
	const struct tgraph *g;
	uint8_t *stage;		/* [nsw] */
	uint8_t *group;		/* [nsw] */
	uint8_t *dig;		/* [nsw * KR_MAX_DIM] digit j of switch v */
	unsigned n, k;
	const struct lab *pin;	/* pinned positions of this MiKANT, NULL */
};

/* A subclass (root of a union-find) inside its parent class, with the
 * lowest GUID among its switches and the value its pinned switches
 * have (PIN_NONE, or PIN_MIXED when they disagree). */
struct sub {
	uint32_t parent, root;
	uint64_t guid;
	unsigned pin;
};

#define PIN_NONE 0x100u
#define PIN_MIXED 0x101u

static int cmp_sub(const void *a, const void *b)
{
	const struct sub *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return (x->guid > y->guid) - (x->guid < y->guid);
}

/* Digit d (or the group, d = n) of switch v's pinned position; PIN_NONE
 * unless pinned at the stage it has now. */
static unsigned pinned(const struct mk *m, uint32_t v, unsigned d)
{
	uint32_t pos = m->pin ? m->pin->sw_pos[v] : KR_NONE, st = 1, at = 0;

	if (pos == KR_NONE)
		return PIN_NONE;
	for (unsigned j = 0; j + 1 < m->n; j++, st *= m->k)
		at = j == d ? st : at;
	if (pos / st % (m->n - 1) != m->stage[v])
		return PIN_NONE;
	return d + 1 < m->n ? pos / at % m->k : pos / st / (m->n - 1);
}

static bool cross_edge(const struct mk *m, uint32_t u, uint32_t w)
{
	return m->stage[u] == m->n - 2 && m->stage[w] == m->n - 2;
}

/* Whether switches a and b have a common neighbour at stage 0. */
static bool share_leaf(const struct mk *m, uint32_t a, uint32_t b)
{
	const struct tgraph *g = m->g;

	for (uint32_t i = g->off[a]; i < g->off[a + 1]; i++)
		for (uint32_t h = g->off[b]; h < g->off[b + 1]; h++)
			if (g->nbr[i] == g->nbr[h] && !m->stage[g->nbr[i]])
				return true;
	return false;
}

/* A leaf whose hosts are all away sits two hops from the others, with
 * every neighbour one stage below it. So does a stage-2 switch whose
 * links up (or across) are all cut, but its children lead to different
 * leaves (they differ in digit 1), where a leaf's parents all share the
 * other leaves below them: only the first goes back to stage 0 (with a
 * single link left the two cannot be told apart; it is taken for a
 * leaf). Returns the top stage then. */
static unsigned hostless_leaves(struct mk *m)
{
	const struct tgraph *g = m->g;
	unsigned top = 0;

	for (uint32_t v = 0; v < g->n; v++) {
		bool below = m->stage[v] == 2 && g->off[v] < g->off[v + 1];

		for (uint32_t i = g->off[v]; below && i < g->off[v + 1]; i++)
			below = m->stage[g->nbr[i]] == 1 &&
				share_leaf(m, g->nbr[g->off[v]], g->nbr[i]);
		m->group[v] = below;	/* scratch until groups() */
	}
	for (uint32_t v = 0; v < g->n; v++) {
		if (m->group[v])
			m->stage[v] = 0;
		if (m->stage[v] != 0xff && m->stage[v] > top)
			top = m->stage[v];
	}
	return top;
}

/* n = 2: every switch has CAs and every link goes across, K_{k,k}. A
 * ring of 4 is K_{2,2} and a ring of 6 K_{3,3} without three links, so
 * the reading is taken only when two switches have 3 or more neighbours
 * in common, which in a torus or mesh two never have (docs/design.md).
 * KR_ETOPO otherwise. */
static int flat(const struct mk *m)
{
	const struct tgraph *g = m->g;
	uint8_t *cnt = calloc((size_t)g->n + 1, 1);
	bool three = false, ring4 = g->n == 4 && g->nedge == 4;

	if (!cnt)
		return KR_ENOMEM;
	for (uint32_t v = 0; v < g->n && !three; v++) {
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
			for (uint32_t h = g->off[g->nbr[i]];
			     h < g->off[g->nbr[i] + 1]; h++)
				three |= g->nbr[h] != v && ++cnt[g->nbr[h]] >= 3;
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
			for (uint32_t h = g->off[g->nbr[i]];
			     h < g->off[g->nbr[i] + 1]; h++)
				cnt[g->nbr[h]] = 0;
	}
	free(cnt);
	for (uint32_t v = 0; v < g->n && ring4; v++)
		ring4 = tg_deg(g, v) == 2 && g->nca[v] == 2;
	if (!three && ring4)
		notes_add(m->x->notes, "4 switches in a ring with 2 CAs on each "
			  "are MiKANT(2, 2) and the torus 4 alike (the same "
			  "graph): read as the torus, whose routes are as "
			  "short");
	return three ? KR_OK : kr_fail(m->x->d, KR_ETOPO, 0, "every switch "
				       "has CAs, and no two share 3 neighbours "
				       "as a MiKANT of n = 2 (K_{k,k}, k >= 3) "
				       "has them");
}

/* Stages by BFS from the leaves; KR_ETOPO unless every link joins
 * adjacent stages or two switches of the top one, and some do that. */
static int stages(struct mk *m)
{
	const struct tgraph *g = m->g;
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, ncross = 0, top = 0;
	int rc = KR_OK;

	if (!queue)
		return KR_ENOMEM;
	memset(m->stage, 0xff, g->n);
	for (uint32_t v = 0; v < g->n; v++)
		if (g->nca[v]) {
			m->stage[v] = 0;
			queue[tail++] = v;
		}
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t w = g->nbr[i];

			if (m->stage[w] == 0xff && m->stage[v] < KR_MAX_DIM) {
				m->stage[w] = (uint8_t)(m->stage[v] + 1);
				queue[tail++] = w;
			}
		}
	}
	free(queue);
	top = hostless_leaves(m);
	m->n = top + 2;
	for (uint32_t e = 0; e < g->nedge && !rc; e++) {
		unsigned a = m->stage[g->eu[e]], b = m->stage[g->ev[e]];

		ncross += a == top && b == top;
		if (a + 1 != b && b + 1 != a && !(a == top && b == top))
			rc = kr_fail(m->x->d, KR_ETOPO, 0, "link \"%s\" - \"%s\" "
				     "joins stages %u and %u (hops from the "
				     "switches with CAs)",
				     kr_node_name(m->x->f, g->eu[e]),
				     kr_node_name(m->x->f, g->ev[e]), a, b);
	}
	if (!rc && !tail)
		rc = kr_fail(m->x->d, KR_ETOPO, 0, "no switch has CAs: no leaves");
	if (!rc && top && !ncross)
		rc = kr_fail(m->x->d, KR_ETOPO, 0, "no links inside the top stage "
			     "of %u: a tree, not two mirrored ones", top + 1);
	if (!rc && !top)
		rc = flat(m);
	return tail < g->n && !rc ? kr_fail(m->x->d, KR_ETOPO, 0, "switches "
					    "no CA reaches") : rc;
}

/* k: the most links a switch has up (or across) or down (or to CAs). */
static void arity(struct mk *m)
{
	const struct tgraph *g = m->g;

	m->k = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		unsigned up = 0, down = g->nca[v];

		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t w = g->nbr[i];

			if (m->stage[w] > m->stage[v] || cross_edge(m, v, w))
				up += g->mult[g->eid[i]];
			else
				down += g->mult[g->eid[i]];
		}
		m->k = up > m->k ? up : m->k;
		m->k = down > m->k ? down : m->k;
	}
}

/* Which edges a union-find of one digit takes. */
enum join { JOIN_ALL_UP, JOIN_BELOW, JOIN_ABOVE };

static bool joins(const struct mk *m, enum join how, unsigned j, uint32_t u,
		  uint32_t w)
{
	unsigned lo = m->stage[u] < m->stage[w] ? m->stage[u] : m->stage[w];

	if (cross_edge(m, u, w))
		return how == JOIN_ABOVE;
	if (how == JOIN_BELOW)
		return lo + 1 <= j;
	return how == JOIN_ALL_UP || lo >= j + 1;
}

/* Union-find over the switches the digit's classes hold (stage <= j
 * below, >= j+1 above; all with JOIN_ALL_UP). */
static int classes(const struct mk *m, enum join how, unsigned j, struct uf *u)
{
	const struct tgraph *g = m->g;
	int rc = uf_init(u, g->n);

	for (uint32_t e = 0; !rc && e < g->nedge; e++)
		if (joins(m, how, j, g->eu[e], g->ev[e]))
			uf_union(u, g->eu[e], g->ev[e], 0);
	return rc;
}

static bool in_class(const struct mk *m, enum join how, unsigned j, uint32_t v)
{
	return how == JOIN_ALL_UP || (how == JOIN_BELOW ? m->stage[v] <= j
						      : m->stage[v] >= j + 1);
}

/* The values of digit j for the subclasses of each class (s sorted by
 * class, then lowest GUID) into at[root]: a pinned subclass keeps its
 * pinned value unless another took it first, the others take the lowest
 * free values in GUID order. KR_ETOPO for more than k in a class. */
static int assign_values(struct mk *m, const struct sub *s, uint32_t ns,
			 unsigned j, uint32_t *at)
{
	for (uint32_t b = 0, e; b < ns; b = e) {
		uint8_t taken[256] = { 0 };
		unsigned next = 0;

		for (e = b; e < ns && s[e].parent == s[b].parent; e++)
			at[s[e].root] = KR_NONE;
		if (e - b > m->k)
			return kr_fail(m->x->d, KR_ETOPO, 0, "more than k = %u "
				       "values of address digit %u: missing "
				       "links split the fabric", m->k, j);
		for (uint32_t i = b; i < e; i++)
			if (s[i].pin < m->k && !taken[s[i].pin]) {
				taken[s[i].pin] = 1;
				at[s[i].root] = s[i].pin;
			}
		for (uint32_t i = b; i < e; i++) {
			while (taken[next])
				next++;
			if (at[s[i].root] == KR_NONE) {
				taken[next] = 1;
				at[s[i].root] = next;
			}
		}
	}
	return KR_OK;
}

/* Ranks the subclasses of u inside the classes parent[] names (a root
 * per switch) by lowest GUID: value[v] = that rank, for the switches the
 * digit covers. KR_ETOPO when a class splits into more than k. */
static int rank_subclasses(struct mk *m, struct uf *u, enum join how,
			   unsigned j, const uint32_t *parent, uint8_t *value)
{
	const struct kr_fabric *f = m->x->f;
	uint32_t n = m->g->n, ns = 0;
	struct sub *s = malloc(((size_t)n + 1) * sizeof(*s));
	uint32_t *at = malloc(((size_t)n + 1) * sizeof(*at));
	int rc = s && at ? KR_OK : KR_ENOMEM;

	for (uint32_t v = 0; !rc && v < n; v++)
		at[v] = KR_NONE;
	for (uint32_t v = 0; !rc && v < n; v++) {
		uint32_t r = uf_find(u, v, &(uint8_t){ 0 });
		unsigned pv;

		if (!in_class(m, how, j, v))
			continue;
		pv = pinned(m, v, j);
		if (at[r] == KR_NONE) {
			at[r] = ns;
			s[ns++] = (struct sub){ parent[v], r, f->guid[v], pv };
			continue;
		}
		if (f->guid[v] < s[at[r]].guid)
			s[at[r]].guid = f->guid[v];
		if (s[at[r]].pin == PIN_NONE)
			s[at[r]].pin = pv;
		else if (pv != PIN_NONE && pv != s[at[r]].pin)
			s[at[r]].pin = PIN_MIXED;
	}
	if (!rc) {
		qsort(s, ns, sizeof(*s), cmp_sub);
		rc = assign_values(m, s, ns, j, at);
	}
	for (uint32_t v = 0; !rc && v < n; v++)
		if (in_class(m, how, j, v))
			value[v] = (uint8_t)at[uf_find(u, v, &(uint8_t){ 0 })];
	free(s);
	free(at);
	return rc;
}

static bool has_up(const struct mk *m, uint32_t v)
{
	const struct tgraph *g = m->g;

	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
		if (m->stage[g->nbr[i]] > m->stage[v] ||
		    cross_edge(m, v, g->nbr[i]))
			return true;
	return false;
}

static bool sibling_root(const struct mk *m, struct uf *u, uint32_t v,
			 uint32_t r)
{
	const struct tgraph *g = m->g;

	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		uint32_t w = g->nbr[i];

		for (uint32_t h = g->off[w]; h < g->off[w + 1]; h++)
			if (g->nbr[h] != v && m->stage[g->nbr[h]] == m->stage[v] &&
			    uf_find(u, g->nbr[h], &(uint8_t){ 0 }) == r)
				return true;
	}
	return false;
}

/* A switch v of stage j+1 with every link up (or across) cut is alone in
 * its subclass of digit j, which it shares with switches above it only.
 * Its siblings, the other parents of its children, hold the other k-1
 * values of digit j; so when its class has exactly one subclass none of
 * them is in, v joins that one (docs/design.md). */
static void adopt(const struct mk *m, struct uf *u, unsigned j, uint32_t v,
		  const uint32_t *parent)
{
	uint32_t r = uf_find(u, v, &(uint8_t){ 0 }), cand = KR_NONE;

	for (uint32_t x = 0; x < m->g->n; x++) {
		uint32_t rx;

		if (m->stage[x] < j + 1 || parent[x] != parent[v])
			continue;
		rx = uf_find(u, x, &(uint8_t){ 0 });
		if (rx == r || rx == cand || sibling_root(m, u, v, rx))
			continue;
		if (cand != KR_NONE)
			return;		/* two: no telling which */
		cand = rx;
	}
	if (cand != KR_NONE)
		uf_union(u, v, cand, 0);
}

/* Digit j of the switches the join covers, into dig[], ranked inside
 * the classes parent[] holds; parent[] then holds digit j's classes. */
static int digit(struct mk *m, enum join how, unsigned j, uint32_t *parent,
		 uint8_t *value)
{
	struct uf u;
	int rc = classes(m, how, j, &u);

	for (uint32_t v = 0; !rc && how == JOIN_ABOVE && v < m->g->n; v++)
		if (m->stage[v] == j + 1 && !has_up(m, v))
			adopt(m, &u, j, v, parent);
	if (!rc)
		rc = rank_subclasses(m, &u, how, j, parent, value);
	for (uint32_t v = 0; !rc && v < m->g->n; v++) {
		if (!in_class(m, how, j, v))
			continue;
		m->dig[(size_t)v * KR_MAX_DIM + j] = value[v];
		parent[v] = uf_find(&u, v, &(uint8_t){ 0 });
	}
	uf_free(&u);
	return rc;
}

/* The groups: the trees left without the links across two-colour. */
static int groups(struct mk *m, uint32_t *parent)
{
	const struct tgraph *g = m->g;
	uint32_t low = lowest_guid(m->x->f);
	uint8_t par, p0;
	struct uf u;
	int rc = uf_init(&u, g->n);

	for (uint32_t e = 0; !rc && e < g->nedge; e++)
		if (uf_union(&u, g->eu[e], g->ev[e],
			     cross_edge(m, g->eu[e], g->ev[e])))
			rc = kr_fail(m->x->d, KR_ETOPO, 0, "links across the top "
				     "close an odd cycle at \"%s\" - \"%s\": no "
				     "two groups", kr_node_name(m->x->f, g->eu[e]),
				     kr_node_name(m->x->f, g->ev[e]));
	if (!rc)
		uf_find(&u, low, &p0);
	for (uint32_t v = 0; !rc && v < g->n; v++) {
		uf_find(&u, v, &par);
		m->group[v] = par ^ p0;
	}
	/* the first switch pinned at its stage says which group is 0 */
	for (uint32_t v = 0; !rc && v < g->n; v++)
		if (pinned(m, v, m->n) != PIN_NONE) {
			p0 = (uint8_t)(pinned(m, v, m->n) != m->group[v]);
			break;
		}
	for (uint32_t v = 0; !rc && v < g->n; v++) {
		m->group[v] ^= m->pin ? p0 : 0;
		parent[v] = m->group[v];
	}
	uf_free(&u);
	return rc;
}

static int label(struct mk *m, struct lab *l)
{
	uint32_t n = m->g->n;
	uint32_t *parent = malloc(((size_t)n + 1) * sizeof(*parent));
	uint8_t *value = malloc((size_t)n + 1);
	int rc = parent && value ? groups(m, parent) : KR_ENOMEM;

	for (unsigned j = m->n - 1; !rc && j-- > 0;)
		rc = digit(m, j == m->n - 2 ? JOIN_ALL_UP : JOIN_BELOW, j,
			   parent, value);
	for (uint32_t v = 0; !rc && v < n; v++)
		parent[v] = 0;
	for (unsigned j = 0; !rc && j + 2 < m->n; j++)
		rc = digit(m, JOIN_ABOVE, j, parent, value);
	for (uint32_t v = 0; !rc && v < n; v++) {
		uint32_t pos = 0, st = 1;

		for (unsigned j = 0; j + 1 < m->n; j++, st *= m->k)
			pos += m->dig[(size_t)v * KR_MAX_DIM + j] * st;
		l->sw_pos[v] = pos + st * (m->stage[v] + (m->n - 1) * m->group[v]);
	}
	free(parent);
	free(value);
	return rc;
}

int mikant_dir(const struct kr_topo *t, uint32_t pu, uint32_t pw)
{
	unsigned su = kr_mk_stage(t, pu), sw = kr_mk_stage(t, pw);
	unsigned gu = kr_mk_group(t, pu), gw = kr_mk_group(t, pw);
	unsigned top = kr_mk_ndigit(t) - 1;

	if (su == top && sw == top && gu != gw &&
	    kr_mk_up_pos(t, gu ? pw : pu, kr_topo_coord(t, gu ? pu : pw, top)) ==
	    (gu ? pu : pw))
		return (int)(2 * (t->ndim - 1) + gu);
	if (gu != gw || (su + 1 != sw && sw + 1 != su))
		return -1;
	if (su < sw)
		return kr_mk_up_pos(t, pu, kr_topo_coord(t, pw, su)) == pw ?
		       (int)kr_mk_dir_up(t) : -1;
	return kr_mk_up_pos(t, pw, kr_topo_coord(t, pu, sw)) == pu ?
	       (int)kr_mk_dir_down(t) : -1;
}

/* Pins describing a MiKANT of this k and n are taken. */
static void use_pins(struct mk *m)
{
	const struct pins *p = m->x->pins;
	const struct lab *pl = p ? &p->lab : NULL;

	if (pl && pl->family == KR_FAMILY_MIKANT && pl->ndim == m->n + 1 &&
	    pl->k[0] == m->k)
		m->pin = pl;
}

/* Pins of another fabric, once this one reads as a MiKANT: set aside,
 * with a note (a cache) or a conflict (the admin's file). */
static void pins_unused(const struct mk *m)
{
	const struct pins *p = m->x->pins;

	if (p && !m->pin)
		notes_add(p->from_cache ? m->x->notes : m->x->conflicts,
			  "%s %s %s: it describes another fabric than "
			  "MiKANT(%u, %u)", p->from_cache ? "coords_cache" :
			  "coords_file", p->path, p->from_cache ? "not used" :
			  "set aside", m->k, m->n);
}

int topo_mikant(struct rctx *x, struct lab *l)
{
	const struct tgraph *g = x->g;
	struct mk m = { .x = x, .g = g };
	int rc;

	m.stage = malloc((size_t)g->n + 1);
	m.group = malloc((size_t)g->n + 1);
	m.dig = calloc(((size_t)g->n + 1) * KR_MAX_DIM, 1);
	rc = m.stage && m.group && m.dig ? stages(&m) : KR_ENOMEM;
	if (!rc) {
		arity(&m);
		x->mikant_like = 1;
	}
	if (!rc && (m.n + 1 > KR_MAX_DIM || m.k < 2))
		rc = kr_fail(x->d, KR_ETOPO, 0, "%u stages of arity %u: no "
			     "MiKANT knsroute can label (2 <= k, n <= %d)",
			     m.n - 1, m.k, KR_MAX_DIM - 1);
	if (!rc)
		rc = lab_alloc(l, g->n);
	if (!rc) {
		l->family = KR_FAMILY_MIKANT;
		l->ndim = m.n + 1;
		for (unsigned j = 0; j + 1 < m.n; j++)
			l->k[j] = m.k;
		l->k[m.n - 1] = m.n - 1;
		l->k[m.n] = 2;
		if (!lab_npos(l))
			rc = kr_fail(x->d, KR_ETOPO, 0, "MiKANT(%u, %u) is too "
				     "large", m.k, m.n);
	}
	if (!rc) {
		use_pins(&m);
		rc = label(&m, l);
	}
	if (!rc)
		pins_unused(&m);
	free(m.stage);
	free(m.group);
	free(m.dig);
	return rc;
}
