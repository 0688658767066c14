/* SPDX-License-Identifier: MIT */
/*
 * vAMU benchmarks on the plain-memory platform (tests/support/memplat), following
 * bench/bench_vpmu.c: `--list` names the figures, a mode runs one of them.
 *
 *   vamu.read_v1p1              traps per guest read of a counter that has a virtual offset
 *                               register (CPU_CYCLES, INST_RETIRED, STALL_BACKEND_MEM, the
 *                               auxiliary counters with AMEVCNTVOFF1<n>_EL2), virtual-offset
 *                               path: decided by the vCPU's trap words, as the Arm ARM routes
 *                               an EL1 MRS (CPTR_EL2.TAM, then HAFGRTR_EL2)
 *   vamu.read_v1p1_cnt_cycles   the same for CNT_CYCLES, which has no offset register
 *   vamu.read_v1                instructions per trapped counter read, trap path (AMUv1)
 *   vamu.switch                 instructions per pv_vcpu_load + pv_vcpu_put, virtual-offset path
 *   vamu.switch_v1              the same, trap path
 * The machine: AMUv1p1 (AMUv1 for the _v1 figures) with 4 auxiliary counters, all with a
 * virtual offset register, FEAT_FGT; one VM with the full AMU view and only the AMU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/measured.h"
#include "esr.h"
#include "tests/unit/test_vamu_rig.h"

#define ROUNDS 2000
#define AUX 4

static void die(const char *what)
{
	fprintf(stderr, "bench_vamu: %s\n", what);
	exit(1);
}

static struct amu_rig *machine_new(unsigned version)
{
	struct amu_rig *r = calloc(1, sizeof(*r));
	if (!r)
		die("out of memory");
	struct amu_hw_desc d = {.version = version, .aux = AUX, .voff = 0xF, .fgt = true};
	if (rig_init(r, &d) || rig_vm(r, PV_FEAT_AMU, version, AUX))
		die("setup failed");
	if (r->vm.amu.path != (version == 2 ? PV_AMU_PATH_VOFF : PV_AMU_PATH_TRAP))
		die("setup: not the intended path");
	return r;
}

static uint32_t counter_key(unsigned k)
{
	return k < 4 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - 4);
}

/* Whether an EL1 MRS of `key` traps to EL2 under these trap words (Arm ARM D24.6 access
 * pseudocode, EL1: CPTR_EL2.TAM, then FEAT_FGT HAFGRTR_EL2; EL3 delegates). */
static bool el1_read_traps(const struct pv_trap_words *w, uint32_t key)
{
	if (w->cptr_el2 & PV_CPTR_EL2_TAM)
		return true;
	for (unsigned n = 0; n < 4; n++)
		if (key == PV_AMEVCNTR0_EL0(n))
			return w->hafgrtr_el2 & PV_HAFGRTR_AMEVCNTR0(n);
	for (unsigned n = 0; n < 16; n++)
		if (key == PV_AMEVCNTR1_EL0(n))
			return w->hafgrtr_el2 & PV_HAFGRTR_AMEVCNTR1(n);
	return false;
}

static int run_read_v1p1(unsigned cnt_cycles)
{
	struct amu_rig *r = machine_new(2);
	unsigned reads = 0, traps = 0;
	for (unsigned k = 0; k < 4 + AUX; k++) {
		bool offset = r->vm.amu.voff >> k & 1;
		if (offset == (cnt_cycles != 0))
			continue;
		reads++;
		traps += el1_read_traps(&r->v[0].traps, counter_key(k));
	}
	printf("value %g\n", (double)traps / reads);
	free(r);
	return 0;
}

#define READ_LOOP(function, trap)                                                              \
	BENCH_MEASURED unsigned function(struct pv_vcpu *v, const uint64_t *esr, unsigned len, \
					 uint64_t *x, unsigned rounds)                         \
	{                                                                                      \
		unsigned handled = 0;                                                          \
		for (unsigned r = 0; r < rounds; r++)                                          \
			for (unsigned i = 0; i < len; i++)                                     \
				handled += trap(v, esr[i], 1, x) == PV_TRAP_HANDLED;           \
		return handled;                                                                \
	}
READ_LOOP(measure_read_v1, pv_trap)
READ_LOOP(measure_read_v1_baseline, baseline_trap)

/* What Linux reads: CPU_CYCLES and CNT_CYCLES at every tick (frequency invariance), the
 * other counters now and then. */
static int run_read_v1(unsigned baseline)
{
	static const unsigned mix[] = {0, 1, 0, 1, 2, 3, 4, 5};
	struct amu_rig *r = machine_new(1);
	uint64_t x[31] = {0};
	uint64_t esr[sizeof(mix) / sizeof(mix[0])];
	unsigned len = sizeof(mix) / sizeof(mix[0]);
	for (unsigned i = 0; i < len; i++)
		esr[i] = esr_sys(counter_key(mix[i]), (unsigned)(10 + i), true);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	unsigned handled = baseline ? measure_read_v1_baseline(&r->v[0], esr, len, x, ROUNDS)
				    : measure_read_v1(&r->v[0], esr, len, x, ROUNDS);
	if (handled != len * ROUNDS)
		die("read_v1: a counter read was not handled");
	printf("operations %u\n", handled);
	free(r);
	return 0;
}

BENCH_SWITCH_LOOP(measure_switch, pv_vcpu_load, pv_vcpu_put)
BENCH_SWITCH_LOOP(measure_switch_baseline, baseline_load, baseline_put)
BENCH_SWITCH_LOOP(measure_switch_v1, pv_vcpu_load, pv_vcpu_put)
BENCH_SWITCH_LOOP(measure_switch_v1_baseline, baseline_load, baseline_put)

#define BASELINE 0x100u

/* arg: the AMU version, | BASELINE for the baseline loop. */
static int run_switch(unsigned arg)
{
	unsigned version = arg & 0xFF;
	bool baseline = arg & BASELINE;
	struct amu_rig *r = machine_new(version);
	if (version == 2)
		(baseline ? measure_switch_baseline : measure_switch)(&r->v[0], &r->cpu[0],
								      ROUNDS);
	else
		(baseline ? measure_switch_v1_baseline : measure_switch_v1)(&r->v[0],
									    &r->cpu[0], ROUNDS);
	printf("operations %u\n", ROUNDS);
	free(r);
	return 0;
}

static const struct bench_mode modes[] = {
	{"read_v1p1", "vamu.read_v1p1", "traps/read", "direct", run_read_v1p1, 0},
	{"read_v1p1_cnt_cycles", "vamu.read_v1p1_cnt_cycles", "traps/read", "direct",
	 run_read_v1p1, 1},
	{"read_v1", "vamu.read_v1", "instructions/read", "callgrind", run_read_v1, 0},
	{"read_v1_baseline", NULL, NULL, NULL, run_read_v1, 1},
	{"switch", "vamu.switch", "instructions/switch", "callgrind", run_switch, 2},
	{"switch_baseline", NULL, NULL, NULL, run_switch, 2 | BASELINE},
	{"switch_v1", "vamu.switch_v1", "instructions/switch", "callgrind", run_switch, 1},
	{"switch_v1_baseline", NULL, NULL, NULL, run_switch, 1 | BASELINE},
};

int main(int argc, char **argv)
{
	return bench_main("bench_vamu", modes, sizeof(modes) / sizeof(modes[0]), argc, argv);
}
