/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LFTs: opensm-lfts.dump, opensm.fdbs, ibroute / dump_lfts output, read
 * against the 3x3 torus the seed dumps came from; then the same input as
 * the source of LIDs for that fabric with its LIDs taken away. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define FABRIC "chk_t33.ibnd"

/* The reader only sets LIDs, so one fabric serves every input once its
 * LIDs are taken away again. */
static void lids(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	struct kr_diag d = { 0 };

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	memset(f.lid, 0, f.nport * sizeof(*f.lid));
	memset(f.lmc, 0, f.nport * sizeof(*f.lmc));
	if (kr_fabric_index_lids(&f, &d))
		abort();
	fuzz_check(kr_lfts_parse_lids((const char *)data, size, &f, &d), &d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	fuzz_tables(data, size, &f, 0, kr_lfts_parse, kr_lfts_write);
	lids(data, size);
	return 0;
}
