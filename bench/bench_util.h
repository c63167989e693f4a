/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the benchmarks share: a monotonic clock and the fabrics they time. */
#ifndef KR_BENCH_UTIL_H
#define KR_BENCH_UTIL_H

#include "kr.h"

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);
/* This process's CPU seconds: what a run costs on a machine others load. */
double bench_cpu_now(void);

/* A generated KNS ("kns") or torus (every dimension wrapping) of dims
 * ("8x8x8"), p CAs per switch, with LIDs, recognised into t; exits with
 * label and the reason when either fails. */
void bench_fabric(const char *label, const char *family, const char *dims,
		  unsigned p, struct kr_fabric *f, struct kr_topo *t);
/* The fabric o generates, planned without the check (the tables are what
 * is timed on); exits with label and the reason when either fails. */
void bench_plan(const char *label, const struct kr_gen_opts *o,
		struct kr_fabric *f, struct kr_plan *p);

#endif
