/* SPDX-License-Identifier: MIT */
/*
 * Fixture of the vPMU unit tests: one pCPU on the plain-memory platform, one VM, two vCPUs,
 * driven through the vPMU's own hooks (pv_vpmu_*), as pv_vm_init / pv_vcpu_load would.
 * A test file may define FX_PMCEID0, FX_PMCEID1 and FX_PMMIR (the hardware's) before
 * including it.
 */
#ifndef PERFVISOR_TEST_VPMU_FIXTURE_H
#define PERFVISOR_TEST_VPMU_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "memplat.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/trap.h"
#include "regdb.h"              /* the register handlers, internal to the core */
#include "../../core/modules.h" /* the modules' verbs, likewise */

#ifndef FX_PMCEID0
#define FX_PMCEID0 0
#endif
#ifndef FX_PMCEID1
#define FX_PMCEID1 0
#endif
#ifndef FX_PMMIR
#define FX_PMMIR 0
#endif

struct fx {
	struct memplat_cpu mc;
	struct memplat_vcpu mv[2];
	struct pv_pcpu cpu;
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v[2];
};

/* PMUv3p5 hardware, 8 counters, 2 reserved for the host (HPMN = 6), no EL3, AArch64 only. */
static inline struct fx *fx_new(void)
{
	if (memplat_slot(PV_PMCR_EL0) == memplat_slot(PV_PMCNTENCLR_EL0) ||
	    memplat_slot(PV_PMEVCNTR_EL0(0)) == memplat_slot(PV_PMEVCNTR_EL0(4)))
		fail_msg("tests/support/memplat.h: memplat_slot() gives distinct registers one "
			 "cell (Op2 is lost); these tests need one cell per register");
	struct fx *f = calloc(1, sizeof(*f));
	memplat_init(&f->mc, 8);
	f->cpu.plat = &f->mc;
	f->cpu.hw = &f->hw;
	f->hw.pmu_version = PV_PMUVER_V3P5;
	f->hw.pmu_counters = 8;
	f->hw.host_counters = 2;
	f->hw.hpmn = 6;
	f->hw.pmcr = UINT64_C(0x41010000) | PV_FIELD_PREP(PV_PMCR_N, 8);
	f->hw.pmceid0 = FX_PMCEID0;
	f->hw.pmceid1 = FX_PMCEID1;
	f->hw.pmmir = FX_PMMIR;
	return f;
}

/* A VM with a PMU of `version` and `n` counters, and its two vCPUs (not loaded). */
static inline int fx_vm(struct fx *f, uint8_t version, uint8_t n,
			const struct pv_pmu_filter *flt, unsigned nf)
{
	f->vm.hw = &f->hw;
	f->vm.cfg.features = PV_FEAT_PMU;
	f->vm.cfg.pmu.version = version;
	f->vm.cfg.pmu.nr_counters = n;
	f->vm.cfg.pmu.nr_filters = (uint8_t)nf;
	for (unsigned i = 0; i < nf && i < PV_PMU_MAX_FILTERS; i++)
		f->vm.cfg.pmu.filters[i] = flt[i];
	int err = pv_vpmu_vm_init(&f->vm);
	if (err)
		return err;
	pv_trap_gates_init(&f->vm); /* so that pv_trap gates the VM's registers as it would */
	for (unsigned i = 0; i < 2; i++) {
		f->mv[i] = (struct memplat_vcpu){0};
		f->v[i] = (struct pv_vcpu){.vm = &f->vm, .plat = &f->mv[i], .id = i};
		memcpy(f->v[i].reg_limit, f->vm.reg_limit, sizeof(f->vm.reg_limit));
		pv_vpmu_vcpu_init(&f->v[i]);
	}
	return PV_OK;
}

/* What pv_vcpu_load / pv_vcpu_put do around the vPMU hooks. */
static inline void fx_load(struct fx *f, unsigned i)
{
	f->v[i].cpu = &f->cpu;
	f->cpu.loaded = &f->v[i];
	pv_vpmu_load(&f->v[i]);
}

static inline void fx_put(struct fx *f, unsigned i)
{
	pv_vpmu_put(&f->v[i]);
	f->v[i].cpu = NULL;
	f->cpu.loaded = NULL;
}

#define CELL(f, key) (*memplat_reg(&(f)->mc, (key)))
#define ACCESSES(f) ((f)->mc.reads + (f)->mc.writes)

typedef enum pv_trap_result rfn(struct pv_vcpu *, unsigned, unsigned, uint64_t *);
typedef enum pv_trap_result wfn(struct pv_vcpu *, unsigned, unsigned, uint64_t);

/* A handler call from EL1 that must be handled; returns what was read. */
static inline uint64_t rd(rfn *fn, struct pv_vcpu *v, unsigned idx)
{
	uint64_t x = 0xBAD;
	assert_int_equal(fn(v, idx, 1, &x), PV_TRAP_HANDLED);
	return x;
}

static inline void wr(wfn *fn, struct pv_vcpu *v, unsigned idx, uint64_t val)
{
	assert_int_equal(fn(v, idx, 1, val), PV_TRAP_HANDLED);
}

#endif
