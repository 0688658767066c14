/* SPDX-License-Identifier: MIT */
/*
 * Per-VM gates: everything the VM decides about a register (feature present, version high
 * enough, size of an indexed family) folded into one number per table entry, so that the trap
 * path checks a register against the VM with one load and one compare.
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

static unsigned family_size(const struct pv_vm *vm, const struct pv_reg_desc *d)
{
	switch (d->index) {
	case PV_IDX_NONE:
		return 1;
	case PV_IDX_PMEV:
		return vm->pmu.nr_counters;
	case PV_IDX_ID:
		return PV_ID_SLOTS;
	case PV_IDX_AMEV: /* CRm[3]: group 1 */
		return (PV_SYSREG_CRM(d->key) & 8u) ? vm->amu.nr_aux : PV_AMU_GROUP0;
	default:
		return 0;
	}
}

void pv_trap_gates_init(struct pv_vm *vm)
{
	for (unsigned i = 0; i < RIDX_COUNT; i++) {
		const struct pv_reg_desc *d = &pv_reg_descs[i];
		unsigned have = d->feature ? feature_version(vm, d->feature) : 1;
		bool present = have != 0 && have >= d->min_version;
		vm->reg_limit[i] = present ? (uint8_t)family_size(vm, d) : 0;
	}
}
