/* SPDX-License-Identifier: MIT */
/*
 * One guest MRS or MSR through pv_trap, as the unit tests make it: from EL `el` (the _ok forms
 * from EL1, asserting the access is handled), with a real EC 0x18 syndrome. A read lands in x3,
 * the other registers holding markers (0xBAD0 + n), so a handler that writes anywhere else or
 * nowhere shows; a write takes its value from x5. Include after <cmocka.h>.
 */
#ifndef PERFVISOR_TEST_GUEST_TRAP_H
#define PERFVISOR_TEST_GUEST_TRAP_H

#include "esr.h"
#include "perfvisor/perfvisor.h"

#define GUEST_READ_RT 3
#define GUEST_WRITE_RT 5

/* *out (if given) gets x3 whatever the answer: the marker 0xBAD3 when nothing was written. */
static inline enum pv_trap_result guest_mrs(struct pv_vcpu *v, uint32_t key, unsigned el,
					    uint64_t *out)
{
	uint64_t x[31];
	for (unsigned i = 0; i < 31; i++)
		x[i] = 0xBAD0 + i;
	enum pv_trap_result res = pv_trap(v, esr_sys(key, GUEST_READ_RT, true), el, x);
	if (out)
		*out = x[GUEST_READ_RT];
	return res;
}

static inline uint64_t guest_mrs_ok(struct pv_vcpu *v, uint32_t key)
{
	uint64_t val;
	assert_int_equal(guest_mrs(v, key, 1, &val), PV_TRAP_HANDLED);
	return val;
}

static inline enum pv_trap_result guest_msr(struct pv_vcpu *v, uint32_t key, unsigned el,
					    uint64_t val)
{
	uint64_t x[31] = {0};
	x[GUEST_WRITE_RT] = val;
	return pv_trap(v, esr_sys(key, GUEST_WRITE_RT, false), el, x);
}

static inline void guest_msr_ok(struct pv_vcpu *v, uint32_t key, uint64_t val)
{
	assert_int_equal(guest_msr(v, key, 1, val), PV_TRAP_HANDLED);
}

#endif
