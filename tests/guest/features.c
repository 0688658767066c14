/* SPDX-License-Identifier: MIT */
/*
 * What the VM is told and what it gets: ID registers served per VM (HCR_EL2.TID3) say PMUv3p5
 * and no SPE, AMU, MPAM (nor SVE, SME, MTE, whose state this hypervisor does not switch); the
 * registers of those hidden features UNDEF; MIDR/MPIDR are the VM's.
 */
#include "pmu.h"

#define FIELD(v, s) (((v) >> (s)) & 0xF)

void test_main(void)
{
	uint64_t dfr0 = rd(id_aa64dfr0_el1), pfr0 = rd(id_aa64pfr0_el1),
		 pfr1 = rd(id_aa64pfr1_el1);
	gprintf("ID_AA64DFR0 %lx PFR0 %lx PFR1 %lx\n", dfr0, pfr0, pfr1);
	CHECK_EQ(FIELD(dfr0, 8), 6, "id: ID_AA64DFR0_EL1.PMUVer = PMUv3p5");
	CHECK_EQ(FIELD(dfr0, 32), 0, "id: ID_AA64DFR0_EL1.PMSVer = 0 (no SPE)");
	CHECK_EQ(FIELD(dfr0, 44), 0, "id: ID_AA64DFR0_EL1.TraceBuffer = 0");
	CHECK_EQ(FIELD(pfr0, 44), 0, "id: ID_AA64PFR0_EL1.AMU = 0");
	CHECK_EQ(FIELD(pfr0, 40), 0, "id: ID_AA64PFR0_EL1.MPAM = 0");
	CHECK_EQ(FIELD(pfr0, 32), 0, "id: ID_AA64PFR0_EL1.SVE = 0");
	CHECK_EQ(FIELD(pfr1, 16), 0, "id: ID_AA64PFR1_EL1.MPAM_frac = 0");
	CHECK_EQ(FIELD(pfr1, 24), 0, "id: ID_AA64PFR1_EL1.SME = 0");
	CHECK_EQ(FIELD(pfr1, 8), 0, "id: ID_AA64PFR1_EL1.MTE = 0");
	CHECK_EQ(FIELD(rd(id_dfr0_el1), 24), 0, "id: ID_DFR0_EL1.PerfMon = 0 (no AArch32 PMU)");
	CHECK_EQ(rd(mpidr_el1) & 0xFF00FFFFFFul, 0, "id: MPIDR_EL1 affinity 0.0.0.0");
	CHECK(rd(midr_el1) != 0, "id: MIDR_EL1 reads the implementer");

	CHECK_EQ(UNDEFS((void)rd(S3_0_C9_C9_7)), 1, "spe: PMSIDR_EL1 UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_0_C9_C10_7)), 1, "spe: PMBIDR_EL1 UNDEFINED");
	CHECK_EQ(UNDEFS(wr(S3_0_C9_C9_0, 1)), 1, "spe: PMSCR_EL1 write UNDEFINED");
	CHECK_EQ(UNDEFS(wr(S3_0_C9_C10_0, 0)), 1, "spe: PMBLIMITR_EL1 write UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_3_C13_C2_0)), 1, "amu: AMCR_EL0 UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_3_C13_C2_2)), 1, "amu: AMCGCR_EL0 UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_3_C13_C4_0)), 1, "amu: AMEVCNTR00_EL0 UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_0_C10_C4_4)), 1, "mpam: MPAMIDR_EL1 UNDEFINED");
	CHECK_EQ(UNDEFS(wr(S3_0_C10_C5_0, 1)), 1, "mpam: MPAM1_EL1 write UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_0_C10_C5_1)), 1, "mpam: MPAM0_EL1 UNDEFINED");
	/* With CPACR_EL1.ZEN = 0 the hardware traps SVE to the guest's own EL1 first (EC 0x19);
	 * a guest that enables it anyway (ZEN, and FPEN which SVE also needs) reaches
	 * CPTR_EL2.TZ, and gets an UNDEF. */
	uint64_t cpacr = rd(cpacr_el1);
	wr(cpacr_el1, cpacr | (3ul << 16) | (3ul << 20));
	isb();
	CHECK_EQ(UNDEFS(__asm__ volatile(".inst 0x04bf5020" ::
						 : "x0")),
		 1, "sve: RDVL UNDEFINED even with CPACR_EL1.ZEN set (CPTR_EL2.TZ)");
	CHECK_EQ(UNDEFS((void)rd(S3_0_C1_C2_0)), 1, "sve: ZCR_EL1 UNDEFINED");
	wr(cpacr_el1, cpacr);
	isb();
	/* Every ID-group encoding reads without an exception, reserved ones as zero. */
	CHECK_EQ(UNDEFS((void)rd(S3_0_C0_C7_7); (void)rd(S3_0_C0_C3_7); (void)rd(S3_0_C0_C6_3)),
		 0, "id: reserved ID-group encodings read without UNDEF");
	CHECK_EQ(rd(S3_0_C0_C7_7) | rd(S3_0_C0_C6_3), 0, "id: reserved ID-group encodings RAZ");
}
