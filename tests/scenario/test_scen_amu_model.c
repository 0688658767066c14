/* SPDX-License-Identifier: MIT */
/*
 * The machine model's AMU against the Arm ARM (D24.6 and the AMU chapter), without the
 * library's VM handling: what counts and how fast, who may write what, how guest accesses
 * are routed (AMUSERENR_EL0, CPTR_EL2.TAM, HAFGRTR_EL2), the virtual offsets, CG1RZ,
 * 64-bit wrap, power-down. The vAMU tests rely on this model being right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scen.h"

static struct sim_machine *machine(bool el3, unsigned version, bool fgt)
{
	struct sim_config c = scen_amu_config(1, version, 3, 1u << 1, fgt, 1);
	c.el3 = el3;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	return m;
}

static uint64_t rd(struct sim_cpu *c, unsigned el, uint32_t key)
{
	uint64_t v = 0;
	assert_int_equal(sim_cpu_read(c, el, key, &v), SIM_ACC_OK);
	return v;
}

/* Every event at every EL and security state; CNT_CYCLES at the system counter rate. */
static void test_counting(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true, 2, true);
	struct sim_cpu *c = &m->cpu[0];
	uint64_t before[7];
	for (unsigned k = 0; k < 7; k++)
		before[k] = rd(c, 2, k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4));
	struct sim_work w, total = {0};
	uint64_t cycles = 0;
	for (unsigned i = 0; i < 9; i++) {
		sim_work_profile(&w, (enum sim_profile)(i % SIM_PROF_COUNT), 1000 + 777 * i);
		sim_cpu_exec(c, i % 4, i % 3 == 0, &w); /* EL0..EL3, Secure and Non-secure */
		sim_work_add(&total, &w);
		cycles += w.ev[SIM_EV_CPU_CYCLES];
	}
	uint64_t want[7] = {
		total.ev[SIM_EV_CPU_CYCLES],
		cycles * m->cfg.cnt_khz / m->cfg.cpu_khz[0], /* 1 GHz counter, 3 GHz core */
		total.ev[SIM_EV_INST_RETIRED],
		total.ev[SIM_EV_STALL_BACKEND],
		total.ev[sim_ev_slot(m->cfg.amu.aux_events[0])],
		total.ev[sim_ev_slot(m->cfg.amu.aux_events[1])],
		total.ev[sim_ev_slot(m->cfg.amu.aux_events[2])],
	};
	for (unsigned k = 0; k < 7; k++)
		assert_int_equal(
			rd(c, 2, k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4)) -
				before[k],
			want[k]);
	assert_true(want[0] != want[1]); /* core and constant cycles differ */
	scen_free(m);

	/* Disabled counters do not count. */
	struct sim_config cfg = scen_amu_config(1, 1, 2, 0, false, 1);
	cfg.amu.enable0 = 0x5;
	cfg.amu.enable1 = 0x2;
	m = scen_machine(&cfg);
	sim_work_profile(&w, SIM_PROF_INT, 5000);
	sim_cpu_exec(&m->cpu[0], 1, false, &w);
	assert_int_equal(rd(&m->cpu[0], 2, PV_AMCNTENSET0_EL0), 0x5);
	assert_int_equal(rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(1)), 0);
	assert_int_equal(rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(3)), 0);
	assert_int_equal(rd(&m->cpu[0], 2, PV_AMEVCNTR1_EL0(0)), 0);
	assert_true(rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(2)) == 5000);
	assert_true(rd(&m->cpu[0], 2, PV_AMEVCNTR1_EL0(1)) > 0);
	scen_free(m);
}

/* Counters, enables, AMCR and AMEVTYPER1 are written at the highest implemented EL only. */
static void test_highest_el_writes(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true, 2, false);
	struct sim_cpu *c = &m->cpu[0];
	const uint32_t keys[] = {PV_AMCR_EL0,        PV_AMCNTENSET0_EL0, PV_AMCNTENCLR0_EL0,
				 PV_AMCNTENSET1_EL0, PV_AMCNTENCLR1_EL0, PV_AMEVCNTR0_EL0(0),
				 PV_AMEVCNTR1_EL0(2)};
	for (size_t i = 0; i < sizeof(keys) / 4; i++) {
		assert_int_equal(sim_cpu_write(c, 2, keys[i], 1),
				 SIM_ACC_UNDEF); /* EL3 above */
		assert_int_equal(sim_cpu_write(c, 3, keys[i], 1), SIM_ACC_OK);
	}
	assert_int_equal(sim_cpu_write(c, 3, PV_AMEVTYPER1_EL0(0), 1),
			 SIM_ACC_UNDEF);                                        /* fixed */
	assert_int_equal(sim_cpu_write(c, 3, PV_AMCFGR_EL0, 1), SIM_ACC_UNDEF); /* RO */
	scen_free(m);
	m = machine(false, 2, false); /* no EL3: EL2 is the highest */
	assert_int_equal(sim_cpu_write(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(2), UINT64_MAX - 3),
			 SIM_ACC_OK);
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_INT, 10);
	sim_cpu_exec(&m->cpu[0], 1, false, &w);
	assert_int_equal(rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(2)), 6); /* 64-bit wrap */
	scen_free(m);
}

/* Guest accesses (HCR_EL2.TGE = 0): UNDEFINED first, then AMUSERENR_EL0.EN to EL1, then
 * CPTR_EL2.TAM, then the HAFGRTR_EL2 read traps. */
static void test_routing(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true, 2, true);
	struct sim_cpu *c = &m->cpu[0];
	c->cptr = 0;
	c->hafgrtr = 0;
	assert_int_equal(sim_cpu_write(c, 1, PV_AMUSERENR_EL0, 0), SIM_ACC_OK);
	for (unsigned el = 0; el < 2; el++) {
		assert_int_equal(sim_cpu_route(c, PV_AMCNTENSET0_EL0, false, el),
				 SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(1), false, el),
				 SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(4), true, el),
				 SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR1_EL0(3), true, el),
				 SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, PV_AMCFGR_EL0, false, el), SIM_ROUTE_UNDEF);
	}
	assert_int_equal(sim_cpu_route(c, PV_AMUSERENR_EL0, false, 0), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_AMUSERENR_EL0, false, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_AMUSERENR_EL0, true, 0), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(0), true, 0), SIM_ROUTE_EL1);
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(0), true, 1), SIM_ROUTE_DIRECT);
	c->amu.userenr = PV_AMUSERENR_EN;
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(0), true, 0), SIM_ROUTE_DIRECT);
	/* FEAT_FGT traps the reads it names, nothing else. */
	c->hafgrtr = PV_HAFGRTR_AMEVCNTR0(1) | PV_HAFGRTR_AMEVCNTR1(1);
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(1), true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR1_EL0(1), true, 0), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_AMEVCNTR0_EL0(0), true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_AMCGCR_EL0, true, 1), SIM_ROUTE_DIRECT);
	/* TAM traps everything, after the EL0 check. */
	c->cptr = PV_CPTR_EL2_TAM;
	assert_int_equal(sim_cpu_route(c, PV_AMCGCR_EL0, true, 1), SIM_ROUTE_EL2);
	assert_int_equal(sim_cpu_route(c, PV_AMUSERENR_EL0, false, 1), SIM_ROUTE_EL2);
	c->amu.userenr = 0;
	assert_int_equal(sim_cpu_route(c, PV_AMCGCR_EL0, true, 0), SIM_ROUTE_EL1);
	assert_int_equal(sim_cpu_route(c, PV_AMUSERENR_EL0, true, 0), SIM_ROUTE_EL2);
	scen_free(m);
	/* AMUv1: no AMCG1IDR_EL0; no auxiliary counters: no group 1 enable registers. */
	struct sim_config cfg = scen_amu_config(1, 1, 0, 0, false, 1);
	m = scen_machine(&cfg);
	assert_int_equal(sim_cpu_route(&m->cpu[0], PV_AMCG1IDR_EL0, true, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(&m->cpu[0], PV_AMCNTENSET1_EL0, true, 1),
			 SIM_ROUTE_UNDEF);
	scen_free(m);
}

/* EL0/EL1 reads return PCount - AMEVCNTVOFF<g><n>_EL2 with AMUv1p1, HCR_EL2.AMVOFFEN and
 * SCR_EL3.AMVOFFEN, unless {E2H, TGE} = {1, 1}; CNT_CYCLES has no offset register. */
static void test_virtual_offsets(void **state)
{
	(void)state;
	struct sim_machine *m = machine(true, 2, true);
	struct sim_cpu *c = &m->cpu[0];
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_MEM, 100000);
	sim_cpu_exec(c, 1, false, &w);
	uint64_t p[7];
	for (unsigned k = 0; k < 7; k++) {
		uint32_t key = k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4);
		p[k] = rd(c, 2, key);
	}
	for (unsigned n = 0; n < 4; n++)
		assert_int_equal(sim_cpu_write(c, 2, PV_AMEVCNTVOFF0_EL2(n), 100 + n),
				 n == 1 ? SIM_ACC_UNDEF : SIM_ACC_OK);
	for (unsigned n = 0; n < 3; n++) /* counter 1 has no AMEVCNTVOFF1<1>_EL2 here */
		assert_int_equal(sim_cpu_write(c, 2, PV_AMEVCNTVOFF1_EL2(n), 200 + n),
				 n == 1 ? SIM_ACC_UNDEF : SIM_ACC_OK);
	assert_int_equal(sim_cpu_write(c, 1, PV_AMEVCNTVOFF0_EL2(0), 0), SIM_ACC_UNDEF);
	c->hcr |= PV_HCR_EL2_AMVOFFEN;
	static const uint64_t off[7] = {100, 0, 102, 103, 200, 0, 202};
	for (unsigned k = 0; k < 7; k++) {
		uint32_t key = k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4);
		assert_int_equal(rd(c, 1, key), p[k] - off[k]);
		assert_int_equal(rd(c, 0, key), p[k] - off[k]);
		assert_int_equal(rd(c, 2, key), p[k]); /* EL2 sees the physical count */
	}
	c->hcr |= PV_HCR_EL2_E2H | PV_HCR_EL2_TGE;
	assert_int_equal(rd(c, 0, PV_AMEVCNTR0_EL0(0)), p[0]);
	c->hcr &= ~(PV_HCR_EL2_E2H | PV_HCR_EL2_TGE | PV_HCR_EL2_AMVOFFEN);
	assert_int_equal(rd(c, 1, PV_AMEVCNTR0_EL0(0)), p[0]);
	scen_free(m);

	/* Without SCR_EL3.AMVOFFEN the offsets are not applied, and EL2 cannot reach them. */
	struct sim_config cfg = scen_amu_config(1, 2, 3, 0, true, 1);
	cfg.el3 = true;
	cfg.amu.el3_amvoffen = false;
	m = scen_machine(&cfg);
	assert_int_equal(sim_cpu_write(&m->cpu[0], 2, PV_AMEVCNTVOFF0_EL2(0), 5),
			 SIM_ACC_UNDEF);
	m->cpu[0].hcr |= PV_HCR_EL2_AMVOFFEN;
	m->cpu[0].amu.voff[0] = 5;
	assert_int_equal(rd(&m->cpu[0], 1, PV_AMEVCNTR0_EL0(0)),
			 rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(0)));
	scen_free(m);
}

/* CG1RZ: group 1 reads as zero below the highest EL (EL2 too when EL3 exists). */
static void test_cg1rz(void **state)
{
	(void)state;
	for (unsigned el3 = 0; el3 < 2; el3++) {
		struct sim_config cfg = scen_amu_config(1, 2, 2, 0, true, 1);
		cfg.el3 = el3;
		cfg.amu.cg1rz = true;
		struct sim_machine *m = scen_machine(&cfg);
		struct sim_work w;
		sim_work_profile(&w, SIM_PROF_INT, 1000);
		sim_cpu_exec(&m->cpu[0], 1, false, &w);
		assert_int_equal(rd(&m->cpu[0], 1, PV_AMEVCNTR1_EL0(0)), 0);
		assert_int_equal(rd(&m->cpu[0], 2, PV_AMEVCNTR1_EL0(0)) != 0, !el3);
		assert_true(rd(&m->cpu[0], 1, PV_AMEVCNTR0_EL0(0)) != 0);
		scen_free(m);
	}
}

/* Power-down: counters kept by firmware or zeroed; offsets and AMUSERENR_EL0 UNKNOWN. */
static void test_power(void **state)
{
	(void)state;
	for (unsigned keep = 0; keep < 2; keep++) {
		struct sim_config cfg = scen_amu_config(1, 2, 2, 0, true, 1);
		cfg.amu.fw_keeps_counters = keep;
		struct sim_machine *m = scen_machine(&cfg);
		struct sim_cpu *c = &m->cpu[0];
		struct sim_work w;
		sim_work_profile(&w, SIM_PROF_INT, 1000);
		sim_cpu_exec(c, 1, false, &w);
		uint64_t p0 = rd(c, 2, PV_AMEVCNTR0_EL0(0));
		assert_int_equal(sim_cpu_write(c, 2, PV_AMEVCNTVOFF0_EL2(0), 42), SIM_ACC_OK);
		uint64_t userenr = rd(c, 2, PV_AMUSERENR_EL0);
		sim_power_cycle(m, 0);
		assert_int_equal(rd(c, 2, PV_AMEVCNTR0_EL0(0)), keep ? p0 : 0);
		assert_int_not_equal(rd(c, 2, PV_AMEVCNTVOFF0_EL2(0)), 42);
		/* The library's resume put AMUSERENR_EL0 back to its rest value. */
		assert_int_equal(rd(c, 2, PV_AMUSERENR_EL0), userenr);
		assert_int_equal(c->stats.power_cycles, 1);
		scen_free(m);
	}
}

/* Time passes only while a pCPU executes; the governor changes levels at ticks. */
static void test_dvfs(void **state)
{
	(void)state;
	struct sim_config cfg = scen_amu_config(3, 2, 0, 0, true, 3);
	struct sim_machine *m = scen_machine(&cfg);
	struct pv_vm_config vm = scen_amu_vm(2, 0);
	struct sim_prog p;
	sim_prog_init(&p);
	for (unsigned i = 0; i < 30; i++)
		sim_prog_workload(&p, 1, SIM_PROF_INT, 50000);
	assert_true(scen_vm_vcpu(m, &vm, 0, &p) >= 0);
	sim_run(m);
	assert_true(m->cpu[0].stats.dvfs >= 3);
	uint64_t cyc = rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(0));
	uint64_t cnt = rd(&m->cpu[0], 2, PV_AMEVCNTR0_EL0(1));
	assert_int_equal(cnt, m->cpu[0].time);
	/* Between the slowest (1.2 GHz) and the fastest (3.0 GHz) level. */
	assert_true(cyc > cnt * 12 / 10 && cyc < cnt * 3);
	sim_prog_free(&p);
	scen_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counting), cmocka_unit_test(test_highest_el_writes),
		cmocka_unit_test(test_routing),  cmocka_unit_test(test_virtual_offsets),
		cmocka_unit_test(test_cg1rz),    cmocka_unit_test(test_power),
		cmocka_unit_test(test_dvfs),
	};
	return cmocka_run_group_tests_name("scen_amu_model", tests, NULL, NULL);
}
