/* SPDX-License-Identifier: MIT */
/*
 * What the measured benchmarks share (docs/benchmarks.md, "How the instructions are
 * counted"): the attribute that keeps a measured function whole, so that callgrind's
 * --toggle-collect finds it by name, and the empty stand-ins with the library's signatures
 * that the baselines call (bench/run.sh excludes their own instructions with
 * --toggle-collect='baseline_*'). Each benchmark program is one translation unit, which is
 * why the stand-ins are defined here.
 */
#ifndef PERFVISOR_BENCH_MEASURED_H
#define PERFVISOR_BENCH_MEASURED_H

#include "perfvisor/perfvisor.h"

#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_MEASURED __attribute__((noipa))
#else
#define BENCH_MEASURED __attribute__((noinline))
#endif

BENCH_MEASURED enum pv_trap_result baseline_trap(struct pv_vcpu *v, uint64_t esr, unsigned el,
						 uint64_t *x)
{
	(void)v, (void)esr, (void)x, (void)el;
	return PV_TRAP_HANDLED;
}

BENCH_MEASURED void baseline_load(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	(void)v, (void)cpu;
}

BENCH_MEASURED void baseline_put(struct pv_vcpu *v)
{
	(void)v;
}

/* One switch = load + put, the pair a scheduler performs for each time slice; the measured
 * loop and its baseline are one body, so they compile alike. */
#define BENCH_SWITCH_LOOP(function, load, put)                                                 \
	BENCH_MEASURED void function(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned rounds)  \
	{                                                                                      \
		for (unsigned r = 0; r < rounds; r++) {                                        \
			load(v, cpu);                                                          \
			put(v);                                                                \
		}                                                                              \
	}

#endif
