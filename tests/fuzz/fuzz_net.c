/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Topologies: ibnetdiscover output (plain, -g) and ibsim net files. What
 * is accepted must write back as a net file and read again. */
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kr_fabric f = { 0 };
	struct kr_diag d = { 0 };

	if (!fuzz_check(kr_net_parse((const char *)data, size, "fuzz", &f, &d), &d))
		kr_net_write(fuzz_null(), &f);
	kr_fabric_free(&f);
	return 0;
}
