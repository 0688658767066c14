/* SPDX-License-Identifier: MIT */
/*
 * Virtual AMU (Activity Monitors, FEAT_AMUv1 / FEAT_AMUv1p1): per-VM configuration, per-vCPU
 * state and the operator's view. See docs/amu.md.
 *
 * Every counter a guest reads is its vCPU's own activity: what the PE counted between the
 * vCPU's pv_vcpu_load and pv_vcpu_put, summed over every time it ran, on any pCPU. The
 * physical counters are never written (below the highest EL their MSR encodings are
 * UNDEFINED, Arm ARM D24.6): a vCPU's value is the physical count minus an offset set at
 * load, applied in software (trap path) or by the hardware through AMEVCNTVOFF0<n>_EL2 /
 * AMEVCNTVOFF1<n>_EL2 under HCR_EL2.AMVOFFEN (virtual-offset path).
 */
#ifndef PERFVISOR_VAMU_H
#define PERFVISOR_VAMU_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/api.h"
#include "perfvisor/sysreg.h"

PV_BEGIN_DECLS

struct pv_vm;
struct pv_vcpu;
struct pv_pcpu;
struct pv_hw;

/* ---- Architecture (Arm ARM D24.6, AMU registers) ------------------------------------------ */
#define PV_AMU_GROUP0                                                                          \
	4u                 /* architected counters: CPU_CYCLES, CNT_CYCLES, INST_RETIRED,
			     STALL_BACKEND_MEM */
#define PV_AMU_AUX_MAX 16u /* auxiliary (group 1) counters */
#define PV_AMU_COUNTERS                                                                        \
	(PV_AMU_GROUP0 + PV_AMU_AUX_MAX) /* k < 4: AMEVCNTR0<k>, else
							     AMEVCNTR1<k - 4> */
#define PV_AMU_CNT_CYCLES 1u             /* the group 0 counter with no AMEVCNTVOFF0<n>_EL2 */

/* The group 0 counters' events are the event database's: PV_AMU_GROUP0_EVENTS. */

/* ID_AA64PFR0_EL1.AMU values */
#define PV_AMU_V1 1u
#define PV_AMU_V1P1 2u

/* The AMU registers' fields are the register database's (sysreg_defs.h). */
#define PV_AMCFGR_SIZE_64 PV_AMCFGR_SIZE /* SIZE = 0b111111: 64-bit counters */

/* FEAT_FGT: ID_AA64MMFR0_EL1.FGT and HAFGRTR_EL2, the AMU fine-grained read traps. */
#define PV_HAFGRTR_AMCNTEN0 PV_BIT(0)
#define PV_HAFGRTR_AMEVCNTR0(n) PV_BIT(1 + (n))
#define PV_HAFGRTR_AMCNTEN1 PV_BIT(17)
#define PV_HAFGRTR_AMEVCNTR1(n) PV_BIT(18 + 2 * (n))
#define PV_HAFGRTR_AMEVTYPER1(n) PV_BIT(19 + 2 * (n))
#define PV_HAFGRTR_MASK (PV_GENMASK(4, 0) | PV_GENMASK(49, 17))

/* The AMU as probed (pv_hw_probe), valid when pv_hw.amu. */
struct pv_hw_amu {
	uint64_t amcr, amcfgr, amcgcr, amcg1idr; /* AMCG1IDR_EL0 only with AMUv1p1 */
	uint64_t cnten0, cnten1;                 /* AMCNTENSET0/1_EL0 as firmware left them */
	uint16_t evtyper1[PV_AMU_AUX_MAX];
	uint8_t aux;          /* AMCGCR_EL0.CG1NC */
	uint16_t aux_present; /* auxiliary counters implemented (AMCG1IDR_EL0 or [0, aux)) */
	uint16_t aux_voff;    /* ... of which have AMEVCNTVOFF1<n>_EL2 (AMUv1p1) */
	/* The virtual-offset path can be used: AMUv1p1 and FEAT_FGT. It also needs EL3 to set
	 * SCR_EL3.AMVOFFEN (and SCR_EL3.FGTEn), which EL2 cannot see: an integration whose
	 * firmware does not clears this after pv_hw_probe, and every VM takes the trap path. */
	bool voff;
};

/* Per-VM configuration. */
struct pv_amu_config {
	uint8_t version; /* ID_AA64PFR0_EL1.AMU to expose: PV_AMU_V1 or PV_AMU_V1P1 (<= hardware) */
	uint8_t nr_aux; /* auxiliary counters the VM sees: AMEVCNTR1<n> for n < nr_aux, all
			    implemented in hardware */
};

enum pv_amu_path {
	PV_AMU_PATH_TRAP, /* CPTR_EL2.TAM = 1: every access traps and is emulated */
	PV_AMU_PATH_VOFF, /* CPTR_EL2.TAM = 0, HCR_EL2.AMVOFFEN = 1: counters with a virtual
			     offset register are read directly; CNT_CYCLES (and auxiliary
			     counters without an offset) trap through HAFGRTR_EL2 */
};

/* Per-VM values derived once (pv_vamu_vm_init). */
struct pv_vm_amu {
	uint8_t version; /* 0: the VM has no AMU */
	uint8_t nr_aux;
	uint8_t nr;       /* counters switched at load/put: 4 + nr_aux, or 4 with CG1RZ */
	uint8_t path;     /* enum pv_amu_path */
	bool cg1rz;       /* group 1 reads as zero below the highest EL (AMCR_EL0.CG1RZ) */
	uint32_t voff;    /* counters k offset by hardware on the virtual-offset path */
	uint64_t hafgrtr; /* HAFGRTR_EL2 of the virtual-offset path */
	uint64_t amcr, amcfgr, amcgcr, amcg1idr; /* the VM's views */
	uint32_t aux_mask;                       /* bits [nr_aux-1:0] */
};

/* Per-vCPU state. Counter k of the vCPU is val[k] while it is not loaded, and the physical
 * counter minus off[k] while it is. */
struct pv_vamu {
	uint64_t val[PV_AMU_COUNTERS];
	uint64_t off[PV_AMU_COUNTERS];
	uint64_t userenr; /* AMUSERENR_EL0 (EN) */
};

/* A pCPU's power-down loses AMEVCNTVOFF<g><n>_EL2 (firmware need not preserve them) and may
 * lose the counters: pv_pcpu_suspend() and pv_pcpu_resume() (perfvisor.h) cover it. */

/**
 * pv_vamu_counter() - Operator view: an activity counter of a vCPU, loaded or not.
 * @v: the vCPU.
 * @k: the counter: 0..3 group 0 (CPU_CYCLES, CNT_CYCLES, INST_RETIRED, STALL_BACKEND_MEM),
 *     4 + n AMEVCNTR1<n>.
 *
 * Context: on the vCPU's pCPU while it is loaded (the physical counter is read then).
 * Return: what the guest would read, its own activity summed over every time it ran; 0 when
 * the VM has no AMU, @k is past its counters (4 + nr_aux), or group 1 reads as zero
 * (AMCR_EL0.CG1RZ).
 */
PV_API uint64_t pv_vamu_counter(const struct pv_vcpu *v, unsigned k);

PV_END_DECLS

#endif
