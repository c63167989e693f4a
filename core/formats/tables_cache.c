/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tables cache: what a restarted plugin must know of the tables the
 * switches still hold to repair as the running one would (kr_repair's
 * prev). That is every LID's SL, the pair SLs, the destinations fault
 * repair made, in its order, and the entries it wrote over kr_route's;
 * the rest is the dimension-order route, which the plan makes again
 * (kr_tables_refill). Only a repair writes pair SLs and entries, so a
 * fabric without faults costs a line per switch and per 64 LIDs.
 *
 * Columns are keyed by the switches' GUIDs and LIDs by their ports'
 * GUIDs, and every CA port's LID and LMC are kept, so that a cache from
 * before LIDs were handed out anew (an LMC change moves every CA LID), or
 * from another fabric, is refused rather than read onto the wrong ports. It
 * only steers the repair's choices: whatever it says, the tables built on
 * it are proven before they are installed. */
#include "kr_io.h"

#include <stdlib.h>
#include <string.h>

#include "dump_int.h"
#include "parse_net_int.h"

#define SLS_PER_LINE 64
#define LID_LIMIT 0xc000	/* unicast LIDs end below the multicast ones */

/* "dest LID 0xPORTGUID SWITCH:PORT ..." of a repaired destination: its
 * fixes are t's from *k on, and *k moves past them. */
static void put_dest(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t, unsigned lid, size_t *k)
{
	uint32_t port = kr_port_by_lid(f, lid);

	/* the tables are f's: a repaired LID is one of its ports' */
	if (port != KR_NONE)
		fprintf(out, "dest %u 0x%016llx", lid,
			(unsigned long long)f->port_guid[port]);
	for (; *k < t->nfixes && t->fixes[*k].lid == lid; ++*k) {
		const struct kr_lft_fix *x = &t->fixes[*k];

		if (port == KR_NONE)
			continue;
		if (x->port == KR_NO_PORT)
			fprintf(out, " %u:-", x->sw);
		else
			fprintf(out, " %u:%u", x->sw, x->port);
	}
	if (port != KR_NONE)
		putc('\n', out);
}

int kr_tables_cache_write(FILE *out, const struct kr_fabric *f,
			  const struct kr_tables *t)
{
	fprintf(out, "# knsroute tables cache: the tables in force, for the "
		"next start (knsroute.conf(5), tables_cache)\nlids %u\n",
		t->stride);
	if (t->repair_pass)
		fprintf(out, "pass %u\n", t->repair_pass);
	for (unsigned lid = 1; t->dlid_sl && lid < t->stride; lid++) {
		if (lid % SLS_PER_LINE == 1)
			fprintf(out, "%ssl %u ", lid > 1 ? "\n" : "", lid);
		putc("0123456789abcdef"[t->dlid_sl[lid] & 0xf], out);
	}
	if (t->dlid_sl && t->stride > 1)
		putc('\n', out);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		fprintf(out, "switch 0x%016llx %u\n",
			(unsigned long long)f->guid[sw], f->lid[f->port0[sw]]);
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		if (f->lid[s])
			fprintf(out, "ca 0x%016llx %u %u\n",
				(unsigned long long)f->port_guid[s], f->lid[s],
				f->lmc[s]);
	for (size_t i = 0, k = 0; i < t->nrepaired; i++)
		put_dest(out, f, t, t->repaired[i], &k);
	for (size_t i = 0; i < t->npair_sl; i++)
		fprintf(out, "pair %u %u %u\n", t->pair_sl[i].slid,
			t->pair_sl[i].dlid, t->pair_sl[i].sl);
	return ferror(out) ? KR_EIO : KR_OK;
}

struct tread {
	const struct kr_fabric *f;
	struct kr_tables *t;
	struct kr_diag *d;
	unsigned line;
	uint32_t file_lids;	/* its "lids"; 0 until read */
	uint32_t *col_sw;	/* file column -> switch of f, KR_NONE */
	uint32_t ncol, nknown;
	size_t cap_col, cap_pair, cap_fix;	/* kr_grow's */
	uint8_t *dest_line_of;	/* [stride] 1: a "dest" line named the LID */
	bool dests_seen;
};

static int expected(struct tread *r, const char *what)
{
	return kr_fail(r->d, KR_EPARSE, r->line, "expected %s", what);
}

static bool word_end(const struct span *s)
{
	return s->p == s->e || *s->p == ' ' || *s->p == '\t';
}

static bool number(struct span *s, unsigned base, uint64_t max, uint64_t *v)
{
	skip_ws(s);
	return get_num(s, base, max, v) && word_end(s);
}

/* A LID of the file (below its "lids"), into *lid. */
static bool file_lid(struct tread *r, struct span *s, unsigned *lid)
{
	uint64_t v;

	if (!number(s, 10, r->file_lids - 1, &v) || !v)
		return false;
	*lid = (unsigned)v;
	return true;
}

static bool at_end(struct span *s)
{
	skip_ws(s);
	return s->p == s->e;
}

static int read_sls(struct tread *r, struct span *s)
{
	unsigned lid;

	if (!file_lid(r, s, &lid))
		return expected(r, "a first LID after \"sl\"");
	skip_ws(s);
	for (; s->p < s->e && *s->p != ' ' && *s->p != '\t'; s->p++, lid++) {
		unsigned sl = digit(*s->p);

		if (sl >= KR_NSL || (sl > 9 && *s->p < 'a'))
			return expected(r, "one SL per LID, 0-9 or a-f");
		if (lid >= r->file_lids)
			return kr_fail(r->d, KR_EPARSE, r->line, "SLs run past "
				       "LID %u (\"lids %u\")", r->file_lids - 1,
				       r->file_lids);
		if (lid < r->t->stride)
			r->t->dlid_sl[lid] = (uint8_t)sl;
	}
	return at_end(s) ? KR_OK : expected(r, "the SLs as one word");
}

static int read_switch(struct tread *r, struct span *s)
{
	const struct kr_fabric *f = r->f;
	uint64_t guid, lid;
	uint32_t sw;

	if (r->dests_seen)
		return expected(r, "every \"switch\" line before the first "
				"\"dest\"");
	if (!number(s, 16, UINT64_MAX, &guid) ||
	    !number(s, 10, LID_LIMIT - 1, &lid) || !at_end(s))
		return expected(r, "\"switch 0xGUID LID\"");
	if (kr_grow(&r->col_sw, &r->cap_col, (size_t)r->ncol + 1,
		    sizeof(*r->col_sw)))
		return kr_fail(r->d, KR_ENOMEM, 0, "out of memory");
	sw = kr_node_by_guid(f, guid);
	if (sw != KR_NONE && !kr_is_switch(f, sw))
		sw = KR_NONE;
	if (sw != KR_NONE && f->lid[f->port0[sw]] != lid)
		return kr_fail(r->d, KR_EINVAL, r->line, "switch 0x%016llx has "
			       "LID %u, not %llu: the LIDs were handed out "
			       "anew since", (unsigned long long)guid,
			       f->lid[f->port0[sw]], (unsigned long long)lid);
	r->col_sw[r->ncol++] = sw;
	r->nknown += sw != KR_NONE;
	return KR_OK;
}

/* A CA port's LID and LMC when the cache was written: a port of f
 * with others means the LIDs were handed out anew; a port gone since
 * says nothing. */
static int read_ca(struct tread *r, struct span *s)
{
	const struct kr_fabric *f = r->f;
	uint64_t guid, lid, lmc;
	uint32_t slot;

	if (!number(s, 16, UINT64_MAX, &guid) ||
	    !number(s, 10, LID_LIMIT - 1, &lid) || !number(s, 10, 7, &lmc) ||
	    !at_end(s))
		return expected(r, "\"ca 0xPORTGUID LID LMC\"");
	slot = kr_port_by_guid(f, guid);
	if (slot == KR_NONE || kr_is_switch(f, f->owner[slot]) ||
	    (f->lid[slot] == lid && f->lmc[slot] == lmc))
		return KR_OK;
	return kr_fail(r->d, KR_EINVAL, r->line, "port 0x%016llx has LID %u "
		       "LMC %u, not LID %llu LMC %llu: the LIDs were handed "
		       "out anew since", (unsigned long long)guid, f->lid[slot],
		       f->lmc[slot], (unsigned long long)lid,
		       (unsigned long long)lmc);
}

/* One "SWITCH:PORT" of a dest line into t->fixes, unless the switch is
 * gone. */
static int read_fix(struct tread *r, struct span *s, unsigned lid, bool keep)
{
	struct kr_tables *t = r->t;
	uint64_t k, port = KR_NO_PORT;

	skip_ws(s);
	if (!get_num(s, 10, UINT32_MAX, &k) || !eat(s, ':') ||
	    (!eat(s, '-') && !get_num(s, 10, KR_NO_PORT - 1, &port)) ||
	    !word_end(s))
		return expected(r, "SWITCH:PORT (PORT \"-\" for none) after "
				"\"dest LID 0xPORTGUID\"");
	if (k >= r->ncol)
		return kr_fail(r->d, KR_EPARSE, r->line, "switch %llu: the "
			       "\"switch\" lines number 0 to %u",
			       (unsigned long long)k, r->ncol - 1);
	if (!keep || r->col_sw[k] == KR_NONE)
		return KR_OK;
	if (kr_grow(&t->fixes, &r->cap_fix, t->nfixes + 1, sizeof(*t->fixes)))
		return kr_fail(r->d, KR_ENOMEM, 0, "out of memory");
	t->fixes[t->nfixes++] = (struct kr_lft_fix){
		r->col_sw[k], (uint16_t)lid, (uint8_t)port };
	return KR_OK;
}

static int read_dest(struct tread *r, struct span *s)
{
	const struct kr_fabric *f = r->f;
	struct kr_tables *t = r->t;
	unsigned lid;
	uint64_t guid;
	uint32_t slot;
	bool keep;
	int rc = KR_OK;

	r->dests_seen = true;
	if (!file_lid(r, s, &lid) || !number(s, 16, UINT64_MAX, &guid))
		return expected(r, "\"dest LID 0xPORTGUID\"");
	slot = kr_port_by_lid(f, lid);
	if (slot != KR_NONE && f->port_guid[slot] != guid)
		return kr_fail(r->d, KR_EINVAL, r->line, "LID %u is port "
			       "0x%016llx's, not 0x%016llx's: the LIDs were "
			       "handed out anew since", lid,
			       (unsigned long long)f->port_guid[slot],
			       (unsigned long long)guid);
	/* a destination gone since has no column to keep */
	keep = slot != KR_NONE && lid < t->stride;
	if (keep && r->dest_line_of[lid])
		return kr_fail(r->d, KR_EPARSE, r->line, "LID %u has a "
			       "\"dest\" line already", lid);
	while (!rc && !at_end(s))
		rc = read_fix(r, s, lid, keep);
	if (rc || !keep)
		return rc;
	r->dest_line_of[lid] = 1;
	t->repaired[t->nrepaired++] = (uint16_t)lid;
	return KR_OK;
}

static int read_pair(struct tread *r, struct span *s)
{
	struct kr_tables *t = r->t;
	unsigned slid, dlid;
	uint64_t sl;

	if (!file_lid(r, s, &slid) || !file_lid(r, s, &dlid) ||
	    !number(s, 10, KR_NSL - 1, &sl) || !at_end(s))
		return expected(r, "\"pair SLID DLID SL\"");
	if (slid >= t->stride || dlid >= t->stride)
		return KR_OK;
	if (kr_grow(&t->pair_sl, &r->cap_pair, t->npair_sl + 1,
		    sizeof(*t->pair_sl)))
		return kr_fail(r->d, KR_ENOMEM, 0, "out of memory");
	t->pair_sl[t->npair_sl++] = (struct kr_sl_pair){
		(uint16_t)slid, (uint16_t)dlid, (uint8_t)sl };
	return KR_OK;
}

/* "pass N": which of the repair's passes made the tables. */
static int read_pass(struct tread *r, struct span *s)
{
	uint64_t n;

	if (!number(s, 10, UINT8_MAX, &n) || !n || !at_end(s))
		return expected(r, "\"pass N\" (N from 1)");
	r->t->repair_pass = (uint8_t)n;
	return KR_OK;
}

static int read_line(struct tread *r, struct span *s)
{
	uint64_t n;

	skip_ws(s);
	if (s->p == s->e || *s->p == '#')
		return KR_OK;
	if (!r->file_lids) {
		if (!eat_word(s, "lids") || !number(s, 10, LID_LIMIT, &n) ||
		    n < 2 || !at_end(s))
			return expected(r, "\"lids N\" (LIDs 0 to N-1) first");
		r->file_lids = (uint32_t)n;
		return KR_OK;
	}
	if (eat_word(s, "sl") && word_end(s))
		return read_sls(r, s);
	if (eat_word(s, "switch") && word_end(s))
		return read_switch(r, s);
	if (eat_word(s, "ca") && word_end(s))
		return read_ca(r, s);
	if (eat_word(s, "dest") && word_end(s))
		return read_dest(r, s);
	if (eat_word(s, "pair") && word_end(s))
		return read_pair(r, s);
	if (eat_word(s, "pass") && word_end(s))
		return read_pass(r, s);
	return expected(r, "\"sl\", \"switch\", \"ca\", \"dest\", "
			"\"pair\" or \"pass\"");
}

int kr_tables_cache_read(const char *path, const struct kr_fabric *f,
			 struct kr_tables *t, struct kr_diag *d)
{
	struct tread r = { .f = f, .t = t, .d = d };
	char *buf;
	size_t len;
	int rc;

	*t = (struct kr_tables){ 0 };
	rc = kr_slurp(path, KR_IN_CACHE, &buf, &len, d);
	if (rc)
		return rc;
	t->nsw = f->nsw;
	t->stride = f->max_lid + 1;
	if (!(t->dlid_sl = calloc(t->stride, 1)) ||
	    !(t->repaired = malloc(t->stride * sizeof(*t->repaired))) ||
	    !(r.dest_line_of = calloc(t->stride, 1)))
		rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (const char *p = buf, *end = buf + len; !rc && p < end;) {
		struct span s = next_line(&p, end);

		r.line++;
		drop_cr(&s);
		rc = read_line(&r, &s);
	}
	if (!rc && !r.file_lids)
		rc = kr_fail(d, KR_EPARSE, r.line, "expected \"lids N\": the "
			     "file is empty");
	if (!rc && r.ncol && !r.nknown)
		rc = kr_fail(d, KR_EINVAL, 0, "none of its %u switches is in "
			     "the subnet: another fabric's", r.ncol);
	if (!rc)
		rc = kr_tables_sort_pairs(t, d);
	free(r.col_sw);
	free(r.dest_line_of);
	free(buf);
	if (rc)
		kr_tables_free(t);
	return rc;
}
