/* SPDX-License-Identifier: MIT */
/*
 * The guest's stage-1 translation of its profiling buffer (Arm ARM D8, VMSAv8-64 address
 * translation; the EL1&0 regime of TTBR0_EL1/TTBR1_EL1, TCR_EL1, SCTLR_EL1.M), as the
 * Statistical Profiling Unit performs it for a buffer write: a privileged write at EL1. Granules
 * of 4, 16 and 64 KiB when the PE implements them (ID_AA64MMFR0_EL1.TGran*), block mappings,
 * hierarchical write protection (APTable[1], unless TCR_EL1.HPDn), the Access flag and dirty
 * state as PMBIDR_EL1.F and TCR_EL1.HA/HD say. Descriptors are read through the platform by IPA;
 * every table read is pinned, since the hardware reads it too.
 */
#include "internal.h"

#define TCR_T0SZ(t) ((unsigned)PV_FIELD_GET(PV_TCR_T0SZ, t))
#define TCR_EPD0 PV_BIT(7)
#define TCR_TG0(t) ((unsigned)PV_FIELD_GET(PV_TCR_TG0, t))
#define TCR_T1SZ(t) ((unsigned)PV_FIELD_GET(PV_TCR_T1SZ, t))
#define TCR_EPD1 PV_BIT(23)
#define TCR_TG1(t) ((unsigned)PV_FIELD_GET(PV_TCR_TG1, t))
#define TCR_IPS(t) ((unsigned)PV_FIELD_GET(PV_TCR_IPS, t))
#define TCR_TBI0 PV_BIT(37)
#define TCR_TBI1 PV_BIT(38)
#define TCR_HA PV_BIT(39)
#define TCR_HD PV_BIT(40)
#define TCR_HPD0 PV_BIT(41)
#define TCR_HPD1 PV_BIT(42)

#define DESC_AP2 PV_BIT(7) /* read-only */
#define DESC_AF PV_BIT(10)
#define DESC_DBM PV_BIT(51)
#define DESC_APTABLE1 PV_BIT(62) /* no write access at the levels below */

static const uint8_t pa_range_bits[8] = {32, 36, 40, 42, 44, 48, 48, 48}; /* 52 not offered */

void pv_vspe__regime_read(struct pv_vcpu *v, struct vspe_regime *r)
{
	struct pv_pcpu *cpu = v->cpu;
	r->ttbr0 = pv_plat_sysreg_read(cpu, PV_TTBR0_EL1);
	r->ttbr1 = pv_plat_sysreg_read(cpu, PV_TTBR1_EL1);
	r->tcr = pv_plat_sysreg_read(cpu, PV_TCR_EL1);
	r->sctlr = pv_plat_sysreg_read(cpu, PV_SCTLR_EL1) & PV_SCTLR_M;
}

/* Granule shift of a TGn encoding; an unimplemented or reserved one behaves as an implemented
 * granule (Arm ARM D24.2.194, TCR_EL1.TGn: an IMP DEF choice; perfvisor and the model take the
 * smallest implemented). */
static unsigned granule(const struct pv_hw_spe *hw, unsigned shift)
{
	unsigned bit = shift == 12 ? 1u : shift == 14 ? 2u : shift == 16 ? 4u : 0u;
	if (hw->tgran & bit)
		return shift;
	return (hw->tgran & 1u) ? 12 : (hw->tgran & 2u) ? 14 : 16;
}

static void half_params(const struct vspe_walker *w, unsigned hi, struct vspe_half *h)
{
	uint64_t tcr = w->r.tcr;
	static const uint8_t tg0[4] = {12, 16, 14, 0}, tg1[4] = {0, 14, 12, 16};
	unsigned tsz = hi ? TCR_T1SZ(tcr) : TCR_T0SZ(tcr);
	unsigned g = hi ? tg1[TCR_TG1(tcr)] : tg0[TCR_TG0(tcr)];
	unsigned levels;
	uint64_t root;
	uint64_t table;
	h->g = (uint8_t)granule(w->hw, g);
	h->epd = (tcr & (hi ? TCR_EPD1 : TCR_EPD0)) != 0;
	h->tbi = (tcr & (hi ? TCR_TBI1 : TCR_TBI0)) != 0;
	h->hpd = (tcr & (hi ? TCR_HPD1 : TCR_HPD0)) != 0;
	/* TnSZ out of range: CONSTRAINED UNPREDICTABLE, behaves as the nearest valid value. */
	if (tsz < 16)
		tsz = 16;
	if (tsz > 39)
		tsz = 39;
	h->ia = (uint8_t)(64 - tsz);
	h->stride = (uint8_t)(h->g - 3);
	levels = (h->ia - h->g + h->stride - 1u) / h->stride;
	h->start = (uint8_t)(4 - levels);
	h->top_bits = (uint8_t)(h->ia - h->g - h->stride * (levels - 1));
	root = (hi ? w->r.ttbr1 : w->r.ttbr0) & PV_GENMASK(47, 1);
	table = UINT64_C(8) << h->top_bits;
	h->root = root & ~((table < 64 ? 64 : table) - 1);
}

void pv_vspe__walker_init(struct vspe_walker *w, struct pv_vcpu *v, const struct vspe_regime *r,
			  struct vspe_pinner *pin)
{
	unsigned ips;
	bool f;
	w->v = v;
	w->pin = pin;
	w->hw = &v->vm->hw->spehw;
	w->r = *r;
	w->mmu = (r->sctlr & PV_SCTLR_M) != 0;
	w->cache_valid[0] = w->cache_valid[1] = 0;
	/* Output addresses above the effective PA size (min of TCR_EL1.IPS and PARange) fault. */
	ips = pa_range_bits[TCR_IPS(r->tcr)];
	w->out_bits = (uint8_t)(ips < w->hw->pa_bits ? ips : w->hw->pa_bits);
	f = (w->hw->pmbidr & PV_PMBIDR_F) != 0;
	w->ha = f && (r->tcr & TCR_HA);
	w->hd = f && (r->tcr & TCR_HD);
	half_params(w, 0, &w->half[0]);
	half_params(w, 1, &w->half[1]);
}

/* Block descriptors exist at levels 1 and 2 with 4 KiB, at level 2 with 16 and 64 KiB
 * (level 0/1 blocks need FEAT_LPA2 / FEAT_LPA, not offered). */
static bool block_allowed(unsigned g, unsigned level)
{
	return level == 2 || (g == 12 && level == 1);
}

void pv_vspe__translate(struct vspe_walker *w, uint64_t va, struct vspe_xlate *x)
{
	unsigned hi;
	const struct vspe_half *h;
	unsigned ob;
	bool wp;
	unsigned level;
	uint64_t table;
	bool from_cache;
	x->fsc = VSPE_OK;
	if (!w->mmu) { /* stage 1 off: IPA = VA (D8.2.12.1) */
		if (va >> w->hw->pa_bits) {
			x->fsc = (int)PV_FSC_ADDR_SIZE(0);
			return;
		}
		x->ipa = va;
		x->span = PV_SPE_PAGE - (va & (PV_SPE_PAGE - 1));
		return;
	}
	hi = (unsigned)(va >> 55 & 1);
	h = &w->half[hi];
	ob = w->out_bits;
	wp = false;
	level = h->start;
	table = h->root;
	if ((w->cache_valid[hi] & 8) && w->cache_key[hi][3] == va >> (h->g + h->stride)) {
		/* The previous page's last-level table maps this one (the VA bits above it are the
		 * same: the range checks passed). */
		level = 3;
		table = w->cache_table[hi][3] & ~UINT64_C(1);
		wp = w->cache_table[hi][3] & 1;
	} else {
		uint64_t range = PV_GENMASK(h->tbi ? 55 : 63, h->ia);
		if (h->epd || (va & range) != (hi ? range : 0)) {
			x->fsc = (int)PV_FSC_TRANSLATION(0);
			return;
		}
		/* Resume from the deepest level whose table the previous page used. */
		for (unsigned l = 2; l > h->start; l--) {
			uint64_t key = va >> (h->g + h->stride * (4 - l));
			if ((w->cache_valid[hi] >> l & 1) && w->cache_key[hi][l] == key) {
				level = l;
				table = w->cache_table[hi][l] & ~UINT64_C(1);
				wp = w->cache_table[hi][l] & 1;
				break;
			}
		}
	}
	from_cache = level != h->start;
	for (;; level++) {
		unsigned shift = h->g + h->stride * (3 - level);
		unsigned bits = level == h->start ? h->top_bits : h->stride;
		uint64_t idx = va >> shift & ((UINT64_C(1) << bits) - 1);
		uint64_t d;
		bool leaf;
		uint64_t oa;
		bool dirty_ok;
		uint64_t off;
		if (level > h->start && !from_cache) {
			w->cache_key[hi][level] = va >> (shift + bits);
			w->cache_table[hi][level] = table | (wp ? 1 : 0);
			w->cache_valid[hi] |= (uint8_t)(1u << level);
		}
		if (!from_cache && w->pin) { /* the hardware's walks read this table too: all of
						it (16/64 KiB granules: several 4 KiB pages) */
			uint64_t lo = table & ~(uint64_t)(PV_SPE_PAGE - 1);
			uint64_t end = (table + (UINT64_C(8) << bits) + PV_SPE_PAGE - 1) &
				       ~(uint64_t)(PV_SPE_PAGE - 1);
			uint64_t *last = w->pin->tables ? &w->pin->tables[hi][level] : NULL;
			if (!last || *last != lo) /* the previous chunk's walk pinned it */
				pv_vspe__pinner_add(w->pin, &w->pin->table, lo, end - lo, va);
			if (last)
				*last = lo;
		}
		from_cache = false;
		if (!pv_plat_guest_read64(w->v, table + idx * 8, &d)) {
			x->fsc = VSPE_NOMEM;
			return;
		}
		if (!(d & 1) || (level == 3 && (d & 3) != 3) ||
		    (level < 3 && (d & 3) == 1 && !block_allowed(h->g, level))) {
			x->fsc = (int)PV_FSC_TRANSLATION(level);
			return;
		}
		leaf = level == 3 || (d & 3) == 1;
		oa = d & PV_GENMASK(47, leaf ? shift : h->g);
		if (oa >> ob) {
			x->fsc = (int)PV_FSC_ADDR_SIZE(level);
			return;
		}
		if (!leaf) {
			wp = wp || (!h->hpd && (d & DESC_APTABLE1));
			table = oa;
			continue;
		}
		if (!(d & DESC_AF) && !w->ha) {
			x->fsc = (int)PV_FSC_ACCESS_FLAG(level);
			return;
		}
		dirty_ok = w->hd && (d & DESC_DBM);
		if (wp || ((d & DESC_AP2) && !dirty_ok)) {
			x->fsc = (int)PV_FSC_PERMISSION(level);
			return;
		}
		off = va & ((UINT64_C(1) << shift) - 1);
		x->ipa = oa | off;
		x->span = (UINT64_C(1) << shift) - off;
		return;
	}
}
