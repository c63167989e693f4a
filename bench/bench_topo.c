/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Recognition time for KNS and tori from 1K to 64K CAs, shuffled fabrics
 * (no help from GUID order), pristine and with 1% of the inter-switch links
 * missing; links per second should stay flat as a fabric of one shape
 * grows. A faulty fabric may be refused when the faults make it ambiguous;
 * the row says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr.h"
#include "bench_util.h"

static unsigned links_of(const struct kr_fabric *f, unsigned *sw_links)
{
	unsigned n = 0, s = 0;

	for (uint32_t slot = 0; slot < f->nport; slot++) {
		if (f->peer[slot] <= (int32_t)slot)
			continue;
		n++;
		s += kr_is_switch(f, f->owner[slot]) &&
		     kr_is_switch(f, f->owner[f->peer[slot]]);
	}
	*sw_links = s;
	return n;
}

static void run(enum kr_family fam, const char *dims, unsigned p, int faulty)
{
	struct kr_gen_opts o = { .family = fam, .p = p, .parallel = 1,
				 .shuffle = 1, .shuffle_seed = 42 };
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_topo t;
	unsigned links, swl;
	double best = 1e9;

	kr_parse_dims(dims, o.k, &o.ndim, &d);
	for (unsigned i = 0; i < o.ndim; i++)
		o.wrap[i] = 1;
	bench_gen(dims, &o, &f);
	links = links_of(&f, &swl);
	if (faulty) {	/* again, without 1% of the switch links */
		kr_fabric_free(&f);
		o.fail = swl / 100;
		o.fail_seed = 7;
		bench_gen(dims, &o, &f);
		links = links_of(&f, &swl);
	}
	for (int i = 0; i < 3; i++) {
		double t0 = bench_now(), dt;

		if (kr_topo_recognize(&f, NULL, &t, &d)) {
			/* with n = 2, two routers of a line that both lost
			 * their other link cannot be told apart */
			printf("%-5s %-10s %3u refused: %.60s\n", "kns", dims, p,
			       d.msg);
			kr_topo_free(&t);
			kr_fabric_free(&f);
			return;
		}
		dt = bench_now() - t0;
		best = dt < best ? dt : best;
		kr_topo_free(&t);
	}
	printf("%-5s %-10s %3u %6u %6u %7u %7u %9.1f %12.0f\n",
	       fam == KR_FAMILY_KNS ? "kns" : "torus", dims, p, f.nnode - f.nsw,
	       f.nsw, links, o.fail, best * 1e3, links / best);
	kr_fabric_free(&f);
}

int main(void)
{
	static const struct { enum kr_family fam; const char *dims; unsigned p; } cases[] = {
		{ KR_FAMILY_TORUS, "8x8x16", 1 },	/* 1K CAs */
		{ KR_FAMILY_TORUS, "16x16x16", 1 },	/* 4K */
		{ KR_FAMILY_TORUS, "16x16x32", 2 },	/* 16K */
		{ KR_FAMILY_TORUS, "32x32x64", 1 },	/* 64K */
		{ KR_FAMILY_TORUS, "4x4x4x4x4x4", 16 },	/* 64K, 6-D */
		{ KR_FAMILY_KNS, "8x8x8", 2 },		/* 1K */
		{ KR_FAMILY_KNS, "16x16x16", 1 },	/* 4K */
		{ KR_FAMILY_KNS, "32x32", 16 },		/* 16K */
		{ KR_FAMILY_KNS, "16x16x16x16", 1 },	/* 64K */
		{ KR_FAMILY_KNS, "64x64", 16 },		/* 64K */
	};

	printf("%-5s %-10s %3s %6s %6s %7s %7s %9s %12s\n", "fam", "dims", "p",
	       "CAs", "sw", "links", "missing", "ms", "links/s");
	for (int faulty = 0; faulty < 2; faulty++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			run(cases[i].fam, cases[i].dims, cases[i].p, faulty);
	return 0;
}
