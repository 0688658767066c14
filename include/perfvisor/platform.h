/* SPDX-License-Identifier: MIT */
/*
 * The platform contract: the only way the core reaches hardware.
 *
 * The core never executes a privileged instruction and never touches memory it was not given.
 * An integration provides these functions, bound at link time (no function pointers on the hot
 * path). Implementations: el2/ (real MRS/MSR at EL2, for hyp/ and the Xen bridge) and sim/
 * (the machine model).
 * Every call is made with the pCPU (or vCPU) it concerns, so a platform needs no globals.
 */
#ifndef PERFVISOR_PLATFORM_H
#define PERFVISOR_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/api.h"

PV_BEGIN_DECLS

struct pv_pcpu;
struct pv_vcpu;

/*
 * Inline platforms. An integration that builds the core itself may define PV_PLATFORM_INLINE
 * as the name of a header of its own (-DPV_PLATFORM_INLINE='"plat_sysreg.h"'), included here.
 * That header defines PV_PLATFORM_HAS_SYSREG and the two register functions below as static
 * inline, so that a register known at compile time costs the core a single MRS or MSR; it may
 * also define PV_PLATFORM_HAS_PMEV and, for n < 31,
 *   uint64_t pv_plat_pmevcntr_read(struct pv_pcpu *cpu, unsigned n);
 *   void pv_plat_pmevcntr_write(struct pv_pcpu *cpu, unsigned n, uint64_t val);
 *   void pv_plat_pmevtyper_write(struct pv_pcpu *cpu, unsigned n, uint64_t val);
 * for the event counters the vPMU reaches by index (otherwise it names them by key).
 */
#ifdef PV_PLATFORM_INLINE
#include PV_PLATFORM_INLINE
#endif

/* The two register functions, out of line unless the header above defines them. */
#ifndef PV_PLATFORM_HAS_SYSREG
/**
 * pv_plat_sysreg_read() - Read a physical system register of the pCPU the call is made on.
 * @cpu: that pCPU; el2/ ignores it, as the call runs on the pCPU it names.
 * @reg: the register's ISS key (PV_SYSREG(...) in sysreg.h); indexed registers are named by
 *       their own key (PV_PMEVCNTR_EL0(n)), never through a selector register.
 *
 * The core uses the rows of the register database (arch/sysregs.txt) with an el2 access:
 * PMU, SPE, AMU, MPAM, the EL2 controls, the EL1 translation registers and the ID group
 * (Op0=3 Op1=0 CRn=0 CRm=1..7, reserved encodings read as zero). A register that would UNDEF
 * at EL2 reads 0 in sim/, and so do in el2/ those of SPE, the AMU or MPAM (and PMMIR_EL1
 * before PMUv3p4) on a CPU without them; both read 0 for a key they do not know.
 *
 * Return: the register's value.
 */
PV_PLATFORM uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg);

/**
 * pv_plat_sysreg_write() - Write a physical system register of the pCPU the call is made on.
 * @cpu: that pCPU, as for pv_plat_sysreg_read().
 * @reg: the register's ISS key, as for pv_plat_sysreg_read().
 * @val: the value to write.
 *
 * el2/ and sim/ ignore a write to a key they do not know, or to a register that reads 0 for
 * want of its feature (as for pv_plat_sysreg_read()).
 */
PV_PLATFORM void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val);
#endif

/**
 * pv_plat_virq_set() - Drive a virtual interrupt line of a vCPU.
 * @vcpu: the vCPU; it may or may not be loaded.
 * @intid: the line: PV_INTID_PMU (23) for the vPMU, PV_INTID_SPE (21) for the vSPE.
 * @level: level-sensitive: the line is asserted while it is true.
 *
 * Called only on a change of level. The platform keeps the line state and presents it
 * whenever the vCPU runs (for example through ICH_LR<n>_EL2).
 */
PV_PLATFORM void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level);

/**
 * pv_plat_mmio_read32() - Read 32 bits of device memory: an MPAM MSC register.
 * @cpu: the pCPU the access is made from.
 * @pa: the physical address.
 *
 * vmpam/ reads a 64-bit register as two halves, as the MPAM driver of Linux does. Device
 * memory: the platform performs exactly one access of 32 bits, in program order.
 *
 * Return: the value read.
 */
PV_PLATFORM uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa);

/**
 * pv_plat_mmio_write32() - Write 32 bits of device memory: an MPAM MSC register.
 * @cpu: the pCPU the access is made from.
 * @pa: the physical address.
 * @val: the value to write.
 *
 * Device memory: the platform performs exactly one access of 32 bits, in program order.
 */
PV_PLATFORM void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val);

/**
 * pv_plat_guest_read64() - Read 8 aligned bytes of a VM's memory (a stage-1 descriptor).
 * @v: a vCPU of the VM (the platform finds the VM from its per-vCPU context, v->plat).
 * @ipa: the address, an IPA of that VM, a multiple of 8.
 * @val: where the 8 bytes go.
 *
 * Used by vspe/ to walk the guest's stage-1 tables over its profiling buffer. The platform
 * faults the page in at stage 2 if it pages. hyp/ reads through the VM's stage-2 tables.
 *
 * Return: true, with *val read; false if the IPA is not the VM's memory.
 */
PV_PLATFORM bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val);

/**
 * pv_plat_s2_pin() - Keep pages of a VM resident and mapped writable at stage 2.
 * @v: a vCPU of the VM (the platform finds the VM from its per-vCPU context, v->plat).
 * @ipa: the first page, an IPA of that VM, a multiple of 4 KiB.
 * @size: bytes, a multiple of 4 KiB.
 *
 * Every page of [@ipa, @ipa + @size) stays resident and mapped writable at stage 2 until
 * unpinned, so that the profiler never meets a stage-2 fault; pins are counted per page.
 * Used by vspe/ for the profiling buffer and the table pages the stage-1 walk reads. hyp/
 * counts pins per page and refuses to unmap a pinned page (hyp/stage2.c).
 *
 * Return: true if every page is pinned; all or nothing: false, with nothing pinned, if any
 * page is not the VM's RAM.
 */
PV_PLATFORM bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size);

/**
 * pv_plat_s2_unpin() - Undo one pv_plat_s2_pin() of the same range.
 * @v: a vCPU of the VM.
 * @ipa: the first page, as pinned.
 * @size: bytes, as pinned.
 */
PV_PLATFORM void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size);

/**
 * pv_plat_s2_translate() - The PA stage 2 maps a VM's page to, writable, right now.
 * @v: a vCPU of the VM (the platform finds the VM from its per-vCPU context, v->plat).
 * @ipa: an IPA of that VM.
 * @pa: where the physical address goes.
 *
 * Used by vspe/ once it has repaired a stage-2 fault of the profiling buffer.
 *
 * Return: true, with *pa set; false if stage 2 does not map @ipa writable.
 */
PV_PLATFORM bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa);

/**
 * pv_plat_psb_csync() - PSB CSYNC; DSB NSH on a pCPU.
 * @cpu: the pCPU the call is made on.
 *
 * Afterwards every record the profiler has formatted is written to memory and
 * PMBPTR_EL1/PMBSR_EL1 are up to date (Arm ARM D17.9, synchronization). PSB CSYNC is in the
 * hint space: el2/ executes it whatever the CPU, a NOP without SPE.
 */
PV_PLATFORM void pv_plat_psb_csync(struct pv_pcpu *cpu);

PV_END_DECLS

#endif
