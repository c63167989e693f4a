/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* infiniband-diags' node-name-map, read against the 3x3 torus's fabric
 * (fresh per input: the reader renames its nodes); what is accepted must
 * label every node and write back as a net file. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *text;
	static size_t len;
	struct kr_fabric f = { 0 };
	struct kr_diag d = { 0 };

	if (!text)
		text = fuzz_text(FABRIC, &len);
	if (kr_net_parse(text, len, FABRIC, &f, &d))
		abort();
	if (!fuzz_check(kr_name_map_parse((const char *)data, size, &f, &d),
			&d)) {
		for (uint32_t n = 0; n < f.nnode; n++)
			if (!*kr_node_label(&f, n).s)
				abort();
		kr_net_write(fuzz_null(), &f);
	}
	kr_fabric_free(&f);
	return 0;
}
