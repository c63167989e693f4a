/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The coordinates file (coords_file, and the topo cache coords_cache
 * persists), honoured by recognition of the 3x3 torus its seeds name. */
#include "fuzz.h"

#include <string.h>

#define FABRIC "chk_t33.ibnd"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kr_fabric f;
	struct kr_conf c;
	struct kr_topo t = { 0 };
	struct kr_diag d = { 0 };

	if (!f.nnode)
		fuzz_fabric(FABRIC, &f);
	kr_conf_init(&c);
	strcpy(c.coords_file, fuzz_path(data, size));
	if (!fuzz_check(kr_topo_recognize(&f, &c, &t, &d), &d))
		kr_topo_cache_write(fuzz_null(), &f, &t);
	kr_topo_free(&t);
	return 0;
}
