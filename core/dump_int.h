/* Shared by the dump readers: one line at a time out of a buffer, and the
 * small lexical helpers every format needs. Not for tools/. */
#ifndef KR_DUMP_INT_H
#define KR_DUMP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kr_base.h"
#include "kr_tables.h"

#define DUMP_LINE_MAX 1024

struct dump_lines {
	const char *p, *end;
	unsigned lineno;
	char line[DUMP_LINE_MAX];	/* current line, NUL-terminated, no '\n' */
};

void dump_lines_init(struct dump_lines *r, const char *buf, size_t len);

typedef int dump_parse_fn(const char *buf, size_t len, const struct kr_fabric *f,
			  struct kr_tables *t, struct kr_diag *d);
/* Slurps path and hands it to parse. */
int dump_read(const char *path, dump_parse_fn *parse, const struct kr_fabric *f,
	      struct kr_tables *t, struct kr_diag *d);
/* 1: a line is in r->line; 0: end of input; KR_EPARSE: line too long or
 * holding a NUL byte (message in d). */
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
