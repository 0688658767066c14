/* SPDX-License-Identifier: MIT */
/*
 * MPAM scenario rig: a sim machine whose MMIO reaches modelled MSCs (sim/msc.h), vmpam set up
 * on it through the platform calls, VMs each with one vCPU and one traffic generator. The
 * generator's label is what the CPU model (sim/mpam_cpu.h) computes from the registers vmpam
 * gives the vCPU (MPAM1/0_EL1, and the VM's MPAM2_EL2, MPAMHCR_EL2 and VPM values), so the
 * bytes the MSCs see carry exactly what the hardware would put on the bus.
 */
#ifndef MPAMSCEN_H
#define MPAMSCEN_H

#include <stdbool.h>
#include <stdint.h>

#include "../../sim/mpam_cpu.h"
#include "../../sim/msc.h"
#include "../../sim/sim.h"
#include "../../sim/traffic.h"
#include "perfvisor/vmpam.h"

#define MSCEN_MAX_MSCS 8

struct mscen_config {
	unsigned nodes;    /* memory nodes, one MSC each */
	unsigned channels; /* RIS per memory MSC, sharing the node's traffic evenly */
	uint16_t mons;     /* MBWU monitors per RIS */
	bool longc, lwd;   /* 44-bit (longc) or 63-bit (longc, lwd) counters */
	uint8_t scale;
	uint64_t capacity; /* bytes/s per node (0: unlimited) */
	uint64_t nrdy_ns;
	uint16_t partid_max; /* of the MSCs */
	uint8_t pmg_max;
	uint64_t cpu_mpamidr; /* of the pCPU */
	unsigned max_vms;
	bool cache; /* an L3 MSC (cache id 0) with 16 portions */
};

struct mscen {
	struct mscen_config cfg;
	struct sim_machine *m;
	struct pv_pcpu *cpu;
	struct sim_msc msc[MSCEN_MAX_MSCS];
	unsigned nmsc;
	struct sim_mpam mp;
	struct pv_vmpam_sys sys;
	struct pv_vm_mpam **table;
	struct pv_vmpam_acct *acct;
	struct pv_vm_mpam *vm; /* max_vms */
	struct pv_vcpu *vcpu;  /* max_vms, one per VM */
	struct sim_tgen *gen;  /* max_vms, one per VM */
	bool *live;
	unsigned nvms; /* slots used (live or released) */
	uint64_t now;
};

/* Defaults: 1 node, 1 channel, 16 monitors with 63-bit counters, 100 GB/s, NRDY 20 us,
 * PARTID_MAX 511, PMG_MAX 3, pCPU with HAS_HCR and 32 VPM entries, 64 VMs. */
struct mscen_config mscen_default(void);
/* NULL (and a message) on failure. */
struct mscen *mscen_new(const struct mscen_config *c);
void mscen_free(struct mscen *s);
/* pv_vmpam_partition_init and a vCPU; returns the VM's index, or the negative error. The generator
 * (s->gen[i]) is inactive until given rates; its label is set from the vCPU (EL1, data). */
int mscen_add_vm(struct mscen *s, const struct pv_vmpam_config *cfg, bool visible);
void mscen_release(struct mscen *s, unsigned i);
/* The label the CPU model gives a memory access of VM i's vCPU at `el`. */
struct sim_mpam_label mscen_label(const struct mscen *s, unsigned i, unsigned el, bool ifetch);
/* Re-labels VM i's generator from its vCPU's registers (after guest writes). */
void mscen_relabel(struct mscen *s, unsigned i, unsigned el);
/* Runs `ns` of traffic in steps of `step`, calling pv_vmpam_tick every `tick` ns. */
void mscen_run(struct mscen *s, uint64_t ns, uint64_t step, uint64_t tick);
/* Ground truth: bytes VM i's PARTIDs moved through `node`. */
uint64_t mscen_truth(const struct mscen *s, unsigned i, unsigned node);
/* Errors every MSC raised (all codes) plus ESRs still holding one. */
uint64_t mscen_msc_errors(const struct mscen *s);

#endif
