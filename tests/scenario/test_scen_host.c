/* SPDX-License-Identifier: MIT */
/*
 * Host-reserved counters keep counting exactly the host's EL2 events whatever the guests do:
 * PMCR.P/C, PMCNTENCLR/PMOVSCLR/PMINTENCLR with every bit set, PMCNTENSET/PMOVSSET/
 * PMINTENSET with every bit set, PMEVCNTR<n>/PMEVTYPER<n> and PMSELR-selected PMXEV* for
 * n >= N (UNDEF), PMSWINC of every bit. Checked after every time slice, not only at the end.
 * The same with direct access (FEAT_FGT), where every one of those but the types reaches the
 * hardware untrapped and the hardware itself keeps the host's counters out of the guest's
 * reach (MDCR_EL2.HPMN = the VM's N: Arm ARM D13.1.1, D24.5.8, D24.5.10, D24.5.24).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "scen.h"

#define HOST 2

static void hostile_prog(struct sim_prog *p, unsigned n, unsigned round)
{
	sim_prog_msr(p, 1, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, ~UINT64_C(0));
	sim_prog_msr(p, 1, PV_PMINTENSET_EL1, ~UINT64_C(0));
	sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned k = 0; k < 10; k++) {
		unsigned el = (k + round) & 1;
		sim_prog_workload(p, el, (enum sim_profile)(k % SIM_PROF_HYP),
				  20000 + 3001 * k);
		sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_P | PV_PMCR_C);
		sim_prog_msr(p, el, PV_PMCNTENCLR_EL0, ~UINT64_C(0));
		sim_prog_msr(p, el, PV_PMOVSSET_EL0, ~UINT64_C(0));
		sim_prog_msr(p, el, PV_PMOVSCLR_EL0, ~UINT64_C(0));
		sim_prog_msr(p, 1, PV_PMINTENCLR_EL1, ~UINT64_C(0));
		sim_prog_msr(p, 1, PV_PMINTENSET_EL1, ~UINT64_C(0));
		sim_prog_msr(p, el, PV_PMCNTENSET_EL0, ~UINT64_C(0));
		sim_prog_msr(p, el, PV_PMSWINC_EL0, ~UINT64_C(0));
		sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LP);
		sim_prog_mrs(p, el, PV_PMEVCNTR_EL0(0));
		/* Counters the VM does not have, including the host's: UNDEF. */
		for (unsigned i = n; i < 31; i++) {
			sim_prog_expect(p, sim_prog_msr(p, el, PV_PMEVCNTR_EL0(i), 0),
					SIM_OUT_UNDEF);
			sim_prog_expect(p, sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(i), 0),
					SIM_OUT_UNDEF);
			sim_prog_expect(p, sim_prog_mrs(p, el, PV_PMEVCNTR_EL0(i)),
					SIM_OUT_UNDEF);
		}
		for (unsigned i = n; i < 31; i += 3) {
			sim_prog_msr(p, el, PV_PMSELR_EL0, i);
			sim_prog_expect(p, sim_prog_msr(p, el, PV_PMXEVCNTR_EL0, 0),
					SIM_OUT_UNDEF);
			sim_prog_expect(p, sim_prog_msr(p, el, PV_PMXEVTYPER_EL0, 0),
					SIM_OUT_UNDEF);
			sim_prog_expect(p, sim_prog_mrs(p, el, PV_PMXEVCNTR_EL0),
					SIM_OUT_UNDEF);
		}
	}
}

static unsigned check_host(struct sim_machine *m, const char *tag)
{
	unsigned bad = 0;
	for (unsigned c = 0; c < m->cfg.cpus; c++)
		for (unsigned k = 0; k < HOST; k++) {
			uint64_t want = m->cfg.host_initial +
					sim_cpu_truth_get(m->cpu[c].truth.el2,
							  sim_host_event(m, k));
			uint64_t got = sim_host_counter(m, c, k);
			if (got != want) {
				fprintf(stderr,
					"%s: pCPU %u host counter %u = %llu, EL2 truth %llu\n",
					tag, c, k, (unsigned long long)got,
					(unsigned long long)want);
				bad++;
			}
		}
	return bad;
}

static unsigned run(uint64_t seed, unsigned version, uint64_t host_initial, bool direct)
{
	struct sim_config c = scen_config(seed, 10, HOST, 1000, 30000);
	c.pmu.version = (uint8_t)version;
	c.host_initial = host_initial;
	c.fgt = direct;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	static const uint8_t counters[4] = {1, 3, 6, 8};
	struct sim_prog progs[4];
	struct pv_vm_config cfg[4];
	for (unsigned i = 0; i < 4; i++) {
		sim_prog_init(&progs[i]);
		cfg[i] = scen_vm(version > PV_PMUVER_V3P5 ? PV_PMUVER_V3P5 : version,
				 counters[i]);
		cfg[i].pmu.direct = direct;
		hostile_prog(&progs[i], counters[i], i);
		int k = scen_vm_vcpu(m, &cfg[i], 0, &progs[i]);
		assert_true(k >= 0);
		assert_true(m->vcpu[k].pv.vm->pmu.direct == direct);
	}
	char tag[64];
	snprintf(tag, sizeof(tag), "seed %llu PMUVer %u%s", (unsigned long long)seed, version,
		 direct ? " direct" : "");
	unsigned bad = 0, steps = 0;
	while (sim_step(m)) {
		steps++;
		if (check_host(m, tag))
			return 1;
	}
	bad += check_host(m, tag);
	bad += scen_hygiene(m, tag);
	for (unsigned i = 0; i < 4; i++) {
		bad += scen_verify(m, i, tag);
		sim_prog_free(&progs[i]);
	}
	if (steps < 10)
		bad++;
	/* The host counters were never disturbed: no overflow, still enabled, still theirs. */
	const struct sim_pmu *pmu = &m->cpu[0].pmu;
	if ((pmu->cnten >> 8 & 3) != 3 || m->cpu[0].stats.host_overflows)
		bad++;
	scen_free(m);
	return bad;
}

static void test_host_counters_exact(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		bad += run(seed, PV_PMUVER_V3P5, 0, false);
		bad += run(seed, PV_PMUVER_V3P1, 0, false);
	}
	assert_int_equal(bad, 0);
}

static void test_host_counters_exact_direct(void **state)
{
	(void)state;
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		bad += run(seed, PV_PMUVER_V3P5, 0, true);
		bad += run(seed, PV_PMUVER_V3P1, 0, true);
	}
	assert_int_equal(bad, 0);
}

/* A host counter that crosses 2^32 while the guests run: 64-bit overflow (HLP) on PMUv3p5,
 * so no interrupt and no lost count. */
static void test_host_counter_crosses_2_32(void **state)
{
	(void)state;
	assert_int_equal(run(3, PV_PMUVER_V3P5, 0xFFFFFFFFu - 100000, false), 0);
	assert_int_equal(run(3, PV_PMUVER_V3P5, 0xFFFFFFFFu - 100000, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_counters_exact),
		cmocka_unit_test(test_host_counters_exact_direct),
		cmocka_unit_test(test_host_counter_crosses_2_32),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
