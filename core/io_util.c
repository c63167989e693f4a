/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Whole-file input for the topology and guid2lid readers (a few bytes per
 * node); the table dumps, per LFT entry, are streamed (dump_util.c). */
#include "kr_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Reads by growing a buffer rather than trusting st_size, so pipes and
 * /proc files work too. */
int kr_slurp(const char *path, char **buf, size_t *len, struct kr_diag *d)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;

	*buf = NULL;
	*len = 0;
	if (d)
		d->file = path;
	if (!fp)
		return kr_fail(d, KR_EIO, 0, "cannot open: %s", strerror(errno));
	for (;;) {
		size_t got;

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
