/* SPDX-License-Identifier: MIT */
/*
 * The single trap entry: decode once, find the register in the table, check it against the
 * VM and call the owning module. Nothing a guest encodes can make this fail other than
 * architecturally. This is the hot path of every trapped access, so everything the VM
 * decides (feature present, version high enough, family size) is folded into one
 * precomputed gate per table entry, and the handler is tail-called: a read handler stores
 * straight into the guest's register.
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
	return 0; /* SPE, MPAM: not offered yet */
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

enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, uint64_t *x, unsigned el)
{
	struct pv_sys_access a;
	if (!pv_decode_sys(esr, &a))
		return PV_TRAP_UNKNOWN;
	unsigned idx;
	const struct pv_reg_desc *d = reg_lookup(a.key, &idx);
	if (!d)
		return PV_TRAP_UNKNOWN;
	v->stats.traps[d->kind]++;
	/* A register the VM lacks (hidden feature, later version) or an index past the VM's
	 * family (PMEVCNTR<n> with n >= N): UNDEF. */
	if (idx >= v->vm->reg_limit[d->id])
		return PV_TRAP_UNDEF;
	if (a.is_read) {
		if (!d->read)
			return PV_TRAP_UNDEF; /* MRS of a write-only register */
		/* Rt = 31 is XZR: the value read is discarded. */
		return d->read(v, idx, el, a.rt == 31 ? &v->discard : &x[a.rt]);
	}
	if (!d->write)
		return PV_TRAP_UNDEF; /* MSR to a read-only register */
	return d->write(v, idx, el, a.rt == 31 ? 0 : x[a.rt]);
}
