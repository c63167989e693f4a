/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The pipeline behind the plugin and `knsroute route`: each step fills one
 * part of *p; kr_plan_free copes with any failure point. */
#include "kr_plan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr_route.h"

const char *kr_phase_name(enum kr_phase ph)
{
	static const char *names[KR_NPHASE] = { "recognition", "routing",
						"SL/VL plan", "repair", "check" };

	return ph < KR_NPHASE ? names[ph] : "?";
}

static bool same(const void *a, const void *b, size_t n)
{
	return !n || !memcmp(a, b, n);
}

/* A port that can carry traffic in f: linked, or a switch's own. */
static bool live(const struct kr_fabric *f, uint32_t slot)
{
	return f->peer[slot] >= 0 || slot == f->port0[f->owner[slot]];
}

/* Whether the OperVLs and SL2VL maps traffic can meet in f are prev's:
 * those of live ports (a dead port's map carries nothing). */
static bool same_maps(const struct kr_fabric *pf, const struct kr_tables *pt,
		      const struct kr_fabric *f, const struct kr_tables *t)
{
	for (uint32_t n = 0; n < f->nnode; n++)
		for (unsigned out = 0; out <= f->nports[n]; out++) {
			uint32_t so = f->port0[n] + out;

			if (!live(f, so))
				continue;
			if (pf->oper_vls[so] != f->oper_vls[so])
				return false;
			for (unsigned in = 0; in <= f->nports[n]; in++)
				if (live(f, f->port0[n] + in) &&
				    kr_tables_sl2vl(pf, pt, n, in, out) !=
				    kr_tables_sl2vl(f, t, n, in, out))
					return false;
		}
	return true;
}

/* Whether prev's graph numbers the channels of f's tables alike and
 * their sources are the same: the same ports and LIDs, every CA on the
 * same switch port, the same maps where traffic can go; links between
 * switches may differ. */
static bool same_channels(const struct kr_fabric *pf, const struct kr_tables *pt,
			  const struct kr_fabric *f, const struct kr_tables *t)
{
	if (pf->nnode != f->nnode || pf->nsw != f->nsw || pf->nport != f->nport ||
	    pt->stride != t->stride || !pt->sl2vl != !t->sl2vl ||
	    t->sl2vl_given || t->sl_given || t->nmgroup ||
	    !same(pf->port0, f->port0, (f->nnode + 1) * sizeof(*f->port0)) ||
	    !same(pf->guid, f->guid, f->nnode * sizeof(*f->guid)) ||
	    !same(pf->lid, f->lid, f->nport * sizeof(*f->lid)) ||
	    !same(pf->lmc, f->lmc, f->nport))
		return false;
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		if (pf->peer[s] != f->peer[s])
			return false;	/* a CA's link */
	return same_maps(pf, pt, f, t);
}

/* The destinations whose pairs may depend otherwise than under prev: their
 * column, SL or pair SLs changed, or their column leaves some switch by a
 * port whose link changed. Returns how many, into only[stride]. */
static unsigned changed_dests(const struct kr_fabric *pf,
			      const struct kr_tables *pt,
			      const struct kr_fabric *f,
			      const struct kr_tables *t, uint8_t *only)
{
	unsigned n = 0;

	kr_tables_pairs_differ(pt, t, only);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		const uint8_t *row = t->lft + (size_t)sw * t->stride;
		const uint8_t *prow = pt->lft + (size_t)sw * t->stride;

		for (unsigned lid = 1; lid < t->stride; lid++) {
			unsigned port = row[lid];

			if (row[lid] != prow[lid] ||
			    (port <= f->nports[sw] &&
			     f->peer[f->port0[sw] + port] !=
			     pf->peer[f->port0[sw] + port]))
				only[lid] = 1;
		}
	}
	for (unsigned lid = 1; lid < t->stride; lid++) {
		only[lid] |= t->dlid_sl && pt->dlid_sl &&
			     t->dlid_sl[lid] != pt->dlid_sl[lid];
		n += only[lid];
	}
	return n;
}

/* Only the changed destinations against prev's proof, when that can
 * prove the tables; *rc says how it went, the return whether it did. */
static bool check_changes(const struct kr_fabric *f, const struct kr_fabric *pf,
			  struct kr_plan *prev, struct kr_plan *p,
			  struct kr_diag *d, int *rc)
{
	uint8_t *only;

	if (!prev || !prev->proof || !pf ||
	    !same_channels(pf, &prev->tables, f, &p->tables) ||
	    prev->tables.sm_lid != p->tables.sm_lid ||
	    prev->tables.sm_sl != p->tables.sm_sl)
		return false;	/* the SA's pairs moved: all of them anew */
	only = calloc(p->tables.stride + 1, 1);
	if (!only)
		return false;	/* the full check will say out of memory */
	p->check_dests = changed_dests(pf, &prev->tables, f, &p->tables, only);
	p->proof = prev->proof;
	prev->proof = NULL;
	*rc = kr_check_incremental(f, &p->tables, only, p->proof, &p->check, d);
	free(only);
	p->incremental = 1;
	if (*rc == KR_OK || *rc == KR_EROUTE || *rc == KR_ENOMEM)
		return true;
	p->incremental = 0;
	kr_check_report_free(&p->check);
	kr_check_graph_free(p->proof);
	p->proof = NULL;
	p->check_dests = 0;
	d->msg[0] = '\0';
	return false;
}

/* A loop that only management traffic closes, in a plan that left it no
 * VL: the SA's and PerfMgr's packets on sm_sl, and those to switch LIDs,
 * ride the VLs of a unicast code they do not follow. What the admin can
 * change is the budget, not the tables. */
static const char *loop_hint(const struct kr_plan *p)
{
	if (p->check.cls[KR_CHECK_DATA].loop != KR_LOOP_NONE ||
	    p->slvl.mcast_vl != KR_NONE)
		return "";
	return " in management traffic only, which this plan left no VL of "
	       "its own (no SL or VL for the up*/down* layer or multicast: "
	       "more VLs give it one, and so may fewer classes or LMC orders)";
}

static int run_check(const struct kr_fabric *f, const struct kr_conf *c,
		     const struct kr_fabric *pf, struct kr_plan *prev,
		     struct kr_plan *p, struct kr_diag *d)
{
	struct kr_check_opts o = { .max_examples = 3, .keep = &p->proof };
	int rc;

	if (c && !c->check)
		return KR_OK;
	p->checked = 1;
	if (!check_changes(f, pf, prev, p, d, &rc))
		rc = kr_check_run(f, &p->tables, &o, &p->check, d);
	if (rc == KR_ECYCLE) {
		char hosts[KR_DIAG_MSG / 2];

		return kr_fail(d, rc, 0, "the tables have a credit loop%s%s; "
			       "tables not installed", loop_hint(p),
			       kr_route_host_hint(f, &p->topo, c, hosts,
						  sizeof(hosts)));
	}
	if (rc == KR_EROUTE)
		return kr_fail(d, rc, 0, "some pairs are not delivered; tables "
			       "not installed");
	return rc;
}

/* p->failed names the phase under way until it succeeds. */
static void start(const struct kr_conf *c, struct kr_plan *p,
		  enum kr_phase ph)
{
	p->failed = ph;
	if (c && c->on_phase)
		c->on_phase(c->on_phase_ctx, kr_phase_name(ph));
}

/* Recognition to repair: everything but the check; the CA slots of the
 * plan in force (prev on prev_f) carried over. Or the tables in force
 * are was, read from a cache, which the routes complete. */
static int compute(const struct kr_fabric *f, const struct kr_conf *c,
		   const struct kr_fabric *prev_f, struct kr_plan *prev,
		   struct kr_tables *was, struct kr_plan *p,
		   struct kr_diag *d)
{
	const struct kr_tables *in_force = prev ? &prev->tables : was;
	struct kr_tables_patch patch;
	double t0 = kr_now_ms();
	int rc;

	*p = (struct kr_plan){ .resumed = was != NULL,
			       .resumed_dests = was ? was->nrepaired : 0 };
	start(c, p, KR_PHASE_TOPO);
	rc = kr_topo_recognize(f, c, &p->topo, d);
	if (!rc && prev && prev_f &&
	    (rc = kr_topo_keep_slots(f, &p->topo, prev_f, &prev->topo)))
		rc = kr_fail(d, rc, 0, "out of memory");
	p->ms[KR_PHASE_TOPO] = kr_now_ms() - t0;
	if (!rc) {
		start(c, p, KR_PHASE_ROUTE);
		t0 = kr_now_ms();
		rc = kr_route(f, &p->topo, c, &p->tables, d);
		if (!rc && was && (rc = kr_tables_refill(was, &p->tables)))
			rc = kr_fail(d, rc, 0, rc == KR_ENOMEM ? "out of memory"
				     : "the tables in force are of another "
				     "fabric");
		p->ms[KR_PHASE_ROUTE] = kr_now_ms() - t0;
	}
	if (!rc) {
		start(c, p, KR_PHASE_SLVL);
		t0 = kr_now_ms();
		rc = kr_slvl_plan(f, &p->topo, c, &p->tables, &p->slvl, d);
		p->ms[KR_PHASE_SLVL] = kr_now_ms() - t0;
	}
	if (!rc) {
		start(c, p, KR_PHASE_REPAIR);
		t0 = kr_now_ms();
		rc = kr_repair(f, &p->topo, c, &p->slvl, in_force, &p->tables,
			       &patch, &p->repair, d);
		if (!rc)
			rc = kr_tables_patch(&p->tables, &patch);
		/* the multicast forest: the same live links and up*-down*
		 * ranks as the repair's detour layer */
		if (!rc)
			rc = kr_mtree_build(f, &p->topo, p->tables.sm_lid,
					    &p->mtree, d);
		p->ms[KR_PHASE_REPAIR] = kr_now_ms() - t0;
	}
	return rc;
}

static int prove(const struct kr_fabric *f, const struct kr_conf *c,
		 const struct kr_fabric *prev_f, struct kr_plan *prev,
		 struct kr_plan *p, struct kr_diag *d)
{
	double t0 = kr_now_ms();
	int rc;

	start(c, p, KR_PHASE_CHECK);
	rc = run_check(f, c, prev_f, prev, p, d);
	p->ms[KR_PHASE_CHECK] = kr_now_ms() - t0;
	if (!rc)
		p->failed = KR_NPHASE;
	return rc;
}

int kr_plan_build(const struct kr_fabric *f, const struct kr_conf *c,
		  struct kr_plan *p, struct kr_diag *d)
{
	return kr_plan_rebuild(f, c, NULL, NULL, p, d);
}

int kr_plan_tables(const struct kr_fabric *f, const struct kr_conf *c,
		   struct kr_tables *was, struct kr_plan *p,
		   struct kr_diag *d)
{
	return compute(f, c, NULL, NULL, was, p, d);
}

int kr_plan_prove(const struct kr_fabric *f, const struct kr_conf *c,
		  struct kr_plan *p, struct kr_diag *d)
{
	return prove(f, c, NULL, NULL, p, d);
}

int kr_plan_rebuild(const struct kr_fabric *f, const struct kr_conf *c,
		    const struct kr_fabric *prev_f, struct kr_plan *prev,
		    struct kr_plan *p, struct kr_diag *d)
{
	int rc = compute(f, c, prev_f, prev, NULL, p, d);

	return rc ? rc : prove(f, c, prev_f, prev, p, d);
}

int kr_plan_resume(const struct kr_fabric *f, const struct kr_conf *c,
		   struct kr_tables *was, struct kr_plan *p, struct kr_diag *d)
{
	int rc = kr_plan_tables(f, c, was, p, d);

	return rc ? rc : kr_plan_prove(f, c, p, d);
}

void kr_plan_free(struct kr_plan *p)
{
	kr_topo_free(&p->topo);
	kr_tables_free(&p->tables);
	kr_slvl_free(&p->slvl);
	kr_mtree_free(&p->mtree);
	kr_check_graph_free(p->proof);
	if (p->checked)
		kr_check_report_free(&p->check);
	*p = (struct kr_plan){ 0 };
}

static int mgroup_slot(struct kr_tables *t, unsigned mlid, size_t *at)
{
	struct kr_mgroup *g;
	size_t i = 0;

	while (i < t->nmgroup && t->mgroup[i].mlid < mlid)
		i++;
	*at = i;
	if (i < t->nmgroup && t->mgroup[i].mlid == mlid) {
		kr_mgroup_free(&t->mgroup[i]);
		return KR_OK;
	}
	g = realloc(t->mgroup, (t->nmgroup + 1) * sizeof(*g));
	if (!g)
		return KR_ENOMEM;
	t->mgroup = g;
	memmove(g + i + 1, g + i, (t->nmgroup - i) * sizeof(*g));
	g[i] = (struct kr_mgroup){ 0 };
	t->nmgroup++;
	return KR_OK;
}

int kr_plan_add_group(const struct kr_fabric *f, struct kr_plan *p,
		      unsigned mlid, unsigned sl, const uint32_t *member,
		      size_t nmember, struct kr_mcast_info *info,
		      struct kr_diag *d)
{
	struct kr_mgroup g = { .mlid = (uint16_t)mlid, .sl = (uint8_t)sl,
			       .sl_given = 1 };
	unsigned fix;
	size_t at;
	int rc;

	if (!kr_slvl_mcast_ok(&p->slvl, sl, &fix)) {
		if (fix == KR_NSL)
			return kr_fail(d, KR_EINVAL, 0, "MLID 0x%04x: SL %u is "
				       "not safe and the plan has no multicast "
				       "SL (%s)", mlid, sl, p->slvl.mcast_sls ?
				       "no SL or VL left" : "mcast_sls");
		return kr_fail(d, KR_EINVAL, 0, "MLID 0x%04x: SL %u is a unicast "
			       "SL of the plan, so its tree could close a credit "
			       "loop; give the group sl=%u in partitions.conf "
			       "(or add %u to mcast_sls in knsroute.conf)", mlid,
			       sl, fix, sl);
	}
	rc = kr_mcast_group(f, &p->mtree, member, nmember, &g, info, d);
	if (!rc && (rc = mgroup_slot(&p->tables, mlid, &at)))
		rc = kr_fail(d, rc, 0, "out of memory");
	if (rc) {
		kr_mgroup_free(&g);
		return rc;
	}
	p->tables.mgroup[at] = g;
	return KR_OK;
}
