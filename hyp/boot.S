/* SPDX-License-Identifier: MIT */
/*
 * Entry from QEMU at EL2 (virt, virtualization=on, no EL3): x0 holds nothing we rely on.
 * Sets the stack and VBAR_EL2, clears .bss and calls hyp_main with interrupts masked
 * (PSTATE.DAIF stays set at EL2 for the hypervisor's whole life; guests run at EL1).
 */
	.section .text.boot, "ax"
	.global _start
_start:
	msr	daifset, #0xf
	mrs	x1, CurrentEL
	cmp	x1, #(2 << 2)
	b.ne	1f
	adrp	x1, hyp_stack_top
	add	x1, x1, :lo12:hyp_stack_top
	mov	sp, x1
	adrp	x1, hyp_vectors
	add	x1, x1, :lo12:hyp_vectors
	msr	vbar_el2, x1
	isb
	adrp	x1, __bss_start
	add	x1, x1, :lo12:__bss_start
	adrp	x2, __bss_end
	add	x2, x2, :lo12:__bss_end
2:	cmp	x1, x2
	b.hs	3f
	str	xzr, [x1], #8
	b	2b
3:	bl	hyp_main
1:	wfe
	b	1b
