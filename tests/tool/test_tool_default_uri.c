/* SPDX-License-Identifier: MIT */
/*
 * LIBVIRT_DEFAULT_URI, as virsh honours it: the connection when none is named. An explicit
 * --connect wins over it, and so does a scenario's own <libvirt>; unset or empty, the default
 * is test:///default. The connections are libvirt's test driver, in the tool's own process:
 * test:///default and the demo's node file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tooltest.h"
#include "virt.h"

#define NODE_URI "test://$PWD/examples/libvirt-test-node.xml"
#define WITH_NODE "LIBVIRT_DEFAULT_URI=" NODE_URI " "

static void test_default_uri(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("LIBVIRT_DEFAULT_URI"), 0);
	assert_string_equal(virt_default_uri(), "test:///default");
	assert_int_equal(setenv("LIBVIRT_DEFAULT_URI", "", 1), 0);
	assert_string_equal(virt_default_uri(), "test:///default");
	assert_int_equal(setenv("LIBVIRT_DEFAULT_URI", "test:///any/node.xml", 1), 0);
	assert_string_equal(virt_default_uri(), "test:///any/node.xml");
	assert_int_equal(unsetenv("LIBVIRT_DEFAULT_URI"), 0);
}

static void test_vm_config(void **state)
{
	(void)state;
	/* the node file's domains, not test:///default's "test" */
	struct cmd_result r = tt_run(WITH_NODE TOOL_BIN " vm-config", NULL);
	assert_int_equal(r.status, 0);
	static const char *const names[] = {"domain web\n", "domain db\n", "domain batch\n",
					    "domain branchy\n",
					    "/examples/libvirt-test-node.xml "
					    "(domain db)\n"};
	assert_int_equal(tt_missing(r.out, names, sizeof(names) / sizeof(names[0])), 0);
	assert_null(strstr(r.out, "domain test\n"));
	tt_free(&r);

	r = tt_run(WITH_NODE TOOL_BIN " vm-config --domain db", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "domain db\n"));
	assert_null(strstr(r.out, "domain web\n"));
	tt_free(&r);

	/* --connect wins, short or long */
	r = tt_run(WITH_NODE TOOL_BIN " vm-config --connect test:///default --domain db", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "perfvisor vm-config: test:///default: no domain 'db'\n");
	tt_free(&r);
	r = tt_run(WITH_NODE TOOL_BIN " vm-config -c test:///default", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "domain test\n  from                     test:///default "
				      "(domain test)\n"));
	tt_free(&r);

	/* empty is unset */
	r = tt_run("LIBVIRT_DEFAULT_URI= " TOOL_BIN " vm-config", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "domain test\n"));
	tt_free(&r);

	/* a connection that cannot be opened is named in the message */
	r = tt_run("LIBVIRT_DEFAULT_URI=test:///nonexistent/node.xml " TOOL_BIN " vm-config",
		   NULL);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "perfvisor vm-config: test:///nonexistent/node.xml: "
				      "cannot connect"));
	tt_free(&r);
}

/* scenario-libvirt.xml without its <libvirt>: the domains come from wherever the environment
 * says; with it, the scenario's connection is used whatever the environment says. */
static void test_scenario(void **state)
{
	(void)state;
	struct cmd_result want = tt_run(
		TOOL_BIN " stats --format domstats examples/demo/scenario-libvirt.xml", NULL);
	assert_int_equal(want.status, 0);

	struct cmd_result r = tt_run("grep -v '<libvirt ' examples/demo/scenario-libvirt.xml "
				     "| " WITH_NODE TOOL_BIN " stats --format domstats -",
				     NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, want.out);
	tt_free(&r);

	r = tt_run("grep -v '<libvirt ' examples/demo/scenario-libvirt.xml | " TOOL_BIN
		   " stats --format domstats -",
		   NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "(standard input):12: <vm>: test:///default: no domain "
				      "'web'"));
	tt_free(&r);

	/* --connect wins over the environment */
	r = tt_run("grep -v '<libvirt ' examples/demo/scenario-libvirt.xml | "
		   "LIBVIRT_DEFAULT_URI=test:///default " TOOL_BIN
		   " stats --format domstats --connect " NODE_URI " -",
		   NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, want.out);
	tt_free(&r);

	/* the scenario's <libvirt> wins over the environment */
	r = tt_run("LIBVIRT_DEFAULT_URI=test:///nonexistent/node.xml " TOOL_BIN
		   " stats --format domstats examples/demo/scenario-libvirt.xml",
		   NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, want.out);
	tt_free(&r);
	tt_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_uri),
		cmocka_unit_test(test_vm_config),
		cmocka_unit_test(test_scenario),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
