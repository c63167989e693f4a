/* Line reader and lexical helpers of the dump readers, and OpenSM's GUID
 * order shared by the dump writers. */
#include "dump_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kr_dump.h"
#include "kr_io.h"

int dump_read(const char *path, dump_parse_fn *parse, const struct kr_fabric *f,
	      struct kr_tables *t, struct kr_diag *d)
{
	char *buf;
	size_t len;
	int rc = kr_slurp(path, &buf, &len, d);

	if (!rc)
		rc = parse(buf, len, f, t, d);
	free(buf);
	return rc;
}

void dump_lines_init(struct dump_lines *r, const char *buf, size_t len)
{
	r->p = buf;
	r->end = buf + len;
	r->lineno = 0;
	r->line[0] = '\0';
}

int dump_next_line(struct dump_lines *r, struct kr_diag *d)
{
	const char *nl;
	size_t n;

	if (r->p >= r->end)
		return 0;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
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

static int digit(char c, unsigned base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return v < (int)base ? v : -1;
}

static bool number_base(const char **s, unsigned base, uint64_t max,
			uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int dv;

	if (digit(*p, base) < 0)
		return false;
	while ((dv = digit(*p, base)) >= 0) {
		if (x > (max - (uint64_t)dv) / base)
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
