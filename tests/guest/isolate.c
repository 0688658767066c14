/* SPDX-License-Identifier: MIT */
/*
 * Nothing a VM writes to a register is seen by another. Run as two VMs (isoA, isoB) that
 * share the CPU with short slices: each writes its own pattern to every writable EL0/EL1
 * system register on the list below that this CPU gives it (the ID registers say which
 * debug registers exist; optional ones are probed, an UNDEF meaning absent), spins across
 * several slices, so that the other VM writes its pattern in between, and reads them all
 * back: each must hold what this VM wrote. The two VMs' patterns differ in every bit (B's is
 * A's complement), so a register the hypervisor does not switch shows the other VM's value.
 * Registers the hypervisor traps (the PMU's) are on the list too. VBAR_EL1 and CPACR_EL1 are
 * safe to write here (no exception is taken while the patterns are in place, and the guest
 * uses no FP/SIMD) and are given back at the end; SCTLR_EL1 is the one writable EL1 register
 * not on the list: it controls the MMU, caches and alignment the test itself runs under. A third program, isoR,
 * scheduled after isoA and reading before it writes, must see none of isoA's values: a VM
 * that never touched a register (the debug registers are switched only once a VM touches
 * them) cannot read what another left there. Masks keep each write
 * harmless: breakpoints and watchpoints stay disabled (E = 0), the virtual timer disabled,
 * no debug exception enabled. MDCCINT_EL1 is not on the list: QEMU 7.2 keeps no state for it
 * (an MRS of it leaves its register unchanged), though the hypervisor switches it.
 */
#include "pmu.h"

enum kind { ALWAYS, OPTIONAL, BREAKPOINT, WATCHPOINT };

#define VA_MASK 0x0001FFFFFFFFFFFCul /* DBGBVR/DBGWVR: a VA, word aligned */
#define CTRL_MASK 0xFFFFFFFEul       /* DBGBCR/DBGWCR: everything but E */
#define ALL ~0ul

/* name, encoding, mask of the bits written, kind, debug register number */
#define DBG_N(X, n)                                                                            \
	X(dbgbvr##n, S2_0_C0_C##n##_4, VA_MASK, BREAKPOINT, n)                                 \
	X(dbgbcr##n, S2_0_C0_C##n##_5, CTRL_MASK, BREAKPOINT, n)                               \
	X(dbgwvr##n, S2_0_C0_C##n##_6, VA_MASK, WATCHPOINT, n)                                 \
	X(dbgwcr##n, S2_0_C0_C##n##_7, CTRL_MASK, WATCHPOINT, n)
/* clang-format off */
#define DBG_ALL(X)                                                                               \
	DBG_N(X, 0) DBG_N(X, 1) DBG_N(X, 2) DBG_N(X, 3) DBG_N(X, 4) DBG_N(X, 5) DBG_N(X, 6)      \
	DBG_N(X, 7) DBG_N(X, 8) DBG_N(X, 9) DBG_N(X, 10) DBG_N(X, 11) DBG_N(X, 12)               \
	DBG_N(X, 13) DBG_N(X, 14) DBG_N(X, 15)
/* clang-format on */
#define REGS(X)                                                                                \
	X(tpidr_el0, S3_3_C13_C0_2, ALL, ALWAYS, 0)                                            \
	X(tpidrro_el0, S3_3_C13_C0_3, ALL, ALWAYS, 0)                                          \
	X(tpidr_el1, S3_0_C13_C0_4, ALL, ALWAYS, 0)                                            \
	X(tpidr2_el0, S3_3_C13_C0_5, ALL, OPTIONAL, 0)                                         \
	X(scxtnum_el0, S3_3_C13_C0_7, ALL, OPTIONAL, 0)                                        \
	X(scxtnum_el1, S3_0_C13_C0_7, ALL, OPTIONAL, 0)                                        \
	X(contextidr_el1, S3_0_C13_C0_1, 0xFFFFFFFFul, ALWAYS, 0)                              \
	X(far_el1, S3_0_C6_C0_0, ALL, ALWAYS, 0)                                               \
	X(esr_el1, S3_0_C5_C2_0, 0xFFFFFFFFul, ALWAYS, 0)                                      \
	X(elr_el1, S3_0_C4_C0_1, ALL, ALWAYS, 0)                                               \
	X(spsr_el1, S3_0_C4_C0_0, 0xF00003C5ul, ALWAYS, 0)                                     \
	X(sp_el0, S3_0_C4_C1_0, ALL, ALWAYS, 0)                                                \
	X(par_el1, S3_0_C7_C4_0, ALL, ALWAYS, 0)                                               \
	X(afsr0_el1, S3_0_C5_C1_0, ALL, ALWAYS, 0)                                             \
	X(afsr1_el1, S3_0_C5_C1_1, ALL, ALWAYS, 0)                                             \
	X(mair_el1, S3_0_C10_C2_0, ALL, ALWAYS, 0)                                             \
	X(amair_el1, S3_0_C10_C3_0, ALL, ALWAYS, 0)                                            \
	X(tcr_el1, S3_0_C2_C0_2, 0xFFFFFFFFul, ALWAYS, 0)                                      \
	X(ttbr0_el1, S3_0_C2_C0_0, ALL, ALWAYS, 0)                                             \
	X(ttbr1_el1, S3_0_C2_C0_1, ALL, ALWAYS, 0)                                             \
	X(cntkctl_el1, S3_0_C14_C1_0, 0x3FFul, ALWAYS, 0)                                      \
	X(csselr_el1, S3_2_C0_C0_0, 0x1ul, ALWAYS, 0)                                          \
	X(cntv_ctl_el0, S3_3_C14_C3_1, 0x2ul, ALWAYS, 0)                                       \
	X(cntv_cval_el0, S3_3_C14_C3_2, ALL, ALWAYS, 0)                                        \
	X(mdscr_el1, S2_0_C0_C2_2, 0x1000ul, ALWAYS, 0)                                        \
	X(disr_el1, S3_0_C12_C1_1, 0x80FFFFFFul, OPTIONAL, 0)                                  \
	X(osdtrrx_el1, S2_0_C0_C0_2, 0xFFFFFFFFul, OPTIONAL, 0)                                \
	X(osdtrtx_el1, S2_0_C0_C3_2, 0xFFFFFFFFul, OPTIONAL, 0)                                \
	X(oseccr_el1, S2_0_C0_C6_2, 0xFFFFFFFFul, OPTIONAL, 0)                                 \
	X(icc_pmr_el1, S3_0_C4_C6_0, 0xFFul, ALWAYS, 0)                                        \
	X(icc_igrpen1_el1, S3_0_C12_C12_7, 0x1ul, ALWAYS, 0)                                   \
	X(vbar_el1, S3_0_C12_C0_0, 0x3FFFFF800ul, ALWAYS, 0)                                   \
	X(cpacr_el1, S3_0_C1_C0_2, 0x00330000ul, ALWAYS, 0)                                    \
	X(actlr_el1, S3_0_C1_C0_1, ALL, OPTIONAL, 0)                                           \
	X(pmcr_el0, S3_3_C9_C12_0, 0x48ul, ALWAYS, 0)                                          \
	X(pmselr_el0, S3_3_C9_C12_5, 0x1Ful, ALWAYS, 0)                                        \
	X(pmuserenr_el0, S3_3_C9_C14_0, 0xFul, ALWAYS, 0)                                      \
	X(pmccfiltr_el0, S3_3_C14_C15_7, 0xF8000000ul, ALWAYS, 0)                              \
	X(pmevtyper0_el0, S3_3_C14_C12_0, 0xF80003FFul, ALWAYS, 0)                             \
	X(pmevcntr0_el0, S3_3_C14_C8_0, 0xFFFFFFFFul, ALWAYS, 0)                               \
	DBG_ALL(X)

#define FNS(name, enc, mask, kind, n)                                                          \
	static uint64_t rd_##name(void)                                                        \
	{                                                                                      \
		return rd(enc);                                                                \
	}                                                                                      \
	static void wr_##name(uint64_t x)                                                      \
	{                                                                                      \
		wr(enc, x);                                                                    \
		isb();                                                                         \
	}
REGS(FNS)

struct reg {
	const char *name;
	uint64_t mask;
	enum kind kind;
	unsigned n;
	uint64_t (*read)(void);
	void (*write)(uint64_t);
};
#define ENTRY(name, enc, mask, kind, n)                                                        \
	{"isolate: " #name, mask, kind, n, rd_##name, wr_##name},
static const struct reg regs[] = {REGS(ENTRY)};
#define NREGS (sizeof(regs) / sizeof(regs[0]))

static bool present[NREGS];
static uint64_t wrote[NREGS];
static unsigned mismatches[NREGS];

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xFF51AFD7ED558CCDul;
	x ^= x >> 33;
	x *= 0xC4CEB9FE1A85EC53ul;
	return x ^ (x >> 33);
}

/* Which registers exist: debug ones by the ID registers, optional ones by an access that
 * does not UNDEF (probed before any pattern is written: an exception changes ESR, FAR,
 * ELR and SPSR). */
static void find_registers(void)
{
	uint64_t dfr0 = rd(id_aa64dfr0_el1);
	unsigned brps = (unsigned)((dfr0 >> 12) & 0xF) + 1,
		 wrps = (unsigned)((dfr0 >> 20) & 0xF) + 1;
	unsigned n = 0;
	for (unsigned i = 0; i < NREGS; i++) {
		const struct reg *r = &regs[i];
		if (r->kind == BREAKPOINT)
			present[i] = r->n < brps;
		else if (r->kind == WATCHPOINT)
			present[i] = r->n < wrps;
		else if (r->kind == OPTIONAL)
			present[i] = UNDEFS((void)r->read()) == 0;
		else
			present[i] = true;
		n += present[i];
		if (r->kind == OPTIONAL)
			gprintf("isolate: %s: %s\n", r->name, present[i] ? "there" : "UNDEF");
	}
	gprintf("isolate: %u of %u registers on the list are there (%u breakpoints, %u "
		"watchpoints)\n",
		n, (unsigned)NREGS, brps, wrps);
}

static void run(void);

/* isoR: every register read first; then isoA's first pattern written here and read back,
 * which is what the register keeps of it (a register may change what it is given: QEMU's
 * DBGBCR copies BAS bits); what isoR read first must not be that. */
static void read_after_other(void)
{
	static uint64_t seen[NREGS];
	for (unsigned i = 0; i < NREGS; i++)
		if (present[i])
			seen[i] = regs[i].read();
	unsigned checked = 0;
	for (unsigned i = 0; i < NREGS; i++) {
		if (!present[i])
			continue;
		regs[i].write(mix(i) & regs[i].mask); /* isoA's round 0 */
		uint64_t theirs = regs[i].read();
		check(!theirs || seen[i] != theirs, regs[i].name, "reads %lx, what isoA wrote",
		      seen[i]);
		checked++;
	}
	gprintf("isolate: %u registers read after another VM wrote them\n", checked);
}

void test_main(void)
{
	uint64_t vbar = rd(vbar_el1), cpacr = rd(cpacr_el1), igrpen = rd(S3_0_C12_C12_7);
	run();
	wr(vbar_el1, vbar);
	wr(cpacr_el1, cpacr);
	wr(S3_0_C12_C12_7, igrpen);
	isb();
}

static void run(void)
{
	const char *name = dt_vm_name();
	if (name && name[3] == 'R') {
		find_registers();
		spin(100000); /* isoA has written its round 0 by now: it spins 200000 in it */
		read_after_other();
		return;
	}
	uint64_t flip = name && name[3] == 'B' ? ~0ul : 0; /* isoB writes isoA's complement */
	find_registers();
	wr(oslar_el1, 0ul); /* the OS lock is locked at reset: open it, like any OS */
	isb();
	bool oslock_ok = true;
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned i = 0; i < NREGS; i++)
			if (present[i]) {
				regs[i].write((mix(round * 1000u + i) ^ flip) & regs[i].mask);
				wrote[i] = regs[i].read(); /* what the register keeps of it */
			}
		/* The OS lock, as a lock state: isoA locked in odd rounds, isoB in even ones. */
		uint64_t lock = (round & 1) ^ (flip & 1);
		wr(oslar_el1, lock);
		isb();
		spin(200000); /* several slices: the other VM writes its values meanwhile */
		oslock_ok &= ((rd(oslsr_el1) >> 1) & 1) == lock;
		wr(oslar_el1, 0ul);
		isb();
		for (unsigned i = 0; i < NREGS; i++)
			if (present[i] && regs[i].read() != wrote[i] && !mismatches[i]++)
				gprintf("isolate: round %u: %s reads %lx, this VM wrote %lx\n",
					round, regs[i].name, regs[i].read(), wrote[i]);
	}
	unsigned checked = 0;
	for (unsigned i = 0; i < NREGS; i++)
		if (present[i]) {
			check(mismatches[i] == 0, regs[i].name,
			      "%u of 4 rounds read another value", mismatches[i]);
			checked++;
		}
	CHECK(oslock_ok, "isolate: OS lock: each VM keeps its own lock state");
	gprintf("isolate: %u registers checked over 4 rounds\n", checked);
}
