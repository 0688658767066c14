/* SPDX-License-Identifier: MIT */
/*
 * vSPE registers as a guest sees them through pv_trap (Arm ARM D24.7): configuration checks,
 * the ID view and trap words set together, every register UNDEF for a VM without SPE and at
 * EL0, PMSNEVFR_EL1 only from SPEv1p2, each register's fields per version (RES0 and RAZ/WI),
 * the identification views (PMSIDR_EL1, PMBIDR_EL1 with MaxBuffSize), and what reaches the
 * hardware: never PMSCR_EL1.PA or PCT.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "guest_trap.h"
#include "perfvisor/trap.h"
#include "test_vspe_rig.h"

static const struct spe_hw_desc V1P2 = {.version = 3, .align = 6, .max_size = 7, .fgt = true};

static const uint32_t all_keys[] = {
	PV_PMSCR_EL1,     PV_PMSNEVFR_EL1, PV_PMSICR_EL1,   PV_PMSIRR_EL1,
	PV_PMSFCR_EL1,    PV_PMSEVFR_EL1,  PV_PMSLATFR_EL1, PV_PMSIDR_EL1,
	PV_PMBLIMITR_EL1, PV_PMBPTR_EL1,   PV_PMBSR_EL1,    PV_PMBIDR_EL1,
};
#define NKEYS (sizeof(all_keys) / sizeof(all_keys[0]))

static void test_config_errors(void **state)
{
	(void)state;
	struct spe_hw_desc none = V1P2;
	none.version = 0;
	struct spe_rig *r = spe_rig_new(&none);
	assert_false(r->hw.spe);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 1, 1 << 20), PV_ERR_FEATURE);
	spe_rig_free(r);

	struct spe_hw_desc el3 = V1P2;
	el3.owned_by_el3 = true; /* PMBIDR_EL1.P at EL2: EL3 did not delegate */
	r = spe_rig_new(&el3);
	assert_true(r->hw.spe);
	assert_false(r->hw.spehw.usable);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 1, 1 << 20), PV_ERR_UNSUPPORTED);
	/* Nothing but PMBIDR_EL1 was read: the others would trap to EL3. */
	assert_int_equal(r->hw.spehw.pmsidr, 0);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSEVFR_EL1), 0);
	spe_rig_free(r);

	struct spe_hw_desc v1p1 = V1P2;
	v1p1.version = 2;
	r = spe_rig_new(&v1p1);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 0, 1 << 20), PV_ERR_SPE_VERSION);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_ERR_SPE_VERSION);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 4, 1 << 20), PV_ERR_SPE_VERSION);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, 0), PV_ERR_SPE_BUFFER);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, 4096 + 8), PV_ERR_SPE_BUFFER);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, PV_SPE_MAX_BUFFER * 2),
			 PV_ERR_SPE_BUFFER);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 1, 4096), PV_OK);
	/* The largest is accepted (pv_vm_init alone: its pin stores would take 16 GiB each). */
	struct pv_vm_config big = {.features = PV_FEAT_SPE,
				   .spe = {.version = 2, .max_buffer = PV_SPE_MAX_BUFFER}};
	assert_int_equal(pv_vm_init(&r->vm, &r->hw, &big), PV_OK);
	assert_int_equal(r->vm.spe.max_buffer, PV_SPE_MAX_BUFFER);
	assert_string_equal(
		pv_strerror(PV_ERR_SPE_VERSION),
		"SPE version not offered (SPEv1, v1p1 or v1p2, at most the hardware's)");
	spe_rig_free(r);
}

/* The ID view and the trap words are set together, per VM (DESIGN: a feature a VM lacks is
 * hidden and its registers UNDEF). */
static void test_id_view_and_trap_words(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&V1P2);
	for (unsigned version = 0; version <= 3; version++) {
		assert_int_equal(spe_rig_vm(r, version ? PV_FEAT_SPE : 0, version, 1 << 20),
				 PV_OK);
		uint64_t dfr0 = guest_mrs_ok(&r->v[0], PV_ID_AA64DFR0_EL1);
		assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMSVER), version);
		const struct pv_trap_words *w = &r->v[0].traps;
		assert_int_equal(PV_FIELD_GET(PV_MDCR_EL2_E2PB, w->mdcr_el2),
				 version ? PV_MDCR_EL2_E2PB_EL1_TRAP : PV_MDCR_EL2_E2PB_EL2);
		assert_true(w->mdcr_el2 & PV_MDCR_EL2_TPMS);
		assert_true(w->mdcr_el2_owned & (PV_MDCR_EL2_E2PB | PV_MDCR_EL2_TPMS));
		/* PMSCR_EL2 all zero for guests: no PA, PCT, CX, EL2 sampling. */
		assert_int_equal(w->pmscr_el2, 0);
		assert_int_equal(w->pmscr_el2_owned &
					 (PV_PMSCR_PA | PV_PMSCR_PCT | PV_PMSCR_CX |
					  PV_PMSCR_E1SPE | PV_PMSCR_E0SPE),
				 PV_PMSCR_PA | PV_PMSCR_PCT | PV_PMSCR_CX | PV_PMSCR_E1SPE |
					 PV_PMSCR_E0SPE);
		/* FEAT_FGT: PMBIDR_EL1 reads trap whatever the VM. */
		assert_int_equal(w->hdfgrtr_el2, PV_HDFGRTR_EL2_PMBIDR_EL1);
		assert_int_equal(w->hdfgrtr_el2_owned, PV_HDFGRTR_EL2_PMBIDR_EL1);
	}
	spe_rig_free(r);
	/* Without SPE hardware: no SPE words at all (the fields are RES0). */
	struct spe_hw_desc none = V1P2;
	none.version = 0;
	r = spe_rig_new(&none);
	assert_int_equal(spe_rig_vm(r, 0, 0, 0), PV_OK);
	assert_false(r->v[0].traps.mdcr_el2 & PV_MDCR_EL2_TPMS);
	assert_int_equal(r->v[0].traps.pmscr_el2_owned, 0);
	spe_rig_free(r);
}

/* Linux's SPE driver refuses to probe where the kernel unmaps itself at EL0, which it does
 * unless the CPU says it needs not: ID_AA64PFR0_EL1.CSV3 and ID_AA64MMFR2_EL1.E0PD, both
 * bits [63:60] (Arm ARM D24.2). An SPE VM's view keeps the hardware's, whatever the version. */
static void test_id_view_keeps_csv3_e0pd(void **state)
{
	(void)state;
	const uint64_t top = UINT64_C(0xF) << 60;
	struct spe_rig *r = spe_rig_new(&V1P2);
	r->hw.id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)] |= UINT64_C(1) << 60;
	r->hw.id[PV_ID_SLOT(PV_ID_AA64MMFR2_EL1)] |= UINT64_C(1) << 60;
	for (unsigned version = 0; version <= 3; version++) {
		assert_int_equal(spe_rig_vm(r, version ? PV_FEAT_SPE : 0, version, 1 << 20),
				 PV_OK);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_ID_AA64PFR0_EL1) & top,
				 UINT64_C(1) << 60);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_ID_AA64MMFR2_EL1) & top,
				 UINT64_C(1) << 60);
	}
	spe_rig_free(r);
}

static void test_hidden_undef(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&V1P2);
	assert_int_equal(spe_rig_vm(r, 0, 0, 0), PV_OK);
	for (size_t i = 0; i < NKEYS; i++)
		for (unsigned el = 0; el < 2; el++) {
			assert_int_equal(guest_mrs(&r->v[0], all_keys[i], el, NULL),
					 PV_TRAP_UNDEF);
			assert_int_equal(guest_msr(&r->v[0], all_keys[i], el, 1),
					 PV_TRAP_UNDEF);
		}
	assert_true(r->v[0].stats.traps[PV_KIND_SPE] > 0);
	/* With SPE: every register UNDEF at EL0; the read-only ones on MSR; PMSNEVFR_EL1 needs
	 * FEAT_SPE_FnE (SPEv1p2). */
	for (unsigned version = 1; version <= 3; version++) {
		assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, version, 1 << 20), PV_OK);
		for (size_t i = 0; i < NKEYS; i++) {
			assert_int_equal(guest_mrs(&r->v[0], all_keys[i], 0, NULL),
					 PV_TRAP_UNDEF);
			assert_int_equal(guest_msr(&r->v[0], all_keys[i], 0, 0), PV_TRAP_UNDEF);
			bool fne = all_keys[i] == PV_PMSNEVFR_EL1;
			bool ro = all_keys[i] == PV_PMSIDR_EL1 || all_keys[i] == PV_PMBIDR_EL1;
			enum pv_trap_result want = fne && version < 3 ? PV_TRAP_UNDEF
								      : PV_TRAP_HANDLED;
			assert_int_equal(guest_mrs(&r->v[0], all_keys[i], 1, NULL), want);
			assert_int_equal(guest_msr(&r->v[0], all_keys[i], 1, 0),
					 ro ? PV_TRAP_UNDEF : want);
		}
	}
	spe_rig_free(r);
}

/* Writes of all ones read back as the fields the VM's version has. */
static void test_fields_per_version(void **state)
{
	(void)state;
	struct spe_hw_desc ecv = V1P2;
	struct spe_rig *r = spe_rig_new(&ecv);
	uint64_t evfr_v1 = PV_GENMASK(5, 1) | PV_BIT(7) | PV_GENMASK(10, 8) |
			   PV_GENMASK(15, 12) | PV_GENMASK(31, 24) | PV_GENMASK(63, 48);
	for (unsigned version = 1; version <= 3; version++) {
		assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, version, 1 << 20), PV_OK);
		struct pv_vcpu *v = &r->v[0];
		bool v1p2 = version == 3;
		static const struct {
			uint32_t key;
			uint64_t v1, v1p1, v1p2;
		} want[] = {
			{PV_PMSCR_EL1, 0xFB, 0xFB,
			 0xFB - 0x80}, /* PCT bit 7 only with FEAT_ECV */
			{PV_PMSICR_EL1, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF},
			{PV_PMSIRR_EL1, 0xFFFFFF01, 0xFFFFFF01, 0xFFFFFF01},
			{PV_PMSFCR_EL1, 0x70007, 0x70007, 0x7000F},
			{PV_PMSLATFR_EL1, 0xFFF, 0xFFF, 0xFFF},
			{PV_PMBPTR_EL1, ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0)},
			{PV_PMBSR_EL1, 0xFC0FFFFF, 0xFC0FFFFF, 0xFC0FFFFF},
		};
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			uint64_t expect = version == 1   ? want[i].v1
					  : version == 2 ? want[i].v1p1
							 : want[i].v1p2;
			if (want[i].key == PV_PMSCR_EL1)
				expect =
					0x7B; /* E0SPE, E1SPE, CX, PA, TS, PCT[0]; no ECV here */
			guest_msr_ok(v, want[i].key, ~UINT64_C(0));
			assert_int_equal(guest_mrs_ok(v, want[i].key), expect);
		}
		guest_msr_ok(v, PV_PMSEVFR_EL1, ~UINT64_C(0));
		/* From SPEv1p1 alignment (11) and, where implemented (SVE or SME, every bit
		 * here), the partial and empty predicate events (17, 18). */
		uint64_t evfr = evfr_v1 | (version >= 2 ? PV_BIT(11) | PV_GENMASK(18, 17) : 0) |
				(v1p2 ? PV_BIT(6) : 0);
		assert_int_equal(guest_mrs_ok(v, PV_PMSEVFR_EL1), evfr);
		if (v1p2) {
			guest_msr_ok(v, PV_PMSNEVFR_EL1, ~UINT64_C(0));
			assert_int_equal(guest_mrs_ok(v, PV_PMSNEVFR_EL1), evfr);
		}
		/* PMBLIMITR_EL1: LIMIT, FM, E; PMFZ from SPEv1p2. Written with E = 0 so nothing is
		 * enabled here. */
		guest_msr_ok(v, PV_PMBLIMITR_EL1, ~UINT64_C(1));
		assert_int_equal(guest_mrs_ok(v, PV_PMBLIMITR_EL1),
				 PV_GENMASK(63, 12) | 6 | (v1p2 ? PV_PMBLIMITR_PMFZ : 0));
		guest_msr(v, PV_PMBSR_EL1, 1, 0);
		/* PMSIDR_EL1: the hardware's without EFT and FDS; FnE only from SPEv1p2. */
		uint64_t hw = *memplat_reg(&r->mc[0], PV_PMSIDR_EL1);
		uint64_t sidr = guest_mrs_ok(v, PV_PMSIDR_EL1);
		assert_int_equal(sidr, hw & ~(PV_PMSIDR_EFT | PV_PMSIDR_FDS |
					      (v1p2 ? 0 : PV_PMSIDR_FNE)));
	}
	spe_rig_free(r);
	/* 16-bit counters: MINLAT is 16 bits; FEAT_SPE_ERnd: PMSICR_EL1.ECOUNT. */
	struct spe_hw_desc c16 = V1P2;
	c16.count16 = c16.ernd = true;
	r = spe_rig_new(&c16);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	guest_msr(&r->v[0], PV_PMSLATFR_EL1, 1, ~UINT64_C(0));
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMSLATFR_EL1), 0xFFFF);
	guest_msr(&r->v[0], PV_PMSICR_EL1, 1, ~UINT64_C(0));
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMSICR_EL1),
			 PV_GENMASK(63, 56) | 0xFFFFFFFF);
	spe_rig_free(r);
}

/* PMBIDR_EL1: Align, F and EA as the hardware, P = 0 (the guest owns its buffer, E2PB = 0b10),
 * no physical-address mode, MaxBuffSize the VM's largest buffer in the mantissa/exponent form
 * of D24.7.1, rounded down; the limit enforced is the one advertised. */
static void test_pmbidr_maxbuffsize(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&V1P2);
	static const struct {
		uint64_t max, code, bytes;
	} t[] = {
		{4096, 0x0001, 4096},                        /* "a value of 0x0001: 4KB" */
		{UINT64_C(1) << 20, 256, UINT64_C(1) << 20}, /* M = 256, E = 0 */
		{(UINT64_C(2) << 20) - 4096, 511, (UINT64_C(2) << 20) - 4096},
		{UINT64_C(2) << 20, 1u << 9,
		 UINT64_C(2) << 20}, /* '1':M:Zeros(E + 11), E = 1 */
		{UINT64_C(64) << 20, 6u << 9, UINT64_C(64) << 20},
		{(UINT64_C(3) << 20) + 4096, 1u << 9 | 257,
		 (UINT64_C(3) << 20) + 4096}, /* 4K steps */
		{(UINT64_C(5) << 20) + 4096, 2u << 9 | 128,
		 UINT64_C(5) << 20}, /* 8K: rounded down */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, t[i].max), PV_OK);
		uint64_t idr = guest_mrs_ok(&r->v[0], PV_PMBIDR_EL1);
		assert_int_equal(PV_FIELD_GET(PV_PMBIDR_MAXBUFFSIZE, idr), t[i].code);
		assert_int_equal(r->vm.spe.max_buffer, t[i].bytes);
		assert_int_equal(idr & 0xFFF,
				 6 | PV_PMBIDR_F | 0x100); /* Align, F, EA; P = 0 */
	}
	spe_rig_free(r);
}

/* The hardware's PMSCR_EL1 never holds PA or PCT, whatever the guest writes; the guest reads
 * its own value back. Writes reach the hardware only while the vCPU is loaded. */
static void test_pmscr_sanitised(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&V1P2);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	uint64_t all = PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_PA |
		       PV_PMSCR_TS | PV_BIT(6);
	guest_msr_ok(v, PV_PMSCR_EL1, ~UINT64_C(0));
	assert_int_equal(guest_mrs_ok(v, PV_PMSCR_EL1), all);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSCR_EL1),
			 PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_TS);
	pv_vcpu_put(v);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_PMSCR_EL1), 0); /* sampling stopped */
	*memplat_reg(&r->mc[1], PV_PMSCR_EL1) = 0;
	guest_msr_ok(v, PV_PMSCR_EL1, PV_PMSCR_PA | PV_PMSCR_E1SPE);
	assert_int_equal(*memplat_reg(&r->mc[1], PV_PMSCR_EL1),
			 0); /* not loaded: not written */
	pv_vcpu_load(v, &r->cpu[1]);
	assert_int_equal(*memplat_reg(&r->mc[1], PV_PMSCR_EL1), PV_PMSCR_E1SPE);
	pv_vcpu_put(v);
	spe_rig_free(r);
}

/* The sampling controls follow the vCPU to the hardware; PMSICR_EL1 is live while it runs. */
static void test_controls_to_hardware(void **state)
{
	(void)state;
	struct spe_rig *r = spe_rig_new(&V1P2);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, 1 << 20), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	struct memplat_cpu *c = &r->mc[0];
	pv_vcpu_load(v, &r->cpu[0]);
	guest_msr(v, PV_PMSIRR_EL1, 1, 0x1001);
	guest_msr(v, PV_PMSFCR_EL1, 1, PV_PMSFCR_FT | PV_PMSFCR_LD);
	guest_msr(v, PV_PMSEVFR_EL1, 1, 0x8A);
	guest_msr(v, PV_PMSNEVFR_EL1, 1, 0x20);
	guest_msr(v, PV_PMSLATFR_EL1, 1, 40);
	guest_msr(v, PV_PMSICR_EL1, 1, 0x500);
	assert_int_equal(*memplat_reg(c, PV_PMSIRR_EL1), 0x1001);
	assert_int_equal(*memplat_reg(c, PV_PMSFCR_EL1), PV_PMSFCR_FT | PV_PMSFCR_LD);
	assert_int_equal(*memplat_reg(c, PV_PMSEVFR_EL1), 0x8A);
	assert_int_equal(*memplat_reg(c, PV_PMSNEVFR_EL1), 0x20);
	assert_int_equal(*memplat_reg(c, PV_PMSLATFR_EL1), 40);
	*memplat_reg(c, PV_PMSICR_EL1) = 0x3F; /* the hardware counted down */
	assert_int_equal(guest_mrs_ok(v, PV_PMSICR_EL1), 0x3F);
	pv_vcpu_put(v);
	*memplat_reg(c, PV_PMSICR_EL1) = 0x999;
	assert_int_equal(guest_mrs_ok(v, PV_PMSICR_EL1), 0x3F); /* saved at put */
	spe_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_id_view_and_trap_words),
		cmocka_unit_test(test_id_view_keeps_csv3_e0pd),
		cmocka_unit_test(test_hidden_undef),
		cmocka_unit_test(test_fields_per_version),
		cmocka_unit_test(test_pmbidr_maxbuffsize),
		cmocka_unit_test(test_pmscr_sanitised),
		cmocka_unit_test(test_controls_to_hardware),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
