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

	*p = (struct kr_plan){ .failed = KR_PHASE_TOPO };
	rc = kr_topo_recognize(f, c, &p->topo, d);
	p->ms[KR_PHASE_TOPO] = now_ms() - t0;
	if (!rc) {
		p->failed = KR_PHASE_ROUTE;
		t0 = now_ms();
		rc = kr_route(f, &p->topo, c, &p->tables, d);
		p->ms[KR_PHASE_ROUTE] = now_ms() - t0;
	}
	if (!rc) {
		p->failed = KR_PHASE_SLVL;
		t0 = now_ms();
		rc = kr_slvl_plan(f, &p->topo, c, &p->tables, &p->slvl, d);
		p->ms[KR_PHASE_SLVL] = now_ms() - t0;
	}
	if (!rc) {
		p->failed = KR_PHASE_REPAIR;
		t0 = now_ms();
		rc = kr_repair(f, &p->topo, c, &p->slvl, prev, &p->tables,
			       &p->repair, d);
		p->ms[KR_PHASE_REPAIR] = now_ms() - t0;
	}
	if (!rc) {
		p->failed = KR_PHASE_CHECK;
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
	if (p->checked)
		kr_check_report_free(&p->check);
	*p = (struct kr_plan){ 0 };
}
