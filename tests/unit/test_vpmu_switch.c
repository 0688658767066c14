/* SPDX-License-Identifier: MIT */
/* vPMU: per-pCPU setup, lazy load/put, exact counts across switches, overflow folding and
 * the physical PMU interrupt (host bits left alone), and the path through pv_trap(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "perfvisor/trap.h"

#include "vpmu_fixture.h"

#define HOST_BITS 0xC0u /* physical counters 6 and 7 */

/* Host counters' registers and bits are never written. */
static void host_sentinels(struct fx *f)
{
	for (unsigned n = 6; n < 8; n++) {
		CELL(f, PV_PMEVCNTR_EL0(n)) = 0xA000 + n;
		CELL(f, PV_PMEVTYPER_EL0(n)) = 0xB000 + n;
	}
}

static void check_host_untouched(struct fx *f)
{
	for (unsigned n = 6; n < 8; n++) {
		assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(n)), 0xA000 + n);
		assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(n)), 0xB000 + n);
	}
	static const uint32_t bitmaps[] = {PV_PMCNTENSET_EL0, PV_PMCNTENCLR_EL0,
					   PV_PMINTENSET_EL1, PV_PMINTENCLR_EL1,
					   PV_PMOVSCLR_EL0};
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(CELL(f, bitmaps[i]) & HOST_BITS, 0);
	assert_int_equal(CELL(f, PV_PMCR_EL0) & (PV_PMCR_P | PV_PMCR_C | PV_PMCR_X), 0);
}

/* ---- pCPU setup ---------------------------------------------------------------------------- */

static void test_pcpu_setup(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	host_sentinels(f);
	CELL(f, PV_PMCR_EL0) = PV_PMCR_E | PV_PMCR_LP;
	pv_vpmu_pcpu_setup(&f->cpu, &f->hw);
	assert_int_equal(CELL(f, PV_PMUSERENR_EL0),
			 PV_PMUSERENR_EN); /* EL0 accesses reach EL2 */
	assert_int_equal(CELL(f, PV_PMCNTENCLR_EL0), 0x8000003Fu);
	assert_int_equal(CELL(f, PV_PMINTENCLR_EL1), 0x8000003Fu);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0x8000003Fu);
	assert_int_equal(CELL(f, PV_PMCR_EL0), PV_PMCR_LC); /* E = 0; LC RES1 */
	assert_int_equal(f->mc.reads, 0);
	check_host_untouched(f);
	f->hw.aarch32 = true;
	pv_vpmu_pcpu_setup(&f->cpu, &f->hw);
	assert_int_equal(CELL(f, PV_PMCR_EL0), 0);
	free(f);
}

/* ---- lazy switching ------------------------------------------------------------------------ */

static void test_lazy_untouched(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 6, NULL, 0), PV_OK);
	for (unsigned round = 0; round < 100; round++) {
		fx_load(f, round & 1);
		fx_put(f, round & 1);
	}
	assert_int_equal(ACCESSES(f), 0);
	assert_int_equal(f->mv[0].changes + f->mv[1].changes, 0);
	assert_int_equal(pv_vpmu_counter(&f->v[0], 0), 0); /* operator view: no access either */
	assert_int_equal(ACCESSES(f), 0);

	/* the first access of any kind, read or write, loads the (reset) state */
	fx_load(f, 0);
	rd(pv_vpmu_pmuserenr_read, &f->v[0], 0);
	assert_true(f->v[0].pmu.active);
	assert_int_equal(f->mc.writes, 2 * 6 + 2 + 2 + 2);
	for (unsigned n = 0; n < 6; n++)
		assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(n)),
				 PV_PMEVTYPER_P | PV_PMEVTYPER_U); /* SW_INCR: nothing */
	assert_int_equal(CELL(f, PV_PMCR_EL0), PV_PMCR_LC);
	fx_put(f, 0);
	/* the other vCPU is still free */
	uint64_t before = ACCESSES(f);
	fx_load(f, 1);
	fx_put(f, 1);
	assert_int_equal(ACCESSES(f), before);
	free(f);
}

/* A busy vCPU: load writes 2N + 6 registers, put reads N + 2 and writes 1 (2 with an
 * overflow to fold). */
static void test_busy_switch_cost(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 6, NULL, 0), PV_OK);
	fx_load(f, 0);
	wr(pv_vpmu_pmcntenset_write, &f->v[0], 0, ~UINT64_C(0));
	fx_put(f, 0);
	f->mc.reads = f->mc.writes = 0;
	fx_load(f, 0);
	assert_int_equal(f->mc.writes, 2 * 6 + 6);
	assert_int_equal(f->mc.reads, 0);
	fx_put(f, 0);
	assert_int_equal(f->mc.writes, 2 * 6 + 6 + 1);
	assert_int_equal(f->mc.reads, 6 + 2);
	free(f);
}

struct guest_state {
	uint64_t cnt[4], cyc, type[4];
	uint32_t en;
};

static void guest_program(struct fx *f, unsigned i, const struct guest_state *g)
{
	struct pv_vcpu *v = &f->v[i];
	for (unsigned n = 0; n < 4; n++) {
		wr(pv_vpmu_pmevtyper_write, v, n, g->type[n]);
		wr(pv_vpmu_pmevcntr_write, v, n, g->cnt[n]);
	}
	wr(pv_vpmu_pmccntr_write, v, 0, g->cyc);
	wr(pv_vpmu_pmcntenset_write, v, 0, g->en);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
}

/* Two active vCPUs share the physical counters of one pCPU: each sees its own values, types
 * and enables, exactly, across any number of switches; the host's counters are untouched. */
static void test_switch_two_active(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	pv_vpmu_pcpu_setup(&f->cpu, &f->hw);
	host_sentinels(f);
	struct guest_state g[2] = {
		{{1000, 2000, 3000, 4000},
		 5000,
		 {0x11, 0x08 | PV_PMEVTYPER_P, 0x03, 0x04},
		 0x80000003u},
		{{10, 20, 30, 40}, 50, {0x08, 0x11 | PV_PMEVTYPER_U, 0x10, 0x12}, 0x0000000Du},
	};
	for (unsigned i = 0; i < 2; i++) {
		fx_load(f, i);
		guest_program(f, i, &g[i]);
		fx_put(f, i);
		check_host_untouched(f);
	}
	for (unsigned round = 0; round < 200; round++) {
		unsigned i = round & 1;
		fx_load(f, i);
		check_host_untouched(f);
		assert_int_equal(CELL(f, PV_PMCNTENSET_EL0), g[i].en);
		for (unsigned n = 0; n < 4; n++) {
			assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(n)), g[i].cnt[n]);
			assert_int_equal(CELL(f, PV_PMEVTYPER_EL0(n)), g[i].type[n]);
			/* the hardware counts while the vCPU runs */
			if (g[i].en & (1u << n)) {
				CELL(f, PV_PMEVCNTR_EL0(n)) += round + n;
				g[i].cnt[n] += round + n;
			}
		}
		assert_int_equal(CELL(f, PV_PMCCNTR_EL0), g[i].cyc);
		if (g[i].en & 0x80000000u) {
			CELL(f, PV_PMCCNTR_EL0) += 3;
			g[i].cyc += 3;
		}
		fx_put(f, i);
		assert_int_equal(CELL(f, PV_PMCNTENCLR_EL0), 0x8000000Fu); /* the VM's mask */
		check_host_untouched(f);
	}
	for (unsigned i = 0; i < 2; i++) {
		for (unsigned n = 0; n < 4; n++) {
			assert_int_equal(pv_vpmu_counter(&f->v[i], n), g[i].cnt[n]);
			assert_int_equal(rd(pv_vpmu_pmevtyper_read, &f->v[i], n), g[i].type[n]);
		}
		assert_int_equal(pv_vpmu_counter(&f->v[i], PV_PMU_CYCLE_IDX), g[i].cyc);
		assert_int_equal(rd(pv_vpmu_pmcntenset_read, &f->v[i], 0), g[i].en);
	}
	free(f);
}

/* PMCR is loaded with its stored bits only. */
static void test_load_pmcr_bits(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	wr(pv_vpmu_pmcr_write, &f->v[0], 0, ~UINT64_C(0)); /* not loaded */
	fx_load(f, 0);
	assert_int_equal(CELL(f, PV_PMCR_EL0),
			 PV_PMCR_E | PV_PMCR_DP | PV_PMCR_LC | PV_PMCR_LP);
	free(f);
}

/* ---- overflow folding, the physical interrupt ---------------------------------------------- */

static void test_put_folds_overflow(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	fx_load(f, 0);
	wr(pv_vpmu_pmintenset_write, &f->v[0], 0, 0x1);
	wr(pv_vpmu_pmcr_write, &f->v[0], 0, PV_PMCR_E);
	CELL(f, PV_PMOVSSET_EL0) = 0x1 | 0x40;
	CELL(f, PV_PMOVSCLR_EL0) = 0;
	fx_put(f, 0);
	assert_int_equal(f->v[0].pmu.ovs, 0x1);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0x1); /* the host's flag stays set */
	assert_true(f->mv[0].line[PV_INTID_PMU]);
	free(f);
}

static void test_irq_fold(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];

	/* nothing loaded: the flags of counters [HPMN, N) = [6, 8) are the host's */
	CELL(f, PV_PMOVSSET_EL0) = 0x40;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HOST_PENDING);
	CELL(f, PV_PMOVSSET_EL0) = 0x8000003Fu; /* guest partition only */
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HANDLED);
	CELL(f, PV_PMOVSSET_EL0) = 0;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HANDLED);

	/* loaded but never used the PMU: only the host's flags are looked at, nothing written */
	fx_load(f, 0);
	CELL(f, PV_PMOVSSET_EL0) = 0x80;
	uint64_t writes = f->mc.writes;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HOST_PENDING);
	assert_int_equal(f->mc.writes, writes);
	assert_false(v->pmu.active);

	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x80000001u);
	CELL(f, PV_PMOVSSET_EL0) = 0x80000000u;
	CELL(f, PV_PMOVSCLR_EL0) = 0;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HANDLED); /* guest only */
	assert_int_equal(v->pmu.ovs, 0x80000000u);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0x80000000u);
	assert_true(f->mv[0].line[PV_INTID_PMU]);

	CELL(f, PV_PMOVSSET_EL0) = 0x1 | 0x10 | 0x40; /* guest 0, unassigned 4, host 6 */
	CELL(f, PV_PMOVSCLR_EL0) = 0;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HOST_PENDING);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0x1);
	assert_int_equal(v->pmu.ovs, 0x80000001u);
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x80000001u);

	/* the guest clears its flags: the line drops */
	CELL(f, PV_PMOVSSET_EL0) = 0x40; /* the hardware cleared what was folded */
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x80000001u);
	assert_false(f->mv[0].line[PV_INTID_PMU]);
	assert_int_equal(f->mv[0].changes, 2);
	free(f);
}

/* An even counter's hardware overflow increments its CHAIN partner when folded, whether by
 * the interrupt or by a read of the CHAIN counter. */
static void test_irq_chain(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	fx_load(f, 0);
	wr(pv_vpmu_pmevtyper_write, v, 0, PV_EVT_CPU_CYCLES);
	wr(pv_vpmu_pmevtyper_write, v, 1, PV_EVT_CHAIN);
	wr(pv_vpmu_pmcntenset_write, v, 0, 0x3);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	wr(pv_vpmu_pmevcntr_write, v, 1, 41);
	assert_int_equal(CELL(f, PV_PMINTENSET_EL1),
			 0x1); /* to learn of counter 0's overflow */

	CELL(f, PV_PMOVSSET_EL0) = 0x1;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HANDLED);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(1)), 42);
	assert_int_equal(v->pmu.ovs, 0x1);
	assert_false(f->mv[0].line[PV_INTID_PMU]); /* the guest did not enable it */

	CELL(f, PV_PMOVSSET_EL0) = 0x1; /* overflowed again, interrupt not yet taken */
	assert_int_equal(rd(pv_vpmu_pmevcntr_read, v, 1), 43);
	CELL(f, PV_PMOVSSET_EL0) = 0;
	assert_int_equal(pv_vpmu_counter(v, 1), 43);

	/* with PMCR.LP the hardware overflow is a 64-bit one: it does not chain */
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E | PV_PMCR_LP);
	CELL(f, PV_PMOVSSET_EL0) = 0x1;
	assert_int_equal(pv_vpmu_irq(&f->cpu), PV_IRQ_HANDLED);
	assert_int_equal(CELL(f, PV_PMEVCNTR_EL0(1)), 43);
	free(f);
}

/* A guest PMOVSCLR write applies to overflows still pending in hardware too. */
static void test_ovsclr_pending(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	fx_load(f, 0);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x6);
	CELL(f, PV_PMOVSSET_EL0) = 0x6; /* counters 1 and 2 overflowed, IRQ not yet taken */
	CELL(f, PV_PMOVSCLR_EL0) = 0;
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x2);
	assert_int_equal(CELL(f, PV_PMOVSCLR_EL0), 0x6); /* folded, cleared in hardware */
	CELL(f, PV_PMOVSSET_EL0) = 0;
	assert_int_equal(rd(pv_vpmu_pmovsset_read, v, 0), 0x4);
	assert_true(f->mv[0].line[PV_INTID_PMU]);
	free(f);
}

/* ---- through pv_trap() --------------------------------------------------------------------- */

static void test_through_trap(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	uint64_t x[32] = {0};
	struct pv_vm_config cfg = {.features = PV_FEAT_PMU};
	cfg.pmu.version = PV_PMUVER_V3P5;
	cfg.pmu.nr_counters = 4;
	pv_pcpu_init(&f->cpu, &f->mc);
	assert_int_equal(pv_hw_probe(&f->hw, &f->cpu, 2), PV_OK);
	assert_int_equal(f->hw.hpmn, 6);
	pv_pcpu_setup(&f->cpu, &f->hw);
	assert_int_equal(pv_vm_init(&f->vm, &f->hw, &cfg), PV_OK);
	pv_vcpu_init(&f->v[0], &f->vm, 0, &f->mv[0]);
	pv_vcpu_init(&f->v[1], &f->vm, 1, &f->mv[1]);
	host_sentinels(f);
	struct pv_vcpu *v = &f->v[0];

	uint64_t before = ACCESSES(f);
	pv_vcpu_load(v, &f->cpu);
	pv_vcpu_load(&f->v[1], &f->cpu);
	pv_vcpu_load(v, &f->cpu);
	assert_int_equal(ACCESSES(f), before);

	x[1] = 42;
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(3), 1, false), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(3), 2, true), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(x[2], 42);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(4), 2, true), 1, x), PV_TRAP_UNDEF);
	x[3] = PV_PMCR_E | PV_PMCR_P | PV_PMCR_C;
	assert_int_equal(pv_trap(v, esr_sys(PV_PMCR_EL0, 3, false), 1, x), PV_TRAP_HANDLED);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMEVCNTR_EL0(3), 2, true), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(x[2], 0);
	assert_int_equal(pv_trap(v, esr_sys(PV_PMCR_EL0, 4, true), 1, x), PV_TRAP_HANDLED);
	assert_int_equal(x[4] & (PV_PMCR_N | PV_PMCR_E | PV_PMCR_P),
			 PV_FIELD_PREP(PV_PMCR_N, 4) | PV_PMCR_E);
	/* EL0 with PMUSERENR = 0: sent back to the guest's EL1 */
	assert_int_equal(pv_trap(v, esr_sys(PV_PMCCNTR_EL0, 2, true), 0, x),
			 PV_TRAP_EL1_SYSREG);
	check_host_untouched(f);

	CELL(f, PV_PMOVSSET_EL0) = 0x80;
	assert_int_equal(pv_irq(&f->cpu, PV_INTID_PMU), PV_IRQ_HOST_PENDING);
	CELL(f, PV_PMOVSSET_EL0) = 0;
	assert_int_equal(pv_irq(&f->cpu, PV_INTID_PMU), PV_IRQ_HANDLED);
	pv_vcpu_put(v);
	assert_int_equal(pv_vpmu_counter(v, 3), 0);
	free(f);
}

/* An overflow the hardware flagged before counting stopped, with no physical interrupt taken:
 * the write that stops counting (PMCNTENCLR, a type change, PMCR.E = 0) folds it, so the
 * virtual interrupt is raised at once, or with PMCR.E again (PMCR.E gates it). The host's
 * flags stay where they are. */
static void test_fold_on_stop(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	bool *line = &f->mv[0].line[PV_INTID_PMU];
	fx_load(f, 0);
	wr(pv_vpmu_pmevtyper_write, v, 0, PV_EVT_CPU_CYCLES);
	wr(pv_vpmu_pmintenset_write, v, 0, 0x1);
	wr(pv_vpmu_pmcntenset_write, v, 0, 0x1);
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);

	CELL(f, PV_PMOVSSET_EL0) = 0x1 | 0x40; /* guest counter 0 and host counter 6 */
	assert_false(*line);
	wr(pv_vpmu_pmcntenclr_write, v, 0, 0x1);
	assert_true(*line);
	assert_int_equal(v->pmu.ovs, 0x1);
	assert_int_equal(CELL(f, PV_PMOVSSET_EL0) & 0x40, 0x40); /* the host's, untouched */
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x1);
	assert_false(*line);

	wr(pv_vpmu_pmcntenset_write, v, 0, 0x1);
	CELL(f, PV_PMOVSSET_EL0) = 0x1;
	wr(pv_vpmu_pmevtyper_write, v, 0, PV_EVT_INST_RETIRED);
	assert_true(*line);
	wr(pv_vpmu_pmovsclr_write, v, 0, 0x1);
	assert_false(*line);

	CELL(f, PV_PMOVSSET_EL0) = 0x1;
	wr(pv_vpmu_pmcr_write, v, 0, 0);
	assert_false(*line); /* PMCR.E = 0: the overflow is recorded, the interrupt waits */
	assert_int_equal(v->pmu.ovs, 0x1);
	CELL(f, PV_PMOVSSET_EL0) = 0;
	wr(pv_vpmu_pmcr_write, v, 0, PV_PMCR_E);
	assert_true(*line);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcpu_setup),
		cmocka_unit_test(test_lazy_untouched),
		cmocka_unit_test(test_busy_switch_cost),
		cmocka_unit_test(test_switch_two_active),
		cmocka_unit_test(test_load_pmcr_bits),
		cmocka_unit_test(test_put_folds_overflow),
		cmocka_unit_test(test_irq_fold),
		cmocka_unit_test(test_irq_chain),
		cmocka_unit_test(test_ovsclr_pending),
		cmocka_unit_test(test_fold_on_stop),
		cmocka_unit_test(test_through_trap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
