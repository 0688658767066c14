/* SPDX-License-Identifier: MIT */
/*
 * Overflow on time (D13.3.1): an event counter preset K events short of its wrap raises its
 * overflow, and with PMINTENSET its interrupt, on the K-th event, and a counter at 0 after a
 * full period of 2^32. Under -icount shift=0 an instruction is 1 ns and one cycle, so the
 * interrupt of an INST_RETIRED counter preset K short is taken right after the K-th
 * instruction after the MSR that enables it: ELR_EL2 is that MSR's address + 4 (K + 1).
 * Stock QEMU arms its overflow timer one event short and then never again, so the overflow
 * waits for the next read of the counter; its cycle counter, timed right, is the control.
 * At EL2, counting EL2 (PMEVTYPER<n>_EL0.NSH, PMCCFILTR_EL0.NSH).
 */
#include "hw.h"
#include "pmu.h"

static volatile unsigned pmu_irqs;
static volatile uint64_t pmu_irq_elr;
static volatile uint64_t pmu_irq_ccnt;
static volatile bool guard_fired;

static void on_irq(unsigned intid, struct hw_frame *frame)
{
	if (intid == HW_INTID_PMU) {
		pmu_irq_ccnt = READ_SYSREG(pmccntr_el0);
		pmu_irqs++;
		pmu_irq_elr = frame->elr;
		WRITE_SYSREG(pmintenclr_el1, ~0UL); /* the line falls; the flags stay */
	} else if (intid == HW_INTID_CNTP) {
		guard_fired = true;
		WRITE_SYSREG(cntp_ctl_el0, 0);
	}
}

/*
 * Enables the counters MASK (PMCR_EL0.E is set) with IRQs unmasked, then 32 NOPs; returns the
 * enabling MSR's address. The counters stay enabled.
 */
static uint64_t nop_window(uint64_t mask)
{
	uint64_t at;

	__asm__ volatile("adr %0, 1f\n"
			 "msr daifclr, #2\n"
			 "isb\n"
			 "1: msr pmcntenset_el0, %1\n"
			 ".rept 32\n"
			 "nop\n"
			 ".endr\n"
			 "msr daifset, #2\n"
			 : "=&r"(at)
			 : "r"(mask)
			 : "memory");
	return at;
}

/* The same, the 3rd, 5th and 7th instruction after the MSR loads (LDR from BUF). */
static uint64_t load_window(uint64_t mask, const void *buf)
{
	uint64_t at, tmp;

	__asm__ volatile("adr %0, 1f\n"
			 "msr daifclr, #2\n"
			 "isb\n"
			 "1: msr pmcntenset_el0, %2\n"
			 "nop\n"
			 "nop\n"
			 "ldr %1, [%3]\n"
			 "nop\n"
			 "ldr %1, [%3]\n"
			 "nop\n"
			 "ldr %1, [%3]\n"
			 ".rept 32\n"
			 "nop\n"
			 ".endr\n"
			 "msr daifset, #2\n"
			 : "=&r"(at), "=&r"(tmp)
			 : "r"(mask), "r"(buf)
			 : "memory");
	return at;
}

static void start(unsigned counter, unsigned event, uint64_t preset)
{
	pmu_reset();
	pmu_irqs = 0;
	pmu_irq_elr = 0;
	if (counter == CYCLE_COUNTER) {
		WRITE_SYSREG(pmccfiltr_el0, PMEVTYPER_NSH);
		WRITE_SYSREG(pmccntr_el0, preset);
		WRITE_SYSREG(pmcr_el0, PMCR_E); /* LC = 0: it overflows at 2^32 */
	} else {
		pmu_set_type(counter, PMEVTYPER_NSH | event);
		pmu_set_count(counter, preset);
		WRITE_SYSREG(pmcr_el0, PMCR_E | PMCR_LC);
	}
	WRITE_SYSREG(pmintenset_el1, 1UL << counter);
	ISB();
}

/* The interrupt came once, right after instruction K after the enabling MSR at AT. */
static void check_on_time(const char *name, uint64_t at, unsigned k, unsigned counter)
{
	uint64_t ovs = READ_SYSREG(pmovsset_el0);

	if (pmu_irqs == 0) {
		hw_check(false, name,
			 "no overflow interrupt within 32 instructions after the wrap "
			 "(PMOVSSET_EL0 %#llx)",
			 (unsigned long long)ovs);
		return;
	}
	hw_check(pmu_irqs == 1 && pmu_irq_elr == at + 4 * (k + 1) && (ovs & (1UL << counter)),
		 name,
		 "%u interrupt(s), taken at the enabling MSR + %lld instructions, not + %u "
		 "(PMOVSSET_EL0 %#llx)",
		 pmu_irqs, (long long)(pmu_irq_elr - at) / 4, k + 1, (unsigned long long)ovs);
}

int main(void)
{
	uint64_t at;

	hw_gic_init();
	hw_irq_handler(on_irq);
	hw_irq_enable(HW_INTID_PMU);
	hw_irq_enable(HW_INTID_CNTP);

	/* The control: the cycle counter, which stock QEMU times right too. */
	start(CYCLE_COUNTER, 0, 0x100000000UL - 5);
	at = nop_window(1UL << CYCLE_COUNTER);
	check_on_time("overflow_ccntr_control: PMCCNTR_EL0 preset 2^32-5 interrupts after the "
		      "5th cycle",
		      at, 5, CYCLE_COUNTER);

	start(0, EV_INST_RETIRED, 0xffffffffUL);
	at = nop_window(1);
	check_on_time("overflow_preset_max: INST_RETIRED preset 2^32-1 interrupts after the "
		      "next instruction",
		      at, 1, 0);

	start(2, EV_INST_RETIRED, 0x100000000UL - 5);
	at = nop_window(1UL << 2);
	check_on_time("overflow_preset_5: INST_RETIRED preset 2^32-5 interrupts after the 5th "
		      "instruction",
		      at, 5, 2);

	/* A common event the models add: the 3rd load, 7 instructions after the MSR. */
	start(1, EV_LD_RETIRED, 0x100000000UL - 3);
	at = load_window(1UL << 1, hw_buffer);
	check_on_time("overflow_ld_retired: LD_RETIRED preset 2^32-3 interrupts after the 3rd "
		      "load",
		      at, 7, 1);

	/*
	 * A counter at 0 overflows after a full period: CPU_CYCLES, with the 64-bit cycle
	 * counter started by the same MSR as the reference, while the CPU waits in WFI (with
	 * sleep=off, virtual time jumps to the next timer). The EL1 physical timer is the
	 * guard, 2^22 ns after the wrap.
	 */
	start(3, EV_CPU_CYCLES, 0);
	WRITE_SYSREG(pmccfiltr_el0, PMEVTYPER_NSH);
	guard_fired = false;
	WRITE_SYSREG(cntp_cval_el0, READ_SYSREG(cntpct_el0) + ((1ULL << 32) + (1ULL << 22)) *
								      READ_SYSREG(cntfrq_el0) /
								      1000000000ULL);
	WRITE_SYSREG(cntp_ctl_el0, 1);
	WRITE_SYSREG(pmcntenset_el0, (1UL << 3) | (1UL << CYCLE_COUNTER));
	while (!pmu_irqs && !guard_fired)
		__asm__ volatile("msr daifclr, #2\n"
				 "wfi\n"
				 "msr daifset, #2\n" ::
					 : "memory");
	WRITE_SYSREG(cntp_ctl_el0, 0);
	hw_check(pmu_irqs == 1 && pmu_irq_ccnt >= (1ULL << 32) &&
			 pmu_irq_ccnt < (1ULL << 32) + 1000,
		 "overflow_preset_zero: CPU_CYCLES preset 0 interrupts after 2^32 cycles",
		 "%s, the cycle counter at %llu (2^32 + %lld)",
		 pmu_irqs ? "interrupt taken" : "no interrupt",
		 (unsigned long long)(pmu_irqs ? pmu_irq_ccnt : READ_SYSREG(pmccntr_el0)),
		 (long long)((pmu_irqs ? pmu_irq_ccnt : READ_SYSREG(pmccntr_el0)) -
			     (1ULL << 32)));
	pmu_reset();
	return 0;
}
