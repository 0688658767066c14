/* SPDX-License-Identifier: MIT */
/*
 * Control and identification registers: PMCR, PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR,
 * PMSELR, PMUSERENR, PMCEID0/1, PMMIR (Arm ARM D24.5). Bitmap registers: bits of counters
 * the VM does not have are RAZ/WI.
 */
#include "internal.h"

#define EN PV_PMUSERENR_EN
#define ER PV_PMUSERENR_ER

/* ---- PMCR_EL0 ---------------------------------------------------------------------------- */

/* Every write that changes something, tail-called: a new value, the first access, not
 * loaded, or P/C set. P and C reset the VM's counters only (never the host's, never through
 * PMCR in hardware). When counting is being enabled the resets go first; when disabled,
 * last. */
VPMU_NOINLINE static enum pv_trap_result pmcr_write_change(struct pv_vcpu *v, uint64_t val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	struct pv_pcpu *cpu = vpmu_cpu(v);
	uint64_t old = v->pmu.pmcr;
	uint64_t pmcr = (val & p->pmcr_stored) | p->pmcr_res1;
	bool write = cpu && pmcr != old;

	vpmu_settle_chain(v, cpu);
	v->pmu.pmcr = pmcr;
	if (write && !(pmcr & PV_PMCR_E)) {
		pv_plat_sysreg_write(cpu, PV_PMCR_EL0, pmcr);
		if (old & PV_PMCR_E)
			vpmu_fold_on_stop(v, cpu);
	}
	if (val & PV_PMCR_P)
		for (unsigned n = 0; n < p->nr_counters; n++) {
			if (cpu)
				hw_evcntr_write(cpu, n, 0);
			else
				v->pmu.evcntr[n] = 0;
		}
	if (val & PV_PMCR_C) {
		if (cpu)
			pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, 0);
		else
			v->pmu.ccntr = 0;
	}
	if (write && (pmcr & PV_PMCR_E))
		pv_plat_sysreg_write(cpu, PV_PMCR_EL0, pmcr);
	if ((old ^ pmcr) & PV_PMCR_E)
		vpmu_update_level(v);
	return PV_TRAP_HANDLED;
}

/* PMCR_EL0: E, D, DP, LC, LP stored; hardware gets them, never P, C or X. A write that
 * leaves PMCR as it is costs a compare; any change takes the general path. */
enum pv_trap_result pv_vpmu_pmcr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
				       uint64_t val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	uint64_t pmcr;
	(void)idx, (void)el;
	pmcr = (val & p->pmcr_stored) | p->pmcr_res1;
	if ((v->pmu.slow & (1u << PV_PMU_CYCLE_IDX)) || (val & (PV_PMCR_P | PV_PMCR_C)) ||
	    pmcr != v->pmu.pmcr)
		return pmcr_write_change(v, val);
	return PV_TRAP_HANDLED;
}

/* IMP, IDCODE from the hardware, N = the VM's counters, stored bits; P, C, X read 0. */
enum pv_trap_result pv_vpmu_pmcr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
				      uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->pmu.pmcr | v->vm->pmu.pmcr_fixed, val);
}

/* The SET and CLR views of one bitmap: both read the same state; a write of 1 sets or clears
 * (Arm ARM D24.5, PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR). */
#define SET_CLR_HANDLERS(set, clr, writer, reader)                                             \
	enum pv_trap_result pv_vpmu_##set##_write(struct pv_vcpu *v, unsigned idx,             \
						  unsigned el, uint64_t val)                   \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return writer(v, val, true);                                                   \
	}                                                                                      \
	enum pv_trap_result pv_vpmu_##clr##_write(struct pv_vcpu *v, unsigned idx,             \
						  unsigned el, uint64_t val)                   \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return writer(v, val, false);                                                  \
	}                                                                                      \
	enum pv_trap_result pv_vpmu_##set##_read(struct pv_vcpu *v, unsigned idx, unsigned el, \
						 uint64_t *val)                                \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return reader(v, val);                                                         \
	}                                                                                      \
	enum pv_trap_result pv_vpmu_##clr##_read(struct pv_vcpu *v, unsigned idx, unsigned el, \
						 uint64_t *val)                                \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return reader(v, val);                                                         \
	}

/* ---- PMCNTENSET_EL0 / PMCNTENCLR_EL0 ----------------------------------------------------- */

static enum pv_trap_result write_cnten(struct pv_vcpu *v, uint64_t val, bool set)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	uint32_t bits;
	uint32_t changed;
	vpmu_settle_chain(v, cpu);
	bits = (uint32_t)val & v->vm->pmu.counter_mask;
	changed = set ? bits & ~v->pmu.cnten : bits & v->pmu.cnten;
	v->pmu.cnten ^= changed;
	if (cpu && changed) {
		pv_plat_sysreg_write(cpu, set ? PV_PMCNTENSET_EL0 : PV_PMCNTENCLR_EL0, changed);
		if (v->pmu.chain & changed)
			pv_vpmu__sync_inten(v, cpu);
		if (!set)
			vpmu_fold_on_stop(v, cpu);
	}
	return PV_TRAP_HANDLED;
}

static enum pv_trap_result read_cnten(struct pv_vcpu *v, uint64_t *val)
{
	return vpmu_read_kept(v, v->pmu.cnten, val);
}

SET_CLR_HANDLERS(pmcntenset, pmcntenclr, write_cnten, read_cnten)

/* ---- PMINTENSET_EL1 / PMINTENCLR_EL1 (EL1 registers: UNDEFINED at EL0) -------------------- */

static enum pv_trap_result write_inten(struct pv_vcpu *v, uint64_t val, bool set)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	uint32_t bits = (uint32_t)val & v->vm->pmu.counter_mask;
	v->pmu.inten = set ? (v->pmu.inten | bits) : (v->pmu.inten & ~bits);
	if (cpu)
		pv_vpmu__sync_inten(v, cpu);
	vpmu_update_level(v);
	return PV_TRAP_HANDLED;
}

static enum pv_trap_result read_inten(struct pv_vcpu *v, uint64_t *val)
{
	return vpmu_read_kept(v, v->pmu.inten, val);
}

SET_CLR_HANDLERS(pmintenset, pmintenclr, write_inten, read_inten)

/* ---- PMOVSSET_EL0 / PMOVSCLR_EL0 --------------------------------------------------------- */

static enum pv_trap_result write_ovs(struct pv_vcpu *v, uint64_t val, bool set)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	uint32_t bits = (uint32_t)val & v->vm->pmu.counter_mask;
	if (cpu)
		pv_vpmu__fold(v, cpu);
	v->pmu.ovs = set ? (v->pmu.ovs | bits) : (v->pmu.ovs & ~bits);
	vpmu_update_level(v);
	return PV_TRAP_HANDLED;
}

static enum pv_trap_result read_ovs(struct pv_vcpu *v, uint64_t *val)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	if (cpu)
		pv_vpmu__fold(v, cpu);
	*val = v->pmu.ovs;
	return PV_TRAP_HANDLED;
}

SET_CLR_HANDLERS(pmovsset, pmovsclr, write_ovs, read_ovs)

/* ---- PMSELR_EL0, PMUSERENR_EL0 ----------------------------------------------------------- */

enum pv_trap_result pv_vpmu_pmselr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->pmu.selr, val);
}

/* The first write activates after the new SEL is in place: the activation's fast word then
 * takes it from there. */
enum pv_trap_result pv_vpmu_pmselr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t val)
{
	(void)idx, (void)el;
	v->pmu.selr = (uint8_t)(val &
				PV_BITS_PMSELR_EL0_RW(v->vm->pmu.version, v->vm->pmu.conds));
	vpmu_fast_sel(v);
	if (!v->pmu.active)
		return pv_vpmu__activate_handled(v);
	return PV_TRAP_HANDLED;
}

/* Readable at EL0 whatever its value; writable at EL1 only. */
enum pv_trap_result pv_vpmu_pmuserenr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	(void)idx, (void)el;
	vpmu_cpu(v);
	*val = v->pmu.userenr;
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vpmu_pmuserenr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	(void)idx, (void)el;
	vpmu_cpu(v);
	v->pmu.userenr = (uint8_t)(val & PV_BITS_PMUSERENR_EL0_RW(v->vm->pmu.version,
								  v->vm->pmu.conds));
	vpmu_fast_sync(v);
	return PV_TRAP_HANDLED;
}

/* ---- PMCEID0/1_EL0, PMMIR_EL1 (read-only; values fixed at VM init) ----------------------- */

enum pv_trap_result pv_vpmu_pmceid0_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->vm->pmu.pmceid0, val);
}

enum pv_trap_result pv_vpmu_pmceid1_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->vm->pmu.pmceid1, val);
}

enum pv_trap_result pv_vpmu_pmmir_read(struct pv_vcpu *v, unsigned idx, unsigned el,
				       uint64_t *val)
{
	(void)idx, (void)el;
	return vpmu_read_kept(v, v->vm->pmu.pmmir, val);
}
