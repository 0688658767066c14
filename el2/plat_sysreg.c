/* SPDX-License-Identifier: MIT */
/*
 * The out-of-line half of the EL2 system-register accessors (plat_sysreg.h): what the CPU
 * has, read once, and the switch for keys known only at run time. One switch on the space
 * (Op0, Op1, CRn), then a jump table on CRm:Op2, generated from the register database, so an
 * access costs a handful of instructions (this is on every trapped PMU access).
 */
#include "plat_sysreg.h"

struct plat_feat plat_feat;

#define PLAT_MRS_ID(reg)                                                                       \
	({                                                                                     \
		uint64_t v_;                                                                   \
		__asm__ volatile("mrs %0, " #reg : "=r"(v_));                                  \
		v_;                                                                            \
	})

void plat_init(void)
{
	uint64_t dfr0 = PLAT_MRS_ID(S3_0_C0_C5_0), pfr0 = PLAT_MRS_ID(S3_0_C0_C4_0);
	uint64_t pfr1 = PLAT_MRS_ID(S3_0_C0_C4_1), mmfr0 = PLAT_MRS_ID(S3_0_C0_C7_0);
	unsigned pmuver = PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMUVER);
	plat_feat.pmuver = pmuver == PV_PMUVER_IMPDEF ? PV_PMUVER_NI : pmuver;
	plat_feat.amuver = PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_AMU);
	plat_feat.spever = PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMSVER);
	plat_feat.mpam = PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_MPAM) != 0 ||
			 PV_ID_FIELD(pfr1, PV_ID_AA64PFR1_MPAM_FRAC) != 0;
	plat_feat.fgt = PV_ID_FIELD(mmfr0, PV_ID_AA64MMFR0_FGT) != 0;
	plat_feat.qemu = (PLAT_MRS_ID(S3_0_C0_C0_0) >> 24 & 0xFF) ==
			 0; /* MIDR_EL1.Implementer */
	plat_feat.pmu_line_stale = plat_feat.qemu;
}

uint64_t plat_sysreg_read(uint32_t reg)
{
	return plat_sysreg_read_any(reg);
}

void plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	plat_sysreg_write_any(cpu, reg, val);
}

void pv_plat_psb_csync(struct pv_pcpu *cpu)
{
	(void)cpu;
	__asm__ volatile("hint #17\n\tdsb nsh" ::: "memory"); /* PSB CSYNC; DSB NSH */
}
