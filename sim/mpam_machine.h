/* SPDX-License-Identifier: MIT */
/*
 * MPAM as part of the simulated machine's run. With sim_config.mpam.nodes set, sim_init gives
 * the machine:
 *   - a memory MSC per memory node (sim/msc.h: one RIS with MBW_MAX/MBW_MIN, MBWU monitors
 *     with 63-bit counters, the node's capacity) and, if asked, an L3 cache MSC with portions;
 *   - the CPU side of MPAM on every pCPU (sim/mpam_cpu.h): ID_AA64PFR0_EL1.MPAM = 1 and
 *     MPAMIDR_EL1, MPAM0/1_EL1, MPAM2_EL2, MPAMHCR_EL2, MPAMVPMV_EL2, MPAMVPM<n>_EL2 reached
 *     by the library (pv_plat_sysreg_*) and by guests (routed by sim_cpu_route: EL0 UNDEF,
 *     EL1 trapped by MPAM2_EL2/MPAMHCR_EL2 as the vCPU's trap words set them);
 *   - vmpam (pv_vmpam_init over the MSCs, every pCPU's MPAMIDR_EL1 and, with `topology`, the
 *     memory node local to each pCPU) wired into pv_hw (mpam_sys, mpam_cpu) before any VM is
 *     created, so every VM gets PARTIDs of its own and, given enough PMGs, local bytes;
 *   - memory traffic: a vCPU given a rate (sim_mpam_machine_traffic) demands that many bytes
 *     per second of its own running time at EL0/EL1, labelled with what the CPU model computes
 *     from the pCPU's registers at that instant (GenMPAM: MPAM0_EL1 at EL0, MPAM1_EL1 at EL1,
 *     through the VPM registers when MPAMHCR_EL2 enables them). The memory system (sim/traffic.c)
 *     serves it window by window: the MSC throttles it by MBW_MAX and its monitors count it.
 *     pv_vmpam_tick runs every tick_ns of memory time.
 *
 * Time: every pCPU has its own clock (sim_cpu.time, running only while it executes). Memory
 * time is `start` + a pCPU's clock; the memory system advances, in windows, up to the slowest
 * pCPU that still has work (the others' traffic waits, time-stamped, until it is reached), and
 * to the fastest at the end of the run (sim_mpam_machine_flush, also done by the sim_step that
 * finds every pCPU idle). `start` leaves the monitors of VMs created before the run their
 * not-ready time; the traffic of a VM created later starts when its monitors are ready.
 *
 * Ground truth: what the traffic model really moved after throttling, per generator (one per
 * vCPU, guest EL, label and pCPU), so per vCPU, per VM and per label PARTID, per memory node,
 * and local: from pCPUs local to the node (cpu_node), whatever label the bytes carried. The
 * vCPU does not slow down when its traffic is throttled: the bytes it could not move are not
 * moved. Everything is deterministic: no randomness is involved.
 */
#ifndef SIM_MPAM_MACHINE_H
#define SIM_MPAM_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/vmpam.h"
#include "mpam_cpu.h"
#include "msc.h"
#include "traffic.h"

struct sim_machine;
struct sim_cpu;
struct pv_trap_words;

#define SIM_MPAM_MACHINE_CPUS 8   /* SIM_MAX_CPUS */
#define SIM_MPAM_MACHINE_VMS 16   /* SIM_MAX_VMS */
#define SIM_MPAM_MACHINE_VCPUS 32 /* SIM_MAX_VCPUS */
#define SIM_MPAM_MACHINE_MSCS (SIM_MPAM_MAX_NODES + 1)
#define SIM_MPAM_NO_NODE 0xFF /* cpu_node of a pCPU local to no memory node */

struct sim_mpam_config {
	uint8_t nodes; /* bit n: memory node n has a memory MSC; 0: no MPAM */
	uint64_t capacity[SIM_MPAM_MAX_NODES]; /* bytes per second a node serves, 0: no limit */
	uint16_t mons;                         /* MBWU monitors of each node's MSC */
	uint16_t partid_max; /* PARTID_MAX of every pCPU and MSC (0 means 63) */
	uint8_t pmg_max;
	bool no_hcr;             /* pCPUs without MPAMHCR_EL2 and the VPM registers */
	uint16_t cache_portions; /* an L3 cache MSC (id cache_id) with this CPBM_WD; 0: none */
	uint8_t cache_id;
	uint32_t nrdy_ns;   /* monitors read NRDY this long after being configured */
	uint64_t window_ns; /* the MSCs' regulation window: memory time advances by it
				     (MPAMCFG_MBW_WINWD); 0 means 100 us */
	uint64_t tick_ns;   /* pv_vmpam_tick period, a multiple of the window; 0: 1 ms */
	bool topology;      /* vmpam is told cpu_node (pv_vmpam_setup.cpu_node) */
	uint8_t cpu_node[SIM_MPAM_MACHINE_CPUS]; /* memory node local to each pCPU, or
						    SIM_MPAM_NO_NODE: the truth of local bytes,
						    with or without `topology` */
};

/* The traffic a vCPU demands per second of its running time, per memory node. */
struct sim_mpam_vtraffic {
	uint64_t rate[SIM_MPAM_MAX_NODES];
	uint8_t read_pct;
	bool set;
};

struct sim_mpam_span {
	uint64_t t0, t1; /* memory time, ns */
};

/* One traffic generator: a vCPU's traffic at one EL with one label. */
struct sim_mpam_gen {
	unsigned vcpu;
	uint8_t cpu; /* the pCPU it ran on */
	uint8_t el;
	uint16_t partid; /* the label, as the CPU model put it on the bus */
	uint8_t pmg;
	struct sim_mpam_span *run; /* when the vCPU ran with this label, not yet served */
	size_t nrun, caprun;
};

struct sim_mpam_machine {
	struct sim_mpam_config cfg;
	struct sim_msc msc[SIM_MPAM_MACHINE_MSCS];
	struct pv_vmpam_msc_desc desc[SIM_MPAM_MACHINE_MSCS];
	unsigned nmsc;
	struct sim_mpam mp; /* the memory system: MSCs, memory time, truth per PARTID */
	struct sim_mpam_cpu cpu[SIM_MPAM_MACHINE_CPUS];
	uint64_t mpamidr[SIM_MPAM_MACHINE_CPUS];
	uint64_t hyp_mpam2, hyp_mpamhcr; /* the hypervisor's own EL2 controls (its label) */
	struct pv_vmpam_sys sys;
	struct pv_vm_mpam *table[SIM_MPAM_MACHINE_VMS];
	/* Per VM and node: total, local. */
	struct pv_vmpam_acct acct[SIM_MPAM_MACHINE_VMS * SIM_MPAM_MAX_NODES * 2];
	uint64_t vm_ready[SIM_MPAM_MACHINE_VMS]; /* memory time its traffic may start */
	struct sim_mpam_vtraffic vcpu[SIM_MPAM_MACHINE_VCPUS];
	struct sim_tgen *tg; /* generators, for sim_traffic_step; tg[i] is gen[i]'s */
	struct sim_mpam_gen *gen;
	unsigned ngen, capgen;
	uint64_t window_ns, tick_ns;
	uint64_t start; /* memory time of every pCPU's time 0 */
	uint64_t next_tick, last_tick;
	uint64_t windows, ticks,
		late_ns; /* late_ns: run time found behind memory time, dropped */
};

/* ---- built into the machine (machine.c, cpu.c, sched.c call these) ---- */
/* Before pv_hw_probe: the pCPUs' MPAM (ID register, MPAMIDR_EL1). 0, or PV_ERR_UNSUPPORTED
 * for a configuration out of range or no memory. */
int sim_mpam_machine_init(struct sim_machine *m);
/* After pv_hw_probe: the MSCs, pv_vmpam_init, pv_hw.mpam_sys/mpam_cpu. 0 or the error. */
int sim_mpam_machine_attach(struct sim_machine *m);
/* Frees what init/attach allocated (not the machine). Safe without MPAM. */
void sim_mpam_machine_free(struct sim_machine *m);
/* A VM was created (pv_vm_init): its traffic may start once its monitors are ready. */
void sim_mpam_machine_vm_added(struct sim_machine *m, unsigned vm);
/* The pCPU's MPAM registers, NULL without MPAM. */
struct sim_mpam_cpu *sim_mpam_machine_cpu(struct sim_cpu *c);
/* How a guest access to an MPAM register is routed (enum sim_route), -1 if `key` is not an
 * MPAM register of this machine. */
int sim_mpam_machine_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el);
/* MPAM2_EL2 and MPAMHCR_EL2 at entry to a vCPU (its trap words: hyp & ~owned | words), or the
 * hypervisor's own values (t NULL). */
void sim_mpam_machine_words(struct sim_cpu *c, const struct pv_trap_words *t);
/* Work the pCPU executed from its time t0 to now at (el, secure): the running vCPU's traffic. */
void sim_mpam_machine_exec(struct sim_cpu *c, unsigned el, bool secure, uint64_t t0);
/* After a scheduler step: memory time up to the slowest busy pCPU, or everything when no
 * pCPU is busy (`running` false). */
void sim_mpam_machine_step(struct sim_machine *m, bool running);

/* ---- for the caller ---- */
/* vCPU `vcpu` demands `bytes_per_s` on memory node `node` while it runs at EL0/EL1 (repeat
 * for several nodes), `read_pct` percent of it reads. 0, or -1 (no MPAM, bad node or vCPU). */
int sim_mpam_machine_traffic(struct sim_machine *m, unsigned vcpu, unsigned node,
			     uint64_t bytes_per_s, unsigned read_pct);
/* Serves every recorded run up to the fastest pCPU's clock and ticks vmpam there (idempotent):
 * call when stopping a run early. */
void sim_mpam_machine_flush(struct sim_machine *m);
/* Ground truth, bytes on `node`: moved (delivered after throttling) or demanded. */
uint64_t sim_mpam_machine_vcpu_bytes(const struct sim_machine *m, unsigned vcpu, unsigned node,
				     bool demanded);
uint64_t sim_mpam_machine_vm_bytes(const struct sim_machine *m, unsigned vm, unsigned node,
				   bool demanded);
/* Ground truth of local bytes: those a VM's vCPUs moved through `node` (after throttling)
 * while running on a pCPU whose cpu_node is `node`. */
uint64_t sim_mpam_machine_vm_local_bytes(const struct sim_machine *m, unsigned vm,
					 unsigned node);
/* Bytes any vCPU moved labelled with a PARTID that is not one of its own VM's (0 when
 * isolation holds). */
uint64_t sim_mpam_machine_foreign_bytes(const struct sim_machine *m);
/* MSC errors raised (all codes, every MSC) plus ESRs still holding one. */
uint64_t sim_mpam_machine_msc_errors(const struct sim_machine *m);
/* Memory time now, and the instant vCPUs began (every pCPU's time 0), in ns. */
uint64_t sim_mpam_machine_now(const struct sim_machine *m);
uint64_t sim_mpam_machine_start(const struct sim_machine *m);

#endif
