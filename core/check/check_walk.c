/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's walk over one DLID: where the LFTs take a packet from each
 * switch (switch level), then the VL of every hop and the dependencies
 * between channels for each SL (channel level). The dependencies are
 * recorded here too (check_dep, for multicast's walk as well): the
 * channel walk records one per hop, so they share a file, and so the
 * compiler's inlining. */
#include "kr_check.h"

#include <stdlib.h>
#include <string.h>

#include "check_int.h"

static int grow_eflag(struct walk *w)
{
	return kr_grow(&w->eflag, &w->eflag_cap, w->g.nedge, 1);
}

/* Marks edge e, known already, as also made for why (0: proven). */
static void flag_known(struct walk *w, uint32_t e, uint32_t tag, uint8_t why)
{
	if (!why && !(w->eflag[e] & EDGE_PROVEN))
		w->g.tag[e] = tag;
	w->eflag[e] |= why ? why : EDGE_PROVEN;
}

/* Flags the edge just appended. */
static int flag_new(struct walk *w, uint8_t why)
{
	if (grow_eflag(w))
		return KR_ENOMEM;
	w->eflag[w->g.nedge - 1] = why ? why : EDGE_PROVEN;
	return KR_OK;
}

/* Adds from -> to, known or not, with its id in *e (KR_NONE: an
 * incremental check's insertion would close a cycle, which stops it at
 * the DLID: see kr_check_incremental; such checks assume nothing). */
static int add_edge(struct walk *w, uint32_t from, uint32_t to, uint32_t tag,
		    uint8_t why, uint32_t *e)
{
	int rc;

	if (w->incr) {
		rc = kr_cdg_insert(&w->g, from, to, tag);
		*e = rc == 1 ? w->g.nedge - 1 : kr_cdg_find(&w->g, from, to);
		if (rc == KR_ECYCLE)
			w->incr_cycle = true;
		return rc < 0 && rc != KR_ECYCLE ? rc : KR_OK;
	}
	*e = kr_cdg_find(&w->g, from, to);
	if (*e != KR_NONE) {
		if (!w->exact)
			flag_known(w, *e, tag, why);
		return KR_OK;
	}
	if (kr_cdg_add(&w->g, from, to, tag) < 0)
		return KR_ENOMEM;
	*e = w->g.nedge - 1;
	return w->exact ? KR_OK : flag_new(w, why);
}

/* A row for node fn, channel from: one entry per link of the switch it
 * leads to to another switch (w->link_idx), the only ports a dependency
 * can go on by (check_dep). */
static int new_row(struct walk *w, uint32_t fn, uint32_t from)
{
	const struct kr_fabric *f = w->f;
	uint32_t sw = f->owner[f->peer[CH_SLOT(w, from)]];
	size_t n = 0;

	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		n += w->link_idx[s] != NOT_A_LINK;
	/* rows are found by uint32_t offsets (dep_row) */
	if (w->ndep + n > UINT32_MAX ||
	    kr_grow(&w->dep, &w->dep_cap, w->ndep + n, sizeof(*w->dep)) ||
	    (!w->exact && kr_grow(&w->dep_edge, &w->dep_edge_cap, w->ndep + n,
				  sizeof(*w->dep_edge))))
		return KR_ENOMEM;
	w->dep_row[fn] = (uint32_t)w->ndep;
	memset(w->dep + w->ndep, 0xff, n * sizeof(*w->dep));
	w->ndep += n;
	return KR_OK;
}

int check_dep(struct walk *w, uint32_t from, uint32_t to_slot, uint32_t to,
	      uint32_t tag, uint8_t why)
{
	uint32_t fn = CH_NODE(w, CH_SLOT(w, from), CH_VL(w, from));
	uint32_t tn = CH_NODE(w, to_slot, CH_VL(w, to)), at, e, *edge;
	struct dep_ref *d;

	if (w->dep_row[fn] == KR_NONE && new_row(w, fn, from))
		return KR_ENOMEM;
	at = w->dep_row[fn] + w->link_idx[to_slot];
	d = &w->dep[at];
	edge = w->exact ? NULL : w->dep_edge[at];
	if (d->to[0] == tn || d->to[1] == tn) {
		if (edge)
			flag_known(w, edge[d->to[1] == tn], tag, why);
		return KR_OK;
	}
	if (add_edge(w, fn, tn, tag, why, &e))
		return KR_ENOMEM;
	if (e == KR_NONE)
		return KR_OK;
	d->to[1] = d->to[0];
	d->to[0] = tn;
	if (edge) {
		edge[1] = edge[0];
		edge[0] = e;
	}
	return KR_OK;
}

void check_dep_reset(struct walk *w)
{
	memset(w->dep_row, 0xff, (size_t)w->g.nnode * sizeof(*w->dep_row));
	w->ndep = 0;
}

/* ------------------------------------------------------------------ */
/* Switch level: where the LFTs take a packet for one DLID              */

/* One step from switch sw (its state x, port the LFT entry, dest the
 * slot owning the DLID): a final result (delivered or why not), or
 * RES_BUSY with x->next and x->in set when the packet moves on to another
 * switch. */
static uint8_t sw_step(const struct walk *w, struct sw_state *x, uint32_t sw,
		       unsigned port, uint32_t dest)
{
	uint32_t p0 = w->f->port0[sw];
	uint64_t h;

	x->dist = 0;
	x->at = p0;
	x->next = KR_NONE;
	if (port > w->f->nports[sw])
		return 1 + KR_CHECK_NO_ENTRY;
	if (port == 0)
		return dest == p0 ? RES_OK : 1 + KR_CHECK_WRONG_DEST;
	h = w->hop[p0 + port];
	x->at = p0 + port;
	switch (h >> HOP_KIND_SHIFT) {
	case HOP_SW:
		x->next = (uint32_t)h;
		x->in = (uint8_t)(h >> 32);
		return RES_BUSY;
	case HOP_CA:
		x->dist = 1;
		x->at = (uint32_t)h;
		return x->at == dest ? RES_OK : 1 + KR_CHECK_WRONG_DEST;
	default:
		return 1 + KR_CHECK_DOWN_PORT;
	}
}

/* Resolves sw (and every switch on its way) for the current DLID. Each
 * switch is listed in w->done once its outcome is known: a switch's next
 * one is always listed before it, which is the order add_loads needs. */
void check_sw_resolve(struct walk *w, uint32_t sw, unsigned dlid)
{
	const struct kr_fabric *f = w->f;
	const uint8_t *row = w->row;
	struct sw_state *ss = w->sw;
	uint32_t n = 0, gen = w->gen, dest = f->lid_port[dlid];
	uint32_t *stack = w->stack;
	uint8_t res;

	while (ss[sw].gen != gen) {
		ss[sw].gen = gen;
		ss[sw].w = 0;
		ss[sw].xres = XRES_UNSET;
		res = sw_step(w, &ss[sw], sw, row[sw], dest);
		ss[sw].res = res;
		if (res != RES_BUSY) {
			w->done[w->ndone++] = sw;
			break;
		}
		stack[n++] = sw;
		sw = ss[sw].next;
	}
	res = ss[sw].res;
	if (res == RES_BUSY) {	/* met a switch still on the stack */
		res = 1 + KR_CHECK_LOOP;
		ss[sw].at = w->f->port0[sw];
	}
	while (n--) {		/* everything before inherits, one hop more */
		uint32_t u = stack[n], v = ss[u].next;

		ss[u].res = res;
		ss[u].dist = ss[v].dist + 1;
		ss[u].at = res == 1 + KR_CHECK_LOOP ? ss[sw].at : ss[v].at;
		w->done[w->ndone++] = u;
	}
}

/* ------------------------------------------------------------------ */
/* Channel level: VLs of one (DLID, SL); its dependencies: check_dep.c */

/* The channel generation of (current DLID, sl, SL assumed), made on first
 * use. */
uint32_t check_sl_gen(struct walk *w, unsigned sl, uint8_t sl_why)
{
	sl += sl_why ? KR_NSL : 0;
	if (w->sl_dlid[sl] != w->gen) {
		w->sl_dlid[sl] = w->gen;
		w->sl_gen[sl] = ++w->cgen;
	}
	return w->sl_gen[sl];
}

/* Follows channels from switch sw, entered through port in (0: the
 * packet starts there, or came from a CA, whose channel no dependency
 * leaves: the graph has switch channels only). Outcome in *res, in *at
 * the channel where it failed. The switch level delivers from sw (so the
 * route is loop-free, at most nsw steps) and gives the next switch of
 * each. Nearly every walk ends at its first or second channel, met
 * before: what the loop reads stays in locals. */
int check_ch_walk(struct walk *w, uint32_t sw, unsigned in,
		  const struct ch_in *p, uint8_t *res, uint32_t *at)
{
	const struct kr_fabric *f = w->f;
	const struct sw_state *ss = w->sw;
	const uint8_t *row = w->row;
	const bool given = w->t->sl2vl_given != NULL;
	const unsigned nvl = w->nvl, sl = p->sl;
	struct ch_memo *ch = w->ch;
	uint32_t *stack = w->cstack, *ch_at = w->ch_at;
	uint16_t *vl_mask = w->r->vl_mask;
	uint32_t n = 0, cg = check_sl_gen(w, sl, p->sl_why), prev = KR_NONE, c = 0;
	uint8_t r = RES_OK, prev_why = 0;	/* the map giving prev's VL
						 * was assumed */
	bool prev_fixed = false;	/* and sends every SL to one VL */

	for (;;) {
		unsigned out = row[sw], vl;
		uint32_t slot, m;
		uint64_t map;
		uint8_t why = 0, hop;
		bool fixed;

		if (out == 0)
			break;	/* delivered at this switch */
		slot = f->port0[sw] + out;
		map = sw_map(w, sw, in, out);
		vl = kr_map_vl(map, sl);
		fixed = map_fixed(map);
		if (given)
			why = check_map_why(w, sw, in, out);
		c = NCH(w, slot, vl);
		m = sw * nvl + vl;
		if (prev != KR_NONE && !drains(w, sw) &&
		    check_dep(w, prev, slot, c, p->tag,
			      dep_why(p->sl_why, prev_why, prev_fixed, why,
				      fixed)))
			return KR_ENOMEM;
		hop = why | (p->sl_why && fixed ? 4 : 0);
		if (ch[m].gen == cg && ch[m].hop == hop) {
			r = ch[m].res;
			if (r)
				*at = ch_at[m];
			break;
		}
		ch[m].gen = cg;
		ch[m].hop = hop;
		stack[n++] = m;
		vl_mask[slot] |= (uint16_t)(1u << vl);
		r = vl_check(w, slot, vl);
		if (r) {
			*at = c;
			break;
		}
		if (ss[sw].next == KR_NONE)
			break;	/* delivered to a CA */
		prev = c;
		prev_why = why;
		prev_fixed = fixed;
		in = ss[sw].in;
		sw = ss[sw].next;
	}
	for (uint32_t i = 0; i < n; i++) {
		ch[stack[i]].res = r;
		if (r)
			ch_at[stack[i]] = *at;
	}
	*res = r;
	return KR_OK;
}

/* The channel of packets leaving switch u at the next switch, and what
 * becomes of them from there, memoised per switch for the current DLID
 * (classes_chain: one SL, nothing assumed). Each switch on the way adds its
 * dependency into the next one's channel, tagged with the pair that got
 * there first. The memo of ch_walk marks the channels met (a channel
 * fails or passes whoever holds it, and leads on the same way). */
int check_walk_chain(struct walk *w, uint32_t u, unsigned sl, uint32_t tag)
{
	const struct kr_fabric *f = w->f;
	struct sw_state *ss = w->sw;
	const uint8_t *row = w->row;
	uint32_t *stack = w->cstack, n = 0, v, cg = check_sl_gen(w, sl, 0);

	while (ss[u].xres == XRES_UNSET) {
		unsigned out, vl;
		uint32_t slot;
		struct ch_memo *m;

		ss[u].x = KR_NONE;
		ss[u].xres = RES_OK;
		v = ss[u].next;
		if (v == KR_NONE || !(out = row[v]))
			break;	/* delivered to a CA or at v itself */
		slot = f->port0[v] + out;
		vl = kr_map_vl(sw_map(w, v, ss[u].in, out), sl);
		ss[u].x = NCH(w, slot, vl);
		m = &w->ch[v * w->nvl + vl];
		ss[u].xres = vl_check(w, slot, vl);
		if (ss[u].xres) {
			ss[u].xat = ss[u].x;
			w->r->vl_mask[slot] |= (uint16_t)(1u << vl);
			break;
		}
		if (m->gen == cg) {	/* met before: its dependency and
					 * v's chain are there */
			ss[u].xres = ss[v].xres;
			ss[u].xat = ss[v].xat;
			break;
		}
		m->gen = cg;
		w->r->vl_mask[slot] |= (uint16_t)(1u << vl);
		stack[n++] = u;
		u = v;
	}
	while (n--) {		/* each inherits its next switch's chain */
		u = stack[n];
		v = ss[u].next;
		if (ss[v].x != KR_NONE && !drains(w, ss[v].next) &&
		    check_dep(w, ss[u].x, f->port0[ss[v].next] +
			      row[ss[v].next], ss[v].x, tag, 0))
			return KR_ENOMEM;
		ss[u].xres = ss[v].xres;
		ss[u].xat = ss[v].xat;
	}
	return KR_OK;
}
