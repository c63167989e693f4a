/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "plan_opts.h"

#include "cli.h"

void plan_opts_init(struct plan_opts *o)
{
	*o = (struct plan_opts){ .lmc = -1, .classes = -1, .vls = -1,
				    .detour_vls = -1, .sm_lid = -1, .sm_sl = -1 };
}

int plan_opts_take(struct plan_opts *o, const char *cmd, int c, const char *arg)
{
	switch (c) {
	case 'c': o->conf = arg; break;
	case PLAN_OPT_G2L: o->guid2lid = arg; break;
	case PLAN_OPT_LMC: o->lmc = (int)cli_number(cmd, "--lmc", arg, 0, 7); break;
	case PLAN_OPT_CL: o->classify = arg; break;
	case PLAN_OPT_CLS: o->classes = (int)cli_number(cmd, "--classes", arg, 1, 16); break;
	case PLAN_OPT_VLS: o->vls = (int)cli_number(cmd, "--vls", arg, 1, 15); break;
	case PLAN_OPT_DETOUR: o->detour_vls = (int)cli_number(cmd, "--detour-vls", arg, 0, 2); break;
	case PLAN_OPT_NOCHK: o->no_check = 1; break;
	case PLAN_OPT_SMLID: o->sm_lid = (int)cli_number(cmd, "--sm-lid", arg, 1, 0xbfff); break;
	case PLAN_OPT_SMSL: o->sm_sl = (int)cli_number(cmd, "--sm-sl", arg, 0, 15); break;
	default: return 0;
	}
	return 1;
}

int plan_opts_conf(const struct plan_opts *o, const char *cmd, struct kr_conf *c)
{
	struct kr_diag d = { .file = o->conf };

	kr_conf_init(c);
	if (o->conf && kr_conf_load(c, o->conf, KR_IN_STREAM, &d))
		return cli_error(&d);
	if (o->classify && kr_classify_parse(o->classify, &c->classify))
		return cli_usage_error(cmd, "unknown classifier \"%s\"", o->classify);
	if (o->classes >= 0)
		c->classes = (unsigned)o->classes;
	if (o->vls >= 0)
		c->vls = (unsigned)o->vls;
	if (o->detour_vls >= 0)
		c->detour_vls = (unsigned)o->detour_vls;
	if (o->lmc >= 0)
		c->lmc = (unsigned)o->lmc;
	if (o->no_check)
		c->check = 0;
	if (o->sm_lid >= 0)
		c->sm_lid = (uint16_t)o->sm_lid;
	if (o->sm_sl >= 0)
		c->sm_sl = (uint8_t)o->sm_sl;
	return 0;
}

int plan_opts_lids(const struct plan_opts *o, const struct kr_conf *c,
		   const char *topo, struct kr_fabric *f)
{
	struct kr_diag d = { .file = o->guid2lid };

	if (o->guid2lid && kr_guid2lid_read(o->guid2lid, f, &d))
		return cli_error(&d);
	d.file = topo;
	if (kr_fabric_assign_lids(f, c->lmc, &d))
		return cli_error(&d);
	if (c->sm_lid && (c->sm_lid > f->max_lid ||
			  f->lid_port[c->sm_lid] == KR_NONE))
		return kr_fail(&d, KR_EINVAL, 0, "--sm-lid %u: no port has "
			       "that LID", c->sm_lid), cli_error(&d);
	return 0;
}
