/* SPDX-License-Identifier: MIT */
/*
 * The core's top level: machine, pCPU, VM and vCPU lifecycle, and the load/put/interrupt
 * entry points, each fanned out to the feature modules' verbs (modules.h).
 */
#include "modules.h"
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"

/* A vCPU waiting for its powered-down pCPU gives that up: it is loaded elsewhere, put (the
 * hypervisor no longer runs it), or released. */
static void forget_resume(struct pv_vcpu *v)
{
	if (v->resume_on && v->resume_on->suspended == v)
		v->resume_on->suspended = NULL;
	v->resume_on = NULL;
}

const char *pv_strerror(int err)
{
	switch (err) {
	case PV_OK:
		return "success";
	case PV_ERR_NO_PMU:
		return "a PMU was requested but the hardware has no PMUv3";
	case PV_ERR_PMU_VERSION:
		return "PMU version not offered (PMUv3, v3p1, v3p4 or v3p5, at most the "
		       "hardware's)";
	case PV_ERR_PMU_COUNTERS:
		return "more PMU counters than the hardware leaves to guests (HPMN)";
	case PV_ERR_HOST_COUNTERS:
		return "more host-reserved counters than the hardware has";
	case PV_ERR_FILTER_RANGE:
		return "event filter range empty or outside the event space";
	case PV_ERR_FILTER_COUNT:
		return "too many event filter ranges";
	case PV_ERR_FILTER_ACTION:
		return "event filter action is neither ALLOW nor DENY";
	case PV_ERR_FEATURE:
		return "feature requested that the hardware does not implement";
	case PV_ERR_UNSUPPORTED:
		return "feature not offered to guests by this version of perfvisor";
	case PV_ERR_HPMN0:
		return "every counter reserved for the host, but the hardware lacks FEAT_HPMN0";
	case PV_ERR_AMU_VERSION:
		return "AMU version not offered (AMUv1 or AMUv1p1, at most the hardware's)";
	case PV_ERR_AMU_AUX:
		return "auxiliary AMU counters the hardware does not implement (or reads as "
		       "zero)";
	case PV_ERR_SPE_VERSION:
		return "SPE version not offered (SPEv1, v1p1 or v1p2, at most the hardware's)";
	case PV_ERR_SPE_BUFFER:
		return "SPE max_buffer must be a non-zero multiple of 4 KiB, at most 4 TiB";
	case PV_ERR_MPAM_SYS:
		return "MPAM requested, but the hypervisor set up no MSC management "
		       "(pv_hw.mpam_sys)";
	case PV_ERR_VCPUS_LIVE:
		return "the VM still has vCPUs that were not released (pv_vcpu_release)";
	default:
		if (err <= PV_VMPAM_ERR_SETUP && err >= PV_VMPAM_ERR_MSC_ERROR)
			return pv_vmpam_strerror(err);
		return "unknown error";
	}
}

void pv_pcpu_init(struct pv_pcpu *cpu, void *plat)
{
	*cpu = (struct pv_pcpu){.plat = plat};
}

static unsigned id_field(const struct pv_hw *hw, uint32_t reg, uint64_t mask)
{
	return PV_ID_FIELD(hw->id[PV_ID_SLOT(reg)], mask);
}

int pv_hw_probe(struct pv_hw *hw, struct pv_pcpu *cpu, unsigned host_counters)
{
	/* ID_AA64PFR0_EL1.ELx: 0b0010 means AArch64 and AArch32. */
	static const uint64_t el_fields[] = {
		PV_ID_AA64PFR0_EL0_STATES, PV_ID_AA64PFR0_EL1_STATES, PV_ID_AA64PFR0_EL2_STATES,
		PV_ID_AA64PFR0_EL3_STATES};
	int err;
	*hw = (struct pv_hw){.host_counters = (uint8_t)host_counters};
	if (host_counters > PV_PMU_MAX_COUNTERS)
		return PV_ERR_HOST_COUNTERS;
	for (unsigned s = PV_ID_SLOT_FIRST; s < PV_ID_SLOTS; s++)
		hw->id[s] = pv_plat_sysreg_read(cpu, PV_SYSREG(3, 0, 0, s / 8, s % 8));

	for (unsigned i = 0; i < 4; i++)
		if (id_field(hw, PV_ID_AA64PFR0_EL1, el_fields[i]) == 2)
			hw->aarch32 = true;
	hw->el3 = id_field(hw, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_EL3_STATES) != 0;
	hw->sel2 = id_field(hw, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_SEL2) != 0;
	hw->rme = id_field(hw, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_RME) != 0;
	hw->trbe = id_field(hw, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_TRACEBUFFER) != 0;
	hw->trf = id_field(hw, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_TRACEFILT) != 0;
	hw->fgt = id_field(hw, PV_ID_AA64MMFR0_EL1, PV_ID_AA64MMFR0_FGT) != 0;
	/* Each module reads its own registers, only when its feature is present: registers of
	 * absent features UNDEF even at EL2. */
	err = pv_vmpam_probe(hw, cpu);
	if (!err)
		err = pv_vamu_probe(hw, cpu);
	if (!err)
		err = pv_vspe_probe(hw, cpu);
	if (!err)
		err = pv_vpmu_probe(hw, cpu);
	return err;
}

void pv_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	cpu->hw = hw;
	pv_vpmu_pcpu_setup(cpu, hw);
	pv_vamu_pcpu_setup(cpu, hw);
	pv_vspe_pcpu_setup(cpu, hw);
	pv_vmpam_pcpu_setup(cpu, hw);
}

void pv_pcpu_suspend(struct pv_pcpu *cpu)
{
	struct pv_vcpu *v = cpu->loaded;
	if (!v)
		return; /* nothing loaded: a second suspend keeps what the first recorded */
	pv_vcpu_put(v); /* its state leaves the hardware, which is about to lose it */
	v->resume_on = cpu;
	cpu->suspended = v;
}

void pv_pcpu_resume(struct pv_pcpu *cpu)
{
	struct pv_vcpu *v = cpu->suspended;
	cpu->suspended = NULL;
	if (cpu->hw)
		pv_pcpu_setup(cpu, cpu->hw);
	if (v && v->resume_on == cpu) {
		v->resume_on = NULL;
		if (!v->cpu)
			pv_vcpu_load(v, cpu);
	}
}

int pv_vm_init(struct pv_vm *vm, const struct pv_hw *hw, const struct pv_vm_config *cfg)
{
	int err;
	*vm = (struct pv_vm){.cfg = *cfg, .hw = hw};
	if (cfg->features & ~(PV_FEAT_PMU | PV_FEAT_SPE | PV_FEAT_AMU | PV_FEAT_MPAM))
		return PV_ERR_UNSUPPORTED;
	if ((cfg->features & PV_FEAT_SPE) && !hw->spe)
		return PV_ERR_FEATURE;
	if ((cfg->features & PV_FEAT_AMU) && !hw->amu)
		return PV_ERR_FEATURE;
	if ((cfg->features & PV_FEAT_MPAM) && !hw->mpam)
		return PV_ERR_FEATURE;
	if ((cfg->features & PV_FEAT_MPAM) && !hw->mpam_sys)
		return PV_ERR_MPAM_SYS;
	err = pv_vpmu_vm_init(vm);
	if (!err)
		err = pv_vamu_vm_init(vm);
	if (!err)
		err = pv_vspe_vm_init(vm);
	/* Last, as it is the one step with effects beyond the VM (PARTIDs taken, MSCs
	 * programmed): nothing before it needs undoing when it fails. */
	if (!err)
		err = pv_vmpam_vm_init(vm);
	if (err)
		return err;
	pv_id_views_init(vm);
	pv_trap_words_init(vm);

	pv_trap_gates_init(vm);
	return PV_OK;
}

void pv_vcpu_init(struct pv_vcpu *v, struct pv_vm *vm, uint32_t id, void *plat)
{
	*v = (struct pv_vcpu){
		.vm = vm, .plat = plat, .id = id, .traps = vm->traps, .live = true};
	vm->nr_vcpus++;
	for (unsigned i = 0; i < PV_REGS_MAX; i++)
		v->reg_limit[i] = vm->reg_limit[i];
	pv_vpmu_vcpu_init(v);
	pv_vamu_vcpu_init(v);
	pv_vspe_vcpu_init(v);
	pv_vmpam_vcpu_init(v);
}

void pv_vcpu_release(struct pv_vcpu *v)
{
	if (!v->live)
		return;
	pv_vcpu_put(v); /* and if its pCPU is powered down, it does not come back with it */
	v->live = false;
	v->vm->nr_vcpus--;
	pv_vspe_vcpu_release(v);
	pv_vpmu_vcpu_release(v);
	pv_vamu_vcpu_release(v);
	pv_vmpam_vcpu_release(v);
}

int pv_vm_release(struct pv_vm *vm)
{
	if (vm->nr_vcpus)
		return PV_ERR_VCPUS_LIVE; /* one may still be loaded: nothing is given back */
	pv_vmpam_vm_release(vm);          /* first undone last: PARTIDs and monitors go back */
	pv_vspe_vm_release(vm);
	pv_vamu_vm_release(vm);
	pv_vpmu_vm_release(vm);
	return PV_OK;
}

void pv_vcpu_load(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	forget_resume(v);
	if (v->cpu == cpu)
		return;
	/* Tolerate a hypervisor that forgot a put: state is never lost or shared. */
	if (v->cpu)
		pv_vcpu_put(v);
	if (cpu->loaded)
		pv_vcpu_put(cpu->loaded);
	v->cpu = cpu;
	cpu->loaded = v;
	v->stats.loads++;
	pv_vpmu_load(v);
	pv_vamu_load(v);
	pv_vspe_load(v);
	pv_vmpam_load(v);
}

void pv_vcpu_put(struct pv_vcpu *v)
{
	if (!v->cpu) {
		forget_resume(v); /* not to be run again when its powered-down pCPU is back */
		return;
	}
	pv_vspe_put(v); /* first: stop sampling, drain */
	pv_vpmu_put(v);
	pv_vamu_put(v);
	pv_vmpam_put(v);
	v->cpu->loaded = NULL;
	v->cpu = NULL;
}

enum pv_irq_result pv_irq(struct pv_pcpu *cpu, uint32_t intid)
{
	if (intid == PV_INTID_SPE)
		return pv_vspe_irq(cpu) ? PV_IRQ_HANDLED : PV_IRQ_NOT_MINE;
	if (intid != PV_INTID_PMU)
		return PV_IRQ_NOT_MINE;
	return pv_vpmu_irq(cpu);
}
