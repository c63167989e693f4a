/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Test support: the slides' MiKANT rules, checked link by link on switch
 * positions decoded here by hand (kr_topo.h's layout: digits D_0 ..
 * D_{n-2}, then the stage, then the group), not by the library. */
#ifndef KR_TEST_MIKANT_RULES_H
#define KR_TEST_MIKANT_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "kr.h"

struct mk_addr {
	unsigned dig[KR_MAX_DIM], stage, group;
};

struct mk_addr mk_addr(unsigned k, unsigned n, uint32_t pos);
/* Whether a and b agree in every digit but (maybe) digit d. */
bool mk_same_but(const struct mk_addr *a, const struct mk_addr *b,
		 unsigned n, unsigned d);
/* Every link of f between switches is one the rules allow under sw_pos
 * (no two switches at one position); a leaf's CAs hang off stage 0; each
 * switch has at most k links up (or across) to distinct digit values and
 * at most k down. pristine: exactly k each way and all 2k ports used. */
void mk_assert_rules(const struct kr_fabric *f, const uint32_t *sw_pos,
		     unsigned k, unsigned n, bool pristine);

#endif
