/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: a described machine, the VMs on it (libvirt domain XML files, or domains of
 * a libvirt connection), what each VM runs and how the machine schedules it. One XML
 * document in our own namespace (SCEN_NS); docs/operator.md has the reference.
 *
 *   <scenario xmlns="http://perfvisor.invalid/xmlns/scenario/1" name="...">
 *     <machine cpus mhz pmu-version pmu-counters host-counters amu spe>
 *       <memory-node id cpus bandwidth/>...  <cache id level size unit portions/>...
 *       <mpam partids pmgs bandwidth-monitors tick/>
 *     </machine>
 *     <libvirt connect="URI"/> | <libvirt test-node="FILE"/>     (for <vm domain=...>)
 *     <schedule seed slice-min slice-max duration/>
 *     <vm file="DOMAIN.xml"> | <vm domain="NAME">
 *       <workload profile instructions el0-percent bandwidth memory-node/>
 *       <guest-pmu events="INST_RETIRED,0x11,..."/> | <guest-pmu events="none"/>
 *       <guest-spe buffer interval/>   (a VM offered SPE: its guest profiler's ring, per vCPU)
 *     </vm>...
 *   </scenario>
 */
#ifndef PERFVISOR_TOOLS_SCENARIO_H
#define PERFVISOR_TOOLS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "../sim/events.h"
#include "domxml.h"

#define SCEN_NS "http://perfvisor.invalid/xmlns/scenario/1"
#define SCEN_MAX_VMS 16
#define SCEN_MAX_CPUS 8
#define SCEN_MAX_NODES 8
#define SCEN_MAX_CACHES 1 /* the machine model has one cache MSC */
#define SCEN_MAX_HOST_COUNTERS 4
#define SCEN_GUEST_EVENTS_AUTO 0xFF
#define SCEN_NODE_BANDWIDTH UINT64_C(25600000000) /* bytes/s: one DDR4-3200 channel */
#define SCEN_MPAM_TICK_NS UINT64_C(1000000)
#define SCEN_SPE_BUFFER UINT64_C(65536) /* the guest profiler's ring, per vCPU */
#define SCEN_SPE_BUFFER_MAX (UINT64_C(8) << 20)
#define SCEN_SPE_INTERVAL 1024u /* operations between samples (PMSIRR_EL1) */

struct scen_node {
	unsigned id;
	uint64_t cpus;      /* pCPUs local to the node */
	uint64_t bandwidth; /* bytes per second it serves */
	long line;
};

struct scen_cache { /* a cache MPAM partitions into portions (<cachetune>) */
	unsigned id, level;
	uint64_t bytes;
	unsigned portions; /* its MPAM CPBM_WD */
	long line;
};

struct scen_vm {
	struct domain dom;
	long line; /* the <vm> element */
	enum sim_profile profile;
	uint64_t instructions; /* per vCPU */
	unsigned el0_percent;  /* share of the work run at EL0 */
	uint64_t bandwidth;    /* memory traffic per vCPU while it runs, bytes/s; 0: the
				     profile's (its L2 refills, 64-byte lines, at the clock) */
	int memory_node;       /* where that traffic goes; -1: the vCPU's local node */
	long workload_line;
	long guest_pmu_line;
	unsigned nevents; /* events the guest programs; SCEN_GUEST_EVENTS_AUTO: the
				     domain's enabled perf events (or a default set) */
	uint16_t events[31];
	/* SPE (a VM offered it): the guest profiler's ring per vCPU and sampling interval */
	uint64_t spe_buffer;
	unsigned spe_interval;
	long guest_spe_line;
};

struct scenario {
	char path[256];
	char name[64];
	/* machine */
	long machine_line;
	unsigned cpus, mhz;
	uint8_t pmu_version;
	unsigned pmu_counters;
	int host_counters; /* -1: as many as the domains' perf events need */
	bool amu;          /* the pCPUs implement the AMU (AMUv1p1, FEAT_FGT) */
	uint8_t spe;       /* the pCPUs' SPE (ID_AA64DFR0_EL1.PMSVer), 0: none */
	unsigned nnodes;
	struct scen_node node[SCEN_MAX_NODES];
	unsigned ncaches;
	struct scen_cache cache[SCEN_MAX_CACHES];
	long mpam_line; /* 0: no <mpam> declared */
	unsigned partids, bw_monitors;
	unsigned pmgs;         /* PMGs 0..pmgs-1 on every pCPU and MSC (PMG_MAX + 1) */
	bool pmgs_given;       /* else a PMG per memory node, at least 2 */
	uint64_t mpam_tick_ns; /* how often the bandwidth monitors are read */
	/* libvirt source for <vm domain=...> */
	char connect[320];
	long connect_line;
	/* schedule */
	uint64_t seed, slice_min, slice_max;
	uint64_t duration_ns; /* 0: run every workload to its end */
	unsigned nvms;
	struct scen_vm vm[SCEN_MAX_VMS];
};

/* Reads a scenario (path "-": standard input, its relative file names then relative to the
 * current directory) and every domain it names. `connect`, if not NULL, overrides the
 * scenario's <libvirt> source; with neither, virt_default_uri(). Checks everything that does not need the machine model
 * (names unique, pins and memory nodes exist, PARTIDs suffice). 0, or -1 with the error. */
int scenario_load(const char *path, const char *connect, struct scenario *sc, struct diag *d);

/* Workload profile by name ("int", "mem", "branch", "stream"), -1 if unknown. */
int scenario_profile(const char *name);
/* The scenario's node with this id, NULL if none. */
const struct scen_node *scenario_node(const struct scenario *sc, unsigned id);
/* The node local to pCPU `cpu` (the first node when none is). */
const struct scen_node *scenario_local_node(const struct scenario *sc, unsigned cpu);

#endif
