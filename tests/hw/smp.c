/* SPDX-License-Identifier: MIT */
/*
 * Two CPUs (-smp 2), each counting INST_RETIRED in its own PMU: a CPU's counter counts the
 * instructions that CPU executed, and nothing another CPU did (D14.3.1: INST_RETIRED,
 * "Instruction architecturally executed"). Under -icount QEMU runs the CPUs in turn, and stock
 * QEMU's INST_RETIRED counts the one instruction count of the whole machine, so a CPU's
 * window also gets the other CPU's instructions of the same time.
 *
 * Each CPU in turn counts a window of exactly 2N + 1 instructions (N iterations of SUBS and
 * B.NE, and the MSR that disables the counter) while the other runs a loop that keeps its EL1
 * physical timer armed ahead (interrupt masked), so that the two CPUs take turns all through
 * the window (busy_until()).
 * The cycle counter over the same window counts the machine's time (docs/qemu.md: CPU_CYCLES
 * per CPU), which includes the other CPU's turns: more than the window's instructions.
 */
#include "hw.h"
#include "pmu.h"

#define N0 300000
#define N1 200000

static volatile unsigned phase; /* 0 start, 1 CPU 1 ready, 2 CPU 0 counted, 3 CPU 1 counted */
static volatile uint64_t counted[2], cycles[2];

/* Counter 0 (INST_RETIRED at EL2) and the cycle counter over N iterations. */
static void count_window(unsigned cpu, uint64_t n)
{
	uint64_t left = n, mask = 1UL | (1UL << CYCLE_COUNTER);

	pmu_reset();
	pmu_set_type(0, PMEVTYPER_NSH | EV_INST_RETIRED);
	WRITE_SYSREG(pmccfiltr_el0, PMEVTYPER_NSH);
	WRITE_SYSREG(pmcr_el0, PMCR_E | PMCR_LC);
	ISB();
	__asm__ volatile("msr pmcntenset_el0, %1\n"
			 "1: subs %0, %0, #1\n"
			 "b.ne 1b\n"
			 "msr pmcntenclr_el0, %1\n"
			 : "+r"(left)
			 : "r"(mask)
			 : "memory", "cc");
	counted[cpu] = pmu_count(0);
	cycles[cpu] = READ_SYSREG(pmccntr_el0);
}

/*
 * Keeps a timer event 1000 ticks ahead until PHASE reaches UNTIL. QEMU gives each CPU at most
 * half the time to the next timer event, so the other CPU runs about 500 instructions at a
 * time; an event much closer would pass in the other CPU's turn, and this one would get none.
 */
static void busy_until(unsigned until)
{
	WRITE_SYSREG(cntp_ctl_el0, 3); /* enabled, interrupt masked */
	while (phase < until) {
		WRITE_SYSREG(cntp_cval_el0, READ_SYSREG(cntpct_el0) + 1000);
		for (volatile unsigned i = 0; i < 20; i++)
			;
	}
	WRITE_SYSREG(cntp_ctl_el0, 0);
}

static void cpu1(void)
{
	phase = 1;
	busy_until(2);
	count_window(1, N1);
	phase = 3;
}

int main(void)
{
	int64_t r = hw_cpu_on(1, cpu1);

	if (!hw_check(r == 0, "smp_cpu_on: PSCI CPU_ON starts CPU 1", "PSCI returned %lld",
		      (long long)r))
		return 0;
	while (phase < 1)
		;
	count_window(0, N0);
	phase = 2;
	busy_until(3);

	HW_CHECK_EQ("smp_cpu0_inst_retired: CPU 0 counts exactly its own window", counted[0],
		    2 * N0 + 1);
	HW_CHECK_EQ("smp_cpu1_inst_retired: CPU 1 counts exactly its own window", counted[1],
		    2 * N1 + 1);
	hw_check(cycles[0] > 2 * N0 + 1 && cycles[1] > 2 * N1 + 1,
		 "smp_cycles_machine_time: a CPU's cycles over its window include the other "
		 "CPU's turns",
		 "CPU 0: %llu cycles for %u instructions, CPU 1: %llu for %u",
		 (unsigned long long)cycles[0], 2 * N0 + 1, (unsigned long long)cycles[1],
		 2 * N1 + 1);
	hw_printf("smp: CPU 0 window %u instructions, %llu counted, %llu cycles; CPU 1 window "
		  "%u, "
		  "%llu counted, %llu cycles\n",
		  2 * N0 + 1, (unsigned long long)counted[0], (unsigned long long)cycles[0],
		  2 * N1 + 1, (unsigned long long)counted[1], (unsigned long long)cycles[1]);
	return 0;
}
