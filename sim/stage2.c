/* SPDX-License-Identifier: MIT */
/*
 * A VM's stage 2: tables, demand paging, pins, reclaim. Stage-2 page descriptors (Arm ARM D8.3):
 * OA | AF | SH = Inner Shareable | S2AP = read/write | MemAttr = Normal Write-Back | page.
 */
#include "stage2.h"

#include <stdlib.h>
#include <string.h>

#include "perfvisor/sysreg.h"

#define S2_PAGE_ATTRS                                                                          \
	(PV_BIT(10) | UINT64_C(3) << 8 | UINT64_C(3) << 6 | UINT64_C(0xF) << 2 | 3)
#define S2_BITS 48

int sim_s2_init(struct sim_s2 *s, struct sim_mem *mem, unsigned owner, uint64_t ram_ipa,
		uint64_t ram_size)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
	s->owner = owner;
	s->ram_ipa = ram_ipa;
	s->ram_size = ram_size / SIM_PAGE * SIM_PAGE;
	uint64_t pages = s->ram_size / SIM_PAGE;
	s->frame = calloc(pages ? pages : 1, sizeof(*s->frame));
	s->pins = calloc(pages ? pages : 1, sizeof(*s->pins));
	s->root = sim_mem_alloc(mem, SIM_OWNER_HYP);
	return s->frame && s->pins && s->root ? 0 : -1;
}

void sim_s2_fini(struct sim_s2 *s)
{
	free(s->frame);
	free(s->pins);
	memset(s, 0, sizeof(*s));
}

bool sim_s2_is_ram(const struct sim_s2 *s, uint64_t ipa)
{
	return ipa >= s->ram_ipa && ipa - s->ram_ipa < s->ram_size;
}

static bool read_pa(void *ctx, uint64_t pa, uint64_t *d, struct sim_fault *f)
{
	(void)f;
	return sim_mem_read(ctx, pa, d, 8);
}

bool sim_s2_translate(const struct sim_s2 *s, uint64_t ipa, bool write, uint64_t *pa,
		      struct sim_fault *f)
{
	struct sim_walk w = {.granule = 12,
			     .in_bits = S2_BITS,
			     .out_bits = S2_BITS,
			     .root = s->root,
			     .stage2 = true,
			     .read = read_pa,
			     .ctx = s->mem};
	uint64_t block;
	bool ok = sim_walk(&w, ipa, write, false, pa, &block, f);
	f->stage2 = true;
	f->ipa = ipa;
	return ok;
}

/* The level-3 entry of `ipa`, allocating tables (hypervisor frames) on the way; 0 if out of
 * memory. */
static uint64_t leaf_entry(struct sim_s2 *s, uint64_t ipa)
{
	uint64_t table = s->root;
	for (unsigned level = 0;; level++) {
		uint64_t addr = table + (ipa >> (12 + 9 * (3 - level)) & 0x1FF) * 8, d;
		if (level == 3)
			return addr;
		sim_mem_read(s->mem, addr, &d, 8);
		if ((d & 3) != 3) {
			uint64_t t = sim_mem_alloc(s->mem, SIM_OWNER_HYP);
			if (!t)
				return 0;
			d = t | 3;
			sim_mem_write(s->mem, addr, &d, 8);
		}
		table = d & PV_GENMASK(47, 12);
	}
}

static bool map_page(struct sim_s2 *s, uint64_t ipa, uint64_t *pa)
{
	uint64_t page = (ipa - s->ram_ipa) / SIM_PAGE;
	if (!s->frame[page]) {
		s->frame[page] = sim_mem_alloc(s->mem, s->owner);
		if (!s->frame[page])
			return false;
	}
	uint64_t addr = leaf_entry(s, ipa & ~(uint64_t)(SIM_PAGE - 1)), d;
	if (!addr)
		return false;
	sim_mem_read(s->mem, addr, &d, 8);
	if (!(d & 1)) {
		d = s->frame[page] | S2_PAGE_ATTRS;
		sim_mem_write(s->mem, addr, &d, 8);
	}
	*pa = s->frame[page] | (ipa & (SIM_PAGE - 1));
	return true;
}

static void unmap_page(struct sim_s2 *s, uint64_t ipa)
{
	uint64_t addr = leaf_entry(s, ipa & ~(uint64_t)(SIM_PAGE - 1)), zero = 0;
	if (addr)
		sim_mem_write(s->mem, addr, &zero, 8);
}

bool sim_s2_fault_in(struct sim_s2 *s, uint64_t ipa, uint64_t *pa)
{
	struct sim_fault f;
	if (sim_s2_translate(s, ipa, true, pa, &f))
		return true;
	if (!sim_s2_is_ram(s, ipa))
		return false;
	s->stats.faults_in++;
	return map_page(s, ipa, pa);
}

static bool access(struct sim_s2 *s, uint64_t ipa, uint8_t *buf, uint64_t n, bool write)
{
	while (n) {
		uint64_t pa, k = SIM_PAGE - (ipa & (SIM_PAGE - 1));
		k = k < n ? k : n;
		if (!sim_s2_fault_in(s, ipa, &pa))
			return false;
		if (!(write ? sim_mem_write(s->mem, pa, buf, k)
			    : sim_mem_read(s->mem, pa, buf, k)))
			return false;
		buf += k;
		ipa += k;
		n -= k;
	}
	return true;
}

bool sim_s2_read(struct sim_s2 *s, uint64_t ipa, void *buf, uint64_t n)
{
	return access(s, ipa, buf, n, false);
}

bool sim_s2_write(struct sim_s2 *s, uint64_t ipa, const void *buf, uint64_t n)
{
	/* access() reads buf when it writes guest memory; it takes one pointer for both ways. */
	/* NOLINTNEXTLINE(performance-no-int-to-ptr) */
	return access(s, ipa, (uint8_t *)(uintptr_t)buf, n, true);
}

bool sim_s2_pin(struct sim_s2 *s, uint64_t ipa, uint64_t size)
{
	if (!size || (ipa | size) & (SIM_PAGE - 1) || !sim_s2_is_ram(s, ipa) ||
	    !sim_s2_is_ram(s, ipa + size - 1)) {
		s->stats.refused++;
		return false;
	}
	s->stats.pin_calls++;
	for (uint64_t off = 0; off < size; off += SIM_PAGE) {
		uint64_t pa;
		if (!map_page(s, ipa + off, &pa))
			return false; /* out of machine RAM: a configuration error of the test */
		s->pins[(ipa + off - s->ram_ipa) / SIM_PAGE]++;
	}
	return true;
}

void sim_s2_unpin(struct sim_s2 *s, uint64_t ipa, uint64_t size)
{
	s->stats.unpin_calls++;
	for (uint64_t off = 0; off < size; off += SIM_PAGE) {
		if (!sim_s2_is_ram(s, ipa + off)) {
			s->stats.bad_unpins++;
			continue;
		}
		uint32_t *p = &s->pins[(ipa + off - s->ram_ipa) / SIM_PAGE];
		if (*p)
			(*p)--;
		else
			s->stats.bad_unpins++;
	}
}

uint64_t sim_s2_pinned_pages(const struct sim_s2 *s)
{
	uint64_t n = 0;
	for (uint64_t p = 0; p < s->ram_size / SIM_PAGE; p++)
		n += s->pins[p] != 0;
	return n;
}

uint64_t sim_s2_mapped_pages(const struct sim_s2 *s)
{
	uint64_t n = 0, pa;
	struct sim_fault f;
	for (uint64_t p = 0; p < s->ram_size / SIM_PAGE; p++)
		n += s->frame[p] &&
		     sim_s2_translate(s, s->ram_ipa + p * SIM_PAGE, false, &pa, &f);
	return n;
}

uint64_t sim_s2_reclaim(struct sim_s2 *s)
{
	uint64_t n = 0, pa;
	struct sim_fault f;
	for (uint64_t p = 0; p < s->ram_size / SIM_PAGE; p++) {
		uint64_t ipa = s->ram_ipa + p * SIM_PAGE;
		if (s->pins[p] || !s->frame[p] || !sim_s2_translate(s, ipa, false, &pa, &f))
			continue;
		unmap_page(s, ipa);
		n++;
	}
	s->stats.reclaimed += n;
	return n;
}

void sim_s2_unmap(struct sim_s2 *s, uint64_t ipa)
{
	if (!sim_s2_is_ram(s, ipa))
		return;
	if (s->pins[(ipa - s->ram_ipa) / SIM_PAGE])
		s->stats.forced++;
	unmap_page(s, ipa);
}
