/* Files that appear whole or not at all: written to NAME.tmp.PID in the
 * same directory, flushed, then renamed over NAME. */
#include "kr_atomic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int kr_write_dir(const char *dir, const struct kr_dir_file *files, size_t n,
		 const void *ctx, struct kr_diag *d)
{
	char (*tmp)[4200] = malloc((n + 1) * sizeof(*tmp)), path[4200];
	size_t done = 0;
	int rc = KR_OK;

	if (!tmp)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	if (mkdir(dir, 0755) && errno != EEXIST)
		rc = kr_fail(d, KR_EIO, 0, "%s: %s", dir, strerror(errno));
	for (; done < n && !rc; done++) {
		FILE *out;

		snprintf(tmp[done], sizeof(tmp[done]), "%s/.%s.tmp.%ld", dir,
			 files[done].name, (long)getpid());
		out = fopen(tmp[done], "w");
		if (!out) {
			rc = kr_fail(d, KR_EIO, 0, "%s: %s", tmp[done], strerror(errno));
			break;
		}
		rc = files[done].fn(out, ctx);
		if ((ferror(out) | fclose(out)) && !rc)
			rc = KR_EIO;
		if (rc)
			kr_fail(d, rc, 0, "cannot write %s: %s", tmp[done],
				kr_strerror(rc));
	}
	for (size_t i = 0; i < done; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (rc || rename(tmp[i], path)) {
			if (!rc)
				rc = kr_fail(d, KR_EIO, 0, "%s: %s", path,
					     strerror(errno));
			unlink(tmp[i]);
		}
	}
	free(tmp);
	return rc;
}
