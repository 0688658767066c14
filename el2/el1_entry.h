/* SPDX-License-Identifier: MIT */
/*
 * A synchronous exception that a host at EL2 makes its guest's EL1 take, as the PE would take
 * it (Arm ARM D1.4.2, "Exception entry"): where it goes and the PSTATE it runs with. The host
 * writes ESR_EL1 (and FAR_EL1 for an abort), ELR_EL1 = the instruction, SPSR_EL1 = `spsr`,
 * then resumes at VBAR_EL1 + el1_sync_vector(spsr) with el1_sync_pstate(spsr, SCTLR_EL1).
 * Pure functions: a host calls them with the guest's saved state.
 */
#ifndef EL2_EL1_ENTRY_H
#define EL2_EL1_ENTRY_H

#include <stdint.h>

/* The offset from VBAR_EL1 of the synchronous vector for an exception taken from `spsr`:
 * 0x000 from EL1t, 0x200 from EL1h, 0x400 from AArch64 EL0, 0x600 from AArch32 EL0 (Arm ARM
 * D1.4.1.6, "Exception vectors"; EL1 itself is AArch64). */
uint64_t el1_sync_vector(uint64_t spsr);

/* PSTATE on entry to EL1h (AArch64.TakeException): D, A, I, F masked; N, Z, C, V and DIT
 * kept; PAN set when SCTLR_EL1.SPAN is 0, else kept; SSBS = SCTLR_EL1.DSSBS; everything else
 * (SS, IL, BTYPE, UAO; IT and T of AArch32) cleared. A host that gives its guests MTE or
 * FEAT_NMI sets TCO or ALLINT itself; perfvisor's hypervisor and Xen 4.17 give neither. */
uint64_t el1_sync_pstate(uint64_t spsr, uint64_t sctlr_el1);

#endif
