/* Files that appear whole or not at all: written to NAME.tmp.PID in the
 * same directory, flushed, then renamed over NAME. */
#include "kr_atomic.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int kr_write_atomic(const char *path, kr_writer_fn *fn, const void *ctx,
		    struct kr_diag *d)
{
	char tmp[4200];
	FILE *out;
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return kr_fail(d, KR_EINVAL, 0, "path too long: %s", path);
	out = fopen(tmp, "w");
	if (!out)
		return kr_fail(d, KR_EIO, 0, "%s: %s", tmp, strerror(errno));
	rc = fn(out, ctx);
	if (ferror(out) && !rc)
		rc = KR_EIO;
	if (fclose(out) && !rc)
		rc = KR_EIO;
	if (!rc && rename(tmp, path))
		rc = KR_EIO;
	if (rc) {
		int err = errno;

		unlink(tmp);
		return kr_fail(d, rc, 0, "cannot write %s: %s", path,
			       rc == KR_EIO ? strerror(err ? err : EIO)
					    : kr_strerror(rc));
	}
	return KR_OK;
}
