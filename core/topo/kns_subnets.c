/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* KNS with fat-tree subnets (s > 1, thesis 4.3): recognition.
 *
 * Routers are the switches with CAs (the thesis' processing nodes hang off
 * routers only); without any CA the fabric is read as a crossbar KNS. The
 * other switches fall into subnets, the connected components left when the
 * routers are removed. When some subnet has more than one switch, every
 * subnet is contracted to one node and the crossbar recogniser
 * (kns_lines) places the routers on that graph, where each subnet is a
 * line. A subnet's stages are the BFS distance from the routers.
 *
 * Fat-tree routing reads the destination router's coordinate as base-a
 * digits (a = radix / 2), so the routers below one switch must own one
 * aligned block of coordinates: the crossbar rule numbers hyperplanes by
 * GUID, so each dimension's values are renumbered here, blocks of the
 * top stage first, the block holding the origin's 0 always first. */
#include "topo_int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

unsigned kns_stages(const struct tgraph *g, const uint8_t *router,
		    uint8_t *stage, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;
	unsigned s = 0;

	memset(stage, KR_NO_DIM, g->n);
	for (uint32_t v = 0; v < g->n; v++)
		for (uint32_t i = g->off[v]; router[v] && i < g->off[v + 1]; i++)
			if (!router[g->nbr[i]] && stage[g->nbr[i]] == KR_NO_DIM) {
				stage[g->nbr[i]] = 0;
				queue[tail++] = g->nbr[i];
			}
	while (head < tail) {
		uint32_t v = queue[head++];

		if (stage[v] + 1u > s)
			s = stage[v] + 1u;
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t w = g->nbr[i];

			if (!router[w] && stage[w] == KR_NO_DIM && stage[v] < 250) {
				stage[w] = (uint8_t)(stage[v] + 1);
				queue[tail++] = w;
			}
		}
	}
	return s;
}

struct ksub {
	struct rctx *x;
	const struct tgraph *g;
	uint8_t *router;	/* [nsw] */
	uint32_t *cid;		/* [nsw] node of the contracted graph */
	uint32_t nr, nc;	/* routers, subnets */
	uint32_t *rep;		/* [nr + nc] lowest-GUID switch of each node */
	struct tgraph cg;
	struct kr_fabric view;	/* names and GUIDs of cg's nodes */
};

static void ksub_free(struct ksub *k)
{
	free(k->router);
	free(k->cid);
	free(k->rep);
	tg_free(&k->cg);
	free(k->view.guid);
	free(k->view.name_off);
	free(k->view.desc_off);
}

/* Whether v could be a router that lost its CAs: a switch without CAs
 * between two or more others that share no neighbour but v and routers
 * with CAs. Lines of a KNS meet in one router, so the subnets' switches
 * around such a router meet nowhere else; two switches below one subnet
 * switch of a whole subnet meet in its other switches of that stage too.
 * seen[] holds stamps below stamp. */
static bool could_be_router(const struct tgraph *g, const uint8_t *router,
			    uint32_t v, uint32_t *seen, uint32_t stamp)
{
	if (router[v] || g->nca[v] || tg_deg(g, v) < 2)
		return false;
	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		uint32_t u = g->nbr[i];

		if (router[u])
			return false;
		for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++) {
			uint32_t w = g->nbr[j];

			if (w == v || router[w])
				continue;
			if (seen[w] == stamp)
				return false;
			seen[w] = stamp;
		}
	}
	return true;
}

/* How many of the parts that v's neighbours fall into without v and the
 * gone switches hold two or more switches next to a router (stage 0).
 * part[] is scratch, KR_NONE on entry and on return. */
static unsigned whole_parts(const struct tgraph *g, const uint8_t *gone,
			    const uint8_t *stage0, uint32_t v, uint32_t *part,
			    uint32_t *queue)
{
	uint32_t tail = 0, whole = 0;

	part[v] = v;
	queue[tail++] = v;
	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		uint32_t head = tail, first = g->nbr[i], s0 = 0;

		if (part[first] != KR_NONE || gone[first])
			continue;
		part[first] = first;
		queue[tail++] = first;
		while (head < tail) {
			uint32_t u = queue[head++];

			s0 += stage0[u];
			for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++) {
				uint32_t w = g->nbr[j];

				if (!gone[w] && part[w] == KR_NONE) {
					part[w] = first;
					queue[tail++] = w;
				}
			}
		}
		whole += s0 >= 2;
	}
	while (tail)
		part[queue[--tail]] = KR_NONE;
	return whole;
}

/* A router that lost all its CAs (its hosts down or unplugged) looks like
 * a subnet switch and would join its subnets into one. Candidates are told
 * by could_be_router; a candidate is a router when, without it and the
 * other routers, its neighbours lie in two or more whole subnets (parts
 * with two or more stage-0 switches: k / a >= 2). Faults can make a
 * subnet switch a candidate too, but not such a cut: what hangs on it
 * alone is a part with at most one stage-0 switch. The first round
 * leaves every candidate out, for routers whose lost CAs leave them joined
 * through each other; later ones only those found, for a router next to
 * a subnet that a wrong candidate would cut. */
static int ca_less_routers(const struct tgraph *g, uint8_t *router,
			   uint32_t *queue)
{
	size_t n = (size_t)g->n + 1;
	uint8_t *cand = calloc(n, 1), *gone = malloc(n), *stage0 = calloc(n, 1);
	uint32_t *part = malloc(n * sizeof(*part)), *seen = calloc(n, sizeof(*seen));
	bool found = true;
	int rc = cand && gone && stage0 && part && seen ? KR_OK : KR_ENOMEM;

	if (!rc) {
		memset(part, 0xff, n * sizeof(*part));
		for (uint32_t v = 0; v < g->n; v++)
			cand[v] = could_be_router(g, router, v, seen, v + 1);
		for (uint32_t v = 0; v < g->n; v++) {
			gone[v] = router[v] || cand[v];
			for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
				stage0[v] |= !gone[v] && gone[g->nbr[i]];
		}
	}
	for (unsigned round = 0; !rc && found; round++) {
		found = false;
		for (uint32_t v = 0; v < g->n; v++)
			if (cand[v] && !router[v] &&
			    whole_parts(g, gone, stage0, v, part, queue) >= 2) {
				router[v] = 1;
				found = true;
			}
		for (uint32_t v = 0; v < g->n; v++)
			gone[v] = router[v];
		found |= !round;
	}
	free(cand);
	free(gone);
	free(stage0);
	free(part);
	free(seen);
	return rc;
}

/* Contracted ids: routers first, then one per subnet; 1 when every subnet
 * is a single switch. */
static int components(struct ksub *k, uint32_t *queue)
{
	const struct tgraph *g = k->g;
	const struct kr_fabric *f = k->x->f;
	int big = 0;

	for (uint32_t v = 0; v < g->n; v++)
		k->cid[v] = k->router[v] ? k->nr++ : KR_NONE;
	if (!k->nr)
		return 1;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t head = 0, tail = 0, c = k->nr + k->nc++;

		if (k->cid[v] != KR_NONE) {
			k->nc--;
			continue;
		}
		k->cid[v] = c;
		queue[tail++] = v;
		while (head < tail)
			for (uint32_t u = queue[head++], i = g->off[u]; i < g->off[u + 1]; i++)
				if (k->cid[g->nbr[i]] == KR_NONE) {
					k->cid[g->nbr[i]] = c;
					queue[tail++] = g->nbr[i];
				}
		big |= tail > 1;
	}
	k->rep = malloc(((size_t)k->nr + k->nc + 1) * sizeof(*k->rep));
	if (!k->rep)
		return KR_ENOMEM;
	memset(k->rep, 0xff, ((size_t)k->nr + k->nc) * sizeof(*k->rep));
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t *r = &k->rep[k->cid[v]];

		if (*r == KR_NONE || f->guid[v] < f->guid[*r])
			*r = v;
	}
	return big ? KR_OK : 1;
}

/* Routers joined to subnets (and to each other, which recognition then
 * refuses), a neighbour once per link. */
static int contract(struct ksub *k)
{
	const struct tgraph *g = k->g;
	const struct kr_fabric *f = k->x->f;
	uint32_t n = k->nr + k->nc, *raw = NULL, *off = calloc((size_t)n + 2, sizeof(*off));
	int rc = KR_ENOMEM;

	k->cg.nca = calloc((size_t)n + 1, sizeof(*k->cg.nca));
	if (!off || !k->cg.nca)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t v = 0; v < g->n; v++)
			for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
				uint32_t w = g->nbr[i], a = k->cid[v], b = k->cid[w];

				if (!k->router[v] && !k->router[w])
					continue;
				for (unsigned m = 0; m < g->mult[g->eid[i]]; m++)
					if (pass)
						raw[off[a]++] = b;
					else
						off[a + 1]++;
			}
		if (pass)
			break;
		for (uint32_t i = 0; i < n; i++)
			off[i + 1] += off[i];
		if (!(raw = malloc(((size_t)off[n] + 1) * sizeof(*raw))))
			goto out;
	}
	memmove(off + 1, off, n * sizeof(*off));
	off[0] = 0;
	for (uint32_t v = 0; v < g->n; v++)
		if (k->router[v])
			k->cg.nca[k->cid[v]] = g->nca[v];
	rc = tg_from_lists(&k->cg, n, raw, off);
	free(raw);
	k->view.nsw = k->view.nnode = n;
	k->view.strtab = f->strtab;
	k->view.guid = malloc(((size_t)n + 1) * sizeof(*k->view.guid));
	k->view.name_off = malloc(((size_t)n + 1) * sizeof(*k->view.name_off));
	/* messages name a router by its label, description and all */
	k->view.desc_off = malloc(((size_t)n + 1) * sizeof(*k->view.desc_off));
	if (!rc && (!k->view.guid || !k->view.name_off || !k->view.desc_off))
		rc = KR_ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++) {
		k->view.guid[i] = f->guid[k->rep[i]];
		k->view.name_off[i] = f->name_off[k->rep[i]];
		k->view.desc_off[i] = f->desc_off[k->rep[i]];
	}
out:
	free(off);
	return rc;
}

/* Values per dimension renumbered so that the routers below any subnet
 * switch hold an aligned block (see the top of the file). */
struct renum {
	unsigned n, kk, s, a;
	uint8_t val[KR_MAX_DIM][256];	/* old coordinate -> new */
};

static unsigned old_coord(const struct lab *l, uint32_t pos, unsigned d)
{
	uint32_t st = 1;

	for (unsigned i = 0; i < d; i++)
		st *= l->k[i];
	return pos / st % l->k[d];
}

/* The dimensions of the subnets each router links into (by contracted
 * id): a router's coordinate d comes from its links only when it links
 * into a subnet of another dimension; one that links into dimension d's
 * alone (its other links down) got it from kns_lines by elimination. */
static uint8_t *router_dims(const struct ksub *k, const struct lab *l2)
{
	const struct tgraph *g = k->g;
	uint8_t *dims = calloc((size_t)k->nr + 1, 1);

	for (uint32_t v = 0; dims && v < g->n; v++)
		for (uint32_t i = g->off[v]; k->router[v] && i < g->off[v + 1]; i++)
			if (!k->router[g->nbr[i]])
				dims[k->cid[v]] |= (uint8_t)(1u << l2->sw_xdim[k->cid[g->nbr[i]]]);
	return dims;
}

static bool by_elimination(const uint8_t *dims, uint32_t router, unsigned d)
{
	return !(dims[router] & ~(1u << d));
}

/* uf over (level, dim, value): values below one switch of stage e join in
 * level e; a router's value chosen by elimination says nothing. */
static int join_blocks(struct ksub *k, const struct lab *l2,
		       const uint8_t *stage, const uint8_t *dims,
		       struct renum *rn, struct uf *u)
{
	const struct tgraph *g = k->g;
	uint64_t (*ds)[4] = calloc((size_t)g->n + 1, sizeof(*ds));

	if (!ds)
		return KR_ENOMEM;
	for (unsigned e = 0; e < rn->s; e++)
		for (uint32_t v = 0; v < g->n; v++) {
			unsigned d = l2->sw_xdim[k->cid[v]], first = 256;

			if (k->router[v] || stage[v] != e)
				continue;
			for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
				uint32_t w = g->nbr[i];

				if (k->router[w]) {
					unsigned c = old_coord(l2, l2->sw_pos[k->cid[w]], d);

					if (!by_elimination(dims, k->cid[w], d))
						ds[v][c >> 6] |= 1ull << (c & 63);
				} else if (stage[w] + 1u == e) {
					for (unsigned b = 0; b < 4; b++)
						ds[v][b] |= ds[w][b];
				}
			}
			for (unsigned c = 0; c < rn->kk; c++) {
				if (!(ds[v][c >> 6] >> (c & 63) & 1))
					continue;
				if (first == 256)
					first = c;
				else
					uf_union(u, (e * rn->n + d) * 256 + first,
						 (e * rn->n + d) * 256 + c, 0);
			}
		}
	free(ds);
	return KR_OK;
}

/* A router below a stage-0 switch whose coordinate was chosen by
 * elimination, and the block that switch's other routers hold. */
struct free_router {
	uint32_t line;		/* the subnet's contracted id */
	uint32_t router;	/* contracted id */
	uint32_t want;		/* uf root of the block, KR_NONE: unknown */
};

static int by_line(const void *a, const void *b)
{
	const struct free_router *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* The block below v at stage 0 from v's routers whose coordinate d came
 * from their links, KR_NONE when none did. */
static uint32_t stage0_block(struct ksub *k, const struct lab *l2,
			     const uint8_t *dims, struct uf *u, uint32_t v,
			     unsigned d)
{
	const struct tgraph *g = k->g;

	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		uint32_t r = k->cid[g->nbr[i]];

		if (k->router[g->nbr[i]] && !by_elimination(dims, r, d))
			return uf_find(u, d * 256 +
				       old_coord(l2, l2->sw_pos[r], d), NULL);
	}
	return KR_NONE;
}

/* The values of one line's routers chosen by elimination, dealt out
 * again so that each lands in the block its stage-0 switch holds: any
 * of them fitted the crossbar reading, only these fit the subnet's
 * wiring. A line where they cannot is left as it was (number_blocks then
 * says why). */
static void deal_line(struct lab *l2, struct uf *u, struct free_router *fr,
		      size_t n, unsigned d)
{
	uint8_t val[256], got[256];
	bool used[256] = { false };
	uint32_t st = 1;

	for (unsigned i = 0; i < d; i++)
		st *= l2->k[i];
	for (size_t i = 0; i < n; i++)
		val[i] = (uint8_t)old_coord(l2, l2->sw_pos[fr[i].router], d);
	for (int pass = 0; pass < 2; pass++)	/* wanted blocks first */
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;

			if ((fr[i].want == KR_NONE) != pass)
				continue;
			while (j < n && (used[j] || (!pass &&
				uf_find(u, d * 256 + val[j], NULL) != fr[i].want)))
				j++;
			if (j == n)
				return;
			used[j] = true;
			got[i] = val[j];
		}
	for (size_t i = 0; i < n; i++)
		l2->sw_pos[fr[i].router] = l2->sw_pos[fr[i].router] -
					   val[i] * st + got[i] * st;
}

static int place_free(struct ksub *k, struct lab *l2, const uint8_t *stage,
		      const uint8_t *dims, struct uf *u)
{
	const struct tgraph *g = k->g;
	struct free_router *fr = malloc(((size_t)k->nr + 1) * sizeof(*fr));
	uint8_t *met = calloc((size_t)k->nr + 1, 1);	/* one line each */
	size_t n = 0;

	if (!fr || !met) {
		free(fr);
		free(met);
		return KR_ENOMEM;
	}
	for (uint32_t v = 0; v < g->n; v++) {
		unsigned d = l2->sw_xdim[k->cid[v]];
		uint32_t want;

		if (k->router[v] || stage[v] != 0)
			continue;
		want = stage0_block(k, l2, dims, u, v, d);
		for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
			uint32_t r = k->cid[g->nbr[i]];

			if (k->router[g->nbr[i]] && by_elimination(dims, r, d) &&
			    !met[r]++)
				fr[n++] = (struct free_router){ k->cid[v], r, want };
		}
	}
	qsort(fr, n, sizeof(*fr), by_line);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && fr[j].line == fr[i].line; j++)
			;
		if (j - i > 1)
			deal_line(l2, u, fr + i, j - i,
				  l2->sw_xdim[fr[i].line]);
	}
	free(fr);
	free(met);
	return KR_OK;
}

struct renum_key {
	uint32_t v;
	uint32_t key[KR_MAX_STAGE];	/* block minimum per stage, top first */
};

static int cmp_key(const void *a, const void *b)
{
	const struct renum_key *x = a, *y = b;

	for (unsigned i = 0; i < KR_MAX_STAGE; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

/* Sorts each dimension's values by the lowest value of their block, top
 * stage first; then checks every block landed aligned. */
static int number_blocks(struct ksub *k, struct renum *rn, struct uf *u)
{
	struct renum_key key[256];
	uint32_t bmin[256];

	for (unsigned d = 0; d < rn->n; d++) {
		for (unsigned c = 0; c < rn->kk; c++) {
			key[c].v = c;
			memset(key[c].key, 0, sizeof(key[c].key));
		}
		for (unsigned e = rn->s; e-- > 0;) {
			for (unsigned c = 0; c < rn->kk; c++)
				bmin[c] = 256;
			for (unsigned c = 0; c < rn->kk; c++) {
				uint32_t r = uf_find(u, (e * rn->n + d) * 256 + c, NULL) % 256;

				if (c < bmin[r])
					bmin[r] = c;
			}
			for (unsigned c = 0; c < rn->kk && rn->s - 1 - e < KR_MAX_STAGE; c++)
				key[c].key[rn->s - 1 - e] =
					bmin[uf_find(u, (e * rn->n + d) * 256 + c, NULL) % 256];
		}
		qsort(key, rn->kk, sizeof(key[0]), cmp_key);
		for (unsigned c = 0; c < rn->kk; c++)
			rn->val[d][key[c].v] = (uint8_t)c;
		for (unsigned e = 0, blk = rn->a; e < rn->s; e++, blk *= rn->a)
			for (unsigned c = 0; c < rn->kk; c++) {
				uint32_t r = uf_find(u, (e * rn->n + d) * 256 + c, NULL) % 256;

				if (rn->val[d][c] / blk != rn->val[d][r] / blk)
					return kr_fail(k->x->d, KR_ETOPO, 0,
						       "the subnets of dimension %u "
						       "are not wired alike: their "
						       "stage-%u switches do not "
						       "split the routers into the "
						       "same blocks of %u", d, e, blk);
			}
	}
	return KR_OK;
}

static int renumber(struct ksub *k, struct lab *l2, struct renum *rn,
		    uint32_t *queue)
{
	const struct tgraph *g = k->g;
	uint8_t *stage = malloc((size_t)g->n + 1), *dims = router_dims(k, l2);
	struct uf u = { 0 };
	uint32_t reach = 1;
	int rc = KR_ENOMEM;

	rn->n = l2->ndim;
	rn->kk = l2->k[0];
	if (!stage || !dims) {
		free(stage);
		free(dims);
		return rc;
	}
	rn->s = kns_stages(g, k->router, stage, queue);
	rn->a = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		unsigned nr = 0;

		for (uint32_t i = g->off[v]; stage[v] == 0 && i < g->off[v + 1]; i++)
			nr += k->router[g->nbr[i]];
		if (nr > rn->a)
			rn->a = nr;
	}
	for (unsigned e = 0; e < rn->s && reach <= rn->kk; e++)
		reach *= rn->a;
	if (rn->a < 2 || reach != rn->kk || rn->s > KR_MAX_STAGE) {
		rc = kr_fail(k->x->d, KR_ETOPO, 0, "subnets of %u stages whose "
			     "first stage meets up to %u routers cannot join "
			     "the %u routers of a line as a fat tree", rn->s,
			     rn->a, rn->kk);
	} else if (!uf_init(&u, rn->s * rn->n * 256)) {
		rc = join_blocks(k, l2, stage, dims, rn, &u);
		if (!rc)
			rc = place_free(k, l2, stage, dims, &u);
		if (!rc)
			rc = number_blocks(k, rn, &u);
	}
	uf_free(&u);
	free(stage);
	free(dims);
	return rc;
}

static uint32_t new_pos(const struct lab *l2, const struct renum *rn,
			uint32_t pos, unsigned skip)
{
	uint32_t p = 0, st = 1;

	for (unsigned d = 0; d < l2->ndim; st *= l2->k[d], d++)
		if (d != skip)
			p += rn->val[d][old_coord(l2, pos, d)] * st;
	return p;
}

static int expand(struct ksub *k, const struct lab *l2, const struct renum *rn,
		  struct lab *l)
{
	int rc = lab_alloc(l, k->g->n);

	if (rc)
		return rc;
	l->family = KR_FAMILY_KNS;
	l->ndim = l2->ndim;
	memcpy(l->k, l2->k, sizeof(l->k));
	for (uint32_t v = 0; v < k->g->n; v++) {
		uint32_t c = k->cid[v];

		if (k->router[v]) {
			l->sw_pos[v] = new_pos(l2, rn, l2->sw_pos[c], KR_NO_DIM);
		} else {
			l->sw_xdim[v] = l2->sw_xdim[c];
			l->sw_xline[v] = new_pos(l2, rn, l2->sw_xline[c],
						 l2->sw_xdim[c]);
		}
	}
	return KR_OK;
}

static void no_seed(struct ksub *k, struct kr_conf *cc)
{
	if (cc->seed_guid || cc->nseed_port)
		notes_add(k->x->conflicts, "seed, seed_port: not supported on "
			  "a KNS with fat-tree subnets");
	if (k->x->pins)
		notes_add(k->x->pins->from_cache ? k->x->notes : k->x->conflicts,
			  "%s %s: coordinates that do not name every switch "
			  "are not used on a KNS with fat-tree subnets",
			  k->x->pins->from_cache ? "coords_cache" : "coords_file",
			  k->x->pins->path);
	cc->seed_guid = 0;
	cc->nseed_port = 0;
}

int topo_ksub(struct rctx *x, struct lab *l)
{
	struct ksub k = { .x = x, .g = x->g };
	uint32_t *queue = malloc(((size_t)x->g->n + 1) * sizeof(*queue));
	struct kr_conf *cc = malloc(sizeof(*cc));
	struct lab l2 = { 0 };
	struct renum rn;
	int rc;

	k.router = malloc((size_t)x->g->n + 1);
	k.cid = malloc(((size_t)x->g->n + 1) * sizeof(*k.cid));
	rc = queue && cc && k.router && k.cid ? KR_OK : KR_ENOMEM;
	for (uint32_t v = 0; !rc && v < x->g->n; v++)
		k.router[v] = x->g->nca[v] > 0;
	if (!rc)
		rc = ca_less_routers(x->g, k.router, queue);
	if (!rc)
		rc = components(&k, queue);
	if (!rc)
		rc = contract(&k);
	if (!rc) {
		struct rctx x2 = { .f = &k.view, .c = cc, .g = &k.cg,
				   .conflicts = x->conflicts, .notes = x->notes,
				   .d = x->d };

		*cc = *x->c;
		no_seed(&k, cc);
		rc = kns_lines(&x2, &l2);
	}
	if (!rc)
		rc = renumber(&k, &l2, &rn, queue);
	if (!rc)
		rc = expand(&k, &l2, &rn, l);
	if (rc == KR_ENOMEM)
		kr_fail(x->d, rc, 0, "out of memory");
	if (rc && rc != 1)
		lab_free(l);
	lab_free(&l2);
	ksub_free(&k);
	free(cc);
	free(queue);
	return rc;
}
