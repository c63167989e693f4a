/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pictures for topo --svg, check --svg and report: a fabric laid out by
 * its coordinates when recognised, else by Graphviz's dot, run here (the
 * core starts no process), and the SVG written atomically. */
#ifndef KR_PICTURES_H
#define KR_PICTURES_H

#include "cli.h"
#include "kr_draw.h"

/* The layout of f: its grid when t (recognised; NULL: not) has one,
 * else dot's. 0, or EXIT_USAGE after saying why (dot missing or
 * failing, out of memory). */
int pictures_layout(const struct kr_fabric *f, const struct kr_topo *t,
		    struct kr_draw_layout *l);
/* f recognised into *t with the default conf: 1 when it is, 0 when not
 * (t freed), -1 out of memory (said). */
int pictures_recognise(const struct kr_fabric *f, struct kr_topo *t);
/* The picture into path ("-": standard output). 0 or EXIT_USAGE. */
int pictures_write(const char *path, const struct kr_fabric *f,
		   const struct kr_draw_layout *l,
		   const struct kr_draw_opts *o);
/* The picture as a string (free it), NULL after saying why. */
char *pictures_text(const struct kr_fabric *f, const struct kr_draw_layout *l,
		    const struct kr_draw_opts *o);
/* Link load and witness of a check for the picture: its deciding class's
 * cycle, if any. */
void pictures_check_opts(const struct kr_check_report *r,
			 struct kr_draw_opts *o);

#endif
