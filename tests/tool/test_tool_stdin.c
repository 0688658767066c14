/* SPDX-License-Identifier: MIT */
/*
 * "-" is standard input wherever the tool reads a file: a domain for vm-config, a scenario for
 * run and stats (its relative file names then relative to the current directory), an SPE
 * buffer for spe-decode. The data comes through a pipe, and reads the same as from the file;
 * messages name it "(standard input)"; vm-config refuses to read it twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tooltest.h"

static void test_domain_from_pipe(void **state)
{
	(void)state;
	struct cmd_result file = tt_run(TOOL_BIN " vm-config examples/demo/web.xml", NULL);
	struct cmd_result pipe = tt_run("cat examples/demo/web.xml | " TOOL_BIN " vm-config -",
					NULL);
	assert_int_equal(file.status, 0);
	assert_int_equal(pipe.status, 0);
	assert_string_equal(pipe.err, "");
	/* the same, but for where it came from */
	static const char from_file[] = "  from                     examples/demo/web.xml\n";
	static const char from_pipe[] = "  from                     (standard input)\n";
	char *at = strstr(pipe.out, from_pipe);
	assert_non_null(at);
	char expected[8192];
	size_t head = (size_t)(at - pipe.out);
	snprintf(expected, sizeof(expected), "%.*s%s%s", (int)head, pipe.out, from_file,
		 at + strlen(from_pipe));
	assert_string_equal(expected, file.out);
	tt_free(&file);
	tt_free(&pipe);

	/* beside a file, in order */
	pipe = tt_run("cat examples/demo/db.xml | " TOOL_BIN
		      " vm-config examples/demo/web.xml -",
		      NULL);
	assert_int_equal(pipe.status, 0);
	char *web = strstr(pipe.out, "domain web\n"), *db = strstr(pipe.out, "domain db\n");
	assert_non_null(web);
	assert_non_null(db);
	assert_true(web < db);
	tt_free(&pipe);
}

static void test_domain_errors(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(
		"cat tests/tool/fixtures/perf-unknown.xml | " TOOL_BIN " vm-config -", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "perfvisor vm-config: (standard input):5: <event>: 'cycles' "
				   "is not a libvirt perf event\n");
	tt_free(&r);

	r = tt_run(TOOL_BIN " vm-config -", ""); /* nothing on standard input */
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "perfvisor vm-config: (standard input):"));
	tt_free(&r);

	r = tt_run("cat examples/demo/db.xml | " TOOL_BIN
		   " vm-config - examples/demo/web.xml -",
		   NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "perfvisor vm-config: '-' given twice: standard input "
				      "can be read once\n"));
	tt_free(&r);
}

/* The demo scenario through a pipe, its <vm file> paths made relative to the top of the tree:
 * the figures are those of the file. */
static void test_scenario_from_pipe(void **state)
{
	(void)state;
	static const char *const formats[] = {"domstats", "openmetrics"};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char cmd[512];
		snprintf(cmd, sizeof(cmd),
			 TOOL_BIN " stats --format %s examples/demo/scenario.xml", formats[i]);
		struct cmd_result file = tt_run(cmd, NULL);
		snprintf(cmd, sizeof(cmd),
			 "sed -e 's|<vm file=\"|<vm file=\"examples/demo/|' "
			 "examples/demo/scenario.xml | " TOOL_BIN " stats --format %s -",
			 formats[i]);
		struct cmd_result pipe = tt_run(cmd, NULL);
		assert_int_equal(file.status, 0);
		assert_int_equal(pipe.status, 0);
		assert_true(strlen(file.out) > 100);
		assert_string_equal(pipe.out, file.out);
		tt_free(&file);
		tt_free(&pipe);
	}

	/* without the edit, the domain files are looked for in the current directory */
	struct cmd_result r = tt_run(TOOL_BIN " run -",
				     "<scenario xmlns='http://perfvisor.invalid/"
				     "xmlns/scenario/1'><machine/>"
				     "<vm file='no-such-domain.xml'/></scenario>");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err,
			    "perfvisor run: no-such-domain.xml: cannot read: No such file "
			    "or directory\n");
	tt_free(&r);

	r = tt_run(TOOL_BIN " run -", "<scenario/>");
	assert_int_equal(r.status, 1);
	assert_non_null(
		strstr(r.err, "perfvisor run: (standard input):1: <scenario>: expected"));
	tt_free(&r);
}

static void test_spe_buffer_from_pipe(void **state)
{
	(void)state;
	/* Padding, then two End packets: two empty records at offsets 2 and 3 */
	struct cmd_result r = tt_run(
		"printf '\\000\\000\\001\\001' | " TOOL_BIN " spe-decode -", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "00000002 - events=-\n00000003 - events=-\n");
	tt_free(&r);
	r = tt_run("printf '\\000\\001\\007' | " TOOL_BIN " spe-decode -", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "00000001 - events=-\n");
	assert_non_null(strstr(r.err, "perfvisor spe-decode: (standard input): offset 0x2: "));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domain_from_pipe),
		cmocka_unit_test(test_domain_errors),
		cmocka_unit_test(test_scenario_from_pipe),
		cmocka_unit_test(test_spe_buffer_from_pipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
