/* SPDX-License-Identifier: MIT */
/*
 * perfvisor: the performance-monitoring half of an Arm EL2 hypervisor.
 *
 * The caller owns all memory: it allocates one struct pv_hw for the machine, one struct
 * pv_pcpu per physical CPU, one struct pv_vm per VM and one struct pv_vcpu per vCPU, and calls
 * the entry points below from its exception vectors and its vCPU scheduler.
 *
 *   pv_pcpu_init()  each pCPU, once          pv_hw_probe()  once, on any pCPU
 *   pv_pcpu_setup() each pCPU, after probe   pv_vm_init()   per VM; pv_vcpu_init() per vCPU
 *   pv_trap()       on every EC 0x18 trap    pv_irq()       on a physical PPI taken at EL2
 *   pv_vcpu_load()  before running a vCPU    pv_vcpu_put()  after it stops running
 *   pv_pcpu_suspend() before a pCPU loses power, pv_pcpu_resume() when it has it again
 *   pv_vcpu_release() when a vCPU is destroyed, pv_vm_release() when its VM is, after them
 *
 * The hypervisor writes the vCPU's trap words (v->traps) into MDCR_EL2, CPTR_EL2 and HCR_EL2
 * on entry, combined with the fields it owns itself (see struct pv_trap_words).
 */
#ifndef PERFVISOR_PERFVISOR_H
#define PERFVISOR_PERFVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/sysreg.h"
#include "perfvisor/vamu.h"
#include "perfvisor/vspe.h"
#include "perfvisor/vmpam.h"
#include "perfvisor/vpmu.h"

/* Features a VM can be given. A feature a VM does not have is hidden in its ID registers and
 * its registers UNDEF. */
#define PV_FEAT_PMU (1u << 0)
#define PV_FEAT_SPE (1u << 1)
#define PV_FEAT_AMU (1u << 2)
#define PV_FEAT_MPAM (1u << 3)

/* Errors returned by the init functions (negative), described by pv_strerror(). */
enum pv_err {
	PV_OK = 0,
	PV_ERR_NO_PMU = -1,        /* PMU requested, hardware has no PMUv3 */
	PV_ERR_PMU_VERSION = -2,   /* requested PMU version not offered or above hardware */
	PV_ERR_PMU_COUNTERS = -3,  /* more counters than the hardware leaves to guests */
	PV_ERR_HOST_COUNTERS = -4, /* host reservation exceeds the physical counters */
	PV_ERR_FILTER_RANGE = -5,  /* filter range outside the event space */
	PV_ERR_FILTER_COUNT = -6,  /* too many filter ranges */
	PV_ERR_FILTER_ACTION = -7, /* filter action neither ALLOW nor DENY */
	PV_ERR_FEATURE = -8,       /* feature requested that the hardware lacks */
	PV_ERR_UNSUPPORTED = -9,   /* feature perfvisor does not offer yet */
	PV_ERR_HPMN0 = -10,        /* all counters reserved for the host without FEAT_HPMN0 */
	PV_ERR_AMU_VERSION = -11,  /* AMU version not v1/v1p1, or above the hardware's */
	PV_ERR_AMU_AUX = -12,      /* auxiliary AMU counters the hardware cannot give */
	PV_ERR_MPAM_SYS = -13,     /* MPAM hardware, but no MSC management set up (pv_hw) */
	PV_ERR_SPE_VERSION = -14,  /* SPE version not v1/v1p1/v1p2, or above the hardware's */
	PV_ERR_SPE_BUFFER = -15,   /* SPE max_buffer zero, not 4 KiB aligned, or too large */
	PV_ERR_VCPUS_LIVE = -16,   /* pv_vm_release with vCPUs not released */
	/* -32 .. -43: PV_VMPAM_ERR_* (vmpam.h), also described by pv_strerror() */
};
const char *pv_strerror(int err);

/* The physical machine, read once through the platform (pv_hw_probe). Homogeneous pCPUs. */
struct pv_hw {
	uint64_t id[64]; /* ID group, slot = CRm * 8 + Op2 (PV_ID_SLOT) */
	uint64_t pmcr;   /* PMCR_EL0 at probe: IMP, IDCODE, N */
	uint64_t pmceid0, pmceid1, pmmir;
	uint8_t pmu_version;   /* ID_AA64DFR0_EL1.PMUVer, PV_PMUVER_NI if none */
	uint8_t pmu_counters;  /* physical PMCR_EL0.N */
	uint8_t host_counters; /* counters reserved for the host: [hpmn, pmu_counters) */
	uint8_t hpmn;          /* MDCR_EL2.HPMN: counters [0, hpmn) are the guests' */
	bool el3, sel2, rme, aarch32;
	bool trbe, trf; /* trace buffer / trace filter present (their traps are set) */
	bool spe, amu, amuv1p1, mpam;
	uint64_t mpamidr; /* MPAMIDR_EL1, read only when MPAM is implemented */
	/* MPAM for VMs, set by the hypervisor after pv_vmpam_init(): the machine's MSCs and the
	 * pCPU their MMIO is reached from. NULL: VMs get no PARTIDs of their own (MPAM hidden). */
	struct pv_vmpam_sys *mpam_sys;
	struct pv_pcpu *mpam_cpu;
	bool fgt;               /* FEAT_FGT (ID_AA64MMFR0_EL1.FGT) */
	struct pv_hw_amu amuhw; /* AMU identification, read only when amu (vamu.h) */
	struct pv_hw_spe spehw; /* SPE identification, read only when spe (vspe.h) */
};

struct pv_vm_config {
	uint32_t features; /* PV_FEAT_* */
	struct pv_pmu_config pmu;
	struct pv_amu_config amu;
	struct pv_spe_config spe;
	struct pv_vmpam_config mpam; /* PARTIDs, caps, cache portions (with pv_hw.mpam_sys) */
};

/* Trap configuration, computed per VM and copied to each vCPU. Every field listed in the
 * *_owned masks is set explicitly; the hypervisor keeps its own fields outside them:
 *   MDCR_EL2 = (hyp & ~mdcr_el2_owned) | mdcr_el2
 *   CPTR_EL2 = (hyp & ~cptr_el2_owned) | cptr_el2
 *   HCR_EL2  = (hyp & ~hcr_el2_owned)  | hcr_el2                                             */
struct pv_trap_words {
	uint64_t mdcr_el2, mdcr_el2_owned;
	uint64_t cptr_el2, cptr_el2_owned;
	uint64_t hcr_el2, hcr_el2_owned;
	/* Only when the hardware implements MPAM (pv_hw.mpam); MPAMHCR_EL2 only with HAS_HCR. */
	uint64_t mpam2_el2, mpam2_el2_owned;
	uint64_t mpamhcr_el2, mpamhcr_el2_owned;
	/* Only with FEAT_FGT and the AMU: HAFGRTR_EL2 = (hyp & ~owned) | hafgrtr_el2. */
	uint64_t hafgrtr_el2, hafgrtr_el2_owned;
	/* Only with SPE: PMSCR_EL2 = (hyp & ~owned) | pmscr_el2 (no PA, no physical timestamp,
	 * no CONTEXTIDR_EL2, no EL2 sampling while a guest runs); with FEAT_FGT too,
	 * HDFGRTR_EL2 = (hyp & ~owned) | hdfgrtr_el2 (PMBIDR_EL1 reads trap). */
	uint64_t pmscr_el2, pmscr_el2_owned;
	uint64_t hdfgrtr_el2, hdfgrtr_el2_owned;
};

#define PV_REGS_MAX 64 /* entries in the register table (trap/trap.c checks) */

/* Which part of the register space a trap was for (per-vCPU statistics). */
enum pv_trap_kind {
	PV_KIND_PMU,
	PV_KIND_SPE,
	PV_KIND_AMU,
	PV_KIND_MPAM,
	PV_KIND_ID,
	PV_KIND_COUNT
};

struct pv_vm {
	struct pv_vm_config cfg;
	const struct pv_hw *hw;
	/* Trap-time gate of each register-table entry, precomputed by pv_vm_init: 0 when the
	 * VM lacks the register (hidden group, later version), else the number of valid
	 * indices (1 for a single register, N for PMEVCNTR<n>, ...). */
	uint8_t reg_limit[PV_REGS_MAX];
	uint64_t id_view[64]; /* what the guest reads from each ID group slot */
	struct pv_vm_pmu pmu;
	struct pv_vm_amu amu;
	struct pv_vm_spe spe;
	struct pv_vm_mpam mpam; /* its PARTIDs and limits (mpam.sys NULL: none) */
	struct pv_trap_words traps;
	uint32_t nr_vcpus; /* initialised and not released (pv_vm_release waits for 0) */
};

struct pv_pcpu {
	void *plat;                /* the platform's per-CPU context */
	const struct pv_hw *hw;    /* set by pv_pcpu_setup */
	struct pv_vcpu *loaded;    /* vCPU currently loaded on this pCPU, or NULL */
	struct pv_vcpu *suspended; /* the one loaded at pv_pcpu_suspend, back at resume */
	uint32_t index;            /* the pCPU's number, set by the hypervisor after
				       pv_pcpu_init: indexes per-pCPU tables (vmpam's cpu_node) */
};

struct pv_vcpu_stats {
	uint64_t traps[PV_KIND_COUNT]; /* traps taken for registers of each group, whatever the
					  answer (the integration sees the answers) */
	uint64_t loads;                /* pv_vcpu_load calls */
};

struct pv_vcpu {
	struct pv_vm *vm;
	struct pv_pcpu *cpu;       /* where it is loaded, NULL when not loaded */
	struct pv_pcpu *resume_on; /* the powered-down pCPU it was loaded on, or NULL */
	void *plat;                /* the platform's per-vCPU context */
	uint32_t id;
	bool live; /* between pv_vcpu_init and pv_vcpu_release */
	/* The VM's reg_limit, copied by pv_vcpu_init: every trap reads its gate here, one load
	 * from the vCPU instead of two through vm. */
	uint8_t reg_limit[PV_REGS_MAX];
	struct pv_trap_words traps;
	struct pv_vpmu pmu;
	struct pv_vamu amu;
	struct pv_vspe spe;
	struct pv_vmpam mpam;
	struct pv_vcpu_stats stats;
	uint64_t discard; /* where reads into XZR (Rt = 31) go */
};

enum pv_trap_result {
	PV_TRAP_HANDLED, /* emulated: resume the guest at ELR_EL2 + 4 */
	PV_TRAP_UNDEF,   /* inject an Undefined Instruction exception (EC 0x00) to guest EL1 */
	PV_TRAP_EL1_SYSREG, /* an EL0 access the guest's own PMUSERENR forbids: inject the same
			       EC 0x18 syndrome to guest EL1, as the hardware would have */
	PV_TRAP_UNKNOWN,    /* not a register perfvisor owns: the hypervisor's to handle */
};

enum pv_irq_result {
	PV_IRQ_NOT_MINE,     /* not an interrupt perfvisor handles */
	PV_IRQ_HANDLED,      /* fully handled */
	PV_IRQ_HOST_PENDING, /* handled for guests; host-reserved counters overflowed too */
};

void pv_pcpu_init(struct pv_pcpu *cpu, void *plat);
/* Reads the machine through `cpu`; reserves `host_counters` counters at the top for the
 * host. */
int pv_hw_probe(struct pv_hw *hw, struct pv_pcpu *cpu, unsigned host_counters);
/* Puts the pCPU's guest partition of the PMU in a known, quiet state. */
void pv_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw);
int pv_vm_init(struct pv_vm *vm, const struct pv_hw *hw, const struct pv_vm_config *cfg);
void pv_vcpu_init(struct pv_vcpu *v, struct pv_vm *vm, uint32_t id, void *plat);

/* EC 0x18 trap from the guest. `el` is the exception level the access came from (0 or 1);
 * `x` holds the guest's x0..x30 (31 entries; Rt = 31 is XZR). The arguments come in the
 * order the register handlers take theirs (el, then the operand), so that no register
 * moves on the way. */
enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, unsigned el, uint64_t *x);
/* The same for a hypervisor that has already read EC = 0x18: `esr` is ESR_EL2 as read, or
 * its ISS alone (only ISS[21:0] is looked at). */
enum pv_trap_result pv_trap_sys64(struct pv_vcpu *v, uint64_t esr, unsigned el, uint64_t *x);

void pv_vcpu_load(struct pv_vcpu *v, struct pv_pcpu *cpu);
void pv_vcpu_put(struct pv_vcpu *v);
enum pv_irq_result pv_irq(struct pv_pcpu *cpu, uint32_t intid);

/* A power-down of the pCPU (PSCI CPU_SUSPEND with power loss, CPU_OFF then CPU_ON): call
 * pv_pcpu_suspend() before it, with the pCPU's own registers still alive, and
 * pv_pcpu_resume() after it, before the vCPU that was loaded runs again. The loaded vCPU is
 * put and loaded again: its counters, buffers and labels survive, the hardware's do not
 * need to (firmware need not preserve AMEVCNTVOFF<g><n>_EL2, for one). */
void pv_pcpu_suspend(struct pv_pcpu *cpu);
void pv_pcpu_resume(struct pv_pcpu *cpu);

/* The end of a vCPU (put first if it is loaded; its SPE buffer is unpinned; it does not
 * come back with a powered-down pCPU) and, once all its vCPUs were released, of its VM (its
 * PARTIDs and monitors go back). The memory is the caller's again afterwards. The vCPUs of
 * a VM are created and released one at a time (pv_vcpu_init counts them in the VM). */
void pv_vcpu_release(struct pv_vcpu *v);
int pv_vm_release(struct pv_vm *vm); /* PV_ERR_VCPUS_LIVE, and nothing released, before */

#endif
