/* SPDX-License-Identifier: MIT */
/*
 * The AMU model alone, bare metal at EL2, EL1 and EL0, against the Arm ARM: the ID fields
 * (D24.2.93, D24.6.1 to D24.6.3), the group 0 events and the auxiliary ones (D16.3),
 * INST_RETIRED exact on a known loop under icount, CNT_CYCLES against CNTPCT_EL0, the enables,
 * writes only at the highest EL, AMUSERENR_EL0.EN for EL0, CPTR_EL2.TAM and HAFGRTR_EL2
 * (D24.2.61) with EC 0x18 and the ISS, RES0 bits.
 * Which version it checks follows ID_AA64PFR0_EL1.AMU (it says so in its "amu version:"
 * line, which tests/hw/run.sh compares with the mode):
 *   FEAT_AMUv1p1 (-cpu max,pv-amu=on): AMCG1IDR_EL0, AMCR_EL0.CG1RZ, and the virtual offsets
 *     of counters 0, 2 and 3 below EL2 with HCR_EL2.AMVOFFEN (D16.2.5, D24.6.11);
 *   FEAT_AMUv1 (-cpu max,pv-amu=v1): none of these, as the Arm ARM has them only with
 *     FEAT_AMUv1p1: AMCG1IDR_EL0 UNDEFINED at EL2, EL1 and EL0 (D24.6.2), the
 *     AMEVCNTVOFF0<n>_EL2 and AMEVCNTVOFF1<n>_EL2 at EL2 and EL1 (D16.2.5, D24.6.11),
 *     AMCR_EL0.CG1RZ RES0 (D24.6.8), HCR_EL2.AMVOFFEN RES0 (D24.2.62) and no offset in EL1's
 *     and EL0's reads (D24.6.9); HAFGRTR_EL2 is there as with FEAT_AMUv1p1 (it needs
 *     FEAT_AMUv1 and FEAT_FGT, D24.2.61).
 * The checks of one version alone (the amu_v1_ ones for FEAT_AMUv1, those in v1p1_checks[]
 * for FEAT_AMUv1p1) pass on the other version with a note line saying so, so that every run
 * prints the same checks. Without the model (stock QEMU) ID_AA64PFR0_EL1.AMU is 0 and the
 * registers are UNDEFINED: amu_id_agrees passes there too, every other check fails with
 * "no AMU".
 */
#include "hw.h"

#define AMCR S3_3_C13_C2_0
#define AMCFGR S3_3_C13_C2_1
#define AMCGCR S3_3_C13_C2_2
#define AMUSERENR S3_3_C13_C2_3
#define AMCNTENCLR0 S3_3_C13_C2_4
#define AMCNTENSET0 S3_3_C13_C2_5
#define AMCG1IDR S3_3_C13_C2_6
#define AMCNTENCLR1 S3_3_C13_C3_0
#define AMCNTENSET1 S3_3_C13_C3_1
#define AMEVCNTR00 S3_3_C13_C4_0
#define AMEVCNTR01 S3_3_C13_C4_1
#define AMEVCNTR02 S3_3_C13_C4_2
#define AMEVCNTR03 S3_3_C13_C4_3
#define AMEVTYPER00 S3_3_C13_C6_0
#define AMEVTYPER01 S3_3_C13_C6_1
#define AMEVTYPER02 S3_3_C13_C6_2
#define AMEVTYPER03 S3_3_C13_C6_3
#define AMEVCNTR10 S3_3_C13_C12_0
#define AMEVCNTR11 S3_3_C13_C12_1
#define AMEVCNTR12 S3_3_C13_C12_2
#define AMEVTYPER10 S3_3_C13_C14_0
#define AMEVTYPER12 S3_3_C13_C14_2
#define AMEVCNTVOFF00 S3_4_C13_C8_0
#define AMEVCNTVOFF01 S3_4_C13_C8_1
#define AMEVCNTVOFF02 S3_4_C13_C8_2
#define AMEVCNTVOFF03 S3_4_C13_C8_3
#define AMEVCNTVOFF10 S3_4_C13_C10_0
#define AMEVCNTVOFF11 S3_4_C13_C10_1
#define AMEVCNTVOFF12 S3_4_C13_C10_2
#define HAFGRTR_EL2 S3_4_C3_C1_6

#define CPTR_TAM (1UL << 30)
#define HCR_AMVOFFEN (1UL << 51)
#define HCR_TGE (1UL << 27)
#define HAFGRTR_AMEVCNTR0(x) (1UL << ((x) + 1))
#define HAFGRTR_AMCNTEN0 1UL
#define HAFGRTR_AMEVTYPER1(x) (1UL << (19 + 2 * (x)))
/* AMCR_EL0 (D24.6.8): HDBG, and CG1RZ with FEAT_AMUv1p1 only */
#define AMCR_HDBG (1UL << 10)
#define AMCR_CG1RZ (1UL << 17)

#define LOOP 1000

/* The CPU has the AMU; FEAT_AMUv1p1 (ID_AA64PFR0_EL1.AMU 0b0010) rather than FEAT_AMUv1. */
static bool amu, v1p1;

static void absent(const char *name)
{
	hw_check(false, name, "no AMU (ID_AA64PFR0_EL1.AMU is 0)");
}

/*
 * A check of the version of the AMU the CPU does not have: passed, with a note line after it
 * saying so, so that both versions' runs print every check.
 */
static void other_version(const char *name)
{
	hw_check(true, name, "%s", "");
	hw_printf("    %s: a check of %s alone, not run: this CPU has %s\n", name,
		  v1p1 ? "FEAT_AMUv1" : "FEAT_AMUv1p1", v1p1 ? "FEAT_AMUv1p1" : "FEAT_AMUv1");
}

/* A counter around LOOP iterations of SUBS and B.NE: the second MRS and 2 * LOOP. */
#define COUNT_LOOP(reg)                                                                        \
	({                                                                                     \
		uint64_t a_, b_, n_ = LOOP;                                                    \
		__asm__ volatile("mrs %0, " HW_XSTR(reg) "\n"                                  \
							 "1: subs %2, %2, #1\n"                \
							 "b.ne 1b\n"                           \
							 "mrs %1, " HW_XSTR(reg)               \
				 : "=&r"(a_), "=&r"(b_), "+r"(n_)                              \
				 :                                                             \
				 : "cc");                                                      \
		b_ - a_;                                                                       \
	})

static uint64_t inst_loop(void)
{
	return COUNT_LOOP(AMEVCNTR02);
}

/*
 * FEAT_AMUv1 has none of FEAT_AMUv1p1's offset registers (D24.6.11 for AMEVCNTVOFF0<n>_EL2,
 * and the same for AMEVCNTVOFF1<n>_EL2: "present only when FEAT_AMUv1p1 is implemented"):
 * each read and write UNDEFINED at EL2. The accesses that were not, one bit each: reads of
 * AMEVCNTVOFF00, 02, 03, 10, 11_EL2, then writes.
 */
static unsigned v1_voff_accessible(void)
{
	unsigned undef = 0;

	undef |= (unsigned)HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF00)) << 0;
	undef |= (unsigned)HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF02)) << 1;
	undef |= (unsigned)HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF03)) << 2;
	undef |= (unsigned)HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF10)) << 3;
	undef |= (unsigned)HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF11)) << 4;
	undef |= (unsigned)HW_EL2_UNDEF(WRITE_SYSREG(AMEVCNTVOFF00, 1)) << 5;
	undef |= (unsigned)HW_EL2_UNDEF(WRITE_SYSREG(AMEVCNTVOFF02, 1)) << 6;
	undef |= (unsigned)HW_EL2_UNDEF(WRITE_SYSREG(AMEVCNTVOFF03, 1)) << 7;
	undef |= (unsigned)HW_EL2_UNDEF(WRITE_SYSREG(AMEVCNTVOFF10, 1)) << 8;
	undef |= (unsigned)HW_EL2_UNDEF(WRITE_SYSREG(AMEVCNTVOFF11, 1)) << 9;
	return ~undef & 0x3ff;
}

static void check_ids(void)
{
	uint64_t pfr0 = READ_SYSREG(id_aa64pfr0_el1), ver = (pfr0 >> 44) & 0xf;
	bool undef = HW_EL2_UNDEF((void)READ_SYSREG(AMCFGR));

	amu = ver != 0;
	hw_check(amu != undef, "amu_id_agrees", "ID_AA64PFR0_EL1.AMU %llu, AMCFGR_EL0 %s",
		 (unsigned long long)ver, undef ? "UNDEFINED" : "accessible");
	if (!amu) {
		return;
	}
	/* D24.2.93: 0b0001 FEAT_AMUv1, 0b0010 FEAT_AMUv1p1, the other values reserved */
	v1p1 = ver >= 2;
	hw_printf("amu version: %s\n", ver == 1   ? "FEAT_AMUv1"
				       : ver == 2 ? "FEAT_AMUv1p1"
						  : "reserved");
	if (v1p1) {
		HW_CHECK_EQ("amu_id_v1p1", ver, 2);
	} else {
		HW_CHECK_EQ("amu_v1_id", ver, 1);
	}
	/* NCG 1 (two groups), HDBG, SIZE 63, N 6 (seven counters) */
	HW_CHECK_EQ("amu_amcfgr", READ_SYSREG(AMCFGR),
		    (1UL << 28) | (1UL << 24) | (63UL << 8) | 6);
	HW_CHECK_EQ("amu_amcgcr", READ_SYSREG(AMCGCR), (3UL << 8) | 4);
	if (v1p1) {
		/* counters 0..2, offsets on 0 and 1 */
		HW_CHECK_EQ("amu_amcg1idr", READ_SYSREG(AMCG1IDR), (3UL << 16) | 7);
	} else {
		/* present only with FEAT_AMUv1p1 (D24.6.2) */
		hw_check(HW_EL2_UNDEF((void)READ_SYSREG(AMCG1IDR)), "amu_v1_amcg1idr_undef",
			 "AMCG1IDR_EL0 accessible at EL2");
	}
	hw_check(READ_SYSREG(AMEVTYPER00) == 0x11 && READ_SYSREG(AMEVTYPER01) == 0x4004 &&
			 READ_SYSREG(AMEVTYPER02) == 0x8 && READ_SYSREG(AMEVTYPER03) == 0x4005,
		 "amu_group0_types",
		 "not CPU_CYCLES, CNT_CYCLES, INST_RETIRED, STALL_BACKEND_MEM");
	hw_check(READ_SYSREG(AMEVTYPER10) == 0xc0 && READ_SYSREG(AMEVTYPER12) == 0xc2,
		 "amu_group1_types", "not 0xc0..0xc2");
	hw_check(HW_EL2_UNDEF(WRITE_SYSREG(AMEVTYPER10, 0x11)), "amu_evtyper_fixed",
		 "a write of a fixed type did not UNDEF");
	hw_check(HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF01)) &&
			 HW_EL2_UNDEF((void)READ_SYSREG(AMEVCNTVOFF12)),
		 "amu_no_offset_undef", "AMEVCNTVOFF01_EL2 or AMEVCNTVOFF12_EL2 accessible");
	if (!v1p1) {
		unsigned accessible = v1_voff_accessible();

		hw_check(accessible == 0, "amu_v1_voff_undef",
			 "accessible at EL2: %#x (reads of 00, 02, 03, 10, 11, then writes)",
			 accessible);
	}
}

static void check_counts(void)
{
	uint64_t a, b, c, d, got;

	WRITE_SYSREG(AMCNTENSET0, 0xf);
	WRITE_SYSREG(AMCNTENSET1, 0x7);
	ISB();
	HW_CHECK_EQ("amu_enables", READ_SYSREG(AMCNTENSET0) | READ_SYSREG(AMCNTENCLR1) << 8,
		    0x70f);
	/* the second MRS, the LOOP SUBS and B.NE, the last not taken */
	got = inst_loop();
	HW_CHECK_EQ("amu_inst_retired_exact", got, 2 * LOOP + 1);
	/* one cycle per instruction in the model */
	HW_CHECK_EQ("amu_cpu_cycles", COUNT_LOOP(AMEVCNTR00), 2 * LOOP + 1);
	a = READ_SYSREG(cntpct_el0);
	b = READ_SYSREG(AMEVCNTR01);
	(void)inst_loop();
	c = READ_SYSREG(AMEVCNTR01);
	d = READ_SYSREG(cntpct_el0);
	hw_check(c - b > 0 && c - b <= d - a && (d - a) - (c - b) <= 8, "amu_cnt_cycles",
		 "CNT_CYCLES advanced %llu, CNTPCT_EL0 %llu", (unsigned long long)(c - b),
		 (unsigned long long)(d - a));
	a = READ_SYSREG(AMEVCNTR03);
	(void)inst_loop();
	HW_CHECK_EQ("amu_stall_backend_mem", READ_SYSREG(AMEVCNTR03) - a, 0);
	HW_CHECK_EQ("amu_aux_el2_insns", COUNT_LOOP(AMEVCNTR12), 2 * LOOP + 1);
	/* disabled: frozen */
	WRITE_SYSREG(AMCNTENCLR0, 1UL << 2);
	ISB();
	a = READ_SYSREG(AMEVCNTR02);
	(void)inst_loop();
	HW_CHECK_EQ("amu_disabled_frozen", READ_SYSREG(AMEVCNTR02) - a, 0);
	WRITE_SYSREG(AMEVCNTR02, 1000000);
	HW_CHECK_EQ("amu_write_el2", READ_SYSREG(AMEVCNTR02), 1000000);
	WRITE_SYSREG(AMCNTENSET0, 1UL << 2);
	ISB();
	/* RES0 */
	WRITE_SYSREG(AMCR, ~0UL);
	if (v1p1) {
		HW_CHECK_EQ("amu_amcr_res0", READ_SYSREG(AMCR), AMCR_CG1RZ | AMCR_HDBG);
	} else {
		/* CG1RZ is RES0 without FEAT_AMUv1p1 (D24.6.8) */
		HW_CHECK_EQ("amu_v1_amcr_cg1rz_res0", READ_SYSREG(AMCR), AMCR_HDBG);
	}
	WRITE_SYSREG(AMCR, 0);
	WRITE_SYSREG(AMUSERENR, ~0UL);
	HW_CHECK_EQ("amu_amuserenr_res0", READ_SYSREG(AMUSERENR), 1);
	WRITE_SYSREG(AMUSERENR, 0);
	WRITE_SYSREG(AMCNTENSET0, ~0UL);
	HW_CHECK_EQ("amu_amcntenset0_res0", READ_SYSREG(AMCNTENSET0), 0xf);
}

/* ---- Below EL2 ---------------------------------------------------------------------------- */

static uint64_t outcome, value;

static uint64_t lower_read_cfgr(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMCFGR));
	return 0;
}

static uint64_t lower_read_cnt2(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMEVCNTR02));
	return 0;
}

static uint64_t lower_read_cnt0(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMEVCNTR00));
	return 0;
}

static uint64_t lower_read_cnt1(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMEVCNTR01));
	return 0;
}

static uint64_t lower_read_type12(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMEVTYPER12));
	return 0;
}

static uint64_t lower_read_cg1idr(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMCG1IDR));
	return 0;
}

static uint64_t lower_read_voff00(uint64_t arg)
{
	(void)arg;
	outcome = HW_OUTCOME(value = READ_SYSREG(AMEVCNTVOFF00));
	return 0;
}

static uint64_t lower_write_cnt2(uint64_t arg)
{
	outcome = HW_OUTCOME(WRITE_SYSREG(AMEVCNTR02, arg));
	return 0;
}

static uint64_t lower_write_userenr(uint64_t arg)
{
	outcome = HW_OUTCOME(WRITE_SYSREG(AMUSERENR, arg));
	return 0;
}

static uint64_t lower_read_aux11(uint64_t arg)
{
	(void)arg;
	return COUNT_LOOP(AMEVCNTR11);
}

static bool trapped_el2(uint64_t iss)
{
	return hw_outcome_is(outcome, HW_AT_EL2, HW_EC_SYS64, iss);
}

static bool undef_el1(uint64_t got)
{
	return hw_outcome_is(got, HW_AT_EL1, HW_EC_UNKNOWN, 0);
}

#define ISS_CFGR HW_ISS_SYS64(3, 3, 13, 2, 1, 1)
#define ISS_CNT2 HW_ISS_SYS64(3, 3, 13, 4, 2, 1)
#define ISS_TYPER12 HW_ISS_SYS64(3, 3, 13, 14, 2, 1)

/* FEAT_AMUv1p1's virtual offsets: 0, 2 and 3 below EL2 with AMVOFFEN; never 1; never at EL2. */
static void check_offsets(uint64_t hcr)
{
	uint64_t before, after;

	WRITE_SYSREG(AMEVCNTVOFF02, 500);
	WRITE_SYSREG(AMEVCNTVOFF00, 700);
	WRITE_SYSREG(AMEVCNTVOFF10, 9);
	HW_CHECK_EQ("amu_voff_readback",
		    READ_SYSREG(AMEVCNTVOFF02) + READ_SYSREG(AMEVCNTVOFF10), 509);
	before = READ_SYSREG(AMEVCNTR02);
	hw_run_lower(lower_read_cnt2, 0, 1);
	after = READ_SYSREG(AMEVCNTR02);
	hw_check(value > before && value < after, "amu_voff_off",
		 "no AMVOFFEN: %llu not in (%llu, %llu)", (unsigned long long)value,
		 (unsigned long long)before, (unsigned long long)after);
	WRITE_SYSREG(hcr_el2, hcr | HCR_AMVOFFEN);
	ISB();
	hw_check(READ_SYSREG(hcr_el2) & HCR_AMVOFFEN, "amu_hcr_amvoffen",
		 "HCR_EL2.AMVOFFEN reads 0");
	before = READ_SYSREG(AMEVCNTR02);
	hw_run_lower(lower_read_cnt2, 0, 1);
	after = READ_SYSREG(AMEVCNTR02);
	hw_check(value + 500 > before && value + 500 < after, "amu_voff_el1_cnt2",
		 "%llu + 500 not in (%llu, %llu)", (unsigned long long)value,
		 (unsigned long long)before, (unsigned long long)after);
	WRITE_SYSREG(AMUSERENR, 1);
	before = READ_SYSREG(AMEVCNTR00);
	hw_run_lower(lower_read_cnt0, 0, 0);
	after = READ_SYSREG(AMEVCNTR00);
	hw_check(value + 700 > before && value + 700 < after, "amu_voff_el0_cnt0",
		 "%llu + 700 not in (%llu, %llu)", (unsigned long long)value,
		 (unsigned long long)before, (unsigned long long)after);
	before = READ_SYSREG(AMEVCNTR01);
	hw_run_lower(lower_read_cnt1, 0, 1);
	after = READ_SYSREG(AMEVCNTR01);
	hw_check(value > before && value < after, "amu_voff_none_cnt1",
		 "CNT_CYCLES %llu not in (%llu, %llu)", (unsigned long long)value,
		 (unsigned long long)before, (unsigned long long)after);
	before = READ_SYSREG(AMEVCNTR02);
	after = READ_SYSREG(AMEVCNTR02);
	hw_check(after - before < 8, "amu_voff_not_el2", "EL2's reads offset");
	WRITE_SYSREG(AMUSERENR, 0);
	WRITE_SYSREG(hcr_el2, hcr);
	ISB();
}

/*
 * FEAT_AMUv1: AMCG1IDR_EL0 UNDEFINED below EL2 too, before CPTR_EL2.TAM's trap and
 * AMUSERENR_EL0.EN's (D24.6.2: "if !IsFeatureImplemented(FEAT_AMUv1p1) then UNDEFINED" comes
 * first); HCR_EL2.AMVOFFEN RES0 (D24.2.62) and no offset in EL1's and EL0's reads, which are
 * the physical count (D24.6.9: the offset needs FEAT_AMUv1p1).
 */
static void check_no_offsets(uint64_t hcr, uint64_t cptr)
{
	uint64_t before, after, el1;

	WRITE_SYSREG(cptr_el2, cptr | CPTR_TAM);
	ISB();
	hw_run_lower(lower_read_cg1idr, 0, 1);
	el1 = outcome;
	WRITE_SYSREG(cptr_el2, cptr);
	ISB();
	hw_run_lower(lower_read_cg1idr, 0, 0);
	hw_check(undef_el1(el1) && undef_el1(outcome), "amu_v1_amcg1idr_lower_undef",
		 "EL1's read of AMCG1IDR_EL0 with CPTR_EL2.TAM: %#llx, EL0's without "
		 "AMUSERENR_EL0.EN: %#llx",
		 (unsigned long long)el1, (unsigned long long)outcome);

	WRITE_SYSREG(hcr_el2, hcr | HCR_AMVOFFEN);
	ISB();
	hw_check(!(READ_SYSREG(hcr_el2) & HCR_AMVOFFEN), "amu_v1_hcr_amvoffen_res0",
		 "HCR_EL2.AMVOFFEN reads 1");
	before = READ_SYSREG(AMEVCNTR02);
	hw_run_lower(lower_read_cnt2, 0, 1);
	after = READ_SYSREG(AMEVCNTR02);
	hw_check(outcome == HW_DONE && value > before && value < after,
		 "amu_v1_no_voff_el1_cnt2", "AMVOFFEN written 1: %llu not in (%llu, %llu)",
		 (unsigned long long)value, (unsigned long long)before,
		 (unsigned long long)after);
	WRITE_SYSREG(AMUSERENR, 1);
	before = READ_SYSREG(AMEVCNTR00);
	hw_run_lower(lower_read_cnt0, 0, 0);
	after = READ_SYSREG(AMEVCNTR00);
	hw_check(outcome == HW_DONE && value > before && value < after,
		 "amu_v1_no_voff_el0_cnt0", "AMVOFFEN written 1: %llu not in (%llu, %llu)",
		 (unsigned long long)value, (unsigned long long)before,
		 (unsigned long long)after);
	WRITE_SYSREG(AMUSERENR, 0);
	WRITE_SYSREG(hcr_el2, hcr);
	ISB();
}

static void check_lower(void)
{
	uint64_t cptr = READ_SYSREG(cptr_el2), hcr = READ_SYSREG(hcr_el2), got;

	hw_el2_take_lower_traps = true;
	hw_run_lower(lower_read_cfgr, 0, 1);
	hw_check(outcome == HW_DONE && value == READ_SYSREG(AMCFGR), "amu_el1_read",
		 "EL1's read of AMCFGR_EL0: %#llx", (unsigned long long)outcome);
	hw_run_lower(lower_write_cnt2, 5, 1);
	hw_check(hw_outcome_is(outcome, HW_AT_EL1, HW_EC_UNKNOWN, 0), "amu_el1_write_undef",
		 "EL1's write of AMEVCNTR02_EL0: %#llx", (unsigned long long)outcome);
	HW_CHECK_EQ("amu_aux_el1_insns", hw_run_lower(lower_read_aux11, 0, 1), 2 * LOOP + 1);

	/* AMCR_EL0.CG1RZ, FEAT_AMUv1p1: group 1 reads zero below EL2 (D24.6.8, D24.6.10) */
	WRITE_SYSREG(AMCR, AMCR_CG1RZ);
	ISB();
	got = hw_run_lower(lower_read_aux11, 0, 1);
	if (v1p1) {
		hw_check(got == 0 && READ_SYSREG(AMEVCNTR11) != 0, "amu_cg1rz_el1_zero",
			 "with CG1RZ, EL1's AMEVCNTR11_EL0 advanced %llu, EL2's reads %llu",
			 (unsigned long long)got, (unsigned long long)READ_SYSREG(AMEVCNTR11));
	} else {
		/* RES0 (amu_v1_amcr_cg1rz_res0): no effect */
		HW_CHECK_EQ("amu_v1_cg1rz_no_effect", got, 2 * LOOP + 1);
	}
	WRITE_SYSREG(AMCR, 0);
	ISB();

	/* CPTR_EL2.TAM */
	WRITE_SYSREG(cptr_el2, cptr | CPTR_TAM);
	ISB();
	hw_run_lower(lower_read_cfgr, 0, 1);
	hw_check(trapped_el2(ISS_CFGR), "amu_tam_el1", "EL1's read with TAM: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(AMUSERENR, 1);
	hw_run_lower(lower_read_cnt2, 0, 0);
	hw_check(trapped_el2(ISS_CNT2), "amu_tam_el0", "EL0's read with TAM and EN: %#llx",
		 (unsigned long long)outcome);
	hw_check(!HW_EL2_UNDEF((void)READ_SYSREG(AMCFGR)), "amu_tam_not_el2",
		 "TAM trapped EL2's own access");
	WRITE_SYSREG(cptr_el2, cptr);
	ISB();

	/* AMUSERENR_EL0.EN at EL0 (to EL1: HCR_EL2.TGE is 0) */
	hw_run_lower(lower_read_cnt2, 0, 0);
	hw_check(outcome == HW_DONE, "amu_el0_en", "EL0's read with EN: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(AMUSERENR, 0);
	hw_run_lower(lower_read_cnt2, 0, 0);
	hw_check(hw_outcome_is(outcome, HW_AT_EL1, HW_EC_SYS64, ISS_CNT2), "amu_el0_no_en",
		 "EL0's read without EN: %#llx", (unsigned long long)outcome);
	hw_run_lower(lower_write_userenr, 1, 0);
	hw_check(hw_outcome_is(outcome, HW_AT_EL1, HW_EC_UNKNOWN, 0), "amu_el0_userenr_write",
		 "EL0's write of AMUSERENR_EL0: %#llx", (unsigned long long)outcome);

	/*
	 * HAFGRTR_EL2, with FEAT_AMUv1 or FEAT_AMUv1p1 and FEAT_FGT (D24.2.61): AMCNTEN0 and
	 * AMEVCNTR0<0..3>; AMCNTEN1, then AMEVCNTR1<x> and AMEVTYPER1<x> for x = 0..2 (bits 17
	 * to 23); the others RES0.
	 */
	WRITE_SYSREG(HAFGRTR_EL2, ~0UL);
	HW_CHECK_EQ("amu_hafgrtr_res0", READ_SYSREG(HAFGRTR_EL2), 0x1fUL | (0x7fUL << 17));
	WRITE_SYSREG(HAFGRTR_EL2, HAFGRTR_AMEVCNTR0(2));
	ISB();
	hw_run_lower(lower_read_cnt2, 0, 1);
	hw_check(trapped_el2(ISS_CNT2), "amu_fgt_amevcntr02", "EL1's read: %#llx",
		 (unsigned long long)outcome);
	hw_run_lower(lower_read_cnt0, 0, 1);
	hw_check(outcome == HW_DONE, "amu_fgt_only_its_counter", "EL1's read of 00: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(HAFGRTR_EL2, HAFGRTR_AMEVTYPER1(2));
	ISB();
	hw_run_lower(lower_read_type12, 0, 1);
	hw_check(trapped_el2(ISS_TYPER12), "amu_fgt_amevtyper12", "EL1's read: %#llx",
		 (unsigned long long)outcome);
	WRITE_SYSREG(HAFGRTR_EL2, 0);
	ISB();

	/* The offset registers are EL2's: UNDEFINED at EL1 with HCR_EL2.NV 0 (D24.6.11) */
	hw_run_lower(lower_read_voff00, 0, 1);
	hw_check(undef_el1(outcome), "amu_voff_el1_undef",
		 "EL1's read of AMEVCNTVOFF00_EL2: %#llx", (unsigned long long)outcome);
	if (v1p1) {
		check_offsets(hcr);
	} else {
		check_no_offsets(hcr, cptr);
	}
	hw_el2_take_lower_traps = false;
}

/* The checks each run prints: both versions', FEAT_AMUv1p1's alone, FEAT_AMUv1's alone. */
static const char *const common_checks[] = {
	"amu_amcfgr",
	"amu_amcgcr",
	"amu_group0_types",
	"amu_group1_types",
	"amu_evtyper_fixed",
	"amu_no_offset_undef",
	"amu_enables",
	"amu_inst_retired_exact",
	"amu_cpu_cycles",
	"amu_cnt_cycles",
	"amu_stall_backend_mem",
	"amu_aux_el2_insns",
	"amu_disabled_frozen",
	"amu_write_el2",
	"amu_amuserenr_res0",
	"amu_amcntenset0_res0",
	"amu_el1_read",
	"amu_el1_write_undef",
	"amu_aux_el1_insns",
	"amu_tam_el1",
	"amu_tam_el0",
	"amu_tam_not_el2",
	"amu_el0_en",
	"amu_el0_no_en",
	"amu_el0_userenr_write",
	"amu_hafgrtr_res0",
	"amu_fgt_amevcntr02",
	"amu_fgt_only_its_counter",
	"amu_fgt_amevtyper12",
	"amu_voff_el1_undef",
};
static const char *const v1p1_checks[] = {
	"amu_id_v1p1",       "amu_amcg1idr",       "amu_amcr_res0",    "amu_cg1rz_el1_zero",
	"amu_voff_readback", "amu_voff_off",       "amu_hcr_amvoffen", "amu_voff_el1_cnt2",
	"amu_voff_el0_cnt0", "amu_voff_none_cnt1", "amu_voff_not_el2",
};
static const char *const v1_checks[] = {
	"amu_v1_id",
	"amu_v1_amcg1idr_undef",
	"amu_v1_voff_undef",
	"amu_v1_amcr_cg1rz_res0",
	"amu_v1_cg1rz_no_effect",
	"amu_v1_amcg1idr_lower_undef",
	"amu_v1_hcr_amvoffen_res0",
	"amu_v1_no_voff_el1_cnt2",
	"amu_v1_no_voff_el0_cnt0",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int main(void)
{
	unsigned i;

	check_ids();
	if (!amu) {
		for (i = 0; i < COUNT(common_checks); i++) {
			absent(common_checks[i]);
		}
		for (i = 0; i < COUNT(v1p1_checks); i++) {
			absent(v1p1_checks[i]);
		}
		for (i = 0; i < COUNT(v1_checks); i++) {
			absent(v1_checks[i]);
		}
		hw_done();
	}
	check_counts();
	check_lower();
	if (v1p1) {
		for (i = 0; i < COUNT(v1_checks); i++) {
			other_version(v1_checks[i]);
		}
	} else {
		for (i = 0; i < COUNT(v1p1_checks); i++) {
			other_version(v1p1_checks[i]);
		}
	}
	hw_done();
}
