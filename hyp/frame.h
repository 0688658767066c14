/* SPDX-License-Identifier: MIT */
/* Offsets in struct frame (hyp.h) of what the assembly saves and restores by name; hyp.h
 * checks them against the structure. Included by C and by assembly. */
#ifndef HYP_FRAME_H
#define HYP_FRAME_H

#define FRAME_X30 240  /* x[30]: 30 * 8 */
#define FRAME_ELR 248  /* 31 * 8 */
#define FRAME_SPSR 256 /* 32 * 8 */

/* The vCPU's fast word (struct pv_vpmu_fast, the first member of struct pv_vcpu, which
 * struct vcpu holds right after its frame): what the fast path of vectors.S reads. */
#define VCPU_FAST 272
#define FAST_EL0 (VCPU_FAST + 0)
#define FAST_EL1 (VCPU_FAST + 4)
#define FAST_EVCNTR_MASK (VCPU_FAST + 8)
#define FAST_XEV_EL0 (VCPU_FAST + 16)
#define FAST_XEV_EL1 (VCPU_FAST + 17)
#define FAST_TRAPS (VCPU_FAST + 24)

/* The low 32 bits of ESR_EL2 for an MRS the fast path serves, Rt taken out (EC 0x18, IL,
 * ISS read; Arm ARM D24.2): PMCCNTR_EL0, PMXEVCNTR_EL0, and PMEVCNTR<n>_EL0 with n out too
 * (n[2:0] is Op2, ISS[19:17]; n[4:3] is CRm[1:0], ISS[2:1]). */
#define FAST_KEY_PMCCNTR 0x6230E41B
#define FAST_KEY_PMXEVCNTR 0x6234E41B
#define FAST_KEY_PMEVCNTR 0x6230F811

#endif
