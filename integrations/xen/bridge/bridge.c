/* SPDX-License-Identifier: MIT */
/*
 * The bridge (pvx.h) on perfvisor's side: plain-typed entry points over the library's API,
 * and the platform contract for a host at EL2 on the CPU itself. The system registers are
 * the shared EL2 accessors (el2/plat_sysreg.h, inline: the core is built with them); the
 * virtual interrupt is the host's (pvx_host_virq); this host offers guests no SPE and no
 * MPAM, so the stage-2 and MMIO functions are el2/plat_no_spe.c's and el2/plat_no_mpam.c's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "perfvisor/record.h"
#include "perfvisor/trap.h"
#include "el1_entry.h"
#include "pcpu.h"
#include "pvx.h"
#include "qemu72.h"

_Static_assert(sizeof(unsigned long) == sizeof(uint64_t), "pvx.h: unsigned long is 64 bits");
_Static_assert(PV_TRAP_HANDLED == PVX_HANDLED && PV_TRAP_UNDEF == PVX_UNDEF &&
		       PV_TRAP_EL1_SYSREG == PVX_EL1_SYSREG && PV_TRAP_UNKNOWN == PVX_UNKNOWN,
	       "pvx.h: trap results");
_Static_assert(PV_IRQ_NOT_MINE == PVX_IRQ_NOT_MINE && PV_IRQ_HANDLED == PVX_IRQ_HANDLED &&
		       PV_IRQ_HOST_PENDING == PVX_IRQ_HOST_PENDING,
	       "pvx.h: interrupt results");
_Static_assert(PVX_MAX_FILTERS <= PV_PMU_MAX_FILTERS, "pvx.h: filters");
_Static_assert(PVX_RECORD_MAX == PV_RECORD_MAX &&
		       PVX_RECORD_MAX_EXITS == PV_RECORD_MAX_EXIT_KINDS,
	       "pvx.h: records");

static struct pv_hw hw; /* the machine, read once by pvx_boot */

static struct pv_pcpu *pv_cpu(void *pcpu)
{
	return &((struct pvx_pcpu *)pcpu)->pv;
}

/* The counters kept for the host, [HPMN, N): disabled, their interrupts masked, no overflow
 * pending. Their enables reset to UNKNOWN values (Arm ARM D24.5) and Xen counts nothing with
 * them; one left counting with its interrupt enabled would assert the PMU interrupt for
 * nobody. */
static void host_counters_off(struct pv_pcpu *cpu)
{
	uint64_t host = (PV_BIT(hw.pmu_counters) - 1) & ~(PV_BIT(hw.hpmn) - 1);
	pv_plat_sysreg_write(cpu, PV_PMCNTENCLR_EL0, host);
	pv_plat_sysreg_write(cpu, PV_PMINTENCLR_EL1, host);
	pv_plat_sysreg_write(cpu, PV_PMOVSCLR_EL0, host);
}

unsigned long pvx_pcpu_size(void)
{
	return sizeof(struct pvx_pcpu);
}

unsigned long pvx_vm_size(void)
{
	return sizeof(struct pv_vm);
}

unsigned long pvx_vcpu_size(void)
{
	return sizeof(struct pv_vcpu);
}

int pvx_boot(void *pcpu, void *host_pcpu, unsigned int host_counters)
{
	struct pvx_pcpu *p = pcpu;
	struct pv_pcpu *cpu = &p->pv;
	plat_init();
	p->host = host_pcpu;
	pv_pcpu_init(cpu, &p->plat);
	int err = pv_hw_probe(&hw, cpu, host_counters);
	if (err)
		return err;
	pv_pcpu_setup(cpu, &hw);
	host_counters_off(cpu);
	return 0;
}

void pvx_pcpu_up(void *pcpu, void *host_pcpu, unsigned int index)
{
	struct pvx_pcpu *p = pcpu;
	struct pv_pcpu *cpu = &p->pv;
	p->host = host_pcpu;
	pv_pcpu_init(cpu, &p->plat);
	cpu->index = index;
	pv_pcpu_setup(cpu, &hw);
	host_counters_off(cpu);
}

const char *pvx_strerror(int err)
{
	return pv_strerror(err);
}

/* The highest PMU version perfvisor offers that the hardware has. */
static uint8_t offered_version(uint8_t hw_version)
{
	static const uint8_t offered[] = {PV_PMUVER_V3P5, PV_PMUVER_V3P4, PV_PMUVER_V3P1,
					  PV_PMUVER_V3};
	for (size_t i = 0; i < sizeof(offered); i++)
		if (offered[i] <= hw_version)
			return offered[i];
	return PV_PMUVER_NI;
}

int pvx_vm_init(void *vm, const struct pvx_vm_config *c)
{
	struct pv_vm_config cfg = {.features = PV_FEAT_PMU};
	cfg.pmu.version = offered_version(hw.pmu_version);
	cfg.pmu.nr_counters = (uint8_t)(c->pmu_counters ? c->pmu_counters : hw.hpmn);
	if (c->pmu_counters > 31 || c->nr_filters > PVX_MAX_FILTERS)
		return PV_ERR_PMU_COUNTERS;
	cfg.pmu.nr_filters = (uint8_t)c->nr_filters;
	for (unsigned i = 0; i < c->nr_filters; i++) {
		cfg.pmu.filters[i].base_event = c->filters[i].base;
		cfg.pmu.filters[i].nevents = c->filters[i].count;
		cfg.pmu.filters[i].action = c->filters[i].deny ? PV_PMU_FILTER_DENY
							       : PV_PMU_FILTER_ALLOW;
	}
	return pv_vm_init(vm, &hw, &cfg);
}

unsigned int pvx_vm_counters(const void *vm)
{
	return ((const struct pv_vm *)vm)->cfg.pmu.nr_counters;
}

void pvx_vcpu_init(void *vcpu, void *vm, unsigned int id, void *host_vcpu)
{
	pv_vcpu_init(vcpu, vm, id, host_vcpu);
}

void pvx_vcpu_traps(const void *vcpu, unsigned long *mdcr_el2, unsigned long *hcr_el2)
{
	const struct pv_trap_words *w = &((const struct pv_vcpu *)vcpu)->traps;
	*mdcr_el2 = (*mdcr_el2 & ~w->mdcr_el2_owned) | w->mdcr_el2;
	*hcr_el2 = (*hcr_el2 & ~w->hcr_el2_owned) | w->hcr_el2;
}

int pvx_trap(void *vcpu, unsigned long esr, unsigned int el, unsigned long *x)
{
	struct pv_sys_access a;
	if (!pv_decode_sys(esr, &a))
		return PVX_UNKNOWN;
	/* The host keeps its own view of the ID group; perfvisor's are the debug feature
	 * registers, which say which PMU the guest has (AArch64, and AArch32's PerfMon). */
	if ((a.key & PV_SYSREG(3, 7, 15, 0, 0)) == PV_SYSREG(3, 0, 0, 0, 0) &&
	    a.key != PV_ID_AA64DFR0_EL1 && a.key != PV_ID_DFR0_EL1)
		return PVX_UNKNOWN;
	return pv_trap_sys64(vcpu, esr, el, (uint64_t *)x);
}

void pvx_load(void *vcpu, void *pcpu)
{
	pv_vcpu_load(vcpu, pv_cpu(pcpu));
}

void pvx_put(void *vcpu)
{
	pv_vcpu_put(vcpu);
}

int pvx_irq(void *pcpu, unsigned int intid)
{
	return pv_irq(pv_cpu(pcpu), intid);
}

void pvx_host_overflow_silence(void *pcpu)
{
	host_counters_off(pv_cpu(pcpu));
}

unsigned long pvx_el1_sync_entry(unsigned long spsr, unsigned long sctlr_el1,
				 unsigned long *pstate)
{
	*pstate = el1_sync_pstate(spsr, sctlr_el1);
	return el1_sync_vector(spsr);
}

int pvx_on_qemu(void)
{
	return plat_feat.qemu;
}

void pvx_retire_emulated(void *vcpu, unsigned int el)
{
	qemu72_retire_emulated(vcpu, el);
}

void pvx_vcpu_stats(const void *vcpu, struct pvx_vcpu_stats *out)
{
	const struct pv_vcpu_stats *s = &((const struct pv_vcpu *)vcpu)->stats;
	out->traps_pmu = s->traps[PV_KIND_PMU];
	out->traps_id = s->traps[PV_KIND_ID];
	out->traps_other = s->traps[PV_KIND_SPE] + s->traps[PV_KIND_AMU] +
			   s->traps[PV_KIND_MPAM];
	out->loads = s->loads;
	out->traps_spe = s->traps[PV_KIND_SPE];
	out->traps_amu = s->traps[PV_KIND_AMU];
	out->traps_mpam = s->traps[PV_KIND_MPAM];
	out->pmu_irqs = s->pmu_irqs;
}

unsigned long pvx_record(void *vcpu, char *buf, unsigned long size,
			 const struct pvx_record_host *host)
{
	struct pv_record_exit exits[PV_RECORD_MAX_EXIT_KINDS];
	unsigned n = host->nr_exits;
	if (n > PV_RECORD_MAX_EXIT_KINDS) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	for (unsigned k = 0; k < n; k++) {
		exits[k].kind = host->exits[k].kind;
		exits[k].exits = host->exits[k].exits;
		exits[k].el2_instructions = host->exits[k].el2_instructions;
	}
	struct pv_record_host h = {
		.seq = host->seq,
		.time_ns = host->time_ns,
		.vm_name = host->vm_name,
		.state = host->state,
		.switches_in = host->switches,
		.nr_exits = n,
		.exits = exits,
	};
	return pv_record_vcpu(buf, size, vcpu, &h);
}

void pvx_vcpu_release(void *vcpu)
{
	pv_vcpu_release(vcpu);
}

int pvx_vm_release(void *vm)
{
	return pv_vm_release(vm);
}

/* ---- the platform contract beyond the system registers ---- */
void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level)
{
	pvx_host_virq(vcpu->plat, intid, level);
}
