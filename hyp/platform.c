/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) on real hardware: every register key
 * the core may use becomes a real MRS/MSR, written with its generic S<op0>_<op1>_C<n>_C<m>_<op2>
 * name so no assembler feature flag is needed. The switches are generated from the register
 * database: one switch on the space (Op0, Op1, CRn), then a jump table on CRm:Op2, so an access
 * costs a handful of instructions (this is on every trapped PMU access).
 * Registers of features the CPU lacks (SPE, AMU, MPAM, PMMIR_EL1 before PMUv3p4) would UNDEF
 * at EL2: they read 0 and ignore writes, as do keys the platform does not know.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

struct plat_feat plat_feat;

void plat_init(void)
{
	uint64_t dfr0 = read_sysreg(S3_0_C0_C5_0), pfr0 = read_sysreg(S3_0_C0_C4_0);
	uint64_t pfr1 = read_sysreg(S3_0_C0_C4_1);
	unsigned pmuver = PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMUVER);
	plat_feat.pmuver = pmuver == PV_PMUVER_IMPDEF ? PV_PMUVER_NI : pmuver;
	plat_feat.amuver = PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_AMU);
	plat_feat.spever = PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMSVER);
	plat_feat.mpam = PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_MPAM) != 0 ||
			 PV_ID_FIELD(pfr1, PV_ID_AA64PFR1_MPAM_FRAC) != 0;
}

uint64_t plat_sysreg_read(uint32_t reg)
{
	return plat_sysreg_read_any(reg);
}

void plat_sysreg_write(uint32_t reg, uint64_t val)
{
	plat_sysreg_write_any(reg, val);
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
