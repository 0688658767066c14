/* SPDX-License-Identifier: MIT */
/*
 * The platform contract's memory functions (include/perfvisor/platform.h) for a host on the
 * CPU that gives its guests neither SPE nor MPAM, as perfvisor's hypervisor and the Xen
 * bridge do: pv_vm_init never gives such a VM SPE or MPAM, so vspe/ and vmpam/ never call
 * these, and they answer as a platform with nothing to pin, translate or reach would. A host
 * that offers SPE or MPAM provides its own and leaves this file out of its link.
 */
#include "perfvisor/platform.h"

uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa)
{
	(void)cpu, (void)pa;
	return 0;
}

void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val)
{
	(void)cpu, (void)pa, (void)val;
}

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
