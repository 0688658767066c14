/* SPDX-License-Identifier: MIT */
/*
 * Entry at EL2 (QEMU virt, virtualization=on: no EL3, no firmware), the EL2 and EL1 vector
 * tables, and hw_run_lower(), which runs a function at EL1 or EL0 and comes back.
 *
 * Every CPU's EL2 gets the same setup: its vectors, EL1 in AArch64 (HCR_EL2.RW), no trap of
 * FP, SIMD, SVE or SME (CPTR_EL2), and the MMU on with an identity map: the first GiB
 * (devices) Device-nGnRnE, the second (RAM) Normal write-back, so that the tests' loads and
 * stores (unaligned ones, exclusives, DC ZVA) see Normal memory as on a running system
 * (D8.2.12.1: with the MMU off every data access is Device-nGnRnE). EL1 and EL0 run with
 * their MMU off.
 */
	.section .text.boot, "ax"
	.global	_start
_start:
	adrp	x1, hw_stack0_top
	add	x1, x1, :lo12:hw_stack0_top
	mov	sp, x1
	bl	el2_setup
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, __bss_end
	add	x2, x2, :lo12:__bss_end
1:	cmp	x1, x2
	b.hs	2f
	str	xzr, [x1], #8
	b	1b
2:	bl	hw_start
3:	wfi
	b	3b

/* Where PSCI CPU_ON starts another CPU, at EL2 with its MMU off: x0 = its stack's top. */
	.global	hw_secondary_entry
hw_secondary_entry:
	mov	sp, x0
	bl	el2_setup
	bl	hw_secondary_start
1:	wfi
	b	1b

el2_setup:
	adrp	x0, hw_el2_vectors
	add	x0, x0, :lo12:hw_el2_vectors
	msr	vbar_el2, x0
	adrp	x0, hw_el1_vectors
	add	x0, x0, :lo12:hw_el1_vectors
	msr	vbar_el1, x0
	mov	x0, #(1 << 31)			/* HCR_EL2.RW: EL1 is AArch64 */
	msr	hcr_el2, x0
	mov	x0, #0x22ff			/* CPTR_EL2: RES1 bits only, TFP = TZ = TSM = 0 */
	msr	cptr_el2, x0
	mov	x0, #3				/* CNTHCTL_EL2: EL1PCTEN, EL1PCEN */
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	ldr	x0, =0xff00			/* MAIR: attr 0 Device-nGnRnE, attr 1 Normal WB */
	msr	mair_el2, x0
	ldr	x0, =0x80803520			/* TCR_EL2: 4 GiB, 4 KiB granule, WB, inner shareable */
	msr	tcr_el2, x0
	adrp	x0, hw_pgtable
	add	x0, x0, :lo12:hw_pgtable
	msr	ttbr0_el2, x0
	dsb	sy
	tlbi	alle2
	dsb	sy
	isb
	ldr	x0, =0x30c51835			/* SCTLR_EL2: M, C, I, and the RES1 bits */
	msr	sctlr_el2, x0
	isb
	ret

	.macro	save_frame
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
	.endm

	.macro	restore_frame
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
	.endm

	/* An exception taken to EL<el>: the frame (x0..x30, ELR, SPSR) to C, and back. */
	.macro	to_c el, kind
	save_frame
	mrs	x1, elr_el\el
	mrs	x2, spsr_el\el
	stp	x30, x1, [sp, #240]
	str	x2, [sp, #256]
	mov	x0, sp
	mov	x1, #\kind
	bl	hw_el\el\()_exception
	ldp	x30, x1, [sp, #240]
	ldr	x2, [sp, #256]
	msr	elr_el\el, x1
	msr	spsr_el\el, x2
	restore_frame
	eret
	.endm

	.text
	.balign	0x800
	.global	hw_el2_vectors
hw_el2_vectors:
	.irp	kind, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.balign	0x80
	b	el2_vec_\kind
	.endr
	.irp	kind, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15
el2_vec_\kind:
	to_c	2, \kind
	.endr
el2_vec_8:					/* synchronous, from EL1 or EL0 */
	stp	x9, x10, [sp, #-16]!
	mrs	x9, esr_el2
	lsr	x9, x9, #26
	cmp	x9, #0x16			/* HVC from EL1: hw_run_lower() returns x0 */
	b.eq	lower_done
	ldp	x9, x10, [sp], #16
	to_c	2, 8

lower_done:
	adrp	x9, hw_lower_sp
	ldr	x9, [x9, :lo12:hw_lower_sp]
	mov	sp, x9
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	add	sp, sp, #96
	ret

	.balign	0x800
	.global	hw_el1_vectors
hw_el1_vectors:
	.irp	kind, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	.balign	0x80
	b	el1_vec_\kind
	.endr
	.irp	kind, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15
el1_vec_\kind:
	to_c	1, \kind
	.endr
el1_vec_8:					/* synchronous, from EL0 */
	stp	x9, x10, [sp, #-16]!
	mrs	x9, esr_el1
	lsr	x9, x9, #26
	cmp	x9, #0x15			/* SVC from EL0: the function returned */
	b.ne	1f
	ldp	x9, x10, [sp], #16
	hvc	#0
1:	ldp	x9, x10, [sp], #16
	to_c	1, 8

/*
 * uint64_t hw_run_lower(uint64_t (*fn)(uint64_t), uint64_t arg, unsigned el): fn(arg) at
 * EL1h or EL0t (el = 1 or 0), interrupts masked, on the CPU's EL1 or EL0 stack; returns what
 * fn returned (it returns to an HVC at EL1, an SVC at EL0 which EL1 turns into an HVC).
 */
	.global	hw_run_lower
hw_run_lower:
	sub	sp, sp, #96
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	mov	x9, sp
	adrp	x10, hw_lower_sp
	str	x9, [x10, :lo12:hw_lower_sp]
	adrp	x9, hw_el1_stack_top
	add	x9, x9, :lo12:hw_el1_stack_top
	msr	sp_el1, x9
	adrp	x9, hw_el0_stack_top
	add	x9, x9, :lo12:hw_el0_stack_top
	msr	sp_el0, x9
	msr	elr_el2, x0
	mov	x0, x1
	cbz	w2, 1f
	mov	x9, #0x3c5			/* EL1h, D A I F masked */
	adr	x30, el1_return
	b	2f
1:	mov	x9, #0x3c0			/* EL0t, D A I F masked */
	adr	x30, el0_return
2:	msr	spsr_el2, x9
	isb
	eret
el1_return:
	hvc	#0
el0_return:
	svc	#0

	.data
	.balign	4096
/* Level 1, 1 GiB blocks (D8.3): AF, AttrIndx, inner shareable for RAM. */
hw_pgtable:
	.quad	0x0000000000000401		/* 0x00000000: devices */
	.quad	0x0000000040000705		/* 0x40000000: RAM */
	.quad	0
	.quad	0

	.bss
	.balign	8
hw_lower_sp:
	.quad	0
