/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute gen: write a generated fabric as an ibsim net file. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void gen_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute gen kns --k K --n N [--p P] [--radix D] [OPTIONS]\n"
"       knsroute gen torus --dims K0xK1x... [--p P] [--mesh-dims LIST]\n"
"                          [--parallel L] [OPTIONS]\n"
"       knsroute gen mesh --dims K0xK1x... [--p P] [--parallel L] [OPTIONS]\n"
"       knsroute gen mikant --k K --n N [OPTIONS]\n"
"       knsroute gen clos --k K --n N [OPTIONS]\n"
"\n"
"Writes a fabric as an ibsim net file (the ibnetdiscover dialect), ready for\n"
"ibsim -s FILE and for every other knsroute command.\n"
"\n"
"  kns          k^n routers with P CAs each; the k routers of each dimension\n"
"               line share one k-port crossbar switch (n*k^(n-1) crossbars),\n"
"               or with --radix D < K a (D/2)-ary s-tree of D-port switches,\n"
"               s = log_{D/2} K stages of K/(D/2) switches (K a power of D/2)\n"
"  torus, mesh  a switch grid with P CAs per switch; torus dimensions wrap\n"
"               unless listed in --mesh-dims, mesh dimensions never wrap\n"
"  mikant       mirrored k-ary n-tree: two groups of N-1 stages of K^(N-1)\n"
"               switches of 2K ports, stage L linked to L+1 by replacing\n"
"               address digit L, the two top stages to each other by\n"
"               replacing digit N-2; K CAs per leaf, 2K^N in all. Names say\n"
"               the address: sw(G,L,D[N-2]..D[0]), ca(G,C[N-1]..C[0])\n"
"  clos         folded Clos (fat tree) with as many CAs as mikant: the same\n"
"               two groups, whose top stages link up to a middle stage of\n"
"               K^(N-1) switches (named top(D[N-2]..D[0])) instead of to\n"
"               each other; 2K ports everywhere, (2N-1)K^(N-1) switches.\n"
"               knsroute does not route it: OpenSM's ftree does\n"
"\n"
"Options:\n"
"  --k K, --n N        KNS routers per line and dimension count; MiKANT\n"
"                      and Clos arity (2..127) and levels (2..7)\n"
"  --radix D           KNS: ports of a subnet switch (default: a K-port\n"
"                      crossbar per line)\n"
"  --dims K0xK1x...    torus/mesh sizes, dimension 0 first (e.g. 4x4x4)\n"
"  --p P               CAs per router or grid switch (default 1)\n"
"  --mesh-dims LIST    torus: comma-separated dimensions that do not wrap\n"
"  --parallel L        torus/mesh: links between neighbours (default 1)\n"
"  --shuffle SEED      randomise GUIDs, port numbers, names and record order\n"
"  --fail N            leave out N random inter-switch links (listed on stderr)\n"
"  --seed S            random seed for --fail (default 1)\n"
"  --lids              embed LIDs (switches and CA ports in node order)\n"
"  --lmc L             LMC of embedded CA LIDs (implies --lids)\n"
"  -o, --output FILE   write FILE atomically instead of stdout (\"-\"); a\n"
"                      FIFO or /dev/stdout is written in place\n"
"  -h, --help          this text\n");
}

static int parse_mesh_dims(const char *s, struct kr_gen_opts *o)
{
	char *end;

	for (const char *p = s; *p; p = end + (*end == ',')) {
		unsigned long d = strtoul(p, &end, 10);

		if (end == p || d >= o->ndim || (*end && *end != ','))
			return cli_usage_error("gen", "--mesh-dims \"%s\": expected "
					       "dimension numbers below %u", s,
					       o->ndim);
		o->wrap[d] = 0;
	}
	return 0;
}

static int print_faults(const struct kr_fabric *f, const struct kr_gen_fault *x,
			unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "left out: 0x%016" PRIx64 "[%u] \"%s\" - "
			"0x%016" PRIx64 "[%u] \"%s\"\n", f->guid[x[i].node_a],
			x[i].port_a, kr_node_name(f, x[i].node_a),
			f->guid[x[i].node_b], x[i].port_b,
			kr_node_name(f, x[i].node_b));
	return 0;
}

static int write_net(FILE *out, const void *f)
{
	return kr_net_write(out, f);
}

static int write_fabric(const struct kr_gen_opts *o, const char *path)
{
	struct kr_diag d = { .file = NULL };
	struct kr_fabric f;
	struct kr_gen_fault *faults = NULL;
	unsigned nfaults = 0;
	int rc;

	if (kr_gen(o, &f, NULL, &faults, &nfaults, &d))
		return cli_error(&d);
	rc = cli_write(path, write_net, &f);
	if (!rc)
		print_faults(&f, faults, nfaults);
	free(faults);
	kr_fabric_free(&f);
	return rc;
}

/* Family and sizes from the command line into o. */
/* mikant, clos: --k and --n only; their CAs per leaf are k. */
static int set_mikant(const char *family, unsigned k, unsigned n,
		      const char *dims, const char *mesh, int p_given,
		      struct kr_gen_opts *o)
{
	if (!k || !n || dims)
		return cli_usage_error("gen", "%s takes --k and --n", family);
	if (mesh || o->parallel != 1 || o->radix || p_given)
		return cli_usage_error("gen", "%s takes no --mesh-dims, "
				       "--parallel, --radix or --p (each leaf "
				       "has K CAs)", family);
	if (n < 2)
		return cli_usage_error("gen", "%s needs --n of at least 2",
				       family);
	o->clos = !strcmp(family, "clos");
	o->family = KR_FAMILY_MIKANT;
	o->ndim = n;
	o->k[0] = k;
	return 0;
}

static int set_shape(const char *family, unsigned k, unsigned n, const char *dims,
		     const char *mesh, int p_given, struct kr_gen_opts *o)
{
	struct kr_diag d = { 0 };
	int torus = !strcmp(family, "torus");

	if (!strcmp(family, "mikant") || !strcmp(family, "clos"))
		return set_mikant(family, k, n, dims, mesh, p_given, o);

	if (!strcmp(family, "kns")) {
		if (!k || !n || dims)
			return cli_usage_error("gen", "kns takes --k and --n");
		if (mesh)
			return cli_usage_error("gen", "--mesh-dims is for tori");
		if (o->parallel != 1)
			return cli_usage_error("gen", "--parallel is for tori "
					       "and meshes");
		if (o->radix && o->radix < k && (o->radix < 4 || o->radix % 2))
			return cli_usage_error("gen", "--radix %u: an even radix "
					       "of at least 4", o->radix);
		o->family = KR_FAMILY_KNS;
		o->ndim = n;
		for (unsigned i = 0; i < n; i++)
			o->k[i] = k;
		return 0;
	}
	if (o->radix)
		return cli_usage_error("gen", "--radix is for kns");
	if (!torus && strcmp(family, "mesh"))
		return cli_usage_error("gen", "unknown family \"%s\" (kns, torus, "
				       "mesh, mikant, clos)", family);
	if (!dims || k || n)
		return cli_usage_error("gen", "%s takes --dims", family);
	if (kr_parse_dims(dims, o->k, &o->ndim, &d))
		return cli_error(&d);
	for (unsigned i = 0; i < o->ndim; i++)
		o->wrap[i] = (uint8_t)torus;
	if (mesh && !torus)
		return cli_usage_error("gen", "--mesh-dims is for tori");
	if (mesh && parse_mesh_dims(mesh, o))
		return EXIT_USAGE;
	o->family = KR_FAMILY_MESH;
	for (unsigned i = 0; i < o->ndim; i++)
		if (o->wrap[i])
			o->family = KR_FAMILY_TORUS;
	return 0;
}

enum { OPT_K = 256, OPT_N, OPT_DIMS, OPT_P, OPT_MESH, OPT_PAR, OPT_SHUF,
       OPT_FAIL, OPT_SEED, OPT_LIDS, OPT_LMC, OPT_RADIX };

int cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "k", required_argument, NULL, OPT_K },
		{ "n", required_argument, NULL, OPT_N },
		{ "dims", required_argument, NULL, OPT_DIMS },
		{ "p", required_argument, NULL, OPT_P },
		{ "radix", required_argument, NULL, OPT_RADIX },
		{ "mesh-dims", required_argument, NULL, OPT_MESH },
		{ "parallel", required_argument, NULL, OPT_PAR },
		{ "shuffle", required_argument, NULL, OPT_SHUF },
		{ "fail", required_argument, NULL, OPT_FAIL },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "lids", no_argument, NULL, OPT_LIDS },
		{ "lmc", required_argument, NULL, OPT_LMC },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct kr_gen_opts o = { .p = 1, .parallel = 1, .fail_seed = 1 };
	const char *family, *out = NULL, *dims = NULL, *mesh = NULL;
	unsigned k = 0, n = 0;
	int c, p_given = 0;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		gen_usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-')
		return cli_usage_error("gen", "expected a family: kns, torus, mesh, "
				       "mikant or clos");
	family = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_K: k = (unsigned)cli_number("gen", "--k", optarg, 2, 255); break;
		case OPT_N: n = (unsigned)cli_number("gen", "--n", optarg, 1, KR_MAX_DIM); break;
		case OPT_DIMS: dims = optarg; break;
		case OPT_P:
			o.p = (unsigned)cli_number("gen", "--p", optarg, 0, 253);
			p_given = 1;
			break;
		case OPT_RADIX: o.radix = (unsigned)cli_number("gen", "--radix", optarg, 2, 254); break;
		case OPT_MESH: mesh = optarg; break;
		case OPT_PAR: o.parallel = (unsigned)cli_number("gen", "--parallel", optarg, 1, 16); break;
		case OPT_SHUF:
			o.shuffle = 1;
			o.shuffle_seed = cli_number("gen", "--shuffle", optarg, 0, UINT32_MAX);
			break;
		case OPT_FAIL: o.fail = (unsigned)cli_number("gen", "--fail", optarg, 0, 1u << 30); break;
		case OPT_SEED: o.fail_seed = cli_number("gen", "--seed", optarg, 0, UINT32_MAX); break;
		case OPT_LIDS: o.assign_lids = 1; break;
		case OPT_LMC:
			o.lmc = (unsigned)cli_number("gen", "--lmc", optarg, 0, 7);
			o.assign_lids = 1;
			break;
		case 'o': out = optarg; break;
		case 'h': gen_usage(stdout); return 0;
		default: return cli_usage_error("gen", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error("gen", "unexpected argument \"%s\"", argv[optind]);
	if (set_shape(family, k, n, dims, mesh, p_given, &o))
		return EXIT_USAGE;
	return write_fabric(&o, out);
}
