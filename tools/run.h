/* SPDX-License-Identifier: MIT */
/*
 * Running a scenario on the simulated machine, the way a hypervisor integrating perfvisor
 * would: every VM through pv_vm_init with the configuration its domain XML asks for, every
 * vCPU through the library's load/put, and the host's own per-VM accounting of the domains'
 * perf events on the counters the host keeps (MDCR_EL2.HPMN partition), attributed to the VM
 * whose vCPU ran at every slice.
 *
 *   run_prepare()   everything checked and built; nothing runs yet (errors: file:line)
 *   run_execute()   time-slices the vCPUs until every workload ends or the duration passes
 *   run_report()    the per-VM figures (report.h)
 *   run_verify()    every figure against the machine model's ground truth
 */
#ifndef PERFVISOR_TOOLS_RUN_H
#define PERFVISOR_TOOLS_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../sim/sim.h"
#include "report.h"
#include "scenario.h"

/* The guest program's operations the checks need. */
struct run_ops {
	bool pmu;   /* the guest programs its PMU */
	unsigned n; /* event counters programmed */
	uint16_t event[31];
	size_t start;    /* PMCR_EL0.E = 1 */
	size_t read[32]; /* final reads: read[i] of counter i, read[n] of PMCCNTR */
};

struct run_vm {
	const struct scen_vm *sv;
	struct pv_vm_config cfg; /* resolved against the machine, features offered only */
	uint32_t requested;      /* PV_FEAT_* the domain asked for */
	char why[4][160];        /* per feature bit (SPE 1, AMU 2, MPAM 3): why not offered */
	unsigned sim_vm;
	unsigned first_vcpu; /* sim vCPU index of the domain's vCPU 0 */
	struct sim_prog prog[DOM_MAX_VCPUS];
	struct run_ops ops[DOM_MAX_VCPUS];
	uint64_t host[SCEN_MAX_HOST_COUNTERS]; /* the host's counts while the VM ran */
	/* MPAM: which <memorytune>/<cachetune> are programmed, and why one is not */
	bool memorytune_applied[DOM_MAX_TUNES], cachetune_applied[DOM_MAX_TUNES];
	char limits_why[256];
	/* the memory traffic of each vCPU while it runs (on an MPAM machine) */
	unsigned traffic_node[DOM_MAX_VCPUS];
	uint64_t traffic_rate[DOM_MAX_VCPUS];
	/* SPE (offered): its guest profiles (run_spe.c) */
	bool spe;
	struct sim_s1 s1;               /* the guest's stage-1 tables */
	size_t spe_stop[DOM_MAX_VCPUS]; /* the PMBPTR_EL1 read after the stop */
	uint64_t spe_pinned_peak;       /* most bytes its vCPUs had pinned at once (library) */
};

struct run {
	const struct scenario *sc;
	struct sim_config cfg;
	struct sim_machine *m;
	unsigned nvms;
	struct run_vm vm[SCEN_MAX_VMS];
	unsigned nhost; /* host counters used for accounting */
	uint16_t host_event[SCEN_MAX_HOST_COUNTERS];
	uint64_t host_mask; /* their width */
	uint64_t host_prev[SCEN_MAX_CPUS][SCEN_MAX_HOST_COUNTERS];
	uint64_t cycles[SCEN_MAX_CPUS]; /* each pCPU's clock, in its cycles */
	uint64_t el2_prev[SCEN_MAX_CPUS];
	uint64_t vcpu_prev[SIM_MAX_VCPUS];
	uint64_t steps;
	bool cut;            /* stopped at the duration */
	unsigned cache_next; /* MPAM: next free portion of the machine's cache */
};

int run_prepare(struct run *r, const struct scenario *sc, struct diag *d);
/* progress: a line on `tty` (updated in place) while it runs; NULL for none. */
void run_execute(struct run *r, FILE *tty);
/* Fills rep (rep->domain allocated; free with report_free). 0, or -1 out of memory. */
int run_report(const struct run *r, struct report *rep);
void report_free(struct report *rep);
/* The model's memory traffic per VM and memory node it used (at most max rows); the number of
 * rows. */
unsigned run_traffic(const struct run *r, struct rep_traffic *out, unsigned max);
/* Every checked figure; returns how many differ from the truth. *checks is malloc'd. */
unsigned run_verify(const struct run *r, struct rep_check **checks, unsigned *n);
void run_free(struct run *r);

/* Whether a VM's event filter lets `event` count (the KVM semantics, written out here
 * independently of the library: the first range sets the default). */
bool run_filter_allows(const struct pv_pmu_config *p, uint32_t event);
/* Whether the machine's PMU implements a common event (PMCEID0/1). */
bool run_hw_event(const struct pv_hw *hw, uint32_t event);

/* The memory traffic a vCPU of this workload demands while it runs, bytes/s: its
 * bandwidth='...', else its profile's L2 refills (64-byte lines) at the machine's clock. */
uint64_t run_workload_rate(const struct scenario *sc, const struct scen_vm *sv);
/* Whether a <monitor vcpus> covers every vCPU of the domain: perfvisor counts a VM's
 * bandwidth as a whole, so only such a monitor has figures. */
bool run_monitor_whole(const struct domain *dom, uint64_t vcpus);
/* Every vCPU of the domain, as a mask; the latest pCPU clock of the run. */
uint64_t run_all_vcpus(const struct domain *dom);
uint64_t run_clock_max(const struct run *r);
/* The host counter that counts hardware event `arm`, or -1. */
int run_host_slot(const struct run *r, int arm);
/* The VM's bandwidth reading on memory node `node` (pv_vmpam_read, as of the last tick) and
 * its rate over the run; returns the status (enum pv_vmpam_status). */
int run_bw_reading(const struct run *r, const struct run_vm *v, unsigned node,
		   struct pv_vmpam_reading *rd, struct pv_vmpam_rate *rate);
/* Its local bytes on `node` (pv_vmpam_read_local); returns the status. */
int run_bw_local_reading(const struct run *r, const struct run_vm *v, unsigned node,
			 struct pv_vmpam_reading *rd);
/* Whether the machine counts bytes.local; if not, why, in `why`. */
bool run_local_counted(const struct run *r, char *why, size_t len);

/* SPE (run_spe.c). Each VM's RAM on an SPE machine, bytes. */
uint64_t run_spe_vm_ram(void);
/* The guest's rings fit what the domain may pin and the guest's memory (errors: file:line). */
int run_spe_check(const struct run *r, const struct run_vm *v, struct diag *d);
/* The guest driver's programming around the workload; stop returns the PMBPTR_EL1 read. */
void run_spe_prog_start(struct sim_prog *p, const struct run_vm *v, unsigned c);
size_t run_spe_prog_stop(struct sim_prog *p);
/* After the VM's vCPUs are added: its stage-1 tables, rings and driver. */
int run_spe_guest(struct run *r, struct run_vm *v, struct diag *d);
/* After every step (peak pins, the host's reclaim), and the driver's last drain at the end. */
void run_spe_step(struct run *r);
void run_spe_finish(struct run *r);

/* What a VM's guest drivers collected, decoded, next to what the SPE units did. */
struct run_spe_tally {
	uint64_t decoded;     /* records decoded from the bytes the drivers collected */
	uint64_t valid;       /* ... with a PC and an operation, nothing physical */
	uint64_t matched;     /* ... equal to the sample the unit wrote at that place (truth) */
	uint64_t undecodable; /* bytes after a decode error */
	uint64_t bytes;       /* collected */
	uint64_t written, lost; /* the units' log of the VM's samples (truth) */
	uint64_t irqs;          /* buffer interrupts the guest drivers serviced (truth) */
	uint64_t guest_faults;  /* buffer faults or other events the drivers saw (truth) */
	uint64_t s2_pinned;     /* bytes of the VM's stage 2 still pinned (truth) */
};
void run_spe_tally(const struct run *r, const struct run_vm *v, struct run_spe_tally *t);

#endif
