/* SPDX-License-Identifier: MIT */
/*
 * libvirt's cpuset syntax (cpuset_parse): each case is what libvirt itself made of the same
 * text in a domain's <vcpupin cpuset>, <vcpu cpuset> or <memorytune vcpus> (libvirt 9.0,
 * virDomainDefineXML on test:///default, the set read back from virDomainGetXMLDesc), or the
 * example of libvirt's domain XML documentation ("1-4,^3,6"). Then the same rules through a
 * domain file and a scenario's memory node.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tooltest.h"
#include "xmlutil.h"

struct cpuset_case {
	const char *text;
	uint64_t set;      /* what libvirt reads; 0: libvirt refuses the text */
	const char *error; /* then part of perfvisor's reason */
};

#define BIT(n) (UINT64_C(1) << (n))

static const struct cpuset_case cases[] = {
	/* the documentation's example: 1-4 without 3, and 6 */
	{"1-4,^3,6", BIT(1) | BIT(2) | BIT(4) | BIT(6), NULL},
	{"0-3,^2", BIT(0) | BIT(1) | BIT(3), NULL},
	/* exclusions apply in order: to what the entries before them set, not to later ones */
	{"^1,0-1", BIT(0) | BIT(1), NULL},
	{"0-1,^1", BIT(0), NULL},
	{"0-2,^1,1", BIT(0) | BIT(1) | BIT(2), NULL},
	/* blanks around numbers, '-' and ',' (tabs too), a trailing comma */
	{" 0 , 2 - 3 ", BIT(0) | BIT(2) | BIT(3), NULL},
	{"0 -3", 0xF, NULL},
	{"0- 3", 0xF, NULL},
	{"0,\t1", BIT(0) | BIT(1), NULL},
	{"0,", BIT(0), NULL},
	{"0, ", BIT(0), NULL},
	{"007", BIT(7), NULL},
	/* a range's end is read with strtol: a '+' is taken */
	{"0-+3", 0xF, NULL},
	/* an exclusion of a CPU the set cannot hold changes nothing */
	{"0,^100", BIT(0), NULL},
	/* what libvirt refuses */
	{"", 0, "it is empty"},
	{" ", 0, "it is empty"},
	{"0,,1", 0, "expected '^' or a number at ',1'"},
	{",0", 0, "expected '^' or a number at ',0'"},
	{"3-1", 0, "the range 3-1 ends before it starts"},
	{"0--1", 0, "the range '0-' has no end"},
	{"0-", 0, "the range '0-' has no end"},
	{"^ 1,0", 0, "expected a number at '^ 1,0'"},
	{"^1-2", 0, "'^1-': an exclusion takes one number, not a range"},
	{"1 2", 0, "unexpected '2' (entries are separated by commas)"},
	{"0x1", 0, "unexpected 'x1'"},
	{"-1", 0, "expected '^' or a number at '-1'"},
	{"+1", 0, "expected '^' or a number at '+1'"},
	{"16384", 0, "16384 is above 16383, the largest number libvirt accepts"},
	{"^20000,0", 0, "20000 is above 16383"},
	{"99999999999999999999999", 0, "is above 16383"},
	/* libvirt: "Invalid value of 'cpuset'" for an empty result */
	{"^0", 0, "it leaves no CPU in the set"},
	{"0,^0", 0, "it leaves no CPU in the set"},
};

static void test_libvirt_rules(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cpuset_case *c = &cases[i];
		uint64_t set = 0xDEAD;
		char why[160] = "";
		bool ok = cpuset_parse(c->text, 64, &set, why, sizeof(why));
		bool right = c->set ? ok && set == c->set
				    : !ok && set == 0xDEAD && strstr(why, c->error);
		if (!right) {
			fprintf(stderr, "'%s': %s 0x%llx (%s), expected %s 0x%llx (%s)\n",
				c->text, ok ? "set" : "refused", (unsigned long long)set, why,
				c->set ? "set" : "refused", (unsigned long long)c->set,
				c->error ? c->error : "");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* perfvisor's own limit: a set bit at or above it is refused, whatever came before. */
static void test_limit(void **state)
{
	(void)state;
	uint64_t set = 0;
	char why[160];
	assert_false(cpuset_parse("0-4", 4, &set, why, sizeof(why)));
	assert_string_equal(why, "4 is out of range (0..3)");
	/* set above the limit, then excluded again: libvirt's result, which fits */
	assert_true(cpuset_parse("0-4,^4", 4, &set, why, sizeof(why)));
	assert_int_equal(set, 0xF);
	assert_true(cpuset_parse("63", 64, &set, why, sizeof(why)));
	assert_int_equal(set, BIT(63));
	assert_false(cpuset_parse("64", 64, &set, why, sizeof(why)));
	assert_string_equal(why, "64 is out of range (0..63)");
	assert_false(cpuset_parse(NULL, 64, &set, why, sizeof(why)));
}

/* The rules where the tool reads them: a domain file, and the message when they are broken. */
static void test_in_domain_xml(void **state)
{
	(void)state;
	static const char *const domain = "<domain type='kvm'>\n"
					  "  <name>spaced</name>\n"
					  "  <vcpu>3</vcpu>\n"
					  "  <cputune>\n"
					  "    <vcpupin vcpu='0' cpuset='^1, 3 - 5'/>\n"
					  "    <vcpupin vcpu='1' cpuset='0-3,^0,^1,'/>\n"
					  "    <memorytune vcpus='^1,0-1'>\n"
					  "      <node id='0' bandwidth='50'/>\n"
					  "    </memorytune>\n"
					  "  </cputune>\n"
					  "</domain>\n";
	const char *path = tt_write_tmp("spaced.xml", domain);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " vm-config %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	static const char *const lines[] = {
		"  <vcpupin>                vCPU 0 runs on pCPU 3\n",
		"  <vcpupin>                vCPU 1 runs on pCPU 2\n",
		"  <memorytune vcpus=0-1>   PARTID of the VM for vCPUs 0-1\n",
	};
	assert_int_equal(tt_missing(r.out, lines, sizeof(lines) / sizeof(lines[0])), 0);
	tt_free(&r);

	static const char *const reversed = "<domain type='kvm'>\n"
					    "  <name>reversed</name>\n"
					    "  <vcpu>2</vcpu>\n"
					    "  <cputune>\n"
					    "    <vcpupin vcpu='0' cpuset='3-1'/>\n"
					    "  </cputune>\n"
					    "</domain>\n";
	path = tt_write_tmp("reversed.xml", reversed);
	snprintf(cmd, sizeof(cmd), TOOL_BIN " vm-config %s", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, ":5: <vcpupin>: cpuset='3-1' is not a set of host CPUs "
				      "(0..63): the range 3-1 ends before it starts\n"));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libvirt_rules),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_in_domain_xml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
