/* SPDX-License-Identifier: MIT */
/*
 * The OpenMetrics text format (what a Prometheus server scrapes): one family per figure, with
 * TYPE, UNIT and HELP, the domain (and vCPU, monitor, node) as labels, "# EOF" at the end.
 * A family is written only when it has a sample: nothing that was not measured appears.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"

static void family(FILE *out, const char *name, const char *type, const char *unit,
		   const char *help)
{
	fprintf(out, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(out, "# UNIT %s %s\n", name, unit);
	fprintf(out, "# HELP %s %s\n", name, help);
}

/* A label value, escaped (backslash, double quote, newline). */
static void value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void label(FILE *out, bool first, const char *k, const char *v)
{
	fprintf(out, "%s%s=\"", first ? "{" : ",", k);
	value(out, v);
	fputc('"', out);
}

static bool any_perf(const struct report *r)
{
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned k = 0; k < r->domain[i].nperf; k++)
			if (r->domain[i].perf[k].state == REP_MEASURED)
				return true;
	return false;
}

static void perf(const struct report *r, FILE *out)
{
	if (!any_perf(r))
		return;
	family(out, "perfvisor_domain_perf_events", "counter", NULL,
	       "Count of an event the domain enables in <perf>, made by the host's own PMU "
	       "counters "
	       "while the domain's vCPUs ran (virsh domstats perf.<event>).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned k = 0; k < d->nperf; k++) {
			const struct rep_perf *p = &d->perf[k];
			if (p->state != REP_MEASURED)
				continue;
			const struct dom_perf_info *info = &dom_perf_events[p->event];
			char arm[16];
			snprintf(arm, sizeof(arm), "0x%02X", info->arm);
			fputs("perfvisor_domain_perf_events_total", out);
			label(out, true, "domain", d->name);
			label(out, false, "event", info->name);
			label(out, false, "arm_event", arm);
			fprintf(out, "} %" PRIu64 "\n", p->value);
		}
	}
}

static void counters(const struct report *r, FILE *out)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned c = 0; c < r->domain[i].nvcpus; c++)
			any |= r->domain[i].vcpu[c].ncounters > 0;
	if (!any)
		return;
	family(out, "perfvisor_vcpu_pmu_counter", "gauge", NULL,
	       "Value of a virtual PMU counter of a vCPU, with the event the guest programmed "
	       "(the guest may write or reset it).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			for (unsigned k = 0; k < v->ncounters; k++) {
				char id[16], reg[16], ev[32];
				snprintf(id, sizeof(id), "%u", v->id);
				rep_counter_name(&v->counter[k], reg, sizeof(reg));
				rep_event_name(v->counter[k].event, ev, sizeof(ev));
				fputs("perfvisor_vcpu_pmu_counter", out);
				label(out, true, "domain", d->name);
				label(out, false, "vcpu", id);
				label(out, false, "counter", reg);
				label(out, false, "event", ev);
				fprintf(out, "} %" PRIu64 "\n", v->counter[k].value);
			}
		}
	}
}

static void features(const struct report *r, FILE *out)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		any |= d->spe.state || d->amu.state || d->mpam.state;
	}
	if (!any)
		return;
	family(out, "perfvisor_domain_feature_offered", "gauge", NULL,
	       "1 if a feature the domain asks for (SPE, AMU, MPAM) is offered and measured, "
	       "0 if not (perfvisor stats --format table says why).");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		const struct rep_feature *f[3] = {&d->spe, &d->amu, &d->mpam};
		static const char *const names[3] = {"spe", "amu", "mpam"};
		for (int k = 0; k < 3; k++) {
			if (f[k]->state == REP_NOT_REQUESTED)
				continue;
			fputs("perfvisor_domain_feature_offered", out);
			label(out, true, "domain", d->name);
			label(out, false, "feature", names[k]);
			fprintf(out, "} %d\n", f[k]->state == REP_MEASURED);
		}
	}
}

/* A family per SPE figure, a sample per domain whose SPE is measured. */
static void spe(const struct report *r, FILE *out)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		any |= r->domain[i].spe.state == REP_MEASURED;
	if (!any)
		return;
	family(out, "perfvisor_domain_spe", "info", NULL,
	       "The virtual SPE of a domain: the version it was offered.");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		if (d->spe.state != REP_MEASURED)
			continue;
		fputs("perfvisor_domain_spe_info", out);
		label(out, true, "domain", d->name);
		label(out, false, "version", rep_spe_version_name(d->spe_fig.version));
		fputs("} 1\n", out);
	}
	for (unsigned k = 0; k < rep_spe_nfigures; k++) {
		const struct rep_spe_figure *f = &rep_spe_figures[k];
		bool counter = !strcmp(f->type, "counter"), first = true;
		char name[96];
		snprintf(name, sizeof(name), "perfvisor_domain_spe_%s", f->metric);
		for (unsigned i = 0; i < r->ndomains; i++) {
			const struct rep_domain *d = &r->domain[i];
			if (d->spe.state != REP_MEASURED)
				continue;
			if (first)
				family(out, name, f->type, f->unit, f->help);
			first = false;
			fprintf(out, "%s%s", name, counter ? "_total" : "");
			label(out, true, "domain", d->name);
			fprintf(out, "} %" PRIu64 "\n", rep_spe_value(&d->spe_fig, f));
		}
	}
}

/* The AMU samples of every measured vCPU: its four counters, or its frequency. */
static void amu_samples(const struct report *r, FILE *out, bool freq)
{
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			if (!v->amu_measured)
				continue;
			char id[16];
			snprintf(id, sizeof(id), "%u", v->id);
			for (int k = 0; k < (freq ? 1 : REP_AMU_COUNT); k++) {
				fputs(freq ? "perfvisor_vcpu_amu_frequency_hertz"
					   : "perfvisor_vcpu_amu_events_total",
				      out);
				label(out, true, "domain", d->name);
				label(out, false, "vcpu", id);
				if (freq) {
					fprintf(out, "} %.0f\n", v->amu_mhz * 1e6);
				} else {
					label(out, false, "counter", rep_amu_names[k]);
					fprintf(out, "} %" PRIu64 "\n", v->amu[k]);
				}
			}
		}
	}
}

static void amu(const struct report *r, FILE *out)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++)
		for (unsigned c = 0; c < r->domain[i].nvcpus; c++)
			any |= r->domain[i].vcpu[c].amu_measured;
	if (!any)
		return;
	family(out, "perfvisor_vcpu_amu_events", "counter", NULL,
	       "A vCPU's own activity-monitor count (AMU group 0: processor cycles, "
	       "constant-frequency cycles, instructions retired, cycles stalled on memory).");
	amu_samples(r, out, false);
	family(out, "perfvisor_vcpu_amu_frequency_hertz", "gauge", "hertz",
	       "Average core frequency a vCPU ran at: its AMU CPU_CYCLES over CNT_CYCLES, "
	       "times the "
	       "system counter's frequency.");
	amu_samples(r, out, true);
}

enum bw_figure { BW_TOTAL, BW_LOCAL, BW_RATE, BW_BOUND, BW_LOCAL_BOUND };

static void bandwidth(const struct report *r, FILE *out, enum bw_figure fig)
{
	static const struct {
		const char *family, *sample, *type, *unit, *help;
	} f[] = {
		[BW_TOTAL] = {"perfvisor_domain_memory_bandwidth_bytes",
			      "perfvisor_domain_memory_bandwidth_bytes_total", "counter",
			      "bytes",
			      "Bytes a domain's monitored vCPUs moved through a memory node "
			      "(domstats memory.bandwidth.monitor.<N>.node.<M>.bytes.total)."},
		[BW_LOCAL] =
			{"perfvisor_domain_memory_bandwidth_local_bytes",
			 "perfvisor_domain_memory_bandwidth_local_bytes_total", "counter",
			 "bytes",
			 "Of those, the bytes from vCPUs running on pCPUs local to the node "
			 "(domstats ...bytes.local): counted by monitors that match the PMG "
			 "perfvisor sets to the running pCPU's node."},
		[BW_RATE] =
			{"perfvisor_domain_memory_bandwidth_bytes_per_second",
			 "perfvisor_domain_memory_bandwidth_bytes_per_second", "gauge",
			 "bytes_per_second",
			 "Average bandwidth of a monitor through a memory node over the run."},
		[BW_BOUND] = {"perfvisor_domain_memory_bandwidth_bound_bytes",
			      "perfvisor_domain_memory_bandwidth_bound_bytes", "gauge", "bytes",
			      "Error bound of ..._bytes_total: |reported - true bytes| <= "
			      "bound. 0 when "
			      "every byte was counted; a 95 % bound while monitors rotate "
			      "among VMs."},
		[BW_LOCAL_BOUND] =
			{"perfvisor_domain_memory_bandwidth_local_bound_bytes",
			 "perfvisor_domain_memory_bandwidth_local_bound_bytes", "gauge",
			 "bytes",
			 "Error bound of ..._local_bytes_total, as ..._bound_bytes is of "
			 "..._bytes_total."},
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
					family(out, f[fig].family, f[fig].type, f[fig].unit,
					       f[fig].help);
				header = true;
				char node[16];
				snprintf(node, sizeof(node), "%u", b->id);
				fputs(f[fig].sample, out);
				label(out, true, "domain", d->name);
				label(out, false, "monitor", m->name);
				label(out, false, "vcpus", vcpus);
				label(out, false, "node", node);
				uint64_t val = fig == BW_TOTAL         ? b->bytes_total
					       : fig == BW_LOCAL       ? b->bytes_local
					       : fig == BW_RATE        ? b->bytes_per_s
					       : fig == BW_LOCAL_BOUND ? b->local_bound
								       : b->bound;
				fprintf(out, "} %" PRIu64 "\n", val);
			}
		}
	}
}

static void limits(const struct report *r, FILE *out)
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
					family(out,
					       "perfvisor_domain_memory_bandwidth_limit_ratio",
					       "gauge", "ratio",
					       "The bandwidth limit applied to a domain's "
					       "vCPUs on a memory "
					       "node (<memorytune><node bandwidth>), as a "
					       "fraction.");
				header = true;
				char node[16];
				snprintf(node, sizeof(node), "%u",
					 def->memorytune[k].node[n].id);
				fputs("perfvisor_domain_memory_bandwidth_limit_ratio", out);
				label(out, true, "domain", d->name);
				label(out, false, "vcpus", vcpus);
				label(out, false, "node", node);
				fprintf(out, "} %.2f\n",
					def->memorytune[k].node[n].percent / 100.0);
			}
		}
	}
}

void report_openmetrics(const struct report *r, FILE *out)
{
	family(out, "perfvisor_run_duration_seconds", "gauge", "seconds",
	       "Simulated time the scenario ran.");
	fprintf(out, "perfvisor_run_duration_seconds %.9f\n", r->seconds);
	family(out, "perfvisor_domain", "info", NULL,
	       "A domain: its UUID, vCPU count and the PMU it was given.");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		char n[16], ctrs[16];
		snprintf(n, sizeof(n), "%u", d->nvcpus);
		snprintf(ctrs, sizeof(ctrs), "%u", d->pmu_counters);
		fputs("perfvisor_domain_info", out);
		label(out, true, "domain", d->name);
		label(out, false, "uuid", d->uuid);
		label(out, false, "vcpus", n);
		label(out, false, "pmu_version",
		      d->pmu ? domxml_pmu_version_name(d->pmu_version) : "");
		label(out, false, "pmu_counters", d->pmu ? ctrs : "0");
		fputs("} 1\n", out);
	}
	perf(r, out);
	counters(r, out);
	features(r, out);
	amu(r, out);
	spe(r, out);
	bandwidth(r, out, BW_TOTAL);
	bandwidth(r, out, BW_LOCAL);
	bandwidth(r, out, BW_RATE);
	bandwidth(r, out, BW_BOUND);
	bandwidth(r, out, BW_LOCAL_BOUND);
	limits(r, out);
	fputs("# EOF\n", out);
}
