/* SPDX-License-Identifier: MIT */
/* vPMU: the fast word a host's exception entry reads (struct pv_vpmu_fast). What it marks
 * plain must be exactly what the trap path answers with the physical register and no other
 * effect, for every counter read, from EL0 and EL1, through every change of state that makes
 * a read not plain (not loaded, not yet active, a CHAIN counter, the guest's PMUSERENR_EL0,
 * PMSELR_EL0 = 31), and a served read counts as a PMU trap. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "esr.h"
#include "vpmu_fixture.h"

#define CC (1u << PV_PMU_CYCLE_IDX)
#define EN PV_PMUSERENR_EN
#define CR PV_PMUSERENR_CR
#define ER PV_PMUSERENR_ER

/* The reads a fast path may serve: PMEVCNTR<0..30>, then PMXEVCNTR, then PMCCNTR. */
#define NREADS 33
static uint32_t read_key(unsigned r)
{
	return r < 31 ? PV_PMEVCNTR_EL0(r) : r == 31 ? PV_PMXEVCNTR_EL0 : PV_PMCCNTR_EL0;
}

/* What the contract in vpmu.h lets a host answer for read r at `el`: true and the value, or
 * false (the trap goes to the library). Written from the comment, not from vpmu/. */
static bool host_serves(struct fx *f, const struct pv_vpmu_fast *w, unsigned r, unsigned el,
			uint64_t *val)
{
	uint32_t mask = el ? w->el1 : w->el0;
	unsigned xev = el ? w->xev_el1 : w->xev_el0;
	unsigned n = r < 31 ? r : r == 31 ? xev : PV_PMU_CYCLE_IDX;
	if (r == 31 ? n == 31 : !((mask >> n) & 1))
		return false;
	*val = r == 32 ? CELL(f, PV_PMCCNTR_EL0) : CELL(f, PV_PMEVCNTR_EL0(n)) & w->evcntr_mask;
	return true;
}

/* PMXEVCNTR_EL0 is plain exactly where PMEVCNTR<SEL>_EL0 is (both take one EL0 rule): the
 * word's two entries for it agree with its masks, whatever changed last. */
static void check_xev(const struct pv_vcpu *v)
{
	unsigned sel = v->pmu.selr;
	for (unsigned el = 0; el < 2; el++) {
		uint32_t mask = el ? v->fast.el1 : v->fast.el0;
		unsigned xev = el ? v->fast.xev_el1 : v->fast.xev_el0;
		assert_int_equal(xev, sel < 31 && ((mask >> sel) & 1) ? sel : 31);
	}
}

/* For every read and both ELs the fast word marks plain: the trap path gives the same value,
 * handled, writes nothing and changes no state. Returns how many were plain. */
static unsigned check_plain_reads(struct fx *f, struct pv_vcpu *v)
{
	unsigned plain = 0;
	for (unsigned r = 0; r < NREADS; r++) {
		for (unsigned el = 0; el < 2; el++) {
			uint64_t want;
			if (!host_serves(f, &v->fast, r, el, &want))
				continue;
			plain++;
			struct pv_vpmu before = v->pmu;
			struct pv_vpmu_fast fast = v->fast;
			uint64_t writes = f->mc.writes, traps = v->stats.traps[PV_KIND_PMU];
			uint64_t x[31] = {0};
			enum pv_trap_result res = pv_trap(v, esr_sys(read_key(r), 7, true), el,
							  x);
			if (res != PV_TRAP_HANDLED || x[7] != want)
				fail_msg(
					"read %u at EL%u marked plain: the trap path gives %d, "
					"0x%llx, not 0x%llx",
					r, el, res, (unsigned long long)x[7],
					(unsigned long long)want);
			assert_int_equal(f->mc.writes, writes);
			assert_memory_equal(&before, &v->pmu, sizeof(before));
			assert_memory_equal(&fast, &v->fast, sizeof(fast));
			assert_int_equal(v->stats.traps[PV_KIND_PMU], traps + 1);
		}
	}
	return plain;
}

static void wr_el1(struct pv_vcpu *v, uint32_t key, uint64_t val)
{
	uint64_t x[31] = {0};
	x[3] = val;
	assert_int_equal(pv_trap(v, esr_sys(key, 3, false), 1, x), PV_TRAP_HANDLED);
}

static void test_states(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3P5, 4, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	assert_true(v->fast.evcntr_mask == UINT64_MAX); /* 64-bit counters from PMUv3p5 */

	/* Loaded but never touched: the first access activates, so nothing is plain. */
	fx_load(f, 0);
	assert_int_equal(v->fast.el1, 0);
	assert_int_equal(v->fast.el0, 0);
	/* Active and loaded: the VM's four counters and the cycle counter, from EL1; nothing
	 * from EL0 while PMUSERENR_EL0 is 0 (those reads go to the guest's EL1). */
	wr_el1(v, PV_PMSELR_EL0, 2);
	assert_int_equal(v->fast.el1, 0xF | CC);
	assert_int_equal(v->fast.el0, 0);
	assert_int_equal(v->fast.xev_el1, 2);
	assert_int_equal(v->fast.xev_el0, 31);
	assert_int_equal(check_plain_reads(f, v), 5 + 1);

	/* PMUSERENR_EL0: ER opens the event counters (and PMXEVCNTR), CR the cycle counter,
	 * EN both. */
	wr_el1(v, PV_PMUSERENR_EL0, ER);
	assert_int_equal(v->fast.el0, 0xF);
	wr_el1(v, PV_PMUSERENR_EL0, CR);
	assert_int_equal(v->fast.el0, CC);
	wr_el1(v, PV_PMUSERENR_EL0, EN);
	assert_int_equal(v->fast.el0, 0xF | CC);
	assert_int_equal(check_plain_reads(f, v), 2 * 6);

	/* A CHAIN counter (odd) folds pending overflows before a read: not plain. CHAIN on
	 * an even counter is not chained, so stays plain. */
	wr_el1(v, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	wr_el1(v, PV_PMEVTYPER_EL0(2), PV_EVT_CHAIN);
	assert_int_equal(v->fast.el1, 0xD | CC);
	wr_el1(v, PV_PMEVTYPER_EL0(1), 0x11);
	assert_int_equal(v->fast.el1, 0xF | CC);

	/* PMSELR_EL0.SEL = 31 names no event counter: PMXEVCNTR_EL0 is UNDEFINED there. */
	wr_el1(v, PV_PMSELR_EL0, 31);
	assert_int_equal(v->fast.xev_el1, 31);
	assert_int_equal(v->fast.xev_el0, 31);
	/* SEL = 5 is past the VM's counters: not plain either (the trap path UNDEFs it). */
	wr_el1(v, PV_PMSELR_EL0, 5);
	assert_int_equal(v->fast.xev_el1, 31);
	/* A CHAIN counter is not plain through PMXEVCNTR_EL0 either. */
	wr_el1(v, PV_PMSELR_EL0, 1);
	assert_int_equal(v->fast.xev_el1, 1);
	assert_int_equal(v->fast.xev_el0, 1);
	wr_el1(v, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	assert_int_equal(v->fast.xev_el1, 31);
	wr_el1(v, PV_PMEVTYPER_EL0(1), 0x11);
	check_plain_reads(f, v);

	/* Put: nothing is plain until the next load, which restores the same word. */
	wr_el1(v, PV_PMSELR_EL0, 2);
	fx_put(f, 0);
	assert_int_equal(v->fast.el1, 0);
	assert_int_equal(v->fast.el0, 0);
	assert_int_equal(v->fast.xev_el1, 31);
	assert_int_equal(v->fast.xev_el0, 31);
	fx_load(f, 0);
	assert_int_equal(v->fast.el1, 0xF | CC);
	free(f);
}

/* Before PMUv3p5 an event counter reads as 32 bits, whatever the hardware holds. */
static void test_width(void **state)
{
	(void)state;
	struct fx *f = fx_new();
	assert_int_equal(fx_vm(f, PV_PMUVER_V3, 2, NULL, 0), PV_OK);
	struct pv_vcpu *v = &f->v[0];
	assert_true(v->fast.evcntr_mask == UINT64_C(0xFFFFFFFF));
	fx_load(f, 0);
	wr_el1(v, PV_PMSELR_EL0, 1);
	CELL(f, PV_PMEVCNTR_EL0(1)) = UINT64_C(0xAB00000005);
	CELL(f, PV_PMCCNTR_EL0) = UINT64_C(0xAB00000005);
	uint64_t val;
	assert_true(host_serves(f, &v->fast, 1, 1, &val));
	assert_int_equal(val, 5);
	assert_true(host_serves(f, &v->fast, 32, 1, &val));
	assert_true(val == UINT64_C(0xAB00000005)); /* PMCCNTR_EL0 is 64-bit in every version */
	assert_int_equal(check_plain_reads(f, v), 4);
	free(f);
}

/* Random sequences of what a guest and a host do; after each step every plain read is the
 * trap path's answer with no effect, and a vCPU that is not loaded has nothing plain. */
static void test_random_sequences(void **state)
{
	(void)state;
	uint64_t seed = 0x9E3779B97F4A7C15u;
	unsigned plain = 0;
	for (unsigned round = 0; round < 40; round++) {
		struct fx *f = fx_new();
		assert_int_equal(fx_vm(f, round & 1 ? PV_PMUVER_V3 : PV_PMUVER_V3P5,
				       (uint8_t)(1 + round % 6), NULL, 0),
				 PV_OK);
		int loaded = -1;
		for (unsigned step = 0; step < 200; step++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(seed >> 33);
			struct pv_vcpu *v = &f->v[r & 1];
			unsigned n = (r >> 1) % 7;
			switch ((r >> 4) % 8) {
			case 0: /* a switch */
				if (loaded >= 0)
					fx_put(f, (unsigned)loaded);
				loaded = loaded == (int)(r & 1) ? -1 : (int)(r & 1);
				if (loaded >= 0)
					fx_load(f, (unsigned)loaded);
				break;
			case 1:
				if (n < v->vm->pmu.nr_counters)
					wr_el1(v, PV_PMEVTYPER_EL0(n),
					       (r >> 8) & 1 ? PV_EVT_CHAIN : (r >> 9) & 0x1F);
				break;
			case 2:
				wr_el1(v, PV_PMUSERENR_EL0, (r >> 8) & 0xF);
				break;
			case 3:
				wr_el1(v, PV_PMSELR_EL0, (r >> 8) & 31);
				break;
			case 4: /* the hardware counts */
				CELL(f, PV_PMEVCNTR_EL0(n)) = seed;
				CELL(f, PV_PMCCNTR_EL0) = ~seed;
				break;
			case 5:
				wr_el1(v, PV_PMCR_EL0, (r >> 8) & 0x7F);
				break;
			default:
				break;
			}
			for (unsigned i = 0; i < 2; i++) {
				struct pv_vcpu *w = &f->v[i];
				check_xev(w);
				if (loaded != (int)i) { /* another vCPU's counters are there */
					uint64_t val;
					for (unsigned k = 0; k < NREADS; k++)
						for (unsigned el = 0; el < 2; el++)
							assert_false(host_serves(f, &w->fast, k,
										 el, &val));
					continue;
				}
				plain += check_plain_reads(f, w);
			}
		}
		free(f);
	}
	assert_true(plain > 1000); /* the property was exercised, not vacuous */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_random_sequences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
