/* SPDX-License-Identifier: MIT */
/* pv_trap: XZR, direction, per-VM gating (hidden features, versions, indices), results. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "vcpu_rig.h"
#include "perfvisor/trap.h"

static struct vcpu_rig *rig_new(uint32_t features, uint8_t version, uint8_t counters)
{
	struct vcpu_rig *r = vcpu_rig_new(1, features, version, counters);
	for (unsigned i = 0; i < 32; i++)
		r->x[i] = 0xDEAD0000u + i;
	return r;
}

static enum pv_trap_result rd(struct vcpu_rig *r, uint32_t key, unsigned rt)
{
	return pv_trap(&r->v, esr_sys(key, rt, true), 1, r->x);
}

static enum pv_trap_result wr(struct vcpu_rig *r, uint32_t key, unsigned rt)
{
	return pv_trap(&r->v, esr_sys(key, rt, false), 1, r->x);
}

static void test_rt_and_direction(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
	r->x[5] = 0x1234;
	assert_int_equal(wr(r, PV_PMCCNTR_EL0, 5), PV_TRAP_HANDLED);
	assert_int_equal(rd(r, PV_PMCCNTR_EL0, 9), PV_TRAP_HANDLED);
	assert_int_equal(r->x[9], 0x1234);
	assert_int_equal(r->x[5], 0x1234); /* a write leaves its source alone */
	assert_int_equal(r->v.stats.traps[PV_KIND_PMU], 2);
	free(r);
}

static void test_xzr(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
	/* msr pmselr_el0, xzr writes zero whatever is in the register file. */
	r->x[3] = 2;
	assert_int_equal(wr(r, PV_PMSELR_EL0, 3), PV_TRAP_HANDLED);
	assert_int_equal(wr(r, PV_PMSELR_EL0, 31), PV_TRAP_HANDLED);
	assert_int_equal(rd(r, PV_PMSELR_EL0, 4), PV_TRAP_HANDLED);
	assert_int_equal(r->x[4], 0);
	/* mrs xzr, pmcr_el0 discards the value: no register changes, nothing past x30. */
	uint64_t before[32];
	memcpy(before, r->x, sizeof(before));
	assert_int_equal(rd(r, PV_PMCR_EL0, 31), PV_TRAP_HANDLED);
	assert_memory_equal(before, r->x, sizeof(before));
	free(r);
}

static void test_hidden_pmu_undefs(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(0, 0, 0);
	size_t n;
	const struct pv_reg_desc *t = pv_reg_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (t[i].kind != PV_KIND_PMU)
			continue;
		assert_int_equal(rd(r, t[i].key, 1), PV_TRAP_UNDEF);
		assert_int_equal(wr(r, t[i].key, 1), PV_TRAP_UNDEF);
	}
	assert_int_equal(rd(r, PV_ID_AA64DFR0_EL1, 2), PV_TRAP_HANDLED);
	assert_int_equal(PV_ID_FIELD(r->x[2], PV_ID_AA64DFR0_PMUVER), 0);
	assert_true(r->v.stats.traps[PV_KIND_PMU] > 0); /* traps counted whatever the answer */
	free(r);
}

static void test_features_not_offered_undef(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
	const uint32_t keys[] = {PV_PMSCR_EL1, PV_PMBLIMITR_EL1,    PV_PMBSR_EL1,
				 PV_AMCR_EL0,  PV_AMEVCNTR0_EL0(0), PV_AMEVTYPER1_EL0(3),
				 PV_MPAM1_EL1, PV_MPAM0_EL1,        PV_MPAMIDR_EL1};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		assert_int_equal(rd(r, keys[i], 0), PV_TRAP_UNDEF);
		assert_int_equal(wr(r, keys[i], 0), PV_TRAP_UNDEF);
	}
	free(r);
}

static void test_version_gating(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P1, 4);
	assert_int_equal(rd(r, PV_PMMIR_EL1, 0), PV_TRAP_UNDEF); /* PMMIR needs PMUv3p4 */
	free(r);
	r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P4, 4);
	assert_int_equal(rd(r, PV_PMMIR_EL1, 0), PV_TRAP_HANDLED);
	free(r);
}

static void test_access_direction_rules(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
	assert_int_equal(wr(r, PV_PMCEID0_EL0, 0), PV_TRAP_UNDEF);
	assert_int_equal(wr(r, PV_PMCEID1_EL0, 0), PV_TRAP_UNDEF);
	assert_int_equal(wr(r, PV_PMMIR_EL1, 0), PV_TRAP_UNDEF);
	assert_int_equal(rd(r, PV_PMSWINC_EL0, 0), PV_TRAP_UNDEF);
	assert_int_equal(wr(r, PV_ID_AA64DFR0_EL1, 0), PV_TRAP_UNDEF);
	assert_int_equal(wr(r, PV_ID_AA64PFR0_EL1, 0), PV_TRAP_UNDEF);
	free(r);
}

static void test_counter_index_checked(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 3);
	for (unsigned n = 0; n < 31; n++) {
		enum pv_trap_result want = n < 3 ? PV_TRAP_HANDLED : PV_TRAP_UNDEF;
		assert_int_equal(rd(r, PV_PMEVCNTR_EL0(n), 0), want);
		assert_int_equal(wr(r, PV_PMEVCNTR_EL0(n), 0), want);
		assert_int_equal(rd(r, PV_PMEVTYPER_EL0(n), 0), want);
		assert_int_equal(wr(r, PV_PMEVTYPER_EL0(n), 0), want);
	}
	/* n = 31 is no PMEVCNTR<n>_EL0 (unallocated): not perfvisor's, the host's to answer. */
	assert_int_equal(rd(r, PV_PMEVCNTR_EL0(31), 0), PV_TRAP_UNKNOWN);
	assert_int_equal(rd(r, PV_PMCCFILTR_EL0, 0), PV_TRAP_HANDLED);
	free(r);
}

/* PMEVCNTR<n> and PMEVTYPER<n> reach counter n, each n through its own entry: a value
 * written through the trap for each n reads back through the family's indexed handler (the
 * table's), and from no other n. */
static void test_counter_index_reaches_its_counter(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 5);
	for (unsigned n = 0; n < 5; n++) {
		r->x[3] = 0x1000u + n;
		r->x[4] = 0x100u + n; /* event 0x100 + n: stored as written */
		assert_int_equal(wr(r, PV_PMEVCNTR_EL0(n), 3), PV_TRAP_HANDLED);
		assert_int_equal(wr(r, PV_PMEVTYPER_EL0(n), 4), PV_TRAP_HANDLED);
	}
	pv_reg_read_fn *cntr = pv_reg_lookup(PV_PMEVCNTR_EL0(0))->read;
	pv_reg_read_fn *typer = pv_reg_lookup(PV_PMEVTYPER_EL0(0))->read;
	for (unsigned n = 0; n < 5; n++) {
		uint64_t val = 0;
		assert_int_equal(cntr(&r->v, n, 1, &val), PV_TRAP_HANDLED);
		assert_int_equal(val, 0x1000u + n);
		assert_int_equal(typer(&r->v, n, 1, &val), PV_TRAP_HANDLED);
		assert_int_equal(val, 0x100u + n);
		assert_int_equal(rd(r, PV_PMEVCNTR_EL0(n), 7), PV_TRAP_HANDLED);
		assert_int_equal(r->x[7], 0x1000u + n);
		assert_int_equal(rd(r, PV_PMEVTYPER_EL0(n), 8), PV_TRAP_HANDLED);
		assert_int_equal(r->x[8], 0x100u + n);
	}
	free(r);
}

static void test_not_ours(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 4);
	assert_int_equal(rd(r, PV_SYSREG(3, 0, 1, 0, 0), 0), PV_TRAP_UNKNOWN);
	assert_int_equal(pv_trap(&r->v, (uint64_t)PV_EC_HVC64 << 26, 1, r->x), PV_TRAP_UNKNOWN);
	free(r);
}

/* The dispatch tables and the register table agree on every key of the EC 0x18 space, in both
 * directions: a key the table does not own is the hypervisor's (UNKNOWN); one it owns is
 * answered and counted once, under its own kind, whatever the answer. */
static void test_every_key_dispatches_as_the_table_says(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 5);
	unsigned owned = 0;
	for (uint32_t bits = 0; bits < (1u << 16); bits++) {
		/* ISS[21:10] and ISS[4:1]: Op0, Op2, Op1, CRn and CRm. */
		uint32_t key = ((bits >> 4) << PV_ISS_SYS_CRN_SHIFT) | ((bits & 0xFu) << 1);
		const struct pv_reg_desc *d = pv_reg_lookup(key);
		owned += d != NULL;
		for (unsigned dir = 0; dir < 2; dir++) {
			uint64_t before[PV_KIND_COUNT];
			memcpy(before, r->v.stats.traps, sizeof(before));
			enum pv_trap_result res = pv_trap(&r->v, esr_sys(key, 7, dir), 1, r->x);
			if (!d) {
				assert_int_equal(res, PV_TRAP_UNKNOWN);
				assert_memory_equal(before, r->v.stats.traps, sizeof(before));
				continue;
			}
			assert_int_not_equal(res, PV_TRAP_UNKNOWN);
			for (unsigned k = 0; k < PV_KIND_COUNT; k++)
				assert_int_equal(r->v.stats.traps[k],
						 before[k] + (k == d->kind));
		}
	}
	/* 17 PMU registers, 2 x 31 PMEV, AMU 9 + 4 x 16, MPAM 4, SPE 12, ID group 56. */
	assert_int_equal(owned, 17 + 62 + 9 + 64 + 4 + 12 + 56);
	free(r);
}

/* pv_trap_sys64 looks at the ISS only: the syndrome passed whole (EC, IL) answers the same. */
static void test_sys64_entry_takes_the_whole_syndrome(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 5);
	static const uint32_t keys[] = {PV_PMCR_EL0,        PV_PMCCNTR_EL0,
					PV_PMEVCNTR_EL0(4), PV_PMEVCNTR_EL0(5),
					PV_ID_AA64DFR0_EL1, PV_SYSREG(3, 0, 1, 0, 0)};
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t esr = esr_sys(keys[i], 3, true);
		enum pv_trap_result want = pv_trap(&r->v, esr, 1, r->x);
		assert_int_equal(pv_trap_sys64(&r->v, PV_ESR_ISS(esr), 1, r->x), want);
		assert_int_equal(pv_trap_sys64(&r->v, (uint32_t)esr, 1, r->x), want);
		/* ISS2 (ESR_EL2[55:32]) set as well. */
		assert_int_equal(pv_trap_sys64(&r->v, esr | UINT64_C(0xABCDEF) << 32, 1, r->x),
				 want);
	}
	free(r);
}

/* Whatever the syndrome and register values, the answer is one of the four results and the
 * register file changes at most in the one register a handled read names. */
static void test_random_syndromes(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new(PV_FEAT_PMU, PV_PMUVER_V3P5, 5);
	srand(1);
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t esr = ((uint64_t)rand() << 32) ^ (uint64_t)rand() ^
			       ((uint64_t)rand() << 16);
		if (i & 1) /* half of them land on the PMU and ID spaces */
			esr = esr_sys(PV_SYSREG(3, rand() & 3 ? 3 : 0, rand() & 1 ? 9 : 14,
						rand() & 15, rand() & 7),
				      rand() & 31, rand() & 1);
		for (unsigned k = 0; k < 31; k++)
			r->x[k] = ((uint64_t)rand() << 33) ^ (uint64_t)rand();
		r->x[31] = 0x5E17;
		uint64_t before[32];
		memcpy(before, r->x, sizeof(before));
		enum pv_trap_result res = pv_trap(&r->v, esr, (unsigned)rand() & 1, r->x);
		assert_true(res <= PV_TRAP_UNKNOWN);
		unsigned rt = (esr >> 5) & 31;
		bool may_write = res == PV_TRAP_HANDLED && (esr & 1) && rt != 31;
		for (unsigned k = 0; k < 32; k++)
			if (!(may_write && k == rt))
				assert_int_equal(before[k], r->x[k]);
	}
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rt_and_direction),
		cmocka_unit_test(test_xzr),
		cmocka_unit_test(test_hidden_pmu_undefs),
		cmocka_unit_test(test_features_not_offered_undef),
		cmocka_unit_test(test_version_gating),
		cmocka_unit_test(test_access_direction_rules),
		cmocka_unit_test(test_counter_index_checked),
		cmocka_unit_test(test_counter_index_reaches_its_counter),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_every_key_dispatches_as_the_table_says),
		cmocka_unit_test(test_sys64_entry_takes_the_whole_syndrome),
		cmocka_unit_test(test_random_syndromes),
	};
	return cmocka_run_group_tests_name("trap_dispatch", tests, NULL, NULL);
}
