/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute.conf. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kr_conf c;
	struct kr_diag d = { 0 };

	kr_conf_init(&c);
	fuzz_check(kr_conf_load(&c, fuzz_path(data, size), KR_IN_FILE, &d), &d);
	return 0;
}
