/* SPDX-License-Identifier: MIT */
/*
 * Local bytes (libvirt's memory.bandwidth.monitor.<N>.node.<M>.bytes.local) on the simulated
 * machine: two pCPUs, memory node 0 local to pCPU 0 and node 1 to pCPU 1, vmpam told so. The
 * physical PMG of a running vCPU is its pCPU's node, whatever the guest writes, and monitors
 * matching PARTID and PMG = M count the bytes pCPUs local to node M sent there. The ground
 * truth does not look at labels: it is the bytes each generator moved while its vCPU ran on a
 * pCPU whose node is M (sim_mpam_machine_vm_local_bytes). Checked:
 *   - with enough monitors, local and total bytes per VM per node equal the truth exactly,
 *     and differ where a vCPU sends to the other node;
 *   - vCPUs migrating between the pCPUs (by hypercall) are relabelled at every load: still
 *     exact, with both local and remote parts;
 *   - guests writing random PMGs change nothing on the bus: every label's PMG is the node of
 *     the pCPU that sent it;
 *   - with too few monitors, total and local accounts rotate alike, within their bounds;
 *   - without the topology, or with PMG_MAX below nodes - 1, no local figure (NO_DATA), and
 *     the totals stay exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfvisor/mpam_regs.h"
#include "scen.h"

#define GB UINT64_C(1000000000)

struct rig {
	struct sim_machine *m;
	struct sim_prog prog[SIM_MAX_VCPUS];
	unsigned nprog;
};

/* Two pCPUs, nodes 0 and 1 of 10 GB/s, node n local to pCPU n; `topology`: vmpam knows it. */
static struct sim_config machine(uint16_t mons, uint8_t pmg_max, bool topology, bool hcr)
{
	struct sim_config c = scen_config(5, 6, 0, 2000, 30000);
	c.cpus = 2;
	c.mpam = (struct sim_mpam_config){.nodes = 0x3,
					  .capacity = {10 * GB, 10 * GB},
					  .mons = mons,
					  .partid_max = 63,
					  .pmg_max = pmg_max,
					  .no_hcr = !hcr,
					  .nrdy_ns = 20000,
					  .topology = topology,
					  .cpu_node = {0, 1}};
	return c;
}

static struct rig *rig_new(const struct sim_config *c)
{
	struct rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	r->m = scen_machine(c);
	assert_non_null(r->m);
	assert_non_null(r->m->mpam_machine);
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

static const struct pv_vmpam_sys *sys(const struct rig *r)
{
	return &r->m->mpam_machine->sys;
}

static int add_vm(struct rig *r, uint32_t features, uint8_t nr_partids)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 2);
	cfg.features |= features;
	cfg.mpam.nr_partids = nr_partids;
	int vm = sim_add_vm(r->m, &cfg);
	assert_true(vm >= 0);
	return vm;
}

/* A vCPU of `vm` on `cpu` working at EL0 and EL1 in turns, `migrate`: hopping to the other
 * pCPU every few chunks. It demands rate[n] on node n. */
static unsigned add_vcpu(struct rig *r, int vm, unsigned cpu, uint64_t insts, bool migrate,
			 uint64_t rate0, uint64_t rate1)
{
	struct sim_prog *p = &r->prog[r->nprog++];
	sim_prog_init(p);
	for (uint64_t done = 0, k = 0; done < insts; done += 100000, k++) {
		sim_prog_workload(p, k & 1, SIM_PROF_MEM, 100000);
		if (migrate && k % 3 == 2)
			sim_prog_migrate(p, (unsigned)(k / 3 + cpu) % 2);
	}
	int v = sim_add_vcpu(r->m, (unsigned)vm, cpu, p);
	assert_true(v >= 0);
	if (rate0)
		assert_int_equal(sim_mpam_machine_traffic(r->m, (unsigned)v, 0, rate0, 60), 0);
	if (rate1)
		assert_int_equal(sim_mpam_machine_traffic(r->m, (unsigned)v, 1, rate1, 60), 0);
	return (unsigned)v;
}

static void expect_clean(const struct rig *r, const char *tag)
{
	assert_int_equal(sim_mpam_machine_foreign_bytes(r->m), 0);
	assert_int_equal(sim_mpam_machine_msc_errors(r->m), 0);
	assert_int_equal(sys(r)->stats.msc_errors, 0);
	assert_int_equal(r->m->mpam_machine->late_ns, 0); /* no traffic dropped */
	assert_int_equal(scen_hygiene(r->m, tag), 0);
	for (unsigned i = 0; i < r->nprog; i++)
		assert_int_equal(r->prog[i].unexpected, 0);
}

/* Every label on the bus carries, as PMG, the node local to the pCPU that sent it. */
static void expect_node_labels(const struct rig *r)
{
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	assert_true(mm->ngen > 0);
	for (unsigned g = 0; g < mm->ngen; g++)
		assert_int_equal(mm->gen[g].pmg, mm->cfg.cpu_node[mm->gen[g].cpu]);
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Local and total bytes of every VM on every node: exact (MEASURED, bound 0, equal to the
 * truth) or, with `rotating`, within the bound. Returns the VMs' local bytes, all nodes. */
static uint64_t expect_figures(const struct rig *r, bool rotating, const char *tag)
{
	uint64_t local_sum = 0;
	for (unsigned vm = 0; vm < r->m->nvms; vm++)
		for (unsigned node = 0; node < 2; node++) {
			const struct pv_vm_mpam *v = &r->m->vm[vm].pv.mpam;
			struct pv_vmpam_reading tot, loc;
			int st = pv_vmpam_read(sys(r), v, node, &tot);
			int sl = pv_vmpam_read_local(sys(r), v, node, &loc);
			uint64_t t_truth = sim_mpam_machine_vm_bytes(r->m, vm, node, false);
			uint64_t l_truth = sim_mpam_machine_vm_local_bytes(r->m, vm, node);
			if (diff(tot.bytes, t_truth) > tot.bound ||
			    diff(loc.bytes, l_truth) > loc.bound ||
			    (!rotating && (st != PV_VMPAM_MEASURED || sl != PV_VMPAM_MEASURED)))
				fprintf(stderr,
					"%s: VM %u node %u: total %d %" PRIu64 " +- %" PRIu64
					" (truth %" PRIu64 "), local %d %" PRIu64 " +- %" PRIu64
					" (truth %" PRIu64 ")\n",
					tag, vm, node, st, tot.bytes, tot.bound, t_truth, sl,
					loc.bytes, loc.bound, l_truth);
			assert_true(l_truth <= t_truth);
			if (rotating) {
				assert_true(st == PV_VMPAM_MEASURED ||
					    st == PV_VMPAM_ESTIMATED);
				assert_true(sl == PV_VMPAM_MEASURED ||
					    sl == PV_VMPAM_ESTIMATED);
				assert_true(diff(tot.bytes, t_truth) <= tot.bound);
				assert_true(diff(loc.bytes, l_truth) <= loc.bound);
			} else {
				assert_int_equal(st, PV_VMPAM_MEASURED);
				assert_int_equal(sl, PV_VMPAM_MEASURED);
				assert_int_equal(tot.bound, 0);
				assert_int_equal(loc.bound, 0);
				assert_int_equal(tot.bytes, t_truth);
				assert_int_equal(loc.bytes, l_truth);
				assert_int_equal(loc.at_ns, sim_mpam_machine_now(r->m));
			}
			local_sum += l_truth;
		}
	return local_sum;
}

/* Three VMs: one sending only to its own node, one with a vCPU on each pCPU sending to both
 * nodes, one on pCPU 1 sending mostly to node 0 (remote). */
static void exact(bool hcr)
{
	struct sim_config c = machine(8, 1, true, hcr);
	struct rig *r = rig_new(&c);
	assert_int_equal(sys(r)->local, PV_VMPAM_LOCAL_COUNTED);
	int a = add_vm(r, 0, 1), b = add_vm(r, PV_FEAT_MPAM, 2), d = add_vm(r, 0, 1);
	add_vcpu(r, a, 0, 3000000, false, 3 * GB, 0);
	add_vcpu(r, b, 0, 2000000, false, 2 * GB, GB);
	add_vcpu(r, b, 1, 2500000, false, GB / 2, 2 * GB);
	add_vcpu(r, d, 1, 3000000, false, 3 * GB, GB / 4);
	sim_run(r->m);
	expect_clean(r, "local exact");
	expect_node_labels(r);
	expect_figures(r, false, "local exact");
	/* VM a: all local on node 0, none on node 1. */
	assert_int_equal(sim_mpam_machine_vm_local_bytes(r->m, 0, 0),
			 sim_mpam_machine_vm_bytes(r->m, 0, 0, false));
	assert_true(sim_mpam_machine_vm_bytes(r->m, 0, 0, false) > 1000000);
	/* VM b: on each node, part local (its vCPU there), part remote (the other). */
	for (unsigned n = 0; n < 2; n++) {
		uint64_t t = sim_mpam_machine_vm_bytes(r->m, 1, n, false);
		uint64_t l = sim_mpam_machine_vm_local_bytes(r->m, 1, n);
		assert_true(l > 100000 && t > l + 100000);
	}
	/* VM d on pCPU 1: nothing local on node 0, everything local on node 1. */
	assert_int_equal(sim_mpam_machine_vm_local_bytes(r->m, 2, 0), 0);
	assert_true(sim_mpam_machine_vm_bytes(r->m, 2, 0, false) > 1000000);
	assert_int_equal(sim_mpam_machine_vm_local_bytes(r->m, 2, 1),
			 sim_mpam_machine_vm_bytes(r->m, 2, 1, false));
	rig_free(r);
}

static void test_exact_vpm(void **state)
{
	(void)state;
	exact(true);
}

static void test_exact_software_map(void **state)
{
	(void)state;
	exact(false);
}

/* vCPUs hopping between the pCPUs: the label follows the pCPU at every load, and the local
 * figures stay exact. Each pCPU keeps a vCPU that stays, so neither idles (the memory model
 * drops the traffic of a pCPU whose clock fell behind while idle). */
static void test_migration(void **state)
{
	(void)state;
	struct sim_config c = machine(8, 1, true, true);
	struct rig *r = rig_new(&c);
	int a = add_vm(r, 0, 1), b = add_vm(r, 0, 1), d = add_vm(r, 0, 1);
	unsigned va = add_vcpu(r, a, 0, 4000000, true, 2 * GB, GB);
	add_vcpu(r, b, 1, 4000000, true, GB, 2 * GB);
	add_vcpu(r, b, 0, 6000000, false, GB, 0);
	add_vcpu(r, d, 1, 6000000, false, 0, GB);
	sim_run(r->m);
	expect_clean(r, "local migration");
	expect_node_labels(r);
	expect_figures(r, false, "local migration");
	/* VM a ran on both pCPUs: both nodes got local and remote bytes from it. */
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	unsigned cpus = 0;
	for (unsigned g = 0; g < mm->ngen; g++)
		if (mm->gen[g].vcpu == va)
			cpus |= 1u << mm->gen[g].cpu;
	assert_int_equal(cpus, 3);
	for (unsigned n = 0; n < 2; n++) {
		uint64_t t = sim_mpam_machine_vm_bytes(r->m, 0, n, false);
		uint64_t l = sim_mpam_machine_vm_local_bytes(r->m, 0, n);
		assert_true(l > 100000 && t > l + 100000);
	}
	rig_free(r);
}

/* Guests writing random labels, PMGs included: the bus carries the node, every local figure
 * is exact, no MSC error. */
static void test_guest_pmgs_stay_virtual(void **state)
{
	(void)state;
	struct sim_config c = machine(8, 3, true, true);
	struct rig *r = rig_new(&c);
	uint64_t rng = 99;
	for (unsigned i = 0; i < 2; i++) {
		int vm = add_vm(r, PV_FEAT_MPAM, 2);
		for (unsigned cpu = 0; cpu < 2; cpu++) {
			struct sim_prog *p = &r->prog[r->nprog++];
			sim_prog_init(p);
			for (unsigned k = 0; k < 60; k++) {
				uint64_t x = scen_rand(&rng);
				/* PARTIDs 0..1 (the VM's), PMGs 0..3 (all valid, PMG_MAX 3) */
				sim_prog_msr(p, 1, x & 1 ? PV_MPAM1_EL1 : PV_MPAM0_EL1,
					     (x >> 4 & 1) | (x >> 5 & 1) << 16 |
						     (x >> 6 & 3) << 32 | (x >> 8 & 3) << 40);
				sim_prog_workload(p, x >> 10 & 1, SIM_PROF_MEM, 30000);
				if (k % 20 == 19)
					sim_prog_migrate(p, (unsigned)(x >> 11 & 1));
			}
			/* The guest reads its own PMG back, not the node. */
			sim_prog_msr(p, 1, PV_MPAM1_EL1, UINT64_C(3) << 32 | UINT64_C(2) << 40);
			sim_prog_mrs(p, 1, PV_MPAM1_EL1);
			int v = sim_add_vcpu(r->m, (unsigned)vm, cpu, p);
			assert_true(v >= 0);
			assert_int_equal(
				sim_mpam_machine_traffic(r->m, (unsigned)v, cpu, 3 * GB, 50),
				0);
			assert_int_equal(
				sim_mpam_machine_traffic(r->m, (unsigned)v, !cpu, GB, 50), 0);
		}
	}
	sim_run(r->m);
	expect_clean(r, "guest PMGs");
	expect_node_labels(r);
	expect_figures(r, false, "guest PMGs");
	for (unsigned i = 0; i < r->nprog; i++) {
		const struct sim_op *op = &r->prog[i].ops[r->prog[i].n - 1];
		assert_int_equal(op->outcome, SIM_OUT_OK);
		assert_int_equal(op->value, UINT64_C(3) << 32 | UINT64_C(2) << 40 | PV_BIT(63));
	}
	rig_free(r);
}

/* Five VMs, three monitors per node for ten accounts: total and local accounts rotate, every
 * figure within its bound. */
static void test_rotation(void **state)
{
	(void)state;
	struct sim_config c = machine(3, 1, true, true);
	c.mpam.tick_ns = 200000;
	struct rig *r = rig_new(&c);
	for (unsigned i = 0; i < 5; i++) {
		int vm = add_vm(r, 0, 1);
		add_vcpu(r, vm, i % 2, 2000000 + 300000 * i, i == 0, (1 + i) * GB / 2,
			 (5 - i) * GB / 4);
	}
	sim_run(r->m);
	expect_clean(r, "local rotation");
	assert_true(sys(r)->node[0].rotating && sys(r)->node[1].rotating);
	assert_true(sys(r)->stats.samples > 0);
	assert_true(expect_figures(r, true, "local rotation") > 1000000);
	unsigned estimated = 0;
	for (unsigned vm = 0; vm < 5; vm++) {
		struct pv_vmpam_reading rd;
		estimated += pv_vmpam_read_local(sys(r), &r->m->vm[vm].pv.mpam, vm % 2, &rd) ==
			     PV_VMPAM_ESTIMATED;
	}
	assert_int_equal(estimated, 5);
	rig_free(r);
}

/* No local figure without the topology, or with one PMG for two nodes; the totals are the
 * same exact figures as ever. */
static void no_local(bool topology, uint8_t pmg_max, enum pv_vmpam_local why)
{
	struct sim_config c = machine(8, pmg_max, topology, true);
	struct rig *r = rig_new(&c);
	assert_int_equal(sys(r)->local, why);
	int a = add_vm(r, 0, 1), b = add_vm(r, 0, 1);
	add_vcpu(r, a, 0, 2000000, false, 2 * GB, GB);
	add_vcpu(r, b, 1, 2000000, false, GB, 2 * GB);
	sim_run(r->m);
	expect_clean(r, "no local");
	for (unsigned vm = 0; vm < 2; vm++)
		for (unsigned node = 0; node < 2; node++) {
			struct pv_vmpam_reading rd;
			assert_int_equal(
				pv_vmpam_read_local(sys(r), &r->m->vm[vm].pv.mpam, node, &rd),
				PV_VMPAM_NO_DATA);
			assert_int_equal(rd.bytes, 0);
			assert_int_equal(rd.bound, 0);
			assert_int_equal(
				pv_vmpam_read(sys(r), &r->m->vm[vm].pv.mpam, node, &rd),
				PV_VMPAM_MEASURED);
			assert_int_equal(rd.bytes,
					 sim_mpam_machine_vm_bytes(r->m, vm, node, false));
		}
	/* The hardware PMG is the guest's (0 here), not the node. */
	const struct sim_mpam_machine *mm = r->m->mpam_machine;
	for (unsigned g = 0; g < mm->ngen; g++)
		assert_int_equal(mm->gen[g].pmg, 0);
	rig_free(r);
}

static void test_no_topology(void **state)
{
	(void)state;
	no_local(false, 1, PV_VMPAM_LOCAL_NO_TOPOLOGY);
}

static void test_pmg_max_too_small(void **state)
{
	(void)state;
	no_local(true, 0, PV_VMPAM_LOCAL_PMG_RANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_vpm),
		cmocka_unit_test(test_exact_software_map),
		cmocka_unit_test(test_migration),
		cmocka_unit_test(test_guest_pmgs_stay_virtual),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_no_topology),
		cmocka_unit_test(test_pmg_max_too_small),
	};
	return cmocka_run_group_tests_name("scen_mpam_local", tests, NULL, NULL);
}
