/* SPDX-License-Identifier: MIT */
/*
 * The guest's profiling buffer: the checks made when it becomes enabled (Arm ARM D17.7.4,
 * restrictions on the current write pointer; PMBIDR_EL1.MaxBuffSize), the walk of its pages and
 * their pinning in stage 2, the buffer management events (PMBSR_EL1, D24.7.5) the hardware raises
 * and their reflection to the guest, and the repair of stage-2 faults, which are never the
 * guest's.
 */
#include "internal.h"

#define PAGE_MASK ((uint64_t)PV_SPE_PAGE - 1)

void pv_vspe__line(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	bool level = (s->bsr & PV_PMBSR_S) !=
		     0; /* PMBIRQ follows PMBSR_EL1.S (PMSCR_EL1.EE 0) */
	if (level != s->line) {
		s->line = level;
		pv_plat_virq_set(v, PV_INTID_SPE, level);
	}
}

void pv_vspe__event(struct pv_vcpu *v, unsigned ec, uint64_t mss, uint64_t flags)
{
	struct pv_vspe *s = &v->spe;
	s->bsr = (s->bsr & PV_PMBSR_COLL) | PV_PMBSR_S | PV_FIELD_PREP(PV_PMBSR_EC, ec) |
		 (mss & PV_PMBSR_MSS) | (flags & (PV_PMBSR_DL | PV_PMBSR_EA));
	s->stats.events++;
	pv_vspe__line(v);
}

/* The end of the chunk that starts at `from`: one pin_chunk of pages on, or the guest's limit
 * (a multiple of 4 KiB, as PMBLIMITR_EL1.LIMIT is) if that comes first. */
static uint64_t chunk_end(const struct pv_vcpu *v, uint64_t from, uint64_t limit)
{
	uint64_t page = from & ~PAGE_MASK, chunk = v->vm->spe.pin_chunk;
	return limit - page <= chunk ? limit : page + chunk;
}

/* Walks [from, to) page by page and pins what the hardware will touch: every page up to the
 * first one the guest's stage 1 does not let it write (the hardware reports that fault itself,
 * as it would without a hypervisor, when its pointer gets there) and every table read that
 * the previous chunk's walk did not pin. Moves pin_hi to where the walk ended. */
static void pin_range(struct pv_vcpu *v, const struct vspe_regime *r, uint64_t from,
		      uint64_t to)
{
	struct pv_vspe *s = &v->spe;
	struct vspe_pinner p = {.v = v, .tables = s->tables};
	struct vspe_walker w;
	uint64_t va, end, hi;
	pv_vspe__walker_init(&w, v, r, &p);
	va = from & ~PAGE_MASK;
	end = (to + PAGE_MASK) & ~PAGE_MASK;
	hi = to;
	while (va < end && !p.failed) {
		struct vspe_xlate x;
		uint64_t n;
		pv_vspe__translate(&w, va, &x);
		if (x.fsc != VSPE_OK) {
			hi = va > from ? va : from;
			break;
		}
		n = x.span < end - va ? x.span : end - va;
		pv_vspe__pinner_add(&p, &p.leaf, x.ipa, n, va);
		s->stats.pages_walked += n / PV_SPE_PAGE;
		va += n;
	}
	pv_vspe__pinner_flush(&p);
	if (p.failed && p.fail_va < hi)
		hi = p.fail_va > from ? p.fail_va : from;
	s->pin_hi = hi;
	s->pin_stop = hi < to;
}

/* The hardware's limit: the end of what is pinned while more of the guest's buffer is to be
 * pinned, so that the buffer-full event there is perfvisor's cue; else the guest's own, with
 * the rest of the buffer pinned or a fault the hardware is to meet and report. */
static void set_hw_limit(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	uint64_t limit = vspe_limit(s->limitr);
	s->hw_limit = s->pin_stop || s->pin_hi >= limit ? limit : s->pin_hi;
}

/* The next chunk after pin_hi, with the guest's stage 1 as it is now (the hardware translates
 * with it): one chunk of work, whatever the buffer's size. */
static void pin_next_chunk(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	struct vspe_regime r;
	pv_vspe__regime_read(v, &r);
	pin_range(v, &r, s->pin_hi, chunk_end(v, s->pin_hi, vspe_limit(s->limitr)));
	s->stats.chunks++;
	set_hw_limit(v);
}

static void reject(struct pv_vcpu *v, unsigned bsc)
{
	v->spe.stats.rejected++;
	pv_vspe__event(v, PV_PMBSR_EC_BUF, bsc, 0);
}

/* D17.7.4: PTR aligned to PMBIDR_EL1.Align, PTR <= LIMIT - 2^MaxSize, one top byte for PTR and
 * LIMIT; otherwise UNPREDICTABLE, and of the permitted behaviours perfvisor chooses a buffer
 * management event: "not stopped / access not allowed" for a bad pointer, "buffer filled" for
 * no room (SPEBufferIsFull()), "buffer size" above MaxBuffSize. True, with the event's BSC
 * (0 is one of them), when the buffer is refused. */
static bool buffer_refused(const struct pv_vcpu *v, uint64_t ptr, uint64_t limit, unsigned *bsc)
{
	const struct pv_vm_spe *c = &v->vm->spe;
	uint64_t rec = UINT64_C(1) << c->max_record;
	if ((ptr ^ limit) >> 56 || (ptr & ((UINT64_C(1) << c->align) - 1)))
		*bsc = PV_PMBSR_BSC_NOT_STOPPED;
	else if (limit < rec || ptr > limit - rec)
		*bsc = PV_PMBSR_BSC_FULL;
	else if (limit - ptr > c->max_buffer || !v->spe.pins)
		*bsc = PV_PMBSR_BSC_SIZE;
	else
		return false;
	return true;
}

static bool same_regime(const uint64_t *saved, const struct vspe_regime *r, uint64_t ptr)
{
	uint64_t ttbr = ptr >> 55 & 1 ? r->ttbr1 : r->ttbr0;
	return saved[0] == ttbr && saved[2] == r->tcr && saved[3] == r->sctlr;
}

/* The guest's buffer is enabled and not in discard mode: make sure it is checked and that
 * the chunk its pointer is in is pinned. */
static void enable(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	struct vspe_regime r;
	uint64_t ptr, limit;
	uint64_t rec;
	unsigned bsc;
	bool bad;
	pv_vspe__regime_read(v, &r);
	ptr = s->ptr;
	limit = vspe_limit(s->limitr);
	rec = UINT64_C(1) << v->vm->spe.max_record;
	/* Checked on every enable, a restart of a buffer that is already pinned included. */
	bsc = 0;
	bad = buffer_refused(v, ptr, limit, &bsc);
	/* Already pinned up to the pointer: a pointer moved on within the same buffer (Linux
	 * after each fill). The pins stay, as long as they and the buffer span no more than
	 * max_buffer (what the pin store is sized for); a record must fit below the hardware's
	 * limit. */
	if (!bad && s->ready && same_regime(s->regime, &r, ptr) && ptr >= s->pin_lo &&
	    ptr <= s->pin_hi && limit - s->pin_lo <= v->vm->spe.max_buffer) {
		set_hw_limit(v);
		if (s->hw_limit < limit && ptr > s->hw_limit - rec)
			pin_next_chunk(v);
		return;
	}
	pv_vspe__unpin_all(v);
	if (bad) {
		reject(v, bsc);
	} else {
		s->pin_lo = ptr;
		pin_range(v, &r, ptr, chunk_end(v, ptr, limit));
		set_hw_limit(v);
		s->ready = true;
		s->stats.enables++;
	}
	s->regime[0] = ptr >> 55 & 1 ? r.ttbr1 : r.ttbr0;
	s->regime[1] = 0;
	s->regime[2] = r.tcr;
	s->regime[3] = r.sctlr;
}

static bool discard(const struct pv_vcpu *v)
{
	return v->vm->spe.version >= PV_SPE_V1P2 && vspe_discard(v->spe.limitr);
}

void pv_vspe__apply(struct pv_vcpu *v)
{
	struct pv_vspe *s = &v->spe;
	struct pv_pcpu *cpu = v->cpu;
	bool on;
	uint64_t fm;
	uint64_t limit;
	if (!(s->limitr & PV_PMBLIMITR_E)) {
		if (s->npins)
			pv_vspe__unpin_all(v);
		s->ready = s->need_pin = false;
	} else if (vspe_enabled(s) && !discard(v)) {
		s->need_pin = !cpu; /* the regime is readable only while loaded */
		if (cpu)
			enable(v);
	}
	if (!cpu)
		return;
	on = vspe_enabled(s) && (discard(v) || s->ready);
	fm = discard(v) ? PV_FIELD_PREP(PV_PMBLIMITR_FM, PV_PMBLIMITR_FM_DISCARD) : 0;
	pv_plat_sysreg_write(cpu, PV_PMBPTR_EL1, s->ptr);
	pv_plat_sysreg_write(cpu, PV_PMBSR_EL1, 0);
	limit = discard(v) ? vspe_limit(s->limitr) : s->hw_limit;
	pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1, on ? limit | fm | PV_PMBLIMITR_E : 0);
	s->hw_on = on;
}

/* ---- events the hardware raised ---------------------------------------------------------- */

/* A stage-2 fault on a buffer write (EC 0x25): the hypervisor's, never the guest's. Walk the
 * faulting page again and pin it and its tables; resume if nothing was lost. Returns true when
 * the hardware may resume. */
static bool repair(struct pv_vcpu *v, uint64_t hw_bsr)
{
	struct pv_vspe *s = &v->spe;
	struct vspe_pinner p;
	struct vspe_regime r;
	struct vspe_walker w;
	struct vspe_xlate x;
	uint64_t va, dl, pa;
	s->stats.s2_faults++;
	s->stats.records_lost++; /* the write that faulted: the rest of its record is dropped */
	va = s->ptr & ~PAGE_MASK;
	dl = hw_bsr & PV_PMBSR_DL;
	pv_vspe__regime_read(v, &r);
	p = (struct vspe_pinner){.v = v, .refresh = true};
	pv_vspe__walker_init(&w, v, &r, &p);
	pv_vspe__translate(&w, va, &x);
	if (x.fsc == VSPE_OK)
		pv_vspe__pinner_add(&p, &p.leaf, x.ipa, PV_SPE_PAGE, va);
	pv_vspe__pinner_flush(&p);
	if (x.fsc >= 0) /* the page is not the guest's either: its stage-1 fault, as reported
			   once stage 2 is right */
		pv_vspe__event(v, PV_PMBSR_EC_FAULT_S1, (uint64_t)x.fsc, dl);
	else if (x.fsc == VSPE_NOMEM || p.failed || !pv_plat_s2_translate(v, x.ipa, &pa))
		pv_vspe__event(v, PV_PMBSR_EC_IMPDEF, PV_PMBSR_IMPDEF_NO_MEMORY, dl);
	else if (dl) /* part of a record is in the buffer: the guest must know */
		pv_vspe__event(v, PV_PMBSR_EC_IMPDEF, PV_PMBSR_IMPDEF_S2_REPAIR_DL, dl);
	else {
		s->stats.s2_repaired++;
		return true;
	}
	return false;
}

void pv_vspe__sync(struct pv_vcpu *v, bool drained)
{
	struct pv_vspe *s = &v->spe;
	struct pv_pcpu *cpu = v->cpu;
	uint64_t bsr, ptr;
	bool stop = false;
	if (!cpu || !s->hw_on)
		return;
	if (!drained)
		pv_plat_psb_csync(cpu);
	bsr = pv_plat_sysreg_read(cpu, PV_PMBSR_EL1);
	ptr = pv_plat_sysreg_read(cpu, PV_PMBPTR_EL1);
	/* While the hardware runs, s->ptr is where it was started or last read: the pointer
	 * only moves on, by what was written. */
	if (ptr > s->ptr)
		s->stats.bytes += ptr - s->ptr;
	s->ptr = ptr;
	if (!(bsr & (PV_PMBSR_S | PV_PMBSR_COLL)))
		return;
	s->bsr |= bsr & PV_PMBSR_COLL; /* collisions accumulate in the guest's view */
	if (bsr & PV_PMBSR_S) {
		if (PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_FAULT_S2 &&
		    (bsr & PV_PMBSR_EA)) {
			/* An external abort is the guest's to see, whatever class the hardware
			 * reports it with (Linux's driver tests EA before the class); a stage-2
			 * syndrome never reaches the guest, so it becomes an "other buffer event". */
			s->bsr = (s->bsr & PV_PMBSR_COLL) |
				 (bsr & (PV_PMBSR_EA | PV_PMBSR_DL | PV_PMBSR_S));
			s->stats.events++;
			pv_vspe__line(v);
			stop = true;
		} else if (PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_FAULT_S2) {
			stop = !repair(v, bsr);
		} else if (PV_FIELD_GET(PV_PMBSR_EC, bsr) == PV_PMBSR_EC_BUF &&
			   PV_FIELD_GET(PV_PMBSR_BSC, bsr) == PV_PMBSR_BSC_FULL &&
			   s->hw_limit < vspe_limit(s->limitr) && !discard(v)) {
			/* Full at perfvisor's limit, not the guest's: pin on and resume. Every
			 * record so far was written whole (the event comes once one would not
			 * fit), so none is lost. */
			pin_next_chunk(v);
			pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1,
					     s->hw_limit | PV_PMBLIMITR_E);
		} else { /* buffer full, stage-1 fault, ...: the guest's, as the hardware said */
			s->bsr = (s->bsr & PV_PMBSR_COLL) | (bsr & VSPE_BSR_MASK);
			s->stats.events++;
			pv_vspe__line(v);
			stop = true;
		}
	}
	/* Lower the physical PMBIRQ; a stopped buffer stays off until the guest restarts it. */
	if (stop) {
		pv_plat_sysreg_write(cpu, PV_PMBLIMITR_EL1, 0);
		s->hw_on = false;
	}
	pv_plat_sysreg_write(cpu, PV_PMBSR_EL1, 0);
}
