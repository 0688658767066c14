/* SPDX-License-Identifier: MIT */
/*
 * The PMU interrupt line (D13.3.1): counter n requests it while PMINTENSET<n> and
 * PMOVSSET<n> are set and n is enabled, by PMCR_EL0.E below MDCR_EL2.HPMN (and the cycle
 * counter), by MDCR_EL2.HPME at or above it; the line follows every write of PMCR_EL0 and
 * MDCR_EL2. And the counters at or above HPMN count by HPME, not PMCR_EL0.E
 * (D13.5.1.1). Stock QEMU gates every counter's request on PMCR_EL0.E and computes the line
 * again only on writes of PMINTEN and PMOVS (and at an overflow); its counting already
 * follows HPME.
 * The line is read through the GIC: with the interrupt masked, ICC_HPPIR1_EL1 names INTID 23
 * while it is high, 1023 when it is low.
 */
#include "hw.h"
#include "pmu.h"

#define HPMN 4

static volatile unsigned pmu_irqs;
static volatile uint64_t pmu_irq_elr;

static void on_irq(unsigned intid, struct hw_frame *frame)
{
	if (intid == HW_INTID_PMU) {
		pmu_irqs++;
		pmu_irq_elr = frame->elr;
		WRITE_SYSREG(pmintenclr_el1, ~0UL);
	}
}

static bool line(void)
{
	return hw_irq_pending() == HW_INTID_PMU;
}

static void check_line(const char *name, bool want)
{
	bool got = line();

	hw_check(got == want, name, "the PMU interrupt is %s", got ? "pending" : "not pending");
}

/* Instructions at EL2 counted by counter N while the window (2N + 1 instructions) runs. */
static uint64_t count_window(unsigned n, unsigned iterations)
{
	uint64_t before = pmu_count(n), left = iterations;

	__asm__ volatile("msr pmcntenset_el0, %1\n"
			 "1: subs %0, %0, #1\n"
			 "b.ne 1b\n"
			 "msr pmcntenclr_el0, %1\n"
			 : "+r"(left)
			 : "r"(1UL << n)
			 : "memory", "cc");
	return pmu_count(n) - before;
}

int main(void)
{
	uint64_t at;

	hw_gic_init();
	hw_irq_handler(on_irq);
	hw_irq_enable(HW_INTID_PMU);

	/* Counter 0, below HPMN: its request follows PMCR_EL0.E. */
	pmu_reset();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN));
	WRITE_SYSREG(pmcr_el0, PMCR_E);
	WRITE_SYSREG(pmintenset_el1, 1);
	WRITE_SYSREG(pmovsset_el0, 1);
	check_line(
		"irq_guest_overflow: counter 0's overflow with PMCR_EL0.E set raises the line",
		true);
	WRITE_SYSREG(pmcr_el0, 0);
	check_line("irq_pmcr_e_lowers: clearing PMCR_EL0.E lowers the line", false);
	WRITE_SYSREG(pmcr_el0, PMCR_E);
	check_line("irq_pmcr_e_raises: setting PMCR_EL0.E raises it again", true);

	/* Counter 4, at HPMN: its request follows MDCR_EL2.HPME, whatever PMCR_EL0.E says. */
	pmu_reset();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN));
	WRITE_SYSREG(pmintenset_el1, 1UL << 4);
	WRITE_SYSREG(pmovsset_el0, 1UL << 4);
	check_line("irq_host_disabled: counter 4's overflow with HPME and PMCR_EL0.E clear "
		   "leaves the line low",
		   false);
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN) | MDCR_HPME);
	check_line("irq_hpme_raises: setting MDCR_EL2.HPME raises it (PMCR_EL0.E clear)", true);
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN));
	check_line("irq_hpme_lowers: clearing MDCR_EL2.HPME lowers it", false);
	WRITE_SYSREG(pmcr_el0, PMCR_E);
	WRITE_SYSREG(pmintenset_el1, 1UL << 4); /* stock QEMU computes the line here */
	check_line("irq_pmcr_e_not_host: PMCR_EL0.E does not raise it for counter 4", false);
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(2) | MDCR_HPME);
	WRITE_SYSREG(pmcr_el0, 0);
	check_line("irq_hpmn_moves: HPMN lowered to 2 with HPME set keeps counter 4's request "
		   "after PMCR_EL0.E is cleared",
		   true);

	/* Counting: counter 4 by HPME, counter 0 by PMCR_EL0.E. */
	pmu_reset();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN) | MDCR_HPME);
	pmu_set_type(4, PMEVTYPER_NSH | EV_INST_RETIRED);
	pmu_set_type(0, PMEVTYPER_NSH | EV_INST_RETIRED);
	WRITE_SYSREG(pmcr_el0, 0);
	ISB();
	HW_CHECK_EQ("hpme_counts: counter 4 counts with HPME set and PMCR_EL0.E clear",
		    count_window(4, 1000), 2 * 1000 + 1);
	HW_CHECK_EQ("hpme_counts_not_guest: counter 0 does not count with PMCR_EL0.E clear",
		    count_window(0, 1000), 0);
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN));
	WRITE_SYSREG(pmcr_el0, PMCR_E);
	ISB();
	HW_CHECK_EQ("hpme_clear_stops: counter 4 does not count with HPME clear and PMCR_EL0.E "
		    "set",
		    count_window(4, 1000), 0);

	/* Counter 4's overflow interrupt with PMCR_EL0.E clear, on time (2^32 - 3: the 3rd). */
	pmu_reset();
	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(HPMN) | MDCR_HPME);
	pmu_set_type(4, PMEVTYPER_NSH | EV_INST_RETIRED);
	pmu_set_count(4, 0x100000000UL - 3);
	WRITE_SYSREG(pmintenset_el1, 1UL << 4);
	ISB();
	pmu_irqs = 0;
	__asm__ volatile("adr %0, 1f\n"
			 "msr daifclr, #2\n"
			 "isb\n"
			 "1: msr pmcntenset_el0, %1\n"
			 ".rept 32\n"
			 "nop\n"
			 ".endr\n"
			 "msr daifset, #2\n"
			 : "=&r"(at)
			 : "r"(1UL << 4)
			 : "memory");
	hw_check(pmu_irqs == 1 && pmu_irq_elr == at + 4 * 4,
		 "irq_hpme_overflow: counter 4 preset 2^32-3 interrupts after the 3rd "
		 "instruction "
		 "with PMCR_EL0.E clear",
		 "%u interrupt(s), at the enabling MSR + %lld instructions", pmu_irqs,
		 pmu_irqs ? (long long)(pmu_irq_elr - at) / 4 : -1LL);
	pmu_reset();
	return 0;
}
