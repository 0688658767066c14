/* SPDX-License-Identifier: MIT */
/*
 * MPAM in the tool, against the machine model's ground truth (computed here, in-process, from
 * the bytes the modelled traffic really moved):
 *   - the demo's cap bites: db moves about 20 % of node 0 while its workload asks for more,
 *     and batch, the same workload uncapped, moves all it asks for;
 *   - with fewer monitors than VMs the monitors rotate: every figure, bytes.local included, is
 *     an estimate within its reported bound, and `perfvisor run` says so;
 *   - without monitors, or for a monitor of part of a VM's vCPUs, no number is printed;
 *   - bytes.local without a PMG per memory node, or with a pCPU local to no node: no number,
 *     the reason in every format, bytes.total still there;
 *   - a <memorytune> of part of a VM's vCPUs is not applied, and says why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "tooltest.h"

#define DEMO "examples/demo/scenario.xml"

struct inproc {
	struct scenario sc;
	struct run run;
};

static struct inproc *run_scenario(const char *path)
{
	struct inproc *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	struct diag d;
	if (scenario_load(path, NULL, &p->sc, &d) || run_prepare(&p->run, &p->sc, &d)) {
		fprintf(stderr, "%s: %s\n", path, d.msg);
		fail();
	}
	run_execute(&p->run, NULL);
	return p;
}

static void inproc_free(struct inproc *p)
{
	run_free(&p->run);
	free(p);
}

static const struct run_vm *vm_named(const struct inproc *p, const char *name)
{
	for (unsigned i = 0; i < p->run.nvms; i++)
		if (!strcmp(p->run.vm[i].sv->dom.name, name))
			return &p->run.vm[i];
	fail_msg("no domain %s", name);
	return NULL;
}

/* Bytes/s over the run, from the model's truth: moved (or asked for) on `node`. */
static double truth_rate(const struct inproc *p, const char *name, unsigned node, bool asked)
{
	const struct sim_machine *m = p->run.m;
	double s = (double)(sim_mpam_machine_now(m) - sim_mpam_machine_start(m)) / 1e9;
	return (double)sim_mpam_machine_vm_bytes(m, vm_named(p, name)->sim_vm, node, asked) / s;
}

static void test_cap_bites(void **state)
{
	(void)state;
	struct inproc *p = run_scenario(DEMO);
	/* db's cap: 20 % of 12.8 GB/s, programmed as MBW_MAX = 51/256. */
	double cap = 12.8e9 * 51.0 / 256.0;
	double db = truth_rate(p, "db", 0, false), db_asked = truth_rate(p, "db", 0, true);
	double batch = truth_rate(p, "batch", 0, false),
	       batch_asked = truth_rate(p, "batch", 0, true);
	fprintf(stderr,
		"db: asked %.3f GB/s, moved %.3f GB/s (cap %.3f); batch: asked %.3f, moved "
		"%.3f\n",
		db_asked / 1e9, db / 1e9, cap / 1e9, batch_asked / 1e9, batch / 1e9);
	assert_true(db <= cap * 1.001);
	assert_true(db >= cap * 0.95);     /* at about the cap */
	assert_true(db_asked > cap * 1.5); /* while its workload asks for more */
	assert_true(batch == batch_asked); /* the same workload uncapped: all it asks */
	assert_true(batch > db * 1.5);
	assert_true(db_asked > batch_asked * 0.95 && db_asked < batch_asked * 1.05);
	/* The reported figure is the truth, and its rate the truth's. */
	struct pv_vmpam_reading rd;
	struct pv_vmpam_rate rate;
	assert_int_equal(run_bw_reading(&p->run, vm_named(p, "db"), 0, &rd, &rate),
			 PV_VMPAM_MEASURED);
	assert_int_equal(rd.bytes, sim_mpam_machine_vm_bytes(
					   p->run.m, vm_named(p, "db")->sim_vm, 0, false));
	assert_int_equal(rate.bytes_per_s, (uint64_t)db);
	inproc_free(p);

	/* What the demo prints: the traffic table shows it. */
	struct cmd_result r = tt_run(TOOL_BIN " demo", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nMEMORY TRAFFIC ("));
	assert_non_null(strstr(r.out, "20% = 2.56 GB/s"));
	tt_free(&r);
}

/* One monitor per node for four VMs: rotation, estimates, each within its bound. */
static void test_rotation(void **state)
{
	(void)state;
	const char *path = tt_demo_variant("rotate.xml", "-e 's|bandwidth-monitors=\"8\"|"
							 "bandwidth-monitors=\"1\"|'");
	struct inproc *p = run_scenario(path);
	assert_true(p->run.m->mpam_machine->sys.node[0].rotating);
	unsigned estimated = 0, local_estimated = 0;
	for (unsigned i = 0; i < p->run.nvms; i++) {
		const struct run_vm *v = &p->run.vm[i];
		for (unsigned n = 0; n < 2; n++) {
			struct pv_vmpam_reading rd;
			struct pv_vmpam_rate rate;
			int st = run_bw_reading(&p->run, v, n, &rd, &rate);
			if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
				continue;
			estimated += st == PV_VMPAM_ESTIMATED;
			uint64_t truth = sim_mpam_machine_vm_bytes(p->run.m, v->sim_vm, n,
								   false);
			uint64_t err = rd.bytes > truth ? rd.bytes - truth : truth - rd.bytes;
			fprintf(stderr,
				"%s node %u: %" PRIu64 " +- %" PRIu64 ", truth %" PRIu64 "\n",
				v->sv->dom.name, n, rd.bytes, rd.bound, truth);
			assert_true(err <= rd.bound);
			/* Local accounts rotate through the same monitor, with their own bound. */
			st = run_bw_local_reading(&p->run, v, n, &rd);
			if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
				continue;
			local_estimated += st == PV_VMPAM_ESTIMATED;
			truth = sim_mpam_machine_vm_local_bytes(p->run.m, v->sim_vm, n);
			err = rd.bytes > truth ? rd.bytes - truth : truth - rd.bytes;
			fprintf(stderr,
				"%s node %u local: %" PRIu64 " +- %" PRIu64 ", truth %" PRIu64
				"\n",
				v->sv->dom.name, n, rd.bytes, rd.bound, truth);
			assert_true(err <= rd.bound);
		}
	}
	assert_true(estimated >= 3);
	assert_true(local_estimated >= 3);
	inproc_free(p);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(
		strstr(r.out, "bandwidth figures are estimates within their error bound\n"));
	assert_non_null(strstr(r.out, "  estimated\n"));
	tt_free(&r);
}

/* No monitors: the monitors and their nodes are listed, never a number. */
static void test_no_data(void **state)
{
	(void)state;
	tt_require_parsers();
	const char *path = tt_demo_variant("nomon.xml", "-e 's|bandwidth-monitors=\"8\"|"
							"bandwidth-monitors=\"0\"|'");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format domstats %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  memory.bandwidth.monitor.0.node.0.id=0\n"
				      "  memory.bandwidth.monitor.0.node.1.id=1\n"));
	assert_null(strstr(r.out, "bytes.total"));
	assert_null(strstr(r.out, "bytes.local"));
	tt_free(&r);
	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format json %s | " PARSE " json", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(
		strstr(r.out, "db\tmemory.bandwidth.monitor.0.node.0.status\tno data\n"));
	assert_null(strstr(r.out, "bandwidth_bytes"));
	assert_null(strstr(r.out, "bytes.total"));
	tt_free(&r);
	snprintf(cmd, sizeof(cmd),
		 TOOL_BIN " stats --format openmetrics %s | " PARSE " openmetrics", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "memory_bandwidth_bytes"));
	tt_free(&r);
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run %s", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(
		r.out, "db      vcpus_0       0      -      -      -            -  -    "));
	assert_non_null(strstr(r.out, "no data\n"));
	tt_free(&r);
}

/* bytes.local not counted: one PMG for two memory nodes, or a pCPU local to no node. The
 * totals stay; the local figures are absent in every format, and each says why. */
static void local_not_counted(const char *variant, const char *sed, const char *why)
{
	tt_require_parsers();
	const char *path = tt_demo_variant(variant, sed);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0); /* the totals still equal the truth */
	char note[400];
	snprintf(note, sizeof(note),
		 "  web: memory-bandwidth monitor vcpus_0-1 bytes.local not "
		 "offered: %s\n",
		 why);
	if (!strstr(r.out, note))
		fprintf(stderr, "expected:\n%sin:\n%s", note, r.out);
	assert_non_null(strstr(r.out, note));
	assert_null(strstr(r.out, "local bytes")); /* nothing checked: nothing reported */
	assert_non_null(strstr(
		r.out, "db      vcpus_0       0  136411156      0      -            -  "));
	tt_free(&r);

	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format domstats %s | " PARSE " domstats",
		 path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(
		r.out, "db\tmemory.bandwidth.monitor.0.node.0.bytes.total\t136411156\n"));
	assert_null(strstr(r.out, "bytes.local"));
	tt_free(&r);

	snprintf(cmd, sizeof(cmd), TOOL_BIN " stats --format json %s | " PARSE " json", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(
		strstr(r.out, "db\tmemory.bandwidth.monitor.0.node.0.local_status\tno data\n"));
	assert_non_null(
		strstr(r.out, "db\tmemory.bandwidth.monitor.0.node.0.status\tmeasured\n"));
	assert_null(strstr(r.out, "bytes.local"));
	tt_free(&r);
	snprintf(cmd, sizeof(cmd),
		 TOOL_BIN " stats --format json %s | jq -r '.machine.mpam | "
			  "\"\\(.local_bytes)|\\(.local_bytes_reason)\"'",
		 path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	char want[400];
	snprintf(want, sizeof(want), "false|%s\n", why);
	assert_string_equal(r.out, want);
	tt_free(&r);

	snprintf(cmd, sizeof(cmd),
		 TOOL_BIN " stats --format openmetrics %s | " PARSE " openmetrics", path);
	r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "perfvisor_domain_memory_bandwidth_bytes\t"));
	assert_null(strstr(r.out, "local"));
	tt_free(&r);
}

static void test_local_pmg_range(void **state)
{
	(void)state;
	local_not_counted(
		"onepmg.xml", "-e 's|<mpam partids=\"16\"|<mpam partids=\"16\" pmgs=\"1\"|'",
		"bytes.local takes a PMG per memory node (PMG_MAX >= 1), and the machine "
		"has PMG_MAX 0 (<mpam pmgs='1'>)");
	/* pmgs is 1..256 (PMG_MAX is 8 bits). */
	const char *path = tt_demo_variant("nopmg.xml", "-e 's|<mpam partids=\"16\"|<mpam "
							"partids=\"16\" pmgs=\"0\"|'");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "<mpam>: pmgs='0'"));
	tt_free(&r);
}

static void test_local_no_topology(void **state)
{
	(void)state;
	local_not_counted(
		"nonode.xml", "-e 's|id=\"1\" cpus=\"1\"|id=\"1\"|'",
		"bytes.local takes every pCPU's memory node, and pCPU 1 is local to none "
		"(<memory-node cpus>)");
}

/* perfvisor partitions and counts a VM as a whole: a tune or a monitor of part of its vCPUs
 * is not applied / not measured, and says why. */
static void test_part_of_a_vm(void **state)
{
	(void)state;
	const char *dom = tt_write_tmp(
		"half.xml", "<domain type='kvm'><name>half</name><vcpu>2</vcpu><cputune>"
			    "<memorytune vcpus='0'><node id='0' bandwidth='10'/>"
			    "<monitor vcpus='0'/></memorytune></cputune></domain>");
	const char *slash = strrchr(dom, '/');
	char scen[1024];
	snprintf(scen, sizeof(scen),
		 "<scenario xmlns='http://perfvisor.invalid/xmlns/scenario/1'>"
		 "<machine cpus='1'><mpam partids='4'/></machine>"
		 "<vm file='%s'><workload profile='stream'/></vm></scenario>",
		 slash + 1);
	const char *path = tt_write_tmp("half-scen.xml", scen);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), TOOL_BIN " run %s", path);
	struct cmd_result r = tt_run(cmd, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "no (perfvisor limits a VM as a whole; this tune covers "
				      "vCPUs 0 of 0-1)\n"));
	assert_non_null(strstr(r.out, "half: memory-bandwidth monitor vcpus_0 not offered: "
				      "perfvisor counts a VM's bandwidth as a whole"));
	assert_null(strstr(r.out, "MEMORY BANDWIDTH"));
	/* Nothing capped: the traffic moved is the traffic asked for. */
	assert_non_null(strstr(r.out, "\nMEMORY TRAFFIC ("));
	tt_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_bites),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_no_data),
		cmocka_unit_test(test_local_pmg_range),
		cmocka_unit_test(test_local_no_topology),
		cmocka_unit_test(test_part_of_a_vm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
