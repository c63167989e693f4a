/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault repair, destination by destination (kr_repair.h has the idea):
 * the driver. Each pass repairs every destination cut by the faults
 * (keep.c, dest.c) with one kind of column first (search.c, general.c,
 * ring.c), placing each pair on an SL (sls.c), into a patch of its own;
 * the best pass's patch is the result. repair_int.h has the state they
 * share. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

/* Anchored intermediates come first, one anchor per destination class so
 * that the classes' detours do not all cross one plane: their turns
 * cannot close a loop among themselves, so destinations keep their SLs.
 * When some still move (a fault in the last dimension leaves no plane
 * above it to anchor in, and turns it forces elsewhere may then share a
 * turn's channel with another class's anchored ones), a pass with one
 * anchor for all, one preferring the intermediates adding the fewest
 * hops and on a torus one the long way round follow (their anchored
 * columns with one anchor too), and the best result is kept. */
#define KR_NPASS 4
static const enum col_mode pass_mode[KR_NPASS] = { COL_ANCHORED,
						   COL_ONE_ANCHOR, COL_FREE,
						   COL_RING };

/* One repair of t into *out, trying pass_mode[pass] first for every
 * destination; *distinct (unless NULL): whether some class's anchor was
 * not the one anchor. */
static int repair_pass(const struct repair *proto, unsigned pass,
		       const struct kr_tables *prev, bool whole,
		       uint8_t *plan_sl, struct kr_tables_patch *out,
		       struct kr_repair_stats *st, bool *distinct,
		       struct kr_diag *d)
{
	struct repair r = *proto;
	uint8_t *cut = calloc(r.stride + 1, 1);
	int rc = cut ? KR_OK : KR_ENOMEM;

	*out = (struct kr_tables_patch){ .dlid_sl = malloc(r.stride + 1) };
	if (!out->dlid_sl)
		rc = KR_ENOMEM;
	else
		memcpy(out->dlid_sl, plan_sl, r.stride);
	out->repair_pass = (uint8_t)(pass + 1);
	r.out = out;
	r.first_mode = pass_mode[pass];
	*st = (struct kr_repair_stats){ .faults = r.topo->nmissing_link +
						  r.topo->nmissing_sw +
						  r.topo->nmissing_sublink +
						  r.topo->nmissing_subsw };
	if (!rc)
		rc = repair_run(&r, prev, whole, plan_sl, cut, st, d);
	if (distinct)
		*distinct = r.distinct;
	repair_teardown(&r);
	free(cut);
	if (rc)
		kr_tables_patch_free(out);
	return rc;
}

/* Fewer pairs moved from the SL in force first, then fewer off the
 * plan's (applications keep their PathRecords), then fewer destinations
 * off theirs, then fewer routes moved from those in force (a sweep that
 * finds the fabric as the last one left it keeps its tables, whichever
 * pass made them), then fewer extra hops. */
static int better(const struct kr_repair_stats *a,
		  const struct kr_repair_stats *b)
{
	if (a->pairs_sl_moved != b->pairs_sl_moved)
		return a->pairs_sl_moved < b->pairs_sl_moved;
	if (a->pairs_sl_changed != b->pairs_sl_changed)
		return a->pairs_sl_changed < b->pairs_sl_changed;
	if (a->dests_detour != b->dests_detour)
		return a->dests_detour < b->dests_detour;
	if (a->entries_moved != b->entries_moved)
		return a->entries_moved < b->entries_moved;
	return a->extra_hops_sum < b->extra_hops_sum;
}

static int perfect(const struct kr_repair_stats *st)
{
	return !st->pairs_sl_changed && !st->dests_detour;
}

/* Another pass trying mode first (rc, *st, *out: the best so far); the
 * better of the two stays. */
static int another_pass(const struct repair *proto, unsigned pass,
			const struct kr_tables *prev, uint8_t *plan_sl, int rc,
			struct kr_tables_patch *out, struct kr_repair_stats *st,
			struct kr_diag *d)
{
	struct kr_tables_patch out2;
	struct kr_repair_stats st2;
	int rc2 = repair_pass(proto, pass, prev, false, plan_sl, &out2, &st2,
			      NULL, d);

	if (rc2 == KR_OK && (rc || better(&st2, st))) {
		kr_tables_patch_free(out);
		*out = out2;
		*st = st2;
		return KR_OK;
	}
	kr_tables_patch_free(&out2);
	return rc2 == KR_ENOMEM ? rc2 : rc;
}

/* Every pass there is reason for, the one that made the tables in force
 * first: its first kind of column is theirs, so keep_routes keeps their
 * routes and a fabric found as it was keeps its tables. The best one's
 * patch into out. */
static int passes(const struct repair *proto, const struct kr_tables *prev,
		  bool whole, uint8_t *plan_sl, struct kr_tables_patch *out,
		  struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_topo *topo = proto->topo;
	unsigned order[KR_NPASS], n = 0,
		 made = prev && prev->repair_pass <= KR_NPASS ?
			prev->repair_pass : 0;
	bool distinct = true, anchored = false;
	int rc = KR_ECYCLE;

	if (made)
		order[n++] = made - 1;
	for (unsigned i = 0; i < KR_NPASS; i++)
		if (i + 1 != made)
			order[n++] = i;
	for (unsigned k = 0; k < n; k++) {
		enum col_mode m = pass_mode[order[k]];
		bool anchors = m == COL_ANCHORED || m == COL_ONE_ANCHOR;

		if (k && (whole || topo->ndim < 2 || (!rc && perfect(st))))
			break;
		/* the long way round is a torus's; the two anchorings are
		 * the same when no class has an anchor of its own */
		if ((m == COL_RING && topo->family != KR_FAMILY_TORUS) ||
		    (anchors && anchored && !distinct))
			continue;
		rc = k ? another_pass(proto, order[k], prev, plan_sl, rc, out,
				      st, d)
		       : repair_pass(proto, order[k], prev, whole, plan_sl, out,
				     st, &distinct, d);
		anchored |= anchors;
	}
	return rc;
}

int kr_repair(const struct kr_fabric *f, const struct kr_topo *topo,
	      const struct kr_conf *c, const struct kr_slvl *plan,
	      const struct kr_tables *prev, const struct kr_tables *t,
	      struct kr_tables_patch *out, struct kr_repair_stats *st,
	      struct kr_diag *d)
{
	struct repair proto = { .f = f, .topo = topo, .c = c, .plan = plan,
				.t = t, .sm_sw = KR_NONE,
				.nsw = f->nsw, .stride = t->stride,
				.max_int = c ? c->max_intermediates : 2 };
	uint8_t *plan_sl = malloc(t->stride + 1);
	double t0 = kr_now_ms();
	bool whole = false;
	int rc = plan_sl ? KR_OK : KR_ENOMEM;

	*out = (struct kr_tables_patch){ 0 };
	if (!rc && (!t->dlid_sl || t->npair_sl))
		rc = kr_fail(d, KR_EINVAL, 0, "repair needs one SL per "
			     "destination LID");
	if (!rc) {
		memcpy(plan_sl, t->dlid_sl, t->stride);
		if (!prev || !prev->dlid_sl || prev->stride != t->stride)
			prev = NULL;
		if (repair_sls_in_force(prev, plan_sl, t->stride))
			rc = repair_lfts_live(&proto, &whole);
	}
	if (!rc)
		rc = passes(&proto, prev, whole, plan_sl, out, st, d);
	/* the SM node's routes admitted off the ranks left the detour layer
	 * no room: they keep to the ranks, which always leaves it some */
	if (rc == KR_ECYCLE && t->sm_lid) {
		proto.sa_strict = 1;
		rc = passes(&proto, prev, whole, plan_sl, out, st, d);
	}
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	if (rc)
		kr_tables_patch_free(out);
	free(plan_sl);
	st->ms = kr_now_ms() - t0;
	return rc;
}

void kr_repair_describe(char *buf, size_t len, const struct kr_repair_stats *st,
			const char *sep)
{
	snprintf(buf, len, "%u faults: %u of %u destinations repaired (%u "
		 "moved off their SL, %u of them up*/down*)%s%llu LFT entries "
		 "changed%sCA pairs: %llu "
		 "direct, %llu via 1 intermediate, %llu via 2, %llu general, "
		 "%llu up*/down*, %llu disconnected%s%llu changed SL, %llu "
		 "unsafe on their old SL; %.1f ms",
		 st->faults, st->dests_repaired, st->dests, st->dests_detour,
		 st->dests_updn, sep,
		 (unsigned long long)st->entries_changed, sep,
		 (unsigned long long)st->paths[KR_REPAIR_NONE],
		 (unsigned long long)st->paths[KR_REPAIR_ONE],
		 (unsigned long long)st->paths[KR_REPAIR_TWO],
		 (unsigned long long)st->paths[KR_REPAIR_GENERAL],
		 (unsigned long long)st->paths[KR_REPAIR_DETOUR],
		 (unsigned long long)st->pairs_disconnected, sep,
		 (unsigned long long)st->pairs_sl_changed,
		 (unsigned long long)st->pairs_stale_unsafe, st->ms);
}
