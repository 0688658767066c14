/* SPDX-License-Identifier: MIT */
/* The guest's side of SPE: what Linux's SPE driver does when its buffer interrupt arrives, run
 * as the guest's own MRS/MSR through the machine (spe_machine.h). */
#include "perfvisor/vspe.h"
#include "sim.h"

/* An MRS/MSR of the guest at EL1, routed as the hardware does; a trapped one goes through the
 * machine's one trap entry (sim_cpu_trap). */
static bool guest_sysreg(struct sim_vcpu *v, uint32_t key, bool rd, uint64_t *val)
{
	struct sim_cpu *c = v->cpu;
	enum sim_route r = sim_cpu_route(c, key, rd, 1);
	if (r == SIM_ROUTE_DIRECT)
		return (rd ? sim_cpu_read(c, 1, key, val) : sim_cpu_write(c, 1, key, *val)) ==
		       SIM_ACC_OK;
	if (r != SIM_ROUTE_EL2)
		return false;
	sim_cpu_guest_exception(c, v);
	uint64_t esr = (uint64_t)PV_EC_SYS64 << PV_ESR_EC_SHIFT | PV_ESR_IL | key |
		       (rd ? PV_ISS_SYS_DIR_READ : 0); /* Rt = x0 */
	uint64_t x[32] = {*val};
	bool ok = sim_cpu_trap(c, v, esr, 1, x) == PV_TRAP_HANDLED;
	*val = x[0];
	return ok;
}

/* Linux's arm_spe_pmu_irq_handler() in fill mode: collect what the buffer holds, restart it
 * at the base after "buffer filled", stop after anything else. */
static void driver_irq(struct sim_vcpu *v, struct sim_spe_vcpu *g)
{
	uint64_t bsr = 0, ptr = 0, zero = 0;
	g->drv.irqs++;
	sim_cpu_guest_exception(v->cpu, v);
	if (!guest_sysreg(v, PV_PMBSR_EL1, true, &bsr) || !(bsr & PV_PMBSR_S)) {
		g->drv.spurious++;
		return;
	}
	guest_sysreg(v, PV_PMBPTR_EL1, true, &ptr);
	g->drv.last_bsr = bsr;
	if (bsr & PV_PMBSR_DL)
		g->drv.truncated++;
	sim_spe_machine_collect(v->m, v->idx, ptr);
	bool fill = PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_BUF &&
		    (bsr & 0x3F) == PV_PMBSR_BSC_FULL;
	if (fill && !(bsr & PV_PMBSR_DL)) {
		uint64_t base = g->base;
		g->drv.fills++;
		g->start = base;
		guest_sysreg(v, PV_PMBPTR_EL1, false, &base);
	} else { /* arm_spe_pmu_disable_and_drain_local() */
		if (PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_FAULT_S1 ||
		    PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_FAULT_S2)
			g->drv.faults++;
		else
			g->drv.other++;
		g->stopped = true;
		guest_sysreg(v, PV_PMSCR_EL1, false, &zero);
		guest_sysreg(v, PV_PMBLIMITR_EL1, false, &zero);
	}
	zero = 0;
	guest_sysreg(v, PV_PMBSR_EL1, false, &zero);
}

void sim_spe_driver_irq(struct sim_cpu *c)
{
	struct sim_vcpu *v = c->cur;
	if (!v || !c->m->spe_machine || !v->line[PV_INTID_SPE])
		return;
	struct sim_spe_vcpu *g = sim_spe_machine_vcpu(c->m, v->idx);
	if (g && g->driver && !g->stopped)
		driver_irq(v, g);
}
