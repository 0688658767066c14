/* SPDX-License-Identifier: MIT */
/* Ground-truth bookkeeping. */
#include "truth.h"

void sim_truth_work(struct sim_truth *t, unsigned el, const struct sim_work *w)
{
	if (el > 1)
		return;
	for (int i = 0; i < SIM_EV_COUNT; i++)
		t->now.ev[el][i] += w->ev[i];
}

void sim_truth_swinc(struct sim_truth *t, unsigned el, uint64_t val)
{
	if (el > 1)
		return;
	for (unsigned n = 0; n < 31; n++)
		if (val >> n & 1)
			t->now.swinc[el][n]++;
}

uint64_t sim_snap_delta(const struct sim_snap *from, const struct sim_snap *to, uint32_t number,
			unsigned els)
{
	int s = sim_ev_slot(number);
	if (s < 0)
		return 0;
	uint64_t d = 0;
	for (unsigned el = 0; el < 2; el++)
		if (els >> el & 1)
			d += to->ev[el][s] - from->ev[el][s];
	return d;
}

uint64_t sim_snap_swinc(const struct sim_snap *from, const struct sim_snap *to, unsigned n,
			unsigned els)
{
	uint64_t d = 0;
	for (unsigned el = 0; el < 2 && n < 31; el++)
		if (els >> el & 1)
			d += to->swinc[el][n] - from->swinc[el][n];
	return d;
}

uint64_t sim_cpu_truth_get(const uint64_t ev[SIM_EV_COUNT], uint32_t number)
{
	int s = sim_ev_slot(number);
	return s < 0 ? 0 : ev[s];
}
