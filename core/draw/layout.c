/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A recognised fabric laid out by its coordinates.
 *
 * Dimension x runs right and y down inside a slice; each combination of
 * the coordinates beyond the first two is one slice, and the slices fill
 * rows of a block as near square as their count allows, in the order of
 * their positions (z fastest). A link along x or y is a line between
 * neighbours; a ring's wraparound is a stub leaving each end towards the
 * slice's edge; a link along a higher dimension is a short tick at each
 * end, its angle telling the dimension and its direction (the legend
 * says which). A KNS line's crossbar is a bar under its row (x) or beside
 * its column (y), each router joined to it straight across; with
 * fat-tree subnets each stage is a row of shorter bars, one per switch,
 * further out; crossbars of higher dimensions sit below the grid. */
#include "draw_int.h"

#include <stdlib.h>
#include <string.h>

struct grid {			/* where slices and cells go */
	const struct kr_topo *t;
	unsigned k0, k1, cols;
	double cell, slice_w, slice_h, gap;
};

static void grid_init(struct grid *g, const struct kr_topo *t)
{
	unsigned nslice;

	g->t = t;
	g->k0 = t->k[0];
	g->k1 = t->ndim > 1 ? t->k[1] : 1;
	nslice = t->npos / (g->k0 * g->k1);
	g->cols = 1;
	while (g->cols * g->cols < nslice)
		g->cols++;
	g->cell = t->family == KR_FAMILY_KNS ? 100.0 + 14.0 * (t->s - 1) : 80.0;
	g->slice_w = g->k0 * g->cell;
	g->slice_h = g->k1 * g->cell;
	g->gap = 0.6 * g->cell;
}

/* The top-left corner of the slice holding pos. */
static void slice_origin(const struct grid *g, uint32_t pos, double *x,
			 double *y)
{
	unsigned si = pos / (g->k0 * g->k1);

	*x = DRAW_MARGIN + (si % g->cols) * (g->slice_w + g->gap);
	*y = DRAW_MARGIN + DRAW_CAPTION +
	     (si / g->cols) * (g->slice_h + g->gap + DRAW_CAPTION);
}

static void centre(const struct grid *g, uint32_t pos, double *x, double *y)
{
	slice_origin(g, pos, x, y);
	*x += (pos % g->k0 + 0.5) * g->cell;
	*y += (pos / g->k0 % g->k1 + 0.5) * g->cell;
}

/* The unit vector of direction dir (2d: +, 2d+1: -) in the picture: x
 * and y along the axes, higher dimensions at 45, 135, 67.5, 157.5, 22.5
 * and 112.5 degrees (the picture's y runs down). */
static void direction(unsigned dir, double *dx, double *dy)
{
	static const double tick[][2] = {
		{ 0.7071, -0.7071 }, { -0.7071, -0.7071 }, { 0.3827, -0.9239 },
		{ -0.9239, -0.3827 }, { 0.9239, -0.3827 }, { -0.3827, -0.9239 } };
	unsigned d = dir / 2;
	double sign = dir % 2 ? -1 : 1;

	if (d < 2) {
		*dx = d == 0 ? sign : 0;
		*dy = d == 1 ? sign : 0;
		return;
	}
	*dx = sign * tick[(d - 2) % 6][0];
	*dy = sign * tick[(d - 2) % 6][1];
}

static void place_box(struct kr_draw_box *b, double x, double y,
		      const char *tag)
{
	size_t n = strlen(tag);
	double w = n * 5.6 + 8 > DRAW_BOX_W ? n * 5.6 + 8 : DRAW_BOX_W;

	b->x = x - w / 2;
	b->y = y - DRAW_BOX_H / 2;
	b->w = w;
	b->h = DRAW_BOX_H;
	snprintf(b->tag, sizeof(b->tag), "%s", tag);
}

/* A KNS subnet switch of line (dim, line) at stage e, order o of m: a bar
 * under the row (dim 0) or beside the column (dim 1). */
static void bar(const struct grid *g, struct kr_draw_box *b, unsigned dim,
		uint32_t line, unsigned e, unsigned o, unsigned m)
{
	double x, y, len = (dim ? g->k1 : g->k0) * g->cell - 8;

	centre(g, line, &x, &y);
	if (dim == 0) {
		b->x = x - g->cell / 2 + 4 + o * len / m + 2;
		b->y = y + DRAW_BOX_H / 2 + 10 + 14.0 * e;
		b->w = len / m - 4;
		b->h = 7;
	} else {
		b->x = x + DRAW_BOX_W / 2 + 10 + 14.0 * e;
		b->y = y - g->cell / 2 + 4 + o * len / m + 2;
		b->w = 7;
		b->h = len / m - 4;
	}
	b->tag[0] = '\0';
}

/* Where a router at pos meets the stage-0 bar of its line in dim. */
static void attach(const struct grid *g, uint32_t pos, unsigned dim,
		   double *x, double *y)
{
	struct kr_draw_box b;
	uint32_t line = pos - kr_topo_coord(g->t, pos, dim) * g->t->stride[dim];

	bar(g, &b, dim, line, 0, 0, 1);
	centre(g, pos, x, y);
	if (dim == 0)
		*y = b.y;
	else
		*x = b.x;
}

static void place_switches(const struct grid *g, struct kr_draw_layout *l,
			   const struct kr_fabric *f)
{
	const struct kr_topo *t = g->t;
	char tag[64];
	double x, y;

	for (uint32_t s = 0; s < f->nsw; s++) {
		unsigned xd = t->sw_xdim ? t->sw_xdim[s] : KR_NO_DIM, m;

		if (t->sw_pos[s] != KR_NONE) {
			centre(g, t->sw_pos[s], &x, &y);
			kr_topo_fmt_pos(t, t->sw_pos[s], KR_NO_DIM, tag,
					sizeof(tag));
			place_box(&l->box[s], x, y, tag);
		} else if (xd < 2 && xd < t->ndim) {
			m = t->s > 1 ? t->k[xd] / t->arity : 1;
			bar(g, &l->box[s], xd, t->sw_xline[s],
			    t->sw_stage ? t->sw_stage[s] : 0,
			    t->sw_order ? t->sw_order[s] % m : 0, m);
		} else if (xd < t->ndim) {
			/* placed below the grid; its line said in its box */
			kr_topo_fmt_pos(t, t->sw_xline[s], xd, l->box[s].tag,
					sizeof(l->box[s].tag));
		}
	}
}

static int place_missing(const struct grid *g, struct kr_draw_layout *l)
{
	const struct kr_topo *t = g->t;
	char tag[64];
	double x, y;

	for (uint32_t i = 0; i < t->nmissing_sw; i++) {
		const struct kr_missing_sw *m = &t->missing_sw[i];
		struct kr_draw_box *b = &l->box[l->nbox];

		if (m->xdim == KR_NO_DIM) {
			centre(g, m->pos, &x, &y);
			kr_topo_fmt_pos(t, m->pos, KR_NO_DIM, tag, sizeof(tag));
			place_box(b, x, y, tag);
		} else if (m->xdim < 2) {
			bar(g, b, m->xdim, m->pos, 0, 0, 1);
		} else {
			continue;	/* counted in the caption */
		}
		b->sw = KR_NONE;
		l->nbox++;
	}
	return KR_OK;
}

/* The half of a grid switch's link that leaves by slot in direction dir,
 * or a missing one (slot KR_NONE): a line to the neighbour's middle, a
 * wraparound stub, a tick or a line to a KNS bar. */
static int grid_half(const struct grid *g, struct kr_draw_layout *l,
		     uint32_t slot, uint32_t pos, unsigned dir, uint32_t to)
{
	const struct kr_topo *t = g->t;
	unsigned d = dir / 2, c = kr_topo_coord(t, pos, d);
	double x, y, x2, y2, dx, dy;
	int whole = slot == KR_NONE;	/* a missing link: all of it */

	centre(g, pos, &x, &y);
	direction(dir, &dx, &dy);
	if (d >= 2)
		return draw_add_half(l, slot, x, y, x + dx * 0.42 * g->cell,
				     y + dy * 0.42 * g->cell);
	if (t->family == KR_FAMILY_KNS) {
		attach(g, pos, d, &x2, &y2);
		return draw_add_half(l, slot, x, y, whole ? x2 : (x + x2) / 2,
				     whole ? y2 : (y + y2) / 2);
	}
	if (dir % 2 ? c == 0 : c == t->k[d] - 1)
		return draw_add_half(l, slot, x, y, x + dx * g->cell / 2,
				     y + dy * g->cell / 2);
	centre(g, to, &x2, &y2);
	return draw_add_half(l, slot, x, y, whole ? x2 : (x + x2) / 2,
			     whole ? y2 : (y + y2) / 2);
}

/* The router's end of a KNS link, seen from its crossbar's port. */
static int xbar_half(const struct grid *g, struct kr_draw_layout *l,
		     uint32_t slot, uint32_t pos, unsigned d)
{
	double x, y, x2, y2;

	if (d >= 2)
		return KR_OK;	/* that crossbar sits below the grid */
	centre(g, pos, &x2, &y2);
	attach(g, pos, d, &x, &y);
	return draw_add_half(l, slot, x, y, (x + x2) / 2, (y + y2) / 2);
}

static int grid_links(const struct grid *g, struct kr_draw_layout *l,
		      const struct kr_fabric *f)
{
	const struct kr_topo *t = g->t;

	for (uint32_t slot = 0; slot < f->port0[f->nsw]; slot++) {
		uint32_t sw = f->owner[slot], psw, dir = t->port_dir[slot];
		int32_t peer = f->peer[slot];
		int rc = KR_OK;

		if (peer < 0 || !kr_is_switch(f, psw = f->owner[peer]))
			continue;
		if (t->sw_pos[sw] != KR_NONE && dir / 2 < t->ndim &&
		    (t->family == KR_FAMILY_KNS || t->sw_pos[psw] != KR_NONE))
			rc = grid_half(g, l, slot, t->sw_pos[sw], dir,
				       t->sw_pos[psw]);
		else if (t->sw_xdim && t->sw_xdim[sw] != KR_NO_DIM &&
			 t->sw_pos[psw] != KR_NONE)
			rc = xbar_half(g, l, slot, t->sw_pos[psw],
				       t->sw_xdim[sw]);
		if (rc)
			return rc;
	}
	return KR_OK;
}

/* Each missing link: the whole line, or both its stubs or ticks. */
static int missing_links(const struct grid *g, struct kr_draw_layout *l)
{
	const struct kr_topo *t = g->t;

	for (uint32_t i = 0; i < t->nmissing_link; i++) {
		const struct kr_missing_link *m = &t->missing_link[i];
		unsigned c = kr_topo_coord(t, m->pos, m->dim);
		uint32_t to = m->pos - c * t->stride[m->dim] +
			      (c + 1) % t->k[m->dim] * t->stride[m->dim];
		int split = m->dim >= 2 || c + 1 == t->k[m->dim];

		if (grid_half(g, l, KR_NONE, m->pos, 2 * m->dim, to) ||
		    (t->family != KR_FAMILY_KNS && split &&
		     grid_half(g, l, KR_NONE, to, 2 * m->dim + 1, m->pos)))
			return KR_ENOMEM;
	}
	return KR_OK;
}

/* Which tick is which dimension, and what a subnet misses, on the
 * picture's first line. */
static int first_line(struct kr_draw_layout *l, const struct kr_topo *t)
{
	static const char *const where[] = {
		"up-right (+), down-left (-)", "up-left (+), down-right (-)",
		"steep up-right (+)", "flat up-left (+)", "flat up-right (+)",
		"steep up-left (+)" };
	static const char *const kns_where[] = {
		"up-right", "up-left", "steep up-right", "flat up-left",
		"flat up-right", "steep up-left" };
	int kns = t->family == KR_FAMILY_KNS;
	char s[96], nm[16];

	if (t->nmissing_sublink || t->nmissing_subsw) {
		/* recognition counts them but does not say where */
		snprintf(s, sizeof(s), "missing inside subnets: %u links, %u "
			 "switches", t->nmissing_sublink, t->nmissing_subsw);
		if (draw_add_text(l, DRAW_MARGIN, 14, s))
			return KR_ENOMEM;
	}
	for (unsigned d = 2; d < t->ndim; d++) {
		snprintf(s, sizeof(s), kns ? "%s: a tick %s to the crossbar "
			 "(below)" : "%s links: ticks %s",
			 kr_dim_name(d, nm, sizeof(nm)),
			 (kns ? kns_where : where)[(d - 2) % 6]);
		if (draw_add_text(l, DRAW_MARGIN + 300.0 * (d - 2 + (t->s > 1)),
				  14, s))
			return KR_ENOMEM;
	}
	return KR_OK;
}

static int captions(const struct grid *g, struct kr_draw_layout *l)
{
	const struct kr_topo *t = g->t;
	uint32_t per = g->k0 * g->k1;
	char s[64], pos[48], nm[16];

	for (uint32_t base = 0; t->ndim > 2 && base < t->npos; base += per) {
		size_t n = 0;
		double x, y;

		for (unsigned d = 2; d < t->ndim && n < sizeof(s); d++)
			n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s",
					      d > 2 ? "," : "",
					      kr_dim_name(d, nm, sizeof(nm)));
		kr_topo_fmt_pos(t, base, KR_NO_DIM, pos, sizeof(pos));
		/* the coordinates beyond y: drop "(x,y," */
		snprintf(s + n, sizeof(s) - n, " = (%s",
			 strchr(strchr(pos, ',') + 1, ',') + 1);
		slice_origin(g, base, &x, &y);
		if (draw_add_text(l, x, y - 6, s))
			return KR_ENOMEM;
	}
	return first_line(l, t);
}

int kr_draw_layout_grid(const struct kr_fabric *f, const struct kr_topo *t,
			struct kr_draw_layout *l)
{
	struct grid g;
	char desc[256];
	int rc;

	grid_init(&g, t);
	rc = draw_layout_init(l, f, t->nmissing_sw);
	if (rc)
		return rc;
	place_switches(&g, l, f);
	rc = place_missing(&g, l);
	draw_place_rest(l, f);
	if (!rc)
		rc = grid_links(&g, l, f);
	if (!rc)
		rc = missing_links(&g, l);
	if (!rc)
		rc = draw_plain_links(l, f);
	if (!rc)
		rc = captions(&g, l);
	if (rc) {
		kr_draw_layout_free(l);
		return rc;
	}
	draw_fit(l);
	kr_topo_describe(desc, sizeof(desc), f, t);
	snprintf(l->how, sizeof(l->how), "%.80s", desc);
	return KR_OK;
}
