/* SPDX-License-Identifier: MIT */
/*
 * Every PMU register's architected behaviour as a guest sees it (Arm ARM D24.5): PMCR fields
 * and N, the enable / interrupt-enable / overflow bitmaps with unimplemented bits RAZ/WI,
 * PMSELR with PMXEVTYPER/PMXEVCNTR, UNDEF for counters >= N (exception count asserted),
 * PMEVTYPER and PMCCFILTR fields, PMCEID agreeing with what counts, PMMIR, and PMUSERENR
 * controlling EL0 access, tested from EL0.
 */
#include "pmu.h"

static unsigned N;
static uint32_t implemented; /* bits [0, N) and 31 */

static void test_pmcr(void)
{
	uint64_t pmcr = rd(pmcr_el0);
	CHECK_EQ(PMCR_N(pmcr), N, "pmcr: N is the VM's counter count");
	CHECK(((pmcr >> 24) & 0xFF) != 0, "pmcr: IMP reads the implementer");
	wr(pmcr_el0, pmcr ^ (0xFFul << 24) ^ (0x1Ful << 11));
	uint64_t after = rd(pmcr_el0);
	CHECK_EQ(after & 0xFFFFF800ul, pmcr & 0xFFFFF800ul,
		 "pmcr: IMP, IDCODE, N are read-only");
	wr(pmcr_el0, PMCR_D | PMCR_DP | PMCR_LC | PMCR_LP | PMCR_X);
	after = rd(pmcr_el0);
	CHECK_EQ(after & 0x7FF, PMCR_D | PMCR_DP | PMCR_LC | PMCR_LP,
		 "pmcr: D, DP, LC, LP stored; X RAZ/WI");
	wr(pmcr_el0, 0);
	CHECK_EQ(rd(pmcr_el0) & 0x7FF, 0, "pmcr: fields clear");

	pmevcntr_write(0, 1234);
	wr(pmccntr_el0, 5678);
	wr(pmcr_el0, PMCR_P);
	CHECK_EQ(pmevcntr_read(0), 0, "pmcr: P resets the event counters");
	CHECK_EQ(rd(pmccntr_el0), 5678, "pmcr: P leaves the cycle counter");
	CHECK_EQ(rd(pmcr_el0) & (PMCR_P | PMCR_C), 0, "pmcr: P and C read as zero");
	wr(pmcr_el0, PMCR_C);
	CHECK_EQ(rd(pmccntr_el0), 0, "pmcr: C resets the cycle counter");
}

static void test_bitmap(const char *name, int which)
{
	char buf[64];
	uint64_t got;
	switch (which) {
	case 0:
		wr(pmcntenset_el0, 0xFFFFFFFFul);
		got = rd(pmcntenset_el0);
		CHECK_EQ(rd(pmcntenclr_el0), got, "pmcnten: SET and CLR read the same");
		wr(pmcntenclr_el0, 0xFFFFFFFFul);
		break;
	case 1:
		wr(pmintenset_el1, 0xFFFFFFFFul);
		got = rd(pmintenset_el1);
		CHECK_EQ(rd(pmintenclr_el1), got, "pminten: SET and CLR read the same");
		wr(pmintenclr_el1, 0xFFFFFFFFul);
		break;
	default:
		wr(pmovsset_el0, 0xFFFFFFFFul);
		got = rd(pmovsset_el0);
		CHECK_EQ(rd(pmovsclr_el0), got, "pmovs: SET and CLR read the same");
		wr(pmovsclr_el0, 0xFFFFFFFFul);
		break;
	}
	memcpy(buf, name, strlen(name) + 1);
	check(got == implemented, name, "all-ones reads 0x%lx, expected 0x%x (N = %u)", got,
	      implemented, N);
	uint64_t after = which == 0   ? rd(pmcntenset_el0)
			 : which == 1 ? rd(pmintenset_el1)
				      : rd(pmovsset_el0);
	check(after == 0,
	      name[3] == 'c'   ? "pmcnten: CLR clears every bit"
	      : name[3] == 'i' ? "pminten: CLR clears every bit"
			       : "pmovs: CLR clears every bit",
	      "0x%lx", after);
}

static void test_pmselr(void)
{
	wr(pmselr_el0, 0xFFul);
	CHECK_EQ(rd(pmselr_el0), 0x1F, "pmselr: SEL is 5 bits, upper bits RES0");
	bool ok = true;
	for (unsigned n = 0; n < N; n++) {
		wr(pmselr_el0, n);
		wr(pmxevtyper_el0, EVT_U | EV_CPU_CYCLES);
		wr(pmxevcntr_el0, 0x1000 + n);
		ok &= pmevtyper_read(n) == (EVT_U | EV_CPU_CYCLES) &&
		      pmevcntr_read(n) == 0x1000 + n;
		pmevtyper_write(n, EVT_P | EV_INST_RETIRED);
		pmevcntr_write(n, 0x2000 + n);
		ok &= rd(pmxevtyper_el0) == (EVT_P | EV_INST_RETIRED) &&
		      rd(pmxevcntr_el0) == 0x2000 + n;
		pmevtyper_write(n, 0);
		pmevcntr_write(n, 0);
	}
	CHECK(ok,
	      "pmselr: PMXEVTYPER/PMXEVCNTR reach PMEVTYPER<SEL>/PMEVCNTR<SEL> for SEL < N");
	wr(pmselr_el0, 31);
	wr(pmxevtyper_el0, EVT_U);
	CHECK_EQ(rd(pmccfiltr_el0), EVT_U, "pmselr: SEL = 31 makes PMXEVTYPER the PMCCFILTR");
	wr(pmccfiltr_el0, 0);
	CHECK_EQ(UNDEFS((void)rd(pmxevcntr_el0); wr(pmxevcntr_el0, 1)), 2,
		 "pmselr: PMXEVCNTR with SEL = 31 is UNDEFINED");
	unsigned undefs = 0;
	for (unsigned n = N; n < 31; n++) {
		wr(pmselr_el0, n);
		undefs += UNDEFS((void)rd(pmxevtyper_el0); wr(pmxevtyper_el0, 0x11);
				 (void)rd(pmxevcntr_el0); wr(pmxevcntr_el0, 1));
	}
	check(undefs == 4 * (31 - N), "pmselr: PMXEV* with N <= SEL <= 30 UNDEFINED",
	      "%u exceptions, expected %u", undefs, 4 * (31 - N));
	wr(pmselr_el0, 0);
}

static void test_counters_beyond_n(void)
{
	unsigned undefs = 0;
	for (unsigned n = N; n < 31; n++)
		undefs += UNDEFS((void)pmevcntr_read(n); pmevcntr_write(n, 1);
				 (void)pmevtyper_read(n); pmevtyper_write(n, 0x11));
	check(undefs == 4 * (31 - N), "pmevcntr/pmevtyper: n >= N UNDEFINED",
	      "%u exceptions, expected %u", undefs, 4 * (31 - N));
	check(g_last_vector == 4 && (g_last_esr >> 26) == 0 && (g_last_esr & (1u << 25)),
	      "pmevcntr: the UNDEF is an EC 0x00, IL 1 exception taken from EL1h",
	      "vector %u ESR 0x%lx", g_last_vector, g_last_esr);
}

static void test_evtyper(void)
{
	pmevtyper_write(0, EVT_P | EVT_U | EV_CPU_CYCLES);
	CHECK_EQ(pmevtyper_read(0), EVT_P | EVT_U | EV_CPU_CYCLES,
		 "pmevtyper: P, U, evtCount stored");
	pmevtyper_write(0, 0xFFFF);
	CHECK_EQ(pmevtyper_read(0) & 0xFFFF, 0xFFFF,
		 "pmevtyper: evtCount is 16 bits (PMUv3p1+)");
	pmevtyper_write(0, (1ul << 40) | (1ul << 20) | EV_CPU_CYCLES);
	CHECK_EQ(pmevtyper_read(0), EV_CPU_CYCLES, "pmevtyper: RES0 bits read as zero");
	pmevtyper_write(0, 0);
	wr(pmccfiltr_el0, EVT_P | EVT_U | 0x11);
	CHECK_EQ(rd(pmccfiltr_el0), EVT_P | EVT_U, "pmccfiltr: P, U stored, evtCount RES0");
	wr(pmccfiltr_el0, 0);
}

/* Runs ~600 instructions (loads, stores, branches) with counter 0 on `event` at EL1. */
static uint64_t count_event(unsigned event)
{
	static volatile uint64_t buf[16];
	pmu_reset();
	pmevtyper_write(0, EVT_U | event);
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	for (unsigned i = 0; i < 100; i++)
		buf[i & 15] += i;
	wr(pmcr_el0, 0);
	uint64_t v = pmevcntr_read(0);
	pmu_reset();
	pmevtyper_write(0, 0);
	return v;
}

static void test_pmceid(void)
{
	uint64_t c0 = rd(pmceid0_el0), c1 = rd(pmceid1_el0);
	gprintf("PMCEID0 %lx PMCEID1 %lx\n", c0, c1);
	CHECK(c0 & (1ul << EV_SW_INCR), "pmceid: SW_INCR advertised");
	CHECK(c0 & (1ul << EV_CPU_CYCLES), "pmceid: CPU_CYCLES advertised");
	CHECK(c0 & (1ul << EV_INST_RETIRED), "pmceid: INST_RETIRED advertised (-icount)");
	CHECK(c0 & (1ul << EV_CHAIN), "pmceid: CHAIN advertised");
	bool quiet = true, counts = true;
	for (unsigned e = 1; e < 0x40; e++) {
		if (e == EV_CHAIN)
			continue;
		bool adv = e < 32 ? (c0 >> e) & 1 : (c1 >> (e - 32)) & 1;
		uint64_t v = count_event(e);
		if (!adv && v) {
			quiet = false;
			gprintf("event 0x%x not advertised but counted %lu\n", e, v);
		}
		if ((e == EV_INST_RETIRED || e == EV_CPU_CYCLES) && !v) {
			counts = false;
			gprintf("event 0x%x advertised but did not count\n", e);
		}
	}
	CHECK(quiet, "pmceid: events not advertised never count");
	CHECK(counts, "pmceid: INST_RETIRED and CPU_CYCLES count");
	CHECK_EQ(UNDEFS((void)rd(PMMIR_EL1)), 0, "pmmir: readable at EL1 (PMUv3p4)");
	CHECK_EQ(UNDEFS(wr(S3_3_C9_C12_6, 0)), 1, "pmceid0: write UNDEFINED");
}

/* ---- PMUSERENR_EL0 and EL0 accesses (run at EL0 through run_el0) ---- */
static uint64_t el0_rd_pmccntr(uint64_t a)
{
	(void)a;
	return rd(pmccntr_el0);
}
static uint64_t el0_wr_pmccntr(uint64_t a)
{
	wr(pmccntr_el0, a);
	return 0;
}
static uint64_t el0_rd_pmcr(uint64_t a)
{
	(void)a;
	return rd(pmcr_el0);
}
static uint64_t el0_rd_evcntr0(uint64_t a)
{
	(void)a;
	return rd(pmevcntr0_el0);
}
static uint64_t el0_sel_xevcntr(uint64_t a)
{
	wr(pmselr_el0, a);
	return rd(pmxevcntr_el0);
}
static uint64_t el0_swinc(uint64_t a)
{
	wr(pmswinc_el0, a);
	return 0;
}
static uint64_t el0_wr_cnten(uint64_t a)
{
	wr(pmcntenset_el0, a);
	return rd(pmcntenset_el0);
}
static uint64_t el0_rd_userenr(uint64_t a)
{
	(void)a;
	return rd(pmuserenr_el0);
}
static uint64_t el0_wr_userenr(uint64_t a)
{
	wr(pmuserenr_el0, a);
	return 0;
}
static uint64_t el0_rd_inten(uint64_t a)
{
	(void)a;
	return rd(pmintenset_el1);
}

static unsigned at_el0(uint64_t (*fn)(uint64_t), uint64_t arg, unsigned ec, uint64_t *ret)
{
	expect_begin(ec);
	uint64_t r = run_el0(fn, arg);
	unsigned n = expect_end();
	if (ret)
		*ret = r;
	return n;
}

static void test_pmuserenr(void)
{
	wr(pmuserenr_el0, 0xFF);
	CHECK_EQ(rd(pmuserenr_el0), 0xF, "pmuserenr: EN, SW, CR, ER stored, rest RES0");
	wr(pmuserenr_el0, 0);
	CHECK_EQ(run_el0(el0_rd_userenr, 0), 0, "pmuserenr: readable at EL0");

	CHECK_EQ(at_el0(el0_rd_pmccntr, 0, EC_SYS64, NULL), 1,
		 "pmuserenr=0: EL0 PMCCNTR read traps to EL1");
	/* mrs x0, pmccntr_el0: Op0 3, Op2 0, Op1 3, CRn 9, Rt 0, CRm 13, read */
	uint64_t iss = 3ul << 20 | 0ul << 17 | 3ul << 14 | 9ul << 10 | 13ul << 1 | 1;
	check(g_last_vector == 8 && (g_last_esr & 0x3FFC1F) == iss &&
		      (g_last_esr >> 26) == 0x18,
	      "pmuserenr=0: EL1 gets EC 0x18 with the access's syndrome, from EL0",
	      "vector %u ESR 0x%lx", g_last_vector, g_last_esr);
	CHECK_EQ(at_el0(el0_rd_pmcr, 0, EC_SYS64, NULL), 1, "pmuserenr=0: EL0 PMCR read traps");
	CHECK_EQ(at_el0(el0_swinc, 1, EC_SYS64, NULL), 1,
		 "pmuserenr=0: EL0 PMSWINC write traps");
	CHECK_EQ(at_el0(el0_rd_evcntr0, 0, EC_SYS64, NULL), 1,
		 "pmuserenr=0: EL0 PMEVCNTR0 read traps");

	wr(pmuserenr_el0, 1); /* EN */
	uint64_t r;
	CHECK_EQ(at_el0(el0_rd_pmcr, 0, EC_SYS64, &r), 0,
		 "pmuserenr.EN: EL0 PMCR read allowed");
	CHECK_EQ(PMCR_N(r), N, "pmuserenr.EN: EL0 sees the same N");
	CHECK_EQ(at_el0(el0_wr_cnten, 1, EC_SYS64, &r), 0,
		 "pmuserenr.EN: EL0 PMCNTENSET write allowed");
	CHECK_EQ(r, 1, "pmuserenr.EN: EL0 PMCNTENSET write took effect");
	wr(pmcntenclr_el0, 0xFFFFFFFFul);
	CHECK_EQ(at_el0(el0_rd_pmccntr, 0, EC_SYS64, NULL), 0,
		 "pmuserenr.EN: EL0 PMCCNTR read allowed");

	wr(pmuserenr_el0, 4); /* CR */
	CHECK_EQ(at_el0(el0_rd_pmccntr, 0, EC_SYS64, NULL), 0,
		 "pmuserenr.CR: EL0 PMCCNTR read allowed");
	CHECK_EQ(at_el0(el0_wr_pmccntr, 0, EC_SYS64, NULL), 1,
		 "pmuserenr.CR: EL0 PMCCNTR write traps");
	CHECK_EQ(at_el0(el0_rd_evcntr0, 0, EC_SYS64, NULL), 1,
		 "pmuserenr.CR: EL0 PMEVCNTR0 read traps");

	wr(pmuserenr_el0, 8); /* ER */
	pmevcntr_write(0, 77);
	CHECK_EQ(at_el0(el0_rd_evcntr0, 0, EC_SYS64, &r), 0,
		 "pmuserenr.ER: EL0 PMEVCNTR0 read allowed");
	CHECK_EQ(r, 77, "pmuserenr.ER: EL0 reads the counter's value");
	CHECK_EQ(at_el0(el0_sel_xevcntr, 0, EC_SYS64, &r), 0,
		 "pmuserenr.ER: EL0 PMSELR write and PMXEVCNTR read allowed");
	CHECK_EQ(r, 77, "pmuserenr.ER: EL0 PMXEVCNTR reads the selected counter");
	CHECK_EQ(at_el0(el0_rd_pmccntr, 0, EC_SYS64, NULL), 1,
		 "pmuserenr.ER: EL0 PMCCNTR read traps");
	pmevcntr_write(0, 0);

	wr(pmuserenr_el0, 2); /* SW */
	CHECK_EQ(at_el0(el0_swinc, 1, EC_SYS64, NULL), 0,
		 "pmuserenr.SW: EL0 PMSWINC write allowed");
	CHECK_EQ(at_el0(el0_rd_pmcr, 0, EC_SYS64, NULL), 1,
		 "pmuserenr.SW: EL0 PMCR read traps");

	wr(pmuserenr_el0, 0xF);
	CHECK_EQ(at_el0(el0_wr_userenr, 0, EC_UNKNOWN, NULL), 1,
		 "pmuserenr: EL0 write UNDEFINED");
	CHECK_EQ(at_el0(el0_rd_inten, 0, EC_UNKNOWN, NULL), 1, "pminten: EL0 access UNDEFINED");
	CHECK_EQ(rd(pmuserenr_el0), 0xF, "pmuserenr: unchanged by the EL0 write");
	wr(pmuserenr_el0, 0);
}

void test_main(void)
{
	N = (unsigned)dt_pmu_counters(0);
	implemented = (uint32_t)((1ul << N) - 1) | (uint32_t)CYCLE_BIT;
	pmu_reset();
	test_pmcr();
	pmu_reset();
	test_bitmap("pmcnten: bits >= N RAZ/WI", 0);
	test_bitmap("pminten: bits >= N RAZ/WI", 1);
	test_bitmap("pmovs: bits >= N RAZ/WI", 2);
	test_pmselr();
	test_counters_beyond_n();
	test_evtyper();
	test_pmceid();
	test_pmuserenr();
	pmu_reset();
}
