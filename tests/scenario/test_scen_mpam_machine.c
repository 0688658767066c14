/* SPDX-License-Identifier: MIT */
/*
 * MPAM as part of the simulated machine's run (sim/mpam_machine.h): the pCPUs' MPAM registers
 * reached by the library and by guests through the modelled trap routing, vmpam set up by the
 * machine, and every running vCPU's memory traffic labelled by the CPU model, throttled and
 * counted by the MSCs. Checked against the traffic model's ground truth:
 *   - whatever guests write to MPAM1_EL1/MPAM0_EL1, no byte carries a foreign PARTID and no
 *     MSC records an error;
 *   - with enough monitors, bytes per VM per node equal the truth exactly;
 *   - a cap bites: the capped VM moves at most its share, the same workload uncapped more;
 *   - with too few monitors (rotation) every figure lies within its bound;
 *   - the run is deterministic.
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

#include "perfvisor/mpam_regs.h"
#include "scen.h"

#define GB UINT64_C(1000000000)

struct rig {
	struct sim_machine *m;
	struct sim_prog prog[SIM_MAX_VCPUS];
	unsigned nprog;
};

/* Two pCPUs, memory nodes 0 (local to pCPU 0) and 1, 10 GB/s each. */
static struct sim_config machine(uint16_t mons, bool hcr)
{
	struct sim_config c = scen_config(7, 6, 0, 2000, 30000);
	c.cpus = 2;
	c.mpam = (struct sim_mpam_config){.nodes = 0x3,
					  .capacity = {10 * GB, 10 * GB},
					  .mons = mons,
					  .partid_max = 63,
					  .pmg_max = 1,
					  .no_hcr = !hcr,
					  .cache_portions = 16,
					  .nrdy_ns = 20000};
	return c;
}

static struct rig *rig_new(const struct sim_config *c)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->m = scen_machine(c);
	assert_non_null(r->m);
	assert_non_null(r->m->mpam_machine);
	assert_true(r->m->hw.mpam);
	assert_ptr_equal(r->m->hw.mpam_sys, &r->m->mpam_machine->sys);
	return r;
}

static void rig_free(struct rig *r)
{
	for (unsigned i = 0; i < r->nprog; i++)
		sim_prog_free(&r->prog[i]);
	sim_mpam_machine_free(r->m);
	scen_free(r->m);
	free(r);
}

static int add_vm(struct rig *r, uint32_t features, uint8_t nr_partids, unsigned cap_node,
		  unsigned cap_pct)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 2);
	cfg.features |= features;
	cfg.mpam.nr_partids = nr_partids;
	if (cap_pct)
		cfg.mpam.mbw_max[cap_node] = (uint8_t)cap_pct;
	int vm = sim_add_vm(r->m, &cfg);
	assert_true(vm >= 0);
	return vm;
}

/* A vCPU of `vm` on `cpu` working at EL0 and EL1 in turns, demanding `rate` on `node` (and
 * rate / 4 on `node2` when it differs). */
static unsigned add_vcpu(struct rig *r, int vm, unsigned cpu, uint64_t insts, unsigned node,
			 unsigned node2, uint64_t rate)
{
	struct sim_prog *p = &r->prog[r->nprog++];
	sim_prog_init(p);
	for (uint64_t done = 0, k = 0; done < insts; done += 100000, k++)
		sim_prog_workload(p, k & 1, SIM_PROF_MEM, 100000);
	int v = sim_add_vcpu(r->m, (unsigned)vm, cpu, p);
	assert_true(v >= 0);
	assert_int_equal(sim_mpam_machine_traffic(r->m, (unsigned)v, node, rate, 60), 0);
	if (node2 != node)
		assert_int_equal(
			sim_mpam_machine_traffic(r->m, (unsigned)v, node2, rate / 4, 60), 0);
	return (unsigned)v;
}

/* The MSC's own truth for a VM: bytes labelled with its PARTIDs. */
static uint64_t partid_truth(const struct rig *r, unsigned vm, unsigned node)
{
	const struct pv_vm_mpam *v = &r->m->vm[vm].pv.mpam;
	uint64_t t = 0;
	for (unsigned p = 0; p < v->nr_partids; p++)
		t += sim_mpam_truth(&r->m->mpam_machine->mp, node, v->partid[p]);
	return t;
}

static void expect_exact(const struct rig *r, const char *tag)
{
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	for (unsigned vm = 0; vm < r->m->nvms; vm++)
		for (unsigned node = 0; node < 2; node++) {
			struct pv_vmpam_reading rd;
			int st = pv_vmpam_read(&mm->sys, &r->m->vm[vm].pv.mpam, node, &rd);
			uint64_t truth = sim_mpam_machine_vm_bytes(r->m, vm, node, false);
			if (st != PV_VMPAM_MEASURED || rd.bytes != truth ||
			    partid_truth(r, vm, node) != truth)
				fprintf(stderr,
					"%s: VM %u node %u: status %d, %" PRIu64
					" bytes, truth %" PRIu64 " (by PARTID %" PRIu64 ")\n",
					tag, vm, node, st, rd.bytes, truth,
					partid_truth(r, vm, node));
			assert_int_equal(st, PV_VMPAM_MEASURED);
			assert_int_equal(rd.bound, 0);
			assert_int_equal(rd.bytes, truth);
			assert_int_equal(partid_truth(r, vm, node), truth);
			assert_int_equal(rd.at_ns, sim_mpam_machine_now(r->m));
		}
}

static void expect_isolated(const struct rig *r, const char *tag)
{
	assert_int_equal(sim_mpam_machine_foreign_bytes(r->m), 0);
	assert_int_equal(sim_mpam_machine_msc_errors(r->m), 0);
	assert_int_equal(r->m->mpam_machine->sys.stats.msc_errors, 0);
	assert_int_equal(r->m->mpam_machine->late_ns, 0);
	assert_int_equal(scen_hygiene(r->m, tag), 0);
	for (unsigned i = 0; i < r->nprog; i++) {
		for (size_t k = 0; r->prog[i].unexpected && k < r->prog[i].n; k++) {
			const struct sim_op *op = &r->prog[i].ops[k];
			if (op->outcome != op->expect)
				fprintf(stderr,
					"%s: program %u op %zu (key 0x%06x, EL%u): %s, "
					"expected "
					"%s\n",
					tag, i, k, op->key, op->el,
					sim_outcome_name((enum sim_outcome)op->outcome),
					sim_outcome_name((enum sim_outcome)op->expect));
		}
		assert_int_equal(r->prog[i].unexpected, 0);
	}
}

/* Three VMs over two pCPUs and two nodes, one of them with a vCPU on each pCPU: every VM's
 * bytes on every node are exactly the bytes its vCPUs moved. */
static void test_exact(void **state)
{
	(void)state;
	struct sim_config c = machine(8, true);
	struct rig *r = rig_new(&c);
	int a = add_vm(r, 0, 1, 0, 0), b = add_vm(r, PV_FEAT_MPAM, 1, 0, 0),
	    d = add_vm(r, 0, 2, 0, 0);
	add_vcpu(r, a, 0, 3000000, 0, 1, 3 * GB);
	add_vcpu(r, b, 0, 2000000, 0, 0, 2 * GB);
	add_vcpu(r, b, 1, 2500000, 1, 0, 2 * GB);
	add_vcpu(r, d, 1, 3000000, 1, 1, 4 * GB);
	sim_run(r->m);
	expect_isolated(r, "exact");
	expect_exact(r, "exact");
	for (unsigned vm = 0; vm < 3; vm++)
		assert_true(sim_mpam_machine_vm_bytes(r->m, vm, 0, false) +
				    sim_mpam_machine_vm_bytes(r->m, vm, 1, false) >
			    1000000);
	/* Nothing throttled: below every node's capacity, no cap. */
	for (unsigned v = 0; v < r->m->nvcpus; v++)
		for (unsigned n = 0; n < 2; n++)
			assert_int_equal(sim_mpam_machine_vcpu_bytes(r->m, v, n, false),
					 sim_mpam_machine_vcpu_bytes(r->m, v, n, true));
	/* The memory system caught up with the last pCPU, and vmpam ticked there. */
	uint64_t hi = 0;
	for (unsigned i = 0; i < 2; i++)
		hi = r->m->cpu[i].time > hi ? r->m->cpu[i].time : hi;
	assert_int_equal(sim_mpam_machine_now(r->m), sim_mpam_machine_start(r->m) + hi);
	assert_int_equal(r->m->mpam_machine->sys.now, sim_mpam_machine_now(r->m));
	rig_free(r);
}

/* A guest program that writes random labels to MPAM1_EL1 and MPAM0_EL1 (through the
 * modelled routing: trapped to EL2, pv_trap), reads them and MPAMIDR_EL1 back, tries EL0 and
 * EL2 accesses, and works at EL0 and EL1 in between. */
static void random_mpam_prog(struct sim_prog *p, uint64_t *rng, bool visible, unsigned nops)
{
	enum sim_outcome el1 = visible ? SIM_OUT_OK : SIM_OUT_UNDEF;
	for (unsigned i = 0; i < nops; i++) {
		uint64_t x = scen_rand(rng);
		switch (x % 8) {
		case 0:
		case 1:
			sim_prog_msr(p, 1, x & 8 ? PV_MPAM1_EL1 : PV_MPAM0_EL1, scen_rand(rng));
			sim_prog_expect(p, p->n - 1, el1);
			break;
		case 2:
			/* Small virtual PARTIDs: mostly the VM's own, some beyond them. */
			sim_prog_msr(p, 1, x & 8 ? PV_MPAM1_EL1 : PV_MPAM0_EL1,
				     (x >> 8 & 7) | (x >> 12 & 7) << 16 | (x >> 16 & 3) << 40);
			sim_prog_expect(p, p->n - 1, el1);
			break;
		case 3:
			sim_prog_mrs(p, 1, x & 8 ? PV_MPAMIDR_EL1 : PV_MPAM1_EL1);
			sim_prog_expect(p, p->n - 1, el1);
			break;
		case 4:
			sim_prog_msr(p, 0, PV_MPAM0_EL1, x);
			sim_prog_expect(p, p->n - 1, SIM_OUT_UNDEF);
			sim_prog_msr(p, 1, x & 8 ? PV_MPAM2_EL2 : PV_MPAMVPM_EL2(0), x);
			sim_prog_expect(p, p->n - 1, SIM_OUT_UNDEF);
			break;
		default:
			sim_prog_workload(p, x >> 5 & 1, SIM_PROF_MEM,
					  20000 + (x >> 8) % 60000);
			break;
		}
	}
}

static void guest_writes(bool hcr)
{
	struct sim_config c = machine(8, hcr);
	struct rig *r = rig_new(&c);
	uint64_t rng = hcr ? 11 : 12;
	int vm[3] = {add_vm(r, PV_FEAT_MPAM, 4, 0, 0), add_vm(r, PV_FEAT_MPAM, 1, 0, 0),
		     add_vm(r, 0, 1, 0, 0)};
	for (unsigned i = 0; i < 3; i++) {
		for (unsigned cpu = 0; cpu < 2; cpu++) {
			struct sim_prog *p = &r->prog[r->nprog++];
			sim_prog_init(p);
			random_mpam_prog(p, &rng, i < 2, 400);
			int v = sim_add_vcpu(r->m, (unsigned)vm[i], cpu, p);
			assert_true(v >= 0);
			assert_int_equal(
				sim_mpam_machine_traffic(r->m, (unsigned)v, cpu, 3 * GB, 50),
				0);
			assert_int_equal(
				sim_mpam_machine_traffic(r->m, (unsigned)v, !cpu, GB, 50), 0);
		}
	}
	sim_run(r->m);
	expect_isolated(r, hcr ? "guest writes, VPM" : "guest writes, software map");
	expect_exact(r, "guest writes");
	/* The writes took effect: VM 0's traffic carried several of its PARTIDs. */
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	uint64_t seen = 0;
	for (unsigned g = 0; g < mm->ngen; g++)
		if (r->m->vcpu[mm->gen[g].vcpu].vm->idx == 0)
			seen |= UINT64_C(1) << (mm->gen[g].partid & 63);
	assert_true(__builtin_popcountll(seen) >= 3);
	/* The MSR traps were taken, and the MPAMIDR_EL1 view read back is the VM's. */
	unsigned traps = 0;
	for (unsigned i = 0; i < r->nprog; i++)
		for (size_t k = 0; k < r->prog[i].n; k++) {
			const struct sim_op *op = &r->prog[i].ops[k];
			if (op->kind == SIM_OP_MSR && op->key == PV_MPAM1_EL1 && op->el == 1)
				traps += op->trapped;
			if (op->kind == SIM_OP_MRS && op->key == PV_MPAMIDR_EL1 &&
			    op->outcome == SIM_OUT_OK)
				assert_int_equal(op->value, r->m->vm[i / 2].pv.mpam.mpamidr);
		}
	assert_true(traps > 50);
	rig_free(r);
}

static void test_guest_writes_vpm(void **state)
{
	(void)state;
	guest_writes(true);
}

static void test_guest_writes_software_map(void **state)
{
	(void)state;
	guest_writes(false);
}

/* The same workload twice on node 0, one VM capped at 20 %: the capped one moves at most 20 %
 * of the node per window (its MBW_MAX: 51/256), the other all it asks for. */
static void test_cap_bites(void **state)
{
	(void)state;
	struct sim_config c = machine(8, true);
	struct rig *r = rig_new(&c);
	int capped = add_vm(r, 0, 1, 0, 20), free_vm = add_vm(r, 0, 1, 0, 0);
	add_vcpu(r, capped, 0, 4000000, 0, 0, 6 * GB);
	add_vcpu(r, free_vm, 1, 4000000, 0, 0, 6 * GB);
	sim_run(r->m);
	expect_isolated(r, "cap");
	expect_exact(r, "cap");
	double secs = (double)(sim_mpam_machine_now(r->m) - sim_mpam_machine_start(r->m)) / 1e9;
	double got = (double)sim_mpam_machine_vm_bytes(r->m, 0, 0, false) / secs;
	double asked = (double)sim_mpam_machine_vm_bytes(r->m, 0, 0, true) / secs;
	double other = (double)sim_mpam_machine_vm_bytes(r->m, 1, 0, false) / secs;
	double cap = 10e9 * 51.0 / 256.0;
	fprintf(stderr,
		"capped VM: asked %.3f GB/s, moved %.3f GB/s (cap %.3f); uncapped: %.3f "
		"GB/s\n",
		asked / 1e9, got / 1e9, cap / 1e9, other / 1e9);
	assert_true(got <= cap * 1.001);
	assert_true(got >= cap * 0.9); /* it bites: at about the cap */
	assert_true(asked > cap * 2);  /* while the workload asks for more */
	assert_true(other > got * 2);  /* the same workload uncapped */
	rig_free(r);
}

/* Five VMs, two monitors per node: the monitors rotate, every figure is an estimate within
 * its bound, and MEASURED only where monitors stayed. */
static void test_rotation_within_bound(void **state)
{
	(void)state;
	struct sim_config c = machine(2, true);
	c.mpam.tick_ns = 200000;
	struct rig *r = rig_new(&c);
	for (unsigned i = 0; i < 5; i++) {
		int vm = add_vm(r, 0, 1, 0, 0);
		add_vcpu(r, vm, i % 2, 2000000 + 300000 * i, i % 2, !(i % 2), (1 + i) * GB / 2);
	}
	sim_run(r->m);
	expect_isolated(r, "rotation");
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	assert_true(mm->sys.node[0].rotating);
	unsigned estimated = 0;
	for (unsigned vm = 0; vm < 5; vm++)
		for (unsigned node = 0; node < 2; node++) {
			struct pv_vmpam_reading rd;
			int st = pv_vmpam_read(&mm->sys, &r->m->vm[vm].pv.mpam, node, &rd);
			uint64_t truth = sim_mpam_machine_vm_bytes(r->m, vm, node, false);
			assert_true(st == PV_VMPAM_MEASURED || st == PV_VMPAM_ESTIMATED);
			estimated += st == PV_VMPAM_ESTIMATED;
			uint64_t err = rd.bytes > truth ? rd.bytes - truth : truth - rd.bytes;
			if (err > rd.bound)
				fprintf(stderr,
					"VM %u node %u: %" PRIu64 " +- %" PRIu64
					", truth %" PRIu64 "\n",
					vm, node, rd.bytes, rd.bound, truth);
			assert_true(err <= rd.bound);
		}
	assert_true(estimated >= 5);
	rig_free(r);
}

/* Same configuration, same figures and truth, byte for byte. */
static void test_deterministic(void **state)
{
	(void)state;
	uint64_t first[3][2] = {{0}};
	for (unsigned round = 0; round < 2; round++) {
		struct sim_config c = machine(8, true);
		struct rig *r = rig_new(&c);
		int a = add_vm(r, 0, 1, 0, 25), b = add_vm(r, 0, 1, 0, 0);
		add_vcpu(r, a, 0, 1500000, 0, 1, 5 * GB);
		add_vcpu(r, b, 0, 1500000, 0, 1, 5 * GB);
		add_vcpu(r, b, 1, 1500000, 1, 0, 5 * GB);
		sim_run(r->m);
		for (unsigned vm = 0; vm < 2; vm++)
			for (unsigned n = 0; n < 2; n++) {
				uint64_t t = sim_mpam_machine_vm_bytes(r->m, vm, n, false);
				if (round)
					assert_int_equal(t, first[vm][n]);
				first[vm][n] = t;
			}
		rig_free(r);
	}
}

/* A machine without sim_config.mpam: no MPAM in its ID registers, its MPAM registers UNDEF,
 * and the library manages none. */
static void test_without_mpam(void **state)
{
	(void)state;
	struct sim_config c = scen_config(1, 6, 0, 2000, 20000);
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	assert_null(m->mpam_machine);
	assert_false(m->hw.mpam);
	assert_null(m->hw.mpam_sys);
	assert_int_equal(sim_cpu_route(&m->cpu[0], PV_MPAM1_EL1, false, 1), SIM_ROUTE_UNDEF);
	uint64_t v;
	assert_int_equal(sim_cpu_read(&m->cpu[0], 2, PV_MPAMIDR_EL1, &v), SIM_ACC_UNKNOWN);
	assert_int_equal(sim_mpam_machine_traffic(m, 0, 0, GB, 50), -1);
	sim_mpam_machine_flush(m);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_guest_writes_vpm),
		cmocka_unit_test(test_guest_writes_software_map),
		cmocka_unit_test(test_cap_bites),
		cmocka_unit_test(test_rotation_within_bound),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_without_mpam),
	};
	return cmocka_run_group_tests_name("scen_mpam_machine", tests, NULL, NULL);
}
