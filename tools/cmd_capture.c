/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute capture: read a live fabric into a capture directory, and
 * knsroute check --live: capture into a temporary one and check it. The
 * reading itself is in capture_*.c, built only with rdma-core's libraries;
 * without them this file still builds and says what to install. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "kr_atomic.h"

#define CAPTURE_PKGS "libibnetdisc-dev libibmad-dev libibumad-dev"

static void capture_usage(FILE *out)
{
	fprintf(out,
"Usage: knsroute capture DIR [-C CA] [-P PORT] [-t MS] [--retries N]\n"
"                        [--window N] [--no-path-sl] [--quiet]\n"
"\n"
"Reads what the fabric is programmed with, from the local port, into DIR\n"
"(created if missing; all files appear at the end, or none):\n"
"  topology.net   the fabric with its LIDs (ibnetdiscover format)\n"
"  lfts.dump      every switch's LFT (opensm-lfts.dump format)\n"
"  sl2vl.dump     SL2VL of every switch port pair and CA port\n"
"                 (opensm-sl2vl.dump format)\n"
"  oper-vls       the data VLs every linked port runs (OperVLs)\n"
"  path-sl        the SA's SL of every CA port to every LID (path-sl)\n"
"  capture.log    what was queried, retries, times\n"
"Then: knsroute check DIR.\n"
"\n"
"  -C, --Ca CA       local CA (default: the first with an active port)\n"
"  -P, --Port PORT   its port (default: the first active one)\n"
"  -t, --timeout MS  wait for each answer this long (default 1000)\n"
"  --retries N       send a query again up to N times (default 3)\n"
"  --window N        SA queries in flight at once (default 32; SMPs: 4)\n"
"  --no-path-sl      ask the SA nothing; writes no path-sl\n"
"  -q, --quiet       no progress on stderr\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 captured, 1 the fabric did not answer (the query is named;\n"
"nothing written), 2 usage error, unwritable DIR, or built without\n"
CAPTURE_PKGS ".\n");
}

static void opts_init(struct capture_opts *o)
{
	*o = (struct capture_opts){ .timeout_ms = 1000, .retries = 3,
				    .window = 32, .path_sl = true };
}

/* The value of option name at argv[*i]: "--name=V", "-xV", or the next
 * argument; NULL when argv[*i] is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *lng,
			     const char *shrt, const char *cmd)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=')
		return a + n + 1;
	if (shrt && !strncmp(a, shrt, 2) && a[2])
		return a + 2;
	if (strcmp(a, lng) && (!shrt || strcmp(a, shrt)))
		return NULL;
	if (++*i >= argc) {
		cli_usage_error(cmd, "%s expects a value", lng);
		exit(EXIT_USAGE);
	}
	return argv[*i];
}

/* 1 when argv[*i] (with its value) is a capture option, stored in o. */
static int capture_opt(int argc, char **argv, int *i, struct capture_opts *o,
		       const char *cmd)
{
	const char *v;

	if (!strcmp(argv[*i], "--no-path-sl"))
		o->path_sl = false;
	else if (!strcmp(argv[*i], "--quiet") || !strcmp(argv[*i], "-q"))
		o->quiet = true;
	else if ((v = opt_value(argc, argv, i, "--Ca", "-C", cmd)))
		o->ca = v;
	else if ((v = opt_value(argc, argv, i, "--Port", "-P", cmd)))
		o->port = (unsigned)cli_number(cmd, "--Port", v, 1, 254);
	else if ((v = opt_value(argc, argv, i, "--timeout", "-t", cmd)))
		o->timeout_ms = (unsigned)cli_number(cmd, "--timeout", v, 1,
						     60000);
	else if ((v = opt_value(argc, argv, i, "--retries", NULL, cmd)))
		o->retries = (unsigned)cli_number(cmd, "--retries", v, 0, 100);
	else if ((v = opt_value(argc, argv, i, "--window", NULL, cmd)))
		o->window = (unsigned)cli_number(cmd, "--window", v, 1, 1024);
	else
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */

#ifdef HAVE_CAPTURE
struct capture_out {
	const struct kr_fabric *f;
	const struct kr_tables *t;
	const char *log;
};

static int out_topology(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	return kr_net_write(out, c->f);
}

static int out_lfts(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	return kr_lfts_write(out, c->f, c->t);
}

static int out_sl2vl(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	return kr_sl2vl_write(out, c->f, c->t);
}

static int out_path_sl(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	return kr_path_sl_write(out, c->f, c->t);
}

static int out_oper_vls(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	return kr_oper_vls_write(out, c->f);
}

static int out_log(FILE *out, const void *ctx)
{
	const struct capture_out *c = ctx;

	fputs(c->log, out);
	return KR_OK;
}

/* capture.log goes last, so that its presence means the rest is there. */
static const struct kr_dir_file capture_files[] = {
	{ "topology.net", out_topology },
	{ "lfts.dump", out_lfts },
	{ "sl2vl.dump", out_sl2vl },
	{ "path-sl", out_path_sl },
	{ "oper-vls", out_oper_vls },
	{ "capture.log", out_log },
};
#define NFILES (sizeof(capture_files) / sizeof(capture_files[0]))

static void log_header(FILE *log, const struct capture_opts *o)
{
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
	fprintf(log, "# knsroute capture %s, %s\n", PACKAGE_VERSION, when);
	fprintf(log, "options: timeout %u ms, retries %u, window %u (SMPs %u), "
		"path SLs %s\n", o->timeout_ms, o->retries, o->window,
		CAPTURE_SMP_WINDOW, o->path_sl ? "yes" : "no");
}

/* Writes every file or none; a path-sl of an earlier capture goes when
 * this one has none, so that DIR never mixes two captures. */
static int write_capture(const char *dir, const struct capture_opts *o,
			 const struct capture_out *c)
{
	struct kr_dir_file files[NFILES];
	struct kr_diag d = { 0 };
	char path[4200];
	size_t n = 0;

	for (size_t i = 0; i < NFILES; i++)
		if (o->path_sl || capture_files[i].fn != out_path_sl)
			files[n++] = capture_files[i];
	if (kr_write_dir(dir, KR_TO_NAMED, files, n, c, &d))
		return cli_error(&d);
	snprintf(path, sizeof(path), "%s/path-sl", dir);
	if (!o->path_sl && unlink(path) && errno != ENOENT) {
		fprintf(stderr, "knsroute capture: %s: %s\n", path,
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* Fails before any query when DIR cannot take files; a DIR made here is
 * removed again when the capture fails. */
static int probe_dir(const char *dir, bool *made)
{
	char path[4200];
	int fd;

	*made = !mkdir(dir, 0755);
	if (!*made && errno != EEXIST) {
		fprintf(stderr, "knsroute capture: cannot create %s: %s\n", dir,
			strerror(errno));
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/.capture.probe.%ld", dir,
		 (long)getpid());
	/* O_EXCL: never through a link planted at the name */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		fprintf(stderr, "knsroute capture: cannot write into %s: %s\n",
			dir, strerror(errno));
		if (*made)
			rmdir(dir);
		return EXIT_USAGE;
	}
	close(fd);
	unlink(path);
	return 0;
}

static int capture_to(const char *dir, const struct capture_opts *o)
{
	struct kr_fabric f = { 0 };
	struct kr_tables t = { 0 };
	struct capture_out c = { &f, &t, NULL };
	char *log = NULL;
	size_t loglen = 0;
	FILE *logf;
	bool made;
	int rc = probe_dir(dir, &made);

	if (rc)
		return rc;
	logf = open_memstream(&log, &loglen);
	if (!logf) {
		fprintf(stderr, "knsroute capture: out of memory\n");
		return EXIT_USAGE;
	}
	log_header(logf, o);
	rc = capture_fabric(o, &f, &t, logf);
	fclose(logf);
	c.log = log;
	if (!rc)
		rc = write_capture(dir, o, &c);
	if (rc && made)
		rmdir(dir);
	free(log);
	kr_tables_free(&t);
	kr_fabric_free(&f);
	return rc;
}
#else
static int capture_to(const char *dir, const struct capture_opts *o)
{
	(void)dir;
	(void)o;
	fprintf(stderr, "knsroute capture: this knsroute was built without "
		"libibnetdisc, libibmad and libibumad; install " CAPTURE_PKGS
		" and build again\n");
	return EXIT_USAGE;
}
#endif

int cmd_capture(int argc, char **argv)
{
	struct capture_opts o;
	const char *dir = NULL;

	opts_init(&o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			capture_usage(stdout);
			return 0;
		}
		if (capture_opt(argc, argv, &i, &o, "capture"))
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("capture", "bad option \"%s\"",
					       argv[i]);
		if (dir)
			return cli_usage_error("capture", "expected one DIR, "
					       "not several");
		dir = argv[i];
	}
	if (!dir)
		return cli_usage_error("capture", "expected a DIR to capture into");
	return capture_to(dir, &o);
}

/* ------------------------------------------------------------------ */
/* knsroute check --live */

static void remove_capture(const char *dir)
{
	static const char *const names[] = { "topology.net", "lfts.dump",
		"sl2vl.dump", "path-sl", "capture.log" };
	char path[4200];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* Capture options are taken out of argv; the rest goes to check with the
 * captured files in front. */
int cmd_check_live(int argc, char **argv, int (*check)(int, char **))
{
	struct capture_opts o;
	char dir[4096];
	const char *tmp = getenv("TMPDIR");
	char **cargv = calloc((size_t)argc + 2, sizeof(*cargv));
	int cargc = 0, rc;

	if (!cargv)
		return EXIT_USAGE;
	opts_init(&o);
	cargv[cargc++] = argv[0];
	cargv[cargc++] = dir;	/* a capture: check reads every file of it */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--live") &&
		    !capture_opt(argc, argv, &i, &o, "check"))
			cargv[cargc++] = argv[i];
	snprintf(dir, sizeof(dir), "%s/knsroute-live.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "knsroute check: %s: %s\n", dir, strerror(errno));
		free(cargv);
		return EXIT_USAGE;
	}
	rc = capture_to(dir, &o);
	if (!rc)
		rc = check(cargc, cargv);
	remove_capture(dir);
	free(cargv);
	return rc;
}
