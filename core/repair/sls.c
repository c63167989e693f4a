/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SLs of a repaired destination: which pairs keep their SL, which move to
 * another, and which go to the detour layers, each admission proven against
 * the dependency graph. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

/* The dependencies of x on sl along r->col, from all sources (SRC_ALL) or
 * from the switches the repair routed anew (SRC_MOVED), unless the memo's
 * current column (the same but for the last hop, which adds none) made
 * them already, or they closed a loop then. */
int repair_deps_once(struct repair *r, const struct rdest *x, unsigned sl,
		     int sources)
{
	int all = sources == SRC_ALL, rc;
	uint16_t *sls = &r->memo_sls[r->memo_cur][all];
	uint16_t *bad = &r->memo_bad[r->memo_cur][all];

	if (r->admitting && repair_sa_refuses(r, x))
		return KR_ECYCLE;
	if (*sls >> sl & 1)
		return KR_OK;
	if (*bad >> sl & 1)
		return KR_ECYCLE;
	if (!all)
		repair_mark_repaired(r);
	rc = repair_deps(r, x, r->col, r->dist, sl, sources);
	if (!rc)
		*sls |= (uint16_t)(1u << sl);
	else if (rc == KR_ECYCLE && r->admitting)
		*bad |= (uint16_t)(1u << sl);
	return rc;
}

/* Pair statistics of a CA destination, from r->dist and r->lvl. */
void repair_count_pairs(struct repair *r, const struct rdest *x, int repaired,
			int updn, int sl_changed, struct kr_repair_stats *st)
{
	if (x->ca_port == KR_NONE)
		return;		/* management traffic: not a CA-to-CA pair */
	for (uint32_t s = 0; s < r->nsw; s++) {
		uint64_t k = r->src_start[s + 1] - r->src_start[s];
		unsigned kind;

		if (s == x->target)
			k--;	/* the destination's own port */
		if (!k)
			continue;
		st->pairs += k;
		if (sl_changed || (r->pairs_moved && r->moved[s]))
			st->pairs_sl_changed += k;
		if (r->dist[s] == UNREACHED) {
			st->pairs_disconnected += k;
			continue;
		}
		kind = updn ? KR_REPAIR_DETOUR : repaired ? r->lvl[s] :
		       KR_REPAIR_NONE;
		st->paths[kind] += k;
		if (kind != KR_REPAIR_NONE && r->live[s] && r->live[s] != UNREACHED) {
			uint32_t extra = r->dist[s] - r->live[s];
			double ratio = (double)r->dist[s] / r->live[s];

			st->extra_hops_sum += extra * k;
			st->extra_hops_max = extra > st->extra_hops_max ?
					     extra : st->extra_hops_max;
			st->stretch_sum += ratio * (double)k;
			st->stretch_max = ratio > st->stretch_max ?
					  ratio : st->stretch_max;
			st->pairs_repaired += k;
		}
	}
}

static int keep_pair(struct repair *r, unsigned slid, unsigned dlid,
		     unsigned sl)
{
	if (kr_grow(&r->pairs, &r->cap_pairs, r->npairs + 1, sizeof(*r->pairs)))
		return KR_ENOMEM;
	r->pairs[r->npairs++] = (struct kr_sl_pair){ .slid = (uint16_t)slid,
		.dlid = (uint16_t)dlid, .sl = (uint8_t)sl };
	return KR_OK;
}

/* Whether some CA's packets to x take more intermediates than
 * max_intermediates allows (classify_paths counts them as general). */
int repair_over_bound(const struct repair *r, const struct rdest *x)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->src_start[s + 1] > r->src_start[s] && s != x->target &&
		    r->dist[s] != UNREACHED && r->lvl[s] == LVL_GENERAL)
			return 1;
	return 0;
}

/* The kind of intermediates a pass tries second. */
enum col_mode repair_second_mode(const struct repair *r)
{
	return r->first_mode == COL_ANCHORED ||
	       r->first_mode == COL_ONE_ANCHOR ? COL_FREE : COL_ONE_ANCHOR;
}

/* x's column repaired anew by mode, not taken from the memo. */
void repair_fresh_column(struct repair *r, const struct rdest *x,
			 enum col_mode mode)
{
	repair_get_column(r, x->lid, r->col);
	repair_column(r, x, mode);
}

/* The traffic of the switches r->col routes anew, on sl, if it closes no
 * loop there. */
int repair_admit_moved(struct repair *r, const struct rdest *x, unsigned sl)
{
	if (repair_sa_refuses(r, x))
		return KR_ECYCLE;
	repair_mark_repaired(r);
	return repair_deps(r, x, r->col, r->dist, sl, SRC_MOVED);
}

bool repair_is_tree_sl(const struct kr_slvl *p, unsigned sl)
{
	for (unsigned i = 0; i < p->ntree; i++)
		if (p->tree_sl[i] == sl)
			return true;
	return false;
}

#define PLACED 0x80		/* r->held_sl: the switch's traffic is in */
#define NOWHERE 0x7f		/* r->held_sl: it fitted on no SL tried */

/* Admits the new traffic of x from the switches whose r->held_sl asks for
 * SL v: all at once, else switch by switch (a pair's dependencies are
 * its route's alone, so any split of the sources is sound), those that
 * close a loop asking for next instead. */
static int admit_asking(struct repair *r, const struct rdest *x, unsigned v,
			unsigned next)
{
	bool any = false;
	int rc;

	for (uint32_t s = 0; s < r->nsw; s++)
		any |= (r->moved[s] = r->held_sl[s] == v);
	if (!any)
		return KR_OK;
	rc = repair_deps(r, x, r->col, r->dist, v, SRC_MOVED);
	if (rc == KR_OK)
		for (uint32_t s = 0; s < r->nsw; s++)
			r->held_sl[s] |= r->moved[s] ? PLACED : 0;
	if (rc != KR_ECYCLE)
		return rc;
	for (uint32_t s = 0; s < r->nsw; s++) {
		if (r->held_sl[s] != v)
			continue;
		rc = repair_deps_from(r, x, r->col, v, s, false);
		if (rc && rc != KR_ECYCLE)
			return rc;
		r->held_sl[s] = rc ? (uint8_t)next : (uint8_t)(v | PLACED);
	}
	return KR_OK;
}

/* Only the pairs whose route the repair changed need another SL: those of
 * the CAs on the switches it routed anew (their packets never meet a
 * switch whose route survived before it). The rest stay on x's SL sl,
 * where their surviving routes are in the graph already. The new ones go
 * where r->held_sl asks (a layer of repaired trees they were on before,
 * else sl), else on sl, else on the layers of repaired trees in order,
 * switch by switch where not all fit. The pairs off sl are kept.
 * KR_ECYCLE, the graph as it was, when some fit nowhere. */
int repair_split_pairs(struct repair *r, const struct rdest *x, unsigned sl)
{
	const struct kr_slvl *p = r->plan;
	uint32_t mark = r->g.nedge;
	int rc = KR_OK;

	for (unsigned i = 0; !rc && i < p->ntree; i++)
		if (p->tree_sl[i] != sl)
			rc = admit_asking(r, x, p->tree_sl[i], sl);
	if (!rc)
		rc = admit_asking(r, x, sl, p->ntree ? p->tree_sl[0] : NOWHERE);
	for (unsigned i = 0; !rc && i < p->ntree; i++)
		rc = admit_asking(r, x, p->tree_sl[i],
				  i + 1 < p->ntree ? p->tree_sl[i + 1] : NOWHERE);
	/* count_pairs counts the pairs of the switches left marked */
	for (uint32_t s = 0; s < r->nsw; s++) {
		r->moved[s] = r->held_sl[s] != KR_NO_SL &&
			      r->held_sl[s] != (sl | PLACED);
		if (r->moved[s] && !(r->held_sl[s] & PLACED) && !rc)
			rc = KR_ECYCLE;
	}
	for (uint32_t s = 0; !rc && s < r->nsw; s++)
		for (uint32_t j = r->src_start[s];
		     !rc && r->moved[s] && j < r->src_start[s + 1]; j++)
			if (r->src_port[j] != x->ca_port)
				rc = keep_pair(r, r->f->lid[r->src_port[j]],
					       x->lid, r->held_sl[s] & ~PLACED);
	if (rc == KR_ECYCLE)
		repair_undo(r, mark);
	r->pairs_moved = !rc;
	return rc;
}

/* The SL the CAs of switch s sent on to x under prev (that of the first
 * but x's own port), KR_NO_SL when s has no other CA or prev none known. */
unsigned repair_sl_before(const struct repair *r, const struct rdest *x,
			  uint32_t s)
{
	uint32_t j = r->src_start[s];
	unsigned sl;

	if (j < r->src_start[s + 1] && r->src_port[j] == x->ca_port)
		j++;
	if (j == r->src_start[s + 1])
		return KR_NO_SL;
	sl = kr_tables_path_sl(r->prev, r->f->lid[r->src_port[j]], x->lid);
	return sl < KR_NSL ? sl : KR_NO_SL;
}

/* What x's switches routed anew by r->col ask for in r->held_sl: the SL
 * their CAs sent on to x under prev when it was a layer of repaired trees,
 * else x's SL sl; KR_NO_SL for the other switches. Whether any asks for a
 * layer. */
bool repair_ask_sls(struct repair *r, const struct rdest *x, unsigned sl)
{
	bool any = false;

	repair_mark_repaired(r);
	for (uint32_t s = 0; s < r->nsw; s++) {
		unsigned was;

		r->held_sl[s] = r->moved[s] ? (uint8_t)sl : KR_NO_SL;
		if (!r->moved[s] || !r->held || !r->held[x->lid])
			continue;
		was = repair_sl_before(r, x, s);
		if (was != sl && repair_is_tree_sl(r->plan, was)) {
			r->held_sl[s] = (uint8_t)was;
			any = true;
		}
	}
	return any;
}

/* The pairs of x's switches routed anew off x's SL where they must be
 * (split_pairs). */
int repair_move_pairs(struct repair *r, const struct rdest *x)
{
	unsigned sl = r->out->dlid_sl[x->lid];

	repair_ask_sls(r, x, sl);
	return repair_split_pairs(r, x, sl);
}

/* Moves x, or the pairs of x that need it, off x's SL: the repaired routes
 * of the moved pairs on the first layer of repaired trees where they fit,
 * else all of x there, else up*-down* routes on the detour SL. The up*-down*
 * layer carries nothing else, so it cannot refuse. */
int repair_to_detour(struct repair *r, const struct rdest *x,
		     struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_slvl *p = r->plan;
	int rc = KR_ECYCLE;

	if (p->detour_vl == KR_NONE)
		return kr_fail(d, KR_ECYCLE, 0, "the repaired routes to LID %u "
			       "would close a credit loop and the plan has no "
			       "detour layer (detour_vls 0, or no SL or VL left)",
			       x->lid);
	for (int b = 0; rc == KR_ECYCLE && b < 2 && p->ntree; b++) {
		if (b)
			repair_fresh_column(r, x, repair_second_mode(r));
		else
			repair_reuse(r, x);	/* cached_column left it there */
		if (repair_sa_refuses(r, x))
			continue;
		rc = repair_move_pairs(r, x);
		r->pairs_moved = !rc;
		for (unsigned i = 0; rc == KR_ECYCLE && i < p->ntree; i++) {
			rc = b ? repair_deps(r, x, r->col, r->dist,
					     p->tree_sl[i], SRC_ALL)
			       : repair_deps_once(r, x, p->tree_sl[i], SRC_ALL);
			if (!rc)
				r->out->dlid_sl[x->lid] = (uint8_t)p->tree_sl[i];
		}
	}
	if (rc != KR_ECYCLE)
		return rc;
	st->dests_updn++;
	repair_updn_column(r, x, r->col);
	rc = repair_deps(r, x, r->col, r->dist, p->detour_sl, SRC_ALL);
	if (rc == KR_ECYCLE)
		return kr_fail(d, KR_ECYCLE, 0, "detour layer closes a credit "
			       "loop for LID %u", x->lid);
	if (!rc)
		r->out->dlid_sl[x->lid] = (uint8_t)p->detour_sl;
	return rc;
}
