/* SPDX-License-Identifier: MIT */
/*
 * MSC model: registers, errors, bandwidth throttling and MBWU monitors (see msc.h). Register
 * behaviour follows the MPAM specification's register descriptions; where the Arm sources
 * disagree or are silent, the choice is noted here and in docs/mpam.md.
 */
#include "msc.h"

#include <stdlib.h>
#include <string.h>

#include "perfvisor/mpam_regs.h"

#define FIELD(v, mask) (((uint64_t)(v) & (mask)) >> __builtin_ctzll(mask))

unsigned sim_msc_counter_bits(const struct sim_ris_config *r)
{
	if (!r->has_long)
		return 31;
	return r->lwd ? 63 : 44;
}

static uint64_t width_mask(unsigned bits)
{
	return (UINT64_C(1) << bits) - 1;
}

/* Implemented bits of a 16-bit fraction: the top BWA_WD. */
static uint32_t frac_mask(const struct sim_ris_config *r)
{
	return (uint32_t)(PV_MBW_FRAC & ~((UINT64_C(1) << (16 - r->bwa_wd)) - 1));
}

static uint32_t cpbm_word_mask(const struct sim_ris *r, unsigned word)
{
	unsigned wd = r->cfg.cpbm_wd;
	if (word * 32 >= wd)
		return 0;
	unsigned bits = wd - word * 32;
	return bits >= 32 ? 0xFFFFFFFFu : (uint32_t)((1u << bits) - 1);
}

static void ris_reset_partid(struct sim_ris *r, unsigned p)
{
	r->mbw_min[p] = 0;
	r->mbw_max[p] = r->cfg.has_max ? frac_mask(&r->cfg) : 0;
	r->mbw_prop[p] = 0;
	for (unsigned w = 0; w < r->cpbm_words; w++)
		r->cpbm[(size_t)p * r->cpbm_words + w] = cpbm_word_mask(r, w);
}

struct sim_msc_config sim_msc_config_v1p1(uint64_t base, int node, uint16_t partid_max,
					  uint8_t pmg_max, uint64_t nrdy_ns,
					  const struct sim_ris_config *ris, unsigned nris)
{
	struct sim_msc_config c = {.base = base,
				   .node = node,
				   .partid_max = partid_max,
				   .pmg_max = pmg_max,
				   .aidr = 0x11,
				   .iidr = 0x0000043B, /* implementer 0x43B: Arm */
				   .nrdy_ns = nrdy_ns,
				   .nris = nris};
	for (unsigned i = 0; i < nris && i < SIM_MSC_MAX_RIS; i++)
		c.ris[i] = ris[i];
	return c;
}

int sim_msc_init(struct sim_msc *m, const struct sim_msc_config *c)
{
	memset(m, 0, sizeof(*m));
	if (c->nris == 0 || c->nris > SIM_MSC_MAX_RIS)
		return -1;
	m->cfg = *c;
	size_t np = (size_t)c->partid_max + 1;
	for (unsigned i = 0; i < c->nris; i++) {
		struct sim_ris *r = &m->ris[i];
		r->cfg = c->ris[i];
		if ((r->cfg.mbw && (r->cfg.bwa_wd == 0 || r->cfg.bwa_wd > 16)) ||
		    r->cfg.num_mon > SIM_MSC_MAX_MON || r->cfg.scale > 31)
			return -1;
		r->cpbm_words = (r->cfg.cpbm_wd + 31) / 32;
		r->mbw_min = calloc(np, sizeof(uint32_t));
		r->mbw_max = calloc(np, sizeof(uint32_t));
		r->mbw_prop = calloc(np, sizeof(uint32_t));
		r->cpbm = calloc(np * (r->cpbm_words ? r->cpbm_words : 1), sizeof(uint32_t));
		r->mon = calloc(r->cfg.num_mon ? r->cfg.num_mon : 1, sizeof(struct sim_mon));
		r->dem = calloc(np, sizeof(double));
		r->got = calloc(np, sizeof(double));
		r->drd = calloc(np, sizeof(uint64_t));
		r->dwr = calloc(np, sizeof(uint64_t));
		r->touched = calloc(np, sizeof(uint16_t));
		r->mark = calloc(np, 1);
		if (!r->mbw_min || !r->mbw_max || !r->mbw_prop || !r->cpbm || !r->mon ||
		    !r->dem || !r->got || !r->drd || !r->dwr || !r->touched || !r->mark)
			return -1;
		for (size_t p = 0; p < np; p++)
			ris_reset_partid(r, (unsigned)p);
	}
	return 0;
}

void sim_msc_free(struct sim_msc *m)
{
	for (unsigned i = 0; i < SIM_MSC_MAX_RIS; i++) {
		struct sim_ris *r = &m->ris[i];
		free(r->mbw_min);
		free(r->mbw_max);
		free(r->mbw_prop);
		free(r->cpbm);
		free(r->mon);
		free(r->dem);
		free(r->got);
		free(r->drd);
		free(r->dwr);
		free(r->touched);
		free(r->mark);
	}
	memset(m, 0, sizeof(*m));
}

/* ---- errors (MPAMF_ESR, MPAMF_ECR) ---- */

static bool extd_esr(const struct sim_msc *m)
{
	return m->cfg.nris > 1;
}

/* Records an error: a second one before software clears ESR sets OVRWR. */
static void raise_error(struct sim_msc *m, unsigned code, unsigned partid_mon, unsigned pmg,
			unsigned ris)
{
	m->errors[code & 15]++;
	uint64_t esr = (partid_mon & 0xFFFFu) | (uint64_t)(pmg & 0xFFu) << PV_ESR_PMG_SHIFT |
		       (uint64_t)code << PV_ESR_ERRCODE_SHIFT;
	if (extd_esr(m))
		esr |= (uint64_t)(ris & 0xFu) << PV_ESR_RIS_SHIFT;
	if (m->esr & PV_ESR_ERRCODE)
		esr |= PV_ESR_OVRWR;
	m->esr = esr;
}

bool sim_msc_err_irq(const struct sim_msc *m)
{
	return (m->ecr & PV_ECR_INTEN) && (m->esr & PV_ESR_ERRCODE);
}

/* ---- ID registers ---- */

/* The RIS that PART_SEL selects for the per-RIS ID registers, or NULL. */
static const struct sim_ris *id_ris(const struct sim_msc *m)
{
	unsigned ris = (unsigned)FIELD(m->part_sel, PV_SEL_RIS);
	return ris < m->cfg.nris ? &m->ris[ris] : NULL;
}

static uint64_t idr(const struct sim_msc *m)
{
	uint64_t v = m->cfg.partid_max | (uint64_t)m->cfg.pmg_max << PV_IDR_PMG_MAX_SHIFT;
	const struct sim_ris *r = id_ris(m);
	if (r) {
		if (r->cfg.cpbm_wd)
			v |= PV_IDR_HAS_CPOR_PART;
		if (r->cfg.mbw)
			v |= PV_IDR_HAS_MBW_PART;
		if (r->cfg.num_mon)
			v |= PV_IDR_HAS_MSMON;
	}
	if (m->cfg.nris > 1)
		v |= PV_IDR_EXT | PV_IDR_HAS_RIS | PV_IDR_HAS_ESR | PV_IDR_HAS_EXTD_ESR |
		     (uint64_t)(m->cfg.nris - 1) << PV_IDR_RIS_MAX_SHIFT;
	return v;
}

static uint32_t mbw_idr(const struct sim_ris *r)
{
	if (!r || !r->cfg.mbw)
		return 0;
	return r->cfg.bwa_wd | (r->cfg.has_min ? (uint32_t)PV_MBW_IDR_HAS_MIN : 0) |
	       (r->cfg.has_max ? (uint32_t)PV_MBW_IDR_HAS_MAX : 0) |
	       (r->cfg.has_prop ? (uint32_t)PV_MBW_IDR_HAS_PROP : 0);
}

static uint32_t mbwumon_idr(const struct sim_ris *r)
{
	if (!r || !r->cfg.num_mon)
		return 0;
	return r->cfg.num_mon | (uint32_t)r->cfg.scale << PV_MBWUMON_IDR_SCALE_SHIFT |
	       (r->cfg.has_rwbw ? (uint32_t)PV_MBWUMON_IDR_HAS_RWBW : 0) |
	       (r->cfg.has_long && r->cfg.lwd ? (uint32_t)PV_MBWUMON_IDR_LWD : 0) |
	       (r->cfg.has_long ? (uint32_t)PV_MBWUMON_IDR_HAS_LONG : 0) |
	       (r->cfg.has_capture ? (uint32_t)PV_MBWUMON_IDR_HAS_CAPTURE : 0);
}

static uint32_t msmon_idr(const struct sim_ris *r)
{
	if (!r || !r->cfg.num_mon)
		return 0;
	return (uint32_t)PV_MSMON_IDR_MSMON_MBWU |
	       (r->cfg.has_capture ? (uint32_t)PV_MSMON_IDR_HAS_LOCAL_CAPT_EVNT : 0);
}

/* ---- partition configuration (MPAMCFG_*, selected by MPAMCFG_PART_SEL) ---- */

enum ctl_kind { CTL_MBW, CTL_CPOR };

/* The RIS and PARTID an MPAMCFG_* access addresses, or NULL once the error is raised. */
static struct sim_ris *cfg_target(struct sim_msc *m, enum ctl_kind kind, unsigned *partid)
{
	unsigned ris = (unsigned)FIELD(m->part_sel, PV_SEL_RIS);
	unsigned p = (unsigned)FIELD(m->part_sel, PV_PART_SEL_PARTID);
	if (ris >= m->cfg.nris) {
		raise_error(m, PV_MSC_ERR_UNDEFINED_RIS_PART_SEL, p, 0, ris);
		return NULL;
	}
	struct sim_ris *r = &m->ris[ris];
	bool has = kind == CTL_MBW ? r->cfg.mbw : r->cfg.cpbm_wd != 0;
	if (!has) {
		raise_error(m, PV_MSC_ERR_RIS_NO_CONTROL, p, 0, ris);
		return NULL;
	}
	if (p > m->cfg.partid_max) {
		raise_error(m, PV_MSC_ERR_PARTID_SEL_RANGE, p, 0, ris);
		return NULL;
	}
	*partid = p;
	return r;
}

/* The stored MBW_MIN/MAX/PROP cell and its writable bits, or NULL (RAZ/WI or error). */
static uint32_t *mbw_cell(struct sim_msc *m, uint32_t off, uint32_t *mask)
{
	unsigned p;
	struct sim_ris *r = cfg_target(m, CTL_MBW, &p);
	if (!r)
		return NULL;
	uint32_t frac = frac_mask(&r->cfg);
	if (off == PV_MPAMCFG_MBW_MIN && r->cfg.has_min) {
		*mask = frac;
		return &r->mbw_min[p];
	}
	if (off == PV_MPAMCFG_MBW_MAX && r->cfg.has_max) {
		*mask = frac | (uint32_t)PV_MBW_MAX_HARDLIM;
		return &r->mbw_max[p];
	}
	if (off == PV_MPAMCFG_MBW_PROP && r->cfg.has_prop) {
		*mask = frac | (uint32_t)PV_MBW_PROP_EN;
		return &r->mbw_prop[p];
	}
	return NULL;
}

static uint32_t *cpbm_cell(struct sim_msc *m, uint32_t off, uint32_t *mask)
{
	unsigned p;
	struct sim_ris *r = cfg_target(m, CTL_CPOR, &p);
	if (!r)
		return NULL;
	unsigned word = (off - PV_MPAMCFG_CPBM) / 4;
	if (word >= r->cpbm_words)
		return NULL;
	*mask = cpbm_word_mask(r, word);
	return &r->cpbm[(size_t)p * r->cpbm_words + word];
}

/* ---- monitors (MSMON_*, selected by MSMON_CFG_MON_SEL) ---- */

static struct sim_mon *mon_target(struct sim_msc *m, struct sim_ris **rp)
{
	unsigned ris = (unsigned)FIELD(m->mon_sel, PV_SEL_RIS);
	unsigned mon = (unsigned)FIELD(m->mon_sel, PV_MON_SEL_MON);
	if (ris >= m->cfg.nris) {
		raise_error(m, PV_MSC_ERR_UNDEFINED_RIS_MON_SEL, mon, 0, ris);
		return NULL;
	}
	struct sim_ris *r = &m->ris[ris];
	if (!r->cfg.num_mon) {
		raise_error(m, PV_MSC_ERR_RIS_NO_MONITOR, mon, 0, ris);
		return NULL;
	}
	if (mon >= r->cfg.num_mon) {
		raise_error(m, PV_MSC_ERR_MONITOR_RANGE, mon, 0, ris);
		return NULL;
	}
	*rp = r;
	return &r->mon[mon];
}

static bool mon_nrdy(const struct sim_msc *m, const struct sim_mon *mon)
{
	return mon->stuck || m->now < mon->ready_at;
}

/* Writable MSMON_CFG_MBWU_CTL bits; TYPE reads as MBWU. */
static uint32_t ctl_mask(const struct sim_ris *r)
{
	uint64_t v = PV_MBWU_CTL_MATCH_PARTID | PV_MBWU_CTL_MATCH_PMG | PV_MBWU_CTL_SCLEN |
		     PV_MBWU_CTL_OFLOW_FRZ | PV_MBWU_CTL_OFLOW_INTR | PV_MBWU_CTL_OFLOW_STATUS |
		     PV_MBWU_CTL_EN;
	if (r->cfg.has_long)
		v |= PV_MBWU_CTL_OFLOW_STATUS_L;
	if (r->cfg.has_capture)
		v |= PV_MBWU_CTL_CAPT_RESET | PV_MBWU_CTL_CAPT_EVNT;
	return (uint32_t)v;
}

/* Everything in CTL but the hardware-set status bits is configuration. */
#define CTL_STATUS ((uint32_t)(PV_MBWU_CTL_OFLOW_STATUS | PV_MBWU_CTL_OFLOW_STATUS_L))

static void mon_reconfigured(struct sim_msc *m, struct sim_mon *mon)
{
	mon->ready_at = m->now + m->cfg.nrdy_ns;
}

static void write_flt(struct sim_msc *m, uint32_t val)
{
	struct sim_ris *r;
	struct sim_mon *mon = mon_target(m, &r);
	if (!mon)
		return;
	unsigned p = (unsigned)FIELD(val, PV_MBWU_FLT_PARTID);
	unsigned pmg = (unsigned)FIELD(val, PV_MBWU_FLT_PMG);
	if (p > m->cfg.partid_max || pmg > m->cfg.pmg_max) {
		raise_error(m, PV_MSC_ERR_MSMONCFG_ID_RANGE, p, pmg,
			    (unsigned)FIELD(m->mon_sel, PV_SEL_RIS));
		return;
	}
	uint32_t mask = (uint32_t)(PV_MBWU_FLT_PARTID | PV_MBWU_FLT_PMG);
	if (r->cfg.has_rwbw)
		mask |= (uint32_t)PV_MBWU_FLT_RWBW;
	val &= mask;
	if (val != mon->flt)
		mon_reconfigured(m, mon);
	mon->flt = val;
}

static void write_ctl(struct sim_msc *m, uint32_t val)
{
	struct sim_ris *r;
	struct sim_mon *mon = mon_target(m, &r);
	if (!mon)
		return;
	val &= ctl_mask(r);
	if ((val & ~CTL_STATUS) != (mon->ctl & ~CTL_STATUS))
		mon_reconfigured(m, mon);
	mon->ctl = val;
}

/* MSMON_MBWU sets the whole counter; the halves of MSMON_MBWU_L set their bits. NRDY is
 * managed by the hardware: writes to it are ignored. */
static void write_count(struct sim_msc *m, uint32_t off, uint32_t val)
{
	struct sim_ris *r;
	struct sim_mon *mon = mon_target(m, &r);
	if (!mon)
		return;
	uint64_t wmask = width_mask(sim_msc_counter_bits(&r->cfg));
	if (off == PV_MSMON_MBWU) {
		mon->count = val & PV_MBWU_VALUE;
	} else if (!r->cfg.has_long) {
		return;
	} else if (off == PV_MSMON_MBWU_L) {
		mon->count = ((mon->count & ~UINT64_C(0xFFFFFFFF)) | val) & wmask;
	} else {
		mon->count = ((mon->count & UINT64_C(0xFFFFFFFF)) | (uint64_t)val << 32) &
			     wmask;
	}
	mon->frac = 0;
}

static uint32_t read_mon(struct sim_msc *m, uint32_t off)
{
	struct sim_ris *r;
	struct sim_mon *mon = mon_target(m, &r);
	if (!mon)
		return 0;
	bool nrdy = mon_nrdy(m, mon);
	switch (off) {
	case PV_MSMON_CFG_MBWU_FLT:
		return mon->flt;
	case PV_MSMON_CFG_MBWU_CTL:
		return mon->ctl | PV_MBWU_CTL_TYPE_MBWU;
	case PV_MSMON_MBWU:
		return (uint32_t)(mon->count & PV_MBWU_VALUE) |
		       (nrdy ? (uint32_t)PV_MBWU_NRDY : 0);
	case PV_MSMON_MBWU_CAPTURE:
		if (!r->cfg.has_capture)
			return 0;
		return (uint32_t)(mon->capture & PV_MBWU_VALUE) |
		       (mon->capture_nrdy ? (uint32_t)PV_MBWU_NRDY : 0);
	}
	if (!r->cfg.has_long)
		return 0;
	uint64_t v;
	if (off == PV_MSMON_MBWU_L || off == PV_MSMON_MBWU_L + 4)
		v = mon->count | (nrdy ? PV_MBWU_L_NRDY : 0);
	else if (r->cfg.has_capture)
		v = mon->capture | (mon->capture_nrdy ? PV_MBWU_L_NRDY : 0);
	else
		v = 0;
	return (off & 4) ? (uint32_t)(v >> 32) : (uint32_t)v;
}

/* A write of MSMON_CAPT_EVNT.NOW: every enabled monitor whose CAPT_EVNT selects the local
 * capture event copies its counter, and resets it with CAPT_RESET. */
static void capture_now(struct sim_msc *m)
{
	for (unsigned i = 0; i < m->cfg.nris; i++) {
		struct sim_ris *r = &m->ris[i];
		if (!r->cfg.has_capture)
			continue;
		for (unsigned j = 0; j < r->cfg.num_mon; j++) {
			struct sim_mon *mon = &r->mon[j];
			if (!(mon->ctl & PV_MBWU_CTL_EN) ||
			    FIELD(mon->ctl, PV_MBWU_CTL_CAPT_EVNT) != PV_MBWU_CTL_CAPT_LOCAL)
				continue;
			mon->capture = mon->count;
			mon->capture_nrdy = mon_nrdy(m, mon);
			if (mon->ctl & PV_MBWU_CTL_CAPT_RESET) {
				mon->count = 0;
				mon->frac = 0;
			}
		}
	}
}

static bool is_mon_reg(uint32_t off)
{
	switch (off) {
	case PV_MSMON_CFG_MBWU_FLT:
	case PV_MSMON_CFG_MBWU_CTL:
	case PV_MSMON_MBWU:
	case PV_MSMON_MBWU_CAPTURE:
	case PV_MSMON_MBWU_L:
	case PV_MSMON_MBWU_L + 4:
	case PV_MSMON_MBWU_L_CAPTURE:
	case PV_MSMON_MBWU_L_CAPTURE + 4:
		return true;
	default:
		return false;
	}
}

static bool is_cpbm(uint32_t off)
{
	return off >= PV_MPAMCFG_CPBM && off < PV_MPAMCFG_MBW_PBM;
}

static bool is_mbw_cfg(uint32_t off)
{
	return off == PV_MPAMCFG_MBW_MIN || off == PV_MPAMCFG_MBW_MAX ||
	       off == PV_MPAMCFG_MBW_PROP;
}

uint32_t sim_msc_read(struct sim_msc *m, uint32_t off)
{
	m->reads++;
	const struct sim_ris *r = id_ris(m);
	uint32_t mask;
	uint32_t *cell;
	switch (off) {
	case PV_MPAMF_IDR:
		return (uint32_t)idr(m);
	case PV_MPAMF_IDR + 4:
		return m->cfg.nris > 1 ? (uint32_t)(idr(m) >> 32) : 0;
	case PV_MPAMF_IIDR:
		return m->cfg.iidr;
	case PV_MPAMF_AIDR:
		return m->cfg.aidr;
	case PV_MPAMF_CPOR_IDR:
		return r ? r->cfg.cpbm_wd : 0;
	case PV_MPAMF_MBW_IDR:
		return mbw_idr(r);
	case PV_MPAMF_MSMON_IDR:
		return msmon_idr(r);
	case PV_MPAMF_MBWUMON_IDR:
		return mbwumon_idr(r);
	case PV_MPAMF_ECR:
		return m->ecr;
	case PV_MPAMF_ESR:
		return (uint32_t)m->esr;
	case PV_MPAMF_ESR + 4:
		return extd_esr(m) ? (uint32_t)(m->esr >> 32) : 0;
	case PV_MPAMCFG_PART_SEL:
		return m->part_sel;
	case PV_MSMON_CFG_MON_SEL:
		return m->mon_sel;
	}
	if (is_mbw_cfg(off)) {
		cell = mbw_cell(m, off, &mask);
		return cell ? *cell : 0;
	}
	if (is_cpbm(off)) {
		cell = cpbm_cell(m, off, &mask);
		return cell ? *cell : 0;
	}
	if (is_mon_reg(off))
		return read_mon(m, off);
	return 0; /* CCAP, PRI, CSU, NRW, IMPL and reserved space: not implemented, RAZ */
}

void sim_msc_write(struct sim_msc *m, uint32_t off, uint32_t val)
{
	m->writes++;
	uint32_t mask;
	uint32_t *cell;
	switch (off) {
	case PV_MPAMF_ECR:
		m->ecr = val & (uint32_t)PV_ECR_INTEN;
		return;
	case PV_MPAMF_ESR:
		m->esr = (m->esr & ~UINT64_C(0xFFFFFFFF)) | val;
		return;
	case PV_MPAMF_ESR + 4:
		if (extd_esr(m))
			m->esr = (m->esr & UINT64_C(0xFFFFFFFF)) |
				 ((uint64_t)val << 32 & PV_ESR_RIS);
		return;
	case PV_MPAMCFG_PART_SEL:
		/* INTERNAL is RAZ/WI without PARTID narrowing; RIS without HAS_RIS. */
		m->part_sel = val & (uint32_t)(PV_PART_SEL_PARTID |
					       (m->cfg.nris > 1 ? PV_SEL_RIS : 0));
		return;
	case PV_MSMON_CFG_MON_SEL:
		m->mon_sel = val &
			     (uint32_t)(PV_MON_SEL_MON | (m->cfg.nris > 1 ? PV_SEL_RIS : 0));
		return;
	case PV_MSMON_CAPT_EVNT:
		if (val & PV_MSMON_CAPT_EVNT_NOW)
			capture_now(m);
		return;
	case PV_MSMON_CFG_MBWU_FLT:
		write_flt(m, val);
		return;
	case PV_MSMON_CFG_MBWU_CTL:
		write_ctl(m, val);
		return;
	case PV_MSMON_MBWU:
	case PV_MSMON_MBWU_L:
	case PV_MSMON_MBWU_L + 4:
		write_count(m, off, val);
		return;
	}
	if (is_mbw_cfg(off)) {
		cell = mbw_cell(m, off, &mask);
		if (cell)
			*cell = val & mask;
		return;
	}
	if (is_cpbm(off)) {
		cell = cpbm_cell(m, off, &mask);
		if (cell)
			*cell = val & mask;
		return;
	}
	/* ID registers, captures and unimplemented space: writes ignored */
}

void sim_msc_stick_nrdy(struct sim_msc *m, unsigned ris, unsigned mon, bool stuck)
{
	if (ris < m->cfg.nris && mon < m->ris[ris].cfg.num_mon)
		m->ris[ris].mon[mon].stuck = stuck;
}

void sim_msc_inject_error(struct sim_msc *m, unsigned code, unsigned partid_mon, unsigned pmg,
			  unsigned ris)
{
	raise_error(m, code, partid_mon, pmg, ris);
}

/* ---- traffic ---- */

/* Fraction of the capacity a MBW_MIN / MBW_MAX value stands for: MAX (v + 1) / 2^wd,
 * MIN v / 2^wd, v being the implemented top bits. */
static double max_frac(const struct sim_ris *r, uint32_t v)
{
	unsigned wd = r->cfg.bwa_wd;
	return (double)(((v & PV_MBW_FRAC) >> (16 - wd)) + 1) / (double)(1u << wd);
}

static double min_frac(const struct sim_ris *r, uint32_t v)
{
	unsigned wd = r->cfg.bwa_wd;
	return (double)((v & PV_MBW_FRAC) >> (16 - wd)) / (double)(1u << wd);
}

/* What a PARTID may get in a phase: up to MBW_MAX (and its demand), then, when its limit is
 * soft (HARDLIM = 0), up to its demand. */
static double top_of(const struct sim_ris *r, unsigned p, double cap, unsigned phase)
{
	double lim = r->cfg.has_max ? max_frac(r, r->mbw_max[p]) * cap : cap;
	bool hard = !r->cfg.has_max || (r->mbw_max[p] & PV_MBW_MAX_HARDLIM);
	if (phase == 0)
		return r->dem[p] < lim ? r->dem[p] : lim;
	return hard ? r->got[p] : r->dem[p];
}

/* Shares `left` among the PARTIDs in proportion to their demand, each up to its top: a
 * PARTID whose share would pass its top gets its top, and the rest is shared again. */
static double fill(struct sim_ris *r, const uint16_t *ps, unsigned np, double cap,
		   unsigned phase, double left)
{
	enum { ACTIVE = 1, DONE = 3 };
	for (unsigned i = 0; i < np; i++)
		r->mark[ps[i]] = top_of(r, ps[i], cap, phase) > r->got[ps[i]] ? ACTIVE : DONE;
	while (left > 0) {
		double dsum = 0, given = 0;
		for (unsigned i = 0; i < np; i++)
			if (r->mark[ps[i]] == ACTIVE)
				dsum += r->dem[ps[i]];
		if (dsum <= 0)
			break;
		bool capped = false;
		for (unsigned i = 0; i < np; i++) {
			unsigned p = ps[i];
			double need = top_of(r, p, cap, phase) - r->got[p];
			if (r->mark[p] == ACTIVE && left * r->dem[p] / dsum >= need) {
				r->got[p] += need;
				given += need;
				r->mark[p] = DONE;
				capped = true;
			}
		}
		if (!capped) {
			for (unsigned i = 0; i < np; i++)
				if (r->mark[ps[i]] == ACTIVE)
					r->got[ps[i]] += left * r->dem[ps[i]] / dsum;
			left = 0;
		}
		left -= given;
	}
	for (unsigned i = 0; i < np; i++)
		r->mark[ps[i]] = ACTIVE;
	return left;
}

/*
 * Shares a step's capacity among the PARTIDs that asked for it: first each PARTID's MBW_MIN
 * (within its MBW_MAX), then up to MBW_MAX in proportion to demand, then, for PARTIDs whose
 * limit is soft (HARDLIM = 0), what is left beyond MBW_MAX.
 */
static void share_capacity(struct sim_ris *r, const uint16_t *ps, unsigned np, double cap)
{
	double sum = 0;
	for (unsigned i = 0; i < np; i++) {
		unsigned p = ps[i];
		double lim = top_of(r, p, cap, 0);
		double mn = r->cfg.has_min ? min_frac(r, r->mbw_min[p]) * cap : 0;
		r->got[p] = mn < lim ? mn : lim;
		sum += r->got[p];
	}
	if (sum > cap) {
		for (unsigned i = 0; i < np; i++)
			r->got[ps[i]] *= cap / sum;
		return;
	}
	double left = fill(r, ps, np, cap, 0, cap - sum);
	fill(r, ps, np, cap, 1, left);
}

/* Adds `bytes` to a monitor's counter: scaling, width, overflow status and freeze. */
static void mon_add(struct sim_msc *m, const struct sim_ris *r, struct sim_mon *mon,
		    uint64_t bytes)
{
	bool longc = r->cfg.has_long;
	uint64_t frz = longc ? PV_MBWU_CTL_OFLOW_STATUS_L : PV_MBWU_CTL_OFLOW_STATUS;
	if ((mon->ctl & PV_MBWU_CTL_OFLOW_FRZ) && (mon->ctl & frz))
		return;
	mon->counted += bytes;
	uint64_t units = bytes;
	if (mon->ctl & PV_MBWU_CTL_SCLEN) {
		uint64_t total = mon->frac + bytes;
		units = total >> r->cfg.scale;
		mon->frac = total & ((UINT64_C(1) << r->cfg.scale) - 1);
	}
	unsigned bits = sim_msc_counter_bits(&r->cfg);
	uint64_t old = mon->count, sum = old + units;
	bool oflow = (sum >> 31) != (old >> 31) || units >= (UINT64_C(1) << 31);
	bool oflow_l = longc && ((sum >> bits) != 0 || units > width_mask(bits));
	mon->count = sum & width_mask(bits);
	if (oflow)
		mon->ctl |= (uint32_t)PV_MBWU_CTL_OFLOW_STATUS;
	if (oflow_l)
		mon->ctl |= (uint32_t)PV_MBWU_CTL_OFLOW_STATUS_L;
	if ((oflow || oflow_l) && (mon->ctl & PV_MBWU_CTL_OFLOW_INTR))
		m->oflow_irqs++;
}

/* Bytes a monitor sees of a stream: its filter (PARTID, PMG, read/write). */
static uint64_t mon_bytes(const struct sim_mon *mon, uint64_t rd, uint64_t wr)
{
	switch (FIELD(mon->flt, PV_MBWU_FLT_RWBW)) {
	case 1:
		return wr;
	case 2:
		return rd;
	default:
		return rd + wr;
	}
}

static void count_monitors(struct sim_msc *m, struct sim_ris *r, const struct sim_req *req,
			   unsigned n, const uint16_t *ps, unsigned np, uint64_t t0,
			   uint64_t dt)
{
	uint64_t t1 = t0 + dt;
	for (unsigned j = 0; j < r->cfg.num_mon; j++) {
		struct sim_mon *mon = &r->mon[j];
		if (!(mon->ctl & PV_MBWU_CTL_EN) || mon->ready_at >= t1)
			continue;
		unsigned fp = (unsigned)FIELD(mon->flt, PV_MBWU_FLT_PARTID);
		unsigned fg = (unsigned)FIELD(mon->flt, PV_MBWU_FLT_PMG);
		bool mp = mon->ctl & PV_MBWU_CTL_MATCH_PARTID,
		     mg = mon->ctl & PV_MBWU_CTL_MATCH_PMG;
		uint64_t bytes = 0;
		if (mp && !mg) {
			bytes = fp <= m->cfg.partid_max ? mon_bytes(mon, r->drd[fp], r->dwr[fp])
							: 0;
		} else if (!mg) {
			for (unsigned i = 0; i < np; i++)
				bytes += mon_bytes(mon, r->drd[ps[i]], r->dwr[ps[i]]);
		} else {
			/* The label as the MSC saw it: out-of-range parts served as 0. */
			for (unsigned i = 0; i < n; i++) {
				unsigned p = req[i].partid > m->cfg.partid_max ? 0
									       : req[i].partid;
				unsigned g = req[i].pmg > m->cfg.pmg_max ? 0 : req[i].pmg;
				if ((!mp || p == fp) && g == fg)
					bytes += mon_bytes(mon, req[i].rd_done, req[i].wr_done);
			}
		}
		/* Counting starts when the monitor is ready: pro rata within the step. */
		if (mon->ready_at > t0)
			bytes = (uint64_t)((double)bytes * (double)(t1 - mon->ready_at) /
					   (double)dt);
		if (bytes)
			mon_add(m, r, mon, bytes);
	}
}

void sim_msc_serve(struct sim_msc *m, unsigned ris, struct sim_req *req, unsigned n,
		   uint64_t t0, uint64_t dt)
{
	if (ris >= m->cfg.nris)
		return;
	struct sim_ris *r = &m->ris[ris];
	uint16_t *ps = r->touched;
	unsigned np = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned p = req[i].partid, g = req[i].pmg;
		if (p > m->cfg.partid_max) {
			raise_error(m, PV_MSC_ERR_REQ_PARTID_RANGE, p, g, ris);
			p = 0;
		}
		if (g > m->cfg.pmg_max)
			raise_error(m, PV_MSC_ERR_REQ_PMG_RANGE, p, g, ris);
		if (!r->mark[p]) {
			r->mark[p] = 1;
			ps[np++] = (uint16_t)p;
		}
		r->dem[p] += (double)(req[i].rd + req[i].wr);
	}
	double cap = (double)r->cfg.capacity * (double)dt / 1e9;
	if (r->cfg.capacity && r->cfg.mbw)
		share_capacity(r, ps, np, cap);
	else
		for (unsigned k = 0; k < np; k++)
			r->got[ps[k]] = r->dem[ps[k]];
	for (unsigned i = 0; i < n; i++) {
		unsigned p = req[i].partid > m->cfg.partid_max ? 0 : req[i].partid;
		double share = r->dem[p] > 0 ? r->got[p] / r->dem[p] : 0;
		if (share >= 1.0) {
			req[i].rd_done = req[i].rd;
			req[i].wr_done = req[i].wr;
		} else {
			req[i].rd_done = (uint64_t)((double)req[i].rd * share);
			req[i].wr_done = (uint64_t)((double)req[i].wr * share);
		}
		r->drd[p] += req[i].rd_done;
		r->dwr[p] += req[i].wr_done;
		r->served += req[i].rd_done + req[i].wr_done;
	}
	count_monitors(m, r, req, n, ps, np, t0, dt);
	for (unsigned k = 0; k < np; k++) {
		unsigned p = ps[k];
		r->dem[p] = r->got[p] = 0;
		r->drd[p] = r->dwr[p] = 0;
		r->mark[p] = 0;
	}
}

/* ---- the memory system ---- */

int sim_mpam_init(struct sim_mpam *mp, struct sim_msc *msc, unsigned nmsc)
{
	memset(mp, 0, sizeof(*mp));
	mp->msc = msc;
	mp->nmsc = nmsc;
	for (unsigned i = 0; i < nmsc; i++) {
		int node = msc[i].cfg.node;
		if (node >= SIM_MPAM_MAX_NODES)
			return -1;
		if (node >= 0 && (unsigned)node + 1 > mp->nodes)
			mp->nodes = (unsigned)node + 1;
	}
	mp->truth = calloc((size_t)(mp->nodes ? mp->nodes : 1) * SIM_MPAM_PARTIDS,
			   sizeof(uint64_t));
	return mp->truth ? 0 : -1;
}

void sim_mpam_free(struct sim_mpam *mp)
{
	free(mp->truth);
	free(mp->scratch);
	memset(mp, 0, sizeof(*mp));
}

static struct sim_msc *find(struct sim_mpam *mp, uint64_t pa, uint32_t *off)
{
	for (unsigned i = 0; i < mp->nmsc; i++) {
		uint64_t base = mp->msc[i].cfg.base;
		if (pa >= base && pa - base < PV_MSC_FRAME && !(pa & 3)) {
			*off = (uint32_t)(pa - base);
			mp->msc[i].now = mp->now;
			return &mp->msc[i];
		}
	}
	mp->mmio_unmapped++;
	return NULL;
}

uint32_t sim_mpam_read32(struct sim_mpam *mp, uint64_t pa)
{
	uint32_t off;
	mp->mmio_reads++;
	struct sim_msc *m = find(mp, pa, &off);
	return m ? sim_msc_read(m, off) : 0;
}

void sim_mpam_write32(struct sim_mpam *mp, uint64_t pa, uint32_t val)
{
	uint32_t off;
	mp->mmio_writes++;
	struct sim_msc *m = find(mp, pa, &off);
	if (m)
		sim_msc_write(m, off, val);
}

uint64_t sim_mpam_truth(const struct sim_mpam *mp, unsigned node, unsigned partid)
{
	if (node >= mp->nodes || partid >= SIM_MPAM_PARTIDS)
		return 0;
	return mp->truth[(size_t)node * SIM_MPAM_PARTIDS + partid];
}

uint64_t sim_mpam_errors(const struct sim_mpam *mp)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < mp->nmsc; i++)
		for (unsigned c = 1; c < 16; c++)
			n += mp->msc[i].errors[c];
	return n;
}
