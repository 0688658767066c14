/* SPDX-License-Identifier: MIT */
/*
 * Events counted in software: SW_INCR through PMSWINC, and CHAIN (Arm ARM D14.3.1,
 * D24.5.24 PMSWINC_EL0), with 32- and 64-bit overflow.
 */
#include "internal.h"

#define EN PV_PMUSERENR_EN
#define SW PV_PMUSERENR_SW

/* Whether a counter with (stored) filter t counts at `el` of Non-secure state: EL1 iff
 * P == NSK, EL0 iff U == NSU (NSK, NSU are stored as 0 without EL3). */
static bool counts_at(uint64_t t, unsigned el)
{
	if (el)
		return !(t & PV_PMEVTYPER_P) == !(t & PV_PMEVTYPER_NSK);
	return !(t & PV_PMEVTYPER_U) == !(t & PV_PMEVTYPER_NSU);
}

/* Each set bit n < N increments counter n if it is enabled (PMCR.E, PMCNTEN[n]), counts
 * SW_INCR, and its filter allows the EL of the write. */
enum pv_trap_result pv_vpmu_pmswinc_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					  uint64_t val)
{
	struct pv_pcpu *cpu;
	const struct pv_vm_pmu *p;
	uint32_t todo;
	uint32_t chained;
	(void)idx;
	cpu = vpmu_cpu(v);
	if (!(v->pmu.pmcr & PV_PMCR_E))
		return PV_TRAP_HANDLED;
	p = &v->vm->pmu;
	todo = (uint32_t)(val & PV_BITS_PMSWINC_EL0_WO(p->version, p->conds)) & v->pmu.cnten &
	       v->pmu.emulated;
	chained = 0;
	for (unsigned n = 0; n < PV_PMU_MAX_COUNTERS && (todo >> n); n++) {
		uint64_t t = v->pmu.evtyper[n];
		if (!(todo & (1u << n)) || (t & p->event_mask) != PV_EVT_SW_INCR ||
		    !counts_at(t, el))
			continue;
		if (pv_vpmu__increment(v, cpu, n) && !(n & 1))
			chained |= 1u << n;
	}
	pv_vpmu__chain_overflows(v, cpu, chained);
	vpmu_update_level(v);
	return PV_TRAP_HANDLED;
}
