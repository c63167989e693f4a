/* Writing a file so that readers never see half of it. */
#ifndef KR_ATOMIC_H
#define KR_ATOMIC_H

#include <stdio.h>

#include "kr_base.h"

typedef int kr_writer_fn(FILE *out, const void *ctx);

/* Calls fn(out, ctx) on a temporary file next to path and renames it
 * over path when fn returned KR_OK and every byte reached the disk;
 * otherwise removes it and leaves path untouched. */
int kr_write_atomic(const char *path, kr_writer_fn *fn, const void *ctx,
		    struct kr_diag *d);

#endif
