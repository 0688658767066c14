/* SPDX-License-Identifier: MIT */
/* PMUv3 model: counting, filtering, overflow, interrupt request, register semantics. */
#include "pmu.h"

#include <string.h>

#include "perfvisor/sysreg.h"

#define EN PV_PMUSERENR_EN
#define SW PV_PMUSERENR_SW
#define CR PV_PMUSERENR_CR
#define ER PV_PMUSERENR_ER
#define CYC PV_PMU_CYCLE_IDX

enum reg_id {
	R_PMCR,
	R_CNTENSET,
	R_CNTENCLR,
	R_OVSCLR,
	R_SWINC,
	R_SELR,
	R_CEID0,
	R_CEID1,
	R_CCNTR,
	R_XEVTYPER,
	R_XEVCNTR,
	R_USERENR,
	R_INTENSET,
	R_INTENCLR,
	R_OVSSET,
	R_MMIR,
	R_CCFILTR,
	R_EVCNTR,
	R_EVTYPER,
	R_NONE
};

enum { ACC_RW, ACC_RO, ACC_WO };

/* Fine-grained trap bits (FEAT_FGT, Arm ARM D24.2): HDFGRTR_EL2 for reads, HDFGWTR_EL2 for
 * writes. */
#define G_EVCNTR PV_HDFGRTR_EL2_PMEVCNTRn_EL0
#define G_EVTYPER PV_HDFGRTR_EL2_PMEVTYPERn_EL0
#define W_EVCNTR PV_HDFGWTR_EL2_PMEVCNTRn_EL0
#define W_EVTYPER PV_HDFGWTR_EL2_PMEVTYPERn_EL0

/* Access kind, _EL1 register (UNDEFINED at EL0), the PMUSERENR_EL0 bits that let EL0 read /
 * write it (0: always, as for reads of PMUSERENR_EL0; Arm ARM D24.5), and the fine-grained
 * trap bits of its reads / writes (0: none, as for PMCR_EL0 reads, which TPMCR traps). */
static const struct {
	uint32_t key;
	uint8_t acc;
	bool el1;
	uint8_t el0_rd, el0_wr;
	uint64_t fgt_rd, fgt_wr;
} regs[R_NONE] = {
	[R_PMCR] = {PV_PMCR_EL0, ACC_RW, false, EN, EN, 0, PV_HDFGWTR_EL2_PMCR_EL0},
	[R_CNTENSET] = {PV_PMCNTENSET_EL0, ACC_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCNTEN,
			PV_HDFGWTR_EL2_PMCNTEN},
	[R_CNTENCLR] = {PV_PMCNTENCLR_EL0, ACC_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCNTEN,
			PV_HDFGWTR_EL2_PMCNTEN},
	[R_OVSCLR] = {PV_PMOVSCLR_EL0, ACC_RW, false, EN, EN, PV_HDFGRTR_EL2_PMOVS,
		      PV_HDFGWTR_EL2_PMOVS},
	[R_SWINC] = {PV_PMSWINC_EL0, ACC_WO, false, EN, EN | SW, 0, PV_HDFGWTR_EL2_PMSWINC_EL0},
	[R_SELR] = {PV_PMSELR_EL0, ACC_RW, false, EN | ER, EN | ER, PV_HDFGRTR_EL2_PMSELR_EL0,
		    PV_HDFGWTR_EL2_PMSELR_EL0},
	[R_CEID0] = {PV_PMCEID0_EL0, ACC_RO, false, EN, EN, PV_HDFGRTR_EL2_PMCEIDn_EL0, 0},
	[R_CEID1] = {PV_PMCEID1_EL0, ACC_RO, false, EN, EN, PV_HDFGRTR_EL2_PMCEIDn_EL0, 0},
	[R_CCNTR] = {PV_PMCCNTR_EL0, ACC_RW, false, EN | CR, EN, PV_HDFGRTR_EL2_PMCCNTR_EL0,
		     PV_HDFGWTR_EL2_PMCCNTR_EL0},
	[R_XEVTYPER] = {PV_PMXEVTYPER_EL0, ACC_RW, false, EN, EN, G_EVTYPER, W_EVTYPER},
	[R_XEVCNTR] = {PV_PMXEVCNTR_EL0, ACC_RW, false, EN | ER, EN, G_EVCNTR, W_EVCNTR},
	[R_USERENR] = {PV_PMUSERENR_EL0, ACC_RW, false, 0, EN, PV_HDFGRTR_EL2_PMUSERENR_EL0,
		       PV_HDFGWTR_EL2_PMUSERENR_EL0},
	[R_INTENSET] = {PV_PMINTENSET_EL1, ACC_RW, true, 0, 0, PV_HDFGRTR_EL2_PMINTEN,
			PV_HDFGWTR_EL2_PMINTEN},
	[R_INTENCLR] = {PV_PMINTENCLR_EL1, ACC_RW, true, 0, 0, PV_HDFGRTR_EL2_PMINTEN,
			PV_HDFGWTR_EL2_PMINTEN},
	[R_OVSSET] = {PV_PMOVSSET_EL0, ACC_RW, false, EN, EN, PV_HDFGRTR_EL2_PMOVS,
		      PV_HDFGWTR_EL2_PMOVS},
	[R_MMIR] = {PV_PMMIR_EL1, ACC_RO, true, 0, 0, PV_HDFGRTR_EL2_PMMIR_EL1, 0},
	[R_CCFILTR] = {PV_PMCCFILTR_EL0, ACC_RW, false, EN, EN, PV_HDFGRTR_EL2_PMCCFILTR_EL0,
		       PV_HDFGWTR_EL2_PMCCFILTR_EL0},
	[R_EVCNTR] = {0, ACC_RW, false, EN | ER, EN, G_EVCNTR, W_EVCNTR},
	[R_EVTYPER] = {0, ACC_RW, false, EN, EN, G_EVTYPER, W_EVTYPER},
};

static enum reg_id lookup(uint32_t key, unsigned *n)
{
	*n = 0;
	if (key == PV_PMCCFILTR_EL0)
		return R_CCFILTR;
	if ((key & PV_PMEV_FAMILY_MASK) == PV_PMEV_FAMILY_KEY) {
		*n = PV_PMEV_INDEX(key);
		return PV_PMEV_IS_TYPER(key) ? R_EVTYPER : R_EVCNTR;
	}
	for (int i = 0; i < R_EVCNTR; i++)
		if (regs[i].key == key)
			return (enum reg_id)i;
	return R_NONE;
}

static bool has_pmu(const struct sim_pmu *p)
{
	return p->cfg.version != PV_PMUVER_NI && p->cfg.version != PV_PMUVER_IMPDEF;
}

static uint32_t low_mask(unsigned n)
{
	return n >= 32 ? 0xFFFFFFFFu : (uint32_t)((UINT64_C(1) << n) - 1);
}

/* PMCR_EL0 bits this PE stores: X and FZO are not implemented; LP from PMUv3p5; LC is RW
 * only with AArch32 (RES1 otherwise). */
static uint64_t pmcr_stored_mask(const struct sim_pmu *p)
{
	uint64_t m = PV_PMCR_E | PV_PMCR_D | PV_PMCR_DP;
	if (p->cfg.aarch32)
		m |= PV_PMCR_LC;
	if (p->cfg.version >= PV_PMUVER_V3P5)
		m |= PV_PMCR_LP;
	return m;
}

static uint64_t pmcr_eff(const struct sim_pmu *p)
{
	return p->pmcr | (p->cfg.aarch32 ? 0 : PV_PMCR_LC);
}

static uint64_t evt_mask(const struct sim_pmu *p)
{
	return p->cfg.version >= PV_PMUVER_V3P1 ? PV_PMEVTYPER_EVT_V3P1 : PV_PMEVTYPER_EVT_V3;
}

/* Implemented filter bits (PMEVTYPER<n>_EL0 / PMCCFILTR_EL0): NSK, NSU, M need EL3, SH needs
 * EL3 and FEAT_SEL2; MT, T and the Realm bits are not implemented. */
static uint64_t filter_mask(const struct sim_pmu *p)
{
	uint64_t m = PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSH;
	if (p->cfg.el3)
		m |= PV_PMEVTYPER_NSK | PV_PMEVTYPER_NSU | PV_PMEVTYPER_M;
	if (p->cfg.el3 && p->cfg.sel2)
		m |= PV_PMEVTYPER_SH;
	return m;
}

void sim_pmu_init(struct sim_pmu *p, const struct sim_pmu_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if (p->cfg.counters > PV_PMU_MAX_COUNTERS)
		p->cfg.counters = PV_PMU_MAX_COUNTERS;
	/* Warm reset: PMCR_EL0.E = 0; the other fields are UNKNOWN and modelled as 0. */
	p->pmcr = 0;
}

unsigned sim_pmu_hpmn(const struct sim_pmu *p, uint64_t mdcr)
{
	unsigned h = (unsigned)(mdcr & PV_MDCR_EL2_HPMN);
	return h > p->cfg.counters ? p->cfg.counters : h;
}

/* Counters [0, n) that an access from this context reaches (GetNumEventCountersAccessible),
 * plus the cycle counter. */
static uint32_t access_mask(const struct sim_pmu *p, const struct sim_pmu_ctx *c)
{
	unsigned n = c->el >= 2 || c->secure ? p->cfg.counters : sim_pmu_hpmn(p, c->mdcr);
	return low_mask(n) | (1u << CYC);
}

/* First range: counters below HPMN and the cycle counter (GetPMUCounterRange). */
static bool range1(const struct sim_pmu *p, uint64_t mdcr, unsigned idx)
{
	return idx == CYC || idx < sim_pmu_hpmn(p, mdcr);
}

bool sim_pmu_counting(const struct sim_pmu *p, const struct sim_pmu_ctx *c, unsigned idx)
{
	if (!has_pmu(p) || (idx != CYC && idx >= p->cfg.counters))
		return false;
	bool r1 = range1(p, c->mdcr, idx);
	bool global = r1 ? (p->pmcr & PV_PMCR_E) : (c->mdcr & PV_MDCR_EL2_HPME);
	bool enabled = global && (p->cnten >> idx & 1);

	/* Secure state and EL3 count only when firmware allows (MDCR_EL3.SPME). */
	bool prohibited = false;
	if (p->cfg.el3 && (c->secure || c->el == 3))
		prohibited = !p->cfg.secure_counting;
	/* EL2: MDCR_EL2.HPMD prohibits the first range (PMUv3p1). */
	if (!prohibited && c->el == 2 && p->cfg.version >= PV_PMUVER_V3P1 && r1)
		prohibited = c->mdcr & PV_MDCR_EL2_HPMD;
	if (idx == CYC) {
		/* The cycle counter stops for a prohibition only with PMCR_EL0.DP; HCCD stops it at
		 * EL2 whatever DP (PMUv3p5). */
		if (prohibited && (p->pmcr & PV_PMCR_DP))
			enabled = false;
		prohibited = p->cfg.version >= PV_PMUVER_V3P5 && c->el == 2 &&
			     (c->mdcr & PV_MDCR_EL2_HCCD);
	}

	uint64_t f = idx == CYC ? p->ccfiltr : p->evtyper[idx];
	bool P = f & PV_PMEVTYPER_P, U = f & PV_PMEVTYPER_U, NSH = f & PV_PMEVTYPER_NSH;
	bool NSK = p->cfg.el3 && (f & PV_PMEVTYPER_NSK);
	bool NSU = p->cfg.el3 && (f & PV_PMEVTYPER_NSU);
	bool M = p->cfg.el3 && (f & PV_PMEVTYPER_M);
	bool SH = p->cfg.el3 && p->cfg.sel2 && (f & PV_PMEVTYPER_SH);
	bool filtered;
	switch (c->el) {
	case 0:
		filtered = c->secure ? U : U != NSU;
		break;
	case 1:
		filtered = c->secure ? P : P != NSK;
		break;
	case 2:
		filtered = c->secure ? NSH == SH : !NSH;
		break;
	default:
		filtered = M != P;
		break;
	}
	return enabled && !prohibited && !filtered;
}

/* Overflow width of a counter: PMCR_EL0.LC for the cycle counter; PMCR_EL0.LP / MDCR_EL2.HLP
 * for the first / second range on PMUv3p5; 32 bits before. */
static unsigned ovf_bits(const struct sim_pmu *p, uint64_t mdcr, unsigned idx)
{
	if (idx == CYC)
		return (pmcr_eff(p) & PV_PMCR_LC) ? 64 : 32;
	if (p->cfg.version < PV_PMUVER_V3P5)
		return 32;
	if (range1(p, mdcr, idx))
		return (p->pmcr & PV_PMCR_LP) ? 64 : 32;
	return (mdcr & PV_MDCR_EL2_HLP) ? 64 : 32;
}

/* IncrementEventCounter: adds k, sets PMOVSSET on unsigned overflow at the counter's width
 * and returns the number of CHAIN events for counter idx + 1 (one per overflow of an even
 * counter with 32-bit overflow, when idx + 1 is implemented and in the same range). */
static uint64_t bump(struct sim_pmu *p, uint64_t mdcr, unsigned idx, uint64_t k)
{
	if (k == 0)
		return 0;
	uint64_t *cnt = idx == CYC ? &p->ccntr : &p->evcntr[idx];
	uint64_t old = *cnt;
	unsigned bits = ovf_bits(p, mdcr, idx);
	uint64_t wraps = bits == 64 ? (old + k < old)
				    : (k >> 32) +
					      (((old & 0xFFFFFFFFu) + (k & 0xFFFFFFFFu)) >> 32);
	uint64_t val = old + k;
	if (idx != CYC && p->cfg.version < PV_PMUVER_V3P5)
		val &= 0xFFFFFFFFu; /* 32-bit event counters before PMUv3p5 */
	*cnt = val;
	if (!wraps)
		return 0;
	p->ovs |= 1u << idx;
	p->overflows[idx] += wraps;
	bool chain = idx != CYC && (idx & 1) == 0 && idx + 1 < p->cfg.counters && bits == 32 &&
		     range1(p, mdcr, idx) == range1(p, mdcr, idx + 1);
	return chain ? wraps : 0;
}

static uint32_t event_of(const struct sim_pmu *p, unsigned idx)
{
	return (uint32_t)(p->evtyper[idx] & evt_mask(p));
}

static bool implemented(const struct sim_pmu *p, uint32_t evt)
{
	if (evt < 64)
		return p->cfg.events >> evt & 1;
	if (evt >= 0x4000 && evt < 0x4040 && p->cfg.version >= PV_PMUVER_V3P1)
		return p->cfg.ext_events >> (evt - 0x4000) & 1;
	return false;
}

/* Adds k to counter idx and feeds its CHAIN events to counter idx + 1. */
static void step(struct sim_pmu *p, const struct sim_pmu_ctx *c, unsigned idx, uint64_t k)
{
	uint64_t chain = bump(p, c->mdcr, idx, k);
	if (chain && sim_pmu_counting(p, c, idx + 1) && event_of(p, idx + 1) == PV_EVT_CHAIN)
		bump(p, c->mdcr, idx + 1, chain);
}

void sim_pmu_count(struct sim_pmu *p, const struct sim_pmu_ctx *c, const struct sim_work *w)
{
	for (unsigned idx = 0; idx < p->cfg.counters; idx++) {
		if (!sim_pmu_counting(p, c, idx))
			continue;
		uint32_t evt = event_of(p, idx);
		int slot = implemented(p, evt) ? sim_ev_slot(evt) : -1;
		if (slot >= 0)
			step(p, c, idx, w->ev[slot]);
	}
	if (sim_pmu_counting(p, c, CYC)) {
		uint64_t k = w->ev[SIM_EV_CPU_CYCLES];
		/* PMCR_EL0.D: one count every 64 cycles, ignored when LC = 1. */
		if ((p->pmcr & PV_PMCR_D) && !(pmcr_eff(p) & PV_PMCR_LC)) {
			uint64_t t = p->div64 + k;
			k = t / 64;
			p->div64 = (unsigned)(t % 64);
		}
		bump(p, c->mdcr, CYC, k);
	}
}

void sim_pmu_swinc(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint64_t val)
{
	uint32_t m = (uint32_t)val & access_mask(p, c) & low_mask(p->cfg.counters);
	for (unsigned idx = 0; idx < p->cfg.counters; idx++)
		if ((m >> idx & 1) && event_of(p, idx) == PV_EVT_SW_INCR &&
		    sim_pmu_counting(p, c, idx))
			step(p, c, idx, 1);
}

bool sim_pmu_irq(const struct sim_pmu *p, uint64_t mdcr)
{
	if (!has_pmu(p))
		return false;
	uint32_t pend = p->ovs & p->inten;
	unsigned hpmn = sim_pmu_hpmn(p, mdcr);
	for (unsigned idx = 0; idx < p->cfg.counters; idx++)
		if ((pend >> idx & 1) &&
		    (idx < hpmn ? (p->pmcr & PV_PMCR_E) : (mdcr & PV_MDCR_EL2_HPME)))
			return true;
	return (pend >> CYC & 1) && (p->pmcr & PV_PMCR_E);
}

bool sim_pmu_is_reg(uint32_t key)
{
	unsigned n;
	return lookup(key, &n) != R_NONE;
}

bool sim_pmu_has(const struct sim_pmu *p, uint32_t key, bool is_read)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (r == R_NONE || !has_pmu(p))
		return false;
	if ((regs[r].acc == ACC_RO && !is_read) || (regs[r].acc == ACC_WO && is_read))
		return false;
	if (r == R_MMIR)
		return p->cfg.version >= PV_PMUVER_V3P4;
	if (r == R_EVCNTR || r == R_EVTYPER)
		return n < p->cfg.counters;
	return true;
}

bool sim_pmu_el1_reg(uint32_t key)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	return r != R_NONE && regs[r].el1;
}

bool sim_pmu_el0_allowed(const struct sim_pmu *p, uint32_t key, bool is_read)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (r == R_NONE)
		return false;
	uint8_t need = is_read ? regs[r].el0_rd : regs[r].el0_wr;
	return need == 0 || (p->userenr & need);
}

/* PMSELR_EL0.SEL as an accessible event counter, or -1 (CONSTRAINED UNPREDICTABLE: this
 * model UNDEFs). */
static int selected(const struct sim_pmu *p, const struct sim_pmu_ctx *c)
{
	unsigned sel = (unsigned)(p->selr & PV_PMSELR_SEL);
	return (access_mask(p, c) >> sel & 1) && sel != CYC ? (int)sel : -1;
}

enum sim_acc sim_pmu_read(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint32_t key,
			  uint64_t *val)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	*val = 0;
	if (!sim_pmu_has(p, key, true))
		return SIM_ACC_UNDEF;
	uint32_t am = access_mask(p, c);
	int sel;
	switch (r) {
	case R_PMCR: {
		/* N reads HPMN at EL1 and EL0 when EL2 is enabled (D24.5.8, PMCR_EL0.N). */
		unsigned num = c->el >= 2 || c->secure ? p->cfg.counters
						       : sim_pmu_hpmn(p, c->mdcr);
		*val = (UINT64_C(0x41) << 24) | ((uint64_t)p->cfg.idcode << 16) |
		       PV_FIELD_PREP(PV_PMCR_N, num) | pmcr_eff(p);
		break;
	}
	case R_CNTENSET:
	case R_CNTENCLR:
		*val = p->cnten & am;
		break;
	case R_INTENSET:
	case R_INTENCLR:
		*val = p->inten & am;
		break;
	case R_OVSSET:
	case R_OVSCLR:
		*val = p->ovs & am;
		break;
	case R_SELR:
		*val = p->selr;
		break;
	case R_CEID0:
		*val = (p->cfg.events & 0xFFFFFFFFu) |
		       (p->cfg.version >= PV_PMUVER_V3P1
				? (p->cfg.ext_events & 0xFFFFFFFFu) << 32
				: 0);
		break;
	case R_CEID1:
		*val = (p->cfg.events >> 32) |
		       (p->cfg.version >= PV_PMUVER_V3P1 ? (p->cfg.ext_events >> 32) << 32 : 0);
		break;
	case R_CCNTR:
		*val = p->ccntr;
		break;
	case R_XEVTYPER:
		if ((p->selr & PV_PMSELR_SEL) == CYC) {
			*val = p->ccfiltr;
			break;
		}
		if ((sel = selected(p, c)) < 0)
			return SIM_ACC_UNDEF;
		*val = p->evtyper[sel];
		break;
	case R_XEVCNTR:
		if ((sel = selected(p, c)) < 0)
			return SIM_ACC_UNDEF;
		*val = p->evcntr[sel];
		break;
	case R_USERENR:
		*val = p->userenr;
		break;
	case R_MMIR:
		*val = p->cfg.slots;
		break;
	case R_CCFILTR:
		*val = p->ccfiltr;
		break;
	case R_EVCNTR:
		if (!(am >> n & 1))
			return SIM_ACC_UNDEF; /* n >= HPMN from EL1/EL0 */
		*val = p->evcntr[n];
		break;
	case R_EVTYPER:
		if (!(am >> n & 1))
			return SIM_ACC_UNDEF;
		*val = p->evtyper[n];
		break;
	default:
		return SIM_ACC_UNDEF;
	}
	return SIM_ACC_OK;
}

static uint64_t counter_value(const struct sim_pmu *p, uint64_t val)
{
	return p->cfg.version >= PV_PMUVER_V3P5 ? val : val & 0xFFFFFFFFu;
}

enum sim_acc sim_pmu_write(struct sim_pmu *p, const struct sim_pmu_ctx *c, uint32_t key,
			   uint64_t val)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (!sim_pmu_has(p, key, false))
		return SIM_ACC_UNDEF;
	uint32_t am = access_mask(p, c);
	uint32_t bits = (uint32_t)val & am;
	int sel;
	switch (r) {
	case R_PMCR:
		p->pmcr = val & pmcr_stored_mask(p);
		/* P zeroes the event counters this EL reaches (all of them at EL2), C the cycle
		 * counter (ClearEventCounters / ZeroPMUCounters). */
		if (val & PV_PMCR_P)
			for (unsigned i = 0; i < p->cfg.counters; i++)
				if (am >> i & 1)
					p->evcntr[i] = 0;
		if (val & PV_PMCR_C)
			p->ccntr = 0;
		break;
	case R_CNTENSET:
		p->cnten |= bits;
		break;
	case R_CNTENCLR:
		p->cnten &= ~bits;
		break;
	case R_INTENSET:
		p->inten |= bits;
		break;
	case R_INTENCLR:
		p->inten &= ~bits;
		break;
	case R_OVSSET:
		p->ovs |= bits;
		break;
	case R_OVSCLR:
		p->ovs &= ~bits;
		break;
	case R_SWINC:
		sim_pmu_swinc(p, c, val);
		break;
	case R_SELR:
		p->selr = val & PV_PMSELR_SEL;
		break;
	case R_CCNTR:
		p->ccntr = val;
		break;
	case R_XEVTYPER:
		if ((p->selr & PV_PMSELR_SEL) == CYC) {
			p->ccfiltr = val & filter_mask(p);
			break;
		}
		if ((sel = selected(p, c)) < 0)
			return SIM_ACC_UNDEF;
		p->evtyper[sel] = val & (filter_mask(p) | evt_mask(p));
		break;
	case R_XEVCNTR:
		if ((sel = selected(p, c)) < 0)
			return SIM_ACC_UNDEF;
		p->evcntr[sel] = counter_value(p, val);
		break;
	case R_USERENR:
		if (c->el == 0)
			return SIM_ACC_UNDEF; /* read-only at EL0 */
		p->userenr = val & PV_PMUSERENR_MASK;
		break;
	case R_CCFILTR:
		p->ccfiltr = val & filter_mask(p);
		break;
	case R_EVCNTR:
		if (!(am >> n & 1))
			return SIM_ACC_UNDEF;
		p->evcntr[n] = counter_value(p, val);
		break;
	case R_EVTYPER:
		if (!(am >> n & 1))
			return SIM_ACC_UNDEF;
		p->evtyper[n] = val & (filter_mask(p) | evt_mask(p));
		break;
	default:
		return SIM_ACC_UNDEF;
	}
	return SIM_ACC_OK;
}

unsigned sim_filter_ns_els(uint64_t filter, bool el3)
{
	bool P = filter & PV_PMEVTYPER_P, U = filter & PV_PMEVTYPER_U;
	bool NSK = el3 && (filter & PV_PMEVTYPER_NSK), NSU = el3 && (filter & PV_PMEVTYPER_NSU);
	return (U == NSU ? 1u : 0u) | (P == NSK ? 2u : 0u);
}

bool sim_pmu_el2_trap(uint64_t mdcr, uint64_t hdfgrtr, uint64_t hdfgwtr, uint32_t key,
		      bool is_read)
{
	if ((mdcr & PV_MDCR_EL2_TPM) || (key == PV_PMCR_EL0 && (mdcr & PV_MDCR_EL2_TPMCR)))
		return true;
	/* FEAT_FGT: the register's own bit (EL2 enabled; no EL3 withholds it, SCR_EL3.FGTEn). */
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (r == R_NONE)
		return false;
	return (is_read ? hdfgrtr & regs[r].fgt_rd : hdfgwtr & regs[r].fgt_wr) != 0;
}

int sim_pmu_counter_of(const struct sim_pmu *p, uint32_t key)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (r == R_XEVCNTR || r == R_XEVTYPER) {
		n = (unsigned)(p->selr & PV_PMSELR_SEL);
		return n == CYC ? -1 : (int)n;
	}
	return r == R_EVCNTR || r == R_EVTYPER ? (int)n : -1;
}

bool sim_pmu_sel_unimplemented(const struct sim_pmu *p, uint32_t key)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	unsigned sel = (unsigned)(p->selr & PV_PMSELR_SEL);
	if (r == R_XEVTYPER && sel == CYC)
		return false;
	return (r == R_XEVCNTR || r == R_XEVTYPER) && sel >= p->cfg.counters;
}
