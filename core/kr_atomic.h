/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writing a file so that readers never see half of it. */
#ifndef KR_ATOMIC_H
#define KR_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#include "kr_base.h"

typedef int kr_writer_fn(FILE *out, const void *ctx);

/* Calls fn(out, ctx) on a temporary file next to path and renames it
 * over path when fn returned KR_OK and every byte reached the disk;
 * otherwise removes it and leaves path untouched. */
int kr_write_atomic(const char *path, kr_writer_fn *fn, const void *ctx,
		    struct kr_diag *d);

/* One file of a directory written by kr_write_dir. */
struct kr_dir_file {
	const char *name;
	kr_writer_fn *fn;
};

/* Writes every file into dir (created if missing, one level) as
 * .NAME.tmp.PID, and renames them all to NAME only when every one is
 * complete, so a failure leaves none of them behind. Each fn gets ctx. */
int kr_write_dir(const char *dir, const struct kr_dir_file *files, size_t n,
		 const void *ctx, struct kr_diag *d);

#endif
