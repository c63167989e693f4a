/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fabrics without coordinates, laid out by Graphviz: the graph goes out in
 * its language, `dot -Tplain` answers with positions, read back here.
 * dot draws a directed graph in layers, so each edge points from the
 * switch nearer the CAs to the one farther: a fat tree comes out as its
 * levels, leaves at the bottom. A direct network (switches with CAs
 * linked to each other) has no levels to show, so its graph asks for
 * the spring model instead (layout=neato, which dot obeys). */
#include "draw_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Hops from the nearest switch with a CA (one without any hosts: 0 for
 * all, so the graph still draws). */
static uint32_t *levels(const struct kr_fabric *f)
{
	uint32_t *lv = malloc(((size_t)f->nsw + 1) * sizeof(*lv));
	uint32_t *queue = malloc(((size_t)f->nsw + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0;

	if (!lv || !queue) {
		free(lv);
		free(queue);
		return NULL;
	}
	for (uint32_t s = 0; s < f->nsw; s++) {
		lv[s] = KR_NONE;
		for (uint32_t p = f->port0[s] + 1; p < f->port0[s + 1]; p++)
			if (f->peer[p] >= 0 &&
			    !kr_is_switch(f, f->owner[f->peer[p]]))
				lv[s] = 0;
		if (lv[s] == 0)
			queue[tail++] = s;
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t p = f->port0[s] + 1; p < f->port0[s + 1]; p++) {
			int32_t q = f->peer[p];

			if (q >= 0 && kr_is_switch(f, f->owner[q]) &&
			    lv[f->owner[q]] == KR_NONE) {
				lv[f->owner[q]] = lv[s] + 1;
				queue[tail++] = f->owner[q];
			}
		}
	}
	free(queue);
	for (uint32_t s = 0; s < f->nsw; s++)
		if (lv[s] == KR_NONE)
			lv[s] = 0;
	return lv;
}

/* Whether two switches with CAs are linked: a direct network (a grid
 * recognition refused, a dragonfly), which layers would flatten into
 * one row; a tree has none. */
static bool direct(const struct kr_fabric *f, const uint32_t *lv)
{
	for (uint32_t slot = 0; slot < f->port0[f->nsw]; slot++) {
		int32_t peer = f->peer[slot];

		if (peer >= 0 && kr_is_switch(f, f->owner[peer]) &&
		    !lv[f->owner[slot]] && !lv[f->owner[peer]] &&
		    f->owner[slot] != f->owner[peer])
			return true;
	}
	return false;
}

/* Each pair of linked switches once: from its lower port slot, when no
 * lower slot of the same switch already leads to that neighbour. */
static bool first_link(const struct kr_fabric *f, uint32_t slot)
{
	uint32_t to = f->owner[f->peer[slot]];

	if (to < f->owner[slot])
		return false;
	for (uint32_t p = f->port0[f->owner[slot]]; p < slot; p++)
		if (f->peer[p] >= 0 && f->owner[f->peer[p]] == to)
			return false;
	return true;
}

int kr_draw_dot_write(FILE *out, const struct kr_fabric *f)
{
	uint32_t *lv = levels(f);

	if (!lv)
		return KR_ENOMEM;
	fputs("digraph fabric {\n  rankdir=BT;\n  nodesep=0.25;\n"
	      "  splines=false;\n"
	      "  node [shape=box, fixedsize=true, width=0.95, height=0.34];\n",
	      out);
	if (direct(f, lv)) {
		/* the spring model, switches kept apart */
		fputs("  layout=neato;\n  overlap=false;\n  sep=\"+6\";\n", out);
	} else {
		fputs("  { rank=same;", out);
		for (uint32_t s = 0; s < f->nsw; s++)
			if (lv[s] == 0)
				fprintf(out, " s%" PRIu32 ";", s);
		fputs(" }\n", out);
	}
	for (uint32_t s = 0; s < f->nsw; s++)
		fprintf(out, "  s%" PRIu32 ";\n", s);
	for (uint32_t slot = 0; slot < f->port0[f->nsw]; slot++) {
		int32_t peer = f->peer[slot];
		uint32_t a = f->owner[slot], b;

		if (peer < 0 || !kr_is_switch(f, b = f->owner[peer]) || a == b ||
		    !first_link(f, slot))
			continue;
		if (lv[a] > lv[b]) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		fprintf(out, "  s%" PRIu32 " -> s%" PRIu32 "%s;\n", a, b,
			lv[a] == lv[b] ? " [constraint=false]" : "");
	}
	fputs("}\n", out);
	free(lv);
	return ferror(out) ? KR_EIO : KR_OK;
}

/* One "node sN x y w h ..." line of the answer, into box N. */
static int plain_node(const char *line, const struct kr_fabric *f,
		      struct kr_draw_layout *l, double height, unsigned n,
		      struct kr_diag *d)
{
	double x, y, w, h;
	uint32_t s;

	if (sscanf(line, "node s%" SCNu32 " %lf %lf %lf %lf", &s, &x, &y, &w,
		   &h) != 5 || s >= f->nsw)
		return kr_fail(d, KR_EPARSE, n, "expected \"node sN X Y W H\" "
			       "with N a switch of the fabric");
	l->box[s] = (struct kr_draw_box){ DRAW_MARGIN + (x - w / 2) * 72,
					  DRAW_MARGIN + (height - y - h / 2) * 72,
					  w * 72, h * 72, s, "" };
	return KR_OK;
}

int kr_draw_plain_read(FILE *in, const struct kr_fabric *f,
		       struct kr_draw_layout *l, struct kr_diag *d)
{
	double scale, width, height = -1;
	char line[512];
	unsigned n = 0;
	int rc = draw_layout_init(l, f, 0), stop = 0;

	while (!rc && !stop && fgets(line, sizeof(line), in)) {
		n++;
		if (!strncmp(line, "graph ", 6)) {
			if (sscanf(line, "graph %lf %lf %lf", &scale, &width,
				   &height) != 3)
				rc = kr_fail(d, KR_EPARSE, n, "expected "
					     "\"graph SCALE WIDTH HEIGHT\"");
		} else if (!strncmp(line, "node ", 5)) {
			rc = height < 0 ? kr_fail(d, KR_EPARSE, n, "a node "
						  "before the graph line")
					: plain_node(line, f, l, height, n, d);
		} else {
			stop = !strncmp(line, "stop", 4);
		}
	}
	if (!rc && !stop)
		rc = kr_fail(d, KR_EPARSE, n, "expected Graphviz plain output "
			     "ending in \"stop\"");
	for (uint32_t s = 0; !rc && s < f->nsw; s++)
		if (l->box[s].w <= 0)
			rc = kr_fail(d, KR_EPARSE, n, "no position for switch "
				     "s%" PRIu32, s);
	if (!rc)
		rc = draw_plain_links(l, f);
	if (rc) {
		kr_draw_layout_free(l);
		return rc;
	}
	draw_fit(l);
	snprintf(l->how, sizeof(l->how), "laid out by Graphviz (no KNS, "
		 "torus or mesh recognised)");
	return KR_OK;
}
