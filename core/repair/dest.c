/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One destination's repair: the routes cut by the faults, those kept as
 * they were in force, and the rest made again. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

/* The destination LIDs with those of one switch together, in LID order
 * there: they share the switch's live distances and, mostly, its columns
 * (see recall). The switches in order of where they sit (r->by_place):
 * each repair admits its routes against those admitted before it, so the
 * order decides which destinations fit on their SLs, and it should not
 * follow the GUIDs or the LIDs OpenSM handed out (in node order the
 * thesis' one-intermediate share on a shuffled 10-ary 3-direct KNS was
 * 0.85 against 0.95 in the generator's order). */
int repair_by_target(struct repair *r)
{
	uint32_t *target = malloc(((size_t)r->stride + 1) * sizeof(*target));
	struct rdest x;

	r->lids = malloc(((size_t)r->stride + 1) * sizeof(unsigned));
	if (!target || !r->lids) {
		free(target);
		return KR_ENOMEM;
	}
	for (unsigned lid = 0; lid < r->stride; lid++)
		target[lid] = lid && repair_dest_of(r, lid, &x) ? x.target
							       : KR_NONE;
	r->nlids = kr_sort_by_key(target, r->stride, r->nsw, r->by_place,
				  r->lids);
	free(target);
	return r->nlids == KR_NONE ? KR_ENOMEM : KR_OK;
}

/* Pair statistics of a destination no fault cut: every CA in its
 * component reaches it unrepaired, no other does. */
static void count_untouched(const struct repair *r, const struct rdest *x,
			    const uint64_t *comp_cas, struct kr_repair_stats *st)
{
	uint64_t in, out;

	if (x->ca_port == KR_NONE)
		return;
	in = comp_cas[r->comp[x->target]] - 1;	/* but itself */
	out = r->src_start[r->nsw] - comp_cas[r->comp[x->target]];
	st->pairs += in + out;
	st->paths[KR_REPAIR_NONE] += in;
	st->pairs_disconnected += out;
}

/* Marks the destinations a fault cut off somewhere (where a
 * switch of the target's component does not reach it: those of other
 * components are not the repair's); counts the others' pairs. A column
 * the memo holds is not walked again; none is walked on a whole fabric,
 * where the routes follow every link they were made for. */
int repair_find_cut(struct repair *r, bool whole, uint8_t *cut,
		    uint32_t *ncut, struct kr_repair_stats *st)
{
	uint64_t *comp_cas = calloc(r->nsw + 1, sizeof(uint64_t));
	struct rdest x;

	if (!comp_cas)
		return KR_ENOMEM;
	for (uint32_t s = 0; s < r->nsw; s++)
		comp_cas[r->comp[s]] += r->src_start[s + 1] - r->src_start[s];
	r->memo_target = KR_NONE;
	for (uint32_t i = 0; i < r->nlids; i++) {
		unsigned lid = r->lids[i];

		repair_dest_of(r, lid, &x);
		st->dests++;
		if (whole) {
			count_untouched(r, &x, comp_cas, st);
			continue;
		}
		repair_get_column(r, lid, r->col);
		if (!repair_recall(r, &x)) {
			repair_remember(r, &x);
			repair_walk(r, r->col, &x, r->dist);
			for (uint32_t s = 0; s < r->nsw; s++)
				if (r->dist[s] == UNREACHED &&
				    r->comp[s] == r->comp[x.target]) {
					r->memo_cut[r->memo_cur] = 1;
					break;
				}
		}
		cut[lid] = r->memo_cut[r->memo_cur];
		if (cut[lid])
			(*ncut)++;
		else
			count_untouched(r, &x, comp_cas, st);
	}
	free(comp_cas);
	return KR_OK;
}

/* Every destination's surviving routes go into the graph in bulk on its
 * planned SL: all of an untouched one, the switches still reaching it of
 * a cut one. A repair changes no entry they use, and packets of
 * applications that still hold the SL follow them even if the destination
 * moves to another. So each repair adds only its new switches' traffic. */
int repair_add_surviving(struct repair *r)
{
	struct rdest x;
	int rc = KR_OK;

	r->memo_target = KR_NONE;
	for (uint32_t i = 0; i < r->nlids && !rc; i++) {
		unsigned lid = r->lids[i];

		repair_dest_of(r, lid, &x);
		repair_get_column(r, lid, r->col);
		if (!repair_recall(r, &x))
			repair_remember(r, &x);
		rc = repair_sa_surviving(r, &x);
		if (rc || r->memo_sls[r->memo_cur][1] >> r->out->dlid_sl[lid] & 1)
			continue;	/* deps_once would find them in */
		repair_walk_once(r, &x);
		rc = repair_deps_once(r, &x, r->out->dlid_sl[lid], SRC_ALL);
	}
	return rc ? rc : repair_add_forest(r);
}

/* The moved pairs of r->col's repair of x on a layer of repaired trees,
 * x counted as moved off its SL when they fit. */
static int pairs_to_trees(struct repair *r, const struct rdest *x,
			  struct kr_repair_stats *st)
{
	int rc = r->plan->ntree && !repair_sa_refuses(r, x) ? repair_move_pairs(r, x)
						      : KR_ECYCLE;

	r->pairs_moved = !rc;
	st->dests_detour += !rc;
	return rc;
}

bool repair_is_prev_column(const struct repair *r, const struct rdest *x)
{
	if (!r->prev_row)
		return false;
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->prev_row[s] == KR_NONE ||
		    kr_lft_port(r->prev, r->prev_row[s], x->lid) != r->col[s])
			return false;
	return true;
}

/* How many of r->col's entries differ from x's column in the tables in
 * force (switches keep_routes found rows for). */
static uint32_t moved_from_prev(const struct repair *r, const struct rdest *x)
{
	uint32_t n = 0;

	for (uint32_t s = 0; r->prev_row && s < r->nsw; s++)
		n += r->prev_row[s] != KR_NONE &&
		     kr_lft_port(r->prev, r->prev_row[s], x->lid) != r->col[s];
	return n;
}

/* Whether x's column in the tables in force leaves no switch by a port
 * whose link is gone, nor a switch that reaches the target (r->live)
 * without a route: a column the repair makes never does. (Tables in
 * force read from a cache keep only their fixes; the rest of their LFTs
 * are this sweep's routes, holes included.) */
static bool prev_column_live(const struct repair *r, const struct rdest *x)
{
	for (uint32_t s = 0; s < r->nsw; s++) {
		unsigned port;

		if (s == x->target || r->prev_row[s] == KR_NONE)
			continue;
		port = kr_lft_port(r->prev, r->prev_row[s], x->lid);
		if (port == KR_NO_PORT ? r->live_target == x->target &&
					 r->live[s] != UNREACHED
				       : repair_next(r, s, port) == KR_NONE)
			return false;
	}
	return true;
}

/* Whether the tables in force routed x by a column of a kind the repair
 * tries after its first (cached_column's): anchored columns with the
 * other anchoring (one anchor for every class, or each class's), the
 * second kind of intermediates, general repair or (tori) the long way
 * round, into *mode, and that column into r->col. The first kind had
 * closed a loop at x's turn then; now the graph at x's turn holds other
 * routes, and the first kind may fit, but a sweep that finds the fabric
 * as it was should not move x's routes for nothing: the repair tries the
 * column in force first. */
static bool prev_later_kind(struct repair *r, const struct rdest *x,
			    enum col_mode *mode)
{
	enum col_mode later[4] = { repair_second_mode(r), COL_GENERAL },
		      other = repair_other_anchoring(r, x);
	unsigned n = 2;

	if (!r->prev_row)
		return false;
	if (r->topo->family == KR_FAMILY_TORUS)
		later[n++] = COL_RING;
	if (other != r->first_mode)
		later[n++] = other;
	repair_reuse(r, x);
	if (repair_is_prev_column(r, x) || !prev_column_live(r, x))
		return false;
	for (unsigned i = 0; i < n; i++) {
		repair_fresh_column(r, x, later[i]);
		if (repair_is_prev_column(r, x)) {
			*mode = later[i];
			return true;
		}
	}
	return false;
}

/* x as the tables in force had it, when they had it or some of its pairs
 * off its planned SL sl and that still closes no loop: applications keep
 * the SLs of their PathRecords, and a route that did not change should
 * not make them ask again. All of x on the layer of repaired trees or the
 * up*-down* SL it was on, or the pairs the repair moves on the layers
 * they were on and the others on sl; a column of either kind of
 * intermediates within max_intermediates, the second kind first when
 * second_first (prev_later_kind). KR_ECYCLE: not so, the graph as it
 * was. */
static int as_before(struct repair *r, const struct rdest *x, unsigned sl,
		     bool second_first, struct kr_repair_stats *st)
{
	const struct kr_slvl *p = r->plan;
	unsigned was = r->prev->dlid_sl[x->lid];
	int rc = KR_ECYCLE;

	if (was != sl && p->detour_vl != KR_NONE && was == p->detour_sl) {
		repair_updn_column(r, x, r->col);
		if (repair_deps(r, x, r->col, r->dist, was, SRC_ALL))
			return KR_ECYCLE;
		st->dests_updn++;
		st->dests_detour++;
		r->out->dlid_sl[x->lid] = (uint8_t)was;
		return KR_OK;
	}
	if (was != sl && !repair_is_tree_sl(p, was))
		return KR_ECYCLE;
	for (int b = 0; rc == KR_ECYCLE && b < 2; b++) {
		if ((b == 0) == second_first)
			repair_fresh_column(r, x, repair_second_mode(r));
		else
			repair_reuse(r, x);	/* cached_column's */
		if (repair_over_bound(r, x) || repair_sa_refuses(r, x))
			continue;
		if (was != sl) {
			rc = repair_deps(r, x, r->col, r->dist, was, SRC_ALL);
			if (!rc) {
				r->out->dlid_sl[x->lid] = (uint8_t)was;
				st->dests_detour++;
			}
		} else if (repair_ask_sls(r, x, sl)) {
			rc = repair_split_pairs(r, x, sl);
			st->dests_detour += !rc;
		}
	}
	return rc;
}

int repair_dest(struct repair *r, unsigned lid, const uint8_t *plan_sl,
		struct kr_repair_stats *st, struct kr_diag *d)
{
	struct rdest x;
	uint32_t updn = st->dests_updn;
	unsigned sl = r->out->dlid_sl[lid];
	bool held = r->held && r->held[lid], later;
	enum col_mode mode = r->first_mode;	/* prev_later_kind's, if later */
	int rc, a_over, b_over;

	r->pairs_moved = 0;
	repair_dest_of(r, lid, &x);
	repair_get_column(r, lid, r->col);
	repair_cached_column(r, &x);
	later = prev_later_kind(r, &x, &mode);
	rc = held ? as_before(r, &x, sl, later && mode == repair_second_mode(r), st)
		  : KR_ECYCLE;
	if (rc != KR_ECYCLE)
		goto done;
	if (later && held)	/* as_before left another column */
		repair_fresh_column(r, &x, mode);
	if (later && (mode == COL_GENERAL || !repair_over_bound(r, &x)) &&
	    (rc = repair_admit_moved(r, &x, sl)) != KR_ECYCLE)
		goto done;
	repair_reuse(r, &x);
	/* Best first, as the thesis orders it: a column whose paths keep
	 * within max_intermediates, on x's SL (the first kind of
	 * intermediates, then the second); such a column's moved pairs on a
	 * layer of repaired trees rather than more intermediates on the SL;
	 * then either kind on the SL; general repair; the detour layers. */
	a_over = repair_over_bound(r, &x);
	rc = a_over ? KR_ECYCLE : repair_deps_once(r, &x, sl, SRC_MOVED);
	if (rc == KR_ECYCLE) {
		repair_fresh_column(r, &x, repair_second_mode(r));
		b_over = repair_over_bound(r, &x);
		if (!b_over)
			rc = repair_admit_moved(r, &x, sl);
		if (rc == KR_ECYCLE && !b_over && a_over)
			rc = pairs_to_trees(r, &x, st);
		/* below the thesis' two, the admin puts paths before SLs:
		 * bounded routes on a layer of repaired trees before any on
		 * the SL that exceeds the bound (general repair included) */
		if (rc == KR_ECYCLE && !a_over && r->max_int < 2) {
			repair_reuse(r, &x);
			rc = pairs_to_trees(r, &x, st);
		}
		if (rc == KR_ECYCLE && a_over) {
			repair_reuse(r, &x);
			rc = repair_deps_once(r, &x, sl, SRC_MOVED);
		}
		if (rc == KR_ECYCLE && b_over) {
			repair_fresh_column(r, &x, repair_second_mode(r));
			rc = repair_admit_moved(r, &x, sl);
		}
	}
	if (rc == KR_ECYCLE && r->topo->family == KR_FAMILY_TORUS) {
		repair_fresh_column(r, &x, COL_RING);
		rc = repair_admit_moved(r, &x, sl);
	}
	if (rc == KR_ECYCLE) {
		repair_fresh_column(r, &x, COL_GENERAL);
		rc = repair_admit_moved(r, &x, sl);
	}
	if (rc == KR_ECYCLE) {
		rc = repair_to_detour(r, &x, st, d);
		st->dests_detour++;
	}
done:
	if (rc)
		return rc;
	r->out->repaired[r->out->nrepaired++] = (uint16_t)lid;
	st->dests_repaired++;
	st->entries_moved += moved_from_prev(r, &x);
	if ((rc = repair_put_column(r, lid, r->col, &st->entries_changed)))
		return rc;
	/* a layer of repaired trees keeps the repair's kind of route (it is
	 * the thesis' extra virtual channel); up*-down* is a kind of its own */
	repair_count_pairs(r, &x, 1, st->dests_updn != updn,
		    r->out->dlid_sl[lid] != plan_sl[lid], st);
	return KR_OK;
}
