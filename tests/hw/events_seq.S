/* SPDX-License-Identifier: MIT */
/*
 * The instruction sequences events.c counts. Each seq_* function enables the counters in x0
 * (PMCNTENSET_EL0), runs its sequence, disables them (the MSR is counted, as INST_RETIRED
 * counts the write that stops it) and returns. x1 is a 4 KiB buffer the sequence loads from,
 * x2 one it stores to (both Normal memory, 64-byte aligned, filled by the caller). The
 * comment on each line says what the model's rules count it as (docs/qemu.md, "The common
 * events"): L a load, S a store, B a branch, I an immediate branch.
 */
	.arch	armv8.8-a+sve+memtag
	.arch_extension mops
	.text

	.macro	enable
	msr	pmcntenset_el0, x0
	.endm
	.macro	disable
	msr	pmcntenclr_el0, x0
	.endm

/* Loads and stores of one register, every addressing form; 13 L, 8 S, 22 instructions. */
	.global	seq_ldst
seq_ldst:
	mov	x3, #0
	enable
	ldr	x4, [x1]			/* L */
	ldrb	w4, [x1, #1]			/* L */
	ldrsh	x4, [x1, #2]			/* L */
	ldrsw	x4, [x1, #4]			/* L */
	ldur	x4, [x1, #3]			/* L, unaligned */
	ldr	x4, [x1, #8]!			/* L, pre-index */
	ldr	x4, [x1], #-8			/* L, post-index */
	ldr	x4, [x1, x3]			/* L, register offset */
	ldtr	x4, [x1]			/* L, unprivileged */
	ldr	x4, 9f				/* L, literal */
	ldr	q0, [x1]			/* L, SIMD&FP */
	ldr	s1, 9f				/* L, SIMD&FP literal */
	ldraa	x4, [x1]			/* L, pointer authentication (keys off: plain) */
	str	x4, [x2]			/* S */
	strb	w4, [x2, #1]			/* S */
	strh	w4, [x2, #2]			/* S */
	stur	x4, [x2, #5]			/* S, unaligned */
	str	x4, [x2, x3]			/* S, register offset */
	sttr	x4, [x2, #8]			/* S, unprivileged */
	str	q0, [x2, #16]			/* S, SIMD&FP */
	str	d1, [x2, #32]			/* S, SIMD&FP */
	disable
	ret
	.balign	8
9:	.quad	0x1234

/* Prefetches and cache maintenance: nothing; 6 instructions. */
	.global	seq_prefetch
seq_prefetch:
	mov	x3, #0
	enable
	prfm	pldl1keep, [x1]
	prfum	pldl1keep, [x1, #1]
	prfm	pstl1keep, [x1, x3]
	prfm	pldl1keep, 9b
	dc	civac, x2
	disable
	ret

/* Pairs: one instruction each; 4 L, 3 S, 8 instructions. */
	.global	seq_pairs
seq_pairs:
	enable
	ldp	x4, x5, [x1]			/* L */
	ldnp	x4, x5, [x1, #16]		/* L */
	ldpsw	x4, x5, [x1]			/* L */
	ldp	q0, q1, [x1]			/* L */
	stp	x4, x5, [x2]			/* S */
	stnp	x4, x5, [x2, #16]		/* S */
	stp	q0, q1, [x2, #32]		/* S */
	disable
	ret

/* Load-acquire, store-release, RCpc: 4 L, 3 S, 8 instructions. */
	.global	seq_acqrel
seq_acqrel:
	enable
	ldar	x4, [x1]			/* L */
	ldarb	w4, [x1]			/* L */
	ldapr	x4, [x1]			/* L */
	ldapur	x4, [x1, #8]			/* L */
	stlr	x4, [x2]			/* S */
	stlrb	w4, [x2]			/* S */
	stlur	x4, [x2, #8]			/* S */
	disable
	ret

/*
 * Exclusives: a Store-Exclusive is a store when it succeeds. 2 L, 2 S, 8 instructions; x0 on
 * return: the four statuses (succeeded 0, failed 1), in bits 0..3 (0b0110 expected).
 */
	.global	seq_excl
seq_excl:
	enable
	ldxr	x4, [x2]			/* L */
	stxr	w5, x4, [x2]			/* S: succeeds */
	stxr	w6, x4, [x2]			/* fails: no monitor */
	ldaxp	x8, x9, [x2]			/* L */
	stlxp	w7, x8, x9, [x2]		/* S: succeeds */
	clrex
	stxr	w10, x4, [x2]			/* fails */
	disable
	orr	x0, x5, x6, lsl #1
	orr	x0, x0, x10, lsl #2
	orr	x0, x0, x7, lsl #3
	ret

/*
 * Atomics read and write: each is a load and a store; a CAS whose comparison fails too.
 * 7 L, 7 S, 9 instructions. The caller zeroes [x2, #0..#32].
 */
	.global	seq_atomics
seq_atomics:
	add	x11, x2, #8
	add	x12, x2, #16
	mov	x3, #1
	mov	x4, #0
	mov	x5, #7
	mov	x8, #0
	mov	x9, #0
	enable
	ldadd	x3, x6, [x2]			/* L S: memory 0 -> 1 */
	swp	x3, x6, [x2]			/* L S */
	stadd	x3, [x2]			/* L S: memory 1 -> 2 */
	cas	x4, x5, [x2]			/* L S: 2 != 0, fails */
	mov	x4, #2
	cas	x4, x5, [x2]			/* L S: succeeds, memory 7 */
	casp	x8, x9, x4, x5, [x12]		/* L S */
	ldaddal	w3, w6, [x11]			/* L S */
	disable
	ret

/* DC ZVA writes a block of zeros: a store; DC GVA and DC GZVA (tags) too. 3 S, 4 instructions. */
	.global	seq_dczva
seq_dczva:
	enable
	dc	zva, x2
	dc	gva, x2
	dc	gzva, x2
	disable
	ret

/* SIMD structures: 6 L, 2 S, 9 instructions. */
	.global	seq_simd
seq_simd:
	mov	x3, x1
	enable
	ld1	{v0.16b}, [x1]			/* L */
	ld1	{v0.16b, v1.16b}, [x1]		/* L */
	ld4	{v0.4s, v1.4s, v2.4s, v3.4s}, [x1]	/* L */
	ld1r	{v0.4s}, [x1]			/* L */
	ld1	{v0.s}[1], [x1]			/* L */
	ld1	{v0.16b}, [x3], #16		/* L, post-index */
	st1	{v0.2d}, [x2]			/* S */
	st2	{v0.4s, v1.4s}, [x2]		/* S */
	disable
	ret

/* SVE: 9 L, 4 S, prefetches nothing; 16 instructions. */
	.global	seq_sve
seq_sve:
	ptrue	p0.d
	pfalse	p1.b
	dup	z3.d, #0
	setffr
	enable
	ld1d	{z0.d}, p0/z, [x1]		/* L */
	ld1d	{z0.d}, p1/z, [x1]		/* L: no element active, still executed */
	ldr	z1, [x1]			/* L */
	ldr	p2, [x1]			/* L */
	ld1rd	{z2.d}, p0/z, [x1]		/* L */
	ld1d	{z4.d}, p0/z, [x1, z3.d]	/* L, gather */
	ldff1d	{z5.d}, p0/z, [x1]		/* L, first-fault */
	ldnf1d	{z6.d}, p0/z, [x1]		/* L, non-fault */
	ldnt1d	{z7.d}, p0/z, [x1]		/* L, non-temporal */
	prfd	pldl1keep, p0, [x1]		/* prefetch */
	prfb	pldl1keep, p0, [x1, z3.d]	/* prefetch, gather */
	st1d	{z0.d}, p0, [x2]		/* S */
	str	z1, [x2]			/* S */
	str	p2, [x2]			/* S */
	st1d	{z0.d}, p0, [x2, z3.d]		/* S, scatter */
	disable
	ret

/* FEAT_MOPS: each of the three instructions counts: 3 L, 6 S, 7 instructions. */
	.global	seq_mops
seq_mops:
	mov	x3, x2				/* destination */
	mov	x4, x1				/* source */
	mov	x5, #64				/* bytes */
	mov	x6, #64
	add	x7, x2, #128
	enable
	cpyfp	[x3]!, [x4]!, x5!		/* L S */
	cpyfm	[x3]!, [x4]!, x5!		/* L S */
	cpyfe	[x3]!, [x4]!, x5!		/* L S */
	setp	[x7]!, x6!, xzr			/* S */
	setm	[x7]!, x6!, xzr			/* S */
	sete	[x7]!, x6!, xzr			/* S */
	disable
	ret

/*
 * Branches, taken or not: 7 immediate (I) and 4 register (B), 15 instructions.
 */
	.global	seq_branches
seq_branches:
	stp	x29, x30, [sp, #-16]!
	enable
	b	1f				/* I */
1:	bl	8f				/* I, and 8f's RET: B */
	cbz	xzr, 2f				/* I, taken */
2:	cbnz	xzr, 9f				/* I, not taken */
	tbz	xzr, #3, 3f			/* I, taken */
3:	cmp	x0, x0
	b.ne	9f				/* I, not taken */
	.inst	0x54000050			/* BC.EQ 4f (FEAT_HBC): I, taken */
	brk	#1
4:	adr	x12, 5f
	br	x12				/* B */
5:	adr	x12, 8f
	blr	x12				/* B, and 8f's RET: B */
	disable
	ldp	x29, x30, [sp], #16
	ret
8:	ret
9:	brk	#2

/*
 * uint64_t seq_fault(uint64_t addr), at EL0 (the counters count EL0 only): loads from x0,
 * and from 0x0b000000, where virt has nothing: a synchronous External abort to EL1, which
 * skips the load. 2 L.
 */
	.global	seq_fault
seq_fault:
	mov	x2, #0x0b000000
	ldr	x4, [x0]			/* L */
	ldr	x4, [x2]			/* aborts: not retired */
	ldr	x4, [x0]			/* L */
	ret
