/* SPDX-License-Identifier: MIT */
/*
 * The VM's PMU event filter as the guest sees it, whatever host set it up (KVM's
 * KVM_ARM_VCPU_PMU_V3_FILTER semantics, which perfvisor keeps): a denied event reads as not
 * implemented in PMCEID0/1_EL0 (Arm ARM D24.5.4, D24.5.5), and a counter the guest programs
 * with it anyway keeps the type it was given but counts nothing; a denied CPU_CYCLES stops
 * the cycle counter too; SW_INCR and CHAIN are never filtered. The host's filter is told to
 * the program in its bootargs, by the test that configured the host:
 *   filter.denied=E   event E (< 0x40) is denied
 *   filter.allowed=E  event E (< 0x40) is allowed and counts under the workload below
 *   filter.only=E     the filter allows E alone (ALLOW first): every other common event,
 *                     0x4000 and up included, reads as not implemented
 */
#include "pmu.h"

#define NONE UINT64_MAX
#define SPIN 100000 /* rounds of spin(): 2 instructions and 1 cycle or more each */

/* PMCEID0/1 bit of a common event below 0x40 (the low halves: events 0x00-0x3F). */
static bool ceid(uint64_t event)
{
	uint64_t r = event < 0x20 ? rd(pmceid0_el0) : rd(pmceid1_el0);
	return (r >> (event % 32)) & 1;
}

/* What counter 0 (with `event`) and the cycle counter count over the workload, at EL1. */
static void measure(uint64_t event, uint64_t *evcnt, uint64_t *ccnt)
{
	pmu_reset();
	pmevtyper_write(0, event);
	wr(pmccfiltr_el0, 0);
	wr(pmcntenset_el0, CYCLE_BIT | 1);
	wr(pmcr_el0, PMCR_E);
	isb();
	spin(SPIN);
	wr(pmcr_el0, 0);
	isb();
	*evcnt = pmevcntr_read(0);
	*ccnt = rd(pmccntr_el0);
}

static void test_denied(uint64_t e)
{
	check(!ceid(e), "denied: PMCEID bit of the event reads 0", "event 0x%lx", e);
	uint64_t ev, cc;
	measure(e, &ev, &cc);
	check(ev == 0, "denied: a counter programmed with it counts nothing",
	      "event 0x%lx counted %lu", e, ev);
	CHECK_EQ(pmevtyper_read(0) & 0xFFFF, e, "denied: PMEVTYPER keeps the event written");
	if (e == EV_CPU_CYCLES)
		check(cc == 0, "denied: CPU_CYCLES denied stops the cycle counter",
		      "counted %lu", cc);
	else
		check(cc >= SPIN, "denied: the cycle counter still counts", "counted %lu", cc);
	/* The counter is still the guest's: it holds what is written, and counts nothing. */
	pmu_reset();
	pmevtyper_write(0, e);
	pmevcntr_write(0, 12345);
	wr(pmcntenset_el0, 1);
	wr(pmcr_el0, PMCR_E);
	spin(SPIN);
	wr(pmcr_el0, 0);
	CHECK_EQ(pmevcntr_read(0), 12345, "denied: its counter keeps the value written");
}

static void test_allowed(uint64_t e)
{
	check(ceid(e), "allowed: PMCEID bit of the event reads 1", "event 0x%lx", e);
	uint64_t ev, cc;
	measure(e, &ev, &cc);
	/* INST_RETIRED: 2 per round; CPU_CYCLES: at least 1 per round. */
	check(ev >= SPIN, "allowed: a counter programmed with it counts",
	      "event 0x%lx counted %lu", e, ev);
}

/* SW_INCR is counted by the hypervisor, whatever the filter says (KVM: never filtered). */
static void test_swincr(void)
{
	pmu_reset();
	pmevtyper_write(1, EV_SW_INCR);
	wr(pmcntenset_el0, 2);
	wr(pmcr_el0, PMCR_E);
	for (int i = 0; i < 3; i++)
		wr(pmswinc_el0, 2);
	wr(pmcr_el0, 0);
	CHECK_EQ(pmevcntr_read(1), 3, "sw_incr: counts under any filter");
}

static void test_only(uint64_t e)
{
	uint64_t keep = (1ul << EV_SW_INCR) | (1ul << EV_CHAIN) | (1ul << e);
	CHECK_EQ(rd(pmceid0_el0) & ~keep, 0,
		 "only: PMCEID0 shows no other event (0x0-0x1F, 0x4000-0x401F)");
	uint64_t keep1 = e >= 0x20 ? 1ul << (e - 0x20) : 0;
	CHECK_EQ(rd(pmceid1_el0) & ~keep1, 0,
		 "only: PMCEID1 shows no other event (0x20-0x3F, 0x4020-0x403F)");
	uint64_t other = e == EV_INST_RETIRED ? EV_CPU_CYCLES : EV_INST_RETIRED;
	uint64_t ev, cc;
	measure(other, &ev, &cc);
	check(ev == 0, "only: another event counts nothing", "event 0x%lx counted %lu", other,
	      ev);
}

void test_main(void)
{
	uint64_t denied = arg_num("filter.denied", NONE);
	uint64_t allowed = arg_num("filter.allowed", NONE);
	uint64_t only = arg_num("filter.only", NONE);
	if ((denied == NONE && allowed == NONE) || (denied != NONE && denied >= 0x40) ||
	    (allowed != NONE && allowed >= 0x40) || (only != NONE && only >= 0x40)) {
		check(false, "arguments",
		      "give filter.denied=E and/or filter.allowed=E, E < 0x40");
		done();
	}
	gprintf("pmu_filter: denied %lx, allowed %lx, only %lx\n", denied, allowed, only);
	if (denied != NONE)
		test_denied(denied);
	if (allowed != NONE)
		test_allowed(allowed);
	if (only != NONE)
		test_only(only);
	test_swincr();
	done();
}
