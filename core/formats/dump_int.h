/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the dump readers: one line at a time out of a buffer, and the
 * small lexical helpers every format needs. Not for tools/. */
#ifndef KR_DUMP_INT_H
#define KR_DUMP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kr_base.h"
#include "kr_tables.h"

#define DUMP_LINE_MAX 1024
#define DUMP_CHUNK (1 << 16)	/* bytes read from a file at a time */

/* Where the lines come from: a buffer the caller holds (fp NULL), or a
 * file read a chunk at a time into chunk[DUMP_CHUNK], so that a dump of
 * gigabytes needs no more memory than one of kilobytes. */
struct dump_src {
	const char *buf;
	size_t len;
	FILE *fp;
	char *chunk;
};

struct dump_lines {
	const char *p, *end;	/* bytes not yet taken */
	FILE *fp;		/* NULL: all of them are in [p, end) */
	char *chunk;
	unsigned lineno;
	char line[DUMP_LINE_MAX];	/* current line, NUL-terminated, no '\n' */
	bool nl;		/* the current line ended in '\n': the input
				 * did not stop inside it */
};

/* Opens path for reading as a stream; d->file becomes path. */
int dump_src_open(struct dump_src *src, const char *path, struct kr_diag *d);
void dump_src_close(struct dump_src *src);
void dump_lines_init(struct dump_lines *r, const struct dump_src *src);

typedef int dump_parse_fn(const struct dump_src *src, const struct kr_fabric *f,
			  struct kr_tables *t, struct kr_diag *d);
/* dump_src_open, parse, dump_src_close. */
int dump_read(const char *path, dump_parse_fn *parse, const struct kr_fabric *f,
	      struct kr_tables *t, struct kr_diag *d);
/* 1: a line is in r->line; 0: end of input; KR_EPARSE: line too long or
 * holding a NUL byte, KR_EIO: read error (message in d). */
int dump_next_line(struct dump_lines *r, struct kr_diag *d);

const char *dump_skip_ws(const char *s);
bool dump_blank(const char *s);
/* Reads an unsigned number (decimal, or hex after 0x) at *s, at most max;
 * advances *s. false when there is none or it is too big. */
bool dump_number(const char **s, uint64_t max, uint64_t *v);
/* Reads "0x" and hex digits (up to 16). */
bool dump_hex_guid(const char **s, uint64_t *v);
/* Consumes the literal text lit at *s. */
bool dump_match(const char **s, const char *lit);
/* The switch a block header on line lineno names by GUID, into *sw, once:
 * sw_line[switch] records the header's line, and a second block for the
 * same switch is an error naming the first. */
int dump_block_switch(const struct kr_fabric *f, uint64_t guid,
		      unsigned lineno, unsigned *sw_line, uint32_t *sw,
		      struct kr_diag *d);
/* The switches in OpenSM's dump order (kr_guid_order); NULL when out of
 * memory. */
uint32_t *dump_switch_order(const struct kr_fabric *f);

#endif
