/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tables cache (the plugin's knsroute-tables, route --in-force), read
 * against the 3x3 torus the seeds name, made whole over that fabric's
 * tables (kr_tables_refill: every fix must land inside them) and written
 * back. */
#include "fuzz.h"

#include <stdlib.h>

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	struct kr_tables t, routed;
	struct kr_diag d = { 0 };

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	if (fuzz_check(kr_tables_cache_read(fuzz_path(data, size), &f, &t, &d),
		       &d))
		return 0;
	if (kr_tables_init(&routed, &f, f.max_lid + 1, 0, 0) ||
	    kr_tables_refill(&t, &routed))
		abort();
	kr_tables_cache_write(fuzz_null(), &f, &t);
	kr_tables_free(&routed);
	kr_tables_free(&t);
	return 0;
}
