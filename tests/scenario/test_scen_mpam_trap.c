/* SPDX-License-Identifier: MIT */
/*
 * MPAM through the whole library: a VM given PV_FEAT_MPAM on a machine whose MSCs vmpam
 * manages (pv_hw.mpam_sys) sees MPAM in its ID registers, its MPAMIDR_EL1 view, and whatever
 * it writes to MPAM1_EL1/MPAM0_EL1 through pv_trap, its traffic carries only its own
 * PARTIDs. A VM not given MPAM still gets a PARTID of its own, and its MPAM registers UNDEF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "mpamscen.h"
#include "perfvisor/mpam_regs.h"
#include "perfvisor/trap.h"

static uint64_t esr(uint32_t key, unsigned rt, bool read)
{
	return ((uint64_t)PV_EC_SYS64 << PV_ESR_EC_SHIFT) | PV_ESR_IL | key |
	       (uint64_t)rt << 5 | (read ? 1u : 0u);
}

struct rig {
	struct mscen *s;
	struct pv_hw hw;
	struct pv_vm vm[2];
	struct pv_vcpu v[2];
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct mscen_config c = mscen_default();
	c.nodes = 2;
	r->s = mscen_new(&c);
	assert_non_null(r->s);
	/* The machine as pv_hw_probe saw it, plus MPAM and the MSC management. */
	r->hw = r->s->m->hw;
	r->hw.id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)] |= PV_FIELD_PREP(PV_ID_AA64PFR0_MPAM,
								  UINT64_C(1));
	r->hw.mpam = true;
	r->hw.mpamidr = c.cpu_mpamidr;
	r->hw.mpam_sys = &r->s->sys;
	r->hw.mpam_cpu = r->s->cpu;
	return r;
}

/* The label the vCPU's traffic carries at `el`: the CPU model fed with what the hypervisor
 * loads (the VM's EL2 controls) and what the library put in MPAM1/0_EL1. */
static struct sim_mpam_label label(const struct rig *r, unsigned i, unsigned el)
{
	const struct pv_vmpam_el2 *e = pv_vmpam_el2(&r->vm[i].mpam);
	struct sim_mpam_cpu c;
	sim_mpam_cpu_init(&c, r->hw.mpamidr);
	c.mpam2 = e->mpam2_el2;
	if (r->hw.mpamidr & PV_MPAMIDR_HAS_HCR) {
		c.mpamhcr = e->mpamhcr_el2;
		c.vpmv = e->vpmv;
		for (unsigned k = 0; k < 8; k++)
			c.vpm[k] = e->vpm[k];
	}
	c.mpam1 = r->v[i].mpam.hw_mpam1;
	c.mpam0 = r->v[i].mpam.hw_mpam0;
	return sim_mpam_cpu_label(&c, el, false);
}

static void rig_free(struct rig *r)
{
	mscen_free(r->s);
	free(r);
}

static void test_given_mpam(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	struct pv_vm_config cfg = {.features = PV_FEAT_MPAM};
	cfg.mpam.nr_partids = 4;
	assert_int_equal(pv_vm_init(&r->vm[0], &r->hw, &cfg), PV_OK);
	assert_true(r->vm[0].mpam.visible);
	pv_vcpu_init(&r->v[0], &r->vm[0], 0, NULL);
	pv_vcpu_load(&r->v[0], r->s->cpu);
	uint64_t x[31] = {0};

	assert_int_equal(pv_trap(&r->v[0], esr(PV_ID_AA64PFR0_EL1, 1, true), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(PV_ID_FIELD(x[1], PV_ID_AA64PFR0_MPAM), 1);
	assert_int_equal(pv_trap(&r->v[0], esr(PV_MPAMIDR_EL1, 2, true), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(x[2] & 0xFFFF, 3); /* PARTID_MAX: virtual PARTIDs 0..3 */
	assert_false(x[2] & PV_MPAMIDR_HAS_HCR);

	/* Its EL2 controls trap MPAM0/1_EL1 whatever the hardware maps. */
	assert_true(r->v[0].traps.mpam2_el2 & PV_MPAM2_EL2_TRAPMPAM1EL1);
	assert_true(r->v[0].traps.mpam2_el2 & PV_MPAM2_EL2_TRAPMPAM0EL1);

	/* MPAMIDR_EL1, MPAM1_EL1 and MPAM0_EL1 are EL1 registers: UNDEFINED at EL0 either way,
	 * and an EL0 write changes nothing. */
	static const uint32_t el1_only[] = {PV_MPAMIDR_EL1, PV_MPAM1_EL1, PV_MPAM0_EL1};
	x[4] = 0;
	assert_int_equal(pv_trap(&r->v[0], esr(PV_MPAM0_EL1, 4, true), 1, x), PV_TRAP_HANDLED);
	uint64_t mpam0 = x[4];
	for (size_t i = 0; i < sizeof(el1_only) / sizeof(el1_only[0]); i++) {
		x[3] = ~UINT64_C(0);
		assert_int_equal(pv_trap(&r->v[0], esr(el1_only[i], 3, true), 0, x),
				 PV_TRAP_UNDEF);
		assert_int_equal(pv_trap(&r->v[0], esr(el1_only[i], 3, false), 0, x),
				 PV_TRAP_UNDEF);
	}
	assert_int_equal(pv_trap(&r->v[0], esr(PV_MPAM0_EL1, 4, true), 1, x), PV_TRAP_HANDLED);
	assert_int_equal(x[4], mpam0);

	/* Random guest writes: the guest reads back what it wrote, and the label its traffic
	 * carries is always one of its own PARTIDs (virtual PARTIDs beyond 3 fall back to 0). */
	srand(7);
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t val = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^
			       (unsigned)rand();
		uint32_t key = i & 1 ? PV_MPAM1_EL1 : PV_MPAM0_EL1;
		x[3] = val;
		assert_int_equal(pv_trap(&r->v[0], esr(key, 3, false), 1, x), PV_TRAP_HANDLED);
		assert_int_equal(pv_trap(&r->v[0], esr(key, 4, true), 1, x), PV_TRAP_HANDLED);
		for (unsigned el = 0; el < 2; el++) {
			struct sim_mpam_label l = label(r, 0, el);
			bool own = false;
			for (unsigned p = 0; p < r->vm[0].mpam.nr_partids; p++)
				own |= l.partid == r->vm[0].mpam.partid[p];
			assert_true(own);
			assert_false(l.err);
		}
	}
	pv_vcpu_put(&r->v[0]);
	rig_free(r);
}

static void test_not_given_mpam(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	struct pv_vm_config cfg = {.features = 0};
	assert_int_equal(pv_vm_init(&r->vm[0], &r->hw, &cfg), PV_OK);
	assert_false(r->vm[0].mpam.visible);
	assert_non_null(r->vm[0].mpam.sys); /* a PARTID of its own all the same */
	pv_vcpu_init(&r->v[0], &r->vm[0], 0, NULL);
	pv_vcpu_load(&r->v[0], r->s->cpu);
	uint64_t x[31] = {0};
	assert_int_equal(pv_trap(&r->v[0], esr(PV_ID_AA64PFR0_EL1, 1, true), 1, x),
			 PV_TRAP_HANDLED);
	assert_int_equal(PV_ID_FIELD(x[1], PV_ID_AA64PFR0_MPAM), 0);
	const uint32_t keys[] = {PV_MPAMIDR_EL1, PV_MPAM1_EL1, PV_MPAM0_EL1, PV_MPAMSM_EL1};
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(pv_trap(&r->v[0], esr(keys[i], 0, true), 1, x), PV_TRAP_UNDEF);
		assert_int_equal(pv_trap(&r->v[0], esr(keys[i], 0, false), 1, x),
				 PV_TRAP_UNDEF);
	}
	/* Two VMs never share a PARTID. */
	assert_int_equal(pv_vm_init(&r->vm[1], &r->hw, &cfg), PV_OK);
	assert_int_not_equal(r->vm[0].mpam.partid[0], r->vm[1].mpam.partid[0]);
	pv_vcpu_put(&r->v[0]);
	rig_free(r);
}

static void test_mpam_needs_msc_management(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	r->hw.mpam_sys = NULL;
	struct pv_vm_config cfg = {.features = PV_FEAT_MPAM};
	assert_int_equal(pv_vm_init(&r->vm[0], &r->hw, &cfg), PV_ERR_MPAM_SYS);
	assert_string_not_equal(pv_strerror(PV_ERR_MPAM_SYS), "unknown error");
	assert_string_not_equal(pv_strerror(PV_VMPAM_ERR_NO_PARTID), "unknown error");
	rig_free(r);
}

/* MPAM hardware whose MSCs no one manages (no pv_hw.mpam_sys): a VM not given MPAM still
 * cannot label its traffic. Its trap words send every EL1 access to MPAM1_EL1 and MPAM0_EL1
 * to EL2 (MPAM2_EL2.TRAPMPAM1EL1, TRAPMPAM0EL1), as the CPU model's routing decides, where
 * the register UNDEFs. */
static void test_unmanaged_mpam_traps(void **state)
{
	(void)state;
	struct rig *r = rig_new();
	r->hw.mpam_sys = NULL;
	struct pv_vm_config cfg = {.features = 0};
	assert_int_equal(pv_vm_init(&r->vm[0], &r->hw, &cfg), PV_OK);
	pv_vcpu_init(&r->v[0], &r->vm[0], 0, NULL);
	const struct pv_trap_words *w = &r->v[0].traps;
	struct sim_mpam_cpu c;
	sim_mpam_cpu_init(&c, r->hw.mpamidr);
	c.mpam2 = w->mpam2_el2;
	if (r->hw.mpamidr & PV_MPAMIDR_HAS_HCR)
		c.mpamhcr = w->mpamhcr_el2;
	assert_true(sim_mpam_cpu_traps(&c, PV_MPAM1_EL1));
	assert_true(sim_mpam_cpu_traps(&c, PV_MPAM0_EL1));
	assert_true(w->mpam2_el2_owned & PV_MPAM2_EL2_TRAPMPAM1EL1);
	uint64_t x[31] = {0};
	assert_int_equal(pv_trap(&r->v[0], esr(PV_MPAM1_EL1, 0, false), 1, x), PV_TRAP_UNDEF);
	pv_vcpu_release(&r->v[0]);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_given_mpam),
		cmocka_unit_test(test_not_given_mpam),
		cmocka_unit_test(test_mpam_needs_msc_management),
		cmocka_unit_test(test_unmanaged_mpam_traps),
	};
	return cmocka_run_group_tests_name("scen_mpam_trap", tests, NULL, NULL);
}
