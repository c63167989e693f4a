/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SL stability from sweep to sweep, as the plugin runs repair: the intact
 * fabric, then link a out, then a and b out (the tables in force handed
 * to each repair), then b back. For every CA pair whose route (the ports
 * it leaves switches by) is the same before and after a sweep, whether
 * its SL changed: applications keep the SLs of their PathRecords, so a
 * fault should move only pairs whose routes it changed. Random pairs of
 * inter-switch links (xorshift, fixed seed: repeatable); fault pairs that
 * leave some CA pair without a physical path are skipped. Every sweep's
 * tables must pass the check. An argument keeps only the rows whose label
 * contains it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr.h"
#include "bench_util.h"

#define PAIRS 40		/* fault pairs per fabric */

static void die(const char *label, const struct kr_diag *d)
{
	fprintf(stderr, "%s: %s\n", label, d->msg);
	exit(1);
}

/* One sweep's tables for f, prev in force. 1: some pair undelivered
 * (the faults disconnect the fabric), 0: proven. */
static int sweep(const struct kr_fabric *f, const struct kr_topo *t,
		 const struct kr_tables *prev, struct kr_tables *r,
		 const char *label)
{
	struct kr_conf c;
	struct kr_slvl p;
	struct kr_repair_stats st;
	struct kr_check_report rep;
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_tables_patch patch;
	struct kr_diag d = { 0 };
	int rc;

	kr_conf_init(&c);
	if (kr_route(f, t, &c, r, &d) || kr_slvl_plan(f, t, &c, r, &p, &d) ||
	    kr_repair(f, t, &c, &p, prev, r, &patch, &st, &d) ||
	    kr_tables_patch(r, &patch))
		die(label, &d);
	kr_slvl_free(&p);
	rc = kr_check_run(f, r, &o, &rep, &d);
	if (rep.delivered < rep.pairs) {
		kr_check_report_free(&rep);
		return 1;
	}
	if (rc)
		die(label, &d);
	kr_check_report_free(&rep);
	return 0;
}

/* The route from CA port src to dlid, as knsroute path follows it: a
 * hash of the ports it leaves switches by (0: not delivered). */
static uint64_t route_of(const struct kr_fabric *f, const struct kr_tables *t,
			 uint32_t src, unsigned dlid)
{
	uint64_t h = 1469598103934665603ull;
	struct kr_path p;

	if (kr_check_path(f, t, src, dlid, &p)) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (unsigned i = 0; i < p.nhop && p.fail < 0; i++)
		h = (h ^ (f->port0[p.hop[i].node] + p.hop[i].out)) *
		    1099511628211ull;
	if (p.fail >= 0)
		h = 0;
	kr_path_free(&p);
	return h;
}

struct tally {
	uint64_t same;		/* CA pairs whose route stayed */
	uint64_t same_moved;	/* of those, SL changed */
	uint64_t moved;		/* SL changed, any CA pair */
};

/* The routes of t on f into h, one per (CA port, LID). */
static void routes(const struct kr_fabric *f, const struct kr_tables *t,
		   uint64_t *h)
{
	uint32_t ca0 = f->port0[f->nsw];

	for (uint32_t s = ca0; s < f->nport; s++)
		for (unsigned lid = 1; lid <= f->max_lid; lid++)
			h[(size_t)(s - ca0) * (f->max_lid + 1) + lid] =
				route_of(f, t, s, lid);
}

/* Pairs from CA ports to CA LIDs, a's routes in ha, b's on f now. */
static void compare(const struct kr_fabric *f, const struct kr_tables *a,
		    const uint64_t *ha, const struct kr_tables *b,
		    struct tally *n)
{
	uint32_t ca0 = f->port0[f->nsw];

	for (uint32_t s = ca0; s < f->nport; s++) {
		if (!f->lid[s] || f->peer[s] < 0)
			continue;
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t d = kr_port_by_lid(f, lid);
			uint64_t h = ha[(size_t)(s - ca0) * (f->max_lid + 1) + lid];
			bool moved;

			if (d == KR_NONE || d == s || kr_is_switch(f, f->owner[d]))
				continue;
			moved = kr_tables_path_sl(a, f->lid[s], lid) !=
				kr_tables_path_sl(b, f->lid[s], lid);
			n->moved += moved;
			if (h && h == route_of(f, b, s, lid)) {
				n->same++;
				n->same_moved += moved;
			}
		}
	}
}

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void row(const char *label, const char *family, const char *dims,
		unsigned p)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct tally second = { 0 }, back = { 0 };
	uint32_t *link, nl = 0;
	uint64_t *ha, seed = 88172645463325252ull;
	unsigned used = 0, skipped = 0;

	bench_fabric(label, family, dims, p, &f, &t);
	link = malloc(f.nport * sizeof(*link));
	ha = malloc((size_t)(f.nport - f.port0[f.nsw]) * (f.max_lid + 1) *
		    sizeof(*ha));
	if (!link || !ha) {
		fprintf(stderr, "%s: out of memory\n", label);
		exit(1);
	}
	for (uint32_t s = 0; s < f.port0[f.nsw]; s++) {
		int32_t q = f.peer[s];

		if (q > (int32_t)s && kr_is_switch(&f, f.owner[q]) &&
		    f.owner[q] != f.owner[s])
			link[nl++] = s;
	}
	while (used < PAIRS && used + skipped < 4 * PAIRS) {
		uint32_t a = link[next_rand(&seed) % nl];
		uint32_t b = link[next_rand(&seed) % nl];
		int32_t pa = f.peer[a], pb = f.peer[b];
		struct kr_tables r0, ra, rab, rb;
		int bad;

		if (a == b)
			continue;
		sweep(&f, &t, NULL, &r0, label);
		f.peer[a] = f.peer[pa] = -1;
		bad = sweep(&f, &t, &r0, &ra, label);
		routes(&f, &ra, ha);
		f.peer[b] = f.peer[pb] = -1;
		bad |= sweep(&f, &t, &ra, &rab, label);
		if (!bad)
			compare(&f, &ra, ha, &rab, &second);
		routes(&f, &rab, ha);
		f.peer[b] = pb;
		f.peer[pb] = (int32_t)b;
		bad |= sweep(&f, &t, &rab, &rb, label);
		if (!bad)
			compare(&f, &rab, ha, &rb, &back);
		f.peer[a] = pa;
		f.peer[pa] = (int32_t)a;
		used += !bad;
		skipped += bad;
		kr_tables_free(&r0);
		kr_tables_free(&ra);
		kr_tables_free(&rab);
		kr_tables_free(&rb);
	}
	printf("| %s | %u | %llu | %llu | %llu | %llu | %llu | %llu |\n", label,
	       used, (unsigned long long)second.same,
	       (unsigned long long)second.same_moved,
	       (unsigned long long)second.moved,
	       (unsigned long long)back.same,
	       (unsigned long long)back.same_moved,
	       (unsigned long long)back.moved);
	fflush(stdout);
	free(link);
	free(ha);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *label, *family, *dims;
		unsigned p;
	} rows[] = {
		{ "kns 4x4 p2", "kns", "4x4", 2 },
		{ "kns 4x4x4 p1", "kns", "4x4x4", 1 },
		{ "kns 6x6 p3", "kns", "6x6", 3 },
		{ "torus 6x6 p2", "torus", "6x6", 2 },
		{ "torus 4x4x4 p1", "torus", "4x4x4", 1 },
		{ "torus 5x5x3 p2", "torus", "5x5x3", 2 },
	};
	const char *only = argc > 1 ? argv[1] : NULL;

	bench_say_order();
	printf("Link a out, then a and b (second), then b back (back): CA "
	       "pairs on the same route\nbefore and after, how many of them "
	       "changed SL, and all pairs that changed SL.\n\n");
	printf("| fabric | fault pairs | second: same route | SL changed "
	       "| SL changed, all | back: same route | SL changed | SL "
	       "changed, all |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!only || strstr(rows[i].label, only))
			row(rows[i].label, rows[i].family, rows[i].dims,
			    rows[i].p);
	return 0;
}
