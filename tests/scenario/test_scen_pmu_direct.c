/* SPDX-License-Identifier: MIT */
/*
 * Direct access (pv_pmu_config.direct) on the machine model with FEAT_FGT: a VM's PMU is the
 * hardware's while it runs, its counters, enables, overflow flags, interrupt enables, PMCR,
 * PMSELR, PMUSERENR and PMSWINC reached with no trap and its overflow interrupt presented
 * mapped, while what its event filter needs traps by its fine-grained bit: the event types
 * (PMEVTYPER<n>_EL0, PMXEVTYPER_EL0 and PMCCFILTR_EL0: the guest reads its own value, the
 * hardware gets the sanitised one) and PMCEID0/1_EL0 (the filtered view), and PMMIR_EL1. The
 * checks follow the Arm ARM, not the library: with MDCR_EL2.HPMN = N a counter past N traps
 * to EL2 (D24.5.10, D24.5.27, D24.5.28), where perfvisor answers UNDEF, PMCR_EL0.N reads N
 * and P resets [0, N) alone (D24.5.8), EL0 follows the guest's own PMUSERENR_EL0, SW_INCR and
 * CHAIN are the hardware's (D14.3.1), and a denied event counts nothing whatever path its
 * type takes. The same programs on a machine without FEAT_FGT take the trap path, with the
 * same counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scen.h"

#define TOP32 (UINT64_C(1) << 32)
#define COUNTERS 6
#define HOST 1
#define HPMN (COUNTERS - HOST)

static struct sim_machine *machine(uint64_t seed, bool fgt)
{
	struct sim_config c = scen_config(seed, COUNTERS, HOST, 2000, 20000);
	c.fgt = fgt;
	return scen_machine(&c);
}

static struct pv_vm_config direct_vm(unsigned n)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, n);
	cfg.pmu.direct = 1;
	return cfg;
}

static void deny(struct pv_vm_config *cfg, uint16_t event)
{
	struct pv_pmu_filter *f = &cfg->pmu.filters[cfg->pmu.nr_filters++];
	*f = (struct pv_pmu_filter){
		.base_event = event, .nevents = 1, .action = PV_PMU_FILTER_DENY};
}

/* What a direct VM's words trap by their fine-grained bits (Arm ARM D24.2.67, D24.2.69): the
 * event types, PMCEID0/1_EL0 and PMMIR_EL1. */
static bool types_or_ids(uint32_t key)
{
	return key == PV_PMCCFILTR_EL0 || key == PV_PMXEVTYPER_EL0 || key == PV_PMCEID0_EL0 ||
	       key == PV_PMCEID1_EL0 || key == PV_PMMIR_EL1 ||
	       ((key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY && PV_PMEV_IS_TYPER(key));
}

/* Of the program's completed register accesses: those that trapped, and those that trapped
 * although not a type or ID register, or did not although one. */
static void traps_of(const struct sim_prog *p, unsigned *traps, unsigned *wrong)
{
	*traps = *wrong = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *o = &p->ops[i];
		if ((o->kind != SIM_OP_MRS && o->kind != SIM_OP_MSR) ||
		    o->outcome != SIM_OUT_OK)
			continue;
		*traps += o->trapped;
		*wrong += o->trapped != types_or_ids(o->key);
	}
}

/* Counting, reading and writing the counters, PMXEVCNTR_EL0 through PMSELR_EL0, the cycle
 * counter, with a second VM time-sliced beside. */
static void counting_prog(struct sim_prog *p, uint64_t seed)
{
	sim_prog_init(p);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(2), PV_EVT_CPU_CYCLES | PV_PMEVTYPER_U);
	sim_prog_msr(p, 1, PV_PMSELR_EL0, 2);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, 0x5u | 1u << 31);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	for (unsigned i = 0; i < 40; i++) {
		sim_prog_workload(p, i & 1, SIM_PROF_INT, 3000 + seed * 100 + i);
		sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(0));
		sim_prog_mrs(p, 1, PV_PMXEVCNTR_EL0);
		sim_prog_mrs(p, 1, PV_PMCCNTR_EL0);
		if (i % 8 == 7) {
			sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(0), seed << 20);
			sim_prog_msr(p, 1, PV_PMCCNTR_EL0, seed << 24);
			sim_prog_mrs(p, 1, PV_PMCR_EL0);
			sim_prog_mrs(p, 1, PV_PMOVSSET_EL0);
		}
	}
}

static void run_counting(bool fgt)
{
	struct sim_machine *m = machine(3, fgt);
	assert_non_null(m);
	struct sim_prog a, b;
	counting_prog(&a, 1);
	counting_prog(&b, 2);
	struct pv_vm_config cfg = direct_vm(4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &a) >= 0);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &b) >= 0);
	assert_true(m->vcpu[0].pv.vm->pmu.direct == fgt);
	sim_run(m);
	const char *tag = fgt ? "direct" : "direct without FGT";
	assert_int_equal(scen_verify(m, 0, tag), 0);
	assert_int_equal(scen_verify(m, 1, tag), 0);
	assert_int_equal(scen_hygiene(m, tag), 0);
	assert_true(m->cpu[0].stats.switches > 10); /* the two VMs did share the counters */
	unsigned traps, wrong;
	traps_of(&a, &traps, &wrong);
	if (fgt) {
		assert_int_equal(traps, 2); /* the two type writes */
		assert_int_equal(wrong, 0);
	} else {
		assert_int_equal(traps, 5 + 40 * 3 + 5 * 4);
	}
	sim_prog_free(&a);
	sim_prog_free(&b);
	scen_free(m);
}

static void test_counting(void **state)
{
	(void)state;
	run_counting(true);
	run_counting(false);
}

/* The hardware's own checks, with HPMN = N = 3 below the guests' part (5) and the host's
 * counter at 5: a counter past N traps to EL2 with FEAT_FGT (Arm ARM D24.5.10; PMXEVCNTR_EL0
 * and PMXEVTYPER_EL0 by the PMSELR_EL0.SEL the guest wrote untrapped, D24.5.27, D24.5.28) and
 * perfvisor answers UNDEF; PMCR_EL0.N reads N untrapped (D24.5.8); EL0 follows the guest's
 * PMUSERENR_EL0, written untrapped: ER lets counter reads through, CR the cycle counter, and
 * EN the type reads, which then trap to EL2 and are answered (the value perfvisor kept was
 * never told of EN); without EN they go to the guest's EL1 before any EL2 trap. */
static void test_partition_and_el0(void **state)
{
	(void)state;
	struct sim_machine *m = machine(4, true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED | PV_PMEVTYPER_U);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0x7u);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	size_t past = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(3));
	sim_prog_expect(&p, past, SIM_OUT_UNDEF);
	size_t past_w = sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(4), 1);
	sim_prog_expect(&p, past_w, SIM_OUT_UNDEF);
	size_t host = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(HPMN));
	sim_prog_expect(&p, host, SIM_OUT_UNDEF);
	size_t host_t = sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(HPMN), PV_EVT_CPU_CYCLES);
	sim_prog_expect(&p, host_t, SIM_OUT_UNDEF);
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, 3);
	size_t xev = sim_prog_mrs(&p, 1, PV_PMXEVCNTR_EL0);
	sim_prog_expect(&p, xev, SIM_OUT_UNDEF);
	size_t xty = sim_prog_msr(&p, 1, PV_PMXEVTYPER_EL0, PV_EVT_INST_RETIRED);
	sim_prog_expect(&p, xty, SIM_OUT_UNDEF);
	size_t xty_r = sim_prog_mrs(&p, 1, PV_PMXEVTYPER_EL0); /* SEL in [N, 31): D24.5.28 */
	sim_prog_expect(&p, xty_r, SIM_OUT_UNDEF);
	size_t mmir = sim_prog_mrs(&p, 1, PV_PMMIR_EL1); /* trapped, and answered */
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, 31);          /* PMXEVTYPER_EL0 is PMCCFILTR_EL0 */
	size_t ccf_w = sim_prog_msr(&p, 1, PV_PMXEVTYPER_EL0, PV_PMEVTYPER_P);
	size_t ccf = sim_prog_mrs(&p, 1, PV_PMCCFILTR_EL0);
	size_t pmcr = sim_prog_mrs(&p, 1, PV_PMCR_EL0);
	size_t el0_no = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(0));
	sim_prog_expect(&p, el0_no, SIM_OUT_EL1_SYSREG);
	size_t el0_ty_no = sim_prog_mrs(&p, 0, PV_PMEVTYPER_EL0(1));
	sim_prog_expect(&p, el0_ty_no, SIM_OUT_EL1_SYSREG);
	size_t el0_past = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(3));
	sim_prog_expect(&p, el0_past, SIM_OUT_EL1_SYSREG);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_ER);
	size_t el0_ev = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(1));
	size_t el0_cc = sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0);
	sim_prog_expect(&p, el0_cc, SIM_OUT_EL1_SYSREG);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_CR);
	size_t el0_cc2 = sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	size_t el0_ty = sim_prog_mrs(&p, 0, PV_PMEVTYPER_EL0(1));
	size_t el0_ceid = sim_prog_mrs(&p, 0, PV_PMCEID0_EL0);
	size_t el0_uw = sim_prog_msr(&p, 0, PV_PMUSERENR_EL0, 0);
	sim_prog_expect(&p, el0_uw, SIM_OUT_UNDEF);
	size_t el0_past2 = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(3));
	sim_prog_expect(&p, el0_past2, SIM_OUT_UNDEF);
	sim_prog_workload(&p, 0, SIM_PROF_INT, 500);
	struct pv_vm_config cfg = direct_vm(3);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "partition"), 0);
	assert_int_equal(scen_hygiene(m, "partition"), 0);
	const size_t to_el2[] = {past, past_w, host, host_t, xev, xty, xty_r, el0_past2};
	for (size_t i = 0; i < sizeof(to_el2) / sizeof(to_el2[0]); i++)
		assert_true(p.ops[to_el2[i]].trapped); /* to EL2, where perfvisor UNDEFs it */
	assert_true(p.ops[mmir].trapped);
	assert_true(p.ops[ccf_w].trapped && p.ops[ccf].trapped);
	assert_int_equal(p.ops[ccf].value, PV_PMEVTYPER_P);
	assert_false(p.ops[pmcr].trapped);
	assert_int_equal(PV_FIELD_GET(PV_PMCR_N, p.ops[pmcr].value), 3);
	assert_false(p.ops[el0_no].trapped || p.ops[el0_ty_no].trapped);
	assert_false(p.ops[el0_ev].trapped);
	assert_false(p.ops[el0_cc2].trapped);
	assert_true(p.ops[el0_ty].trapped && p.ops[el0_ceid].trapped);
	assert_int_equal(p.ops[el0_ty].outcome, SIM_OUT_OK);
	assert_int_equal(p.ops[el0_ty].value, PV_EVT_INST_RETIRED | PV_PMEVTYPER_U);
	sim_prog_free(&p);
	scen_free(m);
}

/* A denied event counts nothing whatever path its type takes to the hardware (the event
 * filter's promise, docs/security.md P5): PMEVTYPER<n>_EL0, PMXEVTYPER_EL0 through a
 * PMSELR_EL0 the guest wrote untrapped, PMXEVTYPER_EL0 with SEL = 31 and PMCCFILTR_EL0 for
 * the cycle counter when CPU_CYCLES is denied, and the same from EL0; the guest reads back
 * what it wrote, the hardware holds "count nothing", and NSH never counts EL2 for an allowed
 * one (the checker counts EL1 and EL0 alone). */
static void test_denied_never_counts(void **state)
{
	(void)state;
	struct sim_machine *m = machine(6, true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	const uint64_t nsh = PV_PMEVTYPER_NSH;
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED | nsh);
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, 1);
	sim_prog_msr(&p, 1, PV_PMXEVTYPER_EL0, PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 0, PV_PMEVTYPER_EL0(2), PV_EVT_CPU_CYCLES | nsh);
	sim_prog_msr(&p, 0, PV_PMSELR_EL0, 31);
	sim_prog_msr(&p, 0, PV_PMXEVTYPER_EL0, nsh);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(3), PV_EVT_BR_RETIRED | nsh); /* allowed */
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0xFu | 1u << 31);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	for (unsigned i = 0; i < 12; i++) {
		sim_prog_workload(&p, i & 1, (enum sim_profile)(i % SIM_PROF_HYP),
				  7000 + 13 * i);
		for (unsigned k = 0; k < 4; k++)
			sim_prog_mrs(&p, i & 1, PV_PMEVCNTR_EL0(k));
		sim_prog_mrs(&p, 1, PV_PMCCNTR_EL0);
	}
	sim_prog_msr(&p, 1, PV_PMSELR_EL0, 1);
	size_t back = sim_prog_mrs(&p, 0, PV_PMXEVTYPER_EL0);
	size_t back0 = sim_prog_mrs(&p, 1, PV_PMEVTYPER_EL0(0));
	size_t ccf = sim_prog_mrs(&p, 1, PV_PMCCFILTR_EL0);
	size_t ceid = sim_prog_mrs(&p, 1, PV_PMCEID0_EL0);
	size_t last = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	size_t last_br = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(3));
	struct pv_vm_config cfg = direct_vm(4);
	deny(&cfg, PV_EVT_INST_RETIRED);
	deny(&cfg, PV_EVT_CPU_CYCLES);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	assert_true(m->vcpu[0].pv.vm->pmu.direct);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "denied"), 0);
	assert_int_equal(scen_hygiene(m, "denied"), 0);
	assert_int_equal(p.ops[last].value, 0);
	assert_true(p.ops[last_br].value > 0);
	assert_int_equal(p.ops[back].value, PV_EVT_INST_RETIRED);
	assert_int_equal(p.ops[back0].value, PV_EVT_INST_RETIRED | nsh);
	assert_int_equal(p.ops[ccf].value, nsh);
	assert_int_equal(p.ops[ceid].value >> PV_EVT_INST_RETIRED & 1, 0);
	assert_int_equal(p.ops[ceid].value >> PV_EVT_CPU_CYCLES & 1, 0);
	unsigned traps, wrong;
	traps_of(&p, &traps, &wrong);
	assert_int_equal(wrong, 0);
	/* What the hardware was left with: nothing of INST_RETIRED or CPU_CYCLES, and no EL2. */
	const struct sim_pmu *hw = &m->cpu[0].pmu;
	for (unsigned k = 0; k < 3; k++) {
		uint32_t e = (uint32_t)(hw->evtyper[k] & 0xFFFF);
		assert_true(e != PV_EVT_INST_RETIRED && e != PV_EVT_CPU_CYCLES);
	}
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(hw->evtyper[k] & PV_PMEVTYPER_NSH, 0);
	assert_int_equal(hw->ccfiltr & PV_PMEVTYPER_NSH, 0);
	sim_prog_free(&p);
	scen_free(m);
}

/* SW_INCR and CHAIN are the hardware's (Arm ARM D14.3.1): PMSWINC_EL0 written untrapped
 * increments a SW_INCR counter whose filter allows the EL of the write; a CHAIN counter,
 * unfiltered as the architecture asks, counts each 32-bit overflow of its even partner;
 * PMCEID0_EL0 lists both as the hardware has them. No counter access traps. */
static void test_swinc_chain_hardware(void **state)
{
	(void)state;
	struct sim_machine *m = machine(8, true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_SW | PV_PMUSERENR_ER);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(2), PV_EVT_SW_INCR | PV_PMEVTYPER_U); /* EL1 */
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(3), PV_EVT_SW_INCR);
	sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(0), TOP32 - 1000);
	sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(2), TOP32 - 2);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0xFu);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	for (unsigned i = 0; i < 6; i++) {
		sim_prog_workload(&p, i & 1, SIM_PROF_INT, 90000);
		sim_prog_msr(&p, i & 1, PV_PMSWINC_EL0, 0xCu);
		sim_prog_mrs(&p, i & 1, PV_PMEVCNTR_EL0(0));
		sim_prog_mrs(&p, i & 1, PV_PMEVCNTR_EL0(1));
	}
	size_t odd = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	size_t sw1 = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(2));
	size_t sw = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(3));
	size_t ovs = sim_prog_mrs(&p, 1, PV_PMOVSSET_EL0);
	size_t ceid = sim_prog_mrs(&p, 1, PV_PMCEID0_EL0);
	struct pv_vm_config cfg = direct_vm(4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "swinc chain"), 0);
	assert_int_equal(scen_hygiene(m, "swinc chain"), 0);
	assert_int_equal(p.ops[odd].value, 1);         /* counter 0 wrapped once */
	assert_int_equal(p.ops[sw1].value, TOP32 + 1); /* three EL1 writes from 2^32 - 2 */
	assert_int_equal(p.ops[sw].value, 6);          /* every write */
	assert_int_equal(p.ops[ovs].value, 0x5u);      /* counters 0 and 2 overflowed */
	uint64_t hw_ceid = m->cfg.pmu.events & 0xFFFFFFFFu;
	assert_int_equal(p.ops[ceid].value & 0xFFFFFFFFu, hw_ceid);
	unsigned traps, wrong;
	traps_of(&p, &traps, &wrong);
	assert_int_equal(traps, 5); /* four type writes, PMCEID0_EL0 */
	assert_int_equal(wrong, 0);
	sim_prog_free(&p);
	scen_free(m);
}

/* A direct VM's counter whose type it never wrote counts what the architecture's type 0
 * is, SW_INCR at every EL but EL2 (the hardware holds its sanitised copy from the first load:
 * the guest's PMSWINC_EL0 and counters are the hardware's), not nothing. */
static void test_unwritten_type_is_swincr(void **state)
{
	(void)state;
	struct sim_machine *m = machine(9, true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0x1u);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	sim_prog_msr(&p, 1, PV_PMSWINC_EL0, 0x1u);
	sim_prog_msr(&p, 1, PV_PMSWINC_EL0, 0x1u);
	size_t cnt = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	size_t typ = sim_prog_mrs(&p, 1, PV_PMEVTYPER_EL0(0));
	struct pv_vm_config cfg = direct_vm(2);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(p.ops[cnt].value, 2);
	assert_int_equal(p.ops[typ].value, 0);
	assert_int_equal(scen_hygiene(m, "unwritten type"), 0);
	sim_prog_free(&p);
	scen_free(m);
}

/* PMCEID0_EL0 of a direct VM lists SW_INCR and CHAIN as the hardware has them (Arm ARM
 * D24.5.4: an event's bit reads 1 where it is implemented; D14.3.1): its PMSWINC_EL0 and its
 * counters are the hardware's, which counts them, or does not. A trapping VM's lists them
 * whatever the hardware has: perfvisor counts them. On hardware without CHAIN: */
static void test_ceid_hardware(void **state)
{
	(void)state;
	struct sim_config c = scen_config(10, COUNTERS, HOST, 2000, 20000);
	c.fgt = true;
	c.pmu.events &= ~(UINT64_C(1) << PV_EVT_CHAIN);
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	sim_prog_init(&q);
	size_t d = sim_prog_mrs(&p, 1, PV_PMCEID0_EL0);
	size_t t = sim_prog_mrs(&q, 1, PV_PMCEID0_EL0);
	struct pv_vm_config direct = direct_vm(4), trapped = scen_vm(PV_PMUVER_V3P5, 4);
	assert_true(scen_vm_vcpu(m, &direct, 0, &p) >= 0);
	assert_true(scen_vm_vcpu(m, &trapped, 0, &q) >= 0);
	sim_run(m);
	assert_int_equal(p.ops[d].value >> PV_EVT_CHAIN & 1, 0);
	assert_int_equal(p.ops[d].value & 1, 1);
	assert_int_equal(q.ops[t].value >> PV_EVT_CHAIN & 1, 1);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

/* Sampling: each overflow raises the mapped interrupt once (PV_IRQ_GUEST_MAPPED); the
 * guest's handler reads and clears PMOVS with no trap and deactivates it, and the next one
 * comes only after. The software line is never driven. */
static void test_overflow_mapped(void **state)
{
	(void)state;
	struct sim_machine *m = machine(5, true);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	const unsigned rounds = 9, idx = 2;
	const uint64_t period = 30000;
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(idx), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMINTENSET_EL1, 1u << idx);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 1u << idx);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < rounds; k++) {
		sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(idx), TOP32 - period);
		sim_prog_irq_check(&p);
		sim_prog_workload(&p, k & 1, SIM_PROF_INT, period + 1000 + 37 * k);
		sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(idx));
		sim_prog_irq_handle(&p);
	}
	counting_prog(&q, 4); /* a second direct VM beside, without interrupts */
	struct pv_vm_config cfg = direct_vm(3);
	deny(&cfg, PV_EVT_STALL_BACKEND);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	cfg = direct_vm(4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &q) >= 0);
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "mapped"), 0);
	assert_int_equal(scen_verify(m, 1, "mapped"), 0);
	assert_int_equal(scen_hygiene(m, "mapped"), 0);
	for (size_t i = 0; i < p.n; i++) {
		const struct sim_op *op = &p.ops[i];
		if (op->kind == SIM_OP_IRQ_CHECK)
			assert_false(op->line); /* low after each deactivation */
		if (op->kind == SIM_OP_IRQ_HANDLE)
			assert_true(op->line); /* and there each time the handler looked */
	}
	const struct sim_vcpu *v = &m->vcpu[0];
	assert_int_equal(v->irq.taken, rounds);
	assert_int_equal(v->irq.handled[idx], rounds);
	assert_int_equal(v->rises[PV_INTID_PMU], rounds);
	assert_int_equal(v->pv.stats.pmu_irqs, rounds);
	assert_int_equal(v->irq.stuck, 0);
	assert_int_equal(v->virq_calls, 0); /* never through the software line */
	assert_int_equal(m->cpu[0].stats.irq_mapped, rounds);
	assert_int_equal(m->cpu[0].stats.irq_storms, 0);
	assert_int_equal(m->vcpu[1].rises[PV_INTID_PMU], 0);
	unsigned traps, wrong;
	traps_of(&p, &traps, &wrong);
	assert_int_equal(traps, 1); /* the type write */
	assert_int_equal(wrong, 0);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

/* A CHAIN counter's own EL filter: the hardware may apply it (Arm ARM D14.3.1: the count is
 * then UNPREDICTABLE unless the CHAIN counter counts everywhere), and the checker, like
 * perfvisor's emulation, does not; the random programs here leave CHAIN counters
 * unfiltered, where the two agree. */
static void unfiltered_chain(struct sim_prog *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct sim_op *o = &p->ops[i];
		if (o->kind == SIM_OP_MSR &&
		    (o->key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY &&
		    PV_PMEV_IS_TYPER(o->key) && o->key != PV_PMCCFILTR_EL0 &&
		    (o->imm & 0xFFFF) == PV_EVT_CHAIN)
			o->imm = PV_EVT_CHAIN;
	}
}

/* One pCPU shared by a direct VM with a filter and fewer counters than the guests' part, a
 * passthrough VM, a direct VM with every counter and a trapping VM: each VM's trap words and
 * state are its own at every switch, whatever the previous one had in force, and every count
 * is exact. */
static void test_mixed(void **state)
{
	(void)state;
	struct sim_machine *m = machine(9, true);
	assert_non_null(m);
	struct sim_prog a, b, c, d;
	uint64_t rng = 23;
	struct pv_vm_config small = direct_vm(2), full = direct_vm(HPMN),
			    pt = scen_vm(PV_PMUVER_V3P5, HPMN),
			    trapped = scen_vm(PV_PMUVER_V3P5, 4);
	deny(&small, PV_EVT_L1D_CACHE);
	pt.pmu.passthrough = 1;
	sim_prog_init(&a);
	scen_random_prog(&a, &rng, &small, false, 150);
	unfiltered_chain(&a);
	counting_prog(&b, 3);
	sim_prog_init(&c);
	scen_random_prog(&c, &rng, &full, false, 150);
	unfiltered_chain(&c);
	counting_prog(&d, 4);
	assert_true(scen_vm_vcpu(m, &small, 0, &a) >= 0);
	assert_true(scen_vm_vcpu(m, &pt, 0, &b) >= 0);
	assert_true(scen_vm_vcpu(m, &full, 0, &c) >= 0);
	assert_true(scen_vm_vcpu(m, &trapped, 0, &d) >= 0);
	assert_true(m->vcpu[1].pv.vm->pmu.passthrough);
	sim_run(m);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(scen_verify(m, i, "mixed"), 0);
	assert_int_equal(scen_hygiene(m, "mixed"), 0);
	assert_true(m->cpu[0].stats.switches > 20);
	unsigned traps, wrong;
	traps_of(&a, &traps, &wrong);
	assert_int_equal(wrong, 0);
	traps_of(&c, &traps, &wrong);
	assert_int_equal(wrong, 0);
	traps_of(&b, &traps, &wrong);
	assert_int_equal(traps, 0);
	traps_of(&d, &traps, &wrong);
	assert_int_equal(traps, 5 + 40 * 3 + 5 * 4);
	sim_prog_free(&a);
	sim_prog_free(&b);
	sim_prog_free(&c);
	sim_prog_free(&d);
	scen_free(m);
}

/* Random programs (reprogramming, enables, CHAIN, PMSWINC, PMSELR/PMXEV*, PMCR.P and C, EL0
 * and EL1) in two direct VMs with event filters sharing a pCPU: every read exact, every other
 * VM's count kept out, only the types trapped. */
static void test_random(void **state)
{
	(void)state;
	for (uint64_t round = 0; round < 8; round++) {
		struct sim_machine *m = machine(60 + round, true);
		assert_non_null(m);
		uint64_t rng = 77 + round;
		struct pv_vm_config a_cfg = direct_vm(1 + (unsigned)(round % HPMN));
		struct pv_vm_config b_cfg = direct_vm(HPMN - (unsigned)(round % 3));
		deny(&a_cfg, round & 1 ? PV_EVT_INST_RETIRED : PV_EVT_BR_RETIRED);
		if (round & 2)
			deny(&b_cfg, PV_EVT_CPU_CYCLES);
		struct sim_prog a, b;
		sim_prog_init(&a);
		sim_prog_init(&b);
		scen_random_prog(&a, &rng, &a_cfg, false, 150);
		scen_random_prog(&b, &rng, &b_cfg, false, 150);
		unfiltered_chain(&a);
		unfiltered_chain(&b);
		assert_true(scen_vm_vcpu(m, &a_cfg, 0, &a) >= 0);
		assert_true(scen_vm_vcpu(m, &b_cfg, 0, &b) >= 0);
		sim_run(m);
		assert_int_equal(scen_verify(m, 0, "random direct"), 0);
		assert_int_equal(scen_verify(m, 1, "random direct"), 0);
		assert_int_equal(scen_hygiene(m, "random direct"), 0);
		unsigned traps, wrong;
		traps_of(&a, &traps, &wrong);
		assert_int_equal(wrong, 0);
		traps_of(&b, &traps, &wrong);
		assert_int_equal(wrong, 0);
		sim_prog_free(&a);
		sim_prog_free(&b);
		scen_free(m);
	}
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

/* Load, put and pv_vpmu_sync() by hand: what the guest wrote untrapped is what perfvisor
 * reads back (sync, put), its types excepted, which the hardware holds sanitised and the
 * guest reads as it wrote them; put leaves the pCPU's quiet state and its own PMSELR_EL0 and
 * PMUSERENR_EL0; the next load gives the guest all of it again. */
static void test_load_put_sync(void **state)
{
	(void)state;
	struct sim_machine *m = machine(2, true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	const uint64_t type = PV_EVT_CPU_CYCLES | PV_PMEVTYPER_P | PV_PMEVTYPER_NSH;
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), type); /* trapped */
	struct pv_vm_config cfg = direct_vm(4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	struct pv_vcpu *v = &m->vcpu[0].pv;
	const uint64_t sane = PV_EVT_CPU_CYCLES | PV_PMEVTYPER_P;
	assert_int_equal(v->pmu.evtyper[1], type);
	assert_int_equal(v->pmu.hwtype[1], sane);
	uint64_t host_selr = 7;
	hw_set(m, PV_PMSELR_EL0, host_selr);
	pv_vcpu_load(v, &m->cpu[0].pv);
	assert_int_equal(hw(m, PV_PMEVTYPER_EL0(1)), sane);
	/* The guest's own writes, with no trap. */
	hw_set(m, PV_PMEVCNTR_EL0(1), 0x123456789ull);
	hw_set(m, PV_PMCCNTR_EL0, 0xABCDull);
	hw_set(m, PV_PMINTENSET_EL1, 0x2u);
	hw_set(m, PV_PMOVSSET_EL0, 0x80000002u);
	hw_set(m, PV_PMSELR_EL0, 3);
	hw_set(m, PV_PMUSERENR_EL0, PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	hw_set(m, PV_PMCNTENSET_EL0, 0x80000002u);
	hw_set(m, PV_PMCR_EL0, PV_PMCR_LC | PV_PMCR_LP); /* E off: nothing moves */
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_HANDLED);
	pv_vpmu_sync(v);
	assert_int_equal(v->pmu.evtyper[1], type);
	assert_int_equal(v->pmu.hwtype[1], sane);
	assert_int_equal(v->pmu.evcntr[1], 0x123456789ull);
	assert_int_equal(v->pmu.ccntr, 0xABCD);
	assert_int_equal(v->pmu.cnten, 0x80000002u);
	assert_int_equal(v->pmu.inten, 0x2u);
	assert_int_equal(v->pmu.ovs, 0x80000002u);
	assert_int_equal(v->pmu.selr, 3);
	assert_int_equal(v->pmu.userenr, PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	assert_true(v->pmu.pmcr & PV_PMCR_LP);
	assert_int_equal(pv_vpmu_counter(v, 1), 0x123456789ull);
	pv_vcpu_put(v);
	uint32_t mine = ((1u << HPMN) - 1) | 1u << 31;
	assert_int_equal(hw(m, PV_PMCNTENSET_EL0) & mine, 0);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0);
	assert_int_equal(hw(m, PV_PMOVSSET_EL0) & mine, 0);
	assert_int_equal(hw(m, PV_PMCR_EL0) & PV_PMCR_E, 0);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_EN);
	assert_int_equal(hw(m, PV_PMSELR_EL0), host_selr);
	hw_set(m, PV_PMEVCNTR_EL0(1), 0); /* another vCPU's, meanwhile */
	hw_set(m, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED | PV_PMEVTYPER_NSH);
	pv_vcpu_load(v, &m->cpu[0].pv);
	assert_int_equal(hw(m, PV_PMEVCNTR_EL0(1)), 0x123456789ull);
	assert_int_equal(hw(m, PV_PMEVTYPER_EL0(1)), sane);
	assert_int_equal(hw(m, PV_PMCCNTR_EL0), 0xABCD);
	assert_int_equal(hw(m, PV_PMCNTENSET_EL0) & mine, 0x80000002u);
	assert_int_equal(hw(m, PV_PMINTENSET_EL1) & mine, 0x2u);
	assert_int_equal(hw(m, PV_PMOVSSET_EL0) & mine, 0x80000002u);
	assert_int_equal(hw(m, PV_PMSELR_EL0), 3);
	assert_int_equal(hw(m, PV_PMUSERENR_EL0), PV_PMUSERENR_ER | PV_PMUSERENR_EN);
	/* With PMCR.E its level is high: its own, presented mapped; the host's counter
	 * overflowing as well is reported first. */
	hw_set(m, PV_PMCR_EL0, PV_PMCR_LC | PV_PMCR_LP | PV_PMCR_E);
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_GUEST_MAPPED);
	hw_set(m, PV_PMOVSSET_EL0, 1u << HPMN);
	assert_int_equal(pv_irq(&m->cpu[0].pv, PV_INTID_PMU), PV_IRQ_HOST_PENDING);
	hw_set(m, PV_PMOVSCLR_EL0, 1u << HPMN);
	pv_vcpu_put(v);
	assert_int_equal(v->pmu.ovs & ~mine, 0);
	sim_prog_free(&p);
	scen_free(m);
}

/* Where direct access cannot be given, the VM traps every PMU register as before, with the
 * same counts: no FEAT_FGT, a host that does not apply the fine-grained words, no counter,
 * or a PMU version other than the hardware's (its PMCR_EL0 and counters would be the
 * hardware's). */
static void test_not_possible(void **state)
{
	(void)state;
	struct {
		const char *why;
		unsigned version, counters, pmu_version;
		bool fgt, words;
	} cases[] = {
		{"no FEAT_FGT", PV_PMUVER_V3P5, 4, PV_PMUVER_V3P5, false, false},
		{"no fine-grained words", PV_PMUVER_V3P5, 4, PV_PMUVER_V3P5, true, false},
		{"no counter", PV_PMUVER_V3P5, 0, PV_PMUVER_V3P5, true, true},
		{"another PMUVer", PV_PMUVER_V3P4, 4, PV_PMUVER_V3P5, true, true},
		{"another PMUVer, same width", PV_PMUVER_V3P1, 4, PV_PMUVER_V3P4, true, true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_config c = scen_config(1, COUNTERS, HOST, 2000, 20000);
		c.pmu.version = (uint8_t)cases[i].pmu_version;
		c.fgt = cases[i].fgt;
		struct sim_machine *m = scen_machine(&c);
		assert_non_null(m);
		m->hw.fgt_words = cases[i].words;
		struct sim_prog p;
		sim_prog_init(&p);
		sim_prog_mrs(&p, 1, PV_PMCR_EL0);
		if (cases[i].counters) {
			sim_prog_free(&p);
			counting_prog(&p, 1);
		}
		struct pv_vm_config cfg = scen_vm(cases[i].version, cases[i].counters);
		cfg.pmu.direct = 1;
		assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
		print_message("%s\n", cases[i].why);
		assert_false(m->vcpu[0].pv.vm->pmu.direct);
		assert_true(m->vcpu[0].pv.traps.mdcr_el2 & PV_MDCR_EL2_TPM);
		sim_run(m);
		assert_int_equal(scen_verify(m, 0, cases[i].why), 0);
		unsigned traps, wrong;
		traps_of(&p, &traps, &wrong);
		assert_int_equal(traps, p.n - (cases[i].counters ? 40 : 0));
		sim_prog_free(&p);
		scen_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_partition_and_el0),
		cmocka_unit_test(test_denied_never_counts),
		cmocka_unit_test(test_swinc_chain_hardware),
		cmocka_unit_test(test_unwritten_type_is_swincr),
		cmocka_unit_test(test_ceid_hardware),
		cmocka_unit_test(test_overflow_mapped),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_load_put_sync),
		cmocka_unit_test(test_not_possible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
