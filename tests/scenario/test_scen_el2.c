/* SPDX-License-Identifier: MIT */
/*
 * EL2 work is never counted by a guest: every combination of the filter bits P, U, NSK, NSU,
 * NSH, M, MT, SH on event counters and on the cycle counter, on hardware with and without
 * HPMD/HCCD (PMUv3, v3p1, v3p4, v3p5), with and without EL3 (firmware letting Secure state
 * and EL3 count or not, the guests calling into it), while the hypervisor works at EL2 on every
 * trap, interrupt and tick. The host's own EL2 counter sees exactly that EL2 work.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "scen.h"

#define VMS 4
#define CTRS 7

/* EXC_RETURN: the hypervisor ERETs on every trap while the guests never do, so any EL2
 * leak shows at once. */
static const uint32_t events[] = {
	PV_EVT_INST_RETIRED, PV_EVT_CPU_CYCLES, 0x0A /* EXC_RETURN */,  PV_EVT_MEM_ACCESS,
	PV_EVT_BR_RETIRED,   PV_EVT_EXC_TAKEN,  PV_EVT_L1D_CACHE_REFILL};

static void combo_prog(struct sim_prog *p, unsigned first, bool smc)
{
	sim_prog_msr(p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	for (unsigned j = 0; j < CTRS; j++) {
		uint64_t f = (uint64_t)((first + j) & 0xFF) << 24;
		sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(j), f | events[j]);
		sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(j), 0);
	}
	sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, (uint64_t)(first & 0xFF) << 24);
	sim_prog_msr(p, 1, PV_PMCCNTR_EL0, 0);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, ((1u << CTRS) - 1) | 1u << 31);
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	struct sim_work fw;
	sim_work_profile(&fw, SIM_PROF_HYP, 3000);
	for (unsigned k = 0; k < 12; k++) {
		sim_prog_workload(p, 0, SIM_PROF_INT, 4000 + 977 * k);
		sim_prog_mrs(p, 0, PV_PMCCNTR_EL0);
		sim_prog_workload(p, 1, SIM_PROF_MEM, 3000 + 1231 * k);
		if (smc) {
			sim_prog_smc(p, 3, &fw);
			sim_prog_smc(p, 1, &fw);
		}
		for (unsigned j = 0; j < CTRS; j++)
			sim_prog_mrs(p, k & 1, PV_PMEVCNTR_EL0(j));
	}
}

static unsigned run_combos(unsigned hw_version, bool el3, bool spme, uint64_t seed)
{
	unsigned bad = 0;
	unsigned vm_version = hw_version > PV_PMUVER_V3P5 ? PV_PMUVER_V3P5 : hw_version;
	for (unsigned start = 0; start < 256; start += VMS * CTRS) {
		struct sim_config c = scen_config(seed + start, CTRS + 1, 1, 500, 9000);
		c.pmu.version = (uint8_t)hw_version;
		c.el3 = el3;
		c.sel2 = el3;
		c.secure_counting = spme;
		struct sim_machine *m = scen_machine(&c);
		assert_non_null(m);
		struct sim_prog progs[VMS];
		struct pv_vm_config cfg[VMS];
		for (unsigned i = 0; i < VMS; i++) {
			sim_prog_init(&progs[i]);
			cfg[i] = scen_vm(vm_version, CTRS);
			combo_prog(&progs[i], start + i * CTRS, el3);
			assert_true(scen_vm_vcpu(m, &cfg[i], 0, &progs[i]) >= 0);
		}
		sim_run(m);
		char tag[64];
		snprintf(tag, sizeof(tag), "PMUVer %u%s%s combos %u..", hw_version,
			 el3 ? " el3" : "", spme ? " spme" : "", start);
		bad += scen_hygiene(m, tag);
		for (unsigned i = 0; i < VMS; i++) {
			bad += scen_verify(m, i, tag);
			/* EXC_RETURN (counter 2) is never executed by the guests. */
			for (size_t k = 0; k < progs[i].n; k++) {
				const struct sim_op *op = &progs[i].ops[k];
				if (op->kind == SIM_OP_MRS && op->key == PV_PMEVCNTR_EL0(2) &&
				    op->value != 0) {
					fprintf(stderr, "%s vm %u op %zu: EXC_RETURN = %llu\n",
						tag, i, k, (unsigned long long)op->value);
					bad++;
				}
			}
			sim_prog_free(&progs[i]);
		}
		uint64_t el2 = m->cpu[0].truth.el2[SIM_EV_INST_RETIRED];
		if (el2 == 0 || sim_host_counter(m, 0, 0) != el2) {
			fprintf(stderr, "%s: host counter %llu, EL2 instructions %llu\n", tag,
				(unsigned long long)sim_host_counter(m, 0, 0),
				(unsigned long long)el2);
			bad++;
		}
		if (el3 && m->cpu[0].truth.el3[SIM_EV_INST_RETIRED] == 0)
			bad++;
		scen_free(m);
	}
	return bad;
}

static void test_no_el3(void **state)
{
	(void)state;
	static const uint8_t versions[] = {PV_PMUVER_V3, PV_PMUVER_V3P1, PV_PMUVER_V3P4,
					   PV_PMUVER_V3P5};
	unsigned bad = 0;
	for (unsigned v = 0; v < sizeof(versions); v++)
		bad += run_combos(versions[v], false, false, 11);
	assert_int_equal(bad, 0);
}

/* With EL3; firmware either lets Secure state and EL3 count (MDCR_EL3.SPME) or not (then
 * the cycle counter still counts there unless PMCR.DP). */
static void test_el3(void **state)
{
	(void)state;
	static const uint8_t versions[] = {PV_PMUVER_V3, PV_PMUVER_V3P1, PV_PMUVER_V3P5};
	unsigned bad = 0;
	for (unsigned v = 0; v < sizeof(versions); v++) {
		bad += run_combos(versions[v], true, true, 23);
		bad += run_combos(versions[v], true, false, 29);
	}
	assert_int_equal(bad, 0);
}

/* The guest cannot reach the EL2 controls themselves. */
static void test_el2_registers_undef(void **state)
{
	(void)state;
	struct sim_config c;
	sim_config_default(&c);
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	struct sim_prog p;
	sim_prog_init(&p);
	static const uint32_t keys[] = {PV_MDCR_EL2, PV_HCR_EL2, PV_CPTR_EL2};
	for (unsigned i = 0; i < 3; i++) {
		sim_prog_expect(&p, sim_prog_mrs(&p, 1, keys[i]), SIM_OUT_UNDEF);
		sim_prog_expect(&p, sim_prog_msr(&p, 1, keys[i], 0), SIM_OUT_UNDEF);
	}
	struct pv_vm_config cfg = scen_vm(PV_PMUVER_V3P5, 4);
	assert_true(scen_vm_vcpu(m, &cfg, 0, &p) >= 0);
	uint64_t mdcr = m->cpu[0].hyp_mdcr;
	sim_run(m);
	assert_int_equal(scen_verify(m, 0, "el2 regs"), 0);
	assert_int_equal(m->cpu[0].mdcr, mdcr);
	sim_prog_free(&p);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_el3),
		cmocka_unit_test(test_el3),
		cmocka_unit_test(test_el2_registers_undef),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
