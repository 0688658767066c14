/* SPDX-License-Identifier: MIT */
/* The JSON format: one document; figures that are not offered carry a reason instead. */
#include <inttypes.h>
#include <stddef.h>

#include "report.h"

static void str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void key(FILE *out, const char *k)
{
	str(out, k);
	fputs(": ", out);
}

static void feature(FILE *out, const char *name, const struct rep_feature *f)
{
	fputs(",\n      ", out);
	key(out, name);
	fputs("{", out);
	key(out, "state");
	str(out, rep_state_name(f->state));
	if (f->state == REP_NOT_OFFERED) {
		fputs(", ", out);
		key(out, "reason");
		str(out, f->why);
	}
	fputs("}", out);
}

static void cpuset(FILE *out, uint64_t set)
{
	char buf[96];
	cpuset_format(set, buf, sizeof(buf));
	str(out, buf);
}

static void perf(FILE *out, const struct rep_domain *d)
{
	fputs(",\n      \"perf\": {", out);
	for (unsigned k = 0; k < d->nperf; k++) {
		const struct rep_perf *p = &d->perf[k];
		const struct dom_perf_info *info = &dom_perf_events[p->event];
		fputs(k ? ",\n        " : "\n        ", out);
		key(out, info->name);
		fputs("{", out);
		if (info->arm >= 0) {
			char name[32];
			rep_event_name((uint32_t)info->arm, name, sizeof(name));
			fprintf(out, "\"arm_event\": \"0x%04X\", ", info->arm);
			key(out, "arm_event_name");
			str(out, name);
			fputs(", ", out);
		}
		if (p->state == REP_MEASURED) {
			fprintf(out, "\"value\": %" PRIu64 "}", p->value);
		} else {
			fputs("\"state\": \"not offered\", ", out);
			key(out, "reason");
			str(out, p->why);
			fputs("}", out);
		}
	}
	fputs(d->nperf ? "\n      }" : "}", out);
}

static void vcpus(FILE *out, const struct rep_domain *d)
{
	fputs(",\n      \"vcpu\": [", out);
	for (unsigned c = 0; c < d->nvcpus; c++) {
		const struct rep_vcpu *v = &d->vcpu[c];
		fprintf(out,
			"%s\n        {\"id\": %u, \"pcpu\": %u, \"loads\": %" PRIu64
			", \"pmu_traps\": %" PRIu64 ", \"counters\": [",
			c ? "," : "", v->id, v->pcpu, v->loads, v->traps);
		for (unsigned k = 0; k < v->ncounters; k++) {
			const struct rep_counter *rc = &v->counter[k];
			char reg[16], ev[32];
			rep_counter_name(rc, reg, sizeof(reg));
			rep_event_name(rc->event, ev, sizeof(ev));
			fprintf(out,
				"%s\n          {\"register\": \"%s\", \"event\": \"0x%04X\", ",
				k ? "," : "", reg, rc->event);
			key(out, "event_name");
			str(out, ev);
			fprintf(out, ", \"value\": %" PRIu64 "}", rc->value);
		}
		fputs(v->ncounters ? "\n        ]" : "]", out);
		if (v->amu_measured) {
			fputs(", \"amu\": {", out);
			for (int k = 0; k < REP_AMU_COUNT; k++)
				fprintf(out, "%s\"%s\": %" PRIu64, k ? ", " : "",
					rep_amu_names[k], v->amu[k]);
			fprintf(out, ", \"frequency_mhz\": %.3f}", v->amu_mhz);
		}
		fputs("}", out);
	}
	fputs(d->nvcpus ? "\n      ]" : "]", out);
}

static void bandwidth(FILE *out, const struct rep_domain *d)
{
	if (d->mpam.state != REP_MEASURED)
		return;
	fputs(",\n      \"memory_bandwidth\": [", out);
	for (unsigned k = 0; k < d->nmonitors; k++) {
		const struct rep_bw_monitor *m = &d->monitor[k];
		fputs(k ? ",\n        {" : "\n        {", out);
		key(out, "name");
		str(out, m->name);
		fputs(", ", out);
		key(out, "vcpus");
		cpuset(out, m->vcpus);
		fputs(", \"nodes\": [", out);
		for (unsigned n = 0; n < m->nnodes; n++) {
			const struct rep_bw_node *b = &m->node[n];
			fprintf(out, "%s{\"id\": %u, \"status\": \"%s\"", n ? ", " : "", b->id,
				rep_bw_status_names[b->status]);
			if (rep_bw_has_figure(b)) {
				fprintf(out,
					", \"bytes_total\": %" PRIu64
					", \"bound_bytes\": %" PRIu64
					", \"bytes_per_second\": %" PRIu64
					", \"bound_bytes_per_second\": %" PRIu64,
					b->bytes_total, b->bound, b->bytes_per_s,
					b->bound_per_s);
				if (b->has_local)
					fprintf(out,
						", \"bytes_local\": %" PRIu64
						", \"local_bound_bytes\": %" PRIu64,
						b->bytes_local, b->local_bound);
			}
			fprintf(out, ", \"local_status\": \"%s\"",
				rep_bw_status_names[b->local_status]);
			if (b->limit_percent)
				fprintf(out, ", \"limit_percent\": %u", b->limit_percent);
			fputs("}", out);
		}
		fputs("]}", out);
	}
	fputs(d->nmonitors ? "\n      ]" : "]", out);
}

static void limits(FILE *out, const struct rep_domain *d)
{
	const struct domain *def = d->def;
	if (!def || (!def->nmemorytune && !def->ncachetune))
		return;
	fprintf(out, ",\n      \"limits\": {\"applied\": %s",
		d->limits_enforced ? "true" : "false");
	if (d->limits_why[0]) {
		fputs(", ", out);
		key(out, "reason");
		str(out, d->limits_why);
	}
	fputs(", \"memorytune\": [", out);
	for (unsigned k = 0; k < def->nmemorytune; k++) {
		fputs(k ? ", {\"vcpus\": " : "{\"vcpus\": ", out);
		cpuset(out, def->memorytune[k].vcpus);
		fprintf(out, ", \"applied\": %s", d->memorytune_applied[k] ? "true" : "false");
		fputs(", \"nodes\": [", out);
		for (unsigned n = 0; n < def->memorytune[k].nnodes; n++)
			fprintf(out, "%s{\"id\": %u, \"bandwidth_percent\": %u}", n ? ", " : "",
				def->memorytune[k].node[n].id,
				def->memorytune[k].node[n].percent);
		fputs("]}", out);
	}
	fputs("], \"cachetune\": [", out);
	static const char *const types[] = {"both", "code", "data"};
	for (unsigned k = 0; k < def->ncachetune; k++) {
		fputs(k ? ", {\"vcpus\": " : "{\"vcpus\": ", out);
		cpuset(out, def->cachetune[k].vcpus);
		fprintf(out, ", \"applied\": %s", d->cachetune_applied[k] ? "true" : "false");
		fputs(", \"caches\": [", out);
		for (unsigned n = 0; n < def->cachetune[k].ncaches; n++) {
			const struct dom_cache *c = &def->cachetune[k].cache[n];
			fprintf(out,
				"%s{\"id\": %u, \"level\": %u, \"type\": \"%s\", \"bytes\": "
				"%" PRIu64 "}",
				n ? ", " : "", c->id, c->level, types[c->type], c->bytes);
		}
		fputs("]}", out);
	}
	fputs("]}", out);
}

/* "spe": {"state": "measured", "version": ..., every figure (profiling a boolean)} */
static void spe(FILE *out, const struct rep_domain *d)
{
	fputs(",\n      ", out);
	key(out, "spe");
	fputs("{", out);
	key(out, "state");
	str(out, rep_state_name(d->spe.state));
	fputs(", ", out);
	key(out, "version");
	str(out, rep_spe_version_name(d->spe_fig.version));
	for (unsigned k = 0; k < rep_spe_nfigures; k++) {
		const struct rep_spe_figure *f = &rep_spe_figures[k];
		uint64_t v = rep_spe_value(&d->spe_fig, f);
		fputs(", ", out);
		key(out, f->json);
		if (f->off == offsetof(struct rep_spe, profiling))
			fputs(v ? "true" : "false", out);
		else
			fprintf(out, "%" PRIu64, v);
	}
	fputs("}", out);
}

void report_json(const struct report *r, FILE *out)
{
	fputs("{\n  \"format\": \"perfvisor-stats/1\",\n  \"scenario\": {", out);
	key(out, "name");
	str(out, r->scenario);
	fputs(", ", out);
	key(out, "file");
	str(out, r->source);
	fprintf(out,
		"},\n  \"machine\": {\"cpus\": %u, \"mhz\": %u, \"pmu_version\": \"%s\", "
		"\"pmu_counters\": %u, \"host_counters\": %u, \"amu\": %s, \"spe\": ",
		r->cpus, r->mhz, domxml_pmu_version_name(r->pmu_version), r->pmu_counters,
		r->host_counters, r->amu ? "true" : "false");
	if (r->spe)
		str(out, rep_spe_version_name(r->spe));
	else
		fputs("null", out);
	fputs(", \"mpam\": ", out);
	if (r->mpam) {
		fprintf(out,
			"{\"partids\": %u, \"pmgs\": %u, \"bandwidth_monitors\": %u, "
			"\"local_bytes\": %s",
			r->partids, r->pmgs, r->bw_monitors,
			r->local_counted ? "true" : "false");
		if (!r->local_counted) {
			fputs(", \"local_bytes_reason\": ", out);
			str(out, r->local_why);
		}
		fputs("}", out);
	} else
		fputs("null", out);
	fputs(", \"memory_nodes\": [", out);
	for (unsigned k = 0; k < r->nnodes; k++) {
		fprintf(out, "%s{\"id\": %u, \"cpus\": ", k ? ", " : "", r->node[k].id);
		cpuset(out, r->node[k].cpus);
		fprintf(out, ", \"bandwidth_bytes_per_second\": %" PRIu64 "}",
			r->node[k].bandwidth);
	}
	fputs("]},\n", out);
	fprintf(out,
		"  \"run\": {\"seconds\": %.9f, \"stopped_at_duration\": %s, "
		"\"vcpu_switches\": %" PRIu64 ", \"trapped_accesses\": %" PRIu64
		", \"interrupts\": %" PRIu64 "},\n",
		r->seconds, r->cut ? "true" : "false", r->switches, r->traps, r->irqs);
	fputs("  \"domains\": [", out);
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		fputs(i ? ",\n    {\n      " : "\n    {\n      ", out);
		key(out, "name");
		str(out, d->name);
		fputs(",\n      ", out);
		key(out, "uuid");
		if (d->uuid[0])
			str(out, d->uuid);
		else
			fputs("null", out);
		fprintf(out, ",\n      \"vcpus\": %u,\n      \"pmu\": ", d->nvcpus);
		if (d->pmu) {
			fprintf(out, "{\"version\": \"%s\", \"counters\": %u, ",
				domxml_pmu_version_name(d->pmu_version), d->pmu_counters);
			key(out, "events_offered");
			str(out, d->pmu_filter);
			fputs("}", out);
		} else {
			fputs("null", out);
		}
		perf(out, d);
		vcpus(out, d);
		if (d->spe.state == REP_MEASURED)
			spe(out, d);
		else if (d->spe.state != REP_NOT_REQUESTED)
			feature(out, "spe", &d->spe);
		if (d->amu.state != REP_NOT_REQUESTED)
			feature(out, "amu", &d->amu);
		if (d->mpam.state != REP_NOT_REQUESTED)
			feature(out, "mpam", &d->mpam);
		bandwidth(out, d);
		limits(out, d);
		if (d->nnotes) {
			fputs(",\n      \"not_offered\": [", out);
			for (unsigned k = 0; k < d->nnotes; k++) {
				fputs(k ? ", " : "", out);
				str(out, d->note[k]);
			}
			fputs("]", out);
		}
		fputs("\n    }", out);
	}
	fputs(r->ndomains ? "\n  ]\n}\n" : "]\n}\n", out);
}
