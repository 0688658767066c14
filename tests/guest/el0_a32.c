/* SPDX-License-Identifier: MIT */
/*
 * AArch32 at EL0 under the hypervisor. The guest's EL1 is AArch64, but where the PE has
 * AArch32 at EL0 (ID_AA64PFR0_EL1.EL0 = 0b0010) its EL0 may run A32 and T32 code, and what
 * EL2 takes from there is an instruction of 2 or 4 bytes (ESR_EL2.IL):
 *   - A32: a loop long enough for the hypervisor to switch it out and back many times (run
 *     beside a busy VM with short slices), then a PMU register access, which MDCR_EL2.TPM
 *     traps with EC 0x03 and which is UNDEFINED for a guest given no AArch32 PMU
 *     (ID_DFR0_EL1.PerfMon): EC 0x00 with IL 1 at the guest's AArch32 EL0 vector, ELR_EL1
 *     the MRC itself;
 *   - T32: a 16-bit WFI, which EL1 lets EL0 run (SCTLR_EL1.nTWI) and HCR_EL2.TWI traps: it
 *     completes as a 2-byte instruction, so the MOVS after it runs (a 4-byte step would skip
 *     it: r0 would stay 0).
 * SVC ends each run. Where the PE has no AArch32 at EL0 the program checks that the field says
 * so and runs nothing.
 *
 * a32.loops=N: the A32 loop's count (default 2,000,000: about 4 ms of instructions).
 */
#include "lib/guest.h"

/* Hand-encoded (the toolchain assembles A64 only), run from where they lie: the guest runs
 * with its MMU off and the VM's stage 2 lets it execute. r0 counts down. */
static const uint32_t a32_code[] __attribute__((aligned(4))) = {
	0xE2500001, /* 0x0: subs r0, r0, #1 */
	0x1AFFFFFD, /* 0x4: bne 0x0 */
	0xEE191F1D, /* 0x8: mrc p15, 0, r1, c9, c13, 0 (PMCCNTR) */
	0xEF000000, /* 0xc: svc #0 */
};

static const uint16_t t32_code[] __attribute__((aligned(4))) = {
	0x3801, /* 0x0: subs r0, #1 */
	0xD1FD, /* 0x2: bne 0x0 */
	0xBF30, /* 0x4: wfi */
	0x2007, /* 0x6: movs r0, #7 */
	0xDF00, /* 0x8: svc #0 */
};

#define SCTLR_NTWI (1ul << 16)
#define CNTV_ENABLE 1ul

void test_main(void)
{
	uint64_t el0 = rd(ID_AA64PFR0_EL1) & 0xF;
	if (el0 != 2) {
		CHECK_EQ(el0, 1, "a32: EL0 is AArch64 only here (ID_AA64PFR0_EL1.EL0)");
		gprintf("a32: skipped: no AArch32 at EL0\n");
		done();
	}
	uint64_t loops = arg_num("a32.loops", 2000000);
	expect_begin(EC_UNKNOWN);
	uint64_t r0 = run_el0_a32(a32_code, loops, false);
	unsigned undefs = expect_end();
	CHECK_EQ(r0 & 0xFFFFFFFF, 0, "a32: the A32 loop ran to its end at AArch32 EL0");
	CHECK_EQ(undefs, 1, "a32: the PMU register access UNDEFINED");
	CHECK_EQ(g_last_vector, 12, "a32: taken at the AArch32 EL0 vector");
	CHECK_EQ(g_last_esr, 1ul << 25, "a32: ESR_EL1 EC 0x00, IL 1 (a 32-bit instruction)");
	CHECK_EQ(g_last_elr, (uint64_t)&a32_code[2], "a32: ELR_EL1 is the MRC");

	/* The WFI's wake-up: the virtual timer, due soon (its interrupt stays pending: EL0
	 * runs with I masked, and nothing here unmasks it). */
	uint64_t sctlr = rd(sctlr_el1);
	wr(sctlr_el1, sctlr | SCTLR_NTWI);
	wr(cntv_cval_el0, rd(cntvct_el0) + 10000);
	wr(cntv_ctl_el0, CNTV_ENABLE);
	isb();
	r0 = run_el0_a32(t32_code, 1000, true);
	wr(cntv_ctl_el0, 0ul);
	wr(sctlr_el1, sctlr);
	isb();
	CHECK_EQ(r0 & 0xFFFFFFFF, 7,
		 "a32: T32's 16-bit WFI completed as 2 bytes, the MOVS after it ran");
	done();
}
