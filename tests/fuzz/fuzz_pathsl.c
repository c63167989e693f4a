/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Path SLs: knsroute's path-sl file and `saquery -p` PathRecords, read
 * against the 3x3 torus the seeds came from, written back when accepted. */
#include "fuzz.h"

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	fuzz_tables(data, size, &f, 1, kr_path_sl_parse, kr_path_sl_write);
	return 0;
}
