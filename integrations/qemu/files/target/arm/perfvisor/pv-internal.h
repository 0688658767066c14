/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of perfvisor's models share; nothing of QEMU's includes it.
 */
#ifndef PERFVISOR_PV_INTERNAL_H
#define PERFVISOR_PV_INTERNAL_H

#include "cpu.h"

/*
 * The CPUs a model keeps state for, by cpu_index: virt's limit. Generated code finds a CPU's
 * event counts by its index (translated code is shared by every CPU).
 */
#define PV_HW_MAX_CPUS 512

/* What the A64 instructions a CPU retired counted in the common events (pv-events.c). */
typedef struct PvHwCounts {
    uint64_t ld;        /* LD_RETIRED */
    uint64_t st;        /* ST_RETIRED */
    uint64_t br;        /* BR_RETIRED */
    uint64_t br_immed;  /* BR_IMMED_RETIRED */
} PvHwCounts;

#define PV_HW_COUNTS_SHIFT 5 /* log2(sizeof(PvHwCounts)), for generated code */

extern PvHwCounts pv_hw_counts[PV_HW_MAX_CPUS];

typedef struct PvSpe PvSpe;
typedef struct PvAmu PvAmu;
typedef struct PvMpam PvMpam;

/* pv-amu: off, or the version of the AMU the CPU has (ID_AA64PFR0_EL1.AMU's values) */
typedef enum PvAmuMode {
    PV_AMU_OFF,
    PV_AMU_MODE_V1 = 1,
    PV_AMU_MODE_V1P1 = 2,
} PvAmuMode;

typedef struct PvHwCPU {
    bool pmu_fixes;     /* asked for (the property); after realize: in force */
    bool spe;           /* pv-spe: asked for; after realize: in force */
    PvAmuMode amu;      /* pv-amu: asked for; after realize: in force */
    bool mpam;          /* pv-mpam: asked for; after realize: in force */
    bool realized;
    /*
     * The instructions the CPU executed under icount: those of its finished runs, and at the
     * start of the current run (in_run) the budget it was given.
     */
    bool count_insns;
    bool in_run;
    uint64_t insns;
    int64_t run_budget;
    Error *migration_blocker;
    Error *spe_migration_blocker;
    Error *amu_migration_blocker;
    Error *mpam_migration_blocker;
    PvAmu *amu_state;   /* the AMU model (pv-amu.c) */
    PvMpam *mpam_state; /* the MPAM model's CPU side (pv-mpam.c) */
    /* The SPE model (pv-spe.c): its state, and its interrupt line (PMBIRQ). */
    PvSpe *spe_state;
    qemu_irq spe_irq;
} PvHwCPU;

/* The CPU's model state, NULL for a CPU without perfvisor's models (not -cpu max). */
PvHwCPU *pv_hw_cpu(CPUState *cs);

/*
 * The instructions the CPU has executed under icount (count_insns), exact between
 * translation blocks, at an exception entry or return, and in the access functions of a
 * register that ends its block (ARM_CP_IO).
 */
uint64_t pv_hw_cpu_insns(CPUState *cs);

/* pv-pmu.c: the PMU fixes put in force on a realized CPU (its registered copies changed). */
bool pv_pmu_realize(ARMCPU *cpu, PvHwCPU *s, Error **errp);

/* pv-events.c: the events' counting code generated only where this is true. */
bool pv_events_counting(CPUState *cs);

/* pv-spe.c: the Statistical Profiling Extension on a realized CPU; its state freed. */
bool pv_spe_realize(ARMCPU *cpu, PvHwCPU *s, Error **errp);
void pv_spe_free(PvHwCPU *s);

/* pv-amu.c: the Activity Monitors (FEAT_AMUv1p1, or FEAT_AMUv1) on a realized CPU. */
bool pv_amu_realize(ARMCPU *cpu, PvHwCPU *s, bool v1p1, Error **errp);
void pv_amu_free(PvHwCPU *s);

/* pv-mpam.c: the CPU side of MPAM (FEAT_MPAMv1p1) on a realized CPU; its state freed. */
bool pv_mpam_realize(ARMCPU *cpu, PvHwCPU *s, Error **errp);
void pv_mpam_free(PvHwCPU *s);

/*
 * The MPAM information bundle a request carries (Arm ARM D21.1.2): PARTID, PMG, and the
 * physical PARTID space as the MPAM_NS signal encodes it (1: Non-secure).
 */
typedef struct PvMpamLabel {
    uint16_t partid;
    uint8_t pmg;
    bool ns;
} PvMpamLabel;

/*
 * The label of a data access made at EL el (0..3) in the CPU's current state: the pseudocode's
 * GenMPAMAtEL() for a data access (J1.3.3), physical PARTIDs only, virtual ones mapped, the
 * Default PARTID and PMG where MPAM is disabled or an identifier is out of range. A load or
 * store labels with the current EL (unprivileged ones too, D21.6.5); SPE's buffer writes with
 * the owning EL, FEAT_NV2's redirected accesses with EL2 (D21.6). Read from the CPU's own
 * thread. A CPU without pv-mpam labels everything with the Default PARTID and PMG.
 */
PvMpamLabel pv_mpam_data_label(CPUARMState *env, int el);

/*
 * pv-spe-a64.c: what the Statistical Profiling Unit records of an A64 instruction, decoded at
 * its PC before it executes (the registers as it will read them).
 */
typedef enum PvSpeOpType {
    PV_SPE_OP_OTHER,
    PV_SPE_OP_SVE,      /* an SVE data-processing operation */
    PV_SPE_OP_BRANCH,   /* branches and exception returns */
    PV_SPE_OP_LDST,     /* loads, stores, atomics */
} PvSpeOpType;

typedef struct PvSpeOp {
    PvSpeOpType type;
    bool exception;     /* generates an exception (E[0]) */
    bool cond;          /* conditional: a conditional branch, select or compare */
    bool cond_fail;     /* ... that failed its condition code check (E[6]) */
    /* Branches */
    bool indirect;
    bool mispredicted;  /* E[7], by the model's static predictor */
    bool has_target;    /* taken: its target is recorded */
    uint64_t target;
    unsigned target_el;
    /* Loads and stores: the Operation Type packet's subclass byte, and the access */
    uint8_t subclass;
    bool load;          /* reads memory into a register (the LD type of the filter) */
    bool store;         /* writes memory, atomics too (the ST type of the filter) */
    bool prefetch;      /* a prefetch or a cache operation by VA: Other, with its address */
    bool has_vaddr;
    uint64_t vaddr;
    unsigned size;      /* bytes accessed from vaddr, for the alignment event */
    /* SVE: the Operation Type packet's EVL field */
    unsigned evl;
} PvSpeOp;

void pv_spe_decode(CPUARMState *env, uint32_t insn, uint64_t pc, PvSpeOp *op);

#endif
