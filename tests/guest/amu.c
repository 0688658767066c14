/* SPDX-License-Identifier: MIT */
/*
 * The Activity Monitors from a guest (docs/amu.md), on the QEMU of our own (-cpu
 * max,pv-amu=on or v1: docs/qemu.md, "The AMU model"), each check from the Arm ARM (D16, the
 * AMU; D24.6, its registers) so that a hypervisor that gets it wrong fails it:
 *  - ID_AA64PFR0_EL1.AMU (D24.2.93) is the version the VM was given; a VM without the AMU
 *    sees every AMU register UNDEFINED, at EL1 and at EL0 (D24.6: "present only when
 *    FEAT_AMUv1 is implemented. Otherwise, direct accesses ... are UNDEFINED").
 *  - The identification registers (AMCFGR_EL0, AMCGCR_EL0, AMCG1IDR_EL0 with AMUv1p1 only),
 *    the event types of both groups (D16.3), the enables, AMCR_EL0's RES0 bits.
 *  - Exactness: the auxiliary counters of the model count the instructions retired at EL0,
 *    EL1 and EL2, so the vCPU's counts over a known loop are known to the instruction,
 *    however many time slices of another VM the loop spans; INST_RETIRED is the three of
 *    them together; CNT_CYCLES is the vCPU's run time, not the wall clock's.
 *  - What the guest must not reach: the virtual offsets and HAFGRTR_EL2 (EL2's), the writes
 *    of counters, enables and AMCR_EL0 (the highest EL's); its counters start at its own
 *    start.
 *  - AMUSERENR_EL0: EL1's to write, bits [63:1] RES0; EN = 0 sends EL0's accesses to the
 *    guest's EL1 (EC 0x18), EN = 1 lets EL0 read.
 * Every measured figure is printed. The last line before "done:" says how many accesses the
 * hypervisor must have taken (the runner holds its report to them): "amu: traps: F reads of
 * CNT_CYCLES and auxiliary counter 2, T accesses CPTR_EL2.TAM traps, E of them from EL0 with
 * AMUSERENR_EL0.EN 0": F on the virtual-offset path, T on the trap path, which sends E back
 * to the guest's EL1.
 *
 * Arguments: amu.expect=0|1|2 (default 2): the ID_AA64PFR0_EL1.AMU the VM must see (0: no
 * AMU, hidden); amu.loop=N (default 2000000): the rounds of each counted loop;
 * amu.slice_us=N (default 1000, the hypervisor's): its time slice, for the bound on what the
 * hypervisor may add to INST_RETIRED; amu.busy=1: a busy VM shares the pCPU with equal
 * slices, so CNT_CYCLES must fall well short of the wall clock.
 */
#include "guest.h"

/* ---- The registers (Arm ARM D24.6) ------------------------------------------------------- */

/* What an access from EL1 or EL0 meets, for a VM with the AMU. */
enum kind {
	K_CFG,      /* identification and control: readable, never writable below EL2 */
	K_USERENR,  /* AMUSERENR_EL0: EL1 writes it, EL0 always reads it (D24.6.15) */
	K_V1P1,     /* AMCG1IDR_EL0: FEAT_AMUv1p1 only (D24.6.2) */
	K_CNT,      /* a counter with a virtual offset register: 0, 2, 3, aux 0, 1 (D16.2.5) */
	K_CNT_TRAP, /* a counter without one: CNT_CYCLES, aux 2, trapped alone (HAFGRTR_EL2) */
	K_NONE,     /* an encoding past the counters implemented: UNDEFINED (D24.6.9-14) */
	K_EL2,      /* an EL2 register: UNDEFINED at EL1 without FEAT_NV (D24.6.11, 12) */
};

/* name, op1, CRn, CRm, op2, kind, the value EL1 reads (K_CFG, K_V1P1). The model has
 * three auxiliary counters, 0x00c0..0x00c2, with offsets on the first two (docs/qemu.md). */
#define AMU_REGS(X)                                                                            \
	X("AMCR_EL0", 3, 13, 2, 0, K_CFG, 0)                                                   \
	X("AMCFGR_EL0", 3, 13, 2, 1, K_CFG, AMCFGR_WANT)                                       \
	X("AMCGCR_EL0", 3, 13, 2, 2, K_CFG, AMCGCR_WANT)                                       \
	X("AMUSERENR_EL0", 3, 13, 2, 3, K_USERENR, 0)                                          \
	X("AMCNTENCLR0_EL0", 3, 13, 2, 4, K_CFG, 0xf)                                          \
	X("AMCNTENSET0_EL0", 3, 13, 2, 5, K_CFG, 0xf)                                          \
	X("AMCG1IDR_EL0", 3, 13, 2, 6, K_V1P1, AMCG1IDR_WANT)                                  \
	X("AMCNTENCLR1_EL0", 3, 13, 3, 0, K_CFG, 0x7)                                          \
	X("AMCNTENSET1_EL0", 3, 13, 3, 1, K_CFG, 0x7)                                          \
	X("AMEVCNTR00_EL0", 3, 13, 4, 0, K_CNT, 0)                                             \
	X("AMEVCNTR01_EL0", 3, 13, 4, 1, K_CNT_TRAP, 0)                                        \
	X("AMEVCNTR02_EL0", 3, 13, 4, 2, K_CNT, 0)                                             \
	X("AMEVCNTR03_EL0", 3, 13, 4, 3, K_CNT, 0)                                             \
	X("AMEVTYPER00_EL0", 3, 13, 6, 0, K_CFG, 0x0011)                                       \
	X("AMEVTYPER01_EL0", 3, 13, 6, 1, K_CFG, 0x4004)                                       \
	X("AMEVTYPER02_EL0", 3, 13, 6, 2, K_CFG, 0x0008)                                       \
	X("AMEVTYPER03_EL0", 3, 13, 6, 3, K_CFG, 0x4005)                                       \
	X("AMEVCNTR10_EL0", 3, 13, 12, 0, K_CNT, 0)                                            \
	X("AMEVCNTR11_EL0", 3, 13, 12, 1, K_CNT, 0)                                            \
	X("AMEVCNTR12_EL0", 3, 13, 12, 2, K_CNT_TRAP, 0)                                       \
	X("AMEVTYPER10_EL0", 3, 13, 14, 0, K_CFG, 0x00c0)                                      \
	X("AMEVTYPER11_EL0", 3, 13, 14, 1, K_CFG, 0x00c1)                                      \
	X("AMEVTYPER12_EL0", 3, 13, 14, 2, K_CFG, 0x00c2)                                      \
	X("AMEVCNTR04_EL0", 3, 13, 4, 4, K_NONE, 0)                                            \
	X("AMEVTYPER04_EL0", 3, 13, 6, 4, K_NONE, 0)                                           \
	X("AMEVCNTR13_EL0", 3, 13, 12, 3, K_NONE, 0)                                           \
	X("AMEVTYPER13_EL0", 3, 13, 14, 3, K_NONE, 0)                                          \
	X("AMEVCNTVOFF00_EL2", 4, 13, 8, 0, K_EL2, 0)                                          \
	X("AMEVCNTVOFF01_EL2", 4, 13, 8, 1, K_EL2, 0)                                          \
	X("AMEVCNTVOFF02_EL2", 4, 13, 8, 2, K_EL2, 0)                                          \
	X("AMEVCNTVOFF03_EL2", 4, 13, 8, 3, K_EL2, 0)                                          \
	X("AMEVCNTVOFF10_EL2", 4, 13, 10, 0, K_EL2, 0)                                         \
	X("AMEVCNTVOFF11_EL2", 4, 13, 10, 1, K_EL2, 0)                                         \
	X("HAFGRTR_EL2", 4, 3, 1, 6, K_EL2, 0)

/* AMCFGR_EL0 (D24.6.1): NCG 1 (two groups), HDBG 1 ("must be supported"), SIZE 63, N = 4 + 3
 * - 1; AMCGCR_EL0 (D24.6.3): CG1NC 3, CG0NC 4; AMCG1IDR_EL0 (D24.6.2): counters 0..2,
 * offsets on 0 and 1. */
#define AMCFGR_WANT ((1ul << 28) | (1ul << 24) | (63ul << 8) | 6)
#define AMCGCR_WANT ((3ul << 8) | 4)
#define AMCG1IDR_WANT ((3ul << 16) | 7)
#define AMCR_HDBG (1ul << 10)
#define AMCR_CG1RZ (1ul << 17)

/* Encodings for the assembler, and the registers used by name below. */
#define ENC(op1, crn, crm, op2) "S3_" #op1 "_C" #crn "_C" #crm "_" #op2
#define CPU_CYCLES ENC(3, 13, 4, 0)
#define CNT_CYCLES ENC(3, 13, 4, 1)
#define INST_RETIRED ENC(3, 13, 4, 2)
#define STALL_BACKEND_MEM ENC(3, 13, 4, 3)
#define AUX0 ENC(3, 13, 12, 0)
#define AUX1 ENC(3, 13, 12, 1)
#define AUX2 ENC(3, 13, 12, 2)

/* clang-format off */
enum {
#define IDX(name, op1, crn, crm, op2, kind, want) R_##op1##_##crn##_##crm##_##op2,
	AMU_REGS(IDX)
#undef IDX
	NREGS
};
/* clang-format on */
#define R_AMCR R_3_13_2_0
#define R_AMUSERENR R_3_13_2_3
#define R_CNTENCLR0 R_3_13_2_4
#define R_CNTENSET0 R_3_13_2_5
#define R_CNTENCLR1 R_3_13_3_0
#define R_CNTENSET1 R_3_13_3_1
#define R_INST_RETIRED R_3_13_4_2

static const struct reg {
	const char *name;
	uint8_t op1, crn, crm, op2;
	enum kind kind;
	uint64_t want;
} regs[NREGS] = {
#define ROW(name, op1, crn, crm, op2, kind, want) {name, op1, crn, crm, op2, kind, want},
	AMU_REGS(ROW)
#undef ROW
};

/* One MRS and one MSR of each register, in the table's order, 8 bytes each: `mrs x0, R; ret`
 * and `msr R, x0; ret`, callable at EL1 and through run_el0 at EL0 (an UNDEFINED access is
 * skipped by the library: the MRS then returns its argument). */
typedef uint64_t stub_fn(uint64_t);
extern const char amu_rd_stubs[], amu_wr_stubs[];
#define RD_STUB(name, op1, crn, crm, op2, kind, want)                                          \
	"mrs x0, " ENC(op1, crn, crm, op2) "\n\tret\n\t"
#define WR_STUB(name, op1, crn, crm, op2, kind, want)                                          \
	"msr " ENC(op1, crn, crm, op2) ", x0\n\tret\n\t"
/* clang-format off */
__asm__(".text\n\t.balign 8\n\t"
	".global amu_rd_stubs\namu_rd_stubs:\n\t" AMU_REGS(RD_STUB)
	".global amu_wr_stubs\namu_wr_stubs:\n\t" AMU_REGS(WR_STUB));
/* clang-format on */

static stub_fn *stub(bool write, unsigned i)
{
	return (stub_fn *)(uintptr_t)((write ? amu_wr_stubs : amu_rd_stubs) + 8 * i);
}

/* ---- The VM, and the accesses the hypervisor must have taken ----------------------------- */

static unsigned version;  /* amu.expect: ID_AA64PFR0_EL1.AMU */
static uint64_t userenr;  /* what the guest last wrote to AMUSERENR_EL0 */
static uint64_t trap_fgt; /* reads of CNT_CYCLES and aux 2 from EL1, or EL0 with EN */
static uint64_t trap_tam; /* accesses CPTR_EL2.TAM traps (the trap path, AMUv1) */
static uint64_t trap_el1; /* of those, EL0's with EN 0, which it sends back to EL1 */
static uint64_t cntfrq;   /* CNTFRQ_EL0 */
static uint64_t loop_n;   /* amu.loop */
static uint64_t slice_ns; /* amu.slice_us, in ns */
static bool busy;         /* amu.busy */

static bool exists(enum kind k)
{
	return k == K_CFG || k == K_USERENR || k == K_CNT || k == K_CNT_TRAP ||
	       (k == K_V1P1 && version >= 2);
}

/* The accesses that reach EL2, on each path (docs/amu.md, "The two paths"). The
 * virtual-offset path traps the reads of the counters without an offset register alone
 * (HAFGRTR_EL2, D24.2.61): from EL1, and from EL0 once AMUSERENR_EL0.EN lets it read (EN is
 * checked first, D24.6.15). The trap path traps everything CPTR_EL2.TAM covers: every
 * access to a register the CPU has, but the MSRs the architecture makes UNDEFINED below the
 * highest EL before TAM is looked at (D24.6, each such MSR: "elsif IsHighestEL(PSTATE.EL)
 * ... else UNDEFINED") and EL0's write of AMUSERENR_EL0; EL0's reads whatever the guest's
 * EN, since the hardware's is kept 1 there (docs/amu.md, "Trap path"). */
static void account(unsigned i, bool el0, bool write)
{
	enum kind k = regs[i].kind;
	if (!version || !exists(k))
		return;
	if (write) {
		trap_tam += !el0 && k == K_USERENR;
		return;
	}
	trap_tam++;
	trap_el1 += el0 && !(userenr & 1) && k != K_USERENR;
	trap_fgt += k == K_CNT_TRAP && (!el0 || (userenr & 1));
}

/* An access through the stubs: how many exceptions of class ec it took (anything else ends
 * the program, as the library does). */
static unsigned access_ec(unsigned i, bool el0, bool write, uint64_t arg, unsigned ec,
			  uint64_t *val)
{
	account(i, el0, write);
	expect_begin(ec);
	uint64_t v = el0 ? run_el0(stub(write, i), arg) : stub(write, i)(arg);
	unsigned n = expect_end();
	if (val)
		*val = v;
	return n;
}

static uint64_t rd_el1(unsigned i)
{
	uint64_t v = 0;
	access_ec(i, false, false, 0, EC_UNKNOWN, &v);
	return v;
}

static void set_userenr(uint64_t v)
{
	wr(S3_3_C13_C2_3, v); /* AMUSERENR_EL0 */
	isb();
	userenr = v & 1;
	trap_tam++;
}

/* An UNDEFINED access: one exception, EC 0 with IL 1 (ESR_EL1, laid out as ESR_EL2,
 * D24.2.46), at the vector of the EL it came from (4: EL1h, 8: EL0). */
static bool undefined(unsigned i, bool el0, bool write)
{
	unsigned n = access_ec(i, el0, write, 0, EC_UNKNOWN, NULL);
	return n == 1 && g_last_vector == (el0 ? 8u : 4u) && g_last_esr == (1ul << 25);
}

/* The ISS of a trapped MRS x0 (EC 0x18; ESR_EL1 laid out as ESR_EL2, D24.2.46): Op0, Op2,
 * Op1, CRn, Rt, CRm, Direction (1: read). */
static uint64_t iss_read(unsigned i)
{
	const struct reg *r = &regs[i];
	return 3ul << 20 | (uint64_t)r->op2 << 17 | (uint64_t)r->op1 << 14 |
	       (uint64_t)r->crn << 10 | (uint64_t)r->crm << 1 | 1;
}

/* The bits set in v (libgcc's popcount uses SIMD registers, which the guest leaves off). */
static unsigned bits(uint64_t v)
{
	unsigned n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* `what` for each register in `bad` (a bitmap over the table), for a failed check. */
static void list(const char *what, uint64_t bad)
{
	for (unsigned i = 0; i < NREGS; i++)
		if (bad >> i & 1)
			gprintf("amu: %s: %s\n", what, regs[i].name);
}

/* ---- A VM without the AMU ---------------------------------------------------------------- */

/* Every register of the table UNDEFINED, read and written, from EL1 and from EL0. */
static void hidden(void)
{
	uint64_t bad[4] = {0, 0, 0, 0};
	for (unsigned i = 0; i < NREGS; i++) {
		bad[0] |= (uint64_t)!undefined(i, false, false) << i;
		bad[1] |= (uint64_t)!undefined(i, false, true) << i;
		bad[2] |= (uint64_t)!undefined(i, true, false) << i;
		bad[3] |= (uint64_t)!undefined(i, true, true) << i;
	}
	static const char *const what[4] = {"EL1 read", "EL1 write", "EL0 read", "EL0 write"};
	for (unsigned w = 0; w < 4; w++) {
		list(what[w], bad[w]);
		check(!bad[w],
		      w == 0   ? "no AMU: every AMU register's MRS UNDEFINED at EL1"
		      : w == 1 ? "no AMU: every AMU register's MSR UNDEFINED at EL1"
		      : w == 2 ? "no AMU: every AMU register's MRS UNDEFINED at EL0"
			       : "no AMU: every AMU register's MSR UNDEFINED at EL0",
		      "%u of %u not", bits(bad[w]), (unsigned)NREGS);
	}
}

/* ---- Identification, and what EL1 may not write ------------------------------------------ */

static void identification(void)
{
	CHECK_EQ(rd_el1(R_3_13_2_1), AMCFGR_WANT,
		 "AMCFGR_EL0: two groups, HDBG, 64-bit counters, N = 4 + 3 auxiliary - 1");
	CHECK_EQ(rd_el1(R_3_13_2_2), AMCGCR_WANT, "AMCGCR_EL0: CG0NC 4, CG1NC 3");
	if (version >= 2) {
		CHECK_EQ(rd_el1(R_3_13_2_6), AMCG1IDR_WANT,
			 "AMCG1IDR_EL0: auxiliary counters 0..2, offsets on 0 and 1");
	} else {
		check(undefined(R_3_13_2_6, false, false),
		      "AMCG1IDR_EL0 UNDEFINED with AMUv1 (FEAT_AMUv1p1's)", "ESR %lx",
		      g_last_esr);
	}
	uint64_t t0[4], t1[3];
	for (unsigned n = 0; n < 4; n++)
		t0[n] = rd_el1(R_3_13_6_0 + n);
	for (unsigned n = 0; n < 3; n++)
		t1[n] = rd_el1(R_3_13_14_0 + n);
	check(t0[0] == 0x11 && t0[1] == 0x4004 && t0[2] == 0x8 && t0[3] == 0x4005,
	      "AMEVTYPER0<n>_EL0: CPU_CYCLES, CNT_CYCLES, INST_RETIRED, STALL_BACKEND_MEM "
	      "(D16.3.1)",
	      "%lx %lx %lx %lx", t0[0], t0[1], t0[2], t0[3]);
	check(t1[0] == 0xc0 && t1[1] == 0xc1 && t1[2] == 0xc2,
	      "AMEVTYPER1<n>_EL0: the hardware's 0x00c0, 0x00c1, 0x00c2", "%lx %lx %lx", t1[0],
	      t1[1], t1[2]);
	uint64_t s0 = rd_el1(R_CNTENSET0), c0 = rd_el1(R_CNTENCLR0);
	uint64_t s1 = rd_el1(R_CNTENSET1), c1 = rd_el1(R_CNTENCLR1);
	check(s0 == 0xf && c0 == 0xf && s1 == 0x7 && c1 == 0x7,
	      "AMCNTENSET/CLR0 and 1: every counter enabled, SET and CLR alike",
	      "SET0 %lx CLR0 %lx SET1 %lx CLR1 %lx", s0, c0, s1, c1);
	/* AMCR_EL0 (D24.6.8): bits [63:18], [16:11], [9:0] RES0; CG1RZ RES0 with AMUv1, and 0
	 * here: set, the auxiliary counters would read zero below EL2. */
	uint64_t amcr = rd_el1(R_AMCR);
	gprintf("amu: AMCR_EL0 %lx\n", amcr);
	CHECK_EQ(amcr & ~AMCR_HDBG, 0, "AMCR_EL0: RES0 bits 0, CG1RZ 0");
}

/* Which accesses from EL1 take an exception: every register the VM has reads, every other
 * encoding (past the counters, EL2's) is UNDEFINED; every MSR but AMUSERENR_EL0's is
 * UNDEFINED (D24.6: "elsif IsHighestEL(PSTATE.EL) then ... else UNDEFINED"), whatever it
 * writes: all ones to the clears, AMCR_EL0 and the types, 0 to the counters. */
static void el1_accesses(void)
{
	uint64_t bad_rd = 0, bad_wr = 0, inst0 = rd_el1(R_INST_RETIRED);
	for (unsigned i = 0; i < NREGS; i++) {
		enum kind k = regs[i].kind;
		bool ok = exists(k) ? access_ec(i, false, false, 0, EC_UNKNOWN, NULL) == 0
				    : undefined(i, false, false);
		bad_rd |= (uint64_t)!ok << i;
		if (k == K_USERENR)
			continue;
		uint64_t v = k == K_CNT || k == K_CNT_TRAP ? 0 : ~0ul;
		bad_wr |= (uint64_t) !(access_ec(i, false, true, v, EC_UNKNOWN, NULL) == 1 &&
				       g_last_vector == 4 && g_last_esr == (1ul << 25))
			  << i;
	}
	list("EL1 read not as D24.6 says", bad_rd);
	list("EL1 write not UNDEFINED", bad_wr);
	check(!bad_rd,
	      "EL1: the VM's registers read, the rest (past the counters, EL2's) UNDEFINED",
	      "%u not", bits(bad_rd));
	check(!bad_wr,
	      "EL1: every MSR UNDEFINED but AMUSERENR_EL0's: counters, enables, AMCR_EL0, "
	      "types, offsets, HAFGRTR_EL2",
	      "%u not", bits(bad_wr));
	uint64_t s0 = rd_el1(R_CNTENSET0), s1 = rd_el1(R_CNTENSET1), amcr = rd_el1(R_AMCR);
	uint64_t inst1 = rd_el1(R_INST_RETIRED);
	check(s0 == 0xf && s1 == 0x7 && !(amcr & ~AMCR_HDBG) && inst1 > inst0,
	      "EL1: after the writes every counter still enabled and counting, AMCR_EL0 "
	      "as it was",
	      "SET0 %lx SET1 %lx AMCR %lx INST_RETIRED %lu -> %lu", s0, s1, amcr, inst0, inst1);
}

/* AMUSERENR_EL0 (D24.6.15): 0 at the vCPU's reset (docs/amu.md); EN stored from EL1,
 * bits [63:1] RES0. */
static void userenr_el1(void)
{
	uint64_t reset = rd_el1(R_AMUSERENR);
	set_userenr(~0ul);
	uint64_t all = rd_el1(R_AMUSERENR);
	set_userenr(0);
	uint64_t none = rd_el1(R_AMUSERENR);
	check(reset == 0 && all == 1 && none == 0,
	      "AMUSERENR_EL0: 0 at reset; EL1 writes EN, bits [63:1] RES0",
	      "reset %lx, ~0 -> %lx, 0 -> %lx", reset, all, none);
}

/* ---- EL0 and AMUSERENR_EL0.EN ------------------------------------------------------------ */

static void el0_accesses(void)
{
	/* EN = 0: every register the VM has but AMUSERENR_EL0 traps to the guest's EL1 with
	 * EC 0x18 and the MRS's own syndrome, taken from EL0 (vector 8); AMUSERENR_EL0 reads. */
	set_userenr(0);
	uint64_t bad = 0, bad_undef = 0, v = 1;
	for (unsigned i = 0; i < NREGS; i++) {
		enum kind k = regs[i].kind;
		if (k == K_USERENR)
			continue;
		if (!exists(k)) {
			bad_undef |= (uint64_t)!undefined(i, true, false) << i;
			continue;
		}
		unsigned n = access_ec(i, true, false, 0, EC_SYS64, NULL);
		bool ok = n == 1 && g_last_vector == 8 && (g_last_esr >> 26) == EC_SYS64 &&
			  (g_last_esr & (1ul << 25)) &&
			  (g_last_esr & 0x3FFC1Ful) == iss_read(i);
		if (!ok)
			gprintf("amu: EL0 %s with EN 0: %u exceptions, vector %u, ESR %lx\n",
				regs[i].name, n, g_last_vector, g_last_esr);
		bad |= (uint64_t)!ok << i;
	}
	check(!bad,
	      "EL0, AMUSERENR_EL0.EN 0: every AMU register traps to EL1, EC 0x18, its ISS",
	      "%u not", bits(bad));
	list("EL0 read not UNDEFINED", bad_undef);
	check(!bad_undef, "EL0: the encodings the VM has not UNDEFINED (EC 0, from EL0)",
	      "%u not", bits(bad_undef));
	unsigned n = access_ec(R_AMUSERENR, true, false, 7, EC_SYS64, &v);
	check(n == 0 && v == 0, "EL0, EN 0: AMUSERENR_EL0 reads (0)", "%u traps, %lx", n, v);

	/* EN = 1: EL0 reads what EL1 reads; no MSR of EL0's is allowed, AMUSERENR_EL0's
	 * included (D24.6.15: "elsif PSTATE.EL == EL0 then UNDEFINED"). */
	set_userenr(1);
	bad = 0;
	for (unsigned i = 0; i < NREGS; i++) {
		enum kind k = regs[i].kind;
		if (!exists(k))
			continue;
		uint64_t el1 = 0, el0 = 0;
		if (k != K_CNT && k != K_CNT_TRAP)
			el1 = rd_el1(i);
		n = access_ec(i, true, false, 0, EC_SYS64, &el0);
		bool ok = n == 0 && (k == K_CNT || k == K_CNT_TRAP || el0 == el1);
		if (!ok)
			gprintf("amu: EL0 %s with EN 1: %u traps, %lx (EL1: %lx)\n",
				regs[i].name, n, el0, el1);
		bad |= (uint64_t)!ok << i;
	}
	check(!bad, "EL0, AMUSERENR_EL0.EN 1: every AMU register reads, as EL1 reads it",
	      "%u not", bits(bad));
	bad = 0;
	for (unsigned i = 0; i < NREGS; i++) {
		uint64_t val = regs[i].kind == K_CNT || regs[i].kind == K_CNT_TRAP ? 0 : ~0ul;
		bad |= (uint64_t) !(access_ec(i, true, true, val, EC_UNKNOWN, NULL) == 1 &&
				    g_last_vector == 8 && g_last_esr == (1ul << 25))
		       << i;
	}
	list("EL0 write not UNDEFINED", bad);
	uint64_t en = rd_el1(R_AMUSERENR);
	check(!bad && en == 1, "EL0, EN 1: every MSR UNDEFINED, AMUSERENR_EL0's included",
	      "%u not, EN now %lx", bits(bad), en);
	set_userenr(0);
}

/* ---- The counts -------------------------------------------------------------------------- */

/* Every counter at once, between two reads of the virtual counter (its ticks, under
 * -icount shift=0 the instructions of every EL, mark how long the reads took). */
struct snap {
	uint64_t vct0, cyc, cnt, inst, stall, a0, a1, a2, vct1;
};

static void snap(struct snap *s)
{
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\t"
			 "mrs %1, " CPU_CYCLES "\n\t"
			 "mrs %2, " CNT_CYCLES "\n\t"
			 "mrs %3, " INST_RETIRED "\n\t"
			 "mrs %4, " STALL_BACKEND_MEM "\n\t"
			 "mrs %5, " AUX0 "\n\t"
			 "mrs %6, " AUX1 "\n\t"
			 "mrs %7, " AUX2 "\n\t"
			 "isb\n\tmrs %8, cntvct_el0"
			 : "=&r"(s->vct0), "=&r"(s->cyc), "=&r"(s->cnt), "=&r"(s->inst),
			   "=&r"(s->stall), "=&r"(s->a0), "=&r"(s->a1), "=&r"(s->a2),
			   "=&r"(s->vct1)
			 :
			 : "memory");
	trap_fgt += 2; /* CNT_CYCLES, aux 2 */
	trap_tam += 7;
}

static uint64_t ns(uint64_t ticks)
{
	return ticks * 1000000000ul / cntfrq;
}

/* The counters at the guest's start are its own (docs/amu.md: "A vCPU's counters start at 0
 * at pv_vcpu_init"): what it ran before test_main (the library's start, the device tree:
 * about 25,000 instructions, and the EL2 work of its few traps), not what the CPU ran before
 * it (the hypervisor's boot, other VMs: the physical counters count from the CPU's reset).
 * Printed beside them, the virtual counter: under -icount shift=0 the nanoseconds, one an
 * instruction, the machine had run, millions here (the hypervisor's boot). */
#define START_MAX 200000ul
static void at_start(const struct snap *s)
{
	gprintf("amu: at start: cpu_cycles %lu, cnt_cycles %lu, inst_retired %lu, "
		"stall_backend_mem %lu, aux %lu,%lu,%lu; CNTVCT_EL0 %lu\n",
		s->cyc, s->cnt, s->inst, s->stall, s->a0, s->a1, s->a2, s->vct0);
	check(s->cyc < START_MAX && s->cnt < START_MAX && s->inst < START_MAX &&
		      s->stall < START_MAX && s->a0 < START_MAX && s->a1 < START_MAX &&
		      s->a2 < START_MAX && s->a1 > 0,
	      "at the start every counter is the VM's own (its EL1 start, under 200,000)",
	      "see the figures above");
	CHECK_EQ(s->a0, 0,
		 "at the start aux 0 (EL0 instructions) is 0: the VM ran nothing at EL0");
}

/* n rounds of SUBS and B.NE between two reads of a counter, at the EL that runs it: 2n
 * instructions between the two MRSs, and the first MRS where it is not trapped (exact()). */
#define WINDOW(reg)                                                                            \
	({                                                                                     \
		uint64_t a_, b_;                                                               \
		__asm__ volatile("mrs %0, " reg "\n"                                           \
				 "1:\tsubs %2, %2, #1\n\t"                                     \
				 "b.ne 1b\n\t"                                                 \
				 "mrs %1, " reg                                                \
				 : "=&r"(a_), "=&r"(b_), "+r"(n)                               \
				 :                                                             \
				 : "cc");                                                      \
		b_ - a_;                                                                       \
	})

static uint64_t window_aux1(uint64_t n)
{
	return WINDOW(AUX1);
}

/* Run at EL0 by run_el0. */
static uint64_t window_aux0(uint64_t n)
{
	return WINDOW(AUX0);
}

/* Run at EL0 by run_el0: 2n + 2 instructions at EL0 (the loop, RET, run_el0's SVC). */
uint64_t el0_spin(uint64_t n);
__asm__(".text\n.global el0_spin\nel0_spin:\n"
	"1:\tsubs x0, x0, #1\n\tb.ne 1b\n\tret\n");

static void spin_el1(uint64_t n)
{
	__asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n)::"cc");
}

/* Exactness: 2n + 1 on both paths. On the virtual-offset path the first MRS retires at
 * its EL, untrapped. On the trap path it traps to EL2, which emulates it and returns past
 * it; the model counts it at the EL that executed it all the same, as QEMU's instruction
 * count does a trapped MRS (docs/qemu.md, "QEMU 7.2 deviations") and as the Arm ARM allows
 * an event counting instructions architecturally executed to (D14, "A reasonable degree of
 * inaccuracy": "count instructions that do not form part of the Execution stream because
 * ... the instruction generates a synchronous exception"; INST_RETIRED is the PMU's,
 * D16.3.1). */
static void exact(void)
{
	uint64_t n = loop_n;
	uint64_t got = window_aux1(n);
	trap_tam += 2;
	gprintf("amu: EL1 loop of %lu rounds: aux 1 %lu\n", n, got);
	check(got == 2 * n + 1, "aux 1 (EL1 instructions) over a known EL1 loop: exact",
	      "got %lu, expected %lu", got, 2 * n + 1);

	set_userenr(1);
	got = run_el0(window_aux0, n);
	trap_tam += 2;
	set_userenr(0);
	gprintf("amu: EL0 loop of %lu rounds: aux 0 %lu\n", n, got);
	check(got == 2 * n + 1,
	      "aux 0 (EL0 instructions) over a known EL0 loop, read at EL0: exact",
	      "got %lu, expected %lu", got, 2 * n + 1);
}

/* The shortest a snap takes (no interrupt in it): what its reads cost alone. */
static uint64_t snap_quiet(void)
{
	uint64_t best = ~0ul;
	for (unsigned k = 0; k < 8; k++) {
		struct snap s;
		snap(&s);
		if (s.vct1 - s.vct0 < best)
			best = s.vct1 - s.vct0;
	}
	return best;
}

/* The EL2 instructions the hypervisor may add to INST_RETIRED at each slice boundary of the
 * wall clock while the vCPU is loaded: its tick interrupt, the end of a put and the start of
 * a load (about 950 a slice of the VM's own beside a busy VM, 300 a tick alone; the whole
 * switch, both vCPUs' halves, is docs/benchmarks.md's hyp.switch, about 1,350). */
#define EL2_PER_SLICE 2000ul

/* An EL1 loop, every counter around it. */
static void el1_window(void)
{
	struct snap a, b;
	uint64_t n = loop_n;
	snap(&a);
	spin_el1(n);
	snap(&b);
	uint64_t wall = ns(b.vct1 - a.vct0), run = ns(b.cnt - a.cnt), inst = b.inst - a.inst;
	uint64_t cyc = b.cyc - a.cyc, slices = wall / slice_ns + 2;
	uint64_t others = wall > run ? wall - run : 0, bound = EL2_PER_SLICE * slices;
	gprintf("amu: EL1 loop of %lu rounds: %lu ns of wall clock, CNT_CYCLES %lu (%lu ns), "
		"CPU_CYCLES %lu, INST_RETIRED %lu, STALL_BACKEND_MEM %lu, aux %lu,%lu,%lu\n",
		n, wall, b.cnt - a.cnt, run, cyc, inst, b.stall - a.stall, b.a0 - a.a0,
		b.a1 - a.a1, b.a2 - a.a2);
	gprintf("amu: INST_RETIRED over the loop's 2n: %lu; at most %lu slices of %lu ns: "
		"bound %lu; not the VM's (wall clock less its run time): %lu ns\n",
		inst - 2 * n, slices, slice_ns, bound, others);
	check(inst >= 2 * n && inst - 2 * n <= bound,
	      "INST_RETIRED over an EL1 loop: the loop and the hypervisor's work while loaded",
	      "%lu over the loop, bound %lu", inst - 2 * n, bound);
	if (busy)
		check(bound * 4 < others,
		      "INST_RETIRED's bound is far below what ran beside the loop (a busy VM)",
		      "bound %lu, beside %lu", bound, others);
	CHECK_EQ(b.stall - a.stall, 0, "STALL_BACKEND_MEM: none (the model never stalls)");
	CHECK_EQ(b.a0 - a.a0, 0, "aux 0 over an EL1 loop: no EL0 instruction");
	/* CNT_CYCLES is the vCPU's run time (docs/amu.md): alone, the wall clock less the
	 * few instants the pCPU spent outside it; beside a VM of equal slices, about half. A
	 * CNT_CYCLES counting the wall clock fails both. */
	if (busy)
		check(run * 4 >= wall && run * 4 <= wall * 3,
		      "CNT_CYCLES beside a busy VM: the vCPU's run time, about half the "
		      "wall clock",
		      "%lu of %lu ns", run, wall);
	else
		check(run <= wall && (wall - run) * 50 <= wall,
		      "CNT_CYCLES alone: the wall clock (within 2 %)", "%lu of %lu ns", run,
		      wall);
	/* The frequency a guest computes (docs/amu.md): under -icount shift=0 one instruction
	 * a nanosecond, and the model's core clock one cycle an instruction: 1000 MHz, alone or
	 * not; from a wall-clock CNT_CYCLES it would be the share of the pCPU it had. */
	uint64_t khz = run ? cyc * 1000000ul / run : 0;
	gprintf("amu: CPU_CYCLES / CNT_CYCLES: %lu kHz\n", khz);
	check(khz >= 990000 && khz <= 1010000,
	      "CPU_CYCLES over CNT_CYCLES: the core clock, 1000 MHz (within 1 %)", "%lu kHz",
	      khz);
}

/* INST_RETIRED counts every instruction the vCPU retired while loaded, at any EL; aux 0,
 * 1 and 2 each one EL's. Across a window with work at all three (EL1 calling an EL0 loop,
 * the hypervisor's traps and ticks), INST_RETIRED's delta is their sum's: the two ends read
 * the counters in the same order with the same code, so what lies between the read of
 * INST_RETIRED and those of the auxiliary counters is the same at both. Only EL2 work that
 * fell inside one end's reads and not the other's (a tick) can part them, by at most the
 * time each end took beyond the shortest (one instruction a nanosecond). */
static void sum_window(void)
{
	uint64_t quiet = snap_quiet(), n = loop_n;
	struct snap a, b;
	set_userenr(0);
	snap(&a);
	run_el0(el0_spin, n);
	snap(&b);
	uint64_t inst = b.inst - a.inst, a0 = b.a0 - a.a0, a1 = b.a1 - a.a1, a2 = b.a2 - a.a2;
	uint64_t sum = a0 + a1 + a2;
	uint64_t da = ns(a.vct1 - a.vct0), db = ns(b.vct1 - b.vct0), q = ns(quiet);
	uint64_t slack = (da > q ? da - q : 0) + (db > q ? db - q : 0);
	int64_t d = (int64_t)(inst - sum);
	gprintf("amu: EL0 loop of %lu rounds called from EL1: INST_RETIRED %lu, "
		"aux %lu + %lu + %lu = %lu (difference %ld; the reads took %lu and %lu ns, "
		"%lu at the least)\n",
		n, inst, a0, a1, a2, sum, (long)d, da, db, q);
	check((uint64_t)(d < 0 ? -d : d) <= slack,
	      "INST_RETIRED = aux 0 + aux 1 + aux 2 (EL0, EL1, EL2) over the same window",
	      "difference %ld, slack %lu", (long)d, slack);
	CHECK_EQ(a0, 2 * n + 2,
		 "aux 0 over an EL0 loop: its 2n + 2 instructions (loop, RET, SVC)");
}

void test_main(void)
{
	version = (unsigned)arg_num("amu.expect", 2);
	loop_n = arg_num("amu.loop", 2000000);
	slice_ns = arg_num("amu.slice_us", 1000) * 1000;
	busy = arg_num("amu.busy", 0) != 0;
	cntfrq = rd(cntfrq_el0);
	uint64_t pfr0 = rd(id_aa64pfr0_el1);
	struct snap start = {0};
	if (((pfr0 >> 44) & 0xf) && version)
		snap(&start); /* first: as near the VM's start as can be */
	gprintf("amu: ID_AA64PFR0_EL1 %lx, CNTFRQ_EL0 %lu\n", pfr0, cntfrq);
	CHECK_EQ((pfr0 >> 44) & 0xf, version,
		 version == 2   ? "ID_AA64PFR0_EL1.AMU: FEAT_AMUv1p1"
		 : version == 1 ? "ID_AA64PFR0_EL1.AMU: FEAT_AMUv1"
				: "ID_AA64PFR0_EL1.AMU: none");
	if (!version) {
		hidden();
		done();
	}
	if (!((pfr0 >> 44) & 0xf))
		done();
	at_start(&start);
	exact();
	el1_window();
	sum_window();
	identification();
	el1_accesses();
	userenr_el1();
	el0_accesses();
	gprintf("amu: traps: %lu reads of CNT_CYCLES and auxiliary counter 2, %lu accesses "
		"CPTR_EL2.TAM traps, %lu of them from EL0 with AMUSERENR_EL0.EN 0\n",
		trap_fgt, trap_tam, trap_el1);
	done();
}
