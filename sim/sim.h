/* SPDX-License-Identifier: MIT */
/*
 * sim: a deterministic model of the physical machine perfvisor runs on, for host builds.
 *
 *   struct sim_config cfg;  sim_config_default(&cfg);  ...adjust...
 *   struct sim_machine *m = calloc(1, sizeof(*m));      (the caller owns it; it must not move)
 *   sim_init(m, &cfg);                  pCPUs, pv_hw_probe, pv_pcpu_setup, host counters
 *   vm = sim_add_vm(m, &vm_cfg);        pv_vm_init
 *   v = sim_add_vcpu(m, vm, cpu, &prog) pv_vcpu_init; prog is the guest program (caller's)
 *   sim_run(m);                         time-slices vCPUs through pv_vcpu_load/put until every
 *                                       program has finished
 *   then read prog.ops[i] (values read, outcomes, truth snapshots), m->vcpu[v].truth,
 *   m->cpu[c].truth (EL2 work) and sim_host_counter().
 *
 * Everything hangs off struct sim_machine: no global state. The library is called exactly as
 * a hypervisor would: pv_trap on every trapped access (with a real ESR_EL2), pv_irq on the
 * physical PMU interrupt taken at EL2, load/put at every switch; it reaches the hardware only
 * through pv_plat_* (sim/platform.c).
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"
#include "amu.h"
#include "events.h"
#include "guest.h"
#include "mpam_machine.h"
#include "pmu.h"
#include "spe_machine.h"
#include "truth.h"

#define SIM_MAX_CPUS 8
#define SIM_MAX_VMS 16
#define SIM_MAX_VCPUS 32
#define SIM_MAX_HOST_COUNTERS 4

struct sim_config {
	unsigned cpus;             /* pCPUs, 1..SIM_MAX_CPUS */
	struct sim_pmu_config pmu; /* its el3/sel2/aarch32/secure_counting follow the fields
				       below */
	bool el3, sel2, aarch32;   /* EL3 implemented, Secure EL2, AArch32 at EL0..EL2 */
	bool idst;                 /* FEAT_IDST: EL0 ID-space reads trap to EL1 (EC 0x18) */
	bool hpmn0;                /* FEAT_HPMN0 */
	bool secure_counting;      /* firmware lets the PMU count in Secure state and at EL3 */
	unsigned host_counters;    /* counters [N - k, N) reserved for and used by the host */
	uint16_t host_events[SIM_MAX_HOST_COUNTERS]; /* event of each host counter */
	uint64_t host_initial;                       /* initial value of the host counters */
	uint64_t seed;                               /* scheduler PRNG */
	uint64_t slice_min, slice_max;               /* guest cycles per time slice */
	unsigned trap_insts;                         /* EL2 instructions per trapped access */
	unsigned irq_insts;       /* EL2 instructions per physical interrupt */
	unsigned switch_insts;    /* EL2 instructions per scheduler tick or switch */
	uint64_t id_override[64]; /* ID group slots to replace (bit s of id_override_mask) */
	uint64_t id_override_mask;
	struct sim_amu_config amu;         /* version 0: no AMU */
	bool fgt;                          /* FEAT_FGT (HAFGRTR_EL2) */
	struct sim_mpam_config mpam;       /* nodes 0: no MPAM (sim/mpam_machine.h) */
	struct sim_spe_machine_config spe; /* SPE units, memory, stage 2 (sim/spe_machine.h) */
	/* Time: the system counter runs at cnt_khz; a pCPU runs at cpu_khz[level], and every
	 * dvfs_ticks of its own running time (when nfreqs > 1) moves to a pseudo-random level,
	 * at a scheduler tick. A pCPU's time passes only while it executes (the AMU cycle
	 * counters stop in WFI). */
	uint32_t cnt_khz;
	uint32_t cpu_khz[SIM_MAX_FREQS];
	unsigned nfreqs;
	uint64_t dvfs_ticks;
};

struct sim_machine;
struct sim_vcpu;
struct sim_mpam;

struct sim_cpu_stats {
	uint64_t plat_reads, plat_writes; /* pv_plat_sysreg_read/write calls */
	uint64_t plat_undef;     /* library accesses that UNDEF at EL2 on this machine */
	uint64_t plat_unknown;   /* library accesses to registers the model does not know */
	uint32_t last_bad_key;   /* key of the last such access */
	uint64_t traps;          /* pv_trap calls */
	uint64_t irqs;           /* physical PMU interrupts taken */
	uint64_t irq_host;       /* ... for which pv_irq said PV_IRQ_HOST_PENDING */
	uint64_t irq_not_mine;   /* ... for which pv_irq said PV_IRQ_NOT_MINE */
	uint64_t irq_storms;     /* level still high after handling (the library left it) */
	uint64_t irq_mapped;     /* ... for which pv_irq said PV_IRQ_GUEST_MAPPED */
	uint64_t host_overflows; /* host counter overflows the host acknowledged */
	uint64_t switches;       /* load of a different vCPU */
	uint64_t ticks;          /* scheduler ticks */
	uint64_t dvfs;           /* frequency changes */
	uint64_t power_cycles;   /* CPU power-down and power-up */
};

struct sim_cpu {
	struct pv_pcpu pv; /* pv.plat points here */
	struct sim_machine *m;
	unsigned idx;
	unsigned el; /* current exception level */
	bool secure;
	uint64_t hcr, mdcr, cptr;             /* HCR_EL2, MDCR_EL2, CPTR_EL2 in force */
	uint64_t hyp_hcr, hyp_mdcr, hyp_cptr; /* the hypervisor's own values */
	uint64_t hafgrtr, hyp_hafgrtr;        /* HAFGRTR_EL2 (FEAT_FGT) */
	uint64_t hdfgrtr, hyp_hdfgrtr;        /* HDFGRTR_EL2 (FEAT_FGT) */
	uint64_t hdfgwtr, hyp_hdfgwtr;        /* HDFGWTR_EL2 (FEAT_FGT) */
	bool pmu_ppi_active; /* the PMU PPI is active, mapped to the loaded vCPU's: not taken
				again until that vCPU deactivates it (GICv3 ICH_LR<n>_EL2.HW) */
	uint64_t id[64];     /* ID group (slot = CRm * 8 + Op2) */
	struct sim_pmu pmu;
	struct sim_amu amu;
	unsigned level;          /* frequency level: cfg.cpu_khz[level] */
	uint64_t time, time_rem; /* system counter ticks this pCPU has run, and the
					 remainder in kHz-cycles */
	uint64_t next_dvfs;      /* time of the next frequency change */
	uint64_t amu_marked;     /* stats.traps at the last AMU truth mark */
	struct sim_vcpu *cur;    /* vCPU loaded and running, or NULL */
	unsigned rr;             /* round-robin cursor */
	struct sim_cpu_truth truth;
	struct sim_cpu_stats stats;
};

struct sim_vm {
	struct pv_vm pv;
	int err; /* pv_vm_init result */
	unsigned idx, nvcpus;
};

struct sim_irq_log {
	unsigned taken;       /* handler runs */
	unsigned empty;       /* handler runs that found PMOVSSET = 0 */
	unsigned stuck;       /* line still high after the handler acknowledged */
	unsigned failed;      /* handler accesses that did not complete */
	uint64_t handled[32]; /* overflow bits acknowledged, per counter */
};

struct sim_vcpu {
	struct pv_vcpu pv; /* pv.plat points here */
	struct sim_machine *m;
	struct sim_vm *vm;
	struct sim_cpu *cpu; /* pCPU it is assigned to */
	unsigned idx;
	struct sim_prog *prog;
	size_t pc;
	bool in_work;         /* the op at pc is a WORK op cut by a switch point */
	struct sim_work rest; /* its remaining part */
	uint64_t x[31];       /* general registers */
	unsigned el;
	bool done;
	bool line[32];      /* virtual PPI levels (pv_plat_virq_set) */
	bool pmu_mapped;    /* line[PV_INTID_PMU] is the physical PPI, mapped (passthrough) */
	unsigned rises[32]; /* rising edges */
	unsigned virq_calls;
	struct sim_irq_log irq;
	struct sim_truth truth;
	uint64_t xzr_clobbered;   /* pv_trap calls that wrote past x30 */
	struct sim_amu_truth amu; /* AMU events while it was the running vCPU */
	/* Caller's array of prog->n entries, or NULL: amu_at[i] is `amu` at the instant the
	 * AMU counter read of op i took effect: when the guest's MRS read the hardware, or,
	 * trapped, when the library read the physical counter for it. */
	struct sim_amu_truth *amu_at;
};

struct sim_machine {
	struct sim_config cfg;
	struct pv_hw hw;
	struct sim_cpu cpu[SIM_MAX_CPUS];
	struct sim_vm vm[SIM_MAX_VMS];
	struct sim_vcpu vcpu[SIM_MAX_VCPUS];
	unsigned nvms, nvcpus;
	uint64_t rng;
	uint64_t seq;          /* ops executed, machine-wide */
	struct sim_mpam *mpam; /* the MSCs (sim/msc.h) pv_plat_mmio_* reach, or NULL */
	struct sim_mpam_machine *mpam_machine; /* MPAM in the run (cfg.mpam), or NULL */
	struct sim_spe_machine *spe_machine;   /* SPE and memory (cfg.spe), or NULL */
};

/* ---- machine.c ---- */
/* 1 pCPU; PMUv3p5 with 6 counters and every modelled event; AArch64 only; no EL3; no host
 * counters; slices of 2000..20000 cycles; seed 1. */
void sim_config_default(struct sim_config *c);
/* Builds the machine and runs the library's probe and per-pCPU setup. Returns 0 or the
 * negative pv_hw_probe error (or PV_ERR_UNSUPPORTED for a configuration out of range). */
int sim_init(struct sim_machine *m, const struct sim_config *c);
/* pv_vm_init; returns the VM index, or the negative library error. */
int sim_add_vm(struct sim_machine *m, const struct pv_vm_config *cfg);
/* pv_vcpu_init; the vCPU starts at EL1 on pCPU `cpu`. Returns its index or -1. */
int sim_add_vcpu(struct sim_machine *m, unsigned vm, unsigned cpu, struct sim_prog *prog);
/* Value of host counter k (0 = the lowest host counter) on pCPU cpu, read at EL2. */
uint64_t sim_host_counter(struct sim_machine *m, unsigned cpu, unsigned k);
uint32_t sim_host_event(const struct sim_machine *m, unsigned k);

/* ---- sched.c ---- */
/* One time slice on every pCPU that has something to run; false when all are idle. */
bool sim_step(struct sim_machine *m);
/* Steps until every program has finished. */
void sim_run(struct sim_machine *m);
/* Moves a vCPU to another pCPU (put first if it is loaded). */
void sim_migrate(struct sim_machine *m, unsigned vcpu, unsigned cpu);
/* Powers pCPU `cpu` down and up again (PSCI CPU_SUSPEND with power loss) with its vCPU, if
 * any, still loaded: the hypervisor calls pv_pcpu_suspend/resume around it. The AMU and the
 * EL2 controls lose their state; the PMU model does not (not modelled across it). */
void sim_power_cycle(struct sim_machine *m, unsigned cpu);
uint64_t sim_rand(struct sim_machine *m);

/* ---- cpu.c ---- */
/* How a guest access from `el` is routed by the hardware (Arm ARM D24 accessibility
 * pseudocode: UNDEFINED first, then the EL0 PMUSERENR check to EL1, then the EL2 traps). */
enum sim_route { SIM_ROUTE_DIRECT, SIM_ROUTE_UNDEF, SIM_ROUTE_EL1, SIM_ROUTE_EL2 };
enum sim_route sim_cpu_route(struct sim_cpu *c, uint32_t key, bool is_read, unsigned el);
/* HDFGRTR_EL2 (`write` false) or HDFGWTR_EL2 in force (the hypervisor's, with the running
 * vCPU's trap words applied at its load, and what EL2 wrote since); 0 without FEAT_FGT.
 * Inline: cpu.c and spe_machine.c both ask. */
static inline uint64_t sim_cpu_fgt(const struct sim_cpu *c, bool write)
{
	if (!c->m->cfg.fgt)
		return 0;
	return write ? c->hdfgwtr : c->hdfgrtr;
}
/* A register access executed on the pCPU from exception level `el` (Non-secure). */
enum sim_acc sim_cpu_read(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t *val);
enum sim_acc sim_cpu_write(struct sim_cpu *c, unsigned el, uint32_t key, uint64_t val);
/* Work executed on the pCPU at (el, secure): counted by the PMU. Truth is the caller's. */
void sim_cpu_exec(struct sim_cpu *c, unsigned el, bool secure, const struct sim_work *w);
/* Hypervisor work at EL2: `insts` instructions of SIM_PROF_HYP, plus one ERET if `eret`. */
void sim_cpu_el2_work(struct sim_cpu *c, uint64_t insts, bool eret);
/* An exception taken from the running guest (counted at the EL it is taken from). */
void sim_cpu_guest_exception(struct sim_cpu *c, struct sim_vcpu *v);
/* Takes the physical PMU and SPE interrupts at EL2 while their levels are high. */
void sim_cpu_check_irq(struct sim_cpu *c);
/* A guest access trapped to EL2, handed to pv_trap: the machine's only trap entry. */
enum pv_trap_result sim_cpu_trap(struct sim_cpu *c, struct sim_vcpu *v, uint64_t esr,
				 unsigned el, uint64_t *regs);

/* ---- guest.c ---- */
/* Runs v (loaded on its pCPU) for about `budget` cycles; returns true if it must leave the
 * pCPU now (finished, or migrated). */
bool sim_guest_run(struct sim_vcpu *v, uint64_t budget);
/* The physical interrupts at EL2 (sim_cpu_check_irq), then the running guest's SPE driver. */
void sim_guest_check_irq(struct sim_cpu *c);

/* ---- idregs.c ---- */
void sim_id_init(uint64_t id[64], const struct sim_config *c);

#endif
