/* SPDX-License-Identifier: MIT */
/*
 * Benchmark load for `make qemu-bench`: ROUNDS null hypercalls (the hypervisor's floor: an
 * HVC it returns from at once), then ROUNDS rounds of a mix of trapped PMU accesses, the one
 * bench/bench_vpmu.c measures on the host (what a guest kernel's perf does between context
 * switches: counter reads far more often than reprogramming). The hypervisor measures its own
 * EL2 instructions per exit kind (its report); switches come from a busy VM time-sliced
 * beside this one. `bench.rounds=N` (after "--" in the bootargs) sets the rounds, 2000 by
 * default; scripts/exit-profile.sh runs a few under an instruction trace. With `bench.pmu=0`
 * it never touches the PMU (only the null hypercalls): two such VMs give the cost of a
 * switch between vCPUs that do not use it.
 */
#include "pmu.h"

#define MIX 10 /* trapped accesses per round */

void test_main(void)
{
	const unsigned ROUNDS = (unsigned)arg_num("bench.rounds", 2000);
	for (unsigned i = 0; i < ROUNDS * MIX; i++) {
		register uint64_t x0 __asm__("x0") = HYP_CALL_NULL;
		__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
	}
	if (!arg_num("bench.pmu", 1)) {
		gprintf("bench: %u null hypercalls, no PMU access\n", ROUNDS * MIX);
		return;
	}
	/* Counters 0..4 (every VM here has 5) and the cycle counter counting, PMSELR = 2 with
	 * counter 2 on INST_RETIRED. The mix's control writes give back what the registers
	 * hold. */
	uint64_t pmcr = PMCR_E | PMCR_LC;
	wr(pmcntenset_el0, CYCLE_BIT | 0x1F);
	wr(pmselr_el0, 2);
	wr(pmxevtyper_el0, EV_INST_RETIRED);
	wr(pmcr_el0, pmcr);
	uint64_t sum = 0;
	for (unsigned i = 0; i < ROUNDS; i++) {
		sum += rd(pmccntr_el0);
		sum += rd(pmevcntr0_el0);
		sum += rd(pmevcntr3_el0);
		sum += rd(pmccntr_el0);
		sum += rd(pmevcntr4_el0);
		wr(pmevcntr1_el0, i);
		wr(pmxevtyper_el0, EV_INST_RETIRED);
		wr(pmevcntr4_el0, i);
		wr(pmcr_el0, pmcr);
		sum += rd(pmccntr_el0);
	}
	gprintf("bench: %u null hypercalls, %u rounds of %u PMU accesses (sum %lx)\n",
		ROUNDS * MIX, ROUNDS, MIX, sum);
}
