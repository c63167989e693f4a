/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute capture's reading part: discovery, then the SMP and SA batches,
 * into a kr_fabric and kr_tables the core writers dump. */
#include <config.h>

#include "capture_mad.h"

#include "cli.h"

/* LFT rows cover every LID a port has and every entry a switch holds. */
static int tables_init(const struct cap_net *net, const struct kr_fabric *f,
		       bool path_sl, struct kr_tables *t, struct kr_diag *d)
{
	uint32_t stride = f->max_lid + 1;

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		if (net->fdb_top[sw] >= stride)
			stride = net->fdb_top[sw] + 1u;
	if (kr_tables_init(t, f, stride, 1, path_sl))
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	return KR_OK;
}

int capture_fabric(const struct capture_opts *o, struct kr_fabric *f,
		   struct kr_tables *t, FILE *log)
{
	struct kr_diag d = { 0 };
	struct cap_net net;
	struct cap_port port = { .fd = -1 };
	double t0 = kr_now_ms();
	int rc = cap_discover(o, &net, f, log, &d);

	if (!rc)
		rc = tables_init(&net, f, o->path_sl, t, &d);
	if (!rc)
		rc = cap_port_open(&port, net.ca, net.port, o, log, &d);
	if (!rc)
		rc = cap_read_lfts(&port, &net, f, t, &d);
	if (!rc)
		rc = cap_read_sl2vl(&port, &net, f, t, &d);
	if (!rc && o->path_sl)
		rc = cap_read_path_sls(&port, &net, f, t, &d);
	cap_port_close(&port);
	cap_net_free(&net);
	fprintf(log, "total: %.2f s%s\n", (kr_now_ms() - t0) / 1e3,
		rc ? ", FAILED" : "");
	if (rc) {
		char msg[KR_DIAG_LINE];

		kr_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "knsroute capture: %s\n", msg);
		return EXIT_PROBLEM;
	}
	return 0;
}
