/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the benchmarks share: a monotonic clock and the fabrics they time. */
#ifndef KR_BENCH_UTIL_H
#define KR_BENCH_UTIL_H

#include "kr.h"

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);
/* This process's CPU seconds: what a run costs on a machine others load. */
double bench_cpu_now(void);

/* o's fabric into f, its LIDs numbered as OpenSM numbers them (node
 * GUIDs shuffled: a switch's CAs far apart in LID order), unless
 * KR_BENCH_ORDER=grouped asks for kr_gen's own order (every switch's CAs
 * on consecutive LIDs), to compare the two; exits with label and the
 * reason on failure. */
void bench_gen(const char *label, struct kr_gen_opts *o, struct kr_fabric *f);
/* The order bench_gen numbers LIDs in, and a line saying it, for the
 * head of a benchmark's output. */
const char *bench_order(void);
void bench_say_order(void);

/* A generated KNS ("kns") or torus (every dimension wrapping) of dims
 * ("8x8x8"), p CAs per switch, with LIDs (bench_gen), recognised into t;
 * exits with label and the reason when either fails. */
void bench_fabric(const char *label, const char *family, const char *dims,
		  unsigned p, struct kr_fabric *f, struct kr_topo *t);
/* The fabric o generates (bench_gen), planned without the check (the tables are what
 * is timed on); exits with label and the reason when either fails. */
void bench_plan(const char *label, const struct kr_gen_opts *o,
		struct kr_fabric *f, struct kr_plan *p);

#endif
