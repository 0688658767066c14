/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) on real hardware: every register key
 * the core may use becomes a real MRS/MSR, written with its generic S<op0>_<op1>_C<n>_C<m>_<op2>
 * name so no assembler feature flag is needed. The switches are generated from register lists:
 * one switch on the group (Op0, Op1, CRn), then a jump table on CRm:Op2, so an access costs a
 * handful of instructions (this is on every trapped PMU access).
 * Registers of features the CPU lacks (SPE, AMU, MPAM, PMMIR_EL1 before PMUv3p4) would UNDEF
 * at EL2: they read 0 and ignore writes, as do keys the platform does not know.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

/* Registers are listed per group (Op0, Op1, CRn); within a group the switch is on
 * CRm:Op2, dense enough for a jump table. */
#define GROUP_MASK (PV_ISS_SYS_KEY_MASK & ~(0xFu << PV_ISS_SYS_CRM_SHIFT) &                      \
		    ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define GROUP(op0, op1, crn) PV_SYSREG(op0, op1, crn, 0, 0)
#define DENSE(k) (PV_SYSREG_CRM(k) * 8u + PV_SYSREG_OP2(k))

#define SEQ7(X, a, b, c, d) X(a, b, c, d, 0) X(a, b, c, d, 1) X(a, b, c, d, 2) X(a, b, c, d, 3)    \
	X(a, b, c, d, 4) X(a, b, c, d, 5) X(a, b, c, d, 6)
#define SEQ8(X, a, b, c, d) SEQ7(X, a, b, c, d) X(a, b, c, d, 7)

/* Group (3,3,9): PMCR, PMCNTENSET/CLR, PMOVSCLR, PMSWINC (WO), PMSELR, PMCEID0/1 (RO),
 * PMCCNTR, PMXEVTYPER, PMXEVCNTR, PMUSERENR, PMOVSSET (Arm ARM D24.5). */
#define G339_RW(X)                                                                               \
	X(3, 3, 9, 12, 0) X(3, 3, 9, 12, 1) X(3, 3, 9, 12, 2) X(3, 3, 9, 12, 3) X(3, 3, 9, 12, 5) \
	X(3, 3, 9, 13, 0) X(3, 3, 9, 13, 1) X(3, 3, 9, 13, 2) X(3, 3, 9, 14, 0) X(3, 3, 9, 14, 3)
#define G339_RO(X) X(3, 3, 9, 12, 6) X(3, 3, 9, 12, 7)
#define G339_WO(X) X(3, 3, 9, 12, 4)
/* Group (3,3,14): PMEVCNTR<n> (CRm 8-11), PMEVTYPER<n> (CRm 12-15), PMCCFILTR. */
#define G3314_RW(X)                                                                              \
	SEQ8(X, 3, 3, 14, 8) SEQ8(X, 3, 3, 14, 9) SEQ8(X, 3, 3, 14, 10) SEQ7(X, 3, 3, 14, 11)     \
	SEQ8(X, 3, 3, 14, 12) SEQ8(X, 3, 3, 14, 13) SEQ8(X, 3, 3, 14, 14) SEQ8(X, 3, 3, 14, 15)
/* Group (3,0,9): PMINTENSET/CLR; PMMIR (RO, PMUv3p4); SPE PMS* and PMB* (CRm 9, 10). */
#define G309_RW(X) X(3, 0, 9, 14, 1) X(3, 0, 9, 14, 2)
#define G309_PMMIR(X) X(3, 0, 9, 14, 6)
#define G309_SPE_RW(X)                                                                           \
	X(3, 0, 9, 9, 0) X(3, 0, 9, 9, 1) X(3, 0, 9, 9, 2) X(3, 0, 9, 9, 3) X(3, 0, 9, 9, 4)      \
	X(3, 0, 9, 9, 5) X(3, 0, 9, 9, 6) X(3, 0, 9, 10, 0) X(3, 0, 9, 10, 1) X(3, 0, 9, 10, 3)
#define G309_SPE_RO(X) X(3, 0, 9, 9, 7) X(3, 0, 9, 10, 7)
/* Group (3,4,9): PMSCR_EL2 (SPE). */
#define G349_SPE_RW(X) X(3, 4, 9, 9, 0)
/* Group (3,0,0): the ID group, CRm 1..7; reserved encodings are RAZ. */
#define G300_RO(X)                                                                               \
	SEQ8(X, 3, 0, 0, 1) SEQ8(X, 3, 0, 0, 2) SEQ8(X, 3, 0, 0, 3) SEQ8(X, 3, 0, 0, 4)           \
	SEQ8(X, 3, 0, 0, 5) SEQ8(X, 3, 0, 0, 6) SEQ8(X, 3, 0, 0, 7)
/* Group (3,4,1): HCR_EL2, MDCR_EL2, CPTR_EL2. */
#define G341_RW(X) X(3, 4, 1, 1, 0) X(3, 4, 1, 1, 1) X(3, 4, 1, 1, 2)
/* Group (3,3,13): AMU. */
#define G3313_AMU_RW(X)                                                                          \
	X(3, 3, 13, 2, 0) X(3, 3, 13, 2, 3) X(3, 3, 13, 2, 4) X(3, 3, 13, 2, 5) X(3, 3, 13, 3, 0) \
	X(3, 3, 13, 3, 1) SEQ8(X, 3, 3, 13, 4) SEQ8(X, 3, 3, 13, 5) SEQ8(X, 3, 3, 13, 12)         \
	SEQ8(X, 3, 3, 13, 13) SEQ8(X, 3, 3, 13, 14) SEQ8(X, 3, 3, 13, 15)
#define G3313_AMU_RO(X)                                                                          \
	X(3, 3, 13, 2, 1) X(3, 3, 13, 2, 2) X(3, 3, 13, 2, 6) SEQ8(X, 3, 3, 13, 6)                \
	SEQ8(X, 3, 3, 13, 7)
/* Group (3,4,13): AMU virtual offsets. */
#define G3413_AMU_RW(X)                                                                          \
	SEQ8(X, 3, 4, 13, 8) SEQ8(X, 3, 4, 13, 9) SEQ8(X, 3, 4, 13, 10) SEQ8(X, 3, 4, 13, 11)
/* Groups (3,0,10) and (3,4,10): MPAM. */
#define G3010_MPAM_RW(X) X(3, 0, 10, 5, 0) X(3, 0, 10, 5, 1) X(3, 0, 10, 5, 3)
#define G3010_MPAM_RO(X) X(3, 0, 10, 4, 4)
#define G3410_MPAM_RW(X)                                                                         \
	X(3, 4, 10, 5, 0) X(3, 4, 10, 4, 0) X(3, 4, 10, 4, 1) SEQ8(X, 3, 4, 10, 6)

#define REG(a, b, c, d, e) S##a##_##b##_C##c##_C##d##_##e
#define RD(a, b, c, d, e)                                                                        \
	case (d) * 8 + (e):                                                                      \
		return read_sysreg(REG(a, b, c, d, e));
#define WR(a, b, c, d, e)                                                                        \
	case (d) * 8 + (e):                                                                      \
		write_sysreg(REG(a, b, c, d, e), val);                                           \
		return;

/* Optional features present on this CPU (plat_init). */
static struct {
	bool pmmir, spe, amu, mpam;
} feat;

void plat_init(void)
{
	uint64_t dfr0 = read_sysreg(S3_0_C0_C5_0), pfr0 = read_sysreg(S3_0_C0_C4_0);
	uint64_t pfr1 = read_sysreg(S3_0_C0_C4_1);
	unsigned pmuver = PV_ID_FIELD(dfr0, PV_DFR0_PMUVER_SHIFT);
	feat.pmmir = pmuver >= PV_PMUVER_V3P4 && pmuver != PV_PMUVER_IMPDEF;
	feat.spe = PV_ID_FIELD(dfr0, PV_DFR0_PMSVER_SHIFT) != 0;
	feat.amu = PV_ID_FIELD(pfr0, PV_PFR0_AMU_SHIFT) != 0;
	feat.mpam = PV_ID_FIELD(pfr0, PV_PFR0_MPAM_SHIFT) != 0 ||
		    PV_ID_FIELD(pfr1, PV_PFR1_MPAM_FRAC_SHIFT) != 0;
}

uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	(void)cpu;
	unsigned d = DENSE(reg);
	switch (reg & GROUP_MASK) {
	case GROUP(3, 3, 14):
		switch (d) { G3314_RW(RD) }
		break;
	case GROUP(3, 3, 9):
		switch (d) { G339_RW(RD) G339_RO(RD) }
		break;
	case GROUP(3, 0, 9):
		switch (d) { G309_RW(RD) }
		if (feat.pmmir)
			switch (d) { G309_PMMIR(RD) }
		if (feat.spe)
			switch (d) { G309_SPE_RW(RD) G309_SPE_RO(RD) }
		break;
	case GROUP(3, 0, 0):
		switch (d) { G300_RO(RD) }
		break;
	case GROUP(3, 4, 1):
		switch (d) { G341_RW(RD) }
		break;
	case GROUP(3, 4, 9):
		if (feat.spe)
			switch (d) { G349_SPE_RW(RD) }
		break;
	case GROUP(3, 3, 13):
		if (feat.amu)
			switch (d) { G3313_AMU_RW(RD) G3313_AMU_RO(RD) }
		break;
	case GROUP(3, 4, 13):
		if (feat.amu)
			switch (d) { G3413_AMU_RW(RD) }
		break;
	case GROUP(3, 0, 10):
		if (feat.mpam)
			switch (d) { G3010_MPAM_RW(RD) G3010_MPAM_RO(RD) }
		break;
	case GROUP(3, 4, 10):
		if (feat.mpam)
			switch (d) { G3410_MPAM_RW(RD) }
		break;
	default:
		break;
	}
	return 0;
}

void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	(void)cpu;
	unsigned d = DENSE(reg);
	switch (reg & GROUP_MASK) {
	case GROUP(3, 3, 14):
		switch (d) { G3314_RW(WR) }
		break;
	case GROUP(3, 3, 9):
		switch (d) { G339_RW(WR) G339_WO(WR) }
		break;
	case GROUP(3, 0, 9):
		switch (d) { G309_RW(WR) }
		if (feat.spe)
			switch (d) { G309_SPE_RW(WR) }
		break;
	case GROUP(3, 4, 1):
		switch (d) { G341_RW(WR) }
		break;
	case GROUP(3, 4, 9):
		if (feat.spe)
			switch (d) { G349_SPE_RW(WR) }
		break;
	case GROUP(3, 3, 13):
		if (feat.amu)
			switch (d) { G3313_AMU_RW(WR) }
		break;
	case GROUP(3, 4, 13):
		if (feat.amu)
			switch (d) { G3413_AMU_RW(WR) }
		break;
	case GROUP(3, 0, 10):
		if (feat.mpam)
			switch (d) { G3010_MPAM_RW(WR) }
		break;
	case GROUP(3, 4, 10):
		if (feat.mpam)
			switch (d) { G3410_MPAM_RW(WR) }
		break;
	default:
		break;
	}
}

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	struct vcpu *v = vcpu->plat;
	if (v)
		vgic_set_line(v, intid, level);
}

/* MMIO for the library's MPAM MSC accesses. QEMU virt has no MSC and VMs here are not given
 * MPAM, so these are not reached; they perform the one 32-bit device access the contract asks
 * for (the EL2 identity map covers the first 2 GiB of physical addresses). */
uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa)
{
	(void)cpu;
	return mmio_read32(pa);
}

void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val)
{
	(void)cpu;
	mmio_write32(pa, val);
}

/*
 * Stage 2 and the profiling barrier, for SPE. QEMU virt has no SPE (ID_AA64DFR0_EL1.PMSVer
 * is 0), so pv_vm_init never gives a VM SPE here and vspe/ never calls these; they answer as a
 * platform with nothing to pin would. PSB CSYNC is in the hint space (HINT #17) and executes
 * as a NOP on a PE without SPE.
 */
bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val)
{
	(void)v, (void)ipa;
	*val = 0;
	return false;
}

bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v, (void)ipa, (void)size;
	return false;
}

void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	(void)v, (void)ipa, (void)size;
}

bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa)
{
	(void)v, (void)ipa;
	*pa = 0;
	return false;
}

void pv_plat_psb_csync(struct pv_pcpu *cpu)
{
	(void)cpu;
	__asm__ volatile("hint #17\n\tdsb nsh" ::: "memory"); /* PSB CSYNC; DSB NSH */
}
