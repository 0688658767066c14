/* SPDX-License-Identifier: MIT */
/* Running a scenario (run.h), phase 1: the plan, from the scenario to a machine, its VMs and their programs. */
#include "run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What a guest with no <guest-pmu> and no enabled perf event counts: perf stat's classics. */
static const uint16_t default_events[] = {PV_EVT_INST_RETIRED,     PV_EVT_L1D_CACHE,
					  PV_EVT_L1D_CACHE_REFILL, PV_EVT_BR_RETIRED,
					  PV_EVT_BR_MIS_PRED,      PV_EVT_STALL_BACKEND};

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
			return xerr_at(
				d, who, who_line, "event",
				"the domains enable %u distinct perf events (%s), but the host "
				"can keep at most %d counters to account them",
				n, list, SCEN_MAX_HOST_COUNTERS);
		return xerr_at(
			d, who, who_line, "event",
			"the domains enable %u distinct perf events (%s), but the machine "
			"reserves host-counters='%d' to account them (%s:%ld)",
			n, list, sc->host_counters, sc->path, sc->machine_line);
	}
	r->nhost = n;
	unsigned host = sc->host_counters < 0 ? n : (unsigned)sc->host_counters;
	if (host >= sc->pmu_counters)
		return xerr_at(
			d, sc->path, sc->machine_line, "machine",
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
			sim_cpu_write(&r->m->cpu[c], 2, PV_PMEVTYPER_EL0(first + k),
				      r->host_event[k]);
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
	cpuset_format(run_all_vcpus(dom), all, sizeof(all));
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
			const struct scen_cache *have =
				&r->sc->cache[0]; /* checked: it exists */
			uint64_t portion = have->bytes / have->portions;
			uint64_t n = (want->bytes + portion - 1) / portion;
			if (r->cache_next + n > have->portions)
				return xerr_at(d, dom->origin, want->line, "cache",
					       "%" PRIu64 " KiB is %" PRIu64
					       " of the %u portions of L%u "
					       "cache %u, but only %u are left",
					       want->bytes / 1024, n, have->portions,
					       have->level, have->id,
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
			cfg.pmu.version = m->hw.pmu_version > PV_PMUVER_V3P5
						  ? PV_PMUVER_V3P5
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
				       "counters='%u', but the machine leaves %u of its %u "
				       "counters to "
				       "guests (%u kept by the host; %s:%ld)",
				       cfg.pmu.nr_counters, m->hw.hpmn, m->hw.pmu_counters,
				       m->hw.host_counters, sc->path, sc->machine_line);
	}
	/* SPE: the machine's version (at most SPEv1p2), the buffer the domain may pin. */
	if (v->requested & PV_FEAT_SPE) {
		unsigned ver = m->hw.spe ? m->hw.spehw.version : PV_SPE_V1P2;
		cfg.spe.version = (uint8_t)(ver > PV_SPE_V1P2 ? PV_SPE_V1P2
					    : ver             ? ver
							      : PV_SPE_V1);
		if (!cfg.spe.max_buffer)
			cfg.spe.max_buffer = DOM_SPE_MAX_BUFFER;
	}
	/* The AMU the machine has, without auxiliary counters. */
	if (m->hw.amu)
		cfg.amu = (struct pv_amu_config){.version = m->hw.amuv1p1 ? PV_AMU_V1P1
									  : PV_AMU_V1};
	/* Trials leave no trace: without the machine's MSC management, no PARTID is taken. */
	struct pv_hw trial = m->hw;
	trial.mpam_sys = NULL;
	trial.mpam_cpu = NULL;
	int err = pv_vm_init(scratch, &trial, &cfg);
	if (err)
		return xerr_at(d, dom->origin, dom->pmu_line ? dom->pmu_line : dom->line,
			       dom->pmu_line ? "perfvisor:pmu" : "domain", "%s",
			       pv_strerror(err));
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
			why_not(v->why[feature_bit(PV_FEAT_MPAM)], sizeof(v->why[0]),
				PV_FEAT_MPAM, PV_ERR_FEATURE);
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
				       "%u events, but domain '%s' has %u counters",
				       sv->nevents, dom->name, max);
		o->n = sv->nevents;
		memcpy(o->event, sv->events, sizeof(o->event));
		return 0;
	}
	for (int e = 0; e < DOM_PERF_COUNT && o->n < max; e++)
		if (domxml_perf_accounted(dom, (enum dom_perf_event)e) &&
		    run_hw_event(&r->m->hw, (uint32_t)dom_perf_events[e].arm))
			o->event[o->n++] = (uint16_t)dom_perf_events[e].arm;
	if (o->n == 0)
		for (size_t i = 0;
		     i < sizeof(default_events) / sizeof(default_events[0]) && o->n < max; i++)
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
					       .pmg_max = (uint8_t)(sc->pmgs - 1),
					       .nrdy_ns = 20000,
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
		return xerr_at(d, sc->path, sc->machine_line, "machine", "%s",
			       pv_strerror(err));
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
			return xerr_at(d, dom->origin, dom->line, "domain", "%s",
				       pv_strerror(vm));
		}
		v->sim_vm = (unsigned)vm;
		v->first_vcpu = r->m->nvcpus;
		for (unsigned c = 0; c < dom->vcpus; c++) {
			unsigned cpu = dom->pin[c] >= 0 ? (unsigned)dom->pin[c]
							: next_cpu++ % sc->cpus;
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
