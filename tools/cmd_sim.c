/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute sim: packets over the tables check reads, on one load point or
 * a sweep of them run as separate processes. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "kr_sim.h"

/* The second half of --help: the JSON keys and the exit status. */
static void sim_usage_keys(FILE *out)
{
	fprintf(out,
"JSON keys: version, pattern, seed, cas, packet_credits, cycles, offered,\n"
"accepted, accepted_flits_per_cycle_per_node, latency_mean, latency_p99\n"
"(cycles from generation), network_latency_mean, network_latency_p99 (from\n"
"injection), generated, refused, injected, delivered, dropped, queued, hops,\n"
"link_util_max, link_util_mean; hotspot: hot_senders, accepted_hot (at the\n"
"hot CA, fraction of its link), accepted_cold, offered_cold (per CA that is\n"
"not a hot sender); alltoall: completion (cycle, 0 if unfinished); deadlock,\n"
"deadlock_cycle [\"NAME[PORT] VL v\" channels, each waiting for the next],\n"
"deadlock_at; windows [{start, accepted_hot, accepted_cold, latency_mean,\n"
"full_share, empty_share}].\n"
"Conservation: injected = delivered + dropped + queued.\n"
"\n"
"Exit status: 0 the run ended, 1 a deadlock stopped it, 2 usage or input\n"
"error (FILE:LINE: what was expected).\n");
}

static void sim_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute sim INPUT [--pattern NAME] [--load X] [--seed S] [--json]\n"
"                    [--sweep LOADS [--jobs N]] [OPTIONS]\n"
"\n"
"Runs packets over the tables a fabric is (or would be) programmed with:\n"
"INPUT is what `knsroute check` takes (a directory of `knsroute route`\n"
"output, a capture or OpenSM's dumps; or TOPOLOGY with --lfts and the\n"
"rest). Virtual cut-through, credits per VL in 64-byte units, one FIFO\n"
"per input port and VL, the VL of each hop from the SL2VL maps, each\n"
"pair's SL from the path SLs, VL arbitration from the vlarb file (else\n"
"equal weights), round-robin over inputs. Time is in cycles of one credit\n"
"on a link; throughput is a fraction of link rate per CA, which is also\n"
"flits/cycle/node with the credit as the flit. docs/sim.md has the model.\n"
"\n"
"  --lfts, --sl2vl, --path-sl, --guid2lid FILE  as knsroute check\n"
"  --vlarb FILE        VL arbitration weights (`knsroute route`'s vlarb;\n"
"                      default: DIR/vlarb when INPUT is a directory)\n"
"  --pattern NAME      uniform (default), hotspot, bitrev, transpose,\n"
"                      complement, tornado, shift, randperm, zipf,\n"
"                      alltoall; positions are CA indices in LID order\n"
"  --load X            offered load per CA, fraction of link rate (1)\n"
"  --hot-share F       hotspot: share of CAs sending only to the hot CA\n"
"                      (0.25); the others send uniformly to the rest\n"
"  --hot-start T       hotspot: cycle the hot traffic starts (0)\n"
"  --hot-packets N     hotspot: it stops once N hot packets arrived\n"
"                      (default: never), a transient window\n"
"  --zipf-s S          zipf exponent (1)\n"
"  --shift K           shift: destination = index + K (default CAs/2)\n"
"  --seed S            random seed (1); one seed, one byte-identical run\n"
"  --lmc-path HOW      with LMC, the LID of a destination's range a CA\n"
"                      sends to: fixed (the base LID, default), rr\n"
"                      (round-robin per packet, OSHA) or least (the one\n"
"                      whose first-hop queue holds fewest, SASHA)\n"
"  --voq               virtual output queues at switch inputs\n"
"  --ideal KIND        an ideal baseline, not programmable in InfiniBand\n"
"                      (SL2VL maps and VL arbitration unused): voqnet, a\n"
"                      queue per destination CA at every input, each with\n"
"                      its own credits (--buffer-vl, default 2 packets);\n"
"                      adaptive-bubble (tori and meshes), minimal adaptive\n"
"                      routing on VL 0 with a dimension-order escape on\n"
"                      VL 1 under bubble flow control (input queues only:\n"
"                      a preset's output queues are left out)\n"
"  --oq CREDITS        output queues of this size per port and VL\n"
"  --speedup S         crossbar speed-up (needs --oq; 1)\n"
"  --route-delay C     cycles from a head's arrival to its request (0)\n"
"  --latency C         link fly time in cycles (1)\n"
"  --packet CREDITS    packet size in 64-byte credits (64: 4 KB MTU)\n"
"  --buffer CREDITS    input buffer per port, split over the VLs in use\n"
"                      (2048: 128 KB)\n"
"  --buffer-vl CREDITS\n"
"                      input buffer per port and VL instead\n"
"  --host-queue N      packets a CA queues per VL before refusing more on\n"
"                      it (64)\n"
"  --preset NAME       the papers' parameters: thesis3 (256-credit\n"
"                      packets, 2-packet input and output queues, 20-cycle\n"
"                      routing, 8-cycle links), thesis11 (16, 4-packet\n"
"                      queues, 4, 1), osha (4 KB packets, 128 KB per port,\n"
"                      1 ms warm-up + 2 ms at 100 Gb/s); options win\n"
"  --warmup C          cycles before measuring (300 packet times)\n"
"  --cycles C          cycles measured (1250 packet times)\n"
"  --window C          report accepted hot/cold traffic, latency and\n"
"                      full/empty buffer shares per window of C cycles\n"
"  --watchdog C        no delivery for C cycles while packets wait is a\n"
"                      deadlock (default 200 packet and fly times)\n"
"  --flow              flow level instead: max-min fair rates along the\n"
"                      LFT paths (no credits or VLs), for any size; the\n"
"                      mean rate of random permutations (uniform) is the\n"
"                      effective bisection bandwidth\n"
"  --flow-samples N    permutations (uniform, randperm) or all-to-all\n"
"                      phases to compute (10)\n"
"  --sweep LOADS       comma-separated loads, one run each\n"
"  --jobs N            runs of a sweep at once, as processes (1)\n"
"  --json              one JSON object per run (a line each)\n"
"  --csv               one CSV row per run, after a header\n"
"  --links FILE        each linked port's utilisation over the measured\n"
"                      cycles, as CSV (node,port,peer,peer_port,\n"
"                      utilisation); not with --sweep\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                      map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help          this text\n"
"\n");
	sim_usage_keys(out);
}

enum { OPT_LFTS = 256, OPT_SL2VL, OPT_PSL, OPT_G2L, OPT_VLARB, OPT_PATTERN,
       OPT_LOAD, OPT_HSHARE, OPT_HSTART, OPT_HPKT, OPT_ZIPF, OPT_SHIFT,
       OPT_SEED, OPT_VOQ, OPT_OQ, OPT_SPEEDUP, OPT_RDELAY, OPT_LATENCY,
       OPT_PACKET, OPT_BUF, OPT_BUFVL, OPT_HOSTQ, OPT_PRESET, OPT_WARMUP,
       OPT_CYCLES, OPT_WINDOW, OPT_WATCHDOG, OPT_SWEEP, OPT_JOBS, OPT_JSON,
       OPT_CSV, OPT_LMCPATH, OPT_FLOW, OPT_FSAMPLES, OPT_IDEAL, OPT_LINKS };

static const struct option sim_opts[] = {
	{ "lfts", required_argument, NULL, OPT_LFTS },
	{ "sl2vl", required_argument, NULL, OPT_SL2VL },
	{ "path-sl", required_argument, NULL, OPT_PSL },
	{ "guid2lid", required_argument, NULL, OPT_G2L },
	{ "vlarb", required_argument, NULL, OPT_VLARB },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "hot-share", required_argument, NULL, OPT_HSHARE },
	{ "hot-start", required_argument, NULL, OPT_HSTART },
	{ "hot-packets", required_argument, NULL, OPT_HPKT },
	{ "zipf-s", required_argument, NULL, OPT_ZIPF },
	{ "shift", required_argument, NULL, OPT_SHIFT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "lmc-path", required_argument, NULL, OPT_LMCPATH },
	{ "voq", no_argument, NULL, OPT_VOQ },
	{ "ideal", required_argument, NULL, OPT_IDEAL },
	{ "oq", required_argument, NULL, OPT_OQ },
	{ "speedup", required_argument, NULL, OPT_SPEEDUP },
	{ "route-delay", required_argument, NULL, OPT_RDELAY },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "packet", required_argument, NULL, OPT_PACKET },
	{ "buffer", required_argument, NULL, OPT_BUF },
	{ "buffer-vl", required_argument, NULL, OPT_BUFVL },
	{ "host-queue", required_argument, NULL, OPT_HOSTQ },
	{ "preset", required_argument, NULL, OPT_PRESET },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "cycles", required_argument, NULL, OPT_CYCLES },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "flow", no_argument, NULL, OPT_FLOW },
	{ "flow-samples", required_argument, NULL, OPT_FSAMPLES },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "links", required_argument, NULL, OPT_LINKS },
	CLI_NAME_MAP_OPTION,
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

enum { SIM_MAX_LOADS = 256 };

struct sim_args {
	struct cli_inputs in;
	const char *input, *vlarb, *links;
	struct kr_sim_opts o;
	int warmup_given, cycles_given, oq_given;
	double loads[SIM_MAX_LOADS];
	unsigned nloads, jobs;
	int flow;
	unsigned samples;
	int json, csv;
};

static double fraction(const char *opt, const char *s, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= hi)) {
		cli_usage_error("sim", "%s expects a number from 0 to %g, not "
				"\"%s\"", opt, hi, s);
		exit(EXIT_USAGE);
	}
	return v;
}

static int parse_sweep(struct sim_args *a, const char *list)
{
	char buf[4096], *tok, *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return cli_usage_error("sim", "--sweep: list too long");
	strcpy(buf, list);
	a->nloads = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (a->nloads == SIM_MAX_LOADS)
			return cli_usage_error("sim", "--sweep: more than %d "
					       "loads", SIM_MAX_LOADS);
		a->loads[a->nloads++] = fraction("--sweep", tok, 1);
	}
	return a->nloads ? 0 : cli_usage_error("sim", "--sweep: no load");
}

/* The papers' parameters (docs/sim.md): thesis chapter 3 (with chapter
 * 4's queue size, which 3 does not state), chapter 11, the OSHA paper's
 * section 5 at 5.12 ns a credit (64 B at 12.5 GB/s). *run_given: the
 * preset sets the run's length too. */
static int apply_preset(struct kr_sim_opts *o, const char *name,
			int *run_given)
{
	static const struct preset {
		const char *name;
		unsigned pkt, buf_vl, buf_port, oq, route_delay, latency;
		uint64_t warmup, cycles;	/* 0: scaled to the packet */
	} presets[] = {
		/* 256 flits, 2-packet input and output queues, 20-cycle
		 * routing, 8-cycle fly */
		{ "thesis3", 256, 512, 0, 512, 20, 8, 0, 0 },
		/* 16 flits, 4-packet queues, a 4-cycle router, 1-cycle fly */
		{ "thesis11", 16, 64, 0, 64, 4, 1, 0, 0 },
		/* 4 KB MTU, 128 KB per port, 6 ns ~ 1 cycle, 1 + 2 ms */
		{ "osha", 64, 0, 2048, 0, 0, 1, 195313, 390625 },
	};

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		const struct preset *p = &presets[i];

		if (strcmp(name, p->name))
			continue;
		o->pkt = p->pkt;
		o->buf_vl = p->buf_vl;
		o->buf_port = p->buf_port ? p->buf_port : o->buf_port;
		o->oq = p->oq;
		o->route_delay = p->route_delay;
		o->latency = p->latency;
		if (p->warmup) {
			o->warmup = p->warmup;
			o->cycles = p->cycles;
		}
		*run_given = p->warmup != 0;
		return 0;
	}
	return cli_usage_error("sim", "--preset expects thesis3, thesis11 or "
			       "osha, not \"%s\"", name);
}

/* --preset first, whatever its place: the other options override it. */
static int preset_first(int argc, char **argv, struct sim_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--preset") && i + 1 < argc)
			v = argv[i + 1];
		else if (!strncmp(argv[i], "--preset=", 9))
			v = argv[i] + 9;
		if (v) {
			int rc = apply_preset(&a->o, v, &a->warmup_given);

			/* a preset's run length counts as given */
			a->cycles_given = a->warmup_given;
			return rc;
		}
	}
	return 0;
}

static int parse_lmc_path(const char *s)
{
	static const char *const names[] = { [KR_SIM_LMC_FIXED] = "fixed",
					     [KR_SIM_LMC_RR] = "rr",
					     [KR_SIM_LMC_LEAST] = "least" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* A line every 5 s of a long run (cli_progress keeps short runs quiet). */
static void progress(void *ctx, uint64_t now, uint64_t end)
{
	static struct timespec last;
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (last.tv_sec && ts.tv_sec - last.tv_sec < 5)
		return;
	if (!last.tv_sec)
		last = ts;
	else
		last.tv_sec = ts.tv_sec;
	cli_progress("cycle %llu of %llu", (unsigned long long)now,
		     (unsigned long long)end);
}

#define NUM(opt, lo, hi) cli_number("sim", "--" opt, optarg, lo, hi)

/* Inputs and traffic; 1 when c is not one of them. */
static int traffic_opt(int c, struct sim_args *a)
{
	struct kr_sim_opts *o = &a->o;
	int p;

	switch (c) {
	case OPT_LFTS: a->in.lfts = optarg; break;
	case OPT_SL2VL: a->in.sl2vl = optarg; break;
	case OPT_PSL: a->in.path_sl = optarg; break;
	case OPT_G2L: a->in.guid2lid = optarg; break;
	case OPT_VLARB: a->vlarb = optarg; break;
	case OPT_PATTERN:
		if ((p = kr_sim_pattern_parse(optarg)) < 0)
			return cli_usage_error("sim", "--pattern: no pattern "
					       "\"%s\" (see --help)", optarg);
		o->pattern = (unsigned)p;
		break;
	case OPT_LOAD: o->load = fraction("--load", optarg, 1); break;
	case OPT_HSHARE: o->hot_share = fraction("--hot-share", optarg, 1); break;
	case OPT_HSTART: o->hot_start = NUM("hot-start", 0, 1ul << 48); break;
	case OPT_HPKT: o->hot_packets = NUM("hot-packets", 1, 1ul << 48); break;
	case OPT_ZIPF: o->zipf_s = fraction("--zipf-s", optarg, 10); break;
	case OPT_SHIFT: o->shift = (unsigned)NUM("shift", 1, 1u << 20); break;
	case OPT_SEED: o->seed = NUM("seed", 0, ~0ul); break;
	case OPT_LMCPATH:
		if ((p = parse_lmc_path(optarg)) < 0)
			return cli_usage_error("sim", "--lmc-path expects fixed, "
					       "rr or least, not \"%s\"", optarg);
		o->lmc_path = (unsigned)p;
		break;
	case OPT_SWEEP: return parse_sweep(a, optarg);
	case OPT_JOBS: a->jobs = (unsigned)NUM("jobs", 1, 1024); break;
	case OPT_JSON: a->json = 1; cli_json_errors(); break;
	case OPT_FLOW: a->flow = 1; break;
	case OPT_FSAMPLES: a->samples = (unsigned)NUM("flow-samples", 1, 1u << 20); break;
	case OPT_CSV: a->csv = 1; break;
	case OPT_LINKS: a->links = optarg; break;
	case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
	default: return 1;
	}
	return 0;
}

/* The switch and run model; 1 when c is not one of them. */
static int model_opt(int c, struct sim_args *a)
{
	struct kr_sim_opts *o = &a->o;

	switch (c) {
	case OPT_VOQ: o->voq = true; break;
	case OPT_IDEAL:
		if (!strcmp(optarg, "voqnet"))
			o->ideal = KR_SIM_IDEAL_VOQNET;
		else if (!strcmp(optarg, "adaptive-bubble"))
			o->ideal = KR_SIM_IDEAL_BUBBLE;
		else
			return cli_usage_error("sim", "--ideal expects voqnet "
					       "or adaptive-bubble, not \"%s\"",
					       optarg);
		break;
	case OPT_OQ: o->oq = (unsigned)NUM("oq", 1, 1u << 20); a->oq_given = 1; break;
	case OPT_SPEEDUP: o->speedup = (unsigned)NUM("speedup", 1, 16); break;
	case OPT_RDELAY: o->route_delay = (unsigned)NUM("route-delay", 0, 1u << 20); break;
	case OPT_LATENCY: o->latency = (unsigned)NUM("latency", 1, 1u << 20); break;
	case OPT_PACKET: o->pkt = (unsigned)NUM("packet", 1, 4096); break;
	case OPT_BUF: o->buf_port = (unsigned)NUM("buffer", 1, 1u << 24); break;
	case OPT_BUFVL: o->buf_vl = (unsigned)NUM("buffer-vl", 1, 1u << 24); break;
	case OPT_HOSTQ: o->host_queue = (unsigned)NUM("host-queue", 1, 1u << 20); break;
	case OPT_PRESET: break;		/* taken by preset_first */
	case OPT_WARMUP: o->warmup = NUM("warmup", 0, 1ul << 40); a->warmup_given = 1; break;
	case OPT_CYCLES: o->cycles = NUM("cycles", 1, 1ul << 40); a->cycles_given = 1; break;
	case OPT_WINDOW: o->window = NUM("window", 1, 1ul << 40); break;
	case OPT_WATCHDOG: o->watchdog = NUM("watchdog", 1, 1ul << 40); break;
	default: return 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	int c, rc = preset_first(argc, argv, a);

	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, "h", sim_opts, NULL)) != -1) {
		if (c == 'h') {
			sim_usage(stdout);
			return -1;
		}
		if ((rc = traffic_opt(c, a)) == 1 && (rc = model_opt(c, a)) == 1)
			rc = cli_usage_error("sim", "bad option");
	}
	if (rc)
		return rc;
	if (a->links && a->nloads)
		return cli_usage_error("sim", "--links is for one run, not a "
				       "--sweep");
	if (optind + 1 != argc)
		return cli_usage_error("sim", optind < argc ?
				       "expected one INPUT, not several" :
				       "expected a TOPOLOGY file or DIR");
	a->input = a->in.topo = argv[optind];
	/* long enough for a steady state, and at full load for a deadlock
	 * to close and the watchdog to see it */
	if (!a->warmup_given)
		a->o.warmup = 300ull * a->o.pkt;
	if (!a->cycles_given)
		a->o.cycles = 1250ull * a->o.pkt;
	if (a->o.pattern == KR_SIM_ALLTOALL && !a->warmup_given)
		a->o.warmup = 0;
	/* the bubble router is input-queued: a preset's output queues go */
	if (a->o.ideal == KR_SIM_IDEAL_BUBBLE && !a->oq_given)
		a->o.oq = 0;
	return 0;
}

/* --vlarb, else a directory INPUT's vlarb file if it has one. */
static int read_vlarb(struct sim_args *a, const struct kr_fabric *f,
		      struct kr_sim_vlarb *v)
{
	static char path[4200];
	struct kr_diag d = { 0 };
	/* --vlarb may be a pipe; a directory's vlarb is a file (kr_io.h) */
	enum kr_input kind = KR_IN_STREAM;
	struct stat st;
	FILE *in;
	int rc;

	if (!a->vlarb && !stat(a->input, &st) && S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/vlarb", a->input);
		if (!lstat(path, &st))
			a->vlarb = path;
		kind = KR_IN_FILE;
	}
	if (!a->vlarb)
		return 0;
	if (kr_input_open(a->vlarb, kind, &in, &d))
		return cli_error(&d);
	rc = kr_sim_vlarb_read(in, f, v, &d);
	fclose(in);
	d.file = a->vlarb;
	return rc ? cli_error(&d) : 0;
}

struct links_out {
	const struct kr_fabric *f;
	const struct kr_sim_result *r;
};

static int write_links(FILE *out, const void *ctx)
{
	const struct links_out *lo = ctx;

	return kr_sim_write_links(out, lo->f, lo->r);
}

static int run_one(const struct sim_args *a, const struct kr_sim_opts *o,
		   const struct kr_fabric *f, const struct kr_tables *t,
		   const struct kr_sim_vlarb *v, FILE *out)
{
	struct kr_sim_result r;
	struct kr_diag d = { 0 };
	int rc = kr_sim_run(f, t, v, o, &r, &d), wr;

	if (rc) {
		d.file = a->input;
		return cli_error(&d);
	}
	wr = a->json ? kr_sim_write_json(out, f, o, &r)
	     : a->csv ? kr_sim_write_csv(out, o, &r)
	     : kr_sim_write_text(out, f, o, &r);
	rc = wr ? EXIT_USAGE : 0;
	if (!rc && a->links) {
		struct links_out lo = { f, &r };

		rc = cli_write(a->links, write_links, &lo);
	}
	if (!rc && r.deadlock)
		rc = EXIT_PROBLEM;
	kr_sim_result_free(&r);
	return rc;
}

static int run_flow(const struct sim_args *a, const struct kr_fabric *f,
		    const struct kr_tables *t)
{
	struct kr_sim_flow_result r;
	struct kr_diag d = { 0 };

	if (kr_sim_flow_run(f, t, &a->o, a->samples, &r, &d)) {
		d.file = a->input;
		return cli_error(&d);
	}
	return kr_sim_flow_write(stdout, &a->o, &r, a->json) ? EXIT_USAGE : 0;
}

/* Waits for one child of the sweep; the worst exit status so far. */
static int reap(int worst)
{
	int st;

	if (wait(&st) < 0)
		return EXIT_USAGE;
	st = WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_USAGE;
	return st > worst ? st : worst;
}

/* Each load point runs in its own process (the tables shared by fork),
 * into its own temporary file; the output comes in load order whatever
 * order they finish in. The same runs split over a cluster are the same
 * command once per load (docs/sim.md: a Slurm job array). */
static int run_sweep(const struct sim_args *a, const struct kr_fabric *f,
		     const struct kr_tables *t, const struct kr_sim_vlarb *v)
{
	FILE *outs[SIM_MAX_LOADS];
	unsigned running = 0, jobs = a->jobs ? a->jobs : 1;
	int worst = 0;
	char buf[8192];
	size_t n;

	fflush(stdout);
	for (unsigned i = 0; i < a->nloads; i++) {
		struct kr_sim_opts o = a->o;
		pid_t pid;

		if (!(outs[i] = tmpfile()) || (pid = fork()) < 0) {
			perror("knsroute sim");
			exit(EXIT_USAGE);
		}
		if (!pid) {
			o.load = a->loads[i];
			_exit(run_one(a, &o, f, t, v, outs[i]) |
			      (fflush(outs[i]) ? EXIT_USAGE : 0));
		}
		if (++running == jobs) {
			worst = reap(worst);
			running--;
		}
	}
	while (running--)
		worst = reap(worst);
	if (a->csv)
		kr_sim_csv_header(stdout);
	for (unsigned i = 0; i < a->nloads; i++) {
		rewind(outs[i]);
		while ((n = fread(buf, 1, sizeof(buf), outs[i])))
			fwrite(buf, 1, n, stdout);
		fclose(outs[i]);
	}
	return worst;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_args a = { .jobs = 1, .samples = 10 };
	struct kr_fabric f = { 0 };
	struct kr_tables t = { 0 };
	struct kr_sim_vlarb v = { 0 };
	int rc;

	kr_sim_opts_default(&a.o);
	a.o.progress = progress;
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	cli_progress_begin(CLI_NORMAL);
	rc = cli_read_inputs("sim", &a.in, &f, &t);
	if (!rc)
		rc = cli_lfts_whole("sim", a.in.lfts, &f, &t);
	if (!rc)
		rc = read_vlarb(&a, &f, &v);
	if (!rc && a.flow) {
		rc = run_flow(&a, &f, &t);
	} else if (!rc && a.nloads) {
		rc = run_sweep(&a, &f, &t, &v);
	} else if (!rc) {
		if (a.csv)
			kr_sim_csv_header(stdout);
		rc = run_one(&a, &a.o, &f, &t, &v, stdout);
	}
	kr_sim_vlarb_free(&v);
	kr_tables_free(&t);
	kr_fabric_free(&f);
	return rc;
}
