/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The adapter's files: the coordinates and tables caches (read at the
 * first sweep, written after every one) and, with dump_tables, the dry
 * run's files of each sweep. Only regular files of the SM's own are read
 * or written (kr_input_open, KR_TO_OWN). */
#include <config.h>

#include "plugin_int.h"

/* A cache path knsroute.conf left empty: NAME in OpenSM's cache
 * directory. One too long for the path is refused rather than cut: two
 * caches cut to one name would overwrite each other. */
int default_cache(char path[KR_CONF_PATH], const char *name,
			 struct kr_diag *d)
{
	const char *dir = getenv("OSM_CACHE_DIR");

	if (path[0])
		return KR_OK;
	if (!dir || !*dir)
		dir = OSM_DEFAULT_CACHE_DIR;
	if (snprintf(path, KR_CONF_PATH, "%s/%s", dir, name) < KR_CONF_PATH)
		return KR_OK;
	path[0] = '\0';
	return kr_fail(d, KR_EINVAL, 0, "OSM_CACHE_DIR is %zu bytes long; "
		       "the cache paths in it must be shorter than %d bytes",
		       strlen(dir), KR_CONF_PATH);
}

/* At OpenSM's start the switches still hold the tables of the OpenSM
 * before, which the tables cache describes (see save_caches): they are
 * the plan in force, whose SLs the first sweep's repair keeps and proves
 * old packets safe against. Whether *cached got them. */
int read_tables_cache(struct kr_plugin *pl, struct kr_tables *cached)
{
	struct kr_diag d = { 0 };
	char msg[KR_DIAG_LINE];

	snprintf(pl->tables_path, sizeof(pl->tables_path), "%s",
		 pl->conf.tables_cache);
	if (access(pl->tables_path, F_OK))
		return 0;
	if (kr_tables_cache_read(pl->tables_path, &pl->fabric, cached, &d)) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: tables "
			"cache not used: %s\n", pl->sweeps, msg);
		return 0;
	}
	OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: tables in force "
		"from %s (%u repaired destinations)\n", pl->sweeps,
		pl->tables_path, cached->nrepaired);
	return 1;
}

/* Another engine installs its tables after a failed sweep, so the cache
 * no longer describes what the switches hold: the one written last, or
 * the configured one (a start whose first sweep fails reads none). */
void forget_tables(struct kr_plugin *pl)
{
	const char *path = pl->tables_path[0] ? pl->tables_path
					      : pl->conf.tables_cache;

	if (path[0] && unlink(path) && errno != ENOENT)
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR15: knsroute: cannot "
			"remove the tables cache %s: %s\n", path,
			strerror(errno));
}

/* The labelling of this sweep, for the next one, and its tables, for the
 * first sweep of a restarted OpenSM (see load_conf). Written before
 * OpenSM sends the tables: a cache ahead of the switches only makes the
 * next start keep SLs of tables that never went out, while one behind
 * would leave it blind to those that did. */
void save_caches(struct kr_plugin *pl)
{
	struct kr_diag d = { 0 };
	char msg[KR_DIAG_LINE];

	if (kr_topo_cache_save(pl->conf.coords_cache, KR_TO_OWN, &pl->fabric,
			       &pl->plan.topo, &d)) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR04: knsroute: cannot "
			"save coordinates: %s\n", msg);
	}
	d = (struct kr_diag){ 0 };
	snprintf(pl->tables_path, sizeof(pl->tables_path), "%s",
		 pl->conf.tables_cache);
	if (kr_tables_cache_save(pl->tables_path, &pl->fabric, &pl->plan, &d)) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR14: knsroute: cannot "
			"save the tables cache: %s\n", msg);
		forget_tables(pl);
	}
}

/* The dry run's files, under DUMP_DIR/knsroute/, for comparing a live
 * fabric with `knsroute route`. */
void dump_tables(void *ctx)
{
	struct kr_plugin *pl = ctx;
	struct kr_diag d = { 0 };
	char dir[600], msg[KR_DIAG_LINE];

	if (!pl->valid)
		return;
	snprintf(dir, sizeof(dir), "%s/knsroute",
		 pl->osm->subn.opt.dump_files_dir ? pl->osm->subn.opt.dump_files_dir
						  : OSM_DEFAULT_TMP_DIR);
	if (kr_plan_write_dir(dir, KR_TO_OWN, &pl->fabric, &pl->plan, &d)) {
		kr_diag_format(&d, msg, sizeof(msg));
		OSM_LOG(plog(pl), OSM_LOG_ERROR, "ERR KR05: knsroute: cannot "
			"dump tables: %s\n", msg);
		return;
	}
	OSM_LOG(plog(pl), OSM_LOG_INFO, "knsroute: sweep %u: tables dumped "
		"to %s\n", pl->sweeps, dir);
}

/* With dump_tables, the files are written once the subnet is up: OpenSM
 * reports that after the sweep, outside the routing step, on the thread
 * that alone changes the plan (the SA only reads it). A sweep that ends
 * in errors brings no SUBNET_UP and so no files. */
void kr_plugin_report(void *ctx, osm_epi_event_id_t event, void *data)
{
	struct kr_plugin *pl = ctx;

	(void)data;
	if (event != OSM_EVENT_ID_SUBNET_UP || !pl->dump_due)
		return;
	pl->dump_due = 0;
	dump_tables(pl);
}
