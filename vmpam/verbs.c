/* SPDX-License-Identifier: MIT */
/*
 * vmpam's side of the core's lifecycle (core/modules.h): probe, a VM's partition taken and
 * given back (partid.c), a vCPU attached to it (cpu.c). Load and put are cpu.c's.
 */
#include "internal.h"

/* FEAT_MPAM (ID_AA64PFR0_EL1.MPAM or ID_AA64PFR1_EL1.MPAM_frac) and MPAMIDR_EL1; the MSCs are
 * the hypervisor's to describe (pv_vmpam_init, then pv_hw.mpam_sys). */
int pv_vmpam_probe(struct pv_hw *hw, struct pv_pcpu *cpu)
{
	hw->mpam = PV_ID_FIELD(hw->id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)], PV_ID_AA64PFR0_MPAM) !=
			   0 ||
		   PV_ID_FIELD(hw->id[PV_ID_SLOT(PV_ID_AA64PFR1_EL1)],
			       PV_ID_AA64PFR1_MPAM_FRAC) != 0;
	if (hw->mpam)
		hw->mpamidr = pv_plat_sysreg_read(cpu, PV_MPAMIDR_EL1);
	return PV_OK;
}

/* MPAM2_EL2 and MPAMHCR_EL2 are per VM, written by the hypervisor (pv_vmpam_el2): nothing
 * per pCPU. */
void pv_vmpam_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	(void)cpu, (void)hw;
}

/* Where MPAM is managed (pv_hw.mpam_sys) every VM gets PARTIDs of its own, whether or not the
 * guest sees MPAM. */
int pv_vmpam_vm_init(struct pv_vm *vm)
{
	const struct pv_hw *hw = vm->hw;
	if (!hw->mpam_sys)
		return PV_OK;
	return pv_vmpam_partition_init(hw->mpam_sys, hw->mpam_cpu, &vm->mpam, &vm->cfg.mpam,
				       (vm->cfg.features & PV_FEAT_MPAM) != 0);
}

void pv_vmpam_vm_release(struct pv_vm *vm)
{
	if (vm->mpam.sys)
		pv_vmpam_partition_release(vm->mpam.sys, vm->hw->mpam_cpu, &vm->mpam);
}

void pv_vmpam_vcpu_init(struct pv_vcpu *v)
{
	if (v->vm->mpam.sys)
		pv_vmpam_vcpu_attach(&v->mpam, &v->vm->mpam);
}

/* The vCPU's labels are its own memory. */
void pv_vmpam_vcpu_release(struct pv_vcpu *v)
{
	(void)v;
}
