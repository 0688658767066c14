/* SPDX-License-Identifier: MIT */
/*
 * Event types: PMEVTYPER<n>, PMXEVTYPER, PMCCFILTR (Arm ARM D24.5). The guest reads back the
 * bits it may see; the hardware gets a sanitised copy that never counts EL2, EL3, Secure or
 * Realm states, and counts nothing for SW_INCR, CHAIN and events the VM's filter denies.
 */
#include "internal.h"

#define EN PV_PMUSERENR_EN

/* Slow path of a type write: the counter's type is or was SW_INCR or CHAIN, or this is the
 * vCPU's first access, or the VM is direct. Keeps `emulated`, `chain` and the physical
 * PMINTEN in step. */
VPMU_COLD static void evtyper_changed(struct pv_vcpu *v, unsigned n, uint64_t t, uint64_t hw)
{
	uint32_t event = (uint32_t)(t & v->vm->pmu.event_mask);
	uint32_t bit = 1u << n;
	struct pv_pcpu *cpu = vpmu_cpu(v);
	uint32_t chain;
	if (v->vm->pmu.direct) {
		/* Its PMOVS, enables and counters are the hardware's, SW_INCR and CHAIN too:
		 * only the sanitised type goes in (the one path a type has to a direct VM's
		 * hardware: PMEVTYPER<n>_EL0 and PMXEVTYPER_EL0 trap by one fine-grained bit). */
		if (cpu)
			hw_evtyper_write(cpu, n, hw);
		return;
	}

	vpmu_settle_chain(v, cpu);
	v->pmu.emulated &= ~bit;
	if (event == PV_EVT_SW_INCR || event == PV_EVT_CHAIN)
		v->pmu.emulated |= bit;
	/* CHAIN is meaningful on odd counters only (it chains to counter n - 1). */
	chain = (event == PV_EVT_CHAIN && (n & 1)) ? bit : 0;
	if ((v->pmu.chain & bit) != chain) {
		v->pmu.chain ^= bit;
		vpmu_set_slow(v);
		if (cpu)
			pv_vpmu__sync_inten(v, cpu);
	}
	if (cpu) {
		hw_evtyper_write(cpu, n, hw);
		vpmu_fold_on_stop(v, cpu);
	}
}

/* The guest reads back its visible bits; the hardware gets the sanitised copy. A guest's
 * perf writes a counter's type each time it schedules the event in, often the type the
 * counter already has: with the vCPU active and loaded the hardware already holds its
 * sanitised copy (hwtype), so that write costs a compare. */
static VPMU_INLINE enum pv_trap_result set_evtyper(struct pv_vcpu *v, unsigned n, uint64_t val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	struct pv_pcpu *cpu = v->cpu;
	uint64_t t = val & p->evtyper_mask;
	uint32_t event;
	bool in_hw;
	uint64_t hw;
	/* `slow` has every bit until the first access, while not loaded, and always for a
	 * direct VM. */
	if (t == v->pmu.evtyper[n] && !(v->pmu.slow & (1u << n)))
		return PV_TRAP_HANDLED;
	event = (uint32_t)(t & p->event_mask);
	in_hw = vpmu_event_in_hw(p, event);
	hw = in_hw ? event | vpmu_hw_filter(p, t) : p->hw_nothing;

	v->pmu.evtyper[n] = t;
	v->pmu.hwtype[n] = hw;
	/* `emulated` covers SW_INCR and CHAIN. */
	if (!in_hw || ((v->pmu.emulated | v->pmu.slow) & (1u << n))) {
		evtyper_changed(v, n, t, hw);
	} else if (cpu) {
		hw_evtyper_write(cpu, n, hw);
		vpmu_fold_on_stop(v, cpu); /* the old event stopped counting */
	}
	return PV_TRAP_HANDLED;
}

VPMU_NOINLINE static enum pv_trap_result set_ccfiltr(struct pv_vcpu *v, uint64_t val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	struct pv_pcpu *cpu = vpmu_cpu(v);
	v->pmu.ccfiltr = val & p->ccfiltr_mask;
	v->pmu.hwtype[PV_PMU_CYCLE_IDX] = vpmu_hw_ccfiltr(p, v->pmu.ccfiltr);
	if (cpu)
		pv_plat_sysreg_write(cpu, PV_PMCCFILTR_EL0, v->pmu.hwtype[PV_PMU_CYCLE_IDX]);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vpmu_pmevtyper_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	(void)el;
	return vpmu_read_kept(v, v->pmu.evtyper[idx], val);
}

enum pv_trap_result pv_vpmu_pmevtyper_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	(void)el;
	return set_evtyper(v, idx, val);
}

/* PMEVTYPER<n>_EL0's own entries (the database's pmevtyper#): the same with n a constant. */
#define EVTYPER_AT(n, r)                                                                       \
	enum pv_trap_result pv_vpmu_##r##n##_read(struct pv_vcpu *v, unsigned idx,             \
						  unsigned el, uint64_t *val)                  \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return vpmu_read_kept(v, v->pmu.evtyper[n], val);                              \
	}                                                                                      \
	enum pv_trap_result pv_vpmu_##r##n##_write(struct pv_vcpu *v, unsigned idx,            \
						   unsigned el, uint64_t val)                  \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return set_evtyper(v, n, val);                                                 \
	}
PV_PMEV_EACH(EVTYPER_AT, pmevtyper)

enum pv_trap_result pv_vpmu_pmccfiltr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->pmu.ccfiltr, val);
}

enum pv_trap_result pv_vpmu_pmccfiltr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	(void)idx, (void)el;
	return set_ccfiltr(v, val);
}

/* The SEL a PMXEVTYPER_EL0 access used: a loaded direct guest's PMSELR_EL0 is the
 * hardware's, which it writes untrapped. */
static unsigned xev_sel(const struct pv_vcpu *v)
{
	if (v->vm->pmu.direct && v->cpu)
		return (unsigned)pv_plat_sysreg_read(v->cpu, PV_PMSELR_EL0) & PV_PMSELR_SEL;
	return v->pmu.selr;
}

/* PMXEVTYPER_EL0: PMEVTYPER<SEL>, PMCCFILTR when SEL = 31, UNDEFINED for N <= SEL < 31. */
enum pv_trap_result pv_vpmu_pmxevtyper_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t *val)
{
	unsigned sel;
	(void)idx, (void)el;
	sel = xev_sel(v);
	if (sel == PV_PMU_CYCLE_IDX)
		return pv_vpmu_pmccfiltr_read(v, 0, 1, val);
	if (sel >= v->vm->pmu.nr_counters)
		return PV_TRAP_UNDEF;
	return pv_vpmu_pmevtyper_read(v, sel, 1, val);
}

enum pv_trap_result pv_vpmu_pmxevtyper_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					     uint64_t val)
{
	unsigned sel;
	(void)idx, (void)el;
	sel = xev_sel(v);
	if (sel == PV_PMU_CYCLE_IDX)
		return set_ccfiltr(v, val);
	if (sel < v->vm->pmu.nr_counters)
		return set_evtyper(v, sel, val);
	return PV_TRAP_UNDEF;
}
