/* SPDX-License-Identifier: MIT */
/* Syndrome decode and the register table: every key, XZR, direction, unknown registers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "esr.h"
#include "perfvisor/trap.h"

static void test_decode_fields(void **state)
{
	(void)state;
	/* mrs x7, pmcr_el0 as QEMU reports it: ESR 0x6230e4f9 -> key 0x30E418, Rt 7, read. */
	struct pv_sys_access a = {0};
	assert_true(pv_decode_sys(0x6230e4f9u, &a));
	assert_int_equal(a.key, PV_PMCR_EL0);
	assert_int_equal(a.rt, 7);
	assert_true(a.is_read);
	/* msr pmselr_el0, xzr */
	assert_true(pv_decode_sys(esr_sys(PV_PMSELR_EL0, 31, false), &a));
	assert_int_equal(a.key, PV_PMSELR_EL0);
	assert_int_equal(a.rt, 31);
	assert_false(a.is_read);
}

static void test_decode_rejects_other_classes(void **state)
{
	(void)state;
	struct pv_sys_access a = {0};
	assert_false(pv_decode_sys((uint64_t)PV_EC_HVC64 << 26 | PV_ESR_IL, &a));
	assert_false(pv_decode_sys((uint64_t)0x24 << 26 | PV_ESR_IL | PV_PMCR_EL0, &a));
	assert_false(pv_decode_sys(0, &a));
}

/* The direction bit must come from the raw ISS for every register and every Rt. */
static void test_decode_every_key_rt_direction(void **state)
{
	(void)state;
	size_t n;
	const struct pv_reg_desc *t = pv_reg_table(&n);
	for (size_t i = 0; i < n; i++) {
		for (unsigned rt = 0; rt < 32; rt++) {
			for (int rd = 0; rd < 2; rd++) {
				struct pv_sys_access a = {0};
				assert_true(pv_decode_sys(esr_sys(t[i].key, rt, rd), &a));
				assert_int_equal(a.key, t[i].key);
				assert_int_equal(a.rt, rt);
				assert_int_equal(a.is_read, rd);
			}
		}
	}
}

/* Fields by mask: the value, placed and taken back, with bits beyond the field dropped. */
static void test_field_macros(void **state)
{
	(void)state;
	assert_int_equal(PV_FIELD_GET(PV_PMCR_N, UINT64_C(0x41013000)), 6);
	assert_int_equal(PV_FIELD_PREP(PV_PMCR_N, 6), 0x3000);
	assert_int_equal(PV_FIELD_PREP(PV_PMCR_N, 0x3F), 0xF800); /* 6 bits into 5 */
	assert_int_equal(PV_FIELD_GET(PV_MDCR_EL2_E2PB, ~UINT64_C(0)), 3);
	assert_int_equal(PV_FIELD_PREP(PV_MDCR_EL2_E2PB, PV_MDCR_EL2_E2PB_EL1_TRAP), 0x2000);
	assert_true(PV_FIELD_GET(PV_BIT(63), UINT64_C(1) << 63) == 1);
	assert_true(PV_FIELD_PREP(PV_GENMASK(63, 60), 0xF) == UINT64_C(0xF000000000000000));
	assert_int_equal(PV_FIELD_GET(PV_PMEVTYPER_EVT_V3, 0x12345), 0x345);
	assert_int_equal(PV_FIELD_GET(PV_BIT(0), 2), 0);
}

static void test_table_well_formed(void **state)
{
	(void)state;
	size_t n;
	const struct pv_reg_desc *t = pv_reg_table(&n);
	assert_true(n >= 40);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(t[i].name);
		assert_non_null(t[i].behaviour);
		/* A family's key is its first member's; a register's mask is the whole key. */
		assert_int_equal(pv_reg_member(&t[i], t[i].key), t[i].first);
		assert_true(t[i].first <= t[i].last);
		assert_true(t[i].first == t[i].last || t[i].mask != PV_ISS_SYS_KEY_MASK);
		assert_int_equal(t[i].key & ~PV_ISS_SYS_KEY_MASK, 0);
		if (t[i].access == PV_ACC_RO)
			assert_null(t[i].write);
		if (t[i].access == PV_ACC_WO)
			assert_null(t[i].read);
		/* A register perfvisor emulates has every handler its access implies. */
		if (t[i].read || t[i].write) {
			if (t[i].access != PV_ACC_WO)
				assert_non_null(t[i].read);
			if (t[i].access != PV_ACC_RO)
				assert_non_null(t[i].write);
		}
		/* Each key dispatches to its own entry: no entry shadows another. (A family's
		 * key is its first member's: CRm = 1 for the ID group.) */
		assert_ptr_equal(pv_reg_lookup(t[i].key), &t[i]);
		for (size_t j = 0; j < n; j++)
			if (j != i && t[j].mask == PV_ISS_SYS_KEY_MASK)
				assert_int_not_equal(t[i].key, t[j].key);
	}
}

static const struct pv_reg_desc *find(const char *name)
{
	size_t n;
	const struct pv_reg_desc *t = pv_reg_table(&n);
	for (size_t i = 0; i < n; i++) {
		const char *a = t[i].name, *b = name;
		while (*a && *a == *b)
			a++, b++;
		if (*a == *b)
			return &t[i];
	}
	return NULL;
}

/* Every PMUv3 register of the Arm ARM's AArch64 PMU list is in the table. */
static void test_every_pmu_register_present(void **state)
{
	(void)state;
	static const char *const names[] = {
		"PMCR_EL0",       "PMCNTENSET_EL0",  "PMCNTENCLR_EL0",   "PMOVSCLR_EL0",
		"PMSWINC_EL0",    "PMSELR_EL0",      "PMCEID0_EL0",      "PMCEID1_EL0",
		"PMCCNTR_EL0",    "PMXEVTYPER_EL0",  "PMXEVCNTR_EL0",    "PMUSERENR_EL0",
		"PMINTENSET_EL1", "PMINTENCLR_EL1",  "PMOVSSET_EL0",     "PMMIR_EL1",
		"PMCCFILTR_EL0",  "PMEVCNTR<n>_EL0", "PMEVTYPER<n>_EL0",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct pv_reg_desc *d = find(names[i]);
		assert_non_null(d);
		assert_int_equal(d->kind, PV_KIND_PMU);
		assert_true(d->read || d->write);
	}
	assert_int_equal(find("PMMIR_EL1")->min_version, PV_PMUVER_V3P4);
}

static void test_families(void **state)
{
	(void)state;
	const struct pv_reg_desc *cntr = find("PMEVCNTR<n>_EL0");
	const struct pv_reg_desc *typer = find("PMEVTYPER<n>_EL0");
	for (unsigned n = 0; n < 31; n++) {
		assert_ptr_equal(pv_reg_lookup(PV_PMEVCNTR_EL0(n)), cntr);
		assert_ptr_equal(pv_reg_lookup(PV_PMEVTYPER_EL0(n)), typer);
		assert_int_equal(PV_PMEV_INDEX(PV_PMEVCNTR_EL0(n)), n);
		assert_int_equal(PV_PMEV_INDEX(PV_PMEVTYPER_EL0(n)), n);
	}
	/* Slot 31 of the type family is PMCCFILTR_EL0, an exact entry. */
	assert_int_equal(PV_PMEVTYPER_EL0(31), PV_PMCCFILTR_EL0);
	assert_ptr_equal(pv_reg_lookup(PV_PMCCFILTR_EL0), find("PMCCFILTR_EL0"));
	/* PMEVCNTR<n>_EL0 is n = 0..30 (Arm ARM D24.5): the encoding n = 31 would take is
	 * unallocated, nobody's. */
	assert_null(pv_reg_lookup(PV_PMEVCNTR_EL0(31)));
	assert_int_equal(cntr->first, 0);
	assert_int_equal(cntr->last, 30);
	assert_int_equal(typer->last, 30);
}

static void test_id_group(void **state)
{
	(void)state;
	const struct pv_reg_desc *id = pv_reg_lookup(PV_ID_AA64DFR0_EL1);
	assert_non_null(id);
	assert_int_equal(id->kind, PV_KIND_ID);
	for (unsigned crm = 1; crm < 8; crm++)
		for (unsigned op2 = 0; op2 < 8; op2++)
			assert_ptr_equal(pv_reg_lookup(PV_SYSREG(3, 0, 0, crm, op2)), id);
	/* CRm = 0 holds MIDR_EL1/MPIDR_EL1/REVIDR_EL1: not the TID3 group. */
	for (unsigned op2 = 0; op2 < 8; op2++)
		assert_null(pv_reg_lookup(PV_SYSREG(3, 0, 0, 0, op2)));
	assert_null(pv_reg_lookup(PV_SYSREG(3, 1, 0, 0, 1))); /* CLIDR_EL1 */
}

static void test_unknown_registers(void **state)
{
	(void)state;
	assert_null(pv_reg_lookup(PV_SYSREG(3, 0, 1, 0, 0)));   /* SCTLR_EL1 */
	assert_null(pv_reg_lookup(PV_SYSREG(3, 0, 12, 11, 5))); /* ICC_SGI1R_EL1 */
	assert_null(pv_reg_lookup(PV_SYSREG(2, 0, 0, 0, 4)));   /* DBGBVR0_EL1 (Op0 = 2) */
	assert_null(pv_reg_lookup(PV_SYSREG(1, 0, 7, 6, 1)));   /* DC IVAC (Op0 = 1) */
	assert_null(pv_reg_lookup(PV_AMEVCNTVOFF0_EL2(0)));     /* EL2 register */
	assert_null(pv_reg_lookup(PV_MDCR_EL2));
	assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 9, 4, 0)));  /* PMICNTR_EL0: not offered */
	assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 9, 13, 4))); /* PMZR_EL0: not offered */
	/* Holes of the directly indexed PMU block (CRm 12..15) are not registers. */
	for (unsigned op2 = 3; op2 < 8; op2++)
		assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 9, 13, op2)));
	for (unsigned op2 = 0; op2 < 8; op2++) {
		assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 9, 15, op2)));
		if (op2 != 0 && op2 != 3)
			assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 9, 14, op2)));
	}
	/* Op0 = 2 twin of PMCR's other fields must not alias (Bao forces Op0 = 3). */
	assert_null(pv_reg_lookup(PV_SYSREG(2, 3, 9, 12, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_decode_rejects_other_classes),
		cmocka_unit_test(test_decode_every_key_rt_direction),
		cmocka_unit_test(test_field_macros),
		cmocka_unit_test(test_table_well_formed),
		cmocka_unit_test(test_every_pmu_register_present),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_id_group),
		cmocka_unit_test(test_unknown_registers),
	};
	return cmocka_run_group_tests_name("trap_decode", tests, NULL, NULL);
}
