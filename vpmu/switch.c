/* SPDX-License-Identifier: MIT */
/*
 * The physical PMU of a pCPU: per-pCPU setup, lazy vCPU load/put, overflow folding and the
 * physical PMU interrupt.
 *
 * Partition (MDCR_EL2.HPMN): physical counters [0, HPMN) and the cycle counter are the
 * guests', [HPMN, N) the host's and never touched here. Every bitmap write is masked to the
 * loaded VM's counters [0, N_vm) and bit 31; counters [N_vm, HPMN) stay disabled.
 */
#include "internal.h"

/* Physical PMINTEN of guest counters: the guest's, plus each even counter whose odd
 * partner is an enabled CHAIN counter, so that its overflows are seen and chained. */
void pv_vpmu__sync_inten(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	uint32_t mask = v->vm->pmu.counter_mask;
	uint32_t want = (v->pmu.inten | ((v->pmu.chain & v->pmu.cnten) >> 1)) & mask;
	pv_plat_sysreg_write(cpu, PV_PMINTENSET_EL1, want);
	pv_plat_sysreg_write(cpu, PV_PMINTENCLR_EL1, mask & ~want);
}

/* Moves the physical overflow flags of the VM's counters into the virtual PMOVS, chains
 * even-counter overflows and re-evaluates the interrupt level. Returns the raw PMOVSSET. */
uint64_t pv_vpmu__fold(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	uint64_t raw = pv_plat_sysreg_read(cpu, PV_PMOVSSET_EL0);
	uint32_t mine = (uint32_t)raw & v->vm->pmu.counter_mask;
	if (mine) {
		pv_plat_sysreg_write(cpu, PV_PMOVSCLR_EL0, mine);
		v->pmu.ovs |= mine;
		pv_vpmu__chain_overflows(v, cpu, mine & 0x55555555u);
		vpmu_update_level(v);
	}
	return raw;
}

/* Puts the vCPU's state in hardware; the enables go last. PMCR gets the stored bits only
 * (E, D, DP, LC, LP), never P, C or X. */
static void load_hw(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	const struct pv_vpmu *s = &v->pmu;
	unsigned nr = v->vm->pmu.nr_counters;
	for (unsigned n = 0; n < nr; n++) {
		hw_evtyper_write(cpu, n, s->hwtype[n]);
		hw_evcntr_write(cpu, n, s->evcntr[n]);
	}
	pv_plat_sysreg_write(cpu, PV_PMCCFILTR_EL0, s->hwtype[PV_PMU_CYCLE_IDX]);
	pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, s->ccntr);
	pv_vpmu__sync_inten(v, cpu);
	pv_plat_sysreg_write(cpu, PV_PMCR_EL0, s->pmcr);
	pv_plat_sysreg_write(cpu, PV_PMCNTENSET_EL0, s->cnten);
}

void pv_vpmu__activate(struct pv_vcpu *v)
{
	if (vpmu_in_hw(&v->vm->pmu))
		return; /* active from the start, and its state is in hardware when loaded */
	v->pmu.active = true;
	vpmu_set_slow(v);
	if (v->cpu)
		load_hw(v, v->cpu);
}

VPMU_COLD enum pv_trap_result pv_vpmu__activate_handled(struct pv_vcpu *v)
{
	pv_vpmu__activate(v);
	return PV_TRAP_HANDLED;
}

/* A vCPU that never touched the PMU costs nothing at switch. */
void pv_vpmu_load(struct pv_vcpu *v)
{
	if (v->pmu.active && v->cpu) {
		if (vpmu_in_hw(&v->vm->pmu)) { /* active from the start */
			pv_vpmu__pt_load(v, v->cpu);
			return; /* no counter traps: the fast word stays all slow */
		}
		load_hw(v, v->cpu);
		vpmu_set_slow(v);
	}
}

void pv_vpmu_put(struct pv_vcpu *v)
{
	struct pv_pcpu *cpu = v->cpu;
	unsigned nr;
	if (!v->pmu.active || !cpu)
		return;
	if (vpmu_in_hw(&v->vm->pmu)) {
		pv_vpmu__pt_put(v, cpu);
		return;
	}
	nr = v->vm->pmu.nr_counters;
	/* No ISB is needed between this disable and the reads below: at EL2 the guest's
	 * counters already count nothing (their NSH filter bits are sanitised to 0, and
	 * MDCR_EL2.HPMD/HCCD say so again where the PMU has them: Arm ARM D13.1.1), so the
	 * values read are final whether or not the write has taken effect yet. */
	pv_plat_sysreg_write(cpu, PV_PMCNTENCLR_EL0, v->vm->pmu.counter_mask);
	pv_vpmu__fold(v, cpu);
	for (unsigned n = 0; n < nr; n++)
		v->pmu.evcntr[n] = hw_evcntr_read(cpu, n);
	v->pmu.ccntr = pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0);
	v->pmu.slow = ~0u; /* not loaded from here on */
	vpmu_fast_clear(v);
}

/* Every guest EL0 access reaches EL2 (MDCR_EL2.TPM), where the virtual PMUSERENR decides:
 * physical PMUSERENR_EL0.EN alone lets every EL0 access past the EL1 check (CR, ER and SW
 * only widen what EN already allows, so they stay 0; QEMU 7.2 wrongly skips the TPM trap
 * for EL0 accesses they enable). The guest partition starts disabled, quiet and with no
 * overflow pending. */
void pv_vpmu_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	uint64_t guest;
	if (hw->pmu_version == PV_PMUVER_NI)
		return;
	guest = (PV_BIT(hw->hpmn) - 1) | PV_BIT(PV_PMU_CYCLE_IDX);
	pv_plat_sysreg_write(cpu, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	pv_plat_sysreg_write(cpu, PV_PMCNTENCLR_EL0, guest);
	pv_plat_sysreg_write(cpu, PV_PMINTENCLR_EL1, guest);
	pv_plat_sysreg_write(cpu, PV_PMOVSCLR_EL0, guest);
	pv_plat_sysreg_write(cpu, PV_PMCR_EL0, hw->aarch32 ? 0 : PV_PMCR_LC);
}

/* Physical PMU overflow interrupt. Guest flags are folded into the loaded vCPU; host flags
 * (counters [HPMN, N)) are left set for the host. With no active vCPU loaded, the guest
 * counters are disabled and their flags were folded at put. A passthrough or direct vCPU's
 * interrupt is its own, in its own registers (PMCR_EL0.E, PMINTEN, PMOVS: Arm ARM D13.3.1):
 * the host presents it mapped (PV_IRQ_GUEST_MAPPED), and each one it takes is a rising edge
 * of the guest's line (none comes while one is active). */
enum pv_irq_result pv_vpmu_irq(struct pv_pcpu *cpu)
{
	struct pv_vcpu *v = cpu->loaded;
	uint64_t host;
	if (v && vpmu_in_hw(&v->vm->pmu)) {
		/* The host's counters first: the guest's level, if high, brings it back. */
		if (v->vm->pmu.host_mask &&
		    (pv_plat_sysreg_read(cpu, PV_PMOVSSET_EL0) & v->vm->pmu.host_mask))
			return PV_IRQ_HOST_PENDING;
		if (!pv_vpmu__pt_level(v, cpu))
			return PV_IRQ_HANDLED; /* none of its own: a late one, another's */
		v->stats.pmu_irqs++;
		return PV_IRQ_GUEST_MAPPED;
	}
	host = 0;
	if (v && v->pmu.active) {
		host = pv_vpmu__fold(v, cpu) & v->vm->pmu.host_mask;
	} else {
		uint64_t raw = pv_plat_sysreg_read(cpu, PV_PMOVSSET_EL0);
		if (cpu->hw)
			host = raw & (PV_BIT(cpu->hw->pmu_counters) - 1) &
			       ~(PV_BIT(cpu->hw->hpmn) - 1);
	}
	return host ? PV_IRQ_HOST_PENDING : PV_IRQ_HANDLED;
}
