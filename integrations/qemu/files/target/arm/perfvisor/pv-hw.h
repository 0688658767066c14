/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's hardware models for QEMU's Arm CPUs: what QEMU's own files call.
 *
 * perfvisor (an EL2 hypervisor's performance-monitoring component) builds this QEMU to test
 * itself against hardware that behaves as the Arm Architecture Reference Manual says. Its
 * integration script inserts the calls below into target/arm/cpu.c; everything else of the
 * models is in this folder, written with its own constants from the Arm ARM.
 */
#ifndef PERFVISOR_PV_HW_H
#define PERFVISOR_PV_HW_H

#include "target/arm/cpu-qom.h"

/*
 * From arm_cpu_post_init(): the properties of `-cpu max` that switch the models on and off
 * (pv-pmu-fixes=on|off). Other CPU models get none, and nothing of the models.
 */
void pv_hw_cpu_post_init(Object *obj);

/*
 * From arm_cpu_realizefn(), right after register_cp_regs_for_features(): the models add their
 * system registers and swap the functions of QEMU's registered ones (the copies in
 * cpu->cp_regs are the CPU's own). False, with *errp set, stops the CPU's realization.
 */
bool pv_hw_cpu_realize(ARMCPU *cpu, Error **errp);

#endif
