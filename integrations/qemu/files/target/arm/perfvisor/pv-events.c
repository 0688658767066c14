/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The common architectural events stock QEMU does not count (D14.3.1), counted exactly per
 * CPU under icount with pv-pmu-fixes on:
 *   0x06 LD_RETIRED        memory-reading instructions retired
 *   0x07 ST_RETIRED        memory-writing instructions retired
 *   0x0D BR_IMMED_RETIRED  immediate branches retired
 *   0x13 MEM_ACCESS        data memory accesses
 *   0x21 BR_RETIRED        branches retired
 *
 * How: at translation, each A64 instruction is classified by its encoding, and code that adds
 * its class to the CPU's counts (pv_hw_counts[cpu_index]) is generated after the instruction's
 * own code, so that an instruction that takes an exception (a fault, an UNDEF, a trap) is not
 * counted: it did not retire. QEMU's PMU reads the counts as the events' get_count, so the
 * enables, the EL filters and the overflow are QEMU's, as for INST_RETIRED.
 *
 * The rules (docs/qemu.md has them with the reasons):
 * - A load: every instruction that reads data memory. LDR/LDUR/LDTR and their SIMD&FP forms,
 *   LDR (literal), LDP/LDNP/LDPSW, LDAR/LDLAR/LDAPR/LDAPUR, LDXR/LDAXR/LDXP/LDAXP, LDRAA/LDRAB,
 *   LD1-LD4 (structures, single, replicate), the tag loads LDG/LDGM, and SVE's loads (LD1*,
 *   LDFF1*, LDNF1*, LDNT1*, LD1R*, LDR of a vector or predicate). Prefetches (PRFM, PRFUM,
 *   SVE's PRF*) are hints, not loads, and do not count.
 * - A store: every instruction that writes data memory. STR/STUR/STTR and SIMD&FP forms,
 *   STP/STNP/STGP, STLR/STLLR/STLUR, ST1-ST4, SVE's stores, the tag stores STG/STZG/ST2G/
 *   STZ2G/STGM/STZGM, and DC ZVA/GVA/GZVA (they write a block of zeros). A Store-Exclusive
 *   (STXR, STLXR, STXP, STLXP) counts only when it succeeded (status 0): a failed one writes
 *   nothing. With its status register XZR the outcome is not kept, and it counts.
 * - A pair is one instruction: LDP counts 1 load, STP 1 store.
 * - An atomic that reads and writes memory (LD<op>, ST<op>, SWP, CAS, CASP) is both a load
 *   and a store. CAS/CASP count as a store even when the comparison fails and nothing is
 *   written: QEMU's compare-and-swap does not say which, so here TCG forces the choice.
 * - FEAT_MOPS: CPY*P/M/E each count as a load and a store, SET*P/M/E each as a store, each
 *   time one completes (QEMU may stop a main instruction early and run it again: the early
 *   stop takes an exception-like exit and does not count).
 * - MEM_ACCESS counts one access per load and one per store so counted: LD_RETIRED +
 *   ST_RETIRED. A pair, a structure load, an SVE gather or a DC ZVA is one access, as the
 *   instruction is one to the PE; how silicon splits them into cache accesses is its own.
 * - A branch: B, BL, B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ (immediate: BR_IMMED_RETIRED too),
 *   and BR, BLR, RET with their pointer-authenticated forms (register). A conditional branch
 *   counts whether taken or not: it is executed either way. ERET/ERETAA/ERETAB (exception
 *   returns), DRPS, SVC/HVC/SMC/BRK are not branches here. An immediate branch cannot fault,
 *   and its code ends the translation block, so its count is generated before it; a register
 *   branch's after it (a failed authentication, FEAT_FPAC, leaves it uncounted).
 * - AArch32 (A32, T32) instructions count in none of these events: only A64 is classified.
 * - SME's ZA loads and stores (LD1/ST1 of a tile, LDR/STR ZA, SME2's multi-vector forms) are
 *   not classified either. SVE's own loads and stores count in streaming mode too.
 */
#include "qemu/osdep.h"
#include "system/cpu-timers.h"
#include "cpu.h"
#include "tcg/tcg-op.h"
#include "tcg/translate.h"
#include "tcg/translate-a64.h"
#include "pv-hw.h"
#include "pv-internal.h"

PvHwCounts pv_hw_counts[PV_HW_MAX_CPUS];

QEMU_BUILD_BUG_ON(sizeof(PvHwCounts) != 1 << PV_HW_COUNTS_SHIFT);

enum {
    PV_LD = 1 << 0,
    PV_ST = 1 << 1,
    PV_ST_EXCL = 1 << 2,  /* a store when its status register reads 0 */
    PV_BR = 1 << 3,
    PV_BR_IMMED = 1 << 4, /* counted before the instruction */
};

static inline unsigned bits(uint32_t insn, unsigned hi, unsigned lo)
{
    return (insn >> lo) & ((1u << (hi - lo + 1)) - 1);
}

/*
 * The A64 encodings, from the Arm ARM's encoding index (chapter C4): Loads and Stores are
 * op0 = x1x0 in bits [28:25]; Branches, Exception Generating and System instructions are
 * x101; SVE is 0010.
 */
static unsigned pv_a64_branch(uint32_t insn)
{
    if ((insn & 0x7c000000) == 0x14000000 ||  /* B, BL */
        (insn & 0xff000000) == 0x54000000 ||  /* B.cond, BC.cond */
        (insn & 0x7e000000) == 0x34000000 ||  /* CBZ, CBNZ */
        (insn & 0x7e000000) == 0x36000000) {  /* TBZ, TBNZ */
        return PV_BR | PV_BR_IMMED;
    }
    if ((insn & 0xfe000000) == 0xd6000000) {  /* Unconditional branch (register) */
        switch (bits(insn, 24, 21)) {
        case 0x0: /* BR, BRAAZ, BRABZ */
        case 0x1: /* BLR, BLRAAZ, BLRABZ */
        case 0x2: /* RET, RETAA, RETAB */
        case 0x8: /* BRAA, BRAB */
        case 0x9: /* BLRAA, BLRAB */
            return PV_BR;
        }
    }
    /* DC ZVA, DC GVA, DC GZVA: SYS #3, C7, C4, #1/#3/#4 */
    switch (insn & 0xffffffe0) {
    case 0xd50b7420:
    case 0xd50b7460:
    case 0xd50b7480:
        return PV_ST;
    }
    return 0;
}

/* Load/store register: size [31:30], V [26], opc [23:22]. */
static unsigned pv_a64_ldst_reg(uint32_t insn)
{
    unsigned size = bits(insn, 31, 30), v = bits(insn, 26, 26), opc = bits(insn, 23, 22);

    if (v) {
        return opc & 1 ? PV_LD : PV_ST;
    }
    switch (opc) {
    case 0:
        return PV_ST;
    case 1:
        return PV_LD;
    case 2:
        return size == 3 ? 0 : PV_LD; /* PRFM, PRFUM : LDRSW, LDRSB/H (64-bit) */
    default:
        return size <= 1 ? PV_LD : 0; /* LDRSB/H (32-bit) */
    }
}

static unsigned pv_a64_ldst(uint32_t insn)
{
    unsigned op = bits(insn, 29, 24);
    unsigned l = bits(insn, 22, 22);

    switch (op) {
    case 0x08: /* 001000: exclusive, ordered, compare and swap */
        if (bits(insn, 21, 21)) {
            if (bits(insn, 23, 23) || !bits(insn, 31, 31)) {
                return PV_LD | PV_ST; /* CAS, CASP */
            }
            return l ? PV_LD : PV_ST_EXCL; /* LDXP, STXP */
        }
        if (bits(insn, 23, 23)) {
            return l ? PV_LD : PV_ST; /* LDAR, LDLAR : STLR, STLLR */
        }
        return l ? PV_LD : PV_ST_EXCL; /* LDXR : STXR */
    case 0x0c: /* 001100, 001101: SIMD structures (multiple, single) */
    case 0x0d:
        return bits(insn, 31, 31) ? 0 : (l ? PV_LD : PV_ST);
    case 0x18: /* 011x00: load register (literal); PRFM (literal) */
    case 0x1c:
        return bits(insn, 31, 30) == 3 && !bits(insn, 26, 26) ? 0 : PV_LD;
    case 0x19: /* 011x01: memory copy and set, tags, LDAPUR/STLUR */
    case 0x1d:
        if (!bits(insn, 21, 21) && bits(insn, 11, 10) == 1) {
            return bits(insn, 23, 22) == 3 ? PV_ST : PV_LD | PV_ST; /* SET* : CPY* */
        }
        if (op == 0x19 && bits(insn, 31, 30) == 3 && bits(insn, 21, 21)) {
            if (bits(insn, 11, 10) == 0) {
                return bits(insn, 22, 22) ? PV_LD : PV_ST; /* LDG, LDGM : STZGM, STGM */
            }
            return PV_ST; /* STG, STZG, ST2G, STZ2G */
        }
        if (op == 0x19 && !bits(insn, 21, 21) && bits(insn, 11, 10) == 0) {
            return bits(insn, 23, 22) ? PV_LD : PV_ST; /* LDAPUR* : STLUR* */
        }
        return 0;
    case 0x28: case 0x29: case 0x2a: case 0x2b: /* 101x0x: load/store pair */
    case 0x2c: case 0x2d: case 0x2e: case 0x2f:
        return bits(insn, 25, 25) ? 0 : (l ? PV_LD : PV_ST);
    case 0x38: /* 111x00: register, unscaled, pre/post-indexed, unprivileged, atomic */
    case 0x3c:
        if (bits(insn, 21, 21)) {
            switch (bits(insn, 11, 10)) {
            case 0: /* atomic memory operations; LDAPR */
                if (bits(insn, 26, 26)) {
                    return 0;
                }
                return bits(insn, 15, 12) == 0xc ? PV_LD : PV_LD | PV_ST;
            case 2: /* register offset */
                return pv_a64_ldst_reg(insn);
            default: /* LDRAA, LDRAB */
                return PV_LD;
            }
        }
        return pv_a64_ldst_reg(insn);
    case 0x39: /* 111x01: unsigned immediate */
    case 0x3d:
        return pv_a64_ldst_reg(insn);
    }
    return 0;
}

/* SVE memory: bits [31:29] 1xx under op0 = 0010. */
static unsigned pv_a64_sve(uint32_t insn)
{
    switch (bits(insn, 31, 29)) {
    case 4: /* 32-bit gather and unsized contiguous */
        if ((bits(insn, 31, 22) == 0x217 && !bits(insn, 15, 15)) ||         /* PRF (imm) */
            (bits(insn, 31, 25) == 0x42 && bits(insn, 22, 21) == 0 &&
             bits(insn, 15, 14) == 3) ||                                    /* PRF (ss, vi) */
            (bits(insn, 31, 23) == 0x108 && bits(insn, 21, 21) &&
             !bits(insn, 15, 15))) {                                        /* PRF (sv) */
            return 0;
        }
        return PV_LD;
    case 5: /* contiguous loads */
        return PV_LD;
    case 6: /* 64-bit gather */
        if ((bits(insn, 31, 25) == 0x62 && bits(insn, 22, 21) == 0 &&
             bits(insn, 15, 13) == 7) ||                                    /* PRF (vi) */
            (bits(insn, 31, 23) == 0x188 && bits(insn, 21, 21))) {          /* PRF (sv) */
            return 0;
        }
        return PV_LD;
    case 7: /* stores */
        return PV_ST;
    }
    return 0;
}

static unsigned pv_a64_class(uint32_t insn)
{
    unsigned op0 = bits(insn, 28, 25);

    if ((op0 & 0x5) == 0x4) {      /* x1x0: loads and stores */
        return pv_a64_ldst(insn);
    }
    if ((op0 & 0xe) == 0xa) {      /* 101x: branches, exception generating, system */
        return pv_a64_branch(insn);
    }
    if (op0 == 0x2) {              /* 0010: SVE */
        return pv_a64_sve(insn);
    }
    return 0;
}

/* ---- Generated code -------------------------------------------------------------------- */

/* The class of the instruction being translated, between its start and end hooks. */
static __thread unsigned pv_insn_class;
static __thread unsigned pv_insn_rs;

bool pv_events_counting(CPUState *cs)
{
    PvHwCPU *s = pv_hw_cpu(cs);

    return s && s->pmu_fixes && s->count_insns;
}

/* The address of the running CPU's counts: pv_hw_counts[cpu_index], found at run time. */
static TCGv_ptr pv_gen_counts(void)
{
    TCGv_i32 idx = tcg_temp_new_i32();
    TCGv_i64 addr = tcg_temp_new_i64();
    TCGv_ptr p = tcg_temp_new_ptr();

    tcg_gen_ld_i32(idx, tcg_env,
                   offsetof(ArchCPU, parent_obj.cpu_index) - offsetof(ArchCPU, env));
    tcg_gen_extu_i32_i64(addr, idx);
    tcg_gen_shli_i64(addr, addr, PV_HW_COUNTS_SHIFT);
    tcg_gen_addi_i64(addr, addr, (int64_t)(uintptr_t)pv_hw_counts);
    tcg_gen_trunc_i64_ptr(p, addr);
    return p;
}

static void pv_gen_add(TCGv_ptr p, size_t field, TCGv_i64 amount)
{
    TCGv_i64 v = tcg_temp_new_i64();

    tcg_gen_ld_i64(v, p, field);
    if (amount) {
        tcg_gen_add_i64(v, v, amount);
    } else {
        tcg_gen_addi_i64(v, v, 1);
    }
    tcg_gen_st_i64(v, p, field);
}

static void pv_gen_count(DisasContext *s, unsigned cls)
{
    TCGv_ptr p = pv_gen_counts();

    if (cls & PV_LD) {
        pv_gen_add(p, offsetof(PvHwCounts, ld), NULL);
    }
    if (cls & PV_ST) {
        pv_gen_add(p, offsetof(PvHwCounts, st), NULL);
    }
    if (cls & PV_ST_EXCL) {
        TCGv_i64 ok = tcg_temp_new_i64();

        tcg_gen_setcondi_i64(TCG_COND_EQ, ok, cpu_reg(s, pv_insn_rs), 0);
        pv_gen_add(p, offsetof(PvHwCounts, st), ok);
    }
    if (cls & PV_BR) {
        pv_gen_add(p, offsetof(PvHwCounts, br), NULL);
    }
    if (cls & PV_BR_IMMED) {
        pv_gen_add(p, offsetof(PvHwCounts, br_immed), NULL);
    }
}

void pv_hw_a64_insn_start(DisasContext *s, CPUState *cpu, uint32_t insn)
{
    pv_insn_class = pv_events_counting(cpu) ? pv_a64_class(insn) : 0;
    pv_insn_rs = bits(insn, 20, 16);
    if (pv_insn_class & PV_BR_IMMED) {
        pv_gen_count(s, pv_insn_class);
        pv_insn_class = 0;
    }
}

void pv_hw_a64_insn_end(DisasContext *s)
{
    if (pv_insn_class && s->base.is_jmp != DISAS_NORETURN) {
        pv_gen_count(s, pv_insn_class);
    }
    pv_insn_class = 0;
}

/* ---- The events, as QEMU's PMU reads them ------------------------------------------------ */

static PvHwCounts *pv_counts(CPUARMState *env)
{
    return &pv_hw_counts[env_cpu(env)->cpu_index];
}

uint64_t pv_hw_ld_retired(CPUARMState *env)
{
    return pv_counts(env)->ld;
}

uint64_t pv_hw_st_retired(CPUARMState *env)
{
    return pv_counts(env)->st;
}

uint64_t pv_hw_br_immed_retired(CPUARMState *env)
{
    return pv_counts(env)->br_immed;
}

uint64_t pv_hw_mem_access(CPUARMState *env)
{
    return pv_counts(env)->ld + pv_counts(env)->st;
}

uint64_t pv_hw_br_retired(CPUARMState *env)
{
    return pv_counts(env)->br;
}

/*
 * The soonest EVENTS more events can have happened, for QEMU's overflow timer: an instruction
 * counts at most once in each event but MEM_ACCESS, where an atomic counts twice, and each of
 * this CPU's instructions takes at least one instruction's time under icount (the other CPUs'
 * take some too: the timer may fire early, and is armed again for what is left).
 */
int64_t pv_hw_ns_per_event(uint64_t events)
{
    /* 2^50 events are never reached; the cap keeps the shift of icount_to_ns() in range. */
    return icount_to_ns((int64_t)MIN(events, 1ULL << 50));
}

int64_t pv_hw_ns_per_access(uint64_t events)
{
    return pv_hw_ns_per_event(events / 2 + (events & 1));
}
