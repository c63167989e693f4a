/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <config.h>

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "kr_io.h"

/* The command running, for the prefix of its messages, and whether a
 * failure also owes standard output a JSON object (--json). */
static struct {
	const char *cmd;
	int json, json_done;
} voice = { NULL, 0, 0 };

void cli_command(const char *cmd)
{
	voice.cmd = cmd;
}

void cli_json_errors(void)
{
	voice.json = 1;
}

void cli_json_error_done(void)
{
	voice.json_done = 1;
}

/* "knsroute CMD: " on stderr, the start of every message. */
static void prefix(void)
{
	fprintf(stderr, "knsroute%s%s: ", voice.cmd ? " " : "",
		voice.cmd ? voice.cmd : "");
}

void cli_say(const char *fmt, ...)
{
	va_list ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The first failure only: a later one is its consequence. */
static void json_error(const char *msg)
{
	if (!voice.json || voice.json_done)
		return;
	voice.json_done = 1;
	putchar('{');
	kr_json_version(stdout);
	fputs(", \"error\": ", stdout);
	kr_json_string(stdout, msg);
	fputs("}\n", stdout);
}

int cli_flush_stdout(int rc)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cli_say("standard output: %s",
			errno ? strerror(errno) : "write error");
		return rc ? rc : EXIT_USAGE;
	}
	return rc;
}

static struct {
	int level;
	struct timespec t0;
} progress = { CLI_QUIET, { 0, 0 } };	/* until a command begins */

void cli_progress_begin(int level)
{
	progress.level = level;
	clock_gettime(CLOCK_MONOTONIC, &progress.t0);
}

void cli_progress(const char *fmt, ...)
{
	struct timespec now;
	double s;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	s = (double)(now.tv_sec - progress.t0.tv_sec) +
	    (double)(now.tv_nsec - progress.t0.tv_nsec) * 1e-9;
	if (progress.level == CLI_QUIET ||
	    (progress.level == CLI_NORMAL && s < 2.0))
		return;
	prefix();
	fprintf(stderr, "[%6.1f s] ", s);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_progress_phase(void *ctx, const char *phase)
{
	(void)ctx;
	cli_progress("%s ...", phase);
}

int cli_plan_exit(int rc)
{
	return rc == KR_ETOPO || rc == KR_ECYCLE || rc == KR_EROUTE ?
		EXIT_PROBLEM : EXIT_USAGE;
}

int cli_plan_error(int rc, const struct kr_diag *d, const char *phase,
		   const char *ctx)
{
	struct kr_diag at = *d;

	/* phase and ctx are short; msg is cut before it can crowd them out */
	snprintf(at.msg, sizeof(at.msg), "%s failed%s: %.900s", phase, ctx,
		 d->msg);
	cli_error(&at);
	return cli_plan_exit(rc);
}

int cli_error(const struct kr_diag *d)
{
	char buf[KR_DIAG_LINE];

	kr_diag_format(d, buf, sizeof(buf));
	cli_say("%s", buf);
	json_error(buf);
	return EXIT_USAGE;
}

/* cli_usage_error and cli_input_error: the message, and for a usage error
 * where to read how the command is used. */
static int bad(int usage, const char *cmd, const char *fmt, va_list ap)
{
	char buf[KR_DIAG_LINE];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "knsroute %s: %s\n", cmd, buf);
	if (usage)
		fprintf(stderr, "Try 'knsroute %s --help'.\n", cmd);
	json_error(buf);
	return EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bad(1, cmd, fmt, ap);
	va_end(ap);
	return rc;
}

int cli_input_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = bad(0, cmd, fmt, ap);
	va_end(ap);
	return rc;
}

/* Told apart by its magic; libibnetdisc's loader wants a file it can open
 * itself, so a cache must not come through a pipe. */
static int read_ibnd_cache(const char *path, struct kr_fabric *f,
			   struct kr_diag *d)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return kr_fail(d, KR_EPARSE, 0, "an ibnetdiscover cache must be "
			       "read from a regular file, not a pipe");
#ifdef HAVE_CAPTURE
	return cap_load_cache(path, f, d);
#else
	(void)f;
	return kr_fail(d, KR_EPARSE, 0, "an ibnetdiscover cache, but knsroute "
		       "was built without libibnetdisc (install libibnetdisc-dev "
		       "and rebuild, or give plain ibnetdiscover output)");
#endif
}

static const char *name_map;	/* --node-name-map, NULL: the default */

void cli_name_map(const char *path)
{
	name_map = path;
}

static int read_name_map(struct kr_fabric *f)
{
	const char *path = name_map ? name_map : CLI_NAME_MAP_DEFAULT;
	struct kr_diag d = { 0 };
	char buf[KR_DIAG_LINE];

	if (!name_map && access(path, F_OK))
		return 0;
	if (!kr_name_map_read(path, f, &d))
		return 0;
	if (name_map)
		return cli_error(&d);
	kr_diag_format(&d, buf, sizeof(buf));
	cli_say("%s; nodes keep their own descriptions", buf);
	return 0;
}

/* The first of names present in dir, into buf; NULL if none is. */
static const char *dir_file(const char *dir, const char *const *names,
			    char *buf, size_t size)
{
	struct stat st;

	for (; *names; names++) {
		snprintf(buf, size, "%s/%s", dir, *names);
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	}
	return NULL;
}

/* The topology files a directory may hold, in the order they are taken. */
static const char *const topo_names[] = { "topology.net", "opensm-subnet.lst",
					  "ibdiagnet.lst", NULL };
#define TOPO_NAMES_TEXT "topology.net, opensm-subnet.lst or ibdiagnet.lst"

int cli_read_fabric(const char *path, struct kr_fabric *f)
{
	static const char magic[] = CAPTURE_IBND_CACHE_MAGIC;
	static char in_dir[4200];
	struct stat st;
	/* "-" as infiniband-diags tools take it; errors name it in words */
	const char *src = strcmp(path, "-") ? path : "/dev/stdin";
	const char *name = src == path ? path : "standard input";
	struct kr_diag d = { 0 };
	char *buf;
	size_t len;
	int rc;

	*f = (struct kr_fabric){ 0 };
	if (src == path && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		src = name = dir_file(path, topo_names, in_dir, sizeof(in_dir));
		if (!src)
			return cli_input_error(voice.cmd ? voice.cmd : "knsroute",
					       "%s: a directory, but without "
					       TOPO_NAMES_TEXT, path);
	}
	cli_progress("reading %s", name);
	rc = kr_slurp(src, KR_IN_STREAM, &buf, &len, &d);
	d.file = name;
	if (!rc && len >= sizeof(magic) - 1 &&
	    !memcmp(buf, magic, sizeof(magic) - 1))
		rc = read_ibnd_cache(src, f, &d);
	else if (!rc)
		rc = kr_net_parse(buf, len, name, f, &d);
	free(buf);
	if (rc)
		return cli_error(&d);
	rc = read_name_map(f);
	if (rc)
		kr_fabric_free(f);	/* as a fabric that did not read */
	return rc;
}

int cli_write(const char *path, kr_writer_fn *fn, const void *ctx)
{
	struct kr_diag d = { 0 };

	if (!path || !strcmp(path, "-"))
		return fn(stdout, ctx) ? EXIT_USAGE : 0;
	return kr_write_atomic(path, KR_TO_NAMED, fn, ctx, &d) ? cli_error(&d) : 0;
}

unsigned long cli_number(const char *cmd, const char *opt, const char *s,
			 unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi || *s == '-') {
		cli_usage_error(cmd, "%s expects a number from %lu to %lu, not \"%s\"",
				opt, lo, hi, s);
		exit(EXIT_USAGE);
	}
	return v;
}


static int from_dir(const char *cmd, struct cli_inputs *in)
{
	/* ibdiagnet's .lst, .fdbs and .mcfdbs are OpenSM's formats; its .slvl
	 * and .psl are read by content as the other dumps are */
	static const char *const lfts[] = { "lfts.dump", "opensm-lfts.dump",
					    "opensm.fdbs", "ibdiagnet.fdbs",
					    NULL };
	static const char *const sl2vl[] = { "sl2vl.dump", "opensm-sl2vl.dump",
					     "ibdiagnet.slvl", NULL };
	static const char *const psl[] = { "path-sl", "ibdiagnet.psl", NULL };
	static const char *const mfts[] = { "mfts.dump", "opensm.mcfdbs",
					    "ibdiagnet.mcfdbs", NULL };
	static const char *const sm[] = { "ibdiagnet.sm", NULL };
	static const char *const msl[] = { "mcast-sl", NULL };
	static const char *const log[] = { "capture.log", NULL };
	static const char *const ovl[] = { "oper-vls", NULL };
	/* OpenSM's cache, where it shares the dump directory: the LMC that
	 * opensm-subnet.lst leaves out */
	static const char *const g2l[] = { "guid2lid", NULL };
	const char *dir = in->topo;
	struct stat st;

	if (!strcmp(dir, "-"))
		return 0;
	if (stat(dir, &st))
		return cli_input_error(cmd, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return 0;
	in->topo = dir_file(dir, topo_names, in->dir_file[0],
			    sizeof(in->dir_file[0]));
	if (!in->topo)
		return cli_input_error(cmd, "%s: a directory, but without "
				       TOPO_NAMES_TEXT " (a capture holds "
				       "topology.net and lfts.dump, OpenSM's "
				       "dump directory opensm-subnet.lst and, "
				       "with -D 0x40, opensm-lfts.dump, "
				       "ibdiagnet's output ibdiagnet.lst and "
				       "ibdiagnet.fdbs)", dir);
	if (!in->lfts)
		in->lfts = dir_file(dir, lfts, in->dir_file[1],
				    sizeof(in->dir_file[1]));
	if (!in->lfts)
		return cli_input_error(cmd, "%s: no lfts.dump, opensm-lfts.dump, "
				       "opensm.fdbs or ibdiagnet.fdbs, and no "
				       "--lfts", dir);
	if (!in->sl2vl)
		in->sl2vl = dir_file(dir, sl2vl, in->dir_file[2],
				     sizeof(in->dir_file[2]));
	if (!in->path_sl)
		in->path_sl = dir_file(dir, psl, in->dir_file[3],
				       sizeof(in->dir_file[3]));
	if (!in->mfts)
		in->mfts = dir_file(dir, mfts, in->dir_file[4],
				    sizeof(in->dir_file[4]));
	if (!in->mcast_sl)
		in->mcast_sl = dir_file(dir, msl, in->dir_file[5],
					sizeof(in->dir_file[5]));
	in->capture_log = dir_file(dir, log, in->dir_file[6],
				   sizeof(in->dir_file[6]));
	in->oper_vls = dir_file(dir, ovl, in->dir_file[8],
				sizeof(in->dir_file[8]));
	in->sm_file = dir_file(dir, sm, in->dir_file[9], sizeof(in->dir_file[9]));
	if (!in->guid2lid)
		in->guid2lid = dir_file(dir, g2l, in->dir_file[7],
					sizeof(in->dir_file[7]));
	return 0;
}

int cli_read_lids(const char *cmd, const char *topo, const char *guid2lid,
		  const char *lfts, struct kr_fabric *f)
{
	struct kr_diag d = { 0 };

	if (guid2lid && (d.file = guid2lid,
			 kr_guid2lid_read(guid2lid, f, &d)))
		return cli_error(&d);
	if (f->max_lid)
		return 0;
	if (kr_lfts_read_lids(lfts, f, &d))
		return cli_error(&d);
	if (!f->max_lid) {
		d = (struct kr_diag){ .file = topo,
				      .msg = "no LIDs: use a topology with LIDs "
					     "(ibnetdiscover output), --guid2lid, "
					     "or an LFT dump naming port GUIDs" };
		return cli_error(&d);
	}
	fprintf(stderr, "knsroute %s: LIDs taken from the port GUIDs %s "
		"names\n", cmd, lfts);
	return 0;
}

int cli_read_inputs(const char *cmd, struct cli_inputs *in,
		    struct kr_fabric *f, struct kr_tables *t)
{
	struct kr_diag d = { 0 };
	int rc = from_dir(cmd, in);

	if (!rc && !in->lfts)
		rc = cli_usage_error(cmd, "--lfts FILE is required");
	if (!rc && in->mcast_sl && !in->mfts)
		rc = cli_usage_error(cmd, "--mcast-sl needs --mfts: group SLs "
				     "apply to the groups the MFTs hold");
	if (!rc)
		rc = cli_read_fabric(in->topo, f);
	if (!rc)
		rc = cli_read_lids(cmd, in->topo, in->guid2lid, in->lfts, f);
	if (rc)
		return rc;
	cli_progress("reading the tables (%s and what goes with it)", in->lfts);
	if ((in->oper_vls && kr_oper_vls_read(in->oper_vls, f, &d)) ||
	    kr_lfts_read(in->lfts, f, t, &d) ||
	    (in->sl2vl && kr_sl2vl_read(in->sl2vl, f, t, &d)) ||
	    (in->path_sl && kr_path_sl_read(in->path_sl, f, t, &d)) ||
	    (in->mfts && kr_mft_read(in->mfts, f, t, &d)) ||
	    (in->mcast_sl && kr_mcast_sl_read(in->mcast_sl, f, t, &d)))
		return cli_error(&d);
	if (!in->sl2vl)
		fprintf(stderr, "knsroute %s: no SL2VL maps (--sl2vl): every SL "
			"taken as VL 0 on every port\n", cmd);
	if (!in->path_sl)
		fprintf(stderr, "knsroute %s: no path SLs (--path-sl): every "
			"pair taken as SL 0\n", cmd);
	if (in->mfts && !in->mcast_sl && t->nmgroup)
		fprintf(stderr, "knsroute %s: no group SLs (--mcast-sl): every "
			"multicast group taken as SL 0\n", cmd);
	if (kr_tables_assume(t, f))
		return cli_input_error(cmd, "out of memory");
	return 0;
}

/* given[nsw] (NULL: nothing missing) from the dump at path of what. */
static int blocks_whole(const char *cmd, const char *path, const char *what,
			const struct kr_fabric *f, const uint8_t *given)
{
	uint32_t missing = 0, first = 0;

	for (uint32_t n = f->nsw; given && n-- > 0;)
		if (!given[n]) {
			missing++;
			first = n;
		}
	if (!missing)
		return 0;
	fprintf(stderr, "knsroute %s: %s: no %s block for %" PRIu32 " of %"
		PRIu32 " switches, the first 0x%016" PRIx64 " \"%s\": a dump cut "
		"short, or of another fabric\n", cmd, path, what, missing, f->nsw,
		f->guid[first], kr_node_name(f, first));
	return EXIT_USAGE;
}

int cli_lfts_whole(const char *cmd, const char *path,
		   const struct kr_fabric *f, const struct kr_tables *t)
{
	return blocks_whole(cmd, path, "LFT", f, t->lft_given);
}

int cli_mfts_whole(const char *cmd, const char *path,
		   const struct kr_fabric *f, const struct kr_tables *t)
{
	return path ? blocks_whole(cmd, path, "MFT", f, t->mft_given) : 0;
}

/* The port a node stands for: a switch's port 0, a CA's first linked
 * port with a LID. */
static uint32_t node_port(const struct kr_fabric *f, uint32_t n)
{
	if (kr_is_switch(f, n))
		return f->port0[n];
	for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++)
		if (f->peer[s] >= 0 && f->lid[s])
			return s;
	return KR_NONE;
}

static int cmp_name(const void *a, const void *b)
{
	const struct cli_name *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

int cli_names_init(struct cli_names *ix, const struct kr_fabric *f)
{
	ix->n = f->nnode;
	ix->name = malloc(((size_t)f->nnode + 1) * sizeof(*ix->name));
	ix->desc = malloc(((size_t)f->nnode + 1) * sizeof(*ix->desc));
	if (!ix->name || !ix->desc) {
		cli_names_free(ix);
		return -1;
	}
	for (uint32_t n = 0; n < f->nnode; n++) {
		ix->name[n] = (struct cli_name){ kr_node_name(f, n), n };
		ix->desc[n] = (struct cli_name){ kr_node_desc(f, n), n };
	}
	qsort(ix->name, f->nnode, sizeof(*ix->name), cmp_name);
	qsort(ix->desc, f->nnode, sizeof(*ix->desc), cmp_name);
	return 0;
}

void cli_names_free(struct cli_names *ix)
{
	free(ix->name);
	free(ix->desc);
	*ix = (struct cli_names){ 0 };
}

/* The first of v's entries (sorted) for string s, and how many have it. */
static const struct cli_name *find_name(const struct cli_name *v, uint32_t n,
					const char *s, uint32_t *count)
{
	uint32_t lo = 0, hi = n, first;

	while (lo < hi) {	/* the first entry not below s */
		uint32_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].s, s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < n && !strcmp(v[lo].s, s))
		lo++;
	*count = lo - first;
	return *count ? &v[first] : NULL;
}

int cli_resolve_port(const struct kr_fabric *f, const struct cli_names *ix,
		     const char *arg, uint32_t *slot, unsigned *lid)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 0);
	const struct cli_name *hit;
	uint32_t count;

	*lid = 0;
	*slot = KR_NONE;
	/* the first node of that name: a name may name several */
	if ((hit = find_name(ix->name, ix->n, arg, &count)))
		*slot = node_port(f, hit->node);
	/* OpenSM's files and captures name nodes by GUID: the description
	 * (what ibnetdiscover quotes) is what an admin knows them by, if
	 * only one node has it (HCAs often share their vendor's) */
	if (*slot == KR_NONE && (hit = find_name(ix->desc, ix->n, arg, &count))) {
		if (count > 1)
			return -2;
		*slot = node_port(f, hit->node);
	}
	if (*slot == KR_NONE && *arg && !*end && !strncmp(arg, "0x", 2) &&
	    strlen(arg) > 6) {
		/* a port GUID names that very port (the SA's group members
		 * are ports); one node's GUID may be another's port's */
		uint32_t n = kr_node_by_guid(f, v);

		*slot = kr_port_by_guid(f, v);
		if ((*slot == KR_NONE || !f->lid[*slot]) && n != KR_NONE)
			*slot = node_port(f, n);
	} else if (*slot == KR_NONE && *arg && !*end && v <= 0xffff) {
		*slot = kr_port_by_lid(f, (unsigned)v);
		*lid = (unsigned)v;
	}
	return *slot == KR_NONE || !f->lid[*slot] ? -1 : 0;
}
