/* SPDX-License-Identifier: MIT */
/*
 * 64-bit arithmetic with 128-bit intermediates, written out: a freestanding aarch64 build may
 * not call libgcc's 128-bit division. pv_vmpam__mulshr is inline where the compiler has a
 * 128-bit type; the portable version is kept (and tested) for the others.
 */
#include "internal.h"

static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
	*lo = mid << 32 | (ll & 0xFFFFFFFFu);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

uint64_t pv_vmpam__mulshr_portable(uint64_t a, uint64_t b, unsigned s)
{
	uint64_t hi, lo;
	mul128(a, b, &hi, &lo);
	if (s == 0)
		return hi ? UINT64_MAX : lo;
	if (hi >> s)
		return UINT64_MAX;
	return hi << (64 - s) | lo >> s;
}

uint64_t pv_vmpam__muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q, r;
	mul128(a, b, &hi, &lo);
	if (!hi)
		return lo / c;
	if (hi >= c)
		return UINT64_MAX;
	/* Long division of hi:lo by c, one bit at a time; the remainder stays below c. */
	q = 0;
	r = hi;
	for (int i = 63; i >= 0; i--) {
		uint64_t carry = r >> 63;
		r = r << 1 | (lo >> i & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

uint64_t pv_vmpam__isqrt(uint64_t x)
{
	uint64_t r = 0, bit = UINT64_C(1) << 62;
	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}
