#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_error(const struct kr_diag *d)
{
	char buf[512];

	kr_diag_format(d, buf, sizeof(buf));
	fprintf(stderr, "knsroute: %s\n", buf);
	return EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "knsroute %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'knsroute %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int cli_read_fabric(const char *path, struct kr_fabric *f)
{
	struct kr_diag d = { .file = path };

	if (kr_net_read(path, f, &d))
		return cli_error(&d);
	return 0;
}

FILE *cli_out_open(struct cli_out *o, const char *path)
{
	*o = (struct cli_out){ 0 };
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return o->fp;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%ld", path, (long)getpid());
	o->fp = fopen(o->tmp, "w");
	if (!o->fp)
		fprintf(stderr, "knsroute: %s: %s\n", o->tmp, strerror(errno));
	return o->fp;
}

int cli_out_commit(struct cli_out *o)
{
	int bad;

	if (o->fp == stdout)
		return fflush(stdout) ? -1 : 0;
	bad = ferror(o->fp);
	if (fclose(o->fp))
		bad = 1;
	o->fp = NULL;
	if (bad || rename(o->tmp, o->path)) {
		fprintf(stderr, "knsroute: cannot write %s: %s\n", o->path,
			strerror(errno ? errno : EIO));
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

void cli_out_abort(struct cli_out *o)
{
	if (!o->fp || o->fp == stdout)
		return;
	fclose(o->fp);
	o->fp = NULL;
	unlink(o->tmp);
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
