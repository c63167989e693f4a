/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <config.h>

#include "capture_mad.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad_str.h>

#define MAD_STATUS_BUSY 0x0001

struct slot {
	size_t i;		/* query, SIZE_MAX when the slot is free */
	uint32_t tid;
	unsigned tries;		/* attempts sent so far */
	double deadline;	/* kr_now_ms() when the attempt times out */
};

struct progress {
	const char *what;
	size_t n;
	int tty;		/* overwrite one line, else a line per 10 % */
	int quiet;
	unsigned decile;	/* last tenth reported */
	double last_ms;
};

struct run {
	struct cap_port *p;
	const struct cap_batch *b;
	struct kr_diag *d;
	struct slot *slot;
	unsigned nslot;
	size_t next, ndone;
	unsigned nretry;
	struct progress pr;
};

int cap_port_open(struct cap_port *p, const char *ca, unsigned port,
		  const struct capture_opts *o, FILE *log, struct kr_diag *d)
{
	*p = (struct cap_port){ .fd = -1, .o = o, .log = log,
				.buf_len = IB_MAD_SIZE };
	p->buf = malloc(umad_size() + (size_t)p->buf_len);
	if (!p->buf)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	p->fd = umad_open_port(ca, (int)port);
	if (p->fd < 0)
		return kr_fail(d, KR_EIO, 0, "cannot open %s port %u: %s", ca,
			       port, strerror(-p->fd));
	/* rmpp_version 1 on SA: the kernel reassembles multi-packet answers;
	 * each of ours fits one MAD anyway (see cap_sa.c). */
	p->agent_smi = umad_register(p->fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	p->agent_sa = umad_register(p->fd, IB_SA_CLASS, 2, 1, NULL);
	if (p->agent_smi < 0 || p->agent_sa < 0)
		return kr_fail(d, KR_EIO, 0, "%s port %u: cannot register a "
			       "MAD agent: %s", ca, port, strerror(errno));
	/* A transaction ID of our own per run; the kernel owns the high half. */
	p->tid = (uint32_t)getpid() << 16;
	return KR_OK;
}

void cap_port_close(struct cap_port *p)
{
	if (p->fd >= 0)
		umad_close_port(p->fd);
	free(p->buf);
	p->fd = -1;
	p->buf = NULL;
}

static void progress(struct progress *pr, size_t done)
{
	unsigned dec;

	if (pr->quiet || !pr->n)
		return;
	if (pr->tty) {
		double now = kr_now_ms();

		if (done < pr->n && now - pr->last_ms < 100)
			return;
		pr->last_ms = now;
		fprintf(stderr, "\r%s: %zu/%zu", pr->what, done, pr->n);
		if (done == pr->n)
			fputc('\n', stderr);
		return;
	}
	dec = (unsigned)(done * 10 / pr->n);
	if (dec > pr->decile) {
		pr->decile = dec;
		fprintf(stderr, "%s: %zu/%zu\n", pr->what, done, pr->n);
	}
}

static int send_attempt(struct run *r, struct slot *s)
{
	struct cap_port *p = r->p;
	struct cap_query q;
	int len, agent;

	memset(&q, 0, sizeof(q));
	r->b->build(r->b->ctx, s->i, &q);
	if (++p->tid == 0)
		p->tid = 1;
	q.rpc.trid = p->tid;
	memset(p->buf, 0, umad_size() + IB_MAD_SIZE);
	len = mad_build_pkt(p->buf, &q.rpc, &q.to, NULL, q.data);
	agent = (q.rpc.mgtclass & 0xff) == IB_SA_CLASS ? p->agent_sa
						       : p->agent_smi;
	s->tid = p->tid;
	s->tries++;
	s->deadline = kr_now_ms() + p->o->timeout_ms;
	/* The kernel's own timeout reports a lost answer as a receive with
	 * status ETIMEDOUT; ibsim's umad2sim has none, so the deadline above
	 * decides either way and a late report finds no slot. */
	if (len < 0 || umad_send(p->fd, agent, p->buf, IB_MAD_SIZE,
				 (int)p->o->timeout_ms, 0) < 0) {
		char what[200];

		r->b->name(r->b->ctx, s->i, what, sizeof(what));
		return kr_fail(r->d, KR_EIO, 0, "%s: cannot send the query: %s",
			       what, strerror(errno));
	}
	return KR_OK;
}

static int fill(struct run *r)
{
	for (unsigned k = 0; k < r->nslot && r->next < r->b->n; k++) {
		struct slot *s = &r->slot[k];

		if (s->i != SIZE_MAX)
			continue;
		*s = (struct slot){ .i = r->next++ };
		if (send_attempt(r, s))
			return KR_EIO;
	}
	return KR_OK;
}

/* Sends s again, or fails when its attempts are used up. */
static int retry(struct run *r, struct slot *s, const char *why)
{
	char what[200];

	r->b->name(r->b->ctx, s->i, what, sizeof(what));
	if (s->tries > r->p->o->retries)
		return kr_fail(r->d, KR_EIO, 0, "%s: %s after %u attempt%s "
			       "(timeout %u ms each)", what, why, s->tries,
			       s->tries == 1 ? "" : "s", r->p->o->timeout_ms);
	r->nretry++;
	fprintf(r->p->log, "retry: %s: %s, attempt %u of %u\n", what, why,
		s->tries + 1, r->p->o->retries + 1);
	return send_attempt(r, s);
}

/* libibumad names statuses given in wire order. */
static const char *status_text(const uint8_t *mad, unsigned status)
{
	unsigned cls = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
	uint8_t wire[2] = { (uint8_t)(status >> 8), (uint8_t)status };
	__be16 be;

	memcpy(&be, wire, sizeof(be));
	if (cls == IB_SA_CLASS && status >> 8)
		return umad_sa_mad_status_str(be);
	return umad_common_mad_status_str(be);
}

static int answered(struct run *r, struct slot *s, const uint8_t *mad, int len)
{
	unsigned cls = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
	unsigned status = mad_get_field((void *)mad, 0, cls == IB_SMI_DIRECT_CLASS
					? IB_DRSMP_STATUS_F : IB_MAD_STATUS_F);
	char what[200], why[200];

	if (status & MAD_STATUS_BUSY)
		return retry(r, s, "answered busy");
	r->b->name(r->b->ctx, s->i, what, sizeof(what));
	if (status)
		return kr_fail(r->d, KR_EIO, 0, "%s: answered with MAD status "
			       "0x%04x (%s)", what, status, status_text(mad, status));
	if (r->b->answer(r->b->ctx, s->i, mad, len, why, sizeof(why)))
		return kr_fail(r->d, KR_EIO, 0, "%s: %s", what, why);
	s->i = SIZE_MAX;
	r->ndone++;
	progress(&r->pr, r->ndone);
	return KR_OK;
}

/* One received MAD of *len bytes, if any arrives within wait_ms: 1, 0, or
 * an error. */
static int receive(struct run *r, int wait_ms, int *len)
{
	struct cap_port *p = r->p;
	int rc;

	*len = p->buf_len;

	rc = umad_recv(p->fd, p->buf, len, wait_ms);
	if (rc == -ENOSPC && *len > p->buf_len) {
		uint8_t *nb = realloc(p->buf, umad_size() + (size_t)*len);

		if (!nb)
			return kr_fail(r->d, KR_ENOMEM, 0, "out of memory");
		p->buf = nb;
		p->buf_len = *len;
		return 0;
	}
	if (rc == -ETIMEDOUT || rc == -EAGAIN || rc == -EWOULDBLOCK ||
	    rc == -EINTR)
		return 0;
	if (rc < 0)
		return kr_fail(r->d, KR_EIO, 0, "receiving MADs: %s",
			       strerror(-rc));
	return *len >= IB_SA_DATA_OFFS ? 1 : 0;
}

static struct slot *slot_of(struct run *r, uint32_t tid)
{
	for (unsigned k = 0; k < r->nslot; k++)
		if (r->slot[k].i != SIZE_MAX && r->slot[k].tid == tid)
			return &r->slot[k];
	return NULL;
}

static int step(struct run *r)
{
	double now = kr_now_ms(), first = now + 1000;
	struct slot *s;
	int rc, len;

	for (unsigned k = 0; k < r->nslot; k++)
		if (r->slot[k].i != SIZE_MAX && r->slot[k].deadline < first)
			first = r->slot[k].deadline;
	rc = receive(r, first > now + 1 ? (int)(first - now) : 1, &len);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		uint8_t *mad = umad_get_mad(r->p->buf);

		s = mad_get_field(mad, 0, IB_MAD_RESPONSE_F) ?
		    slot_of(r, (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F)) :
		    NULL;
		if (s && umad_status(r->p->buf))
			rc = retry(r, s, "no answer");
		else if (s)
			rc = answered(r, s, mad, len);
		else
			rc = 0;
		if (rc)
			return rc;
	}
	now = kr_now_ms();
	for (unsigned k = 0; k < r->nslot; k++)
		if (r->slot[k].i != SIZE_MAX && r->slot[k].deadline <= now &&
		    (rc = retry(r, &r->slot[k], "no answer")))
			return rc;
	return fill(r);
}

/* After a failure: the answers still on their way are waited for (each
 * until its deadline) and dropped, so that none arrives at a port being
 * closed; ibsim's umad2sim crashes on one. */
static void drain(struct run *r)
{
	struct kr_diag ignored = { 0 };
	struct kr_diag *d = r->d;
	int len;

	r->d = &ignored;
	for (;;) {
		double now = kr_now_ms(), last = now;
		int got;

		for (unsigned k = 0; k < r->nslot; k++)
			if (r->slot[k].i != SIZE_MAX) {
				if (r->slot[k].deadline <= now)
					r->slot[k].i = SIZE_MAX;
				else if (r->slot[k].deadline > last)
					last = r->slot[k].deadline;
			}
		if (last <= now ||
		    (got = receive(r, (int)(last - now) + 1, &len)) < 0)
			break;
		if (got) {
			uint8_t *mad = umad_get_mad(r->p->buf);
			struct slot *s = slot_of(r, (uint32_t)mad_get_field64(
						 mad, 0, IB_MAD_TRID_F));

			if (s)
				s->i = SIZE_MAX;
		}
	}
	r->d = d;
}

int cap_batch_run(struct cap_port *p, const struct cap_batch *b,
		  struct kr_diag *d)
{
	struct run r = { .p = p, .b = b, .d = d,
			 .pr = { .what = b->what, .n = b->n,
				 .tty = isatty(STDERR_FILENO),
				 .quiet = p->o->quiet } };
	double t0 = kr_now_ms();
	int rc;

	r.nslot = b->window < b->n ? b->window : (unsigned)b->n;
	r.slot = malloc((r.nslot + 1) * sizeof(*r.slot));
	if (!r.slot)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (unsigned k = 0; k < r.nslot; k++)
		r.slot[k].i = SIZE_MAX;
	rc = fill(&r);
	while (!rc && r.ndone < b->n)
		rc = step(&r);
	if (rc)
		drain(&r);
	free(r.slot);
	if (rc && r.pr.tty && !r.pr.quiet && r.ndone)
		fputc('\n', stderr);
	fprintf(p->log, "%s: %zu queries, %u retried, %zu answered, %.2f s%s\n",
		b->what, b->n, r.nretry, r.ndone, (kr_now_ms() - t0) / 1e3,
		rc ? ", FAILED" : "");
	return rc;
}
