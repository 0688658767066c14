/* SPDX-License-Identifier: MIT */
/*
 * Round-robin scheduling of the VMs' vCPUs on the one physical CPU, driven by the EL2
 * physical timer (timer.c). A switch saves the outgoing vCPU's EL1 state, debug registers and
 * the other registers of vcpu_regs.c, FP/SIMD registers, virtual CPU interface and virtual
 * timer, and restores the incoming one's; the PMU goes
 * through the library's pv_vcpu_put / pv_vcpu_load.
 */
#include "hyp.h"

#define EL1_SAVE(name, enc) v->el1.name = read_sysreg(enc);
#define EL1_RESTORE(name, enc) write_sysreg(enc, v->el1.name);

void vcpu_load(struct vcpu *v)
{
	const struct pv_trap_words *t = &v->pv.traps;
	hyp.current = v;
	write_sysreg(vttbr_el2, v->vm->vttbr);
	write_sysreg(S3_4_C0_C0_5, v->vmpidr); /* VMPIDR_EL2 */
	write_sysreg(hcr_el2, (hyp.hcr_hyp & ~t->hcr_el2_owned) | t->hcr_el2);
	write_sysreg(mdcr_el2, (hyp.mdcr_hyp & ~t->mdcr_el2_owned) | t->mdcr_el2 | vcpu_regs_mdcr(v));
	write_sysreg(cptr_el2, (hyp.cptr_hyp & ~t->cptr_el2_owned) | t->cptr_el2);
	EL1_REGS(EL1_RESTORE)
	vcpu_regs_restore(v);
	fpsimd_restore(&v->fp);
	isb();
	pv_vcpu_load(&v->pv, &hyp.pcpu);
	vgic_restore(v);
	vtimer_sync(v);
	v->switches_in++;
}

void vcpu_put(struct vcpu *v)
{
	pv_vcpu_put(&v->pv);
	vgic_save(v);
	EL1_REGS(EL1_SAVE)
	vcpu_regs_save(v);
	write_sysreg(S3_3_C14_C3_1, 0ul); /* its virtual timer stops firing while it is out */
	fpsimd_save(&v->fp);
	isb();
	if (hyp.current == v)
		hyp.current = NULL;
}

/* The next runnable vCPU after `cur` in round-robin order (possibly `cur`), or NULL. */
static struct vcpu *pick(struct vcpu *cur)
{
	unsigned start = cur ? cur->vm->index + 1 : 0;
	for (unsigned i = 0; i < MAX_VMS; i++) {
		struct vm *vm = &hyp.vms[(start + i) % MAX_VMS];
		if (vm->state == VM_RUNNABLE)
			return &vm->vcpu;
	}
	return NULL;
}

/* Called with `cur` loaded and runnable: switch to the next runnable vCPU, if another. */
struct vcpu *sched_next(struct vcpu *cur)
{
	struct vcpu *next = pick(cur);
	if (next == cur || !next)
		return cur;
	vcpu_put(cur);
	vcpu_load(next);
	hyp.switches++;
	hyp.switched = true;
	timer_rearm();
	return next;
}

struct vcpu *vm_end(struct vcpu *v, const char *reason)
{
	struct vm *vm = v->vm;
	vm->state = VM_ENDED;
	vm->end_reason = reason;
	uart_flush(vm);
	struct vcpu *next = pick(v);
	vcpu_put(v);
	if (!next) {
		report_all();
		psci_system_off();
	}
	vcpu_load(next);
	hyp.switches++;
	timer_rearm();
	return next;
}

/* limit_ms reached: every VM still running ends, the report follows and the machine is off. */
void sched_end_all(const char *reason)
{
	for (unsigned i = 0; i < MAX_VMS; i++) {
		struct vm *vm = &hyp.vms[i];
		if (vm->state != VM_RUNNABLE)
			continue;
		vm->state = VM_ENDED;
		vm->end_reason = reason;
		uart_flush(vm);
	}
	if (hyp.current)
		vcpu_put(hyp.current);
	report_all();
	psci_system_off();
}

void sched_start(void)
{
	struct vcpu *first = pick(NULL);
	if (!first)
		hyp_panic("no VM to run");
	vcpu_load(first);
	timer_rearm();
	hyp.last_count = read_sysreg(S3_3_C9_C13_2); /* PMXEVCNTR_EL0: selfcount.c */
	guest_enter(&first->f);
}
