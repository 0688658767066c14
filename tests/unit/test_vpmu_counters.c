/* SPDX-License-Identifier: MIT */
/* vPMU: counters (widths, PMXEV* selection, UNDEF ranges), event types (visible bits,
 * sanitising, filtered events), SW_INCR and CHAIN. Handlers are called directly. */
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

#define FX_PMCEID0 UINT64_C(0x20020119)
#include "vpmu_fixture.h"

static void wr_el(wfn *fn, struct pv_vcpu *v, unsigned el, uint64_t val)
{
	assert_int_equal(fn(v, 0, el, val), PV_TRAP_HANDLED);
}

#define P PV_PMEVTYPER_P
#define U PV_PMEVTYPER_U
#define NSK PV_PMEVTYPER_NSK
#define NSU PV_PMEVTYPER_NSU
#define NSH PV_PMEVTYPER_NSH
#define M PV_PMEVTYPER_M
#define SH PV_PMEVTYPER_SH
#define RLK PV_PMEVTYPER_RLK
#define RLU PV_PMEVTYPER_RLU
#define RLH PV_PMEVTYPER_RLH

/* ---- counters ------------------------------------------------------------------------------ */

static void test_counter_widths(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	/* PMUv3: 32-bit event counters; the guest reads and writes bits [31:0] only. */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	wr(pv_vpmu_pmevcntr_write, v, 1, UINT64_C(0x123456789));
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), 0x23456789u);
	assert_int_equal(pv_vpmu_counter(v, 1), 0x23456789u);
	fx_load(f, 0);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(1)), 0x23456789u);
	CELL(f, PV_PMEVCNTR_EL0(1)) = UINT64_C(0xAB00000005); /* 64-bit hardware counter */
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), 5);
	assert_int_equal(pv_vpmu_counter(v, 1), 5);
	/* the cycle counter is 64-bit in every version */
	wr(pv_vpmu_pmccntr_write, v, 0, UINT64_C(0xFFFF000012345678));
	assert_int_equal(CELL(f, PV_PMCCNTR_EL0), UINT64_C(0xFFFF000012345678));
	assert_int_equal(rd(pv_vpmu_pmccntr_read, v, 0), UINT64_C(0xFFFF000012345678));
	assert_int_equal(pv_vpmu_counter(v, PV_PMU_CYCLE_IDX), UINT64_C(0xFFFF000012345678));

	/* PMUv3p5: 64-bit event counters */
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	wr(pv_vpmu_pmevcntr_write, v, 3, UINT64_C(0xFFFF000012345678));
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 3), UINT64_C(0xFFFF000012345678));
	assert_int_equal(pv_vpmu_counter(v, 3), UINT64_C(0xFFFF000012345678));
	assert_int_equal(pv_vpmu_counter(v, 4), 0); /* not implemented */
	free(f);
}

static void test_selection_and_undef(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 3, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	uint64_t x = 0;
	fx_load(f, 0);

	/* PMEVCNTR<n>/PMEVTYPER<n>, n >= N (the trap layer checks n against the VM); n < N is
	 * handled */
	uint64_t regs[31] = {0};
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(2), 0, true), 1, regs),
			 PV_TRAP_HANDLED);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVTYPER_EL0(2), 0, false), 1, regs),
			 PV_TRAP_HANDLED);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(3), 0, true), 1, regs),
			 PV_TRAP_UNDEF);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(30), 0, false), 1, regs),
			 PV_TRAP_UNDEF);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVTYPER_EL0(3), 0, true), 1, regs),
			 PV_TRAP_UNDEF);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVTYPER_EL0(3), 0, false), 1, regs),
			 PV_TRAP_UNDEF);

	/* PMXEVCNTR_EL0 is PMEVCNTR<SEL> */
	wr(pv_vpmu_pmselr_write, v, 0, 2);
	wr(pv_vpmu_pmxevcntr_write, v, 0, 77);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 2), 77);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(2)), 77);
	wr(pv_vpmu_pmevcntr_write, v, 2, 78);
	assert_int_equal(rd(pv_vpmu_pmxevcntr_read, v, 0), 78);
	/* ... and UNDEFINED for SEL >= N, 31 included */
	static const unsigned bad[] = {3, 5, 30, 31};
	for (unsigned i = 0; i < 4; i++) {
		wr(pv_vpmu_pmselr_write, v, 0, bad[i]);
		assert_int_equal(pv_vpmu_pmxevcntr_read(v, 0, 1, &x), PV_TRAP_UNDEF);
		assert_int_equal(pv_vpmu_pmxevcntr_write(v, 0, 1, 1), PV_TRAP_UNDEF);
		if (bad[i] != 31) {
			assert_int_equal(pv_vpmu_pmxevtyper_read(v, 0, 1, &x), PV_TRAP_UNDEF);
			assert_int_equal(pv_vpmu_pmxevtyper_write(v, 0, 1, 1), PV_TRAP_UNDEF);
		}
	}

	/* PMXEVTYPER_EL0 is PMEVTYPER<SEL>, and PMCCFILTR_EL0 for SEL = 31 */
	wr(pv_vpmu_pmselr_write, v, 0, 1);
	wr(pv_vpmu_pmxevtyper_write, v, 0, P | 0x08);
	assert_int_equal(rd(pv_vpmu_pmevtyper_read, v, 1), P | 0x08);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(1)), P | 0x08);
	wr(pv_vpmu_pmselr_write, v, 0, 31);
	wr(pv_vpmu_pmxevtyper_write, v, 0, U | 0x11);
	assert_int_equal(rd(pv_vpmu_pmccfiltr_read, v, 0), U); /* evtCount RES0 there */
	assert_int_equal(CELL(f, PV_PMCCFILTR_EL0), U);
	wr(pv_vpmu_pmccfiltr_write, v, 0, P);
	assert_int_equal(rd(pv_vpmu_pmxevtyper_read, v, 0), P);
	free(f);
}

/* ---- event types --------------------------------------------------------------------------- */

struct hwcfg {
	bool el3, sel2, rme;
};

static const struct hwcfg HWCFGS[] = {
	{false, false, false}, {true, false, false}, {true, true, false}, {true, true, true}};

static void test_evtyper_visible_bits(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	for (unsigned c = 0; c < 4; c++) {
		f->hw.el3 = HWCFGS[c].el3;
		f->hw.sel2 = HWCFGS[c].sel2;
		f->hw.rme = HWCFGS[c].rme;
		uint64_t vis = P | U | NSH;
		vis |= f->hw.el3 ? NSK | NSU | M : 0;
		vis |= f->hw.sel2 ? SH : 0;
		vis |= f->hw.rme ? RLK | RLU | RLH : 0;

		assert_int_equal(fx_vm(f, PV_PMUVER_V3P1, 4, NULL, 0), PV_OK);
		wr(pv_vpmu_pmevtyper_write, v, 2, ~UINT64_C(0));
		assert_int_equal(rd(pv_vpmu_pmevtyper_read, v, 2), vis | 0xFFFF);
		wr(pv_vpmu_pmccfiltr_write, v, 0, ~UINT64_C(0));
		assert_int_equal(rd(pv_vpmu_pmccfiltr_read, v, 0), vis);

		assert_int_equal(fx_vm(f, PV_PMUVER_V3, 4, NULL, 0), PV_OK);
		wr(pv_vpmu_pmevtyper_write, v, 2, ~UINT64_C(0));
		assert_int_equal(rd(pv_vpmu_pmevtyper_read, v, 2), vis | 0x3FF);
	}
	free(f);
}

enum sstate { NS, SEC, REALM };

/* Arm ARM CountPMUEvents(): does a counter with filter value h count at `el` of Security
 * state `ss`, on a PE with these features? (NSK/NSU/M effective with EL3, SH with EL3 and
 * Secure EL2, RLK/RLU/RLH with RME.) */
static bool counts(uint64_t h, const struct hwcfg *hw, unsigned el, enum sstate ss)
{
	bool p = h & P, u = h & U, nsh = h & NSH;
	bool nsk = hw->el3 && (h & NSK), nsu = hw->el3 && (h & NSU), m = hw->el3 && (h & M);
	bool sh = hw->el3 && hw->sel2 && (h & SH);
	bool rlk = hw->rme && (h & RLK), rlu = hw->rme && (h & RLU), rlh = hw->rme && (h & RLH);
	switch (el) {
	case 0:
		return ss == NS ? u == nsu : ss == SEC ? !u : u == rlu;
	case 1:
		return ss == NS ? p == nsk : ss == SEC ? !p : p == rlk;
	case 2:
		return ss == NS ? nsh : ss == SEC ? nsh != sh : nsh != rlh;
	default:
		return m == p;
	}
}

/* Whatever filter bits the guest writes, the hardware copy counts Non-secure EL1/EL0 exactly
 * as the guest asked and never EL2, EL3, Secure or Realm states; the guest reads back its
 * visible bits. Every combination of bits [31:20], for each hardware configuration. */
static void check_sanitised(const struct hwcfg *hw, uint64_t wrote, uint64_t vis,
			    uint64_t readback, uint64_t h, uint64_t evt)
{
	assert_int_equal(readback, wrote & vis);
	assert_int_equal(h & NSH, 0);
	assert_int_equal(h & ~(evt | P | U | NSK | NSU), 0);
	for (unsigned el = 0; el < 2; el++)
		if (counts(h, hw, el, NS) != counts(readback, hw, el, NS))
			fail_msg("wrote %#llx: NS EL%u counted %d, guest asked %d",
				 (unsigned long long)wrote, el, counts(h, hw, el, NS),
				 counts(readback, hw, el, NS));
	assert_false(counts(h, hw, 2, NS));
	if (hw->el3) {
		assert_false(counts(h, hw, 0, SEC));
		assert_false(counts(h, hw, 1, SEC));
		assert_false(counts(h, hw, 3, SEC));
	}
	if (hw->sel2)
		assert_false(counts(h, hw, 2, SEC));
	if (hw->rme)
		for (unsigned el = 0; el < 3; el++)
			assert_false(counts(h, hw, el, REALM));
}

static void test_sanitise_matrix(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	for (unsigned c = 0; c < 4; c++) {
		const struct hwcfg *hw = &HWCFGS[c];
		f->hw.el3 = hw->el3;
		f->hw.sel2 = hw->sel2;
		f->hw.rme = hw->rme;
		assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
		fx_load(f, 0);
		uint64_t vis = P | U | NSH | (hw->el3 ? NSK | NSU | M : 0) |
			       (hw->sel2 ? SH : 0) | (hw->rme ? RLK | RLU | RLH : 0);
		for (uint64_t bits = 0; bits < 4096; bits++) {
			/* threshold fields [63:32] and bits [19:16] are RES0 for the guest */
			uint64_t val = bits << 20 | UINT64_C(0xFFF0000000000000) | 0x0011;
			wr(pv_vpmu_pmevtyper_write, v, 1, val);
			check_sanitised(hw, val, vis | 0xFFFF, rd(pv_vpmu_pmevtyper_read, v, 1),
					CELL(f, PV_PMEVTYPER_EL0(1)), 0x11);
			assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(1)) & 0xFFFF, 0x11);
			val = bits << 20 | 0xFFFF;
			wr(pv_vpmu_pmccfiltr_write, v, 0, val);
			check_sanitised(hw, val, vis, rd(pv_vpmu_pmccfiltr_read, v, 0),
					CELL(f, PV_PMCCFILTR_EL0), 0);
		}
		f->v[0].cpu = NULL;
		f->cpu.loaded = NULL;
	}
	free(f);
}

/* Writing a counter the type it already has (a guest's perf does, each time it schedules the
 * event in) changes nothing and touches no hardware while the vCPU is loaded and active; the
 * same value as a first access still activates the vCPU and programs the hardware, and one
 * written while not loaded reaches the hardware at the next load. */
static void test_evtyper_rewrite(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	fx_load(f, 0);
	/* Type 0 (SW_INCR, counted in software) is what an untouched counter holds. */
	assert_false(v->pmu.active);
	wr(pv_vpmu_pmevtyper_write, v, 2, 0);
	assert_true(v->pmu.active);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), f->vm.pmu.hw_nothing);

	wr(pv_vpmu_pmevtyper_write, v, 2, P | PV_EVT_INST_RETIRED);
	uint64_t hw = CELL(f, PV_PMEVTYPER_EL0(2));
	assert_int_equal(hw & 0xFFFF, PV_EVT_INST_RETIRED);
	wr(pv_vpmu_pmselr_write, v, 0, 2);
	uint64_t before = ACCESSES(f);
	wr(pv_vpmu_pmevtyper_write, v, 2, P | PV_EVT_INST_RETIRED);
	/* RES0 bits differ, the visible ones do not: the same type. */
	wr(pv_vpmu_pmevtyper_write, v, 2, UINT64_C(0xF0000) | P | PV_EVT_INST_RETIRED);
	wr(pv_vpmu_pmxevtyper_write, v, 0, P | PV_EVT_INST_RETIRED);
	assert_int_equal(ACCESSES(f), before);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), hw);
	assert_int_equal(rd(pv_vpmu_pmevtyper_read, v, 2), P | PV_EVT_INST_RETIRED);

	/* A different type does reach the hardware. */
	wr(pv_vpmu_pmxevtyper_write, v, 0, U | PV_EVT_INST_RETIRED);
	assert_int_not_equal(CELL(f, PV_PMEVTYPER_EL0(2)), hw);
	/* Not loaded: stored; the hardware gets it at the next load, even where the rewrite
	 * gives back the type the hardware had. */
	fx_put(f, 0);
	CELL(f, PV_PMEVTYPER_EL0(2)) = 0;
	wr(pv_vpmu_pmevtyper_write, v, 2, P | PV_EVT_INST_RETIRED);
	wr(pv_vpmu_pmevtyper_write, v, 2, P | PV_EVT_INST_RETIRED);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), 0);
	fx_load(f, 0);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), hw);
	free(f);
}

/* SW_INCR, CHAIN and denied events count nothing in hardware; the guest still reads back
 * what it wrote. A denied CPU_CYCLES stops the cycle counter. */
static void test_count_nothing(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	const struct pv_pmu_filter deny[] = {
		{.base_event = 0x11, .nevents = 1, .action = PV_PMU_FILTER_DENY},
		{.base_event = 0x4000, .nevents = 2, .action = PV_PMU_FILTER_DENY}};
	for (unsigned c = 0; c < 2; c++) {
		f->hw.el3 = c == 1;
		assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, deny, 2), PV_OK);
		fx_load(f, 0);
		rd(pv_vpmu_pmcr_read, v, 0); /* activate */
		static const struct {
			uint64_t type;
			bool nothing;
		} cases[] = {{0x11, true},  {0x4001, true},  {0x0, true},        {0x1E, true},
			     {0x08, false}, {0x4002, false}, {NSH | 0x10, false}};
		for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			wr(pv_vpmu_pmevtyper_write, v, 3, cases[i].type);
			assert_int_equal(rd(pv_vpmu_pmevtyper_read, v, 3), cases[i].type);
			uint64_t h = CELL(f, PV_PMEVTYPER_EL0(3));
			if (cases[i].nothing)
				assert_int_equal(h, P | U);
			else
				assert_int_equal(h & 0xFFFF, cases[i].type & 0xFFFF);
		}
		wr(pv_vpmu_pmccfiltr_write, v, 0, 0);
		assert_int_equal(CELL(f, PV_PMCCFILTR_EL0), P | U);
		assert_int_equal(rd(pv_vpmu_pmccfiltr_read, v, 0), 0);
		/* written while not loaded: the sanitised copy reaches hardware at load */
		f->v[0].cpu = NULL;
		wr(pv_vpmu_pmevtyper_write, v, 2, 0x11);
		CELL(f, PV_PMEVTYPER_EL0(2)) = 0x11;
		fx_load(f, 0);
		assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), P | U);
		f->v[0].cpu = NULL;
	}
	/* No filter: the cycle counter counts as the guest filters it. */
	f->hw.el3 = false;
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	fx_load(f, 0);
	wr(pv_vpmu_pmccfiltr_write, v, 0, U | NSH);
	assert_int_equal(CELL(f, PV_PMCCFILTR_EL0), U);
	free(f);
}

/* ---- SW_INCR ------------------------------------------------------------------------------- */

static void swinc_setup(struct fx *f, uint8_t version, uint64_t pmcr)
{
	assert_int_equal(fx_vm(f, version, 4, NULL, 0), PV_OK);
	fx_load(f, 0);
	struct pv_vcpu *v = &f->v[0];
	wr(pv_vpmu_pmcr_write, v, 0, pmcr);
	wr(pv_vpmu_pmcntenset_write, v, 0, 0x8000000F);
	wr(pv_vpmu_pmuserenr_write, v, 0, PV_PMUSERENR_SW);
}

static void test_swinc_basic(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	swinc_setup(f, PV_PMUVER_V3P5, 0);
	wr(pv_vpmu_pmevtyper_write, v, 3, 0x11);
	wr(pv_vpmu_pmswinc_write, v, 0, 0xF); /* PMCR.E = 0: nothing counts */
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, n), 0);

	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	wr(pv_vpmu_pmcntenclr_write, v, 0, 0x2);
	wr(pv_vpmu_pmswinc_write, v, 0, 0xFFFFFFFF);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(0)), 1);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(1)), 0); /* disabled */
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(2)), 1);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(3)), 0); /* not SW_INCR */
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(4)), 0); /* not the VM's */

	/* The counter's filter applies at the EL of the write. */
	wr(pv_vpmu_pmevtyper_write, v, 0, P);
	wr(pv_vpmu_pmevtyper_write, v, 2, U);
	wr_el(pv_vpmu_pmswinc_write, v, 1, 0x5);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(0)), 1);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(2)), 2);
	wr_el(pv_vpmu_pmswinc_write, v, 0, 0x5);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(0)), 2);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(2)), 2);
	assert_int_equal(v->pmu.ovs, 0);

	/* With EL3: Non-secure EL1 counted iff P == NSK. */
	f->hw.el3 = true;
	swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E);
	wr(pv_vpmu_pmevtyper_write, v, 0, P | NSK);
	wr(pv_vpmu_pmevtyper_write, v, 1, NSK);
	wr(pv_vpmu_pmevtyper_write, v, 2, U | NSU);
	wr_el(pv_vpmu_pmswinc_write, v, 1, 0x7);
	wr_el(pv_vpmu_pmswinc_write, v, 0, 0x7);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(0)), 2); /* EL1 and EL0 */
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(1)), 1); /* EL0 only */
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(2)), 2);
	free(f);
}

static void test_swinc_overflow(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];

	/* PMUv3: 32-bit counter wraps to 0 and sets PMOVS; the interrupt follows. */
	swinc_setup(f, PV_PMUVER_V3, PV_PMCR_E);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x1);
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 0), 0);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x1);
	assert_true(f->mv[0].line[PV_INTID_PMU]);

	/* PMUv3p5, LP = 0: 64-bit counter, overflow recorded at 2^32 */
	swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E);
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 0), UINT64_C(0x100000000));
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x1);
	assert_false(f->mv[0].line[PV_INTID_PMU]); /* PMINTEN clear */

	/* PMUv3p5, LP = 1: overflow at 2^64 only */
	swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E | PV_PMCR_LP);
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 0), UINT64_C(0x100000000));
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0);
	wr(pv_vpmu_pmevcntr_write, v, 0, UINT64_MAX);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 0), 0);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x1);
	free(f);
}

/* ---- CHAIN --------------------------------------------------------------------------------- */

static void test_chain(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];

	swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E);
	wr(pv_vpmu_pmevtyper_write, v, 1, PV_EVT_CHAIN);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(1)), P | U); /* counted in software */
	/* the even partner's overflows interrupt EL2 even though the guest masks them */
	assert_int_equal(CELL(f, PV_PMINTENSET_EL1) & 0x1, 0x1);
	assert_int_equal(rd(pv_vpmu_pmintenset_read, v, 0), 0);
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmevcntr_write, v, 1, 5);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x3); /* bit 1 is not SW_INCR: ignored */
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 0), UINT64_C(0x100000000));
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), 6);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x1);

	/* the odd counter overflows in turn */
	wr(pv_vpmu_pmovsclr_write, v, 0, ~UINT64_C(0));
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmevcntr_write, v, 1, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), UINT64_C(0x100000000));
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x3);

	/* a disabled CHAIN counter does not count */
	wr(pv_vpmu_pmcntenclr_write, v, 0, 0x2);
	assert_int_equal(CELL(f, PV_PMINTENCLR_EL1) & 0x1, 0x1); /* partner interrupt off */
	wr(pv_vpmu_pmevcntr_write, v, 0, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), UINT64_C(0x100000000));
	wr(pv_vpmu_pmcntenset_write, v, 0, 0x2);

	/* odd counters do not chain into even ones; CHAIN on an even counter counts nothing */
	wr(pv_vpmu_pmevtyper_write, v, 1, PV_EVT_SW_INCR);
	wr(pv_vpmu_pmevtyper_write, v, 2, PV_EVT_CHAIN);
	wr(pv_vpmu_pmevcntr_write, v, 1, 0xFFFFFFFF);
	wr(pv_vpmu_pmevcntr_write, v, 2, 7);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x2);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 2), 7);
	assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(2)), P | U);

	/* 64-bit overflow (LP) does not chain */
	swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E | PV_PMCR_LP);
	wr(pv_vpmu_pmevtyper_write, v, 1, PV_EVT_CHAIN);
	wr(pv_vpmu_pmevcntr_write, v, 0, UINT64_MAX);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x1);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x1);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), 0);

	/* PMUv3: the 32-bit CHAIN counter wraps and records its own overflow */
	swinc_setup(f, PV_PMUVER_V3, PV_PMCR_E);
	wr(pv_vpmu_pmevtyper_write, v, 3, PV_EVT_CHAIN);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x8);
	wr(pv_vpmu_pmevcntr_write, v, 2, 0xFFFFFFFF);
	wr(pv_vpmu_pmevcntr_write, v, 3, 0xFFFFFFFF);
	wr(pv_vpmu_pmswinc_write, v, 0, 0x4);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 2), 0);
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 3), 0);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0xC);
	assert_true(f->mv[0].line[PV_INTID_PMU]);
	free(f);
}

/* An even counter overflowed in hardware and the overflow is still pending (no interrupt
 * taken yet) when the guest changes what decides chaining: the CHAIN counter must count it as
 * of the moment it happened. */
static void test_chain_pending_overflow(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	struct pv_vcpu *v = &f->v[0];
	/* each action that ends the window, and the CHAIN count it must leave */
	enum { STOP_PMCR_E, STOP_CNTEN_ODD, WRITE_ODD, RETYPE_ODD, SET_LP, N_CASES };
	for (int c = 0; c < N_CASES; c++) {
		swinc_setup(f, PV_PMUVER_V3P5, PV_PMCR_E);
		wr(pv_vpmu_pmevtyper_write, v, 2,
		   PV_EVT_INST_RETIRED); /* counted in hardware */
		wr(pv_vpmu_pmevtyper_write, v, 3, PV_EVT_CHAIN);
		wr(pv_vpmu_pmevcntr_write, v, 3, 7);
		CELL(f, PV_PMOVSSET_EL0) |= 0x4; /* counter 2 wrapped in hardware */
		uint64_t want = 8;
		switch (c) {
		case STOP_PMCR_E:
			wr(pv_vpmu_pmcr_write, v, 0, 0);
			break;
		case STOP_CNTEN_ODD:
			wr(pv_vpmu_pmcntenclr_write, v, 0, 0x8);
			break;
		case WRITE_ODD: /* the overflow came first: the write wins */
			wr(pv_vpmu_pmevcntr_write, v, 3, 100);
			/* the fold wrote PMOVSCLR; memplat's SET cell does not see that */
			assert_int_equal(CELL(f, PV_PMOVSCLR_EL0) & 0x4, 0x4);
			CELL(f, PV_PMOVSSET_EL0) &= ~UINT64_C(0x4);
			want = 100;
			break;
		case RETYPE_ODD:
			wr(pv_vpmu_pmevtyper_write, v, 3, PV_EVT_SW_INCR);
			break;
		case SET_LP:
			wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E | PV_PMCR_LP);
			break;
		}
		assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 3), want);
		assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0) & 0x4, 0x4);
	}
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_pending_overflow),
		cmocka_unit_test(test_counter_widths),
		cmocka_unit_test(test_selection_and_undef),
		cmocka_unit_test(test_evtyper_visible_bits),
		cmocka_unit_test(test_sanitise_matrix),
		cmocka_unit_test(test_evtyper_rewrite),
		cmocka_unit_test(test_count_nothing),
		cmocka_unit_test(test_swinc_basic),
		cmocka_unit_test(test_swinc_overflow),
		cmocka_unit_test(test_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
