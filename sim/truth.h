/* SPDX-License-Identifier: MIT */
/*
 * Ground truth: what was really executed, kept by the machine model itself (never read back
 * from the library). Per vCPU, cumulative event counts per guest exception level; per pCPU,
 * the hypervisor's (EL2) and firmware's (EL3, Secure) work.
 */
#ifndef SIM_TRUTH_H
#define SIM_TRUTH_H

#include <stdint.h>

#include "events.h"

/* Cumulative counts of one vCPU at one instant. */
struct sim_snap {
	uint64_t ev[2][SIM_EV_COUNT]; /* [EL0, EL1][event slot] */
	uint32_t swinc[2][31];        /* PMSWINC_EL0 writes that set bit n, per EL */
};

struct sim_truth {
	struct sim_snap now;
	uint64_t pieces;     /* work pieces executed (a split WORK op makes several) */
	uint64_t splits;     /* WORK ops cut by a switch point */
	uint64_t exceptions; /* exceptions the hardware took from this vCPU (EXC_TAKEN) */
};

/* Work executed on a pCPU outside the guests. */
struct sim_cpu_truth {
	uint64_t el2[SIM_EV_COUNT];
	uint64_t el3[SIM_EV_COUNT];
	uint64_t secure[2][SIM_EV_COUNT]; /* Secure EL0 / EL1 */
};

void sim_truth_work(struct sim_truth *t, unsigned el, const struct sim_work *w);
void sim_truth_swinc(struct sim_truth *t, unsigned el, uint64_t val);
/* Events `number` executed between two snapshots at the ELs in `els` (bit 0: EL0, bit 1:
 * EL1). SW_INCR and CHAIN are not work events: 0. */
uint64_t sim_snap_delta(const struct sim_snap *from, const struct sim_snap *to, uint32_t number,
			unsigned els);
/* PMSWINC_EL0 writes of bit n between two snapshots at the ELs in `els`. */
uint64_t sim_snap_swinc(const struct sim_snap *from, const struct sim_snap *to, unsigned n,
			unsigned els);
/* Event `number` in one of the per-pCPU arrays above. */
uint64_t sim_cpu_truth_get(const uint64_t ev[SIM_EV_COUNT], uint32_t number);

#endif
