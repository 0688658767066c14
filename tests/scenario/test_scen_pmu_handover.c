/* SPDX-License-Identifier: MIT */
/*
 * What a vCPU finds in the pCPU's PMU when it is loaded and what it leaves there at put,
 * whatever another occupant left: a load puts exactly the vCPU's own state in the guests'
 * part of the PMU ([0, HPMN) and the cycle counter) and nothing of it into the host's part; a
 * put saves no bit of the host's counters into the vCPU's state and gives the pCPU back its
 * own registers, for passthrough and direct VMs alike. And the trap words of a VM with
 * direct access route to EL2 what its event filter needs (the event types, PMCEID0/1_EL0)
 * and PMMIR_EL1, and nothing else, as the Arm ARM's routing (the machine model's) decides.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "perfvisor/trap.h"
#include "scen.h"

#define COUNTERS 6
#define HOST 1
#define HPMN (COUNTERS - HOST)
#define HOST_BIT (1u << HPMN)
#define MINE (((1u << HPMN) - 1) | 1u << 31) /* the guests' counters and the cycle counter */

static struct sim_machine *machine(bool fgt)
{
	struct sim_config c = scen_config(7, COUNTERS, HOST, 2000, 20000);
	c.fgt = fgt;
	return scen_machine(&c);
}

static uint64_t hw(struct sim_machine *m, uint32_t key)
{
	uint64_t v = 0;
	assert_int_equal(sim_cpu_read(&m->cpu[0], 2, key, &v), SIM_ACC_OK);
	return v;
}

static void hw_set(struct sim_machine *m, uint32_t key, uint64_t v)
{
	assert_int_equal(sim_cpu_write(&m->cpu[0], 2, key, v), SIM_ACC_OK);
}

/* Every enable, interrupt enable and overflow of the whole PMU set, the host's counter's
 * included, and PMCR.E: what a host or a careless earlier occupant could leave. */
static void litter(struct sim_machine *m)
{
	const uint64_t all = MINE | HOST_BIT;
	hw_set(m, PV_PMCNTENSET_EL0, all);
	hw_set(m, PV_PMINTENSET_EL1, all);
	hw_set(m, PV_PMOVSSET_EL0, all);
	hw_set(m, PV_PMCR_EL0, hw(m, PV_PMCR_EL0) | PV_PMCR_E);
}

/* A VM whose PMU registers are the hardware's while it runs: passthrough, or direct (on a
 * machine with FEAT_FGT), with fewer counters than the guests' part. */
static struct pv_vcpu *owner_vcpu(struct sim_machine *m, struct sim_prog *p, bool direct)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, direct ? HPMN - 1 : HPMN);
	cfg.pmu.passthrough = !direct;
	cfg.pmu.direct = direct;
	sim_prog_init(p);
	int i = scen_vm_vcpu(m, &cfg, 0, p);
	assert_true(i >= 0);
	assert_true(direct ? m->vcpu[i].pv.vm->pmu.direct : m->vcpu[i].pv.vm->pmu.passthrough);
	return &m->vcpu[i].pv;
}

/* A passthrough or direct vCPU loaded onto a littered PMU: its enables, interrupt enables
 * and overflows are exactly its own in the guests' part (none of the litter survives: a
 * trapping VM's interrupt enables, say, which a trapping put leaves in place), and the host's
 * part is as it was. */
static void run_load_over_leftovers(bool direct)
{
	struct sim_machine *m = machine(direct);
	assert_non_null(m);
	struct sim_prog p;
	struct pv_vcpu *v = owner_vcpu(m, &p, direct);
	const uint32_t mine = v->vm->pmu.counter_mask; /* its counters and the cycle counter */
	pv_vcpu_load(v, &m->cpu[0].pv);
	hw_set(m, PV_PMINTENSET_EL1, 0x2u);
	hw_set(m, PV_PMOVSSET_EL0, 0x4u);
	hw_set(m, PV_PMCNTENSET_EL0, 0x80000001u);
	hw_set(m, PV_PMCR_EL0, PV_PMCR_LC);
	pv_vcpu_put(v);
	assert_int_equal(v->pmu.inten, 0x2u);
	assert_int_equal(v->pmu.ovs, 0x4u);
	assert_int_equal(v->pmu.cnten, 0x80000001u);

	litter(m);
	pv_vcpu_load(v, &m->cpu[0].pv);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0x2u);
	assert_int_equal(hw(m, PV_PMOVSSET_EL0) & mine, 0x4u);
	assert_int_equal(hw(m, PV_PMCNTENSET_EL0) & mine, 0x80000001u);
	assert_int_equal(hw(m, PV_PMCR_EL0) & PV_PMCR_E, 0);
	/* The host's counter: untouched. */
	assert_true(hw(m, PV_PMINTENSET_EL1) & HOST_BIT);
	assert_true(hw(m, PV_PMOVSSET_EL0) & HOST_BIT);
	assert_true(hw(m, PV_PMCNTENSET_EL0) & HOST_BIT);
	pv_vcpu_put(v);
	sim_prog_free(&p);
	scen_free(m);
}

static void test_passthrough_load_over_leftovers(void **state)
{
	(void)state;
	run_load_over_leftovers(false);
}

static void test_direct_load_over_leftovers(void **state)
{
	(void)state;
	run_load_over_leftovers(true);
}

/* A put while the host's counter has its interrupt enabled and an overflow pending: neither
 * enters the vCPU's saved state (nor its interrupt level), and both stay the host's. */
static void run_put_keeps_host_bits_out(bool direct)
{
	struct sim_machine *m = machine(direct);
	assert_non_null(m);
	struct sim_prog p;
	struct pv_vcpu *v = owner_vcpu(m, &p, direct);
	const uint32_t mine = v->vm->pmu.counter_mask; /* its counters and the cycle counter */
	pv_vcpu_load(v, &m->cpu[0].pv);
	hw_set(m, PV_PMINTENSET_EL1, 0x1u | HOST_BIT);
	hw_set(m, PV_PMOVSSET_EL0, HOST_BIT);
	hw_set(m, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	pv_vpmu_sync(v);
	assert_int_equal(v->pmu.inten, 0x1u);
	assert_int_equal(v->pmu.ovs, 0);
	assert_false(v->pmu.irq_level);
	pv_vcpu_put(v);
	assert_int_equal(v->pmu.inten, 0x1u);
	assert_int_equal(v->pmu.ovs, 0);
	assert_false(v->pmu.irq_level);
	assert_true(hw(m, PV_PMINTENSET_EL1) & HOST_BIT);
	assert_true(hw(m, PV_PMOVSSET_EL0) & HOST_BIT);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0);
	sim_prog_free(&p);
	scen_free(m);
}

static void test_passthrough_put_keeps_host_bits_out(void **state)
{
	(void)state;
	run_put_keeps_host_bits_out(false);
}

static void test_direct_put_keeps_host_bits_out(void **state)
{
	(void)state;
	run_put_keeps_host_bits_out(true);
}

static struct pv_vcpu *direct_vcpu(struct sim_machine *m, struct sim_prog *p)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, HPMN);
	cfg.pmu.direct = 1;
	int i = scen_vm_vcpu(m, &cfg, 0, p);
	assert_true(i >= 0);
	assert_true(m->vcpu[i].pv.vm->pmu.direct);
	return &m->vcpu[i].pv;
}

/* A direct vCPU has the hardware's PMUSERENR_EL0 and PMSELR_EL0 while it runs, written by
 * the guest untrapped (the hardware checks its EL0 rule and reads PMXEVCNTR through its
 * selection); its put keeps them and gives the pCPU its own back. */
static void test_direct_put_gives_back_pcpu_state(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, 3);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	struct pv_vcpu *v = direct_vcpu(m, &p);
	sim_run(m);
	assert_int_equal(v->pmu.selr, 3);
	hw_set(m, PV_PMSELR_EL0, 9);
	pv_vcpu_load(v, &m->cpu[0].pv);
	assert_int_equal(hw(m, PV_PMSELR_EL0), 3);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	pv_vcpu_put(v);
	assert_int_equal(hw(m, PV_PMSELR_EL0), 9);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_EN);
	sim_prog_free(&p);
	scen_free(m);
}

/* With direct access a PMU register of the VM traps to EL2 (Arm ARM D24.2.67, D24.2.69:
 * HDFGRTR_EL2, HDFGWTR_EL2) in each direction it has exactly when the event filter needs it
 * to, or it identifies the PMU: the event types (PMEVTYPER<n>_EL0, PMXEVTYPER_EL0,
 * PMCCFILTR_EL0), PMCEID0/1_EL0 and PMMIR_EL1; the counters, enables, overflow flags,
 * interrupt enables, PMCR_EL0, PMSELR_EL0, PMUSERENR_EL0 and PMSWINC_EL0 are the hardware's.
 * The routing is the machine model's reading of the Arm ARM. */
static void test_direct_routing(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	struct pv_vcpu *v = direct_vcpu(m, &p);
	const struct pv_trap_words *w = &v->traps;
	size_t n = 0;
	const struct pv_reg_desc *t = pv_reg_table(&n);
	unsigned checked = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pv_reg_desc *d = &t[i];
		if (d->kind != PV_KIND_PMU || d->min_version > PV_PMUVER_V3P5)
			continue;
		uint32_t key = d->key; /* a family's first member stands for it */
		bool filter = key == PV_PMEVTYPER_EL0(0) || key == PV_PMXEVTYPER_EL0 ||
			      key == PV_PMCCFILTR_EL0 || key == PV_PMCEID0_EL0 ||
			      key == PV_PMCEID1_EL0 || key == PV_PMMIR_EL1;
		for (int dir = 0; dir < 2; dir++) {
			bool read = dir == 0;
			if (read ? !d->read : !d->write)
				continue;
			bool traps = sim_pmu_el2_trap(w->mdcr_el2, w->hdfgrtr_el2,
						      w->hdfgwtr_el2, key, read);
			if (traps != filter)
				print_error("%s %s: %s\n", d->name, read ? "read" : "write",
					    traps ? "traps" : "does not trap");
			assert_true(traps == filter);
			checked++;
		}
	}
	assert_true(checked > 20);
	sim_prog_free(&p);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passthrough_load_over_leftovers),
		cmocka_unit_test(test_direct_load_over_leftovers),
		cmocka_unit_test(test_passthrough_put_keeps_host_bits_out),
		cmocka_unit_test(test_direct_put_keeps_host_bits_out),
		cmocka_unit_test(test_direct_put_gives_back_pcpu_state),
		cmocka_unit_test(test_direct_routing),
	};
	return cmocka_run_group_tests_name("scen_pmu_handover", tests, NULL, NULL);
}
