/* SPDX-License-Identifier: MIT */
/*
 * QEMU 7.2's deviations every EL2 host of perfvisor works around, in one place (the
 * overflow poll is a timer of each host: hyp/timer.c).
 *
 * Emulated MMIO: instructions the host completes by emulation must count as executed by the
 * guest (Arm ARM D14.3.1: INST_RETIRED counts architecturally executed instructions). QEMU 7.2
 * counts a trapped system-register access or HVC at EL1, but not a load or store that takes
 * a stage-2 data abort: that instruction never completes in hardware, and the host performs
 * it (UART, GIC) and skips it. qemu72_retire_emulated() credits it as QEMU counts the others:
 * +1 on every enabled guest counter whose programmed (physical) event is INST_RETIRED or
 * CPU_CYCLES (one cycle per instruction, as under -icount shift=0) and whose filter counts the
 * guest's exception level, plus the cycle counter; a counter that wraps gets its physical
 * overflow flag, which the library folds into the guest's PMOVS (and chains) as for any
 * hardware overflow. Only the physical counters of the loaded vCPU are touched, and only on
 * QEMU (plat_feat.qemu: MIDR_EL1.Implementer 0, "reserved for software use", as QEMU's
 * `max` CPU reports). A passthrough or direct vCPU's PMCR_EL0, enables and types are read
 * from the hardware, where it writes them (vpmu/passthrough.c): what the library kept is
 * what they were at its last load.
 */
#include "qemu72.h"

/* Whether physical filter bits `t` count at Non-secure EL `el` (PMEVTYPER, Arm ARM D24.5):
 * EL1 iff P == NSK and EL0 iff U == NSU when EL3 exists, else iff P / U are clear. */
static bool counts_at(uint64_t t, unsigned el, bool el3)
{
	bool excl = el ? (t & PV_PMEVTYPER_P) : (t & PV_PMEVTYPER_U);
	if (el3) {
		bool ns = el ? (t & PV_PMEVTYPER_NSK) : (t & PV_PMEVTYPER_NSU);
		return excl == ns;
	}
	return !excl;
}

static bool wraps(uint64_t old, bool wide)
{
	return wide ? old == ~0ul : (uint32_t)old == 0xFFFFFFFFu;
}

/* QEMU 7.2 drives the PMU interrupt line to PMCR_EL0.E && (PMINTEN & PMOVS) when PMINTEN or
 * PMOVS is written, but not when PMCR_EL0 is: a guest that clears E with an overflow
 * pending leaves the line high, and with the PMU passed through nothing else writes them,
 * so the hypervisor would take it again and again. Setting no PMOVS bit (a write of 0 to
 * PMOVSSET_EL0 changes nothing) makes QEMU compute the line again. Only where the line is
 * stale (plat_feat.pmu_line_stale): a PE that drives it as Arm ARM D13.3.1 says needs none. */
void qemu72_pmu_line_resync(struct pv_pcpu *cpu)
{
	if (plat_feat.pmu_line_stale)
		pv_plat_sysreg_write(cpu, PV_PMOVSSET_EL0, 0);
}

void qemu72_retire_emulated(struct pv_vcpu *v, unsigned el)
{
	const struct pv_vpmu *p = &v->pmu;
	struct pv_pcpu *cpu = v->cpu;
	if (!plat_feat.qemu || !p->active || !cpu)
		return;
	bool live = v->vm->pmu.passthrough || v->vm->pmu.direct;
	uint64_t pmcr = live ? pv_plat_sysreg_read(cpu, PV_PMCR_EL0) : p->pmcr;
	uint32_t cnten = live ? (uint32_t)pv_plat_sysreg_read(cpu, PV_PMCNTENSET_EL0)
			      : p->cnten;
	if (!(pmcr & PV_PMCR_E))
		return;
	bool el3 = v->vm->hw->el3;
	uint32_t ovf = 0;
	for (unsigned n = 0; n < v->vm->pmu.nr_counters; n++) {
		if (!(cnten & (1u << n)))
			continue;
		uint64_t t = live ? pv_plat_sysreg_read(cpu, PV_PMEVTYPER_EL0(n))
				  : p->hwtype[n];
		uint64_t ev = t & PV_PMEVTYPER_EVT_V3P1;
		if (!counts_at(t, el, el3) ||
		    (ev != PV_EVT_INST_RETIRED && ev != PV_EVT_CPU_CYCLES))
			continue;
		uint64_t c = pv_plat_sysreg_read(cpu, PV_PMEVCNTR_EL0(n));
		pv_plat_sysreg_write(cpu, PV_PMEVCNTR_EL0(n), c + 1);
		if (wraps(c, pmcr & PV_PMCR_LP))
			ovf |= 1u << n;
	}
	uint64_t ccfiltr = live ? pv_plat_sysreg_read(cpu, PV_PMCCFILTR_EL0)
				: p->hwtype[PV_PMU_CYCLE_IDX];
	if ((cnten & (1u << PV_PMU_CYCLE_IDX)) && !(pmcr & PV_PMCR_D) &&
	    counts_at(ccfiltr, el, el3)) {
		uint64_t c = pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0);
		pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, c + 1);
		if (wraps(c, pmcr & PV_PMCR_LC))
			ovf |= 1u << PV_PMU_CYCLE_IDX;
	}
	if (ovf)
		pv_plat_sysreg_write(cpu, PV_PMOVSSET_EL0, ovf);
}
