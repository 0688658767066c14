/* SPDX-License-Identifier: MIT */
/*
 * Guest entry (Linux arm64 boot protocol: x0 = DTB, EL1h, MMU off), the EL1 vector table and
 * the EL0 runner. Every exception saves x0..x30, ELR, SPSR into a frame on the EL1 stack and
 * calls guest_exception(frame, vector); an SVC from EL0 ends run_el0 instead.
 */
	.section .text.boot, "ax"
	.global	_start
_start:
	/* The arm64 Image header (Linux Documentation/arch/arm64/booting.rst): the test guests
	 * are loadable like any kernel image. */
	b	1f			/* code0 */
	nop				/* code1 */
	.quad	0x200000		/* text_offset: 2 MiB into RAM, where it is linked */
	.quad	__image_end - _start	/* image_size */
	.quad	0x8			/* flags: LE, any page size, anywhere in RAM */
	.quad	0, 0, 0			/* res2..res4 */
	.ascii	"ARM\x64"		/* magic */
	.long	0			/* res5 */
1:	adrp	x1, el1_stack_top
	add	x1, x1, :lo12:el1_stack_top
	mov	sp, x1
	adrp	x1, guest_vectors
	add	x1, x1, :lo12:guest_vectors
	msr	vbar_el1, x1
	isb
	mov	x19, x0
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, __bss_end
	add	x2, x2, :lo12:__bss_end
1:	cmp	x1, x2
	b.hs	2f
	str	xzr, [x1], #8
	b	1b
2:	mov	x0, x19
	bl	guest_start
3:	b	3b

	.macro	save_frame vec
	sub	sp, sp, #(34 * 8)
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
	mrs	x1, elr_el1
	mrs	x2, spsr_el1
	stp	x30, x1, [sp, #240]
	str	x2, [sp, #256]
	mov	x0, sp
	mov	x1, #\vec
	bl	guest_exception
	ldp	x30, x1, [sp, #240]
	ldr	x2, [sp, #256]
	msr	elr_el1, x1
	msr	spsr_el1, x2
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	add	sp, sp, #(34 * 8)
	eret
	.endm

	.macro	vent vec
	.balign	0x80
	b	vec_\vec
	.endm

	.text
	.balign	0x800
	.global	guest_vectors
guest_vectors:
	vent	0	/* EL1t sync */
	vent	1
	vent	2
	vent	3
	vent	4	/* EL1h sync */
	vent	5	/* EL1h irq */
	vent	6
	vent	7
	.balign	0x80	/* EL0 (AArch64) sync: an SVC ends run_el0 */
	stp	x9, x10, [sp, #-16]!
	mrs	x9, esr_el1
	lsr	x9, x9, #26
	cmp	x9, #0x15
	b.eq	el0_svc
	ldp	x9, x10, [sp], #16
	b	el0_sync
	vent	9	/* EL0 irq */
	vent	10
	vent	11
	vent	12	/* AArch32 EL0 */
	vent	13
	vent	14
	vent	15
el0_sync:
	save_frame 8
	.irp	v, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15
vec_\v:
	save_frame \v
	.endr

/* run_el0_end: where an SVC from AArch32 EL0 resumes at EL1h (guest.c), ending run_el0 or
 * run_el0_a32 with its x0, as the AArch64 SVC above does (the stack is the saved one). */
	.global	run_el0_end
run_el0_end:
el0_svc:
	add	sp, sp, #16
	adrp	x9, el1_saved_sp
	ldr	x9, [x9, :lo12:el1_saved_sp]
	mov	sp, x9
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	add	sp, sp, #96
	ret

/* EL1's callee-saved registers and stack pointer, kept for el0_svc (run_el0_end) to give
 * back when the EL0 code ends. */
	.macro	save_el1_context
	sub	sp, sp, #96
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	mov	x9, sp
	adrp	x10, el1_saved_sp
	str	x9, [x10, :lo12:el1_saved_sp]
	.endm

/* uint64_t run_el0(uint64_t (*fn)(uint64_t), uint64_t arg): runs fn(arg) at EL0t (IRQs
 * masked) and returns its result once it executes `svc #0` (el0_exit). */
	.global	run_el0
run_el0:
	save_el1_context
	adrp	x9, el0_stack_top
	add	x9, x9, :lo12:el0_stack_top
	msr	sp_el0, x9
	msr	elr_el1, x0
	mov	x9, #0x3c0		/* EL0t, D A I F masked */
	msr	spsr_el1, x9
	mov	x0, x1
	adr	x30, el0_exit
	eret
el0_exit:
	svc	#0

/* uint64_t run_el0_a32(const void *code, uint64_t arg, bool t32): runs A32 code (T32 with
 * t32) at AArch32 EL0 (User mode, A, I and F masked; r0 = arg) until it executes SVC, and
 * returns its r0. */
	.global	run_el0_a32
run_el0_a32:
	save_el1_context
	msr	elr_el1, x0
	mov	x9, #0x1d0		/* M[4] = 1 (AArch32), User mode; A, I, F masked; A32 */
	cbz	x2, 1f
	orr	x9, x9, #0x20		/* T: T32 */
1:	msr	spsr_el1, x9
	mov	x0, x1
	eret

	.bss
	.balign	8
el1_saved_sp:
	.quad	0
