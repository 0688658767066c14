/* SPDX-License-Identifier: MIT */
/*
 * The single trap entry: decode once, find the register in the table, check it against the
 * VM (feature present, version high enough, direction allowed, index in range) and call the
 * owning module. Nothing a guest encodes can make this fail other than architecturally.
 */
#include "perfvisor/trap.h"

/* The version of `feature` the VM was given (0: not given). */
static unsigned feature_version(const struct pv_vm *vm, unsigned feature)
{
	if (!(vm->cfg.features & feature))
		return 0;
	switch (feature) {
	case PV_FEAT_PMU:
		return vm->pmu.version;
	default:
		return 0; /* SPE, AMU, MPAM: not offered yet */
	}
}

/* Number of valid indices of a family for this VM. */
static unsigned index_limit(const struct pv_vm *vm, unsigned index_kind)
{
	switch (index_kind) {
	case PV_IDX_PMEV:
		return vm->pmu.nr_counters;
	case PV_IDX_ID:
		return PV_ID_SLOTS;
	default:
		return 0;
	}
}

static unsigned family_index(uint32_t key, unsigned index_kind)
{
	switch (index_kind) {
	case PV_IDX_PMEV:
		return PV_PMEV_INDEX(key);
	case PV_IDX_AMEV:
		return (PV_SYSREG_CRM(key) & 1u) << 3 | PV_SYSREG_OP2(key);
	case PV_IDX_ID:
		return PV_ID_SLOT(key);
	default:
		return 0;
	}
}

enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, uint64_t *x, unsigned el)
{
	struct pv_sys_access a;
	if (!pv_decode_sys(esr, &a))
		return PV_TRAP_UNKNOWN;
	const struct pv_reg_desc *d = pv_reg_lookup(a.key);
	if (!d)
		return PV_TRAP_UNKNOWN;
	el = el ? 1 : 0; /* traps reach EL2 from EL0 or EL1 only */

	enum pv_trap_result r = PV_TRAP_UNDEF;
	unsigned idx = 0;
	if (d->feature) {
		unsigned have = feature_version(v->vm, d->feature);
		if (have == 0 || have < d->min_version)
			goto out; /* hidden feature, or a register of a later version */
	}
	if (d->index != PV_IDX_NONE) {
		idx = family_index(a.key, d->index);
		if (idx >= index_limit(v->vm, d->index))
			goto out;
	}
	if (a.is_read) {
		if (!d->read)
			goto out; /* MRS of a write-only register */
		uint64_t val = 0; /* never hand back stale data on a handler slip */
		r = d->read(v, idx, el, &val);
		if (r == PV_TRAP_HANDLED && a.rt != 31)
			x[a.rt] = val; /* Rt = 31 is XZR: the value is discarded */
	} else {
		if (!d->write)
			goto out; /* MSR to a read-only register */
		r = d->write(v, idx, el, a.rt == 31 ? 0 : x[a.rt]);
	}
out:
	switch (r) {
	case PV_TRAP_HANDLED:
		v->stats.traps[d->kind]++;
		break;
	case PV_TRAP_UNDEF:
		v->stats.undef++;
		break;
	case PV_TRAP_EL1_SYSREG:
		v->stats.el1_reinject++;
		break;
	default:
		break;
	}
	return r;
}
