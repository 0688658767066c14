/* SPDX-License-Identifier: MIT */
/*
 * An adversarial guest, register by register (docs/security.md): it tries to count EL2 and
 * EL3, to reset the host's counters through PMCR.P and PMCR.C, to reach counters >= N (the
 * hypervisor's own counter among them) directly and through PMSELR, to set bitmap bits of
 * counters it does not have, to write read-only registers and read write-only ones, to change
 * EL2 controls from EL1, to slip past its own PMUSERENR at EL0, and finally runs thousands of
 * random MRS/MSR in the PMU, AMU, SPE, MPAM and ID encoding spaces.
 *
 * Every attempt must get the architected answer; one that does not is an escape. The program
 * ends with "attacks: <tried>, escapes: <n>". What it cannot see from inside (the host
 * counter, the neighbours' counts) the runner checks (tests/guest/run.sh, scenario attack).
 */
#include "attack.h"
#include "pmu.h"

static unsigned N;
static uint32_t implemented;

/* Work at EL2 on the guest's behalf: hypercalls, trapped PMU reads, MMIO exits. */
static void make_el2_work(void)
{
	for (unsigned i = 0; i < 200; i++) {
		hvc_call(HYP_CALL_NULL, 0, 0, 0);
		(void)rd(pmcr_el0);
	}
}

static void attack_count_el2(void)
{
	static const struct {
		const char *name;
		uint64_t filter;
	} f[] = {
		{"count el2: NSH with P and U (EL2 only)", EVT_P | EVT_U | EVT_NSH},
		{"count el3: M with P (EL3 counted iff M == P)", EVT_P | EVT_U | EVT_M},
		{"count secure: NSK/NSU clear with P/U clear would be Secure EL1/EL0",
		 EVT_P | EVT_U | EVT_NSK | EVT_NSU},
		{"count everything: every filter bit set but P and U",
		 EVT_P | EVT_U | 0x3FF00000ul},
		{"count realm: RLK, RLU, RLH", EVT_P | EVT_U | (7ul << 20)},
	};
	for (unsigned k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		pmu_reset();
		pmevtyper_write(0, f[k].filter | EV_INST_RETIRED);
		pmevtyper_write(1, f[k].filter | EV_CPU_CYCLES);
		wr(pmccfiltr_el0, f[k].filter);
		wr(pmcntenset_el0, CYCLE_BIT | 3);
		wr(pmcr_el0, PMCR_E | PMCR_LC);
		make_el2_work();
		wr(pmcr_el0, PMCR_LC);
		uint64_t a = pmevcntr_read(0), b = pmevcntr_read(1), c = rd(pmccntr_el0);
		attempt(a == 0 && b == 0 && c == 0, f[k].name,
			"counted %lx instructions / %lx cycles outside EL1 and EL0", a, b | c);
	}
	/* The filter bits of states that do not exist read as zero (no EL3, no RME here; SH
	 * exists with FEAT_SEL2, which QEMU's -cpu max reports). */
	pmevtyper_write(0, 0xFFFFFFFFul);
	uint64_t t = pmevtyper_read(0);
	pmevtyper_write(0, 0);
	attempt((t & (EVT_NSK | EVT_NSU | EVT_M | (7ul << 20))) == 0,
		"count el3/realm: their filter bits are RES0 without those states",
		"PMEVTYPER0 reads %lx (%lx)", t, t & (EVT_NSK | EVT_NSU | EVT_M | (7ul << 20)));
	pmu_reset();
}

static void attack_reset_host(void)
{
	pmu_reset();
	pmevtyper_write(0, EVT_U | EV_INST_RETIRED);
	wr(pmccfiltr_el0, 0);
	wr(pmcntenset_el0, 1 | CYCLE_BIT);
	unsigned ok = 0;
	for (unsigned i = 0; i < 500; i++) {
		wr(pmcr_el0, PMCR_E | PMCR_LC);
		spin(50);
		wr(pmcr_el0, PMCR_E | PMCR_LC | PMCR_P | PMCR_C);
		/* The guest's own counters are reset: that much is architected. */
		ok += pmevcntr_read(0) < 16 && rd(pmccntr_el0) < 64;
	}
	wr(pmcr_el0, PMCR_LC);
	attempt(ok == 500, "reset host: PMCR.P and C reset the guest's own counters only",
		"%lu of %lu resets seen", ok, 500);
	pmu_reset();
}

static void attack_beyond_n(void)
{
	unsigned u = 0, expect = 0;
	for (unsigned n = N; n < 31; n++) {
		u += UNDEFS((void)pmevcntr_read(n); pmevcntr_write(n, 0);
			    (void)pmevtyper_read(n); pmevtyper_write(n, EVT_NSH | 0x11));
		wr(pmselr_el0, n);
		u += UNDEFS((void)rd(pmxevcntr_el0); wr(pmxevcntr_el0, 0);
			    (void)rd(pmxevtyper_el0); wr(pmxevtyper_el0, EVT_NSH | 0x11));
		expect += 8;
	}
	wr(pmselr_el0, 31);
	u += UNDEFS((void)rd(pmxevcntr_el0); wr(pmxevcntr_el0, 0));
	expect += 2;
	wr(pmselr_el0, 0);
	tried += expect - 1;
	attempt(u == expect, "counters >= N (the hypervisor's among them): every access UNDEF",
		"%lu UNDEFs of %lu", u, expect);

	/* Bitmaps: bits of counters >= N are RAZ/WI, through SET and CLR alike. */
	wr(pmcntenset_el0, 0xFFFFFFFFul);
	wr(pmintenset_el1, 0xFFFFFFFFul);
	wr(pmovsset_el0, 0xFFFFFFFFul);
	uint64_t a = rd(pmcntenset_el0) | rd(pmintenset_el1) | rd(pmovsset_el0);
	wr(pmcntenclr_el0, ~implemented);
	wr(pmintenclr_el1, ~implemented);
	wr(pmovsclr_el0, ~implemented);
	uint64_t b = rd(pmcntenclr_el0) & rd(pmintenclr_el1) & rd(pmovsclr_el0);
	attempt(a == implemented && b == implemented,
		"bitmaps: bits of counters >= N are RAZ/WI", "set %lx, after clr %lx", a, b);
	pmu_reset();
	for (unsigned n = 0; n < N; n++)
		pmevtyper_write(n, EV_SW_INCR);
	wr(pmcr_el0, PMCR_E);
	wr(pmcntenset_el0, 0xFFFFFFFFul);
	unsigned sw = UNDEFS(wr(pmswinc_el0, ~0ul << N));
	uint64_t any = 0;
	for (unsigned n = 0; n < N; n++)
		any |= pmevcntr_read(n);
	attempt(sw == 0 && any == 0, "pmswinc: bits of counters >= N do nothing",
		"%lu UNDEFs, counters %lx", sw, any);
	pmu_reset();
}

static void attack_access(void)
{
	/* Generic encodings: the assembler refuses an MSR to a named read-only register. */
	unsigned u = UNDEFS(wr(S3_3_C9_C12_6, ~0ul); wr(S3_3_C9_C12_7, ~0ul);
			    wr(PMMIR_EL1, ~0ul));
	attempt(u == 3, "read-only: MSR PMCEID0, PMCEID1, PMMIR UNDEF", "%lu of %lu", u, 3);
	u = UNDEFS((void)rd(S3_3_C9_C12_4)); /* PMSWINC_EL0 */
	attempt(u == 1, "write-only: MRS PMSWINC UNDEF", "%lu of %lu", u, 1);
	u = UNDEFS(wr(S3_0_C0_C5_0, 0); wr(S3_0_C0_C4_0, 0)); /* ID_AA64DFR0/PFR0_EL1 */
	attempt(u == 2, "read-only: MSR ID_AA64DFR0_EL1 / ID_AA64PFR0_EL1 UNDEF", "%lu of %lu",
		u, 2);
	/* EL2 controls from EL1: MDCR_EL2, PMSCR_EL2, MPAM2_EL2, HCR_EL2. */
	u = UNDEFS(wr(S3_4_C1_C1_1, 0); (void)rd(S3_4_C1_C1_1); wr(S3_4_C9_C9_0, 0);
		   wr(S3_4_C10_C5_0, 0); wr(S3_4_C1_C1_0, 0));
	attempt(u == 5, "el2 controls: MDCR_EL2, PMSCR_EL2, MPAM2_EL2, HCR_EL2 from EL1 UNDEF",
		"%lu of %lu", u, 5);
	uint64_t pmcr = rd(pmcr_el0);
	wr(pmcr_el0, pmcr ^ (0xFFul << 24) ^ (0x1Ful << 11) ^ (0xFFul << 16));
	uint64_t after = rd(pmcr_el0);
	attempt((after & 0xFFFFF800ul) == (pmcr & 0xFFFFF800ul),
		"read-only fields: PMCR.N, IDCODE, IMP cannot be changed", "%lx after %lx",
		after, pmcr);
	wr(pmcr_el0, 0);
	wr(pmselr_el0, ~0ul);
	uint64_t sel = rd(pmselr_el0);
	attempt(sel == 31, "pmselr: only SEL[4:0] is stored", "%lx%lx", sel, 0);
	wr(pmselr_el0, 0);
	/* The guest's own MPAM (it has none here): its registers UNDEF, no PARTID reaches an MSC. */
	u = UNDEFS(wr(S3_0_C10_C5_0, ~0ul); wr(S3_0_C10_C5_1, ~0ul); (void)rd(S3_0_C10_C4_4));
	attempt(u == 3, "mpam: MPAM1_EL1, MPAM0_EL1, MPAMIDR_EL1 UNDEF without MPAM",
		"%lu of %lu", u, 3);
	/* SPE and AMU, not given to this VM. */
	u = UNDEFS(wr(S3_0_C9_C9_0, ~0ul); wr(S3_0_C9_C10_0, ~0ul); (void)rd(S3_3_C13_C2_0));
	attempt(u == 3, "spe/amu: PMSCR_EL1, PMBLIMITR_EL1, AMCR_EL0 UNDEF", "%lu of %lu", u,
		3);
}

static uint64_t el0_rd_pmcr(uint64_t a)
{
	(void)a;
	return rd(pmcr_el0);
}
static uint64_t el0_wr_userenr(uint64_t a)
{
	wr(pmuserenr_el0, a);
	return 0;
}
static uint64_t el0_wr_inten(uint64_t a)
{
	wr(pmintenset_el1, a);
	return 0;
}
static uint64_t el0_beyond(uint64_t a)
{
	pmevcntr_write((unsigned)a, 0);
	return pmevcntr_read((unsigned)a);
}

static void attack_el0(void)
{
	wr(pmuserenr_el0, 0);
	expect_begin(EC_SYS64);
	run_el0(el0_rd_pmcr, 0);
	unsigned t = expect_end();
	attempt(t == 1 && g_last_vector == 8 && (g_last_esr >> 26) == EC_SYS64,
		"el0: PMCR with PMUSERENR = 0 traps to EL1 (EC 0x18)", "%lu traps, ESR %lx", t,
		g_last_esr);
	unsigned u = UNDEFS(run_el0(el0_wr_userenr, 0xF));
	attempt(u == 1 && (rd(pmuserenr_el0) & 0xF) == 0,
		"el0: writing PMUSERENR at EL0 UNDEF, the value kept", "%lu UNDEFs, %lx", u,
		rd(pmuserenr_el0));
	wr(pmuserenr_el0, 0xF);
	u = UNDEFS(run_el0(el0_wr_inten, ~0ul));
	attempt(u == 1 && rd(pmintenset_el1) == 0,
		"el0: PMINTENSET_EL1 at EL0 UNDEF (even with EN)", "%lu UNDEFs, %lx", u,
		rd(pmintenset_el1));
	u = UNDEFS(run_el0(el0_beyond, N));
	attempt(u == 2, "el0: counters >= N UNDEF at EL0", "%lu of %lu", u, 2);
	wr(pmuserenr_el0, 0);
}

/* Random MRS/MSR of the trapped register spaces, generated at run time: each completes or
 * UNDEFs; anything else (another exception, a hang, the hypervisor falling) is an escape. */
static uint32_t code[2] __attribute__((aligned(64)));
static uint64_t seed = 0x9E3779B97F4A7C15ul;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void attack_random(unsigned count)
{
	static const uint8_t crns[] = {9, 9, 14, 14, 10, 13, 0};
	unsigned undefs = 0;
	for (unsigned i = 0; i < count; i++) {
		uint64_t r = rnd();
		unsigned op1 = (r & 1) ? 3 : 0, crn = crns[(r >> 1) % sizeof(crns)];
		unsigned crm = (r >> 4) & 15, op2 = (r >> 8) & 7;
		bool read = (r >> 11) & 1;
		if (crn == 14 && op1 == 3 && crm < 8)
			continue; /* the generic timer, not a PMU register */
		if (crn == 10 && op1 == 0 && crm < 4)
			continue; /* MAIR/AMAIR: the guest's own memory attributes */
		if (crn == 0 && read && (op1 != 0 || crm == 0))
			continue; /* ID space outside TID3's: FEAT_IDST makes the CPU trap it to EL1 */
		uint32_t insn = (read ? 0xD5380000u : 0xD5180000u) | op1 << 16 | crn << 12 |
				crm << 8 | op2 << 5 | 9; /* x9 */
		code[0] = insn;
		code[1] = 0xD65F03C0u; /* ret */
		__asm__ volatile(
			"dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\tdsb ish\n\tisb" ::"r"(code)
			: "memory");
		uint64_t val = rnd();
		expect_begin(EC_UNKNOWN);
		__asm__ volatile("mov x9, %0\n\tblr %1" ::"r"(val), "r"(code)
				 : "x9", "x30", "memory");
		undefs += expect_end();
		tried++;
	}
	pmu_reset();
	wr(pmuserenr_el0, 0);
	for (unsigned n = 0; n < N; n++)
		pmevtyper_write(n, 0);
	wr(pmccfiltr_el0, 0);
	check(true, "random: every access completed or UNDEF", "%s", "");
	gprintf("random: %u accesses, %u UNDEF\n", count, undefs);
}

void test_main(void)
{
	N = PMCR_N(rd(pmcr_el0));
	implemented = (uint32_t)((1ul << N) - 1) | (uint32_t)CYCLE_BIT;
	attack_count_el2();
	attack_reset_host();
	attack_beyond_n();
	attack_access();
	attack_el0();
	attack_random((unsigned)arg_num("attack.random", 3000));
	attack_report();
	done();
}
