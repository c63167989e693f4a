/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `knsroute faults`: the sums over trials and the report made of them
 * (lines, or one JSON object). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "faults.h"
#include "kr_plan.h"
#include "plan_opts.h"

/* ------------------------------------------------------------------ */
/* Sums over trials                                                   */

/* "NAME"[P]-"NAME"[P], ... or "NAME", ... of the trial's faults. */
void fmt_faults(const struct bench *b, char *buf, size_t len)
{
	const struct kr_fabric *f = b->f;
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < b->nfault && at < len; i++) {
		uint32_t s = b->pick[i], t = (uint32_t)b->peer0[s];
		const char *sep = i ? ", " : "";
		int n;

		if (b->switches)
			n = snprintf(buf + at, len - at, "%s\"%s\"", sep,
				     kr_node_name(f, s));
		else
			n = snprintf(buf + at, len - at, "%s\"%s\"[%u]-\"%s\"[%u]",
				     sep, kr_node_name(f, f->owner[s]),
				     kr_port_num(f, s), kr_node_name(f, f->owner[t]),
				     kr_port_num(f, t));
		at += n > 0 ? (size_t)n : 0;
	}
}

static void add_stats(struct tally *ta, const struct kr_repair_stats *st)
{
	ta->pairs += st->pairs;
	ta->dests += st->dests;
	ta->dests_detour += st->dests_detour;
	ta->dests_updn += st->dests_updn;
	for (unsigned k = 0; k < KR_REPAIR_NKIND; k++)
		ta->paths[k] += st->paths[k];
	ta->pairs_disc += st->pairs_disconnected;
	ta->sl_changed += st->pairs_sl_changed;
	ta->stale += st->pairs_stale_unsafe;
	ta->repaired += st->pairs_repaired;
	ta->extra_sum += st->extra_hops_sum;
	if (st->extra_hops_max > ta->extra_max)
		ta->extra_max = st->extra_hops_max;
	ta->stretch_sum += st->stretch_sum;
	if (st->stretch_max > ta->stretch_max)
		ta->stretch_max = st->stretch_max;
}

static void add_failure(struct tally *ta, const struct bench *b,
			uint32_t trial, const struct outcome *o)
{
	char faults[1500];

	if (ta->failures++)
		return;
	fmt_faults(b, faults, sizeof(faults));
	snprintf(ta->first_failure, sizeof(ta->first_failure),
		 "trial %" PRIu32 " (%s): %s", trial, faults, o->msg);
}

void tally_add(struct tally *ta, const struct bench *b, uint32_t trial,
	       const struct outcome *o)
{
	const uint64_t *paths = o->st.paths;

	ta->trials++;
	ta->trial_ms_sum += o->ms;
	if (o->repair_ran) {
		ta->nrepair++;
		ta->repair_ms_sum += o->st.ms;
		if (o->st.ms > ta->repair_ms_max)
			ta->repair_ms_max = o->st.ms;
	}
	if (o->repaired)
		add_stats(ta, &o->st);
	if (o->checked) {
		ta->vls_max = o->vls > ta->vls_max ? o->vls : ta->vls_max;
		if (o->load_max > ta->load_max)
			ta->load_max = o->load_max;
		ta->load_sum += o->load_max;
		ta->nchecked++;
	}
	if (!o->connected) {
		ta->failures_disc += !o->repaired;
		ta->disc_handled += o->failed == KR_NPHASE;
		return;
	}
	ta->connected++;
	ta->routable1 += o->routable1;
	ta->routable2 += o->routable2;
	if (o->failed != KR_NPHASE) {
		add_failure(ta, b, trial, o);
		return;
	}
	ta->handled++;
	if (paths[KR_REPAIR_GENERAL] || paths[KR_REPAIR_DETOUR])
		return;
	ta->le2++;
	ta->le1 += !paths[KR_REPAIR_TWO];
}

/* ------------------------------------------------------------------ */
/* Report                                                             */

enum fig_type { FIG_STR, FIG_INT, FIG_SHARE, FIG_REAL, FIG_NULL };

struct fig {
	const char *key;
	enum fig_type type;
	const char *s;
	uint64_t n;
	double v;
};

#define MAX_FIGS 40

struct figs {
	struct fig f[MAX_FIGS];
	unsigned n;
};

static void fig_add(struct figs *fs, const char *key, enum fig_type type,
		    const char *s, uint64_t n, double v)
{
	if (fs->n < MAX_FIGS)
		fs->f[fs->n++] = (struct fig){ key, type, s, n, v };
}

static void fig_int(struct figs *fs, const char *key, uint64_t n)
{
	fig_add(fs, key, FIG_INT, NULL, n, 0);
}

static void fig_real(struct figs *fs, const char *key, double v)
{
	fig_add(fs, key, FIG_REAL, NULL, 0, v);
}

/* part / whole, or null without a whole. */
static void fig_share(struct figs *fs, const char *key, uint64_t part,
		      uint64_t whole)
{
	fig_add(fs, key, whole ? FIG_SHARE : FIG_NULL, NULL, 0,
		whole ? (double)part / (double)whole : 0);
}

static void trial_figs(struct figs *fs, const struct faults_args *a,
		       const struct tally *ta, const char *fabric,
		       const struct kr_conf *c)
{
	fig_add(fs, "fabric", FIG_STR, fabric, 0, 0);
	fig_int(fs, "faults", a->nfault);
	fig_add(fs, "fault_kind", FIG_STR, a->switches ? "switches" : "links",
		0, 0);
	fig_int(fs, "trials", ta->trials);
	fig_int(fs, "seed", a->seed);
	fig_int(fs, "max_intermediates", c->max_intermediates);
	fig_int(fs, "mcast", (uint64_t)a->mcast);
	fig_int(fs, "connected_trials", ta->connected);
	fig_share(fs, "disconnected", ta->trials - ta->connected, ta->trials);
	fig_share(fs, "handled_le1_intermediate", ta->le1, ta->connected);
	fig_share(fs, "handled_le2_intermediates", ta->le2, ta->connected);
	fig_share(fs, "handled_total", ta->handled, ta->connected);
	fig_share(fs, "routable_le1_intermediate", ta->routable1, ta->connected);
	fig_share(fs, "routable_le2_intermediates", ta->routable2, ta->connected);
	fig_int(fs, "failures", ta->failures);
	fig_add(fs, "first_failure", ta->failures ? FIG_STR : FIG_NULL,
		ta->first_failure, 0, 0);
	fig_int(fs, "failures_disconnected", ta->failures_disc);
	fig_int(fs, "disconnected_handled", ta->disc_handled);
}

static void pair_figs(struct figs *fs, const struct tally *ta,
		      uint64_t load0)
{
	double rep = (double)ta->repaired;

	fig_int(fs, "pairs", ta->pairs);
	fig_share(fs, "paths_1_intermediate", ta->paths[KR_REPAIR_ONE], ta->pairs);
	fig_share(fs, "paths_2_intermediates", ta->paths[KR_REPAIR_TWO], ta->pairs);
	fig_share(fs, "paths_general_repair", ta->paths[KR_REPAIR_GENERAL],
		  ta->pairs);
	fig_share(fs, "paths_detour_layer", ta->paths[KR_REPAIR_DETOUR], ta->pairs);
	fig_share(fs, "pairs_disconnected", ta->pairs_disc, ta->pairs);
	fig_share(fs, "pairs_sl_changed", ta->sl_changed, ta->pairs);
	fig_share(fs, "pairs_stale_unsafe", ta->stale, ta->pairs);
	fig_share(fs, "dests_detour_layer", ta->dests_detour, ta->dests);
	fig_share(fs, "dests_updn_layer", ta->dests_updn, ta->dests);
	fig_int(fs, "vls_used_max", ta->vls_max);
	fig_real(fs, "stretch_mean", rep ? ta->stretch_sum / rep : 1.0);
	fig_real(fs, "stretch_max", ta->stretch_max > 1.0 ? ta->stretch_max : 1.0);
	fig_real(fs, "extra_hops_mean", rep ? (double)ta->extra_sum / rep : 0.0);
	fig_int(fs, "extra_hops_max", ta->extra_max);
	fig_int(fs, "link_load_max_intact", load0);
	fig_real(fs, "link_load_max_ratio",
		 load0 ? (double)ta->load_max / (double)load0 : 0.0);
	fig_real(fs, "link_load_mean_ratio",
		 load0 && ta->nchecked ? (double)ta->load_sum /
					 ta->nchecked / (double)load0 : 0.0);
	fig_real(fs, "repair_ms_mean",
		 ta->nrepair ? ta->repair_ms_sum / ta->nrepair : 0.0);
	fig_real(fs, "repair_ms_max", ta->repair_ms_max);
	fig_real(fs, "trial_ms_mean",
		 ta->trials ? ta->trial_ms_sum / ta->trials : 0.0);
}

static void print_value(const struct fig *g, int json)
{
	switch (g->type) {
	case FIG_STR:
		if (json)
			kr_json_string(stdout, g->s);
		else
			fputs(g->s, stdout);
		break;
	case FIG_INT: printf("%" PRIu64, g->n); break;
	case FIG_SHARE: printf("%.6f", g->v); break;
	case FIG_REAL: printf("%.4f", g->v); break;
	case FIG_NULL: fputs(json ? "null" : "n/a", stdout); break;
	}
}

static void print_figs(const struct figs *fs, int json)
{
	if (json) {
		putchar('{');
		kr_json_version(stdout);
	}
	for (unsigned i = 0; i < fs->n; i++) {
		if (json)
			printf(",\n \"%s\": ", fs->f[i].key);
		else
			printf("%-26s ", fs->f[i].key);
		print_value(&fs->f[i], json);
		if (!json)
			putchar('\n');
	}
	if (json)
		printf("}\n");
}

void faults_report(const struct faults_args *a, const struct tally *ta,
		   const char *fabric, const struct kr_conf *c, uint64_t load0)
{
	struct figs fs = { 0 };

	trial_figs(&fs, a, ta, fabric, c);
	pair_figs(&fs, ta, load0);
	print_figs(&fs, a->json);
}
