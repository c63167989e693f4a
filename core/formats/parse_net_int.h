/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Lexing helpers shared by the line-oriented readers in core/ (topology
 * files, the guid2lid cache). They work on [p, e) spans of a buffer that
 * need not be NUL-terminated, so no strtoul. */
#ifndef KR_PARSE_NET_INT_H
#define KR_PARSE_NET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kr_fabric.h"

struct span {
	const char *p, *e;	/* [p, e) of the input */
};

/* The line at *p, without its '\n', and *p past it. */
static inline struct span next_line(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	struct span s = { *p, nl ? nl : end };

	*p = nl ? nl + 1 : end;
	return s;
}

/* s without the '\r' of a CRLF line end. */
static inline void drop_cr(struct span *s)
{
	if (s->e > s->p && s->e[-1] == '\r')
		s->e--;
}

static inline void skip_ws(struct span *s)
{
	while (s->p < s->e && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

static inline bool starts(const struct span *s, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(s->e - s->p) >= n && !memcmp(s->p, word, n);
}

/* starts, and s moves past the word when it does. */
static inline bool eat_word(struct span *s, const char *word)
{
	if (!starts(s, word))
		return false;
	s->p += strlen(word);
	return true;
}

static inline bool eat(struct span *s, char c)
{
	if (s->p < s->e && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

static inline unsigned digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 99;
}

/* An unsigned number no larger than max. base 0 follows strtoul (0x hex,
 * leading 0 octal), which is what ibsim uses; base 16 takes an optional 0x.
 * False when there is no digit or the value is too large. */
static inline bool get_num(struct span *s, unsigned base, uint64_t max,
			   uint64_t *v)
{
	const char *p = s->p;
	uint64_t x = 0;

	if ((base == 0 || base == 16) && s->e - p > 2 && p[0] == '0' &&
	    (p[1] == 'x' || p[1] == 'X') && digit(p[2]) < 16) {
		base = 16;
		p += 2;
	} else if (base == 0) {
		base = p < s->e && *p == '0' ? 8 : 10;
	}
	if (p == s->e || digit(*p) >= base)
		return false;
	for (; p < s->e && digit(*p) < base; p++) {
		unsigned dg = digit(*p);

		if (dg > max || x > (max - dg) / base)
			return false;
		x = x * base + dg;
	}
	s->p = p;
	*v = x;
	return true;
}

/* OpenSM's opensm-subnet.lst (parse_lst.c): told apart by its first line,
 * read through kr_net_parse like any topology. */
bool lst_detect(const char *buf, size_t len);
int lst_parse(const char *buf, size_t len, const char *name,
	      struct kr_fabric *f, struct kr_diag *d);

/* iblinkinfo output, plain or -l (parse_ibl.c): told apart by its first
 * line too. */
bool ibl_detect(const char *buf, size_t len);
int ibl_parse(const char *buf, size_t len, const char *name,
	      struct kr_fabric *f, struct kr_diag *d);

#endif
