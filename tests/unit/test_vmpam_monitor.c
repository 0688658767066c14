/* SPDX-License-Identifier: MIT */
/* vmpam monitor reads on a scripted MSC with one monitor and one VM (dedicated): 31-bit wrap
 * correction with OFLOW_STATUS, long counters read high-low-high, NRDY retried a bounded
 * number of times and reported as not ready, scaling (and a scaled figure past 64 bits), and
 * byte rates between readings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_vmpam_rig.h"

#define MS 1000000ull
#define OFLOW_STATUS (1u << 26)
#define SCLEN (1u << 19)
#define NRDY31 (1u << 31)

struct fx {
	struct rig *r;
	struct pv_vm_mpam vm;
	uint64_t now;
};

static struct fx *fx_new(uint32_t mbwumon_idr)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->r = rig_new(CPU_IDR(63, 1, 0, 0));
	rig_msc(f->r, PV_VMPAM_MSC_MEMORY, 0, IDR(63, 1, 0, 0, 1), 0, 0, mbwumon_idr);
	assert_int_equal(rig_init(f->r, 1), 0);
	assert_int_equal(pv_vmpam_partition_init(&f->r->sys, &f->r->cpu, &f->vm, NULL, true),
			 0);
	/* The monitor counts the VM's PARTID, enabled, from zero. */
	assert_int_equal(*rig_word(f->r, 0, R_MBWU_FLT), f->vm.partid[0]);
	assert_true(*rig_word(f->r, 0, R_MBWU_CTL) & 1u << 31);
	assert_true(*rig_word(f->r, 0, R_MBWU_CTL) & 1u << 16);  /* MATCH_PARTID */
	assert_false(*rig_word(f->r, 0, R_MBWU_CTL) & 1u << 17); /* any PMG */
	return f;
}

static void fx_free(struct fx *f)
{
	free(f->r);
	free(f);
}

/* Sets the 31-bit counter word, ticks 10 ms later, returns the reading. */
static struct pv_vmpam_reading tick31(struct fx *f, uint32_t counter)
{
	*rig_word(f->r, 0, R_MBWU) = counter;
	f->now += 10 * MS;
	pv_vmpam_tick(&f->r->sys, &f->r->cpu, f->now);
	struct pv_vmpam_reading rd;
	pv_vmpam_read(&f->r->sys, &f->vm, 0, &rd);
	return rd;
}

static void test_wrap31(void **state)
{
	(void)state;
	struct fx *f = fx_new(MBWUMON_IDR(1, 0, 0, 0));
	struct pv_vmpam_reading rd;
	pv_vmpam_read(&f->r->sys, &f->vm, 0, &rd);
	assert_int_equal(rd.status, PV_VMPAM_NO_DATA); /* not read yet: no figure */
	rd = tick31(f, 1000);
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	assert_int_equal(rd.bytes, 1000);
	assert_int_equal(rd.bound, 0);
	rd = tick31(f, 0x7FFFFF00);
	assert_int_equal(rd.bytes, 0x7FFFFF00);
	/* Wrapped once: the difference modulo 2^31. */
	rd = tick31(f, 0x100);
	assert_int_equal(rd.bytes, 0x80000100);
	/* A whole wrap and more: OFLOW_STATUS with the counter above its last value. The
	 * status is cleared by rewriting CTL. */
	*rig_word(f->r, 0, R_MBWU_CTL) |= OFLOW_STATUS;
	rd = tick31(f, 0x300);
	assert_int_equal(rd.bytes, 0x80000100ull + 0x80000200ull);
	assert_false(*rig_word(f->r, 0, R_MBWU_CTL) & OFLOW_STATUS);
	assert_true(*rig_word(f->r, 0, R_MBWU_CTL) & 1u << 31);
	/* The counter wraps between the two reads around CTL: seen by the second read. */
	uint32_t seq[2] = {0x7FFFFFF0, 0x10};
	rig_script(f->r, 0, R_MBWU, seq, 2);
	rd = tick31(f, 0x10);
	assert_int_equal(rd.bytes,
			 0x80000100ull + 0x80000200ull + (0x80000000ull - 0x300 + 0x10));
	/* ... and counted once only: the next tick sees no wrap. */
	rd = tick31(f, 0x20);
	assert_int_equal(rd.bytes,
			 0x80000100ull + 0x80000200ull + (0x80000000ull - 0x300 + 0x20));
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	fx_free(f);
}

static void test_nrdy(void **state)
{
	(void)state;
	struct fx *f = fx_new(MBWUMON_IDR(1, 0, 0, 0));
	struct pv_vmpam_reading rd = tick31(f, 500);
	assert_int_equal(rd.bytes, 500);
	/* NRDY: re-read a bounded number of times, then "not ready", never a number. */
	uint32_t none[1];
	rig_script(f->r, 0, R_MBWU, none, 0);
	rd = tick31(f, NRDY31 | 900);
	assert_int_equal(f->r->script_reads, 1 + PV_VMPAM_NRDY_RETRIES);
	assert_int_equal(rd.status, PV_VMPAM_NOT_READY);
	assert_int_equal(rd.bytes, 0);
	assert_int_equal(f->r->sys.stats.not_ready, 1);
	/* Stuck: still not ready, tick after tick. */
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(tick31(f, NRDY31 | 900).status, PV_VMPAM_NOT_READY);
	/* Ready again: the figure resumes, covering the whole time. */
	rd = tick31(f, 1500);
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	assert_int_equal(rd.bytes, 1500);
	/* NRDY on the first read, clear on a retry: a number. */
	uint32_t seq[2] = {NRDY31 | 1600, 1700};
	rig_script(f->r, 0, R_MBWU, seq, 2);
	rd = tick31(f, 1700);
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	assert_int_equal(rd.bytes, 1700);
	fx_free(f);
}

static struct pv_vmpam_reading tick_long(struct fx *f, uint64_t counter)
{
	*rig_word(f->r, 0, R_MBWU_L) = (uint32_t)counter;
	*rig_word(f->r, 0, R_MBWU_L + 4) = (uint32_t)(counter >> 32);
	f->now += 10 * MS;
	pv_vmpam_tick(&f->r->sys, &f->r->cpu, f->now);
	struct pv_vmpam_reading rd;
	pv_vmpam_read(&f->r->sys, &f->vm, 0, &rd);
	return rd;
}

static void test_long_counters(void **state)
{
	(void)state;
	/* 63-bit: the whole value, read high, low, high. */
	struct fx *f = fx_new(MBWUMON_IDR(1, 0, 1, 1));
	struct pv_vmpam_reading rd = tick_long(f, UINT64_C(0x123456789A));
	assert_int_equal(rd.bytes, UINT64_C(0x123456789A));
	/* Torn: the high half changed between the two reads; read again. */
	uint32_t seq[3] = {0x12, 0x13, 0x13};
	rig_script(f->r, 0, R_MBWU_L + 4, seq, 3);
	*rig_word(f->r, 0, R_MBWU_L) = 5;
	*rig_word(f->r, 0, R_MBWU_L + 4) = 0x13;
	f->now += 10 * MS;
	pv_vmpam_tick(&f->r->sys, &f->r->cpu, f->now);
	pv_vmpam_read(&f->r->sys, &f->vm, 0, &rd);
	assert_int_equal(rd.bytes, UINT64_C(0x1300000005));
	assert_int_equal(f->r->script_reads, 4); /* h, h (torn) then h, h */
	assert_int_equal(f->r->sys.stats.retries, 1);
	/* NRDY is bit 63. */
	rd = tick_long(f, UINT64_C(1) << 63 | 0x1400000000);
	assert_int_equal(rd.status, PV_VMPAM_NOT_READY);
	fx_free(f);

	/* 44-bit: wraps at 2^44. */
	f = fx_new(MBWUMON_IDR(1, 0, 1, 0));
	rd = tick_long(f, (UINT64_C(1) << 44) - 100);
	assert_int_equal(rd.bytes, (UINT64_C(1) << 44) - 100);
	rd = tick_long(f, 50);
	assert_int_equal(rd.bytes, (UINT64_C(1) << 44) + 50);
	fx_free(f);
}

static void test_scaling(void **state)
{
	(void)state;
	/* SCALE = 6: the monitor is set to count 64-byte units (SCLEN) and read back in bytes;
	 * the last unit is the figure's granularity. */
	struct fx *f = fx_new(MBWUMON_IDR(1, 6, 0, 0));
	assert_true(*rig_word(f->r, 0, R_MBWU_CTL) & SCLEN);
	struct pv_vmpam_reading rd = tick31(f, 10);
	assert_int_equal(rd.bytes, 640);
	assert_int_equal(rd.bound, 63);
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	fx_free(f);
}

/* Bytes are the count times 2^SCALE: with a 63-bit counter and SCALE = 31 (MBWUMON_IDR.SCALE
 * is 5 bits) they need up to 94 bits. A figure past 2^64 - 1 is reported as OVERFLOW, with no
 * bytes, and stays so: never a wrapped, plausible-looking number. */
static void test_scaled_overflow(void **state)
{
	(void)state;
	/* 2^40 units of 2^31 bytes (about 2.4e21): no single reading can hold it. */
	struct fx *f = fx_new(MBWUMON_IDR(1, 31, 1, 1));
	struct pv_vmpam_reading rd = tick_long(f, UINT64_C(1) << 40);
	assert_int_equal(rd.status, PV_VMPAM_OVERFLOW);
	assert_int_equal(rd.bytes, 0);
	assert_int_equal(rd.bound, 0);
	fx_free(f);

	/* Each reading fits, their sum does not: 2^63 bytes measured, then 2^63 more. */
	f = fx_new(MBWUMON_IDR(1, 31, 1, 1));
	struct pv_vmpam_reading first = tick_long(f, UINT64_C(1) << 32);
	assert_int_equal(first.status, PV_VMPAM_MEASURED);
	assert_true(first.bytes == UINT64_C(1) << 63);
	rd = tick_long(f, UINT64_C(1) << 33);
	assert_int_equal(rd.status, PV_VMPAM_OVERFLOW);
	assert_int_equal(rd.bytes, 0);
	/* Sticky: a small later delta does not bring back a figure that would be wrong. */
	rd = tick_long(f, (UINT64_C(1) << 33) + 1);
	assert_int_equal(rd.status, PV_VMPAM_OVERFLOW);
	assert_int_equal(rd.bytes, 0);
	/* No rate across it either. */
	struct pv_vmpam_rate rate;
	assert_int_equal(pv_vmpam_rate(&first, &rd, &rate), PV_VMPAM_OVERFLOW);
	assert_int_equal(rate.bytes, 0);
	assert_int_equal(rate.bytes_per_s, 0);
	fx_free(f);

	/* The largest figure that fits is still given exactly: 2^33 - 1 units. */
	f = fx_new(MBWUMON_IDR(1, 31, 1, 1));
	rd = tick_long(f, (UINT64_C(1) << 33) - 1);
	assert_int_equal(rd.status, PV_VMPAM_MEASURED);
	assert_true(rd.bytes == ((UINT64_C(1) << 33) - 1) << 31);
	fx_free(f);
}

static void test_rates(void **state)
{
	(void)state;
	struct fx *f = fx_new(MBWUMON_IDR(1, 0, 1, 1));
	struct pv_vmpam_reading a, b;
	struct pv_vmpam_rate rate;
	a = tick_long(f, 1000000);
	for (unsigned i = 1; i <= 100; i++)
		b = tick_long(f, 1000000 + 30000000ull * i);
	/* One second at 3 GB/s, measured throughout: exact. */
	assert_int_equal(pv_vmpam_rate(&a, &b, &rate), PV_VMPAM_MEASURED);
	assert_int_equal(rate.ns, 1000 * MS);
	assert_int_equal(rate.bytes, 3000000000ull);
	assert_int_equal(rate.bytes_per_s, 3000000000ull);
	assert_int_equal(rate.bound, 0);
	/* A reading without a figure gives no rate. */
	struct pv_vmpam_reading nr = {.status = PV_VMPAM_NOT_READY};
	assert_int_equal(pv_vmpam_rate(&a, &nr, &rate), PV_VMPAM_NOT_READY);
	assert_int_equal(rate.bytes_per_s, 0);
	/* Nodes without monitors or unknown give no data. */
	assert_int_equal(pv_vmpam_read(&f->r->sys, &f->vm, 1, &a), PV_VMPAM_NO_DATA);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap31),        cmocka_unit_test(test_nrdy),
		cmocka_unit_test(test_long_counters), cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_rates),         cmocka_unit_test(test_scaled_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
