/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MFTs: opensm.mcfdbs and ibroute -M / dump_mfts output, read against the
 * 3x3 torus the seeds came from, written back when accepted. */
#include "fuzz.h"

#define FABRIC "mcast_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	fuzz_tables(data, size, &f, 0, kr_mft_parse, kr_mft_write);
	return 0;
}
