/* SPDX-License-Identifier: MIT */
/*
 * Per-VM gates: everything the VM decides about a register (feature present, version high
 * enough, which members of a family exist) folded into one number per table entry, so that
 * the trap path checks a register against the VM with one load and one compare.
 */
#include "regs.h"

/* The version of `feature` the VM was given (0: not given). */
static unsigned feature_version(const struct pv_vm *vm, unsigned feature)
{
	if (!(vm->cfg.features & feature))
		return 0;
	if (feature == PV_FEAT_PMU)
		return vm->pmu.version;
	if (feature == PV_FEAT_AMU)
		return vm->amu.version;
	if (feature == PV_FEAT_MPAM)
		return vm->mpam.visible ? 1 : 0; /* MPAM v1.0 */
	if (feature == PV_FEAT_SPE)
		return vm->spe.version; /* PMSVer */
	return 0;
}

/* The members that exist for the VM: the trap dispatch lets member n through when
 * n < this (0 for a register: absent, 1: present). */
static unsigned members(const struct pv_vm *vm, const struct pv_reg_desc *d)
{
	switch (d->gate) {
	case PV_GATE_NONE:
		return 1;
	case PV_GATE_PMEV:
		return vm->pmu.nr_counters;
	case PV_GATE_AMEV0:
		return PV_AMU_GROUP0;
	case PV_GATE_AMEV1:
		return vm->amu.nr_aux;
	case PV_GATE_AUX:
		return vm->amu.nr_aux ? 1 : 0;
	case PV_GATE_ID:
		return PV_ID_SLOTS;
	default:
		return 0;
	}
}

/* What a direct VM's words trap by their fine-grained bits (PV_FGT_DIRECT_*): the event
 * types, PMCEID0/1_EL0 and PMMIR_EL1. */
static bool direct_trapped(uint32_t key)
{
	return key == PV_PMEVTYPER_EL0(0) || key == PV_PMXEVTYPER_EL0 ||
	       key == PV_PMCCFILTR_EL0 || key == PV_PMCEID0_EL0 || key == PV_PMCEID1_EL0 ||
	       key == PV_PMMIR_EL1;
}

void pv_trap_gates_init(struct pv_vm *vm)
{
	for (unsigned i = 0; i < RIDX_COUNT; i++) {
		const struct pv_reg_desc *d = &pv_reg_descs[i];
		unsigned have = d->feature ? feature_version(vm, d->feature) : 1;
		bool present = have != 0 && have >= d->min_version;
		/* Passthrough, and direct access but for what its words trap: the guest's PMU
		 * accesses reach its registers untrapped, and the one that traps names a counter
		 * at or past HPMN, its N (with FEAT_FGT: Arm ARM D24.5.10, PMEVCNTR<n>_EL0, and
		 * D24.5.27, PMXEVCNTR_EL0 by the PMSELR_EL0.SEL the guest wrote to the hardware,
		 * not the one struct pv_vpmu kept at load): UNDEFINED for it. */
		if ((vm->pmu.passthrough || (vm->pmu.direct && !direct_trapped(d->key))) &&
		    d->kind == PV_KIND_PMU)
			present = false;
		vm->reg_limit[i] = present ? (uint8_t)members(vm, d) : 0;
	}
}
