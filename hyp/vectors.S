/* SPDX-License-Identifier: MIT */
/*
 * EL2 exception vectors (Arm ARM D1.10.2, vector table offsets). Exceptions from the guest
 * (lower EL, AArch64) save x0..x30, ELR_EL2 and SPSR_EL2 into the current vCPU's struct frame
 * (TPIDR_EL2), call the C handler, and return through guest_enter with the frame the handler
 * returns (another vCPU's after a switch). Exceptions taken at EL2 itself are hypervisor bugs:
 * they are reported and the machine is powered off.
 */
#define FRAME_ELR (31 * 8)

	.macro	save_guest
	stp	x0, x1, [sp, #-16]!
	mrs	x0, tpidr_el2
	stp	x2, x3, [x0, #16]
	stp	x4, x5, [x0, #32]
	stp	x6, x7, [x0, #48]
	stp	x8, x9, [x0, #64]
	stp	x10, x11, [x0, #80]
	stp	x12, x13, [x0, #96]
	stp	x14, x15, [x0, #112]
	stp	x16, x17, [x0, #128]
	stp	x18, x19, [x0, #144]
	stp	x20, x21, [x0, #160]
	stp	x22, x23, [x0, #176]
	stp	x24, x25, [x0, #192]
	stp	x26, x27, [x0, #208]
	stp	x28, x29, [x0, #224]
	str	x30, [x0, #240]
	ldp	x2, x3, [sp], #16
	stp	x2, x3, [x0, #0]
	mrs	x1, elr_el2
	mrs	x2, spsr_el2
	stp	x1, x2, [x0, #FRAME_ELR]
	.endm

	.macro	ventry label
	.balign	0x80
	b	\label
	.endm

	.macro	cur_entry kind
	.balign	0x80
	mov	x0, #\kind
	mrs	x1, esr_el2
	mrs	x2, elr_el2
	mrs	x3, far_el2
	bl	exc_current
	b	.
	.endm

	.text
	.balign	0x800
	.global	hyp_vectors
hyp_vectors:
	cur_entry 0	/* current EL, SP0: sync */
	cur_entry 1	/* irq */
	cur_entry 2	/* fiq */
	cur_entry 3	/* serror */
	cur_entry 4	/* current EL, SPx: sync */
	cur_entry 5
	cur_entry 6
	cur_entry 7
	ventry	lower_sync	/* lower EL, AArch64 */
	ventry	lower_irq
	ventry	lower_irq	/* FIQ: no group 0 sources; treated like IRQ */
	ventry	lower_serror
	cur_entry 12		/* lower EL, AArch32: guests run AArch64 (HCR_EL2.RW = 1) */
	cur_entry 13
	cur_entry 14
	cur_entry 15

lower_sync:
	save_guest
	bl	exc_lower_sync
	b	guest_enter

lower_irq:
	save_guest
	bl	exc_lower_irq
	b	guest_enter

lower_serror:
	save_guest
	bl	exc_lower_serror
	b	guest_enter

/* guest_enter(struct frame *f): resume the vCPU whose frame is f. Resets the EL2 stack. */
	.global	guest_enter
guest_enter:
	adrp	x1, hyp_stack_top
	add	x1, x1, :lo12:hyp_stack_top
	mov	sp, x1
	msr	tpidr_el2, x0
	ldp	x1, x2, [x0, #FRAME_ELR]
	msr	elr_el2, x1
	msr	spsr_el2, x2
	ldp	x2, x3, [x0, #16]
	ldp	x4, x5, [x0, #32]
	ldp	x6, x7, [x0, #48]
	ldp	x8, x9, [x0, #64]
	ldp	x10, x11, [x0, #80]
	ldp	x12, x13, [x0, #96]
	ldp	x14, x15, [x0, #112]
	ldp	x16, x17, [x0, #128]
	ldp	x18, x19, [x0, #144]
	ldp	x20, x21, [x0, #160]
	ldp	x22, x23, [x0, #176]
	ldp	x24, x25, [x0, #192]
	ldp	x26, x27, [x0, #208]
	ldp	x28, x29, [x0, #224]
	ldr	x30, [x0, #240]
	ldp	x0, x1, [x0, #0]
	eret
