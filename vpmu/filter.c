/* SPDX-License-Identifier: MIT */
/*
 * The VM's event filter, with KVM_ARM_VCPU_PMU_V3_FILTER semantics so that a VMM can reuse
 * its KVM ranges. The bitmap also tells which events a physical counter counts; sanitising
 * of event types is in internal.h (vpmu_hw_evtyper).
 */
#include "internal.h"

bool pv_vpmu_event_allowed(const struct pv_vm *vm, uint32_t event)
{
	return vpmu_event_allowed(&vm->pmu, event);
}

/* Sets bits [lo, lo + n) of the filter bitmap to `allow`. */
static void set_range(uint64_t *map, uint32_t lo, uint32_t n, bool allow)
{
	for (uint32_t e = lo; e < lo + n; e++) {
		uint64_t bit = UINT64_C(1) << (e % 64);
		map[e / 64] = allow ? (map[e / 64] | bit) : (map[e / 64] & ~bit);
	}
}

/* No range: every event allowed. Otherwise the first range's action sets the default (ALLOW
 * first: everything else denied; DENY first: everything else allowed) and the ranges apply
 * in order, later ones overriding earlier ones. The configuration is already validated. */
void pv_vpmu__filter_build(struct pv_vm_pmu *p, const struct pv_pmu_config *c)
{
	uint32_t words = (p->event_mask + 1) / 64;
	uint64_t fill = UINT64_MAX;
	if (c->nr_filters && c->filters[0].action == PV_PMU_FILTER_ALLOW)
		fill = 0;
	for (uint32_t w = 0; w < words; w++)
		p->allowed[w] = fill;
	for (unsigned i = 0; i < c->nr_filters; i++)
		set_range(p->allowed, c->filters[i].base_event, c->filters[i].nevents,
			  c->filters[i].action == PV_PMU_FILTER_ALLOW);
	/* Never filtered: counted in software, never by a physical counter; or, for a direct
	 * VM, whose PMSWINC_EL0 and counters are the hardware's, by the hardware as it has them
	 * (Arm ARM D14.3.1: SW_INCR is filtered by the EL of the write, CHAIN counts its even
	 * partner's overflows). */
	set_range(p->allowed, PV_EVT_SW_INCR, 1, p->direct);
	set_range(p->allowed, PV_EVT_CHAIN, 1, p->direct);
}

/*
 * Physical filter bits for guest PMEVTYPER/PMCCFILTR bits [31:28] = P:U:NSK:NSU (Arm ARM
 * D13.7.1, "Filtering by Exception level and Security state", and J1.3.1 CountPMUEvents()).
 * The guest runs in Non-secure EL1/EL0; it counts at EL1 iff P == NSK and at EL0 iff U == NSU
 * (NSK, NSU are stored as 0 without EL3). Only those two states may count in hardware:
 *  - without EL3 there is no Secure state: keep P and U;
 *  - with EL3: P = U = 1 (no Secure EL1/EL0), NSK = 1 iff the guest counts EL1, NSU = 1 iff
 *    it counts EL0, M = 0 (EL3 counted iff M == P).
 * Every other filter bit is 0 in hardware: NSH = SH = 0 (no EL2 in any Security state),
 * RLK = RLU = RLH = 0 (Realm EL1/EL0 counted iff RLK == P / RLU == U: never; Realm EL2 iff
 * RLH != NSH: never), MT = T = 0, thresholds 0.
 */
void pv_vpmu__filter_lut(struct pv_vm_pmu *p)
{
	for (uint32_t i = 0; i < 16; i++) {
		bool gp = i & 8, gu = i & 4, gnsk = i & 2, gnsu = i & 1;
		uint32_t hw = (gp ? PV_PMEVTYPER_P : 0) | (gu ? PV_PMEVTYPER_U : 0);
		if (p->el3) {
			hw = PV_PMEVTYPER_P | PV_PMEVTYPER_U;
			if (gp == gnsk)
				hw |= PV_PMEVTYPER_NSK;
			if (gu == gnsu)
				hw |= PV_PMEVTYPER_NSU;
		}
		p->filter_lut[i] = hw;
	}
}
