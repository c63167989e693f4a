/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's walk: destination by destination, first over switches
 * (where do the LFTs take a packet for this DLID from here, in how many
 * hops), then over channels for each SL in use (which VL on every hop,
 * which dependencies), memoising both, then a cycle search in the CDG.
 *
 * A 16K-CA fabric has ~3e8 pairs, too many to touch one by one: sources
 * that behave alike form classes (check_int.h), so the work per DLID is
 * about one step per switch and one per class, plus the pairs with an SL
 * of their own. When every pair towards a DLID has its SL, and nothing is
 * assumed, the channel walk needs no memo per channel either: all packets
 * leaving a switch enter the next one through the same port, so after
 * their first channel they share one chain of channels per switch
 * (classes_chain).
 *
 * Two passes over the destinations: data (CA sources to CA LIDs), whose
 * graph gets its verdict, then management (towards switch LIDs, and from
 * switches), whose dependencies grow the same graph for the second. The
 * multicast trees then grow the graph of the counted class (management's
 * dependencies dropped again when only data counts) for the third. */
#include "kr_check.h"

#include <stdlib.h>
#include <string.h>

#include "check_int.h"

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
static void sw_resolve(struct walk *w, uint32_t sw, unsigned dlid)
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

/* Whether the channel out of switch sw, on a delivering path, is into a
 * CA: nothing waits for such a channel's credits once it is held (the CA
 * takes the packet), so it lies on no cycle and its dependencies stay out
 * of the graph, as those out of a CA's channel do. */
static inline bool drains(const struct walk *w, uint32_t sw)
{
	return w->sw[sw].next == KR_NONE;
}

/* The channel generation of (current DLID, sl, SL assumed), made on first
 * use. */
static uint32_t sl_gen(struct walk *w, unsigned sl, uint8_t sl_why)
{
	sl += sl_why ? KR_NSL : 0;
	if (w->sl_dlid[sl] != w->gen) {
		w->sl_dlid[sl] = w->gen;
		w->sl_gen[sl] = ++w->cgen;
	}
	return w->sl_gen[sl];
}

/* A walk on one SL: sl_why is KR_CHECK_ASSUMED_SL when that SL was
 * assumed; tag names the pair for the dependencies it makes. */
struct ch_in {
	unsigned sl;
	uint8_t sl_why;
	uint32_t tag;
};

/* The SL2VL map of switch sw from in to out (check_map, for a switch). */
static inline uint64_t sw_map(const struct walk *w, uint32_t sw, unsigned in,
			      unsigned out)
{
	uint64_t m;
	size_t at;

	if (!w->map_at)
		return 0;
	m = w->map_at[sw];
	at = (m >> 16) + out * (m & 0xffff) + in;
	return w->map_id ? w->map[w->map_id[at]] : w->t->sl2vl[at];
}

/* Follows channels from switch sw, entered through port in (0: the
 * packet starts there, or came from a CA, whose channel no dependency
 * leaves: the graph has switch channels only). Outcome in *res, in *at
 * the channel where it failed. The switch level delivers from sw (so the
 * route is loop-free, at most nsw steps) and gives the next switch of
 * each. Nearly every walk ends at its first or second channel, met
 * before: what the loop reads stays in locals. */
static int ch_walk(struct walk *w, uint32_t sw, unsigned in,
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
	uint32_t n = 0, cg = sl_gen(w, sl, p->sl_why), prev = KR_NONE, c = 0;
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
static int walk_chain(struct walk *w, uint32_t u, unsigned sl, uint32_t tag)
{
	const struct kr_fabric *f = w->f;
	struct sw_state *ss = w->sw;
	const uint8_t *row = w->row;
	uint32_t *stack = w->cstack, n = 0, v, cg = sl_gen(w, sl, 0);

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

/* ------------------------------------------------------------------ */
/* Sources                                                            */

static void fail_one(struct walk *w, uint32_t s, unsigned dlid, uint8_t res,
		     uint32_t at, bool chan)
{
	struct kr_check_report *r = w->r;

	if (r->nex >= w->o->max_examples)
		return;
	r->ex[r->nex++] = (struct kr_check_example){
		.src = s, .slid = w->f->lid[s], .dlid = (uint16_t)dlid,
		.reason = (uint8_t)(res - 1),
		.vl = chan ? (uint8_t)CH_VL(w, at) : 0,
		.at = chan ? CH_SLOT(w, at) : at };
}

/* Switch-level outcome from the sources of class c: hops so far; 0 or
 * 1 + reason. */
static uint8_t enter(struct walk *w, const struct src_class *c, unsigned dlid,
		     uint32_t *hops, uint32_t *at)
{
	uint32_t sw = c->sw;

	*hops = c->kind == SRC_CA;
	if (sw == KR_NONE) {	/* a CA linked to a CA: a class of its own */
		*at = (uint32_t)w->f->peer[c->rep];
		return w->f->lid_port[dlid] == *at ? RES_OK
						   : 1 + KR_CHECK_WRONG_DEST;
	}
	if (w->sw[sw].gen != w->gen)
		sw_resolve(w, sw, dlid);
	*hops += w->sw[sw].dist;
	*at = w->sw[sw].at;
	return w->sw[sw].res;
}

/* Where a source's walk ended: outcome, failing channel, the source
 * port's own VL (a CA). */
struct ch_out {
	uint8_t res;
	uint32_t at;
	unsigned vl0;
};

/* Channel walk from source s of class c: its own port's channel (a CA:
 * VL o->vl0), then the switches'. */
static int ch_source(struct walk *w, uint32_t s, const struct src_class *c,
		     struct ch_in p, struct ch_out *o)
{
	if (c->kind == SRC_SW)
		return ch_walk(w, c->sw, 0, &p, &o->res, &o->at);
	o->vl0 = kr_map_vl(c->map0, p.sl);
	o->at = NCH(w, s, o->vl0);
	o->res = vl_check(w, s, o->vl0);
	if (o->res || c->sw == KR_NONE)
		return KR_OK;
	return ch_walk(w, c->sw, c->in, &p, &o->res, &o->at);
}

static void count_delivered(struct walk *w, uint32_t sw, uint32_t hops,
			    uint64_t n)
{
	struct kr_check_report *r = w->r;

	r->delivered += n;
	r->hops[hops < r->nhops ? hops : r->nhops - 1] += n;
	if (sw != KR_NONE)
		w->sw[sw].w += (uint32_t)n;
}

/* A pair with an SL of its own, walked alone: source s, in class c or
 * one of its own; why as in one_class. */
static int one_pair(struct walk *w, uint32_t s, const struct src_class *c,
		    unsigned dlid, unsigned sl, uint8_t why)
{
	struct ch_in p = { .sl = sl, .sl_why = why,
			   .tag = (uint32_t)w->f->lid[s] << 16 | dlid };
	struct ch_out o;
	uint32_t hops, at;
	uint8_t res = enter(w, c, dlid, &hops, &at);
	bool chan = false;

	w->r->pairs++;
	if (why)
		w->r->assumed.sl_pairs[w->mgmt]++;
	if (!res) {
		if (ch_source(w, s, c, p, &o))
			return KR_ENOMEM;
		if (c->kind == SRC_CA)
			w->r->vl_mask[s] |= (uint16_t)(1u << o.vl0);
		res = o.res;
		at = o.at;
		chan = true;
	}
	if (res) {
		w->r->fail[res - 1]++;
		fail_one(w, s, dlid, res, at, chan);
	} else {
		count_delivered(w, c->sw, hops, 1);
	}
	return KR_OK;
}

static bool sits_out(const struct walk *w, uint32_t s)
{
	return w->excl_gen[s] == w->gen;
}

static void fail_class(struct walk *w, const struct src_class *c,
		       unsigned dlid, uint8_t res, uint32_t at, bool chan,
		       uint32_t n)
{
	w->r->fail[res - 1] += n;
	for (uint32_t i = 0; i < c->n && w->r->nex < w->o->max_examples; i++) {
		uint32_t m = w->member[c->first + i];

		if (sits_out(w, m))
			continue;
		/* a failure on the representative's own port is on each
		 * member's own port */
		fail_one(w, m, dlid, res, chan && CH_SLOT(w, at) == c->rep ?
			 NCH(w, m, CH_VL(w, at)) : at, chan);
	}
}

/* KR_CHECK_ASSUMED_SL when no input gave the SL of source s towards dlid
 * (pairs of their own are given). */
static uint8_t sl_why(const struct walk *w, uint32_t s, unsigned dlid)
{
	const uint8_t *g = w->t->sl_given;

	if (!g || (dlid < w->t->stride &&
		   (g[dlid] == KR_SL_ALL ||
		    (g[dlid] == KR_SL_CAS && !kr_is_switch(w->f, w->f->owner[s])))))
		return 0;
	return KR_CHECK_ASSUMED_SL;
}

/* n members of class c on SL sl, assumed for why (0: given). */
static int one_class(struct walk *w, struct src_class *c, unsigned dlid,
		     unsigned sl, uint8_t why, uint32_t n)
{
	struct ch_in p = { .sl = sl, .sl_why = why,
			   .tag = (uint32_t)c->rep_lid << 16 | dlid };
	struct ch_out o;
	uint32_t hops, at;
	uint8_t res = enter(w, c, dlid, &hops, &at);

	w->r->pairs += n;
	if (p.sl_why)
		w->r->assumed.sl_pairs[w->mgmt] += n;
	if (res) {
		fail_class(w, c, dlid, res, at, false, n);
		return KR_OK;
	}
	if (ch_source(w, c->rep, c, p, &o))
		return KR_ENOMEM;
	if (c->kind == SRC_CA)
		c->vl0_mask |= (uint16_t)(1u << o.vl0);
	if (o.res)
		fail_class(w, c, dlid, o.res, o.at, true, n);
	else
		count_delivered(w, c->sw, hops, n);
	return KR_OK;
}

/* ------------------------------------------------------------------ */
/* Destinations                                                       */

/* Delivered pairs flow along the LFT tree of this DLID: in the reverse of
 * w->done every switch comes before its next one, so it passes on a
 * finished count. Each load also goes to k, when kept (check_twin.c). */
static void add_loads(struct walk *w, struct twin *k)
{
	const struct kr_fabric *f = w->f;
	struct sw_state *ss = w->sw;

	for (uint32_t i = w->ndone; i-- > 0;) {
		uint32_t sw = w->done[i], next = ss[sw].next;
		uint32_t slot = f->port0[sw] + w->row[sw];

		if (ss[sw].res || next == KR_NONE || !ss[sw].w)
			continue;
		w->r->link_load[slot] += ss[sw].w;
		ss[next].w += ss[sw].w;
		if (k) {
			k->load_slot[k->nload] = slot;
			k->load[k->nload++] = ss[sw].w;
		}
	}
}

/* Takes source slot s out of its class's count for this DLID. */
static void sit_out(struct walk *w, uint32_t s)
{
	struct src_class *c = &w->cls[w->class_of[s]];

	if (c->minus_gen != w->gen) {
		c->minus_gen = w->gen;
		c->minus = 0;
	}
	c->minus++;
	w->excl_gen[s] = w->gen;
}

static unsigned src_kind(const struct walk *w, uint32_t s)
{
	return kr_is_switch(w->f, w->f->owner[s]) ? SRC_SW : SRC_CA;
}

/* Pairs towards dlid with an SL of their own go alone. */
static int exceptions(struct walk *w, unsigned dlid, uint32_t own,
		      unsigned srcs)
{
	const struct kr_fabric *f = w->f;
	uint32_t lo = 0, hi = 0;

	if (dlid < w->t->stride) {
		lo = w->ex_first[dlid];
		hi = w->ex_first[dlid + 1];
	}
	for (uint32_t i = lo; i < hi; i++) {
		const struct kr_sl_pair *e = &w->ex[i];
		uint32_t s = kr_port_by_lid(f, e->slid);

		/* only a source's base LID is an SLID here */
		if (s == KR_NONE || s == own || w->class_of[s] == KR_NONE ||
		    f->lid[s] != e->slid || !(src_kind(w, s) & srcs))
			continue;
		sit_out(w, s);
		if (one_pair(w, s, &w->cls[w->class_of[s]], dlid, e->sl, 0))
			return KR_ENOMEM;
	}
	return KR_OK;
}

/* The classes srcs picks towards dlid, when every pair has SL sl and
 * nothing is assumed: one_class for all of them, each a first channel
 * and then its switch's chain (walk_chain), in one loop. */
static int classes_chain(struct walk *w, unsigned dlid, unsigned sl,
			 unsigned srcs)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_report *r = w->r;
	struct sw_state *ss = w->sw;
	const uint8_t *row = w->row;
	const uint32_t gen = w->gen, cg = sl_gen(w, sl, 0);
	uint64_t pairs = 0, delivered = 0;

	for (uint32_t k = 0; k < w->ncls; k++) {
		struct src_class *c = &w->cls[k];
		uint32_t n = c->n - (c->minus_gen == gen ? c->minus : 0);
		uint32_t sw = c->sw, hops = c->kind == SRC_CA, tag, at = 0;
		unsigned out, vl;
		uint8_t res = RES_OK;
		bool chan = false;	/* at is a channel */

		if (!n || !(c->kind & srcs))
			continue;
		pairs += n;
		if (sw == KR_NONE) {	/* a CA linked to a CA */
			at = (uint32_t)f->peer[c->rep];
			if (f->lid_port[dlid] != at)
				res = 1 + KR_CHECK_WRONG_DEST;
		} else {
			if (ss[sw].gen != gen)
				sw_resolve(w, sw, dlid);
			res = ss[sw].res;
			at = ss[sw].at;
			hops += ss[sw].dist;
		}
		if (!res && c->kind == SRC_CA) {
			vl = kr_map_vl(c->map0, sl);
			c->vl0_mask |= (uint16_t)(1u << vl);
			at = NCH(w, c->rep, vl);
			chan = true;
			res = vl_check(w, c->rep, vl);
		}
		if (!res && sw != KR_NONE && (out = row[sw])) {
			uint32_t slot = f->port0[sw] + out;
			struct ch_memo *m;

			vl = kr_map_vl(sw_map(w, sw, c->in, out), sl);
			at = NCH(w, slot, vl);
			chan = true;
			res = vl_check(w, slot, vl);
			m = &w->ch[sw * w->nvl + vl];
			tag = (uint32_t)c->rep_lid << 16 | dlid;
			if (!res && ss[sw].xres == XRES_UNSET &&
			    walk_chain(w, sw, sl, tag))
				return KR_ENOMEM;
			if (m->gen != cg) {	/* not met before */
				r->vl_mask[slot] |= (uint16_t)(1u << vl);
				if (!res) {
					m->gen = cg;
					if (ss[sw].x != KR_NONE &&
					    !drains(w, ss[sw].next) &&
					    check_dep(w, at, f->port0[ss[sw].next] +
						      row[ss[sw].next],
						      ss[sw].x, tag, 0))
						return KR_ENOMEM;
				}
			}
			if (!res && ss[sw].xres) {
				res = ss[sw].xres;
				at = ss[sw].xat;
			}
		}
		if (res) {
			fail_class(w, c, dlid, res, at, chan, n);
			continue;
		}
		delivered += n;
		r->hops[hops < r->nhops ? hops : r->nhops - 1] += n;
		if (sw != KR_NONE)
			ss[sw].w += n;
	}
	r->pairs += pairs;
	r->delivered += delivered;
	return KR_OK;
}

/* One SL's share of the SM node's traffic towards dlid: with ca, the CA
 * ports' to the SM's LID, or the SM port's to a CA LID; with sw, the
 * switches' to the SM's LID, or the SM port's to a switch LID. On a
 * channel generation of its own: classes_chain marks the channels of the
 * DLID's SL without their outcome, which ch_walk would read. why as in
 * one_class. */
static int sm_pairs_on(struct walk *w, unsigned dlid, unsigned sl,
		       uint8_t why, bool ca, bool sw)
{
	const struct kr_fabric *f = w->f;
	uint32_t dest = f->lid_port[dlid];

	w->sl_dlid[sl] = 0;	/* no DLID's generation: a new one */
	if (dlid != w->t->sm_lid) {
		if (dest == w->sm_slot ||
		    !(kr_is_switch(f, f->owner[dest]) ? sw : ca))
			return KR_OK;
		return one_pair(w, w->sm_slot, &w->sm_cls, dlid, sl, why);
	}
	for (uint32_t k = 0; ca && k < w->ncls; k++) {
		struct src_class *c = &w->cls[k];
		uint32_t n = c->n - (w->class_of[dest] == k);

		if (n && c->kind == SRC_CA && one_class(w, c, dlid, sl, why, n))
			return KR_ENOMEM;
	}
	for (uint32_t n = 0; sw && n < f->nsw; n++) {
		uint32_t s = f->port0[n];
		struct src_class c;

		if (s == dest || !f->lid[s])
			continue;
		c = check_source_class(w, s);
		if (one_pair(w, s, &c, dlid, sl, why))
			return KR_ENOMEM;
	}
	return KR_OK;
}

/* The SM node's traffic towards dlid, besides the DLID's own SLs: the
 * SA's queries from every CA port and its answers, on t->sm_sl, and the
 * PerfMgr's queries to every port, switches' included, and their replies
 * (a port replies on the request's SL), on the SL OpenSM sends them on.
 * The two are one walk when they share the SL, unless no input gave the
 * SA's: its pairs then count as assumed, the PerfMgr's stay given. */
static int sa_pairs(struct walk *w, unsigned dlid)
{
	unsigned sa = w->t->sm_sl;
	bool apart = sa != KR_PERFMGR_SL || w->t->sm_sl_taken;
	uint64_t before = w->r->pairs;
	int rc = sm_pairs_on(w, dlid, sa, w->t->sm_sl_taken ?
			     KR_CHECK_ASSUMED_SL : 0, true, !apart);

	if (!rc && apart)
		rc = sm_pairs_on(w, dlid, KR_PERFMGR_SL, 0, true, true);
	w->r->sm_pairs += w->r->pairs - before;
	return rc;
}

/* The pairs from the sources srcs picks towards dlid. */
static int one_dest(struct walk *w, unsigned dlid, unsigned srcs)
{
	const struct kr_tables *t = w->t;
	uint32_t own = w->f->lid_port[dlid];
	unsigned sl = check_dlid_sl(t, dlid);
	uint64_t pairs0, delivered0;
	bool chain;

	w->gen++;
	w->ndone = 0;
	w->mgmt = srcs != SRC_CA;
	chain = w->exact && (dlid >= t->stride ||
			     w->ex_first[dlid] == w->ex_first[dlid + 1]);
	if (srcs & SRC_CA)	/* each LID once: in the pass with its CAs */
		w->r->ndst++;
	if (!srcs)		/* a CA's LID in the management pass */
		return w->sm_slot != KR_NONE ? sa_pairs(w, dlid) : KR_OK;
	if (chain && srcs == SRC_CA && check_twin_met(w, dlid, sl))
		return KR_OK;
	if (chain && srcs == SRC_ANY && !w->o->switch_sources &&
	    check_twin_switch(w, dlid))
		return w->sm_slot != KR_NONE ? sa_pairs(w, dlid) : KR_OK;
	pairs0 = w->r->pairs;
	delivered0 = w->r->delivered;
	if (w->class_of[own] != KR_NONE)
		sit_out(w, own);
	if (exceptions(w, dlid, own, srcs))
		return KR_ENOMEM;
	if (chain && classes_chain(w, dlid, sl, srcs))
		return KR_ENOMEM;
	for (uint32_t k = 0; !chain && k < w->ncls; k++) {
		struct src_class *c = &w->cls[k];
		uint32_t n = c->n - (c->minus_gen == w->gen ? c->minus : 0);

		if (n && (c->kind & srcs) &&
		    one_class(w, c, dlid, sl, sl_why(w, c->rep, dlid), n))
			return KR_ENOMEM;
	}
	if (w->mgmt && w->sm_slot != KR_NONE && sa_pairs(w, dlid))
		return KR_ENOMEM;
	/* Link load is about data: paths between CA ports. Switch LIDs only
	 * draw management traffic and would blur, e.g., KNS's exactly even
	 * router-crossbar load. */
	if (!w->mgmt)
		add_loads(w, chain && srcs == SRC_CA ?
			  check_twin_keep(w, dlid, sl, pairs0, delivered0)
			  : NULL);
	return KR_OK;
}

/* LFT columns base .. base + BLOCK - 1, BLOCK switches at a time: their
 * rows' lines are copied into one contiguous square first, then read
 * across. Read across in place, rows a stride of a multiple of 2 KiB
 * apart (e.g. 10240 LIDs) fall into two or four sets of the L1 cache,
 * and every byte was a miss. */
static void load_block(struct walk *w, unsigned base)
{
	const uint8_t *lft = w->t->lft + base;
	size_t stride = w->t->stride;
	uint32_t nsw = w->f->nsw;
	unsigned nd = stride - base < BLOCK ? (unsigned)(stride - base) : BLOCK;
	uint8_t sq[BLOCK][BLOCK];

	for (uint32_t sw0 = 0; sw0 < nsw; sw0 += BLOCK) {
		uint32_t n = nsw - sw0 < BLOCK ? nsw - sw0 : BLOCK;

		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *row = lft + (size_t)(sw0 + i) * stride;

			if (nd == BLOCK) {	/* a copy the compiler inlines */
				memcpy(sq[i], row, BLOCK);
				continue;
			}
			memcpy(sq[i], row, nd);
			memset(sq[i] + nd, KR_NO_PORT, BLOCK - nd);
		}
		for (unsigned d = 0; d < BLOCK; d++) {
			uint8_t *col = w->col + (size_t)d * nsw + sw0;

			for (uint32_t i = 0; i < n; i++)
				col[i] = sq[i][d];
		}
	}
}

static bool is_dest(const struct kr_fabric *f, unsigned lid)
{
	uint32_t slot = f->lid_port[lid];
	uint32_t n;

	if (slot == KR_NONE)
		return false;
	n = f->owner[slot];
	return kr_is_switch(f, n) ? slot == f->port0[n] : f->peer[slot] >= 0;
}

/* ------------------------------------------------------------------ */
/* Run                                                                */

/* One pass over the destinations: data (CA sources to CA LIDs) or
 * management (every source to switch LIDs, switch sources to CA LIDs). */
static int walk_pass(struct walk *w, bool mgmt)
{
	const struct kr_fabric *f = w->f;
	unsigned loaded = 0;	/* the block in w->col, + 1; 0: none */
	int rc = KR_OK;

	for (unsigned lid = 1; !rc && !w->incr_cycle && lid <= f->max_lid; lid++) {
		unsigned srcs;
		bool sw;

		if (!is_dest(f, lid) || (w->only && !w->only[lid]))
			continue;
		sw = kr_is_switch(f, f->owner[f->lid_port[lid]]);
		if (!mgmt && !sw)
			srcs = SRC_CA;
		else if (mgmt && sw)
			srcs = SRC_ANY;
		else if (mgmt && (w->o->switch_sources || w->sm_slot != KR_NONE))
			srcs = w->o->switch_sources ? SRC_SW : 0;
		else
			continue;
		/* only blocks with a DLID of this pass: the management pass of
		 * a large fabric walks few of them (its switches' LIDs) */
		if (lid / BLOCK + 1 != loaded) {
			load_block(w, lid - lid % BLOCK);
			loaded = lid / BLOCK + 1;
		}
		w->row = w->col + (size_t)(lid % BLOCK) * f->nsw;
		rc = one_dest(w, lid, srcs);
	}
	check_twin_flush(w);
	return rc;
}

/* The class the result code stands for. */
static unsigned counted(struct walk *w)
{
	struct kr_check_report *r = w->r;

	r->dests = w->o->dests;
	if (r->dests == KR_CHECK_DESTS_AUTO)
		r->dests = r->assumed.sl_pairs[KR_CHECK_ALL]
				   ? KR_CHECK_DESTS_CAS : KR_CHECK_DESTS_ALL;
	return r->dests == KR_CHECK_DESTS_CAS ? KR_CHECK_DATA : KR_CHECK_ALL;
}

static int verdict(struct walk *w, struct kr_diag *d)
{
	struct kr_check_report *r = w->r;
	const struct kr_check_class *c = &r->cls[counted(w)];
	const struct kr_check_class *m = &r->cls[KR_CHECK_MCAST];

	if (c->delivered < c->pairs)
		return kr_fail(d, KR_EROUTE, 0, "%llu of %llu pairs undelivered",
			       (unsigned long long)(c->pairs - c->delivered),
			       (unsigned long long)c->pairs);
	if (c->loop == KR_LOOP_PROVEN)
		return kr_fail(d, KR_ECYCLE, 0, "credit loop of %u channels",
			       c->ncycle);
	/* multicast only adds dependencies: its class is never better */
	if (r->ngroups && m->loop == KR_LOOP_PROVEN)
		return kr_fail(d, KR_ECYCLE, 0, "credit loop of %u channels "
			       "with multicast", m->ncycle);
	if (r->ngroups && m->loop == KR_LOOP_ASSUMED && c->loop == KR_LOOP_NONE)
		return kr_fail(d, KR_EASSUMED, 0, "credit loop of %u channels "
			       "with multicast through %u pairs or groups whose "
			       "SL and %u dependencies whose SL2VL map was "
			       "assumed", m->ncycle, m->loop_sl_pairs,
			       m->loop_map_deps);
	if (c->loop == KR_LOOP_ASSUMED)
		return kr_fail(d, KR_EASSUMED, 0, "credit loop of %u channels "
			       "through %u pairs whose SL and %u dependencies "
			       "whose SL2VL map was assumed", c->ncycle,
			       c->loop_sl_pairs, c->loop_map_deps);
	return KR_OK;
}

/* The counted class's graph grown by the multicast trees. */
static int walk_mcast(struct walk *w, uint32_t data_deps)
{
	struct kr_check_report *r = w->r;
	unsigned k = counted(w);

	r->ngroups = (uint32_t)w->t->nmgroup;
	if (!r->ngroups)
		return KR_OK;
	if (k == KR_CHECK_DATA) {
		kr_cdg_truncate(&w->g, data_deps);
		check_dep_reset(w);
	}
	r->cls[KR_CHECK_MCAST].pairs = r->cls[k].pairs;
	r->cls[KR_CHECK_MCAST].delivered = r->cls[k].delivered;
	return check_mcast(w) ? KR_ENOMEM : check_class_loop(w, KR_CHECK_MCAST);
}

/* Both passes, each followed by its class's loop verdict, then multicast. */
static int walk_all(struct walk *w)
{
	struct kr_check_report *r = w->r;
	int rc = walk_pass(w, false);
	uint32_t data_deps = w->g.nedge;

	r->cls[KR_CHECK_DATA].pairs = r->pairs;
	r->cls[KR_CHECK_DATA].delivered = r->delivered;
	if (!rc)
		rc = check_class_loop(w, KR_CHECK_DATA);
	if (!rc)
		rc = walk_pass(w, true);
	r->cls[KR_CHECK_ALL].pairs = r->pairs;
	r->cls[KR_CHECK_ALL].delivered = r->delivered;
	if (!rc)
		rc = check_class_loop(w, KR_CHECK_ALL);
	r->deps = w->g.nedge;
	if (!rc)
		rc = walk_mcast(w, data_deps);
	return rc;
}

/* The pairs towards the marked DLIDs, both classes, into the ordered
 * graph: no bulk ordering, the insertions keep it acyclic or say not. */
static int walk_incr(struct walk *w)
{
	struct kr_check_report *r = w->r;
	int rc = walk_pass(w, false);

	r->cls[KR_CHECK_DATA].pairs = r->pairs;
	r->cls[KR_CHECK_DATA].delivered = r->delivered;
	if (!rc)
		rc = walk_pass(w, true);
	r->cls[KR_CHECK_ALL].pairs = r->pairs;
	r->cls[KR_CHECK_ALL].delivered = r->delivered;
	r->deps = w->g.nedge;
	return rc;
}

/* Every multicast tree's dependencies into the ordered graph of a unicast
 * check of the same tables, then taken out again: the graph is left as
 * that check's (kr_cdg_truncate keeps its order valid). */
static int walk_mcast_incr(struct walk *w)
{
	uint32_t unicast = w->g.nedge;
	int rc;

	w->r->ngroups = (uint32_t)w->t->nmgroup;
	rc = check_mcast(w);
	kr_cdg_truncate(&w->g, unicast);
	return rc;
}

/* Hands the graph of a passing check to the caller, ordered. */
static void keep_graph(struct walk *w, int rc)
{
	if (!w->o->keep)
		return;
	*w->o->keep = NULL;
	if (rc || !w->exact || w->t->nmgroup || !w->g.ordered)
		return;
	if ((*w->o->keep = malloc(sizeof(w->g)))) {
		**w->o->keep = w->g;
		w->g = (struct kr_cdg){ 0 };
	}
}

static int run(struct walk *w, struct kr_cdg *g, struct kr_diag *d)
{
	const struct kr_tables *t = w->t;
	bool moved = false;
	int rc;

	for (size_t i = 0; i < t->nmgroup; i++)
		w->exact &= t->mgroup[i].sl_given;
	*w->r = (struct kr_check_report){ .exact = w->exact };
	rc = check_setup(w);
	if (rc == KR_EINVAL)
		rc = kr_fail(d, rc, 0, "%u port slots: too many to check",
			     w->f->nport);
	if (!rc && g) {		/* the earlier graph replaces the empty one */
		if (g->nnode != w->g.nnode || !g->ordered || !w->exact ||
		    (w->mcast_only ? !t->nmgroup : t->nmgroup != 0))
			rc = kr_fail(d, KR_EINVAL, 0, "the earlier check's "
				     "graph does not fit these tables");
		kr_cdg_free(&w->g);
		w->g = *g;
		*g = (struct kr_cdg){ 0 };
		moved = true;
	}
	if (!rc)
		rc = !g ? walk_all(w) : w->mcast_only ? walk_mcast_incr(w)
						     : walk_incr(w);
	if (!rc) {
		check_sum_links(w);
		check_sum_vls(w);
		check_count_assumed(w);
		rc = w->incr_cycle ? kr_fail(d, KR_ECYCLE, 0, "a dependency of "
					     "a %s closes a cycle with "
					     "earlier ones", w->mcast_only ?
					     "multicast tree" :
					     "changed destination")
				   : verdict(w, d);
	} else if (rc == KR_ENOMEM) {
		rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	} else if (rc != KR_EINVAL) {
		rc = kr_fail(d, rc, 0, "%s", kr_strerror(rc));
	}
	if (moved) {		/* back to the caller, grown */
		*g = w->g;
		w->g = (struct kr_cdg){ 0 };
	} else if (!g) {
		keep_graph(w, rc);
	}
	check_teardown(w);
	return rc;
}

/* Every SL and map in t was given: the walk need not track assumptions
 * (multicast groups are looked at in run). */
static bool all_given(const struct kr_tables *t)
{
	return !t->sl2vl_given && !t->sl_given && !t->sm_sl_taken;
}

int kr_check_run(const struct kr_fabric *f, const struct kr_tables *t,
		 const struct kr_check_opts *o, struct kr_check_report *r,
		 struct kr_diag *d)
{
	struct walk w = { .f = f, .t = t, .o = o, .r = r,
			  .exact = all_given(t) };

	return run(&w, NULL, d);
}

int kr_check_incremental(const struct kr_fabric *f, const struct kr_tables *t,
			 const uint8_t *only, struct kr_cdg *g,
			 struct kr_check_report *r, struct kr_diag *d)
{
	struct kr_check_opts o = { .max_examples = 3 };
	struct walk w = { .f = f, .t = t, .o = &o, .r = r, .incr = true,
			  .only = only, .exact = all_given(t) };

	return run(&w, g, d);
}

int kr_check_mcast_incremental(const struct kr_fabric *f,
			       const struct kr_tables *t, struct kr_cdg *g,
			       struct kr_check_report *r, struct kr_diag *d)
{
	struct kr_check_opts o = { .max_examples = 3 };
	struct walk w = { .f = f, .t = t, .o = &o, .r = r, .incr = true,
			  .mcast_only = true, .exact = all_given(t) };

	return run(&w, g, d);
}

void kr_check_graph_free(struct kr_cdg *g)
{
	if (!g)
		return;
	kr_cdg_free(g);
	free(g);
}

void kr_check_report_free(struct kr_check_report *r)
{
	free(r->ex);
	free(r->hops);
	free(r->link_load);
	free(r->vl_mask);
	for (unsigned k = 0; k < KR_CHECK_NCLASS; k++)
		free(r->cls[k].cycle);
	*r = (struct kr_check_report){ 0 };
}
