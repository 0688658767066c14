/* SPDX-License-Identifier: MIT */
/*
 * Physical memory, the VMSAv8-64 table walk (Arm ARM D8.2, with the descriptors of D8.3) as the
 * pseudocode performs it level by level, and the guest stage-1 table builder.
 */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "perfvisor/sysreg.h"

int sim_mem_init(struct sim_mem *m, uint64_t base, uint64_t bytes)
{
	memset(m, 0, sizeof(*m));
	m->base = base;
	m->frames = bytes / SIM_PAGE;
	m->data = calloc(m->frames ? m->frames : 1, sizeof(*m->data));
	m->owner = calloc(m->frames ? m->frames : 1, sizeof(*m->owner));
	return m->data && m->owner ? 0 : -1;
}

void sim_mem_fini(struct sim_mem *m)
{
	if (m->data)
		for (uint64_t i = 0; i < m->frames; i++)
			free(m->data[i]);
	free(m->data);
	free(m->owner);
	memset(m, 0, sizeof(*m));
}

uint64_t sim_mem_alloc(struct sim_mem *m, unsigned owner)
{
	if (m->next >= m->frames)
		return 0;
	uint8_t *p = calloc(1, SIM_PAGE);
	if (!p)
		return 0;
	uint64_t f = m->next++;
	m->data[f] = p;
	m->owner[f] = (uint16_t)owner;
	m->used++;
	return m->base + f * SIM_PAGE;
}

static uint8_t *frame(const struct sim_mem *m, uint64_t pa)
{
	if (pa < m->base || (pa - m->base) / SIM_PAGE >= m->frames)
		return NULL;
	return m->data[(pa - m->base) / SIM_PAGE];
}

unsigned sim_mem_owner(const struct sim_mem *m, uint64_t pa)
{
	if (!frame(m, pa))
		return SIM_OWNER_FREE;
	return m->owner[(pa - m->base) / SIM_PAGE];
}

bool sim_mem_read(const struct sim_mem *m, uint64_t pa, void *buf, size_t n)
{
	uint8_t *out = buf;
	while (n) {
		uint8_t *f = frame(m, pa);
		if (!f)
			return false;
		size_t off = pa % SIM_PAGE, k = SIM_PAGE - off < n ? SIM_PAGE - off : n;
		memcpy(out, f + off, k);
		out += k;
		pa += k;
		n -= k;
	}
	return true;
}

bool sim_mem_write(struct sim_mem *m, uint64_t pa, const void *buf, size_t n)
{
	const uint8_t *in = buf;
	while (n) {
		uint8_t *f = frame(m, pa);
		if (!f)
			return false;
		size_t off = pa % SIM_PAGE, k = SIM_PAGE - off < n ? SIM_PAGE - off : n;
		memcpy(f + off, in, k);
		in += k;
		pa += k;
		n -= k;
	}
	return true;
}

uint64_t sim_mem_digest(const struct sim_mem *m, unsigned owner)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);
	for (uint64_t i = 0; i < m->frames; i++) {
		if (!m->data[i] || m->owner[i] != owner)
			continue;
		for (unsigned b = 0; b < SIM_PAGE; b++)
			h = (h ^ m->data[i][b]) * UINT64_C(0x100000001B3);
	}
	return h;
}

/* ---- the walk ------------------------------------------------------------------------------ */

static bool fault(struct sim_fault *f, enum sim_fault_kind kind, unsigned level)
{
	f->kind = (uint8_t)kind;
	f->level = (uint8_t)level;
	return false;
}

/* Number of levels and the index bits of the first (D8.2.8 to D8.2.10, one per granule). */
static unsigned start_level(const struct sim_walk *w, unsigned *first_bits)
{
	unsigned stride = w->granule - 3;
	unsigned levels = (w->in_bits - w->granule + stride - 1) / stride;
	*first_bits = w->in_bits - w->granule - stride * (levels - 1);
	return 4 - levels;
}

bool sim_walk(const struct sim_walk *w, uint64_t in, bool write, bool hw_flags, uint64_t *out,
	      uint64_t *block, struct sim_fault *f)
{
	memset(f, 0, sizeof(*f));
	f->stage2 = w->stage2;
	f->ipa = in;
	unsigned stride = w->granule - 3, first_bits;
	unsigned start = start_level(w, &first_bits), level = start;
	uint64_t table = w->root;
	bool no_write = false; /* APTable[1] seen on the way down */
	for (;;) {
		unsigned bits = level == start ? first_bits : stride;
		unsigned shift = w->granule + stride * (3 - level);
		uint64_t addr = table + (in >> shift & ((UINT64_C(1) << bits) - 1)) * 8, d;
		if (!w->read(w->ctx, addr, &d, f)) {
			if (!f->stage2)
				fault(f, SIM_FAULT_EXTERNAL, level);
			f->on_walk = !w->stage2;
			return false;
		}
		unsigned type = (unsigned)(d & 3);
		bool blocks = level == 2 || (w->granule == 12 && level == 1);
		if (!(type & 1) || (level == 3 && type != 3) ||
		    (level < 3 && type == 1 && !blocks))
			return fault(f, SIM_FAULT_TRANSLATION, level);
		bool leaf = level == 3 || type == 1;
		uint64_t oa = d & PV_GENMASK(47, leaf ? shift : w->granule);
		if (oa >> w->out_bits)
			return fault(f, SIM_FAULT_ADDR_SIZE, level);
		if (!leaf) {
			if (!w->stage2 && !w->hpd && (d >> 62 & 1))
				no_write = true;
			table = oa;
			level++;
			continue;
		}
		/* Access flag: a fault unless hardware management is on (TCR_EL1.HA for stage 1;
		 * the model's stage 2 never leaves AF clear). */
		if (!(d & PV_BIT(10))) {
			if (w->stage2 || !(hw_flags && w->ha) || !w->write)
				return fault(f, SIM_FAULT_ACCESS, level);
			d |= PV_BIT(10);
			w->write(w->ctx, addr, d);
		}
		if (write) {
			bool ok;
			if (w->stage2) {
				ok = d & PV_BIT(7); /* S2AP[1]: write */
			} else if (
				d &
				PV_BIT(7)) { /* AP[2]: read-only, unless dirty-state managed */
				ok = hw_flags && w->hd && (d & PV_BIT(51)) && w->write;
				if (ok) {
					d &= ~PV_BIT(7);
					w->write(w->ctx, addr, d);
				}
			} else {
				ok = true;
			}
			if (!ok || no_write)
				return fault(f, SIM_FAULT_PERMISSION, level);
		}
		*block = UINT64_C(1) << shift;
		*out = oa | (in & (*block - 1));
		return true;
	}
}

bool sim_s1_params(uint64_t tcr, uint64_t ttbr0, uint64_t ttbr1, uint64_t va, unsigned pa_bits,
		   unsigned tgran, struct sim_walk *w)
{
	static const uint8_t tg0[4] = {12, 16, 14, 0}, tg1[4] = {0, 14, 12, 16};
	static const uint8_t ips[8] = {32, 36, 40, 42, 44, 48, 48, 48};
	unsigned hi = (unsigned)(va >> 55 & 1);
	unsigned tsz = (unsigned)(hi ? PV_FIELD_GET(PV_TCR_T1SZ, tcr)
				     : PV_FIELD_GET(PV_TCR_T0SZ, tcr));
	unsigned g = hi ? tg1[PV_FIELD_GET(PV_TCR_TG1, tcr)]
			: tg0[PV_FIELD_GET(PV_TCR_TG0, tcr)];
	unsigned bit = g == 12 ? 1 : g == 14 ? 2 : g == 16 ? 4 : 0;
	if (!(tgran & bit)) /* unimplemented or reserved: the smallest implemented granule */
		g = (tgran & 1) ? 12 : (tgran & 2) ? 14 : 16;
	tsz = tsz < 16 ? 16 : tsz > 39 ? 39 : tsz;
	bool tbi = tcr >> (hi ? 38 : 37) & 1, epd = tcr >> (hi ? 23 : 7) & 1;
	unsigned o = ips[PV_FIELD_GET(PV_TCR_IPS, tcr)];
	*w = (struct sim_walk){
		.granule = g,
		.in_bits = 64 - tsz,
		.out_bits = o < pa_bits ? o : pa_bits,
		.ha = tcr >> 39 & 1,
		.hd = tcr >> 40 & 1,
		.hpd = tcr >> (hi ? 42 : 41) & 1,
	};
	unsigned stride = g - 3, first;
	unsigned levels = (w->in_bits - g + stride - 1) / stride;
	first = w->in_bits - g - stride * (levels - 1);
	uint64_t size = UINT64_C(8) << first;
	w->root = (hi ? ttbr1 : ttbr0) & PV_GENMASK(47, 1) & ~((size < 64 ? 64 : size) - 1);
	uint64_t range = PV_GENMASK(tbi ? 55 : 63, w->in_bits);
	return !epd && (va & range) == (hi ? range : 0);
}

/* ---- the guest's stage-1 tables --------------------------------------------------------------- */

static uint64_t table_alloc(struct sim_s1 *t)
{
	uint64_t size = UINT64_C(1) << t->granule;
	if (t->pool + size > t->pool_end)
		return 0;
	uint64_t ipa = t->pool;
	t->pool += size;
	for (uint64_t off = 0; off < size; off += 8)
		if (!t->write(t->ctx, ipa + off, 0))
			return 0;
	t->tables++;
	return ipa;
}

bool sim_s1_init(struct sim_s1 *t, unsigned granule, unsigned va_bits, uint64_t pool,
		 uint64_t pool_size, sim_ipa_read_fn *read, sim_ipa_write_fn *write, void *ctx)
{
	*t = (struct sim_s1){.granule = granule,
			     .va_bits = va_bits,
			     .pool = pool,
			     .pool_end = pool + pool_size,
			     .read = read,
			     .write = write,
			     .ctx = ctx};
	t->root[0] = table_alloc(t);
	t->root[1] = table_alloc(t);
	return t->root[0] && t->root[1];
}

/* The entry of `va` at `level`, allocating tables down to it; 0 (no address) if out of pool. */
static uint64_t entry(struct sim_s1 *t, uint64_t va, unsigned level, bool wp)
{
	struct sim_walk w = {.granule = t->granule, .in_bits = t->va_bits};
	unsigned stride = t->granule - 3, first;
	unsigned start = start_level(&w, &first);
	uint64_t table = t->root[va >> 55 & 1];
	for (unsigned l = start;; l++) {
		unsigned bits = l == start ? first : stride;
		unsigned shift = t->granule + stride * (3 - l);
		uint64_t addr = table + (va >> shift & ((UINT64_C(1) << bits) - 1)) * 8, d;
		if (l == level)
			return addr;
		if (!t->read(t->ctx, addr, &d))
			return 0;
		if ((d & 3) != 3) {
			uint64_t next = table_alloc(t);
			if (!next)
				return 0;
			d = next | 3;
		}
		if (wp)
			d |= PV_BIT(62);
		t->write(t->ctx, addr, d);
		table = d & PV_GENMASK(47, t->granule);
	}
}

bool sim_s1_map(struct sim_s1 *t, uint64_t va, uint64_t ipa, uint64_t size, unsigned attrs)
{
	unsigned stride = t->granule - 3;
	uint64_t page = UINT64_C(1) << t->granule;
	while (size) {
		unsigned level = 3;
		uint64_t span = page;
		/* Level-2 blocks (and level-1 with 4K) where the range allows. */
		for (unsigned l = 1; l <= 2 && (attrs & SIM_S1_BLOCK); l++) {
			uint64_t b = UINT64_C(1) << (t->granule + stride * (3 - l));
			if ((l == 2 || t->granule == 12) && !(va & (b - 1)) &&
			    !(ipa & (b - 1)) && size >= b) {
				level = l;
				span = b;
				break;
			}
		}
		uint64_t addr = entry(t, va, level, attrs & SIM_S1_WP);
		if (!addr)
			return false;
		uint64_t d = ipa | (level == 3 ? 3 : 1) | PV_BIT(11) /* nG */ |
			     3u << 8 /* ISH */ | (attrs & SIM_S1_NOAF ? 0 : PV_BIT(10)) |
			     (attrs & SIM_S1_RO ? PV_BIT(7) : 0) |
			     (attrs & SIM_S1_DBM ? PV_BIT(51) : 0);
		if (!t->write(t->ctx, addr, d))
			return false;
		va += span;
		ipa += span;
		size = size > span ? size - span : 0;
	}
	return true;
}

void sim_s1_unmap(struct sim_s1 *t, uint64_t va, uint64_t size)
{
	uint64_t page = UINT64_C(1) << t->granule;
	for (uint64_t off = 0; off < size; off += page) {
		uint64_t addr = entry(t, va + off, 3, false);
		if (addr)
			t->write(t->ctx, addr, 0);
	}
}

uint64_t sim_s1_tcr(const struct sim_s1 *t, bool tbi, bool ha, bool hd)
{
	uint64_t tsz = 64 - t->va_bits;
	uint64_t tg0 = t->granule == 12 ? 0 : t->granule == 16 ? 1 : 2;
	uint64_t tg1 = t->granule == 12 ? 2 : t->granule == 16 ? 3 : 1;
	return tsz | tg0 << 14 | tsz << 16 | tg1 << 30 | UINT64_C(5) << 32 /* IPS 48 bits */ |
	       (tbi ? PV_BIT(37) | PV_BIT(38) : 0) | (ha ? PV_BIT(39) : 0) |
	       (hd ? PV_BIT(40) : 0);
}

uint64_t sim_s1_ttbr(const struct sim_s1 *t, unsigned half)
{
	return t->root[half & 1];
}
