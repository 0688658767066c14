/* SPDX-License-Identifier: MIT */
/*
 * Every report format of `perfvisor stats`, parsed by a real parser (Python's json and jq for
 * JSON, Debian's python3-prometheus-client for OpenMetrics, a strict line parser for the
 * domstats records, column splitting for the table), against the ground truth.
 *
 * The truth is computed here: the same scenario is run in this process on the machine model,
 * and every expected figure is read from what the model says each vCPU executed
 * (sim_vcpu.truth), what its pCPUs' AMUs counted while it ran (sim_vcpu.amu), and the bytes
 * its memory traffic really moved through each node (sim/mpam_machine.h), never from the
 * library.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "tooltest.h"

#define DEMO "examples/demo/scenario.xml"
#define DEMO_LIBVIRT "examples/demo/scenario-libvirt.xml"

static struct scenario *sc;
static struct run *run;
static struct figs truth;

/* The domain's event filter, from its XML, written out here: an allow-list of the enabled
 * events that have an Arm number, else a deny-list of the disabled ones. */
static bool offered(const struct domain *d, uint32_t event)
{
	bool any_enabled = false, listed_on = false, listed_off = false;
	for (int e = 0; e < DOM_PERF_COUNT; e++) {
		int arm = dom_perf_events[e].arm;
		if (arm < 0)
			continue;
		any_enabled |= d->perf[e] == DOM_PERF_ENABLED;
		if ((uint32_t)arm == event) {
			listed_on |= d->perf[e] == DOM_PERF_ENABLED;
			listed_off |= d->perf[e] == DOM_PERF_DISABLED;
		}
	}
	return any_enabled ? listed_on : !listed_off;
}

static bool modelled(uint32_t event)
{
	return event < 64 && (sim_ev_common_mask() >> event & 1);
}

static void expect_perf(const struct run_vm *v)
{
	const struct domain *d = &v->sv->dom;
	static const struct sim_snap zero;
	for (int e = 0; e < DOM_PERF_COUNT; e++) {
		int arm = dom_perf_events[e].arm;
		if (d->perf[e] != DOM_PERF_ENABLED || arm < 0 || !modelled((uint32_t)arm))
			continue;
		uint64_t sum = 0;
		for (unsigned c = 0; c < d->vcpus; c++)
			sum += sim_snap_delta(&zero, &run->m->vcpu[v->first_vcpu + c].truth.now,
					      (uint32_t)arm, 3);
		char key[64];
		snprintf(key, sizeof(key), "perf.%s", dom_perf_events[e].name);
		tt_figs_add_u64(&truth, d->name, key, sum);
	}
}

/* Each counter the guest enabled: what its vCPU executed at EL0 and EL1 from the instant
 * counting started to the end, if its domain offers the event (32 bits before PMUv3p5). */
static void expect_counters(const struct run_vm *v)
{
	const struct domain *d = &v->sv->dom;
	for (unsigned c = 0; c < d->vcpus; c++) {
		const struct run_ops *o = &v->ops[c];
		if (!o->pmu)
			continue;
		const struct sim_snap *from = &v->prog[c].ops[o->start].at;
		const struct sim_snap *to = &run->m->vcpu[v->first_vcpu + c].truth.now;
		for (unsigned i = 0; i <= o->n; i++) {
			bool cyc = i == o->n;
			uint32_t ev = cyc ? PV_EVT_CPU_CYCLES : o->event[i];
			uint64_t val = 0;
			if (offered(d, ev) && (cyc || modelled(ev)))
				val = sim_snap_delta(from, to, ev, 3);
			if (!cyc && v->cfg.pmu.version < PV_PMUVER_V3P5)
				val &= UINT64_C(0xFFFFFFFF);
			char key[96];
			if (cyc)
				snprintf(key, sizeof(key), "vcpu.%u.PMCCNTR.cpu_cycles", c);
			else
				snprintf(key, sizeof(key), "vcpu.%u.PMEVCNTR%u.%s", c, i,
					 pv_event_perf_name(ev));
			tt_figs_add_u64(&truth, d->name, key, val);
		}
	}
}

/* Each AMU counter of a vCPU of an AMU domain: what its pCPUs counted while it ran, and the
 * frequency it ran at (one clock: the scenario's). */
static void expect_amu(const struct run_vm *v)
{
	const struct domain *d = &v->sv->dom;
	if (!(v->requested & PV_FEAT_AMU))
		return;
	for (unsigned c = 0; c < d->vcpus; c++) {
		const struct sim_vcpu *sv = &run->m->vcpu[v->first_vcpu + c];
		char key[64];
		for (int k = 0; k < REP_AMU_COUNT; k++) {
			snprintf(key, sizeof(key), "vcpu.%u.amu.%s", c, rep_amu_names[k]);
			tt_figs_add_u64(&truth, d->name, key, sv->amu.cnt[k]);
		}
		snprintf(key, sizeof(key), "vcpu.%u.amu.mhz", c);
		tt_figs_add_u64(&truth, d->name, key, sc->mhz);
	}
}

/* Every <memorytune><monitor> of the whole domain: per memory node, the bytes the VM's vCPUs
 * really moved (exact: the demo has a monitor per PARTID), their rate over the run, and the
 * part they moved while running on a pCPU local to the node (bytes.local: the model's record
 * of the sending pCPU, not of any label). */
static void expect_bandwidth(const struct run_vm *v, struct figs *f, const char *fmt)
{
	const struct domain *d = &v->sv->dom;
	bool json = !strcmp(fmt, "json"), table = !strcmp(fmt, "table"),
	     domstats = !strcmp(fmt, "domstats");
	const struct sim_machine *m = run->m;
	uint64_t ns = sim_mpam_machine_now(m) - sim_mpam_machine_start(m);
	unsigned n = 0;
	char key[128];
	for (unsigned t = 0; t < d->nmemorytune; t++)
		for (unsigned j = 0; j < d->memorytune[t].nmonitors; j++, n++) {
			char name[80], vcpus[96];
			domxml_monitor_name(d->memorytune[t].monitor[j].vcpus, name,
					    sizeof(name));
			cpuset_format(d->memorytune[t].monitor[j].vcpus, vcpus, sizeof(vcpus));
			snprintf(key, sizeof(key), "memory.bandwidth.monitor.%u.name", n);
			tt_figs_add(f, d->name, key, name);
			if (!table) {
				snprintf(key, sizeof(key), "memory.bandwidth.monitor.%u.vcpus",
					 n);
				tt_figs_add(f, d->name, key, vcpus);
			}
			if (json || domstats) {
				snprintf(key, sizeof(key),
					 "memory.bandwidth.monitor.%u.node.count", n);
				tt_figs_add_u64(f, d->name, key, sc->nnodes);
			}
			for (unsigned k = 0; k < sc->nnodes; k++) {
				unsigned id = sc->node[k].id;
				uint64_t bytes = sim_mpam_machine_vm_bytes(m, v->sim_vm, id,
									   false);
				uint64_t local = sim_mpam_machine_vm_local_bytes(m, v->sim_vm,
										 id);
				snprintf(key, sizeof(key),
					 "memory.bandwidth.monitor.%u.node.%u.id", n, k);
				tt_figs_add_u64(f, d->name, key, id);
				snprintf(key, sizeof(key),
					 "memory.bandwidth.monitor.%u.node.%u.bytes.total", n,
					 k);
				tt_figs_add_u64(f, d->name, key, bytes);
				snprintf(key, sizeof(key),
					 "memory.bandwidth.monitor.%u.node.%u.bytes.local", n,
					 k);
				tt_figs_add_u64(f, d->name, key, local);
				if (json || table) {
					snprintf(key, sizeof(key),
						 "memory.bandwidth.monitor.%u.node.%u.status",
						 n, k);
					tt_figs_add(f, d->name, key, "measured");
				}
				if (json) {
					snprintf(key, sizeof(key),
						 "memory.bandwidth.monitor.%u.node.%u.local_"
						 "status",
						 n, k);
					tt_figs_add(f, d->name, key, "measured");
				}
				if (!domstats) {
					snprintf(key, sizeof(key),
						 "memory.bandwidth.monitor.%u.node.%u.bound", n,
						 k);
					tt_figs_add_u64(f, d->name, key, 0);
					snprintf(key, sizeof(key),
						 "memory.bandwidth.monitor.%u.node.%u.local_"
						 "bound",
						 n, k);
					tt_figs_add_u64(f, d->name, key, 0);
				}
				/* A rate only in JSON: the metrics formats leave it to
				 * Prometheus' rate() of the byte counters. */
				if (json) {
					snprintf(key, sizeof(key),
						 "memory.bandwidth.monitor.%u.node.%u.bytes_"
						 "per_second",
						 n, k);
					tt_figs_add_u64(f, d->name, key,
							(uint64_t)((unsigned __int128)bytes *
								   1000000000u / ns));
				}
			}
		}
	if (domstats && n) {
		tt_figs_add_u64(f, d->name, "memory.bandwidth.monitor.count", n);
	}
}

static int setup(void **state)
{
	(void)state;
	sc = calloc(1, sizeof(*sc));
	run = calloc(1, sizeof(*run));
	struct diag d;
	if (!sc || !run || scenario_load(DEMO, NULL, sc, &d) || run_prepare(run, sc, &d)) {
		fprintf(stderr, "setup: %s\n", d.msg);
		return -1;
	}
	run_execute(run, NULL);
	/* The demo shows bytes.local apart from bytes.total: web's vCPU 1 runs on pCPU 1 and
	 * keeps its memory on node 0, local to pCPU 0. */
	uint64_t web_total = sim_mpam_machine_vm_bytes(run->m, run->vm[0].sim_vm, 0, false);
	uint64_t web_local = sim_mpam_machine_vm_local_bytes(run->m, run->vm[0].sim_vm, 0);
	if (strcmp(run->vm[0].sv->dom.name, "web") || !web_local ||
	    web_local * 3 > web_total * 2 || web_local * 3 < web_total) {
		fprintf(stderr,
			"setup: web's local bytes on node 0 (%llu of %llu) are not about "
			"half\n",
			(unsigned long long)web_local, (unsigned long long)web_total);
		return -1;
	}
	for (unsigned i = 0; i < run->nvms; i++) {
		expect_perf(&run->vm[i]);
		expect_counters(&run->vm[i]);
		expect_amu(&run->vm[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	run_free(run);
	free(run);
	free(sc);
	tt_figs_free(&truth);
	return 0;
}

/* `perfvisor stats --format F` then parse.py F: the figures, or a failed test. */
static void stats(const char *scenario, const char *fmt, struct figs *out, char **raw)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format %s %s", fmt, scenario);
	struct cmd_result r = tt_run(cmd, NULL);
	if (r.status != 0)
		fprintf(stderr, "%s: %s", cmd, r.err);
	assert_int_equal(r.status, 0);
	snprintf(cmd, sizeof(cmd), PARSE " %s", fmt);
	struct cmd_result p = tt_run(cmd, r.out);
	if (p.status != 0)
		fprintf(stderr, "%s: %s", cmd, p.err);
	assert_int_equal(p.status, 0);
	tt_figs_parse(out, p.out);
	if (raw)
		*raw = r.out;
	else
		free(r.out);
	free(r.err);
	tt_free(&p);
}

static const char *const watched[] = {"perf.", "vcpu.", "memory.", NULL};

static void check_format(const char *fmt, const char *const *prefixes)
{
	tt_require_parsers();
	struct figs got = {0}, want = {0};
	for (size_t i = 0; i < truth.n; i++)
		tt_figs_add(&want, truth.f[i].domain, truth.f[i].key, truth.f[i].value);
	for (unsigned i = 0; i < run->nvms; i++)
		expect_bandwidth(&run->vm[i], &want, fmt);
	stats(DEMO, fmt, &got, NULL);
	assert_true(want.n > 60);
	assert_int_equal(tt_figs_compare(&want, &got, fmt, prefixes), 0);
	tt_figs_free(&got);
	tt_figs_free(&want);
}

static void test_json(void **state)
{
	(void)state;
	check_format("json", watched);
}

static void test_openmetrics(void **state)
{
	(void)state;
	check_format("openmetrics", watched);
}

/* The Prometheus text format carries the same figures, read by the client's parser for it. */
static void test_prometheus(void **state)
{
	(void)state;
	check_format("prometheus", watched);
}

static void test_table(void **state)
{
	(void)state;
	check_format("table", watched);
}

/* domstats carries libvirt's keys: exactly perf.<event> of every measured event and
 * memory.bandwidth.monitor.* of every monitor; the only others are our own perfvisor.spe.*
 * (libvirt has no SPE keys; test_tool_spe.c checks them). */
static void test_domstats(void **state)
{
	(void)state;
	tt_require_parsers();
	struct figs want = {0}, got = {0};
	for (size_t i = 0; i < truth.n; i++)
		if (!strncmp(truth.f[i].key, "perf.", 5))
			tt_figs_add(&want, truth.f[i].domain, truth.f[i].key, truth.f[i].value);
	for (unsigned i = 0; i < run->nvms; i++)
		expect_bandwidth(&run->vm[i], &want, "domstats");
	char *raw;
	stats(DEMO, "domstats", &got, &raw);
	static const char *const libvirt[] = {"perf.", "memory.", NULL};
	assert_int_equal(tt_figs_compare(&want, &got, "domstats", libvirt), 0);
	for (size_t i = 0; i < got.n; i++)
		if (strncmp(got.f[i].key, "perf.", 5) && strncmp(got.f[i].key, "memory.", 7) &&
		    strncmp(got.f[i].key, "perfvisor.spe.", 14)) {
			fprintf(stderr, "domstats: unexpected key %s\n", got.f[i].key);
			fail();
		}
	/* One record per domain, in the scenario's order. */
	assert_non_null(strstr(raw, "Domain: 'web'\n  perf.cpu_cycles="));
	assert_non_null(strstr(raw, "\n\nDomain: 'db'\n"));
	assert_non_null(strstr(raw, "\n\nDomain: 'branchy'\n"));
	/* libvirt's exact key names and order (virsh domstats --memory). */
	assert_non_null(strstr(raw, "  perf.cache_misses=999840\n"
				    "  memory.bandwidth.monitor.count=1\n"
				    "  memory.bandwidth.monitor.0.name=vcpus_0\n"
				    "  memory.bandwidth.monitor.0.vcpus=0\n"
				    "  memory.bandwidth.monitor.0.node.count=2\n"
				    "  memory.bandwidth.monitor.0.node.0.id=0\n"
				    "  memory.bandwidth.monitor.0.node.0.bytes.local="));
	assert_non_null(strstr(raw, "  memory.bandwidth.monitor.0.name=vcpus_0-1\n"));
	/* Each node with figures: bytes.local, then bytes.total. */
	assert_non_null(strstr(raw, "  memory.bandwidth.monitor.0.node.1.id=1\n"
				    "  memory.bandwidth.monitor.0.node.1.bytes.local=0\n"
				    "  memory.bandwidth.monitor.0.node.1.bytes.total=0\n"));
	/* Not measured, so not there: bus_cycles (not implemented), ref_cpu_cycles (no Arm
	 * event), and nothing of branchy, which has no monitor. */
	assert_null(strstr(raw, "perf.bus_cycles"));
	assert_null(strstr(raw, "perf.ref_cpu_cycles"));
	assert_null(strstr(strstr(raw, "Domain: 'branchy'"), "memory."));
	free(raw);
	tt_figs_free(&want);
	tt_figs_free(&got);
}

/* jq, independently of Python: the perf figures of the JSON report, and the bytes per node
 * (total and local). */
static void test_json_jq(void **state)
{
	(void)state;
	tt_require_parsers();
	struct cmd_result r = tt_run(
		TOOL_BIN " stats --format json " DEMO
			 " 2>/dev/null | jq -r '.domains[] | .name "
			 "as $d | .perf | to_entries[] | select(.value.value != null) | "
			 "\"\\($d)\\tperf.\\(.key)\\t\\(.value.value)\"'",
		NULL);
	assert_int_equal(r.status, 0);
	struct figs got = {0}, want = {0};
	tt_figs_parse(&got, r.out);
	for (size_t i = 0; i < truth.n; i++)
		if (!strncmp(truth.f[i].key, "perf.", 5))
			tt_figs_add(&want, truth.f[i].domain, truth.f[i].key, truth.f[i].value);
	static const char *const perf[] = {"perf.", NULL};
	assert_int_equal(tt_figs_compare(&want, &got, "jq", perf), 0);
	tt_figs_free(&got);
	tt_figs_free(&want);
	tt_free(&r);

	r = tt_run(
		TOOL_BIN
		" stats --format json " DEMO " 2>/dev/null | jq -r '.domains[] | .name "
		"as $d | .memory_bandwidth // [] | to_entries[] | .key as $n | .value.nodes | "
		"to_entries[] | \"\\($d)\\tmemory.bandwidth.monitor.\\($n).node.\\(.key).bytes."
		"total\\t\\(.value.bytes_total)\\n\\($d)\\tmemory.bandwidth.monitor.\\($n)."
		"node."
		"\\(.key).bytes.local\\t\\(.value.bytes_local)\"'",
		NULL);
	assert_int_equal(r.status, 0);
	tt_figs_parse(&got, r.out);
	struct figs all = {0};
	for (unsigned i = 0; i < run->nvms; i++)
		expect_bandwidth(&run->vm[i], &all, "domstats");
	for (size_t i = 0; i < all.n; i++)
		if (strstr(all.f[i].key, ".bytes."))
			tt_figs_add(&want, all.f[i].domain, all.f[i].key, all.f[i].value);
	tt_figs_free(&all);
	static const char *const bytes[] = {"memory.bandwidth.monitor.0.node.0.bytes.",
					    "memory.bandwidth.monitor.0.node.1.bytes.", NULL};
	assert_true(got.n == 12);
	assert_int_equal(tt_figs_compare(&want, &got, "jq", bytes), 0);
	tt_figs_free(&got);
	tt_figs_free(&want);
	tt_free(&r);
}

/* The families a Prometheus server sees, with their types and units. */
static void test_openmetrics_families(void **state)
{
	(void)state;
	tt_require_parsers();
	struct cmd_result r = tt_run(TOOL_BIN " stats --format openmetrics " DEMO " | " PARSE
					      " openmetrics | grep '^#family'",
				     NULL);
	assert_int_equal(r.status, 0);
	static const char *const families[] = {
		"#family\tperfvisor_run_duration_seconds\tgauge\tseconds\n",
		"#family\tperfvisor_domain\tinfo\t\n",
		"#family\tperfvisor_domain_perf_events\tcounter\t\n",
		"#family\tperfvisor_vcpu_pmu_events\tgauge\t\n",
		"#family\tperfvisor_domain_feature_offered\tgauge\t\n",
		"#family\tperfvisor_vcpu_amu_events\tcounter\t\n",
		"#family\tperfvisor_vcpu_amu_frequency_hertz\tgauge\thertz\n",
		"#family\tperfvisor_domain_memory_bandwidth_bytes\tcounter\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_local_bytes\tcounter\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_bound_bytes\tgauge\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_local_bound_bytes\tgauge\tbytes\n",
		"#family\tperfvisor_domain_memory_bandwidth_limit_ratio\tgauge\tratio\n",
	};
	assert_int_equal(tt_missing(r.out, families, sizeof(families) / sizeof(families[0])),
			 0);
	tt_free(&r);
	/* Labels: domain, monitor, vCPUs, node; the cap db's <memorytune> applies. */
	r = tt_run(TOOL_BIN " stats --format openmetrics " DEMO, NULL);
	assert_non_null(strstr(r.out,
			       "perfvisor_domain_memory_bandwidth_bytes_total{domain=\"db\","
			       "monitor=\"vcpus_0\",vcpus=\"0\",node=\"0\"} "));
	assert_non_null(strstr(r.out,
			       "perfvisor_domain_memory_bandwidth_local_bytes_total{domain="
			       "\"web\",monitor=\"vcpus_0-1\",vcpus=\"0-1\",node=\"0\"} "));
	assert_non_null(strstr(r.out,
			       "perfvisor_domain_memory_bandwidth_limit_ratio{domain=\"db\","
			       "vcpus=\"0\",node=\"0\"} 0.2\n"));
	tt_free(&r);
}

/* What is not offered is said so, in each format, with its reason; never a number. */
static void test_not_offered(void **state)
{
	(void)state;
	tt_require_parsers();
	struct figs got = {0};
	stats(DEMO, "json", &got, NULL);
	const struct fig *f = tt_figs_find(&got, "branchy", "feature.spe");
	assert_non_null(f);
	assert_string_equal(f->value, "measured");
	f = tt_figs_find(&got, "db", "feature.amu");
	assert_non_null(f);
	assert_string_equal(f->value, "measured");
	assert_null(tt_figs_find(&got, "batch", "feature.spe")); /* not asked for */
	tt_figs_free(&got);
	struct cmd_result r = tt_run(TOOL_BIN " stats " DEMO, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "db: perf.ref_cpu_cycles not offered: no Arm PMUv3 "));
	assert_non_null(strstr(r.out, "branchy: perf.bus_cycles not offered: the machine's PMU "
				      "does not implement BUS_CYCLES"));
	assert_null(strstr(r.out, "SPE not offered"));
	tt_free(&r);
	/* The same domains on a machine without the AMU, SPE and MPAM: said so, never a number. */
	const char *path = tt_demo_variant("plain.xml",
					   "-e 's| amu=\"on\"||' -e 's| spe=\"on\"||' "
					   "-e '/<mpam /d'");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats %s", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(
		strstr(r.out, "web: MPAM not offered: the machine does not implement MPAM\n"));
	assert_non_null(
		strstr(r.out, "db: AMU not offered: the machine does not implement the AMU\n"));
	assert_non_null(strstr(
		r.out, "branchy: SPE not offered: the machine does not implement SPE\n"));
	assert_non_null(strstr(r.out,
			       "db      0      memory node 0      20% of its bandwidth   "
			       "no (MPAM not offered)\n"));
	assert_null(strstr(r.out, "MEMORY BANDWIDTH"));
	assert_null(strstr(r.out, "\nAMU"));
	tt_free(&r);
}

/* The domains read through libvirt's test driver give the very same figures. */
static void test_libvirt_same_figures(void **state)
{
	(void)state;
	tt_require_parsers();
	struct figs a = {0}, b = {0};
	stats(DEMO, "json", &a, NULL);
	stats(DEMO_LIBVIRT, "json", &b, NULL);
	assert_true(a.n > 20);
	assert_int_equal(a.n, b.n);
	static const char *const everything[] = {"", NULL};
	assert_int_equal(tt_figs_compare(&a, &b, "libvirt", everything), 0);
	tt_figs_free(&a);
	tt_figs_free(&b);
}

/* `stats --domain` selects, in the order asked. */
static void test_stats_domain(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(
		TOOL_BIN " stats --format domstats --domain branchy --domain web " DEMO, NULL);
	assert_int_equal(r.status, 0);
	assert_true(!strncmp(r.out, "Domain: 'branchy'\n", 18));
	assert_non_null(strstr(r.out, "\n\nDomain: 'web'\n"));
	assert_null(strstr(r.out, "'db'"));
	tt_free(&r);
	r = tt_run(TOOL_BIN " stats --domain nosuch " DEMO, NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no domain 'nosuch'"));
	tt_free(&r);
}

/* `perfvisor run` and the demo check every figure against the truth themselves. */
static void test_run_and_demo(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(TOOL_BIN " run --verify " DEMO, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "GROUND TRUTH"));
	assert_non_null(strstr(r.out, " figures equal the ground truth"));
	assert_null(strstr(r.out, " NO\n"));
	tt_free(&r);
	r = tt_run(TOOL_BIN " demo", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "perfvisor demo: four VMs"));
	assert_non_null(strstr(r.out, " figures equal the ground truth"));
	tt_free(&r);
	/* Other schedules: switch points elsewhere, the figures still exact. */
	for (unsigned seed = 2; seed < 12; seed++) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), TOOL_BIN " run --seed %u " DEMO, seed);
		r = tt_run(cmd, NULL);
		if (r.status)
			fprintf(stderr, "seed %u:\n%s", seed, r.out);
		assert_int_equal(r.status, 0);
		tt_free(&r);
	}
	/* json on stdout stays pure; the verdict goes to stderr. */
	r = tt_run(TOOL_BIN " run --format json " DEMO, NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.out[0], '{');
	assert_non_null(strstr(r.err, " figures equal the ground truth"));
	tt_free(&r);
}

/* Progress on the terminal (forced here; stderr is not one). */
static void test_progress(void **state)
{
	(void)state;
	struct cmd_result r = tt_run(TOOL_BIN " run --progress " DEMO, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "\rperfvisor: demo: "));
	assert_non_null(strstr(r.err, "\r\033[K"));
	tt_free(&r);
	r = tt_run(TOOL_BIN " run " DEMO, NULL);
	assert_null(strstr(r.err, "\rperfvisor:"));
	tt_free(&r);
}

/* A duration cuts the run: fewer instructions than the whole workload, still exact. */
static void test_duration(void **state)
{
	(void)state;
	char *xml = NULL;
	struct cmd_result s = tt_run(
		"sed -e 's|<schedule |<schedule duration=\"5ms\" |' "
		"-e 's|<vm file=\"|<vm file=\"../../../../examples/demo/|' " DEMO,
		NULL);
	assert_int_equal(s.status, 0);
	xml = s.out;
	const char *path = tt_write_tmp("cut.xml", xml);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run --format json %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"stopped_at_duration\": true"));
	assert_non_null(strstr(r.err, " figures equal the ground truth"));
	tt_free(&r);
	tt_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_jq),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_openmetrics_families),
		cmocka_unit_test(test_domstats),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_not_offered),
		cmocka_unit_test(test_libvirt_same_figures),
		cmocka_unit_test(test_stats_domain),
		cmocka_unit_test(test_run_and_demo),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
