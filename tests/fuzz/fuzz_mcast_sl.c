/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast group SLs (saquery -g / MCMR output, "MLID SL" lines), given
 * to the groups of the real MFT capture of the 3x3 torus. The reader only
 * sets the groups' SLs, so the MFTs are read once and the SLs put back to
 * how kr_mft_parse leaves them before each input. */
#include "fuzz.h"

#include <stdlib.h>

#define FABRIC "mcast_t33.ibnd"
#define MFTS "mcast_t33-mcfdbs.dump"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	static struct kr_tables t;
	struct kr_diag d = { 0 };

	if (!f.nnode) {
		size_t len;
		char *mft;

		fuzz_fabric(FABRIC, &f);
		mft = (char *)fuzz_text(MFTS, &len);
		if (kr_mft_parse(mft, len, &f, &t, &d) || !t.nmgroup)
			abort();
		free(mft);
	}
	for (size_t i = 0; i < t.nmgroup; i++)
		t.mgroup[i].sl = t.mgroup[i].sl_given = 0;
	fuzz_check(kr_mcast_sl_parse((const char *)data, size, &f, &t, &d), &d);
	return 0;
}
