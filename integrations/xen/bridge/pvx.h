/* SPDX-License-Identifier: MIT */
/*
 * The bridge between perfvisor and a host whose build cannot include perfvisor's C11 headers
 * (Xen builds with -nostdinc and its own integer types): plain C types only, so the host's
 * glue includes this file and nothing else of perfvisor. The bridge (bridge.c) is built with
 * perfvisor's headers and the core, outside the host's build, into one archive the host
 * links. Every object is the host's memory, of the size the bridge says; every function runs
 * at EL2 on the pCPU it names (or the current one), with interrupts masked except pvx_boot
 * and pvx_pcpu_up (a CPU's bring-up, before any vCPU runs on it).
 */
#ifndef PVX_H
#define PVX_H

/* pvx_trap() results: what the host does with the guest's access. */
#define PVX_HANDLED 0 /* emulated: the guest resumes at the next instruction */
#define PVX_UNDEF 1   /* inject an Undefined Instruction exception to guest EL1 */
#define PVX_EL1_SYSREG                                                                         \
	2             /* an EL0 access the guest's EL1 forbids: inject the same EC 0x18
			    syndrome to guest EL1, as the hardware would have */
#define PVX_UNKNOWN 3 /* not perfvisor's register: the host answers it as before */

/* pvx_irq() results. */
#define PVX_IRQ_NOT_MINE 0
#define PVX_IRQ_HANDLED 1
#define PVX_IRQ_HOST_PENDING 2 /* handled for guests; a host-reserved counter overflowed too */

#define PVX_PMU_IRQ 23 /* the PMU overflow interrupt (PPI 7), physical and virtual */
#define PVX_MAX_FILTERS 32

/* One range of the event filter, with KVM's semantics: the first range sets the default (an
 * ALLOW range denies everything else, a DENY range allows everything else), later ranges
 * override it for their events. */
struct pvx_filter {
	unsigned short base, count;
	unsigned char deny;
};

struct pvx_vm_config {
	unsigned int pmu_counters; /* PMCR_EL0.N the guest sees; 0: every counter it may have */
	unsigned int nr_filters;
	struct pvx_filter filters[PVX_MAX_FILTERS];
};

/* Sizes of the objects the host allocates (zeroed) for a pCPU, a VM and a vCPU. */
unsigned long pvx_pcpu_size(void);
unsigned long pvx_vm_size(void);
unsigned long pvx_vcpu_size(void);

/* The boot pCPU: reads the machine, keeps `host_counters` counters for the host. Returns 0 or
 * a negative perfvisor error (pvx_strerror). */
int pvx_boot(void *pcpu, void *host_pcpu, unsigned int host_counters);
/* Every other pCPU, once it runs, after pvx_boot: its PMU partition put in a known state. */
void pvx_pcpu_up(void *pcpu, void *host_pcpu, unsigned int index);
const char *pvx_strerror(int err);

/* A VM with a virtual PMU: 0 or a negative error; the guest's PMCR_EL0.N (pvx_vm_counters). */
int pvx_vm_init(void *vm, const struct pvx_vm_config *cfg);
unsigned int pvx_vm_counters(const void *vm);
/* Its vCPU `id`; `host_vcpu` is what pvx_host_virq() is handed for it. */
void pvx_vcpu_init(void *vcpu, void *vm, unsigned int id, void *host_vcpu);
/* Merges perfvisor's fields of MDCR_EL2 and HCR_EL2 into the host's values for the vCPU. */
void pvx_vcpu_traps(const void *vcpu, unsigned long *mdcr_el2, unsigned long *hcr_el2);

/* An EC 0x18 trap: `esr` as read, `el` the guest's EL (0 or 1), `x` its x0..x30. The ID group
 * is the host's except ID_AA64DFR0_EL1 and ID_DFR0_EL1, perfvisor's view of the PMU. */
int pvx_trap(void *vcpu, unsigned long esr, unsigned int el, unsigned long *x);
void pvx_load(void *vcpu, void *pcpu);
void pvx_put(void *vcpu);
int pvx_irq(void *pcpu, unsigned int intid);
/* After PVX_IRQ_HOST_PENDING, for a host that does not count with the counters it kept: their
 * overflow flags cleared and their interrupt enables off, so the level drops. */
void pvx_host_overflow_silence(void *pcpu);
/* A synchronous exception the host injects into the guest's EL1, taken from PSTATE `spsr`
 * with the guest's SCTLR_EL1 (el2/el1_entry.h): returns the offset from VBAR_EL1 the guest
 * resumes at; *pstate is its PSTATE there. */
unsigned long pvx_el1_sync_entry(unsigned long spsr, unsigned long sctlr_el1,
				 unsigned long *pstate);

/* The host completed by emulation a load or store of the loaded vCPU at `el` (0 or 1), and
 * skipped it: on QEMU 7.2, which does not count it, it is counted as the guest's
 * (el2/qemu72.h); elsewhere nothing happens. */
void pvx_retire_emulated(void *vcpu, unsigned int el);

/* Per-vCPU figures for the host's report and its debug-key dump: plain counters that only
 * grow, each a naturally aligned 64-bit word (a pCPU may read another's vCPU's, and gets a
 * value the counter had). traps_other: SPE, AMU and MPAM together. */
struct pvx_vcpu_stats {
	unsigned long traps_pmu, traps_id, traps_other, loads;
	unsigned long traps_spe, traps_amu, traps_mpam, pmu_irqs;
};
void pvx_vcpu_stats(const void *vcpu, struct pvx_vcpu_stats *out);

/* Live figures records (docs/records.md): the host's side of a vCPU's record, in plain
 * types (struct pv_record_host). Its words and the VM's name as that struct says. */
#define PVX_RECORD_MAX 4608 /* PV_RECORD_MAX: a record always fits */
#define PVX_RECORD_MAX_EXITS 32
struct pvx_record_exit {
	const char *kind; /* [a-z0-9-]{1,23} */
	unsigned long exits, el2_instructions;
};
struct pvx_record_host {
	unsigned long seq, time_ns, switches;
	const char *vm_name; /* 1 to 63 bytes */
	const char *state;   /* "running", "waiting", "ended", "stopped" */
	unsigned int nr_exits;
	const struct pvx_record_exit *exits;
};
/* The vCPU's record, one line with its newline, NUL-terminated, into buf: its length, or 0
 * (an empty string) when it does not fit or the host's side is not as above. On the vCPU's
 * pCPU while it is loaded (its counters are the hardware's there), or while it is loaded
 * nowhere and cannot be (the host excludes its load); interrupts masked. */
unsigned long pvx_record(void *vcpu, char *buf, unsigned long size,
			 const struct pvx_record_host *host);

/* The end of a vCPU, then of its VM once all its vCPUs ended (0, or a negative error and
 * nothing released while vCPUs remain). */
void pvx_vcpu_release(void *vcpu);
int pvx_vm_release(void *vm);

/* QEMU 7.2 notices an event counter's overflow only at a PMU operation or an exception-level
 * change: while the PMU can interrupt for an event counter (pvx_pmu_irq_armed), a host on
 * QEMU (pvx_on_qemu) takes a periodic exit, the overflow poll (el2/qemu72.h). */
int pvx_on_qemu(void);
int pvx_pmu_irq_armed(const void *pcpu);

/* ---- implemented by the host ---- */
/* Drive the level of virtual interrupt `intid` of the vCPU. */
void pvx_host_virq(void *host_vcpu, unsigned int intid, int level);
/* The PMU of the pCPU running (the `host_pcpu` it was given) can now interrupt for an event
 * counter: on QEMU, the host starts its overflow poll. */
void pvx_host_pmu_irq_armed(void *host_pcpu);

#endif
