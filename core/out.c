/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Buffered, printf-free output of the dump writers (out_int.h). */
#define _GNU_SOURCE	/* fallocate */
#include "out_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

void kr_out_put_long(struct kr_out *o, const char *s, size_t len)
{
	while (len > KR_OUT_BUF - o->n) {
		size_t room = KR_OUT_BUF - o->n;

		memcpy(o->buf + o->n, s, room);
		o->n = KR_OUT_BUF;
		kr_out_flush(o);
		s += room;
		len -= room;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

void kr_gather_open(struct kr_gather *g, FILE *fp)
{
	g->fp = fp;
	g->failed = fflush(fp) != 0;
	g->fd = fileno(fp);
	g->n = 0;
	g->bytes = 0;
}

void kr_gather_expect(struct kr_gather *g, uint64_t bytes)
{
	struct stat st;
	off_t at;

	if (g->fd < 0 || fstat(g->fd, &st) || !S_ISREG(st.st_mode) ||
	    (at = lseek(g->fd, 0, SEEK_CUR)) < 0)
		return;
	/* KEEP_SIZE: a write cut short leaves no tail of zeros */
	(void)fallocate(g->fd, FALLOC_FL_KEEP_SIZE, at + (off_t)g->bytes,
			(off_t)bytes);
}

/* writev() of the pending pieces, resuming after short writes; the
 * index of the first piece not (wholly) written, which a failed writev()
 * leaves to stdio, and so does every later flush: stdio then fails the
 * same way and keeps the error as the stream's (ferror), where callers
 * look for it. */
static int gather_write(struct kr_gather *g)
{
	struct iovec *v = g->v;
	int i = 0;

	while (i < g->n) {
		ssize_t done = writev(g->fd, v + i, g->n - i);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			g->fd = -1;
			return i;
		}
		while (i < g->n && (size_t)done >= v[i].iov_len)
			done -= (ssize_t)v[i++].iov_len;
		if (i < g->n) {
			v[i].iov_base = (char *)v[i].iov_base + done;
			v[i].iov_len -= (size_t)done;
		}
	}
	return i;
}

void kr_gather_flush(struct kr_gather *g)
{
	for (int i = g->fd >= 0 ? gather_write(g) : 0; i < g->n && !g->failed;
	     i++)
		g->failed = fwrite(g->v[i].iov_base, 1, g->v[i].iov_len,
				   g->fp) != g->v[i].iov_len;
	g->n = 0;
	g->bytes = 0;
}

void kr_gather_add(struct kr_gather *g, const void *p, size_t len)
{
	if (!len)
		return;
	g->v[g->n++] = (struct iovec){ (void *)p, len };
	g->bytes += len;
	if (g->n == KR_GATHER_IOV || g->bytes >= KR_GATHER_BYTES)
		kr_gather_flush(g);
}

int kr_gather_close(struct kr_gather *g)
{
	kr_gather_flush(g);
	return g->failed || ferror(g->fp) ? KR_EIO : KR_OK;
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
