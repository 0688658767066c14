/* SPDX-License-Identifier: MIT */
/*
 * The vCPU state beyond EL1_REGS (hyp.h) that a guest can write and that would otherwise
 * carry from one VM to the next: the self-hosted debug registers (breakpoints, watchpoints,
 * OS lock, OS double lock, MDCCINT; Arm ARM D2 and D24.3), and the registers of features the
 * VMs do not see but the CPU has, which hiding them in the ID registers does not trap:
 * TPIDR2_EL0 (FEAT_SME) and DISR_EL1 (FEAT_RAS; with HCR_EL2.AMO the guest's DISR_EL1 is
 * VDISR_EL2). Every VM's values are its own.
 *
 * The debug registers are switched lazily, as KVM does: until a vCPU first touches one,
 * MDCR_EL2.TDA and TDOSA trap its accesses (so it can read nothing another VM left there)
 * and nothing is switched for it (its MDSCR_EL1, switched with EL1_REGS, has never been
 * written, so breakpoints and watchpoints another VM left armed raise nothing for it: MDE and
 * KDE are 0). Its first access loads its debug state, untraps it, and runs the instruction
 * again; from then on its debug state is saved and restored at every switch. TPIDR2_EL0 and
 * VDISR_EL2 are always switched. Not switched: the claim tags (DBGCLAIMSET/CLR_EL1),
 * DBGPRCR_EL1, the debug communications channel and OSECCR_EL1, which QEMU 7.2 does not
 * implement or keeps no state in (docs/security.md); a host on hardware switches them too.
 */
#include "hyp.h"

/* Debug register encodings: DBGBVR<n>_EL1 = S2_0_C0_C<n>_4, DBGBCR<n> _5, DBGWVR<n> _6,
 * DBGWCR<n> _7. */
/* clang-format off */
#define DBG_EACH(X)                                                                              \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
/* clang-format on */
#define OSLAR_EL1 S2_0_C1_C0_4
#define OSLSR_EL1 S2_0_C1_C1_4
#define OSDLR_EL1 S2_0_C1_C3_4
#define MDCCINT_EL1 S2_0_C0_C2_0
#define TPIDR2_EL0 S3_3_C13_C0_5
#define VDISR_EL2 S3_4_C12_C1_1
#define OSLSR_OSLK (1ul << 1)

static struct {
	unsigned brps, wrps; /* breakpoints and watchpoints (ID_AA64DFR0_EL1.BRPs/WRPs + 1) */
	bool sme, ras;
} cpu;

void vcpu_regs_probe(void)
{
	uint64_t dfr0 = read_sysreg(id_aa64dfr0_el1);
	cpu.brps = (unsigned)((dfr0 >> 12) & 0xF) + 1;
	cpu.wrps = (unsigned)((dfr0 >> 20) & 0xF) + 1;
	cpu.sme = ((read_sysreg(id_aa64pfr1_el1) >> 24) & 0xF) != 0;
	cpu.ras = ((read_sysreg(id_aa64pfr0_el1) >> 28) & 0xF) != 0;
	hyp_printf("hyp: switched per vCPU: %u breakpoints, %u watchpoints, OS lock, OS double "
		   "lock%s%s\n",
		   cpu.brps, cpu.wrps, cpu.sme ? ", TPIDR2_EL0" : "",
		   cpu.ras ? ", DISR_EL1" : "");
}

/* A vCPU's registers before its first load: their reset values. The OS lock is locked at
 * cold reset (OSLSR_EL1.OSLK, Arm ARM D24.3.28), so a guest unlocks it as on hardware. */
void vcpu_regs_init(struct vcpu *v)
{
	memset(&v->dbg, 0, sizeof(v->dbg));
	v->dbg.oslsr = OSLSR_OSLK;
}

static void debug_save(struct dbg_regs *d)
{
	/* The double lock first, cleared so that nothing below depends on it; the OS lock
	 * gates no access from EL2 and is only read. */
	d->osdlr = read_sysreg(OSDLR_EL1);
	if (d->osdlr)
		write_sysreg(OSDLR_EL1, 0ul);
	d->oslsr = read_sysreg(OSLSR_EL1);
	isb();
#define SAVE_PAIR(n)                                                                           \
	if ((n) < cpu.brps) {                                                                  \
		d->bvr[n] = read_sysreg(S2_0_C0_C##n##_4);                                     \
		d->bcr[n] = read_sysreg(S2_0_C0_C##n##_5);                                     \
	}                                                                                      \
	if ((n) < cpu.wrps) {                                                                  \
		d->wvr[n] = read_sysreg(S2_0_C0_C##n##_6);                                     \
		d->wcr[n] = read_sysreg(S2_0_C0_C##n##_7);                                     \
	}
	DBG_EACH(SAVE_PAIR)
#undef SAVE_PAIR
	d->mdccint = read_sysreg(MDCCINT_EL1);
}

static void debug_restore(const struct dbg_regs *d)
{
	/* Everything with both locks open, then the vCPU's locks last. */
	write_sysreg(OSDLR_EL1, 0ul);
	write_sysreg(OSLAR_EL1, 0ul);
	isb();
#define RESTORE_PAIR(n)                                                                        \
	if ((n) < cpu.brps) {                                                                  \
		write_sysreg(S2_0_C0_C##n##_4, d->bvr[n]);                                     \
		write_sysreg(S2_0_C0_C##n##_5, d->bcr[n]);                                     \
	}                                                                                      \
	if ((n) < cpu.wrps) {                                                                  \
		write_sysreg(S2_0_C0_C##n##_6, d->wvr[n]);                                     \
		write_sysreg(S2_0_C0_C##n##_7, d->wcr[n]);                                     \
	}
	DBG_EACH(RESTORE_PAIR)
#undef RESTORE_PAIR
	write_sysreg(MDCCINT_EL1, d->mdccint);
	write_sysreg(OSLAR_EL1, (d->oslsr & OSLSR_OSLK) ? 1ul : 0ul);
	write_sysreg(OSDLR_EL1, d->osdlr & 1);
	isb();
}

/* MDCR_EL2 bits of the vCPU: its debug accesses trap until its first one. */
uint64_t vcpu_regs_mdcr(const struct vcpu *v)
{
	return v->dbg_live ? 0 : MDCR_EL2_TDA | MDCR_EL2_TDOSA;
}

/* A trapped debug register access (Op0 = 2, Op1 = 0 or 3: what TDA and TDOSA trap): the
 * vCPU's first. Its state goes into the hardware, the traps come off, and the instruction
 * runs again (ELR_EL2 is left as it is). false: not the first (the traps were off), so the
 * caller answers it as any register it does not know. */
bool vcpu_regs_debug_trap(struct vcpu *v)
{
	if (v->dbg_live)
		return false;
	v->dbg_live = true;
	debug_restore(&v->dbg);
	write_sysreg(mdcr_el2, read_sysreg(mdcr_el2) & ~(MDCR_EL2_TDA | MDCR_EL2_TDOSA));
	isb();
	return true;
}

void vcpu_regs_save(struct vcpu *v)
{
	if (v->dbg_live)
		debug_save(&v->dbg);
	if (cpu.sme)
		v->tpidr2 = read_sysreg(TPIDR2_EL0);
	if (cpu.ras)
		v->vdisr = read_sysreg(VDISR_EL2);
}

void vcpu_regs_restore(const struct vcpu *v)
{
	if (v->dbg_live)
		debug_restore(&v->dbg);
	if (cpu.sme)
		write_sysreg(TPIDR2_EL0, v->tpidr2);
	if (cpu.ras)
		write_sysreg(VDISR_EL2, v->vdisr);
}
