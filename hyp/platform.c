/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) beyond the system registers, whose
 * accessors are the EL2 ones every host shares (el2/plat_sysreg.h): the virtual PMU
 * interrupt through this hypervisor's vGIC. VMs here get neither SPE (QEMU virt has none)
 * nor MPAM, so the memory functions are el2/plat_no_spe_mpam.c's.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	struct vcpu *v = vcpu->plat;
	if (v)
		vgic_set_line(v, intid, level);
}
