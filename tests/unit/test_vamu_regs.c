/* SPDX-License-Identifier: MIT */
/*
 * vAMU: configuration checks, the choice of path with its trap words, the ID view, and every
 * AMU register as a guest sees it through pv_trap (Arm ARM D24.6): the identification views,
 * the UNDEFINED writes, the EL0 gate of AMUSERENR_EL0, the hidden AMU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "guest_trap.h"
#include "perfvisor/trap.h"
#include "regdb.h" /* PV_BITS_*: the register database's masks */
#include "test_vamu_rig.h"

static struct amu_rig *rig_new(const struct amu_hw_desc *d)
{
	struct amu_rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(rig_init(r, d), PV_OK);
	return r;
}

/* AMUv1p1, FEAT_FGT, four auxiliary counters of which counter 2 has no offset register. */
static const struct amu_hw_desc V1P1 = {.version = 2, .aux = 4, .voff = 0xB, .fgt = true};
static const struct amu_hw_desc V1 = {.version = 1, .aux = 3};

/* Every AMU register encoding a guest can name (not the EL2 offsets). */
static size_t all_keys(uint32_t *k)
{
	static const uint32_t singles[] = {
		PV_AMCR_EL0,      PV_AMCFGR_EL0,      PV_AMCGCR_EL0,
		PV_AMUSERENR_EL0, PV_AMCNTENCLR0_EL0, PV_AMCNTENSET0_EL0,
		PV_AMCG1IDR_EL0,  PV_AMCNTENCLR1_EL0, PV_AMCNTENSET1_EL0,
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); i++)
		k[n++] = singles[i];
	for (unsigned i = 0; i < 16; i++) {
		k[n++] = PV_AMEVCNTR0_EL0(i);
		k[n++] = PV_AMEVTYPER0_EL0(i);
		k[n++] = PV_AMEVCNTR1_EL0(i);
		k[n++] = PV_AMEVTYPER1_EL0(i);
	}
	return n;
}

static void test_config_errors(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 0), PV_OK);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 0, 0), PV_ERR_AMU_VERSION);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 3, 0), PV_ERR_AMU_VERSION);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 5), PV_ERR_AMU_AUX);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 255), PV_ERR_AMU_AUX);
	free(r);

	r = rig_new(&V1);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 0), PV_ERR_AMU_VERSION); /* above hardware */
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 3), PV_OK);
	free(r);

	/* AMUv1p1 may leave auxiliary counters unimplemented (AMCG1IDR_EL0): a VM's counters
	 * [0, nr_aux) must all exist. */
	struct amu_hw_desc sparse = {
		.version = 2, .aux = 4, .present = 0xD, .voff = 0xD, .fgt = true};
	r = rig_new(&sparse);
	assert_int_equal(r->hw.amuhw.aux_present, 0xD);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 1), PV_OK);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 2), PV_ERR_AMU_AUX);
	assert_int_equal(r->vm.amu.path, PV_AMU_PATH_TRAP);
	free(r);

	/* CG1RZ: group 1 reads as zero below the highest EL; only an AMUv1p1 VM can be told. */
	struct amu_hw_desc rz = V1P1;
	rz.cg1rz = true;
	r = rig_new(&rz);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 2), PV_ERR_AMU_AUX);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 0), PV_OK);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	*rig_cntr(r, 0, 4) = 12345;
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_AMEVCNTR1_EL0(0)), 0);
	assert_true(guest_mrs_ok(&r->v[0], PV_AMCR_EL0) & PV_AMCR_CG1RZ);
	free(r);

	/* No AMU in hardware. */
	r = calloc(1, sizeof(*r));
	struct amu_hw_desc none = {0};
	assert_int_equal(rig_init(r, &none), PV_OK);
	assert_false(r->hw.amu);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 0), PV_ERR_FEATURE);
	free(r);
	assert_string_not_equal(pv_strerror(PV_ERR_AMU_VERSION), pv_strerror(PV_ERR_AMU_AUX));
	assert_string_not_equal(pv_strerror(PV_ERR_AMU_AUX), "unknown error");
}

static void test_path_and_trap_words(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	assert_true(r->hw.fgt && r->hw.amuhw.voff);
	/* The full AMUv1p1 view: counters read directly with the hardware offsets; CNT_CYCLES
	 * (no AMEVCNTVOFF01_EL2) and auxiliary counter 2 (no AMEVCNTVOFF12_EL2) trap by FGT. */
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	const struct pv_trap_words *w = &r->v[0].traps;
	assert_int_equal(r->vm.amu.path, PV_AMU_PATH_VOFF);
	assert_true(w->cptr_el2_owned & PV_CPTR_EL2_TAM);
	assert_false(w->cptr_el2 & PV_CPTR_EL2_TAM);
	assert_true(w->hcr_el2_owned & PV_HCR_EL2_AMVOFFEN);
	assert_true(w->hcr_el2 & PV_HCR_EL2_AMVOFFEN);
	assert_int_equal(w->hafgrtr_el2_owned, PV_HAFGRTR_MASK);
	assert_int_equal(w->hafgrtr_el2, PV_HAFGRTR_AMEVCNTR0(1) | PV_HAFGRTR_AMEVCNTR1(2));
	assert_int_equal(PV_HAFGRTR_AMEVCNTR0(1),
			 PV_BIT(2)); /* Linux tools/sysreg HAFGRTR_EL2 */
	assert_int_equal(PV_HAFGRTR_AMEVCNTR1(2), PV_BIT(22));
	assert_int_equal(w->hcr_el2 & ~w->hcr_el2_owned, 0);
	assert_int_equal(w->cptr_el2 & ~w->cptr_el2_owned, 0);
	assert_int_equal(w->hafgrtr_el2 & ~w->hafgrtr_el2_owned, 0);

	/* A view the hardware's identification registers would contradict: trap path. */
	const uint8_t views[][2] = {{2, 3}, {2, 0}, {1, 4}};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(rig_vm(r, PV_FEAT_AMU, views[i][0], views[i][1]), PV_OK);
		assert_int_equal(r->vm.amu.path, PV_AMU_PATH_TRAP);
		assert_true(r->v[0].traps.cptr_el2 & PV_CPTR_EL2_TAM);
		assert_false(r->v[0].traps.hcr_el2 & PV_HCR_EL2_AMVOFFEN);
		assert_int_equal(r->v[0].traps.hafgrtr_el2, 0);
	}
	/* No AMU for the VM: hidden and trapped. */
	assert_int_equal(rig_vm(r, 0, 0, 0), PV_OK);
	assert_true(r->v[0].traps.cptr_el2 & PV_CPTR_EL2_TAM);
	assert_false(r->v[0].traps.hcr_el2 & PV_HCR_EL2_AMVOFFEN);
	/* Firmware without SCR_EL3.AMVOFFEN: the integration clears voff, every VM traps. */
	r->hw.amuhw.voff = false;
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	assert_int_equal(r->vm.amu.path, PV_AMU_PATH_TRAP);
	free(r);

	/* AMUv1p1 without FEAT_FGT: CNT_CYCLES could not trap alone, so the trap path. */
	struct amu_hw_desc nofgt = V1P1;
	nofgt.fgt = false;
	r = rig_new(&nofgt);
	assert_false(r->hw.amuhw.voff);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	assert_int_equal(r->vm.amu.path, PV_AMU_PATH_TRAP);
	assert_int_equal(r->v[0].traps.hafgrtr_el2_owned, 0); /* no HAFGRTR_EL2 to write */
	free(r);
}

static void test_id_view(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	for (unsigned ver = 0; ver <= 2; ver++) {
		assert_int_equal(rig_vm(r, ver ? PV_FEAT_AMU : 0, ver, 0), PV_OK);
		uint64_t pfr0 = guest_mrs_ok(&r->v[0], PV_ID_AA64PFR0_EL1);
		assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_AMU), ver);
		assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL1_STATES),
				 2); /* untouched field */
	}
	free(r);
}

/* Identification and control registers, per the VM's view (trap path). */
static void test_views(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 3), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	assert_int_equal(guest_mrs_ok(v, PV_AMCFGR_EL0),
			 PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 |
				 PV_FIELD_PREP(PV_AMCFGR_NCG, UINT64_C(1)) | 6);
	assert_int_equal(guest_mrs_ok(v, PV_AMCGCR_EL0), 3u << 8 | 4);
	/* Counters 0..2 visible; 0 and 1 have offset registers in hardware, 2 has not. */
	assert_int_equal(guest_mrs_ok(v, PV_AMCG1IDR_EL0), 0x7u | 0x3u << 16);
	assert_int_equal(guest_mrs_ok(v, PV_AMCR_EL0), 0);
	assert_int_equal(guest_mrs_ok(v, PV_AMCNTENSET0_EL0), 0xF);
	assert_int_equal(guest_mrs_ok(v, PV_AMCNTENCLR0_EL0), 0xF);
	assert_int_equal(guest_mrs_ok(v, PV_AMCNTENSET1_EL0),
			 0x7);                             /* counter 3 is not the VM's */
	*memplat_reg(&r->mc[0], PV_AMCNTENSET0_EL0) = 0x5; /* firmware changed them */
	assert_int_equal(guest_mrs_ok(v, PV_AMCNTENCLR0_EL0), 0x5);
	static const uint64_t ev0[4] = {0x0011, 0x4004, 0x0008, 0x4005};
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(guest_mrs_ok(v, PV_AMEVTYPER0_EL0(n)), ev0[n]);
	for (unsigned n = 0; n < 3; n++)
		assert_int_equal(guest_mrs_ok(v, PV_AMEVTYPER1_EL0(n)), 0x0100 + n);
	/* Past the counters: UNDEFINED. */
	for (unsigned n = 4; n < 16; n++) {
		assert_int_equal(guest_mrs(v, PV_AMEVCNTR0_EL0(n), 1, NULL), PV_TRAP_UNDEF);
		assert_int_equal(guest_mrs(v, PV_AMEVTYPER0_EL0(n), 1, NULL), PV_TRAP_UNDEF);
	}
	for (unsigned n = 3; n < 16; n++) {
		assert_int_equal(guest_mrs(v, PV_AMEVCNTR1_EL0(n), 1, NULL), PV_TRAP_UNDEF);
		assert_int_equal(guest_mrs(v, PV_AMEVTYPER1_EL0(n), 1, NULL), PV_TRAP_UNDEF);
	}

	/* No auxiliary counter: one counter group, the group 1 registers UNDEFINED. */
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 0), PV_OK);
	v = &r->v[1];
	pv_vcpu_load(v, &r->cpu[1]);
	assert_int_equal(guest_mrs_ok(v, PV_AMCFGR_EL0),
			 PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 | 3);
	assert_int_equal(guest_mrs_ok(v, PV_AMCGCR_EL0), 4);
	assert_int_equal(guest_mrs_ok(v, PV_AMCG1IDR_EL0), 0);
	assert_int_equal(guest_mrs(v, PV_AMCNTENSET1_EL0, 1, NULL), PV_TRAP_UNDEF);
	assert_int_equal(guest_mrs(v, PV_AMCNTENCLR1_EL0, 1, NULL), PV_TRAP_UNDEF);
	assert_int_equal(guest_mrs(v, PV_AMEVCNTR1_EL0(0), 1, NULL), PV_TRAP_UNDEF);

	/* AMUv1: no AMCG1IDR_EL0. */
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 1, 2), PV_OK);
	assert_int_equal(guest_mrs(&r->v[2], PV_AMCG1IDR_EL0, 1, NULL), PV_TRAP_UNDEF);
	assert_int_equal(guest_mrs(&r->v[2], PV_AMCGCR_EL0, 1, NULL), PV_TRAP_HANDLED);
	free(r);
}

/* A guest writes nothing but AMUSERENR_EL0: every other MSR is UNDEFINED below the highest
 * EL (or has no MSR encoding), from EL0 and EL1; no hardware cell changes. */
static void test_writes_undef(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	guest_msr_ok(&r->v[0], PV_AMUSERENR_EL0, 1);
	uint64_t *before = malloc(sizeof(r->mc[0].reg));
	memcpy(before, r->mc[0].reg, sizeof(r->mc[0].reg));
	uint32_t keys[9 + 64];
	size_t n = all_keys(keys);
	for (size_t i = 0; i < n; i++) {
		if (keys[i] == PV_AMUSERENR_EL0)
			continue;
		assert_int_equal(guest_msr(&r->v[0], keys[i], 1, ~UINT64_C(0)), PV_TRAP_UNDEF);
		assert_int_equal(guest_msr(&r->v[0], keys[i], 0, 0), PV_TRAP_UNDEF);
	}
	assert_memory_equal(before, r->mc[0].reg, sizeof(r->mc[0].reg));
	free(before);
	free(r);
}

static void test_userenr_gate(void **state)
{
	(void)state;
	for (unsigned voff = 0; voff < 2; voff++) {
		struct amu_rig *r = rig_new(&V1P1);
		assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, voff ? 4 : 2), PV_OK);
		assert_int_equal(r->vm.amu.path, voff ? PV_AMU_PATH_VOFF : PV_AMU_PATH_TRAP);
		struct pv_vcpu *v = &r->v[0];
		pv_vcpu_load(v, &r->cpu[0]);
		uint64_t val;
		/* Reset: EN = 0. EL0 may read AMUSERENR_EL0 but nothing else, and never write it. */
		assert_int_equal(guest_mrs(v, PV_AMUSERENR_EL0, 0, &val), PV_TRAP_HANDLED);
		assert_int_equal(val, 0);
		assert_int_equal(guest_msr(v, PV_AMUSERENR_EL0, 0, 1), PV_TRAP_UNDEF);
		const uint32_t gated[] = {
			PV_AMCR_EL0,         PV_AMCFGR_EL0,       PV_AMCGCR_EL0,
			PV_AMCNTENSET0_EL0,  PV_AMCNTENCLR1_EL0,  PV_AMCG1IDR_EL0,
			PV_AMEVCNTR0_EL0(0), PV_AMEVCNTR0_EL0(1), PV_AMEVTYPER0_EL0(3),
			PV_AMEVCNTR1_EL0(1), PV_AMEVTYPER1_EL0(0)};
		for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++)
			assert_int_equal(guest_mrs(v, gated[i], 0, NULL), PV_TRAP_EL1_SYSREG);
		/* EL1 sets EN; bits [63:1] are RES0 and never reach hardware: all ones read back
		 * as the register database's RW bits, which are EN alone. */
		guest_msr_ok(v, PV_AMUSERENR_EL0, ~UINT64_C(0));
		assert_int_equal(guest_mrs_ok(v, PV_AMUSERENR_EL0), PV_AMUSERENR_EN);
		assert_int_equal(PV_BITS_AMUSERENR_EL0_RW(r->vm.amu.version, 0) |
					 PV_BITS_AMUSERENR_EL0_RES1(r->vm.amu.version, 0),
				 PV_AMUSERENR_EN);
		assert_int_equal(*memplat_reg(&r->mc[0], PV_AMUSERENR_EL0), PV_AMUSERENR_EN);
		for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++)
			assert_int_equal(guest_mrs(v, gated[i], 0, NULL), PV_TRAP_HANDLED);
		/* EN back to 0. On the trap path the hardware keeps EN = 1, so that EL0 accesses
		 * of registers the VM lacks reach EL2 and UNDEF; on the virtual-offset path the
		 * hardware holds the guest's value. */
		guest_msr_ok(v, PV_AMUSERENR_EL0, 0);
		assert_int_equal(*memplat_reg(&r->mc[0], PV_AMUSERENR_EL0),
				 voff ? 0 : PV_AMUSERENR_EN);
		assert_int_equal(guest_mrs(v, PV_AMEVCNTR0_EL0(2), 0, NULL),
				 PV_TRAP_EL1_SYSREG);
		if (!voff)
			assert_int_equal(guest_mrs(v, PV_AMEVCNTR1_EL0(3), 0, NULL),
					 PV_TRAP_UNDEF);
		free(r);
	}
}

/* A VM without the AMU: every AMU register UNDEFINED, at EL0 and EL1, read and write. */
static void test_hidden_undef(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(&V1P1);
	assert_int_equal(rig_vm(r, 0, 0, 0), PV_OK);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	uint32_t keys[9 + 64];
	size_t n = all_keys(keys);
	for (size_t i = 0; i < n; i++)
		for (unsigned el = 0; el < 2; el++) {
			assert_int_equal(guest_mrs(v, keys[i], el, NULL), PV_TRAP_UNDEF);
			assert_int_equal(guest_msr(v, keys[i], el, 0), PV_TRAP_UNDEF);
		}
	assert_true(v->stats.traps[PV_KIND_AMU] >= 4 * n);
	/* AMUSERENR_EL0.EN stays 1 in hardware: EL0 accesses of this VM reach CPTR_EL2.TAM. */
	assert_int_equal(*memplat_reg(&r->mc[0], PV_AMUSERENR_EL0), PV_AMUSERENR_EN);
	free(r);
}

/* The register table: every AMU register of D24.6 that a guest can name has its entry,
 * emulated, each family entry takes all 16 encodings with n = CRm[0]:Op2, and the EL2 offset
 * registers are not the guest's. */
static void test_table(void **state)
{
	(void)state;
	const uint32_t singles[] = {PV_AMCR_EL0,      PV_AMCFGR_EL0,      PV_AMCGCR_EL0,
				    PV_AMUSERENR_EL0, PV_AMCNTENCLR0_EL0, PV_AMCNTENSET0_EL0,
				    PV_AMCG1IDR_EL0,  PV_AMCNTENCLR1_EL0, PV_AMCNTENSET1_EL0};
	for (size_t i = 0; i < sizeof(singles) / sizeof(singles[0]); i++) {
		const struct pv_reg_desc *d = pv_reg_lookup(singles[i]);
		assert_non_null(d);
		assert_int_equal(d->kind, PV_KIND_AMU);
		assert_int_equal(d->feature, PV_FEAT_AMU);
		assert_non_null(d->read);
		assert_true(d->write == NULL || singles[i] == PV_AMUSERENR_EL0);
	}
	assert_int_equal(pv_reg_lookup(PV_AMCG1IDR_EL0)->min_version, PV_AMU_V1P1);
	const struct pv_reg_desc *fam[4] = {
		pv_reg_lookup(PV_AMEVCNTR0_EL0(0)), pv_reg_lookup(PV_AMEVTYPER0_EL0(0)),
		pv_reg_lookup(PV_AMEVCNTR1_EL0(0)), pv_reg_lookup(PV_AMEVTYPER1_EL0(0))};
	for (unsigned f = 0; f < 4; f++) {
		assert_non_null(fam[f]);
		/* n = 0..15 in the encoding; the VM decides which exist. */
		assert_int_equal(fam[f]->first, 0);
		assert_int_equal(fam[f]->last, 15);
		assert_int_equal(fam[f]->gate, f < 2 ? PV_GATE_AMEV0 : PV_GATE_AMEV1);
		assert_non_null(fam[f]->read);
		assert_null(fam[f]->write);
		for (unsigned g = 0; g < f; g++)
			assert_ptr_not_equal(fam[f], fam[g]);
	}
	for (unsigned n = 0; n < 16; n++) {
		assert_ptr_equal(pv_reg_lookup(PV_AMEVCNTR0_EL0(n)), fam[0]);
		assert_ptr_equal(pv_reg_lookup(PV_AMEVTYPER0_EL0(n)), fam[1]);
		assert_ptr_equal(pv_reg_lookup(PV_AMEVCNTR1_EL0(n)), fam[2]);
		assert_ptr_equal(pv_reg_lookup(PV_AMEVTYPER1_EL0(n)), fam[3]);
		assert_null(pv_reg_lookup(PV_AMEVCNTVOFF0_EL2(n)));
		assert_null(pv_reg_lookup(PV_AMEVCNTVOFF1_EL2(n)));
	}
	/* Op0=3 Op1=3 CRn=13 outside the AMU: CRm = 0 (TPIDR_EL0...), CRm 8..11 unallocated. */
	assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 13, 0, 2)));
	for (unsigned crm = 8; crm < 12; crm++)
		assert_null(pv_reg_lookup(PV_SYSREG(3, 3, 13, crm, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_path_and_trap_words),
		cmocka_unit_test(test_id_view),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_writes_undef),
		cmocka_unit_test(test_userenr_gate),
		cmocka_unit_test(test_hidden_undef),
	};
	return cmocka_run_group_tests_name("vamu_regs", tests, NULL, NULL);
}
