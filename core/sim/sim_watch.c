/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The deadlock watchdog's witness: the cycle of waiting channels.
 *
 * A channel is a sending port and a VL, as in `knsroute check`; its
 * buffer is at the far end of the link. The head of that buffer waits for
 * the channel it leaves by (its output port, its VL there) when that one
 * has no room for it. In FIFO mode each buffer has one head, so "waits
 * for" is a function and a walk from any blocked channel either ends or
 * closes a cycle; with VOQs the first blocked queue of a buffer stands for
 * it. The cycle found is the one the deadlock is made of: every channel in
 * it is full and waits for the next. */
#include "sim_int.h"

#include <stdlib.h>

/* The channel the buffer of channel c's head waits for, or SIM_NIL when
 * nothing in it waits (empty, at a CA, or not blocked). */
static uint32_t waits_for(const struct sim *s, uint32_t c)
{
	const struct kr_fabric *f = s->f;
	uint32_t slot = c / s->nvl, in = (uint32_t)f->peer[slot];
	uint32_t node = f->owner[in];
	unsigned vl = c % s->nvl;

	if (!kr_is_switch(f, node) || s->bubble)
		return SIM_NIL;	/* the bubble router's escape cannot block */
	for (unsigned out = 1; out <= f->nports[node]; out++) {
		size_t q = (size_t)in * s->nvl + vl;
		uint32_t h = s->voq ? s->voq[q * s->maxp + out].head
				    : s->inq[q].head;
		uint32_t o, oc;

		if (h == SIM_NIL || s->pkt[h].out != out)
			continue;
		o = kr_port(f, node, out);
		oc = o * s->nvl + s->pkt[h].ovl;
		if (s->credits[oc] < (int32_t)s->o->pkt ||
		    (s->oq && s->oq_used[oc] + s->o->pkt > s->o->oq))
			return oc;
	}
	return SIM_NIL;
}

static int keep_cycle(struct sim *s, uint32_t start)
{
	struct kr_sim_result *r = s->r;
	uint32_t n = 0, c = start;

	do {
		n++;
		c = waits_for(s, c);
	} while (c != start);
	r->cycle_slot = malloc(n * sizeof(*r->cycle_slot));
	r->cycle_vl = malloc(n);
	if (!r->cycle_slot || !r->cycle_vl)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < n; i++, c = waits_for(s, c)) {
		r->cycle_slot[i] = c / s->nvl;
		r->cycle_vl[i] = (uint8_t)(c % s->nvl);
	}
	r->ncycle = n;
	return 0;
}

/* Walks from every channel; mark[c] is the walk that first reached c, so
 * meeting one's own mark closes a cycle and meeting another's ends the
 * walk (that part was explored). No cycle: a stall of another kind (a VL
 * with no arbitration weight), reported with an empty cycle. */
int sim_find_cycle(struct sim *s)
{
	size_t nch = (size_t)s->f->nport * s->nvl;
	uint32_t *mark = malloc(nch * sizeof(*mark));
	int rc = 0;

	if (!mark)
		return KR_ENOMEM;
	for (size_t c = 0; c < nch; c++)
		mark[c] = SIM_NIL;
	for (uint32_t c0 = 0; c0 < nch; c0++) {
		uint32_t c = c0;

		if (s->f->peer[c0 / s->nvl] < 0)
			continue;
		while (c != SIM_NIL && mark[c] == SIM_NIL) {
			mark[c] = c0;
			c = waits_for(s, c);
		}
		if (c != SIM_NIL && mark[c] == c0) {
			rc = keep_cycle(s, c);
			break;
		}
	}
	free(mark);
	return rc;
}
