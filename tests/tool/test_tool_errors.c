/* SPDX-License-Identifier: MIT */
/*
 * Bad input: malformed XML, unknown or contradictory elements, out-of-range values, more VMs
 * than PARTIDs, more perf events than host counters, more counters than the machine has.
 * Each is answered with one message naming the file, the line and the element, exit status
 * 1, and nothing on stdout (nothing half-printed, nothing run).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tooltest.h"

#define FX "tests/tool/fixtures/"

struct bad {
	const char *args;  /* after "perfvisor " */
	const char *where; /* "file:line: <element>:" expected in the message */
	const char *what;  /* and some of its words */
};

static const struct bad cases[] = {
	/* libvirt domain XML */
	{"vm-config " FX "malformed.xml", FX "malformed.xml:7: ",
	 "malformed XML: Opening and ending tag mismatch: memorytune line 5 and cputune"},
	{"vm-config " FX "not-a-domain.xml",
	 FX "not-a-domain.xml:1: <network>:", "expected a libvirt <domain>"},
	{"vm-config " FX "unknown-element.xml", FX "unknown-element.xml:7: <perfvisor:trace>:",
	 "unknown element in the perfvisor namespace"},
	{"vm-config " FX "unknown-attribute.xml",
	 FX "unknown-attribute.xml:6: <perfvisor:pmu>:", "unknown attribute 'overflow'"},
	{"vm-config " FX "counters-range.xml",
	 FX "counters-range.xml:6: <perfvisor:pmu>:", "counters='40' out of range (0..31)"},
	{"vm-config " FX "pmu-version.xml",
	 FX "pmu-version.xml:6: <perfvisor:pmu>:", "version='3p9' is not offered"},
	{"vm-config " FX "namespace-version.xml",
	 FX "namespace-version.xml:5: <perfvisor:vm>:", "is not one this perfvisor reads"},
	{"vm-config " FX "pmu-contradiction.xml",
	 FX "pmu-contradiction.xml:9: <perfvisor:pmu>:",
	 "contradicts <pmu state='off'> at line 5"},
	{"vm-config " FX "perf-without-pmu.xml",
	 FX "perf-without-pmu.xml:7: <perf>:", "leaves the VM without a PMU"},
	{"vm-config " FX "perf-duplicate.xml", FX "perf-duplicate.xml:7: <event>:",
	 "event 'instructions' appears twice (first at line 5)"},
	{"vm-config " FX "perf-unknown.xml",
	 FX "perf-unknown.xml:5: <event>:", "'cycles' is not a libvirt perf event"},
	{"vm-config " FX "bandwidth-range.xml",
	 FX "bandwidth-range.xml:6: <node>:", "bandwidth='150' out of range (1..100)"},
	{"vm-config " FX "monitor-outside.xml",
	 FX "monitor-outside.xml:7: <monitor>:", "vCPUs outside the <memorytune> they monitor"},
	{"vm-config " FX "vcpus-missing.xml", FX "vcpus-missing.xml:5: <cachetune>:",
	 "vCPUs 2-3 do not exist (the domain has 2 vCPUs)"},
	{"vm-config " FX "tunes-overlap.xml", FX "tunes-overlap.xml:8: <memorytune>:",
	 "partially overlap the <cachetune> at line 5"},
	{"vm-config " FX "no-such-file.xml", FX "no-such-file.xml: ", "cannot read"},
	/* all files are read before anything is printed: a good one first prints nothing */
	{"vm-config examples/demo/web.xml " FX "perf-unknown.xml",
	 FX "perf-unknown.xml:5: <event>:", "not a libvirt perf event"},
	/* libvirt connections */
	{"vm-config --connect test:///default --domain nosuch",
	 "test:///default: ", "no domain 'nosuch'"},
	{"vm-config --connect test:///nonexistent/node.xml",
	 "test:///nonexistent/node.xml: ", "cannot connect"},
	/* scenarios */
	{"run " FX "scen-no-namespace.xml", FX "scen-no-namespace.xml:1: <scenario>:",
	 "expected <scenario xmlns=\"http://perfvisor.invalid/xmlns/scenario/1\">"},
	{"run " FX "scen-unknown.xml",
	 FX "scen-unknown.xml:4: <workload>:", "unknown attribute 'speed'"},
	{"run " FX "scen-duration.xml",
	 FX "scen-duration.xml:3: <schedule>:", "duration='10 minutes' is not a time"},
	{"run " FX "scen-duplicate.xml", FX "scen-duplicate.xml:4: <vm>:",
	 "domain 'tuned-a' is already defined by the <vm> at line 3"},
	{"run " FX "scen-bad-domain.xml", FX "bandwidth-range.xml:6: <node>:", "out of range"},
	{"run " FX "scen-libvirt-missing.xml",
	 FX "scen-libvirt-missing.xml:3: <vm>:", "test:///default: no domain 'no-such-domain'"},
	{"run " FX "scen-partids.xml", FX "scen-partids.xml:6: <vm>:",
	 "domain 'tuned-c' needs a PARTID for its memorytune/cachetune, but the machine's 2 "
	 "PARTIDs are all taken"},
	{"run " FX "scen-host-counters.xml", FX "tuned-a.xml:11: <event>:",
	 "the domains enable 2 distinct perf events (cpu_cycles, instructions), but the "
	 "machine "
	 "reserves host-counters='1'"},
	{"stats " FX "scen-too-many-events.xml", FX "tuned-c.xml:10: <event>:",
	 "5 distinct perf events (cpu_cycles, instructions, cache_misses, "
	 "stalled_cycles_backend, "
	 "branch_misses), but the host can keep at most 4 counters"},
	{"run " FX "scen-pmu-counters.xml", FX "big-pmu.xml:6: <perfvisor:pmu>:",
	 "counters='8', but the machine leaves 6 of its 6 counters to guests"},
	{"run " FX "scen-pin.xml", FX "two-vcpus.xml:5: <vcpupin>:",
	 "vCPU 1 is pinned to host CPU 5, but the machine has 2 pCPUs"},
	{"run " FX "scen-node.xml",
	 FX "tuned-b.xml:6: <node>:", "memory node 3 does not exist on the machine"},
	{"run " FX "scen-guest-events.xml", FX "scen-guest-events.xml:4: <guest-pmu>:",
	 "4 events, but domain 'tuned-a' has 2 counters"},
	/* the machine's memory system and MPAM */
	{"run " FX "scen-bandwidth.xml", FX "scen-bandwidth.xml:3: <memory-node>:",
	 "bandwidth='fast' is not a bandwidth (e.g. '10GB/s', '800MB/s', '1.5GiB/s')"},
	{"run " FX "scen-mpam-node.xml",
	 FX "scen-mpam-node.xml:3: <memory-node>:", "id='9': MPAM numbers memory nodes 0..7"},
	{"run " FX "scen-workload-node.xml", FX "scen-workload-node.xml:4: <workload>:",
	 "memory-node='4' does not exist on the machine (<machine> at line 2)"},
	{"run " FX "scen-no-cache.xml",
	 "examples/demo/db.xml:11: <cache>:", "L3 cache 0 does not exist on the machine"},
	{"run " FX "scen-cache-full.xml", "examples/demo/db.xml:11: <cache>:",
	 "2048 KiB is 4 of the 8 portions of L3 cache 0, but only 2 are left"},
};

static void test_bad_input(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad *c = &cases[i];
		char cmd[512];
		snprintf(cmd, sizeof(cmd), TOOL_BIN " %s", c->args);
		struct cmd_result r = tt_run(cmd, NULL);
		unsigned lines = 0;
		for (const char *p = r.err; *p; p++)
			lines += *p == '\n';
		bool ok = r.status == 1 && r.out[0] == '\0' && strstr(r.err, c->where) &&
			  strstr(r.err, c->what) && lines == 1;
		if (!ok) {
			fprintf(stderr,
				"perfvisor %s\n  status %d, stdout %zu bytes, stderr: %s"
				"  expected status 1, no stdout, one line with '%s' ... '%s'\n",
				c->args, r.status, strlen(r.out), r.err, c->where, c->what);
			bad++;
		}
		tt_free(&r);
	}
	assert_int_equal(bad, 0);
}

/* Usage errors are status 2. */
static void test_usage(void **state)
{
	(void)state;
	static const char *const args[] = {"frobnicate",
					   "stats",
					   "stats --format xml x.xml",
					   "run --bogus x.xml",
					   "vm-config --connect x a.xml",
					   "demo extra"};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), TOOL_BIN " %s", args[i]);
		struct cmd_result r = tt_run(cmd, NULL);
		if (r.status != 2)
			fprintf(stderr, "perfvisor %s: status %d\n", args[i], r.status);
		assert_int_equal(r.status, 2);
		assert_string_equal(r.out, "");
		tt_free(&r);
	}
}

/* A perf event with no Arm equivalent is a warning, not an error. */
static void test_warning(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(
		TOOL_BIN " stats --format domstats examples/demo/scenario.xml", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err,
			       "perfvisor: warning: examples/demo/db.xml:25: "
			       "<event name='ref_cpu_cycles'>: no Arm PMUv3 equivalent"));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
