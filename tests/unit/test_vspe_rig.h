/* SPDX-License-Identifier: MIT */
/*
 * SPE on the plain-memory platform (tests/support/memplat), for the vSPE unit tests and the
 * benchmark: ID fields, PMSIDR_EL1/PMBIDR_EL1 as an implementation sets them, a VM's memory
 * (IPA [RIG_RAM, RIG_RAM + RIG_RAM_SIZE), pins counted per page), and a writer of the guest's
 * stage-1 descriptors straight into that memory (what a guest kernel would have done). The
 * "hardware" SPE registers are plain cells the tests set and inspect themselves.
 */
#ifndef TEST_VSPE_RIG_H
#define TEST_VSPE_RIG_H

#include <stdlib.h>
#include <string.h>

#include "memplat.h"
#include "perfvisor/perfvisor.h"

#define RIG_CPUS 2
#define RIG_VCPUS 2
#define RIG_RAM UINT64_C(0x40000000)
#define RIG_RAM_SIZE (UINT64_C(80) << 20)
#define RIG_TABLES (RIG_RAM + (UINT64_C(72) << 20)) /* where table pages are taken from */

struct spe_hw_desc {
	unsigned version;  /* PMSVer */
	unsigned align;    /* PMBIDR_EL1.Align */
	unsigned max_size; /* PMSIDR_EL1.MaxSize */
	bool fgt, owned_by_el3, no_16k, no_64k, count16, ernd;
	/* PMSIDR_EL1 without EFT and FDS (the views of a VM and the hardware can agree: direct
	 * sampling controls), and the hypervisor applying the fine-grained words
	 * (pv_hw.fgt_words). */
	bool no_eft_fds, fgt_words;
};

struct spe_rig {
	struct memplat_cpu mc[RIG_CPUS];
	struct memplat_vcpu mv[RIG_VCPUS];
	struct memplat_mem mem;
	struct pv_pcpu cpu[RIG_CPUS];
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu v[RIG_VCPUS];
	struct pv_vspe_pin *pins[RIG_VCPUS];
	uint64_t next_table;
	uint64_t pin_chunk; /* the VM's pv_spe_config.pin_chunk (0: vspe's default) */
};

static inline void rig_set_field(struct memplat_cpu *c, uint32_t reg, uint64_t mask,
				 unsigned val)
{
	uint64_t *p = memplat_reg(c, reg);
	*p = (*p & ~mask) | PV_FIELD_PREP(mask, val);
}

/* A fresh rig: memory, every pCPU filled, probed on pCPU 0 and set up. */
static inline struct spe_rig *spe_rig_new(const struct spe_hw_desc *d)
{
	struct spe_rig *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->mem = (struct memplat_mem){
		.base = RIG_RAM, .size = RIG_RAM_SIZE, .pa_offset = UINT64_C(0x100000000)};
	r->mem.bytes = calloc(RIG_RAM_SIZE, 1);
	r->mem.pins = calloc(RIG_RAM_SIZE / 4096, sizeof(uint32_t));
	if (!r->mem.bytes || !r->mem.pins)
		abort();
	r->next_table = RIG_TABLES;
	for (unsigned i = 0; i < RIG_CPUS; i++) {
		struct memplat_cpu *c = &r->mc[i];
		memplat_init(c, 6);
		rig_set_field(c, PV_ID_AA64DFR0_EL1, PV_ID_AA64DFR0_PMSVER, d->version);
		/* PARange 48 bits; TGran4 0, TGran16 1 (or 0), TGran64 0 (or 0xF). */
		*memplat_reg(c, PV_ID_AA64MMFR0_EL1) = 5 | (d->no_16k ? 0 : UINT64_C(1) << 20) |
						       (d->no_64k ? UINT64_C(0xF) << 24 : 0) |
						       PV_FIELD_PREP(PV_ID_AA64MMFR0_FGT,
								     (uint64_t)d->fgt);
		*memplat_reg(c, PV_PMBIDR_EL1) = d->align | PV_PMBIDR_F | UINT64_C(1) << 8 |
						 (d->owned_by_el3 ? PV_PMBIDR_P : 0);
		*memplat_reg(c, PV_PMSIDR_EL1) =
			PV_PMSIDR_FE | PV_PMSIDR_FT | PV_PMSIDR_FL | PV_PMSIDR_LDS |
			(d->ernd ? PV_PMSIDR_ERND : 0) |
			(d->version >= PV_SPE_V1P2 ? PV_PMSIDR_FNE : 0) |
			(d->no_eft_fds ? 0 : PV_PMSIDR_EFT | PV_PMSIDR_FDS) |
			PV_FIELD_PREP(PV_PMSIDR_INTERVAL, 2) |
			PV_FIELD_PREP(PV_PMSIDR_MAXSIZE, d->max_size) |
			PV_FIELD_PREP(PV_PMSIDR_COUNTSIZE, d->count16 ? 3 : 2);
		c->reads = c->writes = 0;
		pv_pcpu_init(&r->cpu[i], c);
	}
	if (pv_hw_probe(&r->hw, &r->cpu[0], 0))
		abort();
	r->hw.fgt_words = d->fgt_words; /* the hypervisor's to say, after the probe */
	for (unsigned i = 0; i < RIG_CPUS; i++)
		pv_pcpu_setup(&r->cpu[i], &r->hw);
	return r;
}

static inline void spe_rig_free(struct spe_rig *r)
{
	for (unsigned i = 0; i < RIG_VCPUS; i++)
		free(r->pins[i]);
	free(r->mem.bytes);
	free(r->mem.pins);
	free(r);
}

/* A VM with `features` (PV_FEAT_SPE or 0), its vCPUs, their pin stores and memory. */
static inline int spe_rig_vm(struct spe_rig *r, uint32_t features, unsigned version,
			     uint64_t max_buffer)
{
	struct pv_vm_config cfg = {.features = features,
				   .spe = {.version = (uint8_t)version,
					   .max_buffer = max_buffer,
					   .pin_chunk = r->pin_chunk}};
	int err = pv_vm_init(&r->vm, &r->hw, &cfg);
	if (err)
		return err;
	for (unsigned i = 0; i < RIG_VCPUS; i++) {
		r->mv[i] = (struct memplat_vcpu){.mem = &r->mem};
		pv_vcpu_init(&r->v[i], &r->vm, i, &r->mv[i]);
		uint32_t n = r->vm.spe.version ? PV_VSPE_PIN_SLOTS(r->vm.spe.max_buffer) : 0;
		free(r->pins[i]);
		r->pins[i] = n ? calloc(n, sizeof(struct pv_vspe_pin)) : NULL;
		pv_vspe_vcpu_pins(&r->v[i], r->pins[i], n);
	}
	return PV_OK;
}

/* ---- the guest's stage 1 --------------------------------------------------------------------- */

static inline uint64_t *rig_ipa(struct spe_rig *r, uint64_t ipa)
{
	return (uint64_t *)(r->mem.bytes + (ipa - RIG_RAM));
}

static inline uint64_t rig_new_table(struct spe_rig *r, unsigned g)
{
	uint64_t t = r->next_table;
	r->next_table += UINT64_C(1) << g;
	return t;
}

/* Tables of a granule (12, 14, 16) for `va_bits`-bit VAs: where `va`'s entry at `level` is,
 * making tables on the way. The start level is the one whose index takes the leftover bits. */
static inline uint64_t rig_entry(struct spe_rig *r, uint64_t root, unsigned g, unsigned va_bits,
				 uint64_t va, unsigned level)
{
	unsigned per = g - 3;
	unsigned top = 3 - (va_bits - g - 1) / per; /* start level */
	uint64_t table = root;
	for (unsigned l = top;; l++) {
		unsigned bits = l == top ? va_bits - g - per * (3 - top) : per;
		uint64_t at = table +
			      (va >> (g + per * (3 - l)) & ((UINT64_C(1) << bits) - 1)) * 8;
		if (l == level)
			return at;
		uint64_t *d = rig_ipa(r, at);
		if ((*d & 3) != 3)
			*d = rig_new_table(r, g) | 3;
		table = *d & PV_GENMASK(47, g);
	}
}

/* Page (level 3) or, with block_level 1/2, block descriptors: AF, Inner Shareable, `extra`. */
static inline void rig_map(struct spe_rig *r, uint64_t root, unsigned g, unsigned va_bits,
			   uint64_t va, uint64_t ipa, uint64_t size, unsigned level,
			   uint64_t extra)
{
	uint64_t step = UINT64_C(1) << (g + (g - 3) * (3 - level));
	for (uint64_t off = 0; off < size; off += step)
		*rig_ipa(r, rig_entry(r, root, g, va_bits, va + off,
				      level)) = (ipa + off) | (level == 3 ? 3 : 1) |
						PV_BIT(10) | UINT64_C(3) << 8 | extra;
}

/* The vCPU's EL1 translation registers (memplat cells of pCPU `c`): MMU on, TTBR0/1, a TCR
 * with the same granule and size in both halves, 48-bit IPS, TBI as asked. */
static inline void rig_regime(struct spe_rig *r, unsigned c, uint64_t root0, uint64_t root1,
			      unsigned g, unsigned va_bits, bool tbi)
{
	uint64_t tsz = 64 - va_bits, tg0 = g == 12 ? 0 : g == 16 ? 1 : 2;
	uint64_t tg1 = g == 12 ? 2 : g == 16 ? 3 : 1;
	*memplat_reg(&r->mc[c], PV_SCTLR_EL1) = PV_SCTLR_M;
	*memplat_reg(&r->mc[c], PV_TTBR0_EL1) = root0;
	*memplat_reg(&r->mc[c], PV_TTBR1_EL1) = root1;
	*memplat_reg(&r->mc[c], PV_TCR_EL1) = tsz | tg0 << 14 | tsz << 16 | tg1 << 30 |
					      UINT64_C(5) << 32 |
					      (tbi ? PV_BIT(37) | PV_BIT(38) : 0);
}

static inline uint64_t rig_pinned(struct spe_rig *r)
{
	return memplat_pinned_pages(&r->mem);
}

static inline uint64_t rig_pin_count(struct spe_rig *r, uint64_t ipa)
{
	return r->mem.pins[(ipa - RIG_RAM) / 4096];
}

#endif
