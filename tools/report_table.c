/* SPDX-License-Identifier: MIT */
/* The table format: sections of aligned columns, for people. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define TBL_COLS 10
#define TBL_CELL 300

struct tbl {
	unsigned ncols;
	const char *head[TBL_COLS];
	unsigned right; /* bit c: right-aligned column */
	unsigned nrows, cap;
	char (*cell)[TBL_COLS][TBL_CELL];
};

static void tbl_init(struct tbl *t, unsigned right, unsigned ncols, ...)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->right = right;
	va_list ap;
	va_start(ap, ncols);
	for (unsigned c = 0; c < ncols; c++)
		t->head[c] = va_arg(ap, const char *);
	va_end(ap);
}

/* Appends a row; cells are printf'd one by one from ncols format/value pairs given as
 * already-formatted strings. */
static void tbl_row(struct tbl *t, ...)
{
	if (t->nrows == t->cap) {
		unsigned cap = t->cap ? t->cap * 2 : 16;
		void *p = realloc(t->cell, cap * sizeof(*t->cell));
		if (!p)
			return;
		t->cell = p;
		t->cap = cap;
	}
	va_list ap;
	va_start(ap, t);
	for (unsigned c = 0; c < t->ncols; c++)
		snprintf(t->cell[t->nrows][c], TBL_CELL, "%s", va_arg(ap, const char *));
	va_end(ap);
	t->nrows++;
}

static void tbl_print(struct tbl *t, FILE *out, const char *title)
{
	if (!t->nrows) {
		free(t->cell);
		return;
	}
	size_t w[TBL_COLS];
	for (unsigned c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->head[c]);
		for (unsigned r = 0; r < t->nrows; r++)
			if (strlen(t->cell[r][c]) > w[c])
				w[c] = strlen(t->cell[r][c]);
	}
	fprintf(out, "\n%s\n", title);
	for (unsigned r = 0; r <= t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = r ? t->cell[r - 1][c] : t->head[c];
			bool last = c + 1 == t->ncols;
			if (t->right >> c & 1)
				fprintf(out, "%*s", (int)w[c], s);
			else
				fprintf(out, "%-*s", last ? 0 : (int)w[c], s);
			fputs(last ? "\n" : "  ", out);
		}
	}
	free(t->cell);
	t->cell = NULL;
}

static const char *u64(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static const char *feature_cell(const struct rep_feature *f)
{
	return f->state == REP_NOT_REQUESTED ? "-" : rep_state_name(f->state);
}

static void domains(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 1u << 1, 7, "DOMAIN", "VCPUS", "PMU", "EVENTS OFFERED", "SPE", "AMU",
		 "MPAM");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		char n[16], pmu[48];
		if (d->pmu)
			snprintf(pmu, sizeof(pmu), "PMUv%s, %u counters",
				 domxml_pmu_version_name(d->pmu_version), d->pmu_counters);
		else
			snprintf(pmu, sizeof(pmu), "none");
		snprintf(n, sizeof(n), "%u", d->nvcpus);
		tbl_row(&t, d->name, n, pmu, d->pmu ? d->pmu_filter : "-",
			feature_cell(&d->spe), feature_cell(&d->amu), feature_cell(&d->mpam));
	}
	tbl_print(&t, out, "DOMAINS");
}

static void perf(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 1u << 3, 4, "DOMAIN", "EVENT", "ARM EVENT", "VALUE");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned k = 0; k < d->nperf; k++) {
			const struct rep_perf *p = &d->perf[k];
			const struct dom_perf_info *info = &dom_perf_events[p->event];
			char arm[48] = "-", v[32];
			if (info->arm >= 0) {
				char name[32];
				rep_event_name((uint32_t)info->arm, name, sizeof(name));
				snprintf(arm, sizeof(arm), "%s 0x%04X", name, info->arm);
			}
			tbl_row(&t, d->name, info->name, arm,
				p->state == REP_MEASURED ? u64(v, sizeof(v), p->value)
							 : "not offered");
		}
	}
	tbl_print(&t, out,
		  "PERF EVENTS (counted by the host while each domain ran; domstats "
		  "perf.<event>)");
}

static void counters(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 1u << 1 | 1u << 2 | 1u << 6, 7, "DOMAIN", "VCPU", "PCPU", "COUNTER",
		 "EVENT", "NAME", "VALUE");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			for (unsigned k = 0; k < v->ncounters; k++) {
				char id[16], pcpu[16], reg[16], num[16], ev[32], val[32];
				snprintf(id, sizeof(id), "%u", v->id);
				snprintf(pcpu, sizeof(pcpu), "%u", v->pcpu);
				rep_counter_name(&v->counter[k], reg, sizeof(reg));
				snprintf(num, sizeof(num), "0x%04X", v->counter[k].event);
				rep_event_name(v->counter[k].event, ev, sizeof(ev));
				tbl_row(&t, d->name, id, pcpu, reg, num, ev,
					u64(val, sizeof(val), v->counter[k].value));
			}
		}
	}
	tbl_print(&t, out,
		  "GUEST PMU COUNTERS (each vCPU's virtual PMU, as the guest programmed it)");
}

static void amu(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 0x7Eu, 7, "DOMAIN", "VCPU", "CPU_CYCLES", "CNT_CYCLES", "INST_RETIRED",
		 "STALL_BACKEND_MEM", "FREQUENCY");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned c = 0; c < d->nvcpus && d->amu.state == REP_MEASURED; c++) {
			const struct rep_vcpu *v = &d->vcpu[c];
			if (!v->amu_measured)
				continue;
			char id[16], a[REP_AMU_COUNT][32], mhz[32];
			snprintf(id, sizeof(id), "%u", v->id);
			for (int k = 0; k < REP_AMU_COUNT; k++)
				u64(a[k], sizeof(a[k]), v->amu[k]);
			snprintf(mhz, sizeof(mhz), "%.0f MHz", v->amu_mhz);
			tbl_row(&t, d->name, id, a[0], a[1], a[2], a[3], mhz);
		}
	}
	tbl_print(&t, out,
		  "AMU (each vCPU's activity monitors; frequency = CPU_CYCLES / CNT_CYCLES)");
}

/* A row per figure of every domain whose SPE is measured. */
static void spe(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 1u << 2, 3, "DOMAIN", "FIGURE", "VALUE");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		if (d->spe.state != REP_MEASURED)
			continue;
		tbl_row(&t, d->name, "version", rep_spe_version_name(d->spe_fig.version));
		for (unsigned k = 0; k < rep_spe_nfigures; k++) {
			const struct rep_spe_figure *f = &rep_spe_figures[k];
			uint64_t v = rep_spe_value(&d->spe_fig, f);
			char val[32];
			if (f->off == offsetof(struct rep_spe, profiling))
				snprintf(val, sizeof(val), "%s", v ? "on" : "off");
			else
				u64(val, sizeof(val), v);
			tbl_row(&t, d->name, f->label, val);
		}
	}
	tbl_print(&t, out,
		  "SPE (each domain's profiling: the library's view, the records its SPE "
		  "units wrote, those decoded from its guest's buffer)");
}

static uint64_t node_bandwidth(const struct report *r, unsigned id)
{
	for (unsigned k = 0; k < r->nnodes; k++)
		if (r->node[k].id == id)
			return r->node[k].bandwidth;
	return 0;
}

static void bandwidth(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 0x7Cu, 10, "DOMAIN", "MONITOR", "NODE", "BYTES", "BOUND", "LOCAL",
		 "LOCAL BOUND", "BYTES/S", "LIMIT", "STATUS");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		for (unsigned k = 0; k < d->nmonitors && d->mpam.state == REP_MEASURED; k++) {
			const struct rep_bw_monitor *m = &d->monitor[k];
			for (unsigned n = 0; n < m->nnodes; n++) {
				const struct rep_bw_node *b = &m->node[n];
				char node[16], tot[32] = "-", bound[32] = "-", rate[32] = "-",
					       lim[64] = "-";
				char loc[32] = "-", lbound[32] = "-", status[48];
				snprintf(node, sizeof(node), "%u", b->id);
				if (rep_bw_has_figure(b)) {
					u64(tot, sizeof(tot), b->bytes_total);
					u64(bound, sizeof(bound), b->bound);
					rep_rate_text((double)b->bytes_per_s, rate,
						      sizeof(rate));
				}
				if (b->has_local) {
					u64(loc, sizeof(loc), b->bytes_local);
					u64(lbound, sizeof(lbound), b->local_bound);
				}
				/* The local figure's own status when it has none beside a total (not
				 * counted at all: NOT OFFERED says why). */
				snprintf(status, sizeof(status), "%s",
					 rep_bw_status_names[b->status]);
				if (r->local_counted && rep_bw_has_figure(b) && !b->has_local)
					snprintf(status, sizeof(status), "%s, local %s",
						 rep_bw_status_names[b->status],
						 rep_bw_status_names[b->local_status]);
				if (b->limit_percent) {
					char cap[32];
					rep_rate_text((double)node_bandwidth(r, b->id) *
							      b->limit_percent / 100,
						      cap, sizeof(cap));
					snprintf(lim, sizeof(lim), "%u%% = %s",
						 b->limit_percent, cap);
				}
				tbl_row(&t, d->name, m->name, node, tot, bound, loc, lbound,
					rate, lim, status);
			}
		}
	}
	tbl_print(&t, out,
		  "MEMORY BANDWIDTH (per monitor and memory node, over the run; domstats "
		  "memory.bandwidth.monitor.*)");
}

static const char *cache_type(enum dom_cache_type t)
{
	return t == DOM_CACHE_CODE ? "code" : t == DOM_CACHE_DATA ? "data" : "both";
}

static void limits(const struct report *r, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 0, 5, "DOMAIN", "VCPUS", "RESOURCE", "LIMIT", "APPLIED");
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		const struct domain *def = d->def;
		char no[300], vcpus[96], res[64], lim[64];
		snprintf(no, sizeof(no), "no (%s)",
			 d->limits_why[0] ? d->limits_why : "MPAM not offered");
		for (unsigned k = 0; def && k < def->nmemorytune; k++) {
			cpuset_format(def->memorytune[k].vcpus, vcpus, sizeof(vcpus));
			for (unsigned n = 0; n < def->memorytune[k].nnodes; n++) {
				snprintf(res, sizeof(res), "memory node %u",
					 def->memorytune[k].node[n].id);
				snprintf(lim, sizeof(lim), "%u%% of its bandwidth",
					 def->memorytune[k].node[n].percent);
				tbl_row(&t, d->name, vcpus, res, lim,
					d->memorytune_applied[k] ? "yes" : no);
			}
		}
		for (unsigned k = 0; def && k < def->ncachetune; k++) {
			cpuset_format(def->cachetune[k].vcpus, vcpus, sizeof(vcpus));
			for (unsigned n = 0; n < def->cachetune[k].ncaches; n++) {
				const struct dom_cache *c = &def->cachetune[k].cache[n];
				snprintf(res, sizeof(res), "L%u cache %u (%s)", c->level, c->id,
					 cache_type(c->type));
				snprintf(lim, sizeof(lim), "%" PRIu64 " KiB", c->bytes / 1024);
				tbl_row(&t, d->name, vcpus, res, lim,
					d->cachetune_applied[k] ? "yes" : no);
			}
		}
	}
	tbl_print(&t, out, "LIMITS (<cputune> memorytune and cachetune)");
}

static void notes(const struct report *r, FILE *out)
{
	bool any = false;
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		const struct rep_feature *f[3] = {&d->spe, &d->amu, &d->mpam};
		static const char *const names[3] = {"SPE", "AMU", "MPAM"};
		for (int k = 0; k < 3; k++) {
			if (f[k]->state != REP_NOT_OFFERED)
				continue;
			fprintf(out, "%s  %s: %s not offered: %s\n",
				any ? "" : "\nNOT OFFERED\n", d->name, names[k], f[k]->why);
			any = true;
		}
		for (unsigned k = 0; k < d->nnotes; k++) {
			fprintf(out, "%s  %s: %s\n", any ? "" : "\nNOT OFFERED\n", d->name,
				d->note[k]);
			any = true;
		}
		for (unsigned k = 0; k < d->nperf; k++) {
			if (d->perf[k].state != REP_NOT_OFFERED)
				continue;
			fprintf(out, "%s  %s: perf.%s not offered: %s\n",
				any ? "" : "\nNOT OFFERED\n", d->name,
				dom_perf_events[d->perf[k].event].name, d->perf[k].why);
			any = true;
		}
	}
}

void report_table(const struct report *r, FILE *out)
{
	fprintf(out,
		"scenario %s (%s): %u pCPU%s at %u MHz, PMUv%s with %u counters, %u kept by "
		"the "
		"host%s",
		r->scenario, r->source, r->cpus, r->cpus == 1 ? "" : "s", r->mhz,
		domxml_pmu_version_name(r->pmu_version), r->pmu_counters, r->host_counters,
		r->amu ? ", AMUv1p1" : "");
	if (r->spe)
		fprintf(out, ", %s", rep_spe_version_name(r->spe));
	if (r->mpam)
		fprintf(out,
			", MPAM with %u PARTIDs, %u PMGs and %u bandwidth monitors per memory "
			"node",
			r->partids, r->pmgs, r->bw_monitors);
	fputc('\n', out);
	for (unsigned k = 0; r->mpam && k < r->nnodes; k++) {
		char cpus[96], bw[32];
		cpuset_format(r->node[k].cpus, cpus, sizeof(cpus));
		rep_rate_text((double)r->node[k].bandwidth, bw, sizeof(bw));
		fprintf(out, "memory node %u: %s, local to pCPUs %s\n", r->node[k].id, bw,
			cpus[0] ? cpus : "none");
	}
	fprintf(out,
		"ran %.3f ms of simulated time%s: %" PRIu64 " vCPU switches, %" PRIu64
		" trapped accesses, %" PRIu64 " interrupts taken at EL2 (PMU, SPE)\n",
		r->seconds * 1e3, r->cut ? " (stopped at the scenario's duration)" : "",
		r->switches, r->traps, r->irqs);
	domains(r, out);
	perf(r, out);
	counters(r, out);
	amu(r, out);
	spe(r, out);
	bandwidth(r, out);
	limits(r, out);
	notes(r, out);
}

void report_traffic(const struct rep_traffic *tr, unsigned n, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 0x1Eu, 6, "DOMAIN", "NODE", "ASKED", "MOVED", "FROM LOCAL PCPUS", "LIMIT");
	for (unsigned i = 0; i < n; i++) {
		char node[16], asked[32], moved[32], local[32], lim[64] = "-";
		snprintf(node, sizeof(node), "%u", tr[i].node);
		rep_rate_text((double)tr[i].asked, asked, sizeof(asked));
		rep_rate_text((double)tr[i].moved, moved, sizeof(moved));
		rep_rate_text((double)tr[i].moved_local, local, sizeof(local));
		if (tr[i].limit_percent) {
			char cap[32];
			rep_rate_text((double)tr[i].node_bandwidth * tr[i].limit_percent / 100,
				      cap, sizeof(cap));
			snprintf(lim, sizeof(lim), "%u%% = %s", tr[i].limit_percent, cap);
		}
		tbl_row(&t, tr[i].domain, node, asked, moved, local, lim);
	}
	tbl_print(&t, out,
		  "MEMORY TRAFFIC (the machine model's ground truth, bytes/s over the run: "
		  "what each "
		  "domain's workload asked of a memory node, what it moved, and how much of "
		  "that its "
		  "vCPUs sent while on a pCPU local to the node)");
}

unsigned report_checks(const struct rep_check *c, unsigned n, bool all, FILE *out)
{
	struct tbl t;
	tbl_init(&t, 1u << 2 | 1u << 3, 5, "DOMAIN", "FIGURE", "REPORTED", "GROUND TRUTH",
		 "MATCH");
	unsigned bad = 0;
	unsigned bounded = 0;
	for (unsigned i = 0; i < n; i++) {
		bool ok = rep_check_ok(&c[i]);
		bad += !ok;
		bounded += c[i].bound != 0;
		if (!all && ok)
			continue;
		char f[48], g[32];
		if (c[i].bound)
			snprintf(f, sizeof(f), "%" PRIu64 " +- %" PRIu64, c[i].figure,
				 c[i].bound);
		else
			u64(f, sizeof(f), c[i].figure);
		tbl_row(&t, c[i].domain, c[i].what, f, u64(g, sizeof(g), c[i].truth),
			ok ? (c[i].figure == c[i].truth ? "yes" : "within bound") : "NO");
	}
	tbl_print(&t, out,
		  all ? "GROUND TRUTH (each figure against what the simulated machine executed)"
		      : "MISMATCHES (figures that differ from what the simulated machine "
			"executed)");
	if (bad)
		fprintf(out, "\nMISMATCH: %u of %u figures differ from the ground truth\n", bad,
			n);
	else if (bounded)
		fprintf(out,
			"\nall %u figures match the ground truth of the simulated machine: %u "
			"equal "
			"it, %u bandwidth figures are estimates within their error bound\n",
			n, n - bounded, bounded);
	else
		fprintf(out,
			"\nall %u figures equal the ground truth of the simulated machine\n",
			n);
	return bad;
}
