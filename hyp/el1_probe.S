/* SPDX-License-Identifier: MIT */
/*
 * A short run at EL1 for the boot probes of the PMU (probe.c): el1_probe(code, arg, out)
 * enters `code` at EL1h with x0 = arg, interrupts masked, and returns ESR_EL2 of the first
 * exception it takes to EL2, with EL1's x0 at that moment in *out. Each piece of code below
 * does one access and then HVC #0; an access that UNDEFs at EL1 goes to this file's EL1
 * vectors, whose HVC #1 says so; one that traps to EL2 comes back with its own syndrome. The
 * caller sets HCR_EL2 (RW, nothing else), MDCR_EL2 and the fine-grained traps; EL2's own
 * vectors are this file's while the code runs, so nothing of a vCPU is touched.
 *
 * el0_probe(code, arg, out) does the same at EL0 (stage 1 off, so EL0 may execute anywhere):
 * its pieces end with SVC #0, as HVC is UNDEFINED at EL0. Whatever EL0 takes to EL1 (that
 * SVC, an UNDEF, a trap to EL1) comes back as HVC #2 with ESR_EL1 in *out.
 */
	.text
	.balign	8
	.global	el1_probe
el1_probe:
	mov	x12, #0x3C5		/* EL1h, D A I F masked */
	b	probe_enter

	.global	el0_probe
el0_probe:
	mov	x12, #0x3C0		/* EL0t, D A I F masked */
probe_enter:
	adrp	x9, probe_ctx
	add	x9, x9, :lo12:probe_ctx
	stp	x19, x20, [x9, #0]
	stp	x21, x22, [x9, #16]
	stp	x23, x24, [x9, #32]
	stp	x25, x26, [x9, #48]
	stp	x27, x28, [x9, #64]
	stp	x29, x30, [x9, #80]
	mov	x10, sp
	mrs	x11, vbar_el2
	stp	x10, x11, [x9, #96]
	str	x2, [x9, #112]
	adr	x10, probe_el2_vectors
	msr	vbar_el2, x10
	adr	x10, probe_el1_vectors
	msr	vbar_el1, x10
	msr	elr_el2, x0
	msr	spsr_el2, x12
	mov	x0, x1
	isb
	eret

/* Back at EL2 from the probe's code (x0 is EL1's): the caller's registers, stack and vectors. */
probe_back:
	adrp	x9, probe_ctx
	add	x9, x9, :lo12:probe_ctx
	ldr	x10, [x9, #112]
	str	x0, [x10]
	mrs	x0, esr_el2
	ldp	x10, x11, [x9, #96]
	mov	sp, x10
	msr	vbar_el2, x11
	ldp	x19, x20, [x9, #0]
	ldp	x21, x22, [x9, #16]
	ldp	x23, x24, [x9, #32]
	ldp	x25, x26, [x9, #48]
	ldp	x27, x28, [x9, #64]
	ldp	x29, x30, [x9, #80]
	isb
	ret

/* EL2's vectors while the probe runs: an exception from EL1 ends it; one at EL2 is a bug. */
	.macro	probe_cur kind
	.balign	0x80
	mov	x0, #\kind
	mrs	x1, esr_el2
	mrs	x2, elr_el2
	mrs	x3, far_el2
	bl	exc_current
	.endm

	.macro	probe_lower
	.balign	0x80
	b	probe_back
	.endm

	.balign	0x800
probe_el2_vectors:
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7
	probe_cur \k
	.endr
	.rept	8
	probe_lower
	.endr

/* EL1's: an exception taken from EL1 (an UNDEF) says HVC #1; one from EL0 (its SVC, an
 * UNDEF, a trap to EL1) says HVC #2 with its syndrome. */
	.macro	probe_el1_entry
	.balign	0x80
	hvc	#1
	.endm
	.macro	probe_el0_entry
	.balign	0x80
	mrs	x0, esr_el1
	hvc	#2
	.endm

	.balign	0x800
probe_el1_vectors:
	.rept	8
	probe_el1_entry
	.endr
	.rept	8
	probe_el0_entry
	.endr

/* The probes' code. PMEVCNTR<n>_EL0 reads, one 8-byte entry per n: probe_el1_evcntr + 8n. */
	.balign	8
	.global	probe_el1_evcntr
probe_el1_evcntr:
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
	mrs	x0, pmevcntr\n\()_el0
	hvc	#0
	.endr

/* PMCNTENSET_EL0 := x0. */
	.global	probe_el1_cntenset
probe_el1_cntenset:
	msr	pmcntenset_el0, x0
	isb
	hvc	#0

/* PMCR_EL0.P set (the rest as it reads), then x0 := PMCR_EL0 as EL1 reads it. */
	.global	probe_el1_pmcr_p
probe_el1_pmcr_p:
	mrs	x1, pmcr_el0
	orr	x1, x1, #2
	msr	pmcr_el0, x1
	isb
	mrs	x0, pmcr_el0
	hvc	#0

	.macro	probe_rd reg, end=hvc
	mrs	x0, \reg
	\end	#0
	.endm
	.macro	probe_wr reg, end=hvc
	msr	\reg, x0
	\end	#0
	.endm

/* What EL1 must not reach of a counter past HPMN (probe.c, hpmn_hides, in this order): a write
 * of x0 to each register, then a read of PMXEVCNTR_EL0, 8 bytes an entry. */
	.balign	8
	.global	probe_el1_hide
probe_el1_hide:
	probe_wr S3_3_C9_C12_2		/* PMCNTENCLR_EL0 */
	probe_wr S3_0_C9_C14_1		/* PMINTENSET_EL1 */
	probe_wr S3_0_C9_C14_2		/* PMINTENCLR_EL1 */
	probe_wr S3_3_C9_C14_3		/* PMOVSSET_EL0 */
	probe_wr S3_3_C9_C12_3		/* PMOVSCLR_EL0 */
	probe_wr S3_3_C9_C12_4		/* PMSWINC_EL0 */
	probe_rd S3_3_C9_C13_2		/* PMXEVCNTR_EL0 */

/* The PMU registers direct access traps by their fine-grained bits (probe.c has the list, in
 * this order): a read of each, then a write of x0 to each, 8 bytes an entry. */
	.balign	8
	.global	probe_el1_fgt
probe_el1_fgt:
	probe_rd S3_3_C14_C12_0		/* PMEVTYPER0_EL0 */
	probe_rd S3_3_C9_C13_1		/* PMXEVTYPER_EL0 */
	probe_rd S3_3_C14_C15_7		/* PMCCFILTR_EL0 */
	probe_rd S3_3_C9_C12_6		/* PMCEID0_EL0 */
	probe_rd S3_3_C9_C12_7		/* PMCEID1_EL0 */
	probe_rd S3_0_C9_C14_6		/* PMMIR_EL1 */
	probe_wr S3_3_C14_C12_0		/* PMEVTYPER0_EL0 */
	probe_wr S3_3_C9_C13_1		/* PMXEVTYPER_EL0 */
	probe_wr S3_3_C14_C15_7		/* PMCCFILTR_EL0 */
	probe_rd S3_3_C9_C13_1		/* PMXEVTYPER_EL0, PMSELR_EL0.SEL 31 */
	probe_wr S3_3_C9_C13_1		/* PMXEVTYPER_EL0, PMSELR_EL0.SEL 31 */

/* The same from EL0, in the same order (PMMIR_EL1 is EL1's: its entry is not run). */
	.balign	8
	.global	probe_el0_fgt
probe_el0_fgt:
	probe_rd S3_3_C14_C12_0, svc	/* PMEVTYPER0_EL0 */
	probe_rd S3_3_C9_C13_1, svc	/* PMXEVTYPER_EL0 */
	probe_rd S3_3_C14_C15_7, svc	/* PMCCFILTR_EL0 */
	probe_rd S3_3_C9_C12_6, svc	/* PMCEID0_EL0 */
	probe_rd S3_3_C9_C12_7, svc	/* PMCEID1_EL0 */
	svc	#0			/* PMMIR_EL1: not from EL0 */
	svc	#0
	probe_wr S3_3_C14_C12_0, svc	/* PMEVTYPER0_EL0 */
	probe_wr S3_3_C9_C13_1, svc	/* PMXEVTYPER_EL0 */
	probe_wr S3_3_C14_C15_7, svc	/* PMCCFILTR_EL0 */
	probe_rd S3_3_C9_C13_1, svc	/* PMXEVTYPER_EL0, PMSELR_EL0.SEL 31 */
	probe_wr S3_3_C9_C13_1, svc	/* PMXEVTYPER_EL0, PMSELR_EL0.SEL 31 */

	.bss
	.balign	16
probe_ctx:
	.skip	128
