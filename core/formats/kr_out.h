/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Formatted output for the dump writers without printf: a dump is millions
 * of short lines, and printf's parsing of its format string per field cost
 * more than the bytes themselves. Text goes into a large buffer by hand
 * (decimal and hex digits, padding) and leaves in few large fwrite()s,
 * which stdio hands to write() whole. Not for tools/. */
#ifndef KR_OUT_H
#define KR_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Bytes handed to fwrite() at a time. Small enough to come from the heap
 * and stay in the cache the kernel copies from: a 1 MiB buffer was a
 * fresh mapping for every file, faulted in page by page (the dry run of
 * an 8x8x8 torus with 2 CAs per switch took 0.25 ms longer with it). */
#define KR_OUT_BUF (1u << 16)

struct kr_out {
	FILE *fp;		/* the caller's stream */
	size_t n;		/* bytes waiting in buf */
	char *buf;		/* [KR_OUT_BUF] */
};

/* Starts writing to fp, after what it holds. KR_ENOMEM. */
int kr_out_open(struct kr_out *o, FILE *fp);
/* Writes what is left and frees the buffer: KR_OK, or KR_EIO when fp
 * has an error (ferror; errno says why when a write here failed). fp
 * stays open. */
int kr_out_close(struct kr_out *o);
/* Sends buf on its way, leaving it empty. */
void kr_out_flush(struct kr_out *o);
/* What kr_out_put does when buf has no room for len bytes. */
void kr_out_put_long(struct kr_out *o, const char *s, size_t len);

/* len bytes of s, of any length. Inline, as the writers' many short
 * strings (mostly of constant length) cost their call more than their
 * copy. */
static inline void kr_out_put(struct kr_out *o, const char *s, size_t len)
{
	if (len > KR_OUT_BUF - o->n) {
		kr_out_put_long(o, s, len);
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

/* Room for need bytes (need <= KR_OUT_BUF) at the returned position;
 * kr_out_end() then says where the caller's text ended. */
static inline char *kr_out_room(struct kr_out *o, size_t need)
{
	if (o->n + need > KR_OUT_BUF)
		kr_out_flush(o);
	return o->buf + o->n;
}

static inline void kr_out_end(struct kr_out *o, const char *end)
{
	o->n = (size_t)(end - o->buf);
}

static inline void kr_out_str(struct kr_out *o, const char *s)
{
	kr_out_put(o, s, strlen(s));
}

static inline void kr_out_ch(struct kr_out *o, char c)
{
	*kr_out_room(o, 1) = c;
	o->n++;
}

/* Digit writers into p (room checked by the caller), returning the end.
 * Decimal as %u; hex as %0*x (at least width digits, lower case, or
 * upper case for %0*X), width 0 as %x. */
static inline char *kr_fmt_u(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);

	do {
		*--t = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
	return p + (tmp + sizeof(tmp) - t);
}

char *kr_fmt_hex(char *p, uint64_t v, unsigned width, int upper);

/* %u, and %0*x / %0*X as kr_fmt_hex. */
static inline void kr_out_u(struct kr_out *o, uint64_t v)
{
	kr_out_end(o, kr_fmt_u(kr_out_room(o, 20), v));
}

static inline void kr_out_hex(struct kr_out *o, uint64_t v, unsigned width,
			      int upper)
{
	kr_out_end(o, kr_fmt_hex(kr_out_room(o, 16 + width), v, width, upper));
}

/* Output gathered from where it lies, for a writer whose text is mostly
 * ready-made (the LFT dump: every switch's block is the same lines with
 * other ports): pieces are handed to the kernel about KR_GATHER_BYTES at
 * a time by writev(), without a copy. A write() costs the kernel a few
 * microseconds whatever its size, so a file written in ~100 KB pieces
 * costs it half as much again as one written in 1 MiB pieces. Into a
 * regular file every write but the last ends at a multiple of
 * KR_GATHER_ALIGN, the bytes after it copied aside for the next one, and
 * the file's blocks are reserved ahead (kr_gather_expect): page-cache and
 * allocation work the file system then does in larger pieces. Both are
 * tuned to how Linux file systems (ext4) take writes, not to knsroute's
 * data, so they are kept only because they pay where dumps are large: a
 * dry run of 10,000 CAs or more takes a tenth longer without them. Both
 * are hints that fall back to plain writes wherever they cannot be
 * taken. Streams without a file descriptor (memory streams) get each
 * piece by fwrite(). */
#define KR_GATHER_BYTES (1u << 20)
#define KR_GATHER_IOV 256
#define KR_GATHER_ALIGN (1u << 16)
struct kr_gather {
	FILE *fp;
	int fd;			/* fp's, -1: none, or stdio's turn */
	int failed;		/* stdio failed: ferror(fp), errno */
	int n;
	size_t bytes;		/* in v[0 .. n) */
	off_t at;		/* where v[0] goes in a regular file, else -1 */
	off_t reserved;		/* kr_gather_expect's end, 0: none */
	char *carry;		/* [KR_GATHER_ALIGN] the bytes a write left
				 * for the next; NULL: writes unaligned */
	struct iovec v[KR_GATHER_IOV];
};

/* Starts after what fp holds (flushed first). */
void kr_gather_open(struct kr_gather *g, FILE *fp);
/* Tells a regular file that at most bytes more will come, so that the
 * file system allocates them in one go: a large write then costs the
 * kernel about a quarter less (ext4's per-page delayed allocation). A
 * hint: ignored where it cannot be taken (not a regular file, no space,
 * no support); the file's size stays what is written, and
 * kr_gather_close gives back what was reserved past it. */
void kr_gather_expect(struct kr_gather *g, uint64_t bytes);
/* len bytes at p, which must stay as they are until the next flush (a
 * full batch flushes by itself). */
void kr_gather_add(struct kr_gather *g, const void *p, size_t len);
/* Writes what is pending, but for up to KR_GATHER_ALIGN - 1 bytes it
 * copies aside: the pieces added so far may change after it. */
void kr_gather_flush(struct kr_gather *g);
/* Writes what is pending and frees what the gather holds; KR_OK, or
 * KR_EIO with errno (or ferror(fp)) saying why. */
int kr_gather_close(struct kr_gather *g);

#endif
