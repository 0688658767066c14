/* SPDX-License-Identifier: MIT */
/*
 * vmpam: an estimate that passes 2^64 - 1 while its gap is open is OVERFLOW for good. Two VMs
 * share one monitor (63-bit counter, SCALE 31: a count of c is c * 2^31 bytes), so it rotates
 * and each VM is estimated at its last rate while the other is measured. Ticks are 2^30 ns
 * apart, the unit of the rates, so a window's bytes are its rate. A read that answered
 * OVERFLOW must never answer NOT_READY or a figure later; the tick marks the account at the
 * first tick its open estimate passes, even when no read looked, as it always did; and it
 * does so without looking at every account on every tick.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_vmpam_rig.h"

#define PERIOD (UINT64_C(1) << 30) /* ns between ticks */
#define NRDY63 (UINT64_C(1) << 63)
#define YEAR_NS (UINT64_C(365) * 24 * 3600 * 1000000000)

struct fx {
	struct rig *r;
	struct pv_vm_mpam a, b;
	uint64_t now;
};

/* VM a; VM b too unless `late_b` (then b is added later and a starts dedicated). */
static struct fx *fx_new(unsigned scale, uint32_t nrdy_ns, bool late_b)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->r = rig_new(CPU_IDR(63, 1, 0, 0));
	rig_msc(f->r, PV_VMPAM_MSC_MEMORY, 0, IDR(63, 1, 0, 0, 1), 0, 0,
		MBWUMON_IDR(1, scale, 1, 1));
	f->r->desc[0].nrdy_ns = nrdy_ns;
	assert_int_equal(rig_init(f->r, 1), 0);
	assert_int_equal(pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->a, NULL, true), 0);
	if (!late_b)
		assert_int_equal(
			pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->b, NULL, true), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	free(f->r);
	free(f);
}

/* The counter reads `count` (NRDY63 for not ready) at the next tick, one period later; the
 * window it closes belongs to the VM whose PARTID the monitor filters, checked here. */
static void tick(struct fx *f, const struct pv_vm_mpam *measured, uint64_t count)
{
	if (measured)
		assert_int_equal(*rig_word(f->r, 0, R_MBWU_FLT), measured->partid[0]);
	*rig_word(f->r, 0, R_MBWU_L) = (uint32_t)count;
	*rig_word(f->r, 0, R_MBWU_L + 4) = (uint32_t)(count >> 32);
	f->now += PERIOD;
	pv_vmpam_tick(&f->r->sys, &f->r->cpu, f->now);
}

static int status(struct fx *f, const struct pv_vm_mpam *vm)
{
	struct pv_vmpam_reading rd;
	int st = pv_vmpam_read(&f->r->sys, vm, 0, &rd);
	if (st == PV_VMPAM_OVERFLOW || st == PV_VMPAM_NOT_READY)
		assert_true(!rd.bytes && !rd.bound);
	return st;
}

/* OVERFLOW read from an open gap, then the VM's next window stays not ready: still OVERFLOW,
 * not NOT_READY (the input tests/fuzz/corpus/fuzz_msc/overflow-then-not-ready found this). */
static void test_overflow_then_not_ready(void **state)
{
	(void)state;
	struct fx *f = fx_new(31, 0, false);
	tick(f, &f->a, 1); /* a: 2^31 bytes, at 2^31 a period: no overflow for centuries */
	assert_int_equal(status(f, &f->a), PV_VMPAM_MEASURED);
	/* 3 * 2^62 more, at that rate: 2^64 - 2^62 + 2^31 bytes, passing 2^64 - 1 one period
	 * into the gap that opens now. */
	tick(f, &f->a, UINT64_C(0x180000000));
	assert_int_equal(status(f, &f->a), PV_VMPAM_ESTIMATED);
	tick(f, &f->b, 1);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	assert_int_equal(status(f, &f->b), PV_VMPAM_ESTIMATED);
	tick(f, &f->a, NRDY63);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	tick(f, &f->b, 1);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	tick(f, &f->a, 1); /* a window at a low rate cannot bring a figure back either */
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	assert_int_equal(status(f, &f->b), PV_VMPAM_ESTIMATED);
	fx_free(f);
}

/* A window is read only once the not-ready time (1.5 periods) has passed, so it spans two
 * ticks and the gap before it keeps growing on the tick in between. OVERFLOW read there stays
 * when the window closes the gap with the estimate up to its start, which fits. */
static void test_overflow_then_window(void **state)
{
	(void)state;
	struct fx *f = fx_new(31, (uint32_t)(PERIOD * 3 / 2), false);
	tick(f, &f->a, 0); /* wholly not ready: no figure yet */
	tick(f, NULL, 0);  /* the rotation window, too short to read */
	/* c = 0x30000000 (bw = c * 2^31) in the half period that counts: a's rate is 2 bw a
	 * period, its bytes 6 bw (the window, its not-ready part, the gap before it). */
	tick(f, &f->a, UINT64_C(0x30000000));
	assert_int_equal(status(f, &f->a), PV_VMPAM_ESTIMATED);
	tick(f, NULL, 0);
	tick(f, &f->b, 0);
	assert_int_equal(status(f, &f->a), PV_VMPAM_ESTIMATED); /* 10 bw < 2^64 */
	tick(f, NULL, 0);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW); /* 12 bw > 2^64 - 1 */
	/* a's window closes the gap two periods long: 10 bw and a little. */
	tick(f, &f->a, 1);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	for (unsigned i = 0; i < 4; i++) {
		tick(f, NULL, 1);
		assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	}
	fx_free(f);
}

/* The estimate reaches 2^64 exactly at the tick of the VM's next window, which stays not
 * ready: OVERFLOW from that very tick. */
static void test_overflow_on_the_tick(void **state)
{
	(void)state;
	struct fx *f = fx_new(31, 0, false);
	tick(f, &f->a, 2);
	/* r = 0xAAAAAAAA * 2^31 a period, and 2^64 - 2 r bytes: 2^64 two periods on. */
	tick(f, &f->a, UINT64_C(0xAAAAAAAA));
	tick(f, &f->b, 1);
	assert_int_equal(status(f, &f->a), PV_VMPAM_ESTIMATED); /* 2^64 - r */
	tick(f, &f->a, NRDY63);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	fx_free(f);
}

/* The gap that opens when the monitors start to rotate begins at the VM's last reading: if
 * its estimate passes 2^64 - 1, OVERFLOW comes at the next tick even though the VM's own
 * reads stay not ready. */
static void test_overflow_from_rotation_start(void **state)
{
	(void)state;
	struct fx *f = fx_new(31, 0, true);
	tick(f, &f->a,
	     UINT64_C(0xC0000000)); /* a alone, dedicated: 3 * 2^61 bytes, that rate */
	assert_int_equal(status(f, &f->a), PV_VMPAM_MEASURED);
	assert_int_equal(pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->b, NULL, true), 0);
	tick(f, &f->a, NRDY63); /* then rotation: a's gap opens at its last reading */
	assert_int_equal(status(f, &f->a), PV_VMPAM_NOT_READY);
	tick(f, &f->a, NRDY63); /* two periods on: 9 * 2^61 bytes */
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	tick(f, &f->b, 1);
	tick(f, &f->a, 1);
	assert_int_equal(status(f, &f->a), PV_VMPAM_OVERFLOW);
	assert_int_equal(status(f, &f->b), PV_VMPAM_ESTIMATED);
	fx_free(f);
}

/* Ordinary traffic, about 3 GB/s: no open estimate can pass 2^64 - 1 for a century, so the
 * tick has no account to look at before then. */
static void test_no_check_while_far(void **state)
{
	(void)state;
	struct fx *f = fx_new(0, 0, false);
	for (unsigned i = 0; i < 16; i++) {
		tick(f, NULL, UINT64_C(3000000000) + i);
		assert_true(f->r->sys.node[0].seal_at > f->now + 100 * YEAR_NS);
	}
	assert_int_equal(status(f, &f->a), PV_VMPAM_ESTIMATED);
	assert_int_equal(status(f, &f->b), PV_VMPAM_ESTIMATED);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overflow_then_not_ready),
		cmocka_unit_test(test_overflow_then_window),
		cmocka_unit_test(test_overflow_on_the_tick),
		cmocka_unit_test(test_overflow_from_rotation_start),
		cmocka_unit_test(test_no_check_while_far),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
