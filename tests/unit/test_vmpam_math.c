/* SPDX-License-Identifier: MIT */
/* vmpam's arithmetic with 128-bit intermediates (vmpam/math.c), which freestanding targets
 * without a 128-bit type use: checked against the host compiler's 128-bit arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* vmpam/internal.h (not a public header) */
uint64_t pv_vmpam__mulshr_portable(uint64_t a, uint64_t b, unsigned s);
uint64_t pv_vmpam__muldiv(uint64_t a, uint64_t b, uint64_t c);
uint64_t pv_vmpam__isqrt(uint64_t x);

__extension__ typedef unsigned __int128 u128;

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Values of every magnitude: a random word shifted right by a random amount. */
static uint64_t any(uint64_t *x)
{
	return rnd(x) >> (rnd(x) % 64);
}

static void test_mulshr(void **state)
{
	(void)state;
	uint64_t x = 99;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t a = any(&x), b = any(&x);
		unsigned s = (unsigned)(rnd(&x) % 64);
		u128 p = (u128)a * b >> s;
		uint64_t want = p >> 64 ? UINT64_MAX : (uint64_t)p;
		assert_int_equal(pv_vmpam__mulshr_portable(a, b, s), want);
	}
	assert_int_equal(pv_vmpam__mulshr_portable(UINT64_MAX, UINT64_MAX, 0), UINT64_MAX);
	assert_int_equal(pv_vmpam__mulshr_portable(UINT64_MAX, UINT64_MAX, 63), UINT64_MAX);
	assert_int_equal(pv_vmpam__mulshr_portable(UINT64_C(1) << 40, UINT64_C(1) << 40, 30),
			 UINT64_C(1) << 50);
}

static void test_muldiv(void **state)
{
	(void)state;
	uint64_t x = 7;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t a = any(&x), b = any(&x), c = any(&x) | 1;
		u128 q = (u128)a * b / c;
		uint64_t want = q >> 64 ? UINT64_MAX : (uint64_t)q;
		assert_int_equal(pv_vmpam__muldiv(a, b, c), want);
	}
	assert_int_equal(pv_vmpam__muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
	assert_int_equal(pv_vmpam__muldiv(3000000000ull, 1000000000ull, 1000000000ull),
			 3000000000ull);
}

static void test_isqrt(void **state)
{
	(void)state;
	uint64_t x = 3;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t v = any(&x), r = pv_vmpam__isqrt(v);
		assert_true((u128)r * r <= v);
		assert_true((u128)(r + 1) * (r + 1) > v);
	}
	assert_int_equal(pv_vmpam__isqrt(UINT64_MAX), 0xFFFFFFFFu);
	assert_int_equal(pv_vmpam__isqrt(0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mulshr),
		cmocka_unit_test(test_muldiv),
		cmocka_unit_test(test_isqrt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
