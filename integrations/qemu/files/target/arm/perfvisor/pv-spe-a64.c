/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the Statistical Profiling Unit (pv-spe.c) records of a sampled A64 instruction, decoded
 * from its encoding (the Arm ARM's encoding index, chapter C4) at its PC, before it executes:
 * the registers hold what it will read, so its data address, its branch target and whether
 * its condition passes are known. D17.6 says what each kind records; the Operation Type
 * packet's classes are D18.2.7's, as SPEv1p2 has them (no FEAT_SPEv1p3 subclasses: tag and
 * memory-copy operations are loads and stores of unspecified registers; no FEAT_SPE_FPF).
 *
 *  - Loads, stores, atomics: the data virtual address as the addressing mode computes it
 *    (base, immediate or register offset, pre-index; the base alone for post-index, exclusive,
 *    ordered and atomic forms; PC + offset for literals). Subclass: general-purpose, SIMD&FP,
 *    or "extended" (acquire/release, exclusive, atomic: AR, EXCL, AT, LDST). An atomic that
 *    returns a value (LD<op>, SWP, CAS, CASP) is a load and a store; ST<op> (LD<op> with XZR and
 *    no acquire) a store. DC ZVA, DC GVA and DC GZVA are stores of unspecified registers (Arm
 *    recommends it) at the block's aligned address; CPY* and SET* (FEAT_MOPS) stores of
 *    unspecified registers at their destination; tag loads and stores (FEAT_MTE) likewise.
 *    Prefetches (PRFM, PRFUM) are Other operations, with their address.
 *  - SVE loads and stores: the SVE format (EVL from the current vector length; PRED but for
 *    LDR/STR of a vector or predicate; SG for the 64-bit gather group only), recorded without
 *    a data address: the model does not compute SVE addressing. SVE prefetches are Other.
 *    SVE data-processing operations: the SVE format with EVL, PRED and FP clear.
 *  - Branches: B, BL (direct), B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ (direct, conditional:
 *    taken or not by the flags or the register), BR, BLR, RET and their pointer-authenticated
 *    forms (indirect; the target is the register with its authentication code stripped, as a
 *    successful authentication leaves it), ERET, ERETAA, ERETAB (indirect, to ELR_ELx at the
 *    Exception level SPSR_ELx names). A taken branch records its target.
 *  - Conditional select and compare (CSEL, CSINC, CSINV, CSNEG, CCMP, CCMN, FCSEL, FCCMP,
 *    FCCMPE): Other with COND, failing their condition as E[6] says.
 *  - SVC, HVC, SMC, BRK, HLT, DCPS*, UDF: Other, generating an exception.
 *  - Everything else, SME included: Other.
 */
#include "qemu/osdep.h"
#include "cpu.h"
#include "internals.h"
#include "pv-hw.h"
#include "pv-internal.h"

/* Operation Type subclasses for loads and stores (D18.2.7) */
#define PV_LDST_GENERAL     0x00
#define PV_LDST_SIMDFP      0x04
#define PV_LDST_UNSPEC      0x10
#define PV_LDST_EXTENDED    0x02    /* | AR << 4 | EXCL << 3 | AT << 2 */
#define PV_LDST_SVE         0x08    /* | SG << 7 | EVL << 4 | PRED << 2 */
#define PV_LDST_STORE       0x01    /* LDST: not a memory-reading instruction */

static inline unsigned bits(uint32_t insn, unsigned hi, unsigned lo)
{
    return (insn >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static inline uint64_t sext(uint64_t v, unsigned width)
{
    return (uint64_t)((int64_t)(v << (64 - width)) >> (64 - width));
}

/* Xn, or XZR for 31 */
static uint64_t pv_x(CPUARMState *env, unsigned n)
{
    return n == 31 ? 0 : env->xregs[n];
}

/* Xn, or the current SP for 31 (QEMU keeps it in xregs[31] in AArch64) */
static uint64_t pv_xsp(CPUARMState *env, unsigned n)
{
    return env->xregs[n];
}

/* ConditionHolds() */
static bool pv_cond(CPUARMState *env, unsigned cond)
{
    bool n = env->NF >> 31, z = env->ZF == 0, c = env->CF & 1, v = env->VF >> 31;
    bool r;

    switch (cond >> 1) {
    case 0: r = z; break;
    case 1: r = c; break;
    case 2: r = n; break;
    case 3: r = v; break;
    case 4: r = c && !z; break;
    case 5: r = n == v; break;
    case 6: r = n == v && !z; break;
    default: return true;   /* AL, NV */
    }
    return (cond & 1) ? !r : r;
}

/* The pointer authentication code stripped from an instruction address (Strip()). */
static uint64_t pv_strip(CPUARMState *env, uint64_t ptr)
{
    ARMVAParameters p = aa64_va_parameters(env, ptr, arm_stage1_mmu_idx(env), false, false);
    unsigned bottom = 64 - p.tsz;
    unsigned top = p.tbi ? 55 : 63;
    uint64_t field = ((1ULL << (top - bottom + 1)) - 1) << bottom;

    return (ptr >> 55) & 1 ? ptr | field : ptr & ~field;
}

/* SPEEncodeEVL() of the current SVE vector length */
static unsigned pv_evl(CPUARMState *env)
{
    unsigned vl = (sve_vqm1_for_el(env, arm_current_el(env)) + 1) * 128;
    unsigned evl = 0;

    while ((32u << evl) < vl && evl < 6) {
        evl++;
    }
    return evl;
}

static void pv_branch(PvSpeOp *op, uint64_t pc, uint64_t target, bool cond, bool taken,
                      bool indirect, unsigned el)
{
    op->type = PV_SPE_OP_BRANCH;
    op->cond = cond;
    op->cond_fail = cond && !taken;
    op->indirect = indirect;
    op->has_target = taken;
    op->target = target;
    op->target_el = el;
    /* The static predictor: backward taken, forward not taken. */
    op->mispredicted = cond && taken != (target <= pc);
}

/* ERET: to ELR_ELx, at the Exception level SPSR_ELx.M gives. */
static void pv_eret(CPUARMState *env, PvSpeOp *op, uint64_t pc, bool pac)
{
    int el = arm_current_el(env);
    uint64_t spsr = env->banked_spsr[aarch64_banked_spsr_index(el)];
    uint64_t target = env->elr_el[el];
    unsigned tel;

    if (!(spsr & 0x10)) {
        tel = (spsr >> 2) & 3;
    } else {
        unsigned mode = spsr & 0x1f;   /* AArch32: User 0, Hyp 2, the others 1 */
        tel = mode == 0x10 ? 0 : mode == 0x1a ? 2 : 1;
    }
    if (pac) {
        target = pv_strip(env, target);
    }
    pv_branch(op, pc, target, false, true, true, tel);
}

/* Branches, exception generating and system instructions (op0 101x) */
static void pv_decode_branch(CPUARMState *env, uint32_t insn, uint64_t pc, PvSpeOp *op)
{
    int el = arm_current_el(env);
    unsigned rt = bits(insn, 4, 0);

    if ((insn & 0x7c000000) == 0x14000000) {            /* B, BL */
        pv_branch(op, pc, pc + (sext(bits(insn, 25, 0), 26) << 2), false, true, false, el);
    } else if ((insn & 0xff000000) == 0x54000000) {     /* B.cond, BC.cond */
        pv_branch(op, pc, pc + (sext(bits(insn, 23, 5), 19) << 2), true,
                  pv_cond(env, insn & 0xf), false, el);
    } else if ((insn & 0x7e000000) == 0x34000000) {     /* CBZ, CBNZ */
        uint64_t v = pv_x(env, rt);
        bool zero = bits(insn, 31, 31) ? v == 0 : (uint32_t)v == 0;

        pv_branch(op, pc, pc + (sext(bits(insn, 23, 5), 19) << 2), true,
                  bits(insn, 24, 24) ? !zero : zero, false, el);
    } else if ((insn & 0x7e000000) == 0x36000000) {     /* TBZ, TBNZ */
        unsigned b = bits(insn, 31, 31) << 5 | bits(insn, 23, 19);
        bool set = (pv_x(env, rt) >> b) & 1;

        pv_branch(op, pc, pc + (sext(bits(insn, 18, 5), 14) << 2), true,
                  bits(insn, 24, 24) ? set : !set, false, el);
    } else if ((insn & 0xff000000) == 0xd4000000) {     /* SVC, HVC, SMC, BRK, HLT, DCPS */
        op->exception = true;
    } else if ((insn & 0xfe1f0000) == 0xd61f0000) {     /* unconditional branch (register) */
        unsigned opc = bits(insn, 24, 21);
        bool pac = bits(insn, 11, 11);
        unsigned rn = bits(insn, 9, 5);

        switch (opc) {
        case 0x0: case 0x1: case 0x2: case 0x8: case 0x9: {  /* BR, BLR, RET (+PAC) */
            uint64_t target = pv_x(env, rn);

            if (opc == 0x2 && pac) {
                target = env->xregs[30];                     /* RETAA, RETAB */
            }
            if (pac || opc >= 0x8) {
                target = pv_strip(env, target);
            }
            pv_branch(op, pc, target, false, true, true, el);
            break;
        }
        case 0x4:                                           /* ERET, ERETAA, ERETAB */
            pv_eret(env, op, pc, pac);
            break;
        }
    } else {
        switch (insn & 0xffffffe0) {
        case 0xd50b7420:    /* DC ZVA */
        case 0xd50b7460:    /* DC GVA */
        case 0xd50b7480: {  /* DC GZVA */
            uint64_t block = 4ULL << env_archcpu(env)->dcz_blocksize;

            op->type = PV_SPE_OP_LDST;
            op->store = true;
            op->subclass = PV_LDST_UNSPEC | PV_LDST_STORE;
            op->has_vaddr = true;
            op->vaddr = pv_x(env, rt) & ~(block - 1);
            op->size = block;
            break;
        }
        }
    }
}

/* A general-purpose or SIMD&FP single register load or store: its kind and size. */
static void pv_ldst_reg(PvSpeOp *op, unsigned size, unsigned v, unsigned opc)
{
    if (v) {
        op->load = opc & 1;
        op->store = !(opc & 1);
        op->size = opc & 2 ? 16 : 1u << size;
        op->subclass = PV_LDST_SIMDFP;
    } else {
        switch (opc) {
        case 0:
            op->store = true;
            break;
        case 1:
            op->load = true;
            break;
        case 2:
            if (size == 3) {
                op->prefetch = true;    /* PRFM, PRFUM */
            } else {
                op->load = true;        /* LDRSB, LDRSH, LDRSW to X */
            }
            break;
        default:
            op->load = size <= 1;       /* LDRSB, LDRSH to W; the rest unallocated */
            break;
        }
        op->size = 1u << size;
        op->subclass = PV_LDST_GENERAL;
    }
}

/* Extend and shift of a register offset (option, S): ExtendReg() */
static uint64_t pv_reg_offset(CPUARMState *env, uint32_t insn, unsigned scale)
{
    uint64_t m = pv_x(env, bits(insn, 20, 16));
    unsigned shift = bits(insn, 12, 12) ? scale : 0;

    switch (bits(insn, 15, 13)) {
    case 2: m = (uint32_t)m; break;             /* UXTW */
    case 6: m = sext((uint32_t)m, 32); break;   /* SXTW */
    default: break;                             /* LSL (UXTX), SXTX */
    }
    return m << shift;
}

static void pv_set_ldst(PvSpeOp *op, uint64_t vaddr)
{
    if (op->prefetch) {
        op->type = PV_SPE_OP_OTHER;
    } else if (!op->load && !op->store) {
        return; /* unallocated: Other, no address */
    } else {
        op->type = PV_SPE_OP_LDST;
        if (!op->load) {
            op->subclass |= PV_LDST_STORE;
        }
    }
    op->has_vaddr = true;
    op->vaddr = vaddr;
}

/* Loads and stores (op0 x1x0) */
static void pv_decode_ldst(CPUARMState *env, uint32_t insn, uint64_t pc, PvSpeOp *op)
{
    unsigned size = bits(insn, 31, 30), v = bits(insn, 26, 26), rn = bits(insn, 9, 5);
    unsigned rt = bits(insn, 4, 0);
    bool l = bits(insn, 22, 22);
    uint64_t base = pv_xsp(env, rn);

    switch (bits(insn, 29, 24)) {
    case 0x08: {    /* exclusive, ordered, compare and swap */
        bool o2 = bits(insn, 23, 23), o1 = bits(insn, 21, 21), o0 = bits(insn, 15, 15);
        unsigned ar, excl = 0, at = 0;

        op->size = 1u << size;
        if (o1 && (o2 || !(size & 2))) {    /* CAS, CASP */
            at = 1;
            ar = l | o0;
            op->load = op->store = true;
            if (!o2) {
                op->size = 8u << (size & 1);
            }
        } else if (o1 || !o2) {             /* LDXP, STXP; LDXR, STXR (and the acquire forms) */
            excl = 1;
            ar = o0;
            op->load = l;
            op->store = !l;
            if (o1) {
                op->size = 8u << (size & 1);
            }
        } else {                            /* LDAR, STLR, LDLAR, STLLR */
            ar = 1;
            op->load = l;
            op->store = !l;
        }
        op->subclass = PV_LDST_EXTENDED | ar << 4 | excl << 3 | at << 2;
        pv_set_ldst(op, base);
        return;
    }
    case 0x0c:      /* SIMD structures: multiple */
    case 0x0d:      /* ... single */
        if (bits(insn, 31, 31)) {
            return;
        }
        op->load = l;
        op->store = !l;
        op->size = 16;
        op->subclass = PV_LDST_SIMDFP;
        pv_set_ldst(op, base);
        return;
    case 0x18:      /* load register (literal) */
    case 0x1c: {
        uint64_t addr = pc + (sext(bits(insn, 23, 5), 19) << 2);

        if (v) {
            pv_ldst_reg(op, size == 0 ? 2 : size == 1 ? 3 : 4, 0, 1);
            op->subclass = PV_LDST_SIMDFP;
        } else if (size == 3) {
            op->prefetch = true;            /* PRFM (literal) */
        } else {
            op->load = true;
            op->size = size == 1 ? 8 : 4;
            op->subclass = PV_LDST_GENERAL;
        }
        pv_set_ldst(op, addr);
        return;
    }
    case 0x19:      /* memory copy and set, tags, LDAPUR and STLUR */
    case 0x1d:
        if (!bits(insn, 21, 21) && bits(insn, 11, 10) == 1) {  /* CPY*, SET* (FEAT_MOPS) */
            op->load = bits(insn, 23, 22) != 3;
            op->store = true;
            op->size = 1;
            op->subclass = PV_LDST_UNSPEC | PV_LDST_STORE;
            op->type = PV_SPE_OP_LDST;
            op->has_vaddr = true;
            op->vaddr = pv_x(env, rt);      /* the destination */
            return;
        }
        if (bits(insn, 29, 24) == 0x19 && size == 3 && bits(insn, 21, 21)) {  /* tags */
            unsigned opc = bits(insn, 23, 22), op2 = bits(insn, 11, 10);
            uint64_t off = op2 == 1 ? 0 : sext(bits(insn, 20, 12), 9) << 4;

            op->load = (opc == 1 && op2 == 0) || (opc == 3 && op2 == 0); /* LDG, LDGM */
            op->store = !op->load;
            op->size = 16;
            op->subclass = PV_LDST_UNSPEC;
            pv_set_ldst(op, base + off);
            return;
        }
        if (!bits(insn, 21, 21) && bits(insn, 11, 10) == 0) {  /* LDAPUR*, STLUR */
            op->load = bits(insn, 23, 22) != 0;
            op->store = !op->load;
            op->size = 1u << size;
            op->subclass = PV_LDST_EXTENDED | 1 << 4;
            pv_set_ldst(op, base + sext(bits(insn, 20, 12), 9));
        }
        return;
    case 0x28: case 0x29: case 0x2a: case 0x2b:    /* pairs */
    case 0x2c: case 0x2d: case 0x2e: case 0x2f: {
        unsigned type = bits(insn, 24, 23), scale;

        if (bits(insn, 25, 25) || size == 3) {
            return;
        }
        if (v) {
            scale = 2 + size;
            op->subclass = PV_LDST_SIMDFP;
        } else {
            scale = size == 0 ? 2 : size == 2 ? 3 : l ? 2 : 4;  /* W, X, LDPSW, STGP */
            op->subclass = size == 1 && !l ? PV_LDST_UNSPEC : PV_LDST_GENERAL;
        }
        op->load = l;
        op->store = !l;
        op->size = 2u << scale;
        pv_set_ldst(op, type == 1 ? base : base + (sext(bits(insn, 21, 15), 7) << scale));
        return;
    }
    case 0x38:      /* register: unscaled, post/pre-index, unprivileged, offset; atomics */
    case 0x3c: {
        unsigned opc = bits(insn, 23, 22);

        if (!bits(insn, 21, 21)) {
            pv_ldst_reg(op, size, v, opc);
            pv_set_ldst(op, bits(insn, 11, 10) == 1 ? base
                                                     : base + sext(bits(insn, 20, 12), 9));
            return;
        }
        switch (bits(insn, 11, 10)) {
        case 0: {   /* atomic memory operations, SWP, LDAPR */
            bool a = bits(insn, 23, 23), r = bits(insn, 22, 22), o3 = bits(insn, 15, 15);
            unsigned aop = bits(insn, 14, 12);

            if (v) {
                return;
            }
            op->size = 1u << size;
            if (o3 && aop == 4) {           /* LDAPR */
                op->load = true;
                op->subclass = PV_LDST_EXTENDED | 1 << 4;
            } else {
                bool returns = !(!o3 && !a && rt == 31);    /* ST<op>: no value returned */

                op->load = returns;
                op->store = true;
                op->subclass = PV_LDST_EXTENDED | (a | r) << 4 | 1 << 2;
            }
            pv_set_ldst(op, base);
            return;
        }
        case 2: {   /* register offset */
            unsigned scale = v && (opc & 2) ? 4 : size;

            pv_ldst_reg(op, size, v, opc);
            pv_set_ldst(op, base + pv_reg_offset(env, insn, scale));
            return;
        }
        default:    /* LDRAA, LDRAB */
            if (v || size != 3) {
                return;
            }
            op->load = true;
            op->size = 8;
            op->subclass = PV_LDST_GENERAL;
            pv_set_ldst(op, pv_strip(env, base) +
                        (sext(bits(insn, 22, 22) << 9 | bits(insn, 20, 12), 10) << 3));
            return;
        }
    }
    case 0x39:      /* register, unsigned immediate offset */
    case 0x3d: {
        unsigned opc = bits(insn, 23, 22);
        unsigned scale = v && (opc & 2) ? 4 : size;

        pv_ldst_reg(op, size, v, opc);
        pv_set_ldst(op, base + ((uint64_t)bits(insn, 21, 10) << scale));
        return;
    }
    }
}

/* SVE (op0 0010) */
static void pv_decode_sve(CPUARMState *env, uint32_t insn, PvSpeOp *op)
{
    unsigned group = bits(insn, 31, 29);
    bool pred;

    if (group < 4) {    /* data processing */
        op->type = PV_SPE_OP_SVE;
        op->evl = pv_evl(env);
        return;
    }
    /* Prefetches (PRFB, PRFH, PRFW, PRFD, all forms): Other */
    if ((group == 4 && ((bits(insn, 31, 22) == 0x217 && !bits(insn, 15, 15)) ||
                        (bits(insn, 31, 25) == 0x42 && bits(insn, 22, 21) == 0 &&
                         bits(insn, 15, 14) == 3) ||
                        (bits(insn, 31, 23) == 0x108 && bits(insn, 21, 21) &&
                         !bits(insn, 15, 15)))) ||
        (group == 6 && ((bits(insn, 31, 25) == 0x62 && bits(insn, 22, 21) == 0 &&
                         bits(insn, 15, 13) == 7) ||
                        (bits(insn, 31, 23) == 0x188 && bits(insn, 21, 21))))) {
        return;
    }
    /* LDR and STR of a vector or a predicate are not predicated */
    pred = (insn & 0xffc0e000) != 0x85804000 && (insn & 0xffc0e010) != 0x85800000 &&
           (insn & 0xffc0e000) != 0xe5804000 && (insn & 0xffc0e010) != 0xe5800000;
    op->type = PV_SPE_OP_LDST;
    op->load = group != 7;
    op->store = group == 7;
    op->subclass = PV_LDST_SVE | (group == 6) << 7 | pv_evl(env) << 4 | pred << 2 |
                   (group == 7 ? PV_LDST_STORE : 0);
}

/* Data processing (register): conditional select and compare */
static void pv_decode_dp_reg(CPUARMState *env, uint32_t insn, PvSpeOp *op)
{
    if ((insn & 0x1fe00000) == 0x1a800000 ||    /* CSEL, CSINC, CSINV, CSNEG */
        (insn & 0x1fe00000) == 0x1a400000) {    /* CCMN, CCMP */
        op->cond = true;
        op->cond_fail = !pv_cond(env, bits(insn, 15, 12));
    }
}

/* Data processing (SIMD&FP): FCSEL, FCCMP, FCCMPE */
static void pv_decode_dp_fp(CPUARMState *env, uint32_t insn, PvSpeOp *op)
{
    if ((insn & 0xff200c00) == 0x1e200c00 || (insn & 0xff200c00) == 0x1e200400) {
        op->cond = true;
        op->cond_fail = !pv_cond(env, bits(insn, 15, 12));
    }
}

void pv_spe_decode(CPUARMState *env, uint32_t insn, uint64_t pc, PvSpeOp *op)
{
    unsigned op0 = bits(insn, 28, 25);

    memset(op, 0, sizeof(*op));
    op->type = PV_SPE_OP_OTHER;
    if ((op0 & 0xe) == 0xa) {
        pv_decode_branch(env, insn, pc, op);
    } else if ((op0 & 0x5) == 0x4) {
        pv_decode_ldst(env, insn, pc, op);
    } else if (op0 == 0x2) {
        pv_decode_sve(env, insn, op);
    } else if ((op0 & 0x7) == 0x5) {
        pv_decode_dp_reg(env, insn, op);
    } else if ((op0 & 0x7) == 0x7) {
        pv_decode_dp_fp(env, insn, op);
    } else if ((insn >> 16) == 0) {             /* UDF */
        op->exception = true;
    }
}
