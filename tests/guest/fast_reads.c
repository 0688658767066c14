/* SPDX-License-Identifier: MIT */
/*
 * Counter reads into every register: MRS of PMCCNTR_EL0, PMEVCNTR1_EL0 and PMXEVCNTR_EL0
 * (PMSELR_EL0.SEL = 1) with each Rt, x0..x30 and XZR, from EL1 and from EL0, write Rt alone,
 * with the counter's value, whichever way the hypervisor answers them (its fast trap path
 * writes Rt through a table: x0..x3 through its frame, the others in place). From EL0 with
 * PMUSERENR_EL0 = 0 every one of them goes to the guest's EL1 instead.
 */
#include "pmu.h"

/* read_<r>_<rt>(uint64_t out[31]): x0..x30 = 0x5A00 + i, the MRS into Rt, x0..x30 to out. */
__asm__(".macro read_probe name, reg, rt\n"
	".global \\name\n"
	"\\name:\n"
	"sub sp, sp, #128\n"
	"stp x18, x19, [sp, #0]\n"
	"stp x20, x21, [sp, #16]\n"
	"stp x22, x23, [sp, #32]\n"
	"stp x24, x25, [sp, #48]\n"
	"stp x26, x27, [sp, #64]\n"
	"stp x28, x29, [sp, #80]\n"
	"stp x30, x0, [sp, #96]\n"
	".irp i, "
	"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n"
	"mov x\\i, #(0x5A00 + \\i)\n"
	".endr\n"
	"mrs x\\rt, \\reg\n"
	"sub sp, sp, #256\n"
	"stp x0, x1, [sp, #0]\n"
	"stp x2, x3, [sp, #16]\n"
	"stp x4, x5, [sp, #32]\n"
	"stp x6, x7, [sp, #48]\n"
	"stp x8, x9, [sp, #64]\n"
	"stp x10, x11, [sp, #80]\n"
	"stp x12, x13, [sp, #96]\n"
	"stp x14, x15, [sp, #112]\n"
	"stp x16, x17, [sp, #128]\n"
	"stp x18, x19, [sp, #144]\n"
	"stp x20, x21, [sp, #160]\n"
	"stp x22, x23, [sp, #176]\n"
	"stp x24, x25, [sp, #192]\n"
	"stp x26, x27, [sp, #208]\n"
	"stp x28, x29, [sp, #224]\n"
	"str x30, [sp, #240]\n"
	"ldr x0, [sp, #(256 + 104)]\n"
	"mov x1, #0\n"
	"1: ldr x2, [sp, x1, lsl #3]\n"
	"str x2, [x0, x1, lsl #3]\n"
	"add x1, x1, #1\n"
	"cmp x1, #31\n"
	"b.ne 1b\n"
	"add sp, sp, #256\n"
	"ldp x18, x19, [sp, #0]\n"
	"ldp x20, x21, [sp, #16]\n"
	"ldp x22, x23, [sp, #32]\n"
	"ldp x24, x25, [sp, #48]\n"
	"ldp x26, x27, [sp, #64]\n"
	"ldp x28, x29, [sp, #80]\n"
	"ldr x30, [sp, #96]\n"
	"add sp, sp, #128\n"
	"ret\n"
	".endm\n"
	".macro read_probes r, reg\n"
	".irp rt, "
	"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
	"zr\n"
	"read_probe read_\\r\\()_\\rt, \\reg, \\rt\n"
	".endr\n"
	".balign 8\n"
	".global reads_\\r\n"
	"reads_\\r:\n"
	".irp rt, "
	"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
	"zr\n"
	".quad read_\\r\\()_\\rt\n"
	".endr\n"
	".endm\n"
	"read_probes cc, pmccntr_el0\n"
	"read_probes ev, pmevcntr1_el0\n"
	"read_probes xev, pmxevcntr_el0\n");

typedef void read_fn(uint64_t *out);
extern read_fn *const reads_cc[32], *const reads_ev[32], *const reads_xev[32];

static read_fn *const *const reads[3] = {reads_cc, reads_ev, reads_xev};
static const char *const names[3] = {"PMCCNTR_EL0", "PMEVCNTR1_EL0", "PMXEVCNTR_EL0"};
static uint64_t want[3];

/* Every read with every Rt; the number of registers that are not what they should be. At
 * EL0 (el = 0) nothing is printed: the console is EL1's. */
static uint64_t read_all(uint64_t el)
{
	static uint64_t out[31];
	uint64_t bad = 0;
	for (unsigned r = 0; r < 3; r++)
		for (unsigned rt = 0; rt < 32; rt++) {
			reads[r][rt](out);
			for (unsigned i = 0; i < 31; i++) {
				uint64_t w = i == rt ? want[r] : 0x5A00 + i;
				if (out[i] == w)
					continue;
				if (el)
					gprintf("%s into x%u: x%u = 0x%lx, not 0x%lx\n",
						names[r], rt, i, out[i], w);
				bad++;
			}
		}
	return bad;
}

void test_main(void)
{
	pmu_reset();
	/* Not counting: the values stay what is written. */
	pmevcntr_write(1, 0x13579BDFul);
	wr(pmccntr_el0, 0x0123456789ABCDEFul);
	wr(pmselr_el0, 1);
	want[0] = 0x0123456789ABCDEFul;
	want[1] = want[2] = 0x13579BDFul;
	CHECK_EQ(read_all(1), 0, "EL1: every Rt of the three reads, and Rt alone, written");
	wr(pmuserenr_el0, 1); /* EN */
	CHECK_EQ(run_el0(read_all, 0), 0, "EL0 (PMUSERENR.EN): every Rt, Rt alone written");
	wr(pmuserenr_el0, 0);
	expect_begin(EC_SYS64);
	run_el0(read_all, 0);
	CHECK_EQ(expect_end(), 3 * 32, "EL0 with PMUSERENR 0: every read is EL1's to see");
	done();
}
