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
/* Run                                                                */

/* Which sources a pass takes towards lid into *srcs; false: none (data:
 * CA sources to CA LIDs; management: every source to switch LIDs,
 * switch sources and the SM to CA LIDs). */
static bool pass_srcs(const struct walk *w, unsigned lid, bool mgmt,
		      unsigned *srcs)
{
	const struct kr_fabric *f = w->f;
	bool sw = kr_is_switch(f, f->owner[f->lid_port[lid]]);

	if (!mgmt && !sw)
		*srcs = SRC_CA;
	else if (mgmt && sw)
		*srcs = SRC_ANY;
	else if (mgmt && (w->o->switch_sources || w->sm_slot != KR_NONE))
		*srcs = w->o->switch_sources ? SRC_SW : 0;
	else
		return false;
	return true;
}

/* One pass over the destinations, in the grouped order when there is one
 * (check_group.c), else in LID order a block at a time. */
static int walk_pass(struct walk *w, bool mgmt)
{
	const struct kr_fabric *f = w->f;
	unsigned loaded = 0;	/* the block in w->col, + 1; 0: none */
	int rc = KR_OK;

	for (uint32_t i = 0; w->gcol && !rc && !w->incr_cycle && i < w->ngroup;
	     i++) {
		unsigned srcs, lid = w->glid[i];

		if (!pass_srcs(w, lid, mgmt, &srcs))
			continue;
		w->row = w->gcol + (size_t)i * f->nsw;
		rc = check_one_dest(w, lid, srcs);
	}
	for (unsigned lid = 1; !w->gcol && !rc && !w->incr_cycle &&
			       lid <= f->max_lid; lid++) {
		unsigned srcs;

		if (!check_is_dest(f, lid) || (w->only && !w->only[lid]) ||
		    !pass_srcs(w, lid, mgmt, &srcs))
			continue;
		/* only blocks with a DLID of this pass: the management pass of
		 * a large fabric walks few of them (its switches' LIDs) */
		if (lid / BLOCK + 1 != loaded) {
			check_load_block(w, lid - lid % BLOCK);
			loaded = lid / BLOCK + 1;
		}
		w->row = w->col + (size_t)(lid % BLOCK) * f->nsw;
		rc = check_one_dest(w, lid, srcs);
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
	uint32_t data_deps;
	int rc;

	if (check_group_dests(w))
		check_group_free(w);	/* short of memory: in LID order */
	rc = walk_pass(w, false);
	data_deps = w->g.nedge;

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
	check_group_free(w);
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
