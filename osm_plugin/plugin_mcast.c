/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The adapter's multicast passes: OpenSM asks mcast_build_stree for each
 * group's tree (after a heavy sweep for all of them, between sweeps for
 * those whose members changed); the tree comes from the last plan's
 * master forest, and at the end of a pass the check runs on unicast and
 * every tree together before OpenSM sends the MFT blocks. */
#include <config.h>

#include "plugin_int.h"

/* Whether a multicast group has an MLID of index m (MLID - 0xC000) or
 * above. */
int group_from(const osm_subn_t *sn, unsigned m)
{
	for (; m + IB_LID_MCAST_START_HO <= sn->max_mcast_lid_ho; m++)
		if (sn->mboxes[m])
			return 1;
	return 0;
}

/* The group's member ports as fabric slots into *slot (grown as needed),
 * and the SL of each of the box's groups: the first, and the first one the
 * plan cannot keep safe (KR_NSL: none). */
static size_t box_members(struct kr_plugin *pl, osm_mgrp_box_t *mgb,
			  uint32_t **slot, size_t *cap, unsigned *sl,
			  unsigned *bad_sl, char *mgid, size_t mgid_len)
{
	size_t n = 0;
	unsigned fix;

	*sl = 0;
	*bad_sl = KR_NSL;
	mgid[0] = '\0';
	for (cl_list_item_t *li = cl_qlist_head(&mgb->mgrp_list);
	     li != cl_qlist_end(&mgb->mgrp_list); li = cl_qlist_next(li)) {
		/* cl_item_obj needs GNU typeof; this is its C11 spelling */
		osm_mgrp_t *g = (osm_mgrp_t *)(void *)((char *)li -
						offsetof(osm_mgrp_t, list_item));
		uint8_t gsl, hop;
		uint32_t flow;

		ib_member_get_sl_flow_hop(g->mcmember_rec.sl_flow_hop, &gsl,
					  &flow, &hop);
		if (!mgid[0]) {
			*sl = gsl;
			inet_ntop(AF_INET6, g->mcmember_rec.mgid.raw, mgid,
				  (socklen_t)mgid_len);
		}
		if (*bad_sl == KR_NSL && !kr_slvl_mcast_ok(&pl->plan.slvl, gsl, &fix)) {
			*bad_sl = gsl;
			inet_ntop(AF_INET6, g->mcmember_rec.mgid.raw, mgid,
				  (socklen_t)mgid_len);
		}
		for (cl_map_item_t *mi = cl_qmap_head(&g->mcm_port_tbl);
		     mi != cl_qmap_end(&g->mcm_port_tbl); mi = cl_qmap_next(mi)) {
			osm_mcm_port_t *m = (osm_mcm_port_t *)mi;
			uint32_t s = kr_port_by_guid(&pl->fabric,
						     cl_ntoh64(m->port->guid));

			if (s == KR_NONE)
				continue;
			if (kr_grow(slot, cap, n + 1, sizeof(**slot)))
				return SIZE_MAX;
			(*slot)[n++] = s;
		}
	}
	return n;
}

/* The group's masks into OpenSM's MFTs (cleared by OpenSM before the call). */
static void install_mft(struct kr_plugin *pl, const struct kr_mgroup *g)
{
	const struct kr_fabric *f = &pl->fabric;

	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		osm_switch_t *osw = osm_get_switch_by_guid(&pl->osm->subn,
							   cl_hton64(f->guid[sw]));

		if (!osw || !osm_switch_supports_mcast(osw))
			continue;
		for (unsigned p = 0; p <= f->nports[sw]; p++)
			if (kr_mgroup_has(g, sw, p))
				osm_mcast_tbl_set(&osw->mcast_tbl, g->mlid, (uint8_t)p);
	}
}

/* Whether OpenSM builds no tree after mlid's in this pass, so that its
 * MFT blocks go out next. After a heavy sweep's routing the pass takes
 * every group in MLID order; between sweeps, only the groups whose
 * members changed (the SM's mlids_req), also in order. */
static int last_mlid(const struct kr_plugin *pl, unsigned mlid)
{
	const osm_sm_t *sm = &pl->osm->sm;
	unsigned m = mlid - IB_LID_MCAST_START_HO + 1;

	if (pl->full_pass)
		return !group_from(&pl->osm->subn, m);
	for (; m <= sm->mlids_req_max; m++)
		if (sm->mlids_req[m])
			return 0;
	return 1;
}

/* The trees are credit-loop-free with unicast by construction; still,
 * nothing is installed unproven: OpenSM sends the MFT blocks only after
 * its pass over the groups, so at its end the check runs on the unicast
 * tables and every tree together, and withdraws the trees if it fails.
 * The sweep's proof of unicast makes that the trees' dependencies alone
 * (a pass follows every heavy sweep and every batch of joins); only a
 * cycle there, which the proof's stale dependencies may close, or no
 * proof, costs the full check. */
static void check_groups(struct kr_plugin *pl)
{
	const struct kr_fabric *f = &pl->fabric;
	struct kr_tables *t = &pl->plan.tables;
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_check_report r;
	struct kr_diag d = { 0 };
	char msg[KR_DIAG_LINE];
	int rc = KR_EINVAL, incremental = 0;

	if (!t->nmgroup)
		return;
	/* the report is freeable whatever the check returned */
	if (pl->plan.proof) {
		rc = kr_check_mcast_incremental(f, t, pl->plan.proof, &r, &d);
		kr_check_report_free(&r);
		incremental = rc == KR_OK;
	}
	if (rc == KR_EINVAL || rc == KR_ECYCLE) {
		d = (struct kr_diag){ 0 };
		rc = kr_check_run(f, t, &o, &r, &d);
		kr_check_report_free(&r);
	}
	if (!rc) {
		OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: check "
			"passed for unicast and %zu multicast trees together%s\n",
			pl->sweeps, t->nmgroup, incremental ? " (the trees "
			"against the sweep's proof)" : "");
		return;
	}
	kr_diag_format(&d, msg, sizeof(msg));
	OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR10: knsroute: unicast and "
		"%zu multicast trees together: %s; every tree withdrawn\n",
		t->nmgroup, msg);
	for (size_t i = 0; i < t->nmgroup; i++)
		for (uint32_t sw = 0; sw < f->nsw; sw++) {
			osm_switch_t *osw = osm_get_switch_by_guid(&pl->osm->subn,
						cl_hton64(f->guid[sw]));

			if (osw && osm_switch_supports_mcast(osw))
				osm_mcast_tbl_clear_mlid(&osw->mcast_tbl,
							 t->mgroup[i].mlid);
		}
}

/* One line for the groups that have trees now (those OpenSM dropped since
 * are dropped from the plan's record too), and how many were refused. */
static void log_groups(struct kr_plugin *pl)
{
	struct kr_tables *t = &pl->plan.tables;
	char line[1024], vl[16];
	size_t n = 0, keep = 0;

	for (size_t i = 0; i < t->nmgroup; i++) {
		if (!osm_get_mbox_by_mlid(&pl->osm->subn,
					  cl_hton16(t->mgroup[i].mlid))) {
			kr_mgroup_free(&t->mgroup[i]);
			continue;
		}
		t->mgroup[keep++] = t->mgroup[i];
		if (n < sizeof(line) - 40)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s0x%04x "
					      "SL %u", keep > 1 ? ", " : "",
					      t->mgroup[i].mlid, t->mgroup[i].sl);
		else if (n < sizeof(line) - 4)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " ...");
	}
	t->nmgroup = keep;
	if (pl->plan.slvl.mcast_vl == KR_NONE)
		snprintf(vl, sizeof(vl), "no VL");
	else
		snprintf(vl, sizeof(vl), "VL %u", pl->plan.slvl.mcast_vl);
	OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: multicast: %zu "
		"groups with trees on %s (%s), %u refused for their SL\n",
		pl->sweeps, keep, vl, keep ? line : "none", pl->mcast_refused);
	pl->mcast_refused = 0;
}

ib_api_status_t kr_mcast_build_stree(void *ctx, osm_mgrp_box_t *mgb)
{
	struct kr_plugin *pl = ctx;
	struct kr_diag d = { 0 };
	struct kr_mcast_info info;
	char mgid[INET6_ADDRSTRLEN], msg[KR_DIAG_LINE];
	unsigned sl, bad;
	size_t n;
	int rc;

	osm_purge_mtree(&pl->osm->sm, mgb);
	if (!pl->valid)
		return IB_ERROR;
	n = box_members(pl, mgb, &pl->mslot, &pl->mcap, &sl, &bad, mgid,
			sizeof(mgid));
	if (n == SIZE_MAX) {
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR09: knsroute: MLID "
			"0x%04x: out of memory; no tree\n", mgb->mlid);
		return IB_INSUFFICIENT_MEMORY;
	}
	rc = kr_plan_add_group(&pl->fabric, &pl->plan, mgb->mlid,
			       bad != KR_NSL ? bad : sl, pl->mslot, n, &info, &d);
	if (rc) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR08: knsroute: multicast "
			"group %s: %s; no tree installed%s\n", mgid, msg,
			pl->osm->subn.opt.qos ? "" : " (qos is FALSE in "
			"opensm.conf: multicast would share VL 0 with unicast; "
			"set qos TRUE)");
		pl->mcast_refused++;
	} else {
		for (size_t i = 0; i < pl->plan.tables.nmgroup; i++)
			if (pl->plan.tables.mgroup[i].mlid == mgb->mlid)
				install_mft(pl, &pl->plan.tables.mgroup[i]);
		OSM_LOG(plog(pl), OSM_LOG_VERBOSE, "knsroute: multicast group %s "
			"MLID 0x%04x SL %u: %u members, %u switches, %u tree "
			"links\n", mgid, mgb->mlid, sl, info.members,
			info.switches, info.links);
	}
	if (last_mlid(pl, mgb->mlid)) {
		pl->full_pass = 0;
		log_groups(pl);
		check_groups(pl);
	}
	return rc ? IB_ERROR : IB_SUCCESS;
}
