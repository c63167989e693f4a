/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The words every stage shares about a fabric's shape and its plan: the
 * families, their size limits, the destination classifications, and the
 * "4x4x4" spelling of dimensions. Configuration, generators, recognition
 * and the SL/VL plan all speak them; none owns them. */
#ifndef KR_SHAPE_H
#define KR_SHAPE_H

#include "kr_base.h"

#define KR_MAX_DIM 8
#define KR_NO_DIM 0xff
#define KR_MAX_STAGE 8		/* KNS subnet stages */

enum kr_family {
	KR_FAMILY_NONE,
	KR_FAMILY_KNS,
	KR_FAMILY_TORUS,	/* at least one dimension wraps */
	KR_FAMILY_MESH,		/* no dimension wraps */
	KR_FAMILY_MIKANT,	/* mirrored k-ary n-tree (kr_topo.h) */
};

enum kr_classify {
	KR_CLASSIFY_XORDET,
	KR_CLASSIFY_DBBM,
	KR_CLASSIFY_BBQ,
	KR_CLASSIFY_DBBQ,
	KR_CLASSIFY_IODET,
	KR_CLASSIFY_NONE,
};

/* "4x4x4" -> k[], ndim. */
int kr_parse_dims(const char *s, unsigned *k, unsigned *ndim,
		  struct kr_diag *d);
const char *kr_classify_name(enum kr_classify cl);
int kr_classify_parse(const char *s, enum kr_classify *cl);

#endif
