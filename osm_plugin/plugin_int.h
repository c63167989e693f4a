/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the parts of the OpenSM adapter: the adapter proper
 * (plugin.c: the subnet in, the tables out, the SA's and QoS hooks), its
 * caches and dumps (plugin_cache.c) and its multicast passes
 * (plugin_mcast.c). */
#ifndef KR_PLUGIN_INT_H
#define KR_PLUGIN_INT_H

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <complib/cl_nodenamemap.h>
#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_mcast_tbl.h>
#include <opensm/osm_mcm_port.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_version.h>

#include "kr.h"
#include "kr_plan.h"


struct kr_plugin {
	osm_opensm_t *osm;
	char conf_path[KR_CONF_PATH];
	int conf_named;			/* by event_plugin_options */
	int conf_used;			/* conf_path read last sweep (-1: none yet) */
	struct kr_conf conf;
	int conf_ok;
	struct kr_fabric fabric;	/* of the last successful sweep */
	struct kr_plan plan;
	int valid;			/* plan passed its check and is installed */
	unsigned sweeps;
	uint32_t *mslot;		/* a group's member ports, scratch */
	size_t mcap;
	unsigned mcast_refused;		/* groups refused since the last line */
	int full_pass;			/* this sweep's pass over every group
					 * is under way (see kr_mcast_build_stree) */
	int dump_due;			/* dump_tables asked, this plan not written */
	char tables_path[KR_CONF_PATH];	/* the tables cache read or
					 * written last; "": none yet */
	unsigned rising, falling;	/* ports about to run more, fewer VLs
					 * than now (see vls_of) */
	int vls_asked;			/* the last sweep asked for another
					 * because of them */
};

static inline osm_log_t *plog(const struct kr_plugin *pl)
{
	return &pl->osm->log;
}

/* plugin_cache.c */
/* A cache path knsroute.conf left empty: NAME in OpenSM's cache directory. */
int default_cache(char path[KR_CONF_PATH], const char *name,
		  struct kr_diag *d);
int read_tables_cache(struct kr_plugin *pl, struct kr_tables *cached);
void forget_tables(struct kr_plugin *pl);
void save_caches(struct kr_plugin *pl);
/* The dry run's files under DUMP_DIR/knsroute/ (OpenSM's ucast_dump_tables). */
void dump_tables(void *ctx);
void kr_plugin_report(void *ctx, osm_epi_event_id_t event, void *data);

/* plugin_mcast.c */
int group_from(const osm_subn_t *sn, unsigned m);
ib_api_status_t kr_mcast_build_stree(void *ctx, osm_mgrp_box_t *mgb);

#endif
