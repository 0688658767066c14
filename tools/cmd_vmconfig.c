/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor vm-config`: reads libvirt domain definitions (XML files, or the domains of a
 * libvirt connection) and prints what each element became in perfvisor's configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domxml.h"
#include "options.h"
#include "tool.h"
#include "virt.h"

#define MAX_DOMAINS 64

static void usage(FILE *out)
{
	fputs("usage: perfvisor vm-config [options] [DOMAIN.xml...]\n"
	      "Reads libvirt domain XML and prints what each element becomes: vCPUs and pins,\n"
	      "the PMU (version, counters, event filter built from <perf>), SPE, AMU, and the\n"
	      "MPAM limits and monitors of <cputune> memorytune/cachetune.\n"
	      "A file - is standard input. With no file, reads the domains of a libvirt\n"
	      "connection: --connect URI, else $LIBVIRT_DEFAULT_URI, else " VIRT_DEFAULT_URI
	      "\n"
	      "(e.g. test:///ABS/PATH/examples/libvirt-test-node.xml).\n"
	      "Exit status 1 if any definition is refused (file:line: <element>: reason).\n"
	      "\n"
	      "options:\n"
	      "  -c, --connect URI  read the domains of this libvirt connection\n"
	      "  -d, --domain NAME  only this domain of the connection (repeatable)\n"
	      "  -h, --help         this text\n",
	      out);
}

static void features(char *buf, size_t len, uint32_t f)
{
	snprintf(buf, len, "%s%s%s%s", f & PV_FEAT_PMU ? " PV_FEAT_PMU" : "",
		 f & PV_FEAT_SPE ? " PV_FEAT_SPE" : "", f & PV_FEAT_AMU ? " PV_FEAT_AMU" : "",
		 f & PV_FEAT_MPAM ? " PV_FEAT_MPAM" : "");
	if (!f)
		snprintf(buf, len, " none");
}

static void print_pmu(const struct domain *d, FILE *out)
{
	if (!(d->cfg.features & PV_FEAT_PMU)) {
		fprintf(out,
			"  %-24s none: <pmu state='off'> (the guest's PMU registers UNDEF)\n",
			"pmu");
		return;
	}
	char version[32], counters[48];
	if (d->pmu_version_auto)
		snprintf(version, sizeof(version), "the machine's (up to PMUv3p5)");
	else
		snprintf(version, sizeof(version), "PMUv%s",
			 domxml_pmu_version_name(d->cfg.pmu.version));
	if (d->pmu_counters_auto)
		snprintf(counters, sizeof(counters), "every counter the host leaves to guests");
	else
		snprintf(counters, sizeof(counters), "%u counters", d->cfg.pmu.nr_counters);
	fprintf(out, "  %-24s %s, PMCR_EL0.N = %s\n", "pmu", version, counters);

	if (!d->has_perf) {
		fprintf(out, "  %-24s absent: every event allowed, no perf.<event> figure\n",
			"<perf>");
		return;
	}
	bool first = true;
	for (int e = 0; e < DOM_PERF_COUNT; e++) {
		if (d->perf[e] == DOM_PERF_ABSENT)
			continue;
		const struct dom_perf_info *info = &dom_perf_events[e];
		char what[200];
		bool on = d->perf[e] == DOM_PERF_ENABLED;
		if (info->arm < 0)
			snprintf(what, sizeof(what), "no Arm PMUv3 event (%s)%s", info->text,
				 on ? ": not offered" : "");
		else if (on)
			snprintf(what, sizeof(what), "%s 0x%02X offered; host counts perf.%s",
				 info->text, info->arm, info->name);
		else
			snprintf(what, sizeof(what), "%s 0x%02X not offered", info->text,
				 info->arm);
		fprintf(out, "  %-24s %s=%s -> %s\n", first ? "<perf>" : "", info->name,
			on ? "yes" : "no", what);
		first = false;
	}
	const struct pv_pmu_config *p = &d->cfg.pmu;
	if (!p->nr_filters) {
		fprintf(out, "  %-24s none: every event allowed\n", "event filter");
		return;
	}
	for (unsigned i = 0; i < p->nr_filters; i++) {
		const struct pv_pmu_filter *f = &p->filters[i];
		char range[32];
		if (f->nevents == 1)
			snprintf(range, sizeof(range), "0x%02X", f->base_event);
		else
			snprintf(range, sizeof(range), "0x%02X-0x%02X", f->base_event,
				 f->base_event + f->nevents - 1);
		fprintf(out, "  %-24s %s %s%s\n", i ? "" : "event filter",
			f->action == PV_PMU_FILTER_ALLOW ? "ALLOW" : "DENY ", range,
			i == 0 ? (f->action == PV_PMU_FILTER_ALLOW
					  ? "  (first range ALLOW: the rest denied)"
					  : "  (first range DENY: the rest allowed)")
			       : "");
	}
	fprintf(out, "  %-24s SW_INCR and CHAIN are never filtered\n", "");
}

/* "<memorytune vcpus=0-1>   PARTID of the VM for vCPUs 0-1" */
static void tune_header(FILE *out, const char *element, uint64_t set)
{
	char vcpus[96], label[128];
	cpuset_format(set, vcpus, sizeof(vcpus));
	snprintf(label, sizeof(label), "<%s vcpus=%s>", element, vcpus);
	fprintf(out, "  %-24s PARTID of the VM for vCPUs %s\n", label, vcpus);
}

static void print_tunes(const struct domain *d, FILE *out)
{
	char vcpus[96], name[96];
	for (unsigned k = 0; k < d->nmemorytune; k++) {
		const struct dom_memorytune *t = &d->memorytune[k];
		tune_header(out, "memorytune", t->vcpus);
		for (unsigned n = 0; n < t->nnodes; n++)
			fprintf(out,
				"  %-24s memory node %u: at most %u%% of its bandwidth "
				"(MBW_MAX)\n",
				"", t->node[n].id, t->node[n].percent);
		for (unsigned n = 0; n < t->nmonitors; n++) {
			domxml_monitor_name(t->monitor[n].vcpus, name, sizeof(name));
			cpuset_format(t->monitor[n].vcpus, vcpus, sizeof(vcpus));
			fprintf(out,
				"  %-24s bandwidth monitor %s (vCPUs %s): bytes per memory "
				"node\n",
				"", name, vcpus);
		}
	}
	static const char *const types[] = {"both", "code", "data"};
	for (unsigned k = 0; k < d->ncachetune; k++) {
		const struct dom_cachetune *t = &d->cachetune[k];
		tune_header(out, "cachetune", t->vcpus);
		for (unsigned n = 0; n < t->ncaches; n++)
			fprintf(out,
				"  %-24s L%u cache %u (%s): %llu KiB of cache portions "
				"(CPBM)\n",
				"", t->cache[n].level, t->cache[n].id, types[t->cache[n].type],
				(unsigned long long)(t->cache[n].bytes / 1024));
		for (unsigned n = 0; n < t->nmonitors; n++) {
			domxml_monitor_name(t->monitor[n].vcpus, name, sizeof(name));
			fprintf(out, "  %-24s cache monitor %s at level %u\n", "", name,
				t->monitor[n].level);
		}
	}
}

static void print_domain(const struct domain *d, FILE *out)
{
	fprintf(out, "domain %s\n", d->name);
	fprintf(out, "  %-24s %s\n", "from", d->origin);
	fprintf(out, "  %-24s %s\n", "uuid", d->uuid[0] ? d->uuid : "(none)");
	fprintf(out, "  %-24s %u\n", "vcpus", d->vcpus);
	for (unsigned v = 0; v < d->vcpus; v++)
		if (d->pin[v] >= 0)
			fprintf(out, "  %-24s vCPU %u runs on pCPU %d\n", "<vcpupin>", v,
				d->pin[v]);
	print_pmu(d, out);
	fprintf(out, "  %-24s %s\n", "spe",
		d->cfg.features & PV_FEAT_SPE ? "requested (<perfvisor:spe>)" : "no");
	fprintf(out, "  %-24s %s\n", "amu",
		d->cfg.features & PV_FEAT_AMU ? "requested (<perfvisor:amu>)" : "no");
	print_tunes(d, out);
	char f[96];
	features(f, sizeof(f), d->cfg.features);
	fprintf(out, "  %-24s%s\n", "pv_vm_config.features", f);
	for (unsigned w = 0; w < d->nwarn; w++)
		fprintf(out, "  warning: %s\n", d->warn[w]);
}

int tool_vmconfig(int argc, char **argv)
{
	static const struct option opts[] = {{"connect", required_argument, NULL, 'c'},
					     {"domain", required_argument, NULL, 'd'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	static const char *const hints[] = {"a libvirt URI", "a domain name", NULL, NULL};
	const struct tool_options o = {
		.cmd = "vm-config", .shortopts = "c:d:h", .longopts = opts, .hints = hints};
	const char *uri = NULL;
	const char *names[MAX_DOMAINS];
	unsigned nnames = 0;
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		switch (c) {
		case 'c':
			uri = optarg;
			break;
		case 'd':
			if (nnames == MAX_DOMAINS) {
				fprintf(stderr, "perfvisor vm-config: more than %d --domain\n",
					MAX_DOMAINS);
				return 2;
			}
			names[nnames++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	unsigned nfiles = (unsigned)(argc - optind);
	if (nfiles && (uri || nnames)) {
		fputs("perfvisor vm-config: give domain files or --connect/--domain, not "
		      "both\n"
		      "Try 'perfvisor vm-config --help' for its options.\n",
		      stderr);
		return 2;
	}
	unsigned stdin_uses = 0;
	for (int i = optind; i < argc; i++)
		stdin_uses += strcmp(argv[i], "-") == 0;
	if (stdin_uses > 1) {
		fputs("perfvisor vm-config: '-' given twice: standard input can be read once\n"
		      "Try 'perfvisor vm-config --help' for its options.\n",
		      stderr);
		return 2;
	}
	if (nfiles > MAX_DOMAINS) {
		fprintf(stderr, "perfvisor vm-config: more than %d files\n", MAX_DOMAINS);
		return 2;
	}
	struct domain *doms = calloc(MAX_DOMAINS, sizeof(*doms));
	if (!doms) {
		fputs("perfvisor vm-config: out of memory\n", stderr);
		return 1;
	}
	struct diag d;
	unsigned n = 0;
	int r = 0;
	if (nfiles) {
		for (unsigned i = 0; i < nfiles && !r; i++)
			r = domxml_parse_file(argv[optind + i], &doms[n++], &d);
	} else {
		r = virt_load(uri ? uri : virt_default_uri(), names, nnames, doms, MAX_DOMAINS,
			      &n, &d);
	}
	if (r) {
		fprintf(stderr, "perfvisor vm-config: %s\n", d.msg);
		free(doms);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		if (i)
			fputc('\n', stdout);
		print_domain(&doms[i], stdout);
	}
	free(doms);
	return 0;
}
