/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* From a labelling to struct kr_topo, checking it against every link.
 *
 * Whatever produced the labelling (a recogniser, pinned coordinates), the
 * result is only accepted when every switch has its own place, every link
 * joins neighbours of the grid (or a router to its own line's crossbar),
 * and, for tori and meshes found by recognition, no switch would fit as
 * well somewhere else. Then the ports get their directions and the
 * expected-but-absent links and switches are listed. */
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bctx {
	struct rctx *x;
	const struct lab *l;
	unsigned how;		/* TOPO_BUILD_* */
	struct kr_topo *t;
	struct kr_missing_link *ml;
	uint32_t nml;
	size_t cap_ml;
	unsigned nstray;	/* links the grid has no place for (stray_link) */
};

static const char *nm(const struct bctx *b, uint32_t sw)
{
	return kr_node_name(b->x->f, sw);
}

/* A MiKANT switch's address as the slides write it, (G,L,D_{n-2}..D_0),
 * digits run together up to k = 10, else with dots between. */
static void fmt_mk_addr(const struct kr_topo *t, uint32_t pos, char *buf,
			size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "(%u,%u,", kr_mk_group(t, pos),
				    kr_mk_stage(t, pos));

	for (unsigned d = kr_mk_ndigit(t); d-- > 0 && n < len;)
		n += (size_t)snprintf(buf + n, len - n, t->k[0] > 10 && d ?
				      "%u." : "%u", kr_topo_coord(t, pos, d));
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

void kr_topo_fmt_pos(const struct kr_topo *t, uint32_t pos, unsigned skip,
		     char *buf, size_t len)
{
	size_t n;

	if (t->family == KR_FAMILY_MIKANT) {
		fmt_mk_addr(t, pos, buf, len);
		return;
	}
	n = (size_t)snprintf(buf, len, "(");

	for (unsigned d = 0; d < t->ndim && n < len; d++) {
		if (d == skip)
			n += (size_t)snprintf(buf + n, len - n, "%s*", d ? "," : "");
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u", d ? "," : "",
					      kr_topo_coord(t, pos, d));
	}
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

static int alloc_topo(struct kr_topo *t, const struct kr_fabric *f)
{
	size_t nx = (size_t)t->npos * t->ndim;

	t->pos_sw = malloc(((size_t)t->npos + 1) * sizeof(*t->pos_sw));
	t->sw_pos = malloc(((size_t)f->nsw + 1) * sizeof(*t->sw_pos));
	t->sw_xdim = malloc((size_t)f->nsw + 1);
	t->sw_xline = malloc(((size_t)f->nsw + 1) * sizeof(*t->sw_xline));
	t->xbar = malloc((nx + 1) * sizeof(*t->xbar));
	t->port_dir = malloc((size_t)f->nport + 1);
	t->ca_slot = malloc(((size_t)f->nport + 1) * sizeof(*t->ca_slot));
	t->held = malloc(((size_t)f->port0[f->nsw] + 1) * sizeof(*t->held));
	if (!t->pos_sw || !t->sw_pos || !t->sw_xdim || !t->sw_xline ||
	    !t->xbar || !t->port_dir || !t->ca_slot || !t->held)
		return KR_ENOMEM;
	memset(t->pos_sw, 0xff, (size_t)t->npos * sizeof(*t->pos_sw));
	memset(t->xbar, 0xff, nx * sizeof(*t->xbar));
	memset(t->port_dir, KR_DIR_NONE, f->nport);
	memset(t->ca_slot, 0xff, (size_t)f->nport * sizeof(*t->ca_slot));
	return KR_OK;
}

static int line_ok(struct bctx *b, uint32_t s)
{
	const struct kr_topo *t = b->t;
	unsigned d = b->l->sw_xdim[s];
	uint32_t line = b->l->sw_xline[s];

	if (d >= t->ndim || line >= t->npos || kr_topo_coord(t, line, d))
		return kr_fail(b->x->d, KR_ETOPO, 0, "crossbar \"%s\" has no "
			       "valid line", nm(b, s));
	return KR_OK;
}

/* Several switches on one line: the lines are fat-tree subnets. */
static int subnets(const struct bctx *b)
{
	const struct lab *l = b->l;
	int32_t *first = b->t->xbar;
	int many = 0;

	for (uint32_t s = 0; s < b->x->f->nsw && !many; s++) {
		uint32_t line = l->sw_xline[s];
		size_t i = (size_t)line * b->t->ndim + l->sw_xdim[s];

		if (l->sw_pos[s] != KR_NONE || l->sw_xdim[s] >= b->t->ndim ||
		    line >= b->t->npos)
			continue;
		many = first[i] >= 0;
		first[i] = (int32_t)s;
	}
	memset(first, 0xff, (size_t)b->t->npos * b->t->ndim * sizeof(*first));
	return many;
}

static int place_crossbar(struct bctx *b, uint32_t s)
{
	struct kr_topo *t = b->t;
	unsigned d = b->l->sw_xdim[s];
	uint32_t line = b->l->sw_xline[s];
	int rc = line_ok(b, s);

	if (rc)
		return rc;
	for (unsigned c = 0; c < t->k[d]; c++) {
		int32_t *x = &t->xbar[((size_t)line + c * t->stride[d]) * t->ndim + d];

		if (*x >= 0)
			return kr_fail(b->x->d, KR_ETOPO, 0, "crossbars \"%s\" and "
				       "\"%s\" would serve the same line",
				       nm(b, (uint32_t)*x), nm(b, s));
		*x = (int32_t)s;
	}
	return KR_OK;
}

static int place(struct bctx *b)
{
	const struct kr_fabric *f = b->x->f;
	struct kr_topo *t = b->t;
	uint32_t present = 0;
	int sub = t->family == KR_FAMILY_KNS && subnets(b);
	char where[64];

	for (uint32_t s = 0; s < f->nsw; s++) {
		uint32_t pos = b->l->sw_pos[s];
		int rc;

		t->sw_pos[s] = pos;
		t->sw_xdim[s] = b->l->sw_xdim[s];
		t->sw_xline[s] = b->l->sw_xline[s];
		if (pos == KR_NONE) {
			if (t->family != KR_FAMILY_KNS || t->sw_xdim[s] == KR_NO_DIM)
				return kr_fail(b->x->d, KR_ETOPO, 0, "switch \"%s\" "
					       "has no place", nm(b, s));
			if ((rc = sub ? line_ok(b, s) : place_crossbar(b, s)))
				return rc;
			continue;
		}
		if (pos >= t->npos)
			return kr_fail(b->x->d, KR_ETOPO, 0, "switch \"%s\" lies "
				       "outside the grid", nm(b, s));
		kr_topo_fmt_pos(t, pos, KR_NO_DIM, where, sizeof(where));
		if (t->pos_sw[pos] >= 0)
			return kr_fail(b->x->d, KR_ETOPO, 0, "switches \"%s\" and "
				       "\"%s\" would both sit at %s",
				       nm(b, (uint32_t)t->pos_sw[pos]), nm(b, s), where);
		t->pos_sw[pos] = (int32_t)s;
		present++;
	}
	if (!(b->how & TOPO_BUILD_GIVEN) && 2 * (uint64_t)present < t->npos)
		return kr_fail(b->x->d, KR_ETOPO, 0, "only %u of the %u grid "
			       "positions would hold a switch", present, t->npos);
	return sub ? ksub_build(b->x, t) : KR_OK;
}

static int adjacent_dim(const struct kr_topo *t, uint32_t a, uint32_t z,
			int *dir)
{
	int dim = -1;

	for (unsigned d = 0; d < t->ndim; d++) {
		unsigned ca = kr_topo_coord(t, a, d), cz = kr_topo_coord(t, z, d);

		if (ca == cz)
			continue;
		if (dim >= 0)
			return -1;
		dim = (int)d;
		if (cz == ca + 1 || (t->wrap[d] && cz == (ca + 1) % t->k[d]))
			*dir = 1;
		else if (ca == cz + 1 || (t->wrap[d] && ca == (cz + 1) % t->k[d]))
			*dir = -1;
		else
			return -1;
	}
	return dim;
}

/* Rank of link slot among the links of sw to switch nb, by port number. */
static unsigned link_rank(const struct kr_fabric *f, uint32_t sw, uint32_t slot,
			  uint32_t nb)
{
	unsigned rank = 0;

	for (uint32_t s = f->port0[sw] + 1; s < slot; s++)
		rank += f->peer[s] >= 0 && f->owner[f->peer[s]] == nb;
	return rank;
}

/* A ring of 2 has both directions between one pair: seen from the lower
 * position, its links alternate +, -, +, ... by port number. */
static int grid_dir(struct bctx *b, uint32_t u, uint32_t slot, uint32_t w)
{
	const struct kr_fabric *f = b->x->f;
	const struct kr_topo *t = b->t;
	uint32_t pu = t->sw_pos[u], pw = t->sw_pos[w];
	int dir = 0, d = adjacent_dim(t, pu, pw, &dir);
	char a[64], z[64];

	if (d < 0) {
		kr_topo_fmt_pos(t, pu, KR_NO_DIM, a, sizeof(a));
		kr_topo_fmt_pos(t, pw, KR_NO_DIM, z, sizeof(z));
		return kr_fail(b->x->d, KR_ETOPO, 0, "link \"%s\"[%u] - \"%s\"[%u] "
			       "joins %s and %s, which are not neighbours",
			       nm(b, u), kr_port_num(f, slot), nm(b, w),
			       kr_port_num(f, (uint32_t)f->peer[slot]), a, z);
	}
	if (t->k[d] == 2 && t->wrap[d]) {
		unsigned rank = pu < pw ? link_rank(f, u, slot, w)
				: link_rank(f, w, (uint32_t)f->peer[slot], u);

		dir = ((rank & 1) ^ (pu > pw)) ? -1 : 1;
	}
	return 2 * d + (dir < 0);
}

/* Inside a subnet: one line, adjacent stages. */
static int subnet_dir(struct bctx *b, uint32_t u, uint32_t w)
{
	const struct kr_topo *t = b->t;

	if (t->s == 1)
		return kr_fail(b->x->d, KR_ETOPO, 0, "link \"%s\" - \"%s\" joins "
			       "two crossbars", nm(b, u), nm(b, w));
	if (t->sw_xdim[u] != t->sw_xdim[w] ||
	    t->sw_xline[u] != t->sw_xline[w] ||
	    (t->sw_stage[u] + 1 != t->sw_stage[w] &&
	     t->sw_stage[w] + 1 != t->sw_stage[u]))
		return kr_fail(b->x->d, KR_ETOPO, 0, "link \"%s\" - \"%s\" does "
			       "not join adjacent stages of one subnet",
			       nm(b, u), nm(b, w));
	return KR_DIR_XBAR;
}

static int mk_link_dir(struct bctx *b, uint32_t u, uint32_t slot, uint32_t w)
{
	const struct kr_fabric *f = b->x->f;
	const struct kr_topo *t = b->t;
	int dir = mikant_dir(t, t->sw_pos[u], t->sw_pos[w]);
	char a[64], z[64];

	if (dir >= 0)
		return dir;
	kr_topo_fmt_pos(t, t->sw_pos[u], KR_NO_DIM, a, sizeof(a));
	kr_topo_fmt_pos(t, t->sw_pos[w], KR_NO_DIM, z, sizeof(z));
	return kr_fail(b->x->d, KR_ETOPO, 0, "link \"%s\"[%u] - \"%s\"[%u] joins "
		       "%s and %s, which the MiKANT rules do not link", nm(b, u),
		       kr_port_num(f, slot), nm(b, w),
		       kr_port_num(f, (uint32_t)f->peer[slot]), a, z);
}

static int kns_dir(struct bctx *b, uint32_t u, uint32_t w)
{
	const struct kr_topo *t = b->t;
	uint32_t r = t->sw_pos[u] != KR_NONE ? u : w, x = r == u ? w : u;
	unsigned d = t->sw_xdim[x];

	if (t->sw_pos[u] == KR_NONE && t->sw_pos[w] == KR_NONE)
		return subnet_dir(b, u, w);
	if (t->sw_pos[x] != KR_NONE || t->sw_pos[r] == KR_NONE ||
	    t->sw_pos[r] - kr_topo_coord(t, t->sw_pos[r], d) * t->stride[d] !=
	    t->sw_xline[x] ||
	    (t->s > 1 && t->xbar[(size_t)t->sw_pos[r] * t->ndim + d] != (int32_t)x))
		return kr_fail(b->x->d, KR_ETOPO, 0, "link \"%s\" - \"%s\" is not "
			       "a router on its own line's crossbar", nm(b, u),
			       nm(b, w));
	return r == u ? (int)(2 * d) : KR_DIR_XBAR;
}

/* Where every switch has its CAs on the same p port numbers (how
 * fabrics are cabled), a CA's slot is its port number's rank among them,
 * so a host down or unplugged leaves its siblings' slots, and with them
 * their SLs and routes, as they were. Otherwise the rank among the
 * switch's live CA ports stays (label_ports). */
static void slots_by_port_number(const struct kr_fabric *f, struct kr_topo *t)
{
	bool used[256] = { false };
	uint8_t rank[256];
	unsigned n = 0;

	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		if (t->ca_slot[s] != KR_NONE)
			used[kr_port_num(f, (uint32_t)f->peer[s])] = true;
	for (unsigned port = 0; port < 256; port++) {
		rank[port] = (uint8_t)n;
		n += used[port];
	}
	if (n != t->p)
		return;
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		if (t->ca_slot[s] != KR_NONE)
			t->ca_slot[s] = rank[kr_port_num(f, (uint32_t)f->peer[s])];
}

/* Each switch port holds the slot of its CA; with a coordinates file
 * that gives slots (a cache written while hosts were away, before OpenSM
 * restarted), those slots come back. */
static int held_slots(struct bctx *b)
{
	const struct kr_fabric *f = b->x->f;
	const struct pins *pins = b->x->pins;
	struct kr_topo *t = b->t;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)
		t->held[s] = f->peer[s] < 0 ? KR_NONE : t->ca_slot[f->peer[s]];
	if (!pins || !pins->held || pins->lab.family != t->family)
		return KR_OK;
	return topo_take_slots(f, t, pins->held, pins->p);
}

/* A cable between switches that the grid has no place for (plugged into
 * the wrong switch, an extra one, a loopback): its ports keep
 * KR_DIR_NONE, as down ports do, so no route, tree or layer takes it
 * (kr_updn_next) and the grid links it displaced count as missing. The
 * notes name it, once per link, with the reason grid_dir or kns_dir left
 * in the diagnostic; *first keeps the first, for when there are too many
 * to be cabling slips. */
static void stray_link(struct bctx *b, uint32_t slot, unsigned *n,
		       char *first, size_t len)
{
	const struct kr_fabric *f = b->x->f;
	struct kr_diag *d = b->x->d;

	if (slot < (uint32_t)f->peer[slot]) {
		if (!*n)
			snprintf(first, len, "%s", d->msg);
		notes_add(b->x->notes, "%s; not used", d->msg);
		++*n;
	}
	d->msg[0] = '\0';
}

static int label_ports(struct bctx *b)
{
	const struct kr_fabric *f = b->x->f;
	struct kr_topo *t = b->t;
	unsigned nlinks = 0;
	char first[KR_DIAG_MSG] = "";

	for (uint32_t u = 0; u < f->nsw; u++) {
		unsigned rank = 0;

		for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
			uint32_t w;
			int dir;

			if (f->peer[s] < 0)
				continue;
			w = f->owner[f->peer[s]];
			if (!kr_is_switch(f, w)) {
				/* a host on a crossbar's spare port is a
				 * destination on its line (route.c) and in no
				 * router's slots */
				t->port_dir[s] = KR_DIR_CA;
				if (t->sw_pos[u] != KR_NONE)
					t->ca_slot[f->peer[s]] = rank++;
				continue;
			}
			nlinks++;
			if (w == u)
				dir = kr_fail(b->x->d, KR_ETOPO, 0, "switch \"%s\" "
					      "is linked to itself (ports %u "
					      "and %u)", nm(b, u),
					      kr_port_num(f, s),
					      kr_port_num(f, (uint32_t)f->peer[s]));
			else
				dir = t->family == KR_FAMILY_KNS ? kns_dir(b, u, w)
				      : t->family == KR_FAMILY_MIKANT ?
				      mk_link_dir(b, u, s, w) : grid_dir(b, u, s, w);
			if (dir == KR_ETOPO)
				stray_link(b, s, &b->nstray, first, sizeof(first));
			else if (dir < 0)
				return dir;
			else
				t->port_dir[s] = (uint8_t)dir;
		}
		if (rank > t->p)
			t->p = rank;
	}
	/* nlinks counts each link from both ends. Coordinates from knsroute's
	 * own cache are a reading of this fabric: however many cables went
	 * astray since, routing around them beats stepping aside (the check
	 * proves the tables either way). */
	if (b->nstray && 16 * b->nstray > nlinks &&
	    !((b->how & TOPO_BUILD_GIVEN) && b->x->pins &&
	      b->x->pins->from_cache))
		return kr_fail(b->x->d, KR_ETOPO, 0, "%s (%u of the %u links "
			       "between switches are so)", first, b->nstray,
			       nlinks / 2);
	slots_by_port_number(f, t);
	return held_slots(b);
}

/* Switches a BFS from sw reaches over live links between switches, stray
 * ones too when strays; into seen (== stamp). */
static uint32_t reach_from(const struct kr_fabric *f, const struct kr_topo *t,
			   uint32_t sw, bool strays, uint32_t *seen,
			   uint32_t stamp, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	seen[sw] = stamp;
	queue[tail++] = sw;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
			uint32_t v;

			if (f->peer[s] < 0 || (!strays && t->port_dir[s] == KR_DIR_NONE))
				continue;
			v = f->owner[f->peer[s]];
			if (kr_is_switch(f, v) && seen[v] != stamp) {
				seen[v] = stamp;
				queue[tail++] = v;
			}
		}
	}
	return tail;
}

/* Whether leaving the stray cables out would cut some switch off from
 * those it reaches with them: then the up*-down* walks take them, as the
 * only way (a router left with one cable, plugged into the wrong switch),
 * and the check decides; else they leave them alone like DOR. */
static int strays_bridge(const struct kr_fabric *f, struct kr_topo *t)
{
	uint32_t *seen = calloc((size_t)f->nsw + 1, sizeof(*seen));
	uint32_t *queue = malloc(((size_t)f->nsw + 1) * sizeof(*queue));
	uint32_t stamp = 0;

	if (!seen || !queue) {
		free(seen);
		free(queue);
		return KR_ENOMEM;
	}
	for (uint32_t sw = 0; sw < f->nsw && !t->strays_bridge; sw++) {
		uint32_t with;

		if (seen[sw])
			continue;	/* a component met already */
		with = reach_from(f, t, sw, true, seen, ++stamp, queue);
		/* the same start without strays marks anew (stamp + 1) */
		t->strays_bridge = reach_from(f, t, sw, false, seen, ++stamp,
					      queue) < with;
	}
	free(seen);
	free(queue);
	return KR_OK;
}

static void count_parallel(struct bctx *b)
{
	const struct tgraph *g = b->x->g;
	struct kr_topo *t = b->t;
	uint32_t nlinks[256] = { 0 }, more = 0;

	for (uint32_t e = 0; e < g->nedge; e++) {
		unsigned m = g->mult[e];
		int dir, d = t->family == KR_FAMILY_KNS ? -1 :
			     adjacent_dim(t, t->sw_pos[g->eu[e]],
					  t->sw_pos[g->ev[e]], &dir);

		if (d >= 0 && t->k[d] == 2 && t->wrap[d])
			m = (m + 1) / 2;	/* half each way */
		nlinks[m < 256 ? m : 255]++;
	}
	t->parallel = tg_usual_mult(nlinks);
	if (!t->parallel)
		t->parallel = 1;
	for (unsigned m = t->parallel + 1; m < 256; m++)
		more += nlinks[m];
	if (more)
		notes_add(b->x->notes, "%u neighbour pair%s with more links than "
			  "the grid's %u: extra cables, routed as the others "
			  "between the same two switches", more,
			  more == 1 ? "" : "s", t->parallel);
}

static int add_missing(struct bctx *b, uint32_t pos, unsigned d, unsigned n)
{
	while (n--) {
		if (kr_grow(&b->ml, &b->cap_ml, (size_t)b->nml + 1,
			    sizeof(*b->ml)))
			return KR_ENOMEM;
		b->ml[b->nml++] = (struct kr_missing_link){ pos, (uint8_t)d };
	}
	return KR_OK;
}

static unsigned links_in(const struct kr_fabric *f, const struct kr_topo *t,
			 uint32_t sw, unsigned dir)
{
	unsigned n = 0;

	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		n += t->port_dir[s] == dir;
	return n;
}

/* MiKANT: a link from every switch to each parent present (group 0's
 * top: to each switch across). Returns the pairs and, in *bare, those
 * without. */
static int missing_mk_links(struct bctx *b, uint32_t *pairs, uint32_t *bare)
{
	const struct kr_fabric *f = b->x->f;
	const struct kr_topo *t = b->t;
	unsigned top = kr_mk_ndigit(t) - 1, k = t->k[0];
	int rc = KR_OK;

	for (uint32_t pos = 0; pos < t->npos && !rc; pos++) {
		int32_t sw = t->pos_sw[pos];

		if (sw < 0 || (kr_mk_stage(t, pos) == top && kr_mk_group(t, pos)))
			continue;
		for (unsigned v = 0; v < k && !rc; v++) {
			int32_t nb = t->pos_sw[kr_mk_up_pos(t, pos, v)];
			bool have = false;

			for (uint32_t s = f->port0[sw] + 1; nb >= 0 && !have &&
							 s < f->port0[sw + 1]; s++)
				have = f->peer[s] >= 0 &&
				       t->port_dir[s] != KR_DIR_NONE &&
				       f->owner[f->peer[s]] == (uint32_t)nb;
			*pairs += nb >= 0;
			*bare += nb >= 0 && !have;
			if (nb >= 0 && !have)
				rc = add_missing(b, pos, v, 1);
		}
	}
	return rc;
}

/* Expected: parallel links from every switch to its + neighbour (KNS:
 * from every router to each crossbar of its lines) when both are there.
 * A grid where most neighbours are not linked at all is not what the
 * fabric is (a sparse random graph fits into many grids). */
static int missing_links(struct bctx *b)
{
	const struct kr_fabric *f = b->x->f;
	struct kr_topo *t = b->t;
	uint32_t pairs = 0, bare = 0;
	int rc = KR_OK;

	if (t->family == KR_FAMILY_MIKANT)
		rc = missing_mk_links(b, &pairs, &bare);
	for (uint32_t pos = 0; pos < t->npos && !rc &&
			       t->family != KR_FAMILY_MIKANT; pos++) {
		int32_t sw = t->pos_sw[pos];

		for (unsigned d = 0; d < t->ndim && sw >= 0 && !rc; d++) {
			unsigned c = kr_topo_coord(t, pos, d), have;
			uint32_t nb;

			if (t->family == KR_FAMILY_KNS) {
				if (t->xbar[(size_t)pos * t->ndim + d] < 0 &&
				    t->s == 1)
					continue;	/* the crossbar is missing */
			} else {
				if (t->k[d] < 2 || (!t->wrap[d] && c + 1 == t->k[d]))
					continue;
				nb = pos - c * t->stride[d] + (c + 1) % t->k[d] * t->stride[d];
				if (t->pos_sw[nb] < 0)
					continue;
			}
			have = links_in(f, t, (uint32_t)sw, 2 * d);
			pairs++;
			bare += !have;
			if (have < t->parallel)
				rc = add_missing(b, pos, d, t->parallel - have);
		}
	}
	t->missing_link = b->ml;
	t->nmissing_link = b->nml;
	b->ml = NULL;
	if (!rc && 2 * bare > pairs)
		rc = kr_fail(b->x->d, KR_ETOPO, 0, "%u of the %u neighbour pairs of "
			     "the grid would have no link", bare, pairs);
	return rc;
}

static int missing_switches(struct kr_topo *t)
{
	uint32_t n = 0;

	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (uint32_t pos = 0; pos < t->npos; pos++) {
			if (t->pos_sw[pos] < 0 && pass)
				t->missing_sw[n] = (struct kr_missing_sw){ pos, KR_NO_DIM };
			n += t->pos_sw[pos] < 0;
			for (unsigned d = 0; d < t->ndim && t->family == KR_FAMILY_KNS &&
					     t->s == 1; d++) {
				if (kr_topo_coord(t, pos, d) ||
				    t->xbar[(size_t)pos * t->ndim + d] >= 0)
					continue;
				if (pass)
					t->missing_sw[n] = (struct kr_missing_sw){ pos, (uint8_t)d };
				n++;
			}
		}
		if (!pass && !(t->missing_sw = malloc(((size_t)n + 1) * sizeof(*t->missing_sw))))
			return KR_ENOMEM;
	}
	t->nmissing_sw = n;
	return KR_OK;
}

/* Present grid neighbours of pos that sw has no link to (pos itself, where
 * sw sits now, does not count). */
static unsigned unlinked(const struct bctx *b, uint32_t sw, uint32_t pos)
{
	const struct tgraph *g = b->x->g;
	const struct kr_topo *t = b->t;
	unsigned n = 0;

	for (unsigned d = 0; d < t->ndim; d++)
		for (int s = -1; s <= 1 && t->k[d] > 1; s += 2) {
			unsigned c = kr_topo_coord(t, pos, d), nc;
			int32_t nb;

			if (t->wrap[d])
				nc = (c + t->k[d] + (unsigned)s) % t->k[d];
			else if ((s < 0 && !c) || (s > 0 && c + 1 == t->k[d]))
				continue;
			else
				nc = c + (unsigned)s;
			if (s > 0 && t->k[d] == 2)
				continue;	/* the same neighbour twice */
			nb = t->pos_sw[pos - c * t->stride[d] + nc * t->stride[d]];
			if (nb >= 0 && (uint32_t)nb != sw &&
			    tg_find(g, sw, (uint32_t)nb) == KR_NONE)
				n++;
		}
	return n;
}

static int fits_at(const struct bctx *b, uint32_t sw, uint32_t q)
{
	const struct tgraph *g = b->x->g;
	int dir;

	for (uint32_t i = g->off[sw]; i < g->off[sw + 1]; i++)
		if (adjacent_dim(b->t, q, b->t->sw_pos[g->nbr[i]], &dir) < 0)
			return 0;
	return 1;
}

/* A switch that would fit an empty position next to its first neighbour
 * with fewer missing links than where it is: the reading is wrong there.
 * With as many, the graph cannot tell: either place makes a grid the live
 * fabric is a part of, so the reading stands and the note says so. */
static int rigid(struct bctx *b)
{
	const struct tgraph *g = b->x->g;
	const struct kr_topo *t = b->t;
	char a[64], z[64];

	for (uint32_t sw = 0; sw < g->n; sw++) {
		uint32_t p = t->sw_pos[sw], n0, here;
		int noted = 0;

		if (!tg_deg(g, sw))
			continue;
		n0 = t->sw_pos[g->nbr[g->off[sw]]];
		here = unlinked(b, sw, p);
		for (unsigned d = 0; d < t->ndim; d++)
			for (unsigned c = 0; c < t->k[d]; c++) {
				uint32_t q = n0 - kr_topo_coord(t, n0, d) * t->stride[d] +
					     c * t->stride[d];
				unsigned there;
				int dir;

				if (q == p || t->pos_sw[q] >= 0 ||
				    adjacent_dim(t, q, n0, &dir) < 0 ||
				    !fits_at(b, sw, q) ||
				    (there = unlinked(b, sw, q)) > here ||
				    (there == here && noted))
					continue;
				kr_topo_fmt_pos(t, p, KR_NO_DIM, a, sizeof(a));
				kr_topo_fmt_pos(t, q, KR_NO_DIM, z, sizeof(z));
				if (there < here)
					return kr_fail(b->x->d, KR_ETOPO, 0,
						       "switch \"%s\" fits at %s "
						       "better than at %s: too "
						       "many links or switches "
						       "missing around it (a "
						       "coords_file places every "
						       "switch, knsroute.conf(5))",
						       nm(b, sw), z, a);
				notes_add(b->x->notes, "switch \"%s\" placed at "
					  "%s by choice: it fits at %s as well",
					  nm(b, sw), a, z);
				noted = 1;
			}
	}
	return KR_OK;
}

int topo_build(struct rctx *x, const struct lab *l, unsigned how,
	       struct kr_topo *t)
{
	struct bctx b = { .x = x, .l = l, .how = how, .t = t };
	int rc = KR_OK;

	kr_topo_free(t);
	t->family = l->family;
	t->ndim = l->ndim;
	t->npos = lab_npos(l);
	t->s = 1;
	for (unsigned d = 0, st = 1; d < l->ndim; st *= l->k[d++]) {
		t->k[d] = l->k[d];
		t->wrap[d] = l->wrap[d];
		t->stride[d] = st;
	}
	if (!t->npos)
		rc = kr_fail(x->d, KR_ETOPO, 0, "the grid would have more than "
			     "%u positions", TOPO_MAX_POS);
	if (!rc)
		rc = alloc_topo(t, x->f);
	if (!rc)
		rc = place(&b);
	if (!rc)
		rc = label_ports(&b);
	if (!rc) {
		count_parallel(&b);
		rc = missing_links(&b);
	}
	if (!rc && b.nstray)
		rc = strays_bridge(x->f, t);
	if (!rc)
		rc = missing_switches(t);
	if (!rc && (how & TOPO_BUILD_RIGID) && t->family != KR_FAMILY_KNS)
		rc = rigid(&b);
	free(b.ml);
	if (rc == KR_ENOMEM)
		kr_fail(x->d, rc, 0, "out of memory");
	if (rc)
		kr_topo_free(t);
	return rc;
}
