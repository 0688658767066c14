/* SPDX-License-Identifier: MIT */
/*
 * Pinning the guest's profiling buffer in stage 2, run by run: the pin store of a vCPU, the
 * runs the stage-1 walk (walk.c) finds, and unpinning, the hardware's buffer stopped first.
 * Called by walk.c and buffer.c, calling neither.
 */
#include "internal.h"

static bool store(struct pv_vcpu *v, uint64_t ipa, uint64_t size)
{
	struct pv_vspe *s = &v->spe;
	if (s->npins == s->max_pins)
		return false;
	if (!pv_plat_s2_pin(v, ipa, size))
		return false;
	s->pins[s->npins++] = (struct pv_vspe_pin){.ipa = ipa, .size = size};
	s->pinned_bytes += size;
	s->stats.pin_calls++;
	return true;
}

static bool stored(const struct pv_vspe *s, uint64_t ipa)
{
	for (uint32_t i = 0; i < s->npins; i++)
		if (ipa - s->pins[i].ipa < s->pins[i].size)
			return true;
	return false;
}

/* Repair: map every page of the run again; record only those the store lacks. */
static void refresh(struct vspe_pinner *p, struct vspe_run *run)
{
	for (uint64_t off = 0; off < run->size && !p->failed; off += PV_SPE_PAGE) {
		uint64_t ipa = run->ipa + off;
		if (!stored(&p->v->spe, ipa)) {
			p->failed = !store(p->v, ipa, PV_SPE_PAGE);
		} else if (pv_plat_s2_pin(p->v, ipa, PV_SPE_PAGE)) {
			pv_plat_s2_unpin(p->v, ipa, PV_SPE_PAGE); /* the stored pin keeps it */
		} else {
			p->failed = true;
		}
	}
	run->size = 0;
}

/* After a failed run: the first page left unpinned, or pinned without a table its walk
 * reads (which the hardware's walk would fault on): where the failed leaf run stopped, the
 * leaves still pending, or the page whose walk read the first table not stored. */
static uint64_t first_unpinned(const struct vspe_pinner *p, const struct vspe_run *run,
			       uint64_t off)
{
	uint64_t va = ~UINT64_C(0);
	if (p->leaf.size)
		va = p->leaf.va + (run == &p->leaf ? off : 0);
	if (p->table.size && p->table.va < va)
		va = p->table.va;
	return va;
}

static void flush(struct vspe_pinner *p, struct vspe_run *run)
{
	if (!run->size || p->failed)
		return;
	if (p->refresh) {
		refresh(p, run);
		return;
	}
	if (!store(p->v, run->ipa, run->size)) {
		/* All or nothing refused: pin page by page up to the one that cannot be. */
		uint64_t off = 0;
		if (run == &p->leaf)
			while (off < run->size && store(p->v, run->ipa + off, PV_SPE_PAGE))
				off += PV_SPE_PAGE;
		p->failed = true;
		p->fail_va = first_unpinned(p, run, off);
	}
	run->size = 0;
}

/* Leaf runs grow while both VA and IPA are contiguous (fail_va stays exact); table runs while
 * the IPA is. */
void pv_vspe__pinner_add(struct vspe_pinner *p, struct vspe_run *run, uint64_t ipa,
			 uint64_t size, uint64_t va)
{
	if (p->failed)
		return;
	if (run->size && run->ipa + run->size == ipa &&
	    (run == &p->table || run->va + run->size == va)) {
		run->size += size;
		return;
	}
	flush(p, run);
	run->ipa = ipa;
	run->size = size;
	run->va = va;
}

void pv_vspe__pinner_flush(struct vspe_pinner *p)
{
	flush(p, &p->table);
	flush(p, &p->leaf);
}

/* The hardware stops writing the guest's buffer before a page of it is unpinned, so that
 * nothing lands in a page the host may then free: PSB CSYNC then DSB completes the writes of
 * every record already sampled (D17.9), PMBLIMITR_EL1.E = 0 keeps any later one out
 * (ProfilingBufferEnabled(), D17.7). EL2 is never sampled for a guest, and its next sampled
 * operation follows the exception return, a Context synchronization event. */
static void hw_off(struct pv_vcpu *v)
{
	struct pv_pcpu *cpu = v->cpu;
	if (!cpu || !v->spe.hw_on)
		return;
	pv_plat_psb_csync(cpu);
	pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1, 0);
	v->spe.hw_on = false;
}

void pv_vspe__unpin_all(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	hw_off(v);
	for (uint32_t i = 0; i < s->npins; i++) {
		pv_plat_s2_unpin(v, s->pins[i].ipa, s->pins[i].size);
		s->stats.unpin_calls++;
	}
	s->npins = 0;
	s->pinned_bytes = 0;
	s->ready = false;
	pv_vspe__tables_forget(s);
}
