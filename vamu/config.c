/* SPDX-License-Identifier: MIT */
/*
 * Probe, per-VM configuration and views, per-vCPU reset (Arm ARM D24.6: AMCR_EL0,
 * AMCFGR_EL0, AMCGCR_EL0, AMCG1IDR_EL0; FEAT_FGT HAFGRTR_EL2).
 */
#include "internal.h"

#define G0(n) PV_AMEVCNTR0_EL0(n)
#define G1(n) PV_AMEVCNTR1_EL0(n)
const uint32_t pv_vamu__cntr_key[PV_AMU_COUNTERS] = {
	G0(0), G0(1), G0(2), G0(3), G1(0),  G1(1),  G1(2),  G1(3),  G1(4),  G1(5),
	G1(6), G1(7), G1(8), G1(9), G1(10), G1(11), G1(12), G1(13), G1(14), G1(15),
};
#define V0(n) PV_AMEVCNTVOFF0_EL2(n)
#define V1(n) PV_AMEVCNTVOFF1_EL2(n)
const uint32_t pv_vamu__voff_key[PV_AMU_COUNTERS] = {
	V0(0), V0(1), V0(2), V0(3), V1(0),  V1(1),  V1(2),  V1(3),  V1(4),  V1(5),
	V1(6), V1(7), V1(8), V1(9), V1(10), V1(11), V1(12), V1(13), V1(14), V1(15),
};

int pv_vamu_probe(struct pv_hw *hw, struct pv_pcpu *cpu)
{
	unsigned amu = PV_ID_FIELD(hw->id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)], PV_ID_AA64PFR0_AMU);
	struct pv_hw_amu *a = &hw->amuhw;
	unsigned cg1nc;
	uint32_t below;
	hw->amu = amu != 0;
	hw->amuv1p1 = amu >= 2;
	if (!hw->amu)
		return PV_OK;
	a->amcr = pv_plat_sysreg_read(cpu, PV_AMCR_EL0);
	a->amcfgr = pv_plat_sysreg_read(cpu, PV_AMCFGR_EL0);
	a->amcgcr = pv_plat_sysreg_read(cpu, PV_AMCGCR_EL0);
	a->cnten0 = pv_plat_sysreg_read(cpu, PV_AMCNTENSET0_EL0) & 0xF;
	/* No auxiliary counters (AMCFGR_EL0.NCG = 0): the group 1 registers UNDEF. */
	cg1nc = (unsigned)PV_FIELD_GET(PV_AMCGCR_CG1NC, a->amcgcr);
	if (PV_FIELD_GET(PV_AMCFGR_NCG, a->amcfgr) == 0)
		cg1nc = 0;
	a->aux = (uint8_t)(cg1nc > PV_AMU_AUX_MAX ? PV_AMU_AUX_MAX : cg1nc);
	below = (uint32_t)(PV_BIT(a->aux) - 1);
	a->aux_present = (uint16_t)below;
	if (hw->amuv1p1) {
		a->amcg1idr = pv_plat_sysreg_read(cpu, PV_AMCG1IDR_EL0);
		a->aux_present = (uint16_t)(a->amcg1idr & below);
		a->aux_voff = (uint16_t)(PV_FIELD_GET(PV_AMCG1IDR_OFF, a->amcg1idr) &
					 a->aux_present);
	}
	if (a->aux)
		a->cnten1 = pv_plat_sysreg_read(cpu, PV_AMCNTENSET1_EL0) & a->aux_present;
	/* Unimplemented auxiliary counters UNDEF even at EL2: read only the present ones. */
	for (unsigned n = 0; n < a->aux; n++)
		if (a->aux_present >> n & 1)
			a->evtyper1[n] = (uint16_t)pv_plat_sysreg_read(cpu,
								       PV_AMEVTYPER1_EL0(n));
	a->voff = hw->amuv1p1 && hw->fgt;
	return PV_OK;
}

/* The virtual-offset path reads AMCFGR, AMCGCR, AMCG1IDR and AMCR straight from hardware
 * (no fine-grained trap exists for them), so the VM's view must be the hardware's: AMUv1p1,
 * every auxiliary counter, none missing. */
static bool voff_usable(const struct pv_hw *hw, const struct pv_amu_config *c)
{
	const struct pv_hw_amu *a = &hw->amuhw;
	return a->voff && c->version == PV_AMU_V1P1 && c->nr_aux == a->aux &&
	       a->aux_present == (uint16_t)(PV_BIT(a->aux) - 1);
}

int pv_vamu_vm_init(struct pv_vm *vm)
{
	struct pv_vm_amu *p = &vm->amu;
	const struct pv_hw *hw = vm->hw;
	const struct pv_amu_config *c = &vm->cfg.amu;
	const struct pv_hw_amu *a = &hw->amuhw;
	unsigned hwver;
	uint32_t aux_mask;
	bool cg1rz;
	*p = (struct pv_vm_amu){0};
	if (!(vm->cfg.features & PV_FEAT_AMU))
		return PV_OK; /* no AMU: the trap table UNDEFs every AMU register */
	hwver = hw->amuv1p1 ? PV_AMU_V1P1 : PV_AMU_V1;
	if ((c->version != PV_AMU_V1 && c->version != PV_AMU_V1P1) || c->version > hwver)
		return PV_ERR_AMU_VERSION;
	if (c->nr_aux > a->aux)
		return PV_ERR_AMU_AUX;
	aux_mask = (uint32_t)(PV_BIT(c->nr_aux) - 1);
	if (aux_mask & ~(uint32_t)a->aux_present)
		return PV_ERR_AMU_AUX;
	/* With AMCR_EL0.CG1RZ group 1 reads as zero below the highest EL, EL2 included: only
	 * an AMUv1p1 VM has the field that says so. */
	cg1rz = hw->amuv1p1 && (a->amcr & PV_AMCR_CG1RZ);
	if (cg1rz && c->version < PV_AMU_V1P1 && c->nr_aux)
		return PV_ERR_AMU_AUX;

	p->version = c->version;
	p->nr_aux = c->nr_aux;
	p->aux_mask = aux_mask;
	p->cg1rz = cg1rz;
	p->nr = (uint8_t)(PV_AMU_GROUP0 + (cg1rz ? 0 : c->nr_aux));
	p->amcr = (a->amcr & PV_AMCR_HDBG) |
		  (c->version >= PV_AMU_V1P1 && cg1rz ? PV_AMCR_CG1RZ : 0);
	p->amcfgr = (a->amcfgr & PV_AMCFGR_HDBG) | PV_AMCFGR_SIZE_64 |
		    PV_FIELD_PREP(PV_AMCFGR_NCG, (uint64_t)(c->nr_aux ? 1 : 0)) |
		    (PV_AMU_GROUP0 + c->nr_aux - 1);
	p->amcgcr = PV_FIELD_PREP(PV_AMCGCR_CG1NC, (uint64_t)c->nr_aux) | PV_AMU_GROUP0;
	if (c->version >= PV_AMU_V1P1)
		p->amcg1idr = aux_mask | PV_FIELD_PREP(PV_AMCG1IDR_OFF,
						       (uint64_t)(a->aux_voff & aux_mask));

	if (voff_usable(hw, c)) {
		p->path = PV_AMU_PATH_VOFF;
		/* AMEVCNTVOFF0<n>_EL2 exists for n = 0, 2, 3: CNT_CYCLES has none and its reads
		 * trap; so do those of auxiliary counters without AMEVCNTVOFF1<n>_EL2. */
		p->voff = 0xDu;
		p->hafgrtr = PV_HAFGRTR_AMEVCNTR0(PV_AMU_CNT_CYCLES);
		for (unsigned n = 0; n < c->nr_aux && !cg1rz; n++) {
			if (a->aux_voff >> n & 1)
				p->voff |= 1u << (PV_AMU_GROUP0 + n);
			else
				p->hafgrtr |= PV_HAFGRTR_AMEVCNTR1(n);
		}
	}
	return PV_OK;
}

void pv_vamu_vcpu_init(struct pv_vcpu *v)
{
	/* AMU reset: counters 0; AMUSERENR_EL0 is UNKNOWN on a warm reset, perfvisor gives 0. */
	v->amu = (struct pv_vamu){0};
}

/* A VM and a vCPU hold nothing of the AMU's beyond their own memory. */
void pv_vamu_vm_release(struct pv_vm *vm)
{
	(void)vm;
}

void pv_vamu_vcpu_release(struct pv_vcpu *v)
{
	(void)v;
}
