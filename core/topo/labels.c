/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What every recogniser shares: labellings (struct lab), the notes and
 * conflicts they collect for the report, the lowest-GUID rule. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

void notes_add(struct notes *n, const char *fmt, ...)
{
	char line[300];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	len = strlen(line);
	n->n++;
	if (kr_grow(&n->buf, &n->cap, n->len + len + 2, 1)) {
		n->oom = 1;
		return;
	}
	memcpy(n->buf + n->len, line, len);
	n->len += len;
	n->buf[n->len++] = '\n';
	n->buf[n->len] = '\0';
}

struct notes_mark notes_mark(const struct notes *n)
{
	return (struct notes_mark){ n->len, n->n };
}

void notes_rewind(struct notes *n, struct notes_mark m)
{
	if (m.len > n->len)	/* an allocation failed meanwhile */
		return;
	n->len = m.len;
	n->n = m.n;
	if (n->buf)
		n->buf[n->len] = '\0';
}

void notes_free(struct notes *n)
{
	free(n->buf);
	*n = (struct notes){ 0 };
}

int lab_alloc(struct lab *l, uint32_t nsw)
{
	l->sw_pos = malloc(((size_t)nsw + 1) * sizeof(*l->sw_pos));
	l->sw_xdim = malloc((size_t)nsw + 1);
	l->sw_xline = malloc(((size_t)nsw + 1) * sizeof(*l->sw_xline));
	if (!l->sw_pos || !l->sw_xdim || !l->sw_xline)
		return KR_ENOMEM;
	memset(l->sw_pos, 0xff, ((size_t)nsw + 1) * sizeof(*l->sw_pos));
	memset(l->sw_xdim, KR_NO_DIM, (size_t)nsw + 1);
	memset(l->sw_xline, 0xff, ((size_t)nsw + 1) * sizeof(*l->sw_xline));
	return KR_OK;
}

void lab_free(struct lab *l)
{
	free(l->sw_pos);
	free(l->sw_xdim);
	free(l->sw_xline);
	*l = (struct lab){ 0 };
}

uint32_t lab_npos(const struct lab *l)
{
	uint64_t n = 1;

	for (unsigned d = 0; d < l->ndim; d++) {
		n *= l->k[d];
		if (!n || n > TOPO_MAX_POS)
			return 0;
	}
	return l->ndim ? (uint32_t)n : 0;
}

uint32_t lowest_guid(const struct kr_fabric *f)
{
	uint32_t best = 0;

	for (uint32_t s = 1; s < f->nsw; s++)
		if (f->guid[s] < f->guid[best])
			best = s;
	return best;
}
