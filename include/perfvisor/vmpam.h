/* SPDX-License-Identifier: MIT */
/*
 * vmpam: MPAM for VMs. Every VM gets its own physical PARTIDs; its memory traffic carries
 * them whatever the guest writes; the operator's per-node bandwidth caps and cache portions
 * are programmed on the MSCs for them; bandwidth-usage monitors count bytes per VM per
 * memory node (exactly while there are enough monitors, by rotation with an error bound
 * when VMs outnumber them). Given the pCPUs' memory nodes, the physical PMG of a running vCPU
 * names the node local to its pCPU, and further monitors that match it count the VM's local
 * bytes per node (libvirt's bytes.local). See docs/mpam.md.
 *
 * Memory: the caller owns everything. One struct pv_vmpam_sys per machine (about 215 KiB), one
 * struct pv_vm_mpam per VM (280 bytes), one struct pv_vmpam per vCPU (40 bytes), and two
 * arrays given in struct pv_vmpam_setup: the VM table (max_vms pointers) and the accounting
 * entries (max_vms * nodes of 72 bytes, twice that with cpu_node; pv_vmpam_acct_entries()).
 * 4096 VMs on 4 nodes: 1.2 MiB (2.3 MiB counting local bytes).
 *
 * Concurrency: calls that take a struct pv_vmpam_sys (init, VM init/release/limits, tick) select
 * MSC registers through MPAMCFG_PART_SEL and MSMON_CFG_MON_SEL, so the caller serialises them
 * (one lock, or one pCPU). The vCPU functions and the register handlers touch only the vCPU
 * and the pCPU it runs on.
 *
 * Lifecycle (pv_vm_init, pv_vcpu_init, pv_vcpu_load/put and pv_vm_release call the per-VM
 * and per-vCPU steps; a host that manages partitions without a pv_vm calls them itself):
 *   pv_vmpam_init()        once: probes the MSCs, fixes the usable PARTID/PMG range
 *   pv_vmpam_partition_init()  per VM: PARTIDs, limits, monitors;
 *                          pv_vmpam_partition_release() at its end
 *   pv_vmpam_vcpu_attach() per vCPU
 *   pv_vmpam_el2()         the MPAM2_EL2 / MPAMHCR_EL2 / MPAMVPM values for the VM's vCPUs
 *   pv_vmpam_tick()        periodically (e.g. every 10 ms): reads and rotates the monitors
 *   pv_vmpam_read()        bytes of a VM on a node; pv_vmpam_read_local() those sent from
 *                          pCPUs local to the node; pv_vmpam_rate() between two readings
 */
#ifndef PERFVISOR_VMPAM_H
#define PERFVISOR_VMPAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/api.h"

PV_BEGIN_DECLS

struct pv_pcpu;
struct pv_vcpu;

#define PV_VMPAM_MAX_MSCS 32
#define PV_VMPAM_MAX_RIS 16 /* MPAMF_IDR.RIS_MAX is 4 bits */
#define PV_VMPAM_MAX_NODES 8
#define PV_VMPAM_MAX_CACHES 8
#define PV_VMPAM_MAX_MONS 256    /* monitor slots used per memory node */
#define PV_VMPAM_NODE_RIS 8      /* monitored RIS per memory node (their counts are summed) */
#define PV_VMPAM_MAX_VPARTIDS 32 /* virtual PARTIDs per VM (MPAMVPMV_EL2 has 32 bits) */
#define PV_VMPAM_PARTIDS 65536u
#define PV_VMPAM_NRDY_RETRIES 4 /* re-reads of a counter that reads NRDY (or torn) */

/* Errors (negative), described by pv_vmpam_strerror(). */
enum pv_vmpam_err {
	PV_VMPAM_ERR_SETUP = -32,     /* setup out of range: counts, memory, host PARTIDs */
	PV_VMPAM_ERR_CPU = -33,       /* a pCPU's MPAMIDR_EL1 is missing */
	PV_VMPAM_ERR_MSC_ARCH = -34,  /* an MSC is not MPAM v1.x (MPAMF_AIDR) */
	PV_VMPAM_ERR_MSC_NRW = -35,   /* an MSC narrows PARTIDs: not supported */
	PV_VMPAM_ERR_MSC_RIS = -36,   /* a node has more monitored RIS than supported */
	PV_VMPAM_ERR_NO_PARTID = -37, /* every usable PARTID is taken */
	PV_VMPAM_ERR_VPARTIDS = -38,  /* nr_partids above what the VM can be given */
	PV_VMPAM_ERR_VM_TABLE = -39,  /* the VM table is full */
	PV_VMPAM_ERR_BANDWIDTH = -40, /* cap above 100 %, or on a node without MBW_MAX */
	PV_VMPAM_ERR_CACHE = -41,     /* portions of an unknown cache, or beyond its CPBM_WD */
	PV_VMPAM_ERR_MONITORS = -42,  /* more PARTIDs than a node has monitors */
	PV_VMPAM_ERR_MSC_ERROR = -43, /* an MSC reported an error while being configured */
};

/**
 * pv_vmpam_strerror() - Describe a PV_VMPAM_ERR_* code.
 * @err: 0 or a PV_VMPAM_ERR_*.
 *
 * Return: a constant string, never NULL: "success" for 0, "unknown MPAM error" for a code
 * that is not a PV_VMPAM_ERR_*.
 */
PV_API const char *pv_vmpam_strerror(int err);

/* ---- the machine ------------------------------------------------------------------------ */

/* An MSC as firmware describes it (ACPI MPAM table or devicetree). */
enum { PV_VMPAM_MSC_MEMORY, PV_VMPAM_MSC_CACHE };
struct pv_vmpam_msc_desc {
	uint64_t base;    /* MMIO base (physical) */
	uint8_t kind;     /* PV_VMPAM_MSC_MEMORY or PV_VMPAM_MSC_CACHE */
	uint8_t id;       /* memory node (0..7) or cache id (0..7) */
	uint32_t nrdy_ns; /* monitors' not-ready time after configuration (arm,not-ready-us) */
};

struct pv_vmpam_acct;
struct pv_vm_mpam;

struct pv_vmpam_setup {
	const struct pv_vmpam_msc_desc *msc;
	unsigned nmsc;
	const uint64_t *cpu_mpamidr; /* MPAMIDR_EL1 of every pCPU */
	unsigned ncpus;
	const uint8_t *cpu_node; /* the memory node local to every pCPU (ncpus entries, by
					struct pv_pcpu.index; kept, not copied), or NULL. With it,
					and a usable PMG_MAX of at least nodes - 1, local bytes are
					counted: see enum pv_vmpam_local */
	unsigned host_partids;   /* PARTIDs [0, host_partids) stay the host's; 0 means 1 */
	unsigned mons_per_node; /* monitors used per node, 0: all (at most PV_VMPAM_MAX_MONS) */
	struct pv_vm_mpam **vms; /* the VM table: max_vms entries */
	unsigned max_vms;
	struct pv_vmpam_acct *acct; /* pv_vmpam_acct_entries() entries */
	size_t nacct;
};

/**
 * pv_vmpam_acct_entries() - The accounting entries a setup needs.
 * @s: the setup; only msc, nmsc, max_vms and cpu_node are read.
 *
 * Return: max_vms times the memory nodes its MSCs describe (one more than the highest id of
 * a memory MSC), twice that when it gives cpu_node (an account of total and one of local
 * bytes), whether or not the PMG range turns out to allow local bytes.
 */
PV_API size_t pv_vmpam_acct_entries(const struct pv_vmpam_setup *s);

/* Discovered resource instance. */
struct pv_vmpam_ris {
	uint8_t bwa_wd; /* MBW_MAX fraction bits; 0: no MBW_MAX */
	bool has_min;
	uint16_t cpbm_wd; /* cache portions; 0: none (or more than 64) */
	uint16_t num_mon; /* MBWU monitors */
	uint8_t cbits;    /* counter used: 31 (MSMON_MBWU), 44 or 63 (MSMON_MBWU_L) */
	uint8_t scale;    /* MBWUMON_IDR.SCALE, applied with SCLEN */
	bool has_rwbw;
};

struct pv_vmpam_msc {
	uint64_t base;
	uint32_t nrdy_ns;
	uint8_t kind, id;
	uint8_t nris;
	bool has_ris;  /* PART_SEL / MON_SEL carry a RIS */
	bool extd_esr; /* MPAMF_ESR is 64-bit */
	uint16_t partid_max;
	uint8_t pmg_max;
	struct pv_vmpam_ris ris[PV_VMPAM_MAX_RIS];
};

#define PV_VMPAM_SLOT_FREE UINT32_MAX
struct pv_vmpam_node {
	uint16_t nmons; /* monitor slots: the least NUM_MON of its monitored RIS */
	uint8_t nris;   /* monitored RIS; a slot is monitor `slot` on each of them */
	uint8_t msc[PV_VMPAM_NODE_RIS], ris[PV_VMPAM_NODE_RIS];
	bool rotating;    /* more PARTIDs to count than slots: monitors rotate */
	bool repack;      /* dedicated slots to be reassigned at the next tick */
	uint32_t nrdy_ns; /* the longest not-ready time of its MSCs */
	uint32_t used;    /* slots its VMs need (one per PARTID) */
	uint32_t cursor;  /* rotation: next VM (table index) to measure */
	uint64_t t_prog;  /* when the current rotation window began */
	uint64_t seal_at; /* no open gap's estimate can pass 2^64 - 1 before it (ns) */
	/* Per monitor: account (internal.h) << 5 | vPARTID, or SLOT_FREE. */
	uint32_t slot[PV_VMPAM_MAX_MONS];
	bool match_pmg[PV_VMPAM_MAX_MONS]; /* the slot's CTL has MATCH_PMG (a local account) */
	uint64_t last[PV_VMPAM_MAX_MONS][PV_VMPAM_NODE_RIS]; /* dedicated: last raw counts */
	uint32_t pred[PV_VMPAM_MAX_MONS][PV_VMPAM_NODE_RIS]; /* dedicated: last change, units */
};

struct pv_vmpam_stats {
	uint64_t ticks;
	uint64_t samples;    /* rotation windows closed with a reading */
	uint64_t retries;    /* counter re-reads (NRDY, or halves of a long counter torn) */
	uint64_t not_ready;  /* counter reads given up as not ready */
	uint64_t wraps;      /* 31-bit counter wraps corrected */
	uint64_t msc_errors; /* MPAMF_ESR found holding an error (then cleared) */
	uint64_t last_esr;
	uint8_t last_esr_msc;
};

/* Whether local bytes are counted (struct pv_vmpam_sys.local). */
enum pv_vmpam_local {
	PV_VMPAM_LOCAL_COUNTED, /* the physical PMG names the pCPU's node; monitors match it */
	PV_VMPAM_LOCAL_NO_TOPOLOGY, /* the setup gave no cpu_node */
	PV_VMPAM_LOCAL_PMG_RANGE,   /* the usable PMG_MAX is below nodes - 1: no PMG per node */
};

struct pv_vmpam_sys {
	uint16_t partid_max;     /* usable: the least over pCPUs and MSCs */
	uint8_t pmg_max;         /* usable: the least over pCPUs and MSCs */
	uint8_t local;           /* enum pv_vmpam_local */
	uint8_t acct_shift;      /* accounts per VM and node: 1 << acct_shift (total, local) */
	const uint8_t *cpu_node; /* the setup's, while local bytes are counted; else NULL */
	uint32_t ncpus;
	bool has_hcr;        /* every pCPU has MPAMHCR_EL2 and the VPM registers */
	bool has_tidr;       /* every pCPU has MPAM2_EL2.TIDR */
	uint8_t vpm_entries; /* virtual PARTIDs the VPM registers map (0 without HAS_HCR) */
	uint16_t host_partids;
	uint8_t nmsc, nnodes, ncaches;
	uint64_t now; /* time of the last tick (ns) */
	struct pv_vmpam_msc msc[PV_VMPAM_MAX_MSCS];
	struct pv_vmpam_node node[PV_VMPAM_MAX_NODES];
	struct pv_vm_mpam **vms;
	uint32_t max_vms, nvms;
	struct pv_vmpam_acct *acct;
	uint64_t partid_used[PV_VMPAM_PARTIDS / 64];
	struct pv_vmpam_stats stats;
};

/**
 * pv_vmpam_init() - Take charge of the machine's MSCs, for VMs.
 * @sys: the machine's MPAM state, caller's memory; cleared first.
 * @cpu: the pCPU the MSCs' MMIO is done from.
 * @s: the setup; its VM table and accounting entries (both cleared here) and its cpu_node
 *     are kept by pointer, not copied, so they must outlive @sys.
 *
 * Probes every MSC through @cpu (MPAMF_AIDR, IDR and the per-RIS ID registers), takes the
 * usable PARTID and PMG range as the least over the pCPUs and the MSCs, keeps PARTIDs
 * [0, host_partids) for the host, and claims the monitors (enabled, counting the host's
 * PARTID 0 until assigned). Set pv_hw.mpam_sys to @sys and pv_hw.mpam_cpu to @cpu after it.
 *
 * Context: serialised with every other call that takes @sys.
 * Return: 0; PV_VMPAM_ERR_SETUP for a setup out of range (more than 32 MSCs or 8 memory
 * nodes, an MSC id above 7, no VM table, max_vms 0 or above 2^25, fewer accounting entries
 * than pv_vmpam_acct_entries(), host_partids leaving no PARTID for VMs, a cpu_node entry
 * naming no memory node); PV_VMPAM_ERR_CPU for no pCPU's MPAMIDR_EL1; PV_VMPAM_ERR_MSC_ARCH,
 * PV_VMPAM_ERR_MSC_NRW or PV_VMPAM_ERR_MSC_RIS for an MSC it cannot drive. On error @sys must
 * not be used.
 */
PV_API int pv_vmpam_init(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			 const struct pv_vmpam_setup *s);

/* ---- a VM --------------------------------------------------------------------------------- */

struct pv_vmpam_config {
	uint8_t nr_partids;                  /* virtual PARTIDs the guest sees; 0 means 1 */
	uint8_t mbw_max[PV_VMPAM_MAX_NODES]; /* bandwidth cap per memory node, percent of the
						node's bandwidth (libvirt <memorytune> node
						bandwidth); 0 or 100: none */
	uint64_t cpbm[PV_VMPAM_MAX_CACHES];  /* cache portions per cache id (<cachetune>);
						0: every portion */
};

/* The EL2 controls of the VM's vCPUs. The *_owned masks say which bits perfvisor sets; the
 * hypervisor keeps its own fields outside them (as for struct pv_trap_words). */
struct pv_vmpam_el2 {
	uint64_t mpam2_el2, mpam2_el2_owned;
	uint64_t mpamhcr_el2, mpamhcr_el2_owned; /* 0 / 0 without HAS_HCR */
	uint64_t vpmv;                           /* MPAMVPMV_EL2 */
	uint64_t vpm[8];                         /* MPAMVPM<n>_EL2 */
	uint8_t nvpm;                            /* MPAMVPM0..nvpm-1 and VPMV to load; 0: the
						    physical PARTIDs are written directly */
};

struct pv_vm_mpam {
	struct pv_vmpam_sys *sys;
	uint32_t index; /* in sys->vms */
	uint8_t nr_partids;
	uint8_t pmg_max; /* the guest's PMG_MAX */
	bool visible;    /* the guest has MPAM (its registers do not UNDEF) */
	bool vpm;        /* hardware maps virtual PARTIDs (MPAMVPM<n>_EL2) */
	uint16_t partid[PV_VMPAM_MAX_VPARTIDS]; /* physical PARTID of each virtual PARTID */
	uint64_t mpamidr;                       /* the guest's MPAMIDR_EL1 */
	struct pv_vmpam_el2 el2;
	struct pv_vmpam_config cfg; /* limits in force */
};

/**
 * pv_vmpam_partition_init() - Give a VM its PARTIDs, limits and monitors.
 * @sys: the machine's MPAM state, pv_vmpam_init() done.
 * @cpu: the pCPU the MSCs' MMIO is done from.
 * @vm: the VM's MPAM state, caller's memory; overwritten once the configuration is checked.
 * @cfg: PARTIDs and limits, copied into vm->cfg (nr_partids 0 made 1); NULL: one PARTID, no
 *       limit.
 * @visible: the guest is given MPAM (PV_FEAT_MPAM); without it the VM still has its PARTIDs,
 *           limits and accounting, and its MPAM registers UNDEF.
 *
 * Allocates the VM's physical PARTIDs (all or nothing: exhaustion is PV_VMPAM_ERR_NO_PARTID,
 * never a shared PARTID), programs its limits on every MSC, enters it in the VM table, and
 * gives it monitors on every node (or a turn in their rotation). pv_vm_init() calls it
 * where the hypervisor manages MPAM. Call it before the VM's vCPUs first run: its bytes are
 * counted from when its monitors are ready (nrdy_ns later).
 *
 * Context: serialised with every other call that takes @sys.
 * Return: 0; PV_VMPAM_ERR_VPARTIDS (more than 32 PARTIDs, or than the VPM registers map),
 * PV_VMPAM_ERR_BANDWIDTH or PV_VMPAM_ERR_CACHE (a limit the MSCs cannot apply),
 * PV_VMPAM_ERR_MONITORS (more PARTIDs than a node has monitors), PV_VMPAM_ERR_VM_TABLE,
 * PV_VMPAM_ERR_NO_PARTID, or PV_VMPAM_ERR_MSC_ERROR (an MSC error while programming the
 * limits: the defaults are put back). On error @vm is cleared: it holds no PARTID, is not in
 * the table, and releasing it does nothing.
 */
PV_API int pv_vmpam_partition_init(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
				   struct pv_vm_mpam *vm, const struct pv_vmpam_config *cfg,
				   bool visible);

/**
 * pv_vmpam_vm_set_limits() - Change a VM's bandwidth caps and cache portions.
 * @sys: the machine's MPAM state.
 * @cpu: the pCPU the MSCs' MMIO is done from.
 * @vm: a partition of @sys (not checked).
 * @cfg: the new limits, copied into vm->cfg; nr_partids is ignored. Not NULL.
 *
 * Context: serialised with every other call that takes @sys.
 * Return: 0 or a PV_VMPAM_ERR_*: PV_VMPAM_ERR_BANDWIDTH or PV_VMPAM_ERR_CACHE, nothing
 * programmed; PV_VMPAM_ERR_MSC_ERROR, the previous limits programmed again. On error nothing
 * is changed.
 */
PV_API int pv_vmpam_vm_set_limits(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
				  struct pv_vm_mpam *vm, const struct pv_vmpam_config *cfg);

/**
 * pv_vmpam_partition_release() - Give back a VM's PARTIDs and monitors.
 * @sys: the machine's MPAM state.
 * @cpu: the pCPU the MSCs' MMIO is done from.
 * @vm: the VM's MPAM state; nothing happens unless it is in @sys's table, so a second
 *      release, or that of a VM pv_vmpam_partition_init() refused, does nothing.
 *
 * Resets the VM's PARTIDs to no limit and frees them, its monitors and its accounts. The
 * last VM of the table takes its place, so that VM's index changes. pv_vm_release() calls it.
 *
 * Context: no vCPU of the VM may be loaded; serialised with every other call that takes
 * @sys.
 */
PV_API void pv_vmpam_partition_release(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
				       struct pv_vm_mpam *vm);

/**
 * pv_vmpam_el2() - The EL2 controls of a VM's vCPUs.
 * @vm: the VM's partition.
 *
 * MPAM2_EL2 and MPAMHCR_EL2 with the masks of what perfvisor owns, for the hypervisor to
 * write on entry, and the VPM registers that pv_vcpu_load() writes.
 *
 * Return: &vm->el2, valid as long as @vm is.
 */
PV_API const struct pv_vmpam_el2 *pv_vmpam_el2(const struct pv_vm_mpam *vm);

/* ---- a vCPU ------------------------------------------------------------------------------ */

struct pv_vmpam {
	const struct pv_vm_mpam *vm;
	uint64_t mpam0, mpam1;       /* the guest's MPAM0_EL1 / MPAM1_EL1 label fields */
	uint64_t hw_mpam0, hw_mpam1; /* what the physical registers hold while it runs (the
					last pCPU's node as PMG when local bytes are counted) */
};

/* The vCPU's MPAM state is the `mpam` member of struct pv_vcpu. */
#define PV_VMPAM_VCPU(v) (&(v)->mpam)

/**
 * pv_vmpam_vcpu_attach() - Attach a vCPU's MPAM state, reset, to its VM's partition.
 * @s: the vCPU's MPAM state (PV_VMPAM_VCPU(v)); every field is overwritten.
 * @vm: the VM's partition; kept by pointer.
 *
 * Reset values: MPAM0_EL1 = MPAM1_EL1 = 0 (virtual PARTID 0, PMG 0), which reach the
 * hardware as the VM's first physical PARTID. pv_vcpu_init() calls it when the VM has a
 * partition.
 */
PV_API void pv_vmpam_vcpu_attach(struct pv_vmpam *s, const struct pv_vm_mpam *vm);
/* pv_vcpu_load writes the vCPU's MPAM1_EL1, MPAM0_EL1 and, with VPM, MPAMVPM<n>_EL2 /
 * MPAMVPMV_EL2; the hypervisor writes MPAM2_EL2 and MPAMHCR_EL2 from pv_vmpam_el2(). When
 * local bytes are counted, both registers' PMG_I and PMG_D hold the memory node local to the
 * pCPU (cpu_node[cpu->index]), whatever PMG the guest wrote. */

/* ---- accounting --------------------------------------------------------------------------- */

struct pv_vmpam_acct {
	uint64_t bytes;   /* estimate of the bytes up to `at` */
	uint64_t at;      /* ns */
	uint64_t rate;    /* last measured rate, bytes per 2^30 ns */
	uint64_t dev;     /* typical change of the rate between samples, same unit */
	uint64_t gap_dev; /* dev when the open unmeasured gap began */
	uint64_t sq;      /* sum of the variances of closed gaps, KiB^2 */
	uint64_t lin;     /* sum of linear error bounds (NRDY compensation, scaling), bytes */
	uint64_t pend;  /* dedicated: bytes read from some of its counters, others not ready */
	uint32_t gran;  /* counter granularity of the current figure, bytes */
	uint8_t status; /* enum pv_vmpam_status of the last attempt */
	uint8_t flags;
	uint16_t nrdy; /* consecutive not-ready reads */
};

/**
 * pv_vmpam_tick() - Read the bandwidth monitors into the VMs' accounts.
 * @sys: the machine's MPAM state.
 * @cpu: the pCPU the MSCs' MMIO is done from.
 * @now: monotonic time, in ns; a time before the last tick's is taken as the last tick's.
 *
 * Call it every tick period (10 ms suits 31-bit counters up to ~100 GB/s per node). Reads
 * every monitor in use, corrects wraps, folds the bytes into the VMs' accounts, and moves
 * rotating monitors on to the next VMs (a rotation window shorter than the monitors'
 * not-ready time stays open until a later tick). It also clears an error an MSC reports in
 * MPAMF_ESR, counting it in sys->stats.
 *
 * Context: serialised with every other call that takes @sys.
 */
PV_API void pv_vmpam_tick(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, uint64_t now);

enum pv_vmpam_status {
	PV_VMPAM_MEASURED, /* counted by monitors all along: bound is the counter granularity */
	PV_VMPAM_ESTIMATED, /* includes time the VM's monitors were rotated away */
	PV_VMPAM_NOT_READY, /* its last monitor read stayed NRDY: no figure */
	PV_VMPAM_NO_DATA,   /* not measured yet, or the node has no monitors: no figure */
	PV_VMPAM_OVERFLOW, /* the VM's bytes on the node exceed 2^64 - 1: no figure, for good */
};

struct pv_vmpam_reading {
	uint64_t at_ns; /* the tick the figure is for */
	uint64_t bytes; /* bytes the VM moved through the node since pv_vmpam_partition_init */
	uint64_t bound; /* |bytes - truth| <= bound (95 % confidence when ESTIMATED) */
	uint8_t status; /* enum pv_vmpam_status; bytes and bound are 0 unless MEASURED or
			      ESTIMATED */
	/* for pv_vmpam_rate() */
	uint64_t sq, lin, open;
	uint32_t gran;
};

/**
 * pv_vmpam_read() - A VM's bytes through a memory node, as of the last tick.
 * @sys: the machine's MPAM state.
 * @vm: the VM's partition.
 * @node: the memory node.
 * @out: the reading, overwritten: bytes since pv_vmpam_partition_init(), their bound, time.
 *
 * No MSC is read: the figure is the account pv_vmpam_tick() keeps, read without a lock.
 *
 * Return: the status (enum pv_vmpam_status), also in out->status: PV_VMPAM_MEASURED or
 * PV_VMPAM_ESTIMATED with a figure; PV_VMPAM_NOT_READY; PV_VMPAM_NO_DATA when @vm is not a
 * partition of @sys, @node does not exist or has no monitors, or nothing was measured yet.
 */
PV_API int pv_vmpam_read(const struct pv_vmpam_sys *sys, const struct pv_vm_mpam *vm,
			 unsigned node, struct pv_vmpam_reading *out);

/**
 * pv_vmpam_read_local() - The part of a VM's bytes through a node sent from pCPUs local to it.
 * @sys: the machine's MPAM state.
 * @vm: the VM's partition.
 * @node: the memory node.
 * @out: the reading, overwritten, as for pv_vmpam_read().
 *
 * The bytes sent while its vCPUs ran on pCPUs local to @node (libvirt's bytes.local):
 * counted by monitors matching the VM's PARTIDs and PMG = @node, with the same statuses and
 * bounds as pv_vmpam_read().
 *
 * Return: the status, as for pv_vmpam_read(); PV_VMPAM_NO_DATA unless sys->local is
 * PV_VMPAM_LOCAL_COUNTED.
 */
PV_API int pv_vmpam_read_local(const struct pv_vmpam_sys *sys, const struct pv_vm_mpam *vm,
			       unsigned node, struct pv_vmpam_reading *out);

struct pv_vmpam_rate {
	uint64_t ns; /* length of the interval */
	uint64_t bytes, bound;
	uint64_t bytes_per_s, bound_per_s;
	uint8_t status;
};
/**
 * pv_vmpam_rate() - Bytes and bytes per second between two readings of one VM and node.
 * @from: the earlier reading.
 * @to: the later reading.
 * @out: the interval, overwritten.
 *
 * A gap open at @from is counted whole in the bound. Bytes that went down between the
 * readings count as 0; with both readings of the same tick the per-second figures are 0.
 *
 * Return: the status, also in out->status: PV_VMPAM_MEASURED or PV_VMPAM_ESTIMATED with the
 * figures; otherwise the worse of the two readings' statuses, every figure 0. If @to is
 * earlier than @from every figure is 0 too, but the status is still the worse of the two,
 * PV_VMPAM_MEASURED possibly.
 */
PV_API int pv_vmpam_rate(const struct pv_vmpam_reading *from, const struct pv_vmpam_reading *to,
			 struct pv_vmpam_rate *out);

PV_END_DECLS

#endif
