/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Statistical Profiling Extension, SPEv1p2 (FEAT_SPE, FEAT_SPEv1p1, FEAT_SPEv1p2 with
 * FEAT_SPE_FnE), for `-cpu max,pv-spe=on` under TCG with -icount: Arm ARM chapter D17 (the
 * extension), D18 (the records) and D24.7 (the registers), with the J1 pseudocode's
 * StatisticalProfilingEnabled(), SPEToCollectSample(), SPECollectRecord(),
 * SPEConstructRecord(), SPEWriteToBuffer() and SPEBufferIsFull() as the model of each step.
 *
 * Registers: PMSCR_EL1 (PMSCR_EL12 at EL2 with E2H, and PMSCR_EL2 through PMSCR_EL1 there),
 * PMSCR_EL2, PMSICR_EL1, PMSIRR_EL1, PMSFCR_EL1, PMSEVFR_EL1, PMSNEVFR_EL1, PMSLATFR_EL1,
 * PMSIDR_EL1, PMBLIMITR_EL1, PMBPTR_EL1, PMBSR_EL1, PMBIDR_EL1, with their traps:
 * MDCR_EL2.TPMS (PMS*), MDCR_EL2.E2PB (PMB*), the fine-grained traps of HDFGRTR_EL2 and
 * HDFGWTR_EL2 (QEMU checks them from each register's .fgt), FEAT_NV2's redirections to
 * memory. ID_AA64DFR0_EL1.PMSVer is 0b0011; PMCR_EL0.FZS and PMBLIMITR_EL1.PMFZ are stored
 * (they freeze nothing without PMUv3p7: SPEFreezeOnEvent()).
 *
 * Sampling. The sample population is every A64 instruction the CPU executes while profiling
 * is enabled at its Exception level (PMSIDR_EL1.ArchInst = 1), counted with the per-CPU
 * instruction count of pv-hw.c. PMSICR_EL1.COUNT runs as SPEToCollectSample() says: an
 * instruction that finds it zero reloads it (PMSIRR_EL1.INTERVAL:0x00, or a pseudorandom low
 * byte with RND), one that decrements it to zero is sampled, so samples are INTERVAL * 256 + 1
 * instructions apart. A QEMU timer on the virtual clock stops the CPU right before the
 * sampled instruction (under icount an instruction takes a fixed time, and the CPU's run ends
 * at the timer's deadline); the instruction is then fetched and decoded at its PC
 * (pv-spe-a64.c) with the registers it will read, and its record written at once, before it
 * executes. With other CPUs running too, the timer may fire early: it is armed again for what
 * is left. Profiling is evaluated again (and the counter brought up to date) at every
 * exception entry and return, and at every write of a register it depends on (the SPE
 * registers, HCR_EL2, MDCR_EL2): all of them end their translation block, so the count is
 * exact there.
 *
 * Records, in SPEConstructRecord()'s order: Context packets (CONTEXTIDR_EL1, CONTEXTIDR_EL2)
 * as PMSCR_EL1.CX and PMSCR_EL2.CX allow; Counter packets (total and issue latency, and the
 * translation latency of a load or store); Address packets (the PC, a taken branch's target,
 * the data virtual address and, as PMSCR_ELx.PA allow, the physical one); the Operation Type
 * packet; a 16-bit Events packet; a Timestamp packet as PMSCR_ELx.TS and PCT select
 * (CollectTimeStamp()), else an End packet. No Data Source packet (PMSIDR_EL1.LDS = 0). At
 * most 60 bytes: PMSIDR_EL1.MaxSize says 64; PMBIDR_EL1.Align is 0, records are not padded.
 *
 * What silicon measures and a model cannot, the model invents, the same way every run (each
 * CPU keeps the last sampled data address):
 *   - Level 1 data cache: every load and store accesses it (E[2]); it misses and refills
 *     (E[3]) when its 64-byte line is not the line of the CPU's previous sampled access;
 *   - the last-level cache: accessed on every L1 refill (E[8]), missed (E[9]) when the page
 *     is not the previous sampled access's page either;
 *   - the TLB: accessed by every load and store (E[4]); walked (E[5]) when the 4 KiB page
 *     is not the previous sampled access's page;
 *   - misaligned (E[11]): the access crosses a 64-byte line;
 *   - mispredicted (E[7]): a conditional branch predicted statically, backward taken and
 *     forward not taken; other branches never;
 *   - latencies, in cycles: issue 1; translation 16 after a TLB walk, else 0; total = issue
 *     + translation + 4 for a load that hits L1, 12 for one that hits the last level, 60
 *     for one that misses it, 1 for a store, a branch (9 mispredicted) and anything else;
 *   - RND's pseudorandom byte: a xorshift generator seeded from the CPU index at reset.
 * A load, store or prefetch whose data address does not translate (it will fault), an
 * instruction that does not translate, and SVC, HVC, SMC, BRK, HLT and UDF record E[0]
 * (generated exception) with no cache or TLB event. No sample ever collides (COLL never set):
 * a record is written whole before the next instruction.
 *
 * The Profiling Buffer: written through the owning translation regime (EL1&0, EL2 or EL2&0 as
 * MDCR_EL2.E2PB and HCR_EL2.E2H give it) with QEMU's own stage 1 and stage 2 walks
 * (get_phys_addr() with that regime's privileged, PAN-free MMU index, then
 * address_space_write()), page by page. A fault stops profiling with PMBSR_EL1.EC 0x24
 * (stage 1) or 0x25 (stage 2, a stage-2 fault on a stage-1 walk too), the fault's FSC, and
 * PMBPTR_EL1 at the faulting address (DL when a record was cut); a full buffer
 * (SPEBufferIsFull() after a record) with EC 0, BSC 1; External aborts on the writes are
 * ignored (PMBIDR_EL1.EA = 0b0001). Where software breaks the write pointer's rules
 * (D17.7.4: CONSTRAINED UNPREDICTABLE), the model chooses: a record that would not fit below
 * the limit is discarded with a buffer-full event; PMBPTR_EL1[63:56] != LIMIT[63:56] is an
 * access-not-allowed event (EC 0, BSC 0, DL). Discard mode (PMBLIMITR_EL1.FM = 0b10) writes
 * nothing. PMBIRQ, PMBSR_EL1.S, is the CPU's "pv-spe-interrupt" line, PPI 21 on virt.
 *
 * Left out: FEAT_SPE_EXC (PMBSR_EL2, PMSCR_ELx.EE/KE: it needs FEAT_EBEP's PSTATE.PM and an
 * exception QEMU does not have), FEAT_SPE_nVM (with EL2 it needs FEAT_FGT2, which QEMU 10.0
 * lacks), FEAT_SPEv1p3 and later, FEAT_SPE_ERnd, PBT, CRR, FDS, EFT, FPF, SME, ALTCLK; the
 * SAMPLE_* PMU events; EL3 (MDCR_EL3.NSPB and friends: SPE is off on a CPU with EL3); AArch32
 * (profiling is disabled there, as the architecture says).
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/timer.h"
#include "hw/irq.h"
#include "system/cpu-timers.h"
#include "exec/memory.h"
#include "cpu.h"
#include "cpregs.h"
#include "internals.h"
#include "pv-hw.h"
#include "pv-internal.h"

/* ---- The architecture's constants (D24.7, D24.3.17, D24.2, D17, D18) ------------------ */

/* ID_AA64DFR0_EL1.PMSVer, bits [35:32]: FEAT_SPEv1p2. */
#define PV_DFR0_PMSVER_SHIFT    32
#define PV_PMSVER_V1P2          3

/* MDCR_EL2 */
#define PV_MDCR_E2PB_SHIFT      12
#define PV_MDCR_TPMS            (1ULL << 14)
/* HCR_EL2 */
#define PV_HCR_TGE              (1ULL << 27)
#define PV_HCR_E2H              (1ULL << 34)
/* CNTHCTL_EL2.ECV */
#define PV_CNTHCTL_ECV          (1ULL << 12)

/* PMSCR_EL1 and PMSCR_EL2 */
#define PV_PMSCR_E0SPE          (1ULL << 0)     /* E0HSPE in PMSCR_EL2 */
#define PV_PMSCR_E1SPE          (1ULL << 1)     /* E2SPE in PMSCR_EL2 */
#define PV_PMSCR_CX             (1ULL << 3)
#define PV_PMSCR_PA             (1ULL << 4)
#define PV_PMSCR_TS             (1ULL << 5)
#define PV_PMSCR_PCT_SHIFT      6
#define PV_PMSCR_RW             0xfbULL         /* bits [7:3], [1:0] (PCT 2 bits: FEAT_ECV) */

/* PMSIRR_EL1 */
#define PV_PMSIRR_RND           (1ULL << 0)
#define PV_PMSIRR_RW            0xffffff01ULL
/* PMSICR_EL1.COUNT, bits [31:0] (ECOUNT, [63:56], without FEAT_SPE_ERnd is RES0) */
#define PV_PMSICR_RW            0xffffffffULL
/* PMSFCR_EL1 */
#define PV_PMSFCR_FE            (1ULL << 0)
#define PV_PMSFCR_FT            (1ULL << 1)
#define PV_PMSFCR_FL            (1ULL << 2)
#define PV_PMSFCR_FNE           (1ULL << 3)
#define PV_PMSFCR_B             (1ULL << 16)
#define PV_PMSFCR_LD            (1ULL << 17)
#define PV_PMSFCR_ST            (1ULL << 18)
#define PV_PMSFCR_RW            0x7000fULL
/* PMSLATFR_EL1.MINLAT: 12 bits with 12-bit counters */
#define PV_PMSLATFR_RW          0xfffULL

/*
 * The events the model generates and filters on (SPEFilterByEvents()'s mask): retired (1),
 * L1D access (2), L1D refill (3), TLB access (4), TLB walk (5), not taken (6, FEAT_SPE_FnE),
 * mispredicted (7), LLC access (8), LLC miss (9), misaligned (11, SPEv1p1), SVE partial and
 * empty predicate (17, 18, SPEv1p1 with SVE). PMSEVFR_EL1 and PMSNEVFR_EL1 hold these bits
 * (the others RAZ/WI); remote access (10) is never generated here, so not filterable.
 */
#define PV_SPE_EV_EXCEPTION     (1u << 0)
#define PV_SPE_EV_RETIRED       (1u << 1)
#define PV_SPE_EV_L1D_ACCESS    (1u << 2)
#define PV_SPE_EV_L1D_REFILL    (1u << 3)
#define PV_SPE_EV_TLB_ACCESS    (1u << 4)
#define PV_SPE_EV_TLB_WALK      (1u << 5)
#define PV_SPE_EV_NOT_TAKEN     (1u << 6)
#define PV_SPE_EV_MISPRED       (1u << 7)
#define PV_SPE_EV_LLC_ACCESS    (1u << 8)
#define PV_SPE_EV_LLC_MISS      (1u << 9)
#define PV_SPE_EV_MISALIGNED    (1u << 11)
#define PV_PMSEVFR_RW           0x60bfeULL

/* PMBLIMITR_EL1 */
#define PV_PMBLIMITR_E          (1ULL << 0)
#define PV_PMBLIMITR_FM_SHIFT   1
#define PV_PMBLIMITR_FM_DISCARD 2
#define PV_PMBLIMITR_PMFZ       (1ULL << 5)
#define PV_PMBLIMITR_LIMIT      (~0xfffULL)
#define PV_PMBLIMITR_RW         (PV_PMBLIMITR_LIMIT | 0x27ULL)
/* PMBSR_EL1 */
#define PV_PMBSR_S              (1ULL << 17)
#define PV_PMBSR_DL             (1ULL << 19)
#define PV_PMBSR_EC_SHIFT       26
/* MSS2 [55:32], EC [31:26], DL, EA, S, COLL [19:16], MSS [15:0] */
#define PV_PMBSR_RW             0x00fffffffc0fffffULL
#define PV_PMBSR_EC_OTHER       0x00
#define PV_PMBSR_EC_S1          0x24
#define PV_PMBSR_EC_S2          0x25
#define PV_PMBSR_BSC_NOT_ALLOWED 0x00
#define PV_PMBSR_BSC_FULL       0x01

/* PMSIDR_EL1: FE, FT, FL, ArchInst, FnE; Interval 0 (256); MaxSize 64 bytes; 12-bit counters */
#define PV_SPE_MAXSIZE_LOG2     6
#define PV_PMSIDR_VALUE         (0x7ULL | 1ULL << 3 | 1ULL << 6 | \
                                 (uint64_t)PV_SPE_MAXSIZE_LOG2 << 12 | 2ULL << 16)
/* PMBIDR_EL1: Align 0 (byte), F 1, EA 0b0001 (External aborts ignored); P is computed */
#define PV_PMBIDR_VALUE         (1ULL << 5 | 1ULL << 8)
#define PV_PMBIDR_P             (1ULL << 4)

/* HDFGRTR_EL2/HDFGWTR_EL2 bit positions (D24.2.67, D24.2.69) */
#define PV_FGT_PMBLIMITR        23
#define PV_FGT_PMBPTR           24
#define PV_FGT_PMBSR            25
#define PV_FGT_PMSCR            26
#define PV_FGT_PMSEVFR          27
#define PV_FGT_PMSFCR           28
#define PV_FGT_PMSICR           29
#define PV_FGT_PMSIDR           30
#define PV_FGT_PMSIRR           31
#define PV_FGT_PMSLATFR         32
#define PV_FGT_NPMSNEVFR        62      /* trap when 0 */
#define PV_FGT_PMBIDR           63
/* PMCR_EL0.FZS (SPEv1p2) */
#define PV_PMCR_FZS             (1ULL << 32)

/* Packet headers (D18.1.4, D18.2) */
#define PV_SPE_HDR_END          0x01
#define PV_SPE_HDR_TIMESTAMP    0x71
#define PV_SPE_HDR_EVENTS16     0x52
#define PV_SPE_HDR_OPTYPE       0x48    /* | CLASS */
#define PV_SPE_HDR_CONTEXT      0x64    /* | INDEX */
#define PV_SPE_HDR_ADDRESS      0xb0    /* | INDEX, short format */
#define PV_SPE_HDR_COUNTER      0x98    /* | INDEX, short format */
#define PV_SPE_ADDR_PC          0
#define PV_SPE_ADDR_TARGET      1
#define PV_SPE_ADDR_DATA_VA     2
#define PV_SPE_ADDR_DATA_PA     3
#define PV_SPE_CNT_TOTAL        0
#define PV_SPE_CNT_ISSUE        1
#define PV_SPE_CNT_XLAT         2
#define PV_SPE_COUNT_MAX        0xfff   /* 12-bit saturating counters */
#define PV_SPE_CLASS_OTHER      0
#define PV_SPE_CLASS_LDST       1
#define PV_SPE_CLASS_BRANCH     2

/* The model's invented latencies (above) */
#define PV_SPE_LAT_ISSUE        1
#define PV_SPE_LAT_WALK         16
#define PV_SPE_LAT_L1_HIT       4
#define PV_SPE_LAT_LLC_HIT      12
#define PV_SPE_LAT_LLC_MISS     60
#define PV_SPE_LAT_OP           1
#define PV_SPE_LAT_MISPREDICT   8

struct PvSpe {
    ARMCPU *cpu;
    PvHwCPU *hw;
    QEMUTimer *timer;
    /* The registers */
    uint64_t pmscr_el1, pmscr_el2;
    uint64_t pmsirr, pmsfcr, pmsevfr, pmsnevfr, pmslatfr;
    uint64_t pmblimitr, pmbptr, pmbsr;
    uint64_t pmcr_fzs;
    /*
     * The interval counter: COUNT was `count` when the CPU had executed `base` instructions;
     * while `counting` (profiling enabled at the current EL) each instruction since then has
     * done what SPEToCollectSample() does. `rnd` is the pseudorandom byte the next reload
     * takes with RND.
     */
    bool counting;
    uint64_t base;
    uint32_t count;
    uint8_t rnd;
    uint64_t rng;
    /* The invented cache and TLB: the last sampled data access */
    uint64_t last_line, last_page;
    bool irq_level;
    /* The functions of QEMU's registers the model wraps (pv_spe_wrap()) */
    CPWriteFn *hcr_write, *mdcr_write, *pmcr_write;
    CPReadFn *pmcr_read;
};

/* ---- Helpers ---------------------------------------------------------------------------- */

static PvSpe *pv_spe(CPUARMState *env)
{
    PvHwCPU *h = pv_hw_cpu(env_cpu(env));

    return h ? h->spe_state : NULL;
}

static bool pv_spe_el2_enabled(CPUARMState *env)
{
    return arm_feature(env, ARM_FEATURE_EL2) && arm_is_el2_enabled(env);
}

static unsigned pv_spe_e2pb(CPUARMState *env)
{
    return (env->cp15.mdcr_el2 >> PV_MDCR_E2PB_SHIFT) & 3;
}

/* ProfilingBufferOwner(): the owning Exception level (the Security state is Non-secure). */
static unsigned pv_spe_owner(CPUARMState *env)
{
    return pv_spe_el2_enabled(env) && pv_spe_e2pb(env) == 0 ? 2 : 1;
}

static bool pv_spe_tge(CPUARMState *env)
{
    return pv_spe_el2_enabled(env) && (arm_hcr_el2_eff(env) & PV_HCR_TGE);
}

/* IsInHost(): EL2 with E2H, or EL0 with E2H and TGE. */
static bool pv_spe_in_host(CPUARMState *env)
{
    uint64_t hcr = arm_hcr_el2_eff(env);
    int el = arm_current_el(env);

    return (el == 2 && (hcr & PV_HCR_E2H)) ||
           (el == 0 && (hcr & (PV_HCR_E2H | PV_HCR_TGE)) == (PV_HCR_E2H | PV_HCR_TGE));
}

/* ProfilingBufferEnabled(): E, not stopped (PMBSR_EL1.S), the owner in AArch64. */
static bool pv_spe_buffer_enabled(PvSpe *s)
{
    CPUARMState *env = &s->cpu->env;

    return (s->pmblimitr & PV_PMBLIMITR_E) && !(s->pmbsr & PV_PMBSR_S) &&
           arm_el_is_aa64(env, pv_spe_owner(env));
}

/* StatisticalProfilingEnabled() at the current Exception level. */
static bool pv_spe_enabled(PvSpe *s)
{
    CPUARMState *env = &s->cpu->env;
    int el = arm_current_el(env);
    unsigned owner;
    bool tge;

    if (!is_a64(env) || !pv_spe_buffer_enabled(s)) {
        return false;
    }
    owner = pv_spe_owner(env);
    tge = pv_spe_tge(env);
    if (el > owner || (tge && owner == 1) || el == 3) {
        return false;
    }
    switch (el) {
    case 2:
        return s->pmscr_el2 & PV_PMSCR_E1SPE;       /* E2SPE */
    case 1:
        return s->pmscr_el1 & PV_PMSCR_E1SPE;
    default:
        return tge ? s->pmscr_el2 & PV_PMSCR_E0SPE  /* E0HSPE */
                   : s->pmscr_el1 & PV_PMSCR_E0SPE;
    }
}

static void pv_spe_irq(PvSpe *s)
{
    bool level = s->pmbsr & PV_PMBSR_S; /* PMBIRQ: PMBSR_EL1.S, without FEAT_SPE_EXC */

    if (level != s->irq_level) {
        s->irq_level = level;
        qemu_set_irq(s->hw->spe_irq, level);
    }
}

static uint8_t pv_spe_random(PvSpe *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng >> 56;
}

/*
 * SPEResetSampleCounter(): INTERVAL:0x00, or INTERVAL:random with RND. An INTERVAL of zero
 * gives an UNKNOWN interval (D24.7.15): the model's is 256, as INTERVAL 1.
 */
static uint32_t pv_spe_reload(PvSpe *s)
{
    uint32_t interval = (s->pmsirr >> 8) & 0xffffff;
    uint32_t value = (interval ? interval : 1) << 8;

    return s->pmsirr & PV_PMSIRR_RND ? value | s->rnd : value;
}

/* ---- The interval counter ------------------------------------------------------------- */

static uint64_t pv_spe_now(PvSpe *s)
{
    return pv_hw_cpu_insns(CPU(s->cpu));
}

/*
 * Brings COUNT up to date: each instruction since `base` did what SPEToCollectSample() does.
 * The timer samples the instruction that takes COUNT to zero before it executes and counts it
 * done (base = its own count + 1): until it has executed, nothing moves.
 */
static void pv_spe_sync(PvSpe *s)
{
    uint64_t now, k;

    if (!s->counting) {
        return;
    }
    now = pv_spe_now(s);
    if (now <= s->base) {
        return;
    }
    k = now - s->base;
    s->base = now;
    while (k) {
        if (s->count == 0) {
            s->count = pv_spe_reload(s);    /* this instruction reloads: not sampled */
            s->rnd = pv_spe_random(s);
            k--;
        } else if (k < s->count) {
            s->count -= k;
            k = 0;
        } else {
            /* The sample the timer takes before this point: never reached in practice. */
            k -= s->count;
            s->count = 0;
        }
    }
}

/* The instructions still to execute before the one to sample. */
static uint64_t pv_spe_until_sample(PvSpe *s)
{
    return s->count ? s->count - 1 : pv_spe_reload(s);
}

static void pv_spe_arm(PvSpe *s)
{
    uint64_t due = s->base + pv_spe_until_sample(s);
    uint64_t now = pv_spe_now(s);
    int64_t left = due > now ? (int64_t)MIN(due - now, 1ULL << 50) : 0;

    /* The soonest this CPU can get there: each of its instructions takes icount's time. */
    timer_mod(s->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + icount_to_ns(left));
}

/*
 * Profiling evaluated again: the counter brought up to date under the old state, then started
 * or stopped under the new one (D17.3.5: it keeps its value while profiling is disabled).
 */
static void pv_spe_update(PvSpe *s)
{
    bool on;

    pv_spe_sync(s);
    on = pv_spe_enabled(s);
    if (on && !s->counting) {
        s->base = pv_spe_now(s);
        s->counting = true;
    } else if (!on && s->counting) {
        s->counting = false;
    }
    if (on) {
        pv_spe_arm(s);
    } else {
        timer_del(s->timer);
    }
    pv_spe_irq(s);
}

/* ---- Buffer management events (D17.8) ------------------------------------------------- */

static void pv_spe_event(PvSpe *s, unsigned ec, uint64_t mss, bool dl)
{
    /* Only with PMBSR_EL1.S clear; other fields (EA, COLL) unchanged. */
    s->pmbsr &= ~((0x3fULL << PV_PMBSR_EC_SHIFT) | 0xffffULL | (0xffffffULL << 32));
    s->pmbsr |= PV_PMBSR_S | (uint64_t)ec << PV_PMBSR_EC_SHIFT | (mss & 0xffff);
    if (dl) {
        s->pmbsr |= PV_PMBSR_DL;
    }
}

/* The owning translation regime's MMU index for the SPU's privileged writes (PAN ignored). */
static ARMMMUIdx pv_spe_buffer_mmu_idx(CPUARMState *env)
{
    if (pv_spe_owner(env) == 1) {
        return ARMMMUIdx_E10_1;
    }
    return arm_hcr_el2_eff(env) & PV_HCR_E2H ? ARMMMUIdx_E20_2 : ARMMMUIdx_E2;
}

/*
 * SPEWriteToBuffer() for a whole record, page by page; then SPEBufferIsFull().
 */
static void pv_spe_write(PvSpe *s, const uint8_t *rec, unsigned len)
{
    CPUARMState *env = &s->cpu->env;
    CPUState *cs = CPU(s->cpu);
    uint64_t limit = s->pmblimitr & PV_PMBLIMITR_LIMIT;
    uint64_t ptr = s->pmbptr;
    ARMMMUIdx idx = pv_spe_buffer_mmu_idx(env);
    unsigned done = 0;

    if ((ptr >> 56) != (limit >> 56)) {
        /* D17.7.4, CONSTRAINED UNPREDICTABLE: the model reports access not allowed. */
        pv_spe_event(s, PV_PMBSR_EC_OTHER, PV_PMBSR_BSC_NOT_ALLOWED, true);
        return;
    }
    if (ptr > limit || limit - ptr < len) {
        /* Never past the limit: a record that does not fit is a buffer-full event. */
        pv_spe_event(s, PV_PMBSR_EC_OTHER, PV_PMBSR_BSC_FULL, false);
        return;
    }
    while (done < len) {
        GetPhysAddrResult res = {};
        ARMMMUFaultInfo fi = {};
        uint64_t page_left;
        unsigned n;

        if (get_phys_addr(env, ptr, MMU_DATA_STORE, 0, idx, &res, &fi)) {
            /* D17.8.3: PMBPTR_EL1 at the faulting address; DL if a record was cut. */
            s->pmbptr = ptr;
            pv_spe_event(s, fi.stage2 || fi.s1ptw ? PV_PMBSR_EC_S2 : PV_PMBSR_EC_S1,
                         arm_fi_to_lfsc(&fi) & 0x3f, done != 0);
            return;
        }
        /*
         * The write goes no further than the 4 KiB page it starts in, the smallest granule
         * (D8.2): with two stages, get_phys_addr() reports the larger of the two stages' page
         * sizes, so a 4 KiB stage-1 page over a 2 MiB stage-2 block would read as 2 MiB, and
         * a record's tail would land after its head in physical memory instead of in the
         * next stage-1 page.
         */
        page_left = 0x1000 - (ptr & 0xfff);
        n = MIN(len - done, page_left);
        /* External aborts on these writes are ignored (PMBIDR_EL1.EA = 0b0001). */
        address_space_write(cpu_get_address_space(cs, arm_asidx_from_attrs(cs, res.f.attrs)),
                            res.f.phys_addr, res.f.attrs, rec + done, n);
        ptr += n;
        done += n;
    }
    s->pmbptr = ptr;
    if (ptr + (1ULL << PV_SPE_MAXSIZE_LOG2) > limit) {
        pv_spe_event(s, PV_PMBSR_EC_OTHER, PV_PMBSR_BSC_FULL, false);
    }
}

/* ---- The sampled operation and its record --------------------------------------------- */

static void pv_spe_put(uint8_t *rec, unsigned *len, uint8_t hdr, uint64_t payload,
                       unsigned bytes)
{
    rec[(*len)++] = hdr;
    for (unsigned i = 0; i < bytes; i++) {
        rec[(*len)++] = payload >> (8 * i);
    }
}

/* An address packet's byte 7 for a PC or branch target: NS = 1 (Non-secure), EL, NSE = 0. */
static uint64_t pv_spe_code_addr(uint64_t va, unsigned el)
{
    return (va & ((1ULL << 56) - 1)) | 1ULL << 63 | (uint64_t)el << 61;
}

/* CollectTimeStamp(): false for none, else the value. */
static bool pv_spe_timestamp(PvSpe *s, uint64_t *ts)
{
    CPUARMState *env = &s->cpu->env;
    ARMCPU *cpu = s->cpu;
    unsigned owner = pv_spe_owner(env);
    unsigned pct1 = (s->pmscr_el1 >> PV_PMSCR_PCT_SHIFT) & 3;
    unsigned pct2 = (s->pmscr_el2 >> PV_PMSCR_PCT_SHIFT) & 3;
    uint64_t count = gt_get_countervalue(env);
    enum { PV_TS_PHYS, PV_TS_VIRT, PV_TS_OFFSET_PHYS } kind;
    bool poff;

    if (!((owner == 2 ? s->pmscr_el2 : s->pmscr_el1) & PV_PMSCR_TS)) {
        return false;
    }
    /* The reserved PCT value 0b10, CONSTRAINED UNPREDICTABLE: the model takes 0b00. */
    pct1 = pct1 == 2 ? 0 : pct1;
    pct2 = pct2 == 2 ? 0 : pct2;
    kind = PV_TS_PHYS;
    if (pv_spe_el2_enabled(env) && pct2 == 0) {
        kind = PV_TS_VIRT;
    } else if (pv_spe_el2_enabled(env) && pct2 == 1 && owner == 2) {
        kind = PV_TS_PHYS;
    } else if (pv_spe_el2_enabled(env) && pct2 == 3) {
        kind = owner == 1 && pct1 == 0 ? PV_TS_VIRT : PV_TS_OFFSET_PHYS;
    } else {
        kind = pct1 == 0 ? PV_TS_VIRT : pct1 == 1 ? PV_TS_PHYS : PV_TS_OFFSET_PHYS;
    }
    if (kind == PV_TS_VIRT && pv_spe_in_host(env)) {
        kind = PV_TS_PHYS;
    }
    switch (kind) {
    case PV_TS_VIRT:
        *ts = count - (pv_spe_el2_enabled(env) ? env->cp15.cntvoff_el2 : 0);
        break;
    case PV_TS_OFFSET_PHYS:
        /* CNTPOFF_EL2 with FEAT_ECV_POFF (ID_AA64MMFR0_EL1.ECV 2) and CNTHCTL_EL2.ECV. */
        poff = FIELD_EX64(cpu->isar.id_aa64mmfr0, ID_AA64MMFR0, ECV) >= 2 &&
               pv_spe_el2_enabled(env) && (env->cp15.cnthctl_el2 & PV_CNTHCTL_ECV);
        *ts = count - (poff ? env->cp15.cntpoff_el2 : 0);
        break;
    default:
        *ts = count;
        break;
    }
    return true;
}

/* SPEFilterByType(), SPEFilterByEvents(), SPEFilterByLatency(): true to keep the record. */
static bool pv_spe_collect(PvSpe *s, const PvSpeOp *op, uint32_t events, unsigned total)
{
    uint64_t fcr = s->pmsfcr;

    if (fcr & PV_PMSFCR_FT) {
        unsigned ctrl = (fcr >> 16) & 7;  /* B, LD, ST */
        unsigned flags = (op->type == PV_SPE_OP_BRANCH) | (op->load << 1) | (op->store << 2);

        /* ctrl zero is CONSTRAINED UNPREDICTABLE: the model collects. */
        if (ctrl && !(flags & ctrl)) {
            return false;
        }
    }
    if (fcr & PV_PMSFCR_FE) {
        uint64_t evfr = s->pmsevfr & PV_PMSEVFR_RW;

        if (evfr && (~(uint64_t)events & evfr)) {
            return false;
        }
    }
    if (fcr & PV_PMSFCR_FNE) {
        uint64_t nevfr = s->pmsnevfr & PV_PMSEVFR_RW;

        if (nevfr && (events & nevfr)) {
            return false;
        }
    }
    if ((fcr & PV_PMSFCR_FL) && s->pmslatfr && total < s->pmslatfr) {
        return false;
    }
    return true;
}

/*
 * The instruction at the PC, about to execute, is the sampled operation: its record is made,
 * filtered and written (SPECompleteSample()).
 */
static void pv_spe_sample(PvSpe *s)
{
    CPUARMState *env = &s->cpu->env;
    CPUState *cs = CPU(s->cpu);
    int el = arm_current_el(env);
    uint64_t pc = env->pc;
    GetPhysAddrResult res = {};
    ARMMMUFaultInfo fi = {};
    PvSpeOp op = {};
    uint32_t events = PV_SPE_EV_RETIRED;
    unsigned issue = PV_SPE_LAT_ISSUE, xlat = 0, total;
    bool data_pa = false, ts_valid;
    uint64_t pa = 0, ts = 0;
    uint8_t rec[64];
    unsigned len = 0;
    uint8_t cls, sub;

    if (get_phys_addr(env, pc, MMU_INST_FETCH, 0, arm_mmu_idx(env), &res, &fi)) {
        op.type = PV_SPE_OP_OTHER;
        op.exception = true;    /* it takes a Prefetch Abort */
    } else {
        uint32_t insn = address_space_ldl_le(
            cpu_get_address_space(cs, arm_asidx_from_attrs(cs, res.f.attrs)),
            res.f.phys_addr, res.f.attrs, NULL);

        pv_spe_decode(env, insn, pc, &op);
    }

    total = issue + PV_SPE_LAT_OP;
    if (op.has_vaddr) {
        memset(&res, 0, sizeof(res));
        memset(&fi, 0, sizeof(fi));
        if (get_phys_addr(env, op.vaddr, op.store ? MMU_DATA_STORE : MMU_DATA_LOAD,
                          0, arm_mmu_idx(env), &res, &fi)) {
            /* A Data Abort: no access, no cache event (a prefetch never faults) */
            op.exception = !op.prefetch;
        } else if (op.type == PV_SPE_OP_LDST) {
            uint64_t line = op.vaddr >> 6, page = op.vaddr >> 12;
            bool refill = line != s->last_line, walk = page != s->last_page;

            pa = res.f.phys_addr;
            data_pa = true;
            events |= PV_SPE_EV_L1D_ACCESS | PV_SPE_EV_TLB_ACCESS;
            if (walk) {
                events |= PV_SPE_EV_TLB_WALK;
                xlat = PV_SPE_LAT_WALK;
            }
            if (refill) {
                events |= PV_SPE_EV_L1D_REFILL | PV_SPE_EV_LLC_ACCESS;
                if (walk) {
                    events |= PV_SPE_EV_LLC_MISS;
                }
            }
            if ((op.vaddr & 63) + op.size > 64) {
                events |= PV_SPE_EV_MISALIGNED;
            }
            total = issue + xlat +
                (!op.load ? PV_SPE_LAT_OP :
                 !refill ? PV_SPE_LAT_L1_HIT : !walk ? PV_SPE_LAT_LLC_HIT :
                 PV_SPE_LAT_LLC_MISS);
            s->last_line = line;
            s->last_page = page;
        } else {
            pa = res.f.phys_addr;
            data_pa = true;
        }
    }
    if (op.exception) {
        events |= PV_SPE_EV_EXCEPTION;
    }
    if (op.cond_fail) {
        events |= PV_SPE_EV_NOT_TAKEN;
    }
    if (op.mispredicted) {
        events |= PV_SPE_EV_MISPRED;
        total += PV_SPE_LAT_MISPREDICT;
    }

    if (!pv_spe_collect(s, &op, events, total)) {
        return;
    }
    if (((s->pmblimitr >> PV_PMBLIMITR_FM_SHIFT) & 3) == PV_PMBLIMITR_FM_DISCARD) {
        return; /* Discard mode: after the filters, nothing written, no event */
    }

    /* Context packets: CollectContextIDR1(), CollectContextIDR2() */
    if (el != 2 && !pv_spe_tge(env) && (s->pmscr_el1 & PV_PMSCR_CX)) {
        pv_spe_put(rec, &len, PV_SPE_HDR_CONTEXT | 0, env->cp15.contextidr_el[1], 4);
    }
    if (pv_spe_el2_enabled(env) && (s->pmscr_el2 & PV_PMSCR_CX)) {
        pv_spe_put(rec, &len, PV_SPE_HDR_CONTEXT | 1, env->cp15.contextidr_el[2], 4);
    }
    /* Counter packets */
    pv_spe_put(rec, &len, PV_SPE_HDR_COUNTER | PV_SPE_CNT_TOTAL,
               MIN(total, PV_SPE_COUNT_MAX), 2);
    pv_spe_put(rec, &len, PV_SPE_HDR_COUNTER | PV_SPE_CNT_ISSUE,
               MIN(issue, PV_SPE_COUNT_MAX), 2);
    if (op.type == PV_SPE_OP_LDST && data_pa) {
        pv_spe_put(rec, &len, PV_SPE_HDR_COUNTER | PV_SPE_CNT_XLAT,
                   MIN(xlat, PV_SPE_COUNT_MAX), 2);
    }
    /* Address packets */
    pv_spe_put(rec, &len, PV_SPE_HDR_ADDRESS | PV_SPE_ADDR_PC, pv_spe_code_addr(pc, el), 8);
    if (op.type == PV_SPE_OP_BRANCH && op.has_target && !op.exception) {
        pv_spe_put(rec, &len, PV_SPE_HDR_ADDRESS | PV_SPE_ADDR_TARGET,
                   pv_spe_code_addr(op.target, op.target_el), 8);
    }
    if (op.has_vaddr) {
        pv_spe_put(rec, &len, PV_SPE_HDR_ADDRESS | PV_SPE_ADDR_DATA_VA, op.vaddr, 8);
        /* CollectPhysicalAddress(): PMSCR_EL2.PA, and PMSCR_EL1.PA for an EL1 owner. */
        if (data_pa && op.type == PV_SPE_OP_LDST &&
            (pv_spe_el2_enabled(env)
             ? (s->pmscr_el2 & PV_PMSCR_PA) &&
               (pv_spe_owner(env) == 2 || (s->pmscr_el1 & PV_PMSCR_PA))
             : (s->pmscr_el1 & PV_PMSCR_PA))) {
            /* NS = 1: the Non-secure physical address space */
            pv_spe_put(rec, &len, PV_SPE_HDR_ADDRESS | PV_SPE_ADDR_DATA_PA,
                       (pa & ((1ULL << 56) - 1)) | 1ULL << 63, 8);
        }
    }
    /* Operation Type packet (SPEConstructClass()) */
    switch (op.type) {
    case PV_SPE_OP_BRANCH:
        cls = PV_SPE_CLASS_BRANCH;
        sub = (op.indirect << 1) | op.cond;     /* CR 0b00 without FEAT_SPE_CRR */
        break;
    case PV_SPE_OP_LDST:
        cls = PV_SPE_CLASS_LDST;
        sub = op.subclass;
        break;
    case PV_SPE_OP_SVE:
        cls = PV_SPE_CLASS_OTHER;
        sub = (op.evl << 4) | 0x08;             /* '0':EVL:'1':PRED:FP:'0' */
        break;
    default:
        cls = PV_SPE_CLASS_OTHER;
        sub = op.cond;                          /* ASE, FP 0 without FEAT_SPE_FPF */
        break;
    }
    pv_spe_put(rec, &len, PV_SPE_HDR_OPTYPE | cls, sub, 1);
    /* Events packet, 16 bits: E[11] is the highest event the model generates */
    pv_spe_put(rec, &len, PV_SPE_HDR_EVENTS16, events, 2);
    /* Timestamp packet, or End packet */
    ts_valid = pv_spe_timestamp(s, &ts);
    if (ts_valid) {
        pv_spe_put(rec, &len, PV_SPE_HDR_TIMESTAMP, ts, 8);
    } else {
        rec[len++] = PV_SPE_HDR_END;
    }
    g_assert(len <= sizeof(rec));
    pv_spe_write(s, rec, len);
}

static void pv_spe_timer(void *opaque)
{
    PvSpe *s = opaque;
    uint64_t now, due;

    if (!s->counting) {
        return;
    }
    now = pv_spe_now(s);
    due = s->base + pv_spe_until_sample(s);
    if (now < due) {
        pv_spe_arm(s); /* early: other CPUs ran, or this one waited */
        return;
    }
    /* COUNT reaches zero with the instruction at the PC: it is sampled. */
    if (!s->count) {
        s->rnd = pv_spe_random(s);  /* the reload before this count used the last one */
    }
    s->count = 0;
    s->base = now + 1;
    pv_spe_sample(s);
    pv_spe_update(s);   /* a buffer management event stops profiling */
}

/* ---- The registers ---------------------------------------------------------------------- */

/* PMS*: MDCR_EL2.TPMS traps EL1's accesses (after the fine-grained trap, which QEMU checks). */
static CPAccessResult pv_spe_access_pms(CPUARMState *env, const ARMCPRegInfo *ri, bool isread)
{
    if (arm_current_el(env) == 1 && pv_spe_el2_enabled(env) &&
        (env->cp15.mdcr_el2 & PV_MDCR_TPMS)) {
        return CP_ACCESS_TRAP_EL2;
    }
    return CP_ACCESS_OK;
}

/* PMB* but PMBIDR_EL1: MDCR_EL2.E2PB 0bx0 traps EL1's accesses. */
static CPAccessResult pv_spe_access_pmb(CPUARMState *env, const ARMCPRegInfo *ri, bool isread)
{
    if (arm_current_el(env) == 1 && pv_spe_el2_enabled(env) && !(pv_spe_e2pb(env) & 1)) {
        return CP_ACCESS_TRAP_EL2;
    }
    return CP_ACCESS_OK;
}

/* PMSCR_EL12: at EL2 only with E2H (EL1's accesses are FEAT_NV's, which QEMU handles). */
static CPAccessResult pv_spe_access_el12(CPUARMState *env, const ARMCPRegInfo *ri,
                                         bool isread)
{
    if (arm_current_el(env) == 2 && !(arm_hcr_el2_eff(env) & PV_HCR_E2H)) {
        return CP_ACCESS_UNDEFINED;
    }
    return CP_ACCESS_OK;
}

typedef enum PvSpeReg {
    PV_REG_PMSCR_EL1,   /* as written: PMSCR_EL1 at EL1, PMSCR_EL12 at EL2 with E2H */
    PV_REG_PMSCR_EL1_VHE, /* the PMSCR_EL1 encoding: PMSCR_EL2 at EL2 with E2H */
    PV_REG_PMSCR_EL2,
    PV_REG_PMSICR,
    PV_REG_PMSIRR,
    PV_REG_PMSFCR,
    PV_REG_PMSEVFR,
    PV_REG_PMSNEVFR,
    PV_REG_PMSLATFR,
    PV_REG_PMSIDR,
    PV_REG_PMBLIMITR,
    PV_REG_PMBPTR,
    PV_REG_PMBSR,
    PV_REG_PMBIDR,
} PvSpeReg;

static PvSpeReg pv_spe_reg(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvSpeReg r = (PvSpeReg)(uintptr_t)ri->opaque;

    if (r == PV_REG_PMSCR_EL1_VHE) {
        return arm_current_el(env) == 2 && (arm_hcr_el2_eff(env) & PV_HCR_E2H)
               ? PV_REG_PMSCR_EL2 : PV_REG_PMSCR_EL1;
    }
    return r;
}

static uint64_t pv_spe_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvSpe *s = pv_spe(env);

    switch (pv_spe_reg(env, ri)) {
    case PV_REG_PMSCR_EL1:
        return s->pmscr_el1;
    case PV_REG_PMSCR_EL2:
        /* E2SPE, E0HSPE: RES0 while MDCR_EL2.E2PB != 0b00 */
        return pv_spe_e2pb(env) ? s->pmscr_el2 & ~(PV_PMSCR_E0SPE | PV_PMSCR_E1SPE)
                                : s->pmscr_el2;
    case PV_REG_PMSICR:
        pv_spe_sync(s);
        return s->count;
    case PV_REG_PMSIRR:
        return s->pmsirr;
    case PV_REG_PMSFCR:
        return s->pmsfcr;
    case PV_REG_PMSEVFR:
        return s->pmsevfr;
    case PV_REG_PMSNEVFR:
        return s->pmsnevfr;
    case PV_REG_PMSLATFR:
        return s->pmslatfr;
    case PV_REG_PMSIDR:
        return PV_PMSIDR_VALUE;
    case PV_REG_PMBLIMITR:
        return s->pmblimitr;
    case PV_REG_PMBPTR:
        return s->pmbptr;
    case PV_REG_PMBSR:
        return s->pmbsr;
    case PV_REG_PMBIDR:
        /* P: the owner is EL2 and this is EL1 (EL3 absent) */
        return PV_PMBIDR_VALUE |
               (arm_current_el(env) == 1 && pv_spe_owner(env) == 2 ? PV_PMBIDR_P : 0);
    default:
        g_assert_not_reached();
    }
}

static void pv_spe_write_reg(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvSpe *s = pv_spe(env);

    pv_spe_sync(s);
    switch (pv_spe_reg(env, ri)) {
    case PV_REG_PMSCR_EL1:
        s->pmscr_el1 = value & PV_PMSCR_RW;
        break;
    case PV_REG_PMSCR_EL2:
        if (pv_spe_e2pb(env)) {
            value = (value & ~(PV_PMSCR_E0SPE | PV_PMSCR_E1SPE)) |
                    (s->pmscr_el2 & (PV_PMSCR_E0SPE | PV_PMSCR_E1SPE));
        }
        s->pmscr_el2 = value & PV_PMSCR_RW;
        break;
    case PV_REG_PMSICR:
        s->count = value & PV_PMSICR_RW;
        s->base = pv_spe_now(s);
        break;
    case PV_REG_PMSIRR:
        s->pmsirr = value & PV_PMSIRR_RW;
        break;
    case PV_REG_PMSFCR:
        s->pmsfcr = value & PV_PMSFCR_RW;
        break;
    case PV_REG_PMSEVFR:
        s->pmsevfr = value & PV_PMSEVFR_RW;
        break;
    case PV_REG_PMSNEVFR:
        s->pmsnevfr = value & PV_PMSEVFR_RW;
        break;
    case PV_REG_PMSLATFR:
        s->pmslatfr = value & PV_PMSLATFR_RW;
        break;
    case PV_REG_PMBLIMITR:
        s->pmblimitr = value & PV_PMBLIMITR_RW;
        break;
    case PV_REG_PMBPTR:
        s->pmbptr = value;
        break;
    case PV_REG_PMBSR:
        s->pmbsr = value & PV_PMBSR_RW;
        break;
    default:
        g_assert_not_reached();
    }
    pv_spe_update(s);
}

static void pv_spe_reset(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvSpe *s = pv_spe(env);

    if (!s) {
        return;
    }
    timer_del(s->timer);
    s->pmscr_el1 = s->pmscr_el2 = 0;
    s->pmsirr = s->pmsfcr = s->pmsevfr = s->pmsnevfr = s->pmslatfr = 0;
    s->pmblimitr = s->pmbptr = s->pmbsr = 0;
    s->pmcr_fzs = 0;
    s->counting = false;
    s->base = 0;
    s->count = 0;
    s->rng = 0x5be5d1a7c0ffee11ULL ^ ((uint64_t)CPU(s->cpu)->cpu_index << 32);
    s->rnd = pv_spe_random(s);
    s->last_line = s->last_page = ~0ULL;
    s->irq_level = true;    /* forces the line low */
    pv_spe_irq(s);
}

#define PV_SPE_TYPE (ARM_CP_IO | ARM_CP_NO_RAW)
#define PV_SPE_REG(NAME, OP1, CRM, OP2, ACC, ACCESS, FGT, REG, NV2)            \
    { .name = NAME, .state = ARM_CP_STATE_AA64, .type = PV_SPE_TYPE,           \
      .opc0 = 3, .opc1 = OP1, .crn = 9, .crm = CRM, .opc2 = OP2,               \
      .access = ACC, .accessfn = ACCESS, .fgt = FGT,                           \
      .nv2_redirect_offset = NV2, .opaque = (void *)(uintptr_t)REG,            \
      .readfn = pv_spe_read, .writefn = pv_spe_write_reg }
#define PV_FGT(BIT)     (FGT_HDFGRTR | (BIT))
#define PV_FGT_REV(BIT) (FGT_HDFGRTR | FGT_REV | (BIT))

/*
 * The encodings, access and traps of D24.7's accessibility pseudocode. FEAT_NV2 redirects to
 * VNCR_EL2 offsets 0x800 (PMBLIMITR_EL1), 0x810 (PMBPTR_EL1), 0x820 (PMBSR_EL1) and 0x828
 * (PMSCR_EL1 with NV1, PMSCR_EL12 without).
 */
static const ARMCPRegInfo pv_spe_regs[] = {
    PV_SPE_REG("PMSCR_EL1", 0, 9, 0, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSCR),
               PV_REG_PMSCR_EL1_VHE, 0x828 | NV2_REDIR_NV1),
    PV_SPE_REG("PMSCR_EL12", 5, 9, 0, PL2_RW, pv_spe_access_el12, 0,
               PV_REG_PMSCR_EL1, 0x828 | NV2_REDIR_NO_NV1),
    PV_SPE_REG("PMSCR_EL2", 4, 9, 0, PL2_RW, NULL, 0, PV_REG_PMSCR_EL2, 0),
    PV_SPE_REG("PMSNEVFR_EL1", 0, 9, 1, PL1_RW, pv_spe_access_pms,
               PV_FGT_REV(PV_FGT_NPMSNEVFR), PV_REG_PMSNEVFR, 0),
    PV_SPE_REG("PMSICR_EL1", 0, 9, 2, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSICR),
               PV_REG_PMSICR, 0),
    PV_SPE_REG("PMSIRR_EL1", 0, 9, 3, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSIRR),
               PV_REG_PMSIRR, 0),
    PV_SPE_REG("PMSFCR_EL1", 0, 9, 4, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSFCR),
               PV_REG_PMSFCR, 0),
    PV_SPE_REG("PMSEVFR_EL1", 0, 9, 5, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSEVFR),
               PV_REG_PMSEVFR, 0),
    PV_SPE_REG("PMSLATFR_EL1", 0, 9, 6, PL1_RW, pv_spe_access_pms, PV_FGT(PV_FGT_PMSLATFR),
               PV_REG_PMSLATFR, 0),
    PV_SPE_REG("PMSIDR_EL1", 0, 9, 7, PL1_R, pv_spe_access_pms, PV_FGT(PV_FGT_PMSIDR),
               PV_REG_PMSIDR, 0),
    PV_SPE_REG("PMBLIMITR_EL1", 0, 10, 0, PL1_RW, pv_spe_access_pmb,
               PV_FGT(PV_FGT_PMBLIMITR), PV_REG_PMBLIMITR, 0x800),
    PV_SPE_REG("PMBPTR_EL1", 0, 10, 1, PL1_RW, pv_spe_access_pmb, PV_FGT(PV_FGT_PMBPTR),
               PV_REG_PMBPTR, 0x810),
    PV_SPE_REG("PMBSR_EL1", 0, 10, 3, PL1_RW, pv_spe_access_pmb, PV_FGT(PV_FGT_PMBSR),
               PV_REG_PMBSR, 0x820),
    PV_SPE_REG("PMBIDR_EL1", 0, 10, 7, PL1_R, NULL, PV_FGT(PV_FGT_PMBIDR),
               PV_REG_PMBIDR, 0),
};

/* ---- QEMU's registers the model watches ---------------------------------------------- */

static void pv_spe_hcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvSpe *s = pv_spe(env);

    pv_spe_sync(s);
    s->hcr_write(env, ri, value);
    pv_spe_update(s);
}

static void pv_spe_mdcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvSpe *s = pv_spe(env);

    pv_spe_sync(s);
    if (s->mdcr_write) {
        s->mdcr_write(env, ri, value);
    } else {
        raw_write(env, ri, value);
    }
    pv_spe_update(s);
}

static uint64_t pv_spe_field_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    return cpreg_field_is_64bit(ri) ? CPREG_FIELD64(env, ri) : CPREG_FIELD32(env, ri);
}

/* PMCR_EL0.FZS: stored; it freezes nothing without FEAT_PMUv3p7 (SPEFreezeOnEvent()). */
static uint64_t pv_spe_pmcr_read(CPUARMState *env, const ARMCPRegInfo *ri)
{
    PvSpe *s = pv_spe(env);
    uint64_t v = s->pmcr_read ? s->pmcr_read(env, ri) : pv_spe_field_read(env, ri);

    return v | s->pmcr_fzs;
}

static void pv_spe_pmcr_write(CPUARMState *env, const ARMCPRegInfo *ri, uint64_t value)
{
    PvSpe *s = pv_spe(env);

    s->pmcr_fzs = value & PV_PMCR_FZS;
    if (s->pmcr_write) {
        s->pmcr_write(env, ri, value & ~PV_PMCR_FZS);
    } else {
        raw_write(env, ri, value & ~PV_PMCR_FZS);
    }
}

static ARMCPRegInfo *pv_spe_find(ARMCPU *cpu, unsigned op1, unsigned crn, unsigned crm,
                                 unsigned op2)
{
    return (ARMCPRegInfo *)get_arm_cp_reginfo(
        cpu->cp_regs, ENCODE_AA64_CP_REG(CP_REG_ARM64_SYSREG_CP, crn, crm, 3, op1, op2));
}

static void pv_spe_el_change(ARMCPU *cpu, void *opaque)
{
    pv_spe_update(opaque);
}

/* ---- Realize ------------------------------------------------------------------------------ */

bool pv_spe_realize(ARMCPU *cpu, PvHwCPU *h, Error **errp)
{
    ARMCPRegInfo *dfr0 = pv_spe_find(cpu, 0, 0, 5, 0);
    ARMCPRegInfo *hcr = pv_spe_find(cpu, 4, 1, 1, 0);
    ARMCPRegInfo *mdcr = pv_spe_find(cpu, 4, 1, 1, 1);
    ARMCPRegInfo *pmcr = pv_spe_find(cpu, 3, 9, 12, 0);
    PvSpe *s;

    if (!dfr0 || !(dfr0->type & ARM_CP_CONST) || !hcr || !hcr->writefn || !mdcr || !pmcr ||
        !arm_feature(&cpu->env, ARM_FEATURE_EL2) ||
        ((dfr0->resetvalue >> PV_DFR0_PMSVER_SHIFT) & 0xf) != 0) {
        error_setg(errp, "perfvisor: QEMU's CPU is not the one pv-spe was written for "
                   "(ID_AA64DFR0_EL1, HCR_EL2, MDCR_EL2, PMCR_EL0, EL2)");
        return false;
    }
    s = g_new0(PvSpe, 1);
    s->cpu = cpu;
    s->hw = h;
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, pv_spe_timer, s);
    h->spe_state = s;

    define_arm_cp_regs(cpu, pv_spe_regs);
    /* The whole SPU's reset, with PMBLIMITR_EL1's (E resets to 0). */
    ((ARMCPRegInfo *)pv_spe_find(cpu, 0, 9, 10, 0))->resetfn = pv_spe_reset;

    /* ID_AA64DFR0_EL1.PMSVer, which QEMU cleared before this hook: SPEv1p2. */
    dfr0->resetvalue = deposit64(dfr0->resetvalue, PV_DFR0_PMSVER_SHIFT, 4, PV_PMSVER_V1P2);
    cpu->isar.id_aa64dfr0 = deposit64(cpu->isar.id_aa64dfr0, PV_DFR0_PMSVER_SHIFT, 4,
                                      PV_PMSVER_V1P2);

    /* Profiling depends on HCR_EL2 (TGE, E2H) and MDCR_EL2 (E2PB): watch their writes. */
    s->hcr_write = hcr->writefn;
    hcr->writefn = pv_spe_hcr_write;
    s->mdcr_write = mdcr->writefn;
    mdcr->writefn = pv_spe_mdcr_write;
    s->pmcr_read = pmcr->readfn;
    s->pmcr_write = pmcr->writefn;
    pmcr->readfn = pv_spe_pmcr_read;
    pmcr->writefn = pv_spe_pmcr_write;
    if (!pmcr->raw_readfn && !(pmcr->type & ARM_CP_NO_RAW)) {
        pmcr->raw_readfn = s->pmcr_read ? s->pmcr_read : pv_spe_field_read;
    }
    if (!pmcr->raw_writefn && !(pmcr->type & ARM_CP_NO_RAW)) {
        pmcr->raw_writefn = s->pmcr_write ? s->pmcr_write : raw_write;
    }
    if (!mdcr->raw_writefn) {
        mdcr->raw_writefn = s->mdcr_write ? s->mdcr_write : raw_write;
    }

    arm_register_el_change_hook(cpu, pv_spe_el_change, s);
    return true;
}

void pv_spe_free(PvHwCPU *h)
{
    PvSpe *s = h->spe_state;

    if (s) {
        timer_free(s->timer);
        g_free(s);
        h->spe_state = NULL;
    }
}
