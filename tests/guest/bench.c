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
 *
 * With `bench.clock=1` a last phase measures the same two loops from inside, for a host
 * without a self-count (Xen): under -icount shift=0 one instruction is one nanosecond, so
 * CNTVCT_EL0 gives the instructions of every exception level, and counter 2, counting
 * INST_RETIRED at EL1 and EL0 only (exact there), the guest's own; the difference is the
 * host's. It prints "bench: clock ..." with the raw figures; the runner divides. A third
 * loop there reads counters only (PMCCNTR_EL0, PMEVCNTR<n>_EL0, PMXEVCNTR_EL0): what a
 * host's fast path serves (hyp.trap_fast); a fourth writes PMSELR_EL0 and a fifth reads
 * PMCR_EL0, what it leaves to the slow path (hyp.trap_write_slow, hyp.trap_pmcr_read).
 *
 * With `bench.amu=1` as well (a VM with the AMU, docs/amu.md) the clock phase ends with
 * "bench: clock ... amu-reads ...": activity counter reads, the mix a frequency governor
 * makes (the core cycles, instructions, memory stalls and two auxiliary counters, never
 * CNT_CYCLES, which has no virtual offset: Arm ARM D24.6.9), MIX per round. On AMUv1p1 none
 * traps (hyp.amu_read: the report's AMU traps per read); on AMUv1 each does
 * (hyp.amu_read_v1: EL2 instructions per read, from the clock as above).
 */
#include "pmu.h"

#define MIX 10 /* trapped accesses per round */

static void null_hvcs(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		register uint64_t x0 __asm__("x0") = HYP_CALL_NULL;
		__asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
	}
}

static uint64_t mix(unsigned rounds, uint64_t pmcr)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < rounds; i++) {
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
	return sum;
}

/* Writes to PMSELR_EL0, MIX per round, a different counter each time: what the library
 * serves in C whatever the fast path (each rewrites the fast word's PMXEVCNTR_EL0 entry).
 * PMSELR_EL0 is 2 again at the end. */
static void selects(unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		wr(pmselr_el0, 0);
		wr(pmselr_el0, 1);
		wr(pmselr_el0, 3);
		wr(pmselr_el0, 4);
		wr(pmselr_el0, 31);
		wr(pmselr_el0, 0);
		wr(pmselr_el0, 4);
		wr(pmselr_el0, 1);
		wr(pmselr_el0, 3);
		wr(pmselr_el0, 2);
	}
}

/* PMCR_EL0 reads, MIX per round: a read the fast path leaves to C. */
static uint64_t pmcr_reads(unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < rounds; i++) {
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
		sum += rd(pmcr_el0);
	}
	return sum;
}

/* Counter reads only, MIX per round; PMSELR_EL0 is 2. */
static uint64_t reads(unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < rounds; i++) {
		sum += rd(pmccntr_el0);
		sum += rd(pmevcntr0_el0);
		sum += rd(pmevcntr3_el0);
		sum += rd(pmxevcntr_el0);
		sum += rd(pmevcntr4_el0);
		sum += rd(pmccntr_el0);
		sum += rd(pmevcntr1_el0);
		sum += rd(pmxevcntr_el0);
		sum += rd(pmevcntr0_el0);
		sum += rd(pmccntr_el0);
	}
	return sum;
}

/* The activity counters (Arm ARM D24.6): AMEVCNTR0<n>_EL0 and AMEVCNTR1<n>_EL0. */
#define AMEVCNTR00_EL0 S3_3_C13_C4_0
#define AMEVCNTR02_EL0 S3_3_C13_C4_2
#define AMEVCNTR03_EL0 S3_3_C13_C4_3
#define AMEVCNTR10_EL0 S3_3_C13_C12_0
#define AMEVCNTR11_EL0 S3_3_C13_C12_1

/* Activity counter reads, MIX per round. */
static uint64_t amu_reads(unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < rounds; i++) {
		sum += rd(AMEVCNTR00_EL0);
		sum += rd(AMEVCNTR02_EL0);
		sum += rd(AMEVCNTR03_EL0);
		sum += rd(AMEVCNTR10_EL0);
		sum += rd(AMEVCNTR11_EL0);
		sum += rd(AMEVCNTR00_EL0);
		sum += rd(AMEVCNTR02_EL0);
		sum += rd(AMEVCNTR00_EL0);
		sum += rd(AMEVCNTR02_EL0);
		sum += rd(AMEVCNTR03_EL0);
	}
	return sum;
}

static uint64_t now(void)
{
	isb();
	return rd(cntvct_el0);
}

/* The clock phase (bench.clock=1): counter 2 on INST_RETIRED (EL1 and EL0, never EL2). */
static void clock_phase(unsigned rounds, uint64_t pmcr)
{
	uint64_t t0 = now(), g0 = rd(pmevcntr2_el0);
	null_hvcs(rounds * MIX);
	uint64_t t1 = now(), g1 = rd(pmevcntr2_el0);
	uint64_t sum = mix(rounds, pmcr);
	uint64_t t2 = now(), g2 = rd(pmevcntr2_el0);
	sum += reads(rounds);
	uint64_t t3 = now(), g3 = rd(pmevcntr2_el0);
	selects(rounds);
	uint64_t t4 = now(), g4 = rd(pmevcntr2_el0);
	sum += pmcr_reads(rounds);
	uint64_t t5 = now(), g5 = rd(pmevcntr2_el0);
	gprintf("bench: clock %lu Hz: hvc-null %u calls %lu ticks %lu guest-instructions; "
		"pmu-mix %u accesses %lu ticks %lu guest-instructions; "
		"pmu-reads %u accesses %lu ticks %lu guest-instructions; "
		"pmselr-writes %u accesses %lu ticks %lu guest-instructions; "
		"pmcr-reads %u accesses %lu ticks %lu guest-instructions (sum %lx)\n",
		rd(cntfrq_el0), rounds * MIX, t1 - t0, g1 - g0, rounds * MIX, t2 - t1, g2 - g1,
		rounds * MIX, t3 - t2, g3 - g2, rounds * MIX, t4 - t3, g4 - g3, rounds * MIX,
		t5 - t4, g5 - g4, sum);
	if (!arg_num("bench.amu", 0))
		return;
	t0 = now(), g0 = rd(pmevcntr2_el0);
	sum = amu_reads(rounds);
	t1 = now(), g1 = rd(pmevcntr2_el0);
	gprintf("bench: clock %lu Hz: amu-reads %u accesses %lu ticks %lu guest-instructions "
		"(sum %lx)\n",
		rd(cntfrq_el0), rounds * MIX, t1 - t0, g1 - g0, sum);
}

void test_main(void)
{
	const unsigned ROUNDS = (unsigned)arg_num("bench.rounds", 2000);
	null_hvcs(ROUNDS * MIX);
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
	uint64_t sum = mix(ROUNDS, pmcr);
	gprintf("bench: %u null hypercalls, %u rounds of %u PMU accesses (sum %lx)\n",
		ROUNDS * MIX, ROUNDS, MIX, sum);
	if (arg_num("bench.clock", 0))
		clock_phase(ROUNDS, pmcr);
}
