/* SPDX-License-Identifier: MIT */
/* Running a scenario on the simulated machine (see run.h). */
#include "run.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hooks.h"

/* What a guest with no <guest-pmu> and no enabled perf event counts: perf stat's classics. */
static const uint16_t default_events[] = {PV_EVT_INST_RETIRED, PV_EVT_L1D_CACHE,
					  PV_EVT_L1D_CACHE_REFILL, PV_EVT_BR_RETIRED,
					  PV_EVT_BR_MIS_PRED, PV_EVT_STALL_BACKEND};

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

static uint64_t all_vcpus(const struct domain *dom)
{
	return dom->vcpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dom->vcpus) - 1;
}

bool run_monitor_whole(const struct domain *dom, uint64_t vcpus)
{
	return vcpus == all_vcpus(dom);
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
	const struct pv_vmpam *sys = r->m->hw.mpam_sys;
	const struct scenario *sc = r->sc;
	snprintf(why, len, "no MPAM");
	if (!sys)
		return false;
	if (sys->local == PV_VMPAM_LOCAL_COUNTED)
		return true;
	if (sys->local == PV_VMPAM_LOCAL_PMG_RANGE) {
		unsigned nodes = sys->nnodes;
		snprintf(why, len,
			 "bytes.local takes a PMG per memory node (PMG_MAX >= %u), and the machine "
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
				 "bytes.local takes every pCPU's memory node, and pCPU %u is local to "
				 "none (<memory-node cpus>)",
				 c);
			return false;
		}
	}
	snprintf(why, len, "the hypervisor gave no pCPU topology");
	return false;
}

/* ---- preparing ------------------------------------------------------------------------------ */

static bool machine_event(const struct sim_config *c, int event)
{
	return event >= 0 && event < 64 && (c->pmu.events >> event & 1);
}

/* The perf events the host accounts: every event a domain enables that maps to an Arm event
 * the machine implements, each on one host counter. */
static int plan_host(struct run *r, struct diag *d)
{
	const struct scenario *sc = r->sc;
	unsigned n = 0;
	int seen[DOM_PERF_COUNT];
	const char *who = NULL;
	long who_line = 0;
	char list[256] = "";
	for (unsigned i = 0; i < sc->nvms; i++) {
		const struct domain *dom = &sc->vm[i].dom;
		for (int e = 0; e < DOM_PERF_COUNT; e++) {
			int arm = dom_perf_events[e].arm;
			if (!domxml_perf_accounted(dom, (enum dom_perf_event)e) ||
			    !machine_event(&r->cfg, arm))
				continue;
			bool have = false;
			for (unsigned k = 0; k < n; k++)
				have |= seen[k] == arm;
			if (have)
				continue;
			if (n < SCEN_MAX_HOST_COUNTERS)
				r->host_event[n] = (uint16_t)arm;
			seen[n] = arm;
			size_t l = strlen(list);
			snprintf(list + l, sizeof(list) - l, "%s%s", l ? ", " : "",
				 dom_perf_events[e].name);
			if (++n > (unsigned)(sc->host_counters < 0 ? SCEN_MAX_HOST_COUNTERS
								  : sc->host_counters) &&
			    !who) {
				who = dom->origin;
				who_line = dom->perf_event_line[e];
			}
		}
	}
	if (who) {
		if (sc->host_counters < 0)
			return xerr_at(d, who, who_line, "event",
				       "the domains enable %u distinct perf events (%s), but the host "
				       "can keep at most %d counters to account them",
				       n, list, SCEN_MAX_HOST_COUNTERS);
		return xerr_at(d, who, who_line, "event",
			       "the domains enable %u distinct perf events (%s), but the machine "
			       "reserves host-counters='%d' to account them (%s:%ld)",
			       n, list, sc->host_counters, sc->path, sc->machine_line);
	}
	r->nhost = n;
	unsigned host = sc->host_counters < 0 ? n : (unsigned)sc->host_counters;
	if (host >= sc->pmu_counters)
		return xerr_at(d, sc->path, sc->machine_line, "machine",
			       "%u host counters (for %u perf events) leave none of the %u counters "
			       "to guests",
			       host, n, sc->pmu_counters);
	r->cfg.host_counters = host;
	for (unsigned k = 0; k < n; k++)
		r->cfg.host_events[k] = r->host_event[k];
	return 0;
}

/* The host counts its accounted events at EL0 and EL1 only (P = U = NSH = 0): whatever a
 * guest runs, never the hypervisor. */
static void host_program(struct run *r)
{
	unsigned first = r->sc->pmu_counters - r->cfg.host_counters;
	for (unsigned c = 0; c < r->sc->cpus; c++)
		for (unsigned k = 0; k < r->nhost; k++) {
			sim_cpu_write(&r->m->cpu[c], 2, PV_PMEVTYPER_EL0(first + k), r->host_event[k]);
			sim_cpu_write(&r->m->cpu[c], 2, PV_PMEVCNTR_EL0(first + k), 0);
		}
	r->host_mask = r->sc->pmu_version >= PV_PMUVER_V3P5 ? UINT64_MAX : UINT64_C(0xFFFFFFFF);
}

static const char *feature_name(uint32_t f)
{
	return f == PV_FEAT_SPE ? "SPE" : f == PV_FEAT_AMU ? "the AMU" : "MPAM";
}

static void why_not(char *buf, size_t len, uint32_t f, int err)
{
	if (err == PV_ERR_FEATURE)
		snprintf(buf, len, "the machine does not implement %s", feature_name(f));
	else if (err == PV_ERR_UNSUPPORTED)
		snprintf(buf, len, "this perfvisor does not offer %s to guests yet",
			 feature_name(f));
	else
		snprintf(buf, len, "%s", pv_strerror(err));
}

static unsigned feature_bit(uint32_t f)
{
	return (unsigned)__builtin_ctz(f);
}

/* A tune of part of the VM's vCPUs: not applied, and why. */
static bool part_of_vm(struct run_vm *v, uint64_t vcpus)
{
	const struct domain *dom = &v->sv->dom;
	if (run_monitor_whole(dom, vcpus))
		return false;
	char all[96], set[96];
	cpuset_format(all_vcpus(dom), all, sizeof(all));
	cpuset_format(vcpus, set, sizeof(set));
	snprintf(v->limits_why, sizeof(v->limits_why),
		 "perfvisor limits a VM as a whole; this tune covers vCPUs %s of %s", set, all);
	return true;
}

/* The domain's <memorytune> caps and <cachetune> portions as the VM's MPAM configuration.
 * perfvisor partitions a VM as a whole (its PARTID), so a tune applies when it covers every
 * vCPU. Cache portions are handed out in turn, contiguous, never shared. */
static int mpam_limits(struct run *r, struct run_vm *v, struct diag *d)
{
	const struct domain *dom = &v->sv->dom;
	struct pv_vmpam_config *c = &v->cfg.mpam;
	*c = (struct pv_vmpam_config){.nr_partids = 1};
	if (!r->m->hw.mpam_sys)
		return 0;
	for (unsigned t = 0; t < dom->nmemorytune; t++) {
		const struct dom_memorytune *mt = &dom->memorytune[t];
		if (part_of_vm(v, mt->vcpus))
			continue;
		for (unsigned k = 0; k < mt->nnodes; k++)
			c->mbw_max[mt->node[k].id] =
				(uint8_t)(mt->node[k].percent >= 100 ? 0 : mt->node[k].percent);
		v->memorytune_applied[t] = true;
	}
	for (unsigned t = 0; t < dom->ncachetune; t++) {
		const struct dom_cachetune *ct = &dom->cachetune[t];
		if (part_of_vm(v, ct->vcpus))
			continue;
		for (unsigned k = 0; k < ct->ncaches; k++) {
			const struct dom_cache *want = &ct->cache[k];
			const struct scen_cache *have = &r->sc->cache[0]; /* checked: it exists */
			uint64_t portion = have->bytes / have->portions;
			uint64_t n = (want->bytes + portion - 1) / portion;
			if (r->cache_next + n > have->portions)
				return xerr_at(d, dom->origin, want->line, "cache",
					       "%" PRIu64 " KiB is %" PRIu64 " of the %u portions of L%u "
					       "cache %u, but only %u are left",
					       want->bytes / 1024, n, have->portions, have->level, have->id,
					       have->portions - r->cache_next);
			uint64_t bits = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
			c->cpbm[want->id] = bits << r->cache_next;
			r->cache_next += (unsigned)n;
		}
		v->cachetune_applied[t] = true;
	}
	return 0;
}

/* The domain's configuration against this machine; which optional features pv_vm_init
 * accepts. */
static int resolve_vm(struct run *r, struct run_vm *v, struct pv_vm *scratch, struct diag *d)
{
	const struct domain *dom = &v->sv->dom;
	const struct sim_machine *m = r->m;
	const struct scenario *sc = r->sc;
	struct pv_vm_config cfg = dom->cfg;
	v->requested = cfg.features;
	cfg.features &= PV_FEAT_PMU;
	if (cfg.features & PV_FEAT_PMU) {
		const char *el = "perfvisor:pmu";
		if (dom->pmu_version_auto)
			cfg.pmu.version = m->hw.pmu_version > PV_PMUVER_V3P5 ? PV_PMUVER_V3P5
									     : m->hw.pmu_version;
		else if (cfg.pmu.version > m->hw.pmu_version)
			return xerr_at(d, dom->origin, dom->pmu_line, el,
				       "PMUv%s is above the machine's PMUv%s (%s:%ld)",
				       domxml_pmu_version_name(cfg.pmu.version),
				       domxml_pmu_version_name(m->hw.pmu_version), sc->path,
				       sc->machine_line);
		if (dom->pmu_counters_auto)
			cfg.pmu.nr_counters = m->hw.hpmn;
		else if (cfg.pmu.nr_counters > m->hw.hpmn)
			return xerr_at(d, dom->origin, dom->pmu_line, el,
				       "counters='%u', but the machine leaves %u of its %u counters to "
				       "guests (%u kept by the host; %s:%ld)",
				       cfg.pmu.nr_counters, m->hw.hpmn, m->hw.pmu_counters,
				       m->hw.host_counters, sc->path, sc->machine_line);
	}
	/* SPE: the machine's version (at most SPEv1p2), the buffer the domain may pin. */
	if (v->requested & PV_FEAT_SPE) {
		unsigned ver = m->hw.spe ? m->hw.spehw.version : PV_SPE_V1P2;
		cfg.spe.version = (uint8_t)(ver > PV_SPE_V1P2 ? PV_SPE_V1P2 : ver ? ver : PV_SPE_V1);
		if (!cfg.spe.max_buffer)
			cfg.spe.max_buffer = DOM_SPE_MAX_BUFFER;
	}
	/* The AMU the machine has, without auxiliary counters. */
	if (m->hw.amu)
		cfg.amu = (struct pv_amu_config){.version = m->hw.amuv1p1 ? PV_AMU_V1P1 : PV_AMU_V1};
	/* Trials leave no trace: without the machine's MSC management, no PARTID is taken. */
	struct pv_hw trial = m->hw;
	trial.mpam_sys = NULL;
	trial.mpam_cpu = NULL;
	int err = pv_vm_init(scratch, &trial, &cfg);
	if (err)
		return xerr_at(d, dom->origin, dom->pmu_line ? dom->pmu_line : dom->line,
			       dom->pmu_line ? "perfvisor:pmu" : "domain", "%s", pv_strerror(err));
	static const uint32_t optional[] = {PV_FEAT_SPE, PV_FEAT_AMU};
	uint32_t offered = 0;
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		uint32_t f = optional[i];
		if (!(v->requested & f))
			continue;
		struct pv_vm_config c = cfg;
		c.features |= f;
		err = pv_vm_init(scratch, &trial, &c);
		if (err)
			why_not(v->why[feature_bit(f)], sizeof(v->why[0]), f, err);
		else
			offered |= f;
	}
	cfg.features |= offered;
	if (offered && pv_vm_init(scratch, &trial, &cfg))
		return xerr_at(d, dom->origin, dom->line, "domain",
			       "its features are offered one by one but not together");
	/* MPAM: offered where the machine has it and perfvisor manages its MSCs; pv_vm_init
	 * (sim_add_vm) then takes the VM's PARTID and programs its limits. */
	if (v->requested & PV_FEAT_MPAM) {
		if (m->hw.mpam && m->hw.mpam_sys)
			cfg.features |= PV_FEAT_MPAM;
		else
			why_not(v->why[feature_bit(PV_FEAT_MPAM)], sizeof(v->why[0]), PV_FEAT_MPAM,
				PV_ERR_FEATURE);
	}
	v->cfg = cfg;
	v->spe = cfg.features & PV_FEAT_SPE;
	if (v->spe && run_spe_check(r, v, d))
		return -1;
	return mpam_limits(r, v, d);
}

/* What the guest's own perf programs: <guest-pmu events>, or the events its domain offers,
 * or the classic set; never more than its counters. */
static int guest_events(const struct run *r, struct run_vm *v, struct run_ops *o,
			struct diag *d)
{
	const struct scen_vm *sv = v->sv;
	const struct domain *dom = &sv->dom;
	unsigned max = v->cfg.pmu.nr_counters;
	*o = (struct run_ops){0};
	if (!(v->cfg.features & PV_FEAT_PMU) || sv->nevents == 0)
		return 0;
	o->pmu = true;
	if (sv->nevents != SCEN_GUEST_EVENTS_AUTO) {
		if (sv->nevents > max)
			return xerr_at(d, r->sc->path, sv->guest_pmu_line, "guest-pmu",
				       "%u events, but domain '%s' has %u counters", sv->nevents,
				       dom->name, max);
		o->n = sv->nevents;
		memcpy(o->event, sv->events, sizeof(o->event));
		return 0;
	}
	for (int e = 0; e < DOM_PERF_COUNT && o->n < max; e++)
		if (domxml_perf_accounted(dom, (enum dom_perf_event)e) &&
		    run_hw_event(&r->m->hw, (uint32_t)dom_perf_events[e].arm))
			o->event[o->n++] = (uint16_t)dom_perf_events[e].arm;
	if (o->n == 0)
		for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]) && o->n < max;
		     i++)
			o->event[o->n++] = default_events[i];
	return 0;
}

/* The vCPU's program: perf-stat style counting around the workload, in chunks alternating
 * between EL0 and EL1 in the scenario's proportion. */
static void build_prog(struct sim_prog *p, struct run_vm *v, unsigned c)
{
	const struct scen_vm *sv = v->sv;
	struct run_ops *o = &v->ops[c];
	if (o->pmu) {
		uint32_t enable = UINT32_C(1) << 31;
		for (unsigned i = 0; i < o->n; i++) {
			sim_prog_msr(p, 1, PV_PMEVTYPER_EL0(i), o->event[i]); /* EL0 and EL1 */
			sim_prog_msr(p, 1, PV_PMEVCNTR_EL0(i), 0);
			enable |= UINT32_C(1) << i;
		}
		sim_prog_msr(p, 1, PV_PMCCFILTR_EL0, 0);
		sim_prog_msr(p, 1, PV_PMCCNTR_EL0, 0);
		sim_prog_msr(p, 1, PV_PMCNTENSET_EL0, enable);
		o->start = sim_prog_msr(p, 1, PV_PMCR_EL0, PV_PMCR_E);
	}
	if (v->spe)
		run_spe_prog_start(p, v, c);
	uint64_t left = sv->instructions;
	uint64_t chunk = sv->instructions / 1000;
	if (chunk < 50000)
		chunk = 50000;
	unsigned acc = 0;
	while (left) {
		uint64_t n = left < chunk ? left : chunk;
		acc += sv->el0_percent;
		unsigned el = acc >= 100 ? 0 : 1;
		if (acc >= 100)
			acc -= 100;
		sim_prog_workload(p, el, sv->profile, n);
		left -= n;
	}
	if (v->spe)
		v->spe_stop[c] = run_spe_prog_stop(p);
	if (o->pmu) {
		for (unsigned i = 0; i < o->n; i++)
			o->read[i] = sim_prog_mrs(p, 1, PV_PMEVCNTR_EL0(i));
		o->read[o->n] = sim_prog_mrs(p, 1, PV_PMCCNTR_EL0);
	}
}

int run_prepare(struct run *r, const struct scenario *sc, struct diag *d)
{
	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->nvms = sc->nvms;
	sim_config_default(&r->cfg);
	r->cfg.cpus = sc->cpus;
	r->cfg.pmu.counters = (uint8_t)sc->pmu_counters;
	r->cfg.pmu.version = sc->pmu_version;
	r->cfg.seed = sc->seed;
	r->cfg.slice_min = sc->slice_min;
	r->cfg.slice_max = sc->slice_max;
	r->cfg.cpu_khz[0] = sc->mhz * 1000u; /* the pCPUs' clock, for time and bytes/s */
	if (sc->amu) {
		r->cfg.amu.version = 2; /* AMUv1p1 with FEAT_FGT: the virtual-offset path */
		r->cfg.fgt = true;
	}
	if (sc->spe) { /* SPE units, and memory with a stage 2 per VM for their buffers */
		r->cfg.spe.unit.version = sc->spe;
		r->cfg.spe.vm_ram = run_spe_vm_ram();
		r->cfg.spe.ram = run_spe_vm_ram() * (sc->nvms + 1);
		r->cfg.fgt = true;
	}
	if (sc->mpam_line) {
		struct sim_mpam_config *mp = &r->cfg.mpam;
		*mp = (struct sim_mpam_config){.mons = (uint16_t)sc->bw_monitors,
					       .partid_max = (uint16_t)(sc->partids - 1),
					       .pmg_max = (uint8_t)(sc->pmgs - 1), .nrdy_ns = 20000,
					       .tick_ns = sc->mpam_tick_ns};
		for (unsigned k = 0; k < sc->nnodes; k++) {
			mp->nodes |= (uint8_t)(1u << sc->node[k].id);
			mp->capacity[sc->node[k].id] = sc->node[k].bandwidth;
		}
		/* The hypervisor knows each pCPU's memory node (<memory-node cpus>) and gives
		 * vmpam the topology when every pCPU has one: bytes.local. */
		mp->topology = true;
		for (unsigned c = 0; c < sc->cpus; c++) {
			mp->cpu_node[c] = SIM_MPAM_NO_NODE;
			for (unsigned k = 0; k < sc->nnodes; k++)
				if (sc->node[k].cpus >> c & 1)
					mp->cpu_node[c] = (uint8_t)sc->node[k].id;
			mp->topology &= mp->cpu_node[c] != SIM_MPAM_NO_NODE;
		}
		if (sc->ncaches) {
			mp->cache_portions = (uint16_t)sc->cache[0].portions;
			mp->cache_id = (uint8_t)sc->cache[0].id;
		}
	}
	if (plan_host(r, d))
		return -1;

	r->m = calloc(1, sizeof(*r->m));
	struct pv_vm *scratch = malloc(sizeof(*scratch));
	if (!r->m || !scratch) {
		free(scratch);
		run_free(r);
		return xerr_plain(d, "out of memory");
	}
	int err = sim_init(r->m, &r->cfg);
	if (err) {
		free(scratch);
		run_free(r);
		return xerr_at(d, sc->path, sc->machine_line, "machine", "%s", pv_strerror(err));
	}
	host_program(r);

	/* Every VM is checked before any is created. */
	int rc = 0;
	for (unsigned i = 0; i < sc->nvms && !rc; i++) {
		struct run_vm *v = &r->vm[i];
		v->sv = &sc->vm[i];
		rc = resolve_vm(r, v, scratch, d);
		for (unsigned c = 0; c < v->sv->dom.vcpus && !rc; c++)
			rc = guest_events(r, v, &v->ops[c], d);
	}
	free(scratch);
	if (rc) {
		run_free(r);
		return -1;
	}

	unsigned next_cpu = 0;
	for (unsigned i = 0; i < sc->nvms; i++) {
		struct run_vm *v = &r->vm[i];
		const struct domain *dom = &v->sv->dom;
		int vm = sim_add_vm(r->m, &v->cfg);
		if (vm < 0) {
			run_free(r);
			return xerr_at(d, dom->origin, dom->line, "domain", "%s", pv_strerror(vm));
		}
		v->sim_vm = (unsigned)vm;
		v->first_vcpu = r->m->nvcpus;
		for (unsigned c = 0; c < dom->vcpus; c++) {
			unsigned cpu = dom->pin[c] >= 0 ? (unsigned)dom->pin[c] : next_cpu++ % sc->cpus;
			sim_prog_init(&v->prog[c]);
			build_prog(&v->prog[c], v, c);
			int vc = sim_add_vcpu(r->m, (unsigned)vm, cpu, &v->prog[c]);
			if (vc < 0) {
				run_free(r);
				return xerr_at(d, dom->origin, dom->line, "domain",
					       "cannot add vCPU %u", c);
			}
			/* Its memory traffic while it runs, to its workload's node or its own. */
			v->traffic_node[c] = v->sv->memory_node >= 0
						     ? (unsigned)v->sv->memory_node
						     : scenario_local_node(sc, cpu)->id;
			v->traffic_rate[c] = run_workload_rate(sc, v->sv);
			if (r->m->mpam_machine)
				sim_mpam_machine_traffic(r->m, (unsigned)vc, v->traffic_node[c],
							 v->traffic_rate[c], 60);
		}
		if (v->spe && run_spe_guest(r, v, d)) {
			run_free(r);
			return -1;
		}
	}
	return 0;
}

/* ---- running -------------------------------------------------------------------------------- */

static uint64_t vcpu_cycles(const struct sim_vcpu *v)
{
	return v->truth.now.ev[0][SIM_EV_CPU_CYCLES] + v->truth.now.ev[1][SIM_EV_CPU_CYCLES];
}

static unsigned run_vm_of(const struct run *r, unsigned vcpu)
{
	unsigned idx = r->m->vcpu[vcpu].vm->idx;
	for (unsigned i = 0; i < r->nvms; i++)
		if (r->vm[i].sim_vm == idx)
			return i;
	return 0;
}

/* After a step: each pCPU ran at most one vCPU (the one its round-robin cursor names); what
 * the host counted at EL0/EL1 meanwhile is that VM's. The pCPU clocks advance by the cycles
 * run at EL2 and by the guests. */
static void account(struct run *r, const unsigned *cpu_of)
{
	struct sim_machine *m = r->m;
	for (unsigned c = 0; c < r->sc->cpus; c++) {
		struct sim_cpu *cpu = &m->cpu[c];
		uint64_t el2 = cpu->truth.el2[SIM_EV_CPU_CYCLES];
		r->cycles[c] += el2 - r->el2_prev[c];
		r->el2_prev[c] = el2;
		for (unsigned k = 0; k < r->nhost; k++) {
			uint64_t now = sim_host_counter(m, c, k);
			uint64_t delta = (now - r->host_prev[c][k]) & r->host_mask;
			r->host_prev[c][k] = now;
			if (delta)
				r->vm[run_vm_of(r, cpu->rr)].host[k] += delta;
		}
	}
	for (unsigned i = 0; i < m->nvcpus; i++) {
		uint64_t cyc = vcpu_cycles(&m->vcpu[i]);
		r->cycles[cpu_of[i]] += cyc - r->vcpu_prev[i];
		r->vcpu_prev[i] = cyc;
	}
}

static uint64_t clock_max(const struct run *r)
{
	uint64_t t = 0;
	for (unsigned c = 0; c < r->sc->cpus; c++)
		if (r->cycles[c] > t)
			t = r->cycles[c];
	return t;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void show_progress(const struct run *r, FILE *tty, uint64_t limit)
{
	const struct sim_machine *m = r->m;
	uint64_t total = 0, done = 0;
	for (unsigned i = 0; i < m->nvcpus; i++) {
		total += m->vcpu[i].prog->n;
		done += m->vcpu[i].done ? m->vcpu[i].prog->n : m->vcpu[i].pc;
	}
	double frac = total ? (double)done / (double)total : 1.0;
	if (limit && (double)clock_max(r) / (double)limit > frac)
		frac = (double)clock_max(r) / (double)limit;
	fprintf(tty, "\rperfvisor: %s: %3.0f%%, %.3f ms simulated ", r->sc->name, frac * 100.0,
		(double)clock_max(r) / (r->sc->mhz * 1e3));
	fflush(tty);
}

void run_execute(struct run *r, FILE *tty)
{
	struct sim_machine *m = r->m;
	uint64_t limit = r->sc->duration_ns ? r->sc->duration_ns * r->sc->mhz / 1000 : 0;
	unsigned cpu_of[SIM_MAX_VCPUS];
	double last = tty ? now_seconds() : 0;
	bool shown = tty != NULL;
	if (tty)
		show_progress(r, tty, limit);
	for (;;) {
		for (unsigned i = 0; i < m->nvcpus; i++)
			cpu_of[i] = m->vcpu[i].cpu->idx;
		bool any = sim_step(m);
		account(r, cpu_of);
		r->steps++;
		run_spe_step(r);
		if (!any)
			break;
		if (limit && clock_max(r) >= limit) {
			for (unsigned i = 0; i < m->nvcpus; i++)
				r->cut |= !m->vcpu[i].done;
			break;
		}
		if (tty && (r->steps & 255) == 0) {
			double t = now_seconds();
			if (t - last >= 0.1) {
				show_progress(r, tty, limit);
				last = t;
				shown = true;
			}
		}
	}
	/* The memory system serves what the vCPUs ran up to the last instant, and the bandwidth
	 * monitors are read there. */
	sim_mpam_machine_flush(m);
	run_spe_finish(r);
	if (shown) {
		fputs("\r\033[K", tty);
		fflush(tty);
	}
}

/* ---- figures -------------------------------------------------------------------------------- */

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
			n += (size_t)snprintf(buf + n, len - n, "%s0x%04X-0x%04X", first ? "" : ", ",
					      f->base_event, f->base_event + f->nevents - 1);
			first = false;
			continue;
		}
		for (unsigned e = f->base_event; e < (unsigned)f->base_event + f->nevents && n < len;
		     e++) {
			char name[32];
			rep_event_name(e, name, sizeof(name));
			n += (size_t)snprintf(buf + n, len - n, "%s%s", first ? "" : ", ", name);
			first = false;
		}
	}
}

static int host_slot(const struct run *r, int arm)
{
	for (unsigned k = 0; k < r->nhost; k++)
		if (r->host_event[k] == arm)
			return (int)k;
	return -1;
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
		int slot = host_slot(r, info->arm);
		if (info->arm < 0)
			snprintf(p->why, sizeof(p->why), "no Arm PMUv3 equivalent: %s", info->text);
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
			if (!(p->cnten >> i & 1) || (i != REP_CYCLE_COUNTER && i >= v->cfg.pmu.nr_counters))
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
	rep->seconds = (double)clock_max(r) / ((double)sc->mhz * 1e6);
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

/* ---- checking against the ground truth ------------------------------------------------------ */

unsigned run_traffic(const struct run *r, struct rep_traffic *out, unsigned max)
{
	const struct sim_machine *m = r->m;
	uint64_t ns = sim_mpam_machine_now(m) - sim_mpam_machine_start(m);
	unsigned n = 0;
	for (unsigned i = 0; ns && i < r->nvms; i++) {
		const struct run_vm *v = &r->vm[i];
		for (unsigned k = 0; k < r->sc->nnodes && n < max; k++) {
			unsigned id = r->sc->node[k].id;
			uint64_t asked = sim_mpam_machine_vm_bytes(m, v->sim_vm, id, true);
			if (!asked)
				continue;
			struct rep_traffic *t = &out[n++];
			snprintf(t->domain, sizeof(t->domain), "%s", v->sv->dom.name);
			t->node = id;
			t->asked = (uint64_t)((unsigned __int128)asked * 1000000000u / ns);
			t->moved = (uint64_t)((unsigned __int128)sim_mpam_machine_vm_bytes(
							m, v->sim_vm, id, false) *
					      1000000000u / ns);
			t->moved_local = (uint64_t)((unsigned __int128)sim_mpam_machine_vm_local_bytes(
							    m, v->sim_vm, id) *
						    1000000000u / ns);
			unsigned cap = m->vm[v->sim_vm].pv.mpam.cfg.mbw_max[id];
			t->limit_percent = cap < 100 ? cap : 0;
			t->node_bandwidth = r->sc->node[k].bandwidth;
		}
	}
	return n;
}

struct checks {
	struct rep_check *c;
	unsigned n, cap, bad;
};

static void check(struct checks *k, const char *domain, uint64_t figure, uint64_t truth,
		  uint64_t bound, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void check(struct checks *k, const char *domain, uint64_t figure, uint64_t truth,
		  uint64_t bound, const char *fmt, ...)
{
	if (k->n == k->cap) {
		unsigned cap = k->cap ? k->cap * 2 : 64;
		struct rep_check *c = realloc(k->c, cap * sizeof(*c));
		if (!c) {
			k->bad++;
			return;
		}
		k->c = c;
		k->cap = cap;
	}
	struct rep_check *c = &k->c[k->n++];
	snprintf(c->domain, sizeof(c->domain), "%s", domain);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
	c->figure = figure;
	c->truth = truth;
	c->bound = bound;
	k->bad += !rep_check_ok(c);
}

/* What a guest counter of `event` must hold between two instants: the guest's EL0 and EL1
 * events, nothing if the filter denies it or the machine lacks it; 32 bits before PMUv3p5. */
static uint64_t expect(const struct run *r, const struct run_vm *v, uint32_t event, bool cycle,
		       const struct sim_snap *from, const struct sim_snap *to)
{
	if (!run_filter_allows(&v->cfg.pmu, event) || (!cycle && !run_hw_event(&r->m->hw, event)))
		return 0;
	uint64_t t = sim_snap_delta(from, to, event, 3);
	if (!cycle && v->cfg.pmu.version < PV_PMUVER_V3P5)
		t &= UINT64_C(0xFFFFFFFF);
	return t;
}

static void verify_vcpu(const struct run *r, const struct run_vm *v, unsigned c,
			struct checks *k)
{
	const struct run_ops *o = &v->ops[c];
	struct sim_vcpu *sv = &r->m->vcpu[v->first_vcpu + c];
	const struct sim_prog *p = &v->prog[c];
	const char *name = v->sv->dom.name;
	if (!o->pmu || p->ops[o->start].outcome != SIM_OUT_OK)
		return;
	const struct sim_snap *from = &p->ops[o->start].at;
	for (unsigned i = 0; i <= o->n; i++) {
		bool cycle = i == o->n;
		unsigned idx = cycle ? REP_CYCLE_COUNTER : i;
		uint32_t ev = cycle ? PV_EVT_CPU_CYCLES : o->event[i];
		char reg[16], evn[24];
		snprintf(reg, sizeof(reg), cycle ? "PMCCNTR" : "PMEVCNTR%u", i);
		rep_event_name(ev, evn, sizeof(evn));
		const struct sim_op *rd = &p->ops[o->read[i]];
		if (rd->outcome == SIM_OUT_OK)
			check(k, name, rd->value, expect(r, v, ev, cycle, from, &rd->at), 0,
			      "vCPU %u %s %s, read by the guest", c, reg, evn);
		check(k, name, pv_vpmu_counter(&sv->pv, idx),
		      expect(r, v, ev, cycle, from, &sv->truth.now), 0, "vCPU %u %s %s, stats", c,
		      reg, evn);
	}
}

/* The AMU counters of a vCPU against what its pCPUs counted while it was loaded
 * (sim_vcpu.amu), and the frequency they give against the clock it ran at. */
static void verify_amu(const struct run *r, const struct run_vm *v, unsigned c,
		       struct checks *k)
{
	if (!(v->cfg.features & PV_FEAT_AMU))
		return;
	struct sim_vcpu *sv = &r->m->vcpu[v->first_vcpu + c];
	static const char *const names[REP_AMU_COUNT] = {"CPU_CYCLES", "CNT_CYCLES",
							 "INST_RETIRED", "STALL_BACKEND_MEM"};
	for (unsigned i = 0; i < REP_AMU_COUNT; i++)
		check(k, v->sv->dom.name, pv_vamu_counter(&sv->pv, i), sv->amu.cnt[i], 0,
		      "vCPU %u AMU %s", c, names[i]);
	double cycles = 0, ms = 0;
	for (unsigned l = 0; l < r->cfg.nfreqs; l++) {
		cycles += (double)sv->amu.cycles_at[l];
		ms += (double)sv->amu.cycles_at[l] / r->cfg.cpu_khz[l];
	}
	uint64_t cnt = pv_vamu_counter(&sv->pv, PV_AMU_CNT_CYCLES);
	double mhz = cnt ? (double)pv_vamu_counter(&sv->pv, 0) / (double)cnt * r->cfg.cnt_khz / 1e3
			 : 0;
	check(k, v->sv->dom.name, (uint64_t)(mhz + 0.5), ms > 0 ? (uint64_t)(cycles / ms / 1e3 + 0.5) : 0,
	      0, "vCPU %u AMU frequency, MHz", c);
}

/* Each bandwidth figure against the bytes the VM's vCPUs really moved through the node
 * (the traffic model, after throttling): equal while monitors suffice, within the bound
 * while they rotate. bytes.local against the bytes they moved there while running on a pCPU
 * local to the node: the model's truth knows the sending pCPU, not the label. */
static void verify_bandwidth(const struct run *r, const struct run_vm *v, struct checks *k)
{
	const struct domain *dom = &v->sv->dom;
	if (!(v->cfg.features & PV_FEAT_MPAM) || !r->m->hw.mpam_sys)
		return;
	for (unsigned t = 0; t < dom->nmemorytune; t++)
		for (unsigned j = 0; j < dom->memorytune[t].nmonitors; j++) {
			uint64_t vcpus = dom->memorytune[t].monitor[j].vcpus;
			if (!run_monitor_whole(dom, vcpus))
				continue;
			char name[80];
			domxml_monitor_name(vcpus, name, sizeof(name));
			for (unsigned n = 0; n < r->sc->nnodes; n++) {
				unsigned id = r->sc->node[n].id;
				struct pv_vmpam_reading rd;
				struct pv_vmpam_rate rate;
				int st = run_bw_reading(r, v, id, &rd, &rate);
				if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
					continue;
				check(k, dom->name, rd.bytes,
				      sim_mpam_machine_vm_bytes(r->m, v->sim_vm, id, false), rd.bound,
				      "%s memory node %u bytes", name, id);
				st = run_bw_local_reading(r, v, id, &rd);
				if (st != PV_VMPAM_MEASURED && st != PV_VMPAM_ESTIMATED)
					continue;
				check(k, dom->name, rd.bytes,
				      sim_mpam_machine_vm_local_bytes(r->m, v->sim_vm, id), rd.bound,
				      "%s memory node %u local bytes", name, id);
			}
		}
}

/* SPE: the records decoded from what the guest's driver collected against the samples the
 * units wrote for the VM, one by one; the library's interrupts against those the guest's
 * driver serviced; no record lost, no buffer fault seen by the guest, no pin left. */
static void verify_spe(const struct run *r, const struct run_vm *v, struct checks *k)
{
	if (!v->spe)
		return;
	const char *name = v->sv->dom.name;
	uint64_t events = 0, lost = 0, pinned = 0, s2_faults = 0, s2_repaired = 0;
	for (unsigned c = 0; c < v->sv->dom.vcpus; c++) {
		const struct pv_vspe *s = &r->m->vcpu[v->first_vcpu + c].pv.spe;
		events += s->stats.events;
		lost += s->stats.records_lost;
		pinned += s->pinned_bytes;
		s2_faults += s->stats.s2_faults;
		s2_repaired += s->stats.s2_repaired;
	}
	struct run_spe_tally t;
	run_spe_tally(r, v, &t);
	check(k, name, t.decoded, t.written, 0, "SPE records decoded from the guest's buffer");
	check(k, name, t.matched, t.written, 0, "SPE records equal to the samples taken");
	check(k, name, t.valid, t.written, 0, "SPE records valid (PC, operation, nothing physical)");
	check(k, name, t.undecodable, 0, 0, "SPE bytes that do not decode");
	check(k, name, events, t.irqs, 0, "SPE buffer interrupts serviced by the guest");
	check(k, name, lost, t.lost, 0, "SPE records lost");
	check(k, name, s2_faults - s2_repaired + t.guest_faults, 0, 0,
	      "SPE buffer faults seen by the guest");
	if (!r->cut)
		check(k, name, pinned, t.s2_pinned, 0, "SPE bytes pinned at the end");
}

unsigned run_verify(const struct run *r, struct rep_check **checks, unsigned *n)
{
	struct checks k = {0};
	static const struct sim_snap zero;
	for (unsigned i = 0; i < r->nvms; i++) {
		const struct run_vm *v = &r->vm[i];
		const struct domain *dom = &v->sv->dom;
		for (unsigned c = 0; c < dom->vcpus; c++)
			verify_vcpu(r, v, c, &k);
		for (int e = 0; e < DOM_PERF_COUNT; e++) {
			int slot = host_slot(r, dom_perf_events[e].arm);
			if (!domxml_perf_accounted(dom, (enum dom_perf_event)e) || slot < 0)
				continue;
			uint64_t truth = 0;
			for (unsigned c = 0; c < dom->vcpus; c++)
				truth += sim_snap_delta(&zero, &r->m->vcpu[v->first_vcpu + c].truth.now,
							(uint32_t)dom_perf_events[e].arm, 3);
			check(&k, dom->name, v->host[slot], truth, 0, "perf.%s", dom_perf_events[e].name);
		}
		for (unsigned c = 0; c < dom->vcpus; c++)
			verify_amu(r, v, c, &k);
		verify_bandwidth(r, v, &k);
		verify_spe(r, v, &k);
	}
	*checks = k.c;
	*n = k.n;
	return k.bad;
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
