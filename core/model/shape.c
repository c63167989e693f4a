/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_shape.h"

#include <stdlib.h>
#include <string.h>

int kr_parse_dims(const char *s, unsigned *k, unsigned *ndim, struct kr_diag *d)
{
	const char *p = s;

	*ndim = 0;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v < 1 || v > 255 || *ndim == KR_MAX_DIM)
			return kr_fail(d, KR_EINVAL, 0,
				       "bad dimensions \"%s\": expected sizes "
				       "1..255 joined by 'x', at most %d", s,
				       KR_MAX_DIM);
		k[(*ndim)++] = (unsigned)v;
		p = end;
		if ((*p == 'x' || *p == 'X') && p[1] >= '0' && p[1] <= '9')
			p++;
		else if (*p)
			return kr_fail(d, KR_EINVAL, 0,
				       "bad dimensions \"%s\": unexpected '%c'",
				       s, *p);
	}
	return *ndim ? KR_OK
		     : kr_fail(d, KR_EINVAL, 0, "empty dimensions");
}

static const char *const classify_names[] = {
	[KR_CLASSIFY_XORDET] = "xordet", [KR_CLASSIFY_DBBM] = "dbbm",
	[KR_CLASSIFY_BBQ] = "bbq", [KR_CLASSIFY_DBBQ] = "dbbq",
	[KR_CLASSIFY_IODET] = "iodet", [KR_CLASSIFY_NONE] = "none",
};

#define NCLASSIFY (sizeof(classify_names) / sizeof(classify_names[0]))

const char *kr_classify_name(enum kr_classify cl)
{
	return (unsigned)cl < NCLASSIFY ? classify_names[cl] : "?";
}

int kr_classify_parse(const char *s, enum kr_classify *cl)
{
	for (unsigned i = 0; i < NCLASSIFY; i++)
		if (!strcmp(s, classify_names[i])) {
			*cl = (enum kr_classify)i;
			return KR_OK;
		}
	return KR_EINVAL;
}
