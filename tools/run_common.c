/* SPDX-License-Identifier: MIT */
/* Running a scenario on the simulated machine (run.h): what every phase and the hooks share, and the end of a run. */
#include "run.h"

#include <stdlib.h>

bool run_hw_event(const struct pv_hw *hw, uint32_t event)
{
	if (event < 0x20)
		return hw->pmceid0 >> event & 1;
	if (event < 0x40)
		return hw->pmceid1 >> (event - 0x20) & 1;
	return false;
}

bool run_filter_allows(const struct pv_pmu_config *p, uint32_t event)
{
	if (event == PV_EVT_SW_INCR || event == PV_EVT_CHAIN || p->nr_filters == 0)
		return true;
	bool allowed = p->filters[0].action != PV_PMU_FILTER_ALLOW;
	for (unsigned i = 0; i < p->nr_filters; i++) {
		const struct pv_pmu_filter *f = &p->filters[i];
		if (event >= f->base_event && event < (uint32_t)f->base_event + f->nevents)
			allowed = f->action == PV_PMU_FILTER_ALLOW;
	}
	return allowed;
}

uint64_t run_workload_rate(const struct scenario *sc, const struct scen_vm *sv)
{
	if (sv->bandwidth)
		return sv->bandwidth;
	struct sim_work w;
	sim_work_profile(&w, sv->profile, 1000000);
	uint64_t cycles = w.ev[SIM_EV_CPU_CYCLES] ? w.ev[SIM_EV_CPU_CYCLES] : 1;
	return (uint64_t)((unsigned __int128)w.ev[SIM_EV_L2D_CACHE_REFILL] * 64 * sc->mhz *
			  1000000u / cycles);
}

/* The host counter that counts `arm` (a perf event's hardware number), or -1. */
int run_host_slot(const struct run *r, int arm)
{
	for (unsigned k = 0; k < r->nhost; k++)
		if (r->host_event[k] == arm)
			return (int)k;
	return -1;
}

/* The latest pCPU clock: how far the run got. */
uint64_t run_clock_max(const struct run *r)
{
	uint64_t t = 0;
	for (unsigned c = 0; c < r->sc->cpus; c++)
		if (r->cycles[c] > t)
			t = r->cycles[c];
	return t;
}

uint64_t run_all_vcpus(const struct domain *dom)
{
	return dom->vcpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dom->vcpus) - 1;
}

bool run_monitor_whole(const struct domain *dom, uint64_t vcpus)
{
	return vcpus == run_all_vcpus(dom);
}

int run_bw_reading(const struct run *r, const struct run_vm *v, unsigned node,
		   struct pv_vmpam_reading *rd, struct pv_vmpam_rate *rate)
{
	const struct sim_machine *m = r->m;
	*rate = (struct pv_vmpam_rate){.status = PV_VMPAM_NO_DATA};
	if (!m->hw.mpam_sys) {
		*rd = (struct pv_vmpam_reading){.status = PV_VMPAM_NO_DATA};
		return rd->status;
	}
	int st = pv_vmpam_read(m->hw.mpam_sys, &m->vm[v->sim_vm].pv.mpam, node, rd);
	/* Over the run: from the instant the vCPUs began, when the VM had moved nothing. */
	struct pv_vmpam_reading from = {.at_ns = sim_mpam_machine_start(m),
					.status = PV_VMPAM_MEASURED};
	if (st == PV_VMPAM_MEASURED || st == PV_VMPAM_ESTIMATED)
		pv_vmpam_rate(&from, rd, rate);
	return st;
}

int run_bw_local_reading(const struct run *r, const struct run_vm *v, unsigned node,
			 struct pv_vmpam_reading *rd)
{
	const struct sim_machine *m = r->m;
	if (!m->hw.mpam_sys) {
		*rd = (struct pv_vmpam_reading){.status = PV_VMPAM_NO_DATA};
		return rd->status;
	}
	return pv_vmpam_read_local(m->hw.mpam_sys, &m->vm[v->sim_vm].pv.mpam, node, rd);
}

bool run_local_counted(const struct run *r, char *why, size_t len)
{
	const struct pv_vmpam_sys *sys = r->m->hw.mpam_sys;
	const struct scenario *sc = r->sc;
	snprintf(why, len, "no MPAM");
	if (!sys)
		return false;
	if (sys->local == PV_VMPAM_LOCAL_COUNTED)
		return true;
	if (sys->local == PV_VMPAM_LOCAL_PMG_RANGE) {
		unsigned nodes = sys->nnodes;
		snprintf(why, len,
			 "bytes.local takes a PMG per memory node (PMG_MAX >= %u), and the "
			 "machine "
			 "has PMG_MAX %u (<mpam pmgs='%u'>)",
			 nodes - 1, sys->pmg_max, sc->pmgs);
		return false;
	}
	for (unsigned c = 0; c < sc->cpus; c++) {
		bool local = false;
		for (unsigned k = 0; k < sc->nnodes; k++)
			local |= (sc->node[k].cpus >> c & 1) != 0;
		if (!local) {
			snprintf(why, len,
				 "bytes.local takes every pCPU's memory node, and pCPU %u is "
				 "local to "
				 "none (<memory-node cpus>)",
				 c);
			return false;
		}
	}
	snprintf(why, len, "the hypervisor gave no pCPU topology");
	return false;
}

void run_free(struct run *r)
{
	for (unsigned i = 0; i < r->nvms; i++)
		for (unsigned c = 0; c < DOM_MAX_VCPUS; c++)
			sim_prog_free(&r->vm[i].prog[c]);
	if (r->m) {
		sim_mpam_machine_free(r->m);
		sim_spe_machine_free(r->m);
	}
	free(r->m);
	r->m = NULL;
}
