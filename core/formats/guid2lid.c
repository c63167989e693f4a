/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reader for OpenSM's guid2lid cache (OSM_CACHE_DIR/guid2lid).
 *
 * OpenSM stores each entry as a key line, "0xPORTGUID 0xBASE 0xMAX", and
 * ends it with a blank line; a line that follows a key without a blank line
 * would continue that key's value, so we refuse it rather than drop entries
 * silently. Keys that are not numbers (OpenSM ignores them) are skipped,
 * with their block. The first entry of a GUID wins, as in OpenSM. GUIDs the
 * fabric does not have are ignored: the cache outlives departed nodes.
 *
 * All entries are checked before any LID changes, and a failed re-index
 * puts the old LIDs back, so on error the fabric is as it was. */
#include "kr_io.h"

#include <stdlib.h>
#include <string.h>

#include "parse_net_int.h"

#define LID_MAX 0xBFFF

struct g2l {
	uint32_t slot;
	uint16_t lid;
	uint8_t lmc;
	unsigned line;		/* of its key, for errors */
};

static bool is_number_key(const struct span *s)
{
	struct span t = *s;
	uint64_t v;

	return get_num(&t, 0, UINT64_MAX, &v) &&
	       (t.p == t.e || *t.p == ' ' || *t.p == '\t');
}

/* "0xBASE 0xMAX": the range must be 2^lmc long and aligned to it. */
static int parse_range(struct span *s, unsigned line, struct g2l *e,
		       struct kr_diag *d)
{
	uint64_t base, max;
	unsigned lmc = 0;

	skip_ws(s);
	if (!get_num(s, 0, LID_MAX, &base) || !base)
		return kr_fail(d, KR_EPARSE, line,
			       "expected a base LID from 1 to 0xbfff");
	skip_ws(s);
	if (!get_num(s, 0, LID_MAX, &max) || max < base)
		return kr_fail(d, KR_EPARSE, line, "expected a top LID from "
			       "0x%llx to 0xbfff", (unsigned long long)base);
	skip_ws(s);
	if (s->p != s->e)
		return kr_fail(d, KR_EPARSE, line,
			       "unexpected text after the LID range");
	while (lmc < 7 && (1ull << lmc) < max - base + 1)
		lmc++;
	if ((1ull << lmc) != max - base + 1 || base & ((1u << lmc) - 1))
		return kr_fail(d, KR_EPARSE, line, "LID range 0x%llx-0x%llx is "
			       "not an aligned block of 2^LMC LIDs (LMC <= 7)",
			       (unsigned long long)base, (unsigned long long)max);
	e->lid = (uint16_t)base;
	e->lmc = (uint8_t)lmc;
	return KR_OK;
}

/* One numeric key line; e->slot is KR_NONE for entries to skip. */
static int parse_entry(const struct kr_fabric *f, struct span *s,
		       unsigned line, const uint8_t *seen, struct g2l *e,
		       struct kr_diag *d)
{
	uint64_t guid;

	e->slot = KR_NONE;
	e->line = line;
	get_num(s, 0, UINT64_MAX, &guid);
	if (guid)
		e->slot = kr_port_by_guid(f, guid);
	if (e->slot != KR_NONE && seen[e->slot])
		e->slot = KR_NONE;
	return parse_range(s, line, e, d);
}

enum block { OUTSIDE, IN_ENTRY, IN_SKIPPED };

static int collect(const struct kr_fabric *f, const char *buf, size_t len,
		   struct g2l *out, uint32_t *nout, struct kr_diag *d)
{
	uint8_t *seen = calloc(f->nport ? f->nport : 1, 1);
	const char *p = buf, *end = buf + len;
	enum block at = OUTSIDE;
	unsigned line = 0;
	int rc = seen ? KR_OK : kr_fail(d, KR_ENOMEM, 0, "out of memory");

	*nout = 0;
	while (!rc && p < end) {
		struct span s = next_line(&p, end);
		struct g2l e;

		line++;
		drop_cr(&s);
		if (s.p == s.e) {
			at = OUTSIDE;
		} else if (at == IN_SKIPPED) {
			continue;
		} else if (at == IN_ENTRY || *s.p == ' ' || *s.p == '\t') {
			rc = kr_fail(d, KR_EPARSE, line, "expected a blank line "
				     "between entries and keys in column 1");
		} else if (!is_number_key(&s)) {
			at = IN_SKIPPED;
		} else {
			at = IN_ENTRY;
			rc = parse_entry(f, &s, line, seen, &e, d);
			if (!rc && e.slot != KR_NONE) {
				seen[e.slot] = 1;
				out[(*nout)++] = e;
			}
		}
	}
	free(seen);
	return rc;
}

static bool overlap(const struct g2l *e, uint16_t lid, uint8_t lmc)
{
	return e->lid < lid + (1u << lmc) && lid < e->lid + (1u << e->lmc);
}

/* The line of a LID clash at node bad: of the entries for its ports and
 * those whose range covers one of its LIDs (the other party), the later
 * one, where a reader of the file meets the clash. */
static unsigned clash_line(const struct kr_fabric *f, const struct g2l *e,
			   uint32_t n, uint32_t bad_slot)
{
	uint32_t bad = f->owner[bad_slot];
	unsigned line = 0;

	for (uint32_t i = 0; i < n; i++) {
		bool hit = f->owner[e[i].slot] == bad;

		for (uint32_t s = f->port0[bad]; s < f->port0[bad + 1] && !hit; s++)
			hit = f->lid[s] && overlap(&e[i], f->lid[s], f->lmc[s]);
		if (hit && e[i].line > line)
			line = e[i].line;
	}
	return line;
}

static int apply(struct kr_fabric *f, const struct g2l *e, uint32_t n,
		 struct kr_diag *d)
{
	uint16_t *old_lid = malloc(f->nport * sizeof(*old_lid) + 1);
	uint8_t *old_lmc = malloc(f->nport + 1);
	uint32_t bad;
	int rc;

	if (!old_lid || !old_lmc) {
		free(old_lid);
		free(old_lmc);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	memcpy(old_lid, f->lid, f->nport * sizeof(*old_lid));
	memcpy(old_lmc, f->lmc, f->nport);
	for (uint32_t i = 0; i < n; i++) {
		f->lid[e[i].slot] = e[i].lid;
		f->lmc[e[i].slot] = e[i].lmc;
	}
	rc = kr_fabric_index_lids_at(f, d, &bad);
	if (rc == KR_EPARSE && d)
		d->line = clash_line(f, e, n, bad);
	if (rc) {
		memcpy(f->lid, old_lid, f->nport * sizeof(*old_lid));
		memcpy(f->lmc, old_lmc, f->nport);
		kr_fabric_index_lids(f, NULL);
	}
	free(old_lid);
	free(old_lmc);
	return rc;
}

int kr_guid2lid_read(const char *path, struct kr_fabric *f, struct kr_diag *d)
{
	struct g2l *e = NULL;
	uint32_t n = 0;
	char *buf;
	size_t len;
	int rc;

	rc = kr_slurp(path, KR_IN_STREAM, &buf, &len, d);
	if (rc)
		return rc;
	/* at most one entry per port slot survives */
	e = malloc((f->nport + 1) * sizeof(*e));
	rc = e ? collect(f, buf, len, e, &n, d)
	       : kr_fail(d, KR_ENOMEM, 0, "out of memory");
	if (!rc)
		rc = apply(f, e, n, d);
	free(e);
	free(buf);
	return rc;
}
