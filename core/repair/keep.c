/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the tables in force keep: stale SLs proven safe, the held switches,
 * routes kept as they were, the cut destinations to repair. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

/* The SL a pair had before: old's, or the plan's when there was none. */
static unsigned old_sl_of(const struct kr_tables *old, const uint8_t *plan_sl,
			  unsigned slid, unsigned dlid)
{
	return old ? kr_tables_path_sl(old, slid, dlid) : plan_sl[dlid];
}

/* The SL a pair has now: its own (r->pair_sl, set from x's moved pairs by
 * stale_dest) or the destination's. */
static unsigned new_sl_of(const struct repair *r, unsigned slid, unsigned dlid)
{
	return r->pair_sl[slid] != KR_NO_SL ? r->pair_sl[slid] :
	       r->out->dlid_sl[dlid];
}

/* Packets still sent on a pair's old SL (applications keep PathRecords)
 * follow the pair's new route: for each old SL, the dependencies of the
 * pairs that left it must close no loop on it either; the CA-to-CA pairs
 * whose would are counted. */
static int stale_dest(struct repair *r, const struct rdest *x,
		      const struct kr_tables *old, const uint8_t *plan_sl,
		      size_t k, size_t end, struct kr_repair_stats *st)
{
	const struct kr_fabric *f = r->f;
	uint16_t left = 0;
	int rc = KR_OK;

	for (size_t i = k; i < end; i++)
		r->pair_sl[r->pairs[i].slid] = r->pairs[i].sl;
	for (uint32_t j = 0; j < r->src_start[r->nsw]; j++) {
		unsigned slid = f->lid[r->src_port[j]];
		unsigned was = old_sl_of(old, plan_sl, slid, x->lid);

		if (r->src_port[j] == x->ca_port || was == new_sl_of(r, slid, x->lid))
			continue;
		left |= (uint16_t)(1u << was);
		st->pairs_sl_moved += x->ca_port != KR_NONE;
	}
	if (!left)
		return KR_OK;
	repair_get_column(r, x->lid, r->col);
	repair_walk(r, r->col, x, r->dist);
	for (unsigned sl = 0; sl < KR_NSL && !rc; sl++) {
		uint64_t n = 0;

		if (!(left >> sl & 1))
			continue;
		memset(r->moved, 0, r->nsw);
		for (uint32_t s = 0; s < r->nsw; s++)
			for (uint32_t j = r->src_start[s]; j < r->src_start[s + 1]; j++) {
				unsigned slid = f->lid[r->src_port[j]];

				if (r->src_port[j] == x->ca_port ||
				    old_sl_of(old, plan_sl, slid, x->lid) != sl ||
				    new_sl_of(r, slid, x->lid) == sl)
					continue;
				r->moved[s] = 1;
				n++;
			}
		rc = repair_deps(r, x, r->col, r->dist, sl, SRC_MOVED);
		if (rc == KR_ECYCLE) {
			if (x->ca_port != KR_NONE)
				st->pairs_stale_unsafe += n;
			rc = KR_OK;
		}
	}
	return rc;
}

static int stale_pass(struct repair *r, const struct kr_tables *old,
		      const uint8_t *plan_sl, struct kr_repair_stats *st)
{
	uint8_t *old_pairs = calloc(r->stride + 1, 1);
	struct rdest x;
	size_t k = 0, end;
	int rc = old_pairs ? KR_OK : KR_ENOMEM;

	for (size_t i = 0; old && !rc && i < old->npair_sl; i++)
		if (old->pair_sl[i].dlid < r->stride)
			old_pairs[old->pair_sl[i].dlid] = 1;
	for (unsigned lid = 1; lid < r->stride && !rc; lid++) {
		for (end = k; end < r->npairs && r->pairs[end].dlid == lid; end++)
			;
		if ((end > k || old_pairs[lid] ||
		     old_sl_of(old, plan_sl, 0, lid) != r->out->dlid_sl[lid]) &&
		    repair_dest_of(r, lid, &x))
			rc = stale_dest(r, &x, old, plan_sl, k, end, st);
		for (; k < end; k++)
			r->pair_sl[r->pairs[k].slid] = KR_NO_SL;
	}
	free(old_pairs);
	return rc;
}

static int by_dlid(const void *a, const void *b)
{
	const struct kr_sl_pair *x = a, *y = b;

	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	return (x->slid > y->slid) - (x->slid < y->slid);
}

/* Whether switch sw's row has an entry for every destination (dest[lid]
 * 0xff, else 0) and sends only to linked ports. The first, 8 LIDs at a
 * time: an entry and its mask AND to 0xff only where a destination has
 * none (KR_NO_PORT); a byte of ~that is zero then. */
static bool row_live(const struct kr_fabric *f, const uint8_t *row,
		     const uint8_t *dest, size_t stride, uint32_t sw)
{
	const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
	uint64_t holes = 0, e, m;
	bool sends[256] = { false };
	size_t lid = 0;

	for (; lid + 8 <= stride; lid += 8) {
		memcpy(&e, row + lid, 8);
		memcpy(&m, dest + lid, 8);
		e = ~(e & m);
		holes |= (e - ones) & ~e & highs;
	}
	for (; lid < stride; lid++)
		holes |= (row[lid] & dest[lid]) == KR_NO_PORT;
	if (holes)
		return false;
	for (lid = 1; lid < stride; lid++)
		sends[row[lid]] = true;
	/* port 0: the switch's own LID */
	for (unsigned p = 1; p < KR_NO_PORT; p++)
		if (sends[p] && (p > f->nports[sw] ||
				 f->peer[f->port0[sw] + p] < 0))
			return false;
	return true;
}

/* Whether every destination has an entry at every switch and every port
 * an entry sends to is linked: then no fault cut a route (kr_route made
 * them for this fabric's links, leaving out those it lacks, or for a
 * fabric that had more), and finding the cut ones needs no walk. A byte
 * scan of the LFTs instead of a walk of every destination's tree. */
int repair_lfts_live(const struct repair *r, bool *live)
{
	uint8_t *dest = malloc(r->stride + 1);
	struct rdest x;

	if (!dest)
		return KR_ENOMEM;
	for (unsigned lid = 0; lid < r->stride; lid++)
		dest[lid] = lid && repair_dest_of(r, lid, &x) ? 0xff : 0;
	*live = true;
	for (uint32_t sw = 0; sw < r->nsw && *live; sw++)
		*live = row_live(r->f, r->t->lft + (size_t)sw * r->stride,
				 dest, r->stride, sw);
	free(dest);
	return KR_OK;
}

/* The SLs the previous tables put in force are the plan's: packets that
 * applications address with them need no second proof. */
bool repair_sls_in_force(const struct kr_tables *prev, const uint8_t *plan_sl,
			 unsigned stride)
{
	return !prev || (!prev->npair_sl &&
			 !memcmp(prev->dlid_sl, plan_sl, stride));
}

/* The destinations prev had, or some of whose pairs it had, off their
 * planned SL, into r->held (stays NULL when there are none). */
static int find_held(struct repair *r, const uint8_t *plan_sl)
{
	const struct kr_tables *prev = r->prev;

	if (repair_sls_in_force(prev, plan_sl, r->stride))
		return KR_OK;
	if (!(r->held = calloc(r->stride + 1, 1)))
		return KR_ENOMEM;
	for (unsigned lid = 1; lid < r->stride; lid++)
		r->held[lid] = prev->dlid_sl[lid] != plan_sl[lid];
	for (size_t i = 0; i < prev->npair_sl; i++)
		if (prev->pair_sl[i].dlid < r->stride)
			r->held[prev->pair_sl[i].dlid] = 1;
	return KR_OK;
}

/* Each switch's row in prev's LFTs, into r->prev_row (KR_NONE: none): the
 * row that sends the switch's own LID to port 0. Switches keep their LIDs
 * from sweep to sweep and rows follow GUID order, so a switch come or
 * gone since shifts the rows after it by one: the row is looked for that
 * far around the switch's own index. Whether any switch has one. */
static bool map_rows(struct repair *r)
{
	const struct kr_tables *prev = r->prev;
	const struct kr_fabric *f = r->f;
	uint32_t span = (prev->nsw > r->nsw ? prev->nsw - r->nsw
					     : r->nsw - prev->nsw) + 1;
	bool any = false;

	for (uint32_t u = 0; u < r->nsw; u++) {
		unsigned lid = f->lid[f->port0[u]];

		r->prev_row[u] = KR_NONE;
		for (uint32_t d = 0; lid && d <= span &&
		     r->prev_row[u] == KR_NONE; d++) {
			if (u + d < prev->nsw && kr_lft_port(prev, u + d, lid) == 0)
				r->prev_row[u] = u + d;
			else if (d <= u && u - d < prev->nsw &&
				 kr_lft_port(prev, u - d, lid) == 0)
				r->prev_row[u] = u - d;
		}
		any |= r->prev_row[u] != KR_NONE;
	}
	return any;
}

/* Whether the route of x's packets from switch s along r->col is the one
 * prev had. */
static bool same_route(const struct repair *r, const struct rdest *x,
		       uint32_t s)
{
	for (uint32_t n = 0; s != KR_NONE && n < r->nsw; n++) {
		if (r->prev_row[s] == KR_NONE ||
		    kr_lft_port(r->prev, r->prev_row[s], x->lid) != r->col[s])
			return false;
		if (s == x->target)
			return true;
		s = repair_next(r, s, r->col[s]);
	}
	return false;
}

/* x's column in force, when it is an anchored one this pass does not
 * make first (the other anchoring, or in a pass of free intermediates or
 * the long way round its second kind, one anchor), into r->col; else the
 * first kind stays. Anchored turns close no loop among themselves, so
 * these fit again wherever they fitted; columns in force of the other
 * kinds are left to repair_dest: kept first, they crowd the destinations
 * repaired anew off their SLs (measured: several times the pairs moved
 * by a second fault on a 6-ary 3-direct KNS). */
static void in_force_anchoring(struct repair *r, const struct rdest *x)
{
	enum col_mode other = r->first_mode == COL_ANCHORED ||
			      r->first_mode == COL_ONE_ANCHOR ?
			      repair_other_anchoring(r, x) :
			      repair_second_mode(r);

	if (other == r->first_mode || repair_is_prev_column(r, x))
		return;
	repair_fresh_column(r, x, other);
	if (!repair_is_prev_column(r, x))
		repair_reuse(r, x);
}

/* Keeps r->col and r->lvl, lid's repair, for kept_column, so that
 * repair_dest does not make it a second time: up to KEPT_BYTES, the rest
 * are made again. */
#define KEPT_BYTES (64u << 20)
static void keep_column(struct repair *r, unsigned lid)
{
	size_t each = 2 * (size_t)r->nsw, cap = KEPT_BYTES / each;
	uint8_t *at;

	if (cap > r->prev->nrepaired)
		cap = r->prev->nrepaired;
	if (!r->kept_at) {
		if (!(r->kept_at = malloc(r->stride * sizeof(*r->kept_at))))
			return;
		memset(r->kept_at, 0xff, r->stride * sizeof(*r->kept_at));
		r->kept_buf = malloc(cap * each);
	}
	if (!r->kept_buf || r->nkept == cap)
		return;
	at = r->kept_buf + r->nkept * each;
	memcpy(at, r->col, r->nsw);
	memcpy(at + r->nsw, r->lvl, r->nsw);
	r->kept_at[lid] = (uint32_t)r->nkept++;
}

/* The traffic of prev's repaired destinations whose routes stay as they
 * were, on the SLs it had, before any route that changed: a destination
 * repaired again at its turn then finds its kept routes in, and one taken
 * later cannot crowd them off their SLs. (Admission can still refuse one,
 * which is left to repair_dest.) The columns are those repair_dest will
 * try first; a route through a switch prev has no row for has changed. */
static int keep_routes(struct repair *r, const uint8_t *cut)
{
	const struct kr_tables *prev = r->prev;
	struct rdest x;
	int rc = KR_OK;

	if (!prev || !prev->repaired || !prev->lft)
		return KR_OK;
	if (!(r->prev_row = malloc((r->nsw + 1) * sizeof(*r->prev_row))))
		return KR_ENOMEM;
	if (!map_rows(r))
		return KR_OK;
	for (uint32_t i = 0; i < prev->nrepaired && !rc; i++) {
		unsigned lid = prev->repaired[i];

		if (lid >= r->stride || !cut[lid] || !repair_dest_of(r, lid, &x))
			continue;
		repair_get_column(r, lid, r->col);
		repair_cached_column(r, &x);
		in_force_anchoring(r, &x);
		keep_column(r, lid);
		repair_mark_repaired(r);
		for (uint32_t s = 0; s < r->nsw && !rc; s++) {
			unsigned was;

			if (!r->moved[s] || !same_route(r, &x, s) ||
			    (was = repair_sl_before(r, &x, s)) == KR_NO_SL)
				continue;
			rc = repair_deps_from(r, &x, r->col, was, s, false);
			if (rc == KR_ECYCLE)
				rc = KR_OK;
		}
	}
	return rc;
}

/* The cut destinations: first those prev's repair made, in its order,
 * then the others. A fault that joins others cuts the same routes and
 * more, and the graph a destination meets at its turn holds a part of
 * what it met then (fewer routes survive): where its repair still takes
 * the same routes, they fit on the same SLs again. */
static int repair_cut(struct repair *r, uint8_t *cut, const uint8_t *plan_sl,
		      struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_tables *prev = r->prev;
	struct kr_tables_patch *o = r->out;
	int rc = find_held(r, plan_sl);

	r->fixes_cap = 0;
	if (!(o->repaired = malloc((r->nlids + 1) * sizeof(*o->repaired))))
		return KR_ENOMEM;
	if (!rc)
		rc = keep_routes(r, cut);
	for (uint32_t i = 0; prev && i < prev->nrepaired && !rc; i++) {
		unsigned lid = prev->repaired[i];

		if (lid < r->stride && cut[lid]) {
			cut[lid] = 0;	/* not again below */
			rc = repair_dest(r, lid, plan_sl, st, d);
		}
	}
	for (uint32_t i = 0; i < r->nlids && !rc; i++)
		if (cut[r->lids[i]])
			rc = repair_dest(r, r->lids[i], plan_sl, st, d);
	return rc;
}

/* whole: nothing to repair and no old SLs to prove (see kr_repair). */
int repair_run(struct repair *r, const struct kr_tables *prev, bool whole,
	       uint8_t *plan_sl, uint8_t *cut, struct kr_repair_stats *st,
	       struct kr_diag *d)
{
	uint32_t ncut = 0;
	bool sls_kept = repair_sls_in_force(prev, plan_sl, r->stride);
	int rc = repair_setup(r);

	r->prev = prev;

	if (!rc && !whole)
		rc = kr_cdg_init(&r->g, r->f->port0[r->nsw] * 16);
	if (!rc && !whole &&
	    !(r->seen = calloc((size_t)r->f->port0[r->nsw] * 16 * SEEN_WAYS,
			       sizeof(uint32_t))))
		rc = KR_ENOMEM;
	if (!rc && !whole &&
	    !(r->camask = calloc((size_t)r->f->port0[r->nsw] * 16,
				 sizeof(uint32_t))))
		rc = KR_ENOMEM;
	if (!rc)
		rc = repair_updn_ranks(r);
	if (!rc && !whole)
		rc = repair_transpose_lfts(r);
	if (!rc)
		rc = repair_by_target(r);
	if (!rc)
		rc = repair_find_cut(r, whole, cut, &ncut, st);
	if (rc)
		return rc;
	if (!ncut && sls_kept)
		return KR_OK;	/* pristine, and so were the SLs in force */
	rc = repair_add_surviving(r);
	if (rc)
		return rc;
	if (kr_cdg_order(&r->g) == KR_ECYCLE) {
		char hosts[KR_DIAG_MSG / 2];

		/* routes to switch LIDs share the unicast VLs without
		 * following their code when the plan has no up*-down* VL:
		 * the pristine tables' check then names management traffic,
		 * and here it may be the same loop */
		return kr_fail(d, KR_ECYCLE, 0, "the routes that survive the "
			       "faults already close a credit loop%s%s",
			       r->plan->mcast_vl == KR_NONE ?
			       ", maybe through the routes to switches, which "
			       "this plan left no VL of their own (more VLs "
			       "give them one, and so may fewer classes or LMC "
			       "orders)" : "",
			       kr_route_host_hint(r->f, r->topo, r->c, hosts,
						  sizeof(hosts)));
	}
	r->memo_target = KR_NONE;	/* add_surviving's columns are not repairs */
	rc = ncut ? repair_build_hops(r) : KR_OK;
	if (!rc && ncut)
		rc = repair_choose_anchor(r);
	r->admitting = 1;
	rc = rc ? rc : repair_cut(r, cut, plan_sl, st, d);
	if (!rc && r->npairs)
		qsort(r->pairs, r->npairs, sizeof(*r->pairs), by_dlid);
	if (!rc)
		rc = stale_pass(r, prev, plan_sl, st);
	if (!rc && r->npairs) {
		r->out->pair_sl = r->pairs;
		r->out->npair_sl = r->npairs;
		r->pairs = NULL;
	}
	return rc;
}
