/* SPDX-License-Identifier: MIT */
/* Machine, pCPU, VM and vCPU lifecycle, and the load/put/interrupt entry points. */
#include "perfvisor/platform.h"
#include "perfvisor/trap.h"

const char *pv_strerror(int err)
{
	switch (err) {
	case PV_OK:
		return "success";
	case PV_ERR_NO_PMU:
		return "a PMU was requested but the hardware has no PMUv3";
	case PV_ERR_PMU_VERSION:
		return "PMU version not offered (PMUv3, v3p1, v3p4 or v3p5, at most the hardware's)";
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
		return "auxiliary AMU counters the hardware does not implement (or reads as zero)";
	case PV_ERR_SPE_VERSION:
		return "SPE version not offered (SPEv1, v1p1 or v1p2, at most the hardware's)";
	case PV_ERR_SPE_BUFFER:
		return "SPE max_buffer must be a non-zero multiple of 4 KiB, at most 4 TiB";
	case PV_ERR_MPAM_SYS:
		return "MPAM requested, but the hypervisor set up no MSC management (pv_hw.mpam_sys)";
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

static unsigned id_field(const struct pv_hw *hw, uint32_t reg, unsigned shift)
{
	return PV_ID_FIELD(hw->id[PV_ID_SLOT(reg)], shift);
}

int pv_hw_probe(struct pv_hw *hw, struct pv_pcpu *cpu, unsigned host_counters)
{
	*hw = (struct pv_hw){0};
	for (unsigned s = PV_ID_SLOT_FIRST; s < PV_ID_SLOTS; s++)
		hw->id[s] = pv_plat_sysreg_read(cpu, PV_SYSREG(3, 0, 0, s / 8, s % 8));

	/* ID_AA64PFR0_EL1.ELx: 0b0010 means AArch64 and AArch32. */
	unsigned shifts[] = {PV_PFR0_EL0_SHIFT, PV_PFR0_EL1_SHIFT, PV_PFR0_EL2_SHIFT,
			     PV_PFR0_EL3_SHIFT};
	for (unsigned i = 0; i < 4; i++)
		if (id_field(hw, PV_ID_AA64PFR0_EL1, shifts[i]) == 2)
			hw->aarch32 = true;
	hw->el3 = id_field(hw, PV_ID_AA64PFR0_EL1, PV_PFR0_EL3_SHIFT) != 0;
	hw->sel2 = id_field(hw, PV_ID_AA64PFR0_EL1, PV_PFR0_SEL2_SHIFT) != 0;
	hw->rme = id_field(hw, PV_ID_AA64PFR0_EL1, PV_PFR0_RME_SHIFT) != 0;
	hw->trbe = id_field(hw, PV_ID_AA64DFR0_EL1, PV_DFR0_TRACEBUFFER_SHIFT) != 0;
	hw->trf = id_field(hw, PV_ID_AA64DFR0_EL1, PV_DFR0_TRACEFILT_SHIFT) != 0;
	hw->spe = id_field(hw, PV_ID_AA64DFR0_EL1, PV_DFR0_PMSVER_SHIFT) != 0;
	unsigned amu = id_field(hw, PV_ID_AA64PFR0_EL1, PV_PFR0_AMU_SHIFT);
	hw->amu = amu != 0;
	hw->amuv1p1 = amu >= 2;
	hw->fgt = id_field(hw, PV_ID_AA64MMFR0_EL1, PV_MMFR0_FGT_SHIFT) != 0;
	hw->mpam = id_field(hw, PV_ID_AA64PFR0_EL1, PV_PFR0_MPAM_SHIFT) != 0 ||
		   id_field(hw, PV_ID_AA64PFR1_EL1, PV_PFR1_MPAM_FRAC_SHIFT) != 0;
	/* Registers of absent features UNDEF even at EL2: read each only when present. */
	if (hw->mpam)
		hw->mpamidr = pv_plat_sysreg_read(cpu, PV_MPAMIDR_EL1);
	if (hw->amu)
		pv_vamu_probe(hw, cpu);
	if (hw->spe)
		pv_vspe_probe(hw, cpu);

	unsigned pmuver = id_field(hw, PV_ID_AA64DFR0_EL1, PV_DFR0_PMUVER_SHIFT);
	if (pmuver == PV_PMUVER_NI || pmuver == PV_PMUVER_IMPDEF) {
		hw->pmu_version = PV_PMUVER_NI;
		return host_counters ? PV_ERR_HOST_COUNTERS : PV_OK;
	}
	hw->pmu_version = (uint8_t)pmuver;
	hw->pmcr = pv_plat_sysreg_read(cpu, PV_PMCR_EL0);
	hw->pmu_counters = (uint8_t)PV_FIELD_GET(hw->pmcr, 15, 11);
	hw->pmceid0 = pv_plat_sysreg_read(cpu, PV_PMCEID0_EL0);
	hw->pmceid1 = pv_plat_sysreg_read(cpu, PV_PMCEID1_EL0);
	if (pmuver >= PV_PMUVER_V3P4)
		hw->pmmir = pv_plat_sysreg_read(cpu, PV_PMMIR_EL1);
	if (host_counters > hw->pmu_counters)
		return PV_ERR_HOST_COUNTERS;
	if (host_counters == hw->pmu_counters && host_counters &&
	    id_field(hw, PV_ID_AA64DFR0_EL1, PV_DFR0_HPMN0_SHIFT) == 0)
		return PV_ERR_HPMN0;
	hw->host_counters = (uint8_t)host_counters;
	hw->hpmn = (uint8_t)(hw->pmu_counters - host_counters);
	return PV_OK;
}

void pv_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	cpu->hw = hw;
	if (hw->pmu_version != PV_PMUVER_NI)
		pv_vpmu_pcpu_setup(cpu, hw);
	if (hw->amu)
		pv_vamu_pcpu_setup(cpu, hw);
	if (hw->spe)
		pv_vspe_pcpu_setup(cpu, hw);
}

int pv_vm_init(struct pv_vm *vm, const struct pv_hw *hw, const struct pv_vm_config *cfg)
{
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
	int err = pv_vpmu_vm_init(vm);
	if (!err)
		err = pv_vamu_vm_init(vm);
	if (!err)
		err = pv_vspe_vm_init(vm);
	if (err)
		return err;
	/* Last, as it is the one step with effects beyond the VM (PARTIDs taken, MSCs
	 * programmed): every VM gets PARTIDs of its own where MPAM is managed, whether or not
	 * the guest sees MPAM. */
	if (hw->mpam_sys) {
		err = pv_vmpam_vm_init(hw->mpam_sys, hw->mpam_cpu, &vm->mpam, &cfg->mpam,
				       (cfg->features & PV_FEAT_MPAM) != 0);
		if (err)
			return err;
	}
	pv_id_views_init(vm);
	pv_trap_words_init(vm);

	pv_trap_gates_init(vm);
	return PV_OK;
}

void pv_vcpu_init(struct pv_vcpu *v, struct pv_vm *vm, uint32_t id, void *plat)
{
	*v = (struct pv_vcpu){.vm = vm, .plat = plat, .id = id, .traps = vm->traps};
	for (unsigned i = 0; i < PV_REGS_MAX; i++)
		v->reg_limit[i] = vm->reg_limit[i];
	pv_vpmu_vcpu_init(v);
	pv_vamu_vcpu_init(v);
	pv_vspe_vcpu_init(v);
	if (vm->mpam.sys)
		pv_vmpam_vcpu_init(&v->mpam, &vm->mpam);
}

void pv_vcpu_load(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
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
	if (v->vm->mpam.sys)
		pv_vmpam_load(v);
}

void pv_vcpu_put(struct pv_vcpu *v)
{
	if (!v->cpu)
		return;
	pv_vspe_put(v); /* first: stop sampling, drain */
	pv_vpmu_put(v);
	pv_vamu_put(v);
	if (v->vm->mpam.sys)
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
	return pv_vpmu_irq(cpu) ? PV_IRQ_HOST_PENDING : PV_IRQ_HANDLED;
}
