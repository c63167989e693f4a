/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Buffered, printf-free output of the dump writers (kr_out.h). */
#define _GNU_SOURCE	/* fallocate */
#include "kr_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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
	struct stat st;

	*g = (struct kr_gather){ .fp = fp, .failed = fflush(fp) != 0,
				 .fd = fileno(fp), .at = -1 };
	if (g->fd >= 0 && !fstat(g->fd, &st) && S_ISREG(st.st_mode) &&
	    (g->at = lseek(g->fd, 0, SEEK_CUR)) >= 0)
		g->carry = malloc(KR_GATHER_ALIGN);	/* or unaligned */
}

void kr_gather_expect(struct kr_gather *g, uint64_t bytes)
{
	if (g->at < 0 || g->fd < 0)
		return;
	/* KEEP_SIZE: a write cut short leaves no tail of zeros */
	if (!fallocate(g->fd, FALLOC_FL_KEEP_SIZE, g->at + (off_t)g->bytes,
		       (off_t)bytes))
		g->reserved = g->at + (off_t)(g->bytes + bytes);
}

/* writev() of pieces v[0 .. n), resuming after short writes; the index of
 * the first piece not (wholly) written, which a failed writev() leaves to
 * stdio, and so does every later flush: stdio then fails the same way and
 * keeps the error as the stream's (ferror), where callers look for it. */
static int gather_write(struct kr_gather *g, int n)
{
	struct iovec *v = g->v;
	int i = 0;

	while (i < n) {
		ssize_t done = writev(g->fd, v + i, n - i);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			g->fd = -1;
			return i;
		}
		while (i < n && (size_t)done >= v[i].iov_len)
			done -= (ssize_t)v[i++].iov_len;
		if (i < n) {
			v[i].iov_base = (char *)v[i].iov_base + done;
			v[i].iov_len -= (size_t)done;
		}
	}
	return i;
}

static void to_stdio(struct kr_gather *g, const struct iovec *p)
{
	if (!g->failed)
		g->failed = fwrite(p->iov_base, 1, p->iov_len, g->fp) !=
			    p->iov_len;
}

/* Writes all but the last keep pending bytes, which move to g->carry and
 * stay pending (keep < KR_GATHER_ALIGN). */
static void flush_keep(struct kr_gather *g, size_t keep)
{
	struct iovec *v = g->v, rest;
	size_t cut = g->bytes - keep, sum = 0;
	int k = 0, i, n;
	bool split;		/* piece k is cut: its tail, rest, stays */
	char *to;

	while (k < g->n && sum + v[k].iov_len <= cut)	/* wholly written */
		sum += v[k++].iov_len;
	split = cut > sum;
	n = k + split;
	if (split) {
		rest = (struct iovec){ (char *)v[k].iov_base + (cut - sum),
				       v[k].iov_len - (cut - sum) };
		v[k].iov_len = cut - sum;
	}
	i = g->fd >= 0 ? gather_write(g, n) : 0;
	if (i < n) {		/* stdio's turn, for all that is left */
		for (; i < n; i++)
			to_stdio(g, &v[i]);
		if (split)
			to_stdio(g, &rest);
		for (i = n; i < g->n; i++)
			to_stdio(g, &v[i]);
		free(g->carry);
		g->carry = NULL;
		g->n = 0;
		g->bytes = 0;
		return;
	}
	if (split)
		v[k] = rest;
	/* memmove: the first piece kept may lie in carry already */
	for (to = g->carry; k < g->n; k++) {
		memmove(to, v[k].iov_base, v[k].iov_len);
		to += v[k].iov_len;
	}
	g->at += (off_t)cut;
	g->bytes = keep;
	g->n = keep > 0;
	v[0] = (struct iovec){ g->carry, keep };
}

void kr_gather_flush(struct kr_gather *g)
{
	size_t keep = 0;

	/* to the last boundary after v[0]'s place, else nothing written */
	if (g->carry) {
		keep = (size_t)((g->at + (off_t)g->bytes) % KR_GATHER_ALIGN);
		if (keep > g->bytes)
			keep = g->bytes;
	}
	flush_keep(g, keep);
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
	off_t end;

	flush_keep(g, 0);
	free(g->carry);
	g->carry = NULL;
	/* blocks reserved past the end stay the file's until a truncate,
	 * even one to the size it has (ext4) */
	if (g->reserved && g->fd >= 0 &&
	    (end = lseek(g->fd, 0, SEEK_CUR)) >= 0 && end < g->reserved &&
	    ftruncate(g->fd, end))
		g->failed = 1;
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
