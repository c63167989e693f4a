/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The thesis' measure for `knsroute faults` (faults.h). */
#include "faults.h"

#include <string.h>

/* Does the fault set leave every cut CA pair a dimension-order route
 * through at most one (two) intermediate routers, as the thesis counts
 * them? Decided on kr_route's tables, before repair and without regard to
 * credit loops: a yardstick independent of what the repair then keeps. */

enum { R_UNKNOWN, R_BUSY, R_YES, R_NO };

/* The switch a CA port slot is linked to now, else KR_NONE. */
static uint32_t ca_switch(const struct kr_fabric *f, uint32_t s)
{
	int32_t q = f->peer[s];

	return q < 0 || !kr_is_switch(f, f->owner[q]) ? KR_NONE : f->owner[q];
}

/* The switch delivering a LID: its owner, or the switch its CA port hangs
 * off; KR_NONE if neither. */
static uint32_t lid_switch(const struct kr_fabric *f, unsigned lid)
{
	uint32_t s = kr_port_by_lid(f, lid);

	if (s == KR_NONE)
		return KR_NONE;
	return kr_is_switch(f, f->owner[s]) ? f->owner[s] : ca_switch(f, s);
}

static uint32_t lft_next(const struct kr_fabric *f, const struct kr_tables *t,
			 uint32_t sw, unsigned lid)
{
	unsigned p = kr_lft_port(t, sw, lid);
	int32_t q = p && p <= f->nports[sw] ? f->peer[f->port0[sw] + p] : -1;

	return q < 0 || !kr_is_switch(f, f->owner[q]) ? KR_NONE : f->owner[q];
}

/* b->reach[S] = R_YES where S's entries for lid lead to its switch. Each
 * switch is followed once; a loop or a cut entry is R_NO. */
static void walk_column(struct bench *b, const struct kr_tables *t,
			unsigned lid)
{
	const struct kr_fabric *f = b->f;
	uint32_t target = lid_switch(f, lid);

	memset(b->reach, R_UNKNOWN, f->nsw);
	for (uint32_t s0 = 0; s0 < f->nsw; s0++) {
		uint32_t n = 0, s = s0;
		uint8_t v;

		for (;;) {
			if (b->reach[s] != R_UNKNOWN) {
				v = b->reach[s] == R_YES ? R_YES : R_NO;
				break;
			}
			b->reach[s] = R_BUSY;
			b->queue[n++] = s;
			if (s == target) {
				v = R_YES;
				break;
			}
			if ((s = lft_next(f, t, s, lid)) == KR_NONE) {
				v = R_NO;
				break;
			}
		}
		while (n)
			b->reach[b->queue[--n]] = v;
	}
}

static int meets(const uint64_t *x, const uint64_t *y, uint32_t words)
{
	for (uint32_t w = 0; w < words; w++)
		if (x[w] & y[w])
			return 1;
	return 0;
}

/* okrow, and the CA sources behind each switch in the faulty fabric. */
static void prepare_measure(struct bench *b, const struct kr_tables *t)
{
	const struct kr_fabric *f = b->f;

	memset(b->nsrc, 0, f->nsw * sizeof(*b->nsrc));
	for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++)
		if (f->lid[s] && ca_switch(f, s) != KR_NONE)
			b->nsrc[ca_switch(f, s)]++;
	b->ni = 0;
	for (uint32_t s = 0; s < f->nsw; s++)
		if (b->topo->sw_pos[s] != KR_NONE && f->lid[f->port0[s]])
			b->isw[b->ni++] = s;
	b->words = b->ni / 64 + 1;
	memset(b->okrow, 0, (size_t)f->nsw * b->words * sizeof(*b->okrow));
	for (uint32_t i = 0; i < b->ni; i++) {
		walk_column(b, t, f->lid[f->port0[b->isw[i]]]);
		for (uint32_t s = 0; s < f->nsw; s++)
			if (b->reach[s] == R_YES)
				b->okrow[(size_t)s * b->words + i / 64] |=
					1ull << (i % 64);
	}
}

/* Clears *le1 (*le2) when a source switch cut from lid has no way there
 * through one (two) intermediates. */
static void judge_dest(struct bench *b, const struct kr_tables *t,
		       unsigned lid, int *le1, int *le2)
{
	uint32_t words = b->words;
	int have_xd = 0;

	walk_column(b, t, lid);
	memset(b->bd, 0, words * sizeof(*b->bd));
	for (uint32_t i = 0; i < b->ni; i++)
		if (b->reach[b->isw[i]] == R_YES)
			b->bd[i / 64] |= 1ull << (i % 64);
	for (uint32_t s = 0; s < b->f->nsw && *le2; s++) {
		const uint64_t *row = b->okrow + (size_t)s * words;

		if (!b->nsrc[s] || b->reach[s] == R_YES || meets(row, b->bd, words))
			continue;
		*le1 = 0;
		if (!have_xd) {		/* I1 with a way to some I2 in bd */
			memset(b->xd, 0, words * sizeof(*b->xd));
			for (uint32_t i = 0; i < b->ni; i++)
				if (meets(b->okrow + (size_t)b->isw[i] * words,
					  b->bd, words))
					b->xd[i / 64] |= 1ull << (i % 64);
			have_xd = 1;
		}
		*le2 = meets(row, b->xd, words);
	}
}

void faults_thesis_measure(struct bench *b, const struct kr_tables *t,
			   int *le1, int *le2)
{
	const struct kr_fabric *f = b->f;

	*le1 = *le2 = 1;
	prepare_measure(b, t);
	for (uint32_t s = f->port0[f->nsw]; s < f->nport && *le2; s++) {
		if (!f->lid[s] || ca_switch(f, s) == KR_NONE)
			continue;
		for (unsigned l = f->lid[s];
		     *le2 && l < f->lid[s] + (1u << f->lmc[s]); l++)
			judge_dest(b, t, l, le1, le2);
	}
	*le1 = *le1 && *le2;
}
