/* SPDX-License-Identifier: MIT */
/*
 * The VM's PMU registers in the hardware: passthrough (vm->pmu.passthrough), where the VM
 * owns the guests' part of the physical PMU, counters [0, HPMN) and the cycle counter, and no
 * PMU access traps (MDCR_EL2.TPM clear, HPMN = its N: trap/trapwords.c); and direct access
 * (vm->pmu.direct), where everything but the event types, PMCEID0/1 and PMMIR is the same
 * (those trap by their fine-grained bits: types.c keeps the guest's values and gives the
 * hardware their sanitised copies). Its state is the hardware's while it is loaded and struct
 * pv_vpmu's otherwise, so load writes every register the guest can change and put reads every
 * one back (a direct VM's types excepted: they never change untrapped), then leaves the
 * pCPU's PMU disabled, quiet and with no overflow pending, so that nothing of it reaches the
 * next vCPU or lifts the PMU interrupt line after it. EL2 never counts: HPMD and HCCD (and a
 * direct VM's sanitised types).
 */
#include "internal.h"

/* PMCR_EL0 state a guest write leaves on the hardware, whatever its version (E, D, X, DP,
 * LC, LP, FZO, FZS; RES0 where their features are missing); P and C are actions. */
#define PT_PMCR_STATE                                                                          \
	(PV_PMCR_E | PV_PMCR_D | PV_PMCR_X | PV_PMCR_DP | PV_PMCR_LC | PV_PMCR_LP |            \
	 PV_PMCR_FZO | PV_PMCR_FZS)

/* A direct VM's types are not read: the hardware holds their sanitised copies (hwtype),
 * which only its trapped writes change, and the guest reads what it wrote (evtyper). */
static void read_back(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	struct pv_vpmu *s = &v->pmu;
	unsigned nr = v->vm->pmu.nr_counters;
	bool types = v->vm->pmu.passthrough;
	uint32_t all = v->vm->pmu.counter_mask; /* EL2 sees the host's bits too */
	s->pmcr = pv_plat_sysreg_read(cpu, PV_PMCR_EL0) & PT_PMCR_STATE;
	for (unsigned n = 0; n < nr; n++) {
		s->evcntr[n] = hw_evcntr_read(cpu, n);
		if (types)
			s->evtyper[n] = s->hwtype[n] = pv_plat_sysreg_read(cpu,
									   PV_PMEVTYPER_EL0(n));
	}
	s->ccntr = pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0);
	if (types)
		s->ccfiltr = s->hwtype[PV_PMU_CYCLE_IDX] = pv_plat_sysreg_read(
			cpu, PV_PMCCFILTR_EL0);
	s->inten = (uint32_t)pv_plat_sysreg_read(cpu, PV_PMINTENSET_EL1) & all;
	s->ovs = (uint32_t)pv_plat_sysreg_read(cpu, PV_PMOVSSET_EL0) & all;
	s->selr = (uint8_t)(pv_plat_sysreg_read(cpu, PV_PMSELR_EL0) & 0x1F);
	s->userenr = (uint8_t)pv_plat_sysreg_read(cpu, PV_PMUSERENR_EL0);
	s->irq_level = (s->pmcr & PV_PMCR_E) && (s->inten & s->ovs);
}

void pv_vpmu__pt_load(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	struct pv_vpmu *s = &v->pmu;
	uint32_t all = v->vm->pmu.counter_mask;
	unsigned nr = v->vm->pmu.nr_counters;
	v->pmu.host_selr = (uint8_t)pv_plat_sysreg_read(cpu, PV_PMSELR_EL0);
	/* Its own PMCR first, with every counter still disabled: nothing counts while the rest
	 * goes in, and the interrupt's level is its own from the PMOVS and PMINTEN writes on
	 * (QEMU 7.2 computes the line on those, not on a PMCR write). The types are hwtype: a
	 * passthrough guest's own values, a direct guest's sanitised ones. */
	pv_plat_sysreg_write(cpu, PV_PMCNTENCLR_EL0, all);
	pv_plat_sysreg_write(cpu, PV_PMCR_EL0, s->pmcr);
	for (unsigned n = 0; n < nr; n++) {
		hw_evtyper_write(cpu, n, s->hwtype[n]);
		hw_evcntr_write(cpu, n, s->evcntr[n]);
	}
	pv_plat_sysreg_write(cpu, PV_PMCCFILTR_EL0, s->hwtype[PV_PMU_CYCLE_IDX]);
	pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, s->ccntr);
	pv_plat_sysreg_write(cpu, PV_PMOVSSET_EL0, s->ovs & all);
	pv_plat_sysreg_write(cpu, PV_PMOVSCLR_EL0, all & ~s->ovs);
	pv_plat_sysreg_write(cpu, PV_PMINTENSET_EL1, s->inten & all);
	pv_plat_sysreg_write(cpu, PV_PMINTENCLR_EL1, all & ~s->inten);
	pv_plat_sysreg_write(cpu, PV_PMSELR_EL0, s->selr);
	pv_plat_sysreg_write(cpu, PV_PMUSERENR_EL0, s->userenr);
	pv_plat_sysreg_write(cpu, PV_PMCNTENSET_EL0, s->cnten & all);
	v->pmu.el0_open = 0xFF; /* the EL0 rule is the hardware's now (trap/dispatch.c) */
}

/* Counting stops first, so the values read are those at the moment of the put. */
void pv_vpmu__pt_put(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	uint32_t all = v->vm->pmu.counter_mask;
	v->pmu.cnten = (uint32_t)pv_plat_sysreg_read(cpu, PV_PMCNTENSET_EL0) & all;
	pv_plat_sysreg_write(cpu, PV_PMCNTENCLR_EL0, all);
	read_back(v, cpu);
	pv_plat_sysreg_write(cpu, PV_PMINTENCLR_EL1, all);
	pv_plat_sysreg_write(cpu, PV_PMOVSCLR_EL0, all);
	pv_plat_sysreg_write(cpu, PV_PMUSERENR_EL0, PV_PMUSERENR_EN); /* pcpu_setup's */
	pv_plat_sysreg_write(cpu, PV_PMSELR_EL0, v->pmu.host_selr);
	pv_plat_sysreg_write(cpu, PV_PMCR_EL0, v->vm->pmu.pmcr_res1); /* pcpu_setup's too */
	v->pmu.el0_open = 0; /* its own, read back, decides again */
}

/* The guest's own overflow interrupt level, as the hardware has it (Arm ARM D24.5.8, the
 * interrupt request: PMCR_EL0.E and an overflow whose interrupt is enabled). */
bool pv_vpmu__pt_level(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	uint32_t all = v->vm->pmu.counter_mask;
	if (!(pv_plat_sysreg_read(cpu, PV_PMCR_EL0) & PV_PMCR_E))
		return false;
	return (pv_plat_sysreg_read(cpu, PV_PMINTENSET_EL1) &
		pv_plat_sysreg_read(cpu, PV_PMOVSSET_EL0) & all) != 0;
}

void pv_vpmu_sync(struct pv_vcpu *v)
{
	struct pv_pcpu *cpu = v->cpu;
	if (!vpmu_in_hw(&v->vm->pmu) || !cpu)
		return;
	v->pmu.cnten = (uint32_t)pv_plat_sysreg_read(cpu, PV_PMCNTENSET_EL0) &
		       v->vm->pmu.counter_mask;
	read_back(v, cpu);
}
