/* SPDX-License-Identifier: MIT */
/*
 * The PMU as the model tests use it: fields from the Arm ARM's register descriptions
 * (D24.5.8 PMCR_EL0, D24.5.12 PMEVTYPER<n>_EL0, D24.3.17 MDCR_EL2) and event numbers from
 * D14.3.1, written here for the tests alone.
 */
#ifndef HW_PMU_H
#define HW_PMU_H

#include "hw.h"

#define PMCR_E (1UL << 0)
#define PMCR_P (1UL << 1)
#define PMCR_C (1UL << 2)
#define PMCR_LC (1UL << 6)
#define PMCR_N(v) (((v) >> 11) & 0x1f)

#define PMEVTYPER_P (1UL << 31)   /* EL1 not counted */
#define PMEVTYPER_U (1UL << 30)   /* EL0 not counted */
#define PMEVTYPER_NSH (1UL << 27) /* EL2 counted */

#define MDCR_HPMN(n) ((uint64_t)(n)&0x1f)
#define MDCR_HPMN_MASK 0x1fUL
#define MDCR_HPME (1UL << 7)
#define MDCR_TPM (1UL << 6)
#define MDCR_TPMCR (1UL << 5)

#define EV_SW_INCR 0x00
#define EV_LD_RETIRED 0x06
#define EV_ST_RETIRED 0x07
#define EV_INST_RETIRED 0x08
#define EV_BR_IMMED_RETIRED 0x0d
#define EV_CPU_CYCLES 0x11
#define EV_MEM_ACCESS 0x13
#define EV_BR_RETIRED 0x21

#define CYCLE_COUNTER 31

/* PMEVCNTR<n>_EL0 / PMEVTYPER<n>_EL0 through PMSELR_EL0 (n < 31). */
static inline void pmu_select(unsigned n)
{
	WRITE_SYSREG(pmselr_el0, n);
	ISB();
}

static inline void pmu_set_type(unsigned n, uint64_t type)
{
	pmu_select(n);
	WRITE_SYSREG(pmxevtyper_el0, type);
}

static inline void pmu_set_count(unsigned n, uint64_t v)
{
	pmu_select(n);
	WRITE_SYSREG(pmxevcntr_el0, v);
}

static inline uint64_t pmu_count(unsigned n)
{
	pmu_select(n);
	return READ_SYSREG(pmxevcntr_el0);
}

/* Every counter stopped, zeroed, without overflow or interrupt enables; EL2 owns none. */
static inline void pmu_reset(void)
{
	uint64_t n = PMCR_N(READ_SYSREG(pmcr_el0));

	WRITE_SYSREG(mdcr_el2, MDCR_HPMN(n));
	WRITE_SYSREG(pmcntenclr_el0, ~0UL);
	WRITE_SYSREG(pmintenclr_el1, ~0UL);
	WRITE_SYSREG(pmovsclr_el0, ~0UL);
	WRITE_SYSREG(pmcr_el0, PMCR_LC | PMCR_P | PMCR_C);
	ISB();
}

#endif
