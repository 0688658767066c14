/* SPDX-License-Identifier: MIT */
/*
 * The known loop tests/hw/spe.c profiles, at EL2 or at EL1: every instruction of it, and so
 * every record the Statistical Profiling Unit writes of it, is predictable.
 *
 * uint64_t spe_run_el2(struct spe_args *a), spe_run_el1(struct spe_args *a): with
 * a = { data, n, icr, stop }: PMSICR_EL1 := icr, then n iterations of six instructions over
 * data[] (the index the iteration counter's low 10 bits), then PMSCR_EL2 (PMSCR_EL1 for the
 * EL1 one) := stop, which ends the profiling. After the MSR to PMSICR_EL1, instruction i
 * (from 1) is the loop's instruction (i - 1) % 6 of iteration (i - 1) / 6 for i <= 6n, and
 * the MSR that stops at i = 6n + 1.
 */
	.text
	.macro	spe_run name, stop_reg, top, stop
	.global	\name
	.global	\top
	.global	\stop
	.balign	64
\name:
	ldp	x6, x1, [x0]			/* data, n */
	ldp	x2, x3, [x0, #16]		/* icr, stop */
	mov	x0, x6
	msr	S3_0_C9_C9_2, x2		/* PMSICR_EL1 */
\top:
	and	x4, x1, #0x3ff
	ldr	x5, [x0, x4, lsl #3]
	add	x5, x5, #1
	str	x5, [x0, x4, lsl #3]
	subs	x1, x1, #1
	b.ne	\top
\stop:
	msr	\stop_reg, x3
	isb
	ret
	.endm

	spe_run	spe_run_el2, S3_4_C9_C9_0, spe_top_el2, spe_stop_el2	/* PMSCR_EL2 */
	spe_run	spe_run_el1, S3_0_C9_C9_0, spe_top_el1, spe_stop_el1	/* PMSCR_EL1 */
