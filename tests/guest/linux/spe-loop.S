/* SPDX-License-Identifier: MIT */
/*
 * /bin/spe-loop, the known workload Linux's perf records with SPE (tests/hw/linux-spe.sh):
 * a static program with no libc whose user instructions are, but for two before and three
 * after, its loop, between the symbols spe_loop and spe_loop_end. SPE_ROUNDS rounds of
 * SPE_ROUND_ITERS iterations that each read, increment and write one doubleword of spe_buf
 * (64 KiB in .bss, between spe_buf and spe_buf_end; the index the iteration counter's low
 * 13 bits), so every sampled load or store has its data address in the buffer, and nothing
 * else of the loop touches memory from EL0. 2,400,280 user instructions in the loop (6 an
 * iteration, 7 a round): at SPE's minimum interval (256: a sample every 257 instructions)
 * 9,339 samples, 3,113 of them loads or stores.
 *
 * After each round the program sleeps 1 ms (nanosleep): on one CPU that is when perf record
 * runs and drains the AUX buffer (its wakeup at the watermark does not preempt the loop), as
 * any workload that blocks lets it; with -icount sleep=off the sleep costs no host time.
 */
#define SPE_ROUNDS 40
#define SPE_ROUND_ITERS 10000
#define SPE_BUF_BYTES 65536

	.text
	.global	_start
	.global	spe_loop
	.global	spe_loop_end
_start:
	adrp	x9, spe_buf
	mov	x10, #SPE_ROUNDS
spe_loop:
	mov	x2, #SPE_ROUND_ITERS
1:	and	x3, x2, #(SPE_BUF_BYTES / 8 - 1)
	ldr	x4, [x9, x3, lsl #3]
	add	x4, x4, #1
	str	x4, [x9, x3, lsl #3]
	subs	x2, x2, #1
	b.ne	1b
	adr	x0, spe_sleep
	mov	x1, #0
	mov	x8, #101		/* nanosleep */
	svc	#0
	subs	x10, x10, #1
	b.ne	spe_loop
spe_loop_end:
	mov	x0, #0
	mov	x8, #94			/* exit_group */
	svc	#0

	.balign	8
spe_sleep:
	.quad	0, 1000000		/* struct timespec: 1 ms */

	.bss
	.balign	4096
	.global	spe_buf
	.global	spe_buf_end
spe_buf:
	.space	SPE_BUF_BYTES
spe_buf_end:
