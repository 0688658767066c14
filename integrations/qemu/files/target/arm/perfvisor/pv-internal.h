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

typedef struct PvHwCPU {
    bool pmu_fixes;     /* asked for (the property); after realize: in force */
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
} PvHwCPU;

/* The CPU's model state, NULL for a CPU without perfvisor's models (not -cpu max). */
PvHwCPU *pv_hw_cpu(CPUState *cs);

/* pv-pmu.c: the PMU fixes put in force on a realized CPU (its registered copies changed). */
bool pv_pmu_realize(ARMCPU *cpu, PvHwCPU *s, Error **errp);

/* pv-events.c: the events' counting code generated only where this is true. */
bool pv_events_counting(CPUState *cs);

#endif
