/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) beyond the system registers, whose
 * accessors are the EL2 ones every host shares (el2/plat_sysreg.h): the virtual PMU
 * interrupt through this hypervisor's vGIC, and the MMIO and stage-2 functions.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

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
