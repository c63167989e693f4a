/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's report, for people (aligned lines) and for scripts (one
 * JSON object whose keys `knsroute check --help` lists). */
#include "kr_check.h"

#include <stdlib.h>
#include <string.h>

#include "kr_io.h"

static const char *const fail_names[KR_CHECK_NFAIL] = {
	"no_entry", "down_port", "loop", "wrong_dest", "vl15", "oper_vl",
};

static const char *const fail_text[KR_CHECK_NFAIL] = {
	"no LFT entry", "LFT points at a port without a link",
	"forwarding loop", "reaches a port not owning the DLID",
	"SL2VL maps it to VL 15", "VL at or above the port's OperVLs",
};

static unsigned port_of(const struct kr_fabric *f, uint32_t slot)
{
	return kr_port_num(f, slot);
}

static const char *name_of(const struct kr_fabric *f, uint32_t slot)
{
	return kr_node_name(f, f->owner[slot]);
}

/* "NAME \"DESC\"[PORT]", for people */
#define LABEL(f, slot) (kr_port_label(f, slot).s)

/* Ports grouped by the set of VLs they send on: masks sorted, runs counted
 * by the caller. NULL when out of memory; *n = 0 when nothing was sent.
 * Two byte-wise counting passes: a summary is written after the check,
 * on no other thread's time, and qsort of a port count of masks cost
 * more than the rest of it. */
static uint16_t *sorted_masks(const struct kr_fabric *f,
			      const struct kr_check_report *r, uint32_t *n)
{
	size_t size = ((size_t)f->nport + 1) * sizeof(uint16_t);
	uint16_t *m = malloc(size), *tmp = malloc(size);

	*n = 0;
	if (!m || !tmp) {
		free(m);
		free(tmp);
		return NULL;
	}
	for (uint32_t s = 0; s < f->nport; s++)
		if (r->vl_mask[s])
			m[(*n)++] = r->vl_mask[s];
	for (unsigned shift = 0; shift < 16; shift += 8) {
		uint32_t at[257] = { 0 };
		uint16_t *swap;

		for (uint32_t i = 0; i < *n; i++)
			at[(m[i] >> shift & 0xff) + 1]++;
		for (unsigned b = 0; b < 256; b++)
			at[b + 1] += at[b];
		for (uint32_t i = 0; i < *n; i++)
			tmp[at[m[i] >> shift & 0xff]++] = m[i];
		swap = m;
		m = tmp;
		tmp = swap;
	}
	free(tmp);
	return m;
}

static void vl_set(FILE *out, uint16_t mask, bool json)
{
	bool first = true;

	fputc(json ? '[' : '{', out);
	for (unsigned vl = 0; vl < 16; vl++)
		if (mask >> vl & 1) {
			fprintf(out, "%s%u", first ? "" : ",", vl);
			first = false;
		}
	fputc(json ? ']' : '}', out);
}

/* ------------------------------------------------------------------ */
/* Human                                                              */

static void text_pairs(FILE *out, const struct kr_fabric *f,
		       const struct kr_check_report *r)
{
	fprintf(out, "pairs:        %llu (%u sources x %u destination LIDs)\n"
		"delivered:    %llu\nundelivered:  %llu\n",
		(unsigned long long)r->pairs, r->nsrc, r->ndst,
		(unsigned long long)r->delivered,
		(unsigned long long)(r->pairs - r->delivered));
	if (r->sm_lid && r->sm_sl == KR_PERFMGR_SL)
		fprintf(out, "SM traffic:   %llu of the pairs: SL %u between "
			"the SM (LID %u) and every CA port (SA) and switch "
			"(PerfMgr)\n",
			(unsigned long long)r->sm_pairs, r->sm_sl, r->sm_lid);
	else if (r->sm_lid)
		fprintf(out, "SM traffic:   %llu of the pairs: SL %u between "
			"the SM (LID %u) and every CA port (SA), SL %u between "
			"it and every CA port and switch (PerfMgr)\n",
			(unsigned long long)r->sm_pairs, r->sm_sl, r->sm_lid,
			KR_PERFMGR_SL);
	for (unsigned i = 0; i < KR_CHECK_NFAIL; i++)
		if (r->fail[i])
			fprintf(out, "  %-11s %llu  (%s)\n", fail_names[i],
				(unsigned long long)r->fail[i], fail_text[i]);
	if (r->nex)
		fprintf(out, "first undelivered pairs:\n");
	for (unsigned i = 0; i < r->nex; i++) {
		const struct kr_check_example *e = &r->ex[i];

		fprintf(out, "  %s (LID %u) -> LID %u: %s at %s",
			LABEL(f, e->src), e->slid, e->dlid,
			fail_names[e->reason], LABEL(f, e->at));
		if (e->reason == KR_CHECK_VL15 || e->reason == KR_CHECK_OPER_VL)
			fprintf(out, " VL %u", e->vl);
		fputc('\n', out);
	}
}

static void text_hops(FILE *out, const struct kr_check_report *r)
{
	fprintf(out, "hops (links per delivered path):\n");
	for (unsigned h = 0; h < r->nhops; h++)
		if (r->hops[h])
			fprintf(out, "  %3u: %llu\n", h,
				(unsigned long long)r->hops[h]);
}

static void text_links(FILE *out, const struct kr_fabric *f,
		       const struct kr_check_report *r)
{
	fprintf(out, "link load (CA-to-CA paths per directed switch-switch link, %u "
		"links): max %llu, mean %.2f, max/mean %.2f\n", r->nlinks,
		(unsigned long long)r->load_max, r->load_mean,
		r->load_mean > 0 ? (double)r->load_max / r->load_mean : 0.0);
	for (unsigned i = 0; i < r->ntop; i++) {
		uint32_t s = r->top[i].slot, p = (uint32_t)f->peer[s];

		fprintf(out, "  %s -> %s: %llu\n", LABEL(f, s), LABEL(f, p),
			(unsigned long long)r->top[i].load);
	}
}

static int text_vls(FILE *out, const struct kr_fabric *f,
		    const struct kr_check_report *r)
{
	uint32_t n;
	uint16_t *m = sorted_masks(f, r, &n);

	if (!m)
		return KR_ENOMEM;
	fprintf(out, "VLs per port (ports by the VLs they send on):\n");
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && m[j] == m[i]; j++)
			;
		fprintf(out, "  ");
		vl_set(out, m[i], false);
		fprintf(out, ": %u ports\n", j - i);
	}
	free(m);
	fprintf(out, "ports on a VL at or above their OperVLs: %u\n",
		r->oper_vl_ports);
	return KR_OK;
}

static const char *const class_names[KR_CHECK_NCLASS] = { "data", "all",
							  "multicast" };
static const char *const class_text[KR_CHECK_NCLASS] = {
	"data (CA to CA)", "data + management (to and from switches)",
	"counted unicast + multicast",
};

/* The unicast class --dests counts. */
static unsigned counted(const struct kr_check_report *r)
{
	return r->dests == KR_CHECK_DESTS_CAS ? KR_CHECK_DATA : KR_CHECK_ALL;
}

static unsigned nclass(const struct kr_check_report *r)
{
	return r->ngroups ? KR_CHECK_NCLASS : KR_CHECK_MCAST;
}

/* The class the verdict and exit status stand for: the counted one, or
 * with multicast when only that shows a (proven or assumed) loop, as
 * kr_check_run decides. */
unsigned kr_check_deciding(const struct kr_check_report *r)
{
	unsigned k = counted(r);
	const struct kr_check_class *c = &r->cls[k];
	const struct kr_check_class *m = &r->cls[KR_CHECK_MCAST];

	if (!r->ngroups || c->delivered < c->pairs ||
	    c->loop == KR_LOOP_PROVEN)
		return k;
	if (m->loop == KR_LOOP_PROVEN ||
	    (m->loop == KR_LOOP_ASSUMED && c->loop == KR_LOOP_NONE))
		return KR_CHECK_MCAST;
	return k;
}

const char *kr_check_verdict(const struct kr_check_class *c)
{
	if (c->delivered < c->pairs)
		return "undelivered";
	return c->loop == KR_LOOP_PROVEN ? "credit_loop"
	       : c->loop == KR_LOOP_ASSUMED ? "assumed_credit_loop" : "ok";
}

static void text_assumed(FILE *out, const struct kr_check_report *r)
{
	const struct kr_check_assumed *a = &r->assumed;

	if (r->exact) {
		fprintf(out, "assumed: nothing (the tables give every SL and "
			"SL2VL map)\n");
		return;
	}
	fprintf(out, "assumed (not in the inputs, taken instead):\n"
		"  ports without an SL2VL map: %u of %u (VL 0 for every SL "
		"taken)\n", a->map_ports, a->ports);
	fprintf(out, "  pairs without a path SL:    %llu data, %llu management "
		"(%s taken)\n", (unsigned long long)a->sl_pairs[0],
		(unsigned long long)a->sl_pairs[1], a->sl_nonzero ?
		"the SL most PathRecords towards the same DLID carry, else 0" :
		"SL 0");
	fprintf(out, "  LIDs routed but owned by no port: %u (not checked)\n"
		"  linked ports without a LID:  %u (not checked)\n",
		a->lids_no_port, a->ports_no_lid);
	if (r->sm_sl_taken)
		fprintf(out, "  the SM's SL: not given (SL %u taken for the "
			"SA's pairs, among the management pairs above)\n",
			r->sm_sl);
	if (r->ngroups)
		fprintf(out, "  multicast groups without an SL: %u of %u (SL 0 "
			"taken)\n", a->groups_sl, r->ngroups);
}

/* "LID 12", or "MLID 0xC000 (multicast)" for a tree's hop. */
static const char *hop_dest(const struct kr_check_chan *h, char *buf,
			    size_t size)
{
	if (h->dlid >= KR_MLID_FIRST)
		snprintf(buf, size, "MLID 0x%04X (multicast)", h->dlid);
	else
		snprintf(buf, size, "LID %u", h->dlid);
	return buf;
}

static void text_witness(FILE *out, const struct kr_fabric *f,
			 const struct kr_check_class *c)
{
	char dest[32];

	fprintf(out, "    credit loop of %u channels (each waits for the next, "
		"the last for the first; the path that makes it wait):\n",
		c->ncycle);
	for (unsigned i = 0; i < c->ncycle; i++) {
		const struct kr_check_chan *h = &c->cycle[i];
		const struct kr_check_chan *n = &c->cycle[(i + 1) % c->ncycle];

		fprintf(out, "      %s VL %u -> %s VL %u   LID %u -> "
			"%s%s%s\n", LABEL(f, h->slot),
			h->vl, LABEL(f, n->slot), n->vl,
			h->slid, hop_dest(h, dest, sizeof(dest)),
			h->assumed & KR_CHECK_ASSUMED_SL ? "  (SL assumed)" : "",
			h->assumed & KR_CHECK_ASSUMED_MAP ? "  (SL2VL map assumed)"
							  : "");
	}
}

static void text_classes(FILE *out, const struct kr_fabric *f,
			 const struct kr_check_report *r)
{
	fprintf(out, "channel dependency graph: %llu channels, %llu "
		"dependencies", (unsigned long long)r->channels,
		(unsigned long long)r->deps);
	if (r->ngroups)
		fprintf(out, ", %llu more from %u multicast groups (over the "
			"counted class's)",
			(unsigned long long)r->mcast_deps, r->ngroups);
	fputc('\n', out);
	for (unsigned k = 0; k < nclass(r); k++) {
		const struct kr_check_class *c = &r->cls[k];

		fprintf(out, "%s: %llu pairs, %llu undelivered, credit loops: "
			"%s%s\n", class_text[k], (unsigned long long)c->pairs,
			(unsigned long long)(c->pairs - c->delivered),
			c->loop == KR_LOOP_PROVEN ? "found"
			: c->loop == KR_LOOP_ASSUMED ? "only through assumed inputs"
						     : "none",
			k == counted(r) || k == KR_CHECK_MCAST ? "   [counted]"
								: "");
		if (c->cycle)
			text_witness(out, f, c);
	}
}

/* "credit loop through 3 pairs whose SL was assumed: capture ..." */
static void text_unproven(FILE *out, const struct kr_check_class *c,
			  bool mcast)
{
	fprintf(out, "verdict: UNPROVEN: credit loop%s through ",
		mcast ? " with multicast" : "");
	if (c->loop_sl_pairs)
		fprintf(out, "%u %s whose SL was assumed%s", c->loop_sl_pairs,
			mcast ? "pairs or groups" : "pairs",
			c->loop_map_deps ? " and " : "");
	if (c->loop_map_deps)
		fprintf(out, "%u dependencies on assumed SL2VL maps",
			c->loop_map_deps);
	fprintf(out, ": capture %s%s%s too\n",
		!c->loop_sl_pairs ? ""
		: mcast ? "the group SLs (saquery -g), the SLs of switch "
			  "destinations and every CA pair"
			: "the SLs of switch destinations and every CA pair",
		c->loop_sl_pairs && c->loop_map_deps ? " and " : "",
		c->loop_map_deps ? "the SL2VL maps of every port" : "");
}

static void text_verdict(FILE *out, const struct kr_check_report *r)
{
	bool mcast = kr_check_deciding(r) == KR_CHECK_MCAST;
	const struct kr_check_class *c = &r->cls[kr_check_deciding(r)];
	bool undel = c->delivered < c->pairs;

	if (!r->pairs)
		fprintf(out, "verdict: NOTHING CHECKED: no linked CA port with "
			"a LID to send from, or no LID to send to\n");
	else if (!undel && c->loop == KR_LOOP_NONE)
		fprintf(out, "verdict: OK%s\n", r->exact ? "" :
			" (under the assumptions above)");
	else if (!undel && c->loop == KR_LOOP_ASSUMED)
		text_unproven(out, c, mcast);
	else
		fprintf(out, "verdict: PROBLEM%s%s%s\n",
			undel ? ": undelivered pairs" : "",
			c->loop == KR_LOOP_PROVEN ? (undel ? ", credit loop"
							   : ": credit loop")
						  : "",
			mcast ? " with multicast" : "");
}

static int write_text(FILE *out, const struct kr_fabric *f,
		      const struct kr_check_report *r)
{
	int rc;

	text_pairs(out, f, r);
	text_hops(out, r);
	text_links(out, f, r);
	rc = text_vls(out, f, r);
	if (rc)
		return rc;
	text_assumed(out, r);
	text_classes(out, f, r);
	text_verdict(out, r);
	return KR_OK;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */

/* "KEY": node, "KEY_port": port, and where the node has a description
 * (NodeDescription or node-name-map) "KEY_name" ("name" for "node"); the
 * node keys stay the ids every other file uses. */
static void json_port(FILE *out, const char *key, const struct kr_fabric *f,
		      uint32_t slot)
{
	fprintf(out, "\"%s\": ", key);
	kr_json_string(out, name_of(f, slot));
	if (kr_node_described(f, f->owner[slot])) {
		fprintf(out, strcmp(key, "node") ? ", \"%s_name\": "
			: ", \"name\": ", key);
		kr_json_string(out, kr_node_desc(f, f->owner[slot]));
	}
	fprintf(out, ", \"%s_port\": %u", key, port_of(f, slot));
}

static void json_pairs(FILE *out, const struct kr_fabric *f,
		       const struct kr_check_report *r)
{
	fprintf(out, "\"pairs\": %llu, \"sources\": %u, \"destinations\": %u, "
		"\"delivered\": %llu, \"undelivered\": %llu, ",
		(unsigned long long)r->pairs, r->nsrc, r->ndst,
		(unsigned long long)r->delivered,
		(unsigned long long)(r->pairs - r->delivered));
	if (r->sm_lid)
		fprintf(out, "\"sa\": {\"sm_lid\": %u, \"sl\": %u, "
			"\"sl_taken\": %s, \"perfmgr_sl\": %u, "
			"\"pairs\": %llu}, ", r->sm_lid, r->sm_sl,
			r->sm_sl_taken ? "true" : "false", KR_PERFMGR_SL,
			(unsigned long long)r->sm_pairs);
	fprintf(out, "\"fail\": {");
	for (unsigned i = 0; i < KR_CHECK_NFAIL; i++)
		fprintf(out, "%s\"%s\": %llu", i ? ", " : "", fail_names[i],
			(unsigned long long)r->fail[i]);
	fprintf(out, "},\n \"examples\": [");
	for (unsigned i = 0; i < r->nex; i++) {
		const struct kr_check_example *e = &r->ex[i];

		fprintf(out, "%s{", i ? ", " : "");
		json_port(out, "src", f, e->src);
		fprintf(out, ", \"slid\": %u, \"dlid\": %u, \"reason\": \"%s\", ",
			e->slid, e->dlid, fail_names[e->reason]);
		json_port(out, "at", f, e->at);
		fprintf(out, ", \"vl\": %u}", e->vl);
	}
	fprintf(out, "],\n \"hops\": [");
	for (unsigned h = 0, last = 0; h < r->nhops; h++) {
		if (!r->hops[h])
			continue;
		for (; last < h; last++)
			fprintf(out, "%s0", last ? ", " : "");
		fprintf(out, "%s%llu", h ? ", " : "",
			(unsigned long long)r->hops[h]);
		last = h + 1;
	}
	fprintf(out, "],\n");
}

static void json_links(FILE *out, const struct kr_fabric *f,
		       const struct kr_check_report *r)
{
	fprintf(out, " \"links\": {\"count\": %u, \"max\": %llu, \"mean\": %.4f,"
		" \"top\": [", r->nlinks, (unsigned long long)r->load_max,
		r->load_mean);
	for (unsigned i = 0; i < r->ntop; i++) {
		fprintf(out, "%s{", i ? ", " : "");
		json_port(out, "node", f, r->top[i].slot);
		fprintf(out, ", ");
		json_port(out, "peer", f, (uint32_t)f->peer[r->top[i].slot]);
		fprintf(out, ", \"load\": %llu}",
			(unsigned long long)r->top[i].load);
	}
	fprintf(out, "]},\n");
}

static int json_vls(FILE *out, const struct kr_fabric *f,
		    const struct kr_check_report *r)
{
	uint32_t n;
	uint16_t *m = sorted_masks(f, r, &n);

	if (!m)
		return KR_ENOMEM;
	fprintf(out, " \"vls\": {\"max_vl\": %u, \"oper_vl_ports\": %u, "
		"\"ports_by_vls\": [", r->max_vl, r->oper_vl_ports);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && m[j] == m[i]; j++)
			;
		fprintf(out, "%s{\"vls\": ", i ? ", " : "");
		vl_set(out, m[i], true);
		fprintf(out, ", \"ports\": %u}", j - i);
	}
	free(m);
	fprintf(out, "]},\n");
	return KR_OK;
}

static void json_witness(FILE *out, const struct kr_fabric *f,
			 const struct kr_check_class *c)
{
	if (!c->cycle) {
		fprintf(out, "null");
		return;
	}
	fputc('[', out);
	for (unsigned i = 0; i < c->ncycle; i++) {
		const struct kr_check_chan *h = &c->cycle[i];

		fprintf(out, "%s{", i ? ", " : "");
		json_port(out, "node", f, h->slot);
		fprintf(out, ", \"vl\": %u, \"slid\": %u, \"%s\": %u, "
			"\"assumed\": [%s%s%s]}", h->vl, h->slid,
			h->dlid >= KR_MLID_FIRST ? "mlid" : "dlid", h->dlid,
			h->assumed & KR_CHECK_ASSUMED_SL ? "\"sl\"" : "",
			h->assumed == (KR_CHECK_ASSUMED_SL | KR_CHECK_ASSUMED_MAP)
				? ", " : "",
			h->assumed & KR_CHECK_ASSUMED_MAP ? "\"sl2vl\"" : "");
	}
	fputc(']', out);
}

static void json_classes(FILE *out, const struct kr_fabric *f,
			 const struct kr_check_report *r)
{
	fprintf(out, " \"cdg\": {\"channels\": %llu, \"dependencies\": %llu},\n",
		(unsigned long long)r->channels, (unsigned long long)r->deps);
	if (r->ngroups)
		fprintf(out, " \"multicast\": {\"groups\": %u, \"dependencies\": "
			"%llu},\n", r->ngroups,
			(unsigned long long)r->mcast_deps);
	fprintf(out, " \"classes\": {");
	for (unsigned k = 0; k < nclass(r); k++) {
		const struct kr_check_class *c = &r->cls[k];

		fprintf(out, "%s\"%s\": {\"pairs\": %llu, \"delivered\": %llu, "
			"\"verdict\": \"%s\", \"loop_sl_pairs\": %u, "
			"\"loop_map_deps\": %u, \"credit_loop\": ", k ? ",\n  " : "",
			class_names[k], (unsigned long long)c->pairs,
			(unsigned long long)c->delivered, kr_check_verdict(c),
			c->loop_sl_pairs, c->loop_map_deps);
		json_witness(out, f, c);
		fputc('}', out);
	}
	fprintf(out, "},\n \"credit_loop\": ");
	json_witness(out, f, &r->cls[kr_check_deciding(r)]);
	fprintf(out, ",\n");
}

static void json_assumed(FILE *out, const struct kr_check_report *r)
{
	const struct kr_check_assumed *a = &r->assumed;

	fprintf(out, " \"assumed\": {\"exact\": %s, \"sl2vl_ports\": %u, "
		"\"ports\": %u, \"sl_pairs\": {\"data\": %llu, "
		"\"management\": %llu}, \"sl_taken\": \"%s\", "
		"\"lids_without_port\": %u, \"ports_without_lid\": %u, "
		"\"groups_sl\": %u},\n",
		r->exact ? "true" : "false", a->map_ports, a->ports,
		(unsigned long long)a->sl_pairs[0],
		(unsigned long long)a->sl_pairs[1],
		a->sl_nonzero ? "dlid_majority" : "0", a->lids_no_port,
		a->ports_no_lid, a->groups_sl);
}

static int write_json(FILE *out, const struct kr_fabric *f,
		      const struct kr_check_report *r)
{
	int rc;

	fputc('{', out);
	kr_json_version(out);
	fputs(", ", out);
	json_pairs(out, f, r);
	json_links(out, f, r);
	rc = json_vls(out, f, r);
	if (rc)
		return rc;
	json_assumed(out, r);
	json_classes(out, f, r);
	fprintf(out, " \"dests\": \"%s\", \"verdict\": \"%s\"}\n",
		r->dests == KR_CHECK_DESTS_CAS ? "cas" : "all",
		r->pairs ? kr_check_verdict(&r->cls[kr_check_deciding(r)]) : "nothing_checked");
	return KR_OK;
}

int kr_check_report_write(FILE *out, const struct kr_fabric *f,
			  const struct kr_check_report *r, int json)
{
	int rc = json ? write_json(out, f, r) : write_text(out, f, r);

	if (rc)
		return rc;
	return ferror(out) ? KR_EIO : KR_OK;
}
