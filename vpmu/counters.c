/* SPDX-License-Identifier: MIT */
/*
 * The counters: PMEVCNTR<n>, PMXEVCNTR, PMCCNTR (Arm ARM D13.11 "Counter access", D24.5),
 * and the operator's view of them. Event counters are 32-bit before PMUv3p5, 64-bit from it;
 * the cycle counter is 64-bit in every version.
 */
#include "internal.h"

#define EN PV_PMUSERENR_EN
#define CR PV_PMUSERENR_CR
#define ER PV_PMUSERENR_ER

/* Guest view of event counter n: bits [31:0] before PMUv3p5. A CHAIN counter first takes
 * the pending overflows of its even partner into account. */
static inline uint64_t evcntr_get(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n)
{
	if (cpu && (v->pmu.chain & (1u << n)))
		pv_vpmu__fold(v, cpu);
	return vpmu_evcntr_raw(v, cpu, n) & v->vm->pmu.evcntr_mask;
}

/* ---- PMEVCNTR<n>_EL0, PMXEVCNTR_EL0, PMCCNTR_EL0 ------------------------------------------ */

/* Slow paths, tail-called: first access (activation), vCPU not loaded, CHAIN counter. */
VPMU_COLD static enum pv_trap_result evcntr_read_slow(struct pv_vcpu *v, unsigned n,
						      uint64_t *val)
{
	*val = evcntr_get(v, vpmu_cpu(v), n);
	return PV_TRAP_HANDLED;
}

VPMU_COLD static enum pv_trap_result evcntr_write_slow(struct pv_vcpu *v, unsigned n,
						       uint64_t val)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	vpmu_settle_chain(v, cpu);
	vpmu_evcntr_set(v, cpu, n, val & v->vm->pmu.evcntr_mask);
	return PV_TRAP_HANDLED;
}

static VPMU_INLINE enum pv_trap_result evcntr_read(struct pv_vcpu *v, unsigned idx,
						   uint64_t *val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	struct pv_pcpu *cpu = v->cpu;
	if ((v->pmu.slow >> idx) & 1u)
		return evcntr_read_slow(v, idx, val); /* also: not active, not loaded */
	*val = hw_evcntr_read(cpu, idx) & p->evcntr_mask;
	return PV_TRAP_HANDLED;
}

static VPMU_INLINE enum pv_trap_result evcntr_write(struct pv_vcpu *v, unsigned idx,
						    uint64_t val)
{
	const struct pv_vm_pmu *p = &v->vm->pmu;
	struct pv_pcpu *cpu = v->cpu;
	if ((v->pmu.slow >> idx) & 1u)
		return evcntr_write_slow(v, idx, val); /* also: not active, not loaded */
	hw_evcntr_write(cpu, idx, val & p->evcntr_mask);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vpmu_pmevcntr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					  uint64_t *val)
{
	(void)el;
	return evcntr_read(v, idx, val);
}

enum pv_trap_result pv_vpmu_pmevcntr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t val)
{
	(void)el;
	return evcntr_write(v, idx, val);
}

/* PMEVCNTR<n>_EL0's own entries (the database's pmevcntr#): the same with n a constant. */
#define EVCNTR_AT(n, r)                                                                        \
	enum pv_trap_result pv_vpmu_##r##n##_read(struct pv_vcpu *v, unsigned idx,             \
						  unsigned el, uint64_t *val)                  \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return evcntr_read(v, n, val);                                                 \
	}                                                                                      \
	enum pv_trap_result pv_vpmu_##r##n##_write(struct pv_vcpu *v, unsigned idx,            \
						   unsigned el, uint64_t val)                  \
	{                                                                                      \
		(void)idx, (void)el;                                                           \
		return evcntr_write(v, n, val);                                                \
	}
PV_PMEV_EACH(EVCNTR_AT, pmevcntr)

/* PMXEVCNTR_EL0: PMEVCNTR<SEL>; SEL >= N, 31 included, is UNDEFINED. */
enum pv_trap_result pv_vpmu_pmxevcntr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	(void)idx, (void)el;
	if (v->pmu.selr >= v->vm->pmu.nr_counters)
		return PV_TRAP_UNDEF; /* also keeps SEL off the host's counters */
	return pv_vpmu_pmevcntr_read(v, v->pmu.selr, 1, val);
}

enum pv_trap_result pv_vpmu_pmxevcntr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	(void)idx, (void)el;
	if (v->pmu.selr >= v->vm->pmu.nr_counters)
		return PV_TRAP_UNDEF; /* also keeps SEL off the host's counters */
	return pv_vpmu_pmevcntr_write(v, v->pmu.selr, 1, val);
}

VPMU_COLD static enum pv_trap_result ccntr_read_slow(struct pv_vcpu *v, uint64_t *val)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	*val = cpu ? pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0) : v->pmu.ccntr;
	return PV_TRAP_HANDLED;
}

VPMU_COLD static enum pv_trap_result ccntr_write_slow(struct pv_vcpu *v, uint64_t val)
{
	struct pv_pcpu *cpu = vpmu_cpu(v);
	if (cpu)
		pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, val);
	else
		v->pmu.ccntr = val;
	return PV_TRAP_HANDLED;
}

/* PMCCNTR_EL0: 64 bits in every version. */
enum pv_trap_result pv_vpmu_pmccntr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					 uint64_t *val)
{
	struct pv_pcpu *cpu = v->cpu;
	(void)idx, (void)el;
	if (v->pmu.slow & (1u << PV_PMU_CYCLE_IDX))
		return ccntr_read_slow(v, val); /* not active, or not loaded */
	*val = pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vpmu_pmccntr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					  uint64_t val)
{
	struct pv_pcpu *cpu = v->cpu;
	(void)idx, (void)el;
	if (v->pmu.slow & (1u << PV_PMU_CYCLE_IDX))
		return ccntr_write_slow(v, val); /* not active, or not loaded */
	pv_plat_sysreg_write(cpu, PV_PMCCNTR_EL0, val);
	return PV_TRAP_HANDLED;
}

/* Operator view: the value the guest would read, loaded or not. */
uint64_t pv_vpmu_counter(struct pv_vcpu *v, unsigned idx)
{
	struct pv_pcpu *cpu = v->pmu.active ? v->cpu : NULL;
	if (idx == PV_PMU_CYCLE_IDX)
		return cpu ? pv_plat_sysreg_read(cpu, PV_PMCCNTR_EL0) : v->pmu.ccntr;
	if (idx >= v->vm->pmu.nr_counters)
		return 0;
	return evcntr_get(v, cpu, idx);
}
