/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MFTs: opensm.mcfdbs and ibroute -M / dump_mfts output, read against the
 * 3x3 torus the seeds came from, written back when accepted. */
#include "fuzz.h"

#define FABRIC "mcast_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	struct kr_tables t = { 0 };
	struct kr_diag d = { 0 };

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	if (!fuzz_check(kr_mft_parse((const char *)data, size, &f, &t, &d), &d))
		kr_mft_write(fuzz_null(), &f, &t);
	kr_tables_free(&t);
	return 0;
}
