/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute faults: how well the repair copes with random faults, measured.
 *
 * The fabric is recognised and planned once, intact. Each trial then cuts
 * F random inter-switch links (or takes F random switches out: every link
 * they have, CA links included, and their LID), runs route -> SL/VL plan ->
 * repair -> check on what is left with the intact fabric's labels (faults
 * never change them), sums up how the pairs were routed and puts the links
 * back. A trial's fault set depends on the seed and its number alone, so
 * the same seed gives the same figures and -v names each trial's faults. */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "faults.h"
#include "kr_plan.h"
#include "plan_opts.h"

static void faults_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute faults TOPOLOGY (--random F | --switches F) [--trials T]\n"
"                       [--seed S] [--max-intermediates N] [--mcast]\n"
"                       [--json] [-q] [-v] [plan options]\n"
"\n"
"Fault experiments: recognises and plans TOPOLOGY once, intact, then in\n"
"each of T trials removes F random inter-switch links (--random; every\n"
"link between two switches equally likely, parallel links counted one by\n"
"one) or F random switches (--switches: all their links, CA links\n"
"included, and their LID), runs routing, the SL/VL plan, fault repair and\n"
"the full check on what is left, and restores the fabric. Trial i's faults\n"
"depend only on S and i: the same seed gives the same figures.\n"
"\n"
"A trial is disconnected when some two LIDs (CA ports, switches still in\n"
"the fabric) have no path between them any more; a CA whose switch was\n"
"removed is disconnected. Connected trials count as handled when repair\n"
"and check succeed: with at most one intermediate router per repaired\n"
"path (le1), at most two (le2), or at all (total: general repair and\n"
"up*/down* allowed). A destination moved to a layer of repaired trees (its\n"
"routes on an SL and VL of their own, the thesis' extra virtual channel)\n"
"keeps its kind of route; pairs_sl_changed counts it.\n"
"\n"
"Options:\n"
"  --random F           remove F random inter-switch links per trial\n"
"  --switches F         remove F random switches per trial instead\n"
"  --trials T           trials (default 100)\n"
"  --seed S             seed of the fault sets (default 1)\n"
"  --max-intermediates N  intermediate routers per path before the general\n"
"                       repair (0-2; default: knsroute.conf's, else 2)\n"
"  --mcast              each trial's check includes a multicast group of\n"
"                       every CA port on SL 0 (as IPoIB's broadcast group),\n"
"                       its tree from the faulty fabric's forest, as the\n"
"                       plugin proves trees and unicast together; with\n"
"                       --sm-lid the SA's traffic too (exit 2 up front\n"
"                       when the plan cannot make SL 0 safe for it)\n"
"  --json               one JSON object instead of the text lines\n"
"  -q, --quiet          no progress lines on stderr (else one every ~2 s)\n"
"  -v, --verbose        one line per trial on stderr: faults and outcome\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                       map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help           this text\n"
"Plan options, as for knsroute route (--no-check is refused: the check is\n"
"each trial's verdict):\n"
PLAN_OPTIONS_HELP
"\n");
	fprintf(out,
"Figures (text: one \"key value\" line each; JSON: the same keys):\n"
"  fabric, faults, fault_kind (links, switches), trials, seed,\n"
"  max_intermediates, mcast (1: --mcast)\n"
"  connected_trials, disconnected   trials, and share of trials, with\n"
"                                   some LIDs physically cut apart\n"
"  handled_le1_intermediate, handled_le2_intermediates, handled_total\n"
"                                   shares of the connected trials (null\n"
"                                   when there are none)\n"
"  routable_le1_intermediate, routable_le2_intermediates\n"
"                                   the thesis' measure, independent of the\n"
"                                   repair: connected trials in which every\n"
"                                   cut CA pair has a dimension-order route\n"
"                                   through at most 1 (2) intermediate grid\n"
"                                   switches; credit loops not considered\n"
"  failures                         connected trials whose repair or check\n"
"                                   failed; first_failure: the first one's\n"
"                                   trial, faults and reason (or null)\n"
"  failures_disconnected            disconnected trials whose repair failed\n"
"  disconnected_handled             disconnected trials that still passed\n"
"                                   (only removed switches' CAs were lost)\n"
"  pairs                            CA-to-CA pairs, summed over the trials\n"
"                                   whose repair completed\n"
"  paths_1_intermediate, paths_2_intermediates, paths_general_repair,\n"
"  paths_detour_layer (up*/down*), pairs_disconnected, pairs_sl_changed,\n"
"  pairs_stale_unsafe               shares of those pairs\n"
"  dests_detour_layer, dests_updn_layer\n"
"                                   shares of destination LIDs (switches\n"
"                                   included) moved off their SL to a detour\n"
"                                   layer, and routed up*/down* there\n"
"  vls_used_max                     highest VL any checked trial used + 1\n"
"  stretch_mean, stretch_max        repaired paths' hops over the shortest\n"
"                                   live path (1 when nothing was repaired)\n"
"  extra_hops_mean, extra_hops_max  the same as a difference of hops\n"
"  link_load_max_ratio              busiest link of any trial over the\n"
"                                   intact plan's (link_load_max_intact)\n"
"  link_load_mean_ratio             the same, busiest link of each checked\n"
"                                   trial, averaged over them\n"
"  repair_ms_mean, repair_ms_max, trial_ms_mean   wall times\n"
"\n"
"Exit status: 0 every connected trial was handled, 1 some were not (or\n"
"the intact fabric fails the check, or is not KNS, torus or mesh), 2 usage\n"
"or input error.\n");
}

enum { OPT_RANDOM = 400, OPT_SWITCHES, OPT_TRIALS, OPT_SEED, OPT_MAXINT,
       OPT_JSON, OPT_MCAST };

static int parse_args(int argc, char **argv, struct faults_args *a)
{
	static const struct option opts[] = {
		{ "random", required_argument, NULL, OPT_RANDOM },
		{ "switches", required_argument, NULL, OPT_SWITCHES },
		{ "trials", required_argument, NULL, OPT_TRIALS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "max-intermediates", required_argument, NULL, OPT_MAXINT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "mcast", no_argument, NULL, OPT_MCAST },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		PLAN_OPTIONS,
		{ 0 }
	};
	int c;

	*a = (struct faults_args){ .trials = 100, .seed = 1, .max_int = -1 };
	plan_opts_init(&a->po);
	while ((c = getopt_long(argc, argv, "c:qvh", opts, NULL)) != -1) {
		if (plan_opts_take(&a->po, "faults", c, optarg))
			continue;
		switch (c) {
		case OPT_RANDOM:
		case OPT_SWITCHES:
			if (a->given++)
				return cli_usage_error("faults", "give one of "
						       "--random and --switches, once");
			a->switches = c == OPT_SWITCHES;
			a->nfault = (uint32_t)cli_number("faults", a->switches ?
				"--switches" : "--random", optarg, 0, UINT32_MAX);
			break;
		case OPT_TRIALS:
			a->trials = (uint32_t)cli_number("faults", "--trials",
							 optarg, 1, 10000000);
			break;
		case OPT_SEED:
			a->seed = cli_number("faults", "--seed", optarg, 0, ULONG_MAX);
			break;
		case OPT_MAXINT:
			a->max_int = (int)cli_number("faults", "--max-intermediates",
						     optarg, 0, 2);
			break;
		case OPT_JSON: a->json = 1; cli_json_errors(); break;
		case OPT_MCAST: a->mcast = 1; break;
		case 'q': a->quiet = 1; break;
		case 'v': a->verbose = 1; break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': faults_usage(stdout); exit(cli_flush_stdout(0));
		default: return cli_usage_error("faults", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("faults", "expected one TOPOLOGY file");
	a->topo = argv[optind];
	if (!a->given)
		return cli_usage_error("faults", "--random F or --switches F "
				       "is required");
	if (a->po.no_check)
		return cli_usage_error("faults", "--no-check: the check is what "
				       "tells whether a trial was handled");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Fault sets                                                         */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t *s)
{
	return mix64(*s += 0x9e3779b97f4a7c15ull);
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static uint32_t below(uint64_t *s, uint32_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = splitmix64(s);
	while (x >= lim);
	return (uint32_t)(x % n);
}

static int has_place(const struct kr_topo *t, uint32_t sw)
{
	return t->sw_pos[sw] != KR_NONE ||
	       (t->sw_xdim && t->sw_xdim[sw] != KR_NO_DIM);
}

/* What a trial may remove: each switch-to-switch link once (by its lower
 * slot), or each switch with a place in the recognised fabric. */
static void list_candidates(struct bench *b)
{
	const struct kr_fabric *f = b->f;

	b->ncand = 0;
	if (b->switches) {
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			if (has_place(b->topo, sw))
				b->cand[b->ncand++] = sw;
		return;
	}
	for (uint32_t s = f->port0[0]; s < f->port0[f->nsw]; s++) {
		int32_t p = f->peer[s];

		if (p > (int32_t)s && s != f->port0[f->owner[s]] &&
		    kr_is_switch(f, f->owner[p]))
			b->cand[b->ncand++] = s;
	}
}

static void unlink_slot(struct kr_fabric *f, uint32_t s)
{
	if (f->peer[s] >= 0)
		f->peer[f->peer[s]] = -1;
	f->peer[s] = -1;
}

/* The switch leaves the fabric: no links, no LID (the SM would not see it,
 * so nothing routes to it). */
static void remove_switch(struct kr_fabric *f, uint32_t sw)
{
	uint32_t s0 = f->port0[sw];
	unsigned lid = f->lid[s0];

	for (unsigned p = 1; p <= f->nports[sw]; p++)
		unlink_slot(f, s0 + p);
	for (unsigned l = lid; lid && l < lid + (1u << f->lmc[s0]); l++)
		f->lid_port[l] = KR_NONE;
	f->lid[s0] = 0;
}

/* Trial i's fault set: a partial Fisher-Yates shuffle of the candidates,
 * drawn from splitmix64 started at a mix of the seed and i alone. */
static void inject(struct bench *b, uint32_t trial)
{
	uint64_t s = mix64(mix64(b->seed) + trial);

	memcpy(b->pick, b->cand, b->ncand * sizeof(*b->pick));
	for (uint32_t i = 0; i < b->nfault; i++) {
		uint32_t j = i + below(&s, b->ncand - i), x = b->pick[i];

		b->pick[i] = b->pick[j];
		b->pick[j] = x;
		if (b->switches)
			remove_switch(b->f, b->pick[i]);
		else
			unlink_slot(b->f, b->pick[i]);
	}
}

static void restore(struct bench *b)
{
	struct kr_fabric *f = b->f;

	memcpy(f->peer, b->peer0, f->nport * sizeof(*f->peer));
	for (uint32_t i = 0; b->switches && i < b->nfault; i++) {
		uint32_t s0 = f->port0[b->pick[i]];
		unsigned lid = b->swlid[b->pick[i]];

		f->lid[s0] = (uint16_t)lid;
		for (unsigned l = lid; lid && l < lid + (1u << f->lmc[s0]); l++)
			f->lid_port[l] = s0;
	}
}

/* ------------------------------------------------------------------ */
/* One trial                                                          */

/* Components of the live switch graph, by their first switch. */
static void components(struct bench *b)
{
	const struct kr_fabric *f = b->f;

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		b->comp[sw] = KR_NONE;
	for (uint32_t root = 0; root < f->nsw; root++) {
		uint32_t head = 0, tail = 0;

		if (b->comp[root] != KR_NONE)
			continue;
		b->comp[root] = root;
		b->queue[tail++] = root;
		while (head < tail) {
			uint32_t u = b->queue[head++];

			for (unsigned p = 1; p <= f->nports[u]; p++) {
				int32_t q = f->peer[f->port0[u] + p];
				uint32_t v = q < 0 ? KR_NONE : f->owner[q];

				if (v == KR_NONE || !kr_is_switch(f, v) ||
				    b->comp[v] != KR_NONE)
					continue;
				b->comp[v] = root;
				b->queue[tail++] = v;
			}
		}
	}
}

/* 1 when every LID owner still in the fabric (switch port 0, CA port that
 * was linked to a switch) sits in one component of the live graph. */
static int connected(struct bench *b)
{
	const struct kr_fabric *f = b->f;
	uint32_t want = KR_NONE;

	components(b);
	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t n = f->owner[s], sw;

		if (!f->lid[s])
			continue;
		if (kr_is_switch(f, n)) {
			if (s != f->port0[n])
				continue;
			sw = n;
		} else {
			if (b->peer0[s] < 0 ||
			    !kr_is_switch(f, f->owner[b->peer0[s]]))
				continue;
			if (f->peer[s] < 0)
				return 0;	/* its switch was removed */
			sw = f->owner[f->peer[s]];
		}
		if (want == KR_NONE)
			want = b->comp[sw];
		else if (b->comp[sw] != want)
			return 0;
	}
	return 1;
}

/* Every linked CA port with a LID as one group on SL 0, its tree cut out
 * of the faulty fabric's forest (rooted where the SM is, as the repair's
 * detour layer), into t: what the plugin proves with IPoIB's broadcast
 * group. */
static int broadcast_group(const struct bench *b, const struct kr_slvl *sl,
			   struct kr_tables *t, struct kr_diag *d)
{
	const struct kr_fabric *f = b->f;
	struct kr_plan p = { .tables = *t, .slvl = *sl };
	struct kr_mcast_info info;
	uint32_t *m = malloc(((size_t)f->nport + 1) * sizeof(*m));
	size_t n = 0;
	int rc = m ? KR_OK : kr_fail(d, KR_ENOMEM, 0, "out of memory");

	for (uint32_t s = f->port0[f->nsw]; m && s < f->nport; s++)
		if (f->lid[s] && f->peer[s] >= 0)
			m[n++] = s;
	if (!rc)
		rc = kr_mtree_build(f, b->topo, t->sm_lid, &p.mtree, d);
	if (!rc)
		rc = kr_plan_add_group(f, &p, KR_MLID_FIRST, 0, m, n, &info, d);
	*t = p.tables;		/* the group's slot, whatever came of it */
	kr_mtree_free(&p.mtree);
	free(m);
	return rc;
}

/* What kr_plan_build does after recognition, on the faulty fabric with
 * the intact fabric's labels. */
static void pipeline(struct bench *b, struct outcome *o)
{
	struct kr_tables t = { 0 };
	struct kr_tables_patch patch;
	struct kr_slvl sl = { 0 };
	struct kr_check_report rep = { 0 };
	struct kr_check_opts co = { 0 };
	struct kr_diag d = { 0 };
	double t0 = kr_now_ms();
	int rc;

	o->failed = KR_PHASE_ROUTE;
	rc = kr_route(b->f, b->topo, b->c, &t, &d);
	if (!rc && o->connected)
		faults_thesis_measure(b, &t, &o->routable1, &o->routable2);
	if (!rc) {
		o->failed = KR_PHASE_SLVL;
		rc = kr_slvl_plan(b->f, b->topo, b->c, &t, &sl, &d);
	}
	if (!rc) {
		o->failed = KR_PHASE_REPAIR;
		o->repair_ran = 1;
		rc = kr_repair(b->f, b->topo, b->c, &sl, NULL, &t, &patch,
			       &o->st, &d);
		if (!rc)
			rc = kr_tables_patch(&t, &patch);
		/* the labels are the intact fabric's, so kr_repair's count of
		 * recognised faults is 0: the trial knows its own */
		o->st.faults = b->nfault;
	}
	if (!rc) {
		o->repaired = 1;
		o->failed = KR_PHASE_CHECK;
		if (b->mcast)
			rc = broadcast_group(b, &sl, &t, &d);
	}
	if (!rc) {
		rc = kr_check_run(b->f, &t, &co, &rep, &d);
		o->checked = rc != KR_ENOMEM;
		o->vls = rep.max_vl + 1;
		o->load_max = rep.load_max;
	}
	if (!rc)
		o->failed = KR_NPHASE;
	else
		/* one per trial, so kept short; a trial is rerun to see
		 * the rest */
		snprintf(o->msg, sizeof(o->msg), "%s: %.280s",
			 kr_phase_name(o->failed), d.msg);
	o->oom = rc == KR_ENOMEM;
	kr_check_report_free(&rep);
	kr_slvl_free(&sl);
	kr_tables_free(&t);
	o->ms = kr_now_ms() - t0;
}

/* ------------------------------------------------------------------ */
/* Run                                                                */

static void print_trial(const struct bench *b, uint32_t trial,
			const struct outcome *o)
{
	char faults[1500], rep[512] = "";

	fmt_faults(b, faults, sizeof(faults));
	if (o->repaired)
		kr_repair_describe(rep, sizeof(rep), &o->st, "; ");
	fprintf(stderr, "knsroute faults: trial %" PRIu32 ": %s; %s; %s; "
		"%.1f ms%s%s\n", trial, faults, !o->connected ? "disconnected" :
		o->routable1 ? "connected, routable via 1 intermediate" :
		o->routable2 ? "connected, routable via 2 intermediates" :
		"connected, not routable via 2 intermediates",
		o->failed == KR_NPHASE ? "handled" : o->msg, o->ms,
		*rep ? "\n  repair: " : "", rep);
}

static int run_loop(const struct faults_args *a, struct bench *b,
		    struct tally *ta)
{
	double last = kr_now_ms();

	for (uint32_t i = 0; i < a->trials; i++) {
		struct outcome o = { 0 };

		inject(b, i);
		o.connected = connected(b);
		pipeline(b, &o);
		restore(b);
		if (o.oom) {
			fprintf(stderr, "knsroute faults: trial %" PRIu32
				": out of memory\n", i);
			return EXIT_USAGE;
		}
		tally_add(ta, b, i, &o);
		if (a->verbose)
			print_trial(b, i, &o);
		if (!a->quiet && kr_now_ms() - last >= 2000) {
			last = kr_now_ms();
			fprintf(stderr, "knsroute faults: trial %" PRIu32 "/%"
				PRIu32 "\n", i + 1, a->trials);
		}
	}
	return 0;
}

static int bench_init(struct bench *b)
{
	const struct kr_fabric *f = b->f;
	size_t ncand = (f->nport > f->nsw ? f->nport : f->nsw) + 1;
	size_t words = f->nsw / 64 + 1;

	b->peer0 = malloc(((size_t)f->nport + 1) * sizeof(*b->peer0));
	b->swlid = malloc(((size_t)f->nsw + 1) * sizeof(*b->swlid));
	b->cand = malloc(ncand * sizeof(*b->cand));
	b->pick = malloc(ncand * sizeof(*b->pick));
	b->comp = malloc(((size_t)f->nsw + 1) * sizeof(*b->comp));
	b->queue = malloc(((size_t)f->nsw + 1) * sizeof(*b->queue));
	b->isw = malloc(((size_t)f->nsw + 1) * sizeof(*b->isw));
	b->okrow = malloc(((size_t)f->nsw + 1) * words * sizeof(*b->okrow));
	b->bd = malloc(words * sizeof(*b->bd));
	b->xd = malloc(words * sizeof(*b->xd));
	b->reach = malloc((size_t)f->nsw + 1);
	b->nsrc = malloc(((size_t)f->nsw + 1) * sizeof(*b->nsrc));
	if (!b->peer0 || !b->swlid || !b->cand || !b->pick || !b->comp ||
	    !b->queue || !b->isw || !b->okrow || !b->bd || !b->xd ||
	    !b->reach || !b->nsrc) {
		fprintf(stderr, "knsroute faults: out of memory\n");
		return EXIT_USAGE;
	}
	memcpy(b->peer0, f->peer, f->nport * sizeof(*b->peer0));
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		b->swlid[sw] = f->lid[f->port0[sw]];
	list_candidates(b);
	if (b->nfault > b->ncand)
		return cli_usage_error("faults", "%s %" PRIu32 ": the fabric has "
				       "%" PRIu32 " %s", b->switches ?
				       "--switches" : "--random", b->nfault,
				       b->ncand, b->switches ? "switches" :
				       "inter-switch links");
	return 0;
}

static void bench_free(struct bench *b)
{
	free(b->peer0);
	free(b->swlid);
	free(b->cand);
	free(b->pick);
	free(b->comp);
	free(b->queue);
	free(b->isw);
	free(b->okrow);
	free(b->bd);
	free(b->xd);
	free(b->reach);
	free(b->nsrc);
}

/* --mcast's group is on SL 0: a plan that cannot make it safe would fail
 * every trial for one reason, which is said once instead. */
static int mcast_applies(const struct faults_args *a, const struct kr_plan *p)
{
	unsigned fix;

	if (!a->mcast || kr_slvl_mcast_ok(&p->slvl, 0, &fix))
		return 0;
	if (fix < KR_NSL)
		return cli_usage_error("faults", "--mcast: the plan of %s keeps "
				       "multicast safe on SL %u, not on the "
				       "group's SL 0 (knsroute.conf "
				       "mcast_sls and --sm-sl)", a->topo, fix);
	return cli_usage_error("faults", "--mcast: the plan of %s has no SL "
			       "or VL left for multicast (%s)", a->topo,
			       p->slvl.text);
}

static int run_trials(const struct faults_args *a, struct kr_fabric *f,
		      const struct kr_plan *p, const struct kr_conf *c)
{
	struct bench b = { .f = f, .topo = &p->topo, .c = c,
			   .nfault = a->nfault, .switches = a->switches,
			   .mcast = a->mcast,
			   .seed = a->seed, .load0 = p->check.load_max };
	struct tally ta = { 0 };
	char fabric[256];
	int rc = bench_init(&b);

	if (!rc)
		rc = run_loop(a, &b, &ta);
	if (!rc) {
		kr_topo_describe(fabric, sizeof(fabric), f, &p->topo);
		faults_report(a, &ta, fabric, c, b.load0);
		rc = ta.failures ? EXIT_PROBLEM : 0;
	}
	bench_free(&b);
	return rc;
}

int cmd_faults(int argc, char **argv)
{
	struct faults_args a;
	struct kr_conf c;
	struct kr_fabric f;
	struct kr_plan p;
	struct kr_diag d = { 0 };
	int rc;

	if ((rc = parse_args(argc, argv, &a)) ||
	    (rc = plan_opts_conf(&a.po, "faults", &c)))
		return rc;
	c.check = 1;		/* the verdict on every trial */
	if (a.max_int >= 0)
		c.max_intermediates = (unsigned)a.max_int;
	if ((rc = cli_read_fabric(a.topo, &f)))
		return rc;
	if ((rc = plan_opts_lids(&a.po, &c, a.topo, &f))) {
		kr_fabric_free(&f);
		return rc;
	}
	d.file = a.topo;
	if ((rc = kr_plan_build(&f, &c, &p, &d)))
		rc = cli_plan_error(rc, &d, kr_phase_name(p.failed),
				    " on the intact fabric");
	else if (!(rc = mcast_applies(&a, &p)))
		rc = run_trials(&a, &f, &p, &c);
	kr_plan_free(&p);
	kr_fabric_free(&f);
	return rc;
}
