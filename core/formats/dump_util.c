/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Line reader and lexical helpers of the dump readers, and OpenSM's GUID
 * order shared by the dump writers. */
#include "dump_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kr_dump.h"
#include "kr_io.h"

int dump_src_open(struct dump_src *src, const char *path, struct kr_diag *d)
{
	int rc;

	*src = (struct dump_src){ 0 };
	rc = kr_input_open(path, KR_IN_STREAM, &src->fp, d);
	if (rc)
		return rc;
	src->chunk = malloc(DUMP_CHUNK);
	if (!src->chunk) {
		fclose(src->fp);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	return KR_OK;
}

void dump_src_close(struct dump_src *src)
{
	free(src->chunk);
	fclose(src->fp);
}

int dump_read(const char *path, dump_parse_fn *parse, const struct kr_fabric *f,
	      struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src;
	int rc = dump_src_open(&src, path, d);

	if (rc)
		return rc;
	rc = parse(&src, f, t, d);
	dump_src_close(&src);
	return rc;
}

void dump_lines_init(struct dump_lines *r, const struct dump_src *src)
{
	r->fp = src->fp;
	r->chunk = src->chunk;
	r->p = r->fp ? r->chunk : src->buf;
	r->end = r->fp ? r->chunk : src->buf + src->len;
	r->lineno = 0;
	r->line[0] = '\0';
}

/* Moves what is left of the chunk to its start and reads more after it.
 * 0: nothing more came (end of file), 1: some did, KR_EIO. */
static int refill(struct dump_lines *r, struct kr_diag *d)
{
	size_t left = (size_t)(r->end - r->p), got;

	memmove(r->chunk, r->p, left);
	r->p = r->chunk;
	got = fread(r->chunk + left, 1, DUMP_CHUNK - left, r->fp);
	r->end = r->chunk + left + got;
	if (!got && ferror(r->fp))
		return kr_fail(d, KR_EIO, 0, "read error: %s", strerror(errno));
	return got > 0;
}

int dump_next_line(struct dump_lines *r, struct kr_diag *d)
{
	const char *nl;
	size_t n;
	int rc;

	/* a line not yet whole in the chunk: unless the chunk is full (then
	 * the line is too long anyway), read on */
	while (!(nl = memchr(r->p, '\n', (size_t)(r->end - r->p))) && r->fp &&
	       (r->p > r->chunk || r->end < r->chunk + DUMP_CHUNK)) {
		rc = refill(r, d);
		if (rc < 0)
			return rc;
		if (!rc)
			break;
	}
	if (r->p >= r->end)
		return 0;
	n = (size_t)((nl ? nl : r->end) - r->p);
	r->lineno++;
	if (n && r->p[n - 1] == '\r')
		n--;
	if (n >= DUMP_LINE_MAX)
		return kr_fail(d, KR_EPARSE, r->lineno,
			       "line longer than %d characters", DUMP_LINE_MAX - 1);
	if (memchr(r->p, '\0', n))
		return kr_fail(d, KR_EPARSE, r->lineno, "NUL byte in line");
	memcpy(r->line, r->p, n);
	r->line[n] = '\0';
	r->nl = nl != NULL;
	r->p = nl ? nl + 1 : r->end;
	return 1;
}

const char *dump_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

bool dump_blank(const char *s)
{
	return !*dump_skip_ws(s);
}

/* Digit values plus one, 0 for other characters: a table, since dumps
 * have hundreds of millions of hex digits. */
#define D(c, v) [c] = (v) + 1
static const uint8_t digit_val[256] = {
	D('0', 0), D('1', 1), D('2', 2), D('3', 3), D('4', 4), D('5', 5),
	D('6', 6), D('7', 7), D('8', 8), D('9', 9), D('a', 10), D('b', 11),
	D('c', 12), D('d', 13), D('e', 14), D('f', 15), D('A', 10),
	D('B', 11), D('C', 12), D('D', 13), D('E', 14), D('F', 15),
};
#undef D

static int digit(char c, unsigned base)
{
	int v = digit_val[(unsigned char)c] - 1;

	return v < (int)base ? v : -1;
}

static bool number_base(const char **s, unsigned base, uint64_t max,
			uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0, lim = max / base;	/* one division per number: a
						 * dump has hundreds of millions */
	int dv;

	if (digit(*p, base) < 0)
		return false;
	while ((dv = digit(*p, base)) >= 0) {
		if (x > lim || x * base > max - (uint64_t)dv)
			return false;
		x = x * base + (uint64_t)dv;
		p++;
	}
	*s = p;
	*v = x;
	return true;
}

bool dump_number(const char **s, uint64_t max, uint64_t *v)
{
	const char *p = *s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		if (!number_base(&p, 16, max, v))
			return false;
	} else if (!number_base(&p, 10, max, v)) {
		return false;
	}
	*s = p;
	return true;
}

bool dump_hex_guid(const char **s, uint64_t *v)
{
	const char *p = *s;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return false;
	p += 2;
	if (!number_base(&p, 16, UINT64_MAX, v))
		return false;
	*s = p;
	return true;
}

bool dump_match(const char **s, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*s, lit, n))
		return false;
	*s += n;
	return true;
}

/* The GUID as OpenSM's map compares it: its wire (big endian) bytes read
 * as a host integer. */
static uint64_t map_key(uint64_t guid)
{
	unsigned char b[8];
	uint64_t k;

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(guid >> (56 - 8 * i));
	memcpy(&k, b, sizeof(k));
	return k;
}

struct keyed {
	uint64_t key;
	uint32_t id;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

uint32_t *kr_guid_order(const uint64_t *guid, const uint32_t *ids, uint32_t n)
{
	struct keyed *k = malloc((n + 1) * sizeof(*k));
	uint32_t *out = malloc((n + 1) * sizeof(*out));

	if (!k || !out) {
		free(k);
		free(out);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		k[i] = (struct keyed){ .key = map_key(guid[ids[i]]), .id = ids[i] };
	qsort(k, n, sizeof(*k), keyed_cmp);
	for (uint32_t i = 0; i < n; i++)
		out[i] = k[i].id;
	free(k);
	return out;
}

int dump_block_switch(const struct kr_fabric *f, uint64_t guid,
		      unsigned lineno, unsigned *sw_line, uint32_t *sw,
		      struct kr_diag *d)
{
	uint32_t n = kr_node_by_guid(f, guid);

	if (n == KR_NONE)
		return kr_fail(d, KR_EPARSE, lineno,
			       "unknown switch GUID 0x%016" PRIx64, guid);
	if (!kr_is_switch(f, n))
		return kr_fail(d, KR_EPARSE, lineno,
			       "GUID 0x%016" PRIx64 " is \"%s\", not a switch",
			       guid, kr_node_name(f, n));
	if (sw_line[n])
		return kr_fail(d, KR_EPARSE, lineno,
			       "switch \"%s\" dumped twice (first on line %u)",
			       kr_node_name(f, n), sw_line[n]);
	sw_line[n] = lineno;
	*sw = n;
	return KR_OK;
}

uint32_t *dump_switch_order(const struct kr_fabric *f)
{
	uint32_t *ids = malloc((f->nsw + 1) * sizeof(*ids)), *order;

	if (!ids)
		return NULL;
	for (uint32_t i = 0; i < f->nsw; i++)
		ids[i] = i;
	order = kr_guid_order(f->guid, ids, f->nsw);
	free(ids);
	return order;
}
