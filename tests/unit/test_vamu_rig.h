/* SPDX-License-Identifier: MIT */
/*
 * An AMU on the plain-memory platform (tests/support/memplat), for the vAMU unit tests and
 * benchmark: ID fields, identification registers and enables as firmware leaves them. The
 * "hardware" counters are plain cells the test moves itself.
 */
#ifndef TEST_VAMU_RIG_H
#define TEST_VAMU_RIG_H

#include "memplat.h"
#include "perfvisor/perfvisor.h"

#define RIG_CPUS 2

struct amu_hw_desc {
	unsigned version; /* 1, 2 */
	unsigned aux;     /* AMCGCR_EL0.CG1NC */
	uint16_t present; /* AMCG1IDR_EL0[15:0] (AMUv1p1); 0: all of [0, aux) */
	uint16_t voff;    /* AMCG1IDR_EL0[31:16] */
	bool fgt, cg1rz;
};

struct amu_rig {
	struct memplat_cpu mc[RIG_CPUS];
	struct memplat_vcpu mv[4];
	struct pv_pcpu cpu[RIG_CPUS];
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v[4];
};

static inline void rig_field(struct memplat_cpu *c, uint32_t reg, uint64_t mask, unsigned val)
{
	uint64_t *p = memplat_reg(c, reg);
	*p = (*p & ~mask) | PV_FIELD_PREP(mask, val);
}

/* Fills every pCPU, probes on pCPU 0 and sets every pCPU up. Returns pv_hw_probe's result. */
static inline int rig_init(struct amu_rig *r, const struct amu_hw_desc *d)
{
	for (unsigned i = 0; i < RIG_CPUS; i++) {
		struct memplat_cpu *c = &r->mc[i];
		memplat_init(c, 6);
		rig_field(c, PV_ID_AA64PFR0_EL1, PV_ID_AA64PFR0_AMU, d->version);
		rig_field(c, PV_ID_AA64MMFR0_EL1, PV_ID_AA64MMFR0_FGT, d->fgt);
		*memplat_reg(c, PV_AMCFGR_EL0) = PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 |
						 PV_FIELD_PREP(PV_AMCFGR_NCG,
							       (uint64_t)(d->aux ? 1 : 0)) |
						 (4 + d->aux - 1);
		*memplat_reg(c, PV_AMCGCR_EL0) =
			PV_FIELD_PREP(PV_AMCGCR_CG1NC, (uint64_t)d->aux) | 4;
		uint16_t present = d->present ? d->present : (uint16_t)((1u << d->aux) - 1);
		if (d->version >= 2)
			*memplat_reg(c, PV_AMCG1IDR_EL0) =
				present | PV_FIELD_PREP(PV_AMCG1IDR_OFF, (uint64_t)d->voff);
		*memplat_reg(c, PV_AMCR_EL0) = d->cg1rz ? PV_AMCR_CG1RZ : 0;
		*memplat_reg(c, PV_AMCNTENSET0_EL0) = 0xF;
		*memplat_reg(c, PV_AMCNTENSET1_EL0) = present;
		for (unsigned n = 0; n < d->aux; n++)
			*memplat_reg(c, PV_AMEVTYPER1_EL0(n)) = 0x0100 + n;
		c->reads = c->writes = 0;
		pv_pcpu_init(&r->cpu[i], c);
	}
	int err = pv_hw_probe(&r->hw, &r->cpu[0], 0);
	if (err)
		return err;
	for (unsigned i = 0; i < RIG_CPUS; i++)
		pv_pcpu_setup(&r->cpu[i], &r->hw);
	return PV_OK;
}

/* A VM with `features` (PV_FEAT_AMU or 0) and the given AMU view, and its vCPUs. */
static inline int rig_vm(struct amu_rig *r, uint32_t features, unsigned version, unsigned aux)
{
	struct pv_vm_config cfg = {.features = features};
	cfg.amu.version = (uint8_t)version;
	cfg.amu.nr_aux = (uint8_t)aux;
	int err = pv_vm_init(&r->vm, &r->hw, &cfg);
	if (err)
		return err;
	for (unsigned i = 0; i < 4; i++)
		pv_vcpu_init(&r->v[i], &r->vm, i, &r->mv[i]);
	return PV_OK;
}

/* The cell of counter k (0..3 group 0, 4 + n group 1) on pCPU c. */
static inline uint64_t *rig_cntr(struct amu_rig *r, unsigned c, unsigned k)
{
	return memplat_reg(&r->mc[c], k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4));
}

static inline uint64_t *rig_voff(struct amu_rig *r, unsigned c, unsigned k)
{
	return memplat_reg(&r->mc[c],
			   k < 4 ? PV_AMEVCNTVOFF0_EL2(k) : PV_AMEVCNTVOFF1_EL2(k - 4));
}

#endif
