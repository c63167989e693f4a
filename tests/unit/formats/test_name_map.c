/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The node-name-map reader: names as infiniband-diags' reader takes them
 * (quoted, unquoted, first line of a GUID wins, comments), and every
 * broken line refused with its line number, leaving the fabric alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"

/* Two switches and a CA; sw-b has a NodeDescription, the others none. */
static const char net[] =
	"switchguid=0x200\n"
	"Switch 4 \"sw-a\"\n"
	"[1] \"h1\"[1]\n"
	"[2] \"sw-b\"[2]\n"
	"switchguid=0x300\n"
	"Switch 4 \"sw-b\" # \"spine B\"\n"
	"caguid=0x100\n"
	"Hca 1 \"h1\"\n";

static void fabric(struct kr_fabric *f)
{
	struct kr_diag d = { 0 };

	if (kr_net_parse(net, strlen(net), "t.net", f, &d))
		fail_msg("t.net:%u: %s", d.line, d.msg);
}

static int parse_map(const char *text, struct kr_fabric *f, struct kr_diag *d)
{
	return kr_name_map_parse(text, strlen(text), f, d);
}

static void test_names(void **state)
{
	static const char map[] =
		"# IB1\n"
		"\n"
		"   # indented comment\n"
		"0x0000000000000200 \"leaf 1 (rack 3)\"   # trailing comment\n"
		"0x200 \"a second line for 0x200 loses\"\n"
		"768\tspine two  # unquoted: up to the comment, trimmed\r\n"
		"0x100\n"			/* a GUID alone: no entry */
		"0x999 \"not in this fabric\"\n";
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint32_t a, b, h;

	(void)state;
	fabric(&f);
	a = kr_node_by_guid(&f, 0x200);
	b = kr_node_by_guid(&f, 0x300);
	h = kr_node_by_guid(&f, 0x100);
	assert_int_equal(parse_map(map, &f, &d), KR_OK);
	assert_string_equal(kr_node_desc(&f, a), "leaf 1 (rack 3)");
	assert_string_equal(kr_node_desc(&f, b), "spine two");
	assert_string_equal(kr_node_desc(&f, h), "h1");	/* untouched */
	assert_string_equal(kr_node_name(&f, a), "sw-a");	/* ids stay */
	assert_string_equal(kr_port_label(&f, kr_port(&f, a, 2)).s,
			    "sw-a \"leaf 1 (rack 3)\"[2]");
	assert_string_equal(kr_node_label(&f, h).s, "h1");
	kr_fabric_free(&f);
}

static void test_bad_lines(void **state)
{
	static const struct { const char *text; unsigned line;
			      const char *msg; } bad[] = {
		{ "# ok\nsw-a \"x\"\n", 2, "expected a node GUID" },
		{ "0x200 \"x\"\n0x300x \"y\"\n", 2, "not 'x'" },
		{ "0x200\"x\"\n", 1, "expected a space after the GUID" },
		{ "\n\n0x12345678901234567 \"x\"\n", 3, "up to 16 hex digits" },
		{ "0x200 \"leaf 1\n0x300 \"b\"\n", 1, "closing quote" },
		{ "0x200 \"a\"\n-5 \"b\"\n", 2, "expected a node GUID" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kr_fabric f;
		struct kr_diag d = { 0 };
		uint32_t a;

		fabric(&f);
		a = kr_node_by_guid(&f, 0x200);
		if (parse_map(bad[i].text, &f, &d) != KR_EPARSE ||
		    d.line != bad[i].line || !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
		/* nothing applied from a map that fails further down */
		assert_string_equal(kr_node_desc(&f, a), "sw-a");
		kr_fabric_free(&f);
	}
}

static void test_read_names_file(void **state)
{
	char path[] = "/tmp/kr-name-map-XXXXXX";
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	int fd = mkstemp(path);
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");

	(void)state;
	assert_non_null(out);
	fputs("0x300 \"spine\"\n0x100 \"h\"x\n0x200 ok\n0x200 \"", out);
	fclose(out);
	fabric(&f);
	assert_int_equal(kr_name_map_read(path, &f, &d), KR_EPARSE);
	assert_string_equal(d.file, path);
	assert_int_equal(d.line, 4);
	unlink(path);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_read_names_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
