/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Checker speed, two tables.
 *
 * minhop: KNS and tori from 1K to 16K CAs, generated with kr_gen, LFTs
 * filled by a plain BFS min-hop routing (lowest port number among the
 * shortest ways), every SL on VL 0. Prints pairs/s and the CDG size; then
 * the same check with NGROUPS multicast groups, every CA a member of each,
 * trees breadth-first from spread-out roots (OpenSM's default shape).
 *
 * engine: the tables knsroute itself makes (kr_plan_build without its
 * check: routes, SLs per DLID, SL2VL maps), checked as the plan checks
 * them. Prints LFT entries (switches x (max LID + 1)) per CPU second, best
 * of three: the machine is shared, CPU time is what the check costs.
 *
 * mcast: the same tables and plan with NGROUPS groups of every CA port,
 * knsroute's own trees (kr_plan_add_group), as the plugin proves them at
 * the end of a pass over the groups: the full check of unicast and the
 * trees, and the trees alone against the plan's proof of unicast
 * (kr_check_mcast_incremental). CPU ms, best of three.
 *
 *   bench/bench_check [all|minhop|engine|mcast] [NAME-PREFIX]
 *                                                  (default all) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr.h"
#include "bench_util.h"

struct bench_case {
	const char *name;
	struct kr_gen_opts o;
};

#define KNS(kk, nn, pp) { .family = KR_FAMILY_KNS, .ndim = nn, \
	.k = { kk, kk, kk }, .p = pp, .parallel = 1, .assign_lids = 1 }
#define TORUS(a, b, c, pp) { .family = KR_FAMILY_TORUS, .ndim = 3, \
	.k = { a, b, c }, .wrap = { 1, 1, 1 }, .p = pp, .parallel = 1, \
	.assign_lids = 1 }

static const struct bench_case cases[] = {
	{ "kns k8 n3 p2", KNS(8, 3, 2) },
	{ "kns k8 n3 p8", KNS(8, 3, 8) },
	{ "kns k8 n3 p32", KNS(8, 3, 32) },
	{ "torus 8x8x8 p2", TORUS(8, 8, 8, 2) },
	{ "torus 8x8x8 p8", TORUS(8, 8, 8, 8) },
	{ "torus 16x16x16 p4", TORUS(16, 16, 16, 4) },
};

/* BFS from switch d over switch-switch links; dist in hops. */
static void bfs(const struct kr_fabric *f, uint32_t d, uint32_t *dist,
		uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	memset(dist, 0xff, f->nsw * sizeof(*dist));
	dist[d] = 0;
	queue[tail++] = d;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
			uint32_t v;

			if (f->peer[s] < 0)
				continue;
			v = f->owner[f->peer[s]];
			if (kr_is_switch(f, v) && dist[v] == KR_NONE) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

/* The switch a LID's port hangs off, and the port there. */
static uint32_t lid_switch(const struct kr_fabric *f, unsigned lid,
			   unsigned *port)
{
	uint32_t slot = f->lid_port[lid], peer;

	if (kr_is_switch(f, f->owner[slot])) {
		*port = 0;
		return f->owner[slot];
	}
	peer = (uint32_t)f->peer[slot];
	*port = kr_port_num(f, peer);
	return f->owner[peer];
}

static int route_minhop(const struct kr_fabric *f, struct kr_tables *t)
{
	uint32_t *dist = malloc(f->nsw * sizeof(*dist));
	uint32_t *queue = malloc(f->nsw * sizeof(*queue));
	uint8_t *toward = malloc(f->nsw);	/* port towards switch d */

	if (!dist || !queue || !toward ||
	    kr_tables_init(t, f, f->max_lid + 1, 0, 0))
		return KR_ENOMEM;
	for (uint32_t d = 0; d < f->nsw; d++) {
		bfs(f, d, dist, queue);
		for (uint32_t sw = 0; sw < f->nsw; sw++) {
			toward[sw] = KR_NO_PORT;
			for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
				if (f->peer[s] >= 0 && dist[sw] != KR_NONE &&
				    kr_is_switch(f, f->owner[f->peer[s]]) &&
				    dist[f->owner[f->peer[s]]] + 1 == dist[sw]) {
					toward[sw] = (uint8_t)kr_port_num(f, s);
					break;
				}
		}
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			unsigned port;

			if (f->lid_port[lid] == KR_NONE ||
			    lid_switch(f, lid, &port) != d)
				continue;
			for (uint32_t sw = 0; sw < f->nsw; sw++)
				t->lft[(size_t)sw * t->stride + lid] =
					sw == d ? (uint8_t)port : toward[sw];
		}
	}
	free(dist);
	free(queue);
	free(toward);
	return KR_OK;
}

#define NGROUPS 16

/* Group i: the breadth-first tree from switch i * nsw / NGROUPS, with the
 * switch's queue as the BFS order; every CA port behind a tree switch. */
static int add_groups(const struct kr_fabric *f, struct kr_tables *t)
{
	uint32_t *queue = malloc(f->nsw * sizeof(*queue));
	uint8_t *seen = malloc(f->nsw);

	t->mgroup = calloc(NGROUPS, sizeof(*t->mgroup));
	if (!queue || !seen || !t->mgroup)
		return KR_ENOMEM;
	t->nmgroup = NGROUPS;
	for (unsigned i = 0; i < NGROUPS; i++) {
		struct kr_mgroup *g = &t->mgroup[i];
		uint32_t nq = 0;

		g->mlid = (uint16_t)(0xc000 + i);
		g->sl_given = 1;
		g->ports = calloc((size_t)f->nsw * KR_MCAST_WORDS,
				  sizeof(uint64_t));
		if (!g->ports)
			return KR_ENOMEM;
		memset(seen, 0, f->nsw);
		queue[nq++] = (uint32_t)((uint64_t)i * f->nsw / NGROUPS);
		seen[queue[0]] = 1;
		for (uint32_t h = 0; h < nq; h++) {
			uint32_t u = queue[h];

			for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
				uint32_t v, p = kr_port_num(f, s);

				if (f->peer[s] < 0)
					continue;
				v = f->owner[f->peer[s]];
				if (kr_is_switch(f, v) && seen[v])
					continue;
				g->ports[(size_t)u * KR_MCAST_WORDS + p / 64] |=
					1ull << p % 64;
				if (!kr_is_switch(f, v))
					continue;
				p = kr_port_num(f, (uint32_t)f->peer[s]);
				g->ports[(size_t)v * KR_MCAST_WORDS + p / 64] |=
					1ull << p % 64;
				seen[v] = 1;
				queue[nq++] = v;
			}
		}
	}
	free(queue);
	free(seen);
	return KR_OK;
}

static void print_row(const char *name, const struct kr_fabric *f,
		      const struct kr_check_report *r, double secs, int rc)
{
	printf("%-20s %6u %5u %12llu %8.3f %12.3g %9llu %9llu  %s\n", name,
	       f->nnode - f->nsw, f->nsw, (unsigned long long)r->pairs, secs,
	       (double)r->pairs / secs, (unsigned long long)r->channels,
	       (unsigned long long)(r->deps + r->mcast_deps),
	       rc == KR_OK ? "clean" : rc == KR_ECYCLE ? "credit loop"
						      : kr_strerror(rc));
	fflush(stdout);
}

static void run_case(const struct bench_case *c)
{
	char name[64];
	struct kr_check_opts o = { 0 };
	struct kr_check_report r;
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_diag d = { 0 };
	struct kr_gen_opts go = c->o;
	double t0, t1;
	int rc;

	bench_gen(c->name, &go, &f);
	if (route_minhop(&f, &t)) {
		fprintf(stderr, "%s: out of memory\n", c->name);
		exit(1);
	}
	t0 = bench_now();
	rc = kr_check_run(&f, &t, &o, &r, &d);
	t1 = bench_now();
	print_row(c->name, &f, &r, t1 - t0, rc);
	kr_check_report_free(&r);
	if (add_groups(&f, &t)) {
		fprintf(stderr, "%s: out of memory\n", c->name);
		exit(1);
	}
	t0 = bench_now();
	rc = kr_check_run(&f, &t, &o, &r, &d);
	t1 = bench_now();
	snprintf(name, sizeof(name), " + %u groups", NGROUPS);
	print_row(name, &f, &r, t1 - t0, rc);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static const struct bench_case engine_cases[] = {
	{ "torus 8x8x8 p2", TORUS(8, 8, 8, 2) },
	{ "kns k8 n3 p8", KNS(8, 3, 8) },
	{ "torus 8x8x8 p8", TORUS(8, 8, 8, 8) },
	{ "kns k10 n3 p10", KNS(10, 3, 10) },
	{ "torus 16x16x8 p4", TORUS(16, 16, 8, 4) },
};

static void run_engine_case(const struct bench_case *c)
{
	struct kr_check_opts o = { .max_examples = 3 };
	struct kr_check_report r;
	struct kr_cdg *proof = NULL;
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_plan p;
	double t0, best = 1e9, entries;
	int rc = KR_OK;

	bench_plan(c->name, &c->o, &f, &p);
	o.keep = &proof;	/* as the plan checks: the graph is kept */
	for (int i = 0; i < 3; i++) {
		t0 = bench_cpu_now();
		rc = kr_check_run(&f, &p.tables, &o, &r, &d);
		if (bench_cpu_now() - t0 < best)
			best = bench_cpu_now() - t0;
		kr_check_graph_free(proof);
		if (i < 2)
			kr_check_report_free(&r);
	}
	entries = (double)f.nsw * (f.max_lid + 1);
	printf("%-20s %6u %5u %10.0f %9.1f %9.1f %9llu %9llu  %s\n", c->name,
	       f.nnode - f.nsw, f.nsw, entries, best * 1e3,
	       entries / best / 1e6, (unsigned long long)r.channels,
	       (unsigned long long)r.deps,
	       rc == KR_OK ? "clean" : kr_strerror(rc));
	fflush(stdout);
	kr_check_report_free(&r);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* Best of three CPU seconds of the full check (proof NULL) or of the
 * trees against proof; the verdict in *rc. */
static double time_mcast(const struct kr_fabric *f, const struct kr_plan *p,
			 struct kr_cdg *proof, int *rc)
{
	struct kr_check_opts o = { .max_examples = 3 };
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	double best = 1e9;

	for (int i = 0; i < 3; i++) {
		double t0 = bench_cpu_now();

		*rc = proof ? kr_check_mcast_incremental(f, &p->tables, proof,
							 &r, &d)
			    : kr_check_run(f, &p->tables, &o, &r, &d);
		if (bench_cpu_now() - t0 < best)
			best = bench_cpu_now() - t0;
		kr_check_report_free(&r);
	}
	return best;
}

static void run_mcast_case(const struct bench_case *c)
{
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_conf conf;
	struct kr_mcast_info info;
	struct kr_gen_opts go = c->o;
	uint32_t *member, n = 0;
	double full, incr;
	int rc_full, rc_incr;

	kr_conf_init(&conf);
	bench_gen(c->name, &go, &f);
	if (kr_plan_build(&f, &conf, &p, &d)) {
		fprintf(stderr, "%s: %s\n", c->name, d.msg);
		exit(1);
	}
	member = malloc(((size_t)f.nport + 1) * sizeof(*member));
	for (uint32_t s = 0; member && s < f.nport; s++)
		if (!kr_is_switch(&f, f.owner[s]) && f.peer[s] >= 0 && f.lid[s])
			member[n++] = s;
	for (unsigned i = 0; member && i < NGROUPS; i++)
		if (kr_plan_add_group(&f, &p, 0xc000 + i, 0, member, n, &info,
				      &d)) {
			fprintf(stderr, "%s: %s\n", c->name, d.msg);
			exit(1);
		}
	if (!member || !p.proof) {
		fprintf(stderr, "%s: no memory, or the plan kept no proof\n",
			c->name);
		exit(1);
	}
	full = time_mcast(&f, &p, NULL, &rc_full);
	incr = time_mcast(&f, &p, p.proof, &rc_incr);
	printf("%-20s %6u %5u %6u %9.1f %9.2f %8.0fx  %s, %s\n", c->name,
	       f.nnode - f.nsw, f.nsw, NGROUPS, full * 1e3, incr * 1e3,
	       full / incr, rc_full == KR_OK ? "clean" : kr_strerror(rc_full),
	       rc_incr == KR_OK ? "clean" : kr_strerror(rc_incr));
	fflush(stdout);
	free(member);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

static bool picked(const char *name, const char *prefix)
{
	return !prefix || !strncmp(name, prefix, strlen(prefix));
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "all";
	const char *prefix = argc > 2 ? argv[2] : NULL;

	bool all = !strcmp(which, "all");

	if (!all && strcmp(which, "minhop") && strcmp(which, "engine") &&
	    strcmp(which, "mcast")) {
		fprintf(stderr, "usage: bench_check [all|minhop|engine|mcast] "
			"[NAME-PREFIX]\n");
		return 2;
	}
	bench_say_order();
	if (all || !strcmp(which, "minhop")) {
		printf("%-20s %6s %5s %12s %8s %12s %9s %9s  %s\n", "minhop",
		       "CAs", "sw", "pairs", "time/s", "pairs/s", "channels",
		       "deps", "verdict");
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (picked(cases[i].name, prefix))
				run_case(&cases[i]);
	}
	if (all || !strcmp(which, "engine")) {
		printf("%s%-20s %6s %5s %10s %9s %9s %9s %9s  %s\n",
		       all ? "\n" : "", "engine", "CAs", "sw",
		       "entries", "CPU ms", "Mentry/s", "channels", "deps",
		       "verdict");
		for (size_t i = 0; i < sizeof(engine_cases) /
				       sizeof(engine_cases[0]); i++)
			if (picked(engine_cases[i].name, prefix))
				run_engine_case(&engine_cases[i]);
	}
	if (all || !strcmp(which, "mcast")) {
		printf("%s%-20s %6s %5s %6s %9s %9s %9s  %s\n", all ? "\n" : "",
		       "mcast pass", "CAs", "sw", "groups", "full ms",
		       "trees ms", "speedup", "verdicts (full, trees)");
		for (size_t i = 0; i < sizeof(engine_cases) /
				       sizeof(engine_cases[0]); i++)
			if (picked(engine_cases[i].name, prefix))
				run_mcast_case(&engine_cases[i]);
	}
	return 0;
}
