/* SPDX-License-Identifier: MIT */
/* vmpam CPU side: the guest's MPAMIDR_EL1, MPAM1_EL1 and MPAM0_EL1 handlers (called
 * directly), the EL2 controls and VPM values of a VM, and what load writes to the pCPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_vmpam_rig.h"

struct fx {
	struct rig *r;
	struct pv_vm_mpam vm;
	struct pv_vcpu v;
};

/* One memory MSC; PMG_MAX 3; `hcr`: the pCPU has MPAMHCR_EL2 with 8 VPM entries (else
 * MPAM2_EL2.TIDR); a VM with `n` virtual PARTIDs; host PARTIDs 0..9. */
static struct fx *fx_new(bool hcr, unsigned n)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->r = rig_new(CPU_IDR(255, 7, hcr, 1) | (hcr ? 0 : PV_MPAMIDR_HAS_TIDR));
	rig_msc(f->r, PV_VMPAM_MSC_MEMORY, 0, IDR(255, 3, 1, 0, 1), MBW_IDR(8, 0, 1), 0,
		MBWUMON_IDR(8, 0, 1, 1));
	assert_int_equal(rig_init(f->r, 10), 0);
	struct pv_vmpam_config c = {.nr_partids = (uint8_t)n};
	assert_int_equal(pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->vm, &c, true), 0);
	pv_vmpam_vcpu_attach(&f->v.mpam, &f->vm);
	f->v.plat = &f->r->mv;
	return f;
}

static void fx_free(struct fx *f)
{
	free(f->r);
	free(f);
}

static struct pv_vcpu *vcpu(struct fx *f)
{
	return &f->v;
}

static uint64_t hwreg(struct fx *f, uint32_t key)
{
	return *memplat_reg(&f->r->mc, key);
}

static void test_el2_controls(void **state)
{
	(void)state;
	/* With MPAMHCR_EL2: MPAM1/0_EL1 trap, MPAMIDR_EL1 traps through MPAMHCR, the VPM maps
	 * virtual PARTIDs 0..2 to the VM's physical ones, only those entries valid. */
	struct fx *f = fx_new(true, 3);
	const struct pv_vmpam_el2 *e = pv_vmpam_el2(&f->vm);
	assert_int_equal(e->mpam2_el2, PV_BIT(48) | PV_BIT(49));
	assert_true(e->mpam2_el2_owned & PV_BIT(48));
	assert_true(e->mpam2_el2_owned & PV_BIT(50)); /* EnMPAMSM = 0: MPAMSM_EL1 traps */
	assert_int_equal(e->mpamhcr_el2, PV_BIT(31) | PV_BIT(1) | PV_BIT(0));
	assert_false(e->mpamhcr_el2 & PV_BIT(8)); /* no GSTAPP_PLK */
	assert_int_equal(e->nvpm, 1);
	assert_int_equal(e->vpmv, 0x7);
	for (unsigned v = 0; v < 3; v++)
		assert_int_equal(e->vpm[0] >> (16 * v) & 0xFFFF, f->vm.partid[v]);
	assert_int_equal(e->vpm[0] >> 48, f->vm.partid[0]);
	for (unsigned v = 0; v < 3; v++)
		assert_true(f->vm.partid[v] >= 10); /* never the host's */
	fx_free(f);

	/* Five PARTIDs: two VPM registers. */
	f = fx_new(true, 5);
	e = pv_vmpam_el2(&f->vm);
	assert_int_equal(e->nvpm, 2);
	assert_int_equal(e->vpmv, 0x1F);
	assert_int_equal(e->vpm[1] & 0xFFFF, f->vm.partid[4]);
	fx_free(f);

	/* Without MPAMHCR_EL2: MPAMIDR_EL1 traps through MPAM2_EL2.TIDR; no VPM. */
	f = fx_new(false, 2);
	e = pv_vmpam_el2(&f->vm);
	assert_int_equal(e->mpam2_el2, PV_BIT(48) | PV_BIT(49) | PV_BIT(58));
	assert_int_equal(e->mpamhcr_el2, 0);
	assert_int_equal(e->mpamhcr_el2_owned, 0);
	assert_int_equal(e->nvpm, 0);
	fx_free(f);
}

static void test_mpamidr_view(void **state)
{
	(void)state;
	struct fx *f = fx_new(true, 3);
	uint64_t v = 0;
	assert_int_equal(pv_vmpam_mpamidr_read(vcpu(f), 0, 1, &v), PV_TRAP_HANDLED);
	/* PARTID_MAX = 2 (virtual), PMG_MAX = 3 (the least of pCPU 7 and MSC 3), no HAS_HCR,
	 * VPMR_MAX 0, and nothing else. */
	assert_int_equal(v, 2 | UINT64_C(3) << 32);
	fx_free(f);
}

static void test_guest_writes(void **state)
{
	(void)state;
	for (unsigned hcr = 0; hcr < 2; hcr++) {
		struct fx *f = fx_new(hcr, 3);
		struct pv_vmpam *s = &f->v.mpam;
		uint64_t v;
		/* Reset: virtual PARTID 0, the VM's default. */
		assert_int_equal(pv_vmpam_mpam1_read(vcpu(f), 0, 1, &v), PV_TRAP_HANDLED);
		assert_int_equal(v, PV_BIT(63)); /* MPAMEN */
		assert_int_equal(F_PD(s->hw_mpam1), hcr ? 0 : f->vm.partid[0]);
		/* In range: read back as written; the hardware gets the VM's PARTIDs. */
		assert_int_equal(pv_vmpam_mpam1_write(vcpu(f), 0, 1, MPAMN(1, 2, 3, 1)),
				 PV_TRAP_HANDLED);
		pv_vmpam_mpam1_read(vcpu(f), 0, 1, &v);
		assert_int_equal(v, MPAMN(1, 2, 3, 1) | PV_BIT(63));
		assert_int_equal(F_PI(s->hw_mpam1), hcr ? 1 : f->vm.partid[1]);
		assert_int_equal(F_PD(s->hw_mpam1), hcr ? 2 : f->vm.partid[2]);
		assert_int_equal(F_GI(s->hw_mpam1), 3);
		assert_int_equal(F_GD(s->hw_mpam1), 1);
		/* Out of range: the guest reads back what it wrote (label fields only); the
		 * hardware gets the default PARTID and PMG. */
		assert_int_equal(pv_vmpam_mpam0_write(vcpu(f), 0, 1, ~UINT64_C(0)),
				 PV_TRAP_HANDLED);
		pv_vmpam_mpam0_read(vcpu(f), 0, 1, &v);
		assert_int_equal(v, PV_GENMASK(47, 0));
		/* All ones read back as the register database says: its RW bits, and MPAM1_EL1's
		 * MPAMEN (RO, 1) beside them (Arm ARM D24.12). */
		assert_int_equal(v, PV_BITS_MPAM0_EL1_RW(1, 0));
		pv_vmpam_mpam1_write(vcpu(f), 0, 1, ~UINT64_C(0));
		pv_vmpam_mpam1_read(vcpu(f), 0, 1, &v);
		assert_int_equal(v, PV_GENMASK(47, 0) | PV_BIT(63));
		assert_int_equal(v, PV_BITS_MPAM1_EL1_RW(1, 0) | PV_BITS_MPAM1_EL1_RO(1, 0));
		pv_vmpam_mpam1_write(vcpu(f), 0, 1, 0);
		assert_int_equal(s->hw_mpam0, MPAMN(hcr ? 0 : f->vm.partid[0],
						    hcr ? 0 : f->vm.partid[0], 0, 0));
		pv_vmpam_mpam0_write(vcpu(f), 0, 1, MPAMN(3, 2, 4, 0));
		assert_int_equal(F_PI(s->hw_mpam0), hcr ? 0 : f->vm.partid[0]);
		assert_int_equal(F_PD(s->hw_mpam0), hcr ? 2 : f->vm.partid[2]);
		assert_int_equal(F_GI(s->hw_mpam0), 0);
		fx_free(f);
	}
}

static void test_load_and_live_writes(void **state)
{
	(void)state;
	struct fx *f = fx_new(true, 2);
	pv_vmpam_mpam1_write(vcpu(f), 0, 1, MPAMN(1, 1, 0, 0));
	assert_int_equal(hwreg(f, PV_MPAM1_EL1), 0); /* not loaded: no hardware access */
	f->v.cpu = &f->r->cpu;
	pv_vmpam_load(vcpu(f));
	assert_int_equal(hwreg(f, PV_MPAM1_EL1), MPAMN(1, 1, 0, 0));
	assert_int_equal(hwreg(f, PV_MPAM0_EL1), 0);
	assert_int_equal(hwreg(f, PV_MPAMVPM_EL2(0)), f->vm.el2.vpm[0]);
	assert_int_equal(hwreg(f, PV_MPAMVPMV_EL2), 0x3);
	/* A write while running reaches the hardware at once. */
	pv_vmpam_mpam0_write(vcpu(f), 0, 1, MPAMN(1, 0, 1, 1));
	assert_int_equal(hwreg(f, PV_MPAM0_EL1), MPAMN(1, 0, 1, 1));
	pv_vmpam_put(vcpu(f));
	fx_free(f);

	/* Trap-and-emulate: the physical PARTIDs go straight into MPAM1/0_EL1. */
	f = fx_new(false, 2);
	f->v.cpu = &f->r->cpu;
	pv_vmpam_mpam1_write(vcpu(f), 0, 1, MPAMN(1, 0, 0, 0));
	assert_int_equal(hwreg(f, PV_MPAM1_EL1), MPAMN(f->vm.partid[1], f->vm.partid[0], 0, 0));
	uint64_t writes = f->r->mc.writes;
	pv_vmpam_load(vcpu(f));
	assert_int_equal(f->r->mc.writes - writes, 2); /* MPAM1_EL1 and MPAM0_EL1 only */
	fx_free(f);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Whatever the guest writes, the hardware labels name only the VM's PARTIDs (virtual ones
 * below nr_partids with the VPM, its physical ones without) and PMGs within PMG_MAX. */
static void test_random_writes(void **state)
{
	(void)state;
	uint64_t seed = 0x1234567;
	for (unsigned hcr = 0; hcr < 2; hcr++) {
		for (unsigned n = 1; n <= 8; n += 3) {
			struct fx *f = fx_new(hcr, n);
			for (unsigned i = 0; i < 20000; i++) {
				uint64_t val = rnd(&seed);
				if (i & 1)
					val &= 0x0303000700070ull; /* small values too */
				bool el1 = rnd(&seed) & 1;
				(el1 ? pv_vmpam_mpam1_write : pv_vmpam_mpam0_write)(vcpu(f), 0,
										    1, val);
				uint64_t hw = el1 ? f->v.mpam.hw_mpam1 : f->v.mpam.hw_mpam0;
				assert_int_equal(hw >> 48, 0);
				unsigned p[2] = {F_PI(hw), F_PD(hw)};
				for (unsigned k = 0; k < 2; k++) {
					bool ok = false;
					for (unsigned v = 0; v < n; v++)
						ok |= p[k] == (hcr ? v : f->vm.partid[v]);
					assert_true(ok);
				}
				assert_true(F_GI(hw) <= 3 && F_GD(hw) <= 3);
			}
			fx_free(f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_el2_controls),
		cmocka_unit_test(test_mpamidr_view),
		cmocka_unit_test(test_guest_writes),
		cmocka_unit_test(test_load_and_live_writes),
		cmocka_unit_test(test_random_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
