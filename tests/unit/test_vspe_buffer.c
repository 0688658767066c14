/* SPDX-License-Identifier: MIT */
/*
 * The guest's profiling buffer on the plain-memory platform: the checks made when it becomes
 * enabled (D17.7.4, MaxBuffSize) and the management events they give, the stage-1 walk (4, 16
 * and 64 KiB granules, blocks, TTBR0 and TTBR1, TBI, MMU off, APTable, AF, dirty state) and
 * exactly what it pins (every buffer page up to a stage-1 fault, every table it reads), the
 * reuse of pins while a pointer moves within one buffer, their release on disable, on a buffer
 * change and on pv_vspe_release, discard mode, and an enable made while not loaded; whatever
 * the guest moves (a pointer back below its pins, a limit raised), every page the profiler may
 * write is pinned, and no more than max_buffer of them; a pin store too small, never written
 * past; every path that drops pins with the vCPU loaded stops and drains the hardware first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "guest_trap.h"
#include "perfvisor/trap.h"
#include "test_vspe_rig.h"

static const struct spe_hw_desc HW = {.version = 3, .align = 6, .max_size = 7, .fgt = true};
#define KVA UINT64_C(0xFFFF800080000000) /* a kernel buffer (TTBR1) */
#define UVA UINT64_C(0x0000007000000000) /* a user one (TTBR0) */
#define S (PV_PMBSR_S)

struct mm {
	uint64_t root[2];
	unsigned g, bits;
};

/* A rig with a VM (SPEv1p2, `max` bytes, pinned `chunk` bytes at a time), vCPU 0 loaded on
 * pCPU 0 with its stage-1 tables. */
static struct spe_rig *setup_chunked(uint64_t max, uint64_t chunk, unsigned g, bool tbi,
				     struct mm *mm)
{
	struct spe_rig *r = spe_rig_new(&HW);
	r->pin_chunk = chunk;
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, max), PV_OK);
	*mm = (struct mm){.g = g, .bits = 48};
	mm->root[0] = rig_new_table(r, g);
	mm->root[1] = rig_new_table(r, g);
	rig_regime(r, 0, mm->root[0], mm->root[1], g, 48, tbi);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	return r;
}

/* A VM whose buffers are pinned whole (a chunk as large as max_buffer): test_chunks below
 * takes them chunk by chunk. */
static struct spe_rig *setup(uint64_t max, unsigned g, bool tbi, struct mm *mm)
{
	uint64_t chunk = PV_VSPE_PIN_CHUNK_MIN;
	while (chunk < max)
		chunk <<= 1;
	return setup_chunked(max, chunk, g, tbi, mm);
}

static void map(struct spe_rig *r, const struct mm *mm, uint64_t va, uint64_t ipa,
		uint64_t size, uint64_t extra)
{
	rig_map(r, mm->root[va >> 55 & 1], mm->g, mm->bits, va, ipa, size, 3, extra);
}

static void enable(struct spe_rig *r, uint64_t ptr, uint64_t limit)
{
	guest_msr_ok(&r->v[0], PV_PMBPTR_EL1, ptr);
	guest_msr_ok(&r->v[0], PV_PMBLIMITR_EL1, limit | PV_PMBLIMITR_E);
}

static uint64_t hw(struct spe_rig *r, uint32_t key)
{
	return *memplat_reg(&r->mc[0], key);
}

/* Pages of the table pages the rig allocated (everything at and above RIG_TABLES). */
static uint64_t pinned_tables(struct spe_rig *r)
{
	uint64_t n = 0;
	for (uint64_t ipa = RIG_TABLES; ipa < RIG_RAM + RIG_RAM_SIZE; ipa += 4096)
		n += rig_pin_count(r, ipa) != 0;
	return n;
}

static void test_validation_events(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(64) << 10, 12, true, &mm);
	map(r, &mm, KVA, RIG_RAM, 32 * 4096, 0);
	struct pv_vcpu *v = &r->v[0];
	static const struct {
		uint64_t ptr, limit, bsr;
	} t[] = {
		{KVA + 32, KVA + 8192, S | PV_PMBSR_BSC_NOT_STOPPED}, /* not aligned to 2^6 */
		{(KVA & PV_GENMASK(55, 0)) | UINT64_C(0xF0) << 56, KVA + 8192,
		 S | PV_PMBSR_BSC_NOT_STOPPED},                       /* top bytes differ */
		{KVA + 8192 - 64, KVA + 8192, S | PV_PMBSR_BSC_FULL}, /* PTR > LIMIT - 128 */
		{KVA + 8192, KVA + 8192, S | PV_PMBSR_BSC_FULL},
		{KVA, KVA + 4096 * 17, S | PV_PMBSR_BSC_SIZE}, /* above MaxBuffSize */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enable(r, t[i].ptr, t[i].limit);
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), t[i].bsr);
		assert_int_equal(guest_mrs_ok(v, PV_PMBPTR_EL1), t[i].ptr); /* unchanged */
		assert_true(r->mv[0].line[PV_INTID_SPE]);     /* S drives INTID 21 */
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1), 0); /* the hardware stays off */
		assert_int_equal(rig_pinned(r), 0);
		guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
		guest_msr_ok(v, PV_PMBSR_EL1, 0);
		assert_false(r->mv[0].line[PV_INTID_SPE]);
	}
	/* The edges that are fine: PTR = LIMIT - 2^MaxSize, and exactly MaxBuffSize. */
	enable(r, KVA + 8192 - 128, KVA + 8192);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 8192) | PV_PMBLIMITR_E);
	guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
	enable(r, KVA, KVA + (UINT64_C(64) << 10));
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
	assert_int_equal(v->spe.stats.rejected, 5);
	/* A restart of the buffer that is pinned is checked too: a pointer moved to a misaligned
	 * address, or to where no record fits, is refused with the same events, and neither the
	 * pointer nor E reaches the hardware. */
	static const struct {
		uint64_t ptr, bsr;
	} moved[] = {
		{KVA + 4096 + 32, S | PV_PMBSR_BSC_NOT_STOPPED},
		{KVA + (UINT64_C(64) << 10) - 64, S | PV_PMBSR_BSC_FULL},
	};
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
		guest_msr_ok(v, PV_PMBSR_EL1, 0);
		enable(r, KVA, KVA + (UINT64_C(64) << 10));
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
		assert_true(rig_pinned(r) > 0);
		guest_msr_ok(v, PV_PMBPTR_EL1, moved[i].ptr);
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), moved[i].bsr);
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1), 0);
		assert_int_equal(rig_pinned(r), 0);
	}
	assert_int_equal(v->spe.stats.rejected, 7);
	/* No pin store: refused as too large. */
	guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
	guest_msr_ok(v, PV_PMBSR_EL1, 0);
	pv_vspe_vcpu_pins(v, NULL, 0);
	enable(r, KVA, KVA + 8192);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), S | PV_PMBSR_BSC_SIZE);
	spe_rig_free(r);
}

/* 4 KiB pages scattered in IPA space: every page pinned once, and the four tables of the walk
 * (one per level); the hardware gets LIMIT | E and the pointer. Disable: nothing left. */
static void test_walk_and_pin_4k(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	uint64_t ipa[40];
	for (unsigned p = 0; p < 40; p++) {
		ipa[p] = RIG_RAM + (uint64_t)((p * 37) % 64) * 8192 + 4096;
		map(r, &mm, KVA + p * 4096, ipa[p], 4096, 0);
	}
	enable(r, KVA + 64, KVA + 40 * 4096);
	for (unsigned p = 0; p < 40; p++)
		assert_int_equal(rig_pin_count(r, ipa[p]), 1);
	assert_int_equal(pinned_tables(r), 4);
	assert_int_equal(rig_pinned(r), 44);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 40 * 4096) | PV_PMBLIMITR_E);
	assert_int_equal(hw(r, PV_PMBPTR_EL1), KVA + 64);
	assert_int_equal(r->v[0].spe.stats.pages_walked, 40);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(r->mem.bad_unpins, 0);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), 0);
	spe_rig_free(r);
}

/* Contiguous IPAs coalesce into one pin; 16 and 64 KiB granules pin whole granules and whole
 * tables; a 2 MiB block pins only the buffer's part of it; a TTBR0 buffer; a tagged pointer
 * with TBI. */
static void test_granules_blocks_halves(void **state)
{
	(void)state;
	static const unsigned gs[] = {12, 14, 16};
	for (unsigned i = 0; i < 3; i++) {
		struct mm mm;
		struct spe_rig *r = setup(UINT64_C(4) << 20, gs[i], true, &mm);
		uint64_t g = UINT64_C(1) << gs[i];
		map(r, &mm, UVA, RIG_RAM + (UINT64_C(8) << 20), 8 * g, 0);
		enable(r, UVA, UVA + 8 * g);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
		/* Buffer pages, plus the tables of the levels walked: a granule each, but the
		 * start-level table, which holds only the leftover VA bits (16 bytes with 16 KiB,
		 * 512 with 64 KiB): one 4 KiB page. */
		unsigned levels = gs[i] == 16 ? 3 : 4;
		assert_int_equal(rig_pinned(r), 8 * g / 4096 + (levels - 1) * g / 4096 + 1);
		/* One run of leaves; table runs coalesce where the tables are contiguous. */
		assert_true(r->v[0].spe.npins >= 2 && r->v[0].spe.npins <= 1 + levels);
		guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
		assert_int_equal(rig_pinned(r), 0);
		spe_rig_free(r);
	}
	/* A 2 MiB block (4 KiB granule, level 2): a 64 KiB buffer inside it, 3 tables. */
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	rig_map(r, mm.root[1], 12, 48, KVA, RIG_RAM + (UINT64_C(2) << 20), UINT64_C(2) << 20, 2,
		0);
	enable(r, KVA + (UINT64_C(1) << 20), KVA + (UINT64_C(1) << 20) + (64u << 10));
	assert_int_equal(rig_pinned(r), 16 + 3);
	assert_int_equal(rig_pin_count(r, RIG_RAM + (UINT64_C(3) << 20)), 1);
	/* A tagged pointer under TBI: translated without its top byte, LIMIT with the same tag. */
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	uint64_t tag = UINT64_C(0x3C) << 56, kva = KVA & PV_GENMASK(55, 0);
	enable(r, kva | tag, (kva + 8192) | tag);
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
	assert_int_equal(rig_pinned(r), 2 + 3);
	assert_int_equal(rig_pin_count(r, RIG_RAM + (UINT64_C(2) << 20) + 4096), 1);
	spe_rig_free(r);
	/* The same with TBI for a TTBR0 address (bit 55 clear): fine. */
	r = setup(UINT64_C(1) << 20, 12, true, &mm);
	map(r, &mm, UVA, RIG_RAM, 2 * 4096, 0);
	enable(r, UVA | tag, (UVA + 8192) | tag);
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
	assert_int_equal(rig_pinned(r), 2 + 4);
	spe_rig_free(r);
}

/* Stage 1 off (SCTLR_EL1.M = 0): IPA = VA; nothing to walk, the pages are pinned as they are. */
static void test_mmu_off(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, false, &mm);
	*memplat_reg(&r->mc[0], PV_SCTLR_EL1) = 0;
	enable(r, RIG_RAM + 0x10000, RIG_RAM + 0x14000);
	assert_int_equal(rig_pinned(r), 4);
	assert_int_equal(rig_pin_count(r, RIG_RAM + 0x13000), 1);
	spe_rig_free(r);
}

/* Up to the first page the guest's stage 1 does not let the profiler write, and no further:
 * the hardware reports that fault itself when it gets there. The tables read for the faulting
 * page are pinned too (the hardware's walk reads them). */
static void test_stage1_fault_stops_pinning(void **state)
{
	(void)state;
	static const struct {
		uint64_t extra;
		bool hole;
	} kinds[] = {{0, true}, {PV_BIT(7), false} /* AP[2]: read-only */};
	for (unsigned k = 0; k < 2; k++) {
		struct mm mm;
		struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
		map(r, &mm, KVA, RIG_RAM, 4 * 4096, 0);
		if (!kinds[k].hole)
			map(r, &mm, KVA + 4 * 4096, RIG_RAM + 4 * 4096, 4096, kinds[k].extra);
		map(r, &mm, KVA + 5 * 4096, RIG_RAM + 5 * 4096, 3 * 4096, 0);
		enable(r, KVA, KVA + 8 * 4096);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 8 * 4096) | PV_PMBLIMITR_E);
		assert_int_equal(rig_pinned(r), 4 + 4);
		assert_int_equal(rig_pin_count(r, RIG_RAM + 5 * 4096), 0);
		assert_int_equal(r->v[0].spe.pin_hi, KVA + 4 * 4096);
		spe_rig_free(r);
	}
	/* Without the Access flag: a fault unless TCR_EL1.HA and PMBIDR_EL1.F; read-only with DBM:
	 * writable only with TCR_EL1.HD (hardware dirty state). */
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	rig_map(r, mm.root[1], 12, 48, KVA, RIG_RAM, 4096, 3, 0);
	*rig_ipa(r, rig_entry(r, mm.root[1], 12, 48, KVA, 3)) &= ~PV_BIT(10);
	map(r, &mm, KVA + 4096, RIG_RAM + 4096, 4096, PV_BIT(7) | PV_BIT(51));
	enable(r, KVA, KVA + 2 * 4096);
	assert_int_equal(r->v[0].spe.pin_hi, KVA); /* AF = 0 */
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	*memplat_reg(&r->mc[0], PV_TCR_EL1) |= PV_BIT(39); /* HA */
	enable(r, KVA, KVA + 2 * 4096);
	assert_int_equal(r->v[0].spe.pin_hi, KVA + 4096); /* read-only, DBM but no HD */
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	*memplat_reg(&r->mc[0], PV_TCR_EL1) |= PV_BIT(40); /* HD */
	enable(r, KVA, KVA + 2 * 4096);
	assert_int_equal(r->v[0].spe.pin_hi, KVA + 2 * 4096);
	assert_int_equal(rig_pinned(r), 2 + 4);
	spe_rig_free(r);
}

/* A VA outside both halves (not sign-extended), EPD1, a table or a page outside the VM's
 * memory: pinning stops there; nothing is pinned that the platform refused. */
static void test_out_of_range(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, false, &mm);
	uint64_t bad = UINT64_C(0x00F0000000000000); /* bit 55 clear, bits [54:48] not */
	enable(r, bad, bad + 8192);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(r->v[0].spe.pin_hi, bad);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	map(r, &mm, KVA, RIG_RAM, 4096, 0);
	map(r, &mm, KVA + 4096, UINT64_C(0x9000000000), 4096, 0); /* not RAM */
	enable(r, KVA, KVA + 2 * 4096);
	assert_int_equal(r->v[0].spe.pin_hi, KVA + 4096);
	assert_int_equal(rig_pinned(r), 1 + 4);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	*memplat_reg(&r->mc[0], PV_TCR_EL1) |= PV_BIT(23); /* EPD1 */
	enable(r, KVA, KVA + 4096);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(r->mem.bad_unpins, 0);
	spe_rig_free(r);
}

/* Linux moves PMBPTR_EL1 on within its buffer at every fill: no new walk. A new buffer, or a
 * new TTBR1_EL1, is walked again and the old pins are released. */
static void test_pins_reused_and_replaced(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	struct pv_vcpu *v = &r->v[0];
	map(r, &mm, KVA, RIG_RAM, 16 * 4096, 0);
	map(r, &mm, KVA + 64 * 4096, RIG_RAM + (UINT64_C(1) << 20), 16 * 4096, 0);
	enable(r, KVA, KVA + 16 * 4096);
	assert_int_equal(v->spe.stats.enables, 1);
	/* A buffer-full event, then the guest's restart further on. */
	*memplat_reg(&r->mc[0], PV_PMBSR_EL1) = S | PV_PMBSR_BSC_FULL;
	*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = KVA + 16 * 4096 - 64;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
	guest_msr(v, PV_PMBPTR_EL1, 1, KVA + 4 * 4096);
	guest_msr(v, PV_PMBSR_EL1, 1, 0);
	assert_int_equal(v->spe.stats.enables, 1);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 16 * 4096) | PV_PMBLIMITR_E);
	/* Another buffer, disabled between (a pointer past LIMIT while enabled is refused, see
	 * test_validation_events): the first one's pages are released. */
	guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
	guest_msr(v, PV_PMBPTR_EL1, 1, KVA + 64 * 4096);
	guest_msr(v, PV_PMBLIMITR_EL1, 1, (KVA + 80 * 4096) | PV_PMBLIMITR_E);
	assert_int_equal(v->spe.stats.enables, 2);
	assert_int_equal(rig_pin_count(r, RIG_RAM), 0);
	assert_int_equal(rig_pin_count(r, RIG_RAM + (UINT64_C(1) << 20)), 1);
	assert_int_equal(rig_pinned(r), 16 + 4);
	/* The guest switches its kernel tables (TTBR1_EL1): walked again at the next enable. */
	*memplat_reg(&r->mc[0], PV_TTBR1_EL1) |= UINT64_C(1) << 48; /* another ASID */
	guest_msr(v, PV_PMBPTR_EL1, 1, KVA + 64 * 4096);
	assert_int_equal(v->spe.stats.enables, 3);
	/* TTBR0_EL1 is another process's: no walk for a TTBR1 buffer. */
	*memplat_reg(&r->mc[0], PV_TTBR0_EL1) += 4096;
	guest_msr(v, PV_PMBPTR_EL1, 1, KVA + 65 * 4096);
	assert_int_equal(v->spe.stats.enables, 3);
	/* Released as if the guest disabled it. */
	pv_vspe_release(v);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(guest_mrs_ok(v, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_E, 0);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), 0);
	assert_int_equal(r->mem.bad_unpins, 0);
	spe_rig_free(r);
}

/* The hardware meets the end of what is pinned: the buffer-full event it raises there. */
static void hw_fills_to(struct spe_rig *r, uint64_t limit)
{
	*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = limit - 64; /* PTR > LIMIT - 2^MaxSize */
	*memplat_reg(&r->mc[0], PV_PMBSR_EL1) = S | PV_PMBSR_BSC_FULL;
	assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
}

/* Chunk by chunk (64 KiB): an enable pins one chunk and gives the hardware its end as the
 * limit; the buffer-full event there pins the next and resumes, unseen by the guest; at the
 * guest's own limit the event is the guest's. Tables are pinned once, whatever the chunks. A
 * restart within what is pinned pins nothing new; a stage-1 fault ends the chunks, and the
 * hardware runs to the guest's limit to meet it. */
static void test_chunks(void **state)
{
	(void)state;
	const uint64_t chunk = PV_VSPE_PIN_CHUNK_MIN, buf = UINT64_C(1) << 20;
	struct spe_rig *r = spe_rig_new(&HW);
	r->pin_chunk = chunk;
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, buf), PV_OK);
	struct mm mm = {.g = 12, .bits = 48};
	mm.root[0] = rig_new_table(r, 12);
	mm.root[1] = rig_new_table(r, 12);
	rig_regime(r, 0, mm.root[0], mm.root[1], 12, 48, true);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	map(r, &mm, KVA, RIG_RAM + (UINT64_C(8) << 20), buf, 0);
	struct pv_vspe *s = &r->v[0].spe;

	enable(r, KVA, KVA + buf);
	assert_int_equal(s->stats.pages_walked, chunk / 4096);
	assert_int_equal(rig_pinned(r), chunk / 4096 + 4); /* and the 4 tables of the walk */
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + chunk) | PV_PMBLIMITR_E);
	/* The guest sees its own limit. */
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBLIMITR_EL1),
			 (KVA + buf) | PV_PMBLIMITR_E);

	for (uint64_t k = 1; k < buf / chunk; k++) {
		hw_fills_to(r, KVA + k * chunk);
		assert_int_equal(s->stats.chunks, k);
		assert_int_equal(hw(r, PV_PMBSR_EL1), 0); /* resumed */
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1),
				 (KVA + (k + 1) * chunk) | PV_PMBLIMITR_E);
		assert_int_equal(rig_pinned(r), (k + 1) * chunk / 4096 + 4);
		assert_int_equal(pinned_tables(r), 4);
		assert_int_equal(s->stats.pages_walked, (k + 1) * chunk / 4096);
		assert_false(r->mv[0].line[PV_INTID_SPE]);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
		assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBPTR_EL1), KVA + k * chunk - 64);
	}
	assert_int_equal(r->mem.bad_unpins, 0);
	/* The whole buffer is pinned: the next buffer-full event is at the guest's limit. */
	hw_fills_to(r, KVA + buf);
	assert_true(r->mv[0].line[PV_INTID_SPE]);
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), S | PV_PMBSR_BSC_FULL);
	assert_int_equal(s->stats.events, 1);

	/* The guest restarts within what is pinned (its driver after the interrupt): nothing
	 * is walked or pinned again, and the hardware has the guest's limit. */
	uint64_t pins = s->stats.pin_calls, walked = s->stats.pages_walked;
	guest_msr_ok(&r->v[0], PV_PMBPTR_EL1, KVA + buf / 2);
	guest_msr_ok(&r->v[0], PV_PMBSR_EL1, 0);
	assert_int_equal(s->stats.pin_calls, pins);
	assert_int_equal(s->stats.pages_walked, walked);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + buf) | PV_PMBLIMITR_E);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	assert_int_equal(rig_pinned(r), 0);

	/* A restart near the end of the pinned part pins the next chunk at once, so that a
	 * record fits below the hardware's limit. */
	enable(r, KVA, KVA + buf);
	guest_msr_ok(&r->v[0], PV_PMBSR_EL1, S); /* stopped by the guest itself */
	guest_msr_ok(&r->v[0], PV_PMBPTR_EL1, KVA + chunk - 64);
	guest_msr_ok(&r->v[0], PV_PMBSR_EL1, 0);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 2 * chunk) | PV_PMBLIMITR_E);
	assert_int_equal(rig_pinned(r), 2 * chunk / 4096 + 4);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, 0);
	spe_rig_free(r);

	/* Only the first 40 pages are mapped: the third chunk's walk stops at page 40, and the
	 * hardware gets the guest's limit, to raise the stage-1 fault there itself. */
	r = spe_rig_new(&HW);
	r->pin_chunk = chunk;
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 3, buf), PV_OK);
	mm.root[0] = rig_new_table(r, 12);
	mm.root[1] = rig_new_table(r, 12);
	rig_regime(r, 0, mm.root[0], mm.root[1], 12, 48, true);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	map(r, &mm, KVA, RIG_RAM + (UINT64_C(8) << 20), 40 * 4096, 0);
	s = &r->v[0].spe;
	enable(r, KVA, KVA + buf);
	hw_fills_to(r, KVA + chunk);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 2 * chunk) | PV_PMBLIMITR_E);
	hw_fills_to(r, KVA + 2 * chunk);
	assert_int_equal(s->pin_hi, KVA + 40 * 4096);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + buf) | PV_PMBLIMITR_E);
	assert_int_equal(rig_pinned(r), 40 + 4);
	assert_false(r->mv[0].line[PV_INTID_SPE]);
	spe_rig_free(r);
}

/* ---- what the profiler may write is pinned, within the bounds the design sets ------------- */

/* Buffer pages scattered in IPA space (no two runs merge, so every page is a store entry):
 * page p of the buffer at KVA is at scattered(p). */
static uint64_t scattered(uint64_t p)
{
	return RIG_RAM + ((p * 37) % 128) * 8192 + 4096;
}

static void map_scattered(struct spe_rig *r, const struct mm *mm, uint64_t pages)
{
	for (uint64_t p = 0; p < pages; p++)
		map(r, mm, KVA + p * 4096, scattered(p), 4096, 0);
}

/* Every page from `va`'s page up to `end`, and each table a 4 KiB-granule walk to it reads
 * (the hardware's walks read them too), is pinned in stage 2. */
static void assert_pinned(struct spe_rig *r, const struct mm *mm, uint64_t va, uint64_t end)
{
	for (va &= ~(uint64_t)4095; va < end; va += 4096) {
		uint64_t table = mm->root[va >> 55 & 1];
		for (unsigned l = 0; l < 4; l++) {
			if (!rig_pin_count(r, table))
				fail_msg("level %u table of %#llx not pinned", l,
					 (unsigned long long)va);
			table = *rig_ipa(r, table + (va >> (39 - 9 * l) & 511) * 8) &
				PV_GENMASK(47, 12);
		}
		if (!rig_pin_count(r, table))
			fail_msg("buffer page %#llx not pinned", (unsigned long long)va);
	}
}

/* What the hardware may write now: from its PMBPTR_EL1 up to the PMBLIMITR_EL1 perfvisor gave
 * it (it stops, buffer full, once a record of the largest size would not fit below LIMIT:
 * SPEBufferIsFull(), J1.1.1), every page and table pinned. */
static void assert_hw_window_pinned(struct spe_rig *r, const struct mm *mm)
{
	uint64_t limitr = hw(r, PV_PMBLIMITR_EL1);
	if (limitr & PV_PMBLIMITR_E)
		assert_pinned(r, mm, hw(r, PV_PMBPTR_EL1), limitr & PV_PMBLIMITR_LIMIT);
}

/* The hardware runs to the limit it was given: the buffer-full event there, perfvisor's (the
 * next chunk) or the guest's. True when it was the guest's. */
static bool hw_fills(struct spe_rig *r)
{
	hw_fills_to(r, hw(r, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_LIMIT);
	return guest_mrs_ok(&r->v[0], PV_PMBSR_EL1) & S;
}

/* The guest moves PMBPTR_EL1 back below what is pinned, within the same buffer: by a write
 * while the buffer runs, or after its buffer-full event (its driver going back to the start
 * of its ring). The pins of the higher part cannot serve: the profiler writes from the new
 * pointer up, so every page from there to the hardware's limit must be pinned, whether the
 * buffer is pinned whole or a chunk at a time. */
static void test_pointer_moved_below_pins(void **state)
{
	(void)state;
	static const uint64_t chunks[] = {UINT64_C(1) << 20, PV_VSPE_PIN_CHUNK_MIN};
	for (unsigned c = 0; c < 2; c++) {
		struct mm mm;
		struct spe_rig *r = setup_chunked(UINT64_C(1) << 20, chunks[c], 12, true, &mm);
		struct pv_vcpu *v = &r->v[0];
		map_scattered(r, &mm, 64);
		enable(r, KVA + 32 * 4096, KVA + 64 * 4096);
		assert_hw_window_pinned(r, &mm);
		/* A write of PMBPTR_EL1 while the buffer runs: a restart there. */
		guest_msr_ok(v, PV_PMBPTR_EL1, KVA + 8 * 4096);
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
		assert_int_equal(hw(r, PV_PMBPTR_EL1), KVA + 8 * 4096);
		assert_true(hw(r, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_E);
		assert_hw_window_pinned(r, &mm);
		while (!hw_fills(r))
			assert_hw_window_pinned(r, &mm);
		/* After the guest's buffer-full event: pointer back to the start, S cleared. */
		guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
		guest_msr_ok(v, PV_PMBSR_EL1, 0);
		enable(r, KVA + 32 * 4096, KVA + 64 * 4096);
		while (!hw_fills(r))
			assert_hw_window_pinned(r, &mm);
		guest_msr_ok(v, PV_PMBPTR_EL1, KVA);
		guest_msr_ok(v, PV_PMBSR_EL1, 0);
		assert_int_equal(hw(r, PV_PMBPTR_EL1), KVA);
		assert_true(hw(r, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_E);
		assert_hw_window_pinned(r, &mm);
		while (!hw_fills(r))
			assert_hw_window_pinned(r, &mm);
		guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
		assert_int_equal(rig_pinned(r), 0);
		assert_int_equal(r->mem.bad_unpins, 0);
		spe_rig_free(r);
	}
}

/* Buffer pages pinned: everything pinned but the rig's table pages. */
static uint64_t pinned_buffer_pages(struct spe_rig *r)
{
	return rig_pinned(r) - pinned_tables(r);
}

/* No more than max_buffer of buffer pages pinned, and what the hardware may write pinned. */
static void check_bound(struct spe_rig *r, const struct mm *mm, uint64_t max)
{
	assert_true(pinned_buffer_pages(r) <= max / 4096);
	assert_hw_window_pinned(r, mm);
}

/* max_buffer bounds what a vCPU has pinned (docs/spe.md, "Limits": up to max_buffer plus its
 * tables; the pin store is sized for it), not only each buffer the guest gives: a guest that
 * raises LIMIT as it goes (a ring whose consumer frees space) keeps every buffer within
 * max_buffer, yet pins kept from below its pointer and the chunks pinned above it would
 * together span more. At every step, while the profiler fills to each limit it is given,
 * the bound holds. */
static void test_reuse_bounded_by_max_buffer(void **state)
{
	(void)state;
	const uint64_t max = PV_VSPE_PIN_CHUNK_MIN, step = max / 2;
	/* LIMIT raised after each of the guest's buffer-full events, the pointer on from where
	 * the hardware stopped (0); raised while the buffer runs, a write of PMBLIMITR_EL1 being
	 * a restart where the hardware's pointer is (1). */
	for (unsigned running = 0; running < 2; running++) {
		struct mm mm;
		struct spe_rig *r = setup_chunked(max, max, 12, true, &mm);
		struct pv_vcpu *v = &r->v[0];
		map_scattered(r, &mm, 4 * max / 4096);
		enable(r, KVA, KVA + max);
		check_bound(r, &mm, max);
		for (uint64_t limit = KVA + max; limit + step <= KVA + 4 * max;) {
			if (running) {
				/* The profiler has written most of it, no event. */
				*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = limit - step / 2;
				limit += step;
				guest_msr_ok(v, PV_PMBLIMITR_EL1, limit | PV_PMBLIMITR_E);
			} else {
				while (!hw_fills(r))
					check_bound(r, &mm, max);
				guest_msr_ok(v, PV_PMBPTR_EL1, limit - 64);
				limit += step;
				guest_msr_ok(v, PV_PMBLIMITR_EL1, limit | PV_PMBLIMITR_E);
				guest_msr_ok(v, PV_PMBSR_EL1, 0);
			}
			assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
			check_bound(r, &mm, max);
			/* The profiler goes on through every limit of perfvisor's. */
			while ((hw(r, PV_PMBLIMITR_EL1) & PV_PMBLIMITR_LIMIT) < limit) {
				assert_false(hw_fills(r));
				check_bound(r, &mm, max);
			}
		}
		guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
		assert_int_equal(rig_pinned(r), 0);
		assert_int_equal(r->mem.bad_unpins, 0);
		spe_rig_free(r);
	}
}

/* A pin store too small for a buffer's chunk (the caller gave fewer entries than
 * PV_VSPE_PIN_SLOTS(max_buffer)): nothing is written past its end, what was pinned holds
 * every page up to where pinning stopped with the tables its walk reads, and the hardware
 * gets the guest's LIMIT to meet the page that could not be pinned, as docs/spe.md says of
 * a page that cannot be pinned. If stage 2 faults there, the memory cannot be mapped: the
 * guest gets EC 0x1F, MSS 0x0002 (D24.7.5: an IMPLEMENTATION DEFINED buffer management
 * event), never EC 0x25. Whole-buffer pinning with stores of 0 to 5 entries, and chunks
 * with a store that runs out in the second chunk. */
#define CANARY 64
static void test_small_pin_store(void **state)
{
	(void)state;
	static const struct {
		uint64_t chunk;
		uint32_t n;
	} t[] = {
		{UINT64_C(1) << 20, 0},      {UINT64_C(1) << 20, 1},
		{UINT64_C(1) << 20, 2},      {UINT64_C(1) << 20, 5},
		{PV_VSPE_PIN_CHUNK_MIN, 18}, {PV_VSPE_PIN_CHUNK_MIN, 17},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mm mm;
		struct spe_rig *r = setup_chunked(UINT64_C(1) << 20, t[i].chunk, 12, true, &mm);
		struct pv_vcpu *v = &r->v[0];
		const uint64_t limit = KVA + 2 * PV_VSPE_PIN_CHUNK_MIN;
		map_scattered(r, &mm, 32);
		struct pv_vspe_pin store[5 + 18 + CANARY];
		memset(store, 0xA5, sizeof(store));
		unsigned char canary[CANARY * sizeof(struct pv_vspe_pin)];
		memset(canary, 0xA5, sizeof(canary));
		pv_vspe_vcpu_pins(v, store, t[i].n);
		enable(r, KVA, limit);
		while (!v->spe.pin_stop && !hw_fills(r))
			; /* chunk after chunk, until the store runs out */
		assert_memory_equal(&store[t[i].n], canary, sizeof(canary));
		assert_int_equal(v->spe.npins, t[i].n);
		/* Nothing the guest sees yet; the hardware runs to the guest's limit. */
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), 0);
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1), limit | PV_PMBLIMITR_E);
		uint64_t stop = v->spe.pin_hi;
		assert_true(stop < limit);
		assert_pinned(r, &mm, hw(r, PV_PMBPTR_EL1), stop);
		/* It meets the page that is not pinned, and stage 2 faults there. */
		*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = stop;
		*memplat_reg(&r->mc[0], PV_PMBSR_EL1) = S |
							(uint64_t)PV_PMBSR_EC_FAULT_S2 << 26 |
							PV_FSC_TRANSLATION(3);
		assert_int_equal(pv_irq(&r->cpu[0], PV_INTID_SPE), PV_IRQ_HANDLED);
		assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1),
				 S | (uint64_t)PV_PMBSR_EC_IMPDEF << 26 |
					 PV_PMBSR_IMPDEF_NO_MEMORY);
		assert_true(r->mv[0].line[PV_INTID_SPE]);
		assert_int_equal(hw(r, PV_PMBLIMITR_EL1), 0);
		assert_memory_equal(&store[t[i].n], canary, sizeof(canary));
		guest_msr(v, PV_PMBLIMITR_EL1, 1, 0);
		assert_int_equal(rig_pinned(r), 0);
		assert_int_equal(r->mem.bad_unpins, 0);
		spe_rig_free(r);
	}
}

/* Discard mode (SPEv1p2, FM = 0b10): nothing is written, nothing to check or pin; the hardware
 * gets E and FM. Below SPEv1p2 FM = 0b10 is reserved and behaves as fill mode. */
static void test_discard_mode(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	uint64_t fm = PV_FIELD_PREP(PV_PMBLIMITR_FM, PV_PMBLIMITR_FM_DISCARD);
	guest_msr(&r->v[0], PV_PMBPTR_EL1, 1,
		  0x123); /* misaligned: irrelevant when discarding */
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, fm | PV_PMBLIMITR_E);
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1), 0);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), fm | PV_PMBLIMITR_E);
	assert_int_equal(rig_pinned(r), 0);
	spe_rig_free(r);
	r = spe_rig_new(&HW);
	assert_int_equal(spe_rig_vm(r, PV_FEAT_SPE, 2, UINT64_C(1) << 20), PV_OK);
	rig_regime(r, 0, 0, 0, 12, 48, true);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	guest_msr(&r->v[0], PV_PMBPTR_EL1, 1, 0x123);
	guest_msr(&r->v[0], PV_PMBLIMITR_EL1, 1, fm | PV_PMBLIMITR_E);
	assert_int_equal(guest_mrs_ok(&r->v[0], PV_PMBSR_EL1),
			 PV_PMBSR_S | PV_PMBSR_BSC_NOT_STOPPED);
	spe_rig_free(r);
}

/* Pins go only once the hardware has stopped writing the buffer (PSB CSYNC; DSB, then
 * PMBLIMITR_EL1.E = 0, D17.9): on every path that drops them while the vCPU is loaded, the
 * platform's unpin finds the pCPU's buffer off and drained (memplat counts the pages released
 * otherwise), and the hardware's pointer is read before a new pin store replaces the old. */
static void test_stopped_before_unpin(void **state)
{
	(void)state;
	const uint64_t chunk = PV_VSPE_PIN_CHUNK_MIN, buf = UINT64_C(1) << 20;
	struct mm mm;
	struct spe_rig *r = setup_chunked(buf, chunk, 12, true, &mm);
	struct pv_vcpu *v = &r->v[0];
	map(r, &mm, KVA, RIG_RAM + (UINT64_C(8) << 20), buf, 0);
	map(r, &mm, KVA + 2 * buf, RIG_RAM + (UINT64_C(16) << 20), 16 * 4096, 0);
	uint64_t other = KVA + 2 * buf;
	/* 1: the guest disables its buffer. */
	enable(r, KVA, KVA + buf);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	assert_int_equal(rig_pinned(r), 0);
	/* 2: the buffer enabled moved below its pins (PMBPTR_EL1), pinned anew from there; then
	 * a limit it cannot have (PMBLIMITR_EL1), refused with its pins gone. */
	enable(r, KVA + 8 * 4096, KVA + 16 * 4096);
	guest_msr_ok(v, PV_PMBPTR_EL1, KVA);
	assert_int_equal(v->spe.stats.enables, 3);
	assert_int_equal(rig_pinned(r), 16 + 4);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, (KVA + 2 * buf) | PV_PMBLIMITR_E);
	assert_int_equal(guest_mrs_ok(v, PV_PMBSR_EL1), S | PV_PMBSR_BSC_SIZE);
	assert_int_equal(rig_pinned(r), 0);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	guest_msr_ok(v, PV_PMBSR_EL1, 0);
	/* 3: a restart (PMBSR_EL1.S cleared) under other tables: walked and pinned anew. */
	enable(r, other, other + 16 * 4096);
	guest_msr_ok(v, PV_PMBSR_EL1, S);
	*memplat_reg(&r->mc[0], PV_TTBR1_EL1) |= UINT64_C(1) << 48; /* another ASID */
	guest_msr_ok(v, PV_PMBSR_EL1, 0);
	assert_int_equal(v->spe.stats.enables, 5);
	assert_int_equal(rig_pin_count(r, RIG_RAM + (UINT64_C(16) << 20)), 1);
	/* 4: the hardware at perfvisor's chunk limit when the guest disables: the next chunk is
	 * pinned and the hardware re-armed by the synchronisation, then everything goes. */
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	enable(r, KVA, KVA + buf);
	*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = KVA + chunk - 64;
	*memplat_reg(&r->mc[0], PV_PMBSR_EL1) = S | PV_PMBSR_BSC_FULL;
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	assert_int_equal(v->spe.stats.chunks, 1);
	assert_int_equal(rig_pinned(r), 0);
	/* 5: pv_vspe_release. */
	enable(r, KVA, KVA + buf);
	pv_vspe_release(v);
	assert_int_equal(rig_pinned(r), 0);
	/* 6: a new pin store while the buffer runs: the pointer the hardware reached is kept,
	 * and the buffer is pinned again into the new store and runs on. */
	enable(r, KVA, KVA + buf);
	*memplat_reg(&r->mc[0], PV_PMBPTR_EL1) = KVA + 4096;
	uint32_t n = PV_VSPE_PIN_SLOTS(buf);
	struct pv_vspe_pin *store = calloc(n, sizeof(*store));
	assert_non_null(store);
	pv_vspe_vcpu_pins(v, store, n);
	assert_int_equal(v->spe.pins, store);
	assert_int_equal(hw(r, PV_PMBPTR_EL1), KVA + 4096);
	assert_int_equal(hw(r, PV_PMBLIMITR_EL1), (KVA + 4096 + chunk) | PV_PMBLIMITR_E);
	assert_int_equal(rig_pinned(r), chunk / 4096 + 4);
	assert_int_equal(guest_mrs_ok(v, PV_PMBPTR_EL1), KVA + 4096);
	guest_msr_ok(v, PV_PMBLIMITR_EL1, 0);
	assert_int_equal(rig_pinned(r), 0);
	assert_int_equal(r->mem.live_unpins, 0);
	assert_int_equal(r->mem.bad_unpins, 0);
	pv_vspe_vcpu_pins(v, NULL, 0);
	free(store);
	spe_rig_free(r);
}

/* An enable trapped while the vCPU is not loaded (the translation registers are the pCPU's
 * only while it is): done at the next load. */
static void test_enable_while_not_loaded(void **state)
{
	(void)state;
	struct mm mm;
	struct spe_rig *r = setup(UINT64_C(1) << 20, 12, true, &mm);
	struct pv_vcpu *v = &r->v[0];
	map(r, &mm, KVA, RIG_RAM, 4 * 4096, 0);
	pv_vcpu_put(v);
	enable(r, KVA, KVA + 4 * 4096);
	assert_true(v->spe.need_pin);
	assert_int_equal(rig_pinned(r), 0);
	rig_regime(r, 1, mm.root[0], mm.root[1], 12, 48, true);
	pv_vcpu_load(v, &r->cpu[1]);
	assert_false(v->spe.need_pin);
	assert_int_equal(rig_pinned(r), 4 + 4);
	assert_int_equal(*memplat_reg(&r->mc[1], PV_PMBLIMITR_EL1),
			 (KVA + 4 * 4096) | PV_PMBLIMITR_E);
	spe_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validation_events),
		cmocka_unit_test(test_walk_and_pin_4k),
		cmocka_unit_test(test_granules_blocks_halves),
		cmocka_unit_test(test_mmu_off),
		cmocka_unit_test(test_stage1_fault_stops_pinning),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_pins_reused_and_replaced),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_pointer_moved_below_pins),
		cmocka_unit_test(test_reuse_bounded_by_max_buffer),
		cmocka_unit_test(test_small_pin_store),
		cmocka_unit_test(test_discard_mode),
		cmocka_unit_test(test_enable_while_not_loaded),
		cmocka_unit_test(test_stopped_before_unpin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
