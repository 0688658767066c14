/* SPDX-License-Identifier: MIT */
/*
 * Memory traffic: one generator per vCPU (or any source), labelled with the PARTID and PMG its
 * requests carry, demanding bytes per second on each memory node. sim_traffic_step() moves one
 * step of demand through the memory system (struct sim_mpam): each node's traffic is spread
 * over the RIS of its memory MSCs by weight, served (and throttled, and counted by monitors)
 * there, and the bytes really delivered are recorded as ground truth, per generator and per
 * (node, PARTID).
 */
#ifndef SIM_TRAFFIC_H
#define SIM_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "msc.h"

enum sim_pattern {
	SIM_TRAFFIC_CONST, /* the base rate */
	SIM_TRAFFIC_SINE,  /* base * (1 + depth * sin(2 pi t / period + phase)) */
	SIM_TRAFFIC_ONOFF, /* base while on, base * depth while off; phase lengths exponential
			       with mean period / 2 */
	SIM_TRAFFIC_WALK,  /* base * a random walk: log-normal steps of `depth` per 10 ms,
			       kept within [0.1, 3] */
};

struct sim_tgen {
	/* Label of every request (what the CPU's MPAM state gives: sim_mpam_cpu_label). */
	uint16_t partid;
	uint8_t pmg;
	bool active;                       /* false: demands nothing */
	uint64_t rate[SIM_MPAM_MAX_NODES]; /* base demand per node, bytes per second */
	uint8_t read_pct;                  /* share of reads in the bytes, percent */
	uint8_t pattern;                   /* enum sim_pattern */
	double depth;                      /* pattern parameter (see above) */
	double noise;                      /* uniform multiplicative noise per step, +-noise */
	uint64_t period_ns;
	double phase;
	uint64_t rng;
	/* state */
	double level; /* current multiplier (walk, on/off) */
	uint64_t phase_end;
	double carry[SIM_MPAM_MAX_NODES]; /* fraction of a byte carried to the next step */
	/* truth */
	uint64_t demanded[SIM_MPAM_MAX_NODES];
	uint64_t delivered[SIM_MPAM_MAX_NODES];
};

/* A constant generator of `rate` bytes/s on node `node` (half reads), labelled (partid, 0). */
void sim_tgen_init(struct sim_tgen *g, uint16_t partid, unsigned node, uint64_t rate,
		   uint64_t seed);
/* A varied workload for source i of many: a home node (i % nodes) at a base rate drawn
 * log-uniformly in [min_rate, max_rate], the other nodes at 10-30 % of it; a pattern by
 * i % 10: sine (0-2: depth 0.3-0.6, period 1-6 s), random walk (3-5: 2-5 % per 10 ms),
 * on/off (6-7: off at 10-40 %, phases of 0.25-2 s on average), constant (8-9); +-10 % noise
 * per step; 40-80 % reads. The label is left as it is. */
void sim_tgen_mix(struct sim_tgen *g, unsigned i, unsigned nodes, uint64_t min_rate,
		  uint64_t max_rate, uint64_t seed);
/* Demand multiplier of the pattern at model time `t` (advances the pattern's state). */
double sim_tgen_level(struct sim_tgen *g, uint64_t t, uint64_t dt);

/* One step of dt ns: demand, routing, service, truth; then model time advances. */
void sim_traffic_step(struct sim_mpam *mp, struct sim_tgen *g, unsigned n, uint64_t dt);
/* Advances model time without traffic (e.g. to let monitors become ready). */
void sim_traffic_idle(struct sim_mpam *mp, uint64_t dt);

#endif
