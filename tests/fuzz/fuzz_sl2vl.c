/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SL2VL maps: opensm-sl2vl.dump and `smpquery sl2vl` output, read against
 * the 3x3 torus the seeds came from into tables for its LIDs (as check
 * has them after the LFTs), written back when accepted. */
#include "fuzz.h"

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	fuzz_tables(data, size, &f, 1, kr_sl2vl_parse, kr_sl2vl_write);
	return 0;
}
