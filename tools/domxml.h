/* SPDX-License-Identifier: MIT */
/*
 * libvirt domain XML -> a plain C description of one VM (struct domain).
 *
 * What is read (everything else in a domain is libvirt's business and left alone):
 *   <name>, <uuid>, <vcpu [current]>            name, uuid, vCPU count
 *   <cputune><vcpupin vcpu cpuset>              the pCPU each vCPU runs on (first of cpuset)
 *   <cputune><memorytune vcpus>                 MPAM bandwidth limits and monitors:
 *       <node id bandwidth/> <monitor vcpus/>
 *   <cputune><cachetune vcpus>                  MPAM cache-portion limits and monitors:
 *       <cache id level type size unit/> <monitor level vcpus/>
 *   <features><pmu state='on|off'/>             whether the VM has a PMU at all
 *   <perf><event name enabled/>                 the events the VM's PMU offers (and that the
 *                                               host accounts per VM: perf.<event>)
 *   <metadata><perfvisor:vm xmlns:perfvisor=DOMXML_NS>   what libvirt has no element for:
 *       <perfvisor:pmu counters version/>       PMCR_EL0.N and PMUVer the guest sees
 *       <perfvisor:spe enabled max-buffer/>     virtual SPE (max-buffer: bytes a vCPU may pin)
 *       <perfvisor:amu enabled/>                virtual AMU
 *
 * Errors name the origin, line and element; nothing is half-filled (on error the domain is
 * zeroed). Warnings (events that have no Arm PMUv3 equivalent) are kept in the domain.
 * docs/operator.md describes the mapping for operators.
 */
#ifndef PERFVISOR_TOOLS_DOMXML_H
#define PERFVISOR_TOOLS_DOMXML_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "perfvisor/perfvisor.h"
#include "eventdb.h"
#include "xmlutil.h"

/* Our namespace inside <metadata>: stable, and clearly not a real host (RFC 2606). */
#define DOMXML_NS "http://perfvisor.invalid/xmlns/domain/1"
#define DOMXML_NS_PREFIX "http://perfvisor.invalid/xmlns/domain/"

#define DOM_MAX_VCPUS 32
#define DOM_SPE_MAX_BUFFER (UINT64_C(1) << 20) /* <perfvisor:spe> without max-buffer */
#define DOM_MAX_TUNES 8                        /* memorytune / cachetune elements */
#define DOM_MAX_NODES 8                        /* <node> per memorytune */
#define DOM_MAX_CACHES 8                       /* <cache> per cachetune */
#define DOM_MAX_MONITORS 8                     /* <monitor> per memorytune / cachetune */
#define DOM_MAX_WARN 24

/* The perf events libvirt knows (its virPerfEvent order) and the Arm event that counts each,
 * or why none does: the event database's (arch/events.txt). */
#define DOM_PERF_EVENTS(X) PV_LIBVIRT_PERF_ROWS(X)

enum dom_perf_event {
#define DOM_PERF_ENUM(name, arm, text) DOM_PERF_##name,
	DOM_PERF_EVENTS(DOM_PERF_ENUM)
#undef DOM_PERF_ENUM
		DOM_PERF_COUNT
};

struct dom_perf_info {
	const char *name; /* libvirt's name: the perf.<name> stats key */
	int arm;          /* Arm PMUv3 common event number, -1 if none */
	const char *text; /* the Arm event's name, or why there is none */
};
extern const struct dom_perf_info dom_perf_events[DOM_PERF_COUNT];

enum dom_perf_state { DOM_PERF_ABSENT, DOM_PERF_ENABLED, DOM_PERF_DISABLED };

struct dom_membw { /* <memorytune><node id bandwidth/> */
	unsigned id;
	unsigned percent;
	long line;
};

struct dom_monitor { /* <monitor vcpus [level]/> of a memorytune or cachetune */
	uint64_t vcpus;
	unsigned level; /* cachetune only */
	long line;
};

struct dom_memorytune {
	uint64_t vcpus;
	unsigned nnodes, nmonitors;
	struct dom_membw node[DOM_MAX_NODES];
	struct dom_monitor monitor[DOM_MAX_MONITORS];
	long line;
};

enum dom_cache_type { DOM_CACHE_BOTH, DOM_CACHE_CODE, DOM_CACHE_DATA };

struct dom_cache { /* <cachetune><cache id level type size unit/> */
	unsigned id, level;
	enum dom_cache_type type;
	uint64_t bytes;
	long line;
};

struct dom_cachetune {
	uint64_t vcpus;
	unsigned ncaches, nmonitors;
	struct dom_cache cache[DOM_MAX_CACHES];
	struct dom_monitor monitor[DOM_MAX_MONITORS];
	long line;
};

struct domain {
	char origin[320]; /* file path, or "URI (domain NAME)" */
	char name[64];
	char uuid[37];  /* "" when the XML has none */
	unsigned vcpus; /* vCPUs that run: <vcpu current>, else <vcpu> */
	long line, vcpu_line;
	int pin[DOM_MAX_VCPUS]; /* pCPU of each vCPU (<vcpupin>), -1 if not pinned */
	long pin_line[DOM_MAX_VCPUS];

	/* What the VM asks of perfvisor. cfg.features has PV_FEAT_PMU, and PV_FEAT_SPE,
	 * PV_FEAT_AMU, PV_FEAT_MPAM (memorytune or cachetune) when requested. cfg.pmu holds the
	 * event filter built from <perf>; version and counter count are filled when given, else
	 * they are the machine's (the *_auto flags) and a runner resolves them. */
	struct pv_vm_config cfg;
	bool pmu_version_auto, pmu_counters_auto;
	long pmu_line; /* <perfvisor:pmu> or <features><pmu>, 0 if neither */

	bool has_perf; /* a <perf> element is present */
	long perf_line;
	enum dom_perf_state perf[DOM_PERF_COUNT];
	long perf_event_line[DOM_PERF_COUNT];

	long spe_line, amu_line; /* their <perfvisor:*> elements, 0 if absent */

	unsigned nmemorytune, ncachetune;
	struct dom_memorytune memorytune[DOM_MAX_TUNES];
	struct dom_cachetune cachetune[DOM_MAX_TUNES];

	unsigned nwarn;
	char warn[DOM_MAX_WARN][512];
};

/* Readers: a file (path "-": standard input, named XML_STDIN_ORIGIN in messages), or a buffer
 * whose `origin` names it in messages. 0, or -1 with the error in *d. */
int domxml_parse_file(const char *path, struct domain *dom, struct diag *d);
int domxml_parse_memory(const char *xml, const char *origin, struct domain *dom,
			struct diag *d);

/* Name of a PMUVer value: "3", "3p1", "3p4", "3p5"; NULL if not offered. */
const char *domxml_pmu_version_name(unsigned version);
/* A perf event's index by libvirt name, -1 if libvirt has no such event. */
int domxml_perf_lookup(const char *name);
/* The perf events whose figures the host accounts: enabled and mapped to an Arm event. */
bool domxml_perf_accounted(const struct domain *dom, enum dom_perf_event e);
/* A cache size as libvirt writes it: required `size`, optional `unit` (KiB by default;
 * b, bytes, KiB or k = 1024, KB = 1000, ... up to E), in bytes (at most 1 PiB). 0 or -1. */
int domxml_size_attr(const struct xsrc *s, const xmlNode *n, uint64_t *bytes);
/* Name of a monitor the way libvirt names it: "vcpus_<cpuset>". */
void domxml_monitor_name(uint64_t vcpus, char *buf, size_t len);

#endif
