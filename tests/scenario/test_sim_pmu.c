/* SPDX-License-Identifier: MIT */
/*
 * Self-test of the machine model's PMUv3 against the Arm ARM, programming the model directly
 * (no library): filtering by exception level and security state, the HPMN/HPME split, EL2
 * prohibition, overflow widths, CHAIN, the interrupt request level, PMCR resets, and the
 * access routing of guest register accesses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim.h"

static struct sim_pmu_config cfg(unsigned n, unsigned version, bool el3)
{
	return (struct sim_pmu_config){.counters = (uint8_t)n,
				       .version = (uint8_t)version,
				       .idcode = 1,
				       .slots = 4,
				       .events = sim_ev_common_mask(),
				       .el3 = el3};
}

static struct sim_work insts(uint64_t n)
{
	struct sim_work w = {0};
	w.ev[SIM_EV_INST_RETIRED] = n;
	w.ev[SIM_EV_CPU_CYCLES] = n * 2;
	return w;
}

static const struct sim_pmu_ctx EL2_CTX = {.el = 2, .mdcr = 6};

static void wr(struct sim_pmu *p, uint32_t key, uint64_t v)
{
	assert_int_equal(sim_pmu_write(p, &EL2_CTX, key, v), SIM_ACC_OK);
}

/* Counter 0 counts INST_RETIRED with `filter`; everything enabled, HPMN = N. */
static void setup_one(struct sim_pmu *p, uint64_t filter)
{
	wr(p, PV_PMEVTYPER_EL0(0), filter | PV_EVT_INST_RETIRED);
	wr(p, PV_PMCCFILTR_EL0, filter);
	wr(p, PV_PMCNTENSET_EL0, 1u | 1u << 31);
	wr(p, PV_PMCR_EL0, PV_PMCR_E);
}

static void test_filter_no_el3(void **state)
{
	(void)state;
	/* Without EL3, NSK, NSU and M are RES0: EL0 uses U, EL1 uses P, EL2 counts iff NSH. */
	for (unsigned bits = 0; bits < 256; bits++) {
		uint64_t f = (uint64_t)bits << 24;
		struct sim_pmu p;
		struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
		sim_pmu_init(&p, &c);
		setup_one(&p, f);
		for (unsigned el = 0; el <= 2; el++) {
			struct sim_pmu_ctx x = {.el = el, .mdcr = 6};
			bool want = el == 0   ? !(f & PV_PMEVTYPER_U)
				    : el == 1 ? !(f & PV_PMEVTYPER_P)
					      : (f & PV_PMEVTYPER_NSH) != 0;
			assert_int_equal(sim_pmu_counting(&p, &x, 0), want);
			assert_int_equal(sim_pmu_counting(&p, &x, 31), want);
			if (el < 2)
				assert_int_equal(sim_filter_ns_els(f, false) >> el & 1, want);
		}
	}
}

static void test_filter_el3(void **state)
{
	(void)state;
	/* With EL3: NS EL0 counted iff U == NSU, NS EL1 iff P == NSK, EL3 iff M == P, Secure
	 * EL1/EL0 by P/U; Secure state and EL3 only when firmware allows (SPME). */
	for (unsigned spme = 0; spme < 2; spme++) {
		for (unsigned bits = 0; bits < 64; bits++) {
			uint64_t f = (uint64_t)bits << 26; /* P U NSK NSU NSH M */
			bool P = f & PV_PMEVTYPER_P, U = f & PV_PMEVTYPER_U;
			bool NSK = f & PV_PMEVTYPER_NSK, NSU = f & PV_PMEVTYPER_NSU;
			bool M = f & PV_PMEVTYPER_M, NSH = f & PV_PMEVTYPER_NSH;
			struct sim_pmu p;
			struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, true);
			c.secure_counting = spme;
			sim_pmu_init(&p, &c);
			setup_one(&p, f);
			struct {
				unsigned el;
				bool secure, want;
			} rows[] = {
				{0, false, U == NSU},  {1, false, P == NSK},
				{2, false, NSH},       {0, true, spme && !U},
				{1, true, spme && !P}, {3, true, spme && M == P},
			};
			for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
				struct sim_pmu_ctx x = {
					.el = rows[i].el, .secure = rows[i].secure, .mdcr = 6};
				assert_int_equal(sim_pmu_counting(&p, &x, 0), rows[i].want);
			}
			assert_int_equal(sim_filter_ns_els(f, true), (U == NSU) | (P == NSK)
											  << 1);
		}
	}
}

static void test_secure_cycle_counter_dp(void **state)
{
	(void)state;
	/* Prohibited counting stops the cycle counter only with PMCR_EL0.DP. */
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, true);
	sim_pmu_init(&p, &c);
	setup_one(&p, 0);
	struct sim_pmu_ctx s = {.el = 1, .secure = true, .mdcr = 6};
	assert_false(sim_pmu_counting(&p, &s, 0));
	assert_true(sim_pmu_counting(&p, &s, 31));
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_DP);
	assert_false(sim_pmu_counting(&p, &s, 31));
}

static void test_hpmn_split(void **state)
{
	(void)state;
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	for (unsigned i = 0; i < 6; i++)
		wr(&p, PV_PMEVTYPER_EL0(i), PV_PMEVTYPER_NSH | PV_EVT_INST_RETIRED);
	wr(&p, PV_PMCCFILTR_EL0, PV_PMEVTYPER_NSH);
	wr(&p, PV_PMCNTENSET_EL0, 0x8000003F);
	uint64_t hpmn4 = 4;
	struct sim_pmu_ctx g = {.el = 1, .mdcr = hpmn4};
	/* PMCR.E enables [0, HPMN) and the cycle counter, HPME enables [HPMN, N). */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(sim_pmu_counting(&p, &g, i), i < 4);
	assert_true(sim_pmu_counting(&p, &g, 31));
	wr(&p, PV_PMCR_EL0, 0);
	g.mdcr = hpmn4 | PV_MDCR_EL2_HPME;
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(sim_pmu_counting(&p, &g, i), i >= 4);
	assert_false(sim_pmu_counting(&p, &g, 31));
	/* HPMD prohibits EL2 counting of [0, HPMN) only; the cycle counter keeps counting
	 * unless DP; HCCD stops it. */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	struct sim_pmu_ctx h = {.el = 2, .mdcr = hpmn4 | PV_MDCR_EL2_HPME | PV_MDCR_EL2_HPMD};
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(sim_pmu_counting(&p, &h, i), i >= 4);
	assert_true(sim_pmu_counting(&p, &h, 31));
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_DP);
	assert_false(sim_pmu_counting(&p, &h, 31));
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	h.mdcr |= PV_MDCR_EL2_HCCD;
	assert_false(sim_pmu_counting(&p, &h, 31));
	/* HPMN above N behaves as N. */
	struct sim_pmu_ctx big = {.el = 1, .mdcr = 31};
	assert_int_equal(sim_pmu_hpmn(&p, big.mdcr), 6);
}

static void test_overflow_widths(void **state)
{
	(void)state;
	struct sim_pmu_ctx el1 = {.el = 1, .mdcr = 6};
	struct sim_work w = insts(16);

	/* PMUv3 (before p5): 32-bit counters wrap. */
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P4, false);
	sim_pmu_init(&p, &c);
	setup_one(&p, 0);
	wr(&p, PV_PMEVCNTR_EL0(0), UINT64_C(0x1FFFFFFF8)); /* upper bits dropped */
	assert_int_equal(p.evcntr[0], 0xFFFFFFF8u);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.evcntr[0], 8);
	assert_int_equal(p.ovs, 1);

	/* PMUv3p5, LP = 0: overflow at 2^32, the counter keeps its 64 bits. */
	c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	setup_one(&p, 0);
	wr(&p, PV_PMEVCNTR_EL0(0), 0xFFFFFFF8u);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.evcntr[0], UINT64_C(0x100000008));
	assert_int_equal(p.ovs & 1, 1);
	/* LP = 1: no overflow at 2^32, overflow at 2^64. */
	wr(&p, PV_PMOVSCLR_EL0, ~0u);
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LP);
	wr(&p, PV_PMEVCNTR_EL0(0), 0xFFFFFFF8u);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.ovs & 1, 0);
	wr(&p, PV_PMEVCNTR_EL0(0), UINT64_MAX - 7);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.evcntr[0], 8);
	assert_int_equal(p.ovs & 1, 1);
	/* The cycle counter: 32-bit overflow unless LC (RES1 without AArch32). */
	assert_true(sim_pmu_counting(&p, &el1, 31));
	wr(&p, PV_PMCCNTR_EL0, 0xFFFFFFF0u);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.ccntr, UINT64_C(0x100000010));
	assert_int_equal(p.ovs >> 31, 0);

	/* Second range uses MDCR_EL2.HLP. */
	c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	wr(&p, PV_PMEVTYPER_EL0(5), PV_PMEVTYPER_NSH | PV_EVT_INST_RETIRED);
	wr(&p, PV_PMCNTENSET_EL0, 1u << 5);
	wr(&p, PV_PMEVCNTR_EL0(5), 0xFFFFFFF8u);
	struct sim_pmu_ctx h = {.el = 2, .mdcr = 4 | PV_MDCR_EL2_HPME | PV_MDCR_EL2_HLP};
	sim_pmu_count(&p, &h, &w);
	assert_int_equal(p.ovs, 0);
	h.mdcr &= ~PV_MDCR_EL2_HLP;
	wr(&p, PV_PMEVCNTR_EL0(5), 0xFFFFFFF8u);
	sim_pmu_count(&p, &h, &w);
	assert_int_equal(p.ovs, 1u << 5);
}

static void test_bulk_wraps(void **state)
{
	(void)state;
	/* Adding k > 2^32 at once crosses the 32-bit boundary exactly floor((v + k) / 2^32)
	 * times; each crossing is one CHAIN increment of the odd counter. */
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	wr(&p, PV_PMEVTYPER_EL0(0), PV_EVT_INST_RETIRED);
	wr(&p, PV_PMEVTYPER_EL0(1), PV_EVT_CHAIN);
	wr(&p, PV_PMCNTENSET_EL0, 3);
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	wr(&p, PV_PMEVCNTR_EL0(0), 0xFFFFFF00u);
	struct sim_pmu_ctx el1 = {.el = 1, .mdcr = 6};
	struct sim_work w = insts(UINT64_C(3) << 32);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.evcntr[0], 0xFFFFFF00u + (UINT64_C(3) << 32));
	assert_int_equal(p.evcntr[1], 3);
	assert_int_equal(p.overflows[0], 3);
	/* 64-bit overflow (LP): no CHAIN. */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LP);
	wr(&p, PV_PMEVCNTR_EL0(0), UINT64_MAX);
	w = insts(2);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.evcntr[0], 1);
	assert_int_equal(p.evcntr[1], 3);
	/* Even and odd counters in different ranges: no CHAIN (this model's choice for the
	 * CONSTRAINED UNPREDICTABLE case). */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	wr(&p, PV_PMEVCNTR_EL0(0), 0xFFFFFFFFu);
	struct sim_pmu_ctx split = {.el = 1, .mdcr = 1 | PV_MDCR_EL2_HPME};
	sim_pmu_count(&p, &split, &w);
	assert_int_equal(p.evcntr[1], 3);
}

static void test_swinc_chain(void **state)
{
	(void)state;
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	wr(&p, PV_PMEVTYPER_EL0(2), PV_EVT_SW_INCR);
	wr(&p, PV_PMEVTYPER_EL0(3), PV_EVT_CHAIN);
	wr(&p, PV_PMEVTYPER_EL0(4), PV_EVT_SW_INCR | PV_PMEVTYPER_P);
	wr(&p, PV_PMCNTENSET_EL0, 0x1C);
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	wr(&p, PV_PMEVCNTR_EL0(2), 0xFFFFFFFEu);
	struct sim_pmu_ctx el1 = {.el = 1, .mdcr = 6};
	for (int i = 0; i < 3; i++)
		assert_int_equal(sim_pmu_write(&p, &el1, PV_PMSWINC_EL0, 0x14), SIM_ACC_OK);
	assert_int_equal(p.evcntr[2], UINT64_C(0x100000001));
	assert_int_equal(p.evcntr[3], 1);
	assert_int_equal(p.evcntr[4], 0); /* filtered at EL1 */
	/* At EL1 with HPMN = 2, PMSWINC bits >= HPMN are ignored. */
	struct sim_pmu_ctx g = {.el = 1, .mdcr = 2};
	sim_pmu_write(&p, &g, PV_PMSWINC_EL0, 0x4);
	assert_int_equal(p.evcntr[2], UINT64_C(0x100000001));
}

static void test_irq_level(void **state)
{
	(void)state;
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	uint64_t mdcr = 4;
	wr(&p, PV_PMOVSSET_EL0, 1u << 1);
	assert_false(sim_pmu_irq(&p, mdcr)); /* no PMINTEN */
	wr(&p, PV_PMINTENSET_EL1, 1u << 1);
	assert_false(sim_pmu_irq(&p, mdcr)); /* PMCR.E = 0 */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	assert_true(sim_pmu_irq(&p, mdcr));
	wr(&p, PV_PMOVSCLR_EL0, 1u << 1);
	assert_false(sim_pmu_irq(&p, mdcr));
	/* Counter 5 >= HPMN: HPME, not PMCR.E. */
	wr(&p, PV_PMOVSSET_EL0, 1u << 5);
	wr(&p, PV_PMINTENSET_EL1, 1u << 5);
	assert_false(sim_pmu_irq(&p, mdcr));
	assert_true(sim_pmu_irq(&p, mdcr | PV_MDCR_EL2_HPME));
	wr(&p, PV_PMCR_EL0, 0);
	assert_true(sim_pmu_irq(&p, mdcr | PV_MDCR_EL2_HPME));
	wr(&p, PV_PMOVSCLR_EL0, ~0u);
	/* Cycle counter: like the first range. */
	wr(&p, PV_PMOVSSET_EL0, 1u << 31);
	wr(&p, PV_PMINTENSET_EL1, 1u << 31);
	assert_false(sim_pmu_irq(&p, mdcr | PV_MDCR_EL2_HPME));
	wr(&p, PV_PMCR_EL0, PV_PMCR_E);
	assert_true(sim_pmu_irq(&p, mdcr));
}

static void test_registers(void **state)
{
	(void)state;
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&p, &c);
	struct sim_pmu_ctx g = {.el = 1, .mdcr = 4};
	uint64_t v;
	/* PMCR_EL0: IMP 0x41, N = HPMN below EL2, LC RES1 without AArch32. */
	assert_int_equal(sim_pmu_read(&p, &g, PV_PMCR_EL0, &v), SIM_ACC_OK);
	assert_int_equal(v, 0x41010000u | 4u << 11 | PV_PMCR_LC);
	assert_int_equal(sim_pmu_read(&p, &EL2_CTX, PV_PMCR_EL0, &v), SIM_ACC_OK);
	assert_int_equal(v >> 11 & 31, 6);
	/* Set/clear pairs over one state, masked to what the EL reaches. */
	assert_int_equal(sim_pmu_write(&p, &g, PV_PMCNTENSET_EL0, ~0u), SIM_ACC_OK);
	sim_pmu_read(&p, &EL2_CTX, PV_PMCNTENCLR_EL0, &v);
	assert_int_equal(v, 0x8000000Fu);
	sim_pmu_write(&p, &EL2_CTX, PV_PMCNTENSET_EL0, 0x30);
	sim_pmu_write(&p, &g, PV_PMCNTENCLR_EL0, ~0u);
	sim_pmu_read(&p, &EL2_CTX, PV_PMCNTENSET_EL0, &v);
	assert_int_equal(v, 0x30);
	/* Counters n >= HPMN UNDEF from EL1; the encoding n >= N does not exist. */
	assert_int_equal(sim_pmu_read(&p, &g, PV_PMEVCNTR_EL0(4), &v), SIM_ACC_UNDEF);
	assert_int_equal(sim_pmu_read(&p, &EL2_CTX, PV_PMEVCNTR_EL0(5), &v), SIM_ACC_OK);
	assert_false(sim_pmu_has(&p, PV_PMEVCNTR_EL0(6), true));
	assert_false(sim_pmu_has(&p, PV_PMCEID0_EL0, false));
	assert_false(sim_pmu_has(&p, PV_PMSWINC_EL0, true));
	/* PMCR.P from EL1 zeroes [0, HPMN) only; from EL2 all; C zeroes the cycle counter. */
	for (unsigned i = 0; i < 6; i++)
		wr(&p, PV_PMEVCNTR_EL0(i), 100 + i);
	wr(&p, PV_PMCCNTR_EL0, 77);
	sim_pmu_write(&p, &g, PV_PMCR_EL0, PV_PMCR_P);
	assert_int_equal(p.evcntr[3], 0);
	assert_int_equal(p.evcntr[4], 104);
	assert_int_equal(p.ccntr, 77);
	sim_pmu_write(&p, &EL2_CTX, PV_PMCR_EL0, PV_PMCR_P | PV_PMCR_C);
	assert_int_equal(p.evcntr[5], 0);
	assert_int_equal(p.ccntr, 0);
	/* PMEVTYPER keeps only implemented bits: no NSK/NSU/M without EL3, 16-bit events. */
	wr(&p, PV_PMEVTYPER_EL0(0), UINT64_C(0xFFFFFFFFFFFFFFFF));
	assert_int_equal(p.evtyper[0],
			 PV_PMEVTYPER_P | PV_PMEVTYPER_U | PV_PMEVTYPER_NSH | 0xFFFF);
	/* PMXEVTYPER with SEL = 31 is PMCCFILTR. */
	wr(&p, PV_PMSELR_EL0, 31);
	wr(&p, PV_PMXEVTYPER_EL0, PV_PMEVTYPER_P | 0x11);
	assert_int_equal(p.ccfiltr, PV_PMEVTYPER_P);
	/* PMCEID0: SW_INCR, the modelled events, CHAIN. */
	sim_pmu_read(&p, &g, PV_PMCEID0_EL0, &v);
	assert_int_equal(v & 1, 1);
	assert_int_equal(v >> PV_EVT_INST_RETIRED & 1, 1);
	assert_int_equal(v >> PV_EVT_CHAIN & 1, 1);
	/* PMUSERENR gates EL0. */
	assert_false(sim_pmu_el0_allowed(&p, PV_PMCCNTR_EL0, true));
	assert_true(sim_pmu_el0_allowed(&p, PV_PMUSERENR_EL0, true));
	wr(&p, PV_PMUSERENR_EL0, PV_PMUSERENR_CR);
	assert_true(sim_pmu_el0_allowed(&p, PV_PMCCNTR_EL0, true));
	assert_false(sim_pmu_el0_allowed(&p, PV_PMCCNTR_EL0, false));
	assert_true(sim_pmu_el1_reg(PV_PMINTENSET_EL1));
}

static void test_divider(void **state)
{
	(void)state;
	struct sim_pmu p;
	struct sim_pmu_config c = cfg(6, PV_PMUVER_V3P4, false);
	c.aarch32 = true; /* LC is RW */
	sim_pmu_init(&p, &c);
	setup_one(&p, 0);
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_D);
	struct sim_pmu_ctx el1 = {.el = 1, .mdcr = 6};
	struct sim_work w = insts(50); /* 100 cycles */
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.ccntr, 1);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.ccntr, 3); /* 200 cycles: 3 ticks of 64 */
	wr(&p, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_D | PV_PMCR_LC);
	sim_pmu_count(&p, &el1, &w);
	assert_int_equal(p.ccntr, 103);
}

static void test_work_split(void **state)
{
	(void)state;
	struct sim_work w, a, b;
	sim_work_profile(&w, SIM_PROF_MEM, 1000003);
	uint64_t cyc = w.ev[SIM_EV_CPU_CYCLES];
	sim_work_split(&w, cyc / 3, &a, &b);
	assert_int_equal(a.ev[SIM_EV_CPU_CYCLES], cyc / 3);
	for (int i = 0; i < SIM_EV_COUNT; i++) {
		assert_int_equal(a.ev[i] + b.ev[i], w.ev[i]);
		assert_int_equal(a.ev[i],
				 (uint64_t)((unsigned __int128)w.ev[i] * (cyc / 3) / cyc));
	}
}

static void test_id_registers(void **state)
{
	(void)state;
	struct sim_config c;
	sim_config_default(&c);
	uint64_t id[64];
	sim_id_init(id, &c);
	uint64_t dfr0 = id[PV_ID_SLOT(PV_ID_AA64DFR0_EL1)];
	uint64_t pfr0 = id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)];
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMUVER), PV_PMUVER_V3P5);
	assert_int_equal(PV_ID_FIELD(dfr0, PV_ID_AA64DFR0_PMSVER), 0);
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL3_STATES), 0);
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL1_STATES), 1);
	c.el3 = true;
	c.aarch32 = true;
	c.pmu.version = PV_PMUVER_V3;
	sim_id_init(id, &c);
	pfr0 = id[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)];
	assert_int_equal(PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL3_STATES), 2);
	assert_int_equal(PV_ID_FIELD(id[PV_ID_SLOT(PV_ID_DFR0_EL1)], PV_ID_DFR0_PERFMON), 3);
}

/* Routing of guest accesses on a pCPU: UNDEFINED first, then PMUSERENR (EL0, to EL1), then
 * MDCR_EL2.TPM / TPMCR and HCR_EL2.TID3 (to EL2). */
static void test_routing(void **state)
{
	(void)state;
	static struct sim_machine m; /* only cfg is used */
	sim_config_default(&m.cfg);
	struct sim_cpu *c = &m.cpu[0];
	c->m = &m;
	struct sim_pmu_config pc = cfg(6, PV_PMUVER_V3P5, false);
	sim_pmu_init(&c->pmu, &pc);
	c->mdcr = 4;
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, true, 0), SIM_ROUTE_EL1);
	assert_int_equal(sim_cpu_route(c, PV_PMUSERENR_EL0, true, 0), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMUSERENR_EL0, false, 0), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMINTENSET_EL1, true, 0), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(6), true, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMCEID0_EL0, false, 1), SIM_ROUTE_UNDEF);
	c->mdcr |= PV_MDCR_EL2_TPMCR;
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMCCNTR_EL0, true, 1), SIM_ROUTE_DIRECT);
	c->mdcr |= PV_MDCR_EL2_TPM;
	assert_int_equal(sim_cpu_route(c, PV_PMCCNTR_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(5), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMCCNTR_EL0, true, 0), SIM_ROUTE_EL1);
	c->pmu.userenr = PV_PMUSERENR_EN;
	assert_int_equal(sim_cpu_route(c, PV_PMCCNTR_EL0, true, 0), SIM_ROUTE_EL2);
	/* ID group. */
	assert_int_equal(sim_cpu_route(c, PV_ID_AA64DFR0_EL1, true, 1), SIM_ROUTE_DIRECT);
	c->hcr = PV_HCR_EL2_TID3;
	assert_int_equal(sim_cpu_route(c, PV_ID_AA64DFR0_EL1, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_SYSREG(3, 0, 0, 7, 7), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_ID_AA64DFR0_EL1, false, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_ID_AA64DFR0_EL1, true, 0), SIM_ROUTE_UNDEF);
	m.cfg.idst = true;
	assert_int_equal(sim_cpu_route(c, PV_ID_AA64DFR0_EL1, true, 0), SIM_ROUTE_EL1);
	/* EL2 registers and unknown encodings are UNDEFINED from the guest. */
	assert_int_equal(sim_cpu_route(c, PV_MDCR_EL2, true, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMSCR_EL1, true, 1), SIM_ROUTE_UNDEF);
	/* FEAT_FGT (Arm ARM D24.2, HDFGRTR_EL2 and HDFGWTR_EL2): with TPM clear, a register's
	 * own bit traps its MRS (HDFGRTR) or its MSR (HDFGWTR) to EL2; PMCR_EL0 reads have no bit
	 * (TPMCR traps them); the EL0 check comes first; a counter past HPMN traps before it
	 * UNDEFs. Without the feature the registers do nothing. */
	c->mdcr = 4;
	c->hcr = 0;
	c->pmu.userenr = 0;
	c->hdfgrtr = c->hdfgwtr = ~UINT64_C(0);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(0), true, 1), SIM_ROUTE_DIRECT);
	m.cfg.fgt = true;
	c->hdfgrtr = PV_HDFGRTR_EL2_PMEVCNTRn_EL0;
	c->hdfgwtr = 0;
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(0), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(5), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(0), false, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMEVTYPER_EL0(0), true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMCCNTR_EL0, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(0), true, 0), SIM_ROUTE_EL1);
	c->pmu.userenr = PV_PMUSERENR_ER;
	assert_int_equal(sim_cpu_route(c, PV_PMEVCNTR_EL0(0), true, 0), SIM_ROUTE_EL2);
	c->pmu.userenr = 0;
	c->hdfgwtr = PV_HDFGWTR_EL2_PMCR_EL0 | PV_HDFGWTR_EL2_PMSWINC_EL0;
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, false, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMSWINC_EL0, false, 1), SIM_ROUTE_EL2);
	/* PMCCFILTR_EL0 has PMEVTYPER31's encoding and a bit of its own. */
	c->hdfgrtr = PV_HDFGRTR_EL2_PMCCFILTR_EL0;
	assert_int_equal(sim_cpu_route(c, PV_PMCCFILTR_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMEVTYPER_EL0(3), true, 1), SIM_ROUTE_DIRECT);
	c->hdfgrtr = PV_HDFGRTR_EL2_PMEVTYPERn_EL0;
	assert_int_equal(sim_cpu_route(c, PV_PMEVTYPER_EL0(3), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMXEVTYPER_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMCCFILTR_EL0, true, 1), SIM_ROUTE_DIRECT);
	static const struct {
		uint32_t key;
		uint64_t bit;
	} one[] = {
		{PV_PMCCNTR_EL0, PV_HDFGRTR_EL2_PMCCNTR_EL0},
		{PV_PMCNTENSET_EL0, PV_HDFGRTR_EL2_PMCNTEN},
		{PV_PMCNTENCLR_EL0, PV_HDFGRTR_EL2_PMCNTEN},
		{PV_PMINTENSET_EL1, PV_HDFGRTR_EL2_PMINTEN},
		{PV_PMINTENCLR_EL1, PV_HDFGRTR_EL2_PMINTEN},
		{PV_PMOVSSET_EL0, PV_HDFGRTR_EL2_PMOVS},
		{PV_PMOVSCLR_EL0, PV_HDFGRTR_EL2_PMOVS},
		{PV_PMSELR_EL0, PV_HDFGRTR_EL2_PMSELR_EL0},
		{PV_PMUSERENR_EL0, PV_HDFGRTR_EL2_PMUSERENR_EL0},
		{PV_PMMIR_EL1, PV_HDFGRTR_EL2_PMMIR_EL1},
		{PV_PMCEID0_EL0, PV_HDFGRTR_EL2_PMCEIDn_EL0},
		{PV_PMCEID1_EL0, PV_HDFGRTR_EL2_PMCEIDn_EL0},
	};
	for (unsigned i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		c->hdfgrtr = one[i].bit;
		assert_int_equal(sim_cpu_route(c, one[i].key, true, 1), SIM_ROUTE_EL2);
		c->hdfgrtr = ~one[i].bit;
		assert_int_equal(sim_cpu_route(c, one[i].key, true, 1), SIM_ROUTE_DIRECT);
	}
	/* PMXEVCNTR_EL0 (SEL = 31 too) and PMXEVTYPER_EL0 (SEL = 31 is PMCCFILTR_EL0) selecting a
	 * counter the PE does not implement: UNDEFINED with FEAT_FGT, before PMUSERENR_EL0 and
	 * TPM (D24.5.27, D24.5.28); one it implements past HPMN traps to EL2 after them. Without
	 * the feature the traps come first. */
	c->hdfgrtr = 0;
	c->hdfgwtr = 0;
	c->mdcr = 4 | PV_MDCR_EL2_TPM;
	static const unsigned past_n[] = {6, 30, 31};
	for (unsigned i = 0; i < sizeof(past_n) / sizeof(past_n[0]); i++) {
		c->pmu.selr = past_n[i];
		for (unsigned el = 0; el < 2; el++) {
			enum sim_route trap = el ? SIM_ROUTE_EL2 : SIM_ROUTE_EL1;
			assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, el),
					 SIM_ROUTE_UNDEF);
			assert_int_equal(sim_cpu_route(c, PV_PMXEVTYPER_EL0, el == 0, el),
					 past_n[i] == 31 ? trap : SIM_ROUTE_UNDEF);
			m.cfg.fgt = false;
			assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, el), trap);
			m.cfg.fgt = true;
		}
	}
	c->pmu.selr = 5;
	assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, 0), SIM_ROUTE_EL1);
	assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, 1), SIM_ROUTE_EL2);
	c->mdcr = 4;
	c->pmu.userenr = PV_PMUSERENR_EN;
	assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, false, 0), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_PMXEVTYPER_EL0, true, 1), SIM_ROUTE_EL2);
	c->pmu.selr = 3;
	assert_int_equal(sim_cpu_route(c, PV_PMXEVCNTR_EL0, true, 1), SIM_ROUTE_DIRECT);
	c->pmu.selr = 0;
	c->pmu.userenr = 0;
	m.cfg.fgt = false;
	/* No PMU at all: every PMU encoding UNDEFINED. */
	pc.version = PV_PMUVER_NI;
	sim_pmu_init(&c->pmu, &pc);
	assert_int_equal(sim_cpu_route(c, PV_PMCR_EL0, true, 1), SIM_ROUTE_UNDEF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_no_el3),
		cmocka_unit_test(test_filter_el3),
		cmocka_unit_test(test_secure_cycle_counter_dp),
		cmocka_unit_test(test_hpmn_split),
		cmocka_unit_test(test_overflow_widths),
		cmocka_unit_test(test_bulk_wraps),
		cmocka_unit_test(test_swinc_chain),
		cmocka_unit_test(test_irq_level),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_divider),
		cmocka_unit_test(test_work_split),
		cmocka_unit_test(test_id_registers),
		cmocka_unit_test(test_routing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
