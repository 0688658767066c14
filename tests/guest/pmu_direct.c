/* SPDX-License-Identifier: MIT */
/*
 * Direct counter access (docs/vpmu.md, pmu_direct=on): a VM's counter reads and writes
 * (PMEVCNTR<n>_EL0, PMXEVCNTR_EL0, PMCCNTR_EL0) reach the hardware with no trap, the rest of
 * its PMU traps, each register by its fine-grained bit. The guest counts what it does of
 * each kind and prints "direct: R counter accesses, T other PMU accesses": the runner holds
 * the hypervisor's report to T PMU traps where the VM is direct, R + T where every access
 * traps (no FEAT_FGT). The answers are the same either way, and exact:
 *   - a window of K EL1 instructions counts K on INST_RETIRED, CPU_CYCLES and PMCCNTR_EL0,
 *     read directly: nothing of the hypervisor, which runs the window's trapped accesses;
 *   - with CPU_CYCLES denied by the VM's filter (direct.denied=0x11: the runner gives the VM
 *     vm0_pmu_filter=deny:0x11:1), its counter and the cycle counter count nothing, and
 *     PMCEID0_EL0 does not list it; INST_RETIRED still counts K;
 *   - a counter written directly reads back, and PMXEVCNTR_EL0 reaches the counter the
 *     trapped PMSELR_EL0 write selected;
 *   - direct.reads=M: M more rounds of ten counter reads (make bench's hyp.direct_read);
 *   - direct.past=1: every counter from N on UNDEFs, read or written: the hypervisor's own (at
 *     N, where it keeps one) among them. Such an access traps or not as the hardware has it,
 *     so with direct.past the runner does not hold the report to the counts.
 */
#include "pmu.h"

static uint64_t r, t; /* counter accesses; other PMU accesses */
#define DIRECT(stmt)                                                                           \
	do {                                                                                   \
		r++;                                                                           \
		stmt;                                                                          \
	} while (0)
#define TRAPPED(stmt)                                                                          \
	do {                                                                                   \
		t++;                                                                           \
		stmt;                                                                          \
	} while (0)

#define COUNTERS (CYCLE_BIT | 0x3ul)

/* Counters 0 and 1 on INST_RETIRED and CPU_CYCLES, the cycle counter, EL1 only, zero. */
static void setup(void)
{
	TRAPPED(wr(pmcr_el0, PMCR_P | PMCR_C | PMCR_LC));
	TRAPPED(wr(pmcntenclr_el0, 0xFFFFFFFFul));
	TRAPPED(wr(pmintenclr_el1, 0xFFFFFFFFul));
	TRAPPED(wr(pmovsclr_el0, 0xFFFFFFFFul));
	TRAPPED(wr(pmevtyper0_el0, EV_INST_RETIRED | EVT_U));
	TRAPPED(wr(pmevtyper1_el0, EV_CPU_CYCLES | EVT_U));
	TRAPPED(wr(pmccfiltr_el0, EVT_U));
	TRAPPED(wr(pmcr_el0, PMCR_E | PMCR_LC));
}

/* Opened by the PMCNTENSET_EL0 write (counting starts after it), closed by the PMCNTENCLR_EL0
 * write, which counts: returns K, the instructions counted. */
static uint64_t window(uint64_t n)
{
	uint64_t m = COUNTERS;
	t += 2;
	__asm__ volatile("msr pmcntenset_el0, %[m]\n\t"
			 "mov x9, %[n]\n"
			 "1:\tsubs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "msr pmcntenclr_el0, %[m]"
			 :
			 : [m] "r"(m), [n] "r"(n)
			 : "x9", "cc", "memory");
	return 2 + 2 * n;
}

static void counting(uint64_t denied)
{
	setup();
	uint64_t k = window(10000), inst, cyc, ccnt;
	DIRECT(inst = rd(pmevcntr0_el0));
	DIRECT(cyc = rd(pmevcntr1_el0));
	DIRECT(ccnt = rd(pmccntr_el0));
	gprintf("count: direct K=%lu inst=%lu cycles=%lu ccnt=%lu\n", k, inst, cyc, ccnt);
	CHECK_EQ(inst, k, "direct: INST_RETIRED == K, read directly");
	bool cycles = denied != EV_CPU_CYCLES;
	CHECK_EQ(cyc, cycles ? k : 0,
		 cycles ? "direct: CPU_CYCLES == K"
			: "direct: CPU_CYCLES denied: counts nothing");
	CHECK_EQ(ccnt, cycles ? k : 0,
		 cycles ? "direct: PMCCNTR == K"
			: "direct: CPU_CYCLES denied: PMCCNTR stopped");
	uint64_t ceid;
	TRAPPED(ceid = rd(pmceid0_el0));
	CHECK_EQ((ceid >> EV_CPU_CYCLES) & 1, cycles,
		 "direct: PMCEID0_EL0 lists CPU_CYCLES unless denied");
	/* A second window adds K again: the counters kept their counts across the reads. */
	uint64_t k2 = window(5000), inst2;
	DIRECT(inst2 = rd(pmevcntr0_el0));
	CHECK_EQ(inst2, k + k2, "direct: INST_RETIRED counts on from where it was");
}

static void writes(void)
{
	uint64_t v;
	DIRECT(wr(pmevcntr3_el0, 12345));
	DIRECT(v = rd(pmevcntr3_el0));
	CHECK_EQ(v, 12345, "direct: a counter written reads back");
	TRAPPED(wr(pmselr_el0, 3));
	DIRECT(v = rd(pmxevcntr_el0));
	CHECK_EQ(v, 12345, "direct: PMXEVCNTR_EL0 reads the counter PMSELR_EL0 selects");
	DIRECT(wr(pmxevcntr_el0, 777));
	DIRECT(v = rd(pmevcntr3_el0));
	CHECK_EQ(v, 777, "direct: PMXEVCNTR_EL0 writes it");
	DIRECT(wr(pmccntr_el0, 1ul << 40));
	DIRECT(v = rd(pmccntr_el0));
	CHECK_EQ(v, 1ul << 40, "direct: PMCCNTR_EL0 written reads back (stopped)");
	DIRECT(wr(pmccntr_el0, 0));
	TRAPPED(wr(pmselr_el0, 0));
}

/* Ten counter reads a round, as a guest's perf reads them. */
static uint64_t reads(uint64_t rounds)
{
	uint64_t sum = 0, v;
	for (uint64_t i = 0; i < rounds; i++) {
		DIRECT(v = rd(pmccntr_el0));
		sum += v;
		DIRECT(v = rd(pmevcntr0_el0));
		sum += v;
		DIRECT(v = rd(pmevcntr1_el0));
		sum += v;
		DIRECT(v = rd(pmxevcntr_el0));
		sum += v;
		DIRECT(v = rd(pmevcntr2_el0));
		sum += v;
		DIRECT(v = rd(pmccntr_el0));
		sum += v;
		DIRECT(v = rd(pmevcntr3_el0));
		sum += v;
		DIRECT(v = rd(pmxevcntr_el0));
		sum += v;
		DIRECT(v = rd(pmevcntr0_el0));
		sum += v;
		DIRECT(v = rd(pmccntr_el0));
		sum += v;
	}
	return sum;
}

/* Every counter from N to 30: reads and writes UNDEF, the hypervisor's among them. */
static void past(unsigned n)
{
	unsigned undefs = 0, tried = 0;
	for (unsigned i = n; i < 31; i++) {
		undefs += UNDEFS((void)pmevcntr_read(i));
		undefs += UNDEFS(pmevcntr_write(i, 0));
		tried += 2;
	}
	CHECK_EQ(undefs, tried, "direct: every counter from N on UNDEFs, read or written");
}

void test_main(void)
{
	unsigned n = (unsigned)dt_pmu_counters(0);
	uint64_t pmcr;
	TRAPPED(pmcr = rd(pmcr_el0));
	CHECK_EQ(PMCR_N(pmcr), n, "direct: PMCR_EL0.N is the VM's counters");
	if (n < 4) {
		check(false, "direct: needs 4 counters", "N = %u", n);
		return;
	}
	counting(arg_num("direct.denied", 0x10000));
	writes();
	uint64_t rounds = arg_num("direct.reads", 0);
	if (rounds)
		gprintf("direct: %lu reads (sum %lx)\n", rounds * 10, reads(rounds));
	if (arg_num("direct.past", 0))
		past(n);
	TRAPPED(wr(pmcr_el0, PMCR_LC));
	gprintf("direct: %lu counter accesses, %lu other PMU accesses\n", r, t);
}
