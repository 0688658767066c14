/* SPDX-License-Identifier: MIT */
/*
 * vmpam on the MSC model, checked against the model's ground truth: exact bytes per VM per
 * node while monitors suffice (several channels summed), 31-bit counters wrapping more than
 * once a tick at high bandwidth, NRDY stuck reported as not ready, caps that throttle, cache
 * portions, PARTID exhaustion, and random guest MPAM register writes that never put a foreign
 * or out-of-range PARTID on the bus.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "perfvisor/mpam_regs.h"
#include "perfvisor/trap.h"
#include "tests/scenario/mpamscen.h"

#define MS 1000000ull
#define GB 1000000000ull

/* Every live VM's reading on every node equals the truth, measured, with no bound. */
static void expect_exact(struct mscen *s)
{
	for (unsigned i = 0; i < s->nvms; i++) {
		if (!s->live[i])
			continue;
		for (unsigned n = 0; n < s->cfg.nodes; n++) {
			struct pv_vmpam_reading rd;
			assert_int_equal(pv_vmpam_read(&s->sys, &s->vm[i], n, &rd),
					 PV_VMPAM_MEASURED);
			if (rd.bytes != mscen_truth(s, i, n))
				fail_msg("VM %u node %u: %llu bytes, truth %llu", i, n,
					 (unsigned long long)rd.bytes,
					 (unsigned long long)mscen_truth(s, i, n));
			assert_int_equal(rd.bound, 0);
		}
	}
}

/* VM i: a varying load on every node. */
static void vary(struct mscen *s, unsigned i, uint64_t base)
{
	struct sim_tgen *g = &s->gen[i];
	for (unsigned n = 0; n < s->cfg.nodes; n++)
		g->rate[n] = base * (n + 1 + i % 3);
	g->pattern = (uint8_t)(i % 4);
	g->depth = g->pattern == SIM_TRAFFIC_ONOFF ? 0.2 : 0.4;
	g->period_ns = 300 * MS + 70 * MS * i;
	g->noise = 0.1;
	g->read_pct = (uint8_t)(30 + 10 * (i % 5));
}

static void test_exact_dedicated(void **state)
{
	(void)state;
	struct mscen_config c = mscen_default();
	c.nodes = 2;
	c.channels = 3;
	c.longc = true;
	c.lwd = false; /* 44-bit */
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	for (unsigned i = 0; i < 8; i++) {
		struct pv_vmpam_config vc = {.nr_partids = (uint8_t)(1 + i % 2)};
		assert_int_equal(mscen_add_vm(s, &vc, true), (int)i);
		vary(s, i, GB / 2);
	}
	assert_false(s->sys.node[0].rotating);
	/* The monitors are ready before the VMs run (vm_init, then the first run). */
	mscen_run(s, 10 * MS, MS, 10 * MS);
	for (unsigned i = 0; i < 8; i++)
		s->gen[i].active = true;
	struct pv_vmpam_reading a[8], b[8];
	for (unsigned round = 0; round < 20; round++) {
		mscen_run(s, 100 * MS, MS, 10 * MS);
		expect_exact(s);
		/* Rates between readings are exact too. */
		for (unsigned i = 0; i < 8; i++) {
			pv_vmpam_read(&s->sys, &s->vm[i], 1, &b[i]);
			if (round) {
				struct pv_vmpam_rate r;
				assert_int_equal(pv_vmpam_rate(&a[i], &b[i], &r),
						 PV_VMPAM_MEASURED);
				assert_int_equal(r.bound, 0);
				assert_int_equal(r.ns, 100 * MS);
				assert_int_equal(r.bytes_per_s, (b[i].bytes - a[i].bytes) * 10);
			}
			a[i] = b[i];
		}
	}
	assert_true(mscen_truth(s, 0, 0) > GB / 4);
	/* A VM created later is exact from its start too. */
	struct pv_vmpam_config one = {0};
	int late = mscen_add_vm(s, &one, false);
	assert_true(late >= 0);
	mscen_run(s, 10 * MS, MS, 10 * MS);
	vary(s, (unsigned)late, GB);
	s->gen[late].active = true;
	mscen_run(s, 100 * MS, MS, 10 * MS);
	mscen_run(s, 200 * MS, MS, 10 * MS);
	expect_exact(s);
	assert_int_equal(mscen_msc_errors(s), 0);
	mscen_free(s);
}

static void test_wrap_high_bandwidth(void **state)
{
	(void)state;
	/* 31-bit counters at 300 GB/s, read every 10 ms: 3 GB between reads, more than 2^31. */
	struct mscen_config c = mscen_default();
	c.longc = false;
	c.capacity = 400 * GB;
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	struct pv_vmpam_config one = {0};
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(mscen_add_vm(s, &one, true), (int)i);
		s->gen[i].rate[0] = i ? 300 * GB : 5 * GB;
	}
	mscen_run(s, 10 * MS, MS, 10 * MS);
	s->gen[0].active = s->gen[1].active = true;
	for (unsigned round = 0; round < 10; round++) {
		mscen_run(s, 50 * MS, MS, 10 * MS);
		expect_exact(s);
	}
	assert_true(mscen_truth(s, 1, 0) > 100 * GB);
	assert_true(s->sys.stats.wraps >= 50);
	mscen_free(s);
}

static void test_nrdy_stuck(void **state)
{
	(void)state;
	struct mscen_config c = mscen_default();
	c.channels = 2;
	c.mons = 8;
	c.partid_max = 63;
	c.pmg_max = 1;
	c.cpu_mpamidr = 63 | UINT64_C(1) << 32; /* no HAS_HCR */
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	struct pv_vmpam_config one = {0};
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(mscen_add_vm(s, &one, true), (int)i);
		s->gen[i].rate[0] = GB;
	}
	mscen_run(s, 10 * MS, MS, 10 * MS);
	for (unsigned i = 0; i < 3; i++)
		s->gen[i].active = true;
	mscen_run(s, 50 * MS, MS, 10 * MS);
	expect_exact(s);
	/* VM 1 holds slot 1; its monitor on the second channel sticks at NRDY. */
	assert_int_equal(s->sys.node[0].slot[1] >> 5, 1);
	sim_msc_stick_nrdy(&s->msc[0], 1, 1, true);
	mscen_run(s, 50 * MS, MS, 10 * MS);
	struct pv_vmpam_reading rd;
	assert_int_equal(pv_vmpam_read(&s->sys, &s->vm[1], 0, &rd), PV_VMPAM_NOT_READY);
	assert_int_equal(rd.bytes, 0);
	assert_int_equal(pv_vmpam_read(&s->sys, &s->vm[0], 0, &rd), PV_VMPAM_MEASURED);
	assert_int_equal(rd.bytes, mscen_truth(s, 0, 0));
	assert_true(s->sys.stats.not_ready >= 5);
	/* Unstuck (the counter kept counting): exact again. */
	sim_msc_stick_nrdy(&s->msc[0], 1, 1, false);
	mscen_run(s, 20 * MS, MS, 10 * MS);
	expect_exact(s);
	mscen_free(s);
}

static void test_caps_throttle(void **state)
{
	(void)state;
	/* 10 GB/s over two channels; VM 0 capped at 20 % (MBW_MAX 51/256 of each channel),
	 * VM 1 uncapped, VM 2 capped at 50 % but asking for little. */
	struct mscen_config c = mscen_default();
	c.channels = 2;
	c.capacity = 10 * GB;
	c.cache = true;
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	struct pv_vmpam_config capped = {.mbw_max = {20}, .cpbm = {0x000F}};
	struct pv_vmpam_config free_ = {.cpbm = {0x0FF0}};
	struct pv_vmpam_config half = {.mbw_max = {50}};
	assert_int_equal(mscen_add_vm(s, &capped, true), 0);
	assert_int_equal(mscen_add_vm(s, &free_, true), 1);
	assert_int_equal(mscen_add_vm(s, &half, true), 2);
	s->gen[0].rate[0] = 8 * GB;
	s->gen[1].rate[0] = 8 * GB;
	s->gen[2].rate[0] = GB;
	mscen_run(s, 10 * MS, MS, 10 * MS);
	for (unsigned i = 0; i < 3; i++)
		s->gen[i].active = true;
	mscen_run(s, 1000 * MS, MS, 10 * MS);
	expect_exact(s);
	double frac = 51.0 / 256; /* the nearest 8-bit fraction to 20 % */
	uint64_t t0 = mscen_truth(s, 0, 0), t1 = mscen_truth(s, 1, 0),
		 t2 = mscen_truth(s, 2, 0);
	assert_true(t0 <= (uint64_t)(frac * 10 * GB) + 1000 &&
		    t0 >= (uint64_t)(frac * 10 * GB * 0.999));
	assert_true(s->gen[0].demanded[0] > 3 * t0);
	/* The rest is shared in proportion to demand (8 : 1), VM 2 being under its cap. */
	assert_true(t0 + t1 + t2 >= 10 * GB * 999 / 1000);
	assert_true(t1 > 79 * t2 / 10 && t1 < 81 * t2 / 10);
	/* Lifting the cap live: VM 0 gets half of the contended bandwidth. */
	struct pv_vmpam_config lifted = {.cpbm = {0x000F}};
	assert_int_equal(pv_vmpam_vm_set_limits(&s->sys, s->cpu, &s->vm[0], &lifted), 0);
	mscen_run(s, 1000 * MS, MS, 10 * MS);
	uint64_t d0 = mscen_truth(s, 0, 0) - t0, d1 = mscen_truth(s, 1, 0) - t1;
	assert_true(d0 > 4 * GB && d1 > 4 * GB);
	/* Cache portions: the L3 MSC holds each VM's bitmap for its PARTID. */
	struct sim_msc *l3 = &s->msc[1];
	sim_msc_write(l3, PV_MPAMCFG_PART_SEL, s->vm[0].partid[0]);
	assert_int_equal(sim_msc_read(l3, PV_MPAMCFG_CPBM), 0x000F);
	sim_msc_write(l3, PV_MPAMCFG_PART_SEL, s->vm[1].partid[0]);
	assert_int_equal(sim_msc_read(l3, PV_MPAMCFG_CPBM), 0x0FF0);
	sim_msc_write(l3, PV_MPAMCFG_PART_SEL, s->vm[2].partid[0]);
	assert_int_equal(sim_msc_read(l3, PV_MPAMCFG_CPBM), 0xFFFF);
	assert_int_equal(mscen_msc_errors(s), 0);
	mscen_free(s);
}

static void test_exhaustion(void **state)
{
	(void)state;
	/* PARTIDs 0..15 on the MSCs, 0 the host's: 15 VMs, then a clear error. */
	struct mscen_config c = mscen_default();
	c.partid_max = 15;
	c.max_vms = 32;
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	struct pv_vmpam_config one = {0};
	for (unsigned i = 0; i < 15; i++)
		assert_int_equal(mscen_add_vm(s, &one, true), (int)i);
	assert_int_equal(mscen_add_vm(s, &one, true), PV_VMPAM_ERR_NO_PARTID);
	mscen_release(s, 3);
	assert_int_equal(mscen_add_vm(s, &one, true), 15);
	assert_int_equal(s->vm[15].partid[0], s->vm[3].partid[0]);
	mscen_free(s);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Guests write anything to MPAM1_EL1 and MPAM0_EL1 while their traffic runs; every label the
 * CPU model emits names one of the VM's PARTIDs and a PMG in range, and no MSC ever records
 * an error. The pCPU implements PARTIDs up to 1023, the MSCs up to 63: a guest value the
 * pCPU accepts could still be out of range for the MSCs. */
static void random_writes(bool hcr)
{
	struct mscen_config c = mscen_default();
	c.nodes = 2;
	c.partid_max = 63;
	c.pmg_max = 1;
	c.cpu_mpamidr = 1023 | UINT64_C(7) << 32 |
			(hcr ? PV_MPAMIDR_HAS_HCR | UINT64_C(1) << 18 : 0);
	struct mscen *s = mscen_new(&c);
	assert_non_null(s);
	for (unsigned i = 0; i < 12; i++) {
		struct pv_vmpam_config vc = {.nr_partids = (uint8_t)(1 + i % 4)};
		assert_int_equal(mscen_add_vm(s, &vc, true), (int)i);
		s->gen[i].rate[0] = GB;
		s->gen[i].rate[1] = GB / 2;
		s->gen[i].active = true;
	}
	uint64_t x = hcr ? 77 : 78;
	for (unsigned round = 0; round < 300; round++) {
		for (unsigned i = 0; i < 12; i++) {
			struct pv_vcpu *v = &s->vcpu[i];
			uint64_t val = rnd(&x);
			if (round & 1)
				val &= 0x0707000F000Full;
			/* The handler the trap table would call (the vCPUs have no VM gates). */
			uint32_t key = (rnd(&x) & 1) ? PV_MPAM1_EL1 : PV_MPAM0_EL1;
			pv_reg_lookup(key)->write(v, 0, 1, val);
			for (unsigned el = 0; el < 2; el++) {
				for (unsigned f = 0; f < 2; f++) {
					struct sim_mpam_label l = mscen_label(s, i, el, f);
					bool own = false;
					for (unsigned p = 0; p < s->vm[i].nr_partids; p++)
						own |= l.partid == s->vm[i].partid[p];
					if (!own || l.pmg > 1 || l.err)
						fail_msg("VM %u EL%u: label PARTID %u PMG %u",
							 i, el, l.partid, l.pmg);
				}
			}
			mscen_relabel(s, i, (unsigned)(rnd(&x) & 1));
		}
		mscen_run(s, MS, MS, 10 * MS);
	}
	assert_int_equal(mscen_msc_errors(s), 0);
	/* The check can fail: without vmpam, a guest value reaches the bus as it is. */
	s->gen[0].partid = 100;
	mscen_run(s, MS, MS, 10 * MS);
	assert_true(s->msc[0].errors[PV_MSC_ERR_REQ_PARTID_RANGE] > 0);
	mscen_free(s);
}

static void test_random_guest_writes_vpm(void **state)
{
	(void)state;
	random_writes(true);
}

static void test_random_guest_writes_trapped(void **state)
{
	(void)state;
	random_writes(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_dedicated),
		cmocka_unit_test(test_wrap_high_bandwidth),
		cmocka_unit_test(test_nrdy_stuck),
		cmocka_unit_test(test_caps_throttle),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_random_guest_writes_vpm),
		cmocka_unit_test(test_random_guest_writes_trapped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
