/* Buffered, printf-free output of the dump writers (out_int.h). */
#include "out_int.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kr_base.h"

int kr_out_open(struct kr_out *o, FILE *fp)
{
	*o = (struct kr_out){ .fp = fp, .fd = -1 };
	o->buf = malloc(KR_OUT_BUF);
	if (!o->buf)
		return KR_ENOMEM;
	/* bytes the caller put in fp before us go first; a failure there is
	 * the stream's, which the caller sees in ferror() */
	fflush(fp);
	o->fd = fileno(fp);
	return KR_OK;
}

static void out_write(struct kr_out *o, const char *s, size_t len)
{
	if (o->err)
		return;		/* the file is lost already: no partial retry */
	if (o->fd < 0) {
		if (fwrite(s, 1, len, o->fp) != len)
			o->err = errno ? errno : EIO;
		return;
	}
	while (len) {
		ssize_t w = write(o->fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			return;
		}
		s += w;
		len -= (size_t)w;
	}
}

void kr_out_flush(struct kr_out *o)
{
	out_write(o, o->buf, o->n);
	o->n = 0;
}

int kr_out_close(struct kr_out *o)
{
	int err;

	kr_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	err = o->err;
	if (!err)
		return KR_OK;
	errno = err;		/* kr_write_atomic names it */
	return KR_EIO;
}

void kr_out_put(struct kr_out *o, const char *s, size_t len)
{
	if (o->n + len > KR_OUT_BUF)
		kr_out_flush(o);
	if (len > KR_OUT_BUF) {
		out_write(o, s, len);
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

char *kr_fmt_u(char *p, uint64_t v)
{
	char tmp[20], *t = tmp + sizeof(tmp);

	do {
		*--t = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, t, (size_t)(tmp + sizeof(tmp) - t));
	return p + (tmp + sizeof(tmp) - t);
}

char *kr_fmt_hex(char *p, uint64_t v, unsigned width, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned n = 1;

	while (n < 16 && v >> 4 * n)
		n++;
	if (n < width)
		n = width;
	for (unsigned i = n; i-- > 0; v >>= 4)
		p[i] = digits[v & 15];
	return p + n;
}

void kr_out_u(struct kr_out *o, uint64_t v)
{
	kr_out_end(o, kr_fmt_u(kr_out_room(o, 20), v));
}

void kr_out_hex(struct kr_out *o, uint64_t v, unsigned width, int upper)
{
	kr_out_end(o, kr_fmt_hex(kr_out_room(o, 16 + width), v, width, upper));
}
