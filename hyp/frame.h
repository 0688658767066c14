/* SPDX-License-Identifier: MIT */
/* Offsets in struct frame (hyp.h) of what the assembly saves and restores by name; hyp.h
 * checks them against the structure. Included by C and by assembly. */
#ifndef HYP_FRAME_H
#define HYP_FRAME_H

#define FRAME_X30 240  /* x[30]: 30 * 8 */
#define FRAME_ELR 248  /* 31 * 8 */
#define FRAME_SPSR 256 /* 32 * 8 */

/* What the fast path of vectors.S reads in struct vcpu, after the frame: the vCPU's table of
 * event counter reads for its counters' width, the same entered past each entry's plain check
 * (PMXEVCNTR_EL0); then its struct pv_vcpu, whose first member is the fast word (struct
 * pv_vpmu_fast) and second its statistics, with the PMU trap count first. */
#define VCPU_EVCNTR_READS 272
#define VCPU_EVCNTR_READS_XEV 280
/* Then the period of its overflow polls if they are served at the entry (passthrough, 0
 * otherwise), and the INTID the entry acknowledged when it leaves the rest to C. */
#define VCPU_POLL_TICKS 288
#define VCPU_IRQ_ACKED 296
#define VCPU_FAST 304
#define FAST_EL0 (VCPU_FAST + 0)
#define FAST_EL1 (VCPU_FAST + 4)
#define FAST_XEV_EL0 (VCPU_FAST + 16)
#define FAST_XEV_EL1 (VCPU_FAST + 17)
#define VCPU_PMU_TRAPS (VCPU_FAST + 24)
/* struct hyp (hyp.h): the end of the current slice, which a served poll must not pass. */
#define HYP_SLICE_DEADLINE 64
#define INTID_HYPTIMER 26 /* CNTHP_EL2's PPI */

/* Bytes of the plain check at the start of each entry of the event counter reads. */
#define EVCNTR_READ_CHECK 4

/* The low 32 bits of ESR_EL2 for an MRS the fast path serves, Rt taken out (EC 0x18, IL,
 * ISS read; Arm ARM D24.2): PMCCNTR_EL0, PMXEVCNTR_EL0, and PMEVCNTR<n>_EL0 with n out too
 * (n[2:0] is Op2, ISS[19:17]; n[4:3] is CRm[1:0], ISS[2:1]). */
#define FAST_KEY_PMCCNTR 0x6230E41B
#define FAST_KEY_PMXEVCNTR 0x6234E41B
#define FAST_KEY_PMEVCNTR 0x6230F811

#endif
