/* SPDX-License-Identifier: MIT */
/*
 * trap/ internal: the register lists (X-macros), from which the table (trap.c), the trap
 * dispatch (dispatch.c) and the per-VM gates (gates.c) are generated.
 */
#ifndef PV_TRAP_REGS_H
#define PV_TRAP_REGS_H

#include "perfvisor/trap.h"

/* Handlers of module m (vpmu, vamu, vspe, vmpam) for a register of the given access. */
#define RD_RW(m, h) pv_##m##_##h##_read
#define RD_RO(m, h) pv_##m##_##h##_read
#define RD_WO(m, h) NULL
#define WR_RW(m, h) pv_##m##_##h##_write
#define WR_RO(m, h) NULL
#define WR_WO(m, h) pv_##m##_##h##_write

/* PMU(name, op0, op1, crn, crm, op2, min PMUVer, access, handler, behaviour) */
#define PV_PMU_REGS(PMU)                                                                         \
	PMU(PMCR_EL0, 3, 3, 9, 12, 0, V3, RW, pmcr,                                               \
	    "E, D, DP, LC, LP stored (LP from PMUv3p5; LC RES1 without AArch32); P and C reset "   \
	    "guest counters only, read 0; N = VM counters; X RAZ/WI")                              \
	PMU(PMCNTENSET_EL0, 3, 3, 9, 12, 1, V3, RW, pmcntenset,                                   \
	    "counter enable set; bits of unimplemented and host counters RAZ/WI")                  \
	PMU(PMCNTENCLR_EL0, 3, 3, 9, 12, 2, V3, RW, pmcntenclr,                                   \
	    "counter enable clear; bits of unimplemented and host counters RAZ/WI")                \
	PMU(PMOVSCLR_EL0, 3, 3, 9, 12, 3, V3, RW, pmovsclr,                                       \
	    "overflow status clear; lowers the virtual PMU interrupt; unimplemented bits RAZ/WI")  \
	PMU(PMSWINC_EL0, 3, 3, 9, 12, 4, V3, WO, pmswinc,                                         \
	    "software increment of SW_INCR counters, emulated with overflow and CHAIN; read UNDEF") \
	PMU(PMSELR_EL0, 3, 3, 9, 12, 5, V3, RW, pmselr,                                           \
	    "SEL[4:0] stored; selects the PMXEVTYPER/PMXEVCNTR target")                            \
	PMU(PMCEID0_EL0, 3, 3, 9, 12, 6, V3, RO, pmceid0,                                         \
	    "hardware events plus SW_INCR and CHAIN, masked by the VM's event filter")             \
	PMU(PMCEID1_EL0, 3, 3, 9, 12, 7, V3, RO, pmceid1,                                         \
	    "hardware events masked by the VM's event filter")                                     \
	PMU(PMCCNTR_EL0, 3, 3, 9, 13, 0, V3, RW, pmccntr,                                         \
	    "64-bit cycle counter of the vCPU; overflow at 2^32 or 2^64 by PMCR.LC")               \
	PMU(PMXEVTYPER_EL0, 3, 3, 9, 13, 1, V3, RW, pmxevtyper,                                   \
	    "PMEVTYPER<SEL>, PMCCFILTR when SEL = 31; SEL >= N UNDEF")                             \
	PMU(PMXEVCNTR_EL0, 3, 3, 9, 13, 2, V3, RW, pmxevcntr,                                     \
	    "PMEVCNTR<SEL>; SEL >= N (31 included) UNDEF")                                         \
	PMU(PMUSERENR_EL0, 3, 3, 9, 14, 0, V3, RW, pmuserenr,                                     \
	    "EN, SW, CR, ER stored; gate EL0 access (denied: trap to guest EL1); EL0 write UNDEF") \
	PMU(PMINTENSET_EL1, 3, 0, 9, 14, 1, V3, RW, pmintenset,                                   \
	    "overflow interrupt enable set; unimplemented bits RAZ/WI")                            \
	PMU(PMINTENCLR_EL1, 3, 0, 9, 14, 2, V3, RW, pmintenclr,                                   \
	    "overflow interrupt enable clear; unimplemented bits RAZ/WI")                          \
	PMU(PMOVSSET_EL0, 3, 3, 9, 14, 3, V3, RW, pmovsset,                                       \
	    "overflow status set; raises the virtual PMU interrupt when enabled")                  \
	PMU(PMMIR_EL1, 3, 0, 9, 14, 6, V3P4, RO, pmmir,                                           \
	    "SLOTS, BUS_SLOTS, BUS_WIDTH of the hardware; other fields 0")                         \
	PMU(PMCCFILTR_EL0, 3, 3, 14, 15, 7, V3, RW, pmccfiltr,                                    \
	    "cycle counter filter: reads what the guest wrote; hardware never counts EL2/EL3/"    \
	    "Secure/Realm")

/* OFF(kind, feature, name, op0, op1, crn, crm, op2, min version, access): registers of
 * features perfvisor does not offer yet. They UNDEF, like those of any hidden feature. */
#define PV_OFF_REGS(OFF)                                                                         \
	OFF(MPAM, MPAM, MPAMSM_EL1, 3, 0, 10, 5, 3, 1, RW)

/* SPE(name, op0, op1, crn, crm, op2, min PMSVer, access, handler, behaviour): MDCR_EL2.TPMS
 * (PMS*), MDCR_EL2.E2PB = 0b10 (PMB*), HDFGRTR_EL2.PMBIDR_EL1 with FEAT_FGT; Arm ARM D24.7.
 * Served by vspe/; all UNDEFINED at EL0. */
#define PV_SPE_REGS(SPE)                                                                         \
	SPE(PMSCR_EL1, 3, 0, 9, 9, 0, 1, RW, pmscr,                                               \
	    "E0SPE, E1SPE, CX, PA, TS, PCT stored; the hardware never gets PA or PCT (PMSCR_EL2 "  \
	    "keeps them clear): no physical address or timestamp in a guest's records")            \
	SPE(PMSNEVFR_EL1, 3, 0, 9, 9, 1, 3, RW, pmsnevfr,                                         \
	    "inverted event filter (SPEv1p2); bits the hardware cannot filter RAZ/WI")             \
	SPE(PMSICR_EL1, 3, 0, 9, 9, 2, 1, RW, pmsicr,                                             \
	    "the vCPU's interval counter, live while it runs, saved at put")                       \
	SPE(PMSIRR_EL1, 3, 0, 9, 9, 3, 1, RW, pmsirr, "INTERVAL and RND, to the hardware")      \
	SPE(PMSFCR_EL1, 3, 0, 9, 9, 4, 1, RW, pmsfcr,                                             \
	    "FE, FT, FL, B, LD, ST (FnE from SPEv1p2); the extended type filter is not offered")    \
	SPE(PMSEVFR_EL1, 3, 0, 9, 9, 5, 1, RW, pmsevfr,                                           \
	    "event filter; bits the hardware cannot filter, or the version lacks, RAZ/WI")         \
	SPE(PMSLATFR_EL1, 3, 0, 9, 9, 6, 1, RW, pmslatfr, "MINLAT, 12 or 16 bits as CountSize")  \
	SPE(PMSIDR_EL1, 3, 0, 9, 9, 7, 1, RO, pmsidr,                                             \
	    "the hardware's, without EFT and FDS (FnE from SPEv1p2)")                               \
	SPE(PMBLIMITR_EL1, 3, 0, 9, 10, 0, 1, RW, pmblimitr,                                      \
	    "enabling checks the buffer, walks the guest's stage 1 and pins it in stage 2; "       \
	    "disabling unpins; refusals are buffer management events")                            \
	SPE(PMBPTR_EL1, 3, 0, 9, 10, 1, 1, RW, pmbptr,                                            \
	    "the vCPU's write pointer, live (after PSB CSYNC) while its buffer runs")              \
	SPE(PMBSR_EL1, 3, 0, 9, 10, 3, 1, RW, pmbsr,                                              \
	    "virtual: buffer full and stage-1 faults as the hardware reports them; S drives the "  \
	    "virtual INTID 21; stage-2 faults never appear")                                        \
	SPE(PMBIDR_EL1, 3, 0, 9, 10, 7, 1, RO, pmbidr,                                            \
	    "P = 0, MaxBuffSize = the VM's largest buffer (trapped with FEAT_FGT only)")

/* AMU(name, op0, op1, crn, crm, op2, min AMU version, access for a guest, handler,
 * behaviour): CPTR_EL2.TAM, Arm ARM D24.6. Only AMUSERENR_EL0 is writable below the highest
 * implemented EL; the other MSR encodings are UNDEFINED for a guest. */
/* MPAM(name, op0, op1, crn, crm, op2, min version, access, handler, behaviour): trapped by
 * MPAM2_EL2.TRAPMPAM1EL1/TRAPMPAM0EL1 and MPAMHCR_EL2.TRAP_MPAMIDR_EL1 (or MPAM2_EL2.TIDR),
 * served by vmpam/. MPAMSM_EL1 (SME) is not offered. */
#define PV_MPAM_REGS(MPAM)                                                                       \
	MPAM(MPAMIDR_EL1, 3, 0, 10, 4, 4, 1, RO, mpamidr,                                         \
	     "the VM's view: PARTID_MAX = its virtual PARTIDs - 1, PMG_MAX, no HCR/VPM/SP4")      \
	MPAM(MPAM1_EL1, 3, 0, 10, 5, 0, 1, RW, mpam1,                                             \
	     "reads what the guest wrote; the hardware gets the VM's own physical PARTIDs; a "    \
	     "virtual PARTID or PMG beyond the VM's becomes 0, its default")                       \
	MPAM(MPAM0_EL1, 3, 0, 10, 5, 1, 1, RW, mpam0,                                             \
	     "as MPAM1_EL1, for EL0")

#define PV_AMU_REGS(AMU)                                                                         \
	AMU(AMCR_EL0, 3, 3, 13, 2, 0, 1, RO, amcr,                                                \
	    "HDBG as the hardware; CG1RZ as the hardware for AMUv1p1; MSR UNDEF (highest EL only)") \
	AMU(AMCFGR_EL0, 3, 3, 13, 2, 1, 1, RO, amcfgr,                                            \
	    "N = 4 + the VM's auxiliary counters - 1, NCG = 1 when it has any, SIZE = 64 bits")    \
	AMU(AMCGCR_EL0, 3, 3, 13, 2, 2, 1, RO, amcgcr,                                            \
	    "CG0NC = 4, CG1NC = the VM's auxiliary counters")                                       \
	AMU(AMUSERENR_EL0, 3, 3, 13, 2, 3, 1, RW, amuserenr,                                      \
	    "EN stored per vCPU, gates EL0 access (denied: trap to guest EL1); EL0 write UNDEF")    \
	AMU(AMCNTENCLR0_EL0, 3, 3, 13, 2, 4, 1, RO, amcnten0,                                     \
	    "reads the hardware enables P3..P0; MSR UNDEF (highest EL only)")                       \
	AMU(AMCNTENSET0_EL0, 3, 3, 13, 2, 5, 1, RO, amcnten0,                                     \
	    "reads the hardware enables P3..P0; MSR UNDEF (highest EL only)")                       \
	AMU(AMCG1IDR_EL0, 3, 3, 13, 2, 6, 2, RO, amcg1idr,                                        \
	    "the VM's auxiliary counters and which of them have a hardware offset")                 \
	AMU(AMCNTENCLR1_EL0, 3, 3, 13, 3, 0, 1, RO, amcnten1,                                     \
	    "hardware enables of the VM's auxiliary counters; UNDEF without any; MSR UNDEF")        \
	AMU(AMCNTENSET1_EL0, 3, 3, 13, 3, 1, 1, RO, amcnten1,                                     \
	    "hardware enables of the VM's auxiliary counters; UNDEF without any; MSR UNDEF")

/* Key masks of the indexed families below. */
#define PMEV_MASK (PV_ISS_SYS_KEY_MASK & ~(0x3u << PV_ISS_SYS_CRM_SHIFT) &                     \
		   ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define AMEV_MASK (PV_ISS_SYS_KEY_MASK & ~(0x1u << PV_ISS_SYS_CRM_SHIFT) &                     \
		   ~(0x7u << PV_ISS_SYS_OP2_SHIFT))

/* Indexed families, one entry each: FAM(name, "written name", key of n = 0, key mask, feature,
 * min version, access, index kind, module, handler, behaviour). The index is checked against
 * the VM in the dispatch (pv_vm.reg_limit). */
#define PV_FAMILY_REGS(FAM)                                                                      \
	FAM(PMEVCNTR, "PMEVCNTR<n>_EL0", PV_PMEVCNTR_EL0(0), PMEV_MASK, PMU, PV_PMUVER_V3, RW,     \
	    PMEV, vpmu, pmevcntr,                                                                 \
	    "event counter n < N: 32-bit, 64-bit from PMUv3p5; n >= N UNDEF")                     \
	FAM(PMEVTYPER, "PMEVTYPER<n>_EL0", PV_PMEVTYPER_EL0(0), PMEV_MASK, PMU, PV_PMUVER_V3, RW,  \
	    PMEV, vpmu, pmevtyper,                                                                \
	    "event type n < N: reads what the guest wrote; denied events count nothing; hardware " \
	    "never counts EL2/EL3/Secure/Realm; n >= N UNDEF")                                    \
	FAM(AMEVCNTR0, "AMEVCNTR0<n>_EL0", PV_AMEVCNTR0_EL0(0), AMEV_MASK, AMU, 1, RO, AMEV, vamu,  \
	    amevcntr0,                                                                            \
	    "the vCPU's own count (n = 0 CPU_CYCLES, 1 CNT_CYCLES: time it ran, 2 INST_RETIRED, "  \
	    "3 STALL_BACKEND_MEM); n >= 4 UNDEF; MSR UNDEF")                                      \
	FAM(AMEVTYPER0, "AMEVTYPER0<n>_EL0", PV_AMEVTYPER0_EL0(0), AMEV_MASK, AMU, 1, RO, AMEV,    \
	    vamu, amevtyper0, "0x0011, 0x4004, 0x0008, 0x4005 for n = 0..3; n >= 4 UNDEF")       \
	FAM(AMEVCNTR1, "AMEVCNTR1<n>_EL0", PV_AMEVCNTR1_EL0(0), AMEV_MASK, AMU, 1, RO, AMEV, vamu,  \
	    amevcntr1,                                                                            \
	    "the vCPU's own count of auxiliary event n; zero with AMCR.CG1RZ; n >= the VM's "      \
	    "auxiliary counters UNDEF; MSR UNDEF")                                                \
	FAM(AMEVTYPER1, "AMEVTYPER1<n>_EL0", PV_AMEVTYPER1_EL0(0), AMEV_MASK, AMU, 1, RO, AMEV,    \
	    vamu, amevtyper1,                                                                     \
	    "the hardware's event of auxiliary counter n; MSR UNDEF (fixed, or highest EL only)")

enum reg_index {
#define PMU_IDX(name, o0, o1, n, m, o2, v, acc, h, txt) RIDX_##name,
#define OFF_IDX(k, f, name, o0, o1, n, m, o2, v, acc) RIDX_##name,
#define AMU_IDX(name, o0, o1, n, m, o2, v, acc, h, txt) RIDX_##name,
#define MPAM_IDX(name, o0, o1, n, m, o2, v, acc, h, txt) RIDX_##name,
#define SPE_IDX(name, o0, o1, n, m, o2, v, acc, h, txt) RIDX_##name,
	PV_PMU_REGS(PMU_IDX) PV_AMU_REGS(AMU_IDX) PV_MPAM_REGS(MPAM_IDX) PV_SPE_REGS(SPE_IDX)
	PV_OFF_REGS(OFF_IDX)
#define FAM_IDX(nm, str, key, mask, f, ver, acc, ix, mod, h, txt) RIDX_##nm,
	PV_FAMILY_REGS(FAM_IDX)
	RIDX_ID_GROUP,
	RIDX_COUNT
};

extern const struct pv_reg_desc pv_reg_descs[RIDX_COUNT];

#endif
