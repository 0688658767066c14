/* SPDX-License-Identifier: MIT */
/*
 * A busy neighbour: keeps every one of its counters running (INST_RETIRED and CPU_CYCLES at
 * EL1, with its own values, overflow interrupts off), traps often, and checks its own counts
 * over several long windows. Run beside pmu_exact to show that time-slicing leaks nothing
 * between VMs. `busy.mult=M` in its bootargs makes every window M times longer (default 1), to
 * keep it busy beside a longer-running VM (the Linux guest).
 */
#include "pmu.h"

static uint64_t window(uint64_t mask, uint64_t n)
{
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tsubs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(mask), [n] "r"(n)
			 : "x9", "cc", "memory");
	return 2 + 2 * n;
}

void test_main(void)
{
	unsigned n = (unsigned)dt_pmu_counters(0);
	uint64_t mult = arg_num("busy.mult", 1);
	uint64_t mask = CYCLE_BIT | ((1ul << n) - 1);
	for (unsigned round = 0; round < 10; round++) {
		pmu_reset();
		for (unsigned i = 0; i < n; i++) {
			pmevtyper_write(i, (i & 1 ? EV_CPU_CYCLES : EV_INST_RETIRED) | EVT_U);
			pmevcntr_write(i, 0x1000ul * (i + 1));
		}
		wr(pmccfiltr_el0, EVT_U);
		wr(pmcr_el0, PMCR_E | PMCR_LC | PMCR_LP);
		uint64_t k = window(mask, (1500000 + 1000 * round) * (mult ? mult : 1));
		bool ok = rd(pmccntr_el0) == k;
		for (unsigned i = 0; i < n; i++)
			ok &= pmevcntr_read(i) == 0x1000ul * (i + 1) + k;
		check(ok, "busy: every counter advanced by exactly K", "round %u", round);
		gprintf("count: busy round %u K=%lu\n", round, k);
	}
	pmu_reset();
}
