/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What every layout needs: lists that grow, straight links between placed
 * switches, a place for the switches a layout had none for. */
#include "draw_int.h"

#include <stdlib.h>
#include <string.h>

int draw_layout_init(struct kr_draw_layout *l, const struct kr_fabric *f,
		     uint32_t nmissing)
{
	*l = (struct kr_draw_layout){ .nbox = f->nsw };
	l->box = calloc((size_t)f->nsw + nmissing + 1, sizeof(*l->box));
	l->slot_half = malloc(((size_t)f->nport + 1) * sizeof(*l->slot_half));
	if (!l->box || !l->slot_half) {
		kr_draw_layout_free(l);
		return KR_ENOMEM;
	}
	for (uint32_t s = 0; s < f->nsw; s++)
		l->box[s].sw = s;
	for (uint32_t p = 0; p < f->nport; p++)
		l->slot_half[p] = KR_NONE;
	return KR_OK;
}

void kr_draw_layout_free(struct kr_draw_layout *l)
{
	free(l->box);
	free(l->half);
	free(l->text);
	free(l->slot_half);
	*l = (struct kr_draw_layout){ 0 };
}

int draw_add_half(struct kr_draw_layout *l, uint32_t slot, double x1,
		  double y1, double x2, double y2)
{
	if (kr_grow(&l->half, &l->half_cap, l->nhalf + 1, sizeof(*l->half)))
		return KR_ENOMEM;
	if (slot != KR_NONE)
		l->slot_half[slot] = l->nhalf;
	l->half[l->nhalf++] = (struct kr_draw_half){ x1, y1, x2, y2, slot };
	return KR_OK;
}

int draw_add_text(struct kr_draw_layout *l, double x, double y, const char *s)
{
	if (kr_grow(&l->text, &l->text_cap, l->ntext + 1, sizeof(*l->text)))
		return KR_ENOMEM;
	l->text[l->ntext] = (struct kr_draw_text){ .x = x, .y = y };
	snprintf(l->text[l->ntext].s, sizeof(l->text[0].s), "%s", s);
	l->ntext++;
	return KR_OK;
}

static double cx(const struct kr_draw_box *b)
{
	return b->x + b->w / 2;
}

static double cy(const struct kr_draw_box *b)
{
	return b->y + b->h / 2;
}

int draw_plain_links(struct kr_draw_layout *l, const struct kr_fabric *f)
{
	for (uint32_t slot = 0; slot < f->port0[f->nsw]; slot++) {
		int32_t peer = f->peer[slot];
		const struct kr_draw_box *a, *b;
		double mx, my;

		/* a link a layout drew in part (one end's tick) stays so */
		if (peer < (int32_t)slot || !kr_is_switch(f, f->owner[peer]) ||
		    l->slot_half[slot] != KR_NONE ||
		    l->slot_half[peer] != KR_NONE)
			continue;
		a = &l->box[f->owner[slot]];
		b = &l->box[f->owner[peer]];
		if (a == b)
			continue;	/* a cable between two ports of one
					 * switch carries nothing */
		mx = (cx(a) + cx(b)) / 2;
		my = (cy(a) + cy(b)) / 2;
		if (draw_add_half(l, slot, cx(a), cy(a), mx, my) ||
		    draw_add_half(l, (uint32_t)peer, cx(b), cy(b), mx, my))
			return KR_ENOMEM;
	}
	return KR_OK;
}

void draw_place_rest(struct kr_draw_layout *l, const struct kr_fabric *f)
{
	double top = 0, x = DRAW_MARGIN, right = DRAW_MARGIN + 12 * 60.0;

	for (uint32_t i = 0; i < l->nbox; i++)
		if (l->box[i].w > 0 && l->box[i].y + l->box[i].h > top)
			top = l->box[i].y + l->box[i].h;
	if (l->width > right)
		right = l->width;
	top += top > 0 ? DRAW_MARGIN + DRAW_CAPTION : DRAW_MARGIN;
	for (uint32_t s = 0; s < f->nsw; s++) {
		struct kr_draw_box *b = &l->box[s];

		if (b->w > 0)
			continue;
		b->w = strlen(b->tag) * 5.6 + 8 > DRAW_BOX_W ?
		       strlen(b->tag) * 5.6 + 8 : DRAW_BOX_W;
		if (x + b->w > right) {
			x = DRAW_MARGIN;
			top += 2 * DRAW_BOX_H;
		}
		b->x = x;
		b->y = top;
		b->h = DRAW_BOX_H;
		x += b->w + 16;
	}
}

void draw_fit(struct kr_draw_layout *l)
{
	for (uint32_t i = 0; i < l->nbox; i++) {
		const struct kr_draw_box *b = &l->box[i];

		if (b->x + b->w + DRAW_MARGIN > l->width)
			l->width = b->x + b->w + DRAW_MARGIN;
		if (b->y + b->h + DRAW_MARGIN > l->height)
			l->height = b->y + b->h + DRAW_MARGIN;
	}
	for (uint32_t i = 0; i < l->nhalf; i++) {
		const struct kr_draw_half *h = &l->half[i];
		double x = h->x1 > h->x2 ? h->x1 : h->x2;
		double y = h->y1 > h->y2 ? h->y1 : h->y2;

		if (x + DRAW_MARGIN / 2 > l->width)
			l->width = x + DRAW_MARGIN / 2;
		if (y + DRAW_MARGIN / 2 > l->height)
			l->height = y + DRAW_MARGIN / 2;
	}
}
