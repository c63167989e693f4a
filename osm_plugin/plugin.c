/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* OpenSM adapter: an event plugin whose create() registers knsroute as an
 * external routing engine (OpenSM >= 3.3.21).
 *
 * Each sweep copies OpenSM's subnet into a core fabric, runs the whole plan
 * (recognise, route, SL/VL, repair, multicast, check) and only then
 * touches OpenSM: new LFTs on
 * success; on any failure a negative return, which makes OpenSM try the next
 * engine of routing_engine. The SL and SL2VL hooks answer from the last plan
 * that passed its check, or leave OpenSM's values alone.
 *
 * Multicast: OpenSM clears a group's MFT entries and asks mcast_build_stree
 * for the group's tree, after every heavy sweep for all groups and at idle
 * time for groups whose members changed. The tree comes from the plan of
 * the last sweep (its master forest); a group on an SL the plan does not
 * keep for multicast gets no tree and an ERR line saying which SL to use.
 *
 * Locking: OpenSM calls ucast_build_fwd_tables and mcast_build_stree under
 * its exclusive subnet lock and the SA's path_sl under the shared one, so
 * the plan never changes under a reader. */
#include <config.h>

#include "plugin_int.h"

#define KR_DEFAULT_CONF "/etc/opensm/knsroute.conf"
#define KR_ENGINE "knsroute"
#define KR_VLARB_WEIGHT 64	/* equal for all used VLs; any non-zero value */

static void drop_plan(struct kr_plugin *pl)
{
	kr_plan_free(&pl->plan);
	kr_fabric_free(&pl->fabric);
	pl->valid = 0;
}

/* event_plugin_options is shared by all plugins: knsroute takes the token
 * "knsroute=PATH" and ignores the rest. Without one, conf_path is the
 * default (KNSROUTE_CONF in the environment moves it, e.g. for a test),
 * which need not exist yet. */
static void find_conf_path(struct kr_plugin *pl)
{
	const char *opts = pl->osm->subn.opt.event_plugin_options;
	const char *hit = opts ? strstr(opts, KR_ENGINE "=") : NULL;
	const char *env = getenv("KNSROUTE_CONF");

	snprintf(pl->conf_path, sizeof(pl->conf_path), "%s",
		 env && *env ? env : KR_DEFAULT_CONF);
	if (hit) {
		size_t n = strcspn(hit + sizeof(KR_ENGINE), " \t,;");

		snprintf(pl->conf_path, sizeof(pl->conf_path), "%.*s", (int)n,
			 hit + sizeof(KR_ENGINE));
		pl->conf_named = 1;
	}
}

/* Re-read each sweep so that an admin's edit takes effect on the next one;
 * the default file is looked for each time too, so one created after
 * OpenSM started counts from the next sweep. A broken file keeps knsroute
 * out of the way rather than guessing; a named file that is missing is
 * broken. The coordinates cache defaults to a file next to OpenSM's
 * guid2lid cache, so that a later sweep (with more faults, perhaps) keeps
 * this labelling, and so does the tables cache, so that the first sweep
 * after a restart repairs from the tables the switches hold. The caches'
 * paths are set even when the file is broken: the sweep that then falls
 * back must find the tables cache to remove it (forget_tables). */
static int load_conf(struct kr_plugin *pl)
{
	struct kr_diag d = { .file = pl->conf_path }, dd = { 0 };
	int use = pl->conf_named || !access(pl->conf_path, F_OK);
	int rc = 0;
	char msg[KR_DIAG_LINE];

	kr_conf_init(&pl->conf);
	if (use)
		rc = kr_conf_load(&pl->conf, pl->conf_path, KR_IN_FILE, &d);
	if ((default_cache(pl->conf.coords_cache, "knsroute-coords", &dd) |
	     default_cache(pl->conf.tables_cache, "knsroute-tables", &dd)) &&
	    !rc) {
		rc = KR_EINVAL;
		d = dd;
	}
	if (rc) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR01: knsroute: %s\n", msg);
		return -1;
	}
	if (use != pl->conf_used)
		OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: config %s\n", use ?
			pl->conf_path : "(none, defaults)");
	pl->conf_used = use;
	return 0;
}

/* The data VLs a port runs while this sweep's tables are in force.
 * OpenSM sets PortInfo:OperVLs after routing (its link manager), so what
 * the port reports now is what an earlier SM, or the hardware, left
 * there: the plan is for the value OpenSM is about to set, by OpenSM's
 * own rule (both ends' VLCap, max_op_vls). But OpenSM programs the SL2VL
 * maps before that, masking every VL in them with the VLs the port runs
 * now (osm_qos.c, sl2vl_update_table): a port about to get more VLs
 * would get its maps folded onto fewer. Such a port is planned for what
 * it runs now, and counted in rising, so that the sweep after, with the
 * new OperVLs in force, plans for them all. A port about to get fewer
 * VLs is counted in falling: knsroute's maps are for those, but a
 * fallback engine's are not (ask_for_vls). */
static unsigned vls_of(struct kr_plugin *pl, osm_physp_t *p)
{
	unsigned now = ib_port_info_get_op_vls(&p->port_info);
	unsigned code = osm_physp_calc_link_op_vls(&pl->osm->log,
						   &pl->osm->subn, p, (uint8_t)now);

	if (now < 1)
		now = 1;	/* OpenSM's own fix for non-compliant ports */
	if (code > now) {
		code = now;
		pl->rising++;
	}
	pl->falling += code < now;
	return code >= 5 ? 15 : 1u << (code - 1);
}

/* A node's description as the log names it: the name opensm.conf's
 * node_name_map_name gives its GUID (OpenSM opened that map at start), else
 * its NodeDescription. OpenSM remaps print_desc when the NodeDescription
 * arrives; asking the map again names a node whose NodeDescription has not.
 * Returns an allocated string, or NULL when out of memory. */
static char *node_desc(struct kr_plugin *pl, osm_node_t *node, uint64_t guid)
{
	/* remap_node_name writes to its argument, up to byte 63 */
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];

	snprintf(desc, sizeof(desc), "%s",
		 node->print_desc ? node->print_desc : "");
	return remap_node_name(pl->osm->node_name_map, guid, desc);
}

static int add_node(struct kr_plugin *pl, struct kr_fabric_builder *b,
		    osm_node_t *node, struct kr_diag *d)
{
	unsigned nports = osm_node_get_num_physp(node) - 1;
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
	enum kr_node_type type = (enum kr_node_type)osm_node_get_type(node);
	char name[KR_GUID_NAME_LEN], *desc = node_desc(pl, node, guid);
	int id;

	kr_fb_guid_name(name, type, guid);
	id = kr_fb_add_node(b, type, nports, guid, name,
			    desc ? desc : node->print_desc, 0, d);
	free(desc);
	if (id < 0)
		return id;
	kr_fb_set_ids(b, id, cl_ntoh64(node->node_info.sys_guid),
		      cl_ntoh32(ib_node_info_get_vendor_id(&node->node_info)),
		      cl_ntoh16(node->node_info.device_id));
	for (unsigned i = type == KR_SWITCH ? 0 : 1; i <= nports; i++) {
		osm_physp_t *p = osm_node_get_physp_ptr(node, i);
		int rc;

		if (!p || !osm_physp_is_valid(p))
			continue;
		rc = kr_fb_set_port(b, id, i, cl_ntoh64(osm_physp_get_port_guid(p)),
				    cl_ntoh16(osm_physp_get_base_lid(p)),
				    ib_port_info_get_lmc(&p->port_info), 0, d);
		if (rc)
			return rc;
		kr_fb_set_oper_vls(b, id, i, (uint8_t)vls_of(pl, p));
	}
	return id;
}

/* The builder id of an OpenSM node, found by the name add_node gave it. */
static int node_id(const struct kr_fabric_builder *b, osm_node_t *node)
{
	char name[KR_GUID_NAME_LEN];

	kr_fb_guid_name(name, (enum kr_node_type)osm_node_get_type(node),
			cl_ntoh64(osm_node_get_node_guid(node)));
	return kr_fb_find(b, name);
}

static int add_links(struct kr_fabric_builder *b, osm_node_t *node,
		     struct kr_diag *d)
{
	int id = node_id(b, node);

	for (unsigned i = 1; i < osm_node_get_num_physp(node); i++) {
		osm_physp_t *p = osm_node_get_physp_ptr(node, i), *r;
		int rc, rid;

		if (!p || !osm_physp_is_valid(p) ||
		    ib_port_info_get_port_state(&p->port_info) <= IB_LINK_DOWN)
			continue;
		r = osm_physp_get_remote(p);
		if (!r || !osm_physp_is_valid(r))
			continue;
		rid = node_id(b, osm_physp_get_node_ptr(r));
		if (rid < 0)
			continue;
		rc = kr_fb_link(b, id, i, rid, osm_physp_get_port_num(r), 0, d);
		if (rc)
			return rc;
	}
	return 0;
}

static int build_fabric(struct kr_plugin *pl, struct kr_fabric *f,
			struct kr_diag *d)
{
	cl_qmap_t *tbl = &pl->osm->subn.node_guid_tbl;
	struct kr_fabric_builder *b = kr_fb_new();
	cl_map_item_t *it;
	int rc = b ? 0 : kr_fail(d, KR_ENOMEM, 0, "out of memory");

	for (it = cl_qmap_head(tbl); !rc && it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it))
		if ((rc = add_node(pl, b, (osm_node_t *)it, d)) > 0)
			rc = 0;
	for (it = cl_qmap_head(tbl); !rc && it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it))
		rc = add_links(b, (osm_node_t *)it, d);
	if (!rc)
		rc = kr_fb_finish(b, f, d);
	kr_fb_free(b);
	return rc;
}

/* sw's switch in our fabric (KR_NONE: none), and in *top the highest LID
 * both its LFT and our tables hold. */
static uint32_t our_switch(const struct kr_plugin *pl, const osm_switch_t *sw,
			   unsigned *top)
{
	const struct kr_tables *t = &pl->plan.tables;
	uint32_t n = kr_node_by_guid(&pl->fabric,
				     cl_ntoh64(osm_node_get_node_guid(sw->p_node)));

	*top = sw->max_lid_ho < t->stride - 1 ? sw->max_lid_ho : t->stride - 1;
	return n != KR_NONE && kr_is_switch(&pl->fabric, n) ? n : KR_NONE;
}

static void install_lfts(struct kr_plugin *pl)
{
	cl_qmap_t *tbl = &pl->osm->subn.sw_guid_tbl;
	const struct kr_tables *t = &pl->plan.tables;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		unsigned top;
		uint32_t n = our_switch(pl, sw, &top);

		memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
		if (n == KR_NONE)
			continue;
		memcpy(sw->new_lft, t->lft + (size_t)n * t->stride, top + 1);
	}
}

/* OpenSM's min-hop matrices are left unbuilt (kr_build_lid_matrices): while
 * knsroute routes, only OpenSM's routing dumps read them (the SA counts a
 * PathRecord's hops by walking the LFTs, multicast trees are knsroute's,
 * a fallback engine builds its own matrices). So with those dumps on,
 * each switch gets, per LID, the hop count of knsroute's path on the
 * port its LFT uses (which also makes port 0's "least hops"). */
static void install_hops(struct kr_plugin *pl)
{
	cl_qmap_t *tbl = &pl->osm->subn.sw_guid_tbl;
	const struct kr_tables *t = &pl->plan.tables;
	uint8_t *hops = malloc((size_t)t->nsw * t->stride + 1);

	if (!hops || kr_tables_hops(&pl->fabric, t, hops)) {
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR11: knsroute: out of "
			"memory for hop counts; opensm-lid-matrix.dump and "
			"opensm.fdbs will say HOPS UNKNOWN\n");
		free(hops);
		return;
	}
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		unsigned top;
		uint32_t n = our_switch(pl, sw, &top);

		if (n == KR_NONE)
			continue;
		for (unsigned lid = 1; lid <= top; lid++) {
			size_t at = (size_t)n * t->stride + lid;

			if (hops[at] != KR_NO_PORT &&
			    t->lft[at] < sw->num_ports &&
			    osm_switch_set_hops(sw, (uint16_t)lid, t->lft[at],
						hops[at]) != CL_SUCCESS)
				break;	/* out of memory: the rest unknown */
		}
	}
	free(hops);
}

static void log_failure(struct kr_plugin *pl, const struct kr_diag *d,
			const char *phase)
{
	char msg[KR_DIAG_LINE];

	kr_diag_format(d, msg, sizeof(msg));
	/* also to syslog: the engine that takes over may route with credit
	 * loops, which an admin must hear of without reading OpenSM's log */
	OSM_LOG(plog(pl), OSM_LOG_ERROR | OSM_LOG_SYS, "ERR KR02: knsroute: "
		"%s: %s; falling "
		"back to the next routing engine (knsroute's path SLs and SL2VL "
		"maps no longer apply)\n", phase, msg);
}

/* One INFO line per line of text, so that no log line runs long. */
static void log_lines(struct kr_plugin *pl, const char *what, const char *text)
{
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");

		OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: %s%.*s\n",
			pl->sweeps, what, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* What this sweep changed against the tables in force before (pt on pf:
 * the last sweep's, or a restarted OpenSM's from its tables cache): LFT
 * entries (switches matched by GUID), destination LIDs whose SL moved and
 * pairs whose own SL came, went or moved. */
static void log_changes(struct kr_plugin *pl, const struct kr_fabric *pf,
			const struct kr_tables *pt, const char *since)
{
	const struct kr_fabric *f = &pl->fabric;
	const struct kr_tables *t = &pl->plan.tables;
	unsigned long long entries = 0;
	unsigned sls = 0, top = t->stride < pt->stride ? t->stride : pt->stride;
	char line[768];
	size_t n;

	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		uint32_t o = kr_node_by_guid(pf, f->guid[sw]);

		for (unsigned lid = 1; lid < t->stride; lid++)
			entries += o == KR_NONE || !kr_is_switch(pf, o) ||
				   kr_lft_port(t, sw, lid) != kr_lft_port(pt, o, lid);
	}
	for (unsigned lid = 1; lid < top; lid++)
		sls += t->dlid_sl[lid] != pt->dlid_sl[lid];
	kr_repair_describe(line, sizeof(line), &pl->plan.repair, "\n");
	n = strlen(line);
	snprintf(line + n, sizeof(line) - n, "\nchanged since %s: %llu LFT "
		 "entries, %u destination SLs, %llu pair SLs", since, entries,
		 sls,
		 (unsigned long long)kr_tables_pairs_differ(t, pt, NULL));
	log_lines(pl, "repair: ", line);
	if (pl->plan.repair.pairs_stale_unsafe)
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR07: knsroute: %llu CA "
			"pairs whose SL changed would close a credit loop if "
			"packets were still sent on their old SL; applications "
			"must refresh their PathRecords\n", (unsigned long long)
			pl->plan.repair.pairs_stale_unsafe);
}

/* OpenSM's unicast cache (use_ucast_cache), after a change it deems
 * small, a switch with CAs gone whose neighbours have none, reinstalls the
 * last tables without asking the engine: it takes such a switch for a leaf
 * no route passes. knsroute's routes pass them (KNS routers, torus
 * switches), so the cache would leave pairs on a dead switch and skip the
 * repair: it goes off, and the log says so. Each sweep looks again, as a
 * rescanned opensm.conf could turn it back on. */
static void no_ucast_cache(struct kr_plugin *pl)
{
	if (!pl->osm->subn.opt.use_ucast_cache)
		return;
	pl->osm->subn.opt.use_ucast_cache = FALSE;
	OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR12: knsroute: use_ucast_cache "
		"is TRUE in opensm.conf; turned off: when a switch with CAs goes "
		"down, OpenSM would reinstall cached tables without knsroute, "
		"but knsroute's routes pass through such switches\n");
}

/* OpenSM programs every SL2VL map for the VLs ports run before it sets
 * their new OperVLs (vls_of). Ports planned for fewer VLs than they are
 * about to get, or, when this sweep falls back, ports about to get fewer
 * VLs than the fallback engine's maps were programmed for: the heavy
 * sweep OpenSM runs right after this one, at our request, programs them
 * for the new VLs. Asked for once: a port that keeps its OperVLs after
 * OpenSM set them must not keep OpenSM sweeping. */
static void ask_for_vls(struct kr_plugin *pl, int failed)
{
	unsigned n = pl->rising ? pl->rising : failed ? pl->falling : 0;

	if (!n) {
		pl->vls_asked = 0;
	} else if (!pl->vls_asked) {
		pl->vls_asked = 1;
		pl->osm->subn.force_heavy_sweep = TRUE;
		OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: %u ports "
			"are about to run %s VLs than they do now, but OpenSM "
			"programs their SL2VL maps before that, for the VLs they "
			"run now%s; another heavy sweep asked for\n", pl->sweeps,
			n, pl->rising ? "more" : "fewer", pl->rising ?
			": planned for those" : " (the fallback engine's maps)");
	} else if (pl->vls_asked == 1) {
		pl->vls_asked = 2;
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR13: knsroute: sweep %u: "
			"%u ports still run other VLs than OpenSM set them to "
			"(max_op_vls, VLCap)%s\n", pl->sweeps, n, pl->rising ?
			"; planned for the VLs they run" : "");
	}
}

static int kr_build_fwd_tables(void *ctx)
{
	struct kr_plugin *pl = ctx;
	struct kr_diag d = { 0 };
	/* the tables in force until this sweep installs new ones */
	struct kr_fabric prev_f = pl->fabric;
	struct kr_plan prev_p = pl->plan;
	int prev_valid = pl->valid;
	struct kr_tables cached = { 0 };
	char line[1024];
	int rc;

	pl->fabric = (struct kr_fabric){ 0 };
	pl->plan = (struct kr_plan){ 0 };
	pl->valid = 0;
	pl->full_pass = 0;
	pl->sweeps++;
	pl->rising = pl->falling = 0;
	no_ucast_cache(pl);
	if (load_conf(pl)) {
		rc = -1;	/* load_conf said why */
	} else if ((rc = build_fabric(pl, &pl->fabric, &d))) {
		log_failure(pl, &d, "reading the subnet");
	} else {
		/* Without QoS OpenSM programs no SL2VL map and every SL rides
		 * VL 0: plan, and so check, for exactly that. */
		if (!pl->osm->subn.opt.qos)
			pl->conf.vls = 1;
		/* what the LID manager told every port (MasterSMLID, -SL):
		 * the SA's traffic is checked with the rest */
		pl->conf.sm_lid = cl_ntoh16(pl->osm->subn.sm_base_lid);
		pl->conf.sm_sl = pl->osm->subn.opt.sm_sl;
		if (prev_valid)
			rc = kr_plan_rebuild(&pl->fabric, &pl->conf, &prev_f,
					     &prev_p, &pl->plan, &d);
		else if (pl->sweeps == 1 && read_tables_cache(pl, &cached))
			rc = kr_plan_resume(&pl->fabric, &pl->conf, &cached,
					    &pl->plan, &d);
		else
			rc = kr_plan_build(&pl->fabric, &pl->conf, &pl->plan,
					   &d);
		if (rc && !pl->osm->subn.opt.qos &&
		    pl->plan.failed >= KR_PHASE_SLVL && d.msg[0]) {
			char why[sizeof(d.msg)];

			snprintf(why, sizeof(why), "%s", d.msg);
			kr_fail(&d, rc, 0, "qos is FALSE in opensm.conf, so every "
				"SL rides VL 0, and on one VL: %s; set qos TRUE",
				why);
		}
		if (rc)
			log_failure(pl, &d, kr_phase_name(pl->plan.failed));
		ask_for_vls(pl, rc != 0);
	}
	if (rc) {
		drop_plan(pl);
		forget_tables(pl);
		kr_tables_free(&cached);
		kr_plan_free(&prev_p);
		kr_fabric_free(&prev_f);
		return -1;
	}
	install_lfts(pl);
	if (osm_log_is_active(plog(pl), OSM_LOG_ROUTING))
		install_hops(pl);
	pl->valid = 1;
	kr_plan_summary(line, sizeof(line), &pl->fabric, &pl->plan, "\n");
	log_lines(pl, "", line);
	log_lines(pl, "recognition: ", pl->plan.topo.report);
	if (prev_valid)
		log_changes(pl, &prev_f, &prev_p.tables, "the last sweep");
	else if (pl->plan.resumed)
		log_changes(pl, &pl->fabric, &cached, "the tables cache");
	kr_tables_free(&cached);
	kr_plan_free(&prev_p);
	kr_fabric_free(&prev_f);
	save_caches(pl);
	pl->dump_due = pl->conf.dump_tables;
	/* a heavy sweep goes on to rebuild every group: see last_mlid */
	pl->full_pass = group_from(&pl->osm->subn, 0);
	return 0;
}

static uint8_t kr_path_sl(void *ctx, uint8_t hint, const ib_net16_t slid_be,
			  const ib_net16_t dlid_be)
{
	struct kr_plugin *pl = ctx;
	unsigned dlid = cl_ntoh16(dlid_be);

	if (!pl->valid || kr_port_by_lid(&pl->fabric, dlid) == KR_NONE)
		return hint;
	return (uint8_t)kr_tables_port_path_sl(&pl->fabric, &pl->plan.tables,
					       cl_ntoh16(slid_be), dlid);
}

/* The core node and port slot of an OpenSM physical port, or KR_NONE. */
static uint32_t node_of(const struct kr_plugin *pl, osm_physp_t *p)
{
	uint64_t guid = cl_ntoh64(osm_node_get_node_guid(osm_physp_get_node_ptr(p)));

	return kr_node_by_guid(&pl->fabric, guid);
}

static void kr_update_sl2vl(void *ctx, osm_physp_t *port, uint8_t in,
			    uint8_t out, ib_slvl_table_t *tbl)
{
	struct kr_plugin *pl = ctx;
	uint32_t n;
	uint64_t map;

	if (!pl->valid || (n = node_of(pl, port)) == KR_NONE)
		return;
	if (!kr_is_switch(&pl->fabric, n))
		in = out = osm_physp_get_port_num(port);
	map = kr_tables_sl2vl(&pl->fabric, &pl->plan.tables, n, in, out);
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		ib_slvl_table_set(tbl, (uint8_t)sl, (uint8_t)kr_map_vl(map, sl));
}

/* Low-priority table (blocks 0 and 1): every VL the port sends on, equal
 * weight, so no used VL can starve; high-priority table (blocks 2, 3) empty. */
static void kr_update_vlarb(void *ctx, osm_physp_t *port, uint8_t port_num,
			    ib_vl_arb_table_t *block, unsigned len,
			    unsigned block_num)
{
	struct kr_plugin *pl = ctx;
	unsigned entry = 0, mask;
	uint32_t n;

	if (!pl->valid || (n = node_of(pl, port)) == KR_NONE)
		return;
	mask = pl->plan.slvl.vl_mask[kr_port(&pl->fabric, n, port_num)];
	memset(block, 0, len * sizeof(block->vl_entry[0]));
	if (block_num != 0)
		return;
	for (unsigned vl = 0; vl < 15 && entry < len; vl++)
		if (mask >> vl & 1) {
			block->vl_entry[entry].vl = (uint8_t)vl;
			block->vl_entry[entry++].weight = KR_VLARB_WEIGHT;
		}
}

/* Nothing: see install_hops. */
static int kr_build_lid_matrices(void *ctx)
{
	(void)ctx;
	return 0;
}

static void kr_destroy_engine(void *ctx)
{
	drop_plan(ctx);
}

static int kr_setup_engine(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct kr_plugin *pl = re->context;

	re->build_lid_matrices = kr_build_lid_matrices;
	re->ucast_build_fwd_tables = kr_build_fwd_tables;
	re->ucast_dump_tables = dump_tables;
	re->update_sl2vl = kr_update_sl2vl;
	re->update_vlarb = kr_update_vlarb;
	re->path_sl = kr_path_sl;
	re->mcast_build_stree = kr_mcast_build_stree;
	re->destroy = kr_destroy_engine;
	no_ucast_cache(pl);
	if (!osm->subn.opt.qos)
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR03: knsroute: qos is "
			"FALSE in opensm.conf: SL2VL and VLArb will not be "
			"programmed, so knsroute plans for one VL (meshes only: "
			"KNS crossbars, torus rings, multipath and detours need "
			"more, and fall back); set qos TRUE\n");
	OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: engine set up, config %s "
		"(read every sweep)\n", pl->conf_path);
	return 0;
}

static void *kr_plugin_create(osm_opensm_t *osm)
{
	struct kr_plugin *pl = calloc(1, sizeof(*pl));
	external_routing_engine_module_t module = {
		.name = KR_ENGINE,
		.setup = kr_setup_engine,
		.context = NULL,
	};

	if (!pl)
		return NULL;
	pl->osm = osm;
	pl->conf_used = -1;
	module.context = pl;
	find_conf_path(pl);
	if (osm_register_external_routing_engine(osm, &module, pl) != CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR KR06: knsroute: cannot "
			"register the routing engine\n");
		free(pl);
		return NULL;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "knsroute %s registered as routing "
		"engine '%s'\n", PACKAGE_VERSION, KR_ENGINE);
	return pl;
}

static void kr_plugin_delete(void *ctx)
{
	struct kr_plugin *pl = ctx;

	if (!pl)
		return;
	drop_plan(pl);
	free(pl->mslot);
	free(pl);
}

__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = kr_plugin_create,
	.delete = kr_plugin_delete,
	.report = kr_plugin_report,
};
