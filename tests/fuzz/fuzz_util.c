/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#define _GNU_SOURCE	/* memfd_create */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *data_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", KR_FUZZ_DATA, name);
	return path;
}

void fuzz_fabric(const char *name, struct kr_fabric *f)
{
	struct kr_diag d = { 0 };
	char msg[512];

	if (kr_net_read(data_path(name), f, &d)) {
		kr_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "fuzz: %s\n", msg);
		abort();
	}
}

const char *fuzz_text(const char *name, size_t *len)
{
	struct kr_diag d = { 0 };
	char *buf;

	if (kr_slurp(data_path(name), KR_IN_STREAM, &buf, len, &d)) {
		fprintf(stderr, "fuzz: %s: %s\n", name, d.msg);
		abort();
	}
	return buf;
}

const char *fuzz_path(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("kr-fuzz", 0);
		if (fd < 0) {
			perror("fuzz: memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz: writing the input");
		abort();
	}
	return path;
}

FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null && !(null = fopen("/dev/null", "w"))) {
		perror("fuzz: /dev/null");
		abort();
	}
	return null;
}

int fuzz_check(int rc, const struct kr_diag *d)
{
	char msg[512];

	if (rc && !d->msg[0]) {
		fprintf(stderr, "fuzz: refused (%s) without a reason\n",
			kr_strerror(rc));
		abort();
	}
	kr_diag_format(d, msg, sizeof(msg));
	return rc;
}

void fuzz_tables(const uint8_t *data, size_t size, const struct kr_fabric *f,
		 int sized, fuzz_parse_fn *parse, fuzz_write_fn *write)
{
	struct kr_tables t = { 0 };
	struct kr_diag d = { 0 };

	if (sized && kr_tables_init(&t, f, f->max_lid + 1, 0, 0))
		abort();
	if (!fuzz_check(parse((const char *)data, size, f, &t, &d), &d))
		write(fuzz_null(), f, &t);
	kr_tables_free(&t);
}
