/* Multicast forwarding table dumps on chk_t33, the shuffled 3x3 torus of
 * test_dump.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

static char *data_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("KR_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/data/%s", dir ? dir : ".", name);
	return path;
}

static int setup_t33(void **state)
{
	struct kr_fabric *f = calloc(1, sizeof(*f));

	assert_int_equal(kr_net_read(data_path("chk_t33.ibnd"), f, NULL), KR_OK);
	*state = f;
	return 0;
}

static int teardown_t33(void **state)
{
	kr_fabric_free(*state);
	free(*state);
	return 0;
}

static uint32_t sw_of_lid(const struct kr_fabric *f, unsigned lid)
{
	return f->owner[kr_port_by_lid(f, lid)];
}

static void set_port(const struct kr_fabric *f, struct kr_mgroup *g,
		     unsigned lid, unsigned port)
{
	uint32_t sw = sw_of_lid(f, lid);

	g->ports[(size_t)sw * KR_MCAST_WORDS + port / 64] |= 1ull << port % 64;
}

static char *mft_text(const struct kr_fabric *f, const struct kr_tables *t)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_int_equal(kr_mft_write(out, f, t), KR_OK);
	fclose(out);
	return buf;
}

/* Switches in OpenSM's order (LID 4's GUID ...1b04 sorts before LID 1's
 * ...7680 byte-swapped, as in chk_t33-lfts.dump), MLIDs ascending within a
 * switch, a group with no ports nowhere, ports ascending with OpenSM's
 * spacing. Worked by hand from osm_dump.c's format. */
static void test_write_hand_worked(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_mgroup g[3] = { { .mlid = 0xc000 }, { .mlid = 0xc001 },
				  { .mlid = 0xc002 } };
	struct kr_tables t = { .mgroup = g, .nmgroup = 3 };
	char *text;

	for (unsigned i = 0; i < 3; i++)
		g[i].ports = calloc((size_t)f->nsw * KR_MCAST_WORDS,
				    sizeof(uint64_t));
	set_port(f, &g[0], 1, 3);
	set_port(f, &g[0], 1, 1);
	set_port(f, &g[0], 4, 0);
	set_port(f, &g[0], 4, 2);
	set_port(f, &g[1], 4, 5);
	set_port(f, &g[1], 4, 4);
	text = mft_text(f, &t);
	assert_string_equal(text,
			    "\nSwitch 0x0002c9783aac1b04\nLID    : Out Port(s)\n"
			    "0xC000 : 0x000  0x002 \n"
			    "0xC001 : 0x004  0x005 \n"
			    "\nSwitch 0x0002c93bcb817680\nLID    : Out Port(s)\n"
			    "0xC000 : 0x001  0x003 \n");
	free(text);
	for (unsigned i = 0; i < 3; i++)
		free(g[i].ports);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_hand_worked,
						setup_t33, teardown_t33),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
