/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Error codes and diagnostics shared by every part of the core.
 *
 * The core never prints and never exits: it runs inside OpenSM, which must be
 * able to fall back to another engine. A failing call returns a negative
 * enum kr_err and leaves the words in a struct kr_diag that the caller
 * (tools/ or osm_plugin/) prints once. */
#ifndef KR_BASE_H
#define KR_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define KR_NONE UINT32_MAX	/* no node, port, id */

#define KR_ERRORS(X)                                                   \
	X(OK, 0, "success")                                            \
	X(ENOMEM, -1, "out of memory")                                 \
	X(EPARSE, -2, "malformed input")                               \
	X(ETOPO, -3, "topology not recognized")                        \
	X(ENOVL, -4, "not enough data VLs")                            \
	X(ECYCLE, -5, "credit loop")                                   \
	X(EIO, -6, "input/output error")                               \
	X(EINVAL, -7, "invalid argument")                              \
	X(EROUTE, -8, "routing failed")                                \
	X(EASSUMED, -9, "credit loop only through assumed inputs")

enum kr_err {
#define X(name, val, text) KR_##name = (val),
	KR_ERRORS(X)
#undef X
};

const char *kr_strerror(int err);

/* Where and why the core gave up. file names the input being read (not a C
 * file); line is 1-based, 0 when no line applies. msg holds the longest
 * reason the core gives (recognition's, for two families, runs past 300
 * bytes); KR_DIAG_LINE holds it with a path and a line number in front. */
enum { KR_DIAG_MSG = 1024, KR_DIAG_LINE = KR_DIAG_MSG + 4200 };
struct kr_diag {
	const char *file;
	unsigned line;
	char msg[KR_DIAG_MSG];
};

/* Stores the message (if d is not NULL) and returns err, so a failure point
 * reads: return kr_fail(d, KR_EPARSE, lineno, "...", ...); */
int kr_fail(struct kr_diag *d, int err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Makes the array *arr (any object pointer type; arr is its address),
 * with room for *cap items of elem bytes, hold at least n: its room
 * doubles, from 16, until it does, and the items past the old room are
 * zero bytes. KR_OK, or KR_ENOMEM with the array as it was. */
int kr_grow(void *arr, size_t *cap, size_t n, size_t elem);

/* Counting sort of the items 0..n-1 by key[i] < nkey, those keyed KR_NONE
 * left out: the items of one key together, in ascending order, the keys
 * in ascending order or, with rank, as rank[0..nkey-1] lists them. Into
 * out (room for n); returns how many, KR_NONE when out of memory. */
uint32_t kr_sort_by_key(const uint32_t *key, uint32_t n, uint32_t nkey,
			const uint32_t *rank, uint32_t *out);

/* Milliseconds on the monotonic clock, for timing phases. */
double kr_now_ms(void);

/* Formats "FILE:LINE: msg" (or the parts that are known) into buf. */
void kr_diag_format(const struct kr_diag *d, char *buf, size_t len);

/* The greatest common divisor of a and b (a when b is 0). */
static inline uint32_t kr_gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* The fewest bits that count v values (0 for v <= 1). */
static inline unsigned kr_ceil_log2(unsigned v)
{
	unsigned b = 0;

	while ((1u << b) < v)
		b++;
	return b;
}

#endif
