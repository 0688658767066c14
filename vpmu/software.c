/* SPDX-License-Identifier: MIT */
/*
 * Events counted in software: SW_INCR through PMSWINC, and CHAIN (Arm ARM D13.x "Chaining",
 * PMSWINC_EL0), with 32- and 64-bit overflow.
 */
#include "internal.h"

#define EN PV_PMUSERENR_EN
#define SW PV_PMUSERENR_SW
#define CYCLE_BIT (1u << PV_PMU_CYCLE_IDX)

/* Adds 1 to event counter n. The overflow flag is set on unsigned overflow of bits [31:0],
 * or of [63:0] when PMCR.LP (PMUv3p5). Returns true on a 32-bit overflow (one that chains). */
static bool increment(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n)
{
	uint64_t val = (vpmu_evcntr_raw(v, cpu, n) + 1) & v->vm->pmu.evcntr_mask;
	bool lp = (v->pmu.pmcr & PV_PMCR_LP) != 0;
	bool ovf = lp ? val == 0 : (uint32_t)val == 0;
	vpmu_evcntr_set(v, cpu, n, val);
	if (ovf)
		v->pmu.ovs |= 1u << n;
	return ovf && !lp;
}

/* CHAIN (0x1E) on odd counter n + 1 counts each overflow of even counter n that is not a
 * 64-bit one. Counted when PMCR.E and PMCNTEN[n + 1]; like KVM, the odd counter's own
 * EL filter is not applied. `overflowed` holds even counters only. */
void pv_vpmu__chain_overflows(struct pv_vcpu *v, struct pv_pcpu *cpu, uint32_t overflowed)
{
	if (!(v->pmu.pmcr & PV_PMCR_E) || (v->pmu.pmcr & PV_PMCR_LP))
		return;
	uint32_t odd = (overflowed << 1) & v->pmu.chain & v->pmu.cnten;
	for (unsigned n = 1; n < PV_PMU_MAX_COUNTERS && (odd >> n); n += 2)
		if (odd & (1u << n))
			increment(v, cpu, n);
}

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
	(void)idx;
	struct pv_pcpu *cpu = vpmu_cpu(v);
	if (!(v->pmu.pmcr & PV_PMCR_E))
		return PV_TRAP_HANDLED;
	const struct pv_vm_pmu *p = &v->vm->pmu;
	uint32_t todo = (uint32_t)val & v->pmu.cnten & v->pmu.emulated & ~CYCLE_BIT;
	uint32_t chained = 0;
	for (unsigned n = 0; n < PV_PMU_MAX_COUNTERS && (todo >> n); n++) {
		uint64_t t = v->pmu.evtyper[n];
		if (!(todo & (1u << n)) || (t & p->event_mask) != PV_EVT_SW_INCR ||
		    !counts_at(t, el))
			continue;
		if (increment(v, cpu, n) && !(n & 1))
			chained |= 1u << n;
	}
	pv_vpmu__chain_overflows(v, cpu, chained);
	vpmu_update_level(v);
	return PV_TRAP_HANDLED;
}
