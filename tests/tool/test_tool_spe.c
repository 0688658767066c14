/* SPDX-License-Identifier: MIT */
/*
 * SPE in the operator tool: the demo's branchy profiles itself with the virtual SPE, and every
 * report format, parsed by a real parser, gives its SPE figures under their exact names with
 * the values the machine model says: the samples its SPE units wrote for the VM (their log),
 * the bytes its guest's driver drained, the interrupts that driver serviced, the stage-2
 * faults the units met, the pages its stage 2 still has pinned. A VM on a machine without SPE
 * is "not offered", with the reason, and has no SPE figure.
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

static struct scenario *sc;
static struct run *run;
static struct figs truth; /* perfvisor.spe.* of branchy, from the model */
static const char *const spe_prefix[] = {"perfvisor.spe.", NULL};

/* The model's own account of the VM's profiling, never the library's. */
static void expect_spe(const struct run_vm *v)
{
	const char *name = v->sv->dom.name;
	uint64_t written = 0, lost = 0, bytes = 0, irqs = 0, s2 = 0;
	for (unsigned c = 0; c < v->sv->dom.vcpus; c++) {
		struct sim_spe_vcpu *g = sim_spe_machine_vcpu(run->m, v->first_vcpu + c);
		for (size_t i = 0; i < g->log.n; i++) {
			written += g->log.s[i].status == SIM_SPE_WRITTEN;
			lost += g->log.s[i].status == SIM_SPE_LOST;
		}
		bytes += g->len;
		irqs += g->drv.irqs - g->drv.spurious;
	}
	for (unsigned c = 0; c < sc->cpus; c++)
		s2 += sim_spe_machine_unit(run->m, c)->stats.s2_faults;
	tt_figs_add(&truth, name, "perfvisor.spe.version", "SPEv1p2");
	tt_figs_add_u64(&truth, name, "perfvisor.spe.buffer.max", DOM_SPE_MAX_BUFFER);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.profiling", 0);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.records.written", written);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.records.decoded", written);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.records.valid", written);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.records.lost", lost);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.bytes.collected", bytes);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.interrupts", irqs);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.pinned.bytes",
			sim_s2_pinned_pages(sim_spe_machine_s2(run->m, v->sim_vm)) * 4096);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.stage2.faults", s2);
	tt_figs_add_u64(&truth, name, "perfvisor.spe.stage2.repaired", s2);
	/* Something happened: records, buffer fills, and nothing lost or physical. */
	assert_true(written > 10000);
	assert_true(irqs > 10);
	assert_int_equal(lost, 0);
	assert_int_equal(sim_spe_machine_stray(run->m), 0);
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
	for (unsigned i = 0; i < run->nvms; i++)
		if (run->vm[i].spe)
			expect_spe(&run->vm[i]);
	return truth.n ? 0 : -1;
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

static struct cmd_result tool(const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " %s", args);
	return tt_run(cmd, NULL);
}

/* `perfvisor stats --format F SCENARIO` through parse.py F. */
static void parsed(const char *fmt, const char *scenario, struct figs *out)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format %s %s 2>/dev/null | " PARSE " %s",
		 fmt, scenario, fmt);
	struct cmd_result r = tt_run(cmd, NULL);
	if (r.status)
		fprintf(stderr, "%s: %s", cmd, r.err);
	assert_int_equal(r.status, 0);
	tt_figs_parse(out, r.out);
	tt_free(&r);
}

/* The figures the model can vouch for, equal in every format; the library's own bookkeeping
 * (enables, pin calls, the peak) present and consistent. */
static void check_format(const char *fmt)
{
	tt_require_parsers();
	struct figs got = {0}, want = {0};
	parsed(fmt, DEMO, &got);
	for (size_t i = 0; i < truth.n; i++)
		tt_figs_add(&want, truth.f[i].domain, truth.f[i].key, truth.f[i].value);
	const struct fig *f;
	static const char *const own[] = {
		"perfvisor.spe.buffer.enables", "perfvisor.spe.pin.calls",
		"perfvisor.spe.unpin.calls", "perfvisor.spe.pinned.bytes.peak"};
	uint64_t v[4];
	for (int k = 0; k < 4; k++) {
		f = tt_figs_find(&got, "branchy", own[k]);
		assert_non_null(f);
		v[k] = strtoull(f->value, NULL, 10);
		tt_figs_add(&want, "branchy", own[k], f->value);
	}
	assert_true(v[0] >= 1);
	assert_int_equal(v[1], v[2]);                            /* every pin released */
	assert_true(v[3] >= 65536 && v[3] <= 65536 + 64 * 4096); /* the ring and its tables */
	assert_int_equal(tt_figs_compare(&want, &got, fmt, spe_prefix), 0);
	tt_figs_free(&got);
	tt_figs_free(&want);
}

static void test_json(void **state)
{
	(void)state;
	check_format("json");
}

static void test_openmetrics(void **state)
{
	(void)state;
	check_format("openmetrics");
}

static void test_domstats(void **state)
{
	(void)state;
	check_format("domstats");
}

static void test_table(void **state)
{
	(void)state;
	check_format("table");
}

/* The exact names: our own domstats keys, in order, last in branchy's record; the
 * OpenMetrics families with their types and units. */
static void test_names(void **state)
{
	(void)state;
	struct cmd_result r = tool("stats --format domstats --domain branchy " DEMO);
	assert_int_equal(r.status, 0);
	static const char *const keys[] = {
		"version",         "buffer.max",      "profiling",         "buffer.enables",
		"records.written", "records.decoded", "records.valid",     "records.lost",
		"bytes.collected", "interrupts",      "pinned.bytes.peak", "pinned.bytes",
		"pin.calls",       "unpin.calls",     "stage2.faults",     "stage2.repaired"};
	const char *at = strstr(r.out, "\n  perfvisor.spe.version=");
	assert_non_null(at);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char want[64];
		snprintf(want, sizeof(want), "\n  perfvisor.spe.%s=", keys[k]);
		assert_true(!strncmp(at, want, strlen(want)));
		at = strchr(at + 1, '\n');
		assert_non_null(at);
	}
	assert_string_equal(at, "\n\n");
	tt_free(&r);
	r = tool("stats --format openmetrics " DEMO);
	assert_int_equal(r.status, 0);
	static const char *const om[] = {
		"# TYPE perfvisor_domain_spe_records_written counter\n",
		"perfvisor_domain_spe_records_decoded_total{domain=\"branchy\"} ",
		"# TYPE perfvisor_domain_spe_collected_bytes counter\n"
		"# UNIT perfvisor_domain_spe_collected_bytes bytes\n",
		"# TYPE perfvisor_domain_spe_pinned_bytes gauge\n"
		"# UNIT perfvisor_domain_spe_pinned_bytes bytes\n",
		"perfvisor_domain_spe_pinned_bytes{domain=\"branchy\"} 0\n",
		"perfvisor_domain_spe_stage2_faults_total{domain=\"branchy\"} 0\n",
		"perfvisor_domain_spe_records_lost_total{domain=\"branchy\"} 0\n",
		"perfvisor_domain_spe_profiling{domain=\"branchy\"} 0\n",
	};
	assert_int_equal(tt_missing(r.out, om, sizeof(om) / sizeof(om[0])), 0);
	assert_null(strstr(r.out, "perfvisor_domain_spe_records_written_total{domain=\"web\""));
	tt_free(&r);
}

/* The demo checks the records against the samples itself, and says so. */
static void test_demo_checks(void **state)
{
	(void)state;
	struct cmd_result r = tool("demo");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "branchy  SPE records decoded from the guest's buffer"));
	assert_non_null(strstr(r.out, "branchy  SPE records equal to the samples taken"));
	assert_non_null(strstr(r.out, " figures equal the ground truth"));
	assert_null(strstr(r.out, " NO\n"));
	tt_free(&r);
}

/* No SPE on the machine: branchy's SPE is not offered, with the reason, in every format, and
 * no SPE figure is printed. */
static void test_not_offered(void **state)
{
	(void)state;
	const char *path = tt_demo_variant("nospe.xml",
					   "-e 's| spe=\"on\"||' -e '/<guest-spe/d'");
	char args[512];
	snprintf(args, sizeof(args), "stats %s", path);
	struct cmd_result r = tool(args);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(
		r.out, "branchy: SPE not offered: the machine does not implement SPE\n"));
	assert_null(strstr(r.out, "\nSPE ("));
	tt_free(&r);
	snprintf(args, sizeof(args), "stats --format domstats %s", path);
	r = tool(args);
	assert_null(strstr(r.out, "perfvisor.spe."));
	tt_free(&r);
	snprintf(args, sizeof(args), "stats --format openmetrics %s", path);
	r = tool(args);
	assert_null(strstr(r.out, "perfvisor_domain_spe_"));
	assert_non_null(strstr(r.out, "perfvisor_domain_feature_offered{domain=\"branchy\","
				      "feature=\"spe\"} 0\n"));
	tt_free(&r);
	tt_require_parsers();
	struct figs got = {0};
	parsed("json", path, &got);
	const struct fig *f = tt_figs_find(&got, "branchy", "feature.spe");
	assert_non_null(f);
	assert_string_equal(f->value, "not offered");
	assert_null(tt_figs_find(&got, "branchy", "perfvisor.spe.records.written"));
	assert_null(tt_figs_find(&got, "web", "feature.spe")); /* not asked for */
	tt_figs_free(&got);
	snprintf(args, sizeof(args), "stats --format json %s", path);
	r = tool(args);
	assert_non_null(strstr(r.out, "\"spe\": {\"state\": \"not offered\", \"reason\": \"the "
				      "machine does not implement SPE\"}"));
	tt_free(&r);
}

/* A ring larger than the domain may pin, or not a whole number of pages: said where. */
static void test_errors(void **state)
{
	(void)state;
	const char *path = tt_demo_variant("bigring.xml",
					   "-e 's|<guest-spe buffer=\"65536\"|<guest-spe "
					   "buffer=\"2097152\"|'");
	char args[512];
	snprintf(args, sizeof(args), "stats %s", path);
	struct cmd_result r = tool(args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "bigring.xml:"));
	assert_non_null(strstr(r.err, "the guest's 2097152-byte SPE buffer exceeds the 1048576 "
				      "bytes domain 'branchy' may pin"));
	tt_free(&r);
	path = tt_demo_variant("oddring.xml", "-e 's|<guest-spe buffer=\"65536\"|<guest-spe "
					      "buffer=\"5000\"|'");
	snprintf(args, sizeof(args), "stats %s", path);
	r = tool(args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "buffer='5000' is not a multiple of 4096 bytes"));
	tt_free(&r);
	path = tt_demo_variant("badspe.xml", "-e 's| spe=\"on\"| spe=\"2\"|'");
	snprintf(args, sizeof(args), "stats %s", path);
	r = tool(args);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "spe='2' is not an SPE version"));
	tt_free(&r);
}

/* <perfvisor:spe max-buffer>: what a vCPU may pin; a whole number of pages. */
static void test_max_buffer(void **state)
{
	(void)state;
	struct cmd_result x = tt_run(
		"sed 's|<perfvisor:spe enabled=\"yes\"/>|<perfvisor:spe "
		"enabled=\"yes\" max-buffer=\"65536\"/>|' examples/demo/branchy.xml",
		NULL);
	assert_int_equal(x.status, 0);
	struct domain *dom = calloc(1, sizeof(*dom));
	struct diag d;
	assert_non_null(dom);
	assert_int_equal(domxml_parse_memory(x.out, "branchy", dom, &d), 0);
	assert_true(dom->cfg.features & PV_FEAT_SPE);
	assert_int_equal(dom->cfg.spe.max_buffer, 65536);
	tt_free(&x);
	x = tt_run("sed 's|<perfvisor:spe enabled=\"yes\"/>|<perfvisor:spe "
		   "max-buffer=\"5000\"/>|' "
		   "examples/demo/branchy.xml",
		   NULL);
	assert_int_equal(domxml_parse_memory(x.out, "branchy", dom, &d), -1);
	assert_non_null(strstr(d.msg, "max-buffer='5000' is not a multiple of 4096 bytes"));
	tt_free(&x);
	free(dom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),        cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_domstats),    cmocka_unit_test(test_table),
		cmocka_unit_test(test_names),       cmocka_unit_test(test_demo_checks),
		cmocka_unit_test(test_not_offered), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_max_buffer),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
