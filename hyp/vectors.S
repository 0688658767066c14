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
 * library marks plain in the vCPU's fast word, and a passthrough vCPU's overflow polls
 * (timer.c), before anything else is saved; hyp_vectors (fasttrap=off) sends every exception
 * to C. main.c picks one.
 */
#include "frame.h"

/* x4..x30, ELR_EL2 and SPSR_EL2 into the frame (x0..x3 are there already), x0 := the frame,
 * and onto the hypervisor's stack; x1 survives (lower_sync_saved's ESR_EL2). */
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
	mrs	x2, elr_el2
	mrs	x3, spsr_el2
	stp	x30, x2, [sp, #FRAME_X30]
	str	x3, [sp, #FRAME_SPSR]
	mov	x0, sp
	adrp	x2, hyp_stack_top
	add	x2, x2, :lo12:hyp_stack_top
	mov	sp, x2
	.endm

/* A lower-EL vector: the whole entry fits its 0x80 bytes (25 instructions of 32, the
 * synchronous one 26). */
	.macro	ventry handler
	.balign	0x80
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	save_from_x4
	bl	\handler
	b	guest_enter
	.endm

/* The synchronous one: exc_lower_sync(frame, ESR_EL2), as lower_sync_saved calls it. */
	.macro	ventry_sync
	.balign	0x80
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	save_from_x4
	mrs	x1, esr_el2
	bl	exc_lower_sync
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

/* w3 (or `reg`, with `load`) := the fast word's field for the guest's EL: `el1` from EL1
 * (SPSR_EL2.M[2] = 1), falling through; from EL0 by el_word_el0, which the path places after
 * its last instruction. */
	.macro	el_word el1, load=ldr, reg=w3
	mrs	x3, spsr_el2
	tbz	x3, #2, 1f
	\load	\reg, [sp, #\el1]
2:
	.endm

	.macro	el_word_el0 el0, load=ldr, reg=w3
1:	\load	\reg, [sp, #\el0]
	b	2b
	.endm

/* x3 to the guest's Rt (ESR_EL2.ISS[9:5], in x1), by its entry of rt_writes. */
	.macro	to_rt
	ubfx	w1, w1, #5, #5
	adr	x0, rt_writes
	add	x0, x0, x1, lsl #6
	br	x0
	.endm

/* PMEVCNTR<n>_EL0, in the vector: n to the entry of the vCPU's table, which checks it. */
	.macro	fast_pmevcntr
	ubfx	w2, w1, #17, #3		/* n[2:0] */
	ubfx	w3, w1, #1, #2		/* n[4:3] */
	orr	w2, w2, w3, lsl #3
	el_word	FAST_EL1		/* w3: the plain mask, checked by entry n */
	ldr	x0, [sp, #VCPU_EVCNTR_READS]
	add	x0, x0, x2, lsl #5
	br	x0
	el_word_el0 FAST_EL0
	.endm

/* The synchronous lower-EL vector of the fast table: x0..x3 go to the frame (they are the
 * fast path's scratch registers) and the syndrome is matched against the three reads;
 * anything else continues as the plain entry does (lower_sync_saved). ESR_EL2 bit 29 is
 * EC[3], 0 for HVC, SMC, WFx and the aborts: those leave after two instructions; with EC
 * 0x18, ISS bit 0 is the direction, 0 for a write (MSR): those leave after three. Then ISS
 * bit 3, CRm[2], parts the reads: 0 for PMEVCNTR<n>_EL0 (CRm 0b10xx), matched here; 1 for
 * PMCCNTR_EL0 and PMXEVCNTR_EL0 (CRm 0b1101), matched in fast_crm_odd, where the PMU's other
 * registers (PMCR_EL0, PMOVS*, PMCNTEN*, PMSELR_EL0, PMEVTYPER<n>_EL0 ...: CRm 0b11xx) leave
 * after one compare. */
	.macro	fast_sync_entry
	.balign	0x80
9:	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	mrs	x1, esr_el2
	tbz	w1, #29, lower_sync_saved
	tbz	w1, #0, lower_sync_saved
	tbnz	w1, #3, fast_crm_odd
	and	w2, w1, #0xFFFFFC1F	/* Rt out; ISS2 (ESR_EL2[63:32]) out with the W form */
	and	w2, w2, #0xFFF1FFFF	/* PMEVCNTR<n>: n[2:0] (Op2) out */
	and	w2, w2, #0xFFFFFFF9	/* and n[4:3] (CRm[1:0]) */
	ldr	w3, =FAST_KEY_PMEVCNTR
	cmp	w2, w3
	b.ne	lower_sync_saved
	fast_pmevcntr
	.if	. - 9b > 0x80
	.error	"the fast synchronous vector is over its 0x80 bytes"
	.endif
	.endm

/* The IRQ vector of the fast table. For a vCPU whose overflow polls the entry serves
 * (vcpu.poll_ticks, passthrough under QEMU 7.2), an EL2 timer interrupt before the end of its
 * slice is such a poll: the exception itself was its purpose, so it sets the next one and
 * returns (the timer's level drops with the new CVAL, then EOImode 1's two writes). Anything
 * else goes to C, x0..x3 saved, acknowledged or not. Not self-counted, as a served read. */
	.macro	fast_irq_entry
	.balign	0x80
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	ldr	x1, [sp, #VCPU_POLL_TICKS]
	cbz	x1, lower_irq_saved
	mrs	x0, S3_0_C12_C12_0	/* ICC_IAR1_EL1 */
	cmp	w0, #INTID_HYPTIMER
	b.ne	lower_irq_acked
	mrs	x2, cntpct_el0
	adrp	x3, hyp
	add	x3, x3, :lo12:hyp
	ldr	x3, [x3, #HYP_SLICE_DEADLINE]
	cmp	x2, x3
	b.hs	lower_irq_acked
	add	x2, x2, x1
	cmp	x2, x3
	csel	x2, x2, x3, lo
	msr	cnthp_cval_el2, x2
	isb
	msr	S3_0_C12_C12_1, x0	/* ICC_EOIR1_EL1 */
	msr	S3_0_C12_C11_1, x0	/* ICC_DIR_EL1 */
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	eret
	.endm

	.macro	vectors_of sync, irq
	cur_entry 0	/* current EL, SP0: sync */
	cur_entry 1	/* irq */
	cur_entry 2	/* fiq */
	cur_entry 3	/* serror */
	cur_entry 4	/* current EL, SPx: sync */
	cur_entry 5
	cur_entry 6
	cur_entry 7
	\sync		/* lower EL, AArch64 */
	\irq
	ventry	exc_lower_irq	/* FIQ: no group 0 sources; treated like IRQ */
	ventry	exc_lower_serror
	cur_entry 12		/* lower EL, AArch32: guests run AArch64 (HCR_EL2.RW = 1) */
	cur_entry 13
	cur_entry 14
	cur_entry 15
	.endm

	.macro	plain_sync_entry
	ventry_sync
	.endm

	.macro	plain_irq_entry
	ventry	exc_lower_irq
	.endm

	.text
	.balign	0x800
	.global	hyp_vectors
hyp_vectors:
	vectors_of plain_sync_entry, plain_irq_entry

	.balign	0x800
	.global	hyp_vectors_fast
hyp_vectors_fast:
	vectors_of fast_sync_entry, fast_irq_entry
	.balign	0x80
	.ltorg			/* the fast vector's syndromes, after the table */

/* A synchronous exception that is not a plain read, x0..x3 already in the frame and x1
 * ESR_EL2, which the fast vector read: C takes it from there. */
lower_sync_saved:
	save_from_x4
	bl	exc_lower_sync
	b	guest_enter

/* An IRQ that is not a served poll, x0..x3 in the frame; acknowledged (INTID in w0) or not. */
lower_irq_acked:
	str	w0, [sp, #VCPU_IRQ_ACKED]
	save_from_x4
	bl	exc_lower_irq_acked
	b	guest_enter
lower_irq_saved:
	save_from_x4
	bl	exc_lower_irq
	b	guest_enter

/*
 * The fast path (the contract is struct pv_vpmu_fast, include/perfvisor/vpmu.h). On entry
 * x1 is ESR_EL2, kept there for C until the read is served; x0, x2 and x3 are free (all four
 * are saved in the frame). A read the fast word does not mark plain for the guest's EL
 * (SPSR_EL2.M[3:2]: 0b01 EL1, 0b00 EL0) goes to C unchanged. The instructions of a served
 * read are not self-counted (selfcount.c): they fall to the next exception the hypervisor
 * accounts.
 */

/* CRm[2] set: PMCCNTR_EL0 (Op2 0) or PMXEVCNTR_EL0 (Op2 0b010), told apart by ISS bit 18,
 * Op2[1]; any other register leaves after its one compare. */
fast_crm_odd:
	tbnz	w1, #18, fast_pmxevcntr
	and	w0, w1, #0xFFFFFC1F	/* Rt out */
	ldr	w3, =FAST_KEY_PMCCNTR
	cmp	w0, w3
	b.ne	lower_sync_saved
	el_word	FAST_EL1
	tbz	w3, #31, lower_sync_saved
	mrs	x3, pmccntr_el0
	to_rt
	el_word_el0 FAST_EL0

fast_pmxevcntr:
	and	w0, w1, #0xFFFFFC1F	/* Rt out */
	ldr	w3, =FAST_KEY_PMXEVCNTR
	cmp	w0, w3
	b.ne	lower_sync_saved
	el_word	FAST_XEV_EL1, ldrb, w2	/* the counter, checked, or 31 */
	ldr	x0, [sp, #VCPU_EVCNTR_READS_XEV]
	add	x0, x0, x2, lsl #5
	br	x0
	el_word_el0 FAST_XEV_EL0, ldrb, w2
	.ltorg

/* PMEVCNTR<n>_EL0 by n, one 32-byte entry each: the plain check (skipped for PMXEVCNTR_EL0),
 * the read at the guest's width, on to Rt. Entry 31 is no event counter: PMCCFILTR_EL0 has
 * that encoding, and 31 is what the word gives for a PMXEVCNTR_EL0 read that is not plain. */
	.macro	evcntr_read n, width
	.balign	32
0:	tbz	w3, #\n, lower_sync_saved
	mrs	x3, pmevcntr\n\()_el0
	.if	\width == 32
	mov	w3, w3
	.endif
	to_rt
	.if	. - 0b > 32
	.error	"an entry of the event counter reads is over 32 bytes"
	.endif
	.endm

	.macro	evcntr_reads width
	.balign	32
	.global	evcntr_reads_\width
evcntr_reads_\width:
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
	evcntr_read \n, \width
	.endr
	.balign	32
	b	lower_sync_saved	/* n = 31, from either entry point */
	b	lower_sync_saved
	.endm

	evcntr_reads 64
	evcntr_reads 32

/* One entry per Rt, each with the whole way back: x0..x3 come back from the frame (so Rt
 * 0..3 is written there), x4..x30 are still the guest's, and Rt = 31 (XZR) discards. The MRS
 * is completed as skip_instr() (hyp.h) completes one, and counted as the PMU trap it is. */
	.macro	rt_write rt
	.balign	64
0:	.if	\rt < 4
	str	x3, [sp, #8 * \rt]
	.elseif	\rt < 31
	mov	x\rt, x3
	.endif
	mrs	x1, elr_el2
	add	x1, x1, #4
	msr	elr_el2, x1
	mrs	x1, spsr_el2
	bic	x1, x1, #(1 << 21)	/* SS */
	bic	x1, x1, #(3 << 10)	/* BTYPE */
	msr	spsr_el2, x1
	ldr	x1, [sp, #VCPU_PMU_TRAPS]
	add	x1, x1, #1
	str	x1, [sp, #VCPU_PMU_TRAPS]
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	eret
	.if	. - 0b > 64
	.error	"an entry of the Rt writes is over 64 bytes"
	.endif
	.endm

	.balign	64
rt_writes:
	.irp	rt, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	rt_write \rt
	.endr
