/* SPDX-License-Identifier: MIT */
/*
 * Software step (MDSCR_EL1.SS with KDE, Arm ARM D2) of one EL1 instruction, entered with
 * PSTATE.BTYPE = 0b01 as after a BR: the step exception comes right after the instruction
 * (ELR_EL1 is the instruction + 4) and finds PSTATE.BTYPE 0, whether the instruction ran or
 * trapped to the hypervisor and was emulated there: a MOV, the three counter reads the fast
 * trap path serves (PMCCNTR_EL0, PMEVCNTR0_EL0, PMXEVCNTR_EL0) and a PMCR_EL0 read, which C
 * answers. Without FEAT_BTI, BTYPE reads 0 in any case.
 */
#include "pmu.h"

/* step_<name>(): returns the step exception's ELR_EL1 less the instruction's address (x0),
 * its ESR_EL1 (x1) and SPSR_EL1 (x3). */
__asm__(".macro step_probe name, insn\n"
	".global \\name\n"
	"\\name:\n"
	"mrs x9, vbar_el1\n"
	"adr x10, step_vectors\n"
	"msr vbar_el1, x10\n"
	"mrs x11, mdscr_el1\n"
	"orr x12, x11, #1\n"         /* SS */
	"orr x12, x12, #(1 << 13)\n" /* KDE */
	"msr mdscr_el1, x12\n"
	"msr oslar_el1, xzr\n"
	"isb\n"
	"adr x13, 2f\n"
	/* EL1h, A, I and F masked, D clear; BTYPE 0b01; SS 1: one instruction, then the step. */
	"mov x12, #(0x1c5 | (1 << 10))\n"
	"movk x12, #0x20, lsl #16\n"
	"msr spsr_el1, x12\n"
	"adr x12, 1f\n"
	"msr elr_el1, x12\n"
	"eret\n"
	"1: \\insn\n"
	"nop\n"
	"nop\n"
	"b .\n"
	"2: adr x2, 1b\n"
	"sub x0, x0, x2\n"
	"msr mdscr_el1, x11\n"
	"msr vbar_el1, x9\n"
	"isb\n"
	"ret\n"
	".endm\n"
	"step_probe step_mov, \"mov x0, #1\"\n"
	"step_probe step_pmccntr, \"mrs x0, pmccntr_el0\"\n"
	"step_probe step_pmevcntr, \"mrs x0, pmevcntr0_el0\"\n"
	"step_probe step_pmxevcntr, \"mrs x0, pmxevcntr_el0\"\n"
	"step_probe step_pmcr, \"mrs x0, pmcr_el0\"\n"
	/* The step exception (current EL, SPx, synchronous) goes back to the probe. */
	".balign 0x800\n"
	"step_vectors:\n"
	".rept 4\n"
	".balign 0x80\n"
	"b .\n"
	".endr\n"
	".balign 0x80\n"
	"mrs x0, elr_el1\n"
	"mrs x1, esr_el1\n"
	"mrs x3, spsr_el1\n"
	"br x13\n"
	".rept 11\n"
	".balign 0x80\n"
	"b .\n"
	".endr\n");

struct step {
	uint64_t off, esr, spsr;
};

#define STEP(fn)                                                                               \
	({                                                                                     \
		register uint64_t x0 __asm__("x0"), x1 __asm__("x1"), x3 __asm__("x3");        \
		__asm__ volatile("bl " #fn                                                     \
				 : "=r"(x0), "=r"(x1), "=r"(x3)                                \
				 :                                                             \
				 : "x2", "x9", "x10", "x11", "x12", "x13", "x30", "memory",    \
				   "cc");                                                      \
		(struct step){x0, x1, x3};                                                     \
	})

#define EC_SOFTSTEP_CUR 0x33 /* software step, taken to the current EL */
#define BTYPE (3ul << 10)

/* The step came right after the instruction, as a step, with BTYPE 0. */
static void check_step(struct step s, const char *what)
{
	check(s.off == 4 && s.esr >> 26 == EC_SOFTSTEP_CUR && !(s.spsr & BTYPE), what,
	      "ELR_EL1 - instruction %lu, ESR_EL1 0x%lx, SPSR_EL1 0x%lx", s.off, s.esr, s.spsr);
}

void test_main(void)
{
	pmu_reset();
	wr(pmselr_el0, 0);
	check_step(STEP(step_mov), "step: MOV, not trapped");
	check_step(STEP(step_pmccntr), "step: MRS PMCCNTR_EL0, trapped");
	check_step(STEP(step_pmevcntr), "step: MRS PMEVCNTR0_EL0, trapped");
	check_step(STEP(step_pmxevcntr), "step: MRS PMXEVCNTR_EL0, trapped");
	check_step(STEP(step_pmcr), "step: MRS PMCR_EL0, trapped (C)");
	done();
}
