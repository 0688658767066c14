/* SPDX-License-Identifier: MIT */
/*
 * The way into a guest, from the scheduler's first entry (sched_start) and from every
 * lower-EL vector (vectors.S) once its handler has chosen the frame to resume: in a file of
 * its own, so that the vectors and the scheduler both depend on it and not on each other.
 */
#include "frame.h"

	.text
	.balign	64
/* guest_enter(struct frame *f): resume the vCPU whose frame is f; SP_EL2 stays f while it
 * runs. */
	.global	guest_enter
guest_enter:
	mov	sp, x0
	ldp	x1, x2, [sp, #FRAME_ELR]
	msr	elr_el2, x1
	msr	spsr_el2, x2
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
	ldr	x30, [sp, #FRAME_X30]
	ldp	x0, x1, [sp, #0]
	eret
