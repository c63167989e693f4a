/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Route time for KNS and tori from 1K to ~45K CAs (the unicast LID space,
 * 48K LIDs, caps a fabric below 64K CAs at LMC 0), in LFT entries per second
 * and against a plain memset of the same bytes; then route and check time
 * of KNS with fat-tree subnets (s = 2, 3, 4) next to crossbars (s = 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr.h"
#include "bench_util.h"

static double memset_time(size_t bytes)
{
	unsigned char *buf = malloc(bytes);
	double t0, best = 1e9;

	if (!buf)
		return 0;
	memset(buf, 1, bytes);	/* fault the pages in first */
	for (int i = 0; i < 3; i++) {
		t0 = bench_now();
		memset(buf, i, bytes);
		__asm__ volatile("" : : "r"(buf) : "memory");
		if (bench_now() - t0 < best)
			best = bench_now() - t0;
	}
	free(buf);
	return best;
}

static void run(const char *label, const char *family, const char *dims,
		unsigned p)
{
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables r;
	double t0, best = 1e9, ms;
	size_t entries;

	kr_conf_init(&c);
	bench_fabric(label, family, dims, p, &f, &t);
	for (int i = 0; i < 3; i++) {
		t0 = bench_now();
		if (kr_route(&f, &t, &c, &r, &d)) {
			fprintf(stderr, "%s: %s\n", label, d.msg);
			exit(1);
		}
		if (bench_now() - t0 < best)
			best = bench_now() - t0;
		kr_tables_free(&r);
	}
	entries = (size_t)f.nsw * (f.max_lid + 1);
	ms = memset_time(entries);
	printf("%-26s %7u %6u %10zu %9.1f %9.0f %7.1f\n", label,
	       f.nnode - f.nsw, f.nsw, entries, best * 1e3,
	       (double)entries / best / 1e6, best / ms);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* KNS with fat-tree subnets next to crossbars of the same CA count: the
 * plan's route and check phases (switch LIDs included), best of three. */
static void run_subnets(unsigned k, unsigned n, unsigned p, unsigned radix)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = n, .p = p,
				 .radix = radix, .assign_lids = 1 };
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_plan plan;
	double route = 1e9, check = 1e9;
	unsigned s = 1;
	char label[64];

	for (unsigned i = 0; i < n; i++)
		o.k[i] = k;
	snprintf(label, sizeof(label), "kns k%u n%u radix %u", k, n, radix);
	bench_gen(label, &o, &f);
	for (int i = 0; i < 3; i++) {
		if (kr_plan_build(&f, NULL, &plan, &d)) {
			fprintf(stderr, "kns k%u n%u radix %u: %s\n", k, n, radix,
				d.msg);
			exit(1);
		}
		s = plan.topo.s;
		route = plan.ms[KR_PHASE_ROUTE] < route ? plan.ms[KR_PHASE_ROUTE] : route;
		check = plan.ms[KR_PHASE_CHECK] < check ? plan.ms[KR_PHASE_CHECK] : check;
		kr_plan_free(&plan);
	}
	snprintf(label, sizeof(label), "kns %u-ary %u-direct %u-indirect p%u", k,
		 n, s, p);
	printf("%-32s %7u %6u %9.1f %9.1f\n", label, f.nnode - f.nsw, f.nsw,
	       route, check);
	kr_fabric_free(&f);
}

int main(void)
{
	bench_say_order();
	printf("%-26s %7s %6s %10s %9s %9s %7s\n", "fabric", "CAs", "sw",
	       "entries", "route ms", "Mentry/s", "x memset");
	run("kns 8-ary 2-direct p16", "kns", "8x8", 16);
	run("kns 16-ary 2-direct p16", "kns", "16x16", 16);
	run("kns 16-ary 3-direct p4", "kns", "16x16x16", 4);
	run("kns 16-ary 3-direct p10", "kns", "16x16x16", 10);
	run("torus 8x8x16 p1", "torus", "8x8x16", 1);
	run("torus 16x16x16 p1", "torus", "16x16x16", 1);
	run("torus 16x16x16 p4", "torus", "16x16x16", 4);
	run("torus 16x16x16 p10", "torus", "16x16x16", 10);
	printf("\n%-32s %7s %6s %9s %9s\n", "fabric (s > 1: fat-tree subnets)",
	       "CAs", "sw", "route ms", "check ms");
	run_subnets(16, 2, 4, 0);	/* 1024 CAs: crossbars, */
	run_subnets(16, 2, 4, 8);	/* 4-ary 2-trees of 8 ports, */
	run_subnets(16, 2, 4, 4);	/* 2-ary 4-trees of 4 ports */
	run_subnets(8, 3, 2, 0);	/* 1024 CAs: crossbars, */
	run_subnets(8, 3, 2, 4);	/* 2-ary 3-trees of 4 ports */
	run_subnets(9, 2, 16, 0);	/* 1296 CAs: crossbars, */
	run_subnets(9, 2, 16, 6);	/* 3-ary 2-trees of 6 ports */
	return 0;
}
