/* SPDX-License-Identifier: MIT */
/* libvirt domain XML -> struct domain (see domxml.h for what is read and docs/operator.md). */
#include "domxml.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

const struct dom_perf_info dom_perf_events[DOM_PERF_COUNT] = {
#define DOM_PERF_ROW(n, a, t) [DOM_PERF_##n] = {#n, a, t},
	DOM_PERF_EVENTS(DOM_PERF_ROW)
#undef DOM_PERF_ROW
};

int domxml_perf_lookup(const char *name)
{
	for (int i = 0; i < DOM_PERF_COUNT; i++)
		if (strcmp(dom_perf_events[i].name, name) == 0)
			return i;
	return -1;
}

bool domxml_perf_accounted(const struct domain *dom, enum dom_perf_event e)
{
	return dom->perf[e] == DOM_PERF_ENABLED && dom_perf_events[e].arm >= 0;
}

void domxml_monitor_name(uint64_t vcpus, char *buf, size_t len)
{
	char set[96];
	cpuset_format(vcpus, set, sizeof(set));
	snprintf(buf, len, "vcpus_%s", set);
}

static const struct {
	const char *name;
	uint8_t version;
} pmu_versions[] = {
	{"3", PV_PMUVER_V3},
	{"3p1", PV_PMUVER_V3P1},
	{"3p4", PV_PMUVER_V3P4},
	{"3p5", PV_PMUVER_V3P5},
};

const char *domxml_pmu_version_name(unsigned version)
{
	for (size_t i = 0; i < sizeof(pmu_versions) / sizeof(pmu_versions[0]); i++)
		if (pmu_versions[i].version == version)
			return pmu_versions[i].name;
	return NULL;
}

static void warn(struct domain *dom, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(struct domain *dom, long line, const char *fmt, ...)
{
	if (dom->nwarn >= DOM_MAX_WARN)
		return;
	char msg[sizeof(dom->warn[0])];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char full[sizeof(dom->origin) + sizeof(msg) + 32];
	snprintf(full, sizeof(full), "%s:%ld: %s", dom->origin, line, msg);
	char *w = dom->warn[dom->nwarn++];
	memcpy(w, full, sizeof(dom->warn[0]) - 1);
	w[sizeof(dom->warn[0]) - 1] = '\0';
}

/* ---- small elements --------------------------------------------------------------------- */

/* Refuses a second occurrence of a singleton element. */
static int once(const struct xsrc *s, const xmlNode *n, long *seen)
{
	if (*seen) {
		char name[64];
		return xerr(s, n, "<%s> appears twice (first at line %ld)",
			    xml_name(n, name, sizeof(name)), *seen);
	}
	*seen = xml_line(n);
	return 0;
}

static int parse_uuid(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	char text[64];
	if (xml_text(s, n, text, sizeof(text)))
		return -1;
	char hex[33];
	size_t k = 0;
	for (const char *p = text; *p; p++) {
		if (*p == '-')
			continue;
		bool ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
			  (*p >= 'A' && *p <= 'F');
		if (!ok || k == 32)
			return xerr(s, n, "'%s' is not a UUID", text);
		hex[k++] = (char)(*p | 0x20);
	}
	if (k != 32)
		return xerr(s, n, "'%s' is not a UUID", text);
	hex[32] = '\0';
	snprintf(dom->uuid, sizeof(dom->uuid), "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8,
		 hex + 12, hex + 16, hex + 20);
	return 0;
}

static int parse_vcpu(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	char text[32];
	uint64_t max;
	if (xml_text(s, n, text, sizeof(text)))
		return -1;
	if (!parse_u64(text, false, &max))
		return xerr(s, n, "'%s' is not a number", text);
	if (max < 1 || max > DOM_MAX_VCPUS)
		return xerr(s, n, "%s vCPUs out of range (1..%d)", text, DOM_MAX_VCPUS);
	unsigned cur = (unsigned)max;
	if (xml_attr_uint(s, n, "current", false, 1, (unsigned)max, &cur) < 0)
		return -1;
	dom->vcpus = cur;
	return 0;
}

/* A cpuset attribute of vCPU numbers (checked against the vCPU count later). */
static int vcpus_attr(const struct xsrc *s, const xmlNode *n, const char *name, bool required,
		      uint64_t *out)
{
	char *v = xml_attr(n, name);
	if (!v)
		return required ? xerr(s, n, "missing attribute '%s'", name) : 0;
	char why[160];
	int r = cpuset_parse(v, DOM_MAX_VCPUS, out, why, sizeof(why))
			? 1
			: xerr(s, n, "%s='%s' is not a set of vCPUs (0..%d, e.g. '0-1,3'): %s",
			       name, v, DOM_MAX_VCPUS - 1, why);
	xmlFree(v);
	return r;
}

static int parse_vcpupin(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	unsigned vcpu;
	if (xml_attr_uint(s, n, "vcpu", true, 0, DOM_MAX_VCPUS - 1, &vcpu) < 0)
		return -1;
	if (dom->pin_line[vcpu])
		return xerr(s, n, "vCPU %u is pinned twice (first at line %ld)", vcpu,
			    dom->pin_line[vcpu]);
	char *v = xml_attr(n, "cpuset");
	uint64_t set = 0;
	char why[160] = "missing";
	bool ok = v && cpuset_parse(v, 64, &set, why, sizeof(why));
	int r = ok ? 0
		   : xerr(s, n, "cpuset='%s' is not a set of host CPUs (0..63): %s", v ? v : "",
			  why);
	if (v)
		xmlFree(v);
	if (r)
		return r;
	dom->pin[vcpu] = __builtin_ctzll(set); /* the first CPU of the set */
	dom->pin_line[vcpu] = xml_line(n);
	return 0;
}

/* ---- cputune: memorytune and cachetune ---------------------------------------------------- */

static int parse_monitor(const struct xsrc *s, const xmlNode *n, bool cache, unsigned *count,
			 struct dom_monitor *mon)
{
	static const char *const mem_attrs[] = {"vcpus", NULL};
	static const char *const cache_attrs[] = {"vcpus", "level", NULL};
	if (xml_only_attrs(s, n, cache ? cache_attrs : mem_attrs) || xml_no_children(s, n))
		return -1;
	if (*count == DOM_MAX_MONITORS)
		return xerr(s, n, "more than %d monitors", DOM_MAX_MONITORS);
	struct dom_monitor *m = &mon[*count];
	*m = (struct dom_monitor){.line = xml_line(n)};
	if (vcpus_attr(s, n, "vcpus", true, &m->vcpus) < 0)
		return -1;
	if (cache && xml_attr_uint(s, n, "level", true, 1, 7, &m->level) < 0)
		return -1;
	(*count)++;
	return 0;
}

static int parse_memorytune(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	static const char *const attrs[] = {"vcpus", "id", NULL};
	if (xml_only_attrs(s, n, attrs))
		return -1;
	if (dom->nmemorytune == DOM_MAX_TUNES)
		return xerr(s, n, "more than %d <memorytune> elements", DOM_MAX_TUNES);
	struct dom_memorytune *t = &dom->memorytune[dom->nmemorytune];
	*t = (struct dom_memorytune){.line = xml_line(n)};
	if (vcpus_attr(s, n, "vcpus", true, &t->vcpus) < 0)
		return -1;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (xml_is(c, NULL, "node")) {
			static const char *const node_attrs[] = {"id", "bandwidth", NULL};
			if (xml_only_attrs(s, c, node_attrs) || xml_no_children(s, c))
				return -1;
			if (t->nnodes == DOM_MAX_NODES)
				return xerr(s, c, "more than %d nodes", DOM_MAX_NODES);
			struct dom_membw *b = &t->node[t->nnodes];
			*b = (struct dom_membw){.line = xml_line(c)};
			if (xml_attr_uint(s, c, "id", true, 0, 63, &b->id) < 0 ||
			    xml_attr_uint(s, c, "bandwidth", true, 1, 100, &b->percent) < 0)
				return -1;
			for (unsigned k = 0; k < t->nnodes; k++)
				if (t->node[k].id == b->id)
					return xerr(s, c,
						    "node %u appears twice (first at line %ld)",
						    b->id, t->node[k].line);
			t->nnodes++;
		} else if (xml_is(c, NULL, "monitor")) {
			if (parse_monitor(s, c, false, &t->nmonitors, t->monitor))
				return -1;
		} else {
			return xerr(s, c,
				    "unexpected inside <memorytune> (expected <node> or "
				    "<monitor>)");
		}
	}
	if (!t->nnodes && !t->nmonitors)
		return xerr(s, n, "has neither <node> nor <monitor>");
	dom->nmemorytune++;
	return 0;
}

/* libvirt's scaled sizes: b, bytes, k/KiB (1024), KB (1000), ... up to E. */
static bool unit_scale(const char *unit, uint64_t *scale)
{
	static const char letters[] = "kmgtpe";
	if (!strcmp(unit, "b") || !strcmp(unit, "B") || !strcmp(unit, "byte") ||
	    !strcmp(unit, "bytes")) {
		*scale = 1;
		return true;
	}
	const char *l = strchr(letters, unit[0] | 0x20);
	if (!unit[0] || !l)
		return false;
	unsigned power = (unsigned)(l - letters) + 1;
	uint64_t base;
	if (unit[1] == '\0' ||
	    ((unit[1] == 'i' || unit[1] == 'I') && (unit[2] | 0x20) == 'b' && unit[3] == '\0'))
		base = 1024;
	else if ((unit[1] | 0x20) == 'b' && unit[2] == '\0')
		base = 1000;
	else
		return false;
	*scale = 1;
	for (unsigned i = 0; i < power; i++)
		*scale *= base;
	return true;
}

int domxml_size_attr(const struct xsrc *s, const xmlNode *n, uint64_t *bytes)
{
	uint64_t size;
	if (xml_attr_u64(s, n, "size", true, 1, UINT64_C(1) << 40, &size) < 0)
		return -1;
	char *unit = xml_attr(n, "unit");
	uint64_t scale = 1024; /* libvirt's default unit for a cache size is KiB */
	int r = 0;
	if (unit && !unit_scale(unit, &scale))
		r = xerr(s, n, "unit='%s' is not a size unit (B, KiB, MiB, GiB, ...)", unit);
	if (unit)
		xmlFree(unit);
	if (r)
		return r;
	if (size > (UINT64_C(1) << 50) / scale)
		return xerr(s, n, "size out of range");
	*bytes = size * scale;
	return 0;
}

static int parse_cache(const struct xsrc *s, const xmlNode *c, struct dom_cachetune *t)
{
	static const char *const attrs[] = {"id", "level", "type", "size", "unit", NULL};
	if (xml_only_attrs(s, c, attrs) || xml_no_children(s, c))
		return -1;
	if (t->ncaches == DOM_MAX_CACHES)
		return xerr(s, c, "more than %d caches", DOM_MAX_CACHES);
	struct dom_cache *k = &t->cache[t->ncaches];
	*k = (struct dom_cache){.line = xml_line(c)};
	if (xml_attr_uint(s, c, "id", true, 0, 1023, &k->id) < 0 ||
	    xml_attr_uint(s, c, "level", true, 1, 7, &k->level) < 0 ||
	    domxml_size_attr(s, c, &k->bytes) < 0)
		return -1;
	char *type = xml_attr(c, "type");
	int r = 0;
	if (!type)
		r = xerr(s, c, "missing attribute 'type'");
	else if (!strcmp(type, "both"))
		k->type = DOM_CACHE_BOTH;
	else if (!strcmp(type, "code"))
		k->type = DOM_CACHE_CODE;
	else if (!strcmp(type, "data"))
		k->type = DOM_CACHE_DATA;
	else
		r = xerr(s, c, "type='%s' must be 'both', 'code' or 'data'", type);
	if (type)
		xmlFree(type);
	if (r)
		return r;
	for (unsigned i = 0; i < t->ncaches; i++)
		if (t->cache[i].id == k->id && t->cache[i].level == k->level)
			return xerr(s, c,
				    "cache id %u level %u appears twice (first at line %ld)",
				    k->id, k->level, t->cache[i].line);
	t->ncaches++;
	return 0;
}

static int parse_cachetune(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	static const char *const attrs[] = {"vcpus", "id", NULL};
	if (xml_only_attrs(s, n, attrs))
		return -1;
	if (dom->ncachetune == DOM_MAX_TUNES)
		return xerr(s, n, "more than %d <cachetune> elements", DOM_MAX_TUNES);
	struct dom_cachetune *t = &dom->cachetune[dom->ncachetune];
	*t = (struct dom_cachetune){.line = xml_line(n)};
	if (vcpus_attr(s, n, "vcpus", true, &t->vcpus) < 0)
		return -1;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (xml_is(c, NULL, "cache")) {
			if (parse_cache(s, c, t))
				return -1;
		} else if (xml_is(c, NULL, "monitor")) {
			if (parse_monitor(s, c, true, &t->nmonitors, t->monitor))
				return -1;
		} else {
			return xerr(s, c,
				    "unexpected inside <cachetune> (expected <cache> or "
				    "<monitor>)");
		}
	}
	if (!t->ncaches && !t->nmonitors)
		return xerr(s, n, "has neither <cache> nor <monitor>");
	dom->ncachetune++;
	return 0;
}

static int parse_cputune(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		int r = 0;
		if (xml_is(c, NULL, "vcpupin"))
			r = parse_vcpupin(s, c, dom);
		else if (xml_is(c, NULL, "memorytune"))
			r = parse_memorytune(s, c, dom);
		else if (xml_is(c, NULL, "cachetune"))
			r = parse_cachetune(s, c, dom);
		/* shares, period, quota, emulatorpin, ...: libvirt's, not ours */
		if (r)
			return r;
	}
	return 0;
}

/* ---- PMU: <features><pmu>, <perf> ----------------------------------------------------------- */

static int parse_features(const struct xsrc *s, const xmlNode *n, struct domain *dom,
			  bool *pmu_off, long *pmu_off_line)
{
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (!xml_is(c, NULL, "pmu"))
			continue;
		bool on = true;
		if (xml_attr_bool(s, c, "state", true, true, &on) < 0)
			return -1;
		*pmu_off = !on;
		*pmu_off_line = xml_line(c);
		if (!dom->pmu_line)
			dom->pmu_line = xml_line(c);
	}
	return 0;
}

static int parse_perf(const struct xsrc *s, const xmlNode *n, struct domain *dom)
{
	dom->has_perf = true;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (!xml_is(c, NULL, "event"))
			return xerr(s, c, "unexpected inside <perf> (expected <event>)");
		static const char *const attrs[] = {"name", "enabled", NULL};
		if (xml_only_attrs(s, c, attrs) || xml_no_children(s, c))
			return -1;
		char *name = xml_attr(c, "name");
		if (!name)
			return xerr(s, c, "missing attribute 'name'");
		int e = domxml_perf_lookup(name);
		int r = 0;
		if (e < 0)
			r = xerr(s, c, "'%s' is not a libvirt perf event", name);
		else if (dom->perf[e] != DOM_PERF_ABSENT)
			r = xerr(s, c, "event '%s' appears twice (first at line %ld)", name,
				 dom->perf_event_line[e]);
		xmlFree(name);
		if (r)
			return r;
		bool on = false;
		if (xml_attr_bool(s, c, "enabled", true, false, &on) < 0)
			return -1;
		dom->perf[e] = on ? DOM_PERF_ENABLED : DOM_PERF_DISABLED;
		dom->perf_event_line[e] = xml_line(c);
		if (on && dom_perf_events[e].arm < 0)
			warn(dom, xml_line(c),
			     "<event name='%s'>: no Arm PMUv3 equivalent (%s): not offered to "
			     "the "
			     "guest, no perf.%s figure",
			     dom_perf_events[e].name, dom_perf_events[e].text,
			     dom_perf_events[e].name);
	}
	return 0;
}

/* The filter: an allow-list of the enabled mapped events if there is one (every other event
 * denied), else a deny-list of the disabled mapped ones, else none (every event allowed).
 * SW_INCR and CHAIN are never filtered (the library's KVM semantics). */
static void build_filter(struct domain *dom)
{
	uint8_t want = DOM_PERF_ENABLED;
	bool any = false;
	for (int e = 0; e < DOM_PERF_COUNT; e++)
		any |= domxml_perf_accounted(dom, (enum dom_perf_event)e);
	if (!any)
		want = DOM_PERF_DISABLED;
	bool listed[64] = {false};
	for (int e = 0; e < DOM_PERF_COUNT; e++)
		if (dom->perf[e] == want && dom_perf_events[e].arm >= 0)
			listed[dom_perf_events[e].arm] = true;
	struct pv_pmu_config *p = &dom->cfg.pmu;
	p->nr_filters = 0;
	for (unsigned ev = 0; ev < 64; ev++) {
		if (!listed[ev])
			continue;
		unsigned end = ev;
		while (end + 1 < 64 && listed[end + 1])
			end++;
		p->filters[p->nr_filters++] = (struct pv_pmu_filter){
			.base_event = (uint16_t)ev,
			.nevents = (uint16_t)(end - ev + 1),
			.action = want == DOM_PERF_ENABLED ? PV_PMU_FILTER_ALLOW
							   : PV_PMU_FILTER_DENY,
		};
		ev = end;
	}
}

/* ---- <metadata><perfvisor:vm> --------------------------------------------------------------- */

static int parse_ours(const struct xsrc *s, const xmlNode *vm, struct domain *dom,
		      bool *pmu_meta)
{
	if (xml_only_attrs(s, vm, (const char *const[]){NULL}))
		return -1;
	long seen_pmu = 0;
	for (xmlNode *c = xml_first(vm); c; c = xml_next(c)) {
		if (xml_is(c, DOMXML_NS, "pmu")) {
			static const char *const attrs[] = {"counters", "version", NULL};
			if (once(s, c, &seen_pmu) || xml_only_attrs(s, c, attrs) ||
			    xml_no_children(s, c))
				return -1;
			*pmu_meta = true;
			dom->pmu_line = xml_line(c);
			unsigned n;
			int r = xml_attr_uint(s, c, "counters", false, 0, PV_PMU_MAX_COUNTERS,
					      &n);
			if (r < 0)
				return -1;
			if (r) {
				dom->cfg.pmu.nr_counters = (uint8_t)n;
				dom->pmu_counters_auto = false;
			}
			char *v = xml_attr(c, "version");
			if (v) {
				bool ok = false;
				for (size_t i = 0;
				     i < sizeof(pmu_versions) / sizeof(pmu_versions[0]); i++)
					if (!strcmp(v, pmu_versions[i].name)) {
						dom->cfg.pmu.version = pmu_versions[i].version;
						dom->pmu_version_auto = false;
						ok = true;
					}
				r = ok ? 0
				       : xerr(s, c,
					      "version='%s' is not offered (3, 3p1, 3p4 or "
					      "3p5)",
					      v);
				xmlFree(v);
				if (r)
					return r;
			}
		} else if (xml_is(c, DOMXML_NS, "spe") || xml_is(c, DOMXML_NS, "amu")) {
			bool spe = xml_is(c, DOMXML_NS, "spe");
			long *line = spe ? &dom->spe_line : &dom->amu_line;
			static const char *const attrs[] = {"enabled", NULL};
			static const char *const spe_attrs[] = {"enabled", "max-buffer", NULL};
			if (once(s, c, line) || xml_only_attrs(s, c, spe ? spe_attrs : attrs) ||
			    xml_no_children(s, c))
				return -1;
			bool on = true;
			if (xml_attr_bool(s, c, "enabled", false, false, &on) < 0)
				return -1;
			/* max-buffer: the largest profiling buffer a vCPU may have pinned (bytes,
			 * a multiple of 4 KiB; PMBIDR_EL1.MaxBuffSize), DOM_SPE_MAX_BUFFER if absent */
			if (spe &&
			    xml_attr_u64(s, c, "max-buffer", false, PV_SPE_PAGE,
					 PV_SPE_MAX_BUFFER, &dom->cfg.spe.max_buffer) < 0)
				return -1;
			if (spe && dom->cfg.spe.max_buffer % PV_SPE_PAGE)
				return xerr(s, c,
					    "max-buffer='%" PRIu64
					    "' is not a multiple of 4096 bytes",
					    dom->cfg.spe.max_buffer);
			if (on)
				dom->cfg.features |= spe ? PV_FEAT_SPE : PV_FEAT_AMU;
		} else {
			return xerr(s, c,
				    "unknown element in the perfvisor namespace (expected "
				    "perfvisor:pmu, perfvisor:spe or perfvisor:amu)");
		}
	}
	return 0;
}

static int parse_metadata(const struct xsrc *s, const xmlNode *n, struct domain *dom,
			  bool *pmu_meta)
{
	long seen = 0;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		const char *href = c->ns && c->ns->href ? (const char *)c->ns->href : "";
		if (strncmp(href, DOMXML_NS_PREFIX, strlen(DOMXML_NS_PREFIX)) != 0)
			continue; /* another application's metadata */
		if (strcmp(href, DOMXML_NS) != 0)
			return xerr(s, c, "namespace '%s' is not one this perfvisor reads (%s)",
				    href, DOMXML_NS);
		if (!xml_is(c, DOMXML_NS, "vm"))
			return xerr(s, c,
				    "perfvisor metadata must be one <perfvisor:vm> element");
		if (once(s, c, &seen) || parse_ours(s, c, dom, pmu_meta))
			return -1;
	}
	return 0;
}

/* ---- consistency ------------------------------------------------------------------------ */

static int check_vcpus(struct diag *d, const struct domain *dom, uint64_t set, long line,
		       const char *element)
{
	uint64_t all = dom->vcpus >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dom->vcpus) - 1;
	if (set & ~all) {
		char text[96];
		cpuset_format(set & ~all, text, sizeof(text));
		bool one = !((set & ~all) & ((set & ~all) - 1));
		return xerr_at(d, dom->origin, line, element,
			       "vCPU%s %s do%s not exist (the domain has %u vCPUs)",
			       one ? "" : "s", text, one ? "es" : "", dom->vcpus);
	}
	return 0;
}

/* libvirt's rules: monitors inside their allocation and not overlapping one another; a vCPU in
 * at most one memorytune and one cachetune; a memorytune and a cachetune either equal or
 * disjoint. */
static int check_tunes(struct diag *d, const struct domain *dom)
{
	for (unsigned v = 0; v < DOM_MAX_VCPUS; v++)
		if (dom->pin_line[v] && v >= dom->vcpus)
			return xerr_at(d, dom->origin, dom->pin_line[v], "vcpupin",
				       "vCPU %u does not exist (the domain has %u vCPUs)", v,
				       dom->vcpus);
	for (int kind = 0; kind < 2; kind++) {
		unsigned n = kind ? dom->ncachetune : dom->nmemorytune;
		const char *el = kind ? "cachetune" : "memorytune";
		uint64_t used = 0;
		for (unsigned i = 0; i < n; i++) {
			uint64_t vcpus = kind ? dom->cachetune[i].vcpus
					      : dom->memorytune[i].vcpus;
			long line = kind ? dom->cachetune[i].line : dom->memorytune[i].line;
			unsigned nmon = kind ? dom->cachetune[i].nmonitors
					     : dom->memorytune[i].nmonitors;
			const struct dom_monitor *mon = kind ? dom->cachetune[i].monitor
							     : dom->memorytune[i].monitor;
			if (check_vcpus(d, dom, vcpus, line, el))
				return -1;
			if (vcpus & used)
				return xerr_at(d, dom->origin, line, el,
					       "vCPUs overlap another <%s> of the domain", el);
			used |= vcpus;
			uint64_t monitored = 0;
			for (unsigned k = 0; k < nmon; k++) {
				if (mon[k].vcpus & ~vcpus)
					return xerr_at(d, dom->origin, mon[k].line, "monitor",
						       "vCPUs outside the <%s> they monitor",
						       el);
				if (mon[k].vcpus & monitored)
					return xerr_at(d, dom->origin, mon[k].line, "monitor",
						       "vCPUs overlap another monitor");
				monitored |= mon[k].vcpus;
			}
		}
	}
	for (unsigned i = 0; i < dom->nmemorytune; i++)
		for (unsigned k = 0; k < dom->ncachetune; k++) {
			uint64_t a = dom->memorytune[i].vcpus, b = dom->cachetune[k].vcpus;
			if ((a & b) && a != b)
				return xerr_at(
					d, dom->origin, dom->memorytune[i].line, "memorytune",
					"vCPUs partially overlap the <cachetune> at line %ld "
					"(they must be equal or disjoint)",
					dom->cachetune[k].line);
		}
	return 0;
}

/* ---- the domain ------------------------------------------------------------------------- */

static int parse_domain(const struct xsrc *s, const xmlNode *root, struct domain *dom)
{
	if (!xml_is(root, NULL, "domain")) {
		char name[64];
		return xerr(s, root, "expected a libvirt <domain>, found <%s>",
			    xml_name(root, name, sizeof(name)));
	}
	char *type = xml_attr(root, "type");
	if (!type)
		return xerr(s, root, "missing attribute 'type'");
	xmlFree(type);
	dom->line = xml_line(root);
	dom->vcpus = 1; /* libvirt's default */
	dom->pmu_version_auto = dom->pmu_counters_auto = true;
	dom->cfg.features = PV_FEAT_PMU;
	for (unsigned v = 0; v < DOM_MAX_VCPUS; v++)
		dom->pin[v] = -1;

	long seen_name = 0, seen_uuid = 0, seen_cputune = 0, seen_features = 0,
	     seen_metadata = 0;
	bool pmu_off = false, pmu_meta = false;
	long pmu_off_line = 0;
	for (xmlNode *c = xml_first(root); c; c = xml_next(c)) {
		int r = 0;
		if (xml_is(c, NULL, "name")) {
			r = once(s, c, &seen_name) ||
			    xml_text(s, c, dom->name, sizeof(dom->name));
		} else if (xml_is(c, NULL, "uuid")) {
			r = once(s, c, &seen_uuid) || parse_uuid(s, c, dom);
		} else if (xml_is(c, NULL, "vcpu")) {
			r = once(s, c, &dom->vcpu_line) || parse_vcpu(s, c, dom);
		} else if (xml_is(c, NULL, "cputune")) {
			r = once(s, c, &seen_cputune) || parse_cputune(s, c, dom);
		} else if (xml_is(c, NULL, "features")) {
			r = once(s, c, &seen_features) ||
			    parse_features(s, c, dom, &pmu_off, &pmu_off_line);
		} else if (xml_is(c, NULL, "perf")) {
			r = once(s, c, &dom->perf_line) || parse_perf(s, c, dom);
		} else if (xml_is(c, NULL, "metadata")) {
			r = once(s, c, &seen_metadata) || parse_metadata(s, c, dom, &pmu_meta);
		}
		if (r)
			return -1;
	}
	if (!seen_name)
		return xerr(s, root, "missing <name>");
	if (check_tunes(s->d, dom))
		return -1;

	bool perf_on = false;
	for (int e = 0; e < DOM_PERF_COUNT; e++)
		perf_on |= domxml_perf_accounted(dom, (enum dom_perf_event)e);
	if (pmu_off && pmu_meta)
		return xerr_at(s->d, s->origin, dom->pmu_line, "perfvisor:pmu",
			       "contradicts <pmu state='off'> at line %ld", pmu_off_line);
	if (pmu_off && perf_on)
		return xerr_at(
			s->d, s->origin, dom->perf_line, "perf",
			"events enabled, but <pmu state='off'> at line %ld leaves the VM "
			"without a PMU",
			pmu_off_line);
	if (pmu_off) {
		dom->cfg.features &= ~PV_FEAT_PMU;
		dom->pmu_version_auto = dom->pmu_counters_auto = false;
	}
	if (dom->nmemorytune || dom->ncachetune)
		dom->cfg.features |= PV_FEAT_MPAM;
	build_filter(dom);
	return 0;
}

static int parse_doc(xmlDoc *doc, const struct xsrc *s, struct domain *dom)
{
	int r = parse_domain(s, xmlDocGetRootElement(doc), dom);
	xmlFreeDoc(doc);
	return r;
}

static void begin(struct domain *dom, const char *origin)
{
	memset(dom, 0, sizeof(*dom));
	snprintf(dom->origin, sizeof(dom->origin), "%s", origin);
}

static int finish(struct domain *dom, int r)
{
	if (r) {
		char origin[sizeof(dom->origin)];
		memcpy(origin, dom->origin, sizeof(origin));
		begin(dom, origin);
	}
	return r;
}

int domxml_parse_file(const char *path, struct domain *dom, struct diag *d)
{
	begin(dom, xml_origin_of(path));
	struct xsrc s = {.origin = dom->origin, .d = d};
	xmlDoc *doc = xml_load_file(&s, path);
	return finish(dom, doc ? parse_doc(doc, &s, dom) : -1);
}

int domxml_parse_memory(const char *xml, const char *origin, struct domain *dom, struct diag *d)
{
	begin(dom, origin);
	struct xsrc s = {.origin = dom->origin, .d = d};
	size_t len = strlen(xml);
	xmlDoc *doc = len < (size_t)1 << 30 ? xml_load_memory(&s, xml, (int)len) : NULL;
	if (!doc && len >= (size_t)1 << 30)
		xerr(&s, NULL, "document too large");
	return finish(dom, doc ? parse_doc(doc, &s, dom) : -1);
}
