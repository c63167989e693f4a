/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Path SLs: knsroute's path-sl file and `saquery -p` PathRecords, read
 * against the 3x3 torus the seeds came from, written back when accepted. */
#include "fuzz.h"

#include <stdlib.h>

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	struct kr_tables t = { 0 };
	struct kr_diag d = { 0 };

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	if (kr_tables_init(&t, &f, f.max_lid + 1, 0, 0))
		abort();
	if (!fuzz_check(kr_path_sl_parse((const char *)data, size, &f, &t, &d), &d))
		kr_path_sl_write(fuzz_null(), &f, &t);
	kr_tables_free(&t);
	return 0;
}
