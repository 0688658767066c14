/* SPDX-License-Identifier: MIT */
/*
 * QEMU 7.2's deviations that an EL2 host of perfvisor works around (qemu72.c says which and
 * why). Each acts only where the CPU has the deviation (plat_feat: every QEMU, unless the
 * host's probe found it fixed), so a host calls them unconditionally.
 */
#ifndef EL2_QEMU72_H
#define EL2_QEMU72_H

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"

/* The host has just completed, by emulation, a load or store of the loaded vCPU `v` at
 * exception level `el` (0 or 1) and skipped it: count it as the guest's. */
void qemu72_retire_emulated(struct pv_vcpu *v, unsigned el);

/* The PMU interrupt was taken with no overflow raised (pv_irq: PV_IRQ_HANDLED, a
 * passthrough vCPU loaded): bring QEMU's interrupt line back to the PMU's level. */
void qemu72_pmu_line_resync(struct pv_pcpu *cpu);

#endif
