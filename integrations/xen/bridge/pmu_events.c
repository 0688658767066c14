/* SPDX-License-Identifier: MIT */
/*
 * The PMU enables the EL2 accessors track per pCPU (el2/plat_sysreg.h), to the host: the call
 * made when a pCPU's PMU can first interrupt for an event counter, and the question the
 * host's overflow poll asks (both for QEMU 7.2, el2/qemu72.h). A file of its own, so the
 * accessors and the bridge do not depend on each other both ways.
 */
#include "pcpu.h"
#include "pvx.h"

void plat_pmu_event_irq_started(struct pv_pcpu *cpu)
{
	pvx_host_pmu_irq_armed(((struct pvx_pcpu *)cpu->plat)->host);
}

/* Xen's poll (perfvisor_pmu_poll_us) is periodic while event counters can interrupt: a counter
 * written changes nothing there. */
void plat_pmu_event_counter_written(struct pv_pcpu *cpu)
{
	(void)cpu;
}

int pvx_pmu_irq_armed(const void *pcpu)
{
	return ((const struct pvx_pcpu *)pcpu)->plat.pmu.event_irq;
}
