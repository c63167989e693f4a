/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reroute after one failed link, KNS and tori up to ~10K CAs: the time of
 * routing + SL/VL + repair on the faulty fabric (what a plugin sweep spends
 * before its check), the repair alone, and how many LFT entries differ from
 * the pristine tables (only destinations the fault touched may change),
 * and the time and size of the tables cache the plugin then writes
 * (into a temporary file, best of 3); then a second link down with the
 * first sweep's tables in force, as the plugin's next sweep repairs it
 * (keeping the SLs of routes that stay).
 * Each row is the best of 3 runs (wall, and the repair's CPU time, which
 * other load on the machine inflates less); the links are picked by
 * their place in the recognised structure (cut_at), so runs are
 * repeatable and LID orders compare. An
 * argument keeps only the rows whose label contains it, for profiling one
 * fabric. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr.h"
#include "bench_util.h"

static void die(const char *label, const struct kr_diag *d)
{
	fprintf(stderr, "%s: %s\n", label, d->msg);
	exit(1);
}

/* Routes f as a sweep would, into r; returns the repair's own seconds,
 * and its CPU seconds in *cpu. */
static double sweep(const struct kr_fabric *f, const struct kr_topo *t,
		    const struct kr_conf *c, const struct kr_tables *prev,
		    struct kr_tables *r, struct kr_repair_stats *st,
		    const char *label, double *cpu)
{
	struct kr_slvl p;
	struct kr_tables_patch patch;
	struct kr_diag d = { 0 };
	double t0, c0;

	if (kr_route(f, t, c, r, &d) || kr_slvl_plan(f, t, c, r, &p, &d))
		die(label, &d);
	t0 = bench_now();
	c0 = bench_cpu_now();
	if (kr_repair(f, t, c, &p, prev, r, &patch, st, &d) ||
	    kr_tables_patch(r, &patch))
		die(label, &d);
	*cpu = bench_cpu_now() - c0;
	t0 = bench_now() - t0;
	kr_slvl_free(&p);
	return t0;
}

static const char *only;

/* The tables cache of r, as the plugin writes it after a sweep: best
 * milliseconds of 3, and its kilobytes in *kb. */
static double cache_write(const struct kr_fabric *f, const struct kr_tables *r,
			  double *kb)
{
	double best = 1e9;

	for (int i = 0; i < 3; i++) {
		FILE *out = tmpfile();
		double t0 = bench_now();

		if (!out || kr_tables_cache_write(out, f, r) || fflush(out)) {
			perror("tables cache");
			exit(1);
		}
		t0 = bench_now() - t0;
		best = t0 < best ? t0 : best;
		*kb = (double)ftell(out) / 1024;
		fclose(out);
	}
	return best * 1e3;
}

/* Takes out the link from the switch at grid position pos (or the next
 * one there is) to its neighbour of least place (kr_topo_place). Recognition names a
 * fabric's dimensions and directions in an order its numbering decides,
 * so on fabrics whose dimensions are all alike (the rows below) that link
 * plays the same part in the routes however the fabric is numbered, and
 * LID orders compare. */
static void cut_at(struct kr_fabric *f, const struct kr_topo *t, uint32_t pos)
{
	uint32_t best = KR_NONE;
	uint64_t best_place = UINT64_MAX;
	int32_t sw = -1;

	for (; pos < t->npos && (sw = t->pos_sw[pos]) < 0; pos++)
		;
	for (uint32_t s = f->port0[sw] + 1; sw >= 0 && s < f->port0[sw + 1]; s++) {
		uint32_t o;

		if (f->peer[s] < 0 || !kr_is_switch(f, o = f->owner[f->peer[s]]))
			continue;
		if (kr_topo_place(t, o) < best_place) {
			best_place = kr_topo_place(t, o);
			best = s;
		}
	}
	if (best == KR_NONE) {
		fprintf(stderr, "bench_repair: no link to cut at %u\n", pos);
		exit(1);
	}
	f->peer[f->peer[best]] = -1;
	f->peer[best] = -1;
}

/* A second link down, the first sweep's tables prev in force: the
 * repair's best time of 3, and the destinations it repaired. */
static void second_link(struct kr_fabric *f, const struct kr_topo *t,
			const struct kr_conf *c, const struct kr_tables *prev,
			const char *label)
{
	struct kr_repair_stats st;
	double best = 1e9, cpu;

	cut_at(f, t, t->npos / 4);
	for (int i = 0; i < 3; i++) {
		struct kr_tables r;
		double rep = sweep(f, t, c, prev, &r, &st, label, &cpu);

		best = rep < best ? rep : best;
		kr_tables_free(&r);
	}
	printf(" %9.1f %6u\n", best * 1e3, st.dests_repaired);
}

static void run(const char *label, const char *family, const char *dims,
		unsigned p)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables pristine, r;
	struct kr_repair_stats st;
	double best = 1e9, best_rep = 1e9, best_cpu = 1e9, cpu, kb, cache_ms;
	size_t changed = 0, entries;

	if (only && !strstr(label, only))
		return;
	kr_conf_init(&c);
	bench_fabric(label, family, dims, p, &f, &t);
	sweep(&f, &t, &c, NULL, &pristine, &st, label, &cpu);
	cut_at(&f, &t, t.npos / 2);
	for (int i = 0; i < 3; i++) {
		double t0 = bench_now(), rep = sweep(&f, &t, &c, NULL, &r, &st,
						     label, &cpu);

		t0 = bench_now() - t0;
		best = t0 < best ? t0 : best;
		best_rep = rep < best_rep ? rep : best_rep;
		best_cpu = cpu < best_cpu ? cpu : best_cpu;
		if (i < 2)
			kr_tables_free(&r);
	}
	entries = (size_t)f.nsw * r.stride;
	for (size_t i = 0; i < entries; i++)
		changed += r.lft[i] != pristine.lft[i];
	cache_ms = cache_write(&f, &r, &kb);
	printf("%-24s %6u %6u %10zu %9.1f %9.1f %9.1f %6u %6u %9zu %8.1f %8.0f",
	       label, f.nnode - f.nsw, f.nsw, entries, best * 1e3,
	       best_rep * 1e3, best_cpu * 1e3, st.dests_repaired,
	       st.dests_detour, changed, cache_ms, kb);
	second_link(&f, &t, &c, &r, label);
	kr_tables_free(&r);
	kr_tables_free(&pristine);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

int main(int argc, char **argv)
{
	only = argc > 1 ? argv[1] : NULL;
	bench_say_order();
	printf("%-24s %6s %6s %10s %9s %9s %9s %6s %6s %9s %8s %8s %9s %6s\n",
	       "fabric, 1 link down", "CAs", "sw", "entries", "sweep ms",
	       "repair ms", "cpu ms", "dests", "detour", "changed",
	       "cache ms", "cache KB", "2nd ms", "dests");
	run("kns 8-ary 2-direct p16", "kns", "8x8", 16);
	run("kns 10-ary 3-direct p1", "kns", "10x10x10", 1);
	run("kns 10-ary 3-direct p10", "kns", "10x10x10", 10);
	run("kns 32-ary 2-direct p8", "kns", "32x32", 8);
	run("torus 8x8x8 p1", "torus", "8x8x8", 1);
	run("torus 8x8x8 p4", "torus", "8x8x8", 4);
	run("torus 8x8x8 p16", "torus", "8x8x8", 16);
	return 0;
}
