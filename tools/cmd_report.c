/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute report: one HTML page about a routed or captured fabric: what
 * `check DIR` finds, drawn, with the plan and whatever fault and traffic
 * results were saved beside it. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "pictures.h"

static void report_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute report DIR [-o FILE] [--node-name-map FILE]\n"
"\n"
"Writes one self-contained HTML page (styles and pictures inline, nothing\n"
"fetched) about the fabric in DIR: `knsroute route` output or a capture,\n"
"anything `knsroute check DIR` reads. Its sections:\n"
"  summary   the fabric as recognised, nodes, LIDs, pairs, link load and\n"
"            the verdict\n"
"  plan      the SL/VL plan from DIR/summary (route output), else which\n"
"            VLs each SL takes on switch links in the SL2VL maps read\n"
"  check     each traffic class's pairs and verdict, and the check's own\n"
"            text report\n"
"  pictures  the fabric as topo --svg draws it, then as check --svg does\n"
"            (link load, the credit loop's witness)\n"
"  links     the 10 most loaded directed switch links\n"
"  faults    each DIR/faults*.json (`knsroute faults --json` output), a\n"
"            row per key; only when there is one\n"
"  sim       each DIR/sim*.json (`knsroute sim --json` output, a run a\n"
"            line), a row per run; only when there is one\n"
"The check is the one `knsroute check DIR` runs (the SM and its SA's\n"
"traffic from the capture's log, opensm-subnet.lst or ibdiagnet.sm). A\n"
"fabric that is not a KNS, torus or mesh is laid out by Graphviz's dot.\n"
"\n"
"  -o, --out FILE  the page (written atomically; default standard output)\n"
"  --node-name-map FILE  names for node GUIDs (infiniband-diags'\n"
"                  map; default /etc/rdma/ib-node-name-map when there)\n"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 written, 1 written and the check found a problem, 2 usage\n"
"or input error (nothing written).\n");
}

/* Everything the page shows, gathered before a byte of it is written. */
struct page {
	const char *dir, *out;
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_check_report r;
	int checked, verdict;
	char *check_text, *summary;
	char fabric[600];
	struct kr_report_file svg[2], files[32];
	unsigned nfaults, nsim;
};

/* DIR/name's text, or NULL when there is no such file. */
static int slurp_opt(const char *dir, const char *name, char **text)
{
	char path[4200];
	struct kr_diag d = { 0 };
	size_t len;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*text = NULL;
	if (stat(path, &st))
		return 0;
	return kr_slurp(path, KR_IN_STREAM, text, &len, &d) ? cli_error(&d) : 0;
}

static int is_faults(const struct dirent *e)
{
	return !fnmatch("faults*.json", e->d_name, 0);
}

static int is_sim(const struct dirent *e)
{
	return !fnmatch("sim*.json", e->d_name, 0);
}

/* DIR's files that pass filter, after *n of p->files, at most 16. */
static int results(struct page *p, int (*filter)(const struct dirent *),
		   unsigned at, unsigned *n)
{
	struct dirent **e;
	int k = scandir(p->dir, &e, filter, alphasort), rc = 0;

	*n = 0;
	if (k < 0)
		return cli_input_error("report", "%s: cannot list: %s", p->dir,
				       strerror(errno));
	for (int i = 0; i < k; i++) {
		char *text;

		if (!rc && *n < 16 && !(rc = slurp_opt(p->dir, e[i]->d_name,
							&text)) && text) {
			p->files[at + *n].text = text;
			p->files[at + (*n)++].name = strdup(e[i]->d_name);
		}
		free(e[i]);
	}
	free(e);
	return rc;
}

static int check(struct page *p)
{
	struct kr_check_opts o = { .max_examples = 10,
				   .dests = KR_CHECK_DESTS_AUTO };
	struct kr_diag d = { 0 };
	size_t len;
	FILE *mem;
	int res = kr_check_run(&p->f, &p->t, &o, &p->r, &d);

	if (res == KR_ENOMEM)
		return cli_error(&d);
	p->checked = 1;
	if (!p->r.pairs)
		return cli_input_error("report", "%s: no pair to check: give "
				       "every CA port a LID", p->dir);
	p->verdict = res ? EXIT_PROBLEM : 0;
	mem = open_memstream(&p->check_text, &len);
	if (!mem || kr_check_report_write(mem, &p->f, &p->r, 0) || fclose(mem)) {
		cli_say("out of memory");
		return EXIT_USAGE;
	}
	return 0;
}

/* The two pictures: the structure, then load and witness. */
static int pictures(struct page *p)
{
	struct kr_topo t;
	struct kr_draw_layout l;
	struct kr_draw_opts plain = { .id = "structure" };
	struct kr_draw_opts load = { .id = "load" };
	int known = pictures_recognise(&p->f, &t), rc;

	if (known < 0)
		return EXIT_USAGE;
	if (known)
		kr_topo_describe(p->fabric, sizeof(p->fabric), &p->f, &t);
	else
		snprintf(p->fabric, sizeof(p->fabric), "not a KNS, torus or "
			 "mesh (%u switches)", p->f.nsw);
	rc = pictures_layout(&p->f, known ? &t : NULL, &l);
	if (known)
		kr_topo_free(&t);
	if (rc)
		return rc;
	pictures_check_opts(&p->r, &load);
	p->svg[0] = (struct kr_report_file){ "the fabric as recognised: "
		"missing links dashed red, missing switches as dashed red "
		"boxes", pictures_text(&p->f, &l, &plain) };
	p->svg[1] = (struct kr_report_file){ "link load (CA-to-CA paths per "
		"link direction, each half of a link coloured by the direction "
		"leaving its nearer end) and the credit loop's witness, if any",
		pictures_text(&p->f, &l, &load) };
	kr_draw_layout_free(&l);
	return p->svg[0].text && p->svg[1].text ? 0 : EXIT_USAGE;
}

static int write_page(FILE *out, const void *ctx)
{
	const char *page = ctx;

	return fputs(page, out) < 0 ? KR_EIO : KR_OK;
}

/* The page, built whole in memory (a bad results file stops it before
 * anything is written), then written. */
static int write_report(struct page *p)
{
	struct kr_report rep = {
		.title = p->dir, .fabric = p->fabric, .summary = p->summary,
		.f = &p->f, .t = &p->t, .r = &p->r,
		.check_text = p->check_text, .svg = p->svg, .nsvg = 2,
		.faults = p->files, .nfaults = p->nfaults,
		.sim = p->files + p->nfaults, .nsim = p->nsim };
	struct kr_diag d = { 0 };
	char *page = NULL;
	size_t len;
	FILE *mem = open_memstream(&page, &len);
	int rc = mem ? kr_report_write(mem, &rep, &d) : KR_ENOMEM;

	if (mem && fclose(mem) && !rc)
		rc = KR_ENOMEM;
	if (rc == KR_ENOMEM)
		cli_say("out of memory");
	else if (rc)	/* d names the file within DIR */
		cli_say("%s/%s", p->dir, d.msg);
	if (!rc)
		rc = cli_write(p->out, write_page, page);
	free(page);
	return rc ? EXIT_USAGE : 0;
}

static int run(struct page *p)
{
	struct cli_inputs in = { .topo = p->dir };
	struct cli_sm sm = { 0 };
	struct stat st;
	int rc;

	if (stat(p->dir, &st) || !S_ISDIR(st.st_mode))
		return cli_input_error("report", "%s: expected a directory "
				       "(knsroute route output or a capture)",
				       p->dir);
	rc = cli_read_inputs("report", &in, &p->f, &p->t);
	if (!rc)
		rc = cli_lfts_whole("report", in.lfts, &p->f, &p->t);
	if (!rc)
		rc = cli_mfts_whole("report", in.mfts, &p->f, &p->t);
	if (!rc)
		rc = cli_sm_inputs("report", &in, &sm, &p->f, &p->t);
	if (!rc)
		rc = slurp_opt(p->dir, "summary", &p->summary);
	if (!rc)
		rc = results(p, is_faults, 0, &p->nfaults);
	if (!rc)
		rc = results(p, is_sim, p->nfaults, &p->nsim);
	if (!rc)
		rc = check(p);
	if (!rc)
		rc = pictures(p);
	if (!rc)
		rc = write_report(p);
	return rc ? rc : p->verdict;
}

static void page_free(struct page *p)
{
	for (unsigned i = 0; i < p->nfaults + p->nsim; i++) {
		free((char *)p->files[i].name);
		free((char *)p->files[i].text);
	}
	for (unsigned i = 0; i < 2; i++)
		free((char *)p->svg[i].text);
	if (p->checked)
		kr_check_report_free(&p->r);
	free(p->check_text);
	free(p->summary);
	kr_tables_free(&p->t);
	kr_fabric_free(&p->f);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		CLI_NAME_MAP_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct page p = { 0 };
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': p.out = optarg; break;
		case CLI_OPT_NAME_MAP: cli_name_map(optarg); break;
		case 'h': report_usage(stdout); return 0;
		default: return cli_usage_error("report", "bad option");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("report", "expected one DIR");
	p.dir = argv[optind];
	rc = run(&p);
	page_free(&p);
	return rc;
}
