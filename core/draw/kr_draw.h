/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pictures of a fabric: where each switch and each link goes (a layout),
 * then the layout as SVG, coloured by link load and with a credit loop's
 * witness drawn on it, and the report page that holds such pictures.
 *
 * A recognised fabric is laid out by its coordinates (layout.c): one 2-D
 * slice of the grid per combination of the coordinates beyond the first
 * two, the slices in a block of rows; KNS crossbars (and subnet switches)
 * as bars beside their line of routers. Anything else takes positions
 * from Graphviz: kr_draw_dot_write gives the graph, the caller runs `dot
 * -Tplain` on it (the core starts no process) and kr_draw_plain_read
 * reads the answer.
 *
 * Every link is drawn as two halves, one per direction, each from its
 * sending switch to the link's middle, so a half's colour is the load of
 * the direction that leaves its nearer end. A link the picture cannot run
 * straight (a ring's wraparound, a dimension beyond the slice) is two
 * stubs, one leaving each end. */
#ifndef KR_DRAW_H
#define KR_DRAW_H

#include <stdint.h>
#include <stdio.h>

#include "kr_check.h"
#include "kr_fabric.h"
#include "kr_tables.h"
#include "kr_topo.h"

struct kr_draw_box {		/* a switch, or the place of a missing one */
	double x, y, w, h;	/* top-left corner and size, px */
	uint32_t sw;		/* the switch; KR_NONE: a missing one */
	char tag[40];		/* coordinates, "(2,3)", '*' in a crossbar's
				 * own dimension; "" when there are none */
};

struct kr_draw_half {		/* one direction of a link */
	double x1, y1, x2, y2;	/* from the sender to the middle (or the
				 * stub's end) */
	uint32_t slot;		/* sending port; KR_NONE: an expected link
				 * that is missing, drawn from x1 to x2 */
};

struct kr_draw_text {		/* a caption: a slice's coordinates */
	double x, y;
	char s[64];
};

struct kr_draw_layout {
	double width, height;
	struct kr_draw_box *box;	/* switches first, box i = switch i
					 * for a switch i; missing ones after */
	uint32_t nbox;
	struct kr_draw_half *half;
	uint32_t nhalf;
	size_t half_cap;
	struct kr_draw_text *text;
	uint32_t ntext;
	size_t text_cap;
	uint32_t *slot_half;	/* [nport] the half a switch port sends
				 * on, KR_NONE: none drawn */
	char how[96];		/* how it was laid out, for captions */
};

/* The grid picture of t on f (a recognised fabric): KR_OK, KR_ENOMEM. */
int kr_draw_layout_grid(const struct kr_fabric *f, const struct kr_topo *t,
			struct kr_draw_layout *l);
/* The switch graph of f in Graphviz's language, for `dot -Tplain`: node
 * "sN" per switch, leaf switches (those with CAs) on the bottom rank, an
 * edge per pair of linked switches pointing away from the CAs, so that
 * trees come out in layers; when switches with CAs are linked to each
 * other, neato's spring model instead. KR_OK, KR_ENOMEM or KR_EIO. */
int kr_draw_dot_write(FILE *out, const struct kr_fabric *f);
/* The positions `dot -Tplain` printed for that graph, as a layout of f;
 * KR_EPARSE naming the line of in when it is not such output (d->file is
 * the caller's), KR_ENOMEM. */
int kr_draw_plain_read(FILE *in, const struct kr_fabric *f,
		       struct kr_draw_layout *l, struct kr_diag *d);
void kr_draw_layout_free(struct kr_draw_layout *l);

struct kr_draw_opts {
	const char *id;		/* prefix of the picture's element ids, so
				 * that several can share a page */
	const char *title;
	const uint64_t *load;	/* [nport] paths per sending port, NULL:
				 * no heat map */
	uint64_t load_max;
	const struct kr_check_chan *cycle;	/* witness, NULL: none */
	unsigned ncycle;
};

/* The layout as one <svg> element (no XML declaration, so that a page can
 * hold it as it is): classes link, missing-link, switch, missing-switch,
 * cycle-edge, legend name the parts. KR_OK or KR_EIO. */
int kr_draw_svg(FILE *out, const struct kr_fabric *f,
		const struct kr_draw_layout *l, const struct kr_draw_opts *o);

/* What the report page shows; text fields may be NULL (left out). */
struct kr_report_file {
	const char *name;	/* as the page names it */
	const char *text;	/* its contents */
};

struct kr_report {
	const char *title;		/* the directory reported on */
	const char *fabric;		/* what recognition made of it */
	const char *summary;		/* `knsroute route`'s summary file */
	const struct kr_fabric *f;
	const struct kr_tables *t;
	const struct kr_check_report *r;
	const char *check_text;		/* the check's own text report */
	const struct kr_report_file *svg;	/* pictures, as kr_draw_svg */
	unsigned nsvg;
	const struct kr_report_file *faults;	/* `knsroute faults --json` */
	unsigned nfaults;
	const struct kr_report_file *sim;	/* `knsroute sim --json` */
	unsigned nsim;
};

/* The whole page, one self-contained HTML file (styles inline, nothing
 * fetched). KR_EPARSE when a faults or sim file is not the JSON those
 * commands print (d names it and the byte), KR_EIO. */
int kr_report_write(FILE *out, const struct kr_report *rep,
		    struct kr_diag *d);

#endif
