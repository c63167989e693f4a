/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the layouts: growing a layout's lists, and the geometry every
 * picture uses. */
#ifndef KR_DRAW_INT_H
#define KR_DRAW_INT_H

#include "kr_draw.h"

#define DRAW_MARGIN 34.0	/* px round the picture, room for stubs */
#define DRAW_BOX_H 24.0		/* a switch's box */
#define DRAW_BOX_W 44.0
#define DRAW_CAPTION 18.0	/* a slice's caption above it */

/* Boxes for every switch (unplaced) and the slot index; KR_ENOMEM. */
int draw_layout_init(struct kr_draw_layout *l, const struct kr_fabric *f,
		     uint32_t nmissing);
int draw_add_half(struct kr_draw_layout *l, uint32_t slot, double x1,
		  double y1, double x2, double y2);
int draw_add_text(struct kr_draw_layout *l, double x, double y,
		  const char *s);
/* Straight halves, centre to middle, for the links between two placed
 * switches that have none yet; the picture's size from its boxes. */
int draw_plain_links(struct kr_draw_layout *l, const struct kr_fabric *f);
void draw_fit(struct kr_draw_layout *l);
/* Switches still without a place (w == 0), in rows below the rest. */
void draw_place_rest(struct kr_draw_layout *l, const struct kr_fabric *f);

/* One member of a JSON object as the report shows it: the key, and the
 * value's text (a string without its quotes, escapes left in). */
struct draw_json_member {
	const char *key, *val;
	unsigned nkey, nval;
	char kind;		/* 's' string, 'n' number, literal, '[' or
				 * '{' (text is the whole array or object) */
};
/* The object at s + *at (white space before it skipped): up to max
 * members into m, their count returned, *at just past it. -1 when it is
 * not a JSON object, *at at the offending byte. */
int draw_json_object(const char *s, size_t *at, struct draw_json_member *m,
		     unsigned max);

#endif
