/* SPDX-License-Identifier: MIT */
/*
 * Activity Monitors model of one PE (FEAT_AMUv1, FEAT_AMUv1p1; Arm ARM D24.6 and the AMU
 * chapter): four architected counters, up to 16 auxiliary ones, 64-bit, free-running,
 * wrapping with no overflow status or interrupt; enables and event types set by firmware
 * (writable at the highest implemented EL only); virtual offsets AMEVCNTVOFF0<n>_EL2
 * (n = 0, 2, 3) and AMEVCNTVOFF1<n>_EL2 applied to EL0/EL1 reads under HCR_EL2.AMVOFFEN and
 * SCR_EL3.AMVOFFEN. Routing of guest accesses (AMUSERENR_EL0, CPTR_EL2.TAM, HAFGRTR_EL2) is
 * in cpu.c, like the PMU's.
 */
#ifndef SIM_AMU_H
#define SIM_AMU_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "pmu.h" /* enum sim_acc */

#define SIM_AMU_AUX_MAX 16
#define SIM_AMU_COUNTERS (4 + SIM_AMU_AUX_MAX) /* k < 4: group 0, 4 + n: AMEVCNTR1<n> */

struct sim_amu_config {
	uint8_t version; /* ID_AA64PFR0_EL1.AMU: 0 (none), 1 (AMUv1), 2 (AMUv1p1) */
	uint8_t aux;     /* AMCGCR_EL0.CG1NC, 0..16 */
	uint16_t aux_events[SIM_AMU_AUX_MAX]; /* AMEVTYPER1<n>: a modelled event number, 0x4004
						 or 0x4005; fixed at implementation */
	uint16_t aux_voff; /* AMUv1p1: AMEVCNTVOFF1<n>_EL2 implemented (AMCG1IDR_EL0[16+n]) */
	uint16_t enable1;  /* AMCNTENSET1_EL0 as firmware sets it */
	uint8_t enable0;   /* AMCNTENSET0_EL0 as firmware sets it (TF-A: 0xF) */
	bool cg1rz;        /* AMCR_EL0.CG1RZ as firmware sets it (AMUv1p1) */
	bool el3_amvoffen; /* SCR_EL3.AMVOFFEN: firmware lets EL2 use the offsets */
	bool fw_keeps_counters; /* CPU power-down: firmware saves and restores the counters
				   (TF-A amu_context_save/restore); else they come back 0 */
};

/* Where the PE is when it accesses an AMU register. */
struct sim_amu_ctx {
	unsigned el;
	bool highest; /* the current EL is the highest implemented */
	bool offsets; /* EL0/EL1 reads are offset: AMUv1p1, HCR_EL2.AMVOFFEN, SCR_EL3.AMVOFFEN,
			  EL2 enabled and {E2H, TGE} != {1, 1} */
};

struct sim_amu {
	struct sim_amu_config cfg;
	uint64_t cnt[SIM_AMU_COUNTERS];
	uint64_t voff[SIM_AMU_COUNTERS]; /* AMEVCNTVOFF0<n>_EL2 / AMEVCNTVOFF1<n>_EL2 */
	uint32_t en0, en1;
	uint64_t amcr, userenr;
	uint64_t saved[SIM_AMU_COUNTERS]; /* firmware's copy across power-down */
};

/* Ground truth of one vCPU: every AMU event counted while it was the running vCPU of a
 * pCPU (between load and put), and the cycles it ran at each frequency level. */
#define SIM_MAX_FREQS 8
struct sim_amu_truth {
	uint64_t cnt[SIM_AMU_COUNTERS];
	uint64_t cycles_at[SIM_MAX_FREQS];
};

void sim_amu_init(struct sim_amu *a, const struct sim_amu_config *cfg);
/* Counts a chunk of work: `ticks` constant-frequency cycles elapsed during it. */
void sim_amu_count(struct sim_amu *a, const struct sim_work *w, uint64_t ticks);
/* What a chunk adds to counter k when enabled (the truth uses the same event definitions). */
uint64_t sim_amu_event(const struct sim_amu *a, unsigned k, const struct sim_work *w,
		       uint64_t ticks);
bool sim_amu_enabled(const struct sim_amu *a, unsigned k);

/* Register space: the EL0 registers (AMCR_EL0 ... AMEVTYPER1<n>_EL0). */
bool sim_amu_is_reg(uint32_t key);
/* The EL2 virtual offset registers. */
bool sim_amu_is_voff(uint32_t key);
/* UNDEFINED before any trap (Arm ARM D24.6 access pseudocode): no AMU, no such counter, no
 * such direction, MSR below the highest EL (all but AMUSERENR_EL0, whose EL0 MSR UNDEFs). */
bool sim_amu_has(const struct sim_amu *a, uint32_t key, bool is_read, unsigned el,
		 bool highest);
/* The HAFGRTR_EL2 bit trapping reads of `key`, 0 if none. */
uint64_t sim_amu_fgt_bit(uint32_t key);

enum sim_acc sim_amu_read(struct sim_amu *a, const struct sim_amu_ctx *c, uint32_t key,
			  uint64_t *val);
enum sim_acc sim_amu_write(struct sim_amu *a, const struct sim_amu_ctx *c, uint32_t key,
			   uint64_t val);
/* Counter k of the key read (AMEVCNTR0<n> / AMEVCNTR1<n>), or -1. */
int sim_amu_counter_of(uint32_t key);

/* CPU power-down and power-up: firmware saves and restores the counters (or not); the
 * EL2-owned state (offsets, AMUSERENR_EL0) comes back UNKNOWN. */
void sim_amu_power_down(struct sim_amu *a);
void sim_amu_power_up(struct sim_amu *a);

#endif
