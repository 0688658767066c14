/* SPDX-License-Identifier: MIT */
/*
 * The one register table and the single trap entry generated from it. Every system register
 * perfvisor owns is listed once (the lists are in regs.h); the dispatch, the per-VM checks
 * (gates.c) and the coverage document are all generated from them.
 *
 * Registers are grouped by the trap control that sends them to EL2:
 *   MDCR_EL2.TPM            PMUv3 (Arm ARM D13, D24.5)
 *   MDCR_EL2.TPMS / E2PB    SPE (Arm ARM D15)
 *   CPTR_EL2.TAM            AMU (Arm ARM D24.6; HAFGRTR_EL2 on the virtual-offset path)
 *   MPAM2_EL2.TRAPMPAMxEL1, MPAMHCR_EL2.TRAP_MPAMIDR_EL1   MPAM
 *   HCR_EL2.TID3            the ID group (Op0=3 Op1=0 CRn=0 CRm=1..7)
 * A register of a feature the VM does not have UNDEFs; its ID field reads as not implemented.
 */
#include "regs.h"

#define OFF_TEXT "UNDEF: not offered to guests yet (ID field reads not implemented)"

const struct pv_reg_desc pv_reg_descs[RIDX_COUNT] = {
/* A register emulated by module `mod` (vpmu, vamu), of feature `f` from version `ver`. */
#define REG_DESC(f, ver, mod, nm, o0, o1, n, m, o2, acc, h, txt)                                 \
	[RIDX_##nm] = {                                                                          \
		.name = #nm,                                                                     \
		.key = PV_SYSREG(o0, o1, n, m, o2),                                              \
		.mask = PV_ISS_SYS_KEY_MASK,                                                     \
		.kind = PV_KIND_##f,                                                             \
		.feature = PV_FEAT_##f,                                                          \
		.min_version = (ver),                                                            \
		.id = RIDX_##nm,                                                                 \
		.access = PV_ACC_##acc,                                                          \
		.index = PV_IDX_NONE,                                                            \
		.read = RD_##acc(mod, h),                                                        \
		.write = WR_##acc(mod, h),                                                       \
		.behaviour = (txt),                                                              \
	},
#define PMU_DESC(nm, o0, o1, n, m, o2, v, acc, h, txt)                                           \
	REG_DESC(PMU, PV_PMUVER_##v, vpmu, nm, o0, o1, n, m, o2, acc, h, txt)
#define AMU_DESC(nm, o0, o1, n, m, o2, v, acc, h, txt)                                           \
	REG_DESC(AMU, v, vamu, nm, o0, o1, n, m, o2, acc, h, txt)
#define OFF_DESC(k, f, nm, o0, o1, n, m, o2, v, acc)                                             \
	[RIDX_##nm] = {                                                                          \
		.name = #nm,                                                                     \
		.key = PV_SYSREG(o0, o1, n, m, o2),                                              \
		.mask = PV_ISS_SYS_KEY_MASK,                                                     \
		.kind = PV_KIND_##k,                                                             \
		.feature = PV_FEAT_##f,                                                          \
		.min_version = (v),                                                              \
		.id = RIDX_##nm,                                                                 \
		.access = PV_ACC_##acc,                                                          \
		.index = PV_IDX_NONE,                                                            \
		.behaviour = OFF_TEXT,                                                           \
	},
#define MPAM_DESC(nm, o0, o1, n, m, o2, v, acc, h, txt)                                          \
	REG_DESC(MPAM, v, vmpam, nm, o0, o1, n, m, o2, acc, h, txt)
#define SPE_DESC(nm, o0, o1, n, m, o2, v, acc, h, txt)                                           \
	REG_DESC(SPE, v, vspe, nm, o0, o1, n, m, o2, acc, h, txt)
	PV_PMU_REGS(PMU_DESC) PV_AMU_REGS(AMU_DESC) PV_MPAM_REGS(MPAM_DESC) PV_SPE_REGS(SPE_DESC)
	PV_OFF_REGS(OFF_DESC)
#define FAM_DESC(nm, str, k, msk, f, ver, acc, ix, mod, h, txt)                                   \
	[RIDX_##nm] = {                                                                          \
		.name = (str),                                                                   \
		.key = (k),                                                                      \
		.mask = (msk),                                                                   \
		.kind = PV_KIND_##f,                                                             \
		.feature = PV_FEAT_##f,                                                          \
		.min_version = (ver),                                                            \
		.id = RIDX_##nm,                                                                 \
		.access = PV_ACC_##acc,                                                          \
		.index = PV_IDX_##ix,                                                            \
		.read = RD_##acc(mod, h),                                                        \
		.write = WR_##acc(mod, h),                                                       \
		.behaviour = (txt),                                                              \
	},
	PV_FAMILY_REGS(FAM_DESC)
	[RIDX_ID_GROUP] = {
		.id = RIDX_ID_GROUP,
		.name = "ID group (ID_AA64DFR0_EL1, ID_AA64PFR0_EL1, ...)",
		.key = PV_ID_GROUP_KEY,
		.mask = PV_ID_GROUP_MASK,
		.kind = PV_KIND_ID,
		.feature = 0,
		.min_version = 0, /* always present */
		.access = PV_ACC_RO,
		.index = PV_IDX_ID,
		.read = pv_id_read,
		.behaviour = "per-VM view: PMUVer, PMSVer, AMU, MPAM, MPAM_frac set by the VM's "
			     "features; unmanaged PMU/trace extensions hidden; rest passed through",
	},
};

_Static_assert(RIDX_COUNT <= PV_REGS_MAX, "pv_vm.reg_limit is too small for the table");

const struct pv_reg_desc *const pv_amev_family[4] = {
	&pv_reg_descs[RIDX_AMEVCNTR0], &pv_reg_descs[RIDX_AMEVTYPER0],
	&pv_reg_descs[RIDX_AMEVCNTR1], &pv_reg_descs[RIDX_AMEVTYPER1],
};

const struct pv_reg_desc *pv_reg_table(size_t *count)
{
	*count = RIDX_COUNT;
	return pv_reg_descs;
}

const uint8_t pv_pmu_block[PMU_BLOCK_SIZE + RIDX_COUNT] = {
#define PMU_BLOCK_ENTRY(nm, o0, o1, n, m, o2, v, acc, h, txt)                                    \
	[PMU_BLOCK_AT(nm, o0, o1, n, m, o2)] = RIDX_##nm + 1,
	PV_PMU_REGS(PMU_BLOCK_ENTRY)
};

const struct pv_reg_desc *pv_reg_lookup(uint32_t key)
{
	unsigned idx;
	return reg_lookup(key, &idx);
}

/*
 * Dispatch of one looked-up register: check it against the VM, count the trap, tail-call the
 * owning module (a read handler stores straight into the guest's register; Rt = 31 is XZR,
 * whose reads are discarded and writes are zero). Inlined on every path; where the register is
 * known at compile time (the hottest ones, below) the descriptor's fields fold away and the
 * handler is a direct jump.
 */
#if defined(__GNUC__)
#define DISPATCH_INLINE static inline __attribute__((always_inline))
#else
#define DISPATCH_INLINE static inline
#endif

DISPATCH_INLINE enum pv_trap_result dispatch(struct pv_vcpu *v, const struct pv_reg_desc *d,
					     unsigned idx, uint32_t iss, uint64_t *x, unsigned el)
{
	v->stats.traps[d->kind]++;
	/* A register the VM lacks (hidden feature, later version) or an index past the VM's
	 * family (PMEVCNTR<n> with n >= N): UNDEF. */
	if (idx >= v->vm->reg_limit[d->id])
		return PV_TRAP_UNDEF;
	unsigned rt = (iss & PV_ISS_SYS_RT_MASK) >> PV_ISS_SYS_RT_SHIFT;
	/* The direction comes from the raw ISS, never from the masked key. */
	if (iss & PV_ISS_SYS_DIR_READ) {
		if (!d->read)
			return PV_TRAP_UNDEF; /* MRS of a write-only register */
		return d->read(v, idx, el, rt == 31 ? &v->discard : &x[rt]);
	}
	if (!d->write)
		return PV_TRAP_UNDEF; /* MSR to a read-only register */
	return d->write(v, idx, el, rt == 31 ? 0 : x[rt]);
}

enum pv_trap_result pv_trap(struct pv_vcpu *v, uint64_t esr, uint64_t *x, unsigned el)
{
	/* EC is ESR_EL2[31:26]; ISS2 above bit 31 plays no part for EC 0x18. */
	uint32_t syndrome = (uint32_t)esr;
	if (syndrome >> PV_ESR_EC_SHIFT != PV_EC_SYS64)
		return PV_TRAP_UNKNOWN;
	uint32_t iss = PV_ESR_ISS(syndrome);
	uint32_t key = iss & PV_ISS_SYS_KEY_MASK;
	/* What a guest's perf touches most, each with its descriptor known here: the event
	 * counters and types, then the PMU block (a dense switch, one direct jump per register). */
	if ((key & PMEV_MASK) == PV_PMEVCNTR_EL0(0))
		return dispatch(v, &pv_reg_descs[RIDX_PMEVCNTR], PV_PMEV_INDEX(key), iss, x, el);
	if ((key & PMEV_MASK) == PV_PMEVTYPER_EL0(0) && key != PV_PMCCFILTR_EL0)
		return dispatch(v, &pv_reg_descs[RIDX_PMEVTYPER], PV_PMEV_INDEX(key), iss, x, el);
	if ((key & PMU_BLOCK_MASK) == PMU_BLOCK_KEY) {
		switch (PMU_BLOCK_SLOT(key)) {
#define PMU_BLOCK_CASE(nm, o0, o1, n, m, o2, v_, acc, h, txt)                                    \
	case PMU_BLOCK_AT(nm, o0, o1, n, m, o2):                                                 \
		return dispatch(v, &pv_reg_descs[RIDX_##nm], 0, iss, x, el);
			PV_PMU_REGS(PMU_BLOCK_CASE)
		default:
			return PV_TRAP_UNKNOWN; /* a hole of the block: not a register */
		}
	}
	unsigned idx;
	const struct pv_reg_desc *d = reg_lookup(key, &idx);
	if (!d)
		return PV_TRAP_UNKNOWN;
	return dispatch(v, d, idx, iss, x, el);
}
