/* SPDX-License-Identifier: MIT */
/*
 * The CPU side of MPAM on one PE: MPAMIDR_EL1, MPAM0_EL1, MPAM1_EL1, MPAM2_EL2, MPAMHCR_EL2,
 * MPAMVPMV_EL2 and MPAMVPM<n>_EL2, and the architected rule for the label (PARTID, PMG) a
 * memory access carries: the Arm ARM's GenMPAM / GenPARTID / MAP_vPARTID / GenPMG pseudocode,
 * for Non-secure AArch64 state. A pure model: nothing else in sim/ calls it; tests feed it the
 * register values perfvisor programs and give its labels to traffic generators.
 */
#ifndef SIM_MPAM_CPU_H
#define SIM_MPAM_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu.h" /* enum sim_acc */

struct sim_mpam_cpu {
	uint64_t idr;     /* MPAMIDR_EL1 (read-only) */
	bool mpamen;      /* MPAM enabled by the highest EL (MPAM3_EL3.MPAMEN) */
	bool el2_enabled; /* EL2 enabled in the current Security state */
	uint64_t hcr;     /* HCR_EL2: E2H and TGE matter */
	uint64_t mpam0, mpam1, mpam2;
	uint64_t mpamhcr, vpmv;
	uint64_t vpm[8];
};

struct sim_mpam_label {
	uint16_t partid;
	uint8_t pmg;
	bool err; /* the default was substituted (out of range, no valid mapping) */
};

/* Reset: every label register 0, MPAM enabled, EL2 enabled, HCR_EL2 = 0. */
void sim_mpam_cpu_init(struct sim_mpam_cpu *c, uint64_t mpamidr);

/* Label of a memory access made at `el` (0, 1 or 2); `ifetch` selects the _I fields. */
struct sim_mpam_label sim_mpam_cpu_label(const struct sim_mpam_cpu *c, unsigned el,
					 bool ifetch);

/* Register access from `el`: UNDEF for a register this PE lacks (MPAMHCR_EL2 and the VPM
 * registers without HAS_HCR, MPAMVPM<n> past VPMR_MAX), an EL2 register below EL2, any MPAM
 * register at EL0, or a write of MPAMIDR_EL1. EL1 traps to EL2 (MPAM2_EL2.TRAPMPAMxEL1,
 * MPAMHCR_EL2.TRAP_MPAMIDR_EL1, MPAM2_EL2.TIDR) are not taken here: see sim_mpam_cpu_traps().
 * Returns SIM_ACC_UNKNOWN for a key that is not an MPAM register. */
enum sim_acc sim_mpam_cpu_read(const struct sim_mpam_cpu *c, unsigned el, uint32_t key,
			       uint64_t *val);
enum sim_acc sim_mpam_cpu_write(struct sim_mpam_cpu *c, unsigned el, uint32_t key,
				uint64_t val);
/* Whether an EL1 access to `key` traps to EL2 under the current EL2 controls. */
bool sim_mpam_cpu_traps(const struct sim_mpam_cpu *c, uint32_t key);

#endif
