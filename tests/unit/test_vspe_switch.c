/* SPDX-License-Identifier: MIT */
/*
 * vSPE at vCPU switch and on the buffer interrupt, on the plain-memory platform: a vCPU that
 * never touched SPE costs nothing; put stops sampling, drains (PSB CSYNC) and saves, load
 * restores (PMSCR_EL1 last) on any pCPU; the physical INTID 21 reflects the guest's events
 * (buffer full, stage-1 fault) into its PMBSR_EL1 and virtual INTID 21 and lowers the physical
 * line; a stage-2 fault is repaired (the page mapped again, no new pin) and resumed, or, with
 * part of a record lost or the memory gone, reported as the IMPLEMENTATION DEFINED event; an
 * interrupt with no guest buffer running is the host's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "guest_trap.h"
#include "perfvisor/trap.h"
#include "test_vspe_rig.h"

static const struct spe_hw_desc HW = {.version = 3, .align = 6, .max_size = 7, .fgt = true};
#define KVA UINT64_C(0xFFFF800080000000)

static uint64_t *cell(struct spe_rig *r, unsigned c, uint32_t key)
{
	return memplat_reg(&r->mc[c], key);
}

/* A VM with SPEv1p2; vCPU 0 on pCPU 0 with a 16-page buffer at KVA, RAM from RIG_RAM. */
static struct spe_rig *running(void)
{
	struct spe_rig *r = spe_rig_new(&HW);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, UINT64_C(1) << 20), PV_OK);
	uint64_t root1 = rig_new_table(r, 12), root0 = rig_new_table(r, 12);
	rig_map(r, root1, 12, 48, KVA, RIG_RAM, 16 * 4096, 3, 0);
	for (unsigned c = 0; c < RIG_CPUS; c++)
		rig_regime(r, c, root0, root1, 12, 48, true);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	guest_msr_ok(v, PV_PMSIRR_EL1, 0x400);
	guest_msr_ok(v, PV_PMSFCR_EL1, PV_PMSFCR_FE);
	guest_msr_ok(v, PV_PMSEVFR_EL1, 0x2);
	guest_msr_ok(v, PV_PMBPTR_EL1, KVA);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	guest_msr_ok(v, PV_PMSCR_EL1, PV_PMSCR_E1SPE | PV_PMSCR_TS);
	return r;
}

static void test_lazy(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&HW);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, UINT64_C(1) << 20), PV_OK);
	/* A vCPU that never wrote an SPE register: load and put touch no SPE register. */
	*cell(r, 0, PV_PMSCR_EL1) = 0x5A;
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(*cell(r, 0, PV_PMSCR_EL1), 0x5A);
	assert_int_equal(r->mc[0].psb, 0);
	/* Reading identification does not make it "used" either. */
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	guest_mrs_ok(&r->v[0], PV_PMSIDR_EL1);
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(*cell(r, 0, PV_PMSCR_EL1), 0x5A);
	spe_rig_free(r);
}

static void test_put_drains_load_restores(void **state)
{
	(void)state;
	struct spe_rig *r = running();
	struct pv_vcpu *v = &r->v[0];
	/* The hardware moved on while the guest ran. */
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 0x1C0;
	*cell(r, 0, PV_PMSICR_EL1) = 0x77;
	uint64_t psb = r->mc[0].psb;
	pv_vcpu_put(v);
	assert_int_equal(r->mc[0].psb, psb + 1);            /* drained */
	assert_int_equal(*cell(r, 0, PV_PMSCR_EL1), 0);     /* sampling stopped first */
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), 0); /* no buffer left enabled */
	assert_int_equal(v->spe.ptr, KVA + 0x1C0);
	assert_int_equal(v->spe.icr, 0x77);
	assert_int_equal(v->spe.stats.drains, 1);
	/* Another pCPU: everything back, the pins untouched (no walk). */
	uint64_t enables = v->spe.stats.enables;
	pv_vcpu_load(v, &r->cpu[1]);
	assert_int_equal(*cell(r, 1, PV_PMSIRR_EL1), 0x400);
	assert_int_equal(*cell(r, 1, PV_PMSFCR_EL1), PV_PMSFCR_FE);
	assert_int_equal(*cell(r, 1, PV_PMSEVFR_EL1), 0x2);
	assert_int_equal(*cell(r, 1, PV_PMSICR_EL1), 0x77);
	assert_int_equal(*cell(r, 1, PV_PMBPTR_EL1), KVA + 0x1C0);
	assert_int_equal(*cell(r, 1, PV_PMBLIMITR_EL1), (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	assert_int_equal(*cell(r, 1, PV_PMSCR_EL1), PV_PMSCR_E1SPE | PV_PMSCR_TS);
	assert_int_equal(v->spe.stats.enables, enables);
	assert_int_equal(rig_pinned(r), 16 + 4);
	/* The guest reads the live pointer (after a PSB CSYNC). */
	*cell(r, 1, PV_PMBPTR_EL1) = KVA + 0x400;
	psb = r->mc[1].psb;
	assert_int_equal(guest_mrs_ok(v, PV_PMBPTR_EL1), KVA + 0x400);
	assert_int_equal(r->mc[1].psb, psb + 1);
	spe_rig_free(r);
}

/* Buffer full: the hardware's syndrome becomes the guest's, PMBPTR too; the virtual INTID 21
 * rises; the physical buffer is stopped and its PMBSR cleared (PMBIRQ lowered) until the guest
 * clears its own PMBSR_EL1. A collision flag is kept for the guest. */
static void test_irq_buffer_full(void **state)
{
	(void)state;
	struct spe_rig *r = running();
	struct pv_vcpu *v = &r->v[0];
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_COLL; /* a collision, still running */
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 64;
	guest_mrs_ok(v, PV_PMBPTR_EL1);
	assert_int_equal(*cell(r, 0, PV_PMBSR_EL1), 0);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | PV_PMBSR_BSC_FULL;
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 16 * 4096 - 64;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	assert_int_equal(*cell(r, 0, PV_PMBSR_EL1), 0);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), 0);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1),
			 PV_PMBSR_S | PV_PMBSR_COLL | PV_PMBSR_BSC_FULL);
	assert_int_equal(guest_mrs_ok(v, PV_PMBPTR_EL1), KVA + 16 * 4096 - 64);
	/* Linux: PMBPTR back to the start, PMBSR = 0. */
	guest_msr_ok(v, PV_PMBPTR_EL1, KVA);
	guest_msr_ok(v, PV_PMBSR_EL1, 0);
	assert_false(r->mv[0].line[PV_INTID_SPE]);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	assert_int_equal(*cell(r, 0, PV_PMBPTR_EL1), KVA);
	/* A guest that reads PMBSR_EL1 before the interrupt came sees the event all the same. */
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | PV_PMBSR_BSC_FULL;
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), PV_PMBSR_S | PV_PMBSR_BSC_FULL);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	spe_rig_free(r);
}

static void test_irq_stage1_fault(void **state)
{
	(void)state;
	struct spe_rig *r = running();
	struct pv_vcpu *v = &r->v[0];
	uint64_t bsr = PV_PMBSR_S | PV_PMBSR_DL | (uint64_t)PV_PMBSR_EC_FAULT_S1 << 26 |
		       PV_FSC_TRANSLATION(3);
	*cell(r, 0, PV_PMBSR_EL1) = bsr;
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 3 * 4096;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), bsr);
	assert_int_equal(guest_mrs_ok(v, PV_PMBPTR_EL1), KVA + 3 * 4096);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	spe_rig_free(r);
}

/* Stage 2 faulted although pinned (the platform lost the mapping): walked again, mapped again
 * without a new pin, the hardware resumed, the guest told nothing; one record lost. */
static void test_irq_stage2_repair(void **state)
{
	(void)state;
	struct spe_rig *r = running();
	struct pv_vcpu *v = &r->v[0];
	uint32_t npins = v->spe.npins;
	uint64_t calls = r->mem.pin_calls;
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | (uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 |
				    PV_FSC_TRANSLATION(3);
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 5 * 4096 + 128;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	assert_false(r->mv[0].line[PV_INTID_SPE]);
	assert_int_equal(*cell(r, 0, PV_PMBSR_EL1), 0);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
	assert_int_equal(v->spe.npins, npins); /* no new store entry */
	assert_true(r->mem.pin_calls > calls); /* but mapped again */
	assert_int_equal(rig_pin_count(r, RIG_RAM + 5 * 4096), 1);
	assert_int_equal(v->spe.stats.s2_repaired, 1);
	assert_int_equal(v->spe.stats.records_lost, 1);
	/* Part of a record already written (DL): the guest must know. */
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | PV_PMBSR_DL |
				    (uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 |
				    PV_FSC_TRANSLATION(3);
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1),
			 PV_PMBSR_S | PV_PMBSR_DL | (uint64_t)PV_PMBSR_EC_IMPDEF << 26 |
				 PV_PMBSR_IMPDEF_S2_REPAIR_DL);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), 0);
	spe_rig_free(r);
	/* The guest's own tables say the page is not mapped after all: its stage-1 fault. */
	r = running();
	v = &r->v[0];
	*rig_ipa(r, rig_entry(r, *cell(r, 0, PV_TTBR1_EL1), 12, 48, KVA + 7 * 4096, 3)) = 0;
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | (uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 | 7;
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 7 * 4096;
	pv_irq(&r->cpu[0], PV_INTID_SPE);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1),
			 PV_PMBSR_S | (uint64_t)PV_PMBSR_EC_FAULT_S1 << 26 |
				 PV_FSC_TRANSLATION(3));
	spe_rig_free(r);
	/* Memory the VM no longer has. */
	r = running();
	v = &r->v[0];
	*rig_ipa(r, rig_entry(r, *cell(r, 0, PV_TTBR1_EL1), 12, 48, KVA + 2 * 4096,
			      3)) = UINT64_C(0x900000000) | 3 | PV_BIT(10);
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | (uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 | 7;
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 2 * 4096;
	pv_irq(&r->cpu[0], PV_INTID_SPE);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1),
			 PV_PMBSR_S | (uint64_t)PV_PMBSR_EC_IMPDEF << 26 |
				 PV_PMBSR_IMPDEF_NO_MEMORY);
	/* Whatever happened, disabling releases every pin. */
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(r->mem.bad_unpins, 0);
	spe_rig_free(r);
	/* An external abort reported with the stage-2 class: the guest sees the abort (EA, DL),
	 * never a stage-2 syndrome, and nothing is "repaired" under it. */
	r = running();
	v = &r->v[0];
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | PV_PMBSR_EA | PV_PMBSR_DL |
				    (uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 | 0x10;
	*cell(r, 0, PV_PMBPTR_EL1) = KVA + 3 * 4096;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), PV_PMBSR_S | PV_PMBSR_EA | PV_PMBSR_DL);
	assert_int_equal(v->spe.stats.s2_repaired, 0);
	assert_int_equal(*cell(r, 0, PV_PMBLIMITR_EL1), 0);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	assert_int_equal(rig_pinned(r), 0);
	spe_rig_free(r);
}

/* INTID 21 with no guest buffer running on the pCPU: the host's if its PMBSR_EL1.S is set, a
 * late one otherwise; a put leaves a pending guest event in the guest's PMBSR_EL1. */
static void test_irq_not_a_guests(void **state)
{
	(void)state;
	struct spe_rig *r = running();
	pv_vcpu_put(&r->v[0]);
	*cell(r, 0, PV_PMBSR_EL1) = 0;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_NOT_MINE);
	*cell(r, 0, PV_PMBSR_EL1) = 0;
	/* An event pending at put (its interrupt not yet taken). */
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	*cell(r, 0, PV_PMBSR_EL1) = PV_PMBSR_S | PV_PMBSR_BSC_FULL;
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(*cell(r, 0, PV_PMBSR_EL1), 0);
	assert_int_equal(pv_vspe_status(&r->v[0]), PV_PMBSR_S | PV_PMBSR_BSC_FULL);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	spe_rig_free(r);
	/* No SPE the guests may use: never mine. */
	struct spe_hw_desc el3 = HW;
	el3.owned_by_el3 = true;
	r = spe_rig_new(&el3);
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_NOT_MINE);
	spe_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lazy),
		cmocka_unit_test(test_put_drains_load_restores),
		cmocka_unit_test(test_irq_buffer_full),
		cmocka_unit_test(test_irq_stage1_fault),
		cmocka_unit_test(test_irq_stage2_repair),
		cmocka_unit_test(test_irq_not_a_guests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
