/* SPDX-License-Identifier: MIT */
/*
 * vCPU load/put and CPU power-down. A vCPU's counters accumulate only while it is loaded:
 * put remembers where each counter stands (val = physical - off), load sets off so that the
 * vCPU continues from val on whatever pCPU it now runs. Nothing here writes a counter or an
 * enable: below the highest EL those MSRs are UNDEFINED (Arm ARM D24.6).
 */
#include "internal.h"

/* AMUSERENR_EL0.EN is checked before CPTR_EL2.TAM (Arm ARM D24.6). It is kept 1 except
 * while a vCPU of the virtual-offset path runs, so that every EL0 access of a trap-path VM
 * reaches EL2: a register the VM lacks UNDEFs there (an auxiliary counter it does not see,
 * or the whole AMU) instead of trapping to guest EL1, and the virtual EN decides the rest. */
void pv_vamu_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw)
{
	if (!hw->amu)
		return;
	pv_plat_sysreg_write(cpu, PV_AMUSERENR_EL0, PV_AMUSERENR_EN);
}

/* dst[k] = counter k - sub[k] for the counters a VM has, k < nr: at load the offsets from the
 * counts, at put the counts from the offsets. Group 0 always has its four, named here by
 * constant keys, so that on an inline platform (platform.h) each is one MRS; the auxiliary
 * ones go by key. */
static inline void counters_less(struct pv_pcpu *cpu, uint64_t *dst, const uint64_t *sub,
				 unsigned nr)
{
	dst[0] = pv_plat_sysreg_read(cpu, PV_AMEVCNTR0_EL0(0)) - sub[0];
	dst[1] = pv_plat_sysreg_read(cpu, PV_AMEVCNTR0_EL0(1)) - sub[1];
	dst[2] = pv_plat_sysreg_read(cpu, PV_AMEVCNTR0_EL0(2)) - sub[2];
	dst[3] = pv_plat_sysreg_read(cpu, PV_AMEVCNTR0_EL0(3)) - sub[3];
	for (unsigned k = PV_AMU_GROUP0; k < nr; k++)
		dst[k] = pv_plat_sysreg_read(cpu, pv_vamu__cntr_key[k]) - sub[k];
}

void pv_vamu_load(struct pv_vcpu *v)
{
	const struct pv_vm_amu *a = &v->vm->amu;
	struct pv_pcpu *cpu = v->cpu;
	struct pv_vamu *s = &v->amu;
	if (!a->version || !cpu)
		return;
	counters_less(cpu, s->off, s->val, a->nr);
	/* Reads at EL0/EL1 return PCount - AMEVCNTVOFF<g><n>_EL2 (HCR_EL2.AMVOFFEN = 1). Group
	 * 0's offsets (counters 0, 2 and 3: vamu/config.c) by constant keys, as above. */
	if (a->path != PV_AMU_PATH_VOFF)
		return;
	pv_plat_sysreg_write(cpu, PV_AMEVCNTVOFF0_EL2(0), s->off[0]);
	pv_plat_sysreg_write(cpu, PV_AMEVCNTVOFF0_EL2(2), s->off[2]);
	pv_plat_sysreg_write(cpu, PV_AMEVCNTVOFF0_EL2(3), s->off[3]);
	for (uint32_t m = a->voff >> PV_AMU_GROUP0; m; m &= m - 1) {
		unsigned k = PV_AMU_GROUP0 + (unsigned)__builtin_ctz(m);
		pv_plat_sysreg_write(cpu, pv_vamu__voff_key[k], s->off[k]);
	}
	/* The guest's EL1 accesses AMUSERENR_EL0 directly on this path. */
	pv_plat_sysreg_write(cpu, PV_AMUSERENR_EL0, s->userenr);
}

void pv_vamu_put(struct pv_vcpu *v)
{
	const struct pv_vm_amu *a = &v->vm->amu;
	struct pv_pcpu *cpu = v->cpu;
	struct pv_vamu *s = &v->amu;
	if (!a->version || !cpu)
		return;
	counters_less(cpu, s->val, s->off, a->nr);
	if (a->path == PV_AMU_PATH_VOFF) {
		s->userenr = pv_plat_sysreg_read(cpu, PV_AMUSERENR_EL0) & PV_AMUSERENR_EN;
		pv_plat_sysreg_write(cpu, PV_AMUSERENR_EL0, PV_AMUSERENR_EN);
	}
}

/* Saving the loaded vCPU's counts (as put does) and recomputing its offsets from whatever
 * the counters read after power-up is right whether firmware restored them or not. */
uint64_t pv_vamu_counter(const struct pv_vcpu *v, unsigned k)
{
	const struct pv_vm_amu *a = &v->vm->amu;
	if (k >= PV_AMU_GROUP0 + a->nr_aux || !a->version)
		return 0;
	if (k >= a->nr)
		return 0; /* group 1 under AMCR_EL0.CG1RZ */
	return vamu_count(v, k);
}
