/* SPDX-License-Identifier: MIT */
/*
 * The one register table, expanded from the register database (arch/sysregs.txt): every
 * system register perfvisor owns is one entry; the trap dispatch (dispatch.c), the per-VM
 * gates (gates.c) and the coverage document are all generated from the same rows.
 *
 * Registers are grouped by the trap control that sends them to EL2:
 *   MDCR_EL2.TPM            PMUv3 (Arm ARM D24.5)
 *   MDCR_EL2.TPMS / E2PB    SPE (Arm ARM D24.7)
 *   CPTR_EL2.TAM            AMU (Arm ARM D24.6; HAFGRTR_EL2 on the virtual-offset path)
 *   MPAM2_EL2.TRAPMPAMxEL1, MPAMHCR_EL2.TRAP_MPAMIDR_EL1   MPAM
 *   HCR_EL2.TID3            the ID group (Op0=3 Op1=0 CRn=0 CRm=1..7)
 * A register of a feature the VM does not have UNDEFs; its ID field reads as not implemented.
 */
#include "regs.h"

/* The key bits a family's index takes: n = CRm[crm_bits-1:0]:Op2. */
#define FAMILY_MASK(first, last, crm_bits)                                                     \
	((first) == (last) ? PV_ISS_SYS_KEY_MASK                                               \
			   : PV_ISS_SYS_KEY_MASK &                                             \
				     ~(((1u << (crm_bits)) - 1u) << PV_ISS_SYS_CRM_SHIFT) &    \
				     ~(0x7u << PV_ISS_SYS_OP2_SHIFT))

const struct pv_reg_desc pv_reg_descs[RIDX_COUNT] = {
#define REG_DESC(ident, title, o0, o1, n, m, o2, first_, last_, crm_bits, kind_, feature_,     \
		 min_, gate_, access_, el0_rd, el0_wr, rd, wr, each, text, rd_name, wr_name)   \
	[RIDX_##ident] = {                                                                     \
		.name = (title),                                                               \
		.key = PV_SYSREG(o0, o1, n, (m) + (first_) / 8, (o2) + (first_) % 8),          \
		.mask = FAMILY_MASK(first_, last_, crm_bits),                                  \
		.first = (first_),                                                             \
		.last = (last_),                                                               \
		.kind = (kind_),                                                               \
		.feature = (feature_),                                                         \
		.min_version = (min_),                                                         \
		.id = RIDX_##ident,                                                            \
		.access = (access_),                                                           \
		.gate = (gate_),                                                               \
		.el0_read = (el0_rd),                                                          \
		.el0_write = (el0_wr),                                                         \
		.read = (rd),                                                                  \
		.write = (wr),                                                                 \
		.behaviour = (text),                                                           \
		.read_name = (rd_name),                                                        \
		.write_name = (wr_name),                                                       \
	},
	PV_REGDB_ENTRIES(REG_DESC)};

_Static_assert(RIDX_COUNT <= PV_REGS_MAX, "pv_vm.reg_limit is too small for the table");

const struct pv_reg_desc *pv_reg_table(size_t *count)
{
	*count = RIDX_COUNT;
	return pv_reg_descs;
}

/* The entry a key belongs to, by a walk of the table (tools and tests; the trap path uses the
 * tables of dispatch.c). A family claims only its members first..last: PMCCFILTR_EL0 sits
 * where PMEVTYPER31_EL0 would, the unallocated n = 31 of PMEVCNTR<n>_EL0 is nobody's, and
 * CRm = 0 of the ID space (MIDR_EL1 and the like) is not in the TID3 group. */
const struct pv_reg_desc *pv_reg_lookup(uint32_t key)
{
	for (unsigned i = 0; i < RIDX_COUNT; i++) {
		const struct pv_reg_desc *d = &pv_reg_descs[i];
		unsigned n;
		if ((key & d->mask) != (d->key & d->mask))
			continue;
		n = pv_reg_member(d, key);
		if (n < d->first || n > d->last)
			continue;
		return d;
	}
	return NULL;
}
