/* SPDX-License-Identifier: MIT */
/*
 * System-register identities, the ESR_EL2 syndrome layout and the bit fields perfvisor uses.
 *
 * A register is identified everywhere (trap table, platform calls, simulator) by its ISS key:
 * the Op0/Op1/CRn/CRm/Op2 fields placed where ESR_EL2.ISS carries them for EC 0x18, with Rt
 * and the direction bit clear. Arm ARM D24.2 (ESR_EL2, ISS encoding for an exception from
 * MSR, MRS or System instruction execution in AArch64 state).
 */
#ifndef PERFVISOR_SYSREG_H
#define PERFVISOR_SYSREG_H

#include <stdint.h>

#define PV_BIT(n) (UINT64_C(1) << (n))
/* Bits [hi:lo] set. */
#define PV_GENMASK(hi, lo) (((~UINT64_C(0)) >> (63 - (hi))) & ~(PV_BIT(lo) - 1))
/* Fields by mask (a named field, or PV_BIT / PV_GENMASK): the value of field `mask` in v, and
 * x placed in field `mask` (bits of x beyond the field dropped). */
#define PV_FIELD_LSB(mask) ((mask) & ~((mask)-1))
#define PV_FIELD_GET(mask, v) (((mask) & (uint64_t)(v)) / PV_FIELD_LSB(mask))
#define PV_FIELD_PREP(mask, x) (((uint64_t)(x)*PV_FIELD_LSB(mask)) & (mask))

/* ---- ESR_EL2 ------------------------------------------------------------------------ */
#define PV_ESR_EC_SHIFT 26
#define PV_ESR_EC(esr) ((uint32_t)(((esr) >> PV_ESR_EC_SHIFT) & 0x3F))
#define PV_ESR_IL PV_BIT(25)
#define PV_ESR_ISS(esr) ((uint32_t)(0x1FFFFFFu & (esr)))

#define PV_EC_UNKNOWN 0x00 /* what an injected UNDEF carries */
#define PV_EC_HVC64 0x16
#define PV_EC_SMC64 0x17
#define PV_EC_SYS64 0x18 /* trapped MSR, MRS or System instruction */

/* ISS for EC 0x18. Op2 sits above Op1. */
#define PV_ISS_SYS_OP0_SHIFT 20
#define PV_ISS_SYS_OP2_SHIFT 17
#define PV_ISS_SYS_OP1_SHIFT 14
#define PV_ISS_SYS_CRN_SHIFT 10
#define PV_ISS_SYS_RT_SHIFT 5
#define PV_ISS_SYS_CRM_SHIFT 1
#define PV_ISS_SYS_DIR_READ 0x1u /* 1: MRS (read), 0: MSR (write) */
#define PV_ISS_SYS_RT_MASK 0x3E0u
#define PV_ISS_SYS_KEY_MASK 0x3FFC1Eu /* Op0, Op2, Op1, CRn, CRm */

#define PV_SYSREG(op0, op1, crn, crm, op2)                                                     \
	((uint32_t)(((uint32_t)(op0) << PV_ISS_SYS_OP0_SHIFT) |                                \
		    ((uint32_t)(op2) << PV_ISS_SYS_OP2_SHIFT) |                                \
		    ((uint32_t)(op1) << PV_ISS_SYS_OP1_SHIFT) |                                \
		    ((uint32_t)(crn) << PV_ISS_SYS_CRN_SHIFT) |                                \
		    ((uint32_t)(crm) << PV_ISS_SYS_CRM_SHIFT)))

/* The keys of every register perfvisor names: PV_PMCR_EL0, PV_PMEVCNTR_EL0(n), ...,
 * generated from the register database (arch/sysregs.txt). */
#include "perfvisor/sysreg_defs.h"

#define PV_SYSREG_OP0(k) (((k) >> PV_ISS_SYS_OP0_SHIFT) & 0x3u)
#define PV_SYSREG_OP1(k) (((k) >> PV_ISS_SYS_OP1_SHIFT) & 0x7u)
#define PV_SYSREG_CRN(k) (((k) >> PV_ISS_SYS_CRN_SHIFT) & 0xFu)
#define PV_SYSREG_CRM(k) (((k) >> PV_ISS_SYS_CRM_SHIFT) & 0xFu)
#define PV_SYSREG_OP2(k) (((k) >> PV_ISS_SYS_OP2_SHIFT) & 0x7u)

/* ---- PMUv3 (Arm ARM D13, D24.5) --------------------------------------------------------- */
/* PMEVCNTR<n>_EL0: CRm = 0b10:n[4:3], Op2 = n[2:0]; PMEVTYPER<n>_EL0: CRm = 0b11:n[4:3]. */
/* Both families: Op0=3 Op1=3 CRn=14 CRm=0b1xxx; the index is CRm[1:0]:Op2, CRm[2] picks TYPER. */
#define PV_PMEV_FAMILY_MASK                                                                    \
	(PV_ISS_SYS_KEY_MASK & ~(0x7u << PV_ISS_SYS_CRM_SHIFT) &                               \
	 ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define PV_PMEV_FAMILY_KEY PV_PMEVCNTR_EL0(0)
#define PV_PMEV_INDEX(k) ((PV_SYSREG_CRM(k) & 3u) << 3 | PV_SYSREG_OP2(k))
#define PV_PMEV_IS_TYPER(k) ((PV_SYSREG_CRM(k) & 4u) != 0)

#define PV_PMU_MAX_COUNTERS 31 /* event counters 0..30 */
#define PV_PMU_CYCLE_IDX 31    /* bit 31 of the enable/overflow bitmaps */

/* Register fields (PV_PMCR_E, PV_PMEVTYPER_P, PV_MDCR_EL2_TPM, ...) are the register
 * database's (sysreg_defs.h); what follows is derived from them or not a register's. */
#define PV_PMUSERENR_MASK                                                                      \
	(PV_PMUSERENR_EN | PV_PMUSERENR_SW | PV_PMUSERENR_CR | PV_PMUSERENR_ER)

/* Common event numbers (PV_EVT_INST_RETIRED, ...) are the event database's
 * (arch/events.txt; event_defs.h). */
#include "perfvisor/event_defs.h"

/* ID_AA64DFR0_EL1.PMUVer values */
#define PV_PMUVER_NI 0x0
#define PV_PMUVER_V3 0x1
#define PV_PMUVER_V3P1 0x4
#define PV_PMUVER_V3P4 0x5
#define PV_PMUVER_V3P5 0x6
#define PV_PMUVER_V3P7 0x7
#define PV_PMUVER_V3P8 0x8
#define PV_PMUVER_V3P9 0x9
#define PV_PMUVER_IMPDEF 0xF

/* ---- Statistical Profiling Extension ---------------------------------------------------- */

/* ---- Activity Monitors ------------------------------------------------------------------ */

/* ---- MPAM ------------------------------------------------------------------------------- */

/* ---- ID registers (the TID3 group: Op0=3 Op1=0 CRn=0 CRm=1..7) --------------------------- */
/* The group is one masked table entry (CRm[3] = 0; CRm = 0 is excluded by the lookup);
 * slot = CRm * 8 + Op2, CRm 1..7. */
#define PV_ID_GROUP_KEY PV_ID_GROUP(0)
#define PV_ID_GROUP_MASK                                                                       \
	(PV_ISS_SYS_KEY_MASK & ~(0x7u << PV_ISS_SYS_CRM_SHIFT) &                               \
	 ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define PV_ID_SLOT(k) (PV_SYSREG_CRM(k) * 8u + PV_SYSREG_OP2(k))
#define PV_ID_SLOT_FIRST 8u /* CRm = 1 */
#define PV_ID_SLOTS 64u     /* slots 0..63; 0..7 (CRm = 0) are not in the group */

/* ID_AA64DFR0_EL1 fields */
/* ID_AA64DFR1_EL1 fields */
/* ID_AA64PFR0_EL1 fields */
/* ID_AA64PFR1_EL1 fields */
/* AArch32 views */

/* An ID register field (4 bits, most of them), as a number. */
#define PV_ID_FIELD(v, mask) ((unsigned)PV_FIELD_GET(mask, v))

/* ---- Interrupts (GIC INTIDs on the reference platform) ---------------------------------- */
#define PV_INTID_SPE 21
#define PV_INTID_PMU 23

#endif
