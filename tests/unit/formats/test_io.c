/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What stands at a path knsroute reads or writes may have been planted
 * there: a FIFO with no writer, a device that never ends, a link to
 * someone else's file. Readers must neither block nor grow, the plugin's
 * writes must replace the name, never what it leads to. */
#define _GNU_SOURCE	/* mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"

static char dir[64];

static const char *at(const char *name)
{
	static char buf[4][160];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

static void put(const char *name, const char *text, size_t len)
{
	FILE *fp = fopen(at(name), "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kr-test-io-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* kr_input_open's verdict on path for kind; its message into msg. */
static int open_as(const char *path, enum kr_input kind, char *msg,
		   size_t len)
{
	struct kr_diag d = { 0 };
	FILE *fp;
	int rc = kr_input_open(path, kind, &fp, &d);

	if (fp)
		fclose(fp);
	kr_diag_format(&d, msg, len);
	return rc;
}

/* A FIFO with no writer would hold open() for ever: it is refused at
 * once where a pipe has no business (a cache, the configuration) and
 * opened without waiting where the user may give one. */
static void test_fifo(void **state)
{
	char msg[KR_DIAG_LINE];

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(open_as(at("fifo"), KR_IN_CACHE, msg, sizeof(msg)),
			 KR_EIO);
	assert_non_null(strstr(msg, "cannot read: not a regular file"));
	assert_int_equal(open_as(at("fifo"), KR_IN_FILE, msg, sizeof(msg)),
			 KR_EIO);
	assert_int_equal(open_as(at("fifo"), KR_IN_STREAM, msg, sizeof(msg)),
			 KR_OK);
}

/* Devices never end (/dev/zero) or wait for a person; directories are
 * not files. Each refused, with what it is. */
static void test_device_and_directory(void **state)
{
	char msg[KR_DIAG_LINE], *buf;
	size_t len;
	struct kr_diag d = { 0 };

	(void)state;
	for (int kind = KR_IN_STREAM; kind <= KR_IN_CACHE; kind++) {
		assert_int_equal(open_as("/dev/zero", kind, msg, sizeof(msg)),
				 KR_EIO);
		assert_non_null(strstr(msg, "/dev/zero: cannot read: not a "
				       "regular file"));
		assert_int_equal(open_as(dir, kind, msg, sizeof(msg)), KR_EIO);
		assert_non_null(strstr(msg, "a directory, not a file"));
	}
	assert_int_equal(kr_slurp("/dev/zero", KR_IN_STREAM, &buf, &len, &d),
			 KR_EIO);
	assert_null(buf);
}

/* A cache is never read through a link (a planted one could show a
 * root-only file's lines in OpenSM's log); a file the user names is. */
static void test_cache_link(void **state)
{
	char msg[KR_DIAG_LINE];

	(void)state;
	put("real", "x\n", 2);
	assert_int_equal(symlink(at("real"), at("link")), 0);
	assert_int_equal(open_as(at("link"), KR_IN_CACHE, msg, sizeof(msg)),
			 KR_EIO);
	assert_non_null(strstr(msg, "a symbolic link"));
	assert_int_equal(open_as(at("link"), KR_IN_FILE, msg, sizeof(msg)),
			 KR_OK);
	assert_int_equal(open_as(at("link"), KR_IN_STREAM, msg, sizeof(msg)),
			 KR_OK);
	assert_int_equal(open_as(at("real"), KR_IN_CACHE, msg, sizeof(msg)),
			 KR_OK);
}

/* Lines: a NUL byte is said as such, a long line as such, both with the
 * line's number; CR LF ends a line like LF. */
static void test_lines(void **state)
{
	static const char text[] = "one\r\ntw\0o\n";
	char buf[8], msg[KR_DIAG_LINE];
	struct kr_diag d = { .file = "f" };
	FILE *fp;

	(void)state;
	put("lines", text, sizeof(text) - 1);
	assert_int_equal(kr_input_open(at("lines"), KR_IN_FILE, &fp, &d), KR_OK);
	assert_int_equal(kr_input_line(fp, buf, sizeof(buf), 1, &d), 1);
	assert_string_equal(buf, "one");
	assert_int_equal(kr_input_line(fp, buf, sizeof(buf), 2, &d), KR_EPARSE);
	kr_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, ":2: NUL byte in line"));
	fclose(fp);
	put("long", "12345678\n", 9);
	assert_int_equal(kr_input_open(at("long"), KR_IN_FILE, &fp, &d), KR_OK);
	assert_int_equal(kr_input_line(fp, buf, sizeof(buf), 1, &d), KR_EPARSE);
	kr_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, ":1: line longer than 6 characters"));
	fclose(fp);
}

/* What a message quotes of a file becomes text: no raw high bytes or
 * control characters reach a log. */
static void test_diag_text(void **state)
{
	struct kr_diag d = { .file = "k.conf", .line = 3 };
	char msg[KR_DIAG_LINE];

	(void)state;
	kr_fail(&d, KR_EPARSE, 3, "unknown key \"\xc3\xa9t\x1b[31m\"");
	kr_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "k.conf:3: unknown key \"??t?[31m\"");
}

static int write_hello(FILE *out, const void *ctx)
{
	fputs(ctx, out);
	return KR_OK;
}

/* The plugin's files: a link at the name is replaced, its target left
 * alone; a FIFO at the name is replaced without waiting for a reader. */
static void test_own_replaces(void **state)
{
	struct kr_diag d = { 0 };
	struct stat st;

	(void)state;
	put("victim", "precious\n", 9);
	assert_int_equal(symlink(at("victim"), at("cache")), 0);
	assert_int_equal(kr_write_atomic(at("cache"), KR_TO_OWN, write_hello,
					 "new\n", &d), KR_OK);
	assert_string_equal(get(at("victim")), "precious\n");
	assert_int_equal(lstat(at("cache"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(get(at("cache")), "new\n");

	assert_int_equal(mkfifo(at("fcache"), 0600), 0);
	assert_int_equal(kr_write_atomic(at("fcache"), KR_TO_OWN, write_hello,
					 "new\n", &d), KR_OK);
	assert_int_equal(lstat(at("fcache"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* the user's name is written through, as documented */
	assert_int_equal(kr_write_atomic(at("cache"), KR_TO_NAMED, write_hello,
					 "again\n", &d), KR_OK);
	assert_string_equal(get(at("cache")), "again\n");
}

static const struct kr_dir_file one_file[] = { { "summary", write_hello } };

/* A directory of the plugin's files must be its own, and only its own
 * to write: else another user could swap what is in it. */
static void test_own_dir(void **state)
{
	struct kr_diag d = { 0 };
	char msg[KR_DIAG_LINE];

	(void)state;
	assert_int_equal(mkdir(at("dump"), 0755), 0);
	assert_int_equal(kr_write_dir(at("dump"), KR_TO_OWN, one_file, 1, "x\n",
				      &d), KR_OK);
	assert_int_equal(chmod(at("dump"), 0777), 0);
	assert_int_equal(kr_write_dir(at("dump"), KR_TO_OWN, one_file, 1, "x\n",
				      &d), KR_EIO);
	kr_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "others may write to it"));
	assert_int_equal(kr_write_dir(at("dump"), KR_TO_NAMED, one_file, 1,
				      "x\n", &d), KR_OK);
	assert_int_equal(symlink(at("dump"), at("dumplink")), 0);
	assert_int_equal(kr_write_dir(at("dumplink"), KR_TO_OWN, one_file, 1,
				      "x\n", &d), KR_EIO);
	kr_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "not a directory (a link is not followed)"));
	if (geteuid() == 0) {	/* root can give it away */
		assert_int_equal(mkdir(at("theirs"), 0755), 0);
		assert_int_equal(chown(at("theirs"), 65534, 65534), 0);
		assert_int_equal(kr_write_dir(at("theirs"), KR_TO_OWN, one_file,
					      1, "x\n", &d), KR_EIO);
		kr_diag_format(&d, msg, sizeof(msg));
		assert_non_null(strstr(msg, "owned by another user"));
	}
}

/* oper-vls, the OperVLs a capture keeps: what is written reads back on the
 * same ports, the ports it leaves out keep theirs, and each kind of bad
 * line is named by its number. */
static void test_oper_vls(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 3, 3 }, .wrap = { 1, 1 }, .p = 1,
				 .parallel = 1, .shuffle = 1, .shuffle_seed = 5 };
	static const char *const bad[][2] = {
		{ "# ok\n0x1 1\n", "expected \"NODE_GUID PORT VLS\"" },
		{ "0xdead 1 4\n", "no node 0x000000000000dead" },
		{ "%s 9 4\n", "port 9 of a node with" },
		{ "%s 1 3\n", "expected 1, 2, 4, 8 or 15 VLs, not 3" },
	};
	static const unsigned vl[] = { 1, 2, 4, 8, 15 };
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint8_t *want;
	char text[128], guid[32];
	FILE *fp;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	assert_non_null(want = calloc(f.nport, 1));
	for (uint32_t s = 0; s < f.nport; s++)
		if (f.peer[s] >= 0)
			want[s] = f.oper_vls[s] = (uint8_t)vl[s % 5];
	assert_non_null(fp = fopen(at("oper-vls"), "w"));
	assert_int_equal(kr_oper_vls_write(fp, &f), KR_OK);
	assert_int_equal(fclose(fp), 0);
	memset(f.oper_vls, 0, f.nport);
	f.oper_vls[0] = 3;	/* port 0 of a switch: never linked, kept */
	want[0] = 3;
	assert_int_equal(kr_oper_vls_read(at("oper-vls"), &f, &d), KR_OK);
	assert_memory_equal(f.oper_vls, want, f.nport);
	snprintf(guid, sizeof(guid), "0x%016llx", (unsigned long long)f.guid[0]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), bad[i][0], guid);
		put("bad", text, strlen(text));
		d = (struct kr_diag){ 0 };
		assert_int_equal(kr_oper_vls_read(at("bad"), &f, &d), KR_EPARSE);
		assert_int_equal(d.line, i ? 1 : 2);
		if (!strstr(d.msg, bad[i][1]))
			fail_msg("case %zu: \"%s\"", i, d.msg);
	}
	free(want);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_and_directory,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
		cmocka_unit_test(test_diag_text),
		cmocka_unit_test_setup_teardown(test_own_replaces, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_own_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oper_vls, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
