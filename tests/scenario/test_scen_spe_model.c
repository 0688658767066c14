/* SPDX-License-Identifier: MIT */
/*
 * The SPE unit model itself (sim/spe.c), driven directly with a flat address space, against
 * the Arm ARM pseudocode: the interval counter of SPEToCollectSample() to the operation, with
 * and without RND; no counting while profiling is disabled (buffer off or stopped, EL not
 * enabled, EL above the owner, TGE); the filters of SPECollectRecord(); the record stream
 * decoding to exactly the samples logged; buffer full at SPEBufferIsFull(); stage-1 and stage-2
 * faults with PMBPTR at the faulting byte and DL for a partial record; discard mode;
 * collisions; what CollectTimeStamp(), CollectPhysicalAddress() and CollectContextIDR1/2()
 * collect; the registers' fields and PMBIDR_EL1.P.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "perfvisor/spe_packet.h"
#include "perfvisor/vspe.h"
#include "sim/spe.h"

#define BASE UINT64_C(0x10000)
#define MEM (1u << 16)

struct flat {
	uint8_t mem[MEM];
	uint64_t hole_lo, hole_hi; /* buffer VAs that fault */
	bool hole_s2;
	struct sim_spe_log log;
};

static bool xlate(void *ctx, uint64_t va, bool buffer, uint64_t *pa, struct sim_fault *f)
{
	struct flat *fl = ctx;
	memset(f, 0, sizeof(*f));
	if (buffer && va >= fl->hole_lo && va < fl->hole_hi) {
		f->kind = SIM_FAULT_TRANSLATION;
		f->level = 3;
		f->stage2 = fl->hole_s2;
		return false;
	}
	*pa = buffer ? va : va + UINT64_C(0x80000000); /* data: some PA */
	return true;
}

static void write_mem(void *ctx, uint64_t pa, const uint8_t *b, size_t n)
{
	struct flat *fl = ctx;
	assert_true(pa >= BASE && pa + n <= BASE + MEM);
	memcpy(fl->mem + (pa - BASE), b, n);
}

static const struct sim_spe_config CFG = {
	.version = 3, .align = 6, .max_size = 7, .interval = 2, .events = 0xFFE};

/* A guest at EL1 owning the buffer (E2PB = 0b10), PMSCR_EL2 zero. */
static struct sim_spe_env env_el1(struct flat *fl)
{
	return (struct sim_spe_env){
		.el = 1,
		.mdcr_el2 = PV_FIELD_PREP(PV_MDCR_EL2_E2PB, PV_MDCR_EL2_E2PB_EL1_TRAP),
		.cntpct = 1000,
		.ticks = 500,
		.cntvoff = 400,
		.contextidr_el1 = 0x11,
		.contextidr_el2 = 0x22,
		.code = {.pc = 0xFFFF800000000000,
			 .pc_size = 1 << 16,
			 .data = 0x2000000,
			 .data_size = 1 << 16},
		.xlate = xlate,
		.write = write_mem,
		.ctx = fl,
		.log = &fl->log,
	};
}

static void start(struct sim_spe *s, uint64_t limit, uint64_t irr)
{
	assert_int_equal(sim_spe_write(s, 2, PV_PMBPTR_EL1, BASE), SIM_ACC_OK);
	sim_spe_write(s, 2, PV_PMBLIMITR_EL1, limit | PV_PMBLIMITR_E);
	sim_spe_write(s, 2, PV_PMSIRR_EL1, irr);
	sim_spe_write(s, 2, PV_PMSICR_EL1, 0);
	sim_spe_write(s, 2, PV_PMSCR_EL1, PV_PMSCR_E0SPE | PV_PMSCR_E1SPE);
}

static struct sim_work work(uint64_t ops, uint64_t cycles)
{
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_INT, ops);
	w.ev[SIM_EV_INST_SPEC] = ops;
	w.ev[SIM_EV_CPU_CYCLES] = cycles;
	return w;
}

static unsigned count(const struct flat *fl, enum sim_spe_status st)
{
	unsigned n = 0;
	for (size_t i = 0; i < fl->log.n; i++)
		n += fl->log.s[i].status == st;
	return n;
}

/* SPEToCollectSample(): COUNT = 0 reloads INTERVAL (that operation is not sampled), otherwise
 * it counts down and the operation that reaches 0 is sampled: one in INTERVAL + 1, whatever
 * the chunks. */
static void test_interval_exact(void **state)
{
	(void)state;
	static const uint64_t chunks[] = {1, 7, 256, 257, 258, 1000, 3333};
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct flat *fl = calloc(1, sizeof(*fl));
		struct sim_spe s;
		sim_spe_init(&s, &CFG, 1);
		start(&s, BASE + MEM, 0x100);
		struct sim_spe_env e = env_el1(fl);
		uint64_t done = 0;
		while (done < 10000) {
			uint64_t n = chunks[c] < 10000 - done ? chunks[c] : 10000 - done;
			struct sim_work w = work(n, n * 2);
			sim_spe_exec(&s, &e, &w);
			done += n;
		}
		assert_int_equal(s.stats.selected, 10000 / 257);
		assert_int_equal(s.icr, 256 - (10000 - 257 * 38 - 1));
		sim_spe_log_free(&fl->log);
		free(fl);
	}
}

/* RND: COUNT[7:0] random at each reload: gaps between samples in [INTERVAL + 1,
 * INTERVAL + 256], not all the same. */
static void test_interval_random(void **state)
{
	(void)state;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 5);
	start(&s, BASE + MEM, 0x200 | PV_PMSIRR_RND);
	struct sim_spe_env e = env_el1(fl);
	uint64_t last = 0, min = ~UINT64_C(0), max = 0;
	unsigned gaps = 0;
	for (uint64_t op = 1; op <= 40000 && !(s.bsr & PV_PMBSR_S); op++) {
		uint64_t before = s.stats.selected;
		struct sim_work w = work(1, 2);
		sim_spe_exec(&s, &e, &w);
		if (s.stats.selected == before)
			continue;
		if (last) {
			uint64_t gap = op - last;
			min = gap < min ? gap : min;
			max = gap > max ? gap : max;
			gaps++;
		}
		last = op;
		assert_true((s.icr & PV_PMSICR_COUNT) == 0);
	}
	assert_true(gaps > 20);
	assert_true(min >= 0x201 && max <= 0x200 + 256);
	assert_true(max > min);
	sim_spe_log_free(&fl->log);
	free(fl);
}

/* StatisticalProfilingEnabled() false: COUNT does not move (D24.7.13), nothing is sampled. */
static void test_no_counting_when_disabled(void **state)
{
	(void)state;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 1);
	start(&s, BASE + MEM, 0x100);
	sim_spe_write(&s, 2, PV_PMSICR_EL1, 50);
	struct sim_spe_env e = env_el1(fl);
	struct sim_work w = work(5000, 5000);
	e.el = 2; /* above the owner (EL1) */
	sim_spe_exec(&s, &e, &w);
	e.el = 0;
	e.hcr_el2 = PV_HCR_EL2_TGE; /* the host's EL0: an EL1-owned buffer does not sample it */
	sim_spe_exec(&s, &e, &w);
	e.hcr_el2 = 0;
	sim_spe_write(&s, 2, PV_PMSCR_EL1, PV_PMSCR_E1SPE); /* EL0 not enabled */
	sim_spe_exec(&s, &e, &w);
	e.el = 1;
	sim_spe_write(&s, 2, PV_PMBSR_EL1, PV_PMBSR_S); /* stopped */
	sim_spe_exec(&s, &e, &w);
	sim_spe_write(&s, 2, PV_PMBSR_EL1, 0);
	sim_spe_write(&s, 2, PV_PMBLIMITR_EL1, BASE + MEM); /* E = 0 */
	sim_spe_exec(&s, &e, &w);
	assert_int_equal(s.icr, 50);
	assert_int_equal(s.stats.selected, 0);
	/* Owned by EL2 (E2PB = 0b00): EL2 sampled with PMSCR_EL2.E2SPE, EL1 with E1SPE. */
	sim_spe_write(&s, 2, PV_PMBLIMITR_EL1, (BASE + MEM) | PV_PMBLIMITR_E);
	e.mdcr_el2 = 0;
	e.el = 2;
	e.pmscr_el2 = PV_PMSCR_E1SPE;
	sim_spe_exec(&s, &e, &w);
	assert_true(s.stats.selected > 0);
	for (size_t i = 0; i < fl->log.n; i++)
		assert_int_equal(fl->log.s[i].el, 2);
	sim_spe_log_free(&fl->log);
	free(fl);
}

/* The buffer holds the records of exactly the samples logged as written, in order; then
 * SPEBufferIsFull(): PMBPTR > LIMIT - 2^MaxSize gives S and BSC "buffer filled", and sampling
 * stops. Every record is padded to 2^Align. */
static void test_records_and_buffer_full(void **state)
{
	(void)state;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 3);
	uint64_t limit = BASE + 4096;
	start(&s, limit, 0x100);
	sim_spe_write(&s, 2, PV_PMSCR_EL1, PV_PMSCR_E1SPE | PV_PMSCR_TS | PV_PMSCR_CX);
	struct sim_spe_env e = env_el1(fl);
	struct sim_work w = work(1000000, 1250000);
	sim_spe_exec(&s, &e, &w);
	assert_int_equal(s.bsr, PV_PMBSR_S | PV_PMBSR_BSC_FULL);
	assert_true(s.ptr > limit - 128 && s.ptr <= limit);
	uint64_t icr = s.icr, selected = s.stats.selected;
	sim_spe_exec(&s, &e, &w);
	assert_int_equal(s.stats.selected, selected); /* stopped */
	assert_int_equal(s.icr, icr);
	size_t pos = 0, k = 0;
	struct pv_spe_record r;
	for (;;) {
		size_t at = pos, pads;
		int res = pv_spe_record_decode(fl->mem, s.ptr - BASE, &pos, &r, &pads);
		if (res == 0)
			break; /* the last record's padding, up to PMBPTR_EL1 */
		assert_int_equal(res, 1);
		assert_int_equal((at + pads) % 64, 0); /* records start at 2^Align */
		while (fl->log.s[k].status != SIM_SPE_WRITTEN)
			k++;
		const struct sim_spe_sample *o = &fl->log.s[k++];
		assert_int_equal(o->buf_va, BASE + at + pads);
		assert_int_equal(r.addr[PV_SPE_ADDR_PC] & PV_GENMASK(55, 0),
				 o->pc & PV_GENMASK(55, 0));
		assert_int_equal(r.addr[PV_SPE_ADDR_PC] >> 56, 0x80 | 1u << 5); /* NS, EL1 */
		assert_int_equal(r.events, o->events);
		assert_int_equal(r.op_class, o->op_class);
		assert_int_equal(r.cnt[0], o->lat[0]);
		assert_int_equal(r.context[0], 0x11);
		assert_true(r.has_ts);
		assert_int_equal(r.timestamp, o->ts);
	}
	assert_int_equal(k, fl->log.n);
	assert_int_equal(s.stats.written, fl->log.n);
	sim_spe_log_free(&fl->log);
	free(fl);
}

/* SPEFilterByEvents/Type/Latency: what is written passes, what is filtered fails. */
static void test_filters(void **state)
{
	(void)state;
	static const struct {
		uint64_t fcr, evfr, nevfr, latfr;
	} f[] = {
		{PV_PMSFCR_FE, PV_SPE_EV_RETIRED | PV_SPE_EV_L1D_ACCESS, 0, 0},
		{PV_PMSFCR_FnE, 0, PV_SPE_EV_L1D_REFILL | PV_SPE_EV_MISPRED, 0},
		{PV_PMSFCR_FT | PV_PMSFCR_LD, 0, 0, 0},
		{PV_PMSFCR_FT | PV_PMSFCR_B | PV_PMSFCR_ST, 0, 0, 0},
		{PV_PMSFCR_FL, 0, 0, 20},
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct flat *fl = calloc(1, sizeof(*fl));
		struct sim_spe s;
		sim_spe_init(&s, &CFG, 9 + i);
		start(&s, BASE + MEM, 0x100);
		sim_spe_write(&s, 2, PV_PMSFCR_EL1, f[i].fcr);
		sim_spe_write(&s, 2, PV_PMSEVFR_EL1, f[i].evfr);
		sim_spe_write(&s, 2, PV_PMSNEVFR_EL1, f[i].nevfr);
		sim_spe_write(&s, 2, PV_PMSLATFR_EL1, f[i].latfr);
		struct sim_spe_env e = env_el1(fl);
		struct sim_work w;
		sim_work_profile(&w, SIM_PROF_MEM, 200000);
		sim_spe_exec(&s, &e, &w);
		unsigned written = 0, filtered = 0;
		for (size_t k = 0; k < fl->log.n; k++) {
			const struct sim_spe_sample *o = &fl->log.s[k];
			uint64_t ev = o->events;
			bool pass = true;
			if (f[i].fcr & PV_PMSFCR_FE)
				pass = pass && (ev & f[i].evfr) == f[i].evfr;
			if (f[i].fcr & PV_PMSFCR_FnE)
				pass = pass && !(ev & f[i].nevfr);
			if (f[i].fcr & PV_PMSFCR_FT) {
				unsigned flags = o->op_class == PV_SPE_OP_BRANCH ? 1
						 : o->op_class == PV_SPE_OP_LDST
							 ? (o->op_sub & 1 ? 4 : 2)
							 : 0;
				pass = pass && (flags & (f[i].fcr >> 16));
			}
			if (f[i].fcr & PV_PMSFCR_FL)
				pass = pass && o->lat[0] >= f[i].latfr;
			assert_int_equal(o->status, pass ? SIM_SPE_WRITTEN : SIM_SPE_FILTERED);
			written += pass;
			filtered += !pass;
		}
		assert_true(written > 5 && filtered > 5);
		sim_spe_log_free(&fl->log);
		free(fl);
	}
}

/* SPEWriteToBuffer(): byte by byte; a faulting byte stops the profiler with PMBPTR at it, EC
 * 0x24 or 0x25 and the FSC, DL when part of the record is already in the buffer. */
static void fault(unsigned align, bool s2)
{
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe_config cfg = CFG;
	cfg.align = (uint8_t)align;
	struct sim_spe s;
	sim_spe_init(&s, &cfg, 4);
	fl->hole_lo = BASE + 8192; /* a page: translations are per page */
	fl->hole_hi = BASE + 12288;
	fl->hole_s2 = s2;
	start(&s, BASE + MEM, 0x100);
	struct sim_spe_env e = env_el1(fl);
	struct sim_work w = work(1000000, 1250000);
	sim_spe_exec(&s, &e, &w);
	assert_int_equal(s.ptr, BASE + 8192);
	uint64_t ec = s2 ? PV_PMBSR_EC_FAULT_S2 : PV_PMBSR_EC_FAULT_S1;
	const struct sim_spe_sample *last = &fl->log.s[fl->log.n - 1];
	assert_int_equal(last->status, SIM_SPE_LOST);
	bool dl = last->buf_va < BASE + 8192;
	assert_int_equal(s.bsr, PV_PMBSR_S | ec << 26 | PV_FSC_TRANSLATION(3) |
					(dl ? PV_PMBSR_DL : 0));
	assert_int_equal(last->written, BASE + 8192 - last->buf_va);
	/* Records padded to 64 bytes never straddle a page; unpadded ones may. */
	if (align == 6)
		assert_false(dl);
	sim_spe_log_free(&fl->log);
	free(fl);
}

static void test_write_faults(void **state)
{
	(void)state;
	fault(6, false);
	fault(6, true);
	fault(0, false);
	fault(0, true);
}

/* Discard mode (SPEv1p2): samples complete, nothing is written, the pointer stays. */
static void test_discard(void **state)
{
	(void)state;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 2);
	start(&s, BASE + MEM, 0x100);
	sim_spe_write(&s, 2, PV_PMBLIMITR_EL1,
		      PV_FIELD_PREP(PV_PMBLIMITR_FM, 2) | PV_PMBLIMITR_E);
	struct sim_spe_env e = env_el1(fl);
	struct sim_work w = work(100000, 125000);
	sim_spe_exec(&s, &e, &w);
	assert_int_equal(s.ptr, BASE);
	assert_int_equal(s.stats.bytes, 0);
	assert_int_equal(count(fl, SIM_SPE_DISCARDED), s.stats.selected);
	sim_spe_log_free(&fl->log);
	free(fl);
}

/* SPESampleCollision(): selected while the previous sample is in flight: dropped, COLL set;
 * a PSB CSYNC completes the one in flight. */
static void test_collision(void **state)
{
	(void)state;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 6);
	start(&s, BASE + MEM, 0x100);
	struct sim_spe_env e = env_el1(fl);
	struct sim_work w = work(20000, 20); /* 257 operations in well under a cycle */
	sim_spe_exec(&s, &e, &w);
	assert_true(s.stats.collisions > 0);
	assert_true(s.bsr & PV_PMBSR_COLL);
	assert_false(s.bsr & PV_PMBSR_S); /* not a management event */
	assert_int_equal(count(fl, SIM_SPE_COLLIDED), s.stats.collisions);
	assert_true(s.busy_until > 0);
	sim_spe_psb(&s);
	assert_int_equal(s.busy_until, 0);
	sim_spe_log_free(&fl->log);
	free(fl);
}

/* CollectTimeStamp() (no FEAT_ECV), CollectPhysicalAddress(), CollectContextIDR1/2() for a
 * buffer owned by EL1. */
static void test_what_is_collected(void **state)
{
	(void)state;
	static const struct {
		uint64_t scr1, scr2;
		bool physical_ts, pa, ctx1, ctx2;
	} t[] = {
		{PV_PMSCR_TS | PV_BIT(6) | PV_PMSCR_PA | PV_PMSCR_CX, 0, false, false, true,
		 false},
		{PV_PMSCR_TS | PV_BIT(6) | PV_PMSCR_PA, PV_BIT(6) | PV_PMSCR_PA | PV_PMSCR_CX,
		 true, true, false, true},
		{PV_PMSCR_TS, PV_BIT(6) | PV_PMSCR_PA, false, false, false, false},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct flat *fl = calloc(1, sizeof(*fl));
		struct sim_spe s;
		sim_spe_init(&s, &CFG, 8);
		start(&s, BASE + MEM, 0x100);
		sim_spe_write(&s, 2, PV_PMSCR_EL1, PV_PMSCR_E1SPE | t[i].scr1);
		struct sim_spe_env e = env_el1(fl);
		e.pmscr_el2 = t[i].scr2;
		struct sim_work w;
		sim_work_profile(&w, SIM_PROF_MEM, 100000);
		sim_spe_exec(&s, &e, &w);
		unsigned with_va = 0;
		for (size_t k = 0; k < fl->log.n; k++) {
			const struct sim_spe_sample *o = &fl->log.s[k];
			assert_true(o->has_ts);
			uint64_t phys = o->ts + (t[i].physical_ts ? 0 : e.cntvoff);
			assert_true(phys >= e.cntpct && phys < e.cntpct + e.ticks);
			assert_int_equal(o->has_pa, t[i].pa && o->has_va);
			if (o->has_pa)
				assert_int_equal(o->pa, o->va + UINT64_C(0x80000000));
			with_va += o->has_va;
			assert_int_equal(o->has_ctx1, t[i].ctx1);
			assert_int_equal(o->has_ctx2, t[i].ctx2);
		}
		assert_true(with_va > 0);
		sim_spe_log_free(&fl->log);
		free(fl);
	}
}

/* Registers: UNDEF at EL0, PMSNEVFR_EL1 only with FnE, RO identification; fields; PMBIDR_EL1.P
 * from EL1 when EL2 owns the buffer, or always when EL3 kept SPE. */
static void test_registers(void **state)
{
	(void)state;
	struct sim_spe s;
	sim_spe_init(&s, &CFG, 1);
	uint64_t v;
	assert_false(sim_spe_has(&s, PV_PMSCR_EL1, true, 0));
	assert_true(sim_spe_has(&s, PV_PMSNEVFR_EL1, true, 1));
	assert_false(sim_spe_has(&s, PV_PMSIDR_EL1, false, 1));
	assert_false(sim_spe_has(&s, PV_PMSCR_EL2, true, 1));
	assert_int_equal(sim_spe_write(&s, 1, PV_PMSEVFR_EL1, ~UINT64_C(0)), SIM_ACC_OK);
	assert_int_equal(sim_spe_read(&s, 1, 2, PV_PMSEVFR_EL1, &v), SIM_ACC_OK);
	assert_int_equal(v, 0xFFE);
	sim_spe_write(&s, 1, PV_PMSCR_EL1, ~UINT64_C(0));
	sim_spe_read(&s, 1, 2, PV_PMSCR_EL1, &v);
	assert_int_equal(v, 0x7B);
	sim_spe_read(&s, 1, 2, PV_PMBIDR_EL1, &v);
	assert_int_equal(v & PV_PMBIDR_P, 0);
	sim_spe_read(&s, 1, 0, PV_PMBIDR_EL1, &v);
	assert_int_equal(v & PV_PMBIDR_P, PV_PMBIDR_P);
	sim_spe_read(&s, 2, 0, PV_PMBIDR_EL1, &v);
	assert_int_equal(v & (PV_PMBIDR_P | PV_PMBIDR_ALIGN), 6);
	sim_spe_read(&s, 1, 2, PV_PMSIDR_EL1, &v);
	assert_int_equal(PV_FIELD_GET(PV_PMSIDR_MAXSIZE, v), 7);
	assert_true(v & PV_PMSIDR_FNE);
	struct sim_spe_config v1 = CFG;
	v1.version = 1;
	v1.el3_owned = true;
	sim_spe_init(&s, &v1, 1);
	assert_false(sim_spe_has(&s, PV_PMSNEVFR_EL1, true, 1));
	assert_int_equal(sim_spe_read(&s, 2, 2, PV_PMSIDR_EL1, &v), SIM_ACC_UNDEF); /* to EL3 */
	sim_spe_read(&s, 2, 2, PV_PMBIDR_EL1, &v);
	assert_int_equal(v & PV_PMBIDR_P, PV_PMBIDR_P);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_exact),
		cmocka_unit_test(test_interval_random),
		cmocka_unit_test(test_no_counting_when_disabled),
		cmocka_unit_test(test_records_and_buffer_full),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_write_faults),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_collision),
		cmocka_unit_test(test_what_is_collected),
		cmocka_unit_test(test_registers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
