/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Buffered, printf-free output of the dump writers (out_int.h). */
#define _GNU_SOURCE	/* fallocate */
#include "out_int.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "kr_base.h"

int kr_out_open(struct kr_out *o, FILE *fp)
{
	*o = (struct kr_out){ .fp = fp };
	o->buf = malloc(KR_OUT_BUF);
	return o->buf ? KR_OK : KR_ENOMEM;
}

/* fwrite of a whole buffer bypasses stdio's own small one (glibc writes
 * the multiple of its block size directly), and leaves errors where the
 * callers look for them: ferror(fp), errno. */
static void out_write(struct kr_out *o, const char *s, size_t len)
{
	if (!ferror(o->fp))	/* else the file is lost already */
		fwrite(s, 1, len, o->fp);
}

void kr_out_flush(struct kr_out *o)
{
	out_write(o, o->buf, o->n);
	o->n = 0;
}

int kr_out_close(struct kr_out *o)
{
	kr_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	return ferror(o->fp) ? KR_EIO : KR_OK;
}

void kr_out_put(struct kr_out *o, const char *s, size_t len)
{
	if (len >= KR_OUT_DIRECT) {
		kr_out_flush(o);
		out_write(o, s, len);
		return;
	}
	if (o->n + len > KR_OUT_BUF)
		kr_out_flush(o);
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

void kr_out_expect(struct kr_out *o, uint64_t bytes)
{
	int fd = fileno(o->fp);
	struct stat st;
	off_t at;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (at = ftello(o->fp)) < 0)
		return;
	/* KEEP_SIZE: a write cut short leaves no tail of zeros */
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, at + (off_t)o->n,
			(off_t)bytes);
}

char *kr_fmt_u(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);

	do {
		*--t = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
	return p + (tmp + sizeof(tmp) - t);
}

char *kr_fmt_hex(char *p, uint64_t v, unsigned width, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned n = 1;

	while (n < 16 && v >> 4 * n)
		n++;
	if (n < width)
		n = width;
	for (unsigned i = n; i-- > 0; v >>= 4)
		p[i] = digits[v & 15];
	return p + n;
}

void kr_out_u(struct kr_out *o, uint64_t v)
{
	kr_out_end(o, kr_fmt_u(kr_out_room(o, 20), v));
}

void kr_out_hex(struct kr_out *o, uint64_t v, unsigned width, int upper)
{
	kr_out_end(o, kr_fmt_hex(kr_out_room(o, 16 + width), v, width, upper));
}
