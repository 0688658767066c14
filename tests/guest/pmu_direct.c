/* SPDX-License-Identifier: MIT */
/*
 * Direct access (docs/vpmu.md, pmu_direct=on): a VM's PMU is the hardware's while it runs, its
 * counters, enables, overflow flags, interrupt enables, PMCR_EL0, PMSELR_EL0, PMUSERENR_EL0
 * and PMSWINC_EL0 reached with no trap, while its event types (PMEVTYPER<n>_EL0, PMXEVTYPER_EL0,
 * PMCCFILTR_EL0) and PMCEID0/1_EL0 trap by their fine-grained bits, so that its event filter
 * holds. The guest counts what it does of each kind and prints "direct: R counter accesses, U
 * other untrapped PMU accesses, T trapped PMU accesses": the runner holds the hypervisor's
 * report to T PMU traps where the VM is direct, R + U + T where every access traps (no
 * FEAT_FGT). The answers are the same either way, and exact:
 *   - a window of K EL1 instructions counts K on INST_RETIRED, CPU_CYCLES and PMCCNTR_EL0,
 *     read directly: nothing of the hypervisor, which runs the window's trapped accesses;
 *   - with CPU_CYCLES denied by the VM's filter (direct.denied=0x11: the runner gives the VM
 *     vm0_pmu_filter=deny:0x11:1), its counter and the cycle counter count nothing, and
 *     PMCEID0_EL0 does not list it; INST_RETIRED still counts K; and it counts nothing on
 *     whatever path its type takes: PMXEVTYPER_EL0 through the PMSELR_EL0 the guest wrote,
 *     PMXEVTYPER_EL0 with SEL = 31 (PMCCFILTR_EL0), PMEVTYPER<n>_EL0 from EL0; the guest
 *     reads back what it wrote;
 *   - a counter written directly reads back, and PMXEVCNTR_EL0 reaches the counter the
 *     PMSELR_EL0 write selected;
 *   - SW_INCR is the hardware's: PMSWINC_EL0 writes from EL1, and from EL0 with
 *     PMUSERENR_EL0.SW, each count once;
 *   - direct.reads=M: M more rounds of ten counter reads (make bench's hyp.direct_read);
 *   - direct.past=1: every counter from N on UNDEFs, read or written: the hypervisor's own (at
 *     N, where it keeps one) among them. Such an access traps or not as the hardware has it,
 *     so with direct.past the runner does not hold the report to the counts.
 */
#include "pmu.h"

static uint64_t r, u, t; /* counter accesses; other untrapped PMU accesses; trapped ones */
#define COUNTER(stmt)                                                                          \
	do {                                                                                   \
		r++;                                                                           \
		stmt;                                                                          \
	} while (0)
#define UNTRAPPED(stmt)                                                                        \
	do {                                                                                   \
		u++;                                                                           \
		stmt;                                                                          \
	} while (0)
#define TRAPPED(stmt)                                                                          \
	do {                                                                                   \
		t++;                                                                           \
		stmt;                                                                          \
	} while (0)

#define COUNTERS (CYCLE_BIT | 0x3ul)
#define NONE 0x10000ul /* direct.denied's default: no event denied */

/* Counters 0 and 1 on INST_RETIRED and CPU_CYCLES, the cycle counter, EL1 only, zero. */
static void setup(void)
{
	UNTRAPPED(wr(pmcr_el0, PMCR_P | PMCR_C | PMCR_LC));
	UNTRAPPED(wr(pmcntenclr_el0, 0xFFFFFFFFul));
	UNTRAPPED(wr(pmintenclr_el1, 0xFFFFFFFFul));
	UNTRAPPED(wr(pmovsclr_el0, 0xFFFFFFFFul));
	TRAPPED(wr(pmevtyper0_el0, EV_INST_RETIRED | EVT_U));
	TRAPPED(wr(pmevtyper1_el0, EV_CPU_CYCLES | EVT_U));
	TRAPPED(wr(pmccfiltr_el0, EVT_U));
	UNTRAPPED(wr(pmcr_el0, PMCR_E | PMCR_LC));
}

/* Opened by the PMCNTENSET_EL0 write of `m` (counting starts after it), closed by the
 * PMCNTENCLR_EL0 write, which counts: returns K, the instructions counted. */
static uint64_t window(uint64_t m, uint64_t n)
{
	u += 2;
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
	uint64_t k = window(COUNTERS, 10000), inst, cyc, ccnt;
	COUNTER(inst = rd(pmevcntr0_el0));
	COUNTER(cyc = rd(pmevcntr1_el0));
	COUNTER(ccnt = rd(pmccntr_el0));
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
	CHECK_EQ(ceid & 1, 1, "direct: PMCEID0_EL0 lists SW_INCR");
	/* A second window adds K again: the counters kept their counts across the reads. */
	uint64_t k2 = window(COUNTERS, 5000), inst2;
	COUNTER(inst2 = rd(pmevcntr0_el0));
	CHECK_EQ(inst2, k + k2, "direct: INST_RETIRED counts on from where it was");
}

static void writes(void)
{
	uint64_t v;
	COUNTER(wr(pmevcntr3_el0, 12345));
	COUNTER(v = rd(pmevcntr3_el0));
	CHECK_EQ(v, 12345, "direct: a counter written reads back");
	UNTRAPPED(wr(pmselr_el0, 3));
	COUNTER(v = rd(pmxevcntr_el0));
	CHECK_EQ(v, 12345, "direct: PMXEVCNTR_EL0 reads the counter PMSELR_EL0 selects");
	COUNTER(wr(pmxevcntr_el0, 777));
	COUNTER(v = rd(pmevcntr3_el0));
	CHECK_EQ(v, 777, "direct: PMXEVCNTR_EL0 writes it");
	COUNTER(wr(pmccntr_el0, 1ul << 40));
	COUNTER(v = rd(pmccntr_el0));
	CHECK_EQ(v, 1ul << 40, "direct: PMCCNTR_EL0 written reads back (stopped)");
	COUNTER(wr(pmccntr_el0, 0));
	UNTRAPPED(wr(pmselr_el0, 0));
}

static uint64_t el0_type(uint64_t type)
{
	wr(pmevtyper3_el0, type);
	return rd(pmevtyper3_el0);
}

static uint64_t el0_swinc(uint64_t bits)
{
	wr(pmswinc_el0, bits);
	return 0;
}

/* The denied event on every path a type has to the hardware: counter 2 through PMXEVTYPER_EL0
 * and a PMSELR_EL0 the guest writes, counter 3 from EL0, the cycle counter through
 * PMXEVTYPER_EL0 with SEL = 31; asking for EL2 (NSH) too. None counts; each reads back as
 * written. */
static void denied_paths(uint64_t denied)
{
	uint64_t v, back;
	UNTRAPPED(wr(pmselr_el0, 2));
	TRAPPED(wr(pmxevtyper_el0, denied | EVT_NSH));
	UNTRAPPED(wr(pmuserenr_el0, 1)); /* EN */
	t += 2;
	back = run_el0(el0_type, denied);
	CHECK_EQ(back, denied, "direct: a type written at EL0 reads back");
	UNTRAPPED(wr(pmuserenr_el0, 0));
	UNTRAPPED(wr(pmselr_el0, 31));
	TRAPPED(wr(pmxevtyper_el0, EVT_NSH));
	COUNTER(wr(pmevcntr2_el0, 0));
	COUNTER(wr(pmevcntr3_el0, 0));
	COUNTER(wr(pmccntr_el0, 0));
	uint64_t k = window(CYCLE_BIT | 0xCul, 3000);
	uint64_t c2, c3, cc;
	COUNTER(c2 = rd(pmevcntr2_el0));
	COUNTER(c3 = rd(pmevcntr3_el0));
	COUNTER(cc = rd(pmccntr_el0));
	gprintf("denied: K=%lu counter2=%lu counter3=%lu ccnt=%lu\n", k, c2, c3, cc);
	CHECK_EQ(c2, 0, "direct: a denied event through PMXEVTYPER_EL0 counts nothing");
	CHECK_EQ(c3, 0, "direct: a denied event written at EL0 counts nothing");
	if (denied == EV_CPU_CYCLES)
		CHECK_EQ(cc, 0,
			 "direct: CPU_CYCLES denied: PMCCNTR stopped through PMXEVTYPER_EL0");
	TRAPPED(v = rd(pmxevtyper_el0));
	CHECK_EQ(v, EVT_NSH, "direct: PMXEVTYPER_EL0 with SEL = 31 reads PMCCFILTR_EL0 back");
	UNTRAPPED(wr(pmselr_el0, 2));
	TRAPPED(v = rd(pmxevtyper_el0));
	CHECK_EQ(v, denied | EVT_NSH, "direct: PMXEVTYPER_EL0 reads back what was written");
	UNTRAPPED(wr(pmselr_el0, 0));
	TRAPPED(wr(pmccfiltr_el0, EVT_U));
}

/* SW_INCR, the hardware's: counter 3 counts each PMSWINC_EL0 write of its bit, from EL1 and,
 * with PMUSERENR_EL0.SW, from EL0. */
static void swinc(void)
{
	uint64_t v;
	TRAPPED(wr(pmevtyper3_el0, EV_SW_INCR));
	COUNTER(wr(pmevcntr3_el0, 0));
	UNTRAPPED(wr(pmcntenset_el0, 0x8ul));
	for (unsigned i = 0; i < 5; i++)
		UNTRAPPED(wr(pmswinc_el0, 0x8ul));
	UNTRAPPED(wr(pmuserenr_el0, 2)); /* SW */
	u += 2;
	run_el0(el0_swinc, 0x8ul);
	run_el0(el0_swinc, 0x8ul);
	UNTRAPPED(wr(pmuserenr_el0, 0));
	UNTRAPPED(wr(pmcntenclr_el0, 0x8ul));
	COUNTER(v = rd(pmevcntr3_el0));
	CHECK_EQ(v, 7, "direct: SW_INCR counts each PMSWINC_EL0 write, EL1 and EL0");
}

/* Ten counter reads a round, as a guest's perf reads them. */
static uint64_t reads(uint64_t rounds)
{
	uint64_t sum = 0, v;
	for (uint64_t i = 0; i < rounds; i++) {
		COUNTER(v = rd(pmccntr_el0));
		sum += v;
		COUNTER(v = rd(pmevcntr0_el0));
		sum += v;
		COUNTER(v = rd(pmevcntr1_el0));
		sum += v;
		COUNTER(v = rd(pmxevcntr_el0));
		sum += v;
		COUNTER(v = rd(pmevcntr2_el0));
		sum += v;
		COUNTER(v = rd(pmccntr_el0));
		sum += v;
		COUNTER(v = rd(pmevcntr3_el0));
		sum += v;
		COUNTER(v = rd(pmxevcntr_el0));
		sum += v;
		COUNTER(v = rd(pmevcntr0_el0));
		sum += v;
		COUNTER(v = rd(pmccntr_el0));
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
	UNTRAPPED(pmcr = rd(pmcr_el0));
	CHECK_EQ(PMCR_N(pmcr), n, "direct: PMCR_EL0.N is the VM's counters");
	if (n < 4) {
		check(false, "direct: needs 4 counters", "N = %u", n);
		return;
	}
	uint64_t denied = arg_num("direct.denied", NONE);
	counting(denied);
	writes();
	if (denied != NONE)
		denied_paths(denied);
	swinc();
	uint64_t rounds = arg_num("direct.reads", 0);
	if (rounds)
		gprintf("direct: %lu reads (sum %lx)\n", rounds * 10, reads(rounds));
	if (arg_num("direct.past", 0))
		past(n);
	UNTRAPPED(wr(pmcr_el0, PMCR_LC));
	gprintf("direct: %lu counter accesses, %lu other untrapped PMU accesses, %lu trapped "
		"PMU "
		"accesses\n",
		r, u, t);
}
