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
 * Read / write a physical system register of the pCPU the call is made on. `reg` is the
 * register's ISS key (PV_SYSREG(...) in sysreg.h); indexed registers are named by their own
 * key (PV_PMEVCNTR_EL0(n)). The core uses: the PMU registers, the ID group (Op0=3 Op1=0 CRn=0
 * CRm=1..7, reserved encodings read as zero) and, in later modules, SPE, AMU and MPAM.
 */
uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg);
void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val);

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

#endif
