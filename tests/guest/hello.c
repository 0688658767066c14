/* SPDX-License-Identifier: MIT */
/* The smallest end-to-end slice: print, read PMCR_EL0 through a trapped access, check the
 * device tree the hypervisor wrote, and end through PSCI SYSTEM_OFF. */
#include "pmu.h"

void test_main(void)
{
	gputs("hello from EL1\n");
	uint64_t el = rd(CurrentEL) >> 2;
	CHECK_EQ(el, 1, "hello: running at EL1");
	uint64_t pmcr = rd(pmcr_el0);
	gprintf("PMCR_EL0 = %lx (N = %lu)\n", pmcr, PMCR_N(pmcr));
	CHECK_EQ(PMCR_N(pmcr), dt_pmu_counters(99),
		 "hello: PMCR_EL0.N matches /chosen/perfvisor,pmu-counters");
	uint64_t base = 0, size = 0;
	CHECK(dt_memory(&base, &size) && base == 0x40000000ul && size >= (16ul << 20),
	      "hello: device tree memory node");
	/* The hello scenario passes nothing after "--": like QEMU, the tree has no bootargs. */
	CHECK(dt_bootargs() == NULL, "hello: no bootargs when none were given");
}
