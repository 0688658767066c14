/* SPDX-License-Identifier: MIT */
/*
 * AMU register handlers (Arm ARM D24.6). They serve the trap path (CPTR_EL2.TAM = 1) and
 * the reads the virtual-offset path still traps (HAFGRTR_EL2). A guest has no write access
 * but to AMUSERENR_EL0: the other MSR encodings are UNDEFINED below the highest implemented
 * EL, which a guest never is, and the trap table UNDEFs them (read-only entries).
 */
#include "internal.h"

/* A read that AMUSERENR_EL0.EN gates at EL0; `expr` gives the value from v and idx. */
#define GATED_READ(reg, expr)                                                                  \
	enum pv_trap_result pv_vamu_##reg##_read(struct pv_vcpu *v, unsigned idx, unsigned el, \
						 uint64_t *val)                                \
	{                                                                                      \
		(void)v, (void)idx, (void)el;                                                  \
		*val = (expr);                                                                 \
		return PV_TRAP_HANDLED;                                                        \
	}

/* Identification and control: the VM's views (vamu/config.c). */
GATED_READ(amcr, v->vm->amu.amcr)
GATED_READ(amcfgr, v->vm->amu.amcfgr)
GATED_READ(amcgcr, v->vm->amu.amcgcr)
GATED_READ(amcg1idr, v->vm->amu.amcg1idr)

/* AMCNTENSET0/CLR0_EL0: the enables are firmware's (writable at the highest EL only); a
 * guest reads what counts, P<n> for n < 4. */
GATED_READ(amcnten0, v->cpu ? pv_plat_sysreg_read(v->cpu, PV_AMCNTENSET0_EL0) & 0xF
			    : v->vm->hw->amuhw.cnten0)

/* AMEVCNTR0<n>_EL0 (n < 4, checked by the trap table): the vCPU's own count. */
GATED_READ(amevcntr0, vamu_count(v, idx))

/* AMEVCNTR1<n>_EL0 (n < the VM's auxiliary counters): zero under AMCR_EL0.CG1RZ. */
GATED_READ(amevcntr1, v->vm->amu.cg1rz ? 0 : vamu_count(v, PV_AMU_GROUP0 + idx))

/* AMEVTYPER0<n>_EL0: the architected events, n < 4. */
static const uint16_t group0_events[PV_AMU_GROUP0] = PV_AMU_GROUP0_EVENTS;
GATED_READ(amevtyper0, group0_events[idx & 3])

/* AMEVTYPER1<n>_EL0: the hardware's event; a guest cannot change it (writes UNDEF). */
GATED_READ(amevtyper1, v->vm->hw->amuhw.evtyper1[idx & (PV_AMU_AUX_MAX - 1)])

/* AMUSERENR_EL0.EN = 0 traps EL0 accesses to EL1 (HCR_EL2.TGE = 0), before CPTR_EL2.TAM
 * (Arm ARM D24.6): the dispatch's EL0 rule AMU asks here. On the trap path the hardware keeps
 * EN = 1 and this virtual copy decides. */
bool pv_vamu_el0_enabled(const struct pv_vcpu *v)
{
	return (vamu_userenr(v) & PV_AMUSERENR_EN) != 0;
}

/* AMUSERENR_EL0: always readable at EL0 (not gated by EN); written at EL1 only (the EL0 rules
 * of the register database). */
enum pv_trap_result pv_vamu_amuserenr_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					   uint64_t *val)
{
	(void)idx, (void)el;
	*val = vamu_userenr(v);
	return PV_TRAP_HANDLED;
}

enum pv_trap_result pv_vamu_amuserenr_write(struct pv_vcpu *v, unsigned idx, unsigned el,
					    uint64_t val)
{
	(void)idx, (void)el;
	/* EN; bits [63:1] RES0 (the register database's; the AMU's fields need nothing of the
	 * PE beyond the version). */
	v->amu.userenr = val & PV_BITS_AMUSERENR_EL0_RW(v->vm->amu.version, 0);
	if (v->cpu && v->vm->amu.path == PV_AMU_PATH_VOFF)
		pv_plat_sysreg_write(v->cpu, PV_AMUSERENR_EL0, v->amu.userenr);
	return PV_TRAP_HANDLED;
}

/* AMCNTENSET1/CLR1_EL0: UNDEFINED when the VM has no auxiliary counter; bits of counters it
 * does not see are RAZ. */
enum pv_trap_result pv_vamu_amcnten1_read(struct pv_vcpu *v, unsigned idx, unsigned el,
					  uint64_t *val)
{
	const struct pv_vm_amu *a = &v->vm->amu; /* it has an auxiliary counter (gate AUX) */
	uint64_t en;
	(void)idx, (void)el;
	en = v->cpu ? pv_plat_sysreg_read(v->cpu, PV_AMCNTENSET1_EL0) : v->vm->hw->amuhw.cnten1;
	*val = en & a->aux_mask;
	return PV_TRAP_HANDLED;
}
