/* SPDX-License-Identifier: MIT */
/*
 * Synchronous exceptions injected into the guest's EL1, as the hardware would take them
 * (Arm ARM D1.4.2, "Exception entry"): ESR_EL1, ELR_EL1 (the faulting instruction), SPSR_EL1
 * (the interrupted PSTATE), FAR_EL1 for aborts, and PC = VBAR_EL1 + the vector offset of the
 * source: 0x000 from EL1t, 0x200 from EL1h, 0x400 from AArch64 EL0, 0x600 from AArch32 EL0.
 * PSTATE becomes EL1h with D, A, I, F masked; PAN is set when SCTLR_EL1.SPAN is 0, SSBS takes
 * SCTLR_EL1.DSSBS. Called for the current (loaded) vCPU only.
 */
#include "hyp.h"

#define SPSR_M_MASK 0x1Ful
#define SPSR_EL1H 0x5ul
#define SPSR_DAIF (0xFul << 6)
#define SPSR_PAN (1ul << 22)
#define SPSR_SSBS (1ul << 12)
#define SCTLR_SPAN (1ul << 23)
#define SCTLR_DSSBS (1ul << 44)

void inject_sync(struct vcpu *v, uint64_t esr, uint64_t far, bool set_far)
{
	struct frame *f = &v->f;
	uint64_t spsr = f->spsr, off;
	if (spsr & 0x10)
		off = 0x600; /* AArch32 (EL0 only: EL1 is AArch64) */
	else if ((spsr & 0xC) == 0)
		off = 0x400; /* AArch64 EL0 */
	else if (spsr & 1)
		off = 0x200; /* EL1h */
	else
		off = 0x000;                /* EL1t */
	write_sysreg(S3_0_C5_C2_0, esr);    /* ESR_EL1 */
	write_sysreg(S3_0_C4_C0_1, f->elr); /* ELR_EL1 */
	write_sysreg(S3_0_C4_C0_0, spsr);   /* SPSR_EL1 */
	if (set_far)
		write_sysreg(S3_0_C6_C0_0, far); /* FAR_EL1 */
	uint64_t sctlr = read_sysreg(S3_0_C1_C0_0);
	uint64_t pstate = SPSR_EL1H | SPSR_DAIF;
	if (!(sctlr & SCTLR_SPAN))
		pstate |= SPSR_PAN;
	else
		pstate |= spsr & SPSR_PAN;
	if (sctlr & SCTLR_DSSBS)
		pstate |= SPSR_SSBS;
	f->spsr = pstate;
	f->elr = read_sysreg(S3_0_C12_C0_0) + off; /* VBAR_EL1 */
}

/* Undefined Instruction: EC 0x00, IL = 1 (Arm ARM D24.2, ESR_ELx.EC == 0b000000). */
void inject_undef(struct vcpu *v)
{
	v->injected_undef++;
	inject_sync(v, PV_ESR_IL, 0, false);
}

/* Synchronous External Abort (DFSC/IFSC 0b010000), to the same EL (EC 0x21/0x25) or from EL0
 * (EC 0x20/0x24); for data aborts WnR is reported. */
void inject_abort(struct vcpu *v, bool data, uint64_t far, bool wnr)
{
	bool from_el0 = (v->f.spsr & 0x1C) == 0;
	uint64_t ec = data ? (from_el0 ? 0x24 : 0x25) : (from_el0 ? 0x20 : 0x21);
	uint64_t esr = ec << PV_ESR_EC_SHIFT | PV_ESR_IL | 0x10;
	if (data && wnr)
		esr |= 1ul << 6;
	v->injected_abort++;
	inject_sync(v, esr, far, true);
}
