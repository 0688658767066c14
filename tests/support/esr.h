/* SPDX-License-Identifier: MIT */
/* Building real ESR_EL2 values for EC 0x18 traps, as the hardware reports them. */
#ifndef PERFVISOR_TEST_ESR_H
#define PERFVISOR_TEST_ESR_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/sysreg.h"

static inline uint64_t esr_sys(uint32_t key, unsigned rt, bool is_read)
{
	return ((uint64_t)PV_EC_SYS64 << PV_ESR_EC_SHIFT) | PV_ESR_IL | key |
	       ((uint64_t)(rt & 31) << PV_ISS_SYS_RT_SHIFT) |
	       (is_read ? PV_ISS_SYS_DIR_READ : 0);
}

#endif
