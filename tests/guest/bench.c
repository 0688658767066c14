/* SPDX-License-Identifier: MIT */
/*
 * Benchmark load for `make qemu-bench`: ROUNDS null hypercalls (the hypervisor's floor: an
 * HVC it returns from at once), then ROUNDS trapped PMU reads (PMCCNTR_EL0, the common
 * vPMU path). The hypervisor measures its own EL2 instructions per exit kind (its report);
 * switches come from a busy VM time-sliced beside this one.
 */
#include "pmu.h"

#define ROUNDS 20000

void test_main(void)
{
	for (unsigned i = 0; i < ROUNDS; i++) {
		register uint64_t x0 __asm__("x0") = HYP_CALL_NULL;
		__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
	}
	(void)rd(pmcr_el0); /* first PMU access: activates the vPMU outside the loop */
	for (unsigned i = 0; i < ROUNDS; i++)
		(void)rd(pmccntr_el0);
	gprintf("bench: %u null hypercalls, %u PMCCNTR_EL0 reads\n", ROUNDS, ROUNDS);
}
