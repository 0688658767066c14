/* SPDX-License-Identifier: MIT */
/*
 * The `virsh domstats` format: a "Domain: 'NAME'" line, then "  key=value" lines with
 * libvirt's own key names, then an empty line. Only libvirt's keys are written, in libvirt's
 * group order (perf before memory):
 *   perf.<event>                                            every measured enabled event
 *   memory.bandwidth.monitor.count
 *   memory.bandwidth.monitor.<N>.name / .vcpus / .node.count
 *   memory.bandwidth.monitor.<N>.node.<M>.id / .bytes.local / .bytes.total
 * A node whose figure is not ready or has no data keeps its .id and has no bytes keys, as
 * libvirt leaves out what it cannot read. libvirt has no SPE keys: a domain whose SPE is
 * measured then has our own, last, in our own prefix (docs/operator.md):
 *   perfvisor.spe.version, perfvisor.spe.<figure>   (report.h REP_SPE_FIGURES)
 */
#include <inttypes.h>

#include "report.h"

void report_domstats(const struct report *r, FILE *out)
{
	for (unsigned i = 0; i < r->ndomains; i++) {
		const struct rep_domain *d = &r->domain[i];
		fprintf(out, "Domain: '%s'\n", d->name);
		for (unsigned k = 0; k < d->nperf; k++)
			if (d->perf[k].state == REP_MEASURED)
				fprintf(out, "  perf.%s=%" PRIu64 "\n",
					dom_perf_events[d->perf[k].event].name,
					d->perf[k].value);
		if (d->mpam.state == REP_MEASURED && d->nmonitors) {
			const char *p = "memory.bandwidth.monitor";
			fprintf(out, "  %s.count=%u\n", p, d->nmonitors);
			for (unsigned k = 0; k < d->nmonitors; k++) {
				const struct rep_bw_monitor *m = &d->monitor[k];
				char vcpus[96];
				cpuset_format(m->vcpus, vcpus, sizeof(vcpus));
				fprintf(out, "  %s.%u.name=%s\n", p, k, m->name);
				fprintf(out, "  %s.%u.vcpus=%s\n", p, k, vcpus);
				fprintf(out, "  %s.%u.node.count=%u\n", p, k, m->nnodes);
				for (unsigned n = 0; n < m->nnodes; n++) {
					const struct rep_bw_node *b = &m->node[n];
					fprintf(out, "  %s.%u.node.%u.id=%u\n", p, k, n, b->id);
					if (!rep_bw_has_figure(b))
						continue; /* not ready, or no data: no number */
					if (b->has_local)
						fprintf(out,
							"  %s.%u.node.%u.bytes.local=%" PRIu64
							"\n",
							p, k, n, b->bytes_local);
					fprintf(out,
						"  %s.%u.node.%u.bytes.total=%" PRIu64 "\n", p,
						k, n, b->bytes_total);
				}
			}
		}
		if (d->spe.state == REP_MEASURED) {
			fprintf(out, "  perfvisor.spe.version=%s\n",
				rep_spe_version_name(d->spe_fig.version));
			for (unsigned k = 0; k < rep_spe_nfigures; k++)
				fprintf(out, "  perfvisor.spe.%s=%" PRIu64 "\n",
					rep_spe_figures[k].domstats,
					rep_spe_value(&d->spe_fig, &rep_spe_figures[k]));
		}
		fputc('\n', out);
	}
}
