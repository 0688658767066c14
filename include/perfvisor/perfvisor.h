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

#include "perfvisor/api.h"
#include "perfvisor/events.h"
#include "perfvisor/sysreg.h"
#include "perfvisor/vamu.h"
#include "perfvisor/vspe.h"
#include "perfvisor/vmpam.h"
#include "perfvisor/vpmu.h"

PV_BEGIN_DECLS

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

/**
 * pv_strerror() - Describe an error code of the init functions.
 * @err: PV_OK, a PV_ERR_*, or a PV_VMPAM_ERR_* (-32 .. -43), which pv_vmpam_strerror()
 *       describes.
 *
 * Return: a constant string, never NULL: "success" for PV_OK, "unknown error" for a code
 * that is none of these.
 */
PV_API const char *pv_strerror(int err);

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
	bool fgt; /* FEAT_FGT (ID_AA64MMFR0_EL1.FGT) */
	/* Set by the hypervisor after pv_hw_probe() when it applies the trap words'
	 * hdfgrtr_el2/hdfgwtr_el2 at load and the hardware takes every trap they set
	 * (PV_FGT_DIRECT_*, vpmu.h): direct access needs it (vpmu.md), since without those
	 * traps a guest would write its event types untrapped. */
	bool fgt_words;
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
 *   HCR_EL2  = (hyp & ~hcr_el2_owned)  | hcr_el2
 * A vCPU's copy can change afterwards: with direct sampling controls (vspe.h) its first SPE
 * access clears MDCR_EL2.TPMS in v->traps and in the MDCR_EL2 in force (through
 * pv_plat_sysreg_write, the hypervisor's fields kept), so load v->traps, not vm->traps.     */
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
	 * no CONTEXTIDR_EL2, no EL2 sampling while a guest runs). */
	uint64_t pmscr_el2, pmscr_el2_owned;
	/* Only with FEAT_FGT: HDFGRTR_EL2 = (hyp & ~owned) | hdfgrtr_el2 (with SPE, PMBIDR_EL1
	 * reads trap), and HDFGWTR_EL2 likewise. */
	uint64_t hdfgrtr_el2, hdfgrtr_el2_owned;
	uint64_t hdfgwtr_el2, hdfgwtr_el2_owned;
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
	uint64_t pmu_irqs;             /* rising edges of the virtual PMU interrupt */
};

struct pv_vcpu {
	/* First and second, so that a host's exception entry finds them at fixed offsets: the
	 * reads it may serve, and where it counts them (vpmu.h, struct pv_vpmu_fast). */
	struct pv_vpmu_fast fast;
	struct pv_vcpu_stats stats;
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
	PV_IRQ_GUEST_MAPPED, /* the loaded vCPU's own (passthrough): present it as its INTID,
				mapped, and leave it active (pv_irq) */
};

/**
 * pv_pcpu_init() - Set up the library's state of a physical CPU.
 * @cpu: the pCPU's structure, caller's memory; every field is overwritten.
 * @plat: the platform's per-CPU context (cpu->plat), handed back untouched through every
 *        platform call made for this pCPU.
 *
 * Call it once per pCPU, before any other call takes @cpu. It leaves cpu->index 0: a
 * hypervisor that numbers its pCPUs (for vmpam's cpu_node) sets it afterwards.
 */
PV_API void pv_pcpu_init(struct pv_pcpu *cpu, void *plat);

/**
 * pv_hw_probe() - Read the machine, and reserve the host's PMU counters.
 * @hw: the machine's structure, caller's memory; cleared, then filled.
 * @cpu: the pCPU the machine is read through, pv_pcpu_init() done; the pCPUs are taken to
 *       be alike.
 * @host_counters: event counters reserved for the host, at the top: guests get [0, HPMN)
 *                 and the cycle counter, the host keeps [HPMN, N).
 *
 * Reads the ID group (CRm 1..7) through @cpu and, for each feature present, its
 * identification: MPAMIDR_EL1; the AMU's configuration, enables and event types; SPE's
 * PMBIDR_EL1 and, when EL3 lets the Non-secure side own SPE, PMSIDR_EL1; the PMU's PMCR_EL0,
 * PMCEID0/1_EL0 and PMMIR_EL1. With a usable SPE, it learns which event-filter bits exist by
 * writing all ones, then zero, to PMSEVFR_EL1 (and PMSNEVFR_EL1). Since @hw is cleared, what
 * the hypervisor sets itself (mpam_sys and mpam_cpu; amuhw.voff cleared when EL3 does not
 * set SCR_EL3.AMVOFFEN) is set after the probe.
 *
 * Context: once, on any pCPU, before pv_pcpu_setup() and pv_vm_init().
 * Return: PV_OK; PV_ERR_HOST_COUNTERS if @host_counters is above 31, above PMCR_EL0.N, or
 * not 0 without a PMUv3; PV_ERR_HPMN0 if it is every counter and FEAT_HPMN0 is missing. On
 * error @hw is partly filled and must not be used.
 */
PV_API int pv_hw_probe(struct pv_hw *hw, struct pv_pcpu *cpu, unsigned host_counters);

/**
 * pv_pcpu_setup() - Put the pCPU's guest partition of the PMU in a known, quiet state.
 * @cpu: the pCPU, pv_pcpu_init() done; cpu->hw is set to @hw.
 * @hw: the machine as pv_hw_probe() read it; kept by pointer.
 *
 * With a PMU, the guests' event counters [0, HPMN) and the cycle counter are disabled, their
 * overflow interrupts masked and their overflow flags cleared (only their bits are written),
 * PMUSERENR_EL0 becomes EN alone and PMCR_EL0 0 (LC alone where no EL has AArch32). With an
 * AMU, AMUSERENR_EL0 becomes EN; with a usable SPE, PMSCR_EL1, PMBLIMITR_EL1 and PMBSR_EL1
 * are cleared. pv_pcpu_resume() runs it again after a power-down.
 *
 * Context: on @cpu itself, after pv_hw_probe(), before a vCPU is loaded there.
 */
PV_API void pv_pcpu_setup(struct pv_pcpu *cpu, const struct pv_hw *hw);

/**
 * pv_vm_init() - Set up a VM: check its configuration against the machine, compute its views.
 * @vm: the VM, caller's memory; every field is overwritten.
 * @hw: the machine as pv_hw_probe() read it; kept by pointer, so it must outlive the VM.
 * @cfg: what the VM is given; copied (vm->cfg), so the caller may free it afterwards.
 *
 * Derives once what the trap paths need: the PMU, AMU and SPE views, the ID register views,
 * the trap words (vm->traps) and which registers the VM has. Where the hypervisor manages
 * MPAM (hw->mpam_sys set), every VM also gets PARTIDs of its own, limits and monitors
 * (pv_vmpam_partition_init()), with or without PV_FEAT_MPAM: that step comes last, being the
 * only one with effects beyond the VM. Create the vCPUs afterwards (pv_vcpu_init() copies
 * from the VM) and do not change the VM until pv_vm_release().
 *
 * Context: with hw->mpam_sys set, serialised with the other calls that take it (the MSCs
 * are programmed through hw->mpam_cpu).
 * Return: PV_OK, or a negative PV_ERR_* or PV_VMPAM_ERR_* (pv_strerror() describes it):
 * PV_ERR_UNSUPPORTED for a feature bit perfvisor does not know or an SPE it cannot use,
 * PV_ERR_FEATURE for a feature the hardware lacks, PV_ERR_MPAM_SYS for MPAM without
 * hw->mpam_sys, a PMU, AMU or SPE configuration error, or an error of the VM's partition.
 * On error the VM holds nothing beyond its own memory (no PARTID, no monitor), and @vm is
 * not a VM: pass it neither to pv_vcpu_init() nor to pv_vm_release().
 */
PV_API int pv_vm_init(struct pv_vm *vm, const struct pv_hw *hw, const struct pv_vm_config *cfg);

/**
 * pv_vcpu_init() - Set up a vCPU of a VM, in its reset state.
 * @v: the vCPU, caller's memory; every field is overwritten.
 * @vm: its VM, pv_vm_init() succeeded; kept by pointer, so it must outlive the vCPU.
 * @id: the vCPU's number, kept in v->id for the hypervisor (perfvisor does not use it).
 * @plat: the platform's per-vCPU context (v->plat), handed back untouched through every
 *        platform call made for this vCPU.
 *
 * Copies what its traps need from the VM (the trap words into v->traps, and which registers
 * the VM has) and counts the vCPU in the VM until pv_vcpu_release(). With SPE, give it its
 * pin store next (pv_vspe_vcpu_pins()).
 *
 * Context: the vCPUs of a VM are created and released one at a time (the VM's count of them
 * is not atomic).
 */
PV_API void pv_vcpu_init(struct pv_vcpu *v, struct pv_vm *vm, uint32_t id, void *plat);

/**
 * pv_trap() - Handle a trapped MRS or MSR of the guest (EC 0x18).
 * @v: the vCPU that trapped.
 * @esr: ESR_EL2 as read; an EC (ESR_EL2[31:26]) other than 0x18 is PV_TRAP_UNKNOWN.
 * @el: the exception level the access came from, 0 or 1 (anything but 0 is taken as 1).
 * @x: the guest's x0..x30 (31 entries; Rt = 31 is XZR: a read is discarded, a write writes
 *     zero); a read writes x[Rt] only when the answer is PV_TRAP_HANDLED.
 *
 * The arguments come in the order the register handlers take theirs (@el, then the
 * operand), so that no register moves on the way. A trap of a register perfvisor owns is
 * counted in v->stats.traps, whatever the answer.
 *
 * Context: on the pCPU the vCPU is loaded on, if it is loaded.
 * Return: PV_TRAP_HANDLED (emulated: resume the guest at ELR_EL2 + 4); PV_TRAP_UNDEF (inject
 * an Undefined Instruction exception into guest EL1); PV_TRAP_EL1_SYSREG (an EL0 access the
 * guest's own PMUSERENR_EL0 or AMUSERENR_EL0 forbids, or an EL0 ID register read with
 * FEAT_IDST: inject @esr into guest EL1, as the hardware would have); PV_TRAP_UNKNOWN (not
 * EC 0x18, or not a register perfvisor owns: the hypervisor's to handle).
 */
PV_API enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, unsigned el, uint64_t *x);

/**
 * pv_trap_sys64() - pv_trap() for a hypervisor that has already read EC = 0x18.
 * @v: the vCPU that trapped.
 * @esr: ESR_EL2 as read, or its ISS alone: only ISS[21:0] is looked at, EC is not checked.
 * @el: the exception level the access came from, 0 or 1.
 * @x: the guest's x0..x30, as for pv_trap().
 *
 * Context: as for pv_trap().
 * Return: as pv_trap(); PV_TRAP_UNKNOWN only for a register perfvisor does not own.
 */
PV_API enum pv_trap_result pv_trap_sys64(struct pv_vcpu *v, uint64_t esr, unsigned el,
					 uint64_t *x);

/**
 * pv_vcpu_load() - Make a vCPU the one running on a pCPU, its state in the pCPU's registers.
 * @v: the vCPU.
 * @cpu: the pCPU it is about to run on.
 *
 * Nothing happens if @v is already loaded on @cpu. Otherwise a vCPU loaded on @cpu is put
 * first, and so is @v if it is still loaded elsewhere (a put the hypervisor forgot), so that
 * state is never lost or shared; that put runs on @cpu, though, so put a vCPU yourself, on
 * the pCPU it ran on, before loading it anywhere else. Switching is lazy: a vCPU that never
 * touched its PMU or its SPE registers costs those modules nothing. A load also ends the
 * vCPU's wait for a powered-down pCPU (pv_pcpu_suspend()); v->stats.loads counts it.
 *
 * Context: on @cpu, before entering the vCPU; write v->traps into the EL2 controls then.
 */
PV_API void pv_vcpu_load(struct pv_vcpu *v, struct pv_pcpu *cpu);

/**
 * pv_vcpu_put() - Take a vCPU's state out of the pCPU it is loaded on.
 * @v: the vCPU; if it is not loaded, only its wait for a powered-down pCPU is given up.
 *
 * SPE first, if the vCPU used it (sampling stopped, the buffer drained, saved and disabled),
 * then the PMU, if the vCPU touched it (its counters disabled, their overflows folded, their
 * values saved), and the AMU (its counts saved).
 *
 * Context: on the pCPU the vCPU is loaded on, after it stopped running there.
 */
PV_API void pv_vcpu_put(struct pv_vcpu *v);

/**
 * pv_irq() - Handle a physical PPI taken at EL2 that may be perfvisor's.
 * @cpu: the pCPU that took it, pv_pcpu_setup() done.
 * @intid: its INTID, acknowledged: PV_INTID_PMU (23) and PV_INTID_SPE (21) are perfvisor's.
 *
 * PMU overflow: the overflows of the loaded vCPU's counters are folded into its virtual
 * overflow status and cleared in hardware, and its virtual INTID 23 follows
 * (pv_plat_virq_set()); the host's counters' flags are left set. SPE: a buffer management
 * event of the loaded vCPU's buffer is reflected to the guest (virtual PMBSR_EL1 and
 * INTID 21), or repaired when it is a stage-2 fault.
 *
 * Context: on @cpu, with or without a vCPU loaded.
 * Return: PV_IRQ_NOT_MINE for any other INTID, and for an SPE interrupt when SPE is not
 * usable or the event pending is not a guest's (no guest buffer is running: it is the
 * host's); PV_IRQ_HOST_PENDING for a PMU interrupt for which host counters [HPMN, N)
 * overflowed too (their PMOVSSET_EL0 bits are left for the host to clear); PV_IRQ_HANDLED
 * otherwise, a late SPE interrupt (nothing pending) included. A PMU interrupt is never
 * PV_IRQ_NOT_MINE. PV_IRQ_GUEST_MAPPED for a PMU interrupt while a passthrough vCPU is
 * loaded (pv_pmu_config.passthrough) and its own level is high (PMCR_EL0.E, and an overflow
 * whose interrupt it enabled): the overflow is the guest's own, in the guest's own
 * registers, and nothing was changed; with its level low, PV_IRQ_HANDLED (a late one).
 * The host makes the vCPU's virtual INTID 23 pending, mapped to the physical one (GICv3
 * ICH_LR<n>_EL2.HW = 1, pINTID = 23), and does not
 * deactivate the physical interrupt: the guest's deactivation of the virtual one does, so
 * the next overflow needs no exit of its own. The physical interrupt is the vCPU's while
 * it is loaded: a host that puts the vCPU with it active deactivates it, and makes it
 * active again when it loads the vCPU with the mapped interrupt still in its list
 * registers.
 */
PV_API enum pv_irq_result pv_irq(struct pv_pcpu *cpu, uint32_t intid);

/**
 * pv_pcpu_suspend() - Prepare a pCPU for a power-down.
 * @cpu: the pCPU about to lose power.
 *
 * For a power-down of the pCPU (PSCI CPU_SUSPEND with power loss, CPU_OFF then CPU_ON): the
 * loaded vCPU is put and remembered, and pv_pcpu_resume() loads it again, so its counters,
 * buffers and labels survive and the hardware's need not (firmware need not preserve
 * AMEVCNTVOFF<g><n>_EL2, for one). With no vCPU loaded nothing happens: a second suspend
 * keeps what the first remembered.
 *
 * Context: on @cpu, before the power-down, with the pCPU's own registers still alive.
 */
PV_API void pv_pcpu_suspend(struct pv_pcpu *cpu);

/**
 * pv_pcpu_resume() - Set a pCPU up again after a power-down, and load its vCPU again.
 * @cpu: the pCPU, powered again.
 *
 * Runs pv_pcpu_setup() again (if it ran before the power-down) and loads the vCPU that
 * pv_pcpu_suspend() put, unless that vCPU was loaded elsewhere, put or released meanwhile.
 *
 * Context: on @cpu, after the power-down, before the vCPU that was loaded runs again.
 */
PV_API void pv_pcpu_resume(struct pv_pcpu *cpu);

/**
 * pv_vcpu_release() - End a vCPU.
 * @v: the vCPU; releasing it a second time does nothing.
 *
 * It is put first if it is loaded, its SPE buffer is unpinned (pv_vspe_release()), it does
 * not come back with a powered-down pCPU, and its VM no longer counts it. The memory is the
 * caller's again afterwards.
 *
 * Context: on the pCPU it is loaded on, if it is; the vCPUs of a VM are created and
 * released one at a time (pv_vcpu_init() counts them in the VM).
 */
PV_API void pv_vcpu_release(struct pv_vcpu *v);

/**
 * pv_vm_release() - End a VM, once all its vCPUs were released.
 * @vm: the VM.
 *
 * Its PARTIDs and monitors go back (pv_vmpam_partition_release()); the other modules hold
 * nothing beyond the VM's own memory, which is the caller's again afterwards.
 *
 * Context: with hw->mpam_sys set, serialised with the other calls that take it.
 * Return: PV_OK; PV_ERR_VCPUS_LIVE, with nothing released, while a vCPU of the VM is not
 * released (one may still be loaded).
 */
PV_API int pv_vm_release(struct pv_vm *vm);

PV_END_DECLS

#endif
