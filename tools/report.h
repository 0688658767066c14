/* SPDX-License-Identifier: MIT */
/*
 * Per-VM figures, as plain data, and the four ways of printing them:
 *   table        aligned, for people (report_table.c)
 *   json         one document (report_json.c)
 *   openmetrics  the OpenMetrics 1.0.0 text format (report_metrics.c)
 *   prometheus   the Prometheus text format 0.0.4: node_exporter's textfile collector, promtool
 *   domstats     the key=value records of `virsh domstats` (report_domstats.c)
 *
 * A figure is printed only when it was measured (REP_MEASURED). A feature the VM asked for but
 * cannot have says why (REP_NOT_OFFERED, `why`); one it did not ask for is left out.
 */
#ifndef PERFVISOR_TOOLS_REPORT_H
#define PERFVISOR_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "domxml.h"
#include "expo.h"

enum rep_state {
	REP_NOT_REQUESTED, /* the domain did not ask for it */
	REP_NOT_OFFERED,   /* asked for, not available: `why` */
	REP_MEASURED,      /* figures below are measured */
};

struct rep_feature {
	enum rep_state state;
	char why[160];
};

#define REP_CYCLE_COUNTER 31

struct rep_counter {    /* one virtual PMU counter of a vCPU, as the library holds it */
	unsigned index; /* n of PMEVCNTR<n>_EL0, or REP_CYCLE_COUNTER for PMCCNTR_EL0 */
	uint32_t event; /* what the guest programmed (CPU_CYCLES for the cycle counter) */
	uint64_t value;
};

/* The four architected AMU counters (group 0), per vCPU. */
#define REP_AMU_COUNTERS(X)                                                                    \
	X(cpu_cycles, "processor cycles")                                                      \
	X(cnt_cycles, "constant-frequency cycles")                                             \
	X(inst_retired, "instructions retired")                                                \
	X(stall_backend_mem, "cycles stalled on memory")
enum {
#define REP_AMU_ENUM(n, t) REP_AMU_##n,
	REP_AMU_COUNTERS(REP_AMU_ENUM)
#undef REP_AMU_ENUM
		REP_AMU_COUNT
};
extern const char *const rep_amu_names[REP_AMU_COUNT];
extern const char *const rep_amu_help[REP_AMU_COUNT];
/* The help of perfvisor_vcpu_amu_events_total{counter}: `stats` writes the family from a run,
 * `serve` from live records, with the same labels and meaning, so one text for both. */
extern const char rep_amu_events_help[];

struct rep_vcpu {
	unsigned id, pcpu;
	uint64_t loads; /* pv_vcpu_load calls */
	uint64_t traps; /* PMU register accesses the library emulated */
	unsigned ncounters;
	struct rep_counter counter[32];
	bool amu_measured;
	uint64_t amu[REP_AMU_COUNT];
	double amu_mhz; /* CPU_CYCLES / CNT_CYCLES x the system counter's frequency */
};

struct rep_perf { /* perf.<event>: the host's count of the event for the domain */
	enum dom_perf_event event;
	enum rep_state state;
	uint64_t value;
	char why[160];
};

/* The state of a bandwidth figure (vmpam's enum pv_vmpam_status). Only MEASURED and
 * ESTIMATED carry numbers; NOT_READY, NO_DATA and OVERFLOW print none. */
enum rep_bw_status {
	REP_BW_MEASURED,
	REP_BW_ESTIMATED,
	REP_BW_NOT_READY,
	REP_BW_NO_DATA,
	REP_BW_OVERFLOW,
};
extern const char *const rep_bw_status_names[5];

struct rep_bw_node { /* memory bandwidth of one monitor through one memory node */
	unsigned id;
	enum rep_bw_status status;
	uint64_t bytes_total;
	uint64_t bound; /* |bytes_total - truth| <= bound: 0 when every byte was counted,
				 a 95 % bound while monitors rotate */
	uint64_t bytes_per_s, bound_per_s; /* over the run */
	enum rep_bw_status local_status;   /* of bytes.local (NO_DATA when not counted) */
	bool has_local; /* bytes_local and local_bound hold a figure (and so does total) */
	uint64_t bytes_local;   /* through the node, from vCPUs on pCPUs local to it */
	uint64_t local_bound;   /* |bytes_local - truth| <= local_bound */
	unsigned limit_percent; /* the cap in force on the node (MBW_MAX), 0: none */
};

struct rep_bw_monitor {
	char name[80]; /* libvirt's name: "vcpus_<set>" */
	uint64_t vcpus;
	unsigned nnodes;
	struct rep_bw_node node[DOM_MAX_NODES];
};

/* The virtual SPE of a VM (when its state is measured), summed over its vCPUs: the library's
 * view (vspe/: enables, events, pins, stage-2 repairs), the SPE units' (records written), and
 * what the guest's driver collected, decoded. */
struct rep_spe {
	uint8_t version; /* PMSVer offered */
	/* The figures, in the order of REP_SPE_FIGURES. */
	uint64_t max_buffer;      /* bytes a vCPU may pin (PMBIDR_EL1.MaxBuffSize) */
	uint64_t profiling;       /* 1: a vCPU's buffer is enabled at the end */
	uint64_t enables;         /* buffers the guest enabled: checked, walked, pinned */
	uint64_t records_written; /* records the SPE units wrote to its buffers */
	uint64_t records_decoded; /* records decoded from the bytes its driver collected */
	uint64_t records_valid;   /* ... with a PC and an operation, nothing physical */
	uint64_t records_lost;    /* records dropped at a stage-2 fault */
	uint64_t bytes_collected; /* bytes its driver drained from its buffers */
	uint64_t interrupts;      /* buffer management events (virtual INTID 21) it was given */
	uint64_t pinned_peak;     /* most buffer and table bytes pinned in stage 2 at once */
	uint64_t pinned;          /* ... pinned at the end (0: every pin released) */
	uint64_t pin_calls, unpin_calls;
	uint64_t s2_faults;   /* stage-2 faults the profiler met */
	uint64_t s2_repaired; /* ... repaired without the guest seeing them */
};

/* Every SPE figure with its name in each format: X(field, json key, domstats key (after
 * "perfvisor.spe."), OpenMetrics family (after "perfvisor_domain_spe_"), type, unit, table
 * label, help). */
#define REP_SPE_FIGURES(X)                                                                     \
	X(max_buffer, "max_buffer_bytes", "buffer.max", "max_buffer_bytes", "gauge", "bytes",  \
	  "max buffer bytes",                                                                  \
	  "Largest profiling buffer a vCPU may have pinned (PMBIDR_EL1.MaxBuffSize).")         \
	X(profiling, "profiling", "profiling", "profiling", "gauge", NULL, "profiling",        \
	  "1 if a vCPU's profiling buffer is enabled at the end of the run.")                  \
	X(enables, "buffer_enables", "buffer.enables", "buffer_enables", "counter", NULL,      \
	  "buffer enables",                                                                    \
	  "Profiling buffers the guest enabled, each checked, walked and pinned.")             \
	X(records_written, "records_written", "records.written", "records_written", "counter", \
	  NULL, "records written", "Records the SPE units wrote to the domain's buffers.")     \
	X(records_decoded, "records_decoded", "records.decoded", "records_decoded", "counter", \
	  NULL, "records decoded",                                                             \
	  "Records decoded from the bytes the guest's driver collected.")                      \
	X(records_valid, "records_valid", "records.valid", "records_valid", "counter", NULL,   \
	  "records valid",                                                                     \
	  "Decoded records with a PC and an operation type and nothing physical.")             \
	X(records_lost, "records_lost", "records.lost", "records_lost", "counter", NULL,       \
	  "records lost", "Records dropped at a stage-2 fault on a buffer write.")             \
	X(bytes_collected, "collected_bytes", "bytes.collected", "collected_bytes", "counter", \
	  "bytes", "bytes collected", "Bytes the guest's driver drained from its buffers.")    \
	X(interrupts, "interrupts", "interrupts", "interrupts", "counter", NULL, "interrupts", \
	  "Buffer management events (buffer full, faults) given to the guest as its INTID "    \
	  "21.")                                                                               \
	X(pinned_peak, "pinned_peak_bytes", "pinned.bytes.peak", "pinned_peak_bytes", "gauge", \
	  "bytes", "pinned bytes peak",                                                        \
	  "Most buffer and table bytes pinned in stage 2 at once.")                            \
	X(pinned, "pinned_bytes", "pinned.bytes", "pinned_bytes", "gauge", "bytes",            \
	  "pinned bytes",                                                                      \
	  "Bytes pinned in stage 2 at the end of the run (0: every pin released).")            \
	X(pin_calls, "pin_calls", "pin.calls", "pin_calls", "counter", NULL, "pin calls",      \
	  "Stage-2 pin requests made for the domain's buffers.")                               \
	X(unpin_calls, "unpin_calls", "unpin.calls", "unpin_calls", "counter", NULL,           \
	  "unpin calls", "Stage-2 unpin requests made for the domain's buffers.")              \
	X(s2_faults, "stage2_faults", "stage2.faults", "stage2_faults", "counter", NULL,       \
	  "stage-2 faults", "Stage-2 faults the profiler met on a buffer write.")              \
	X(s2_repaired, "stage2_repaired", "stage2.repaired", "stage2_repaired", "counter",     \
	  NULL, "stage-2 faults repaired",                                                     \
	  "Stage-2 faults repaired without the guest seeing them.")

struct rep_spe_figure {
	size_t off; /* of its uint64_t in struct rep_spe */
	const char *json, *domstats, *metric, *type, *unit, *label, *help;
};
extern const struct rep_spe_figure rep_spe_figures[];
extern const unsigned rep_spe_nfigures;
uint64_t rep_spe_value(const struct rep_spe *s, const struct rep_spe_figure *f);
/* "SPE", "SPEv1p1", "SPEv1p2" */
const char *rep_spe_version_name(unsigned version);

struct rep_domain {
	char name[64];
	char uuid[37];
	unsigned nvcpus;
	bool pmu;
	uint8_t pmu_version;
	unsigned pmu_counters;
	char pmu_filter[200]; /* the event filter, in words */
	struct rep_vcpu vcpu[DOM_MAX_VCPUS];
	unsigned nperf; /* enabled perf events, libvirt order */
	struct rep_perf perf[DOM_PERF_COUNT];
	struct rep_feature spe, amu, mpam;
	struct rep_spe spe_fig; /* when spe.state is REP_MEASURED */
	unsigned nmonitors;     /* memory-bandwidth monitors (when mpam is measured) */
	struct rep_bw_monitor monitor[DOM_MAX_TUNES * DOM_MAX_MONITORS];
	bool limits_enforced; /* the memorytune/cachetune limits are applied (MPAM) */
	bool memorytune_applied[DOM_MAX_TUNES], cachetune_applied[DOM_MAX_TUNES];
	char limits_why[256]; /* why a limit is not applied ("MPAM not offered" if empty) */
	unsigned nnotes;      /* figures asked for but not offered, each with its reason */
	char note[DOM_MAX_TUNES][200];
	const struct domain *def; /* the definition: limits, tunes */
};

struct report {
	char scenario[64];
	char source[320]; /* the scenario file */
	unsigned cpus;
	unsigned mhz;
	uint8_t pmu_version;
	unsigned pmu_counters, host_counters;
	bool amu;                      /* the machine's pCPUs have the AMU */
	uint8_t spe;                   /* their SPE version (PMSVer), 0: none */
	bool mpam;                     /* the machine has MPAM, and perfvisor manages it */
	unsigned partids, bw_monitors; /* MPAM: PARTIDs, bandwidth monitors per memory node */
	unsigned pmgs;                 /* MPAM: PMGs (PMG_MAX + 1) */
	bool local_counted;  /* MPAM: bytes.local is counted (a PMG per node, the topology) */
	char local_why[200]; /* ... if not, why */
	unsigned nnodes;
	struct {
		unsigned id;
		uint64_t cpus;
		uint64_t bandwidth; /* bytes/s */
	} node[DOM_MAX_NODES];
	double seconds; /* simulated time the run took */
	bool cut;       /* stopped at the scenario's duration */
	uint64_t switches, traps, irqs;
	unsigned ndomains;
	struct rep_domain *domain;
};

/* One figure next to the machine model's ground truth (perfvisor run, demo). It matches when
 * |figure - truth| <= bound (0: equal). */
struct rep_check {
	char domain[64];
	char what[96];
	uint64_t figure, truth, bound;
};
bool rep_check_ok(const struct rep_check *c);
/* Prints the comparison (every figure when `all`, else the mismatches) and a verdict line;
 * returns the number of mismatches. */
unsigned report_checks(const struct rep_check *c, unsigned n, bool all, FILE *out);

/* The machine model's memory traffic of a VM on a node (perfvisor run, demo): what its
 * workload asked for and what it moved after throttling, over the run, next to its cap. */
struct rep_traffic {
	char domain[64];
	uint64_t asked, moved;   /* bytes per second */
	uint64_t moved_local;    /* ... of it sent from pCPUs local to the node */
	uint64_t node_bandwidth; /* bytes per second */
	unsigned node;
	unsigned limit_percent; /* 0: none */
};
void report_traffic(const struct rep_traffic *t, unsigned n, FILE *out);

enum report_format { FMT_TABLE, FMT_JSON, FMT_OPENMETRICS, FMT_DOMSTATS, FMT_PROMETHEUS };
/* "table", "json", "openmetrics", "domstats"; -1 if unknown. */
int report_format_parse(const char *name);

void report_table(const struct report *r, FILE *out);
void report_json(const struct report *r, FILE *out);
/* The metrics of a report in the text format `format` (expo.h). */
void report_metrics(const struct report *r, FILE *out, enum expo_format format);
void report_domstats(const struct report *r, FILE *out);
void report_print(const struct report *r, enum report_format f, FILE *out);

/* Helpers shared by the formats. */
const char *rep_state_name(enum rep_state s); /* "not requested", "not offered", "measured" */
/* "PMEVCNTR3" / "PMCCNTR" */
void rep_counter_name(const struct rep_counter *c, char *buf, size_t len);
/* An event's name as perf spells it ("inst_retired", the event database's), or perf's raw
 * form ("r1c") for an event the database does not know. */
void rep_event_name(uint32_t event, char *buf, size_t len);
/* "2.56 GB/s" */
void rep_rate_text(double bytes_per_s, char *buf, size_t len);
/* A bandwidth figure carries numbers (MEASURED or ESTIMATED). */
bool rep_bw_has_figure(const struct rep_bw_node *b);

#endif
