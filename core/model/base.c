/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
/* The message quotes what it read, which may be any bytes: those that
 * are not printable ASCII become '?', so that a log or a terminal gets
 * text; the file name, the user's or the admin's, only loses its control
 * characters. */
void kr_diag_format(const struct kr_diag *d, char *buf, size_t len)
{
	int at;

	if (d->file && d->line)
		at = snprintf(buf, len, "%s:%u: ", d->file, d->line);
	else if (d->file)
		at = snprintf(buf, len, "%s: ", d->file);
	else
		at = snprintf(buf, len, "%s", "");
	if (at >= 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, "%s", d->msg);
	for (char *p = buf; len && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f ||
		    (p - buf >= at && (unsigned char)*p >= 0x80))
			*p = '?';
}

double kr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int kr_grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t room = *cap ? *cap : 16;
	char *old, *p;

	if (n <= *cap)
		return KR_OK;
	while (room < n)
		room *= 2;
	if (room > SIZE_MAX / elem)
		return KR_ENOMEM;
	memcpy(&old, arr, sizeof(old));
	p = realloc(old, room * elem);
	if (!p)
		return KR_ENOMEM;
	memset(p + *cap * elem, 0, (room - *cap) * elem);
	memcpy(arr, &p, sizeof(p));
	*cap = room;
	return KR_OK;
}
