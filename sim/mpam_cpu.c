/* SPDX-License-Identifier: MIT */
/*
 * CPU-side MPAM of one PE (see mpam_cpu.h). The label rule follows the Arm ARM pseudocode
 * (J1.3.3, shared/functions/mpam): GenMPAM, GenPARTID, MPAMIsVirtual, MAP_vPARTID and GenPMG.
 */
#include "mpam_cpu.h"

#include <stddef.h>

#include "perfvisor/mpam_regs.h"

void sim_mpam_cpu_init(struct sim_mpam_cpu *c, uint64_t mpamidr)
{
	*c = (struct sim_mpam_cpu){.idr = mpamidr, .mpamen = true, .el2_enabled = true};
}

static bool has_hcr(const struct sim_mpam_cpu *c)
{
	return (c->idr & PV_MPAMIDR_HAS_HCR) != 0;
}

static unsigned vpmr_max(const struct sim_mpam_cpu *c)
{
	return (unsigned)PV_FIELD_GET(PV_MPAMIDR_VPMR_MAX, c->idr);
}

static unsigned partid_max(const struct sim_mpam_cpu *c)
{
	return (unsigned)(c->idr & PV_MPAMIDR_PARTID_MAX);
}

static unsigned partid_of(uint64_t reg, bool ifetch)
{
	return (unsigned)(ifetch ? PV_FIELD_GET(PV_MPAMN_PARTID_I, reg)
				 : PV_FIELD_GET(PV_MPAMN_PARTID_D, reg));
}

static unsigned pmg_of(uint64_t reg, bool ifetch)
{
	return (unsigned)(ifetch ? PV_FIELD_GET(PV_MPAMN_PMG_I, reg)
				 : PV_FIELD_GET(PV_MPAMN_PMG_D, reg));
}

/* MPAMIsVirtual(el) */
static bool is_virtual(const struct sim_mpam_cpu *c, unsigned el)
{
	if (!c->el2_enabled || !has_hcr(c))
		return false;
	bool e2h = c->hcr & PV_HCR_EL2_E2H, tge = c->hcr & PV_HCR_EL2_TGE;
	if (el == 0)
		return (c->mpamhcr & PV_MPAMHCR_EL2_EL0_VPMEN) && (!e2h || !tge);
	return el == 1 && (c->mpamhcr & PV_MPAMHCR_EL2_EL1_VPMEN);
}

/* MAP_vPARTID(vpartid): out-of-range virtual PARTIDs are reduced modulo the table size
 * (the pseudocode's example of the IMPLEMENTATION DEFINED reduction); an invalid entry uses
 * entry 0 when valid, else the default; a mapped PARTID above PARTID_MAX is the default. */
static unsigned map_vpartid(const struct sim_mpam_cpu *c, unsigned v, bool *err)
{
	unsigned vmax = (vpmr_max(c) << 2) + 3;
	if (v > vmax)
		v %= vmax + 1;
	unsigned ret;
	if (c->vpmv >> v & 1)
		ret = (unsigned)(c->vpm[v / 4] >> (16 * (v % 4)) & 0xFFFF);
	else if (c->vpmv & 1)
		ret = (unsigned)(c->vpm[0] & 0xFFFF);
	else {
		*err = true;
		return 0;
	}
	if (ret > partid_max(c)) {
		*err = true;
		return 0;
	}
	return ret;
}

struct sim_mpam_label sim_mpam_cpu_label(const struct sim_mpam_cpu *c, unsigned el, bool ifetch)
{
	struct sim_mpam_label l = {0};
	if (!c->mpamen)
		return l; /* DefaultMPAMinfo */
	/* The PARTID lock: guest EL0 uses EL1's (virtual) labels. */
	bool gstplk = el == 0 && c->el2_enabled && has_hcr(c) &&
		      (c->mpamhcr & PV_MPAMHCR_EL2_GSTAPP_PLK) && !(c->hcr & PV_HCR_EL2_TGE);
	unsigned eff = gstplk ? 1 : el;
	uint64_t reg = eff == 2   ? (c->el2_enabled ? c->mpam2 : 0)
		       : eff == 1 ? c->mpam1
				  : c->mpam0;
	/* GenPARTID: checked against the physical PARTID_MAX before any mapping. */
	unsigned partid = partid_of(reg, ifetch);
	if (partid > partid_max(c)) {
		l.err = true;
		return l;
	}
	if (is_virtual(c, eff))
		partid = map_vpartid(c, partid, &l.err);
	l.partid = (uint16_t)partid;
	/* GenPMG: the default after a PARTID error (one of the CONSTRAINED UNPREDICTABLE
	 * choices) or when out of range. */
	unsigned pmg = pmg_of(reg, ifetch);
	if (!l.err && pmg <= PV_FIELD_GET(PV_MPAMIDR_PMG_MAX, c->idr))
		l.pmg = (uint8_t)pmg;
	return l;
}

/* The register a key names, its writable bits, and the lowest EL that may access it;
 * NULL when the PE lacks it. */
static uint64_t *reg_cell(struct sim_mpam_cpu *c, uint32_t key, uint64_t *wmask,
			  unsigned *min_el)
{
	*min_el = 1;
	if (key == PV_MPAM0_EL1) {
		*wmask = PV_MPAMN_LABELS;
		return &c->mpam0;
	}
	if (key == PV_MPAM1_EL1) {
		*wmask = PV_MPAMN_LABELS;
		return &c->mpam1;
	}
	*min_el = 2;
	if (key == PV_MPAM2_EL2) {
		*wmask = PV_MPAMN_LABELS | PV_MPAM2_EL2_TRAPMPAM0EL1 |
			 PV_MPAM2_EL2_TRAPMPAM1EL1 |
			 ((c->idr & PV_MPAMIDR_HAS_TIDR) ? PV_MPAM2_EL2_TIDR : 0);
		return &c->mpam2;
	}
	if (!has_hcr(c))
		return NULL;
	if (key == PV_MPAMHCR_EL2) {
		*wmask = PV_MPAMHCR_EL2_EL0_VPMEN | PV_MPAMHCR_EL2_EL1_VPMEN |
			 PV_MPAMHCR_EL2_GSTAPP_PLK | PV_MPAMHCR_EL2_TRAP_MPAMIDR;
		return &c->mpamhcr;
	}
	if (key == PV_MPAMVPMV_EL2) {
		*wmask = PV_GENMASK(4 * (vpmr_max(c) + 1) - 1, 0);
		return &c->vpmv;
	}
	for (unsigned n = 0; n <= vpmr_max(c); n++) {
		if (key == PV_MPAMVPM_EL2(n)) {
			*wmask = ~UINT64_C(0);
			return &c->vpm[n];
		}
	}
	return NULL;
}

static bool is_mpam_key(uint32_t key)
{
	return PV_SYSREG_OP0(key) == 3 && PV_SYSREG_CRN(key) == 10 &&
	       ((PV_SYSREG_OP1(key) == 0 &&
		 (PV_SYSREG_CRM(key) == 4 || PV_SYSREG_CRM(key) == 5)) ||
		(PV_SYSREG_OP1(key) == 4 &&
		 (PV_SYSREG_CRM(key) == 4 || PV_SYSREG_CRM(key) == 5 ||
		  PV_SYSREG_CRM(key) == 6)));
}

enum sim_acc sim_mpam_cpu_read(const struct sim_mpam_cpu *c, unsigned el, uint32_t key,
			       uint64_t *val)
{
	if (!is_mpam_key(key))
		return SIM_ACC_UNKNOWN;
	if (el == 0)
		return SIM_ACC_UNDEF;
	if (key == PV_MPAMIDR_EL1) {
		*val = c->idr;
		return SIM_ACC_OK;
	}
	uint64_t wmask;
	unsigned min_el;
	uint64_t *cell = reg_cell((struct sim_mpam_cpu *)c, key, &wmask, &min_el);
	if (!cell || el < min_el)
		return SIM_ACC_UNDEF;
	*val = *cell;
	/* MPAMEN reads as enabled at the highest EL, in MPAM1_EL1 and MPAM2_EL2. */
	if ((key == PV_MPAM1_EL1 || key == PV_MPAM2_EL2) && c->mpamen)
		*val |= PV_MPAM1_MPAMEN;
	return SIM_ACC_OK;
}

enum sim_acc sim_mpam_cpu_write(struct sim_mpam_cpu *c, unsigned el, uint32_t key, uint64_t val)
{
	if (!is_mpam_key(key))
		return SIM_ACC_UNKNOWN;
	if (el == 0 || key == PV_MPAMIDR_EL1)
		return SIM_ACC_UNDEF;
	uint64_t wmask;
	unsigned min_el;
	uint64_t *cell = reg_cell(c, key, &wmask, &min_el);
	if (!cell || el < min_el)
		return SIM_ACC_UNDEF;
	*cell = val & wmask;
	return SIM_ACC_OK;
}

bool sim_mpam_cpu_traps(const struct sim_mpam_cpu *c, uint32_t key)
{
	if (!c->el2_enabled)
		return false;
	if (key == PV_MPAM1_EL1)
		return (c->mpam2 & PV_MPAM2_EL2_TRAPMPAM1EL1) != 0;
	if (key == PV_MPAM0_EL1)
		return (c->mpam2 & PV_MPAM2_EL2_TRAPMPAM0EL1) != 0;
	if (key == PV_MPAMIDR_EL1)
		return (has_hcr(c) && (c->mpamhcr & PV_MPAMHCR_EL2_TRAP_MPAMIDR)) ||
		       ((c->idr & PV_MPAMIDR_HAS_TIDR) && (c->mpam2 & PV_MPAM2_EL2_TIDR));
	return false;
}
