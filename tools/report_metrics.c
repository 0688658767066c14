/* SPDX-License-Identifier: MIT */
/*
 * A report as metrics, in either text format a Prometheus server reads (expo.h): OpenMetrics
 * 1.0.0 (`--format openmetrics`) or the Prometheus text format 0.0.4 (`--format prometheus`,
 * what node_exporter's textfile collector and promtool take). One family per figure, the
 * domain (and vCPU, monitor, node) as labels. A family is written only when it has a sample:
 * nothing that was not measured appears. Rates are not exported: Prometheus computes them
 * from the counters (rate()), as its naming rules ask.
 */
#include <string.h>

#include "expo.h"
#include "report.h"

static bool any_perf(const struct report *r)
{
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned k = 0; k < r->domain[i].nperf; k++)
			if (r->domain[i].perf[k].state == REP_MEASURED)
				return true;
	return false;
}

static void perf(const struct report *r, struct expo *e)
{
	if (!any_perf(r))
		return;
	expo_family(
		e, "perfvisor_domain_perf_events_total", EXPO_COUNTER, NULL,
		"Count of an event the domain enables in <perf>, made by the host's own PMU "
		"counters while the domain's vCPUs ran (virsh domstats perf.<event>).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned k = 0; k < d->nperf; k++) {
			const struct rep_perf *p = &d->perf[k];
			if (p->state != REP_MEASURED)
				continue;
			const struct dom_perf_info *info = &dom_perf_events[p->event];
			char arm[16];
			snprintf(arm, sizeof(arm), "0x%04X", info->arm);
			const char *l[] = {"domain",    d->name, "event", info->name,
					   "arm_event", arm,     NULL};
			expo_sample(e, l, p->value);
		}
	}
}

static void counters(const struct report *r, struct expo *e)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned c = 0; c < r->domain[i].nvcpus; c++)
			any |= r->domain[i].vcpu[c].ncounters > 0;
	if (!any)
		return;
	expo_family(e, "perfvisor_vcpu_pmu_events", EXPO_GAUGE, NULL,
		    "Value of a virtual PMU counter of a vCPU, with the event the guest "
		    "programmed: its number, and its name as perf spells it (the guest may "
		    "write or reset it: a gauge).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			for (unsigned k = 0; k < v->ncounters; k++) {
				char id[16], reg[16], num[16], ev[32];
				snprintf(id, sizeof(id), "%u", v->id);
				rep_counter_name(&v->counter[k], reg, sizeof(reg));
				snprintf(num, sizeof(num), "0x%04X", v->counter[k].event);
				rep_event_name(v->counter[k].event, ev, sizeof(ev));
				const char *l[] = {"domain",  d->name, "vcpu",  id,
						   "counter", reg,     "event", num,
						   "name",    ev,      NULL};
				expo_sample(e, l, v->counter[k].value);
			}
		}
	}
}

static void features(const struct report *r, struct expo *e)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		any |= d->spe.state || d->amu.state || d->mpam.state;
	}
	if (!any)
		return;
	expo_family(
		e, "perfvisor_domain_feature_offered", EXPO_GAUGE, NULL,
		"1 if a feature the domain asks for (SPE, AMU, MPAM) is offered and measured, "
		"0 if not (perfvisor stats --format table says why).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		const struct rep_feature *f[3] = {&d->spe, &d->amu, &d->mpam};
		static const char *const names[3] = {"spe", "amu", "mpam"};
		for (int k = 0; k < 3; k++) {
			if (f[k]->state == REP_NOT_REQUESTED)
				continue;
			const char *l[] = {"domain", d->name, "feature", names[k], NULL};
			expo_sample(e, l, f[k]->state == REP_MEASURED);
		}
	}
}

/* A family per SPE figure, a sample per domain whose SPE is measured. */
static void spe(const struct report *r, struct expo *e)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		any |= r->domain[i].spe.state == REP_MEASURED;
	if (!any)
		return;
	expo_family(e, "perfvisor_domain_spe_info", EXPO_INFO, NULL,
		    "The virtual SPE of a domain: the version it was offered.");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		if (d->spe.state != REP_MEASURED)
			continue;
		const char *l[] = {"domain", d->name, "version",
				   rep_spe_version_name(d->spe_fig.version), NULL};
		expo_sample(e, l, 1);
	}
	for (unsigned k = 0; k < rep_spe_nfigures; k++) {
		const struct rep_spe_figure *f = &rep_spe_figures[k];
		bool counter = !strcmp(f->type, "counter"), first = true;
		char name[96];
		snprintf(name, sizeof(name), "perfvisor_domain_spe_%s%s", f->metric,
			 counter ? "_total" : "");
		for (unsigned i = 0; i < r->ndomains; i++) {
			const struct rep_domain *d = &r->domain[i];
			if (d->spe.state != REP_MEASURED)
				continue;
			if (first)
				expo_family(e, name, counter ? EXPO_COUNTER : EXPO_GAUGE,
					    f->unit, f->help);
			first = false;
			const char *l[] = {"domain", d->name, NULL};
			expo_sample(e, l, rep_spe_value(&d->spe_fig, f));
		}
	}
}

/* The AMU samples of every measured vCPU: its four counters, or its frequency. */
static void amu_samples(const struct report *r, struct expo *e, bool freq)
{
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			if (!v->amu_measured)
				continue;
			char id[16];
			snprintf(id, sizeof(id), "%u", v->id);
			if (freq) {
				const char *l[] = {"domain", d->name, "vcpu", id, NULL};
				expo_sample_double(e, l,
						   (double)(uint64_t)(v->amu_mhz * 1e6 + 0.5));
				continue;
			}
			for (int k = 0; k < REP_AMU_COUNT; k++) {
				const char *l[] = {"domain",  d->name,          "vcpu", id,
						   "counter", rep_amu_names[k], NULL};
				expo_sample(e, l, v->amu[k]);
			}
		}
	}
}

static void amu(const struct report *r, struct expo *e)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned c = 0; c < r->domain[i].nvcpus; c++)
			any |= r->domain[i].vcpu[c].amu_measured;
	if (!any)
		return;
	expo_family(e, "perfvisor_vcpu_amu_events_total", EXPO_COUNTER, NULL,
		    rep_amu_events_help);
	amu_samples(r, e, false);
	expo_family(e, "perfvisor_vcpu_amu_frequency_hertz", EXPO_GAUGE, "hertz",
		    "Average core frequency a vCPU ran at: its AMU CPU_CYCLES over CNT_CYCLES, "
		    "times the system counter's frequency.");
	amu_samples(r, e, true);
}

enum bw_figure { BW_TOTAL, BW_LOCAL, BW_BOUND, BW_LOCAL_BOUND };

static void bandwidth(const struct report *r, struct expo *e, enum bw_figure fig)
{
	static const struct {
		const char *name, *unit, *help;
		enum expo_type type;
	} f[] = {
		[BW_TOTAL] = {"perfvisor_domain_memory_bandwidth_bytes_total", "bytes",
			      "Bytes a domain's monitored vCPUs moved through a memory node "
			      "(domstats memory.bandwidth.monitor.<N>.node.<M>.bytes.total).",
			      EXPO_COUNTER},
		[BW_LOCAL] =
			{"perfvisor_domain_memory_bandwidth_local_bytes_total", "bytes",
			 "Of those, the bytes from vCPUs running on pCPUs local to the node "
			 "(domstats ...bytes.local): counted by monitors that match the PMG "
			 "perfvisor sets to the running pCPU's node.",
			 EXPO_COUNTER},
		[BW_BOUND] =
			{"perfvisor_domain_memory_bandwidth_bound_bytes", "bytes",
			 "Error bound of ..._bytes_total: |reported - true bytes| <= bound. "
			 "0 when every byte was counted; a 95 % bound while monitors rotate "
			 "among VMs.",
			 EXPO_GAUGE},
		[BW_LOCAL_BOUND] =
			{"perfvisor_domain_memory_bandwidth_local_bound_bytes", "bytes",
			 "Error bound of ..._local_bytes_total, as ..._bound_bytes is of "
			 "..._bytes_total.",
			 EXPO_GAUGE},
	};
	bool header = false;
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned k = 0; k < d->nmonitors && d->mpam.state == REP_MEASURED; k++) {
			const struct rep_bw_monitor *m = &d->monitor[k];
			char vcpus[96];
			cpuset_format(m->vcpus, vcpus, sizeof(vcpus));
			for (unsigned n = 0; n < m->nnodes; n++) {
				const struct rep_bw_node *b = &m->node[n];
				bool local = fig == BW_LOCAL || fig == BW_LOCAL_BOUND;
				if (!rep_bw_has_figure(b) || (local && !b->has_local))
					continue;
				if (!header)
					expo_family(e, f[fig].name, f[fig].type, f[fig].unit,
						    f[fig].help);
				header = true;
				char node[16];
				snprintf(node, sizeof(node), "%u", b->id);
				const char *l[] = {"domain", d->name, "monitor",
						   m->name,  "vcpus", vcpus,
						   "node",   node,    NULL};
				expo_sample(e, l,
					    fig == BW_TOTAL         ? b->bytes_total
					    : fig == BW_LOCAL       ? b->bytes_local
					    : fig == BW_LOCAL_BOUND ? b->local_bound
								    : b->bound);
			}
		}
	}
}

static void limits(const struct report *r, struct expo *e)
{
	bool header = false;
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		const struct domain *def = d->def;
		if (!d->limits_enforced || !def)
			continue;
		for (unsigned k = 0; k < def->nmemorytune; k++) {
			if (!d->memorytune_applied[k])
				continue;
			char vcpus[96];
			cpuset_format(def->memorytune[k].vcpus, vcpus, sizeof(vcpus));
			for (unsigned n = 0; n < def->memorytune[k].nnodes; n++) {
				if (!header)
					expo_family(
						e,
						"perfvisor_domain_memory_bandwidth_limit_ratio",
						EXPO_GAUGE, "ratio",
						"The bandwidth limit applied to a domain's "
						"vCPUs "
						"on a memory node (<memorytune><node "
						"bandwidth>), "
						"as a fraction.");
				header = true;
				char node[16];
				snprintf(node, sizeof(node), "%u",
					 def->memorytune[k].node[n].id);
				const char *l[] = {"domain", d->name, "vcpus", vcpus,
						   "node",   node,    NULL};
				expo_sample_double(e, l,
						   def->memorytune[k].node[n].percent / 100.0);
			}
		}
	}
}

void report_metrics(const struct report *r, FILE *out, enum expo_format format)
{
	struct expo e;
	expo_begin(&e, out, format);
	expo_family(&e, "perfvisor_run_duration_seconds", EXPO_GAUGE, "seconds",
		    "Simulated time the scenario ran.");
	expo_sample_double(&e, NULL, r->seconds);
	expo_family(&e, "perfvisor_domain_info", EXPO_INFO, NULL,
		    "A domain: its UUID, vCPU count and the PMU it was given.");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		char n[16], ctrs[16];
		snprintf(n, sizeof(n), "%u", d->nvcpus);
		snprintf(ctrs, sizeof(ctrs), "%u", d->pmu_counters);
		const char *l[] = {"domain",
				   d->name,
				   "uuid",
				   d->uuid,
				   "vcpus",
				   n,
				   "pmu_version",
				   d->pmu ? domxml_pmu_version_name(d->pmu_version) : "",
				   "pmu_counters",
				   d->pmu ? ctrs : "0",
				   NULL};
		expo_sample(&e, l, 1);
	}
	perf(r, &e);
	counters(r, &e);
	features(r, &e);
	amu(r, &e);
	spe(r, &e);
	bandwidth(r, &e, BW_TOTAL);
	bandwidth(r, &e, BW_LOCAL);
	bandwidth(r, &e, BW_BOUND);
	bandwidth(r, &e, BW_LOCAL_BOUND);
	limits(r, &e);
	expo_end(&e);
}
