/* SPDX-License-Identifier: MIT */
/*
 * The verbs every feature module (vpmu/, vamu/, vspe/, vmpam/) gives the core's lifecycle
 * (core/lifecycle.c), which alone calls them: a hypervisor calls pv_vm_init(), pv_vcpu_load()
 * and the rest (perfvisor.h), and each of those fans out here, in an order lifecycle.c
 * states. Not a public header.
 *
 *   probe          read the module's hardware into pv_hw (0 or PV_ERR_*), once
 *   pcpu_setup     put a pCPU's registers of the module in a known, quiet state; also after
 *                  the pCPU lost power (pv_pcpu_resume)
 *   vm_init        a VM is created: derive its views (0 or PV_ERR_*, nothing to undo)
 *   vm_release     the VM is destroyed, all its vCPUs released: give back what it holds
 *   vcpu_init      a vCPU is created: its reset state
 *   vcpu_release   the vCPU is destroyed (already put): give back what it holds
 *   load, put      the vCPU starts or stops running on a pCPU: hardware state in and out
 *
 * A pCPU's power-down needs no verb of its own: no module keeps per-pCPU state that
 * pcpu_setup does not rebuild, so pv_pcpu_suspend() is a put of the loaded vCPU and
 * pv_pcpu_resume() a pcpu_setup and a load again.
 */
#ifndef PV_CORE_MODULES_H
#define PV_CORE_MODULES_H

#include "perfvisor/perfvisor.h"

#define PV_MODULE_VERBS(m)                                                                     \
	int pv_##m##_probe(struct pv_hw *hw, struct pv_pcpu *cpu);                             \
	void pv_##m##_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw);                 \
	int pv_##m##_vm_init(struct pv_vm *vm);                                                \
	void pv_##m##_vm_release(struct pv_vm *vm);                                            \
	void pv_##m##_vcpu_init(struct pv_vcpu *v);                                            \
	void pv_##m##_vcpu_release(struct pv_vcpu *v);                                         \
	void pv_##m##_load(struct pv_vcpu *v);                                                 \
	void pv_##m##_put(struct pv_vcpu *v);
PV_MODULE_VERBS(vpmu)
PV_MODULE_VERBS(vamu)
PV_MODULE_VERBS(vspe)
PV_MODULE_VERBS(vmpam)
#undef PV_MODULE_VERBS

/* The interrupts the modules own: what pv_irq() answers for the PMU overflow interrupt
 * (never PV_IRQ_NOT_MINE); true if the SPE interrupt was a guest's. */
enum pv_irq_result pv_vpmu_irq(struct pv_pcpu *cpu);
bool pv_vspe_irq(struct pv_pcpu *cpu);

/* The trap layer's per-VM views (trap/), derived at pv_vm_init. */
void pv_trap_gates_init(struct pv_vm *vm);
void pv_id_views_init(struct pv_vm *vm);
void pv_trap_words_init(struct pv_vm *vm);

#endif
