/* SPDX-License-Identifier: MIT */
/*
 * Garbage in, architecture out: the guest reads, then writes zero to, every encoding of the
 * PMU/SPE/timer corner of the system-register space (Op0 = 3, Op1 = 0 or 3, CRn = 9 or 14,
 * every CRm and Op2: 512 encodings), trapped or not, implemented or not. Each access either
 * completes or UNDEFs; the VM survives and its PMU still behaves. Run beside another VM,
 * which must not notice.
 */
#include "pmu.h"

/* Stubs, 8 bytes each: "mrs x0, <reg>; ret" and "msr <reg>, xzr; ret", ordered by
 * Op1 (0, 3), CRn (9, 14), CRm, Op2. */
#define RD1(a, n, m, o) "mrs x0, S3_" #a "_C" #n "_C" #m "_" #o "\n\tret\n"
#define WR1(a, n, m, o) "msr S3_" #a "_C" #n "_C" #m "_" #o ", xzr\n\tret\n"
/* clang-format off */
#define OP2S(X, a, n, m) X(a, n, m, 0) X(a, n, m, 1) X(a, n, m, 2) X(a, n, m, 3)                 \
	X(a, n, m, 4) X(a, n, m, 5) X(a, n, m, 6) X(a, n, m, 7)
/* clang-format on */
/* clang-format off */
#define CRMS(X, a, n) OP2S(X, a, n, 0) OP2S(X, a, n, 1) OP2S(X, a, n, 2) OP2S(X, a, n, 3)        \
	OP2S(X, a, n, 4) OP2S(X, a, n, 5) OP2S(X, a, n, 6) OP2S(X, a, n, 7) OP2S(X, a, n, 8)     \
	OP2S(X, a, n, 9) OP2S(X, a, n, 10) OP2S(X, a, n, 11) OP2S(X, a, n, 12)                   \
	OP2S(X, a, n, 13) OP2S(X, a, n, 14) OP2S(X, a, n, 15)
/* clang-format on */
#define ALL(X) CRMS(X, 0, 9) CRMS(X, 0, 14) CRMS(X, 3, 9) CRMS(X, 3, 14)
__asm__(".pushsection .text\n.balign 8\nsweep_rd:\n" ALL(RD1) "sweep_wr:\n" ALL(
	WR1) ".popsection\n");
extern char sweep_rd[], sweep_wr[];

typedef uint64_t stub_fn(void);

static unsigned sweep(char *base)
{
	unsigned undefs = 0;
	for (unsigned i = 0; i < 512; i++) {
		unsigned op1 = i >> 8 ? 3 : 0, crn = (i >> 7) & 1 ? 14 : 9;
		unsigned crm = (i >> 3) & 15, op2 = i & 7;
		/* Skip the few encodings whose writes would stop the test itself: the timer
		 * controls (CRn 14, CRm 0..3 at Op1 3) and CNTKCTL_EL1 are the guest's own
		 * business and tested elsewhere. */
		if (base == sweep_wr && crn == 14 &&
		    ((op1 == 3 && crm < 4) || (op1 == 0 && crm == 1)))
			continue;
		(void)op2;
		expect_begin(EC_UNKNOWN);
		((stub_fn *)(void *)(base + 8 * i))();
		undefs += expect_end();
	}
	return undefs;
}

void test_main(void)
{
	unsigned n = (unsigned)dt_pmu_counters(0);
	pmu_reset();
	unsigned r = sweep(sweep_rd);
	unsigned w = sweep(sweep_wr);
	gprintf("sweep: %u of 512 reads and %u writes UNDEFINED\n", r, w);
	CHECK(r > 0 && r < 512, "sweep: every read completed or UNDEFINED");
	CHECK(w > 0 && w < 512, "sweep: every write completed or UNDEFINED");
	/* Still a working PMU. */
	CHECK_EQ(PMCR_N(rd(pmcr_el0)), n, "sweep: PMCR_EL0.N unchanged");
	pmu_reset();
	pmevtyper_write(0, EV_SW_INCR);
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	wr(pmswinc_el0, 1);
	CHECK_EQ(pmevcntr_read(0), 1, "sweep: the PMU still counts");
	pmu_reset();
	/* The same sweep again gives the same answers. */
	CHECK_EQ(sweep(sweep_rd), r, "sweep: reads answer the same the second time");
	pmu_reset();
}
