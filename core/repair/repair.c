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

/* One repair of t into *out, trying mode first for every destination;
 * *distinct (unless NULL): whether some class's anchor was not the one
 * anchor. */
static int repair_pass(const struct repair *proto, enum col_mode mode,
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
	r.out = out;
	r.first_mode = mode;
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
static int another_pass(const struct repair *proto, enum col_mode mode,
			const struct kr_tables *prev, uint8_t *plan_sl, int rc,
			struct kr_tables_patch *out, struct kr_repair_stats *st,
			struct kr_diag *d)
{
	struct kr_tables_patch out2;
	struct kr_repair_stats st2;
	int rc2 = repair_pass(proto, mode, prev, false, plan_sl, &out2, &st2,
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

/* Every pass there is reason for; the best one's patch into out. */
static int passes(const struct repair *proto, const struct kr_tables *prev,
		  bool whole, uint8_t *plan_sl, struct kr_tables_patch *out,
		  struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_topo *topo = proto->topo;
	bool distinct;
	int rc = repair_pass(proto, pass_mode[0], prev, whole, plan_sl, out,
			     st, &distinct, d);

	for (unsigned i = 1; i < KR_NPASS && !whole && topo->ndim > 1 &&
			     (rc == KR_ECYCLE || (!rc && !perfect(st))); i++)
		if ((pass_mode[i] != COL_RING ||
		     topo->family == KR_FAMILY_TORUS) &&
		    (pass_mode[i] != COL_ONE_ANCHOR || distinct))
			rc = another_pass(proto, pass_mode[i], prev, plan_sl,
					  rc, out, st, d);
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
