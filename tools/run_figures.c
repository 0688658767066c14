/* SPDX-License-Identifier: MIT */
/* Running a scenario (run.h), phase 3: the figures a report shows. */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "hooks.h"

/* The filter in words: the events by name ("only INST_RETIRED, CPU_CYCLES"), long ranges in
 * hex. */
static void filter_text(const struct pv_pmu_config *p, char *buf, size_t len)
{
	if (!p->nr_filters) {
		snprintf(buf, len, "every event");
		return;
	}
	bool allow = p->filters[0].action == PV_PMU_FILTER_ALLOW;
	size_t n = (size_t)snprintf(buf, len, "%s", allow ? "only " : "every event but ");
	bool first = true;
	for (unsigned i = 0; i < p->nr_filters && n < len; i++) {
		const struct pv_pmu_filter *f = &p->filters[i];
		if (f->nevents > 8) {
			n += (size_t)snprintf(buf + n, len - n, "%s0x%04X-0x%04X",
					      first ? "" : ", ", f->base_event,
					      f->base_event + f->nevents - 1);
			first = false;
			continue;
		}
		for (unsigned e = f->base_event;
		     e < (unsigned)f->base_event + f->nevents && n < len; e++) {
			char name[32];
			rep_event_name(e, name, sizeof(name));
			n += (size_t)snprintf(buf + n, len - n, "%s%s", first ? "" : ", ",
					      name);
			first = false;
		}
	}
}

static void report_perf(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	const struct domain *dom = &v->sv->dom;
	for (int e = 0; e < DOM_PERF_COUNT; e++) {
		if (dom->perf[e] != DOM_PERF_ENABLED)
			continue;
		struct rep_perf *p = &out->perf[out->nperf++];
		const struct dom_perf_info *info = &dom_perf_events[e];
		p->event = (enum dom_perf_event)e;
		p->state = REP_NOT_OFFERED;
		int slot = run_host_slot(r, info->arm);
		if (info->arm < 0)
			snprintf(p->why, sizeof(p->why), "no Arm PMUv3 equivalent: %s",
				 info->text);
		else if (!run_hw_event(&r->m->hw, (uint32_t)info->arm))
			snprintf(p->why, sizeof(p->why),
				 "the machine's PMU does not implement %s (0x%02X)", info->text,
				 info->arm);
		else if (slot >= 0) {
			p->state = REP_MEASURED;
			p->value = v->host[slot];
		}
	}
}

static void report_vcpus(const struct run *r, const struct run_vm *v, struct rep_domain *out)
{
	struct sim_machine *m = r->m;
	for (unsigned c = 0; c < out->nvcpus; c++) {
		struct sim_vcpu *sv = &m->vcpu[v->first_vcpu + c];
		struct rep_vcpu *rv = &out->vcpu[c];
		rv->id = c;
		rv->pcpu = sv->cpu->idx;
		rv->loads = sv->pv.stats.loads;
		rv->traps = sv->pv.stats.traps[PV_KIND_PMU];
		if (!(v->cfg.features & PV_FEAT_PMU))
			continue;
		const struct pv_vpmu *p = &sv->pv.pmu;
		for (unsigned i = 0; i < 32; i++) {
			if (!(p->cnten >> i & 1) ||
			    (i != REP_CYCLE_COUNTER && i >= v->cfg.pmu.nr_counters))
				continue;
			struct rep_counter *rc = &rv->counter[rv->ncounters++];
			rc->index = i;
			rc->event = i == REP_CYCLE_COUNTER ? PV_EVT_CPU_CYCLES
							   : (uint32_t)(p->evtyper[i] & 0xFFFF);
			rc->value = pv_vpmu_counter(&sv->pv, i);
		}
	}
}

int run_report(const struct run *r, struct report *rep)
{
	const struct scenario *sc = r->sc;
	memset(rep, 0, sizeof(*rep));
	rep->domain = calloc(r->nvms, sizeof(*rep->domain));
	if (!rep->domain)
		return -1;
	snprintf(rep->scenario, sizeof(rep->scenario), "%s", sc->name);
	snprintf(rep->source, sizeof(rep->source), "%s", sc->path);
	rep->cpus = sc->cpus;
	rep->mhz = sc->mhz;
	rep->pmu_version = sc->pmu_version;
	rep->pmu_counters = sc->pmu_counters;
	rep->host_counters = r->cfg.host_counters;
	rep->amu = r->m->hw.amu;
	rep->spe = sc->spe;
	rep->mpam = r->m->hw.mpam_sys != NULL;
	rep->partids = sc->partids;
	rep->bw_monitors = sc->bw_monitors;
	rep->pmgs = sc->pmgs;
	rep->local_counted = run_local_counted(r, rep->local_why, sizeof(rep->local_why));
	rep->nnodes = sc->nnodes;
	for (unsigned k = 0; k < sc->nnodes; k++) {
		rep->node[k].id = sc->node[k].id;
		rep->node[k].cpus = sc->node[k].cpus;
		rep->node[k].bandwidth = sc->node[k].bandwidth;
	}
	rep->seconds = (double)run_clock_max(r) / ((double)sc->mhz * 1e6);
	rep->cut = r->cut;
	for (unsigned c = 0; c < sc->cpus; c++) {
		rep->switches += r->m->cpu[c].stats.switches;
		rep->traps += r->m->cpu[c].stats.traps;
		rep->irqs += r->m->cpu[c].stats.irqs;
	}
	rep->ndomains = r->nvms;
	for (unsigned i = 0; i < r->nvms; i++) {
		const struct run_vm *v = &r->vm[i];
		const struct domain *dom = &v->sv->dom;
		struct rep_domain *out = &rep->domain[i];
		out->def = dom;
		snprintf(out->name, sizeof(out->name), "%s", dom->name);
		snprintf(out->uuid, sizeof(out->uuid), "%s", dom->uuid);
		out->nvcpus = dom->vcpus;
		out->pmu = v->cfg.features & PV_FEAT_PMU;
		if (out->pmu) {
			out->pmu_version = v->cfg.pmu.version;
			out->pmu_counters = v->cfg.pmu.nr_counters;
			filter_text(&v->cfg.pmu, out->pmu_filter, sizeof(out->pmu_filter));
		}
		report_vcpus(r, v, out);
		report_perf(r, v, out);
		hook_spe(r, v, out);
		hook_amu(r, v, out);
		hook_mpam(r, v, out);
	}
	return 0;
}

void report_free(struct report *rep)
{
	free(rep->domain);
	rep->domain = NULL;
}
