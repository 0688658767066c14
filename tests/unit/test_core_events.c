/* SPDX-License-Identifier: MIT */
/*
 * The event names the library gives operators, against the Arm ARM: the numbers of D14.3's
 * common events and of D16.3.1's architected AMU counters written out here, not taken from
 * the database, so that a wrong row fails; perf's spelling is the name in lower case.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "perfvisor/events.h"
#include "perfvisor/sysreg.h"

static void test_numbers_are_the_arm_arms(void **state)
{
	(void)state;
	static const struct {
		uint32_t number;
		const char *name, *perf;
	} arm[] = {
		{0x0000, "SW_INCR", "sw_incr"},
		{0x0003, "L1D_CACHE_REFILL", "l1d_cache_refill"},
		{0x0004, "L1D_CACHE", "l1d_cache"},
		{0x0006, "LD_RETIRED", "ld_retired"},
		{0x0007, "ST_RETIRED", "st_retired"},
		{0x0008, "INST_RETIRED", "inst_retired"},
		{0x000D, "BR_IMMED_RETIRED", "br_immed_retired"},
		{0x0010, "BR_MIS_PRED", "br_mis_pred"},
		{0x0011, "CPU_CYCLES", "cpu_cycles"},
		{0x0013, "MEM_ACCESS", "mem_access"},
		{0x001D, "BUS_CYCLES", "bus_cycles"},
		{0x001E, "CHAIN", "chain"},
		{0x0021, "BR_RETIRED", "br_retired"},
		{0x0023, "STALL_FRONTEND", "stall_frontend"},
		{0x0024, "STALL_BACKEND", "stall_backend"},
		{0x003F, "STALL_SLOT", "stall_slot"},
		{0x4004, "CNT_CYCLES", "cnt_cycles"},
		{0x4005, "STALL_BACKEND_MEM", "stall_backend_mem"},
	};
	for (size_t i = 0; i < sizeof(arm) / sizeof(arm[0]); i++) {
		assert_string_equal(pv_event_name(arm[i].number), arm[i].name);
		assert_string_equal(pv_event_perf_name(arm[i].number), arm[i].perf);
		assert_int_equal(pv_event_number(arm[i].name), arm[i].number);
		assert_int_equal(pv_event_number(arm[i].perf), arm[i].number);
	}
	/* The constants the core uses are the same numbers. */
	assert_int_equal(PV_EVT_SW_INCR, 0x0000);
	assert_int_equal(PV_EVT_INST_RETIRED, 0x0008);
	assert_int_equal(PV_EVT_CPU_CYCLES, 0x0011);
	assert_int_equal(PV_EVT_CHAIN, 0x001E);
	assert_int_equal(PV_EVT_STALL_SLOT, 0x003F);
}

/* AMEVCNTR00..03 count CPU_CYCLES, CNT_CYCLES, INST_RETIRED, STALL_BACKEND_MEM (D16.3.1). */
static void test_amu_group0_order(void **state)
{
	(void)state;
	static const uint16_t group0[4] = PV_AMU_GROUP0_EVENTS;
	assert_int_equal(group0[0], 0x0011);
	assert_int_equal(group0[1], 0x4004);
	assert_int_equal(group0[2], 0x0008);
	assert_int_equal(group0[3], 0x4005);
}

/* An event the database does not know has no name; a name matches in one spelling or the
 * other, whole, never in a mix of cases or as a prefix. */
static void test_unknown(void **state)
{
	(void)state;
	assert_null(pv_event_name(0x00C0));
	assert_null(pv_event_perf_name(0x00C0));
	assert_null(pv_event_name(0x10008)); /* not 0x0008 with a bit above 16 dropped */
	assert_int_equal(pv_event_number("Inst_Retired"), -1);
	assert_int_equal(pv_event_number("INST_RETIRE"), -1);
	assert_int_equal(pv_event_number("INST_RETIREDX"), -1);
	assert_int_equal(pv_event_number(""), -1);
	assert_int_equal(pv_event_number("cycles"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_are_the_arm_arms),
		cmocka_unit_test(test_amu_group0_order),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
