/* SPDX-License-Identifier: MIT */
/*
 * The platform contract: the only way the core reaches hardware.
 *
 * The core never executes a privileged instruction and never touches memory it was not given.
 * An integration provides these functions, bound at link time (no function pointers on the hot
 * path). Two implementations exist: hyp/ (real MRS/MSR at EL2) and sim/ (the machine model).
 * Every call is made with the pCPU (or vCPU) it concerns, so a platform needs no globals.
 */
#ifndef PERFVISOR_PLATFORM_H
#define PERFVISOR_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

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

/*
 * Read / write a physical system register of the pCPU the call is made on. `reg` is the
 * register's ISS key (PV_SYSREG(...) in sysreg.h); indexed registers are named by their own
 * key (PV_PMEVCNTR_EL0(n)). The core uses the rows of the register database (arch/sysregs.txt)
 * with an el2 access: PMU, SPE, AMU, MPAM, the EL2 controls, the EL1 translation registers
 * and the ID group (Op0=3 Op1=0 CRn=0 CRm=1..7, reserved encodings read as zero).
 */
#ifndef PV_PLATFORM_HAS_SYSREG
uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg);
void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val);
#endif

/*
 * Drive a virtual interrupt line of a vCPU (level-sensitive: asserted while `level` is true).
 * Called only on a change of level. The vCPU may or may not be loaded; the platform keeps
 * the line state and presents it whenever the vCPU runs (for example through ICH_LR<n>_EL2).
 */
void pv_plat_virq_set(struct pv_vcpu *vcpu, uint32_t intid, bool level);

/*
 * 32-bit MMIO read / write of a physical address, made from the pCPU `cpu` (the MPAM MSC
 * registers: vmpam/ reads 64-bit registers as two halves, as the MPAM driver of Linux does).
 * Device memory: the platform performs exactly one access of 32 bits, in program order.
 */
uint32_t pv_plat_mmio_read32(struct pv_pcpu *cpu, uint64_t pa);
void pv_plat_mmio_write32(struct pv_pcpu *cpu, uint64_t pa, uint32_t val);

/*
 * Guest memory and stage 2 of the VM that vCPU `v` belongs to (the platform finds the VM from
 * its per-vCPU context, v->plat). Addresses are that VM's IPAs; `ipa` and `size` of pin/unpin
 * are multiples of 4 KiB. Used by vspe/ for the profiling buffer.
 *
 * guest_read64: 8 aligned bytes of the VM's memory (a stage-1 descriptor), faulting the page in
 *               at stage 2 if the platform pages; false if the IPA is not the VM's memory.
 * s2_pin:       every page of [ipa, ipa + size) resident and mapped writable at stage 2 until
 *               unpinned, pins counted per page; all or nothing: false (nothing pinned) if any
 *               page is not the VM's RAM.
 * s2_unpin:     undoes one s2_pin of the same range.
 * s2_translate: the PA stage 2 maps `ipa` to, writable, right now; false if it does not.
 */
bool pv_plat_guest_read64(struct pv_vcpu *v, uint64_t ipa, uint64_t *val);
bool pv_plat_s2_pin(struct pv_vcpu *v, uint64_t ipa, uint64_t size);
void pv_plat_s2_unpin(struct pv_vcpu *v, uint64_t ipa, uint64_t size);
bool pv_plat_s2_translate(struct pv_vcpu *v, uint64_t ipa, uint64_t *pa);

/* PSB CSYNC; DSB NSH on pCPU `cpu`: every record the profiler has formatted is written to
 * memory and PMBPTR_EL1/PMBSR_EL1 are up to date (Arm ARM D17.9, synchronization). */
void pv_plat_psb_csync(struct pv_pcpu *cpu);

#endif
