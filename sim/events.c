/* SPDX-License-Identifier: MIT */
/* Event table, workload profiles and the deterministic split of work chunks. */
#include "events.h"

#include <stddef.h>

#include "perfvisor/sysreg.h"

static const struct {
	uint16_t number;
} ev_table[SIM_EV_COUNT] = {
#define SIM_EV_ROW(name, num) [SIM_EV_##name] = {num},
	SIM_EVENTS(SIM_EV_ROW)
#undef SIM_EV_ROW
};

int sim_ev_slot(uint32_t number)
{
	for (int i = 0; i < SIM_EV_COUNT; i++)
		if (ev_table[i].number == number)
			return i;
	return -1;
}

uint32_t sim_ev_number(enum sim_ev slot)
{
	return ev_table[slot].number;
}

uint64_t sim_ev_common_mask(void)
{
	uint64_t m = PV_BIT(PV_EVT_SW_INCR) | PV_BIT(PV_EVT_CHAIN);
	for (int i = 0; i < SIM_EV_COUNT; i++)
		m |= PV_BIT(ev_table[i].number);
	return m;
}

/* Counts as fractions of the instruction count: {event, numerator, denominator}. */
struct ratio {
	uint8_t slot;
	uint16_t num, den;
};

static const struct ratio profiles[SIM_PROF_COUNT][14] = {
	[SIM_PROF_INT] = {{SIM_EV_CPU_CYCLES, 5, 4},
			  {SIM_EV_INST_SPEC, 11, 10},
			  {SIM_EV_MEM_ACCESS, 1, 4},
			  {SIM_EV_L1D_CACHE, 1, 4},
			  {SIM_EV_L1D_CACHE_REFILL, 1, 200},
			  {SIM_EV_L2D_CACHE, 1, 200},
			  {SIM_EV_L2D_CACHE_REFILL, 1, 2000},
			  {SIM_EV_L1I_CACHE, 1, 4},
			  {SIM_EV_L1I_CACHE_REFILL, 1, 5000},
			  {SIM_EV_BR_RETIRED, 1, 8},
			  {SIM_EV_BR_PRED, 1, 8},
			  {SIM_EV_BR_MIS_PRED, 1, 400},
			  {SIM_EV_STALL_FRONTEND, 1, 20},
			  {SIM_EV_STALL_BACKEND, 1, 10}},
	[SIM_PROF_MEM] = {{SIM_EV_CPU_CYCLES, 13, 4},
			  {SIM_EV_INST_SPEC, 21, 20},
			  {SIM_EV_MEM_ACCESS, 9, 20},
			  {SIM_EV_L1D_CACHE, 9, 20},
			  {SIM_EV_L1D_CACHE_REFILL, 1, 12},
			  {SIM_EV_L2D_CACHE, 1, 12},
			  {SIM_EV_L2D_CACHE_REFILL, 1, 40},
			  {SIM_EV_L1I_CACHE, 1, 4},
			  {SIM_EV_L1I_CACHE_REFILL, 1, 9000},
			  {SIM_EV_BR_RETIRED, 1, 12},
			  {SIM_EV_BR_PRED, 1, 12},
			  {SIM_EV_BR_MIS_PRED, 1, 900},
			  {SIM_EV_STALL_FRONTEND, 1, 25},
			  {SIM_EV_STALL_BACKEND, 2, 1}},
	[SIM_PROF_BRANCH] = {{SIM_EV_CPU_CYCLES, 7, 4},
			     {SIM_EV_INST_SPEC, 13, 10},
			     {SIM_EV_MEM_ACCESS, 1, 5},
			     {SIM_EV_L1D_CACHE, 1, 5},
			     {SIM_EV_L1D_CACHE_REFILL, 1, 300},
			     {SIM_EV_L2D_CACHE, 1, 300},
			     {SIM_EV_L2D_CACHE_REFILL, 1, 3000},
			     {SIM_EV_L1I_CACHE, 1, 3},
			     {SIM_EV_L1I_CACHE_REFILL, 1, 700},
			     {SIM_EV_BR_RETIRED, 1, 4},
			     {SIM_EV_BR_PRED, 1, 4},
			     {SIM_EV_BR_MIS_PRED, 1, 30},
			     {SIM_EV_STALL_FRONTEND, 1, 3},
			     {SIM_EV_STALL_BACKEND, 1, 12}},
	[SIM_PROF_STREAM] = {{SIM_EV_CPU_CYCLES, 2, 1},
			     {SIM_EV_INST_SPEC, 1, 1},
			     {SIM_EV_MEM_ACCESS, 1, 2},
			     {SIM_EV_L1D_CACHE, 1, 2},
			     {SIM_EV_L1D_CACHE_REFILL, 1, 16},
			     {SIM_EV_L2D_CACHE, 1, 16},
			     {SIM_EV_L2D_CACHE_REFILL, 1, 16},
			     {SIM_EV_L1I_CACHE, 1, 8},
			     {SIM_EV_L1I_CACHE_REFILL, 1, 20000},
			     {SIM_EV_BR_RETIRED, 1, 16},
			     {SIM_EV_BR_PRED, 1, 16},
			     {SIM_EV_BR_MIS_PRED, 1, 5000},
			     {SIM_EV_STALL_FRONTEND, 1, 50},
			     {SIM_EV_STALL_BACKEND, 1, 1}},
	[SIM_PROF_HYP] = {{SIM_EV_CPU_CYCLES, 3, 1},
			  {SIM_EV_INST_SPEC, 6, 5},
			  {SIM_EV_MEM_ACCESS, 1, 3},
			  {SIM_EV_L1D_CACHE, 1, 3},
			  {SIM_EV_L1D_CACHE_REFILL, 1, 10},
			  {SIM_EV_L2D_CACHE, 1, 10},
			  {SIM_EV_L2D_CACHE_REFILL, 1, 40},
			  {SIM_EV_L1I_CACHE, 1, 4},
			  {SIM_EV_L1I_CACHE_REFILL, 1, 20},
			  {SIM_EV_BR_RETIRED, 1, 6},
			  {SIM_EV_BR_PRED, 1, 6},
			  {SIM_EV_BR_MIS_PRED, 1, 25},
			  {SIM_EV_STALL_FRONTEND, 1, 2},
			  {SIM_EV_STALL_BACKEND, 1, 2}},
};

static const char *const profile_names[SIM_PROF_COUNT] = {"int", "mem", "branch", "stream",
							  "hyp"};

const char *sim_profile_name(enum sim_profile p)
{
	return p < SIM_PROF_COUNT ? profile_names[p] : "?";
}

void sim_work_profile(struct sim_work *w, enum sim_profile p, uint64_t insts)
{
	*w = (struct sim_work){0};
	w->ev[SIM_EV_INST_RETIRED] = insts;
	if (p >= SIM_PROF_COUNT)
		return;
	for (size_t i = 0; i < sizeof(profiles[p]) / sizeof(profiles[p][0]); i++) {
		const struct ratio *r = &profiles[p][i];
		if (r->den)
			w->ev[r->slot] = insts / r->den * r->num +
					 insts % r->den * r->num / r->den;
	}
}

/* floor(a * b / c) without overflow; b <= c. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

void sim_work_split(const struct sim_work *w, uint64_t cycles, struct sim_work *first,
		    struct sim_work *second)
{
	uint64_t total = w->ev[SIM_EV_CPU_CYCLES];
	struct sim_work a, b;
	for (int i = 0; i < SIM_EV_COUNT; i++) {
		a.ev[i] = total ? mul_div(w->ev[i], cycles, total) : 0;
		b.ev[i] = w->ev[i] - a.ev[i];
	}
	*first = a;
	*second = b;
}

void sim_work_add(struct sim_work *acc, const struct sim_work *w)
{
	for (int i = 0; i < SIM_EV_COUNT; i++)
		acc->ev[i] += w->ev[i];
}
