/* SPDX-License-Identifier: MIT */
/*
 * What a guest sees of the trap path on the machine model: Rt = 31 (XZR) reads discard and
 * writes zero without touching x[31]; EL0 accesses follow the guest's PMUSERENR_EL0 (refused
 * ones arrive at guest EL1 as EC 0x18); EL1-only registers UNDEF at EL0; the ID registers
 * read under HCR_EL2.TID3 give the VM's PMU version; a VM without a PMU sees none and its PMU
 * accesses UNDEF; the VM's event filter hides events from PMCEID and from the counters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scen.h"

static struct sim_machine *machine(bool idst)
{
	struct sim_config c = scen_config(1, 6, 1, 2000, 20000);
	c.idst = idst;
	return scen_machine(&c);
}

static void test_xzr(void **state)
{
	(void)state;
	struct sim_machine *m = machine(false);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(&p, 1, PV_PMEVCNTR_EL0(0), 5000);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 1);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	sim_prog_workload(&p, 1, SIM_PROF_INT, 1000);
	size_t r30 = sim_prog_mrs_rt(&p, 1, PV_PMEVCNTR_EL0(0), 30);
	size_t rz = sim_prog_mrs_rt(&p, 1, PV_PMEVCNTR_EL0(0), 31);
	sim_prog_msr_rt(&p, 1, PV_PMEVCNTR_EL0(0), 31, 123456); /* MSR ..., XZR writes 0 */
	size_t after = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "xzr"), 0);
	assert_int_equal(scen_hygiene(m, "xzr"), 0);
	assert_true(p.ops[r30].value > 5000);
	assert_int_equal(m->vcpu[0].x[30], p.ops[r30].value);
	assert_true(p.ops[rz].trapped);
	assert_true(p.ops[after].value < 100); /* only the traps since the zeroing write */
	sim_prog_free(&p);
	scen_free(m);
}

static void test_el0_pmuserenr(void **state)
{
	(void)state;
	struct sim_machine *m = machine(false);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
#define EXPECT(op, o) sim_prog_expect(&p, (op), (o))
	/* PMUSERENR_EL0 = 0: everything but reading PMUSERENR goes to EL1. */
	EXPECT(sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(0)), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_msr(&p, 0, PV_PMSWINC_EL0, 1), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMCR_EL0), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMUSERENR_EL0), SIM_OUT_OK);
	/* Never at EL0: writes of PMUSERENR, the _EL1 registers. */
	EXPECT(sim_prog_msr(&p, 0, PV_PMUSERENR_EL0, 0xF), SIM_OUT_UNDEF);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMINTENSET_EL1), SIM_OUT_UNDEF);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMMIR_EL1), SIM_OUT_UNDEF);
	/* CR: cycle counter readable, not writable. */
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_CR);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0), SIM_OUT_OK);
	EXPECT(sim_prog_msr(&p, 0, PV_PMCCNTR_EL0, 0), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(0)), SIM_OUT_EL1_SYSREG);
	/* ER: event counters readable, PMSELR read/write, PMXEVCNTR readable. */
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_ER);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(0)), SIM_OUT_OK);
	EXPECT(sim_prog_msr(&p, 0, PV_PMSELR_EL0, 1), SIM_OUT_OK);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMXEVCNTR_EL0), SIM_OUT_OK);
	EXPECT(sim_prog_msr(&p, 0, PV_PMEVCNTR_EL0(0), 0), SIM_OUT_EL1_SYSREG);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMCCNTR_EL0), SIM_OUT_EL1_SYSREG);
	/* SW: PMSWINC only. */
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_SW);
	EXPECT(sim_prog_msr(&p, 0, PV_PMSWINC_EL0, 1), SIM_OUT_OK);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMCR_EL0), SIM_OUT_EL1_SYSREG);
	/* EN: all of them. */
	sim_prog_msr(&p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	EXPECT(sim_prog_msr(&p, 0, PV_PMCR_EL0, PV_PMCR_E), SIM_OUT_OK);
	EXPECT(sim_prog_msr(&p, 0, PV_PMEVCNTR_EL0(1), 7), SIM_OUT_OK);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMEVCNTR_EL0(1)), SIM_OUT_OK);
	EXPECT(sim_prog_mrs(&p, 0, PV_PMUSERENR_EL0), SIM_OUT_OK);
#undef EXPECT
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "el0"), 0);
	assert_int_equal(scen_hygiene(m, "el0"), 0);
	assert_int_equal(p.ops[p.n - 1].value, PV_PMUSERENR_EN);
	sim_prog_free(&p);
	scen_free(m);
}

static uint64_t field(uint64_t v, uint64_t mask)
{
	return PV_FIELD_GET(mask, v);
}

static void test_id_and_identification(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true);
	assert_non_null(m);
	struct sim_prog p, q;
	sim_prog_init(&p);
	sim_prog_init(&q);
	/* VM with PMUv3p1, 3 counters, MEM_ACCESS denied. */
	size_t dfr0 = sim_prog_mrs(&p, 1, PV_ID_AA64DFR0_EL1);
	size_t resv = sim_prog_mrs(&p, 1, PV_SYSREG(3, 0, 0, 7, 7));
	size_t el0_id = sim_prog_mrs(&p, 0, PV_ID_AA64DFR0_EL1);
	sim_prog_expect(&p, el0_id, SIM_OUT_EL1_SYSREG); /* FEAT_IDST */
	size_t pmcr = sim_prog_mrs(&p, 1, PV_PMCR_EL0);
	size_t ceid0 = sim_prog_mrs(&p, 1, PV_PMCEID0_EL0);
	sim_prog_expect(&p, sim_prog_mrs(&p, 1, PV_PMMIR_EL1), SIM_OUT_UNDEF); /* PMUv3p4 */
	sim_prog_expect(&p, sim_prog_msr(&p, 1, PV_PMCEID0_EL0, 0), SIM_OUT_UNDEF);
	sim_prog_expect(&p, sim_prog_mrs(&p, 1, PV_PMSWINC_EL0), SIM_OUT_UNDEF);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_MEM_ACCESS);
	sim_prog_msr(&p, 1, PV_PMEVTYPER_EL0(1), PV_EVT_L1D_CACHE);
	sim_prog_msr(&p, 1, PV_PMCNTENSET_EL0, 3);
	sim_prog_msr(&p, 1, PV_PMCR_EL0, PV_PMCR_E);
	sim_prog_workload(&p, 1, SIM_PROF_MEM, 10000);
	size_t denied = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(0));
	size_t allowed = sim_prog_mrs(&p, 1, PV_PMEVCNTR_EL0(1));
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P1, 3);
	cfg.pmu.nr_filters = 1;
	cfg.pmu.filters[0] = (struct pv_pmu_filter){
		.base_event = PV_EVT_MEM_ACCESS, .nevents = 1, .action = PV_PMU_FILTER_DENY};
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);

	/* VM without a PMU. */
	size_t q_dfr0 = sim_prog_mrs(&q, 1, PV_ID_AA64DFR0_EL1);
	sim_prog_expect(&q, sim_prog_mrs(&q, 1, PV_PMCR_EL0), SIM_OUT_UNDEF);
	sim_prog_expect(&q, sim_prog_msr(&q, 1, PV_PMCNTENSET_EL0, 1), SIM_OUT_UNDEF);
	sim_prog_expect(&q, sim_prog_mrs(&q, 1, PV_PMEVCNTR_EL0(0)), SIM_OUT_UNDEF);
	struct pv_vm_config none = {0};
	assert_true(scen_vm_vcpu(m, &none, 0, &q) >= 0);

	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "id"), 0);
	assert_int_equal(scen_verify(m, 1, "id"), 0);
	assert_int_equal(scen_hygiene(m, "id"), 0);
	assert_true(p.ops[dfr0].trapped);
	assert_int_equal(field(p.ops[dfr0].value, PV_ID_AA64DFR0_PMUVER), PV_PMUVER_V3P1);
	assert_int_equal(p.ops[resv].value, 0);
	assert_int_equal(p.ops[pmcr].value >> 24, 0x41);
	assert_int_equal(PV_FIELD_GET(PV_PMCR_N, p.ops[pmcr].value), 3);
	assert_int_equal(p.ops[ceid0].value >> PV_EVT_MEM_ACCESS & 1, 0);
	assert_int_equal(p.ops[ceid0].value >> PV_EVT_L1D_CACHE & 1, 1);
	assert_int_equal(p.ops[denied].value, 0);
	assert_true(p.ops[allowed].value > 0);
	assert_int_equal(field(q.ops[q_dfr0].value, PV_ID_AA64DFR0_PMUVER), 0);
	sim_prog_free(&p);
	sim_prog_free(&q);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xzr),
		cmocka_unit_test(test_el0_pmuserenr),
		cmocka_unit_test(test_id_and_identification),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
