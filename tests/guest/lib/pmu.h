/* SPDX-License-Identifier: MIT */
/* PMUv3 registers as a guest sees them (Arm ARM D24.5) and accessors for indexed counters. */
#ifndef GUEST_PMU_H
#define GUEST_PMU_H

#include "guest.h"

#define PMCR_E (1ul << 0)
#define PMCR_P (1ul << 1)
#define PMCR_C (1ul << 2)
#define PMCR_D (1ul << 3)
#define PMCR_X (1ul << 4)
#define PMCR_DP (1ul << 5)
#define PMCR_LC (1ul << 6)
#define PMCR_LP (1ul << 7)
#define PMCR_N(v) (((v) >> 11) & 0x1F)
#define EVT_P (1ul << 31)
#define EVT_U (1ul << 30)
#define EVT_NSK (1ul << 29)
#define EVT_NSU (1ul << 28)
#define EVT_NSH (1ul << 27)
#define EVT_M (1ul << 26)
#define EV_SW_INCR 0x00
#define EV_INST_RETIRED 0x08
#define EV_CPU_CYCLES 0x11
#define EV_MEM_ACCESS 0x13
#define EV_CHAIN 0x1E
#define CYCLE_BIT (1ul << 31)
#define INTID_PMU 23
#define PMMIR_EL1 S3_0_C9_C14_6

uint64_t pmevcntr_read(unsigned n);
void pmevcntr_write(unsigned n, uint64_t v);
uint64_t pmevtyper_read(unsigned n);
void pmevtyper_write(unsigned n, uint64_t v);
/* Quiet state: PMCR = 0 (and P, C), all enables, interrupt enables and overflows cleared. */
void pmu_reset(void);

#endif
