/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's sources and destinations: the classes of sources that
 * behave alike, the pairs with an SL of their own, the SA's and PerfMgr's
 * pairs, each DLID's pairs walked once. */
#include "kr_check.h"

#include <stdlib.h>
#include <string.h>

#include "check_int.h"

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
		check_sw_resolve(w, sw, dlid);
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
		return check_ch_walk(w, c->sw, 0, &p, &o->res, &o->at);
	o->vl0 = kr_map_vl(c->map0, p.sl);
	o->at = NCH(w, s, o->vl0);
	o->res = vl_check(w, s, o->vl0);
	if (o->res || c->sw == KR_NONE)
		return KR_OK;
	return check_ch_walk(w, c->sw, c->in, &p, &o->res, &o->at);
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
	const uint32_t gen = w->gen, cg = check_sl_gen(w, sl, 0);
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
				check_sw_resolve(w, sw, dlid);
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
			    check_walk_chain(w, sw, sl, tag))
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
int check_one_dest(struct walk *w, unsigned dlid, unsigned srcs)
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
void check_load_block(struct walk *w, unsigned base)
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

bool check_is_dest(const struct kr_fabric *f, unsigned lid)
{
	uint32_t slot = f->lid_port[lid];
	uint32_t n;

	if (slot == KR_NONE)
		return false;
	n = f->owner[slot];
	return kr_is_switch(f, n) ? slot == f->port0[n] : f->peer[slot] >= 0;
}
