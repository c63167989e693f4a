/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A layout as SVG. Halves of links first, least loaded first so that the
 * hottest of overlapping parallel cables is the one seen; then missing
 * links (dashed red), switches (boxes; a missing one dashed red with a
 * cross), the witness cycle (blue arrows, numbered, each with its VL) and
 * the legend. Every element a reader may look for has a class, and every
 * link and switch a <title> naming its ends, so a browser shows names and
 * loads on hover. */
#include "kr_draw.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MISSING "#d7191c"	/* red: what recognition expected */
#define CYCLE "#1f4fbf"		/* blue: the credit loop */
#define IDLE "#9a9a9a"		/* a link no path crosses */
#define PLAIN "#555555"		/* links when there is no load to show */

/* Sequential, light to dark (ColorBrewer YlOrBr): no red or blue in it,
 * so load never reads as missing or as the loop. */
static const char *const heat[] = { "#fed98e", "#fe9929", "#ec7014",
				    "#cc4c02", "#8c2d04" };
enum { NHEAT = sizeof(heat) / sizeof(heat[0]) };

static unsigned heat_step(uint64_t load, uint64_t max)
{
	unsigned i = max ? (unsigned)((load * NHEAT - 1) / max) : 0;

	return i < NHEAT ? i : NHEAT - 1;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

static const char *half_colour(const struct kr_draw_opts *o, uint32_t slot)
{
	if (!o->load)
		return PLAIN;
	if (!o->load[slot])
		return IDLE;
	return heat[heat_step(o->load[slot], o->load_max)];
}

struct ranked {
	uint64_t load;
	uint32_t half;
};

static int by_load(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->load > y->load) - (x->load < y->load);
}

static void link_half(FILE *out, const struct kr_fabric *f,
		      const struct kr_draw_half *h,
		      const struct kr_draw_opts *o)
{
	fprintf(out, "<line class=\"link\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"><title>",
		h->x1, h->y1, h->x2, h->y2, half_colour(o, h->slot),
		o->load && o->load[h->slot] ? "4" : "2.5");
	xml_text(out, kr_port_label(f, h->slot).s);
	fputs(" -&gt; ", out);
	xml_text(out, kr_port_label(f, (uint32_t)f->peer[h->slot]).s);
	if (o->load)
		fprintf(out, ": %" PRIu64 " paths", o->load[h->slot]);
	fputs("</title></line>\n", out);
}

/* The halves, least loaded first. */
static int links(FILE *out, const struct kr_fabric *f,
		 const struct kr_draw_layout *l, const struct kr_draw_opts *o)
{
	struct ranked *r = malloc(((size_t)l->nhalf + 1) * sizeof(*r));
	uint32_t n = 0;

	if (!r)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < l->nhalf; i++)
		if (l->half[i].slot != KR_NONE)
			r[n++] = (struct ranked){
				o->load ? o->load[l->half[i].slot] : 0, i };
	qsort(r, n, sizeof(*r), by_load);
	fputs("<g class=\"links\" stroke-linecap=\"round\">\n", out);
	for (uint32_t i = 0; i < n; i++)
		link_half(out, f, &l->half[r[i].half], o);
	fputs("</g>\n<g class=\"missing-links\">\n", out);
	for (uint32_t i = 0; i < l->nhalf; i++)
		if (l->half[i].slot == KR_NONE)
			fprintf(out, "<line class=\"missing-link\" x1=\"%.1f\" "
				"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\""
				MISSING "\" stroke-width=\"2.5\" "
				"stroke-dasharray=\"6 4\"><title>missing link"
				"</title></line>\n", l->half[i].x1,
				l->half[i].y1, l->half[i].x2, l->half[i].y2);
	fputs("</g>\n", out);
	free(r);
	return KR_OK;
}

/* What a box says: its coordinates, else its description (short). */
static void box_text(FILE *out, const struct kr_fabric *f,
		     const struct kr_draw_box *b)
{
	char s[16];
	const char *text = b->tag;

	if (b->w < 20 || b->h < 20)
		return;		/* a KNS bar: its title says it */
	if (!*text && b->sw != KR_NONE) {
		snprintf(s, sizeof(s), "%s", kr_node_described(f, b->sw) ?
			 kr_node_desc(f, b->sw) : kr_node_name(f, b->sw));
		text = s;
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", b->x + b->w / 2,
		b->y + b->h / 2 + 3.5);
	xml_text(out, text);
	fputs("</text>", out);
	if (text != b->tag || b->sw == KR_NONE || !kr_node_described(f, b->sw))
		return;
	/* the name an admin knows it by, above the coordinates, on a halo
	 * that keeps it readable over the links */
	snprintf(s, sizeof(s), "%s", kr_node_desc(f, b->sw));
	fprintf(out, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\" "
		"font-size=\"8\" paint-order=\"stroke\" stroke=\"white\" "
		"stroke-width=\"3\">", b->x + b->w / 2, b->y - 3);
	xml_text(out, s);
	fputs("</text>", out);
}

static void switches(FILE *out, const struct kr_fabric *f,
		     const struct kr_draw_layout *l)
{
	fputs("<g class=\"switches\" font-size=\"9\" text-anchor=\"middle\">\n",
	      out);
	for (uint32_t i = 0; i < l->nbox; i++) {
		const struct kr_draw_box *b = &l->box[i];
		int gone = b->sw == KR_NONE;

		fprintf(out, "<g class=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" rx=\"3\" fill=\"%s\" "
			"stroke=\"%s\"%s/>", gone ? "missing-switch" : "switch",
			b->x, b->y, b->w, b->h, gone ? "none" :
			b->w < 20 || b->h < 20 ? "#b8c6d6" : "#f4f4f4",
			gone ? MISSING : "#333333",
			gone ? " stroke-width=\"2\" stroke-dasharray=\"5 3\"" : "");
		if (gone && b->w >= 20 && b->h >= 20)
			fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1f"
				"L%.1f %.1f\" stroke=\"" MISSING "\"/>", b->x,
				b->y, b->x + b->w, b->y + b->h, b->x + b->w,
				b->y, b->x, b->y + b->h);
		box_text(out, f, b);
		fputs("<title>", out);
		if (gone)
			fputs("missing switch", out);
		else
			xml_text(out, kr_node_label(f, b->sw).s);
		if (*b->tag) {
			fputc(' ', out);
			xml_text(out, b->tag);
		}
		fputs("</title></g>\n", out);
	}
	fputs("</g>\n", out);
}

/* Where the channel leaving by slot starts: its half's sending end, else
 * its switch's box. */
static void anchor(const struct kr_fabric *f, const struct kr_draw_layout *l,
		   uint32_t slot, double *x, double *y)
{
	uint32_t h = l->slot_half[slot];
	const struct kr_draw_box *b = &l->box[f->owner[slot]];

	if (h != KR_NONE) {
		*x = l->half[h].x1;
		*y = l->half[h].y1;
	} else {
		*x = b->x + b->w / 2;
		*y = b->y + b->h / 2;
	}
}

static void cycle(FILE *out, const struct kr_fabric *f,
		  const struct kr_draw_layout *l, const struct kr_draw_opts *o)
{
	fputs("<g class=\"cycle\" font-size=\"11\" font-weight=\"bold\">\n", out);
	for (unsigned i = 0; i < o->ncycle; i++) {
		const struct kr_check_chan *c = &o->cycle[i];
		double x1, y1, x2, y2, len, nx, ny;

		if (c->slot >= f->port0[f->nsw] || f->peer[c->slot] < 0 ||
		    !kr_is_switch(f, f->owner[f->peer[c->slot]]))
			continue;	/* a witness names switch links only */
		anchor(f, l, c->slot, &x1, &y1);
		anchor(f, l, (uint32_t)f->peer[c->slot], &x2, &y2);
		/* the label beside the arrow's middle, off its line */
		len = sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1));
		nx = len > 0 ? (y1 - y2) / len : 0;
		ny = len > 0 ? (x2 - x1) / len : -1;
		fprintf(out, "<line class=\"cycle-edge\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"" CYCLE "\" "
			"stroke-width=\"3\" marker-end=\"url(#%s-arrow)\">"
			"<title>", x1, y1, x2, y2, o->id);
		xml_text(out, kr_port_label(f, c->slot).s);
		fprintf(out, " VL %u (witness channel %u)</title></line>\n"
			"<text class=\"cycle-vl\" x=\"%.1f\" y=\"%.1f\" fill=\""
			CYCLE "\" text-anchor=\"middle\">%u: VL %u</text>\n",
			c->vl, i + 1, (x1 + x2) / 2 + 14 * nx,
			(y1 + y2) / 2 + 14 * ny + 4, i + 1, c->vl);
	}
	fputs("</g>\n", out);
}

static void legend(FILE *out, const struct kr_draw_opts *o, double y)
{
	double x = 10;

	fprintf(out, "<g class=\"legend\" font-size=\"11\" "
		"transform=\"translate(0 %.1f)\">\n", y);
	if (o->load) {
		fputs("<text x=\"10\" y=\"12\">paths per link direction:</text>\n",
		      out);
		x = 170;
		for (unsigned i = 0; i < NHEAT; i++, x += 62)
			fprintf(out, "<rect x=\"%.0f\" y=\"3\" width=\"14\" "
				"height=\"10\" fill=\"%s\"/><text x=\"%.0f\" "
				"y=\"12\">&#8804;%" PRIu64 "</text>\n", x,
				heat[i], x + 17,
				o->load_max * (i + 1) / NHEAT);
		fprintf(out, "<rect x=\"%.0f\" y=\"3\" width=\"14\" height=\"10\" "
			"fill=\"" IDLE "\"/><text x=\"%.0f\" y=\"12\">0</text>\n",
			x, x + 17);
		x += 40;
	}
	fprintf(out, "<line x1=\"%.0f\" y1=\"8\" x2=\"%.0f\" y2=\"8\" stroke=\""
		MISSING "\" stroke-width=\"2.5\" stroke-dasharray=\"6 4\"/>"
		"<text x=\"%.0f\" y=\"12\">missing</text>\n", x, x + 24, x + 28);
	if (o->ncycle)
		fprintf(out, "<line x1=\"%.0f\" y1=\"8\" x2=\"%.0f\" y2=\"8\" "
			"stroke=\"" CYCLE "\" stroke-width=\"3\"/><text x=\"%.0f\""
			" y=\"12\">credit loop</text>\n", x + 90, x + 114,
			x + 118);
	fputs("</g>\n", out);
}

int kr_draw_svg(FILE *out, const struct kr_fabric *f,
		const struct kr_draw_layout *l, const struct kr_draw_opts *o)
{
	/* room for the legend's line */
	double need = (o->load ? 620 : 140) + (o->ncycle ? 120 : 0);
	double w = l->width < need ? need : l->width, h = l->height + 44;

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"kr-fabric\""
		" id=\"%s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
		" font-family=\"sans-serif\">\n<title>", o->id, w, h, w, h);
	xml_text(out, o->title ? o->title : l->how);
	fprintf(out, "</title>\n<defs><marker id=\"%s-arrow\" viewBox=\"0 0 10 10\""
		" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" "
		"orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"" CYCLE
		"\"/></marker></defs>\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"white\"/>\n<g class=\"captions\" font-size=\"12\">\n",
		o->id);
	for (uint32_t i = 0; i < l->ntext; i++) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", l->text[i].x,
			l->text[i].y);
		xml_text(out, l->text[i].s);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
	if (links(out, f, l, o))
		return KR_ENOMEM;
	switches(out, f, l);
	if (o->ncycle)
		cycle(out, f, l, o);
	legend(out, o, l->height + 8);
	fputs("</svg>\n", out);
	return ferror(out) ? KR_EIO : KR_OK;
}
