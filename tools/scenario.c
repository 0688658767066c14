/* SPDX-License-Identifier: MIT */
/* Scenario files (see scenario.h and docs/operator.md). */
#include "scenario.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "virt.h"

int scenario_profile(const char *name)
{
	for (int p = 0; p < SIM_PROF_COUNT; p++)
		if (p != SIM_PROF_HYP &&
		    strcmp(sim_profile_name((enum sim_profile)p), name) == 0)
			return p;
	return -1;
}

static int once(const struct xsrc *s, const xmlNode *n, long *seen)
{
	if (*seen)
		return xerr(s, n, "appears twice (first at line %ld)", *seen);
	*seen = xml_line(n);
	return 0;
}

/* Directory part of the scenario path, for relative file names. */
static void resolve(const char *base, const char *rel, char *out, size_t len)
{
	const char *slash = strrchr(base, '/');
	if (rel[0] == '/' || !slash)
		snprintf(out, len, "%s", rel);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - base), base, rel);
}

static int parse_version(const struct xsrc *s, const xmlNode *n, const char *attr, uint8_t *out)
{
	char *v = xml_attr(n, attr);
	if (!v)
		return 0;
	int r = -1;
	static const uint8_t versions[] = {PV_PMUVER_V3, PV_PMUVER_V3P1, PV_PMUVER_V3P4,
					   PV_PMUVER_V3P5};
	for (size_t i = 0; i < sizeof(versions); i++)
		if (!strcmp(v, domxml_pmu_version_name(versions[i]))) {
			*out = versions[i];
			r = 0;
		}
	if (r)
		xerr(s, n, "%s='%s' is not a PMU version (3, 3p1, 3p4 or 3p5)", attr, v);
	xmlFree(v);
	return r;
}

/* "40ms", "2s", "500us", "1000000ns". */
static int parse_time(const struct xsrc *s, const xmlNode *n, const char *attr, uint64_t *ns)
{
	char *v = xml_attr(n, attr);
	if (!v)
		return 0;
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	int r = xerr(s, n, "%s='%s' is not a time (e.g. '40ms', '2s', '500us')", attr, v);
	size_t len = strlen(v);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ul = strlen(units[i].unit);
		if (len <= ul || strcmp(v + len - ul, units[i].unit) != 0)
			continue;
		char num[32];
		uint64_t x;
		if (len - ul >= sizeof(num))
			break;
		memcpy(num, v, len - ul);
		num[len - ul] = '\0';
		if (!parse_u64(num, false, &x) || x == 0 ||
		    x > UINT64_C(3600000000000) / units[i].ns)
			break;
		*ns = x * units[i].ns;
		r = 0;
		break;
	}
	xmlFree(v);
	return r;
}

/* A bandwidth: "10GB/s", "12.8GB/s", "800MB/s", "1.5GiB/s" (decimal and binary units), or
 * plain bytes per second ("5000000"). */
static bool rate_value(const char *v, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = {{"B/s", 1},
		     {"KB/s", UINT64_C(1000)},
		     {"MB/s", UINT64_C(1000000)},
		     {"GB/s", UINT64_C(1000000000)},
		     {"TB/s", UINT64_C(1000000000000)},
		     {"KiB/s", UINT64_C(1) << 10},
		     {"MiB/s", UINT64_C(1) << 20},
		     {"GiB/s", UINT64_C(1) << 30},
		     {"TiB/s", UINT64_C(1) << 40}};
	const char *p = v;
	uint64_t ip = 0, frac = 0, den = 1;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > UINT64_MAX / 10 - 9)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++)
			if (den < UINT64_C(1000000000)) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				den *= 10;
			}
	}
	uint64_t scale = *p ? 0 : 1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !scale; i++)
		if (!strcmp(p, units[i].unit))
			scale = units[i].scale;
	if (!scale || ip > UINT64_MAX / scale)
		return false;
	*out = ip * scale + (uint64_t)((unsigned __int128)frac * scale / den);
	return *out != 0;
}

static int parse_rate(const struct xsrc *s, const xmlNode *n, const char *attr, uint64_t *out)
{
	char *v = xml_attr(n, attr);
	if (!v)
		return 0;
	int r = rate_value(v, out)
			? 1
			: xerr(s, n,
			       "%s='%s' is not a bandwidth (e.g. '10GB/s', '800MB/s', "
			       "'1.5GiB/s')",
			       attr, v);
	xmlFree(v);
	return r;
}

static int parse_node(const struct xsrc *s, const xmlNode *c, struct scenario *sc,
		      uint64_t *local)
{
	static const char *const attrs[] = {"id", "cpus", "bandwidth", NULL};
	if (xml_only_attrs(s, c, attrs) || xml_no_children(s, c))
		return -1;
	if (sc->nnodes == SCEN_MAX_NODES)
		return xerr(s, c, "more than %d memory nodes", SCEN_MAX_NODES);
	struct scen_node *nd = &sc->node[sc->nnodes];
	*nd = (struct scen_node){.bandwidth = SCEN_NODE_BANDWIDTH, .line = xml_line(c)};
	if (xml_attr_uint(s, c, "id", true, 0, 63, &nd->id) < 0 ||
	    parse_rate(s, c, "bandwidth", &nd->bandwidth) < 0)
		return -1;
	for (unsigned k = 0; k < sc->nnodes; k++)
		if (sc->node[k].id == nd->id)
			return xerr(s, c, "memory node %u appears twice (first at line %ld)",
				    nd->id, sc->node[k].line);
	char *cpus = xml_attr(c, "cpus");
	if (cpus) {
		char why[160];
		bool ok = cpuset_parse(cpus, sc->cpus, &nd->cpus, why, sizeof(why));
		int r = ok ? 0
			   : xerr(s, c,
				  "cpus='%s' is not a set of this machine's pCPUs (0..%u): %s",
				  cpus, sc->cpus - 1, why);
		xmlFree(cpus);
		if (r)
			return r;
		if (nd->cpus & *local)
			return xerr(s, c, "a pCPU is local to two memory nodes");
		*local |= nd->cpus;
	}
	sc->nnodes++;
	return 0;
}

/* <cache id level size unit portions/>: a cache MPAM partitions (libvirt's size units). */
static int parse_cache(const struct xsrc *s, const xmlNode *c, struct scenario *sc)
{
	static const char *const attrs[] = {"id", "level", "size", "unit", "portions", NULL};
	if (xml_only_attrs(s, c, attrs) || xml_no_children(s, c))
		return -1;
	if (sc->ncaches == SCEN_MAX_CACHES)
		return xerr(s, c, "a second cache: the machine model partitions one");
	struct scen_cache *k = &sc->cache[sc->ncaches];
	*k = (struct scen_cache){.portions = 16, .line = xml_line(c)};
	if (xml_attr_uint(s, c, "id", true, 0, PV_VMPAM_MAX_CACHES - 1, &k->id) < 0 ||
	    xml_attr_uint(s, c, "level", true, 1, 7, &k->level) < 0 ||
	    domxml_size_attr(s, c, &k->bytes) < 0 ||
	    xml_attr_uint(s, c, "portions", false, 1, 64, &k->portions) < 0)
		return -1;
	if (k->bytes < k->portions)
		return xerr(s, c, "size is smaller than its %u portions", k->portions);
	sc->ncaches++;
	return 0;
}

static int parse_mpam(const struct xsrc *s, const xmlNode *c, struct scenario *sc)
{
	static const char *const attrs[] = {"partids", "pmgs", "bandwidth-monitors", "tick",
					    NULL};
	int r, g;
	if (xml_only_attrs(s, c, attrs) || xml_no_children(s, c) ||
	    xml_attr_uint(s, c, "partids", true, 2, 65536, &sc->partids) < 0 ||
	    (g = xml_attr_uint(s, c, "pmgs", false, 1, 256, &sc->pmgs)) < 0 ||
	    (r = xml_attr_uint(s, c, "bandwidth-monitors", false, 0, PV_VMPAM_MAX_MONS,
			       &sc->bw_monitors)) < 0 ||
	    parse_time(s, c, "tick", &sc->mpam_tick_ns))
		return -1;
	sc->pmgs_given = g > 0;
	if (!r) /* one per PARTID: every VM's bytes are counted all along */
		sc->bw_monitors = sc->partids > PV_VMPAM_MAX_MONS ? PV_VMPAM_MAX_MONS
								  : sc->partids;
	/* The machine's memory system steps in 100 us windows; ticks fall on them. */
	if (sc->mpam_tick_ns % 100000 || sc->mpam_tick_ns > UINT64_C(1000000000))
		return xerr(s, c, "tick must be a multiple of 100us, at most 1s");
	sc->mpam_line = xml_line(c);
	return 0;
}

/* spe='off' (the default), 'on' (SPEv1p2), '1', '1p1' or '1p2'. */
static int parse_spe(const struct xsrc *s, const xmlNode *n, struct scenario *sc)
{
	static const struct {
		const char *name;
		uint8_t version;
	} names[] = {{"off", 0}, {"no", 0},  {"on", 3}, {"yes", 3},
		     {"1", 1},   {"1p1", 2}, {"1p2", 3}};
	char *v = xml_attr(n, "spe");
	if (!v)
		return 0;
	int r = -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i].name)) {
			sc->spe = names[i].version;
			r = 0;
		}
	if (r)
		r = xerr(s, n, "spe='%s' is not an SPE version (off, on, 1, 1p1 or 1p2)", v);
	xmlFree(v);
	return r;
}

/* <guest-spe buffer interval>: the guest profiler's ring per vCPU (bytes, a multiple of
 * 4 KiB) and its sampling interval (operations, a multiple of 256). */
static int parse_guest_spe(const struct xsrc *s, const xmlNode *n, struct scen_vm *v)
{
	static const char *const attrs[] = {"buffer", "interval", NULL};
	if (xml_only_attrs(s, n, attrs) || xml_no_children(s, n) ||
	    xml_attr_u64(s, n, "buffer", false, 4096, SCEN_SPE_BUFFER_MAX, &v->spe_buffer) <
		    0 ||
	    xml_attr_uint(s, n, "interval", false, 256, 1u << 24, &v->spe_interval) < 0)
		return -1;
	if (v->spe_buffer % 4096)
		return xerr(s, n, "buffer='%" PRIu64 "' is not a multiple of 4096 bytes",
			    v->spe_buffer);
	if (v->spe_interval % 256)
		return xerr(s, n, "interval='%u' is not a multiple of 256 operations",
			    v->spe_interval);
	return 0;
}

static int parse_machine(const struct xsrc *s, const xmlNode *n, struct scenario *sc)
{
	static const char *const attrs[] = {
		"cpus",          "mhz", "pmu-version", "pmu-counters",
		"host-counters", "amu", "spe",         NULL};
	if (xml_only_attrs(s, n, attrs))
		return -1;
	unsigned host = 0;
	int r;
	if (xml_attr_uint(s, n, "cpus", false, 1, SCEN_MAX_CPUS, &sc->cpus) < 0 ||
	    xml_attr_uint(s, n, "mhz", false, 1, 10000, &sc->mhz) < 0 ||
	    parse_version(s, n, "pmu-version", &sc->pmu_version) ||
	    xml_attr_uint(s, n, "pmu-counters", false, 1, PV_PMU_MAX_COUNTERS,
			  &sc->pmu_counters) < 0 ||
	    (r = xml_attr_uint(s, n, "host-counters", false, 0, SCEN_MAX_HOST_COUNTERS,
			       &host)) < 0 ||
	    xml_attr_bool(s, n, "amu", false, true, &sc->amu) < 0 || parse_spe(s, n, sc))
		return -1;
	if (r)
		sc->host_counters = (int)host;
	if (sc->host_counters > (int)sc->pmu_counters)
		return xerr(s, n, "host-counters='%d' exceeds pmu-counters='%u'",
			    sc->host_counters, sc->pmu_counters);
	long seen_mpam = 0;
	uint64_t local = 0;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (xml_is(c, SCEN_NS, "memory-node")) {
			if (parse_node(s, c, sc, &local))
				return -1;
		} else if (xml_is(c, SCEN_NS, "cache")) {
			if (parse_cache(s, c, sc))
				return -1;
		} else if (xml_is(c, SCEN_NS, "mpam")) {
			if (once(s, c, &seen_mpam) || parse_mpam(s, c, sc))
				return -1;
		} else {
			return xerr(s, c,
				    "unexpected inside <machine> (expected <memory-node>, "
				    "<cache> or <mpam>)");
		}
	}
	if (!sc->nnodes) /* one node, local to every pCPU */
		sc->node[sc->nnodes++] = (struct scen_node){.id = 0,
							    .cpus = (UINT64_C(1) << sc->cpus) -
								    1,
							    .bandwidth = SCEN_NODE_BANDWIDTH,
							    .line = xml_line(n)};
	for (unsigned k = 0; sc->mpam_line && k < sc->nnodes; k++) {
		if (sc->node[k].id >= PV_VMPAM_MAX_NODES)
			return xerr_at(s->d, s->origin, sc->node[k].line, "memory-node",
				       "id='%u': MPAM numbers memory nodes 0..%d",
				       sc->node[k].id, PV_VMPAM_MAX_NODES - 1);
		/* By default a PMG per memory node, as bytes.local needs (at least 2). */
		if (!sc->pmgs_given && sc->node[k].id + 1 > sc->pmgs)
			sc->pmgs = sc->node[k].id + 1;
	}
	return 0;
}

const struct scen_node *scenario_node(const struct scenario *sc, unsigned id)
{
	for (unsigned k = 0; k < sc->nnodes; k++)
		if (sc->node[k].id == id)
			return &sc->node[k];
	return NULL;
}

const struct scen_node *scenario_local_node(const struct scenario *sc, unsigned cpu)
{
	for (unsigned k = 0; k < sc->nnodes; k++)
		if (sc->node[k].cpus >> cpu & 1)
			return &sc->node[k];
	return &sc->node[0];
}

static int parse_libvirt(const struct xsrc *s, const xmlNode *n, struct scenario *sc)
{
	static const char *const attrs[] = {"connect", "test-node", NULL};
	if (xml_only_attrs(s, n, attrs) || xml_no_children(s, n))
		return -1;
	char *uri = xml_attr(n, "connect"), *node = xml_attr(n, "test-node");
	int r = 0;
	if (!!uri == !!node) {
		r = xerr(s, n, "needs exactly one of connect='URI' and test-node='FILE'");
	} else if (uri) {
		snprintf(sc->connect, sizeof(sc->connect), "%s", uri);
	} else {
		char rel[PATH_MAX], abs[PATH_MAX];
		resolve(sc->path, node, rel, sizeof(rel));
		if (!realpath(rel, abs))
			r = xerr(s, n, "test-node='%s': no such file (%s)", node, rel);
		else if (strlen(abs) + 8 > sizeof(sc->connect))
			r = xerr(s, n, "test-node='%s': path too long", node);
		else
			snprintf(sc->connect, sizeof(sc->connect), "test://%.*s",
				 (int)(sizeof(sc->connect) - 8), abs);
	}
	if (uri)
		xmlFree(uri);
	if (node)
		xmlFree(node);
	sc->connect_line = xml_line(n);
	return r;
}

static int parse_schedule(const struct xsrc *s, const xmlNode *n, struct scenario *sc)
{
	static const char *const attrs[] = {"seed", "slice-min", "slice-max", "duration", NULL};
	if (xml_only_attrs(s, n, attrs) || xml_no_children(s, n) ||
	    xml_attr_u64(s, n, "seed", false, 0, UINT64_MAX, &sc->seed) < 0 ||
	    xml_attr_u64(s, n, "slice-min", false, 100, 100000000, &sc->slice_min) < 0 ||
	    xml_attr_u64(s, n, "slice-max", false, 100, 100000000, &sc->slice_max) < 0 ||
	    parse_time(s, n, "duration", &sc->duration_ns))
		return -1;
	if (sc->slice_min > sc->slice_max)
		return xerr(s, n, "slice-min exceeds slice-max");
	return 0;
}

/* An Arm event by number ("0x08") or by name, either spelling ("INST_RETIRED", "inst_retired"):
 * the event database's (pv_event_number). */
static bool event_lookup(const char *name, uint16_t *out)
{
	uint64_t x;
	if (parse_u64(name, true, &x) && x <= 0xFFFF) {
		*out = (uint16_t)x;
		return true;
	}
	int32_t e = pv_event_number(name);
	if (e >= 0) {
		*out = (uint16_t)e;
		return true;
	}
	return false;
}

static int parse_guest_pmu(const struct xsrc *s, const xmlNode *n, struct scen_vm *v)
{
	static const char *const attrs[] = {"events", NULL};
	if (xml_only_attrs(s, n, attrs) || xml_no_children(s, n))
		return -1;
	char *list = xml_attr(n, "events");
	if (!list)
		return xerr(s, n, "missing attribute 'events'");
	int r = 0;
	v->nevents = 0;
	if (strcmp(list, "none") != 0) {
		char *save = NULL;
		for (char *tok = strtok_r(list, ", ", &save); tok && !r;
		     tok = strtok_r(NULL, ", ", &save)) {
			if (v->nevents == PV_PMU_MAX_COUNTERS)
				r = xerr(s, n, "more than %d events", PV_PMU_MAX_COUNTERS);
			else if (!event_lookup(tok, &v->events[v->nevents++]))
				r = xerr(s, n,
					 "'%s' is not an Arm PMU event (a name such as "
					 "INST_RETIRED, or a number such as 0x08)",
					 tok);
		}
		if (!r && !v->nevents)
			r = xerr(s, n, "events='' lists no event (use events='none')");
	}
	xmlFree(list);
	return r;
}

static int parse_vm(const struct xsrc *s, const xmlNode *n, struct scenario *sc, char *file,
		    size_t file_len, char *name, size_t name_len)
{
	static const char *const attrs[] = {"file", "domain", NULL};
	if (xml_only_attrs(s, n, attrs))
		return -1;
	if (sc->nvms == SCEN_MAX_VMS)
		return xerr(s, n, "more than %d VMs", SCEN_MAX_VMS);
	struct scen_vm *v = &sc->vm[sc->nvms];
	*v = (struct scen_vm){.line = xml_line(n),
			      .profile = SIM_PROF_INT,
			      .instructions = 2000000,
			      .el0_percent = 50,
			      .memory_node = -1,
			      .nevents = SCEN_GUEST_EVENTS_AUTO,
			      .spe_buffer = SCEN_SPE_BUFFER,
			      .spe_interval = SCEN_SPE_INTERVAL};
	char *f = xml_attr(n, "file"), *dn = xml_attr(n, "domain");
	int r = 0;
	if (!!f == !!dn)
		r = xerr(s, n, "needs exactly one of file='DOMAIN.xml' and domain='NAME'");
	else if (f)
		resolve(sc->path, f, file, file_len);
	else
		snprintf(name, name_len, "%s", dn);
	if (f)
		xmlFree(f);
	if (dn)
		xmlFree(dn);
	if (r)
		return r;
	long seen_work = 0;
	for (xmlNode *c = xml_first(n); c; c = xml_next(c)) {
		if (xml_is(c, SCEN_NS, "workload")) {
			static const char *const wattrs[] = {"profile",     "instructions",
							     "el0-percent", "bandwidth",
							     "memory-node", NULL};
			unsigned node = 0;
			if (once(s, c, &seen_work) || xml_only_attrs(s, c, wattrs) ||
			    xml_no_children(s, c) ||
			    xml_attr_u64(s, c, "instructions", false, 1000,
					 UINT64_C(1000000000), &v->instructions) < 0 ||
			    xml_attr_uint(s, c, "el0-percent", false, 0, 100, &v->el0_percent) <
				    0 ||
			    parse_rate(s, c, "bandwidth", &v->bandwidth) < 0 ||
			    (r = xml_attr_uint(s, c, "memory-node", false, 0, 63, &node)) < 0)
				return -1;
			if (r)
				v->memory_node = (int)node;
			v->workload_line = xml_line(c);
			char *p = xml_attr(c, "profile");
			if (p) {
				int prof = scenario_profile(p);
				r = prof < 0 ? xerr(s, c,
						    "profile='%s' is not a workload (int, mem, "
						    "branch or stream)",
						    p)
					     : 0;
				v->profile = prof < 0 ? SIM_PROF_INT : (enum sim_profile)prof;
				xmlFree(p);
				if (r)
					return r;
			}
		} else if (xml_is(c, SCEN_NS, "guest-pmu")) {
			if (once(s, c, &v->guest_pmu_line) || parse_guest_pmu(s, c, v))
				return -1;
		} else if (xml_is(c, SCEN_NS, "guest-spe")) {
			if (once(s, c, &v->guest_spe_line) || parse_guest_spe(s, c, v))
				return -1;
		} else {
			return xerr(s, c,
				    "unexpected inside <vm> (expected <workload>, <guest-pmu> "
				    "or <guest-spe>)");
		}
	}
	sc->nvms++;
	return 0;
}

/* Checks across the scenario and its domains. */
static int check(const struct xsrc *s, struct scenario *sc)
{
	unsigned vcpus = 0, partids_used = 0;
	for (unsigned i = 0; i < sc->nvms; i++) {
		struct scen_vm *v = &sc->vm[i];
		const struct domain *dom = &v->dom;
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(sc->vm[k].dom.name, dom->name))
				return xerr_at(
					s->d, sc->path, v->line, "vm",
					"domain '%s' is already defined by the <vm> at line "
					"%ld",
					dom->name, sc->vm[k].line);
		vcpus += dom->vcpus;
		if (vcpus > 32)
			return xerr_at(
				s->d, sc->path, v->line, "vm",
				"domain '%s' brings the machine to %u vCPUs (at most 32)",
				dom->name, vcpus);
		for (unsigned c = 0; c < dom->vcpus; c++)
			if (dom->pin[c] >= (int)sc->cpus)
				return xerr_at(
					s->d, dom->origin, dom->pin_line[c], "vcpupin",
					"vCPU %u is pinned to host CPU %d, but the machine has "
					"%u pCPUs (%s:%ld)",
					c, dom->pin[c], sc->cpus, sc->path, sc->machine_line);
		for (unsigned t = 0; t < dom->nmemorytune; t++)
			for (unsigned k = 0; k < dom->memorytune[t].nnodes; k++) {
				const struct dom_membw *b = &dom->memorytune[t].node[k];
				bool found = false;
				for (unsigned nd = 0; nd < sc->nnodes; nd++)
					found |= sc->node[nd].id == b->id;
				if (!found)
					return xerr_at(
						s->d, dom->origin, b->line, "node",
						"memory node %u does not exist on the machine "
						"(%s:%ld)",
						b->id, sc->path, sc->machine_line);
			}
		/* Where MPAM is managed, every VM has a PARTID of its own. */
		bool tuned = dom->nmemorytune || dom->ncachetune;
		if (sc->mpam_line && ++partids_used > sc->partids - 1)
			return xerr_at(
				s->d, sc->path, v->line, "vm",
				"domain '%s' needs a PARTID%s, but the machine's %u PARTIDs "
				"are all taken (PARTID 0 is the host's; <mpam> at line %ld)",
				dom->name,
				tuned ? " for its memorytune/cachetune"
				      : " (every VM has its own on an MPAM machine)",
				sc->partids, sc->mpam_line);
		if (v->memory_node >= 0 && !scenario_node(sc, (unsigned)v->memory_node))
			return xerr_at(s->d, sc->path, v->workload_line, "workload",
				       "memory-node='%d' does not exist on the machine "
				       "(<machine> at line "
				       "%ld)",
				       v->memory_node, sc->machine_line);
		for (unsigned t = 0; sc->mpam_line && t < dom->ncachetune; t++)
			for (unsigned k = 0; k < dom->cachetune[t].ncaches; k++) {
				const struct dom_cache *c = &dom->cachetune[t].cache[k];
				bool found = false;
				for (unsigned j = 0; j < sc->ncaches; j++)
					found |= sc->cache[j].id == c->id &&
						 sc->cache[j].level == c->level;
				if (!found)
					return xerr_at(
						s->d, dom->origin, c->line, "cache",
						"L%u cache %u does not exist on the machine "
						"(%s:%ld)",
						c->level, c->id, sc->path, sc->machine_line);
			}
		if (!(dom->cfg.features & PV_FEAT_PMU) && v->guest_pmu_line &&
		    v->nevents != SCEN_GUEST_EVENTS_AUTO && v->nevents)
			return xerr_at(s->d, sc->path, v->guest_pmu_line, "guest-pmu",
				       "domain '%s' has no PMU (<pmu state='off'>)", dom->name);
	}
	return 0;
}

/* The children of <scenario>, then the domains they name: files one by one, names from one
 * libvirt connection. */
static int load_vms(const struct xsrc *s, const xmlNode *root, struct scenario *sc,
		    const char *connect, char (*files)[PATH_MAX], char (*names)[64],
		    struct domain *got)
{
	long seen_machine = 0, seen_libvirt = 0, seen_schedule = 0;
	for (xmlNode *c = xml_first(root); c; c = xml_next(c)) {
		int r;
		if (xml_is(c, SCEN_NS, "machine")) {
			sc->machine_line = xml_line(c);
			r = once(s, c, &seen_machine) || parse_machine(s, c, sc);
		} else if (xml_is(c, SCEN_NS, "libvirt")) {
			r = once(s, c, &seen_libvirt) || parse_libvirt(s, c, sc);
		} else if (xml_is(c, SCEN_NS, "schedule")) {
			r = once(s, c, &seen_schedule) || parse_schedule(s, c, sc);
		} else if (xml_is(c, SCEN_NS, "vm")) {
			unsigned i = sc->nvms;
			r = i < SCEN_MAX_VMS
				    ? parse_vm(s, c, sc, files[i], PATH_MAX, names[i], 64)
				    : xerr(s, c, "more than %d VMs", SCEN_MAX_VMS);
		} else {
			r = xerr(s, c,
				 "unexpected inside <scenario> (expected <machine>, "
				 "<libvirt>, <schedule> or <vm>)");
		}
		if (r)
			return -1;
	}
	if (!seen_machine)
		return xerr(s, root, "missing <machine>");
	if (!sc->nvms)
		return xerr(s, root, "no <vm>");
	if (connect)
		snprintf(sc->connect, sizeof(sc->connect), "%s", connect);
	else if (!sc->connect[0])
		snprintf(sc->connect, sizeof(sc->connect), "%s", virt_default_uri());

	for (unsigned i = 0; i < sc->nvms; i++) {
		if (files[i][0]) {
			if (domxml_parse_file(files[i], &sc->vm[i].dom, s->d))
				return -1;
			continue;
		}
		const char *want = names[i];
		unsigned n = 0;
		struct diag why;
		if (virt_load(sc->connect, &want, 1, got, 1, &n, &why))
			return xerr_at(s->d, sc->path, sc->vm[i].line, "vm", "%s", why.msg);
		sc->vm[i].dom = got[0];
	}
	return check(s, sc);
}

static int parse_root(const struct xsrc *s, const xmlNode *root, struct scenario *sc,
		      const char *connect)
{
	if (!xml_is(root, SCEN_NS, "scenario"))
		return xerr(s, root, "expected <scenario xmlns=\"%s\">", SCEN_NS);
	static const char *const attrs[] = {"name", NULL};
	if (xml_only_attrs(s, root, attrs))
		return -1;
	char *name = xml_attr(root, "name");
	if (name) {
		snprintf(sc->name, sizeof(sc->name), "%s", name);
		xmlFree(name);
	} else {
		const char *base = strrchr(sc->path, '/');
		base = base ? base + 1 : sc->path;
		size_t len = strlen(base) < sizeof(sc->name) ? strlen(base)
							     : sizeof(sc->name) - 1;
		memcpy(sc->name, base, len);
		sc->name[len] = '\0';
	}
	struct {
		char files[SCEN_MAX_VMS][PATH_MAX];
		char names[SCEN_MAX_VMS][64];
		struct domain got[1];
	} *t = calloc(1, sizeof(*t));
	if (!t)
		return xerr(s, NULL, "out of memory");
	int r = load_vms(s, root, sc, connect, t->files, t->names, t->got);
	free(t);
	return r;
}

int scenario_load(const char *path, const char *connect, struct scenario *sc, struct diag *d)
{
	memset(sc, 0, sizeof(*sc));
	/* From standard input, relative file names are relative to the current directory. */
	snprintf(sc->path, sizeof(sc->path), "%s", xml_origin_of(path));
	sc->cpus = 1;
	sc->mhz = 2000;
	sc->pmu_version = PV_PMUVER_V3P5;
	sc->pmu_counters = 10;
	sc->host_counters = -1;
	sc->seed = 1;
	sc->slice_min = 2000;
	sc->slice_max = 20000;
	sc->mpam_tick_ns = SCEN_MPAM_TICK_NS;
	sc->pmgs = 2;
	struct xsrc s = {.origin = sc->path, .d = d};
	xmlDoc *doc = xml_load_file(&s, path);
	int r = doc ? parse_root(&s, xmlDocGetRootElement(doc), sc, connect) : -1;
	if (doc)
		xmlFreeDoc(doc);
	if (r) {
		memset(sc, 0, sizeof(*sc));
		snprintf(sc->path, sizeof(sc->path), "%s", xml_origin_of(path));
	}
	return r;
}
