/* SPDX-License-Identifier: MIT */
/*
 * The one register table. Every system register perfvisor owns is listed once (the lists are
 * in regs.h); the trap dispatch (dispatch.c), the per-VM checks (gates.c) and the coverage
 * document are all generated from them.
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

const struct pv_reg_desc *pv_reg_table(size_t *count)
{
	*count = RIDX_COUNT;
	return pv_reg_descs;
}

/* The entry a key belongs to, by a walk of the table (tools and tests; the trap path uses the
 * tables of dispatch.c). Exact entries come before the families in the table, so
 * PMCCFILTR_EL0 is found before the PMEVTYPER<n> family whose n = 31 slot it occupies. */
const struct pv_reg_desc *pv_reg_lookup(uint32_t key)
{
	for (unsigned i = 0; i < RIDX_COUNT; i++) {
		const struct pv_reg_desc *d = &pv_reg_descs[i];
		if ((key & d->mask) != d->key)
			continue;
		/* CRm = 0 (MIDR_EL1, MPIDR_EL1, ...) is not part of the TID3 group. */
		if (d->index == PV_IDX_ID && PV_SYSREG_CRM(key) == 0)
			return NULL;
		return d;
	}
	return NULL;
}
