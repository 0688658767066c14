/* SPDX-License-Identifier: MIT */
/*
 * The single trap entry: decode once, find the register in the table, check it against the
 * VM (group present at a high enough version, direction allowed, index in range) and call the
 * owning module. Nothing a guest encodes can make this fail other than architecturally.
 * This is the hot path of every trapped access: the per-VM checks are table lookups
 * precomputed by pv_vm_init.
 */
#include "regs.h"

static unsigned family_index(uint32_t key, unsigned index_kind)
{
	if (index_kind == PV_IDX_PMEV)
		return PV_PMEV_INDEX(key);
	if (index_kind == PV_IDX_AMEV)
		return (PV_SYSREG_CRM(key) & 1u) << 3 | PV_SYSREG_OP2(key);
	return PV_ID_SLOT(key);
}

static enum pv_trap_result not_handled(struct pv_vcpu *v, enum pv_trap_result r)
{
	if (r == PV_TRAP_UNDEF)
		v->stats.undef++;
	else if (r == PV_TRAP_EL1_SYSREG)
		v->stats.el1_reinject++;
	return r;
}

enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, uint64_t *x, unsigned el)
{
	struct pv_sys_access a;
	if (!pv_decode_sys(esr, &a))
		return PV_TRAP_UNKNOWN;
	const struct pv_reg_desc *d = reg_lookup(a.key);
	if (!d)
		return PV_TRAP_UNKNOWN;
	const struct pv_vm *vm = v->vm;
	/* A hidden group, or a register of a later version than the VM's: UNDEF. */
	if (vm->kind_version[d->kind] < d->min_version)
		return not_handled(v, PV_TRAP_UNDEF);
	unsigned idx = 0;
	if (d->index != PV_IDX_NONE) {
		idx = family_index(a.key, d->index);
		if (idx >= vm->index_limit[d->index])
			return not_handled(v, PV_TRAP_UNDEF); /* e.g. PMEVCNTR<n> with n >= N */
	}
	el = el != 0; /* traps reach EL2 from EL0 or EL1 only */

	enum pv_trap_result r;
	if (a.is_read) {
		if (!d->read)
			return not_handled(v, PV_TRAP_UNDEF); /* MRS of a write-only register */
		uint64_t val = 0; /* never hand back stale data on a handler slip */
		r = d->read(v, idx, el, &val);
		if (r == PV_TRAP_HANDLED && a.rt != 31)
			x[a.rt] = val; /* Rt = 31 is XZR: the value is discarded */
	} else {
		if (!d->write)
			return not_handled(v, PV_TRAP_UNDEF); /* MSR to a read-only register */
		r = d->write(v, idx, el, a.rt == 31 ? 0 : x[a.rt]);
	}
	if (r != PV_TRAP_HANDLED)
		return not_handled(v, r);
	v->stats.traps[d->kind]++;
	return r;
}
