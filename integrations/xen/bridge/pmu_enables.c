/* SPDX-License-Identifier: MIT */
/*
 * What the shared EL2 accessors ask of their host (el2/plat_sysreg.h): the PMU enables they
 * track on every write, and the call made when the PMU can first interrupt for an event
 * counter, passed on to the host (pvx_host_pmu_irq_armed: where an overflow poll starts).
 * A file of its own, so the accessors and the bridge do not depend on each other both ways.
 */
#include "perfvisor/platform.h"
#include "pvx.h"

struct plat_pmu_enables plat_pmu;

void plat_pmu_event_irq_started(void)
{
	pvx_host_pmu_irq_armed();
}

int pvx_pmu_irq_armed(void)
{
	return plat_pmu.event_irq;
}
