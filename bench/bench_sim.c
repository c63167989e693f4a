/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Simulator speed and memory: knsroute's own tables (kr_plan_build) on
 * KNS and tori from 256 to 2,304 CAs, uniform traffic at 60% and 100% of
 * link rate, 4 KB packets, 10,000 cycles of warm-up and 40,000 measured.
 * Prints packet-hops per CPU second and the case's peak resident memory
 * beside the LFT bytes (one per switch and LID), each case in a process
 * of its own so that the peak is its own.
 *
 *   bench/bench_sim [NAME-PREFIX] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kr.h"
#include "kr_sim.h"
#include "bench_util.h"

struct bench_case {
	const char *name;
	struct kr_gen_opts o;
};

#define KNS(kk, nn, pp) { .family = KR_FAMILY_KNS, .ndim = nn, \
	.k = { kk, kk, kk }, .p = pp, .parallel = 1, .assign_lids = 1 }
#define TORUS2(a, b, pp) { .family = KR_FAMILY_TORUS, .ndim = 2, \
	.k = { a, b }, .wrap = { 1, 1 }, .p = pp, .parallel = 1, \
	.assign_lids = 1 }

static const struct bench_case cases[] = {
	{ "torus 16x16 p1", TORUS2(16, 16, 1) },
	{ "kns k16 n2 p1", KNS(16, 2, 1) },
	{ "torus 16x16 p4", TORUS2(16, 16, 4) },
	{ "kns k48 n2 p1", KNS(48, 2, 1) },
};

static void run_case(const struct bench_case *c, double load)
{
	struct kr_sim_opts o;
	struct kr_sim_result r;
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_plan p;
	struct rusage ru;
	double t0, cpu;

	bench_plan(c->name, &c->o, &f, &p);
	kr_sim_opts_default(&o);
	o.load = load;
	o.warmup = 10000;
	o.cycles = 40000;
	t0 = bench_cpu_now();
	if (kr_sim_run(&f, &p.tables, NULL, &o, &r, &d)) {
		fprintf(stderr, "%s: %s\n", c->name, d.msg);
		exit(1);
	}
	cpu = bench_cpu_now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("%-16s %5u %4.1f %8.3f %10llu %7.2f %8.2f %8.1f %8.1f\n", c->name,
	       r.nhost, load, r.accepted, (unsigned long long)r.hops, cpu,
	       r.hops / cpu / 1e6, (double)f.nsw * p.tables.stride / 1e6,
	       ru.ru_maxrss / 1e3);
	fflush(stdout);
	kr_sim_result_free(&r);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "";
	static const double loads[] = { 0.6, 1.0 };

	bench_say_order();
	printf("%-16s %5s %4s %8s %10s %7s %8s %8s %8s\n", "fabric", "CAs",
	       "load", "accepted", "hops", "cpu s", "Mhops/s", "LFT MB",
	       "peak MB");
	fflush(stdout);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strncmp(cases[i].name, prefix, strlen(prefix)))
			continue;
		for (size_t l = 0; l < 2; l++) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				run_case(&cases[i], loads[l]);
				_exit(0);
			}
			if (pid < 0 || waitpid(pid, &st, 0) < 0 ||
			    !WIFEXITED(st) || WEXITSTATUS(st))
				return 1;
		}
	}
	return 0;
}
