/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the parts of the SL/VL plan; not for tools/. */
#ifndef KR_SLVL_INT_H
#define KR_SLVL_INT_H

#include "kr_slvl.h"

/* slvl_text.c: p->text from the plan laid out (slvl.c). */
void slvl_describe(struct kr_slvl *p, const struct kr_topo *topo);

#endif
