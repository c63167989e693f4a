/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Opening any input as its kind allows, reading it line by line or whole
 * (topologies and guid2lid, a few bytes per node; the table dumps, per
 * LFT entry, are streamed by dump_util.c). */
#include <config.h>

#include "kr_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why a file like st is not to be read as kind, NULL when it may be. A
 * device never ends (/dev/zero) or waits for a person (a terminal); a
 * FIFO or socket is a user's pipe, never a cache or a configuration. */
static const char *refused(const struct stat *st, enum kr_input kind)
{
	bool pipe = S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode);

	if (S_ISDIR(st->st_mode))
		return "a directory, not a file";
	if (pipe && kind == KR_IN_STREAM)
		return NULL;
	if (!S_ISREG(st->st_mode))
		return kind == KR_IN_STREAM ? "not a regular file or a pipe"
					    : "not a regular file";
	if (kind != KR_IN_STREAM && (uint64_t)st->st_size > KR_INPUT_MAX)
		return "larger than 1 GiB";
	return NULL;
}

/* Opened without blocking, so that a FIFO with no writer cannot hold the
 * caller (OpenSM's sweep, under its lock) in open(); then told apart by
 * what it is. */
static int input_fd(const char *path, enum kr_input kind, struct kr_diag *d)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
			    (kind == KR_IN_CACHE ? O_NOFOLLOW : 0));
	struct stat st;
	const char *why = NULL;

	if (fd < 0 && errno == ELOOP && kind == KR_IN_CACHE)
		return kr_fail(d, KR_EIO, 0, "a symbolic link; a cache is "
			       "never read through one");
	if (fd < 0)
		return kr_fail(d, KR_EIO, 0, "cannot open: %s", strerror(errno));
	why = fstat(fd, &st) ? strerror(errno) : refused(&st, kind);
	if (!why && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		why = strerror(errno);
	if (why) {
		close(fd);
		return kr_fail(d, KR_EIO, 0, "cannot read: %s", why);
	}
	return fd;
}

int kr_input_open(const char *path, enum kr_input kind, FILE **fp,
		  struct kr_diag *d)
{
	int fd;

	*fp = NULL;
	if (d)
		d->file = path;
	fd = input_fd(path, kind, d);
	if (fd < 0)
		return fd;
	*fp = fdopen(fd, "rb");
	if (!*fp) {
		close(fd);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	return KR_OK;
}

int kr_input_line(FILE *fp, char *buf, size_t size, unsigned line,
		  struct kr_diag *d)
{
	size_t n = 0;
	int c;

	while ((c = getc(fp)) != EOF && c != '\n') {
		if (c == '\0')
			return kr_fail(d, KR_EPARSE, line, "NUL byte in line");
		if (n + 1 >= size)
			return kr_fail(d, KR_EPARSE, line, "line longer than %zu "
				       "characters", size - 2);
		buf[n++] = (char)c;
	}
	if (ferror(fp))
		return kr_fail(d, KR_EIO, line, "read error: %s",
			       strerror(errno));
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return c != EOF || n;
}

/* Reads by growing a buffer rather than trusting st_size, so pipes and
 * /proc files work too; a pipe that never ends is cut at KR_INPUT_MAX. */
int kr_slurp(const char *path, enum kr_input kind, char **buf, size_t *len,
	     struct kr_diag *d)
{
	FILE *fp;
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int rc = kr_input_open(path, kind, &fp, d);

	*buf = NULL;
	*len = 0;
	if (rc)
		return rc;
	for (;;) {
		size_t got;

		if (n > KR_INPUT_MAX) {
			free(b);
			fclose(fp);
			return kr_fail(d, KR_EIO, 0, "cannot read: larger than "
				       "1 GiB");
		}
		if (!b || n + 1 >= cap) {
			char *nb = realloc(b, b ? cap *= 2 : cap);

			if (!nb) {
				free(b);
				fclose(fp);
				return kr_fail(d, KR_ENOMEM, 0, "out of memory");
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n - 1, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		int err = errno;

		free(b);
		fclose(fp);
		return kr_fail(d, KR_EIO, 0, "read error: %s", strerror(err));
	}
	fclose(fp);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return KR_OK;
}

void kr_json_version(FILE *out)
{
	fputs("\"version\": \"" PACKAGE_VERSION "\"", out);
}

void kr_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
