/* SPDX-License-Identifier: MIT */
/*
 * Direct counter access (pv_pmu_config.direct) on the machine model with FEAT_FGT: a VM's
 * reads and writes of its counters (PMEVCNTR<n>_EL0, PMXEVCNTR_EL0, PMCCNTR_EL0) reach the
 * hardware with no trap, with exact counts and nothing of another VM in them, while every
 * other PMU register still traps; the hardware enforces what perfvisor would: counters past
 * the VM's N UNDEF (MDCR_EL2.HPMN is N), EL0 follows the guest's PMUSERENR_EL0, and a CHAIN
 * counter makes the counter registers trap again (its reads fold first). The same programs
 * on a machine without FEAT_FGT take the trap path, with the same counts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scen.h"

static struct sim_machine *machine(bool fgt)
{
	struct sim_config c = scen_config(3, 6, 1, 2000, 20000);
	c.fgt = fgt;
	return scen_machine(&c);
}

static struct pv_vm_config direct_vm(unsigned n)
{
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, n);
	cfg.pmu.direct = 1;
	return cfg;
}

static bool is_counter(uint32_t key)
{
	return key == PV_PMCCNTR_EL0 || key == PV_PMXEVCNTR_EL0 ||
	       ((key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY && !PV_PMEV_IS_TYPER(key));
}

/* Of the program's completed register accesses: counter accesses that trapped, and other
 * PMU accesses that did not. */
static void traps_of(const struct sim_prog *p, unsigned *counter_traps, unsigned *other_direct)
{
	*counter_traps = *other_direct = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct sim_op *o = &p->ops[i];
		if ((o->kind != SIM_OP_MRS && o->kind != SIM_OP_MSR) ||
		    o->outcome != SIM_OUT_OK)
			continue;
		if (is_counter(o->key))
			*counter_traps += o->trapped;
		else if (!o->trapped)
			(*other_direct)++;
	}
}

/* Counting, reading and writing the counters, with a second VM time-sliced beside. */
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
		}
	}
}

static void run_counting(bool fgt)
{
	struct sim_machine *m = machine(fgt);
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
	unsigned ct, od;
	traps_of(&a, &ct, &od);
	if (fgt) {
		assert_int_equal(ct, 0); /* 0 traps for the counter accesses */
		assert_int_equal(od, 0); /* everything else trapped */
	} else {
		assert_int_equal(ct, 40 * 3 + 5 * 2);
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

/* The hardware's own checks: a counter past N (HPMN is N) traps to EL2 with FEAT_FGT (Arm ARM
 * D24.5.10) and perfvisor answers UNDEF; PMCR_EL0.N is N; EL0 follows the guest's
 * PMUSERENR_EL0 (ER: event counters; CR: the cycle counter), and is checked before the
 * counter's range, so an EL0 access to a counter past N that the guest's PMUSERENR_EL0
 * refuses goes to the guest's EL1 (trapped VMs: UNDEF; docs/vpmu.md). */
static void test_partition_and_el0(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0x7u);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	size_t past = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(3));
	sim_prog_expect(&p, past, SIM_OUT_UNDEF);
	size_t past_w = sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(4), 1);
	sim_prog_expect(&p, past_w, SIM_OUT_UNDEF);
	size_t pmcr = sim_prog_mrs(&p, 1, PV_PMCR_EL0);
	size_t el0_no = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(0));
	sim_prog_expect(&p, el0_no, SIM_OUT_EL1_SYSREG);
	size_t el0_past = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(3));
	sim_prog_expect(&p, el0_past, SIM_OUT_EL1_SYSREG);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_ER);
	size_t el0_ev = sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(1));
	size_t el0_cc = sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0);
	sim_prog_expect(&p, el0_cc, SIM_OUT_EL1_SYSREG);
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_CR);
	size_t el0_cc2 = sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0);
	sim_prog_workload(&p, 0, SIM_PROF_INT, 500);
	struct pv_vm_config cfg = direct_vm(3);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "partition"), 0);
	assert_int_equal(scen_hygiene(m, "partition"), 0);
	assert_true(p.ops[past].trapped); /* to EL2, where perfvisor UNDEFs it */
	assert_true(p.ops[past_w].trapped);
	assert_int_equal(PV_FIELD_GET(PV_PMCR_N, p.ops[pmcr].value), 3);
	assert_true(p.ops[pmcr].trapped); /* PMCR traps (TPMCR) */
	assert_false(p.ops[el0_ev].trapped);
	assert_false(p.ops[el0_cc2].trapped);
	sim_prog_free(&p);
	scen_free(m);
}

/* A CHAIN counter: while there is one, the counter registers trap (a read folds the even
 * counter's pending overflows first); retyped, they are direct again. */
static void test_chain_traps_again(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(0), (UINT64_C(1) << 32) - 1000);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 0x3u);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	size_t before = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	sim_prog_workload(&p, 1, SIM_PROF_INT, 5000);
	size_t odd = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	size_t even = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_INST_RETIRED);
	size_t after = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	struct pv_vm_config cfg = direct_vm(4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(p.unexpected, 0);
	assert_int_equal(scen_verify(m, 0, "chain"), 0);
	assert_int_equal(scen_hygiene(m, "chain"), 0);
	assert_false(p.ops[before].trapped);
	assert_true(p.ops[odd].trapped);
	assert_true(p.ops[even].trapped);
	assert_int_equal(p.ops[odd].value, 1); /* counter 0 overflowed once */
	assert_false(p.ops[after].trapped);
	sim_prog_free(&p);
	scen_free(m);
}

/* One pCPU shared by a direct VM holding a CHAIN counter (its counter registers trap), a
 * direct VM without one (they do not) and a trapping VM: each VM's fine-grained traps are its
 * own at every switch, whatever the previous one had in force, and every count is exact. */
static void test_mixed(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog a, b, c;
	sim_prog_init(&a);
	sim_prog_msr(&a, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(&a, 1, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	sim_prog_msr(&a, 1, PV_PMCNTENSET_EL0, 0x3u);
	sim_prog_msr(&a, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC);
	for (unsigned i = 0; i < 40; i++) {
		sim_prog_workload(&a, 1, SIM_PROF_INT, 4000 + i);
		sim_prog_mrs(&a, 1, PV_PMEVCNTR_EL0(1));
		sim_prog_mrs(&a, 1, PV_PMEVCNTR_EL0(0));
	}
	counting_prog(&b, 3);
	counting_prog(&c, 4);
	struct pv_vm_config direct = direct_vm(4), trapped = scen_vm(PV_PMUVER_V3P5, 4);
	assert_true(scen_vm_vcpu(m, &direct, 0, &a) >= 0);
	assert_true(scen_vm_vcpu(m, &direct, 0, &b) >= 0);
	assert_true(scen_vm_vcpu(m, &trapped, 0, &c) >= 0);
	sim_run(m);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(scen_verify(m, i, "mixed"), 0);
	assert_int_equal(scen_hygiene(m, "mixed"), 0);
	assert_true(m->cpu[0].stats.switches > 20);
	unsigned ct, od;
	traps_of(&a, &ct, &od);
	assert_int_equal(ct, 80); /* CHAIN: every counter read trapped */
	traps_of(&b, &ct, &od);
	assert_int_equal(ct, 0);
	assert_int_equal(od, 0);
	traps_of(&c, &ct, &od);
	assert_int_equal(ct, 40 * 3 + 5 * 2);
	assert_int_equal(od, 0);
	sim_prog_free(&a);
	sim_prog_free(&b);
	sim_prog_free(&c);
	scen_free(m);
}

/* Random programs (reprogramming, enables, PMSELR/PMXEV*, PMSWINC, EL0 and EL1) in two
 * direct VMs sharing a pCPU: every read exact, every other VM's count kept out. */
static void test_random(void **state)
{
	(void)state;
	for (uint64_t round = 0; round < 8; round++) {
		struct sim_machine *m = machine(true);
		assert_non_null(m);
		uint64_t rng = 77 + round;
		struct pv_vm_config cfg = direct_vm(1 + (unsigned)(round % 5));
		struct sim_prog a, b;
		sim_prog_init(&a);
		sim_prog_init(&b);
		scen_random_prog(&a, &rng, &cfg, false, 150);
		scen_random_prog(&b, &rng, &cfg, false, 150);
		assert_true(scen_vm_vcpu(m, &cfg, 0, &a) >= 0);
		assert_true(scen_vm_vcpu(m, &cfg, 0, &b) >= 0);
		sim_run(m);
		assert_int_equal(scen_verify(m, 0, "random direct"), 0);
		assert_int_equal(scen_verify(m, 1, "random direct"), 0);
		assert_int_equal(scen_hygiene(m, "random direct"), 0);
		sim_prog_free(&a);
		sim_prog_free(&b);
		scen_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_partition_and_el0),
		cmocka_unit_test(test_chain_traps_again),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
