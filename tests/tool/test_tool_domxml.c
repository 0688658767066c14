/* SPDX-License-Identifier: MIT */
/*
 * libvirt domain XML -> struct domain: what each element becomes (domxml.c), from files and
 * from libvirt connections (the test driver: test:///default, and a node file holding the
 * demo's domains), and what `perfvisor vm-config` prints.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domxml.h"
#include "tooltest.h"
#include "virt.h"

static struct domain dom;

static void parse(const char *path)
{
	struct diag d;
	if (domxml_parse_file(path, &dom, &d))
		fprintf(stderr, "%s\n", d.msg);
	assert_string_equal(dom.origin, path);
	assert_true(dom.name[0] != '\0');
}

static void test_web(void **state)
{
	(void)state;
	parse("examples/demo/web.xml");
	assert_string_equal(dom.name, "web");
	assert_string_equal(dom.uuid, "8f0e6a52-3c1d-4b7e-9d2a-51c4e0a7b101");
	assert_int_equal(dom.vcpus, 2);
	assert_int_equal(dom.pin[0], 0);
	assert_int_equal(dom.pin[1], 1);
	assert_int_equal(dom.cfg.features, PV_FEAT_PMU | PV_FEAT_MPAM);
	assert_false(dom.pmu_version_auto);
	assert_false(dom.pmu_counters_auto);
	assert_int_equal(dom.cfg.pmu.version, PV_PMUVER_V3P5);
	assert_int_equal(dom.cfg.pmu.nr_counters, 4);
	/* cpu_cycles 0x11, instructions 0x08, branch_misses 0x10: an allow-list in two ranges */
	assert_int_equal(dom.cfg.pmu.nr_filters, 2);
	assert_int_equal(dom.cfg.pmu.filters[0].base_event, 0x08);
	assert_int_equal(dom.cfg.pmu.filters[0].nevents, 1);
	assert_int_equal(dom.cfg.pmu.filters[0].action, PV_PMU_FILTER_ALLOW);
	assert_int_equal(dom.cfg.pmu.filters[1].base_event, 0x10);
	assert_int_equal(dom.cfg.pmu.filters[1].nevents, 2);
	assert_int_equal(dom.perf[DOM_PERF_cmt], DOM_PERF_DISABLED);
	assert_int_equal(dom.perf[DOM_PERF_cpu_cycles], DOM_PERF_ENABLED);
	assert_int_equal(dom.perf[DOM_PERF_cache_misses], DOM_PERF_ABSENT);
	assert_true(domxml_perf_accounted(&dom, DOM_PERF_instructions));
	assert_false(domxml_perf_accounted(&dom, DOM_PERF_cmt));
	assert_int_equal(dom.nmemorytune, 1);
	assert_int_equal(dom.memorytune[0].vcpus, 0x3);
	assert_int_equal(dom.memorytune[0].nnodes, 1);
	assert_int_equal(dom.memorytune[0].node[0].id, 0);
	assert_int_equal(dom.memorytune[0].node[0].percent, 100);
	assert_int_equal(dom.memorytune[0].nmonitors, 1);
	assert_int_equal(dom.memorytune[0].monitor[0].vcpus, 0x3);
	assert_int_equal(dom.nwarn, 0);
	char name[32];
	domxml_monitor_name(dom.memorytune[0].monitor[0].vcpus, name, sizeof(name));
	assert_string_equal(name, "vcpus_0-1");
}

static void test_db(void **state)
{
	(void)state;
	parse("examples/demo/db.xml");
	assert_int_equal(dom.cfg.features, PV_FEAT_PMU | PV_FEAT_AMU | PV_FEAT_MPAM);
	assert_int_equal(dom.ncachetune, 1);
	assert_int_equal(dom.cachetune[0].cache[0].level, 3);
	assert_int_equal(dom.cachetune[0].cache[0].type, DOM_CACHE_BOTH);
	assert_int_equal(dom.cachetune[0].cache[0].bytes, 2 * 1024 * 1024);
	assert_int_equal(dom.memorytune[0].node[0].percent, 20);
	/* ref_cpu_cycles is enabled but has no Arm event: one warning, naming the line */
	assert_int_equal(dom.nwarn, 1);
	assert_non_null(
		strstr(dom.warn[0], "examples/demo/db.xml:25: <event name='ref_cpu_cycles'>"));
	assert_false(domxml_perf_accounted(&dom, DOM_PERF_ref_cpu_cycles));
}

/* No <perf>: no filter; only disabled events: a deny-list; no metadata: the machine's PMU. */
static void test_filters_and_defaults(void **state)
{
	(void)state;
	struct diag d;
	static const char *const xml[] = {
		"<domain type='kvm'><name>a</name></domain>",
		"<domain type='kvm'><name>b</name><vcpu current='2'>4</vcpu><perf>"
		"<event name='branch_misses' enabled='no'/><event name='cmt' enabled='no'/>"
		"</perf></domain>",
		"<domain type='kvm'><name>c</name><features><pmu state='off'/></features>"
		"<perf><event name='cmt' enabled='no'/></perf></domain>",
		"<domain type='kvm'><name>d</name><cputune><cachetune vcpus='0'>"
		"<cache id='1' level='2' type='data' "
		"size='512'/></cachetune></cputune></domain>",
	};
	assert_int_equal(domxml_parse_memory(xml[0], "a", &dom, &d), 0);
	assert_int_equal(dom.vcpus, 1);
	assert_int_equal(dom.pin[0], -1);
	assert_true(dom.pmu_version_auto && dom.pmu_counters_auto);
	assert_int_equal(dom.cfg.features, PV_FEAT_PMU);
	assert_int_equal(dom.cfg.pmu.nr_filters, 0);
	assert_string_equal(dom.uuid, "");

	assert_int_equal(domxml_parse_memory(xml[1], "b", &dom, &d), 0);
	assert_int_equal(dom.vcpus, 2);
	assert_int_equal(dom.cfg.pmu.nr_filters, 1);
	assert_int_equal(dom.cfg.pmu.filters[0].base_event, 0x10);
	assert_int_equal(dom.cfg.pmu.filters[0].action, PV_PMU_FILTER_DENY);

	assert_int_equal(domxml_parse_memory(xml[2], "c", &dom, &d), 0);
	assert_int_equal(dom.cfg.features, 0);

	/* a cache size without unit is in KiB, as libvirt reads it */
	assert_int_equal(domxml_parse_memory(xml[3], "d", &dom, &d), 0);
	assert_int_equal(dom.cachetune[0].cache[0].bytes, 512 * 1024);
	assert_int_equal(dom.cachetune[0].cache[0].type, DOM_CACHE_DATA);
	assert_int_equal(dom.cfg.features, PV_FEAT_PMU | PV_FEAT_MPAM);
}

/* A failed parse leaves nothing behind. */
static void test_nothing_half_filled(void **state)
{
	(void)state;
	struct diag d;
	assert_int_equal(domxml_parse_file("tests/tool/fixtures/perf-duplicate.xml", &dom, &d),
			 -1);
	assert_string_equal(dom.name, "");
	assert_int_equal(dom.cfg.features, 0);
	assert_int_equal(dom.vcpus, 0);
	assert_non_null(strstr(d.msg, "perf-duplicate.xml:7: <event>:"));
}

/* libvirt's test driver with no daemon: its built-in domain, and the demo's node file. */
static void test_libvirt(void **state)
{
	(void)state;
	struct domain *doms = calloc(8, sizeof(*doms));
	assert_non_null(doms);
	struct diag d;
	unsigned n = 0;
	assert_int_equal(virt_load(VIRT_DEFAULT_URI, NULL, 0, doms, 8, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(doms[0].name, "test");
	assert_int_equal(doms[0].vcpus, 2);
	assert_string_equal(doms[0].origin, "test:///default (domain test)");

	char path[PATH_MAX], uri[PATH_MAX + 16];
	assert_non_null(realpath("examples/libvirt-test-node.xml", path));
	snprintf(uri, sizeof(uri), "test://%s", path);
	assert_int_equal(virt_load(uri, NULL, 0, doms, 8, &n, &d), 0);
	assert_int_equal(n, 4);
	/* What libvirt gives back parses to the same configuration as the files. */
	static const char *const files[] = {"examples/demo/web.xml", "examples/demo/db.xml",
					    "examples/demo/batch.xml",
					    "examples/demo/branchy.xml"};
	for (unsigned i = 0; i < 4; i++) {
		parse(files[i]);
		const struct domain *v = NULL;
		for (unsigned k = 0; k < n; k++)
			if (!strcmp(doms[k].name, dom.name))
				v = &doms[k];
		assert_non_null(v);
		assert_string_equal(v->uuid, dom.uuid);
		assert_int_equal(v->vcpus, dom.vcpus);
		assert_memory_equal(&v->cfg, &dom.cfg, sizeof(dom.cfg));
		assert_memory_equal(v->perf, dom.perf, sizeof(dom.perf));
		assert_memory_equal(v->pin, dom.pin, sizeof(dom.pin));
		assert_int_equal(v->nmemorytune, dom.nmemorytune);
		assert_int_equal(v->ncachetune, dom.ncachetune);
		for (unsigned k = 0; k < dom.nmemorytune; k++) {
			assert_int_equal(v->memorytune[k].vcpus, dom.memorytune[k].vcpus);
			assert_int_equal(v->memorytune[k].nnodes, dom.memorytune[k].nnodes);
			assert_int_equal(v->memorytune[k].nmonitors,
					 dom.memorytune[k].nmonitors);
		}
		for (unsigned k = 0; k < dom.ncachetune; k++)
			assert_int_equal(v->cachetune[k].cache[0].bytes,
					 dom.cachetune[k].cache[0].bytes);
	}
	static const char *const one[] = {"batch"};
	assert_int_equal(virt_load(uri, one, 1, doms, 8, &n, &d), 0);
	assert_int_equal(n, 1);
	assert_string_equal(doms[0].name, "batch");
	free(doms);
}

/* What vm-config prints, for files and for a connection. */
static void test_vm_config(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(
		TOOL_BIN " vm-config examples/demo/web.xml examples/demo/branchy.xml", NULL);
	assert_int_equal(r.status, 0);
	static const char *const lines[] = {
		"domain web\n",
		"  pmu                      PMUv3p5, PMCR_EL0.N = 4 counters\n",
		"  <perf>                   cmt=no -> no Arm PMUv3 event",
		"cpu_cycles=yes -> CPU_CYCLES 0x11 offered; host counts perf.cpu_cycles\n",
		"  event filter             ALLOW 0x08  (first range ALLOW: the rest denied)\n",
		"                           ALLOW 0x10-0x11\n",
		"  <memorytune vcpus=0-1>   PARTID of the VM for vCPUs 0-1\n",
		"memory node 0: at most 100% of its bandwidth (MBW_MAX)\n",
		"bandwidth monitor vcpus_0-1 (vCPUs 0-1): bytes per memory node\n",
		"  pv_vm_config.features    PV_FEAT_PMU PV_FEAT_MPAM\n",
		"\ndomain branchy\n",
		"branch_instructions=no -> BR_RETIRED 0x21 not offered\n",
		"bus_cycles=yes -> BUS_CYCLES 0x1D offered; host counts perf.bus_cycles\n",
	};
	assert_int_equal(tt_missing(r.out, lines, sizeof(lines) / sizeof(lines[0])), 0);
	tt_free(&r);

	r = tt_run(TOOL_BIN " vm-config", NULL); /* test:///default */
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(
		r.out,
		"domain test\n  from                     test:///default (domain test)\n"));
	assert_non_null(strstr(r.out, "<perf>                   absent: every event allowed"));
	tt_free(&r);

	r = tt_run(TOOL_BIN " vm-config --connect test://$PWD/examples/libvirt-test-node.xml "
			    "--domain db",
		   NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "domain db\n"));
	assert_non_null(strstr(r.out, "L3 cache 0 (both): 2048 KiB of cache portions (CPBM)"));
	assert_non_null(strstr(r.out, "warning: test:///"));
	assert_null(strstr(r.out, "domain web"));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web),
		cmocka_unit_test(test_db),
		cmocka_unit_test(test_filters_and_defaults),
		cmocka_unit_test(test_nothing_half_filled),
		cmocka_unit_test(test_libvirt),
		cmocka_unit_test(test_vm_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
