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

const char *bench_order(void)
{
	const char *e = getenv("KR_BENCH_ORDER");

	return e && !strcmp(e, "grouped") ? "grouped" : "discovery";
}

void bench_say_order(void)
{
	printf("# LIDs in %s order%s\n", bench_order(),
	       strcmp(bench_order(), "grouped") ?
	       " (shuffled GUIDs; KR_BENCH_ORDER=grouped: per switch)" : "");
}

void bench_gen(const char *label, struct kr_gen_opts *o, struct kr_fabric *f)
{
	struct kr_diag d = { 0 };
	int rc = KR_EINVAL;

	if (strcmp(bench_order(), "grouped")) {
		o->shuffle = 1;
		o->shuffle_seed = o->shuffle_seed ? o->shuffle_seed : 42;
	}
	/* shuffled names are random 32-bit tags that can collide in fabrics
	 * this big; another seed then does */
	for (int i = 0; i < 8 && rc; i++, o->shuffle_seed++)
		rc = kr_gen(o, f, NULL, NULL, NULL, &d);
	if (rc) {
		fprintf(stderr, "%s: %s\n", label, d.msg);
		exit(1);
	}
}

void bench_plan(const char *label, const struct kr_gen_opts *o,
		struct kr_fabric *f, struct kr_plan *p)
{
	struct kr_gen_opts go = *o;
	struct kr_diag d = { 0 };
	struct kr_conf c;

	kr_conf_init(&c);
	c.check = 0;
	bench_gen(label, &go, f);
	if (kr_plan_build(f, &c, p, &d)) {
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
	bench_gen(label, &o, f);
	if (kr_topo_recognize(f, &c, t, &d)) {
		fprintf(stderr, "%s: %s\n", label, d.msg);
		exit(1);
	}
}
