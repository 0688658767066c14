/* SPDX-License-Identifier: MIT */
/*
 * Scenario-test helpers: machines on the heap, VM configurations, guest program fragments,
 * and the checker that derives what every counter read must return from the ground truth.
 */
#ifndef SCEN_H
#define SCEN_H

#include <stdbool.h>
#include <stdint.h>

#include "../../sim/sim.h" /* support objects build without -I. */

/* The default machine with `counters` counters (the top `host` ones reserved for the host),
 * the scheduler's seed and slice range. */
struct sim_config scen_config(uint64_t seed, unsigned counters, unsigned host,
			      uint64_t slice_min, uint64_t slice_max);
/* sim_init on a fresh heap machine; NULL (and a message) if it fails. */
struct sim_machine *scen_machine(const struct sim_config *c);
void scen_free(struct sim_machine *m);

struct pv_vm_config scen_vm(unsigned version, unsigned counters);
/* Adds a VM and one vCPU on pCPU `cpu` running `prog`; returns the vCPU index (-1 on
 * failure, with a message). */
int scen_vm_vcpu(struct sim_machine *m, const struct pv_vm_config *cfg, unsigned cpu,
		 struct sim_prog *prog);

/* Expected values of the guest's counters, computed from the vCPU's truth snapshots and its
 * own register writes (Arm ARM semantics of the virtual PMU the VM was given). */
struct shadow_ctr {
	uint64_t val, type;
};
struct shadow {
	const struct pv_vm_config *vm;
	bool el3;      /* the guest sees EL3: NSK/NSU are implemented */
	unsigned n;    /* PMCR_EL0.N of the VM */
	uint64_t pmcr; /* E, LP */
	uint32_t cnten;
	uint64_t selr;
	struct shadow_ctr c[32]; /* 31: cycle counter */
	struct sim_snap base;
};

/* KVM filter semantics: the first range sets the default, later ranges override. */
bool scen_event_allowed(const struct pv_vm_config *vm, uint32_t event);
/* Checks every completed counter read (PMEVCNTR<n>, PMXEVCNTR, PMCCNTR) of the vCPU's
 * program, and that every op ended as expected. Prints each mismatch with `tag`; returns
 * the number of mismatches. */
unsigned scen_verify(struct sim_machine *m, unsigned vcpu, const char *tag);
/* Library hygiene on every pCPU and vCPU: no EL2 access that would UNDEF, no unknown
 * register, no write past x30, no interrupt storm. Returns the number of problems. */
unsigned scen_hygiene(struct sim_machine *m, const char *tag);

/* Random guest program over the VM's counters: setup, then `nops` random operations (work
 * at EL0/EL1, counter reads at EL0/EL1, PMSWINC, reprogramming, enables, PMSELR/PMXEV*). */
void scen_random_prog(struct sim_prog *p, uint64_t *rng, const struct pv_vm_config *vm,
		      bool el3, unsigned nops);
uint64_t scen_rand(uint64_t *rng);

/* ---- AMU --------------------------------------------------------------------------------- */
/* The default machine with an AMU of `version` (1, 2) and `aux` auxiliary counters (events
 * from a fixed list; with AMUv1p1 every one has a virtual offset but those in `no_voff`),
 * FEAT_FGT as given, and `nfreqs` frequency levels (first nfreqs of 3.0, 2.0, 1.2, 2.6 GHz)
 * changing every 20000 ticks. */
struct sim_config scen_amu_config(uint64_t seed, unsigned version, unsigned aux,
				  uint16_t no_voff, bool fgt, unsigned nfreqs);
struct pv_vm_config scen_amu_vm(unsigned version, unsigned aux);
/* Records the AMU truth at every AMU counter read of the vCPU's program (freed by
 * scen_free). Call after sim_add_vcpu, before running. */
void scen_amu_track(struct sim_machine *m, unsigned vcpu);
/* Checks every completed AMEVCNTR0<n>/AMEVCNTR1<n> read of a tracked vCPU against its
 * truth, and that every op ended as expected; prints mismatches; returns their number. */
unsigned scen_amu_verify(struct sim_machine *m, unsigned vcpu, const char *tag);
/* Random program over an AMU VM: work at EL0/EL1 in every profile, counter reads at EL0/EL1
 * (EL0 ones allowed or refused by AMUSERENR_EL0 as the program last set it), enable and
 * counter writes (UNDEF), identification reads, and MIGRATE hypercalls over `cpus` pCPUs. */
void scen_amu_random_prog(struct sim_prog *p, uint64_t *rng, unsigned aux, unsigned nops,
			  unsigned cpus);

#endif
