/* SPDX-License-Identifier: MIT */
/*
 * The platform contract's MMIO functions (include/perfvisor/platform.h) for a host that gives
 * its guests no MPAM, as perfvisor's hypervisor and the Xen bridge do: pv_vm_init never gives
 * such a VM MPAM, so vmpam/ never calls these, and they answer as a machine with no MSC to
 * reach would. A host that offers MPAM provides its own and leaves this file out of its link.
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
