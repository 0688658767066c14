/* SPDX-License-Identifier: MIT */
/*
 * EL2 exception vectors (Arm ARM D1.4.1.6, exception vectors). While a guest runs, SP_EL2
 * points at its vCPU's struct frame, so an exception from the guest (lower EL, AArch64) saves
 * x0..x30, ELR_EL2 and SPSR_EL2 straight into it, moves to the hypervisor's stack, calls the
 * C handler with the frame, and returns through guest_enter (enter.S) with the frame the
 * handler returns (another vCPU's after a switch). Exceptions taken at EL2 itself are
 * hypervisor bugs: they are reported and the machine is powered off.
 *
 * Two tables: hyp_vectors_fast (fasttrap=on, the default) serves the counter reads the
 * library marks plain in the vCPU's fast word before anything else is saved; hyp_vectors
 * (fasttrap=off) sends every exception to C. main.c picks one.
 */
#include "frame.h"

	.macro	save_from_x4
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
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	save_from_x4
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

/* The synchronous lower-EL vector of the fast table: x0..x3 go to the frame (they are the
 * fast path's scratch registers) and the syndrome is matched against the three reads;
 * anything else continues as the plain entry does (lower_sync_saved). ESR_EL2 bit 29 is
 * EC[3], 0 for HVC, SMC, WFx and the aborts: those leave after two instructions; with EC
 * 0x18, ISS bit 0 is the direction, 0 for a write (MSR): those leave after three. */
	.macro	fast_sync_entry
	.balign	0x80
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	mrs	x0, esr_el2
	tbz	w0, #29, lower_sync_saved
	tbz	w0, #0, lower_sync_saved
	and	w1, w0, #0xFFFFFC1F	/* Rt out; ISS2 (ESR_EL2[63:32]) out with the W form */
	and	w2, w1, #0xFFF1FFFF	/* PMEVCNTR<n>: n[2:0] (Op2) out */
	and	w2, w2, #0xFFFFFFF9	/* and n[4:3] (CRm[1:0]) */
	ldr	w3, =FAST_KEY_PMEVCNTR
	cmp	w2, w3
	b.eq	fast_pmevcntr
	and	w2, w1, #0xFFFBFFFF	/* Op2[1]: PMCCNTR_EL0 0, PMXEVCNTR_EL0 1 */
	ldr	w3, =FAST_KEY_PMCCNTR
	cmp	w2, w3
	b.ne	lower_sync_saved
	tbnz	w1, #18, fast_pmxevcntr
	b	fast_pmccntr
	.endm

	.macro	vectors_of sync
	cur_entry 0	/* current EL, SP0: sync */
	cur_entry 1	/* irq */
	cur_entry 2	/* fiq */
	cur_entry 3	/* serror */
	cur_entry 4	/* current EL, SPx: sync */
	cur_entry 5
	cur_entry 6
	cur_entry 7
	\sync		/* lower EL, AArch64 */
	ventry	exc_lower_irq
	ventry	exc_lower_irq	/* FIQ: no group 0 sources; treated like IRQ */
	ventry	exc_lower_serror
	cur_entry 12		/* lower EL, AArch32: guests run AArch64 (HCR_EL2.RW = 1) */
	cur_entry 13
	cur_entry 14
	cur_entry 15
	.endm

	.macro	plain_sync_entry
	ventry	exc_lower_sync
	.endm

	.text
	.balign	0x800
	.global	hyp_vectors
hyp_vectors:
	vectors_of plain_sync_entry

	.balign	0x800
	.global	hyp_vectors_fast
hyp_vectors_fast:
	vectors_of fast_sync_entry
	.ltorg

/* A synchronous exception that is not a plain read, x0..x3 already in the frame. */
lower_sync_saved:
	save_from_x4
	bl	exc_lower_sync
	b	guest_enter

/*
 * The fast path (the contract is struct pv_vpmu_fast, include/perfvisor/vpmu.h). On entry
 * x0 is ESR_EL2; x0..x3 are free (saved in the frame). A read the fast word does not mark
 * plain for the guest's EL (SPSR_EL2.M[3:2]: 0b01 EL1, 0b00 EL0) goes to C unchanged. The
 * instructions of a served read are not self-counted (selfcount.c): they fall to the next
 * exception the hypervisor accounts.
 */
/* To entry w2 of evcntr_reads. */
	.macro	evcntr_read_n
	adr	x1, evcntr_reads
	add	x1, x1, x2, lsl #5
	br	x1
	.endm

fast_pmevcntr:
	ubfx	w2, w0, #17, #3		/* n[2:0] */
	ubfx	w3, w0, #1, #2		/* n[4:3] */
	orr	w2, w2, w3, lsl #3
	mrs	x3, spsr_el2
	tbz	x3, #2, 1f
	ldr	w3, [sp, #FAST_EL1]
2:	lsr	w3, w3, w2
	tbz	w3, #0, lower_sync_saved
	evcntr_read_n
1:	ldr	w3, [sp, #FAST_EL0]
	b	2b

fast_pmxevcntr:
	mrs	x3, spsr_el2
	tbz	x3, #2, 1f
	ldrb	w2, [sp, #FAST_XEV_EL1]	/* the counter, or 31: not plain */
	evcntr_read_n
1:	ldrb	w2, [sp, #FAST_XEV_EL0]
	evcntr_read_n

fast_pmccntr:
	mrs	x3, spsr_el2
	tbz	x3, #2, 1f
	ldr	w3, [sp, #FAST_EL1]
2:	tbz	w3, #31, lower_sync_saved
	mrs	x3, pmccntr_el0
	b	fast_to_rt
1:	ldr	w3, [sp, #FAST_EL0]
	b	2b

/* x3 to the guest's Rt (ESR_EL2.ISS[9:5], in x0), by the entry of rt_writes. */
	.macro	to_rt
	ubfx	w0, w0, #5, #5
	adr	x1, rt_writes
	add	x1, x1, x0, lsl #6
	br	x1
	.endm

fast_to_rt:
	to_rt

/* PMEVCNTR<w2>_EL0, at the guest's width, to Rt. Entry 31 is no event counter: PMCCFILTR_EL0
 * has that encoding, and 31 is what the word says of a PMXEVCNTR_EL0 read that is not plain. */
	.macro	evcntr_read n
	.balign	32
	mrs	x3, pmevcntr\n\()_el0
	ldr	x1, [sp, #FAST_EVCNTR_MASK]
	and	x3, x3, x1
	to_rt
	.endm

	.balign	32
evcntr_reads:
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
	evcntr_read \n
	.endr
	.balign	32
	b	lower_sync_saved

/* One entry per Rt, each with the whole way back: x0..x3 come back from the frame (so Rt
 * 0..3 is written there), x4..x30 are still the guest's, and Rt = 31 (XZR) discards. The
 * served read is counted as the PMU trap it is (pv_vcpu_stats.traps, through the word). */
	.macro	rt_write rt
	.balign	64
	.if	\rt < 4
	str	x3, [sp, #8 * \rt]
	.elseif	\rt < 31
	mov	x\rt, x3
	.endif
	mrs	x1, elr_el2
	add	x1, x1, #4
	msr	elr_el2, x1
	ldr	x1, [sp, #FAST_TRAPS]
	ldr	x2, [x1]
	add	x2, x2, #1
	str	x2, [x1]
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	eret
	.endm

	.balign	64
rt_writes:
	.irp	rt, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	rt_write \rt
	.endr
