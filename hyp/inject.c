/* SPDX-License-Identifier: MIT */
/*
 * Synchronous exceptions injected into the guest's EL1, as the hardware would take them
 * (Arm ARM D1.4.2, "Exception entry"): ESR_EL1, ELR_EL1 (the faulting instruction), SPSR_EL1
 * (the interrupted PSTATE), FAR_EL1 for aborts, and PC = VBAR_EL1 + the vector offset of the
 * source, and the PSTATE of the entry (el2/el1_entry.h). Called for the current (loaded) vCPU
 * only.
 */
#include "el1_entry.h"
#include "hyp.h"

void inject_sync(struct vcpu *v, uint64_t esr, uint64_t far, bool set_far)
{
	struct frame *f = &v->f;
	write_sysreg(S3_0_C5_C2_0, esr);     /* ESR_EL1 */
	write_sysreg(S3_0_C4_C0_1, f->elr);  /* ELR_EL1 */
	write_sysreg(S3_0_C4_C0_0, f->spsr); /* SPSR_EL1 */
	if (set_far)
		write_sysreg(S3_0_C6_C0_0, far); /* FAR_EL1 */
	uint64_t vector = el1_sync_vector(f->spsr);
	f->spsr = el1_sync_pstate(f->spsr, read_sysreg(S3_0_C1_C0_0)); /* SCTLR_EL1 */
	f->elr = read_sysreg(S3_0_C12_C0_0) + vector;                  /* VBAR_EL1 */
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
