/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Topology parse speed: fabrics from the generator, written in the
 * ibnetdiscover dialect to memory, parsed from memory (no file I/O), best of
 * five runs, in input lines and megabytes per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr.h"
#include "bench_util.h"

static char *write_fabric(const struct kr_gen_opts *o, size_t *len,
			  uint32_t *nnode)
{
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	char *mem = NULL;
	FILE *fp = open_memstream(&mem, len);

	if (!fp || kr_gen(o, &f, NULL, NULL, NULL, &d)) {
		fprintf(stderr, "bench_parse: %s\n", fp ? d.msg : "open_memstream");
		exit(1);
	}
	if (kr_net_write(fp, &f) || fclose(fp)) {
		fprintf(stderr, "bench_parse: write failed\n");
		exit(1);
	}
	*nnode = f.nnode;
	kr_fabric_free(&f);
	return mem;
}

static void run(const char *label, const struct kr_gen_opts *o)
{
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	double best = 1e9;
	size_t len, lines = 0;
	uint32_t nnode;
	char *text = write_fabric(o, &len, &nnode);

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	for (int i = 0; i < 5; i++) {
		double t0 = bench_now(), t;

		if (kr_net_parse(text, len, label, &f, &d)) {
			fprintf(stderr, "%s:%u: %s\n", label, d.line, d.msg);
			exit(1);
		}
		t = bench_now() - t0;
		if (t < best)
			best = t;
		kr_fabric_free(&f);
	}
	printf("%-32s %7u %8zu %7.2f %8.2f %11.0f %8.1f\n", label, nnode, lines,
	       (double)len / 1e6, best * 1e3, (double)lines / best,
	       (double)len / 1e6 / best);
	free(text);
}

int main(void)
{
	struct kr_gen_opts kns = { .family = KR_FAMILY_KNS, .ndim = 3,
				   .k = { 8, 8, 8 }, .p = 4, .parallel = 1,
				   .assign_lids = 1 };
	struct kr_gen_opts torus = { .family = KR_FAMILY_TORUS, .ndim = 3,
				     .k = { 16, 16, 16 }, .wrap = { 1, 1, 1 },
				     .p = 2, .parallel = 1, .assign_lids = 1 };

	printf("%-32s %7s %8s %7s %8s %11s %8s\n", "fabric (gen, --lids)",
	       "nodes", "lines", "MB", "best ms", "lines/s", "MB/s");
	run("kns --k 8 --n 3 --p 4", &kns);
	run("torus --dims 16x16x16 --p 2", &torus);
	return 0;
}
