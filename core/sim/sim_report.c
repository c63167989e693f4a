/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The simulator's report: one JSON object, a text summary or a CSV row.
 * Deadlock channels are named as `knsroute check` names a credit loop's:
 * "NAME[PORT] VL v", the sending port and the VL. Numbers print with %.6g
 * so that one seed gives byte-identical output. */
#include "kr_sim.h"

#include <string.h>

#include "kr_io.h"

static const char *const pattern_names[KR_SIM_NPATTERN] = {
	"uniform", "hotspot", "bitrev", "transpose", "complement", "tornado",
	"shift", "randperm", "zipf", "alltoall",
};

const char *kr_sim_pattern_name(unsigned p)
{
	return p < KR_SIM_NPATTERN ? pattern_names[p] : NULL;
}

int kr_sim_pattern_parse(const char *name)
{
	for (int i = 0; i < KR_SIM_NPATTERN; i++)
		if (!strcmp(name, pattern_names[i]))
			return i;
	return -1;
}

static const char *const ideal_json[] = {
	"null", "\"voqnet (not programmable in InfiniBand)\"",
	"\"adaptive-bubble (not programmable in InfiniBand)\"",
};

static const char *const ideal_text[] = {
	NULL, "VOQnet, a queue per destination at every input",
	"the adaptive bubble router, minimal adaptive with a bubble escape",
};

static void json_channel(FILE *out, const struct kr_fabric *f, uint32_t slot,
			 unsigned vl)
{
	const char *name = kr_node_name(f, f->owner[slot]);

	fputc('"', out);
	for (; *name; name++)
		fprintf(out, *name == '"' || *name == '\\' ? "\\%c" : "%c", *name);
	fprintf(out, "[%u] VL %u\"", kr_port_num(f, slot), vl);
}

static void json_windows(FILE *out, const struct kr_sim_result *r)
{
	fprintf(out, ",\"windows\":[");
	for (uint32_t i = 0; i < r->nwin; i++) {
		const struct kr_sim_window *w = &r->win[i];

		fprintf(out, "%s{\"start\":%llu,\"accepted_hot\":%.6g,"
			"\"accepted_cold\":%.6g,\"latency_mean\":%.6g,"
			"\"full_share\":%.6g,\"empty_share\":%.6g}",
			i ? "," : "", (unsigned long long)w->start,
			w->accepted_hot, w->accepted_cold, w->latency_mean,
			w->full_share, w->empty_share);
	}
	fputc(']', out);
}

int kr_sim_write_json(FILE *out, const struct kr_fabric *f,
		      const struct kr_sim_opts *o,
		      const struct kr_sim_result *r)
{
	fputc('{', out);
	kr_json_version(out);
	fprintf(out, ",\"pattern\":\"%s\",\"seed\":%llu,\"cas\":%u,"
		"\"packet_credits\":%u,\"cycles\":%llu,\"offered\":%.6g,"
		"\"accepted\":%.6g,\"accepted_flits_per_cycle_per_node\":%.6g,"
		"\"latency_mean\":%.6g,\"latency_p99\":%.6g,"
		"\"network_latency_mean\":%.6g,\"network_latency_p99\":%.6g,"
		"\"generated\":%llu,\"refused\":%llu,\"injected\":%llu,"
		"\"delivered\":%llu,\"dropped\":%llu,\"queued\":%llu,"
		"\"hops\":%llu,\"link_util_max\":%.6g,\"link_util_mean\":%.6g,"
		"\"ideal\":%s",
		kr_sim_pattern_name(o->pattern), (unsigned long long)o->seed,
		r->nhost, o->pkt, (unsigned long long)r->cycles, r->offered,
		r->accepted, r->accepted, r->latency_mean, r->latency_p99,
		r->net_latency_mean, r->net_latency_p99,
		(unsigned long long)r->generated,
		(unsigned long long)r->refused,
		(unsigned long long)r->injected,
		(unsigned long long)r->delivered,
		(unsigned long long)r->dropped, (unsigned long long)r->queued,
		(unsigned long long)r->hops, r->link_util_max,
		r->link_util_mean, ideal_json[o->ideal]);
	if (o->pattern == KR_SIM_HOTSPOT)
		fprintf(out, ",\"hot_senders\":%u,\"accepted_hot\":%.6g,"
			"\"accepted_cold\":%.6g,\"offered_cold\":%.6g",
			r->nhot, r->accepted_hot, r->accepted_cold,
			r->offered_cold);
	if (o->pattern == KR_SIM_ALLTOALL)
		fprintf(out, ",\"completion\":%llu",
			(unsigned long long)r->completion);
	fprintf(out, ",\"deadlock\":%s,\"deadlock_cycle\":[",
		r->deadlock ? "true" : "false");
	for (uint32_t i = 0; i < r->ncycle; i++) {
		if (i)
			fputc(',', out);
		json_channel(out, f, r->cycle_slot[i], r->cycle_vl[i]);
	}
	fputc(']', out);
	if (r->deadlock)
		fprintf(out, ",\"deadlock_at\":%llu",
			(unsigned long long)r->deadlock_at);
	json_windows(out, r);
	fprintf(out, "}\n");
	return ferror(out) ? -1 : 0;
}

int kr_sim_write_text(FILE *out, const struct kr_fabric *f,
		      const struct kr_sim_opts *o,
		      const struct kr_sim_result *r)
{
	fprintf(out, "pattern %s, load %.6g, seed %llu: %u CAs, %llu cycles\n"
		"offered:   %.6g of link rate per CA\n"
		"accepted:  %.6g of link rate per CA (flits/cycle/node)\n"
		"latency:   mean %.6g, p99 %.6g cycles from generation; "
		"mean %.6g, p99 %.6g in the network\n"
		"packets:   %llu injected, %llu delivered, %llu queued, %llu "
		"dropped, %llu refused by full hosts\n"
		"links:     utilisation max %.6g, mean %.6g\n",
		kr_sim_pattern_name(o->pattern), o->load,
		(unsigned long long)o->seed, r->nhost,
		(unsigned long long)r->cycles, r->offered, r->accepted,
		r->latency_mean, r->latency_p99, r->net_latency_mean,
		r->net_latency_p99, (unsigned long long)r->injected,
		(unsigned long long)r->delivered,
		(unsigned long long)r->queued, (unsigned long long)r->dropped,
		(unsigned long long)r->refused, r->link_util_max,
		r->link_util_mean);
	if (o->ideal)
		fprintf(out, "ideal:     %s: a baseline, not programmable in "
			"InfiniBand\n", ideal_text[o->ideal]);
	if (o->pattern == KR_SIM_HOTSPOT)
		fprintf(out, "hotspot:   %u senders; hot node accepts %.6g; "
			"cold %.6g accepted of %.6g offered per cold CA\n",
			r->nhot, r->accepted_hot, r->accepted_cold,
			r->offered_cold);
	if (o->pattern == KR_SIM_ALLTOALL)
		fprintf(out, "alltoall:  %s at cycle %llu\n", r->completion ?
			"complete" : "incomplete",
			(unsigned long long)(r->completion ? r->completion
							   : r->cycles));
	if (!r->deadlock)
		return ferror(out) ? -1 : 0;
	fprintf(out, "DEADLOCK at cycle %llu: no delivery while packets wait; "
		"%u channels wait in a cycle (each for the next, the last for "
		"the first):\n", (unsigned long long)r->deadlock_at, r->ncycle);
	for (uint32_t i = 0; i < r->ncycle; i++)
		fprintf(out, "  %s VL %u\n",
			kr_port_label(f, r->cycle_slot[i]).s, r->cycle_vl[i]);
	return ferror(out) ? -1 : 0;
}

/* A node name as a CSV field: quoted, quotes doubled (names hold commas,
 * "switch(0,3)"). */
static void csv_name(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int kr_sim_write_links(FILE *out, const struct kr_fabric *f,
		       const struct kr_sim_result *r)
{
	fprintf(out, "node,port,peer,peer_port,utilisation\n");
	for (uint32_t p = 0; p < f->nport && r->link_util; p++) {
		uint32_t q;

		if (r->link_util[p] < 0)
			continue;
		q = (uint32_t)f->peer[p];
		csv_name(out, kr_node_name(f, f->owner[p]));
		fprintf(out, ",%u,", kr_port_num(f, p));
		csv_name(out, kr_node_name(f, f->owner[q]));
		fprintf(out, ",%u,%.6g\n", kr_port_num(f, q), r->link_util[p]);
	}
	return ferror(out) ? -1 : 0;
}

void kr_sim_csv_header(FILE *out)
{
	fprintf(out, "pattern,load,seed,offered,accepted,latency_mean,"
		"latency_p99,network_latency_mean,accepted_hot,accepted_cold,"
		"offered_cold,injected,delivered,queued,deadlock\n");
}

int kr_sim_write_csv(FILE *out, const struct kr_sim_opts *o,
		     const struct kr_sim_result *r)
{
	fprintf(out, "%s,%.6g,%llu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
		"%llu,%llu,%llu,%d\n", kr_sim_pattern_name(o->pattern), o->load,
		(unsigned long long)o->seed, r->offered, r->accepted,
		r->latency_mean, r->latency_p99, r->net_latency_mean,
		r->accepted_hot, r->accepted_cold, r->offered_cold,
		(unsigned long long)r->injected,
		(unsigned long long)r->delivered,
		(unsigned long long)r->queued, r->deadlock);
	return ferror(out) ? -1 : 0;
}
