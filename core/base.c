/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_base.h"

#include <stdio.h>

const char *kr_strerror(int err)
{
	switch (err) {
#define X(name, val, text) case KR_##name: return text;
	KR_ERRORS(X)
#undef X
	}
	return "unknown error";
}

int kr_fail(struct kr_diag *d, int err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	d->line = line;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* A message may quote input (a node name from a device): control
 * characters become "?" so that a terminal or log shows, not obeys, them. */
void kr_diag_format(const struct kr_diag *d, char *buf, size_t len)
{
	if (d->file && d->line)
		snprintf(buf, len, "%s:%u: %s", d->file, d->line, d->msg);
	else if (d->file)
		snprintf(buf, len, "%s: %s", d->file, d->msg);
	else
		snprintf(buf, len, "%s", d->msg);
	for (char *p = buf; len && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}
