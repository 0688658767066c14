/* SPDX-License-Identifier: MIT */
/*
 * Building the machine: pCPUs, the library's probe and per-pCPU setup, the host's own
 * counters, VMs and vCPUs.
 */
#include <string.h>

#include "perfvisor/platform.h"
#include "sim.h"

void sim_config_default(struct sim_config *c)
{
	*c = (struct sim_config){
		.cpus = 1,
		.pmu = {.counters = 6,
			.version = PV_PMUVER_V3P5,
			.idcode = 1,
			.slots = 4,
			.events = sim_ev_common_mask()},
		.host_events = {PV_EVT_INST_RETIRED, PV_EVT_CPU_CYCLES, PV_EVT_EXC_RETURN,
				PV_EVT_MEM_ACCESS},
		.seed = 1,
		.slice_min = 2000,
		.slice_max = 20000,
		.trap_insts = 40,
		.irq_insts = 60,
		.switch_insts = 200,
		/* A 1 GHz system counter (Armv8.6) and one 2 GHz level. */
		.cnt_khz = 1000000,
		.cpu_khz = {2000000},
		.nfreqs = 1,
		.dvfs_ticks = 50000,
		.amu = {.enable0 = 0xF,
			.enable1 = 0xFFFF,
			.el3_amvoffen = true,
			.fw_keeps_counters = true},
	};
	sim_spe_machine_config_default(&c->spe);
}

/* The hypervisor's MDCR_EL2 outside any vCPU: guests' partition [0, HPMN), host counters
 * enabled by HPME, no EL2 counting in the guests' partition (HPMD, HCCD). */
static uint64_t hyp_mdcr(const struct sim_machine *m)
{
	uint64_t v = m->hw.hpmn;
	if (m->cfg.host_counters)
		v |= PV_MDCR_EL2_HPME;
	if (m->cfg.pmu.version >= PV_PMUVER_V3P1)
		v |= PV_MDCR_EL2_HPMD;
	if (m->cfg.pmu.version >= PV_PMUVER_V3P5)
		v |= PV_MDCR_EL2_HCCD | PV_MDCR_EL2_HLP;
	return v;
}

/* The host programs its counters at EL2, like any EL2 software: count `event` at EL2 only
 * (NSH = 1, P = U = 1; with EL3, NSK = NSU = M = 0 keep EL1, EL0 and EL3 out). */
static void host_setup(struct sim_cpu *c)
{
	const struct sim_config *cfg = &c->m->cfg;
	unsigned n = cfg->pmu.counters;
	for (unsigned k = 0; k < cfg->host_counters; k++) {
		unsigned i = n - cfg->host_counters + k;
		uint64_t type = cfg->host_events[k] | PV_PMEVTYPER_NSH | PV_PMEVTYPER_P |
				PV_PMEVTYPER_U;
		pv_plat_sysreg_write(&c->pv, PV_PMEVTYPER_EL0(i), type);
		pv_plat_sysreg_write(&c->pv, PV_PMEVCNTR_EL0(i), cfg->host_initial);
		pv_plat_sysreg_write(&c->pv, PV_PMCNTENSET_EL0, UINT64_C(1) << i);
		c->stats.plat_writes -= 3; /* the statistics are the library's */
	}
}

int sim_init(struct sim_machine *m, const struct sim_config *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	struct sim_config *c = &m->cfg;
	if (c->cpus == 0 || c->cpus > SIM_MAX_CPUS || c->pmu.counters > PV_PMU_MAX_COUNTERS ||
	    c->host_counters > SIM_MAX_HOST_COUNTERS || c->host_counters > c->pmu.counters ||
	    c->slice_min == 0 || c->slice_max < c->slice_min || c->amu.version > 2 ||
	    c->amu.aux > SIM_AMU_AUX_MAX || c->nfreqs == 0 || c->nfreqs > SIM_MAX_FREQS ||
	    c->cnt_khz == 0)
		return PV_ERR_UNSUPPORTED;
	for (unsigned i = 0; i < c->nfreqs; i++)
		if (c->cpu_khz[i] == 0)
			return PV_ERR_UNSUPPORTED;
	c->pmu.el3 = c->el3;
	c->pmu.sel2 = c->sel2;
	c->pmu.aarch32 = c->aarch32;
	c->pmu.secure_counting = c->secure_counting;
	m->rng = c->seed;

	for (unsigned i = 0; i < c->cpus; i++) {
		struct sim_cpu *p = &m->cpu[i];
		p->m = m;
		p->idx = i;
		p->el = 2;
		sim_pmu_init(&p->pmu, &c->pmu);
		sim_amu_init(&p->amu, &c->amu);
		p->next_dvfs = c->dvfs_ticks;
		sim_id_init(p->id, c);
		/* Reset: MDCR_EL2.HPMN = N; the hypervisor runs with RW, IMO/FMO/AMO, VM;
		 * CPTR_EL2 RES1 bits of the nVHE layout. */
		p->hyp_mdcr = p->mdcr = c->pmu.counters;
		p->hyp_hcr = p->hcr = PV_HCR_EL2_RW | PV_HCR_EL2_IMO | PV_HCR_EL2_FMO |
				      PV_HCR_EL2_AMO | PV_HCR_EL2_VM;
		p->hyp_cptr = p->cptr = 0x33FF;
		pv_pcpu_init(&p->pv, p);
		p->pv.index = i; /* the library's per-pCPU tables (vmpam's cpu_node) */
	}
	int err = sim_mpam_machine_init(m); /* the pCPUs' MPAM, before the probe reads it */
	if (!err)
		err = sim_spe_machine_init(m); /* SPE units and memory, likewise */
	if (!err)
		err = pv_hw_probe(&m->hw, &m->cpu[0].pv, c->host_counters);
	if (err)
		return err;
	m->hw.fgt_words = m->hw.fgt; /* sched.c applies HDFGRTR_EL2 and HDFGWTR_EL2 too */
	for (unsigned i = 0; i < c->cpus; i++) {
		struct sim_cpu *p = &m->cpu[i];
		p->hyp_mdcr = p->mdcr = hyp_mdcr(m);
		pv_pcpu_setup(&p->pv, &m->hw);
		host_setup(p);
	}
	return sim_mpam_machine_attach(m); /* MSCs and vmpam, before any VM */
}

int sim_add_vm(struct sim_machine *m, const struct pv_vm_config *cfg)
{
	if (m->nvms >= SIM_MAX_VMS)
		return PV_ERR_UNSUPPORTED;
	struct sim_vm *vm = &m->vm[m->nvms];
	memset(vm, 0, sizeof(*vm));
	vm->idx = m->nvms;
	vm->err = pv_vm_init(&vm->pv, &m->hw, cfg);
	if (vm->err)
		return vm->err;
	sim_mpam_machine_vm_added(m, vm->idx);
	sim_spe_machine_vm_added(m, vm->idx);
	return (int)m->nvms++;
}

int sim_add_vcpu(struct sim_machine *m, unsigned vm, unsigned cpu, struct sim_prog *prog)
{
	if (m->nvcpus >= SIM_MAX_VCPUS || vm >= m->nvms || cpu >= m->cfg.cpus || !prog)
		return -1;
	struct sim_vcpu *v = &m->vcpu[m->nvcpus];
	memset(v, 0, sizeof(*v));
	v->m = m;
	v->vm = &m->vm[vm];
	v->cpu = &m->cpu[cpu];
	v->idx = m->nvcpus;
	v->prog = prog;
	v->el = 1;
	prog->unexpected = 0;
	pv_vcpu_init(&v->pv, &v->vm->pv, v->vm->nvcpus++, v);
	sim_spe_machine_vcpu_added(m, v->idx); /* its pin store */
	return (int)m->nvcpus++;
}

uint64_t sim_host_counter(struct sim_machine *m, unsigned cpu, unsigned k)
{
	uint64_t val = 0;
	unsigned n = m->cfg.pmu.counters;
	if (cpu < m->cfg.cpus && k < m->cfg.host_counters)
		sim_cpu_read(&m->cpu[cpu], 2, PV_PMEVCNTR_EL0(n - m->cfg.host_counters + k),
			     &val);
	return val;
}

uint32_t sim_host_event(const struct sim_machine *m, unsigned k)
{
	return k < SIM_MAX_HOST_COUNTERS ? m->cfg.host_events[k] : 0;
}
