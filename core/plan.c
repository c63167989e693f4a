/* The pipeline behind the plugin and `knsroute route`: each step fills one
 * part of *p; kr_plan_free copes with any failure point. */
#include "kr_plan.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr_route.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *kr_phase_name(enum kr_phase ph)
{
	static const char *names[KR_NPHASE] = { "recognition", "routing",
						"SL/VL plan", "repair", "check" };

	return ph < KR_NPHASE ? names[ph] : "?";
}

static int run_check(const struct kr_fabric *f, const struct kr_conf *c,
		     struct kr_plan *p, struct kr_diag *d)
{
	struct kr_check_opts o = { .max_examples = 3 };
	int rc;

	if (c && !c->check)
		return KR_OK;
	p->checked = 1;
	rc = kr_check_run(f, &p->tables, &o, &p->check, d);
	if (rc == KR_ECYCLE || rc == KR_EROUTE)
		return kr_fail(d, rc, 0, "%s; tables not installed",
			       rc == KR_ECYCLE ? "the tables have a credit loop"
					       : "some pairs are not delivered");
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

int kr_plan_build(const struct kr_fabric *f, const struct kr_conf *c,
		  struct kr_plan *p, struct kr_diag *d)
{
	return kr_plan_rebuild(f, c, NULL, p, d);
}

int kr_plan_rebuild(const struct kr_fabric *f, const struct kr_conf *c,
		    const struct kr_tables *prev, struct kr_plan *p,
		    struct kr_diag *d)
{
	double t0 = now_ms();
	int rc;

	*p = (struct kr_plan){ 0 };
	start(c, p, KR_PHASE_TOPO);
	rc = kr_topo_recognize(f, c, &p->topo, d);
	p->ms[KR_PHASE_TOPO] = now_ms() - t0;
	if (!rc) {
		start(c, p, KR_PHASE_ROUTE);
		t0 = now_ms();
		rc = kr_route(f, &p->topo, c, &p->tables, d);
		p->ms[KR_PHASE_ROUTE] = now_ms() - t0;
	}
	if (!rc) {
		start(c, p, KR_PHASE_SLVL);
		t0 = now_ms();
		rc = kr_slvl_plan(f, &p->topo, c, &p->tables, &p->slvl, d);
		p->ms[KR_PHASE_SLVL] = now_ms() - t0;
	}
	if (!rc) {
		start(c, p, KR_PHASE_REPAIR);
		t0 = now_ms();
		rc = kr_repair(f, &p->topo, c, &p->slvl, prev, &p->tables,
			       &p->repair, d);
		/* the multicast forest: the same live links and up*-down*
		 * ranks as the repair's detour layer */
		if (!rc)
			rc = kr_mtree_build(f, &p->mtree, d);
		p->ms[KR_PHASE_REPAIR] = now_ms() - t0;
	}
	if (!rc) {
		start(c, p, KR_PHASE_CHECK);
		t0 = now_ms();
		rc = run_check(f, c, p, d);
		p->ms[KR_PHASE_CHECK] = now_ms() - t0;
	}
	if (!rc)
		p->failed = KR_NPHASE;
	return rc;
}

void kr_plan_free(struct kr_plan *p)
{
	kr_topo_free(&p->topo);
	kr_tables_free(&p->tables);
	kr_slvl_free(&p->slvl);
	kr_mtree_free(&p->mtree);
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
