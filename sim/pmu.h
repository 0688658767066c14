/* SPDX-License-Identifier: MIT */
/*
 * PMUv3 model of one PE (Arm ARM D13 "The Performance Monitors Extension", the
 * CountPMUEvents() / AArch64.IncrementEventCounter() / CheckForPMUOverflow() pseudocode of
 * J1.1.1 and J1.3.1, and the register descriptions in D24.5). EL2 is always implemented; EL3
 * and Secure EL2 are options.
 */
#ifndef SIM_PMU_H
#define SIM_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"

struct sim_pmu_config {
	uint8_t counters;    /* PMCR_EL0.N, 0..31 */
	uint8_t version;     /* ID_AA64DFR0_EL1.PMUVer (PV_PMUVER_*); PV_PMUVER_NI: no PMU */
	uint8_t idcode;      /* PMCR_EL0.IDCODE */
	uint8_t slots;       /* PMMIR_EL1.SLOTS (PMUv3p4) */
	uint64_t events;     /* implemented events 0x00..0x3F, bit e (PMCEID0/1 low halves) */
	uint64_t ext_events; /* implemented events 0x4000..0x403F (PMUv3p1, high halves) */
	bool el3, sel2, aarch32;
	bool secure_counting; /* firmware allows counting in Secure state and at EL3
				 (MDCR_EL3.SPME = 1) */
};

/* Where the PE is when it counts or accesses a register. */
struct sim_pmu_ctx {
	unsigned el; /* 0..3 */
	bool secure;
	uint64_t mdcr; /* MDCR_EL2 in force */
};

struct sim_pmu {
	struct sim_pmu_config cfg;
	uint64_t pmcr; /* stored bits: E, D, DP, LC, LP */
	uint64_t evcntr[31];
	uint64_t ccntr;
	uint64_t evtyper[31];
	uint64_t ccfiltr;
	uint32_t cnten, inten, ovs; /* bit 31: the cycle counter */
	uint64_t selr, userenr;
	unsigned div64;         /* cycles towards the next PMCR_EL0.D tick */
	uint64_t overflows[32]; /* unsigned overflows seen per counter (statistics) */
};

/* Result of a register access: done, UNDEFINED, or not a register this model knows. */
enum sim_acc { SIM_ACC_OK, SIM_ACC_UNDEF, SIM_ACC_UNKNOWN };

void sim_pmu_init(struct sim_pmu *p, const struct sim_pmu_config *cfg);
/* Whether a guest access to PMU register `key` that passed its UNDEFINED and EL0 checks traps
 * to EL2 (Arm ARM D24.5 accessibility): MDCR_EL2.TPM, TPMCR for PMCR_EL0, or with FEAT_FGT the
 * register's bit in HDFGRTR_EL2 (a read) or HDFGWTR_EL2 (a write), given as in force (0
 * without the feature). */
bool sim_pmu_el2_trap(uint64_t mdcr, uint64_t hdfgrtr, uint64_t hdfgwtr, uint32_t key,
		      bool is_read);

/* The event counter a PMU access names: n of PMEVCNTR<n>/PMEVTYPER<n>_EL0, PMSELR_EL0.SEL for
 * PMXEVCNTR/PMXEVTYPER_EL0 (31 excepted: no event counter); -1 for every other register. */
int sim_pmu_counter_of(const struct sim_pmu *p, uint32_t key);

/* PMXEVCNTR_EL0 (SEL = 31 too) or PMXEVTYPER_EL0 (not SEL = 31: PMCCFILTR_EL0) with
 * PMSELR_EL0.SEL naming a counter the PE does not implement (Arm ARM D24.5.27, D24.5.28). */
bool sim_pmu_sel_unimplemented(const struct sim_pmu *p, uint32_t key);

/* Effective MDCR_EL2.HPMN (values above N behave as N). */
unsigned sim_pmu_hpmn(const struct sim_pmu *p, uint64_t mdcr);
/* CountPMUEvents(idx): counter idx (31: cycle counter) counts in this context. */
bool sim_pmu_counting(const struct sim_pmu *p, const struct sim_pmu_ctx *c, unsigned idx);
/* Counts a chunk of work executed in context c. */
void sim_pmu_count(struct sim_pmu *p, const struct sim_pmu_ctx *c, const struct sim_work *w);
/* A write of `val` to PMSWINC_EL0 executed in context c. */
void sim_pmu_swinc(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint64_t val);
/* Level of the overflow interrupt request (D13.3.1, "Generating overflow interrupt requests"). */
bool sim_pmu_irq(const struct sim_pmu *p, uint64_t mdcr);

/* Register-space questions for the access routing. */
bool sim_pmu_is_reg(uint32_t key); /* a PMUv3 System register encoding */
bool sim_pmu_has(const struct sim_pmu *p, uint32_t key, bool is_read); /* implemented here */
bool sim_pmu_el1_reg(uint32_t key); /* an _EL1 register: UNDEFINED at EL0 */
bool sim_pmu_el0_allowed(const struct sim_pmu *p, uint32_t key, bool is_read);

enum sim_acc sim_pmu_read(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint32_t key,
			  uint64_t *val);
enum sim_acc sim_pmu_write(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint32_t key,
			   uint64_t val);

/* Guest ELs (bit 0: EL0, bit 1: EL1) a PMEVTYPER/PMCCFILTR filter counts in Non-secure
 * state: EL0 iff U == NSU, EL1 iff P == NSK, NSU/NSK reading 0 without EL3. */
unsigned sim_filter_ns_els(uint64_t filter, bool el3);

#endif
