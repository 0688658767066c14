/* SPDX-License-Identifier: MIT */
/*
 * vAMU internals shared by the vamu/ sources. Not a public header.
 *
 * Model (see docs/amu.md): the physical counters run free and are never written. Counter k of
 * a vCPU is pv_vamu.val[k] while it is not loaded; while it is, it is the physical counter
 * minus pv_vamu.off[k], where off[k] was set at load so that the vCPU continues where it
 * stopped. On the virtual-offset path the hardware subtracts the same off[k] itself
 * (AMEVCNTVOFF<g><n>_EL2) for the counters that have an offset register.
 */
#ifndef PV_VAMU_INTERNAL_H
#define PV_VAMU_INTERNAL_H

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "regdb.h"
#include "../core/modules.h"

/* ISS key of counter k (0..3: AMEVCNTR0<k>_EL0, 4 + n: AMEVCNTR1<n>_EL0) and of its virtual
 * offset register (AMEVCNTVOFF0<k>_EL2 / AMEVCNTVOFF1<n>_EL2; none for CNT_CYCLES). */
extern const uint32_t pv_vamu__cntr_key[PV_AMU_COUNTERS];
extern const uint32_t pv_vamu__voff_key[PV_AMU_COUNTERS];

/* Counter k of a vCPU, loaded or not. */
static inline uint64_t vamu_count(const struct pv_vcpu *v, unsigned k)
{
	struct pv_pcpu *cpu = v->cpu;
	return cpu ? pv_plat_sysreg_read(cpu, pv_vamu__cntr_key[k]) - v->amu.off[k]
		   : v->amu.val[k];
}

/* The guest's AMUSERENR_EL0. On the virtual-offset path guest EL1 writes the register
 * directly (CPTR_EL2.TAM = 0), so while loaded the hardware holds the current value. */
static inline uint64_t vamu_userenr(const struct pv_vcpu *v)
{
	if (v->vm->amu.path == PV_AMU_PATH_VOFF && v->cpu)
		return pv_plat_sysreg_read(v->cpu, PV_AMUSERENR_EL0);
	return v->amu.userenr;
}

#endif
