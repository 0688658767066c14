/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's model of the CPU side of the Memory Partitioning and Monitoring Extension,
 * FEAT_MPAMv1p1, for QEMU's AArch64 CPUs with EL2 and without EL3, TCG only. Written from the
 * Arm ARM (D21, MPAM; D24.12, its registers; J1.3.3, GenMPAM() and what it calls) with its own
 * constants.
 *
 * The registers: MPAMIDR_EL1, MPAM0_EL1, MPAM1_EL1 (and MPAM1_EL12 with FEAT_VHE), MPAM2_EL2,
 * MPAMHCR_EL2, MPAMVPM0-7_EL2, MPAMVPMV_EL2, and MPAMSM_EL1 where the CPU has FEAT_SME (the
 * Arm ARM makes it present whenever both are). Their accessibility pseudocode with no EL3
 * (so no MPAM3_EL3.TRAPLOWER): MPAM2_EL2.TRAPMPAM0EL1, TRAPMPAM1EL1 and EnMPAMSM, and
 * MPAMHCR_EL2.TRAP_MPAMIDR_EL1 or MPAM2_EL2.TIDR for MPAMIDR_EL1, trap EL1's accesses to EL2
 * (EC 0x18); every register is UNDEFINED at EL0, the _EL2 ones at EL1 but under FEAT_NV, and
 * MPAM1_EL12 at EL2 without HCR_EL2.E2H. FEAT_NV and FEAT_NV2 are QEMU's own: the EL2
 * registers trap to EL2 from EL1 with HCR_EL2.NV, and FEAT_NV2 redirects MPAM1_EL1 (NV1 set),
 * MPAM1_EL12 (NV1 clear), MPAMHCR_EL2, MPAMVPMV_EL2 and MPAMVPM<n>_EL2 to their offsets from
 * VNCR_EL2, as the registers' nv2_redirect_offset says. With HCR_EL2.E2H, MPAM1_EL1 at EL2 is
 * MPAM2_EL2 and MPAM1_EL12 is MPAM1_EL1 (D21.7.6).
 *
 * The model's IMPLEMENTATION DEFINED choices:
 *   MPAMIDR_EL1   PARTID_MAX 63, PMG_MAX 1, HAS_HCR, VPMR_MAX 7 (eight MPAMVPM<n>_EL2, 32
 *                 virtual PARTIDs), HAS_TIDR (v1.1 requires it); no SDEFLT, FORCE_NS, SP4,
 *                 ALTSP or BW_CTRL (no EL3, no RME, no PE-side bandwidth controls).
 *   fields        every PARTID field holds 16 bits and every PMG field 8, whatever PARTID_MAX
 *                 and PMG_MAX say, so that out-of-range values reach GenMPAM() as written.
 *   resets        MPAMEN 0, TRAPMPAM0EL1, TRAPMPAM1EL1 and TRAP_MPAMIDR_EL1 1 (the Arm ARM's
 *                 values without EL3); every field it leaves UNKNOWN 0.
 *   MPAMSM_EL1    stored and trapped, never a label: the model's SMCU is not shared and its
 *                 labels do not take precedence (GenMPAMAtEL()'s "Shared SMCU" and "MPAMSM_EL1
 *                 label precedence" are both FALSE).
 *   errors        a PARTID error gives the Default PMG (GenPMG()'s
 *                 Unpredictable_USE_DEFAULT_PMG taken as TRUE); out-of-range PARTIDs and PMGs
 *                 otherwise as the pseudocode resolves them (D21.9).
 *
 * pv_mpam_data_label() (pv-internal.h) is GenMPAMAtEL() for a data access: what a request of
 * the CPU is labelled with, for the memory-system model. The model's own test hook shows it:
 * PV_MPAM_LABEL_EL0 (S3_3_C15_C15_0, read-only, from EL0 up) reads the label of a data access
 * at the current EL, and PV_MPAM_LABEL<n>_EL2 (S3_4_C15_C15_<n>, n = 0..2, EL2 only) the label
 * of one at ELn in the CPU's current state: PARTID in bits [15:0], PMG in [23:16], MPAM_NS in
 * bit 24. They exist only with pv-mpam=on, and no hardware has them.
 *
 * Not modelled: EL3 (MPAM3_EL3, the Secure PARTID space; the model stays off with EL3),
 * FEAT_RME's PARTID spaces, MPAMv0p1's FORCE_NS, the PE-side bandwidth controls
 * (FEAT_MPAM_PE_BW_CTRL, MPAMBW*), TRBE's labels, instruction-fetch labels (PARTID_I and
 * PMG_I are stored, and no caller asks for them), and labels of accesses (the traffic and the
 * memory-system components are for another model to do).
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "cpu.h"
#include "internals.h"
#include "cpregs.h"
#include "pv-hw.h"
#include "pv-internal.h"

/* ID_AA64PFR0_EL1.MPAM, bits [43:40] (D24.2.93); ID_AA64PFR1_EL1.MPAM_frac, bits [19:16] */
/* (D24.2.94): 1 and 1, MPAM v1.1 (D21.1.8). */
#define PV_PFR0_MPAM_SHIFT  40
#define PV_PFR1_MPAM_FRAC_SHIFT 16

/* The model's MPAMIDR_EL1 (D24.12.13). */
#define PV_MPAM_PARTID_MAX  63
#define PV_MPAM_PMG_MAX     1
#define PV_MPAM_VPMR_MAX    7
#define PV_MPAM_VPARTIDS    (4 * PV_MPAM_VPMR_MAX + 4)
#define PV_MPAMIDR_HAS_TIDR (1ULL << 58)
#define PV_MPAMIDR_HAS_HCR  (1ULL << 17)
#define PV_MPAMIDR                                                            \
    (PV_MPAMIDR_HAS_TIDR | ((uint64_t)PV_MPAM_PMG_MAX << 32) |                \
     ((uint64_t)PV_MPAM_VPMR_MAX << 18) | PV_MPAMIDR_HAS_HCR | PV_MPAM_PARTID_MAX)

/* MPAMn_ELx: PMG_D [47:40], PMG_I [39:32], PARTID_D [31:16], PARTID_I [15:0] (D24.12.1-3) */
#define PV_MPAMN_IDS        MAKE_64BIT_MASK(0, 48)
#define PV_MPAMN_PARTID_D_SHIFT 16
#define PV_MPAMN_PMG_D_SHIFT 40
/* MPAM1_EL1 and MPAM2_EL2, bit [63] (D24.12.2, D24.12.3) */
#define PV_MPAM_MPAMEN      (1ULL << 63)
/* MPAM2_EL2 (D24.12.3) */
#define PV_MPAM2_TIDR       (1ULL << 58)
#define PV_MPAM2_ENMPAMSM   (1ULL << 50)
#define PV_MPAM2_TRAPMPAM0EL1 (1ULL << 49)
#define PV_MPAM2_TRAPMPAM1EL1 (1ULL << 48)
/* MPAMHCR_EL2 (D24.12.12) */
#define PV_MPAMHCR_TRAP_MPAMIDR (1ULL << 31)
#define PV_MPAMHCR_GSTAPP_PLK (1ULL << 8)
#define PV_MPAMHCR_EL1_VPMEN (1ULL << 1)
#define PV_MPAMHCR_EL0_VPMEN (1ULL << 0)
#define PV_MPAMHCR_VALID                                                      \
    (PV_MPAMHCR_TRAP_MPAMIDR | PV_MPAMHCR_GSTAPP_PLK | PV_MPAMHCR_EL1_VPMEN | \
     PV_MPAMHCR_EL0_VPMEN)
/* MPAMSM_EL1: PMG_D [47:40], PARTID_D [31:16] (D24.12.14) */
#define PV_MPAMSM_VALID     (MAKE_64BIT_MASK(40, 8) | MAKE_64BIT_MASK(16, 16))

/* The test hook's layout. */
#define PV_LABEL_PMG_SHIFT  16
#define PV_LABEL_NS         (1ULL << 24)

/* Offsets from VNCR_EL2 of the registers FEAT_NV2 redirects (D24.12). */
#define PV_NV2_MPAM1        0x900
#define PV_NV2_MPAMHCR      0x930
#define PV_NV2_MPAMVPMV     0x938
#define PV_NV2_MPAMVPM0     0x940

struct PvMpam {
    uint64_t mpam0;     /* MPAM0_EL1 */
    uint64_t mpam1;     /* MPAM1_EL1's identifiers; its MPAMEN is MPAM2_EL2's */
    uint64_t mpam2;     /* MPAM2_EL2, MPAMEN (the MPAM enable control) included */
    uint64_t hcr;       /* MPAMHCR_EL2 */
    uint64_t vpm[PV_MPAM_VPMR_MAX + 1];
    uint64_t vpmv;      /* MPAMVPMV_EL2 */
    uint64_t sm;        /* MPAMSM_EL1 */
    uint64_t mpam2_valid;
};

typedef enum PvMpamReg {
    PV_MPAM_R_IDR,
    PV_MPAM_R_MPAM0,
    PV_MPAM_R_MPAM1,
    PV_MPAM_R_MPAM1_EL12,
    PV_MPAM_R_MPAM2,
    PV_MPAM_R_HCR,
    PV_MPAM_R_VPMV,
    PV_MPAM_R_SM,
    PV_MPAM_R_VPM0,         /* + n */
    PV_MPAM_R_LABEL = PV_MPAM_R_VPM0 + PV_MPAM_VPMR_MAX + 1,
    PV_MPAM_R_LABEL_AT0,    /* + n */
} PvMpamReg;

static PvMpam *pv_mpam(CPUARMState *env)
{
    PvHwCPU *h = pv_hw_cpu(env_cpu(env));

    return h ? h->mpam_state : NULL;
}

/* The register of a registered copy: a PvMpamReg, as an integer (the ranges have no names). */
static unsigned pv_mpam_reg(const ARMCPRegInfo *ri)
{
    return (uintptr_t)ri->opaque;
}

/* ---- GenMPAM() for data accesses (J1.3.3) ----------------------------------------------- */

/* MAP_vPARTID(): a virtual PARTID through MPAMVPM<n>_EL2; *err on no valid mapping. */
static unsigned pv_mpam_map(PvMpam *s, unsigned vpartid, bool *err)
{
    unsigned v = vpartid % PV_MPAM_VPARTIDS;    /* the pseudocode's reduction */
    unsigned partid;

    if (s->vpmv & (1ULL << v)) {
        partid = extract64(s->vpm[v / 4], (v % 4) * 16, 16);
    } else if (s->vpmv & 1) {
        partid = extract64(s->vpm[0], 0, 16);   /* the Default virtual PARTID's mapping */
    } else {
        *err = true;
        return 0;
    }
    if (partid > PV_MPAM_PARTID_MAX) {
        *err = true;
        return 0;
    }
    return partid;
}

PvMpamLabel pv_mpam_data_label(CPUARMState *env, int el)
{
    PvMpam *s = pv_mpam(env);
    /* SecurityStateAtEL(): Non-secure below EL3 without EL3's Secure state */
    PvMpamLabel label = { .partid = 0, .pmg = 0,
                          .ns = el < 3 && !arm_is_secure_below_el3(env) };
    bool el2 = arm_is_el2_enabled(env);
    bool err = false;
    bool virt;
    uint64_t r;
    unsigned partid, pmg;

    /* MPAMIsEnabled(): EL2 is the highest EL */
    if (!s || !(s->mpam2 & PV_MPAM_MPAMEN) || el > 2) {
        return label;
    }
    /* GenMPAM(): MPAMHCR_EL2.GSTAPP_PLK gives EL0 EL1's identifiers */
    if (el == 0 && el2 && (s->hcr & PV_MPAMHCR_GSTAPP_PLK) &&
        !(arm_hcr_el2_eff(env) & HCR_TGE)) {
        el = 1;
    }
    /* GetMPAM_PARTID(), GetMPAM_PMG() */
    switch (el) {
    case 0:
        r = s->mpam0;
        break;
    case 1:
        r = s->mpam1;
        break;
    default:
        r = el2 ? s->mpam2 : 0;
        break;
    }
    partid = extract64(r, PV_MPAMN_PARTID_D_SHIFT, 16);
    pmg = extract64(r, PV_MPAMN_PMG_D_SHIFT, 8);
    /* GenPARTID(), MPAMIsVirtual() */
    virt = el2 && ((el == 0 && (s->hcr & PV_MPAMHCR_EL0_VPMEN) && !el_is_in_host(env, 0)) ||
                   (el == 1 && (s->hcr & PV_MPAMHCR_EL1_VPMEN)));
    if (partid > PV_MPAM_PARTID_MAX) {
        partid = 0;
        err = true;
    } else if (virt) {
        partid = pv_mpam_map(s, partid, &err);
    }
    /* GenPMG() */
    if (err || pmg > PV_MPAM_PMG_MAX) {
        pmg = 0;
    }
    label.partid = partid;
    label.pmg = pmg;
    return label;
}

/* ---- Access ------------------------------------------------------------------------------ */

/*
 * D24.12's accessibility pseudocode with EL2 and no EL3, past what the registers' access
 * rights already give (UNDEFINED at EL0; the _EL2 and _EL12 registers at EL1 only through
 * FEAT_NV, whose trap or redirection QEMU makes before or after this function, which lets
 * EL1 through for them).
 */
static CPAccessResult pv_mpam_access(CPUARMState *env, const ARMCPRegInfo *ri, bool isread)
{
    PvMpam *s = pv_mpam(env);
    int el = arm_current_el(env);
    bool trap_el1 = el == 1 && arm_is_el2_enabled(env);

    switch (pv_mpam_reg(ri)) {
    case PV_MPAM_R_MPAM0:
        return trap_el1 && (s->mpam2 & PV_MPAM2_TRAPMPAM0EL1) ? CP_ACCESS_TRAP_EL2
                                                               : CP_ACCESS_OK;
    case PV_MPAM_R_MPAM1:
        return trap_el1 && (s->mpam2 & PV_MPAM2_TRAPMPAM1EL1) ? CP_ACCESS_TRAP_EL2
                                                               : CP_ACCESS_OK;
    case PV_MPAM_R_SM:
        return trap_el1 && !(s->mpam2 & PV_MPAM2_ENMPAMSM) ? CP_ACCESS_TRAP_EL2
                                                            : CP_ACCESS_OK;
    case PV_MPAM_R_IDR:
        return trap_el1 && ((s->hcr & PV_MPAMHCR_TRAP_MPAMIDR) || (s->mpam2 & PV_MPAM2_TIDR))
                   ? CP_ACCESS_TRAP_EL2
                   : CP_ACCESS_OK;
    case PV_MPAM_R_MPAM1_EL12:
        return el == 2 && !el_is_in_host(env, 2) ? CP_ACCESS_UNDEFINED : CP_ACCESS_OK;
    default:
        return CP_ACCESS_OK;
    }
}

static uint64_t pv_mpam_label_value(CPUARMState *env, int el)
{
    PvMpamLabel l = pv_mpam_data_label(env, el);

    return l.partid | ((uint64_t)l.pmg << PV_LABEL_PMG_SHIFT) | (l.ns ? PV_LABEL_NS : 0);
}

/* MPAM1_EL1 at EL2 with HCR_EL2.E2H is MPAM2_EL2 (D21.7.6). */
static bool pv_mpam_el1_is_el2(CPUARMState *env, unsigned r)
{
    return r == PV_MPAM_R_MPAM1 && arm_current_el(env) == 2 && el_is_in_host(env, 2);
}

static uint64_t pv_mpam_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvMpam *s = pv_mpam(env);
    unsigned r = pv_mpam_reg(ri);

    if (pv_mpam_el1_is_el2(env, r)) {
        r = PV_MPAM_R_MPAM2;
    }
    switch (r) {
    case PV_MPAM_R_IDR:
        return PV_MPAMIDR;
    case PV_MPAM_R_MPAM0:
        return s->mpam0;
    case PV_MPAM_R_MPAM1:
    case PV_MPAM_R_MPAM1_EL12:
        /* MPAMEN: a read-only copy of MPAM2_EL2's (RAZ/WI or RAO/WI) */
        return s->mpam1 | (s->mpam2 & PV_MPAM_MPAMEN);
    case PV_MPAM_R_MPAM2:
        return s->mpam2;
    case PV_MPAM_R_HCR:
        return s->hcr;
    case PV_MPAM_R_VPMV:
        return s->vpmv;
    case PV_MPAM_R_SM:
        return s->sm;
    case PV_MPAM_R_VPM0 ... PV_MPAM_R_VPM0 + PV_MPAM_VPMR_MAX:
        return s->vpm[r - PV_MPAM_R_VPM0];
    case PV_MPAM_R_LABEL:
        return pv_mpam_label_value(env, arm_current_el(env));
    case PV_MPAM_R_LABEL_AT0 ... PV_MPAM_R_LABEL_AT0 + 2:
        return pv_mpam_label_value(env, r - PV_MPAM_R_LABEL_AT0);
    default:
        return 0;
    }
}

static void pv_mpam_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvMpam *s = pv_mpam(env);
    unsigned r = pv_mpam_reg(ri);

    if (pv_mpam_el1_is_el2(env, r)) {
        r = PV_MPAM_R_MPAM2;
    }
    switch (r) {
    case PV_MPAM_R_MPAM0:
        s->mpam0 = value & PV_MPAMN_IDS;
        break;
    case PV_MPAM_R_MPAM1:
    case PV_MPAM_R_MPAM1_EL12:
        s->mpam1 = value & PV_MPAMN_IDS;
        break;
    case PV_MPAM_R_MPAM2:
        /* MPAMEN is read/write here: EL2 is the highest EL */
        s->mpam2 = value & s->mpam2_valid;
        break;
    case PV_MPAM_R_HCR:
        s->hcr = value & PV_MPAMHCR_VALID;
        break;
    case PV_MPAM_R_VPMV:
        s->vpmv = value & MAKE_64BIT_MASK(0, PV_MPAM_VPARTIDS);
        break;
    case PV_MPAM_R_SM:
        s->sm = value & PV_MPAMSM_VALID;
        break;
    case PV_MPAM_R_VPM0 ... PV_MPAM_R_VPM0 + PV_MPAM_VPMR_MAX:
        s->vpm[r - PV_MPAM_R_VPM0] = value;
        break;
    default:
        break;
    }
}

/* The Warm reset of every MPAM register (D24.12): the values the Arm ARM gives without EL3. */
static void pv_mpam_reset(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvMpam *s = pv_mpam(env);
    uint64_t valid = s->mpam2_valid;

    memset(s, 0, sizeof(*s));
    s->mpam2_valid = valid;
    s->mpam2 = PV_MPAM2_TRAPMPAM0EL1 | PV_MPAM2_TRAPMPAM1EL1;
    s->hcr = PV_MPAMHCR_TRAP_MPAMIDR;
}

#define PV_MPAM_TYPE ARM_CP_NO_RAW
#define PV_MPAM_REG(NAME, OP1, CRN, CRM, OP2, ACC, REG, NV2)                   \
    { .name = NAME, .state = ARM_CP_STATE_AA64, .type = PV_MPAM_TYPE,          \
      .opc0 = 3, .opc1 = OP1, .crn = CRN, .crm = CRM, .opc2 = OP2,             \
      .access = ACC, .accessfn = pv_mpam_access, .nv2_redirect_offset = NV2,   \
      .opaque = (void *)(uintptr_t)(REG),                                      \
      .readfn = pv_mpam_read, .writefn = pv_mpam_write }

/* D24.12's encodings: op0 3, CRn 10 (CRn 15 for the model's own test hook). */
static const ARMCPRegInfo pv_mpam_regs[] = {
    PV_MPAM_REG("MPAMIDR_EL1", 0, 10, 4, 4, PL1_R, PV_MPAM_R_IDR, 0),
    PV_MPAM_REG("MPAM0_EL1", 0, 10, 5, 1, PL1_RW, PV_MPAM_R_MPAM0, 0),
    PV_MPAM_REG("MPAM1_EL1", 0, 10, 5, 0, PL1_RW, PV_MPAM_R_MPAM1,
                PV_NV2_MPAM1 | NV2_REDIR_NV1),
    PV_MPAM_REG("MPAM2_EL2", 4, 10, 5, 0, PL2_RW, PV_MPAM_R_MPAM2, 0),
    PV_MPAM_REG("MPAMHCR_EL2", 4, 10, 4, 0, PL2_RW, PV_MPAM_R_HCR, PV_NV2_MPAMHCR),
    PV_MPAM_REG("MPAMVPMV_EL2", 4, 10, 4, 1, PL2_RW, PV_MPAM_R_VPMV, PV_NV2_MPAMVPMV),
    PV_MPAM_REG("PV_MPAM_LABEL_EL0", 3, 15, 15, 0, PL0_R, PV_MPAM_R_LABEL, 0),
    PV_MPAM_REG("PV_MPAM_LABEL0_EL2", 4, 15, 15, 0, PL2_R, PV_MPAM_R_LABEL_AT0, 0),
    PV_MPAM_REG("PV_MPAM_LABEL1_EL2", 4, 15, 15, 1, PL2_R, PV_MPAM_R_LABEL_AT0 + 1, 0),
    PV_MPAM_REG("PV_MPAM_LABEL2_EL2", 4, 15, 15, 2, PL2_R, PV_MPAM_R_LABEL_AT0 + 2, 0),
};

static const ARMCPRegInfo pv_mpam_vhe_regs[] = {
    PV_MPAM_REG("MPAM1_EL12", 5, 10, 5, 0, PL2_RW, PV_MPAM_R_MPAM1_EL12,
                PV_NV2_MPAM1 | NV2_REDIR_NO_NV1),
};

static const ARMCPRegInfo pv_mpam_sme_regs[] = {
    PV_MPAM_REG("MPAMSM_EL1", 0, 10, 5, 3, PL1_RW, PV_MPAM_R_SM, 0),
};

static ARMCPRegInfo *pv_mpam_find(ARMCPU *cpu, unsigned op1, unsigned crn, unsigned crm,
                                  unsigned op2)
{
    return (ARMCPRegInfo *)get_arm_cp_reginfo(
        cpu->cp_regs, ENCODE_AA64_CP_REG(CP_REG_ARM64_SYSREG_CP, crn, crm, 3, op1, op2));
}

/* ---- Realize ------------------------------------------------------------------------------ */

bool pv_mpam_realize(ARMCPU *cpu, PvHwCPU *h, Error **errp)
{
    ARMCPRegInfo *pfr1 = pv_mpam_find(cpu, 0, 0, 4, 1);
    bool sme = cpu_isar_feature(aa64_sme, cpu);
    size_t i;
    PvMpam *s;

    /* QEMU 10.0 has none of these registers: the model adds them, it replaces nothing. */
    for (i = 0; i < ARRAY_SIZE(pv_mpam_regs); i++) {
        const ARMCPRegInfo *ri = &pv_mpam_regs[i];

        if (pv_mpam_find(cpu, ri->opc1, ri->crn, ri->crm, ri->opc2)) {
            error_setg(errp, "perfvisor: QEMU's CPU has %s already: pv-mpam was written for "
                       "a QEMU without MPAM", ri->name);
            return false;
        }
    }
    if (!pfr1 || !(pfr1->type & ARM_CP_CONST) ||
        FIELD_EX64(cpu->isar.id_aa64pfr0, ID_AA64PFR0, MPAM) != 0 ||
        FIELD_EX64(cpu->isar.id_aa64pfr1, ID_AA64PFR1, MPAM_FRAC) != 0) {
        error_setg(errp, "perfvisor: QEMU's CPU is not the one pv-mpam was written for "
                   "(ID_AA64PFR1_EL1 a constant, no MPAM of its own)");
        return false;
    }
    s = g_new0(PvMpam, 1);
    s->mpam2_valid = PV_MPAM_MPAMEN | PV_MPAM2_TIDR | (sme ? PV_MPAM2_ENMPAMSM : 0) |
                     PV_MPAM2_TRAPMPAM0EL1 | PV_MPAM2_TRAPMPAM1EL1 | PV_MPAMN_IDS;
    h->mpam_state = s;

    define_arm_cp_regs(cpu, pv_mpam_regs);
    for (i = 0; i <= PV_MPAM_VPMR_MAX; i++) {
        g_autofree char *name = g_strdup_printf("MPAMVPM%zu_EL2", i);
        ARMCPRegInfo ri = PV_MPAM_REG(NULL, 4, 10, 6, i, PL2_RW, PV_MPAM_R_VPM0 + i,
                                      PV_NV2_MPAMVPM0 + 8 * i);

        ri.name = name;
        define_one_arm_cp_reg(cpu, &ri);
    }
    if (cpu_isar_feature(aa64_vh, cpu)) {
        define_arm_cp_regs(cpu, pv_mpam_vhe_regs);
    }
    if (sme) {
        define_arm_cp_regs(cpu, pv_mpam_sme_regs);
    }
    /* Every MPAM register's reset, with MPAM2_EL2's. */
    pv_mpam_find(cpu, 4, 10, 5, 0)->resetfn = pv_mpam_reset;

    /*
     * MPAM v1.1: ID_AA64PFR0_EL1.MPAM, which QEMU cleared before this hook (read live), and
     * ID_AA64PFR1_EL1.MPAM_frac, a constant register whose value is its registered copy's.
     */
    cpu->isar.id_aa64pfr0 = deposit64(cpu->isar.id_aa64pfr0, PV_PFR0_MPAM_SHIFT, 4, 1);
    cpu->isar.id_aa64pfr1 = deposit64(cpu->isar.id_aa64pfr1, PV_PFR1_MPAM_FRAC_SHIFT, 4, 1);
    pfr1->resetvalue = cpu->isar.id_aa64pfr1;
    return true;
}

void pv_mpam_free(PvHwCPU *h)
{
    g_free(h->mpam_state);
    h->mpam_state = NULL;
}
