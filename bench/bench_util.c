/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_plan(const char *label, const struct kr_gen_opts *o,
		struct kr_fabric *f, struct kr_plan *p)
{
	struct kr_diag d = { 0 };
	struct kr_conf c;

	kr_conf_init(&c);
	c.check = 0;
	if (kr_gen(o, f, NULL, NULL, NULL, &d) || kr_plan_build(f, &c, p, &d)) {
		fprintf(stderr, "%s: %s\n", label, d.msg);
		exit(1);
	}
}

void bench_fabric(const char *label, const char *family, const char *dims,
		  unsigned p, struct kr_fabric *f, struct kr_topo *t)
{
	struct kr_gen_opts o = { .p = p, .assign_lids = 1 };
	struct kr_diag d = { 0 };
	struct kr_conf c;

	o.family = !strcmp(family, "kns") ? KR_FAMILY_KNS : KR_FAMILY_TORUS;
	kr_parse_dims(dims, o.k, &o.ndim, &d);
	for (unsigned i = 0; i < o.ndim; i++)
		o.wrap[i] = 1;
	kr_conf_init(&c);
	if (kr_gen(&o, f, NULL, NULL, NULL, &d) ||
	    kr_topo_recognize(f, &c, t, &d)) {
		fprintf(stderr, "%s: %s\n", label, d.msg);
		exit(1);
	}
}
