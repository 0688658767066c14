/* SPDX-License-Identifier: MIT */
/*
 * A counter counted in software: one increment with its overflow (PMSWINC, software.c), and
 * the CHAIN counters, which count their even partners' overflows (the fold, switch.c, and
 * PMSWINC). Calls neither file.
 */
#include "internal.h"

/* Adds 1 to event counter n. The overflow flag is set on unsigned overflow of bits [31:0],
 * or of [63:0] when PMCR.LP (PMUv3p5). Returns true on a 32-bit overflow (one that chains). */
bool pv_vpmu__increment(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n)
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
	uint32_t odd;
	if (!(v->pmu.pmcr & PV_PMCR_E) || (v->pmu.pmcr & PV_PMCR_LP))
		return;
	odd = (overflowed << 1) & v->pmu.chain & v->pmu.cnten;
	for (unsigned n = 1; n < PV_PMU_MAX_COUNTERS && (odd >> n); n += 2)
		if (odd & (1u << n))
			pv_vpmu__increment(v, cpu, n);
}
