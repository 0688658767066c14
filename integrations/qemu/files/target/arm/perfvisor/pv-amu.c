/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfvisor's model of the Activity Monitors Extension, FEAT_AMUv1p1 (or FEAT_AMUv1), for
 * QEMU's AArch64 CPUs with EL2 and without EL3, TCG with -icount (shift=N) only. Written from
 * the Arm ARM (D16, the AMU; D24.6, its registers; D24.2.61, HAFGRTR_EL2) with its own
 * constants.
 *
 * Group 0, the architected counters (D16.3.1), each from a deterministic source:
 *   0  CPU_CYCLES         the CPU's own instructions: the model's core clock runs one cycle
 *                         per instruction and only while the CPU executes, so it stops in WFI
 *   1  CNT_CYCLES         the generic counter (CNTPCT_EL0's count, without CNTVOFF_EL2)
 *   2  INST_RETIRED       the CPU's own instructions (pv-hw.c's per-CPU count under icount)
 *   3  STALL_BACKEND_MEM  0: the model has no cache and no memory stall
 * Group 1, three auxiliary counters with fixed IMPLEMENTATION DEFINED events (D16.3.2), the
 * CPU's own instructions retired at one Exception level each, counted from the change of EL
 * at every exception entry and return:
 *   0  0x00c0  instructions retired at EL0 (has a virtual offset)
 *   1  0x00c1  instructions retired at EL1 (has a virtual offset)
 *   2  0x00c2  instructions retired at EL2 (no virtual offset)
 * The traps are the accessibility pseudocode of D24.6 with no EL3: CPTR_EL2.TAM, then
 * AMUSERENR_EL0.EN for EL0, then HAFGRTR_EL2, which QEMU 10.0 does not have: the model keeps
 * it and checks its bits in the access functions below. Writes to the counters and controls
 * are allowed only at EL2, the highest EL. HCR_EL2.AMVOFFEN, which QEMU's HCR_EL2 drops, is
 * kept here too (and read back with HCR_EL2).
 * Not modelled: AArch32 (ID_PFR0.AMU stays 0), the memory-mapped view, halting in Debug
 * state (AMCR_EL0.HDBG is stored), FEAT_NV2's VNCR_EL2 redirections of the offsets, CNT_CYCLES
 * stopping in WFI/WFE (it follows the generic counter throughout).
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "cpu.h"
#include "internals.h"
#include "cpregs.h"
#include "pv-hw.h"
#include "pv-internal.h"

/* ID_AA64PFR0_EL1.AMU, bits [47:44] (D24.2.93) */
#define PV_PFR0_AMU_SHIFT   44
#define PV_AMU_V1           1
#define PV_AMU_V1P1         2

#define PV_AMU_G0           4       /* architected counters */
#define PV_AMU_G1           3       /* auxiliary counters */
#define PV_AMU_G1_VOFF      0x3     /* the auxiliary counters with an offset */

/* AMCR_EL0 (D24.6.8) */
#define PV_AMCR_HDBG        (1ULL << 10)
#define PV_AMCR_CG1RZ       (1ULL << 17)
/* AMCFGR_EL0 (D24.6.1): NCG, HDBG, SIZE, N */
#define PV_AMCFGR_NCG_SHIFT 28
#define PV_AMCFGR_HDBG      (1ULL << 24)
#define PV_AMCFGR_SIZE      (63ULL << 8)
/* AMCGCR_EL0 (D24.6.3) */
#define PV_AMCGCR_CG1NC_SHIFT 8
/* AMCG1IDR_EL0 (D24.6.2): the counters, and the offsets from bit 16 */
#define PV_AMCG1IDR_VOFF_SHIFT 16
/* AMUSERENR_EL0.EN (D24.6.15) */
#define PV_AMUSERENR_EN     1ULL
/* AMEVTYPER<g><n>_EL0.evtCount, bits [15:0] (D24.6.13, D24.6.14) */
#define PV_EV_CPU_CYCLES    0x0011
#define PV_EV_CNT_CYCLES    0x4004
#define PV_EV_INST_RETIRED  0x0008
#define PV_EV_STALL_BACKEND_MEM 0x4005
#define PV_EV_AUX_EL0       0x00c0
/* CPTR_EL2.TAM, bit 30 in both layouts (D24.2.38) */
#define PV_CPTR_TAM         (1ULL << 30)
/* HCR_EL2.AMVOFFEN, bit 51 (D24.2.62) */
#define PV_HCR_AMVOFFEN     (1ULL << 51)
/* HAFGRTR_EL2 (D24.2.61): AMCNTEN0 bit 0, AMEVCNTR0<x> bit x+1, AMCNTEN1 bit 17, then */
/* AMEVCNTR1<x> bit 18+2x and AMEVTYPER1<x> bit 19+2x */
#define PV_HAFGRTR_AMCNTEN0 (1ULL << 0)
#define PV_HAFGRTR_AMCNTEN1 (1ULL << 17)
#define PV_HAFGRTR_AMEVCNTR0(x)  (1ULL << ((x) + 1))
#define PV_HAFGRTR_AMEVCNTR1(x)  (1ULL << (18 + 2 * (x)))
#define PV_HAFGRTR_AMEVTYPER1(x) (1ULL << (19 + 2 * (x)))
/* AMCNTEN0, AMEVCNTR0<0..3>, AMCNTEN1, and the two bits of each auxiliary counter: 17..23 */
#define PV_HAFGRTR_VALID    (0x1fULL | PV_HAFGRTR_AMCNTEN1 | MAKE_64BIT_MASK(18, 2 * PV_AMU_G1))

struct PvAmu {
    ARMCPU *cpu;
    bool v1p1;
    uint64_t amcr;
    uint64_t userenr;
    uint32_t cnten[2];
    /* A counter's value: val, plus while it is enabled its source's advance since base. */
    uint64_t val[2][PV_AMU_G0];
    uint64_t base[2][PV_AMU_G0];
    uint64_t voff[2][PV_AMU_G0];
    uint64_t hafgrtr;
    bool amvoffen;
    /* The instructions retired at each EL until the last change of EL (el_mark). */
    uint64_t el_insns[3];
    uint64_t el_mark;
    CPWriteFn *hcr_write;
    CPReadFn *hcr_read;
};

static PvAmu *pv_amu(CPUARMState *env)
{
    return pv_hw_cpu(env_cpu(env))->amu_state;
}

static const unsigned pv_amu_count[2] = { PV_AMU_G0, PV_AMU_G1 };

/* ---- The counters' sources ---------------------------------------------------------------- */

static uint64_t pv_amu_source(PvAmu *s, unsigned g, unsigned n)
{
    CPUARMState *env = &s->cpu->env;
    uint64_t insns = pv_hw_cpu_insns(CPU(s->cpu));
    unsigned el;

    if (g == 0) {
        switch (n) {
        case 0:     /* CPU_CYCLES: one cycle per instruction */
        case 2:     /* INST_RETIRED */
            return insns;
        case 1:     /* CNT_CYCLES: the generic counter's physical count */
            return gt_get_countervalue(env);
        default:    /* STALL_BACKEND_MEM: no memory stall in the model */
            return 0;
        }
    }
    el = arm_current_el(env);
    return s->el_insns[n] + (el == n ? insns - s->el_mark : 0);
}

/* Before the CPU changes EL: what it executed since the last change, to the EL it leaves. */
static void pv_amu_pre_el_change(ARMCPU *cpu, void *opaque)
{
    PvAmu *s = opaque;
    uint64_t insns = pv_hw_cpu_insns(CPU(cpu));
    unsigned el = arm_current_el(&cpu->env);

    if (el < 3) {
        s->el_insns[el] += insns - s->el_mark;
    }
    s->el_mark = insns;
}

/* The counter's physical value (D16.2.1: 64 bits, wrapping). */
static uint64_t pv_amu_value(PvAmu *s, unsigned g, unsigned n)
{
    if (s->cnten[g] & (1u << n)) {
        return s->val[g][n] + (pv_amu_source(s, g, n) - s->base[g][n]);
    }
    return s->val[g][n];
}

static void pv_amu_set_enables(PvAmu *s, unsigned g, uint32_t enables)
{
    unsigned n;

    for (n = 0; n < pv_amu_count[g]; n++) {
        uint32_t bit = 1u << n;

        if ((enables & bit) && !(s->cnten[g] & bit)) {
            s->base[g][n] = pv_amu_source(s, g, n);
        } else if (!(enables & bit) && (s->cnten[g] & bit)) {
            s->val[g][n] += pv_amu_source(s, g, n) - s->base[g][n];
        }
    }
    s->cnten[g] = enables & MAKE_64BIT_MASK(0, pv_amu_count[g]);
}

/* ---- Access ------------------------------------------------------------------------------ */

/*
 * The common part of D24.6's accessibility pseudocode with EL2 and no EL3: writes only at
 * the highest EL; at EL0, AMUSERENR_EL0.EN (to EL2 with HCR_EL2.TGE, else EL1), then
 * CPTR_EL2.TAM; at EL1, CPTR_EL2.TAM. fgt: the HAFGRTR_EL2 bit of the register, 0 for none
 * (checked after TAM; at EL0 only outside the host).
 */
static CPAccessResult pv_amu_check(CPUARMState *env, PvAmu *s, bool isread, bool userenr,
                                   uint64_t fgt)
{
    int el = arm_current_el(env);

    if (!isread && el < 2) {
        return CP_ACCESS_UNDEFINED;
    }
    if (el == 0 && !userenr && !(s->userenr & PV_AMUSERENR_EN)) {
        return CP_ACCESS_TRAP_EL1;  /* routed to EL2 by HCR_EL2.TGE */
    }
    if (el < 2 && arm_is_el2_enabled(env) && (env->cp15.cptr_el[2] & PV_CPTR_TAM)) {
        return CP_ACCESS_TRAP_EL2;
    }
    if (fgt && el < 2 && arm_fgt_active(env, el) && !(el == 0 && el_is_in_host(env, 0)) &&
        (s->hafgrtr & fgt)) {
        return CP_ACCESS_TRAP_EL2;
    }
    return CP_ACCESS_OK;
}

typedef enum PvAmuReg {
    PV_AMU_AMCR,
    PV_AMU_AMCFGR,
    PV_AMU_AMCGCR,
    PV_AMU_AMUSERENR,
    PV_AMU_CNTENCLR0,
    PV_AMU_CNTENSET0,
    PV_AMU_CG1IDR,
    PV_AMU_CNTENCLR1,
    PV_AMU_CNTENSET1,
    PV_AMU_EVCNTR0,     /* + n, for each of the following */
    PV_AMU_EVCNTR1 = PV_AMU_EVCNTR0 + 16,
    PV_AMU_EVTYPER0 = PV_AMU_EVCNTR1 + 16,
    PV_AMU_EVTYPER1 = PV_AMU_EVTYPER0 + 16,
    PV_AMU_VOFF0 = PV_AMU_EVTYPER1 + 16,
    PV_AMU_VOFF1 = PV_AMU_VOFF0 + 16,
    PV_AMU_HAFGRTR = PV_AMU_VOFF1 + 16,
} PvAmuReg;

static PvAmuReg pv_amu_reg(const ARMCPRegInfo *ri)
{
    return (PvAmuReg)(uintptr_t)ri->opaque;
}

static CPAccessResult pv_amu_access(CPUARMState *env, const ARMCPRegInfo *ri, bool isread)
{
    PvAmu *s = pv_amu(env);
    PvAmuReg r = pv_amu_reg(ri);

    switch (r) {
    case PV_AMU_AMUSERENR:
        /* EL1 may write it; EL0 reads it whatever EN says */
        if (!isread && arm_current_el(env) == 0) {
            return CP_ACCESS_UNDEFINED;
        }
        return pv_amu_check(env, s, true, true, 0);
    case PV_AMU_CNTENCLR0:
    case PV_AMU_CNTENSET0:
        return pv_amu_check(env, s, isread, false, PV_HAFGRTR_AMCNTEN0);
    case PV_AMU_CNTENCLR1:
    case PV_AMU_CNTENSET1:
        return pv_amu_check(env, s, isread, false, PV_HAFGRTR_AMCNTEN1);
    case PV_AMU_EVCNTR0 ... PV_AMU_EVCNTR0 + 15:
        return pv_amu_check(env, s, isread, false, PV_HAFGRTR_AMEVCNTR0(r - PV_AMU_EVCNTR0));
    case PV_AMU_EVCNTR1 ... PV_AMU_EVCNTR1 + 15:
        return pv_amu_check(env, s, isread, false, PV_HAFGRTR_AMEVCNTR1(r - PV_AMU_EVCNTR1));
    case PV_AMU_EVTYPER1 ... PV_AMU_EVTYPER1 + 15:
        /* the types are fixed: writes UNDEFINED at every EL */
        return pv_amu_check(env, s, isread, false, PV_HAFGRTR_AMEVTYPER1(r - PV_AMU_EVTYPER1));
    default:
        return pv_amu_check(env, s, isread, false, 0);
    }
}

/*
 * The view of EL1 and EL0 with HCR_EL2.AMVOFFEN set (D16.2.5): less the counter's offset,
 * with FEAT_AMUv1p1, EL2 enabled and HCR_EL2.{E2H, TGE} not {1, 1} (D24.6.9, D24.6.10: the
 * host's EL0 reads the physical count).
 */
static uint64_t pv_amu_read_counter(CPUARMState *env, PvAmu *s, unsigned g, unsigned n)
{
    uint64_t v = pv_amu_value(s, g, n);
    bool has_off = g == 0 ? n != 1 : (PV_AMU_G1_VOFF >> n) & 1;

    if (g == 1 && arm_current_el(env) < 2 && (s->amcr & PV_AMCR_CG1RZ)) {
        return 0;
    }
    if (s->v1p1 && has_off && arm_current_el(env) < 2 && arm_is_el2_enabled(env) &&
        !el_is_in_host(env, 0) && s->amvoffen) {
        v -= s->voff[g][n];
    }
    return v;
}

static uint64_t pv_amu_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvAmu *s = pv_amu(env);
    PvAmuReg r = pv_amu_reg(ri);
    static const uint16_t g0_types[PV_AMU_G0] = {
        PV_EV_CPU_CYCLES, PV_EV_CNT_CYCLES, PV_EV_INST_RETIRED, PV_EV_STALL_BACKEND_MEM,
    };

    switch (r) {
    case PV_AMU_AMCR:
        return s->amcr;
    case PV_AMU_AMCFGR:
        return (1ULL << PV_AMCFGR_NCG_SHIFT) | PV_AMCFGR_HDBG | PV_AMCFGR_SIZE |
               (PV_AMU_G0 + PV_AMU_G1 - 1);
    case PV_AMU_AMCGCR:
        return ((uint64_t)PV_AMU_G1 << PV_AMCGCR_CG1NC_SHIFT) | PV_AMU_G0;
    case PV_AMU_AMUSERENR:
        return s->userenr;
    case PV_AMU_CNTENCLR0:
    case PV_AMU_CNTENSET0:
        return s->cnten[0];
    case PV_AMU_CNTENCLR1:
    case PV_AMU_CNTENSET1:
        return s->cnten[1];
    case PV_AMU_CG1IDR:
        return ((uint64_t)PV_AMU_G1_VOFF << PV_AMCG1IDR_VOFF_SHIFT) |
               MAKE_64BIT_MASK(0, PV_AMU_G1);
    case PV_AMU_EVCNTR0 ... PV_AMU_EVCNTR0 + PV_AMU_G0 - 1:
        return pv_amu_read_counter(env, s, 0, r - PV_AMU_EVCNTR0);
    case PV_AMU_EVCNTR1 ... PV_AMU_EVCNTR1 + PV_AMU_G1 - 1:
        return pv_amu_read_counter(env, s, 1, r - PV_AMU_EVCNTR1);
    case PV_AMU_EVTYPER0 ... PV_AMU_EVTYPER0 + PV_AMU_G0 - 1:
        return g0_types[r - PV_AMU_EVTYPER0];
    case PV_AMU_EVTYPER1 ... PV_AMU_EVTYPER1 + PV_AMU_G1 - 1:
        return PV_EV_AUX_EL0 + (r - PV_AMU_EVTYPER1);
    case PV_AMU_VOFF0 ... PV_AMU_VOFF0 + PV_AMU_G0 - 1:
        return s->voff[0][r - PV_AMU_VOFF0];
    case PV_AMU_VOFF1 ... PV_AMU_VOFF1 + PV_AMU_G1 - 1:
        return s->voff[1][r - PV_AMU_VOFF1];
    case PV_AMU_HAFGRTR:
        return s->hafgrtr;
    default:
        return 0;
    }
}

static void pv_amu_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvAmu *s = pv_amu(env);
    PvAmuReg r = pv_amu_reg(ri);
    unsigned n;

    switch (r) {
    case PV_AMU_AMCR:
        s->amcr = value & (PV_AMCR_HDBG | (s->v1p1 ? PV_AMCR_CG1RZ : 0));
        break;
    case PV_AMU_AMUSERENR:
        s->userenr = value & PV_AMUSERENR_EN;
        break;
    case PV_AMU_CNTENSET0:
        pv_amu_set_enables(s, 0, s->cnten[0] | value);
        break;
    case PV_AMU_CNTENCLR0:
        pv_amu_set_enables(s, 0, s->cnten[0] & ~value);
        break;
    case PV_AMU_CNTENSET1:
        pv_amu_set_enables(s, 1, s->cnten[1] | value);
        break;
    case PV_AMU_CNTENCLR1:
        pv_amu_set_enables(s, 1, s->cnten[1] & ~value);
        break;
    case PV_AMU_EVCNTR0 ... PV_AMU_EVCNTR0 + PV_AMU_G0 - 1:
        n = r - PV_AMU_EVCNTR0;
        s->val[0][n] = value;
        s->base[0][n] = pv_amu_source(s, 0, n);
        break;
    case PV_AMU_EVCNTR1 ... PV_AMU_EVCNTR1 + PV_AMU_G1 - 1:
        n = r - PV_AMU_EVCNTR1;
        s->val[1][n] = value;
        s->base[1][n] = pv_amu_source(s, 1, n);
        break;
    case PV_AMU_VOFF0 ... PV_AMU_VOFF0 + PV_AMU_G0 - 1:
        s->voff[0][r - PV_AMU_VOFF0] = value;
        break;
    case PV_AMU_VOFF1 ... PV_AMU_VOFF1 + PV_AMU_G1 - 1:
        s->voff[1][r - PV_AMU_VOFF1] = value;
        break;
    case PV_AMU_HAFGRTR:
        s->hafgrtr = value & PV_HAFGRTR_VALID;
        break;
    default:
        break;
    }
}

/* The AMU reset (D16.2.3): counters zero, disabled; controls zero. */
static void pv_amu_reset(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvAmu *s = pv_amu(env);
    uint64_t insns = pv_hw_cpu_insns(CPU(s->cpu));

    s->amcr = 0;
    s->userenr = 0;
    s->cnten[0] = s->cnten[1] = 0;
    memset(s->val, 0, sizeof(s->val));
    memset(s->base, 0, sizeof(s->base));
    memset(s->voff, 0, sizeof(s->voff));
    memset(s->el_insns, 0, sizeof(s->el_insns));
    s->el_mark = insns;
    s->hafgrtr = 0;
    s->amvoffen = false;
}

#define PV_AMU_TYPE (ARM_CP_IO | ARM_CP_NO_RAW)
#define PV_AMU_REG(NAME, OP1, CRM, OP2, ACC, REG)                              \
    { .name = NAME, .state = ARM_CP_STATE_AA64, .type = PV_AMU_TYPE,           \
      .opc0 = 3, .opc1 = OP1, .crn = 13, .crm = CRM, .opc2 = OP2,              \
      .access = ACC, .accessfn = pv_amu_access,                                \
      .opaque = (void *)(uintptr_t)(REG),                                      \
      .readfn = pv_amu_read, .writefn = pv_amu_write }

/* D24.6's encodings, op0 3, CRn 13. */
static const ARMCPRegInfo pv_amu_regs[] = {
    PV_AMU_REG("AMCR_EL0", 3, 2, 0, PL0_RW, PV_AMU_AMCR),
    PV_AMU_REG("AMCFGR_EL0", 3, 2, 1, PL0_R, PV_AMU_AMCFGR),
    PV_AMU_REG("AMCGCR_EL0", 3, 2, 2, PL0_R, PV_AMU_AMCGCR),
    PV_AMU_REG("AMUSERENR_EL0", 3, 2, 3, PL0_RW, PV_AMU_AMUSERENR),
    PV_AMU_REG("AMCNTENCLR0_EL0", 3, 2, 4, PL0_RW, PV_AMU_CNTENCLR0),
    PV_AMU_REG("AMCNTENSET0_EL0", 3, 2, 5, PL0_RW, PV_AMU_CNTENSET0),
    PV_AMU_REG("AMCNTENCLR1_EL0", 3, 3, 0, PL0_RW, PV_AMU_CNTENCLR1),
    PV_AMU_REG("AMCNTENSET1_EL0", 3, 3, 1, PL0_RW, PV_AMU_CNTENSET1),
};

static const ARMCPRegInfo pv_amu_v1p1_regs[] = {
    PV_AMU_REG("AMCG1IDR_EL0", 3, 2, 6, PL0_R, PV_AMU_CG1IDR),
};

static void pv_amu_define(ARMCPU *cpu, const char *fmt, unsigned n, unsigned op1,
                          unsigned crm, int access, PvAmuReg reg)
{
    ARMCPRegInfo ri = PV_AMU_REG(NULL, op1, crm | (n >> 3), n & 7, access, reg + n);
    g_autofree char *name = g_strdup_printf(fmt, n);

    ri.name = name;
    define_one_arm_cp_reg(cpu, &ri);
}

/* ---- HCR_EL2.AMVOFFEN -------------------------------------------------------------------- */

static void pv_amu_hcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvAmu *s = pv_amu(env);

    s->amvoffen = s->v1p1 && (value & PV_HCR_AMVOFFEN);
    s->hcr_write(env, ri, value);
}

static uint64_t pv_amu_field_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return CPREG_FIELD64(env, ri);
}

static uint64_t pv_amu_hcr_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvAmu *s = pv_amu(env);
    uint64_t v = s->hcr_read ? s->hcr_read(env, ri) : pv_amu_field_read(env, ri);

    return v | (s->amvoffen ? PV_HCR_AMVOFFEN : 0);
}

static ARMCPRegInfo *pv_amu_find(ARMCPU *cpu, unsigned op1, unsigned crn, unsigned crm,
                                 unsigned op2)
{
    return (ARMCPRegInfo *)get_arm_cp_reginfo(
        cpu->cp_regs, ENCODE_AA64_CP_REG(CP_REG_ARM64_SYSREG_CP, crn, crm, 3, op1, op2));
}

/* ---- Realize ------------------------------------------------------------------------------ */

bool pv_amu_realize(ARMCPU *cpu, PvHwCPU *h, bool v1p1, Error **errp)
{
    ARMCPRegInfo *hcr = pv_amu_find(cpu, 4, 1, 1, 0);
    PvAmu *s;
    unsigned n;

    if (!hcr || !hcr->writefn || pv_amu_find(cpu, 3, 13, 2, 0) ||
        FIELD_EX64(cpu->isar.id_aa64pfr0, ID_AA64PFR0, AMU) != 0) {
        error_setg(errp, "perfvisor: QEMU's CPU is not the one pv-amu was written for "
                   "(HCR_EL2, no AMU of its own)");
        return false;
    }
    s = g_new0(PvAmu, 1);
    s->cpu = cpu;
    s->v1p1 = v1p1;
    h->amu_state = s;

    define_arm_cp_regs(cpu, pv_amu_regs);
    for (n = 0; n < PV_AMU_G0; n++) {
        pv_amu_define(cpu, "AMEVCNTR0%u_EL0", n, 3, 4, PL0_RW, PV_AMU_EVCNTR0);
        pv_amu_define(cpu, "AMEVTYPER0%u_EL0", n, 3, 6, PL0_R, PV_AMU_EVTYPER0);
    }
    for (n = 0; n < PV_AMU_G1; n++) {
        pv_amu_define(cpu, "AMEVCNTR1%u_EL0", n, 3, 12, PL0_RW, PV_AMU_EVCNTR1);
        pv_amu_define(cpu, "AMEVTYPER1%u_EL0", n, 3, 14, PL0_R, PV_AMU_EVTYPER1);
    }
    if (v1p1) {
        define_arm_cp_regs(cpu, pv_amu_v1p1_regs);
        /* Offsets for group 0's counters 0, 2 and 3 (not 1, D16.2.5) and AMCG1IDR's. */
        for (n = 0; n < PV_AMU_G0; n++) {
            if (n != 1) {
                pv_amu_define(cpu, "AMEVCNTVOFF0%u_EL2", n, 4, 8, PL2_RW, PV_AMU_VOFF0);
            }
        }
        for (n = 0; n < PV_AMU_G1; n++) {
            if ((PV_AMU_G1_VOFF >> n) & 1) {
                pv_amu_define(cpu, "AMEVCNTVOFF1%u_EL2", n, 4, 10, PL2_RW, PV_AMU_VOFF1);
            }
        }
    }
    if (cpu_isar_feature(aa64_fgt, cpu)) {
        ARMCPRegInfo ri = {
            .name = "HAFGRTR_EL2", .state = ARM_CP_STATE_AA64, .type = PV_AMU_TYPE,
            .opc0 = 3, .opc1 = 4, .crn = 3, .crm = 1, .opc2 = 6, .access = PL2_RW,
            .opaque = (void *)(uintptr_t)PV_AMU_HAFGRTR,
            .readfn = pv_amu_read, .writefn = pv_amu_write,
        };
        define_one_arm_cp_reg(cpu, &ri);
    }
    /* The whole AMU's reset, with AMCR_EL0's. */
    pv_amu_find(cpu, 3, 13, 2, 0)->resetfn = pv_amu_reset;

    /* ID_AA64PFR0_EL1.AMU, which QEMU cleared before this hook (id_aa64pfr0 is read live). */
    cpu->isar.id_aa64pfr0 = deposit64(cpu->isar.id_aa64pfr0, PV_PFR0_AMU_SHIFT, 4,
                                      v1p1 ? PV_AMU_V1P1 : PV_AMU_V1);

    /* HCR_EL2.AMVOFFEN: QEMU's write drops it; kept here and read back. */
    s->hcr_write = hcr->writefn;
    hcr->writefn = pv_amu_hcr_write;
    s->hcr_read = hcr->readfn;
    hcr->readfn = pv_amu_hcr_read;
    if (!hcr->raw_readfn && !(hcr->type & ARM_CP_NO_RAW)) {
        hcr->raw_readfn = s->hcr_read ? s->hcr_read : pv_amu_field_read;
    }
    if (!hcr->raw_writefn && !(hcr->type & ARM_CP_NO_RAW)) {
        hcr->raw_writefn = s->hcr_write;
    }

    arm_register_pre_el_change_hook(cpu, pv_amu_pre_el_change, s);
    return true;
}

void pv_amu_free(PvHwCPU *h)
{
    g_free(h->amu_state);
    h->amu_state = NULL;
}
