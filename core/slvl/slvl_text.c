/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The plan's one-line text (kr_slvl.text): what the SL bits carry, the
 * VLs kept and what each is for, multicast's SLs, the VLs used. */
#include "slvl_int.h"

#include <stdarg.h>
#include <stdio.h>

#include "kr_budget.h"

/* Appends to the text in buf (len bytes, *n used), cut short at its end:
 * a plan with every clause is longer than the text holds. */
static void appendf(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n + 1 >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n = *n + (size_t)w < len ? *n + (size_t)w : len - 1;
}

static size_t describe_mcast(const struct kr_slvl *p, char *buf, size_t len)
{
	size_t n = 0;
	const char *sep = " SL";

	if (p->mcast_vl == KR_NONE) {
		appendf(buf, len, &n, " multicast: %s;", p->mcast_sls ?
			"no SL or VL left, groups refused" :
			"no SLs configured, groups refused");
		return n;
	}
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		if (p->mcast_safe >> sl & 1) {
			appendf(buf, len, &n, "%s %u", sep, sl);
			sep = ",";
		}
	appendf(buf, len, &n, ": multicast (VL %u%s", p->mcast_vl,
		p->mcast_vl == p->detour_vl ?
		", with the up*/down* layer" : ", alone");
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		if (p->sl_of_code[sl] != sl)
			appendf(buf, len, &n, "; unicast SL %u "
				"sent on SL %u", sl, p->sl_of_code[sl]);
	appendf(buf, len, &n, ");");
	return n;
}

void slvl_describe(struct kr_slvl *p, const struct kr_topo *topo)
{
	size_t n = 0, len = sizeof(p->text);
	char nm[16];
	unsigned bit = 0;

	appendf(p->text, len, &n, "SL bits:");
	if (p->nring) {
		appendf(p->text, len, &n, " %u-%u ring halves",
			0, p->nring - 1);
		for (unsigned d = 0, first = 1; d < topo->ndim; d++)
			if (p->ring_bit[d] != KR_NO_DIM) {
				appendf(p->text, len, &n, "%s%s",
					first ? " " : ",",
					kr_dim_name(d, nm, sizeof(nm)));
				first = 0;
			}
		appendf(p->text, len, &n, ";");
		bit = p->nring;
	}
	if (p->vn_bits) {
		appendf(p->text, len, &n, " %u-%u virtual "
			"network (%u orders);", bit,
			bit + p->vn_bits - 1, p->nvn);
		bit += p->vn_bits;
	}
	if (p->class_bits)
		appendf(p->text, len, &n, " %u-%u class %s/%u%s;",
			bit, p->class_shift + p->class_bits *
			(p->classify == KR_CLASSIFY_IODET ?
			topo->ndim : 1) - 1,
			kr_classify_name(p->classify), p->nclass,
			p->classify == KR_CLASSIFY_IODET ?
			" per dimension" : "");
	else
		appendf(p->text, len, &n, " no classes%s;",
			p->classify == KR_CLASSIFY_NONE ? "" :
			" (no VLs or SL bits left)");
	if (p->requested && p->requested > p->nclass)
		appendf(p->text, len, &n, " %u classes asked, "
			"%u fit;", p->requested, p->nclass);
	if (p->nvn < p->nvn_wanted)
		appendf(p->text, len, &n, " LMC offsets take "
			"%u of %u dimension orders (no SL or VL "
			"left for more beside multicast and the "
			"detour layers);", p->nvn, p->nvn_wanted);
	if (p->xbar_vl != KR_NONE && topo->s > 1)
		appendf(p->text, len, &n, " SL %u: to subnet "
			"switches, up*/down* (VL %u on every switch "
			"link%s);", KR_XBAR_SL, p->xbar_vl,
			p->fold != KR_NONE ?
			", the VL below for other SLs there" : "");
	else if (p->xbar_vl != KR_NONE)
		appendf(p->text, len, &n, " SL %u: to crossbars "
			"(VL %u on turns into them%s%s);", KR_XBAR_SL,
			p->xbar_vl, p->fold != KR_NONE ?
			", shared with the VL below elsewhere" : "",
			p->mcast_vl == KR_NONE ? ", the SA's and "
			"PerfMgr's SLs too" : "");
	if (p->nhost)
		appendf(p->text, len, &n, " %u host%s on "
			"crossbars (VL %u out of their crossbar);",
			p->nhost, p->nhost == 1 ? "" : "s",
			p->host_vl);
	if (p->turn_vl != KR_NONE && topo->family == KR_FAMILY_MIKANT)
		appendf(p->text, len, &n, " VL %u: every SL on the second hop "
			"across the top;", p->turn_vl);
	else if (p->turn_vl != KR_NONE)
		appendf(p->text, len, &n, " VL %u also after turns against "
			"the order;", p->turn_vl);
	for (unsigned i = 0; i < p->ntree; i++)
		appendf(p->text, len, &n, " SL %u: repaired "
			"routes moved off their SL (VL %u);",
			p->tree_sl[i], p->tree_vl[i]);
	if (p->detour_vl != KR_NONE)
		appendf(p->text, len, &n, " SL %u: detour "
			"layer for faults, up*/down* (VL %u);",
			p->detour_sl, p->detour_vl);
	else if (p->detour_dropped)
		appendf(p->text, len, &n, " no detour layer "
			"(no SL or VL left);");
	n += describe_mcast(p, p->text + n, len - n);
	appendf(p->text, len, &n, " VLs used per port: %u of %u", p->vls_used,
		p->vls);
}
