/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* OpenSM's guid2lid cache, applied to a fresh copy of a fabric with CAs of
 * several LMCs each time (the reader changes the fabric's LIDs). */
#include "fuzz.h"

#include <stdlib.h>

#define FABRIC "net_mixed.net"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *net;
	static size_t netlen;
	struct kr_fabric f = { 0 };
	struct kr_diag d = { 0 };

	if (!net)
		net = fuzz_text(FABRIC, &netlen);
	if (kr_net_parse(net, netlen, FABRIC, &f, &d))
		abort();
	fuzz_check(kr_guid2lid_read(fuzz_path(data, size), &f, &d), &d);
	kr_fabric_free(&f);
	return 0;
}
