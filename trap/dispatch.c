/* SPDX-License-Identifier: MIT */
/*
 * The trap entry: two table loads from the raw ISS to a function made for one register and
 * one direction, generated from the register database (regs.h), so every trap costs the same few
 * instructions whatever the register.
 *
 * ISS of EC 0x18 (Arm ARM D24.2, ESR_EL2, ISS encoding for an exception from MSR, MRS, or
 * System instruction execution in AArch64 state): Op0 [21:20], Op2 [19:17], Op1 [16:14],
 * CRn [13:10], Rt [9:5], CRm [4:1], Direction [0]. The first level is indexed by ISS[21:10]
 * (Op0:Op2:Op1:CRn) and names a row; the row is indexed by ISS[4:0] (CRm:Direction). Rt plays
 * no part in the lookup, and ISS[24:22] are RES0 for this EC.
 *
 * Each generated function counts the trap, checks the register against the VM (one load of
 * the vCPU's copy of pv_vm.reg_limit), applies the register's EL0 rule, picks the guest's
 * register (Rt = 31 is XZR: reads are discarded, writes are zero) and tail-calls the
 * module's handler; a direction the register lacks is UNDEF.
 *
 * Both levels are expanded from the register database (regdb.h: PV_REGDB_SLOTS names the
 * function of every encoding, families included; PMEVCNTR<n> and PMEVTYPER<n> have one per
 * n), and tests/unit/test_trap_dispatch.c checks every key of the EC 0x18 space, both
 * directions, against the table (pv_reg_lookup).
 */
#include "regs.h"

typedef enum pv_trap_result (*trap_fn)(struct pv_vcpu *v, uint32_t iss, unsigned el,
				       uint64_t *x);

/* The (Op0, Op1, CRn) spaces that hold a register perfvisor owns. */
enum {
	SPACE_NONE,
#define SPACE_ENUM(o0, o1, n) SPACE_##o0##_##o1##_##n,
	PV_REGDB_SPACES(SPACE_ENUM) /* one per space */
	SPACE_END
};

/* Row 0 is empty: every ISS outside the spaces lands there. */
#define ROW(o0, o1, n, o2) ((SPACE_##o0##_##o1##_##n - 1) * 8 + (o2) + 1)
#define ROWS ((SPACE_END - 1) * 8 + 1)
#define L1_INDEX(iss) (((iss) >> PV_ISS_SYS_CRN_SHIFT) & 0xFFFu)
#define L1_AT(o0, o1, n, o2)                                                                   \
	L1_INDEX(((o0) << PV_ISS_SYS_OP0_SHIFT) | ((o2) << PV_ISS_SYS_OP2_SHIFT) |             \
		 ((o1) << PV_ISS_SYS_OP1_SHIFT) | ((n) << PV_ISS_SYS_CRN_SHIFT))
#define L2_INDEX(iss) (0x1Fu & (iss))
#define L2_AT(m, read) (2 * (m) + (read))

_Static_assert(ROWS * 32 <= 65536, "row offsets fit 16 bits");
_Static_assert((PV_ISS_SYS_KEY_MASK | PV_ISS_SYS_DIR_READ) ==
		       ((0xFFFu << PV_ISS_SYS_CRN_SHIFT) | 0x1Fu),
	       "the two levels cover exactly the key and the direction");

#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE static inline
#endif

/* The EL0 rule of a register (PV_EL0_*, a constant in each generated function): whether an
 * access from EL0 reaches the handler (PV_TRAP_HANDLED), traps to the guest's EL1, or is
 * UNDEFINED. PMUSERENR_EL0 and AMUSERENR_EL0 are the guest's (the hardware's stay open so
 * that EL0 accesses reach EL2 at all, HCR_EL2.TGE = 0); a loaded direct vCPU's PMUSERENR_EL0
 * is the hardware's, which already let the access through (pv_vpmu.el0_open). */
ALWAYS_INLINE enum pv_trap_result el0_rule(const struct pv_vcpu *v, unsigned rule)
{
	switch (PV_EL0_KIND(rule)) {
	case PV_EL0_ANY:
		return PV_TRAP_HANDLED;
	case PV_EL0_PMU(0):
		return ((v->pmu.userenr | v->pmu.el0_open) & rule & 0xFFu) ? PV_TRAP_HANDLED
									   : PV_TRAP_EL1_SYSREG;
	case PV_EL0_AMU:
		return pv_vamu_el0_enabled(v) ? PV_TRAP_HANDLED : PV_TRAP_EL1_SYSREG;
	case PV_EL0_IDST: {
		/* EL0 reads of the ID space: trapped to EL1 with FEAT_IDST, else UNDEFINED. */
		uint64_t mmfr2 = v->vm->hw->id[PV_ID_SLOT(PV_ID_AA64MMFR2_EL1)];
		return PV_ID_FIELD(mmfr2, PV_ID_AA64MMFR2_IDS) ? PV_TRAP_EL1_SYSREG
							       : PV_TRAP_UNDEF;
	}
	default:
		return PV_TRAP_UNDEF;
	}
}

/* The body of every generated function; `id`, `kind`, the rule and the handler are constants
 * there, so each folds to its own straight line. */
ALWAYS_INLINE enum pv_trap_result trap_read(struct pv_vcpu *v, unsigned kind, unsigned id,
					    unsigned idx, unsigned rule, pv_reg_read_fn *fn,
					    uint32_t iss, unsigned el, uint64_t *x)
{
	unsigned rt;
	v->stats.traps[kind]++;
	/* A register the VM lacks (hidden feature, later version) or an index past the VM's
	 * family (PMEVCNTR<n> with n >= N): UNDEF, before any EL0 rule (Arm ARM: an
	 * unimplemented register is UNDEFINED at every EL). */
	if (idx >= v->reg_limit[id] || !fn)
		return PV_TRAP_UNDEF; /* or MRS of a write-only register */
	if (el == 0) {
		enum pv_trap_result r = el0_rule(v, rule);
		if (r != PV_TRAP_HANDLED)
			return r;
	}
	rt = (iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT;
	if (rt == 31)
		return fn(v, idx, el, &v->discard);
	return fn(v, idx, el, &x[rt]);
}

ALWAYS_INLINE enum pv_trap_result trap_write(struct pv_vcpu *v, unsigned kind, unsigned id,
					     unsigned idx, unsigned rule, pv_reg_write_fn *fn,
					     uint32_t iss, unsigned el, const uint64_t *x)
{
	unsigned rt;
	v->stats.traps[kind]++;
	if (idx >= v->reg_limit[id] || !fn)
		return PV_TRAP_UNDEF; /* or MSR to a read-only register */
	if (el == 0) {
		enum pv_trap_result r = el0_rule(v, rule);
		if (r != PV_TRAP_HANDLED)
			return r;
	}
	rt = (iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT;
	if (rt == 31)
		return fn(v, idx, el, 0);
	return fn(v, idx, el, x[rt]);
}

/* Member n of a family from the raw ISS (key bits sit where they sit in the ISS): n =
 * CRm[crm_bits-1:0]:Op2 (Op2 alone for a family of at most 8); 0 for a register. */
#define MEMBER(iss, crm_bits, first, last)                                                     \
	((first) == (last)                                                                     \
		 ? 0u                                                                          \
		 : (((iss) >> PV_ISS_SYS_CRM_SHIFT) & ((1u << (crm_bits)) - 1u)) << 3 |        \
			   PV_SYSREG_OP2(iss))

/* rd_<fn> and wr_<fn>: entry `id`, member `index` (an expression of `iss`). */
#define TRAP_FNS_OF(fn, id, kind, index, el0_rd, el0_wr, rd, wr)                               \
	static enum pv_trap_result rd_##fn(struct pv_vcpu *v, uint32_t iss, unsigned el,       \
					   uint64_t *x)                                        \
	{                                                                                      \
		return trap_read(v, kind, id, index, el0_rd, rd, iss, el, x);                  \
	}                                                                                      \
	static enum pv_trap_result wr_##fn(struct pv_vcpu *v, uint32_t iss, unsigned el,       \
					   uint64_t *x)                                        \
	{                                                                                      \
		return trap_write(v, kind, id, index, el0_wr, wr, iss, el, x);                 \
	}

/* One pair per entry (ONE), its member taken from the ISS; the EACH families get a pair per
 * member instead, each calling that member's own handler: n is a constant all the way to
 * the MRS or MSR, never decoded from the ISS (PMEVCNTR<n>, PMEVTYPER<n>: what a guest's perf
 * reaches on every counter read). */
#define ENTRY_FNS(ident, title, o0, o1, n, m, o2, first, last, crm_bits, kind, feature, min,   \
		  gate, access, el0_rd, el0_wr, rd, wr, each, text, rd_name, wr_name)          \
	ENTRY_FNS_##each(ident, kind, MEMBER(iss, crm_bits, first, last), el0_rd, el0_wr, rd,  \
			 wr)
#define ENTRY_FNS_ONE(ident, kind, member, el0_rd, el0_wr, rd, wr)                             \
	TRAP_FNS_OF(ident, RIDX_##ident, kind, member, el0_rd, el0_wr, rd, wr)
#define ENTRY_FNS_EACH(ident, kind, member, el0_rd, el0_wr, rd, wr)
PV_REGDB_ENTRIES(ENTRY_FNS)

/* The EACH members: the entry's kind and rules, looked up by ident. */
#define ENTRY_RULES(ident, title, o0, o1, n, m, o2, first, last, crm_bits, kind, feature, min, \
		    gate, access, el0_rd, el0_wr, rd, wr, each, text, rd_name, wr_name)        \
	enum { KIND_##ident = (kind), EL0RD_##ident = (el0_rd), EL0WR_##ident = (el0_wr) };
PV_REGDB_ENTRIES(ENTRY_RULES)
#define MEMBER_FNS(ident, n, rd, wr)                                                           \
	TRAP_FNS_OF(ident##_##n, RIDX_##ident, KIND_##ident, n##u, EL0RD_##ident,              \
		    EL0WR_##ident, rd, wr)
PV_REGDB_EACH(MEMBER_FNS)

/* First level: ISS[21:10] -> the offset of a row of the second (row * 32). */
#define L1_ENTRY(o0, o1, n, o2) [L1_AT(o0, o1, n, o2)] = ROW(o0, o1, n, o2) * 32,
/* clang-format off */
#define L1_SPACE(o0, o1, n)                                                                    \
	L1_ENTRY(o0, o1, n, 0) L1_ENTRY(o0, o1, n, 1) L1_ENTRY(o0, o1, n, 2)                   \
	L1_ENTRY(o0, o1, n, 3) L1_ENTRY(o0, o1, n, 4) L1_ENTRY(o0, o1, n, 5)                   \
	L1_ENTRY(o0, o1, n, 6) L1_ENTRY(o0, o1, n, 7)
/* clang-format on */

/* Second level: row * 32 + ISS[4:0] -> function; NULL where no register is. */
#define L2_ENTRY(fn, o0, o1, n, m, o2)                                                         \
	[ROW(o0, o1, n, o2) * 32 + L2_AT(m, 1)] = rd_##fn,                                     \
					    [ROW(o0, o1, n, o2) * 32 + L2_AT(m, 0)] = wr_##fn,

/* Both levels in one object, so that a lookup needs one base address. */
struct trap_table {
	uint16_t row_of[4096]; /* ISS[21:10] -> row * 32 */
	trap_fn fn[ROWS * 32]; /* row * 32 + ISS[4:0] -> function, or NULL */
};

static const struct trap_table trap_table = {
	.row_of = {PV_REGDB_SPACES(L1_SPACE)},
	.fn = {PV_REGDB_SLOTS(L2_ENTRY)},
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
