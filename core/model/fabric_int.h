/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* From the fabric builder to the fabric indexes; not for tools/. */
#ifndef KR_FABRIC_INT_H
#define KR_FABRIC_INT_H

#include "kr_fabric.h"

/* Builds the GUID hashes; a duplicate's node or port slot goes to
 * *bad_node or *bad_slot (else KR_NONE), for the builder to name its
 * input line. */
int fabric_index_guids(struct kr_fabric *f, struct kr_diag *d,
		       uint32_t *bad_node, uint32_t *bad_slot);

#endif
