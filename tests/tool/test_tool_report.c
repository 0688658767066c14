/* SPDX-License-Identifier: MIT */
/*
 * The report formats on a hand-made report that carries every kind of figure, including some
 * no run of the demo produces (an estimate with its bound, bytes.local estimated, a node whose
 * monitor is not ready, a local figure not ready beside a total): exact libvirt domstats key
 * names, OpenMetrics families with their types and
 * units as the Prometheus client parses them, and the same figures in JSON and the table.
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
	def.memorytune[0] = (struct dom_memorytune){
		.vcpus = 0x3,
		.nnodes = 2,
		.node = {{.id = 0, .percent = 30}, {.id = 2, .percent = 60}}};
	memset(dom, 0, sizeof(dom));
	struct rep_domain *d = &dom[0];
	snprintf(d->name, sizeof(d->name), "tenant \"a\"");
	d->nvcpus = 2;
	d->pmu = true;
	d->pmu_version = PV_PMUVER_V3P5;
	d->pmu_counters = 2;
	d->def = &def;
	d->limits_enforced = true;
	d->memorytune_applied[0] = true;
	d->nperf = 2;
	d->perf[0] = (struct rep_perf){
		.event = DOM_PERF_cpu_cycles, .state = REP_MEASURED, .value = 1000};
	d->perf[1] = (struct rep_perf){
		.event = DOM_PERF_cmt, .state = REP_NOT_OFFERED, .why = "no Arm event"};
	for (unsigned c = 0; c < 2; c++) {
		d->vcpu[c] = (struct rep_vcpu){.id = c,
					       .pcpu = c,
					       .ncounters = 1,
					       .amu_measured = true,
					       .amu = {10 + c, 20 + c, 30 + c, 40 + c},
					       .amu_mhz = 1000.0 + c};
		d->vcpu[c].counter[0] = (struct rep_counter){.index = REP_CYCLE_COUNTER,
							     .event = PV_EVT_CPU_CYCLES,
							     .value = 500 + c};
	}
	d->amu.state = REP_MEASURED;
	d->mpam.state = REP_MEASURED;
	d->spe = (struct rep_feature){.state = REP_NOT_OFFERED, .why = "not yet"};
	d->nmonitors = 2;
	d->monitor[0] = (struct rep_bw_monitor){.name = "vcpus_0",
						.vcpus = 0x1,
						.nnodes = 2,
						.node = {{.id = 0,
							  .bytes_total = 4000,
							  .bytes_per_s = 8000,
							  .has_local = true,
							  .bytes_local = 3000,
							  .limit_percent = 30},
							 {.id = 2,
							  .bytes_total = 1000,
							  .bytes_per_s = 2000,
							  .local_status = REP_BW_NOT_READY,
							  .limit_percent = 60}}};
	d->monitor[1] = (struct rep_bw_monitor){.name = "vcpus_1",
						.vcpus = 0x2,
						.nnodes = 2,
						.node = {{.id = 2,
							  .status = REP_BW_ESTIMATED,
							  .bytes_total = 8000,
							  .bound = 500,
							  .bytes_per_s = 16000,
							  .bound_per_s = 1000,
							  .local_status = REP_BW_ESTIMATED,
							  .has_local = true,
							  .bytes_local = 5000,
							  .local_bound = 700},
							 {.id = 3,
							  .status = REP_BW_NOT_READY,
							  .local_status = REP_BW_NOT_READY}}};
	snprintf(dom[1].name, sizeof(dom[1].name), "empty");
	dom[1].nvcpus = 1;
	rep = (struct report){.scenario = "synthetic",
			      .source = "none",
			      .cpus = 2,
			      .mhz = 1000,
			      .pmu_version = PV_PMUVER_V3P5,
			      .pmu_counters = 6,
			      .seconds = 0.5,
			      .amu = true,
			      .mpam = true,
			      .partids = 8,
			      .bw_monitors = 2,
			      .pmgs = 4,
			      .local_counted = true,
			      .nnodes = 3,
			      .node = {{0, 0x1, 10000}, {2, 0x2, 20000}, {3, 0, 30000}},
			      .ndomains = 2,
			      .domain = dom};
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
		const char *status, *total, *local, *rate, *bound, *local_bound, *local_status;
	} nodes[] = {{0, 0, 0, "measured", "4000", "3000", "8000", "0", "0", "measured"},
		     {0, 1, 2, "measured", "1000", NULL, "2000", "0", NULL, "not ready"},
		     {1, 0, 2, "estimated", "8000", "5000", "16000", "500", "700", "estimated"},
		     {1, 1, 3, "not ready", NULL, NULL, NULL, NULL, NULL, "not ready"}};
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		unsigned m = nodes[i].idx;
		if (!nodes[i].total && !json && !domstats)
			continue; /* OpenMetrics: no sample, so no trace of the node */
		snprintf(key, sizeof(key), "%s.%u.node.%u.id", p, nodes[i].mon, m);
		char id[8];
		snprintf(id, sizeof(id), "%u", nodes[i].id);
		tt_figs_add(w, a, key, id);
		if (json) {
			snprintf(key, sizeof(key), "%s.%u.node.%u.status", p, nodes[i].mon, m);
			tt_figs_add(w, a, key, nodes[i].status);
			snprintf(key, sizeof(key), "%s.%u.node.%u.local_status", p,
				 nodes[i].mon, m);
			tt_figs_add(w, a, key, nodes[i].local_status);
		}
		if (!nodes[i].total)
			continue; /* not ready: no number in any format */
		snprintf(key, sizeof(key), "%s.%u.node.%u.bytes.total", p, nodes[i].mon, m);
		tt_figs_add(w, a, key, nodes[i].total);
		if (nodes[i].local) {
			snprintf(key, sizeof(key), "%s.%u.node.%u.bytes.local", p, nodes[i].mon,
				 m);
			tt_figs_add(w, a, key, nodes[i].local);
		}
		if (!domstats) { /* libvirt has no key for these */
			/* the metrics formats leave rates to Prometheus' rate() */
			if (strcmp(fmt, "openmetrics")) {
				snprintf(key, sizeof(key), "%s.%u.node.%u.bytes_per_second", p,
					 nodes[i].mon, m);
				tt_figs_add(w, a, key, nodes[i].rate);
			}
			snprintf(key, sizeof(key), "%s.%u.node.%u.bound", p, nodes[i].mon, m);
			tt_figs_add(w, a, key, nodes[i].bound);
			if (nodes[i].local_bound) {
				snprintf(key, sizeof(key), "%s.%u.node.%u.local_bound", p,
					 nodes[i].mon, m);
				tt_figs_add(w, a, key, nodes[i].local_bound);
			}
		}
	}
	if (domstats || json) { /* OpenMetrics has no count */
		tt_figs_add(w, a, "memory.bandwidth.monitor.0.node.count", "2");
		tt_figs_add(w, a, "memory.bandwidth.monitor.1.node.count", "2");
	}
}

/* domstats: exactly libvirt's keys, in libvirt's order, and nothing else. */
static void test_domstats(void **state)
{
	(void)state;
	build();
	char *text = render(FMT_DOMSTATS);
	static const char expected[] = "Domain: 'tenant \"a\"'\n"
				       "  perf.cpu_cycles=1000\n"
				       "  memory.bandwidth.monitor.count=2\n"
				       "  memory.bandwidth.monitor.0.name=vcpus_0\n"
				       "  memory.bandwidth.monitor.0.vcpus=0\n"
				       "  memory.bandwidth.monitor.0.node.count=2\n"
				       "  memory.bandwidth.monitor.0.node.0.id=0\n"
				       "  memory.bandwidth.monitor.0.node.0.bytes.local=3000\n"
				       "  memory.bandwidth.monitor.0.node.0.bytes.total=4000\n"
				       "  memory.bandwidth.monitor.0.node.1.id=2\n"
				       "  memory.bandwidth.monitor.0.node.1.bytes.total=1000\n"
				       "  memory.bandwidth.monitor.1.name=vcpus_1\n"
				       "  memory.bandwidth.monitor.1.vcpus=1\n"
				       "  memory.bandwidth.monitor.1.node.count=2\n"
				       "  memory.bandwidth.monitor.1.node.0.id=2\n"
				       "  memory.bandwidth.monitor.1.node.0.bytes.local=5000\n"
				       "  memory.bandwidth.monitor.1.node.0.bytes.total=8000\n"
				       "  memory.bandwidth.monitor.1.node.1.id=3\n"
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
	tt_figs_add(&w, a, "vcpu.1.PMCCNTR.cpu_cycles", "501");
	tt_figs_add(&w, a, "vcpu.0.amu.cpu_cycles", "10");
	tt_figs_add(&w, a, "vcpu.1.amu.stall_backend_mem", "41");
	tt_figs_add(&w, a, "vcpu.1.amu.mhz", "1001");
	tt_figs_add(&w, a, "feature.spe", "not offered");
	tt_figs_add(&w, a, "feature.amu", "measured");
	static const char *const watched[] = {"perf.", "memory.", NULL};
	assert_int_equal(tt_figs_compare(&w, &got, "json", watched), 0);
	/* the rate, the bound, the cap in force, the limits, the machine */
	assert_non_null(strstr(text,
			       "{\"id\": 2, \"status\": \"estimated\", \"bytes_total\": 8000, "
			       "\"bound_bytes\": 500, \"bytes_per_second\": 16000, "
			       "\"bound_bytes_per_second\": 1000, \"bytes_local\": 5000, "
			       "\"local_bound_bytes\": 700, \"local_status\": \"estimated\"}"));
	assert_non_null(strstr(text, "{\"id\": 3, \"status\": \"not ready\", \"local_status\": "
				     "\"not ready\"}"));
	assert_non_null(strstr(text, "\"bytes_local\": 3000, \"local_bound_bytes\": 0, "
				     "\"local_status\": \"measured\", \"limit_percent\": 30}"));
	assert_non_null(strstr(text,
			       "\"limits\": {\"applied\": true, \"memorytune\": [{\"vcpus\": "
			       "\"0-1\", \"applied\": true, \"nodes\": [{\"id\": 0, "
			       "\"bandwidth_percent\": 30}"));
	assert_non_null(
		strstr(text, "\"amu\": true, \"spe\": null, \"mpam\": {\"partids\": 8, "
			     "\"pmgs\": 4, \"bandwidth_monitors\": 2, \"local_bytes\": true}, "
			     "\"memory_nodes\": [{\"id\": 0, \"cpus\": "
			     "\"0\", \"bandwidth_bytes_per_second\": 10000}"));
	assert_non_null(strstr(text,
			       "\"cmt\": {\"state\": \"not offered\", \"reason\": \"no Arm "
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
		"#family\tperfvisor_domain_memory_bandwidth_bound_bytes\tgauge\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_local_bound_bytes\tgauge\tbytes\n",
		"#family\tperfvisor_vcpu_amu_frequency_hertz\tgauge\thertz\n",
		"#family\tperfvisor_domain_memory_bandwidth_limit_ratio\tgauge\tratio\n",
		"#family\tperfvisor_vcpu_amu_events\tcounter\t\n",
		"#family\tperfvisor_domain_perf_events\tcounter\t\n",
	};
	assert_int_equal(tt_missing(r.out, families, sizeof(families) / sizeof(families[0])),
			 0);
	/* Label values escaped; node labelled by its id; no rate (Prometheus computes it). */
	assert_non_null(
		strstr(text, "perfvisor_domain_memory_bandwidth_bytes_total{domain=\"tenant "
			     "\\\"a\\\"\",monitor=\"vcpus_0\",vcpus=\"0\",node=\"2\"} 1000\n"));
	assert_null(strstr(text, "bytes_per_second"));
	assert_non_null(
		strstr(text, "perfvisor_domain_memory_bandwidth_bound_bytes{domain="
			     "\"tenant \\\"a\\\"\",monitor=\"vcpus_1\",vcpus=\"1\",node=\"2\"} "
			     "500\n"));
	assert_non_null(
		strstr(text, "perfvisor_domain_memory_bandwidth_local_bound_bytes{domain="
			     "\"tenant \\\"a\\\"\",monitor=\"vcpus_1\",vcpus=\"1\",node=\"2\"} "
			     "700\n"));
	/* bytes.local not ready beside a total: no local sample for that node */
	assert_null(strstr(text,
			   "perfvisor_domain_memory_bandwidth_local_bytes_total{domain="
			   "\"tenant \\\"a\\\"\",monitor=\"vcpus_0\",vcpus=\"0\",node=\"2\"}"));
	assert_non_null(strstr(text,
			       "perfvisor_vcpu_amu_frequency_hertz{domain=\"tenant \\\"a\\\"\","
			       "vcpu=\"1\"} 1001000000\n"));
	assert_null(strstr(text, "node=\"3\"")); /* not ready: no sample */
	assert_non_null(strstr(text,
			       "perfvisor_domain_memory_bandwidth_limit_ratio{domain=\"tenant "
			       "\\\"a\\\"\",vcpus=\"0-1\",node=\"2\"} 0.6\n"));
	assert_non_null(strstr(text,
			       "perfvisor_vcpu_amu_events_total{domain=\"tenant \\\"a\\\"\","
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
	assert_non_null(strstr(text,
			       "\nMEMORY BANDWIDTH (per monitor and memory node, over the run; "
			       "domstats memory.bandwidth.monitor.*)\n"));
	assert_non_null(strstr(text,
			       "DOMAIN      MONITOR  NODE  BYTES  BOUND  LOCAL  LOCAL BOUND  "
			       "BYTES/S    LIMIT            STATUS\n"));
	assert_non_null(strstr(text,
			       "tenant \"a\"  vcpus_0     0   4000      0   3000            0  "
			       "8.0 KB/s   30% = 3.0 KB/s   measured\n"));
	assert_non_null(strstr(text,
			       "tenant \"a\"  vcpus_0     2   1000      0      -            -  "
			       "2.0 KB/s   60% = 12.0 KB/s  measured, local not ready\n"));
	assert_non_null(strstr(text,
			       "tenant \"a\"  vcpus_1     2   8000    500   5000          700  "
			       "16.0 KB/s  -                estimated\n"));
	assert_non_null(strstr(text,
			       "tenant \"a\"  vcpus_1     3      -      -      -            -  "
			       "-          -                not ready\n"));
	assert_non_null(strstr(text,
			       "AMU (each vCPU's activity monitors; frequency = CPU_CYCLES / "
			       "CNT_CYCLES)\n"));
	assert_non_null(strstr(text, "1001 MHz\n"));
	assert_non_null(strstr(text, "memory node 2  60% of its bandwidth  yes\n"));
	assert_non_null(strstr(text, "tenant \"a\": SPE not offered: not yet\n"));
	assert_non_null(
		strstr(text, ", AMUv1p1, MPAM with 8 PARTIDs, 4 PMGs and 2 bandwidth monitors "
			     "per memory node\nmemory node 0: 10.0 KB/s, local to pCPUs 0\n"));
	tt_require_parsers();
	struct cmd_result r = parse("table", text);
	assert_non_null(
		strstr(r.out, "tenant \"a\"\tmemory.bandwidth.monitor.1.node.0.bound\t500\n"));
	assert_non_null(strstr(
		r.out, "tenant \"a\"\tmemory.bandwidth.monitor.1.node.1.status\tnot ready\n"));
	assert_null(strstr(r.out, "monitor.1.node.1.bytes"));
	assert_non_null(strstr(
		r.out, "tenant \"a\"\tmemory.bandwidth.monitor.0.node.0.bytes.local\t3000\n"));
	assert_non_null(strstr(
		r.out, "tenant \"a\"\tmemory.bandwidth.monitor.1.node.0.local_bound\t700\n"));
	assert_non_null(strstr(
		r.out, "tenant \"a\"\tmemory.bandwidth.monitor.0.node.1.status\tmeasured\n"));
	assert_non_null(strstr(r.out,
			       "tenant \"a\"\tmemory.bandwidth.monitor.0.node.1.local_status\t"
			       "not ready\n"));
	assert_null(strstr(r.out, "monitor.0.node.1.bytes.local"));
	tt_free(&r);
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
