/* SPDX-License-Identifier: MIT */
/*
 * The ID group (Op0=3 Op1=0 CRn=0 CRm=1..7) of the modelled PE, from the configuration.
 * Reserved slots read as zero. Field layouts: Arm ARM D24.2 (ID_AA64PFR0_EL1,
 * ID_AA64DFR0_EL1, ID_DFR0_EL1, ...).
 */
#include <string.h>

#include "sim.h"

#define SLOT(key) PV_ID_SLOT(key)

/* ID_DFR0_EL1.PerfMon for an ID_AA64DFR0_EL1.PMUVer (0b0011 is PMUv3 in AArch32). */
static unsigned perfmon32(unsigned pmuver)
{
	if (pmuver == PV_PMUVER_NI || pmuver == PV_PMUVER_IMPDEF)
		return pmuver;
	return pmuver == PV_PMUVER_V3 ? 3 : pmuver;
}

void sim_id_init(uint64_t id[64], const struct sim_config *c)
{
	memset(id, 0, 64 * sizeof(id[0]));
	/* ELx fields: 0b0001 AArch64 only, 0b0010 AArch64 and AArch32. */
	uint64_t elv = c->aarch32 ? 2 : 1;
	id[SLOT(PV_ID_AA64PFR0_EL1)] =
		PV_FIELD_PREP(PV_ID_AA64PFR0_EL0_STATES, elv) |
		PV_FIELD_PREP(PV_ID_AA64PFR0_EL1_STATES, elv) |
		PV_FIELD_PREP(PV_ID_AA64PFR0_EL2_STATES, elv) |
		PV_FIELD_PREP(PV_ID_AA64PFR0_EL3_STATES, (c->el3 ? elv : 0)) |
		UINT64_C(1) << 24 /* GIC CPU sysregs */ |
		PV_FIELD_PREP(PV_ID_AA64PFR0_SEL2, (uint64_t)(c->el3 && c->sel2)) |
		PV_FIELD_PREP(PV_ID_AA64PFR0_AMU, (uint64_t)c->amu.version);

	unsigned ver = c->pmu.version;
	/* DebugVer 6 (Armv8.0 debug), 6 breakpoints, 4 watchpoints, 2 context comparators. */
	id[SLOT(PV_ID_AA64DFR0_EL1)] = 6 | PV_FIELD_PREP(PV_ID_AA64DFR0_PMUVER, (uint64_t)ver) |
				       UINT64_C(5) << 12 | UINT64_C(3) << 20 |
				       UINT64_C(1) << 28 |
				       PV_FIELD_PREP(PV_ID_AA64DFR0_HPMN0, (uint64_t)c->hpmn0) |
				       PV_FIELD_PREP(PV_ID_AA64DFR0_PMSVER,
						     (uint64_t)c->spe.unit.version);

	/* PARange 48 bits, 16-bit ASIDs, SNSMem with EL3, 4K/16K/64K granules. */
	id[SLOT(PV_ID_AA64MMFR0_EL1)] = 5 | 2 << 4 | (uint64_t)c->el3 << 12 |
					UINT64_C(1) << 20 |
					PV_FIELD_PREP(PV_ID_AA64MMFR0_FGT, (uint64_t)c->fgt);
	id[SLOT(PV_ID_AA64MMFR2_EL1)] = PV_FIELD_PREP(PV_ID_AA64MMFR2_IDS, (uint64_t)c->idst);

	if (c->aarch32) {
		/* ID_PFR0_EL1: A32 and T32; ID_DFR0_EL1: CopDbg/CopSDbg v8.0 debug, PerfMon. */
		id[SLOT(PV_ID_PFR0_EL1)] = 1 | 3 << 4;
		id[SLOT(PV_ID_DFR0_EL1)] = 6 | (uint64_t)(c->el3 ? 6 : 0) << 4 |
					   PV_FIELD_PREP(PV_ID_DFR0_PERFMON,
							 (uint64_t)perfmon32(ver));
	}

	for (unsigned s = 0; s < 64; s++)
		if (c->id_override_mask >> s & 1)
			id[s] = c->id_override[s];
	for (unsigned s = 0; s < PV_ID_SLOT_FIRST; s++)
		id[s] = 0; /* CRm = 0 is not in the group */
}
