/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PMU as the Arm ARM says, where QEMU's differs (pv-pmu-fixes=on):
 *
 * 1. An event counter's overflow is raised when it wraps. QEMU's overflow timer is armed for
 *    one event short of the wrap, and when it fires there (the counter at all ones) the next
 *    delay it computes is 0, which arms nothing: the overflow waits for the next read of the
 *    counter. Here the delay is the events left to the wrap, a counter at 0 a full period
 *    (D13.3.1; J1.3.1, CheckForPMUOverflow()).
 * 2. The interrupt line is what D13.3.1 says: counter n requests it when PMINTENSET<n> and
 *    PMOVSSET<n> are set and n is enabled, by PMCR_EL0.E for the counters below
 *    MDCR_EL2.HPMN and the cycle counter, by MDCR_EL2.HPME for those at or above HPMN
 *    (QEMU gates every counter on PMCR_EL0.E), and it is computed again on every write of
 *    PMCR_EL0 and MDCR_EL2 (QEMU's leave it as it was).
 * 3. The counters at or above HPMN are out of reach of EL1 and EL0 when EL2 is enabled
 *    (D13.1.1; GetNumEventCountersAccessible(), J1.3.1): their bits of PMCNTEN, PMINTEN,
 *    PMOVS and PMSWINC read as zero and ignore writes, PMCR_EL0.P leaves them alone, and
 *    with FEAT_FGT an access to PMEVCNTR<n>_EL0 or PMEVTYPER<n>_EL0 of one, or to
 *    PMXEVCNTR_EL0 or PMXEVTYPER_EL0 with PMSELR_EL0.SEL naming one, is trapped to EL2 once
 *    the register's own traps (PMUSERENR_EL0 at EL0, the fine-grained trap, MDCR_EL2.TPM)
 *    have not taken it (D24.5.10, D24.5.12, D24.5.27, D24.5.28; the AArch32 views alike).
 *    PMSELR_EL0.SEL naming a counter the PE does not implement makes PMXEVCNTR_EL0 (SEL = 31
 *    too) and PMXEVTYPER_EL0 (not SEL = 31, which is PMCCFILTR_EL0) UNDEFINED at every EL,
 *    before any trap. QEMU hides only PMCR_EL0.N, and reads zero and ignores writes past
 *    PMCR_EL0.N. Without FEAT_FGT these accesses are CONSTRAINED UNPREDICTABLE; the model
 *    then UNDEFs PMEVCNTR<n>/PMEVTYPER<n> and makes PMXEVCNTR/PMXEVTYPER read zero and
 *    ignore writes, as QEMU does past PMCR_EL0.N.
 * 4. PMUSERENR_EL0 has its fine-grained trap, bit 57 of HDFGRTR_EL2 and HDFGWTR_EL2 (D24.2.67,
 *    D24.2.69): QEMU 10.0 gives the register none, so EL1 reads and writes it untrapped.
 * 5. INST_RETIRED counts the CPU's own instructions (pv-hw.c): QEMU counts every CPU's.
 *
 * The functions of the registered copies are swapped in place; each copy keeps its original
 * in its orig_readfn/orig_writefn/orig_accessfn fields, QEMU's own place for a replaced
 * function, which these registers do not otherwise use.
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/irq.h"
#include "system/cpu-timers.h"
#include "cpu.h"
#include "cpregs.h"
#include "internals.h"
#include "syndrome.h"
#include "pv-hw.h"
#include "pv-internal.h"

/* Fields, from the register descriptions of the Arm ARM (D24.5.8, D24.3.17). */
#define PV_PMCR_E        (1ULL << 0)
#define PV_PMCR_P        (1ULL << 1)
#define PV_PMCR_N_SHIFT  11
#define PV_PMCR_N_MASK   0x1fULL
#define PV_MDCR_HPMN     0x1fULL
#define PV_MDCR_HPME     (1ULL << 7)
#define PV_CYCLE_COUNTER 31
/* PMUSERENR_EL0's bit in HDFGRTR_EL2 and in HDFGWTR_EL2 (D24.2.67, D24.2.69). */
#define PV_HDFGXTR_PMUSERENR_EL0 57

/* PMCR_EL0.N: the event counters the PE implements. */
static unsigned pv_pmu_counters(CPUARMState *env)
{
    return (env_archcpu(env)->isar.reset_pmcr_el0 >> PV_PMCR_N_SHIFT) & PV_PMCR_N_MASK;
}

/*
 * The event counters the current Exception level may reach, as the Arm ARM's
 * GetNumEventCountersAccessible() (J1.3.1) counts them: HPMN at EL1 and EL0 while EL2 is
 * enabled (the EL2&0 regime's EL0 too), all of them otherwise.
 */
static unsigned pv_pmu_accessible(CPUARMState *env)
{
    unsigned n = pv_pmu_counters(env);
    unsigned hpmn;

    if (arm_current_el(env) >= 2 || !arm_feature(env, ARM_FEATURE_EL2) ||
        !arm_is_el2_enabled(env)) {
        return n;
    }
    hpmn = env->cp15.mdcr_el2 & PV_MDCR_HPMN;
    return MIN(hpmn, n);
}

/* The bits of PMCNTEN, PMINTEN, PMOVS and PMSWINC the current EL may see. */
static uint64_t pv_pmu_visible(CPUARMState *env)
{
    return (1ULL << PV_CYCLE_COUNTER) | ((1ULL << pv_pmu_accessible(env)) - 1);
}

/* The interrupt request, as D13.3.1 (CheckForPMUOverflow()) computes it. */
static void pv_pmu_irq(CPUARMState *env)
{
    ARMCPU *cpu = env_archcpu(env);
    unsigned n = pv_pmu_counters(env);
    unsigned hpmn = n;
    uint64_t enabled = 0;

    if (arm_feature(env, ARM_FEATURE_EL2)) {
        hpmn = MIN(env->cp15.mdcr_el2 & PV_MDCR_HPMN, n);
    }
    if (env->cp15.c9_pmcr & PV_PMCR_E) {
        enabled |= (1ULL << PV_CYCLE_COUNTER) | ((1ULL << hpmn) - 1);
    }
    if (env->cp15.mdcr_el2 & PV_MDCR_HPME) {
        enabled |= ((1ULL << n) - 1) & ~((1ULL << hpmn) - 1);
    }
    qemu_set_irq(cpu->pmu_interrupt,
                 (env->cp15.c9_pminten & env->cp15.c9_pmovsr & enabled) != 0);
}

static bool pv_pmu_fixes(CPUARMState *env)
{
    PvHwCPU *s = pv_hw_cpu(env_cpu(env));

    return s && s->pmu_fixes;
}

bool pv_hw_pmu_update_irq(CPUARMState *env)
{
    if (!pv_pmu_fixes(env)) {
        return false;
    }
    pv_pmu_irq(env);
    return true;
}

uint64_t pv_hw_pmevcntr_delta(CPUARMState *env, uint8_t counter)
{
    uint64_t left = -env->cp15.c14_pmevcntr[counter];

    if (!pv_pmu_fixes(env)) {
        return -(env->cp15.c14_pmevcntr[counter] + 1); /* stock: one short */
    }
    /*
     * The events left to the wrap. QEMU truncates the delay to 32 bits for a 32-bit counter,
     * where a full period (a counter at 0) is 2^32: one short of it then, and the timer fired
     * there arms the last event. A 64-bit counter at 0 is 2^64 - 1 away, never in practice.
     */
    if ((uint32_t)left == 0) {
        left--;
    }
    return left;
}

/* ---- The registered copies' new functions ------------------------------------------- */

static uint64_t pv_field_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return cpreg_field_is_64bit(ri) ? CPREG_FIELD64(env, ri) : CPREG_FIELD32(env, ri);
}

static uint64_t pv_orig_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return ri->orig_readfn ? ri->orig_readfn(env, ri) : pv_field_read(env, ri);
}

static void pv_orig_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    if (ri->orig_writefn) {
        ri->orig_writefn(env, ri, value);
    } else {
        raw_write(env, ri, value);
    }
}

/* PMCR_EL0 (PMCR): P resets only the counters the EL may reach; the line computed again. */
static void pv_pmcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    unsigned reach = pv_pmu_accessible(env);

    if ((value & PV_PMCR_P) && reach < pv_pmu_counters(env)) {
        unsigned i;

        pv_orig_write(env, ri, value & ~PV_PMCR_P);
        pmu_op_start(env);
        for (i = 0; i < reach; i++) {
            env->cp15.c14_pmevcntr[i] = 0;
        }
        pmu_op_finish(env);
    } else {
        pv_orig_write(env, ri, value);
    }
    pv_pmu_irq(env);
}

/* MDCR_EL2 (HDCR): HPMN and HPME move counters between enables; the line computed again. */
static void pv_mdcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    pv_orig_write(env, ri, value);
    pv_pmu_irq(env);
}

/* PMCNTENSET/CLR, PMINTENSET/CLR, PMOVSSET/CLR: the hidden counters' bits RAZ/WI. */
static uint64_t pv_bits_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return pv_orig_read(env, ri) & pv_pmu_visible(env);
}

static void pv_bits_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    pv_orig_write(env, ri, value & pv_pmu_visible(env));
}

static bool pv_pmu_fgt(CPUARMState *env)
{
    return cpu_isar_feature(aa64_fgt, env_archcpu(env));
}

static CPAccessResult pv_orig_access(CPUARMState *env, const ARMCPRegInfo *ri, bool isread)
{
    return ri->orig_accessfn ? ri->orig_accessfn(env, ri, isread) : CP_ACCESS_OK;
}

static G_NORETURN void pv_undefined(CPUARMState *env)
{
    /*
     * Raised here rather than returned: QEMU's caller would let a fine-grained trap to EL2
     * take priority over an UNDEFINED an access function returns.
     */
    raise_exception(env, EXCP_UDEF, syn_uncategorized(), exception_target_el(env));
}

/*
 * An access to event counter n's PMEVCNTR/PMEVTYPER, directly or through PMSELR_EL0.SEL, as
 * the registers' pseudocode orders it (D24.5.10, D24.5.12, D24.5.27, D24.5.28), once n is
 * known to be implemented. QEMU's access function takes the traps that come first: at EL0
 * PMUSERENR_EL0 (to EL1), then MDCR_EL2.TPM (to EL2), and its caller the fine-grained trap
 * (to EL2, unless the access function gave a trap to EL1). Then, at EL1 and EL0 with EL2
 * enabled, n at or above HPMN is trapped to EL2 with FEAT_FGT, before MDCR_EL3.TPM; without
 * FEAT_FGT the access is CONSTRAINED UNPREDICTABLE, and `undef` says whether the model
 * UNDEFs it (else QEMU's functions run, which the caller makes read zero and ignore writes).
 */
static CPAccessResult pv_counter_access(CPUARMState *env, const ARMCPRegInfo *ri,
                                        bool isread, unsigned n, bool undef)
{
    CPAccessResult res = pv_orig_access(env, ri, isread);

    if (n < pv_pmu_accessible(env)) {
        return res;
    }
    if (res != CP_ACCESS_OK && res != CP_ACCESS_TRAP_EL3) {
        return res; /* a trap to EL1 or EL2 that comes first, or UNDEFINED */
    }
    if (pv_pmu_fgt(env)) {
        return CP_ACCESS_TRAP_EL2;
    }
    if (undef) {
        pv_undefined(env);
    }
    return res;
}

/* PMEVCNTR<n>_EL0, PMEVTYPER<n>_EL0 (and their AArch32 views): n is the encoding's. */
static CPAccessResult pv_indexed_access(CPUARMState *env, const ARMCPRegInfo *ri,
                                        bool isread)
{
    unsigned n = ((ri->crm & 3) << 3) | (ri->opc2 & 7);

    /* QEMU registers only the implemented counters: the others are UNDEFINED already. */
    return pv_counter_access(env, ri, isread, n, true);
}

/* PMXEVTYPER_EL0 (op2 1), PMXEVCNTR_EL0 (op2 2), and their AArch32 views: PMSELR_EL0.SEL. */
static CPAccessResult pv_selected_access(CPUARMState *env, const ARMCPRegInfo *ri,
                                         bool isread)
{
    unsigned sel = env->cp15.c9_pmselr & 31;
    bool typer = ri->opc2 == 1;

    if (typer && sel == PV_CYCLE_COUNTER) {
        return pv_orig_access(env, ri, isread); /* PMCCFILTR_EL0 */
    }
    if (sel >= pv_pmu_counters(env)) {
        /* Not implemented: UNDEFINED at every EL, before any trap, with FEAT_FGT. */
        if (pv_pmu_fgt(env)) {
            pv_undefined(env);
        }
        return pv_orig_access(env, ri, isread); /* QEMU's: read as zero, writes ignored */
    }
    return pv_counter_access(env, ri, isread, sel, false);
}

/*
 * PMXEVCNTR_EL0, PMXEVTYPER_EL0 without FEAT_FGT: a hidden counter selected reads as zero and
 * ignores writes, as QEMU makes one the PE does not implement (with FEAT_FGT the access
 * function has trapped it).
 */
static bool pv_selected_hidden(CPUARMState *env)
{
    unsigned sel = env->cp15.c9_pmselr & 31;

    return sel != PV_CYCLE_COUNTER && sel >= pv_pmu_accessible(env);
}

static uint64_t pv_selected_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return pv_selected_hidden(env) ? 0 : pv_orig_read(env, ri);
}

static void pv_selected_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    if (!pv_selected_hidden(env)) {
        pv_orig_write(env, ri, value);
    }
}

/* ---- Which registers, by their encodings ---------------------------------------------- */

typedef enum PvRole {
    PV_ROLE_NONE,
    PV_ROLE_PMCR,
    PV_ROLE_MDCR,
    PV_ROLE_BITS,     /* enables, interrupt enables, overflow flags */
    PV_ROLE_SWINC,
    PV_ROLE_INDEXED,  /* PMEVCNTR<n>, PMEVTYPER<n> */
    PV_ROLE_SELECTED, /* PMXEVCNTR, PMXEVTYPER */
    PV_ROLE_USERENR,  /* PMUSERENR: its fine-grained trap */
} PvRole;

/*
 * The encodings, from the register descriptions of the Arm ARM (D24.5, D24.3.17): AArch64
 * (op0, op1, CRn, CRm, op2), and the AArch32 views in cp15 (opc1, CRn, CRm, opc2).
 */
static PvRole pv_role_aa64(unsigned op0, unsigned op1, unsigned crn, unsigned crm,
                           unsigned op2)
{
    if (op0 == 3 && op1 == 4 && crn == 1 && crm == 1 && op2 == 1) {
        return PV_ROLE_MDCR;
    }
    if (op0 != 3 || (op1 != 3 && op1 != 0)) {
        return PV_ROLE_NONE;
    }
    if (op1 == 0) { /* PMINTENSET_EL1, PMINTENCLR_EL1 */
        return crn == 9 && crm == 14 && (op2 == 1 || op2 == 2) ? PV_ROLE_BITS : PV_ROLE_NONE;
    }
    if (crn == 9 && crm == 12) {
        switch (op2) {
        case 0: return PV_ROLE_PMCR;
        case 1: case 2: case 3: return PV_ROLE_BITS; /* PMCNTENSET/CLR, PMOVSCLR */
        case 4: return PV_ROLE_SWINC;
        }
    }
    if (crn == 9 && crm == 14 && op2 == 3) { /* PMOVSSET_EL0 */
        return PV_ROLE_BITS;
    }
    if (crn == 9 && crm == 14 && op2 == 0) { /* PMUSERENR_EL0 */
        return PV_ROLE_USERENR;
    }
    if (crn == 9 && crm == 13 && (op2 == 1 || op2 == 2)) {
        return PV_ROLE_SELECTED;
    }
    if (crn == 14 && crm >= 8 && !(crm == 15 && op2 == 7)) { /* not PMCCFILTR_EL0 */
        return PV_ROLE_INDEXED;
    }
    return PV_ROLE_NONE;
}

static PvRole pv_role_aa32(unsigned opc1, unsigned crn, unsigned crm, unsigned opc2)
{
    if (opc1 == 4 && crn == 1 && crm == 1 && opc2 == 1) { /* HDCR */
        return PV_ROLE_MDCR;
    }
    if (opc1 != 0) {
        return PV_ROLE_NONE;
    }
    if (crn == 9 && crm == 12) {
        switch (opc2) {
        case 0: return PV_ROLE_PMCR;
        case 1: case 2: case 3: return PV_ROLE_BITS; /* PMCNTENSET/CLR, PMOVSR */
        case 4: return PV_ROLE_SWINC;
        }
    }
    if (crn == 9 && crm == 14 && opc2 >= 1 && opc2 <= 3) { /* PMINTENSET/CLR, PMOVSSET */
        return PV_ROLE_BITS;
    }
    if (crn == 9 && crm == 14 && opc2 == 0) { /* PMUSERENR */
        return PV_ROLE_USERENR;
    }
    if (crn == 9 && crm == 13 && (opc2 == 1 || opc2 == 2)) {
        return PV_ROLE_SELECTED;
    }
    if (crn == 14 && crm >= 8 && !(crm == 15 && opc2 == 7)) { /* not PMCCFILTR */
        return PV_ROLE_INDEXED;
    }
    return PV_ROLE_NONE;
}

static PvRole pv_role(uint32_t key)
{
    if (key & CP_REG_AA64_MASK) {
        return pv_role_aa64((key & CP_REG_ARM64_SYSREG_OP0_MASK) >> CP_REG_ARM64_SYSREG_OP0_SHIFT,
                            (key & CP_REG_ARM64_SYSREG_OP1_MASK) >> CP_REG_ARM64_SYSREG_OP1_SHIFT,
                            (key & CP_REG_ARM64_SYSREG_CRN_MASK) >> CP_REG_ARM64_SYSREG_CRN_SHIFT,
                            (key & CP_REG_ARM64_SYSREG_CRM_MASK) >> CP_REG_ARM64_SYSREG_CRM_SHIFT,
                            (key & CP_REG_ARM64_SYSREG_OP2_MASK) >> CP_REG_ARM64_SYSREG_OP2_SHIFT);
    }
    /* ENCODE_CP_REG(): cp [19:16], is64 [15], crn [14:11], crm [10:7], opc1 [6:3], opc2 [2:0] */
    if (((key >> 16) & 0xf) != 15 || (key & (1 << 15))) {
        return PV_ROLE_NONE;
    }
    return pv_role_aa32((key >> 3) & 0xf, (key >> 11) & 0xf, (key >> 7) & 0xf, key & 7);
}

typedef struct PvSwap {
    ARMCPU *cpu;
    unsigned found[PV_ROLE_USERENR + 1];
    /* A copy already using the fields the originals go to, or with another trap bit. */
    const char *drifted;
} PvSwap;

static void pv_swap_one(gpointer key, gpointer value, gpointer opaque)
{
    PvSwap *sw = opaque;
    ARMCPRegInfo *ri = value;
    PvRole role = pv_role((uint32_t)(uintptr_t)key);

    if (role == PV_ROLE_NONE || (ri->type & ARM_CP_CONST)) {
        return;
    }
    if (role == PV_ROLE_USERENR) {
        /*
         * The fine-grained trap of reads (EL1, EL0) and writes (EL1): one bit, the same in
         * HDFGRTR_EL2 and HDFGWTR_EL2, so QEMU's FGT_HDFGRTR encoding checks both.
         */
        uint32_t fgt = FGT_HDFGRTR | PV_HDFGXTR_PMUSERENR_EL0;

        if (ri->fgt && ri->fgt != fgt) {
            sw->drifted = ri->name;
            return;
        }
        ri->fgt = fgt;
        sw->found[role]++;
        return;
    }
    if (ri->orig_readfn || ri->orig_writefn || ri->orig_accessfn) {
        sw->drifted = ri->name;
        return;
    }
    /* Raw accesses (reset, gdb) keep what they did: the original functions, or the field. */
    if (!ri->raw_readfn && !(ri->type & ARM_CP_NO_RAW)) {
        ri->raw_readfn = ri->readfn ? ri->readfn : pv_field_read;
    }
    if (!ri->raw_writefn && ri->writefn && !(ri->type & ARM_CP_NO_RAW)) {
        ri->raw_writefn = ri->writefn;
    }
    ri->orig_readfn = ri->readfn;
    ri->orig_writefn = ri->writefn;
    ri->orig_accessfn = ri->accessfn;
    switch (role) {
    case PV_ROLE_PMCR:
        ri->writefn = pv_pmcr_write;
        break;
    case PV_ROLE_MDCR:
        ri->writefn = pv_mdcr_write;
        break;
    case PV_ROLE_BITS:
    case PV_ROLE_SWINC:
        if (role == PV_ROLE_BITS) {
            ri->readfn = pv_bits_read;
        }
        ri->writefn = pv_bits_write;
        break;
    case PV_ROLE_INDEXED:
        ri->accessfn = pv_indexed_access;
        break;
    case PV_ROLE_SELECTED:
        ri->accessfn = pv_selected_access;
        ri->readfn = pv_selected_read;
        ri->writefn = pv_selected_write;
        break;
    default:
        g_assert_not_reached();
    }
    sw->found[role]++;
}

bool pv_pmu_realize(ARMCPU *cpu, PvHwCPU *s, Error **errp)
{
    PvSwap sw = { .cpu = cpu };
    bool el2 = arm_feature(&cpu->env, ARM_FEATURE_EL2);

    g_hash_table_foreach(cpu->cp_regs, pv_swap_one, &sw);
    if (sw.drifted) {
        error_setg(errp, "perfvisor: QEMU already changed what pv-pmu-fixes changes in %s, "
                   "so the fixes cannot apply", sw.drifted);
        return false;
    }
    /*
     * What every PMUv3 with EL2 registers must be there: a QEMU that no longer registers
     * them (or every counter's) has drifted from the one the fixes were written for.
     */
    if (!sw.found[PV_ROLE_PMCR] || (el2 && !sw.found[PV_ROLE_MDCR]) ||
        sw.found[PV_ROLE_BITS] < 6 || !sw.found[PV_ROLE_SWINC] ||
        sw.found[PV_ROLE_SELECTED] < 2 || !sw.found[PV_ROLE_USERENR] ||
        sw.found[PV_ROLE_INDEXED] < 2 * pv_pmu_counters(&cpu->env)) {
        error_setg(errp, "perfvisor: QEMU's PMU registers are not those pv-pmu-fixes was "
                   "written for");
        return false;
    }
    return true;
}
