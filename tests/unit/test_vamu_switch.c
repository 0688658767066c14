/* SPDX-License-Identifier: MIT */
/*
 * vAMU switching on the plain-memory platform, where the test moves the "hardware" counters
 * itself: a vCPU's counters advance only while it is loaded and continue across switches,
 * migrations, 64-bit wrap and CPU power-down; the virtual-offset path programs exactly the
 * offset registers that exist (never AMEVCNTVOFF01_EL2); and the two paths give a guest the
 * same value for every read of the same physical history.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "guest_trap.h"
#include "test_vamu_rig.h"

#define SENTINEL UINT64_C(0xA5A5A5A5A5A5A5A5)

/* AMUv1p1, FEAT_FGT, four auxiliary counters; counter 2 has no AMEVCNTVOFF12_EL2. */
static const struct amu_hw_desc HW = {.version = 2, .aux = 4, .voff = 0xB, .fgt = true};

static struct amu_rig *rig_new(bool voff_path)
{
	struct amu_rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(rig_init(r, &HW), PV_OK);
	if (!voff_path)
		r->hw.amuhw.voff = false;
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	assert_int_equal(r->vm.amu.path, voff_path ? PV_AMU_PATH_VOFF : PV_AMU_PATH_TRAP);
	for (unsigned c = 0; c < RIG_CPUS; c++)
		for (unsigned k = 0; k < 8; k++)
			*rig_voff(r, c, k) = SENTINEL;
	return r;
}

static uint64_t trap_read(struct pv_vcpu *v, unsigned k)
{
	return guest_mrs_ok(v, k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4));
}

/* What a guest at EL1 reads for counter k of loaded vCPU v. On the virtual-offset path the
 * hardware answers a counter with an offset register itself, PCount - AMEVCNTVOFF<g><n>_EL2
 * (Arm ARM D24.6.9/10, HCR_EL2.AMVOFFEN = 1); the others trap (HAFGRTR_EL2). */
static uint64_t guest_read(struct amu_rig *r, unsigned c, struct pv_vcpu *v, unsigned k)
{
	bool direct = r->vm.amu.path == PV_AMU_PATH_VOFF && (r->vm.amu.voff >> k & 1);
	if (direct) {
		assert_false(v->traps.hafgrtr_el2 &
			     (k < 4 ? PV_HAFGRTR_AMEVCNTR0(k) : PV_HAFGRTR_AMEVCNTR1(k - 4)));
		return *rig_cntr(r, c, k) - *rig_voff(r, c, k);
	}
	if (r->vm.amu.path == PV_AMU_PATH_VOFF)
		assert_true(v->traps.hafgrtr_el2 &
			    (k < 4 ? PV_HAFGRTR_AMEVCNTR0(k) : PV_HAFGRTR_AMEVCNTR1(k - 4)));
	return trap_read(v, k);
}

static void advance(struct amu_rig *r, unsigned c, const uint64_t *d)
{
	for (unsigned k = 0; k < 8; k++)
		*rig_cntr(r, c, k) += d[k];
}

static void test_own_activity_only(void **state)
{
	(void)state;
	for (unsigned path = 0; path < 2; path++) {
		struct amu_rig *r = rig_new(path);
		/* Counters run from power-on; pCPU 1 has counted far more and is about to wrap. */
		for (unsigned k = 0; k < 8; k++) {
			*rig_cntr(r, 0, k) = 1000000u * (k + 1);
			*rig_cntr(r, 1, k) = UINT64_MAX - 500 + k;
		}
		struct pv_vcpu *a = &r->v[0], *b = &r->v[1];
		const uint64_t d1[8] = {700, 35, 500, 90, 1, 2, 3, 4};
		const uint64_t d2[8] = {10000, 400, 8000, 1000, 10, 20, 30, 40};
		const uint64_t d3[8] = {900, 45, 600, 80, 5, 6, 7, 8};
		pv_vcpu_load(a, &r->cpu[0]);
		for (unsigned k = 0; k < 8; k++)
			assert_int_equal(guest_read(r, 0, a, k), 0); /* a vCPU starts at 0 */
		advance(r, 0, d1);
		for (unsigned k = 0; k < 8; k++)
			assert_int_equal(guest_read(r, 0, a, k), d1[k]);
		pv_vcpu_put(a);
		advance(r, 0, d2); /* the hypervisor, or nobody: not a's */
		pv_vcpu_load(b, &r->cpu[0]);
		advance(r, 0, d2);
		for (unsigned k = 0; k < 8; k++)
			assert_int_equal(guest_read(r, 0, b, k), d2[k]);
		pv_vcpu_put(b);
		/* a migrates to pCPU 1, whose counters wrap while it runs (64-bit, no overflow). */
		pv_vcpu_load(a, &r->cpu[1]);
		for (unsigned k = 0; k < 8; k++)
			assert_int_equal(guest_read(r, 1, a, k), d1[k]);
		advance(r, 1, d3);
		for (unsigned k = 0; k < 8; k++) {
			assert_int_equal(guest_read(r, 1, a, k), d1[k] + d3[k]);
			assert_int_equal(pv_vamu_counter(a, k), d1[k] + d3[k]);
			assert_int_equal(pv_vamu_counter(b, k), d2[k]); /* b, not loaded */
		}
		pv_vcpu_put(a);
		for (unsigned k = 0; k < 8; k++)
			assert_int_equal(pv_vamu_counter(a, k), d1[k] + d3[k]);
		free(r);
	}
}

/* Exactly the offset registers that exist are written: AMEVCNTVOFF0<n>_EL2 for n = 0, 2, 3
 * and AMEVCNTVOFF1<n>_EL2 per AMCG1IDR_EL0; never a counter or an enable. */
static void test_offset_registers(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(true);
	uint64_t en0 = *memplat_reg(&r->mc[0], PV_AMCNTENSET0_EL0);
	uint64_t en1 = *memplat_reg(&r->mc[0], PV_AMCNTENSET1_EL0);
	for (unsigned k = 0; k < 8; k++)
		*rig_cntr(r, 0, k) = 77 * k + 5;
	r->v[0].amu.val[0] = 3; /* as if it had run before */
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	for (unsigned k = 0; k < 8; k++) {
		bool exists = k != 1 && k != 4 + 2;
		uint64_t want = exists ? 77 * k + 5 - (k == 0 ? 3 : 0) : SENTINEL;
		assert_int_equal(*rig_voff(r, 0, k), want);
		assert_int_equal(*rig_cntr(r, 0, k), 77 * k + 5);
	}
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_AMCNTENSET0_EL0), en0);
	assert_int_equal(*memplat_reg(&r->mc[0], PV_AMCNTENSET1_EL0), en1);
	assert_int_equal(*rig_voff(r, 0, 1), SENTINEL);
	/* The trap path writes no offset register at all. */
	struct amu_rig *t = rig_new(false);
	pv_vcpu_load(&t->v[0], &t->cpu[0]);
	pv_vcpu_put(&t->v[0]);
	for (unsigned k = 0; k < 8; k++)
		assert_int_equal(*rig_voff(t, 0, k), SENTINEL);
	free(t);
	free(r);
}

/* The two paths, fed the same physical history, give a guest the same value for every read
 * (and the value is the vCPU's own activity): random switches, migrations, reads and CPU
 * power-downs with and without firmware keeping the counters. */
static void test_paths_agree(void **state)
{
	(void)state;
	struct amu_rig *rig[2] = {rig_new(true), rig_new(false)};
	uint64_t want[4][8] = {{0}};
	int on[RIG_CPUS] = {-1, -1}; /* vCPU loaded on each pCPU */
	uint64_t rng = 12345;
	unsigned reads = 0, moves = 0, powers = 0;
	for (unsigned c = 0; c < RIG_CPUS; c++)
		for (unsigned k = 0; k < 8; k++)
			for (unsigned i = 0; i < 2; i++)
				*rig_cntr(rig[i], c, k) = UINT64_MAX -
							  100000 * (c + 1) * (k + 1);
	for (unsigned step = 0; step < 20000; step++) {
		rng = rng * 6364136223846793005u + 1442695040888963407u;
		unsigned r = (unsigned)(rng >> 33), c = r % RIG_CPUS, what = (r >> 4) % 100;
		if (what < 40) {
			uint64_t d[8];
			for (unsigned k = 0; k < 8; k++)
				d[k] = (rng >> (k * 5)) % 5000;
			for (unsigned i = 0; i < 2; i++)
				advance(rig[i], c, d);
			if (on[c] >= 0)
				for (unsigned k = 0; k < 8; k++)
					want[on[c]][k] += d[k];
		} else if (what < 60) {
			unsigned v = (r >> 12) % 3;
			for (unsigned i = 0; i < 2; i++)
				pv_vcpu_load(&rig[i]->v[v], &rig[i]->cpu[c]);
			for (unsigned o = 0; o < RIG_CPUS; o++)
				if (on[o] == (int)v && o != c) {
					on[o] = -1;
					moves++;
				}
			on[c] = (int)v;
		} else if (what < 70) {
			if (on[c] >= 0)
				for (unsigned i = 0; i < 2; i++)
					pv_vcpu_put(&rig[i]->v[on[c]]);
			on[c] = -1;
		} else if (what < 97) {
			if (on[c] < 0)
				continue;
			for (unsigned k = 0; k < 8; k++) {
				uint64_t a = guest_read(rig[0], c, &rig[0]->v[on[c]], k);
				uint64_t b = guest_read(rig[1], c, &rig[1]->v[on[c]], k);
				assert_int_equal(a, b);
				assert_int_equal(a, want[on[c]][k]);
				reads++;
			}
		} else {
			/* Power-down: the offset registers and AMUSERENR_EL0 come back UNKNOWN; the
			 * counters come back as they were, or at 0. */
			bool keep = r & 1;
			for (unsigned i = 0; i < 2; i++) {
				pv_pcpu_suspend(&rig[i]->cpu[c]);
				for (unsigned k = 0; k < 8; k++) {
					if (!keep)
						*rig_cntr(rig[i], c, k) = 0;
					if (*rig_voff(rig[i], c, k) != SENTINEL)
						*rig_voff(rig[i], c, k) ^= rng;
				}
				*memplat_reg(&rig[i]->mc[c], PV_AMUSERENR_EL0) = 0;
				pv_pcpu_resume(&rig[i]->cpu[c]);
			}
			powers++;
		}
	}
	assert_true(reads > 10000 && moves > 100 && powers > 50);
	for (unsigned c = 0; c < RIG_CPUS; c++)
		assert_int_equal(*rig_voff(rig[0], c, 1), SENTINEL); /* AMEVCNTVOFF01_EL2 */
	free(rig[0]);
	free(rig[1]);
}

/* On the virtual-offset path the guest's EL1 writes AMUSERENR_EL0 directly: put saves it,
 * leaves EN = 1 for whoever runs next, and load gives it back. */
static void test_userenr_follows_vcpu(void **state)
{
	(void)state;
	struct amu_rig *r = rig_new(true);
	uint64_t *hw = memplat_reg(&r->mc[0], PV_AMUSERENR_EL0);
	assert_int_equal(*hw, PV_AMUSERENR_EN); /* pv_pcpu_setup */
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	assert_int_equal(*hw, 0); /* the vCPU's reset value */
	*hw = PV_AMUSERENR_EN;    /* guest MSR AMUSERENR_EL0 at EL1, not trapped */
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(*hw, PV_AMUSERENR_EN);
	pv_vcpu_load(&r->v[1], &r->cpu[0]);
	assert_int_equal(*hw, 0);
	pv_vcpu_put(&r->v[1]);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	assert_int_equal(*hw, PV_AMUSERENR_EN);
	free(r);
}

/* A vCPU of a VM without the AMU costs nothing at switch; neither does the trap path touch
 * AMUSERENR_EL0 or any offset. */
static void test_switch_costs(void **state)
{
	(void)state;
	struct amu_rig *r = calloc(1, sizeof(*r));
	assert_int_equal(rig_init(r, &HW), PV_OK);
	assert_int_equal(rig_vm(r, 0, 0, 0), PV_OK);
	r->mc[0].reads = r->mc[0].writes = 0;
	for (unsigned i = 0; i < 10; i++) {
		pv_vcpu_load(&r->v[i & 1], &r->cpu[0]);
		pv_vcpu_put(&r->v[i & 1]);
	}
	assert_int_equal(r->mc[0].reads + r->mc[0].writes, 0);
	r->hw.amuhw.voff = false;
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 4), PV_OK);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	pv_vcpu_put(&r->v[0]);
	assert_int_equal(r->mc[0].reads, 2 * 8); /* each counter at load and at put */
	assert_int_equal(r->mc[0].writes, 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_activity_only),
		cmocka_unit_test(test_offset_registers),
		cmocka_unit_test(test_paths_agree),
		cmocka_unit_test(test_userenr_follows_vcpu),
		cmocka_unit_test(test_switch_costs),
	};
	return cmocka_run_group_tests_name("vamu_switch", tests, NULL, NULL);
}
