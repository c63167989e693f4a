/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute core: what tools/ and osm_plugin/ include. The core never prints,
 * never exits and never includes OpenSM headers. */
#ifndef KR_H
#define KR_H

#include "kr_base.h"
#include "kr_fabric.h"
#include "kr_tables.h"
#include "kr_topo.h"
#include "kr_conf.h"
#include "kr_gen.h"
#include "kr_io.h"
#include "kr_route.h"
#include "kr_slvl.h"
#include "kr_mcast.h"
#include "kr_repair.h"
#include "kr_check.h"
#include "kr_dump.h"
#include "kr_plan.h"
#include "kr_stats.h"
#include "kr_atomic.h"

#endif
