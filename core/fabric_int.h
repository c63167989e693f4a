/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the fabric builder and the fabric indexes; not for tools/. */
#ifndef KR_FABRIC_INT_H
#define KR_FABRIC_INT_H

#include "kr_fabric.h"

int fb_slot_owner(const struct kr_fabric_builder *b, uint32_t slot);
/* Input line of the record that created final node id (0 if unknown). */
unsigned fb_node_line(const struct kr_fabric_builder *b, uint32_t final_id);
/* Input line that set final port slot's GUID or LID, else its node's. */
unsigned fb_port_line(const struct kr_fabric_builder *b,
		      const struct kr_fabric *f, uint32_t slot);
/* Builds the GUID hashes; b (may be NULL) lets duplicate errors cite lines. */
int kr_fabric_index_guids(struct kr_fabric *f, struct kr_diag *d,
			  const struct kr_fabric_builder *b);

/* kr_fabric_index_lids that also names the port slot at fault. */
int fabric_index_lids(struct kr_fabric *f, struct kr_diag *d, uint32_t *bad);

#endif
