/* SPDX-License-Identifier: MIT */
/*
 * Events the machine model generates, and work chunks: a number of instructions executed at
 * one exception level with the count of every modelled event (Arm ARM D14.3, common events).
 */
#ifndef SIM_EVENTS_H
#define SIM_EVENTS_H

#include <stdint.h>

#include "eventdb.h"

/* X(name, number): every event a work chunk can carry: the event database's rows marked sim
 * (arch/events.txt). SW_INCR and CHAIN are not among them: the PMU makes them (PMSWINC
 * writes, even-counter overflow). */
#define SIM_EVENTS(X) PV_EVENT_SIM_ROWS(X)

enum sim_ev {
#define SIM_EV_ENUM(name, num) SIM_EV_##name,
	SIM_EVENTS(SIM_EV_ENUM)
#undef SIM_EV_ENUM
		SIM_EV_COUNT
};

/* Work executed in one go at one exception level: ev[SIM_EV_INST_RETIRED] instructions,
 * ev[SIM_EV_CPU_CYCLES] cycles, and the other events. */
struct sim_work {
	uint64_t ev[SIM_EV_COUNT];
};

/* Named workload shapes: the per-event counts derived from an instruction count. */
enum sim_profile {
	SIM_PROF_INT,    /* integer code, CPI 1.25 */
	SIM_PROF_MEM,    /* memory-bound: many loads, misses, backend stalls */
	SIM_PROF_BRANCH, /* branchy code with mispredictions */
	SIM_PROF_STREAM, /* streaming copies: every access misses L1 once per line */
	SIM_PROF_HYP,    /* hypervisor code at EL2: short, cache-cold */
	SIM_PROF_COUNT
};

/* Slot of an event number, -1 if the model never generates it. */
int sim_ev_slot(uint32_t number);
uint32_t sim_ev_number(enum sim_ev slot);
/* Bitmap of the modelled events among 0x00..0x3F, plus SW_INCR and CHAIN. */
uint64_t sim_ev_common_mask(void);

void sim_work_profile(struct sim_work *w, enum sim_profile p, uint64_t insts);
const char *sim_profile_name(enum sim_profile p);
/* Splits `w` after `cycles` of its cycles (0 < cycles < total): every event count is split in
 * proportion, rounded down in the first part, the remainder going to the second. */
void sim_work_split(const struct sim_work *w, uint64_t cycles, struct sim_work *first,
		    struct sim_work *second);
void sim_work_add(struct sim_work *acc, const struct sim_work *w);

#endif
