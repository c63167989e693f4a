/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Generator for KNS (crossbars or fat-tree subnets), torus / mesh, MiKANT
 * and folded Clos fabrics.
 *
 * It first lays out a logical fabric (nodes in coordinate order, ports in a
 * fixed pattern), then disguises it on request: random record order, random
 * port numbers per node, random names and GUIDs, so that only the graph
 * tells the structure. GUIDs stay unique because they are a bijection of the
 * logical id; a CA's port GUID is its node GUID + port number, as ibsim
 * makes them. */
#include "kr_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SW_GUID_BASE 0x0002c90000000000ull
#define CA_GUID_BASE 0x0002c90100000000ull

struct glink {
	uint32_t a, pa, z, pz;
};

struct gfab {
	uint32_t nsw, nca, nnode;
	uint8_t *nports;	/* [nnode] */
	uint32_t *pos;		/* [nsw] grid position or KR_NONE */
	uint8_t *xdim;		/* [nsw] */
	uint32_t *xline;	/* [nsw] */
	uint8_t *stage;		/* [nsw] KNS subnet stage, KR_NO_DIM */
	uint32_t *order;	/* [nsw] KNS subnet order */
	unsigned s, arity;	/* KNS subnet stages, switch arity (s > 1) */
	uint32_t *ca_sw;	/* [nca] switch of each CA */
	uint32_t *ca_slot;	/* [nca] */
	struct glink *link;
	uint32_t nlink, nsw_link;	/* inter-switch links come first */
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle_u32(uint32_t *a, uint32_t n, uint64_t *rng)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(splitmix(rng) % i), t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static uint32_t npos_of(const struct kr_gen_opts *o, uint32_t *stride)
{
	uint64_t n = 1;

	for (unsigned d = 0; d < o->ndim; d++) {
		stride[d] = (uint32_t)n;
		n *= o->k[d];
		if (n > 1u << 20)
			return 0;
	}
	return (uint32_t)n;
}

static void gfab_free(struct gfab *g)
{
	free(g->nports);
	free(g->pos);
	free(g->xdim);
	free(g->xline);
	free(g->stage);
	free(g->order);
	free(g->ca_sw);
	free(g->ca_slot);
	free(g->link);
}

static int gfab_alloc(struct gfab *g, uint32_t nsw, uint32_t nca, uint32_t nlink)
{
	g->nsw = nsw;
	g->nca = nca;
	g->nnode = nsw + nca;
	g->nports = calloc(g->nnode, 1);
	g->pos = malloc(nsw * sizeof(*g->pos));
	g->xdim = malloc(nsw);
	g->xline = malloc(nsw * sizeof(*g->xline));
	g->stage = malloc(nsw);
	g->order = calloc(nsw, sizeof(*g->order));
	g->ca_sw = malloc((nca + 1) * sizeof(*g->ca_sw));
	g->ca_slot = malloc((nca + 1) * sizeof(*g->ca_slot));
	g->link = malloc((nlink + 1) * sizeof(*g->link));
	if (!g->nports || !g->pos || !g->xdim || !g->xline || !g->stage ||
	    !g->order || !g->ca_sw ||
	    !g->ca_slot || !g->link)
		return KR_ENOMEM;
	memset(g->pos, 0xff, nsw * sizeof(*g->pos));
	memset(g->xdim, KR_NO_DIM, nsw);
	memset(g->stage, KR_NO_DIM, nsw);
	memset(g->xline, 0xff, nsw * sizeof(*g->xline));
	return KR_OK;
}

static void add_link(struct gfab *g, uint32_t a, uint32_t pa, uint32_t z,
		     uint32_t pz)
{
	g->link[g->nlink++] = (struct glink){ a, pa, z, pz };
}

/* Stages of a subnet of k routers built from radix-port switches: 1 for a
 * crossbar, else s with (radix/2)^s = k; 0 when k is no such power. */
static unsigned subnet_stages(unsigned k, unsigned radix, unsigned *arity)
{
	unsigned s = 0;
	uint32_t reach = 1;

	*arity = radix / 2;
	if (!radix || radix >= k)
		return 1;
	if (*arity < 2)
		return 0;
	while (reach < k) {
		reach *= *arity;
		s++;
	}
	return reach == k ? s : 0;
}

/* One line's subnet: a-ary s-tree (Petrini's k-ary n-tree), switch x0 + e *
 * a^(s-1) + o at stage e, order o with base-a digits w_0 .. w_{s-2}.
 * Stage e and e+1 switches are linked when their orders differ at most in
 * digit e: up port a+1+j of the lower one (j its partner's digit e), down
 * port 1+w_e of the upper one. A stage-0 switch's down port 1+j leads to
 * the router of the line with coordinate o*a + j. Ports: 2a everywhere,
 * the top stage's up ports unused (the thesis' 12 switches of 4 ports for
 * 8 routers). */
static void layout_subnet(const struct kr_gen_opts *o, struct gfab *g,
			  uint32_t x0, unsigned d, uint32_t line,
			  uint32_t stride_d)
{
	unsigned a = g->arity, s = g->s;
	uint32_t per = o->k[0] / a, unit = 1;

	for (unsigned e = 0; e < s; e++)
		for (uint32_t w = 0; w < per; w++) {
			uint32_t x = x0 + e * per + w;

			g->xdim[x] = (uint8_t)d;
			g->xline[x] = line;
			g->stage[x] = (uint8_t)e;
			g->order[x] = w;
			g->nports[x] = (uint8_t)(2 * a);
		}
	for (uint32_t w = 0; w < per; w++)
		for (unsigned j = 0; j < a; j++)
			add_link(g, line + (w * a + j) * stride_d,
				 o->p + 1 + d, x0 + w, j + 1);
	for (unsigned e = 0; e + 1 < s; e++, unit *= a)
		for (uint32_t w = 0; w < per; w++)
			for (unsigned j = 0; j < a; j++) {
				unsigned we = (unsigned)(w / unit % a);
				uint32_t up = w - we * unit + j * unit;

				add_link(g, x0 + e * per + w, a + 1 + j,
					 x0 + (e + 1) * per + up, we + 1);
			}
}

/* Router pos is switch pos; router ports: CAs 1..p, subnet of dim d at
 * p+1+d. Subnets (d, line) follow the routers; a crossbar's port c+1 leads
 * to the router with coordinate c in d. */
static int layout_kns(const struct kr_gen_opts *o, struct gfab *g,
		      const uint32_t *stride, uint32_t npos)
{
	unsigned n = o->ndim, k = o->k[0];
	uint32_t nline = n * (npos / k), x = npos, per, nsub_link;

	g->s = subnet_stages(k, o->radix, &g->arity);
	per = g->s > 1 ? k / g->arity : 1;
	nsub_link = g->s > 1 ? (g->s - 1) * per * g->arity : 0;
	if (gfab_alloc(g, npos + nline * g->s * per, npos * o->p,
		       npos * (n + o->p) + nline * nsub_link))
		return KR_ENOMEM;
	for (uint32_t r = 0; r < npos; r++) {
		g->pos[r] = r;
		g->nports[r] = (uint8_t)(o->p + n);
	}
	for (unsigned d = 0; d < n; d++)
		for (uint32_t line = 0; line < npos; line++) {
			if ((line / stride[d]) % k)
				continue;	/* lines start at coordinate 0 */
			if (g->s > 1) {
				layout_subnet(o, g, x, d, line, stride[d]);
				x += g->s * per;
				continue;
			}
			g->xdim[x] = (uint8_t)d;
			g->xline[x] = line;
			g->nports[x] = (uint8_t)k;
			for (unsigned c = 0; c < k; c++)
				add_link(g, line + c * stride[d], o->p + 1 + d,
					 x, c + 1);
			x++;
		}
	g->nsw_link = g->nlink;
	return KR_OK;
}

/* Ports: CAs 1..p, then per dimension with k > 1 the links towards +d
 * (parallel of them) and towards -d. Switch c links to c+1 (mod k when the
 * dimension wraps), so k = 2 rings get two links per pair, parallel times. */
static int layout_torus(const struct kr_gen_opts *o, struct gfab *g,
			const uint32_t *stride, uint32_t npos)
{
	unsigned L = o->parallel ? o->parallel : 1, nports = o->p, base[KR_MAX_DIM];

	for (unsigned d = 0; d < o->ndim; d++) {
		base[d] = nports + 1;
		if (o->k[d] > 1)
			nports += 2 * L;
	}
	if (nports < 1 || nports > 254)
		return KR_EINVAL;
	if (gfab_alloc(g, npos, npos * o->p, npos * (o->ndim * L + o->p)))
		return KR_ENOMEM;
	for (uint32_t s = 0; s < npos; s++) {
		g->pos[s] = s;
		g->nports[s] = (uint8_t)nports;
		for (unsigned d = 0; d < o->ndim; d++) {
			unsigned c = (s / stride[d]) % o->k[d], kd = o->k[d];
			uint32_t nb;

			if (kd < 2 || (!o->wrap[d] && c + 1 == kd))
				continue;
			nb = s + (c + 1 == kd ? 0 - c * stride[d] : stride[d]);
			for (unsigned l = 0; l < L; l++)
				add_link(g, s, base[d] + l, nb, base[d] + L + l);
		}
	}
	g->nsw_link = g->nlink;
	return KR_OK;
}

/* MiKANT (o in its grid shape: n - 1 digits, stage, group; switch pos =
 * position): ports 1..k down (a leaf's: its CAs; else to the child whose
 * digit L-1 is port-1), k+1..2k up to the parent whose digit L is
 * port-k-1, or at the top across to the other group's switch whose digit
 * n-2 is that. Only leaves get CAs (attach_cas).
 * The folded Clos (o->clos) has one stage more, which group 0 alone
 * holds (the last k^(n-1) positions, group 1's, stay empty): the groups'
 * tops link up to it, replacing digit n-2, and its switch's ports 1..k
 * lead to group 0, k+1..2k to group 1. */
static int layout_mikant(const struct kr_gen_opts *o, struct gfab *g,
			 const uint32_t *stride, uint32_t npos)
{
	unsigned k = o->k[0], top = o->ndim - 3, sdim = o->ndim - 2;
	uint32_t nleaf = npos / o->k[sdim], nmid = o->clos ? stride[sdim] : 0;

	/* k^n = nleaf * k / 2 links per stage and group, then k^n across
	 * the MiKANT's top, or 2k^n up to the Clos' middle */
	if (gfab_alloc(g, npos - nmid, nleaf * k,
		       nleaf * k / 2 * (2 * o->k[sdim] + !o->clos)))
		return KR_ENOMEM;
	for (uint32_t s = 0; s < npos - nmid; s++) {
		unsigned L = s / stride[sdim] % o->k[sdim];
		unsigned G = s / stride[sdim + 1];
		unsigned dig = L >= top ? top : L;
		unsigned mine = s / stride[dig] % k;
		int across = L == top && !o->clos;

		g->pos[s] = s;
		g->nports[s] = (uint8_t)(2 * k);
		if ((across && G == 1) || L > top)
			continue;	/* linked from below or group 0 */
		for (unsigned j = 0; j < k; j++) {
			uint32_t nb = s - mine * stride[dig] + j * stride[dig];

			nb += across ? stride[sdim + 1] : stride[sdim];
			if (L == top && o->clos)	/* to group 0's */
				nb -= G * stride[sdim + 1];
			add_link(g, s, k + 1 + j, nb, across ? k + 1 + mine :
				 1 + mine + (L == top ? G * k : 0));
		}
	}
	g->nsw_link = g->nlink;
	return KR_OK;
}

/* CAs on the first npos positions (a MiKANT's leaves: group 0's, then
 * group 1's follow at its stride). */
static void attach_cas(const struct kr_gen_opts *o, struct gfab *g, uint32_t npos)
{
	uint32_t nleaf = npos, gstride = 0;

	if (o->family == KR_FAMILY_MIKANT) {
		gstride = npos / 2;
		nleaf = npos / o->k[o->ndim - 2];
	}
	for (uint32_t i = 0; i < nleaf; i++)
		for (unsigned c = 0; c < o->p; c++) {
			uint32_t r = gstride && i >= nleaf / 2 ?
				     i - nleaf / 2 + gstride : i;
			uint32_t ca = i * o->p + c;

			g->ca_sw[ca] = r;
			g->ca_slot[ca] = c;
			g->nports[g->nsw + ca] = 1;
			add_link(g, r, c + 1, g->nsw + ca, 1);
		}
}

static void coord_name(char *buf, size_t len, const struct kr_gen_opts *o,
		       uint32_t pos, const uint32_t *stride, unsigned skip)
{
	size_t n = 0;

	for (unsigned d = 0; d < o->ndim && n < len; d++) {
		unsigned c = (pos / stride[d]) % o->k[d];

		if (d == skip)
			n += (size_t)snprintf(buf + n, len - n, "%s*", d ? "," : "");
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u", d ? "," : "", c);
	}
}

/* The slides' addresses: switch (G,L,D_{n-2}..D_0) as "sw(G,L,D..D)",
 * node (G,C_{n-1}..C_0), C_{n-1} its slot, as "ca(G,C..C)"; digits run
 * together up to k = 10, else with dots between. A Clos' middle switch,
 * in no group, is "top(D..D)". */
static void mikant_name(char *buf, size_t len, const struct kr_gen_opts *o,
			const struct gfab *g, uint32_t id, const uint32_t *stride)
{
	unsigned sdim = o->ndim - 2, k = o->k[0];
	uint32_t pos = id < g->nsw ? id : g->ca_sw[id - g->nsw];
	size_t n;

	if (id < g->nsw && pos / stride[sdim] % o->k[sdim] == o->ndim - 2)
		n = (size_t)snprintf(buf, len, "top(");	/* a Clos' middle */
	else if (id < g->nsw)
		n = (size_t)snprintf(buf, len, "sw(%u,%u,", pos / stride[sdim + 1],
				     pos / stride[sdim] % o->k[sdim]);
	else
		n = (size_t)snprintf(buf, len, "ca(%u,", pos / stride[sdim + 1]);
	if (id >= g->nsw)
		n += (size_t)snprintf(buf + n, len - n, k > 10 ? "%u." : "%u",
				      g->ca_slot[id - g->nsw]);
	for (unsigned d = sdim; d-- > 0 && n < len;)
		n += (size_t)snprintf(buf + n, len - n, k > 10 && d ? "%u." : "%u",
				      pos / stride[d] % k);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

static void node_name(char *buf, size_t len, const struct kr_gen_opts *o,
		      const struct gfab *g, uint32_t id, const uint32_t *stride,
		      uint64_t guid)
{
	char c[96];
	const char *what = o->family == KR_FAMILY_KNS ? "router" : "switch";

	if (o->shuffle) {	/* the disguised GUID: unique, says nothing */
		snprintf(buf, len, "%s-%010llx", id < g->nsw ? "sw" : "ca",
			 (unsigned long long)(guid & 0xffffffffffull));
	} else if (o->family == KR_FAMILY_MIKANT) {
		mikant_name(buf, len, o, g, id, stride);
	} else if (id >= g->nsw) {
		uint32_t ca = id - g->nsw;

		coord_name(c, sizeof(c), o, g->pos[g->ca_sw[ca]], stride, KR_NO_DIM);
		snprintf(buf, len, "ca(%s)/%u", c, g->ca_slot[ca]);
	} else if (g->stage[id] != KR_NO_DIM) {
		coord_name(c, sizeof(c), o, g->xline[id], stride, g->xdim[id]);
		snprintf(buf, len, "sw%u(%s)e%uo%u", g->xdim[id], c,
			 g->stage[id], g->order[id]);
	} else if (g->xdim[id] != KR_NO_DIM) {
		coord_name(c, sizeof(c), o, g->xline[id], stride, g->xdim[id]);
		snprintf(buf, len, "xbar%u(%s)", g->xdim[id], c);
	} else {
		coord_name(c, sizeof(c), o, g->pos[id], stride, KR_NO_DIM);
		snprintf(buf, len, "%s(%s)", what, c);
	}
}

/* A bijection on 40 bits, so shuffled GUIDs never collide. */
static uint64_t guid_of(const struct gfab *g, uint32_t id, int shuffle,
			uint64_t key)
{
	uint64_t v = id < g->nsw ? id : id - g->nsw;

	if (shuffle) {
		v = (v * 0x9e3779b97full + key) & 0xffffffffffull;
		v ^= v >> 17;
	}
	return id < g->nsw ? SW_GUID_BASE + v : CA_GUID_BASE + (v << 4);
}

struct disguise {
	uint32_t *order;	/* record order */
	uint8_t *perm;		/* per node, nports+1 entries: logical -> real */
	uint32_t *perm0;
	uint64_t key;
};

static int make_disguise(const struct kr_gen_opts *o, const struct gfab *g,
			 struct disguise *z)
{
	uint64_t rng = o->shuffle_seed ^ 0x6b6e73726f757465ull;
	uint32_t total = 0;

	z->order = malloc(g->nnode * sizeof(*z->order));
	z->perm0 = malloc((g->nnode + 1) * sizeof(*z->perm0));
	if (!z->order || !z->perm0)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < g->nnode; i++) {
		z->order[i] = i;
		z->perm0[i] = total;
		total += g->nports[i] + 1u;
	}
	z->perm = malloc(total);
	if (!z->perm)
		return KR_ENOMEM;
	z->key = splitmix(&rng);
	for (uint32_t i = 0; i < g->nnode; i++) {
		uint8_t *pm = z->perm + z->perm0[i];
		uint32_t tmp[256];

		for (unsigned p = 0; p <= g->nports[i]; p++)
			tmp[p] = p;
		if (o->shuffle)
			shuffle_u32(tmp + 1, g->nports[i], &rng);
		for (unsigned p = 0; p <= g->nports[i]; p++)
			pm[p] = (uint8_t)tmp[p];
	}
	if (o->shuffle)
		shuffle_u32(z->order, g->nnode, &rng);
	return KR_OK;
}

static void free_disguise(struct disguise *z)
{
	free(z->order);
	free(z->perm);
	free(z->perm0);
}

/* Moves the links to leave out to the end of the inter-switch range. */
static uint32_t pick_faults(const struct kr_gen_opts *o, struct gfab *g)
{
	uint64_t rng = o->fail_seed ^ 0x6661756c74ull;
	uint32_t n = o->fail;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t last = g->nsw_link - 1 - i;
		uint32_t j = (uint32_t)(splitmix(&rng) % (last + 1));
		struct glink t = g->link[last];

		g->link[last] = g->link[j];
		g->link[j] = t;
	}
	return n;
}

/* Feeds the disguised fabric to the builder; final_of[logical id] receives
 * the fabric's node id. */
static int emit(const struct kr_gen_opts *o, const struct gfab *g,
		const struct disguise *z, const uint32_t *stride,
		uint32_t nfault, struct kr_fabric *f, uint32_t *final_of,
		struct kr_diag *d)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int *bid = malloc(g->nnode * sizeof(*bid));
	int rc = b && bid ? KR_OK : KR_ENOMEM;
	char name[128];

	for (uint32_t i = 0; i < g->nnode && rc >= 0; i++) {
		uint32_t id = z->order[i];
		uint64_t guid = guid_of(g, id, o->shuffle, z->key);

		node_name(name, sizeof(name), o, g, id, stride, guid);
		rc = kr_fb_add_node(b, id < g->nsw ? KR_SWITCH : KR_CA,
				    g->nports[id], guid, name, name, 0, d);
		bid[id] = rc;
	}
	for (uint32_t l = 0; l < g->nlink && rc >= 0; l++) {
		const struct glink *k = &g->link[l];

		if (l >= g->nsw_link - nfault && l < g->nsw_link)
			continue;
		rc = kr_fb_link(b, bid[k->a], z->perm[z->perm0[k->a] + k->pa],
				bid[k->z], z->perm[z->perm0[k->z] + k->pz], 0, d);
	}
	if (rc >= 0)
		rc = kr_fb_finish(b, f, d);
	for (uint32_t i = 0; i < g->nnode && rc >= 0; i++)
		final_of[i] = kr_fb_final_id(b, bid[i]);
	kr_fb_free(b);
	free(bid);
	return rc < 0 ? rc : KR_OK;
}

static int fill_truth(const struct kr_gen_opts *o, const struct gfab *g,
		      const uint32_t *stride, uint32_t npos,
		      const uint32_t *final_of, const struct kr_fabric *f,
		      struct kr_topo *t)
{
	*t = (struct kr_topo){ .family = o->family, .ndim = o->ndim, .p = o->p,
			       .npos = npos,
			       .parallel = o->parallel ? o->parallel : 1 };
	for (unsigned d = 0; d < o->ndim; d++) {
		t->k[d] = o->k[d];
		t->wrap[d] = o->family == KR_FAMILY_TORUS && o->wrap[d];
		t->stride[d] = stride[d];
	}
	t->pos_sw = malloc(npos * sizeof(*t->pos_sw));
	t->sw_pos = malloc(f->nsw * sizeof(*t->sw_pos));
	t->sw_xdim = malloc(f->nsw);
	t->sw_xline = malloc(f->nsw * sizeof(*t->sw_xline));
	if (!t->pos_sw || !t->sw_pos || !t->sw_xdim || !t->sw_xline)
		return KR_ENOMEM;
	t->s = g->s ? g->s : 1;
	if (t->s > 1) {
		t->arity = g->arity;
		t->sw_stage = malloc(f->nsw);
		t->sw_order = malloc(f->nsw * sizeof(*t->sw_order));
		if (!t->sw_stage || !t->sw_order)
			return KR_ENOMEM;
		for (uint32_t i = 0; i < g->nsw; i++) {
			t->sw_stage[final_of[i]] = g->stage[i];
			t->sw_order[final_of[i]] = g->order[i];
		}
	}
	for (uint32_t i = 0; i < g->nsw; i++) {
		uint32_t n = final_of[i];

		t->sw_pos[n] = g->pos[i];
		t->sw_xdim[n] = g->xdim[i];
		t->sw_xline[n] = g->xline[i];
		if (g->pos[i] != KR_NONE)
			t->pos_sw[g->pos[i]] = (int32_t)n;
	}
	return KR_OK;
}

static int list_faults(const struct gfab *g, const struct disguise *z,
		       uint32_t nfault, const uint32_t *final_of,
		       struct kr_gen_fault **faults, unsigned *nfaults)
{
	*nfaults = nfault;
	*faults = malloc((nfault + 1) * sizeof(**faults));
	if (!*faults)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < nfault; i++) {
		const struct glink *k = &g->link[g->nsw_link - nfault + i];

		(*faults)[i] = (struct kr_gen_fault){
			final_of[k->a], z->perm[z->perm0[k->a] + k->pa],
			final_of[k->z], z->perm[z->perm0[k->z] + k->pz] };
	}
	return KR_OK;
}

static int check_opts(const struct kr_gen_opts *o, uint32_t npos,
		      struct kr_diag *d)
{
	if (o->family == KR_FAMILY_MIKANT && (o->ndim < 3 || !npos))
		return kr_fail(d, KR_EINVAL, 0, "MiKANT needs 2 <= n <= %d "
			       "and at most 2^20 switches", KR_MAX_DIM - 1);
	if (!o->ndim || o->ndim > KR_MAX_DIM || !npos)
		return kr_fail(d, KR_EINVAL, 0,
			       "between 1 and %d dimensions and at most 2^20 "
			       "switch positions", KR_MAX_DIM);
	if (o->family == KR_FAMILY_KNS) {
		for (unsigned d0 = 1; d0 < o->ndim; d0++)
			if (o->k[d0] != o->k[0])
				return kr_fail(d, KR_EINVAL, 0,
					       "KNS needs one k for all dimensions");
		unsigned a;

		if (o->k[0] < 2 || o->p + o->ndim > 254)
			return kr_fail(d, KR_EINVAL, 0,
				       "KNS needs k >= 2 and p + n <= 254");
		if (!subnet_stages(o->k[0], o->radix, &a))
			return kr_fail(d, KR_EINVAL, 0, "radix %u: the %u "
				       "routers of a line need a full %u-ary "
				       "tree, so k must be a power of radix/2 "
				       "(radix >= 4 and even, or >= k for a "
				       "crossbar)", o->radix, o->k[0], a);
		if (o->radix < o->k[0] && o->radix % 2)
			return kr_fail(d, KR_EINVAL, 0, "radix %u: subnet "
				       "switches need as many up as down "
				       "ports (an even radix)", o->radix);
	} else if (o->family == KR_FAMILY_MIKANT) {
		if (o->k[0] < 2 || o->k[0] > 127)
			return kr_fail(d, KR_EINVAL, 0, "MiKANT needs 2 <= k "
				       "<= 127 (switches of 2k ports)");
	} else if (o->family != KR_FAMILY_TORUS && o->family != KR_FAMILY_MESH) {
		return kr_fail(d, KR_EINVAL, 0, "unknown family");
	}
	if (o->lmc > 7)
		return kr_fail(d, KR_EINVAL, 0, "LMC above 7");
	return KR_OK;
}

/* A MiKANT(k, n) in the grid shape kr_topo gives it (kr_topo.h): n - 1
 * digits, the stage, the group; k CAs per leaf; a Clos with one stage
 * more (layout_mikant). Other families as given.
 * n beyond what that shape holds stays for check_opts to refuse. */
static struct kr_gen_opts grid_shape(const struct kr_gen_opts *o)
{
	struct kr_gen_opts s = *o;
	unsigned n = o->ndim;

	if (o->family != KR_FAMILY_MIKANT)
		return s;
	s.ndim = n < 2 || n + 1 > KR_MAX_DIM ? 0 : n + 1;
	for (unsigned d = 0; d + 1 < n && s.ndim; d++)
		s.k[d] = o->k[0];
	if (s.ndim) {
		s.k[n - 1] = n - 1 + !!o->clos;
		s.k[n] = 2;
	}
	s.p = o->k[0];
	return s;
}

int kr_gen(const struct kr_gen_opts *mo, struct kr_fabric *f,
	   struct kr_topo *truth, struct kr_gen_fault **faults,
	   unsigned *nfaults, struct kr_diag *d)
{
	uint32_t stride[KR_MAX_DIM], npos = 0, nfault = 0, *final_of = NULL;
	const struct kr_gen_opts shape = grid_shape(mo), *o = &shape;
	struct gfab g = { 0 };
	struct disguise z = { 0 };
	int rc;

	*f = (struct kr_fabric){ 0 };
	if (truth)
		*truth = (struct kr_topo){ 0 };
	if (o->ndim && o->ndim <= KR_MAX_DIM)
		npos = npos_of(o, stride);
	rc = check_opts(o, npos, d);
	if (!rc && truth && o->clos)
		rc = kr_fail(d, KR_EINVAL, 0, "no coordinates for a Clos: "
			     "knsroute recognises none");
	if (rc)
		return rc;
	rc = o->family == KR_FAMILY_KNS ? layout_kns(o, &g, stride, npos)
	     : o->family == KR_FAMILY_MIKANT ? layout_mikant(o, &g, stride, npos)
	     : layout_torus(o, &g, stride, npos);
	if (rc == KR_EINVAL)
		rc = kr_fail(d, rc, 0, "more than 254 ports per switch");
	if (!rc) {
		attach_cas(o, &g, npos);
		if (o->fail > g.nsw_link)
			rc = kr_fail(d, KR_EINVAL, 0, "cannot leave out %u "
				     "links: the fabric has %u between "
				     "switches", o->fail, g.nsw_link);
	}
	if (!rc) {
		nfault = pick_faults(o, &g);
		final_of = malloc(g.nnode * sizeof(*final_of));
		rc = final_of ? make_disguise(o, &g, &z) : KR_ENOMEM;
	}
	if (!rc)
		rc = emit(o, &g, &z, stride, nfault, f, final_of, d);
	if (!rc && o->assign_lids)
		rc = kr_fabric_assign_lids(f, o->lmc, d);
	if (!rc && truth)
		rc = fill_truth(o, &g, stride, npos, final_of, f, truth);
	if (!rc && faults)
		rc = list_faults(&g, &z, nfault, final_of, faults, nfaults);
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	if (rc) {
		kr_fabric_free(f);
		if (truth)
			kr_topo_free(truth);
	}
	free(final_of);
	free_disguise(&z);
	gfab_free(&g);
	return rc;
}
