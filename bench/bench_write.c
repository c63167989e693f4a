/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Dry-run writing speed: a generated fabric is routed once (check off: this
 * times the writers, not the check), then its files are written into DIR by
 * kr_plan_write_dir, best of three, next to what writing the same number of
 * bytes with write() from a 1 MiB buffer costs in the same directory (what
 * dd bs=1M does): the bound a dump writer can approach. CPU seconds count
 * what the run costs on a loaded machine; wall seconds are shown too.
 *
 * Usage: bench_write [-d DIR] [FAMILY:DIMS:P ...]
 * FAMILY kns or torus; default: kns:8x8x8:8 torus:8x8x8:8 torus:16x16x8:4.
 * KNS 10-ary 3-direct p40 (kns:10x10x10:40) writes about 4 GB. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kr.h"
#include "bench_util.h"

static const char *const out_name[] = { "opensm-lfts.dump",
	"opensm-sl2vl.dump", "opensm.mcfdbs", "path-sl", "vlarb",
	"topology.net", "knsroute-tables", "summary" };
#define NOUT (sizeof(out_name) / sizeof(out_name[0]))

struct cost {
	double wall, cpu;
};

static void keep_best(struct cost *best, double wall0, double cpu0)
{
	double wall = bench_now() - wall0, cpu = bench_cpu_now() - cpu0;

	if (cpu < best->cpu) {
		best->cpu = cpu;
		best->wall = wall;
	}
}

/* Files of an earlier run go before the clock starts: freeing their pages
 * is no part of writing. */
static void clear_dir(const char *dir)
{
	char path[4200];

	for (size_t i = 0; i < NOUT; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, out_name[i]);
		unlink(path);
	}
}

static size_t dir_bytes(const char *dir)
{
	char path[4200];
	struct stat st;
	size_t n = 0;

	for (size_t i = 0; i < NOUT; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, out_name[i]);
		if (!stat(path, &st))
			n += (size_t)st.st_size;
	}
	return n;
}

/* bytes with write() in 1 MiB pieces into a fresh file, as dd bs=1M. */
static struct cost dd_cost(const char *dir, size_t bytes)
{
	struct cost best = { 1e9, 1e9 };
	char path[4200], *buf = malloc(1 << 20);

	if (!buf)
		exit(1);
	memset(buf, 'x', 1 << 20);
	snprintf(path, sizeof(path), "%s/dd.out", dir);
	for (int i = 0; i < 3; i++) {
		double w0 = bench_now(), c0 = bench_cpu_now();
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		for (size_t left = bytes, n; fd >= 0 && left; left -= n) {
			n = left < (1u << 20) ? left : (1u << 20);
			if (write(fd, buf, n) != (ssize_t)n) {
				perror("bench_write: dd");
				exit(1);
			}
		}
		if (fd < 0 || close(fd)) {
			perror("bench_write: dd");
			exit(1);
		}
		keep_best(&best, w0, c0);
		unlink(path);
	}
	free(buf);
	return best;
}

static void run(const char *dir, const char *spec)
{
	char family[16], dims[64], out[4096];
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_plan p;
	struct cost best = { 1e9, 1e9 }, dd;
	unsigned np;
	size_t bytes;

	if (sscanf(spec, "%15[a-z]:%63[0-9x]:%u", family, dims, &np) != 3) {
		fprintf(stderr, "bench_write: expected FAMILY:DIMS:P, not %s\n",
			spec);
		exit(2);
	}
	bench_fabric(spec, family, dims, np, &f, &t);
	kr_topo_free(&t);
	kr_conf_init(&c);
	c.check = 0;
	if (kr_plan_build(&f, &c, &p, &d)) {
		fprintf(stderr, "%s: %s\n", spec, d.msg);
		exit(1);
	}
	snprintf(out, sizeof(out), "%s/out", dir);
	for (int i = 0; i < 3; i++) {
		double w0, c0;

		clear_dir(out);
		w0 = bench_now();
		c0 = bench_cpu_now();
		if (kr_plan_write_dir(out, KR_TO_NAMED, &f, &p, &d)) {
			fprintf(stderr, "%s: %s\n", spec, d.msg);
			exit(1);
		}
		keep_best(&best, w0, c0);
	}
	bytes = dir_bytes(out);
	dd = dd_cost(dir, bytes);
	printf("%-22s %9.1f %8.0f %8.0f %8.0f %7.0f %7.0f %6.2f\n", spec,
	       (double)bytes / 1e6, best.cpu * 1e3, best.wall * 1e3,
	       (double)bytes / 1e6 / best.cpu, dd.cpu * 1e3, dd.wall * 1e3,
	       best.cpu / dd.cpu);
	fflush(stdout);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

int main(int argc, char **argv)
{
	static const char *const def[] = { "kns:8x8x8:8", "torus:8x8x8:8",
					   "torus:16x16x8:4" };
	char tmpl[] = "/tmp/bench_write.XXXXXX", *dir = NULL, path[4096];
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		dir = argv[2];
		i = 3;
	}
	if (!dir && !(dir = mkdtemp(tmpl))) {
		perror("bench_write: mkdtemp");
		return 1;
	}
	bench_say_order();
	printf("# dry-run files by kr_plan_write_dir into %s, best of 3 by CPU;"
	       " dd: the same bytes by write() of 1 MiB\n", dir);
	printf("%-22s %9s %8s %8s %8s %7s %7s %6s\n", "fabric", "MB", "cpu ms",
	       "wall ms", "MB/cpu-s", "dd cpu", "dd wall", "x dd");
	if (i == argc)
		for (size_t j = 0; j < sizeof(def) / sizeof(def[0]); j++)
			run(dir, def[j]);
	for (; i < argc; i++)
		run(dir, argv[i]);
	/* the files are large: nothing is left behind */
	snprintf(path, sizeof(path), "%s/out", dir);
	clear_dir(path);
	rmdir(path);
	if (dir == tmpl)
		rmdir(dir);
	return 0;
}
