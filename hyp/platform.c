/* SPDX-License-Identifier: MIT */
/*
 * The platform contract (include/perfvisor/platform.h) beyond the system registers, whose
 * accessors are the EL2 ones every host shares (el2/plat_sysreg.h): the virtual interrupts
 * through this hypervisor's vGIC, and the stage-2 functions vSPE needs (docs/spe.md,
 * "Integration") over this hypervisor's stage 2 (stage2.c). VMs here get no MPAM, so the MMIO
 * functions are el2/plat_no_mpam.c's.
 */
#include "hyp.h"
#include "perfvisor/platform.h"

void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	struct vcpu *v = vcpu->plat;
	if (v)
		vgic_set_line(v, intid, level);
}

/* The VM of a library vCPU: the hypervisor's vCPU is its per-vCPU context. */
static struct vm *vm_of(struct pv_vcpu *vcpu)
{
	struct vcpu *v = vcpu->plat;
	return v ? v->vm : NULL;
}

/* A stage-1 descriptor of the guest's, read by IPA through its stage 2 as the profiler's
 * walk reads it: EL2's identity map reaches every VM slot. */
bool pv_plat_guest_read64(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t *val)
{
	struct vm *vm = vm_of(vcpu);
	uint64_t pa;
	*val = 0;
	if (!vm || ipa % 8 || !stage2_translate(vm, ipa, &pa, false))
		return false;
	*val = *(const volatile uint64_t *)pa;
	return true;
}

/* Every page of this hypervisor's VMs is resident: a pin keeps it mapped (stage2.c refuses
 * to unmap a pinned page). */
bool pv_plat_s2_pin(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t size)
{
	struct vm *vm = vm_of(vcpu);
	return vm && stage2_pin(vm, ipa, size);
}

void pv_plat_s2_unpin(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t size)
{
	struct vm *vm = vm_of(vcpu);
	if (vm)
		stage2_unpin(vm, ipa, size);
}

bool pv_plat_s2_translate(struct pv_vcpu *vcpu, uint64_t ipa, uint64_t *pa)
{
	struct vm *vm = vm_of(vcpu);
	*pa = 0;
	return vm && stage2_translate(vm, ipa, pa, true);
}
