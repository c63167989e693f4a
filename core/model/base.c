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

uint32_t kr_sort_by_key(const uint32_t *key, uint32_t n, uint32_t nkey,
			const uint32_t *rank, uint32_t *out)
{
	uint32_t *at = calloc((size_t)nkey + 1, sizeof(*at)), total = 0;

	if (!at)
		return KR_NONE;
	for (uint32_t i = 0; i < n; i++)
		if (key[i] != KR_NONE)
			at[key[i]]++;
	for (uint32_t j = 0; j < nkey; j++) {	/* counts to first places */
		uint32_t k = rank ? rank[j] : j, c = at[k];

		at[k] = total;
		total += c;
	}
	for (uint32_t i = 0; i < n; i++)
		if (key[i] != KR_NONE)
			out[at[key[i]]++] = i;
	free(at);
	return total;
}
