/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The memo of the last columns repaired: the CAs of one switch mostly
 * share a column, so its repair is made once and taken again. */
#include "kr_repair.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "repair_int.h"

/* The LIDs of one switch's CAs (and LMC ranges) mostly share one of a few
 * columns but for the last hop (LMC orders, and ring ties where the CA
 * slots split them, route.c): the
 * last few distinct columns of the switch at hand are kept with their
 * repairs, and the SLs their dependencies went in on. r->live still holds
 * the switch's distances then. */
static uint8_t *memo_col(struct repair *r, unsigned way, unsigned which)
{
	return r->memo_buf + ((size_t)way * 3 + which) * r->nsw;
}

enum { MEMO_PRISTINE, MEMO_REPAIRED, MEMO_LVL };
#define KEPT_WAY UINT_MAX	/* memo_anchor of a way no other LID recalls */

/* Finds x's pristine column (in r->col) among those kept; makes it the
 * current one. */
int repair_recall(struct repair *r, const struct rdest *x)
{
	uint32_t t = x->target;
	uint8_t keep = r->col[t];

	if (r->memo_target != t) {
		r->memo_target = t;
		r->nmemo = 0;
		return 0;
	}
	for (unsigned w = 0; w < r->nmemo; w++) {
		const uint8_t *p = memo_col(r, w, MEMO_PRISTINE);
		int same;

		if (r->memo_anchor[w] != r->cur_anchor)
			continue;
		r->col[t] = p[t];
		same = !memcmp(r->col, p, r->nsw);
		r->col[t] = keep;
		if (same) {
			r->memo_cur = w;
			return 1;
		}
	}
	return 0;
}

/* Keeps r->col as a new pristine column of x's switch, in the oldest
 * way once all are taken. */
void repair_remember(struct repair *r, const struct rdest *x)
{
	unsigned w = r->nmemo < MEMO_WAYS ? r->nmemo++ : r->memo_next++ % MEMO_WAYS;

	r->memo_target = x->target;
	r->memo_cur = w;
	memcpy(memo_col(r, w, MEMO_PRISTINE), r->col, r->nsw);
	r->memo_anchor[w] = r->cur_anchor;
	r->memo_cut[w] = 0;
	r->memo_walked[w] = 0;
	memset(r->memo_sls[w], 0, sizeof(r->memo_sls[w]));
	memset(r->memo_bad[w], 0, sizeof(r->memo_bad[w]));
}

void repair_walk_once(struct repair *r, const struct rdest *x)
{
	uint32_t *kept = r->memo_dist + (size_t)r->memo_cur * r->nsw;

	if (r->memo_walked[r->memo_cur]) {
		memcpy(r->dist, kept, r->nsw * sizeof(*r->dist));
		return;
	}
	repair_walk(r, r->col, x, r->dist);
	memcpy(kept, r->dist, r->nsw * sizeof(*r->dist));
	r->memo_walked[r->memo_cur] = 1;
}

/* The current column's repair as x's column, x's own last hop. */
void repair_reuse(struct repair *r, const struct rdest *x)
{
	memcpy(r->col, memo_col(r, r->memo_cur, MEMO_REPAIRED), r->nsw);
	memcpy(r->lvl, memo_col(r, r->memo_cur, MEMO_LVL), r->nsw);
	memcpy(r->dist, r->memo_dist + (size_t)r->memo_cur * r->nsw,
	       r->nsw * sizeof(*r->dist));
	r->col[x->target] = (uint8_t)x->local;
}

/* x's repair as keep_routes made it, when it kept it: the column and
 * levels repair_column would make again, or those of the other anchoring
 * when they were in force. */
static bool kept_column(struct repair *r, const struct rdest *x)
{
	const uint8_t *at;

	if (!r->kept_at || r->kept_at[x->lid] == KR_NONE)
		return false;
	at = r->kept_buf + (size_t)r->kept_at[x->lid] * 2 * r->nsw;
	memcpy(r->col, at, r->nsw);
	memcpy(r->lvl, at + r->nsw, r->nsw);
	repair_live_distances(r, x->target);
	repair_walk(r, r->col, x, r->dist);
	return true;
}

void repair_cached_column(struct repair *r, const struct rdest *x)
{
	bool kept = r->kept_at && r->kept_at[x->lid] != KR_NONE;

	repair_anchor_for(r, x, r->first_mode);
	if (!kept && repair_recall(r, x)) {
		repair_reuse(r, x);
		return;
	}
	repair_remember(r, x);
	/* a kept column may be of the other anchoring: x's alone */
	if (kept && kept_column(r, x))
		r->memo_anchor[r->memo_cur] = KEPT_WAY;
	else
		repair_column(r, x, r->first_mode);
	memcpy(memo_col(r, r->memo_cur, MEMO_REPAIRED), r->col, r->nsw);
	memcpy(memo_col(r, r->memo_cur, MEMO_LVL), r->lvl, r->nsw);
	memcpy(r->memo_dist + (size_t)r->memo_cur * r->nsw, r->dist,
	       r->nsw * sizeof(*r->dist));
}
