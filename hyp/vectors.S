/* SPDX-License-Identifier: MIT */
/*
 * EL2 exception vectors (Arm ARM D1.4.1.6, exception vectors). While a guest runs, SP_EL2
 * points at its vCPU's struct frame, so an exception from the guest (lower EL, AArch64) saves
 * x0..x30, ELR_EL2 and SPSR_EL2 straight into it, moves to the hypervisor's stack, calls the
 * C handler with the frame, and returns through guest_enter (enter.S) with the frame the
 * handler returns (another vCPU's after a switch). Exceptions taken at EL2 itself are hypervisor bugs:
 * they are reported and the machine is powered off.
 */
#include "frame.h"

	.macro	save_guest
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	mrs	x0, elr_el2
	mrs	x1, spsr_el2
	stp	x30, x0, [sp, #FRAME_X30]
	str	x1, [sp, #FRAME_SPSR]
	mov	x0, sp
	adrp	x1, hyp_stack_top
	add	x1, x1, :lo12:hyp_stack_top
	mov	sp, x1
	.endm

/* A lower-EL vector: the whole entry fits its 0x80 bytes (25 instructions of 32). */
	.macro	ventry handler
	.balign	0x80
	save_guest
	bl	\handler
	b	guest_enter
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
	ventry	exc_lower_sync	/* lower EL, AArch64 */
	ventry	exc_lower_irq
	ventry	exc_lower_irq	/* FIQ: no group 0 sources; treated like IRQ */
	ventry	exc_lower_serror
	cur_entry 12		/* lower EL, AArch32: guests run AArch64 (HCR_EL2.RW = 1) */
	cur_entry 13
	cur_entry 14
	cur_entry 15
