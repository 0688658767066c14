/* SPDX-License-Identifier: MIT */
/*
 * The trap entry: two table loads from the raw ISS to a function made for one register and
 * one direction, generated from the register lists (regs.h), so every trap costs the same few
 * instructions whatever the register.
 *
 * ISS of EC 0x18 (Arm ARM D24.2, ESR_EL2, ISS encoding for an exception from MSR, MRS, or
 * System instruction execution in AArch64 state): Op0 [21:20], Op2 [19:17], Op1 [16:14],
 * CRn [13:10], Rt [9:5], CRm [4:1], Direction [0]. The first level is indexed by ISS[21:10]
 * (Op0:Op2:Op1:CRn) and names a row; the row is indexed by ISS[4:0] (CRm:Direction). Rt plays
 * no part in the lookup, and ISS[24:22] are RES0 for this EC.
 *
 * Each generated function counts the trap, checks the register against the VM (one load of
 * the vCPU's copy of pv_vm.reg_limit), picks the guest's register (Rt = 31 is XZR: reads are
 * discarded, writes are zero) and tail-calls the module's handler; a direction the register
 * lacks is UNDEF.
 *
 * Single registers come straight from the lists; the rows of the indexed families restate
 * their key and mask (regs.h) as CRm ranges (PMEVCNTR<n> and PMEVTYPER<n> with a function per
 * n), and tests/unit/test_trap_dispatch.c checks every key of the EC 0x18 space, both
 * directions, against the table (pv_reg_lookup).
 */
#include "regs.h"

typedef enum pv_trap_result (*trap_fn)(struct pv_vcpu *v, uint32_t iss, unsigned el,
					uint64_t *x);

/* The (Op0, Op1, CRn) spaces that hold a register perfvisor owns; a register in any other
 * space fails to compile (SPACE_<op0>_<op1>_<crn> undefined). */
#define PV_TRAP_SPACES(S) S(3, 0, 0) S(3, 0, 9) S(3, 0, 10) S(3, 3, 9) S(3, 3, 13) S(3, 3, 14)

enum {
	SPACE_NONE,
#define SPACE_ENUM(o0, o1, n) SPACE_##o0##_##o1##_##n,
	PV_TRAP_SPACES(SPACE_ENUM)
	SPACE_END
};

/* Row 0 is empty: every ISS outside the spaces lands there. */
#define ROW(o0, o1, n, o2) ((SPACE_##o0##_##o1##_##n - 1) * 8 + (o2) + 1)
#define ROWS ((SPACE_END - 1) * 8 + 1)
#define L1_INDEX(iss) (((iss) >> PV_ISS_SYS_CRN_SHIFT) & 0xFFFu)
#define L1_AT(o0, o1, n, o2)                                                                     \
	L1_INDEX(((o0) << PV_ISS_SYS_OP0_SHIFT) | ((o2) << PV_ISS_SYS_OP2_SHIFT) |              \
		 ((o1) << PV_ISS_SYS_OP1_SHIFT) | ((n) << PV_ISS_SYS_CRN_SHIFT))
#define L2_INDEX(iss) ((iss) & 0x1Fu)
#define L2_AT(m, read) ((m) * 2 + (read))

_Static_assert(ROWS * 32 <= 65536, "row offsets fit 16 bits");
_Static_assert((PV_ISS_SYS_KEY_MASK | PV_ISS_SYS_DIR_READ) ==
		       ((0xFFFu << PV_ISS_SYS_CRN_SHIFT) | 0x1Fu),
	       "the two levels cover exactly the key and the direction");

#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* The body of every generated function; `id`, `kind` and the handler are constants there, so
 * each folds to its own straight line. */
ALWAYS_INLINE enum pv_trap_result trap_read(struct pv_vcpu *v, unsigned kind, unsigned id,
					    unsigned idx, pv_reg_read_fn *fn, uint32_t iss,
					    unsigned el, uint64_t *x)
{
	v->stats.traps[kind]++;
	/* A register the VM lacks (hidden feature, later version) or an index past the VM's
	 * family (PMEVCNTR<n> with n >= N): UNDEF. */
	if (idx >= v->reg_limit[id] || !fn)
		return PV_TRAP_UNDEF; /* or MRS of a write-only register */
	unsigned rt = (iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT;
	if (rt == 31)
		return fn(v, idx, el, &v->discard);
	return fn(v, idx, el, &x[rt]);
}

ALWAYS_INLINE enum pv_trap_result trap_write(struct pv_vcpu *v, unsigned kind, unsigned id,
					     unsigned idx, pv_reg_write_fn *fn, uint32_t iss,
					     unsigned el, const uint64_t *x)
{
	v->stats.traps[kind]++;
	if (idx >= v->reg_limit[id] || !fn)
		return PV_TRAP_UNDEF; /* or MSR to a read-only register */
	unsigned rt = (iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT;
	if (rt == 31)
		return fn(v, idx, el, 0);
	return fn(v, idx, el, x[rt]);
}

/* The index within a family, from the raw ISS (key bits sit where they sit in the ISS). */
#define INDEX_NONE(iss) 0u
#define INDEX_AMEV(iss) (((iss) & 2u) << 2 | PV_SYSREG_OP2(iss)) /* n = CRm[0]:Op2 */
#define INDEX_ID(iss) PV_ID_SLOT(iss)                /* CRm * 8 + Op2 */

/* rd_<fn> and wr_<fn>: register `id`, its index `index` (an expression of `iss`). */
#define TRAP_FNS_OF(fn, id, kind, index, rd, wr)                                                 \
	static enum pv_trap_result rd_##fn(struct pv_vcpu *v, uint32_t iss, unsigned el,       \
					   uint64_t *x)                                          \
	{                                                                                        \
		return trap_read(v, PV_KIND_##kind, id, index, rd, iss, el, x);                  \
	}                                                                                        \
	static enum pv_trap_result wr_##fn(struct pv_vcpu *v, uint32_t iss, unsigned el,       \
					   uint64_t *x)                                          \
	{                                                                                        \
		return trap_write(v, PV_KIND_##kind, id, index, wr, iss, el, x);                 \
	}
/* ... for one register or a whole family. */
#define TRAP_FNS(nm, kind, ix, rd, wr) TRAP_FNS_OF(nm, RIDX_##nm, kind, INDEX_##ix(iss), rd, wr)

#define PMU_FNS(nm, o0, o1, n, m, o2, v, acc, h, txt)                                            \
	TRAP_FNS(nm, PMU, NONE, RD_##acc(vpmu, h), WR_##acc(vpmu, h))
#define AMU_FNS(nm, o0, o1, n, m, o2, v, acc, h, txt)                                            \
	TRAP_FNS(nm, AMU, NONE, RD_##acc(vamu, h), WR_##acc(vamu, h))
#define MPAM_FNS(nm, o0, o1, n, m, o2, v, acc, h, txt)                                           \
	TRAP_FNS(nm, MPAM, NONE, RD_##acc(vmpam, h), WR_##acc(vmpam, h))
#define SPE_FNS(nm, o0, o1, n, m, o2, v, acc, h, txt)                                            \
	TRAP_FNS(nm, SPE, NONE, RD_##acc(vspe, h), WR_##acc(vspe, h))
#define OFF_FNS(k, f, nm, o0, o1, n, m, o2, v, acc) TRAP_FNS(nm, k, NONE, NULL, NULL)
#define FAM_FNS(nm, str, k, msk, f, ver, acc, ix, mod, h, txt)                                   \
	FAM_FNS_##ix(nm, f, ix, RD_##acc(mod, h), WR_##acc(mod, h))
#define FAM_FNS_AMEV(nm, f, ix, rd, wr) TRAP_FNS(nm, f, ix, rd, wr)
#define FAM_FNS_ID(nm, f, ix, rd, wr) TRAP_FNS(nm, f, ix, rd, wr)
/* PMEVCNTR<n> and PMEVTYPER<n>, the families a guest's perf reaches on every counter read,
 * get a pair of functions per index, each calling the vPMU's entry for that n (vpmu.h): n
 * is a constant all the way to the MRS or MSR, never decoded from the ISS. */
#define FAM_FNS_PMEV(nm, f, ix, rd, wr) PV_PMEV_EACH(TRAP_FNS_AT, nm, f)
#define TRAP_FNS_AT(n, nm, f)                                                                    \
	TRAP_FNS_OF(nm##_##n, RIDX_##nm, f, n##u, PMEV_RD(nm, n), PMEV_WR(nm, n))
#define PMEV_RD(nm, n) PMEV_RD_##nm(n)
#define PMEV_WR(nm, n) PMEV_WR_##nm(n)
#define PMEV_RD_PMEVCNTR(n) pv_vpmu_pmevcntr##n##_read
#define PMEV_WR_PMEVCNTR(n) pv_vpmu_pmevcntr##n##_write
#define PMEV_RD_PMEVTYPER(n) pv_vpmu_pmevtyper##n##_read
#define PMEV_WR_PMEVTYPER(n) pv_vpmu_pmevtyper##n##_write

PV_PMU_REGS(PMU_FNS)
PV_AMU_REGS(AMU_FNS)
PV_MPAM_REGS(MPAM_FNS)
PV_SPE_REGS(SPE_FNS)
PV_OFF_REGS(OFF_FNS)
PV_FAMILY_REGS(FAM_FNS)
TRAP_FNS(ID_GROUP, ID, ID, pv_id_read, NULL)
/* The family's encoding for n = 31 names no counter: the gate on n answers UNDEF. */
TRAP_FNS_OF(PMEVCNTR_31, RIDX_PMEVCNTR, PMU, 31u, pv_vpmu_pmevcntr_read, pv_vpmu_pmevcntr_write)

/* First level: ISS[21:10] -> the offset of a row of the second (row * 32). */
#define L1_ENTRY(o0, o1, n, o2) [L1_AT(o0, o1, n, o2)] = ROW(o0, o1, n, o2) * 32,
#define L1_SPACE(o0, o1, n)                                                                      \
	L1_ENTRY(o0, o1, n, 0) L1_ENTRY(o0, o1, n, 1) L1_ENTRY(o0, o1, n, 2)                     \
	L1_ENTRY(o0, o1, n, 3) L1_ENTRY(o0, o1, n, 4) L1_ENTRY(o0, o1, n, 5)                     \
	L1_ENTRY(o0, o1, n, 6) L1_ENTRY(o0, o1, n, 7)

/* Second level: row * 32 + ISS[4:0] -> function; NULL where no register is. */
#define L2_ENTRY(nm, o0, o1, n, m, o2)                                                           \
	[ROW(o0, o1, n, o2) * 32 + L2_AT(m, 1)] = rd_##nm,                                       \
	[ROW(o0, o1, n, o2) * 32 + L2_AT(m, 0)] = wr_##nm,
#define L2_REG(nm, o0, o1, n, m, o2, v, acc, h, txt) L2_ENTRY(nm, o0, o1, n, m, o2)
#define L2_OFF(k, f, nm, o0, o1, n, m, o2, v, acc) L2_ENTRY(nm, o0, o1, n, m, o2)
/* A family over CRm = m with Op2 0..7 (SEQ8) or 0..6 (SEQ7). */
#define SEQ7(nm, o0, o1, n, m)                                                                   \
	L2_ENTRY(nm, o0, o1, n, m, 0) L2_ENTRY(nm, o0, o1, n, m, 1) L2_ENTRY(nm, o0, o1, n, m, 2) \
	L2_ENTRY(nm, o0, o1, n, m, 3) L2_ENTRY(nm, o0, o1, n, m, 4) L2_ENTRY(nm, o0, o1, n, m, 5) \
	L2_ENTRY(nm, o0, o1, n, m, 6)
#define SEQ8(nm, o0, o1, n, m) SEQ7(nm, o0, o1, n, m) L2_ENTRY(nm, o0, o1, n, m, 7)
/* Entry i of a PMU event family whose CRm starts at crm0, to its own function. */
#define L2_PMEV(i, nm, crm0) L2_ENTRY(nm##_##i, 3, 3, 14, (crm0) + (i) / 8, (i) % 8)

/* Both levels in one object, so that a lookup needs one base address. */
struct trap_table {
	uint16_t row_of[4096];           /* ISS[21:10] -> row * 32 */
	trap_fn fn[ROWS * 32];           /* row * 32 + ISS[4:0] -> function, or NULL */
};

static const struct trap_table trap_table = {
	.row_of = {PV_TRAP_SPACES(L1_SPACE)},
	.fn = {
	PV_PMU_REGS(L2_REG) PV_AMU_REGS(L2_REG) PV_MPAM_REGS(L2_REG) PV_SPE_REGS(L2_REG)
	PV_OFF_REGS(L2_OFF)
	/* PMEVCNTR<n>_EL0: CRm 0b10:n[4:3], Op2 n[2:0] (Arm ARM D24.5). */
	PV_PMEV_EACH(L2_PMEV, PMEVCNTR, 8) L2_PMEV(31, PMEVCNTR, 8)
	/* PMEVTYPER<n>_EL0: CRm 0b11:n[4:3]; n = 31 is PMCCFILTR_EL0, listed above. */
	PV_PMEV_EACH(L2_PMEV, PMEVTYPER, 12)
	/* AMEVCNTR0<n>, AMEVTYPER0<n>, AMEVCNTR1<n>, AMEVTYPER1<n>: CRm = 0b<g>1<t><n[3]>
	 * (Arm ARM D24.6). */
	SEQ8(AMEVCNTR0, 3, 3, 13, 4) SEQ8(AMEVCNTR0, 3, 3, 13, 5)
	SEQ8(AMEVTYPER0, 3, 3, 13, 6) SEQ8(AMEVTYPER0, 3, 3, 13, 7)
	SEQ8(AMEVCNTR1, 3, 3, 13, 12) SEQ8(AMEVCNTR1, 3, 3, 13, 13)
	SEQ8(AMEVTYPER1, 3, 3, 13, 14) SEQ8(AMEVTYPER1, 3, 3, 13, 15)
	/* The TID3 ID group: Op0=3 Op1=0 CRn=0 CRm=1..7 (CRm = 0, MIDR_EL1 and the
	 * like, is not in it). */
	SEQ8(ID_GROUP, 3, 0, 0, 1) SEQ8(ID_GROUP, 3, 0, 0, 2) SEQ8(ID_GROUP, 3, 0, 0, 3)
	SEQ8(ID_GROUP, 3, 0, 0, 4) SEQ8(ID_GROUP, 3, 0, 0, 5) SEQ8(ID_GROUP, 3, 0, 0, 6)
	SEQ8(ID_GROUP, 3, 0, 0, 7)
	},
};

/* Bits of `esr` above ISS[21] are never looked at: the syndrome can be passed whole, and is
 * taken as 64 bits so that nothing needs widening on the way to the table loads. */
ALWAYS_INLINE enum pv_trap_result trap_sys64(struct pv_vcpu *v, uint64_t esr, unsigned el,
					     uint64_t *x)
{
	trap_fn fn = trap_table.fn[trap_table.row_of[L1_INDEX(esr)] + L2_INDEX(esr)];
	if (!fn)
		return PV_TRAP_UNKNOWN;
	return fn(v, (uint32_t)esr, el, x);
}

enum pv_trap_result pv_trap_sys64(struct pv_vcpu *v, uint64_t esr, unsigned el, uint64_t *x)
{
	return trap_sys64(v, esr, el, x);
}

enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, unsigned el, uint64_t *x)
{
	/* EC is ESR_EL2[31:26]; ISS2 above bit 31 plays no part for EC 0x18. */
	if (((uint32_t)esr >> PV_ESR_EC_SHIFT) != PV_EC_SYS64)
		return PV_TRAP_UNKNOWN;
	return trap_sys64(v, esr, el, x);
}
