/* SPDX-License-Identifier: MIT */
/* vPMU: configuration checks, control/identification registers, EL0 access rules, the
 * event filter and the virtual interrupt level. Handlers are called directly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "perfvisor/perfvisor.h"

#define HW_PMCEID0 UINT64_C(0x0000000F2002011A) /* no SW_INCR/CHAIN; CPU_CYCLES; 0x4000..3 */
#define HW_PMCEID1 UINT64_C(0x00000003000000F1)
#define FX_PMCEID0 HW_PMCEID0
#define FX_PMCEID1 HW_PMCEID1
#define FX_PMMIR UINT64_C(0xFFFFFFFF)
#include "vpmu_fixture.h"

static struct pv_pmu_filter F_ALLOW(uint16_t base, uint16_t n) {
	return (struct pv_pmu_filter){
		.base_event = base, .nevents = n, .action = PV_PMU_FILTER_ALLOW};
}

static struct pv_pmu_filter
F_DENY(uint16_t base, uint16_t n) {
	return (struct pv_pmu_filter){
		.base_event = base, .nevents = n, .action = PV_PMU_FILTER_DENY};
}

/* ---- configuration ------------------------------------------------------------------------ */

static void
test_config_errors(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_pmu_filter flt[PV_PMU_MAX_FILTERS + 1];
	for (unsigned i = 0; i <= PV_PMU_MAX_FILTERS; i++)
		flt[i] = F_ALLOW((uint16_t)i, 1);

	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 6, NULL, 0), PV_OK);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 0, NULL, 0), PV_OK); /* cycle counter only */
	/* versions: only v3, v3p1, v3p4, v3p5, and never above the hardware */
	assert_int_equal(fx_vm(f, 0, 4, NULL, 0), PV_ERR_PMU_VERSION);
	assert_int_equal(fx_vm(f, 2, 4, NULL, 0), PV_ERR_PMU_VERSION);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P7, 4, NULL, 0), PV_ERR_PMU_VERSION);
	assert_int_equal(fx_vm(f, PV_PMUVER_IMPDEF, 4, NULL, 0), PV_ERR_PMU_VERSION);
	f->hw.pmu_version = PV_PMUVER_V3P4;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_ERR_PMU_VERSION);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 4, NULL, 0), PV_OK);
	f->hw.pmu_version = PV_PMUVER_NI;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_ERR_NO_PMU);
	f->hw.pmu_version = PV_PMUVER_IMPDEF;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_ERR_NO_PMU);
	f->hw.pmu_version = PV_PMUVER_V3P5;
	/* counters: at most HPMN (host counters are not for guests) */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 7, NULL, 0), PV_ERR_PMU_COUNTERS);
	/* filters */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, flt, PV_PMU_MAX_FILTERS), PV_OK);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, flt, PV_PMU_MAX_FILTERS + 1),
			 PV_ERR_FILTER_COUNT);
	struct pv_pmu_filter bad = F_ALLOW(5, 0);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, &bad, 1), PV_ERR_FILTER_RANGE);
	bad = F_ALLOW(1000, 24); /* ends at 1024: inside the 10-bit space of PMUv3 */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, &bad, 1), PV_OK);
	bad = F_ALLOW(1000, 25);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, &bad, 1), PV_ERR_FILTER_RANGE);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, &bad, 1), PV_OK);
	bad = F_DENY(0xFFFF, 1);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, &bad, 1), PV_OK);
	bad = F_DENY(0xFFFF, 2);
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, &bad, 1), PV_ERR_FILTER_RANGE);
	bad = F_ALLOW(0, 4);
	bad.action = 2;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, &bad, 1), PV_ERR_FILTER_ACTION);

	/* No PMU feature: a VM with no counters, whatever the PMU configuration says. */
	f->vm.cfg.features = 0;
	f->vm.cfg.pmu.version = 0x3;
	f->vm.cfg.pmu.nr_counters = 31;
	f->vm.hw = &f->hw;
	assert_int_equal(pv_vpmu_vm_init(&f->vm), PV_OK);
	assert_int_equal(f->vm.pmu.nr_counters, 0);
	assert_int_equal(f->vm.pmu.version, 0);
	assert_int_equal(f->vm.pmu.counter_mask, 0);
	free(f);
}

/* ---- PMCR_EL0 ------------------------------------------------------------------------------ */

static void test_pmcr_fields(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	/* AArch64-only hardware, PMUv3p5: LC RES1, D RES0, LP stored. */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 5, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	uint64_t fixed = UINT64_C(0x41010000) | PV_FIELD_PREP(PV_PMCR_N, 5) | PV_PMCR_LC;
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0), fixed); /* reset: E = 0 */
	wr(pv_vpmu_pmcr_write, v, 0, ~UINT64_C(0));
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0),
			 fixed | PV_PMCR_E | PV_PMCR_DP | PV_PMCR_LP);
	wr(pv_vpmu_pmcr_write, v, 0, 0);
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0), fixed); /* LC stays 1 */
	/* IMP/IDCODE/N are read-only */
	wr(pv_vpmu_pmcr_write, v, 0, UINT64_C(0xFFFFF800));
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0), fixed);

	/* PMUv3p4: LP is RES0. AArch32 present: LC and D are stored. */
	f->hw.aarch32 = true;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 5, NULL, 0), PV_OK);
	fixed &= ~PV_PMCR_LC;
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0), fixed);
	wr(pv_vpmu_pmcr_write, v, 0, ~UINT64_C(0));
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0),
			 fixed | PV_PMCR_E | PV_PMCR_D | PV_PMCR_DP | PV_PMCR_LC);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_X | PV_PMCR_FZO | PV_PMCR_P | PV_PMCR_C);
	assert_int_equal(rd(pv_vpmu_pmcr_read, v, 0), fixed); /* X, FZO RAZ/WI; P, C read 0 */
	free(f);
}

static void test_pmcr_reset_guest_counters_only(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	fx_load(f, 0);
	rd(pv_vpmu_pmuserenr_read, v, 0); /* first access: state now in hardware */
	for (unsigned n = 0; n < 8; n++)
		CELL(f, PV_PMEVCNTR_EL0(n)) = 100 + n;
	CELL(f, PV_PMCCNTR_EL0) = 7777;

	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E | PV_PMCR_P);
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(n)), 0);
	/* [N, HPMN) belong to no one here, [HPMN, 8) to the host: untouched */
	for (unsigned n = 4; n < 8; n++)
		assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(n)), 100 + n);
	assert_int_equal(CELL(f, PV_PMCCNTR_EL0), 7777);
	/* hardware PMCR never sees P, C or X */
	assert_int_equal(CELL(f, PV_PMCR_EL0), PV_PMCR_E | PV_PMCR_LC);

	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_C | PV_PMCR_X);
	assert_int_equal(CELL(f, PV_PMCCNTR_EL0), 0);
	assert_int_equal(CELL(f, PV_PMCR_EL0), PV_PMCR_LC);
	for (unsigned n = 4; n < 8; n++)
		assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(n)), 100 + n);

	/* not loaded: the saved values are reset */
	struct pv_vcpu *w = &f->v[1];
	wr(pv_vpmu_pmevcntr_write, w, 2, 55);
	wr(pv_vpmu_pmccntr_write, w, 0, 66);
	wr(pv_vpmu_pmcr_write, w, 0, PV_PMCR_P);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, w, 2), 0);
	assert_int_equal(rd(pv_vpmu_pmccntr_read, w, 0), 66);
	wr(pv_vpmu_pmcr_write, w, 0, PV_PMCR_C);
	assert_int_equal(rd(pv_vpmu_pmccntr_read, w, 0), 0);
	free(f);
}

/* ---- bitmap registers --------------------------------------------------------------------- */

static void test_bitmaps_raz_wi(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 3, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	const uint64_t mask = 0x80000007u;
	fx_load(f, 0);

	wr(pv_vpmu_pmcntenset_write, v, 0, ~UINT64_C(0));
	assert_int_equal(rd(pv_vpmu_pmcntenset_read, v, 0), mask);
	assert_int_equal(rd(pv_vpmu_pmcntenclr_read, v, 0), mask);
	assert_int_equal(CELL(f, PV_PMCNTENSET_EL0), mask); /* never a host counter */
	wr(pv_vpmu_pmcntenclr_write, v, 0, 0xFFFFFFF9u);
	assert_int_equal(rd(pv_vpmu_pmcntenset_read, v, 0), 0x6);
	assert_int_equal(CELL(f, PV_PMCNTENCLR_EL0), 0x80000001u);

	wr(pv_vpmu_pmintenset_write, v, 0, ~UINT64_C(0));
	assert_int_equal(rd(pv_vpmu_pmintenset_read, v, 0), mask);
	assert_int_equal(CELL(f, PV_PMINTENSET_EL1) & ~mask, 0);
	assert_int_equal(CELL(f, PV_PMINTENSET_EL1), mask);
	wr(pv_vpmu_pmintenclr_write, v, 0, 0x2);
	assert_int_equal(rd(pv_vpmu_pmintenclr_read, v, 0), 0x80000005u);
	assert_int_equal(CELL(f, PV_PMINTENCLR_EL1), 0x2);
	assert_int_equal(CELL(f, PV_PMINTENSET_EL1), 0x80000005u);

	wr(pv_vpmu_pmovsset_write, v, 0, ~UINT64_C(0));
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), mask);
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x80000001u);
	assert_int_equal(rd(pv_vpmu_pmovsclr_read, v, 0), 0x6);
	/* virtual PMOVS is not written to hardware; only folded bits are cleared there */
	assert_int_equal(CELL(f, PV_PMOVSSET_EL0), 0);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0);
	free(f);
}

/* ---- interrupt level ---------------------------------------------------------------------- */

static void test_irq_level(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	struct memplat_vcpu *mv = &f->mv[0];

	wr(pv_vpmu_pmovsset_write, v, 0, 0x4); /* no E, no INTEN */
	assert_false(v->pmu.irq_level);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x4); /* INTEN, no E */
	assert_false(v->pmu.irq_level);
	assert_int_equal(mv->changes, 0);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	assert_true(v->pmu.irq_level);
	assert_true(mv->line[PV_INTID_PMU]);
	assert_int_equal(mv->changes, 1);
	wr(pv_vpmu_pmovsset_write, v, 0, 0x4); /* no change of level: no call */
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E | PV_PMCR_P);
	assert_int_equal(mv->changes, 1);
	wr(pv_vpmu_pmcr_write, v, 0, 0); /* E off lowers it */
	assert_false(mv->line[PV_INTID_PMU]);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	assert_true(mv->line[PV_INTID_PMU]);
	wr(pv_vpmu_pmintenclr_write, v, 0, 0x4); /* INTEN off lowers it */
	assert_false(mv->line[PV_INTID_PMU]);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x4);
	assert_true(mv->line[PV_INTID_PMU]);
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x1); /* another bit: still pending */
	assert_true(mv->line[PV_INTID_PMU]);
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x4); /* PMOVSCLR lowers it */
	assert_false(mv->line[PV_INTID_PMU]);
	assert_false(v->pmu.irq_level);
	/* bits of unimplemented counters never raise it */
	wr(pv_vpmu_pmintenset_write, v, 0, 0x7FFFFFF0u);
	wr(pv_vpmu_pmovsset_write, v, 0, 0x7FFFFFF0u);
	assert_false(mv->line[PV_INTID_PMU]);
	/* the cycle counter does */
	wr(pv_vpmu_pmintenset_write, v, 0, 0x80000000u);
	wr(pv_vpmu_pmovsset_write, v, 0, 0x80000000u);
	assert_true(mv->line[PV_INTID_PMU]);
	assert_int_equal(mv->changes, 7);
	free(f);
}

/* ---- PMSELR, PMUSERENR, PMCEID, PMMIR ----------------------------------------------------- */

static void test_selr_userenr(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	assert_int_equal(rd(pv_vpmu_pmselr_read, v, 0), 0);
	wr(pv_vpmu_pmselr_write, v, 0, 0xFFFFFFE5u);
	assert_int_equal(rd(pv_vpmu_pmselr_read, v, 0), 5);
	assert_int_equal(rd(pv_vpmu_pmuserenr_read, v, 0), 0);
	wr(pv_vpmu_pmuserenr_write, v, 0, ~UINT64_C(0)); /* UEN (bit 4) not offered */
	assert_int_equal(rd(pv_vpmu_pmuserenr_read, v, 0), 0xF);
	free(f);
}

static void test_pmceid_pmmir(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	/* PMUv3: events 0x4000+ are not reachable, upper halves RES0; SW_INCR, CHAIN added. */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	assert_int_equal(rd(pv_vpmu_pmceid0_read, v, 0), 0x6002011Bu);
	assert_int_equal(rd(pv_vpmu_pmceid1_read, v, 0), 0xF1u);

	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 4, NULL, 0), PV_OK);
	assert_int_equal(rd(pv_vpmu_pmceid0_read, v, 0), HW_PMCEID0 | 0x40000001u);
	assert_int_equal(rd(pv_vpmu_pmceid1_read, v, 0), HW_PMCEID1);
	assert_int_equal(rd(pv_vpmu_pmmir_read, v, 0),
			 0xFFFFF); /* SLOTS, BUS_SLOTS, BUS_WIDTH */

	/* The filter masks what it denies, never SW_INCR or CHAIN. */
	struct pv_pmu_filter flt[] = {F_DENY(0x0, 0x20), F_DENY(0x4001, 1), F_ALLOW(0x3, 1),
				      F_DENY(0x24, 1)};
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 4, flt, 4), PV_OK);
	assert_int_equal(rd(pv_vpmu_pmceid0_read, v, 0), UINT64_C(0x0000000D40000009));
	assert_int_equal(rd(pv_vpmu_pmceid1_read, v, 0), UINT64_C(0x00000003000000E1));
	assert_false(pv_vpmu_event_allowed(&f->vm, PV_EVT_CPU_CYCLES));
	free(f);
}

/* ---- event filter semantics (KVM_ARM_VCPU_PMU_V3_FILTER) ---------------------------------- */

static void test_filter_semantics(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vm *vm = &f->vm;

	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, NULL, 0), PV_OK);
	for (uint32_t e = 0; e < 65536; e += 97)
		assert_true(pv_vpmu_event_allowed(vm, e));
	assert_true(pv_vpmu_event_allowed(vm, 0xFFFF));

	/* ALLOW first: everything else denied */
	struct pv_pmu_filter a[] = {F_ALLOW(0x10, 4)};
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, a, 1), PV_OK);
	assert_false(pv_vpmu_event_allowed(vm, 0x0F));
	assert_true(pv_vpmu_event_allowed(vm, 0x10));
	assert_true(pv_vpmu_event_allowed(vm, 0x13));
	assert_false(pv_vpmu_event_allowed(vm, 0x14));
	assert_false(pv_vpmu_event_allowed(vm, 0x4000));
	assert_true(pv_vpmu_event_allowed(vm, PV_EVT_SW_INCR)); /* never filtered */
	assert_true(pv_vpmu_event_allowed(vm, PV_EVT_CHAIN));

	/* DENY first: everything else allowed */
	struct pv_pmu_filter d[] = {F_DENY(0x11, 1)};
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, d, 1), PV_OK);
	assert_false(pv_vpmu_event_allowed(vm, 0x11));
	assert_true(pv_vpmu_event_allowed(vm, 0x10));
	assert_true(pv_vpmu_event_allowed(vm, 0x12));
	assert_true(pv_vpmu_event_allowed(vm, 0xFFFF));

	/* later ranges override earlier ones; SW_INCR and CHAIN unaffected by a deny */
	struct pv_pmu_filter o[] = {F_ALLOW(0, 100), F_DENY(10, 20),  F_ALLOW(15, 1),
				    F_DENY(0, 1),    F_DENY(0x1E, 1), F_ALLOW(0x100, 0x100)};
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, o, 6), PV_OK);
	assert_true(pv_vpmu_event_allowed(vm, 5));
	assert_false(pv_vpmu_event_allowed(vm, 10));
	assert_false(pv_vpmu_event_allowed(vm, 14));
	assert_true(pv_vpmu_event_allowed(vm, 15));
	assert_false(pv_vpmu_event_allowed(vm, 16));
	assert_false(pv_vpmu_event_allowed(vm, 29));
	assert_true(pv_vpmu_event_allowed(vm, 31));
	assert_true(pv_vpmu_event_allowed(vm, 99));
	assert_false(pv_vpmu_event_allowed(vm, 100));
	assert_true(pv_vpmu_event_allowed(vm, 0x1FF));
	assert_false(pv_vpmu_event_allowed(vm, 0x200));
	assert_true(pv_vpmu_event_allowed(vm, PV_EVT_SW_INCR));
	assert_true(pv_vpmu_event_allowed(vm, PV_EVT_CHAIN));

	/* PMUv3: 10-bit event space */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_OK);
	assert_true(pv_vpmu_event_allowed(vm, 0x3FF));
	assert_false(pv_vpmu_event_allowed(vm, 0x400));
	free(f);
}

/* ---- EL0 access rules (Arm ARM, PMUSERENR_EL0 and each register's access pseudocode) ------ */

#define ALWAYS 0x10u
#define UNDEF0 0x20u

/* One direction of one register, as the Arm ARM's accessibility pseudocode states its EL0
 * rule: written here from the manual, not from the register database, so that the database's
 * EL0 columns (which the trap dispatch enforces) are checked against it. */
struct el0_rule {
	const char *name;
	uint32_t key;
	bool is_read;
	unsigned need; /* PMUSERENR bits of which one must be set, or ALWAYS / UNDEF0 */
};

static enum pv_trap_result trap_at(struct pv_vcpu *v, const struct el0_rule *r, unsigned el)
{
	uint64_t x[32] = {0};
	return pv_trap(v, esr_sys(r->key, 3, r->is_read), el, x);
}

static void test_el0_rules(void **state)
{
	(void)state;
	const unsigned EN = PV_PMUSERENR_EN, SW = PV_PMUSERENR_SW, CR = PV_PMUSERENR_CR,
		       ER = PV_PMUSERENR_ER;
	const struct el0_rule rules[] = {
		{"PMCR r", PV_PMCR_EL0, true, EN},
		{"PMCR w", PV_PMCR_EL0, false, EN},
		{"PMCNTENSET r", PV_PMCNTENSET_EL0, true, EN},
		{"PMCNTENSET w", PV_PMCNTENSET_EL0, false, EN},
		{"PMCNTENCLR r", PV_PMCNTENCLR_EL0, true, EN},
		{"PMCNTENCLR w", PV_PMCNTENCLR_EL0, false, EN},
		{"PMOVSSET r", PV_PMOVSSET_EL0, true, EN},
		{"PMOVSSET w", PV_PMOVSSET_EL0, false, EN},
		{"PMOVSCLR r", PV_PMOVSCLR_EL0, true, EN},
		{"PMOVSCLR w", PV_PMOVSCLR_EL0, false, EN},
		{"PMCEID0 r", PV_PMCEID0_EL0, true, EN},
		{"PMCEID1 r", PV_PMCEID1_EL0, true, EN},
		{"PMEVTYPER r", PV_PMEVTYPER_EL0(2), true, EN},
		{"PMEVTYPER w", PV_PMEVTYPER_EL0(2), false, EN},
		{"PMXEVTYPER r", PV_PMXEVTYPER_EL0, true, EN},
		{"PMXEVTYPER w", PV_PMXEVTYPER_EL0, false, EN},
		{"PMCCFILTR r", PV_PMCCFILTR_EL0, true, EN},
		{"PMCCFILTR w", PV_PMCCFILTR_EL0, false, EN},
		{"PMSWINC w", PV_PMSWINC_EL0, false, SW | EN},
		{"PMSELR r", PV_PMSELR_EL0, true, ER | EN},
		{"PMSELR w", PV_PMSELR_EL0, false, ER | EN},
		{"PMCCNTR r", PV_PMCCNTR_EL0, true, CR | EN},
		{"PMCCNTR w", PV_PMCCNTR_EL0, false, EN},
		{"PMEVCNTR r", PV_PMEVCNTR_EL0(1), true, ER | EN},
		{"PMEVCNTR w", PV_PMEVCNTR_EL0(1), false, EN},
		{"PMXEVCNTR r", PV_PMXEVCNTR_EL0, true, ER | EN},
		{"PMXEVCNTR w", PV_PMXEVCNTR_EL0, false, EN},
		{"PMUSERENR r", PV_PMUSERENR_EL0, true, ALWAYS},
		{"PMUSERENR w", PV_PMUSERENR_EL0, false, UNDEF0},
		{"PMINTENSET r", PV_PMINTENSET_EL1, true, UNDEF0},
		{"PMINTENSET w", PV_PMINTENSET_EL1, false, UNDEF0},
		{"PMINTENCLR r", PV_PMINTENCLR_EL1, true, UNDEF0},
		{"PMINTENCLR w", PV_PMINTENCLR_EL1, false, UNDEF0},
		{"PMMIR r", PV_PMMIR_EL1, true, UNDEF0},
	};
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];

	for (unsigned userenr = 0; userenr < 16; userenr++) {
		wr(pv_vpmu_pmuserenr_write, v, 0, userenr);
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			const struct el0_rule *r = &rules[i];
			enum pv_trap_result want = r->need == UNDEF0 ? PV_TRAP_UNDEF
						   : (r->need == ALWAYS || (r->need & userenr))
							   ? PV_TRAP_HANDLED
							   : PV_TRAP_EL1_SYSREG;
			enum pv_trap_result got = trap_at(v, r, 0);
			if (got != want)
				fail_msg("%s at EL0 with PMUSERENR = %#x: got %d, want %d",
					 r->name, userenr, got, want);
			/* EL1 is never gated by PMUSERENR */
			got = trap_at(v, r, 1);
			if (r->key == PV_PMUSERENR_EL0 && !r->is_read)
				wr(pv_vpmu_pmuserenr_write, v, 0, userenr);
			if (got != PV_TRAP_HANDLED)
				fail_msg("%s at EL1: got %d", r->name, got);
		}
		assert_int_equal(rd(pv_vpmu_pmuserenr_read, v, 0), userenr);
	}
	free(f);
}

static void test_read_only_write_only(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P4, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	/* MSR to PMCEID0/1_EL0 and PMMIR_EL1, MRS of PMSWINC_EL0: UNDEFINED at EL1 and EL0. */
	const struct el0_rule wrong[] = {
		{"PMCEID0 w", PV_PMCEID0_EL0, false, 0},
		{"PMCEID1 w", PV_PMCEID1_EL0, false, 0},
		{"PMMIR w", PV_PMMIR_EL1, false, 0},
		{"PMSWINC r", PV_PMSWINC_EL0, true, 0},
	};
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		for (unsigned el = 0; el < 2; el++)
			if (trap_at(v, &wrong[i], el) != PV_TRAP_UNDEF)
				fail_msg("%s at EL%u is not UNDEF", wrong[i].name, el);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_pmcr_fields),
		cmocka_unit_test(test_pmcr_reset_guest_counters_only),
		cmocka_unit_test(test_bitmaps_raz_wi),
		cmocka_unit_test(test_irq_level),
		cmocka_unit_test(test_selr_userenr),
		cmocka_unit_test(test_pmceid_pmmir),
		cmocka_unit_test(test_filter_semantics),
		cmocka_unit_test(test_el0_rules),
		cmocka_unit_test(test_read_only_write_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
