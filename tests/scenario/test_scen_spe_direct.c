/* SPDX-License-Identifier: MIT */
/*
 * The sampling controls on the machine model: the model routes each guest access to a PMS*
 * register as D24.7 says (the register's fine-grained trap, then MDCR_EL2.TPMS).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_scen_spe_rig.h"

/* The model's routing of the sampling controls (D24.7's accessibility pseudocode): EL0
 * UNDEFINED first; then, with FEAT_FGT, a register's own bit in HDFGRTR_EL2 for its MRS or in
 * HDFGWTR_EL2 for its MSR, PMSNEVFR_EL1's while its n-bit is 0; then MDCR_EL2.TPMS. A
 * register the unit lacks UNDEFs before any trap; the buffer registers go by E2PB. */
static void test_routes(void **state)
{
	(void)state;
	static const struct {
		uint32_t key;
		uint64_t bit;
	} regs[] = {
		{PV_PMSCR_EL1, PV_HDFGRTR_EL2_PMSCR_EL1},
		{PV_PMSEVFR_EL1, PV_HDFGRTR_EL2_PMSEVFR_EL1},
		{PV_PMSFCR_EL1, PV_HDFGRTR_EL2_PMSFCR_EL1},
		{PV_PMSICR_EL1, PV_HDFGRTR_EL2_PMSICR_EL1},
		{PV_PMSIDR_EL1, PV_HDFGRTR_EL2_PMSIDR_EL1},
		{PV_PMSIRR_EL1, PV_HDFGRTR_EL2_PMSIRR_EL1},
		{PV_PMSLATFR_EL1, PV_HDFGRTR_EL2_PMSLATFR_EL1},
	};
	const size_t nregs = sizeof(regs) / sizeof(regs[0]);
	struct sim_config cfg = rig_spe_config(46, 1);
	struct spe_rig *r = rig_new(&cfg);
	struct sim_cpu *c = &r->m->cpu[0];
	c->mdcr = PV_FIELD_PREP(PV_MDCR_EL2_E2PB, PV_MDCR_EL2_E2PB_EL1_TRAP) | PV_MDCR_EL2_TPMS;
	c->hdfgrtr = c->hdfgwtr = 0;
	for (size_t i = 0; i < nregs; i++) {
		bool ro = regs[i].key == PV_PMSIDR_EL1;
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 0), SIM_ROUTE_UNDEF);
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 1), SIM_ROUTE_EL2);
		assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
				 ro ? SIM_ROUTE_UNDEF : SIM_ROUTE_EL2);
	}
	assert_int_equal(sim_cpu_route(c, PV_PMBPTR_EL1, true, 1), SIM_ROUTE_EL2);
	c->mdcr &= ~PV_MDCR_EL2_TPMS;
	assert_int_equal(sim_cpu_route(c, PV_PMBPTR_EL1, true, 1), SIM_ROUTE_EL2);
	/* PMSNEVFR_EL1: its n-bit 0 traps, in each direction by its own word. */
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_EL2);
	c->hdfgrtr = PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_EL2);
	c->hdfgwtr = PV_HDFGWTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_DIRECT);
	/* Each register's own bit, one direction at a time. */
	for (size_t i = 0; i < nregs; i++) {
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 1), SIM_ROUTE_DIRECT);
		c->hdfgrtr |= regs[i].bit;
		for (size_t j = 0; j < nregs; j++)
			assert_int_equal(sim_cpu_route(c, regs[j].key, true, 1),
					 i == j ? SIM_ROUTE_EL2 : SIM_ROUTE_DIRECT);
		if (regs[i].key != PV_PMSIDR_EL1) {
			assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
					 SIM_ROUTE_DIRECT);
			c->hdfgwtr |= regs[i].bit;
			assert_int_equal(sim_cpu_route(c, regs[i].key, false, 1),
					 SIM_ROUTE_EL2);
			c->hdfgwtr &= ~regs[i].bit;
		}
		assert_int_equal(sim_cpu_route(c, regs[i].key, true, 0), SIM_ROUTE_UNDEF);
		c->hdfgrtr &= ~regs[i].bit;
	}
	/* Without FEAT_FGT the words do nothing: TPMS alone. */
	r->m->cfg.fgt = false;
	c->hdfgrtr = c->hdfgwtr = ~UINT64_C(0) & ~PV_HDFGRTR_EL2_nPMSNEVFR_EL1;
	assert_int_equal(sim_cpu_route(c, PV_PMSCR_EL1, true, 1), SIM_ROUTE_DIRECT);
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, false, 1), SIM_ROUTE_DIRECT);
	rig_free(r);
	/* A unit without FEAT_SPE_FnE: PMSNEVFR_EL1 UNDEFINED whatever traps. */
	cfg.spe.unit.version = PV_SPE_V1P1;
	r = rig_new(&cfg);
	c = &r->m->cpu[0];
	c->mdcr = PV_MDCR_EL2_TPMS;
	assert_int_equal(sim_cpu_route(c, PV_PMSNEVFR_EL1, true, 1), SIM_ROUTE_UNDEF);
	assert_int_equal(sim_cpu_route(c, PV_PMSEVFR_EL1, true, 1), SIM_ROUTE_EL2);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
