/* SPDX-License-Identifier: MIT */
/*
 * fuzz_domxml: the libvirt domain XML reader (tools/domxml.c, tools/xmlutil.c) on arbitrary
 * bytes. An operator's file, or a domain fetched from a libvirt connection, is not trusted.
 *
 * Invariants (docs/security.md):
 *   - no crash, no sanitizer report, no leak, whatever the bytes;
 *   - a refused document says so in one message that names the origin and a line of it
 *     ("origin:LINE: ..."), except for the document-level errors that have no line;
 *   - an accepted document yields a configuration the core can take as it is: at most 31
 *     counters and PV_PMU_MAX_FILTERS filter ranges inside the event space with a valid
 *     action, a PMU version perfvisor offers (or "the machine's"), vCPUs within bounds, and
 *     every CPU set within the vCPUs; warnings within their table; and pv_vm_init takes it
 *     (on a QEMU-like machine of tests/support/memplat) without crashing, accepting it or
 *     naming what is wrong.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "domxml.h"
#include "fuzz.h"
#include "memplat.h"

#define ORIGIN "fuzz.xml"

static struct domain dom;
static struct memplat_cpu mc;
static struct pv_pcpu cpu;
static struct pv_hw hw;
static struct pv_vm vm;

/* The configuration goes to the core as a runner would pass it: "the machine's" resolved. */
static void to_core(const struct domain *d)
{
	if (!hw.pmu_version) {
		memplat_init(&mc, 6);
		pv_pcpu_init(&cpu, &mc);
		FZ_CHECK(pv_hw_probe(&hw, &cpu, 0) == PV_OK, "memplat machine refused");
		pv_pcpu_setup(&cpu, &hw);
	}
	struct pv_vm_config cfg = d->cfg;
	if (d->pmu_version_auto)
		cfg.pmu.version = hw.pmu_version;
	if (d->pmu_counters_auto)
		cfg.pmu.nr_counters = hw.hpmn;
	int err = pv_vm_init(&vm, &hw, &cfg);
	FZ_CHECK(err <= 0 && pv_strerror(err) != NULL, "pv_vm_init: %d", err);
}

/* "fuzz.xml:<line>: ..." with a line number of at least 1. */
static bool names_line(const char *msg)
{
	size_t n = strlen(ORIGIN);
	if (strncmp(msg, ORIGIN ":", n + 1) != 0)
		return false;
	const char *p = msg + n + 1;
	char *end;
	long line = strtol(p, &end, 10);
	return end != p && *end == ':' && line >= 1;
}

/* The errors that concern the document as a whole: nothing in it to point at. */
static bool document_level(const char *msg)
{
	static const char *const ok[] = {
		ORIGIN
		": malformed XML", /* libxml2 gave no line (empty document, bad encoding) */
		ORIGIN ": document too large",
		ORIGIN ": out of memory",
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strncmp(msg, ok[i], strlen(ok[i])))
			return true;
	return false;
}

static void check_config(const struct domain *d)
{
	const struct pv_pmu_config *p = &d->cfg.pmu;
	FZ_CHECK(d->name[0] != '\0', "accepted a domain without a name");
	FZ_CHECK(d->vcpus >= 1 && d->vcpus <= DOM_MAX_VCPUS, "vcpus %u", d->vcpus);
	FZ_CHECK(p->nr_counters <= PV_PMU_MAX_COUNTERS, "nr_counters %u", p->nr_counters);
	FZ_CHECK(p->nr_filters <= PV_PMU_MAX_FILTERS, "nr_filters %u", p->nr_filters);
	FZ_CHECK(d->pmu_version_auto || p->version == PV_PMUVER_V3 ||
			 p->version == PV_PMUVER_V3P1 || p->version == PV_PMUVER_V3P4 ||
			 p->version == PV_PMUVER_V3P5 || !(d->cfg.features & PV_FEAT_PMU),
		 "PMU version %u", p->version);
	uint32_t space = (d->pmu_version_auto || p->version >= PV_PMUVER_V3P1) ? 65536u : 1024u;
	for (unsigned i = 0; i < p->nr_filters && i < PV_PMU_MAX_FILTERS; i++) {
		const struct pv_pmu_filter *f = &p->filters[i];
		FZ_CHECK(f->nevents && (uint32_t)f->base_event + f->nevents <= space,
			 "filter %u: [0x%x, +%u) outside the event space", i, f->base_event,
			 f->nevents);
		FZ_CHECK(f->action == PV_PMU_FILTER_ALLOW || f->action == PV_PMU_FILTER_DENY,
			 "filter %u: action %u", i, f->action);
	}
	FZ_CHECK(d->nwarn <= DOM_MAX_WARN, "nwarn %u", d->nwarn);
	FZ_CHECK(d->nmemorytune <= DOM_MAX_TUNES && d->ncachetune <= DOM_MAX_TUNES,
		 "tunes %u/%u", d->nmemorytune, d->ncachetune);
	uint64_t all = d->vcpus >= 64 ? UINT64_MAX : (UINT64_C(1) << d->vcpus) - 1;
	for (unsigned i = 0; i < d->nmemorytune && i < DOM_MAX_TUNES; i++) {
		const struct dom_memorytune *t = &d->memorytune[i];
		FZ_CHECK(t->nnodes <= DOM_MAX_NODES && t->nmonitors <= DOM_MAX_MONITORS,
			 "memorytune %u: %u nodes, %u monitors", i, t->nnodes, t->nmonitors);
		FZ_CHECK(!(t->vcpus & ~all), "memorytune %u: vCPUs 0x%llx beyond %u", i,
			 (unsigned long long)t->vcpus, d->vcpus);
		for (unsigned k = 0; k < t->nnodes && k < DOM_MAX_NODES; k++)
			FZ_CHECK(t->node[k].percent <= 100, "memorytune %u: bandwidth %u %%", i,
				 t->node[k].percent);
	}
	for (unsigned i = 0; i < d->ncachetune && i < DOM_MAX_TUNES; i++) {
		const struct dom_cachetune *t = &d->cachetune[i];
		FZ_CHECK(t->ncaches <= DOM_MAX_CACHES && t->nmonitors <= DOM_MAX_MONITORS,
			 "cachetune %u: %u caches, %u monitors", i, t->ncaches, t->nmonitors);
		FZ_CHECK(!(t->vcpus & ~all), "cachetune %u: vCPUs 0x%llx beyond %u", i,
			 (unsigned long long)t->vcpus, d->vcpus);
	}
	for (unsigned v = 0; v < DOM_MAX_VCPUS; v++)
		FZ_CHECK(d->pin[v] >= -1, "vCPU %u pinned to %d", v, d->pin[v]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *xml = malloc(size + 1);
	if (!xml)
		return 0;
	memcpy(xml, data, size);
	xml[size] = '\0';
	struct diag d;
	memset(&d, 0, sizeof(d));
	int rc = domxml_parse_memory(xml, ORIGIN, &dom, &d);
	free(xml);
	FZ_CHECK(rc == 0 || rc == -1, "domxml_parse_memory returned %d", rc);
	if (rc) {
		FZ_CHECK(memchr(d.msg, '\0', sizeof(d.msg)) != NULL,
			 "error message not terminated");
		FZ_CHECK(names_line(d.msg) || document_level(d.msg),
			 "error without a line: \"%s\"", d.msg);
		return 0;
	}
	check_config(&dom);
	to_core(&dom);
	return 0;
}
