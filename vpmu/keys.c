/* SPDX-License-Identifier: MIT */
/* Constant tables of the vPMU, which every other vpmu/ file may read and which read nothing. */
#include "internal.h"

#ifndef PV_PLATFORM_HAS_PMEV
/* ISS keys of PMEVCNTR<n>_EL0, so that no trap path recomputes them. */
#define K4(n)                                                                                  \
	PV_PMEVCNTR_EL0(n), PV_PMEVCNTR_EL0((n) + 1), PV_PMEVCNTR_EL0((n) + 2),                \
		PV_PMEVCNTR_EL0((n) + 3)
/* clang-format off */
const uint32_t pv_vpmu__evcntr_key[PV_PMU_MAX_COUNTERS] = {
	K4(0), K4(4), K4(8), K4(12), K4(16), K4(20), K4(24),
	PV_PMEVCNTR_EL0(28), PV_PMEVCNTR_EL0(29), PV_PMEVCNTR_EL0(30),
};
/* clang-format on */
#endif
