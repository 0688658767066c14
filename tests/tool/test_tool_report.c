/* SPDX-License-Identifier: MIT */
/*
 * The report formats on a hand-made report that carries every kind of figure, including the
 * ones the SPE/AMU/MPAM hooks will fill once those modules land (memory bandwidth per monitor
 * and node, AMU counters): exact libvirt domstats key names, OpenMetrics families with their
 * types and units as the Prometheus client parses them, and the same figures in JSON.
 * No run is involved: the numbers are this test's own, they are never shown to a user.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tooltest.h"

static struct domain def;
static struct rep_domain dom[2];
static struct report rep;

static void build(void)
{
	memset(&def, 0, sizeof(def));
	def.nmemorytune = 1;
	def.memorytune[0] = (struct dom_memorytune){.vcpus = 0x3, .nnodes = 2,
						    .node = {{.id = 0, .percent = 30},
							     {.id = 2, .percent = 60}}};
	memset(dom, 0, sizeof(dom));
	struct rep_domain *d = &dom[0];
	snprintf(d->name, sizeof(d->name), "tenant \"a\"");
	d->nvcpus = 2;
	d->pmu = true;
	d->pmu_version = PV_PMUVER_V3P5;
	d->pmu_counters = 2;
	d->def = &def;
	d->limits_enforced = true;
	d->nperf = 2;
	d->perf[0] = (struct rep_perf){.event = DOM_PERF_cpu_cycles, .state = REP_MEASURED,
				       .value = 1000};
	d->perf[1] = (struct rep_perf){.event = DOM_PERF_cmt, .state = REP_NOT_OFFERED,
				       .why = "no Arm event"};
	for (unsigned c = 0; c < 2; c++) {
		d->vcpu[c] = (struct rep_vcpu){.id = c, .pcpu = c, .ncounters = 1,
					       .amu_measured = true,
					       .amu = {10 + c, 20 + c, 30 + c, 40 + c}};
		d->vcpu[c].counter[0] = (struct rep_counter){.index = REP_CYCLE_COUNTER,
							     .event = PV_EVT_CPU_CYCLES,
							     .value = 500 + c};
	}
	d->amu.state = REP_MEASURED;
	d->mpam.state = REP_MEASURED;
	d->spe = (struct rep_feature){.state = REP_NOT_OFFERED, .why = "not yet"};
	d->nmonitors = 2;
	d->monitor[0] = (struct rep_bw_monitor){
		.name = "vcpus_0", .vcpus = 0x1, .nnodes = 2,
		.node = {{.id = 0, .bytes_total = 4000, .has_local = true, .bytes_local = 3000},
			 {.id = 2, .bytes_total = 1000, .has_local = true, .bytes_local = 0}}};
	d->monitor[1] = (struct rep_bw_monitor){.name = "vcpus_1", .vcpus = 0x2, .nnodes = 1,
						.node = {{.id = 2, .bytes_total = 8000}}};
	snprintf(dom[1].name, sizeof(dom[1].name), "empty");
	dom[1].nvcpus = 1;
	rep = (struct report){.scenario = "synthetic", .source = "none", .cpus = 2, .mhz = 1000,
			      .pmu_version = PV_PMUVER_V3P5, .pmu_counters = 6, .seconds = 0.5,
			      .ndomains = 2, .domain = dom};
}

static char *render(enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_non_null(out);
	report_print(&rep, f, out);
	fclose(out);
	return buf;
}

static struct cmd_result parse(const char *fmt, const char *text)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), PARSE " %s", fmt);
	struct cmd_result r = tt_run(cmd, text);
	if (r.status)
		fprintf(stderr, "%s: %s\n%s", cmd, r.err, text);
	assert_int_equal(r.status, 0);
	return r;
}

/* The figures every format must carry, in parse.py's normalized names. */
static void want(struct figs *w, const char *fmt)
{
	const char *a = "tenant \"a\"";
	const char *p = "memory.bandwidth.monitor";
	bool domstats = !strcmp(fmt, "domstats"), json = !strcmp(fmt, "json");
	tt_figs_add(w, a, "perf.cpu_cycles", "1000");
	if (domstats)
		tt_figs_add(w, a, "memory.bandwidth.monitor.count", "2");
	tt_figs_add(w, a, "memory.bandwidth.monitor.0.name", "vcpus_0");
	tt_figs_add(w, a, "memory.bandwidth.monitor.0.vcpus", "0");
	tt_figs_add(w, a, "memory.bandwidth.monitor.1.name", "vcpus_1");
	tt_figs_add(w, a, "memory.bandwidth.monitor.1.vcpus", "1");
	char key[96];
	static const struct {
		unsigned mon, idx, id;
		const char *total, *local, *rate;
	} nodes[] = {{0, 0, 0, "4000", "3000", "8000"},
		     {0, 1, 2, "1000", "0", "2000"},
		     {1, 0, 2, "8000", NULL, "16000"}};
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		unsigned m = nodes[i].idx;
		snprintf(key, sizeof(key), "%s.%u.node.%u.bytes.total", p, nodes[i].mon, m);
		tt_figs_add(w, a, key, nodes[i].total);
		if (nodes[i].local) {
			snprintf(key, sizeof(key), "%s.%u.node.%u.bytes.local", p, nodes[i].mon, m);
			tt_figs_add(w, a, key, nodes[i].local);
		}
		if (!domstats) { /* over the run's 0.5 s */
			snprintf(key, sizeof(key), "%s.%u.node.%u.bytes_per_second", p, nodes[i].mon, m);
			tt_figs_add(w, a, key, nodes[i].rate);
		}
		snprintf(key, sizeof(key), "%s.%u.node.%u.id", p, nodes[i].mon, m);
		char id[8];
		snprintf(id, sizeof(id), "%u", nodes[i].id);
		tt_figs_add(w, a, key, id);
	}
	if (domstats || json) { /* OpenMetrics has no count */
		tt_figs_add(w, a, "memory.bandwidth.monitor.0.node.count", "2");
		tt_figs_add(w, a, "memory.bandwidth.monitor.1.node.count", "1");
	}
}

/* domstats: exactly libvirt's keys, in libvirt's order, and nothing else. */
static void test_domstats(void **state)
{
	(void)state;
	build();
	char *text = render(FMT_DOMSTATS);
	static const char expected[] =
		"Domain: 'tenant \"a\"'\n"
		"  perf.cpu_cycles=1000\n"
		"  memory.bandwidth.monitor.count=2\n"
		"  memory.bandwidth.monitor.0.name=vcpus_0\n"
		"  memory.bandwidth.monitor.0.vcpus=0\n"
		"  memory.bandwidth.monitor.0.node.count=2\n"
		"  memory.bandwidth.monitor.0.node.0.id=0\n"
		"  memory.bandwidth.monitor.0.node.0.bytes.local=3000\n"
		"  memory.bandwidth.monitor.0.node.0.bytes.total=4000\n"
		"  memory.bandwidth.monitor.0.node.1.id=2\n"
		"  memory.bandwidth.monitor.0.node.1.bytes.local=0\n"
		"  memory.bandwidth.monitor.0.node.1.bytes.total=1000\n"
		"  memory.bandwidth.monitor.1.name=vcpus_1\n"
		"  memory.bandwidth.monitor.1.vcpus=1\n"
		"  memory.bandwidth.monitor.1.node.count=1\n"
		"  memory.bandwidth.monitor.1.node.0.id=2\n"
		"  memory.bandwidth.monitor.1.node.0.bytes.total=8000\n"
		"\n"
		"Domain: 'empty'\n"
		"\n";
	assert_string_equal(text, expected);
	tt_require_parsers();
	struct cmd_result r = parse("domstats", text);
	struct figs got = {0}, w = {0};
	tt_figs_parse(&got, r.out);
	want(&w, "domstats");
	static const char *const all[] = {"", NULL};
	assert_int_equal(tt_figs_compare(&w, &got, "domstats", all), 0);
	tt_figs_free(&got);
	tt_figs_free(&w);
	tt_free(&r);
	free(text);
}

static void test_json(void **state)
{
	(void)state;
	tt_require_parsers();
	build();
	char *text = render(FMT_JSON);
	struct cmd_result r = parse("json", text);
	struct figs got = {0}, w = {0};
	tt_figs_parse(&got, r.out);
	want(&w, "json");
	const char *a = "tenant \"a\"";
	tt_figs_add(&w, a, "vcpu.1.PMCCNTR.CPU_CYCLES", "501");
	tt_figs_add(&w, a, "vcpu.0.amu.cpu_cycles", "10");
	tt_figs_add(&w, a, "vcpu.1.amu.stall_backend_mem", "41");
	tt_figs_add(&w, a, "feature.spe", "not offered");
	tt_figs_add(&w, a, "feature.amu", "measured");
	static const char *const watched[] = {"perf.", "memory.", NULL};
	assert_int_equal(tt_figs_compare(&w, &got, "json", watched), 0);
	/* the rate and the limits */
	assert_non_null(strstr(text, "\"bytes_per_second\": 8000.0}"));
	assert_non_null(strstr(text, "\"limits\": {\"applied\": true, \"memorytune\": [{\"vcpus\": "
				     "\"0-1\", \"nodes\": [{\"id\": 0, \"bandwidth_percent\": 30}"));
	assert_non_null(strstr(text, "\"cmt\": {\"state\": \"not offered\", \"reason\": \"no Arm "
				     "event\"}"));
	tt_figs_free(&got);
	tt_figs_free(&w);
	tt_free(&r);
	free(text);
}

static void test_openmetrics(void **state)
{
	(void)state;
	tt_require_parsers();
	build();
	char *text = render(FMT_OPENMETRICS);
	struct cmd_result r = parse("openmetrics", text);
	struct figs got = {0}, w = {0};
	tt_figs_parse(&got, r.out);
	want(&w, "openmetrics");
	static const char *const watched[] = {"perf.", "memory.", NULL};
	assert_int_equal(tt_figs_compare(&w, &got, "openmetrics", watched), 0);
	tt_figs_free(&got);
	tt_figs_free(&w);
	static const char *const families[] = {
		"#family\tperfvisor_domain_memory_bandwidth_bytes\tcounter\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_local_bytes\tcounter\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_bytes_per_second\tgauge\tbytes_per_second\n",
		"#family\tperfvisor_domain_memory_bandwidth_limit_ratio\tgauge\tratio\n",
		"#family\tperfvisor_vcpu_amu_events\tcounter\t\n",
		"#family\tperfvisor_domain_perf_events\tcounter\t\n",
	};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (!strstr(r.out, families[i]))
			fprintf(stderr, "missing %s in\n%s", families[i], r.out);
		assert_non_null(strstr(r.out, families[i]));
	}
	/* Label values escaped; node labelled by its id; a rate over the run's 0.5 s. */
	assert_non_null(strstr(text, "perfvisor_domain_memory_bandwidth_bytes_total{domain=\"tenant "
				     "\\\"a\\\"\",monitor=\"vcpus_0\",vcpus=\"0\",node=\"2\"} 1000\n"));
	assert_non_null(strstr(text, "perfvisor_domain_memory_bandwidth_bytes_per_second{domain="
				     "\"tenant \\\"a\\\"\",monitor=\"vcpus_1\",vcpus=\"1\",node=\"2\"} "
				     "16000.0\n"));
	assert_non_null(strstr(text, "perfvisor_domain_memory_bandwidth_limit_ratio{domain=\"tenant "
				     "\\\"a\\\"\",vcpus=\"0-1\",node=\"2\"} 0.60\n"));
	assert_non_null(strstr(text, "perfvisor_vcpu_amu_events_total{domain=\"tenant \\\"a\\\"\","
				     "vcpu=\"1\",counter=\"inst_retired\"} 31\n"));
	assert_non_null(strstr(r.out, "tenant \"a\"\tfeature.amu\tmeasured\n"));
	/* the second domain has no figures at all, only its info line */
	assert_non_null(strstr(text, "perfvisor_domain_info{domain=\"empty\""));
	assert_true(strlen(text) > 6 && !strcmp(text + strlen(text) - 6, "# EOF\n"));
	tt_free(&r);
	free(text);
}

static void test_table(void **state)
{
	(void)state;
	build();
	char *text = render(FMT_TABLE);
	assert_non_null(strstr(text, "MEMORY BANDWIDTH (per monitor and memory node)\n"));
	assert_non_null(strstr(text, "tenant \"a\"  vcpus_1     2   8000            -    16000\n"));
	assert_non_null(strstr(text, "AMU (each vCPU's activity monitors)\n"));
	assert_non_null(strstr(text, "memory node 2  60% of its bandwidth  yes\n"));
	assert_non_null(strstr(text, "tenant \"a\": SPE not offered: not yet\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domstats),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
