/* SPDX-License-Identifier: MIT */
/*
 * The MSC driver: discovery (MPAMF_AIDR, MPAMF_IDR and the per-RIS ID registers selected by
 * MPAMCFG_PART_SEL.RIS), per-PARTID controls (MPAMCFG_MBW_MAX, MBW_MIN, CPBM), MBWU monitors
 * (MSMON_CFG_MON_SEL, MSMON_CFG_MBWU_FLT/CTL, MSMON_MBWU, MSMON_MBWU_L) and the error status
 * (MPAMF_ESR). Every register is accessed as 32 bits; 64-bit ones as two halves.
 */
#include "internal.h"

static uint32_t rd(struct pv_pcpu *cpu, const struct pv_vmpam_msc *m, uint32_t off)
{
	return pv_plat_mmio_read32(cpu, m->base + off);
}

static void wr(struct pv_pcpu *cpu, const struct pv_vmpam_msc *m, uint32_t off, uint32_t val)
{
	pv_plat_mmio_write32(cpu, m->base + off, val);
}

/* MPAMCFG_PART_SEL / MSMON_CFG_MON_SEL value: the RIS field exists only with HAS_RIS. */
static uint32_t sel(const struct pv_vmpam_msc *m, unsigned ris, unsigned idx)
{
	return idx | (m->has_ris ? (uint32_t)ris << PV_SEL_RIS_SHIFT : 0);
}

static void probe_ris(struct pv_pcpu *cpu, const struct pv_vmpam_msc *m, uint32_t idr,
		      struct pv_vmpam_ris *r)
{
	if (idr & PV_IDR_HAS_MBW_PART) {
		uint32_t mbw = rd(cpu, m, PV_MPAMF_MBW_IDR);
		unsigned wd = (unsigned)(mbw & PV_MBW_IDR_BWA_WD);
		if ((mbw & PV_MBW_IDR_HAS_MAX) && wd)
			r->bwa_wd = (uint8_t)(wd > 16 ? 16
						      : wd); /* at most 16 bits are valid */
		r->has_min = (mbw & PV_MBW_IDR_HAS_MIN) != 0;
	}
	if (idr & PV_IDR_HAS_CPOR_PART) {
		unsigned wd = (unsigned)(rd(cpu, m, PV_MPAMF_CPOR_IDR) & PV_CPOR_IDR_CPBM_WD);
		r->cpbm_wd = (uint16_t)(wd <= 64 ? wd : 0); /* wider bitmaps: not driven */
	}
	if ((idr & PV_IDR_HAS_MSMON) &&
	    (rd(cpu, m, PV_MPAMF_MSMON_IDR) & PV_MSMON_IDR_MSMON_MBWU)) {
		uint32_t mb = rd(cpu, m, PV_MPAMF_MBWUMON_IDR);
		r->num_mon = (uint16_t)(mb & PV_MBWUMON_IDR_NUM_MON);
		r->cbits = !(mb & PV_MBWUMON_IDR_HAS_LONG) ? 31
			   : (mb & PV_MBWUMON_IDR_LWD)     ? 63
							   : 44;
		r->scale = (uint8_t)PV_FIELD_GET(PV_GENMASK(20, 16), mb);
		r->has_rwbw = (mb & PV_MBWUMON_IDR_HAS_RWBW) != 0;
	}
}

int pv_vmpam__msc_probe(struct pv_pcpu *cpu, const struct pv_vmpam_msc_desc *d,
			struct pv_vmpam_msc *m)
{
	uint64_t idr;
	*m = (struct pv_vmpam_msc){
		.base = d->base, .nrdy_ns = d->nrdy_ns, .kind = d->kind, .id = d->id};
	/* MPAM v1.x only (as Linux's mpam_msc_hw_probe). */
	if (PV_AIDR_MAJOR(rd(cpu, m, PV_MPAMF_AIDR)) != 1)
		return PV_VMPAM_ERR_MSC_ARCH;
	idr = rd(cpu, m, PV_MPAMF_IDR);
	if (idr & PV_IDR_EXT)
		idr |= (uint64_t)rd(cpu, m, PV_MPAMF_IDR + 4) << 32;
	m->partid_max = (uint16_t)(idr & PV_IDR_PARTID_MAX);
	m->pmg_max = (uint8_t)PV_FIELD_GET(PV_GENMASK(23, 16), idr);
	m->has_ris = (idr & PV_IDR_HAS_RIS) != 0;
	m->extd_esr = (idr & PV_IDR_HAS_EXTD_ESR) != 0;
	m->nris = (uint8_t)(m->has_ris ? PV_FIELD_GET(PV_GENMASK(59, 56), idr) + 1 : 1);
	for (unsigned k = 0; k < m->nris; k++) {
		uint32_t ridr = (uint32_t)idr;
		if (m->has_ris) {
			/* The feature bits of MPAMF_IDR and the other ID registers describe the RIS
			 * that MPAMCFG_PART_SEL selects. */
			wr(cpu, m, PV_MPAMCFG_PART_SEL, sel(m, k, 0));
			ridr = rd(cpu, m, PV_MPAMF_IDR);
		}
		if (ridr & PV_IDR_HAS_PARTID_NRW)
			return PV_VMPAM_ERR_MSC_NRW;
		probe_ris(cpu, m, ridr, &m->ris[k]);
	}
	if (m->has_ris)
		wr(cpu, m, PV_MPAMCFG_PART_SEL, 0);
	return 0;
}

uint32_t pv_vmpam__mbw_max(unsigned pct, unsigned wd)
{
	uint32_t v;
	if (pct == 0 || pct >= 100)
		return (uint32_t)PV_MBW_FRAC;
	/* A fraction (MAX + 1) / 2^wd of the bandwidth, nearest to pct (Linux's
	 * percent_to_mbw_max): only the top wd bits of the 16-bit field are implemented. */
	v = ((uint32_t)pct << wd) + 50;
	v /= 100;
	if (v)
		v--;
	return v << (16 - wd) | (uint32_t)PV_MBW_MAX_HARDLIM;
}

static void clear_esr(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, unsigned i, uint32_t lo)
{
	const struct pv_vmpam_msc *m = &sys->msc[i];
	uint64_t esr = lo;
	if (m->extd_esr) {
		esr |= (uint64_t)rd(cpu, m, PV_MPAMF_ESR + 4) << 32;
		wr(cpu, m, PV_MPAMF_ESR + 4, 0);
	}
	wr(cpu, m, PV_MPAMF_ESR, 0);
	sys->stats.msc_errors++;
	sys->stats.last_esr = esr;
	sys->stats.last_esr_msc = (uint8_t)i;
}

int pv_vmpam__msc_program(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, uint16_t partid,
			  const struct pv_vmpam_config *cfg)
{
	int err = 0;
	for (unsigned i = 0; i < sys->nmsc; i++) {
		const struct pv_vmpam_msc *m = &sys->msc[i];
		bool touched = false;
		uint32_t esr;
		for (unsigned k = 0; k < m->nris; k++) {
			const struct pv_vmpam_ris *r = &m->ris[k];
			bool mbw = m->kind == PV_VMPAM_MSC_MEMORY && (r->bwa_wd || r->has_min);
			bool cpor = m->kind == PV_VMPAM_MSC_CACHE && r->cpbm_wd;
			uint64_t bm;
			if (!mbw && !cpor)
				continue;
			touched = true;
			wr(cpu, m, PV_MPAMCFG_PART_SEL, sel(m, k, partid));
			if (mbw && r->has_min)
				wr(cpu, m, PV_MPAMCFG_MBW_MIN, 0);
			if (mbw && r->bwa_wd)
				wr(cpu, m, PV_MPAMCFG_MBW_MAX,
				   pv_vmpam__mbw_max(cfg ? cfg->mbw_max[m->id] : 0, r->bwa_wd));
			if (!cpor)
				continue;
			bm = cfg && cfg->cpbm[m->id] ? cfg->cpbm[m->id] : ~UINT64_C(0);
			/* cpbm_wd <= 64 (probe_ris): w is 0 or 1. */
			for (unsigned w = 0; w * 32 < r->cpbm_wd; w++)
				/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
				wr(cpu, m, PV_MPAMCFG_CPBM + 4 * w, (uint32_t)(bm >> (32 * w)));
		}
		if (!touched)
			continue;
		esr = rd(cpu, m, PV_MPAMF_ESR);
		if (esr & PV_ESR_ERRCODE) {
			clear_esr(sys, cpu, i, esr);
			err = PV_VMPAM_ERR_MSC_ERROR;
		}
	}
	return err;
}

void pv_vmpam__msc_check(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu)
{
	for (unsigned i = 0; i < sys->nmsc; i++) {
		uint32_t esr = rd(cpu, &sys->msc[i], PV_MPAMF_ESR);
		if (esr & PV_ESR_ERRCODE)
			clear_esr(sys, cpu, i, esr);
	}
}

/* ---- monitors ---- */

static const struct pv_vmpam_msc *node_msc(const struct pv_vmpam_sys *sys,
					   const struct pv_vmpam_node *n, unsigned k)
{
	return &sys->msc[n->msc[k]];
}

static const struct pv_vmpam_ris *node_ris(const struct pv_vmpam_sys *sys,
					   const struct pv_vmpam_node *n, unsigned k)
{
	return &sys->msc[n->msc[k]].ris[n->ris[k]];
}

/* MSMON_CFG_MBWU_CTL: count bytes of the filter's PARTID, reads and writes, scaled when the
 * RIS scales; of any PMG (a VM's total), or with MATCH_PMG only of the filter's PMG (its
 * local bytes: the PMG names the node local to the sending pCPU, cpu.c). */
static uint32_t ctl_value(const struct pv_vmpam_ris *r, bool match_pmg)
{
	return PV_MBWU_CTL_TYPE_MBWU | (uint32_t)PV_MBWU_CTL_MATCH_PARTID |
	       (match_pmg ? (uint32_t)PV_MBWU_CTL_MATCH_PMG : 0) |
	       (r->scale ? (uint32_t)PV_MBWU_CTL_SCLEN : 0) | (uint32_t)PV_MBWU_CTL_EN;
}

static void reset_counter(struct pv_pcpu *cpu, const struct pv_vmpam_msc *m,
			  const struct pv_vmpam_ris *r)
{
	if (r->cbits == 31) {
		wr(cpu, m, PV_MSMON_MBWU, 0);
	} else {
		wr(cpu, m, PV_MSMON_MBWU_L, 0);
		wr(cpu, m, PV_MSMON_MBWU_L + 4, 0);
	}
}

void pv_vmpam__mon_setup(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			 const struct pv_vmpam_node *n)
{
	for (unsigned k = 0; k < n->nris; k++) {
		const struct pv_vmpam_msc *m = node_msc(sys, n, k);
		const struct pv_vmpam_ris *r = node_ris(sys, n, k);
		for (unsigned s = 0; s < n->nmons; s++) {
			wr(cpu, m, PV_MSMON_CFG_MON_SEL, sel(m, n->ris[k], s));
			wr(cpu, m, PV_MSMON_CFG_MBWU_FLT, 0);
			wr(cpu, m, PV_MSMON_CFG_MBWU_CTL, ctl_value(r, n->match_pmg[s]));
			reset_counter(cpu, m, r);
		}
	}
}

void pv_vmpam__mon_start(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			 const struct pv_vmpam_node *n, unsigned k, unsigned slot,
			 uint16_t partid, uint8_t pmg, bool ctl)
{
	const struct pv_vmpam_msc *m = node_msc(sys, n, k);
	const struct pv_vmpam_ris *r = node_ris(sys, n, k);
	bool match = n->match_pmg[slot];
	wr(cpu, m, PV_MSMON_CFG_MON_SEL, sel(m, n->ris[k], slot));
	/* MSMON_CFG_MBWU_FLT: PARTID 15:0, PMG 23:16 (compared only with CTL.MATCH_PMG). The PMG
	 * is a node number, within the usable PMG_MAX (pv_vmpam_init), so the MSC records no
	 * MSMONCFG_ID_RANGE error. */
	wr(cpu, m, PV_MSMON_CFG_MBWU_FLT,
	   partid | (match ? (uint32_t)pmg << PV_MBWU_FLT_PMG_SHIFT : 0));
	/* A 31-bit counter may hold a stale OFLOW_STATUS: rewriting CTL clears it. */
	if (ctl || r->cbits == 31)
		wr(cpu, m, PV_MSMON_CFG_MBWU_CTL, ctl_value(r, match));
	reset_counter(cpu, m, r);
}

/* MSMON_MBWU read until NRDY is clear, a bounded number of times. */
static bool read_ready(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
		       const struct pv_vmpam_msc *m, uint32_t *v)
{
	for (unsigned i = 0; i <= PV_VMPAM_NRDY_RETRIES; i++) {
		*v = rd(cpu, m, PV_MSMON_MBWU);
		if (!(*v & PV_MBWU_NRDY))
			return true;
		sys->stats.retries++;
	}
	sys->stats.not_ready++;
	return false;
}

/*
 * 31-bit counter. The change modulo 2^31 is right while less than 2^31 units pass between
 * reads; OFLOW_STATUS says at least one wrap happened, which settles a change of 2^31 or more
 * when the counter ends at or above `last`. Ending below `last` after a wrap leaves one or two
 * wraps possible: the one whose change is nearer the previous change (`pred`) is taken. The
 * counter is read on both sides of CTL so that a wrap racing with the status read is seen;
 * the status is then cleared by rewriting CTL.
 */
static bool read31(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, const struct pv_vmpam_msc *m,
		   const struct pv_vmpam_ris *r, bool match_pmg, uint64_t last, uint64_t pred,
		   uint64_t *raw, uint64_t *units)
{
	uint32_t c1, c2;
	uint32_t ctl;
	uint64_t v1, v2;
	bool wrapped;
	uint64_t d;
	if (!read_ready(sys, cpu, m, &c1))
		return false;
	ctl = rd(cpu, m, PV_MSMON_CFG_MBWU_CTL);
	if (!read_ready(sys, cpu, m, &c2))
		return false;
	v1 = c1 & PV_MBWU_VALUE;
	v2 = c2 & PV_MBWU_VALUE;
	wrapped = (ctl & PV_MBWU_CTL_OFLOW_STATUS) || v2 < v1;
	d = (v2 - last) & PV_MBWU_VALUE;
	if (wrapped) {
		wr(cpu, m, PV_MSMON_CFG_MBWU_CTL, ctl_value(r, match_pmg));
		sys->stats.wraps++;
		if (v2 >= last || pred > d + (UINT64_C(1) << 30))
			d += UINT64_C(1) << 31;
	}
	*raw = v2;
	*units = d;
	return true;
}

/* 44/63-bit counter: high, low, high until both high halves agree and NRDY is clear. */
static bool read_long(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
		      const struct pv_vmpam_msc *m, const struct pv_vmpam_ris *r, uint64_t last,
		      uint64_t *raw, uint64_t *units)
{
	uint64_t mask = (UINT64_C(1) << r->cbits) - 1;
	for (unsigned i = 0; i <= PV_VMPAM_NRDY_RETRIES; i++) {
		uint32_t h1 = rd(cpu, m, PV_MSMON_MBWU_L + 4);
		uint32_t lo = rd(cpu, m, PV_MSMON_MBWU_L);
		uint32_t h2 = rd(cpu, m, PV_MSMON_MBWU_L + 4);
		uint64_t v = (uint64_t)h2 << 32 | lo;
		if (h1 == h2 && !(v & PV_MBWU_L_NRDY)) {
			*raw = v & mask;
			*units = (*raw - last) & mask;
			return true;
		}
		sys->stats.retries++;
	}
	sys->stats.not_ready++;
	return false;
}

bool pv_vmpam__mon_read(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			const struct pv_vmpam_node *n, unsigned k, unsigned slot, uint64_t last,
			uint64_t pred, uint64_t *raw, uint64_t *units)
{
	const struct pv_vmpam_msc *m = node_msc(sys, n, k);
	const struct pv_vmpam_ris *r = node_ris(sys, n, k);
	wr(cpu, m, PV_MSMON_CFG_MON_SEL, sel(m, n->ris[k], slot));
	if (r->cbits == 31)
		return read31(sys, cpu, m, r, n->match_pmg[slot], last, pred, raw, units);
	return read_long(sys, cpu, m, r, last, raw, units);
}

unsigned pv_vmpam__mon_scale(const struct pv_vmpam_sys *sys, const struct pv_vmpam_node *n,
			     unsigned k)
{
	return node_ris(sys, n, k)->scale;
}
