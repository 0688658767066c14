/* SPDX-License-Identifier: MIT */
/*
 * vPMU benchmarks on the plain-memory platform (tests/support/memplat), so that what is
 * measured is the library's own cost: a "hardware access" there is one memory read or write.
 *
 *   bench_vpmu --list     the figures, one per line: <name> <unit> <method> <mode>
 *   bench_vpmu <mode>     runs one mode and prints what bench/run.sh needs
 *
 * Method "callgrind": bench/run.sh runs the mode under callgrind with collection toggled on
 * in measure_<mode> only, then the mode <mode>_baseline: the identical loop calling the empty
 * baseline_* functions instead of the library, with collection toggled off again inside them.
 * The mode prints "operations <n>"; the figure is (instructions(mode) - instructions(baseline))
 * / n, exactly the instructions executed inside the library per operation.
 * Method "direct": the mode prints "value <x>" itself (no valgrind needed).
 *
 *   vpmu.direct_mix   traps per access of the same mix for a VM with direct counter access
 *                     on hardware with FEAT_FGT: decided by the vCPU's trap words as the Arm
 *                     ARM routes each access (the PMU model's sim_pmu_el2_trap)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "bench/measured.h"
#include "perfvisor/perfvisor.h"
#include "sim/pmu.h"

#define VM_COUNTERS 6    /* the VM's PMCR_EL0.N, all the hardware has (memplat_init) */
#define TRAP_ROUNDS 2000 /* rounds of the access mix */
#define SWITCH_ROUNDS 2000

struct bench_machine {
	struct memplat_cpu hw_cpu;
	struct memplat_vcpu hw_vcpu;
	struct pv_pcpu cpu;
	struct pv_hw hw;
	struct pv_vm vm;
	struct pv_vcpu vcpu;
	uint64_t x[31]; /* the guest's general-purpose registers */
};

/* One guest MRS/MSR, as the trap reports it. */
struct guest_access {
	uint32_t key;
	uint8_t rt;
	bool is_read;
};

/*
 * The realistic mix (trap_mix): what a guest kernel's perf does between context switches,
 * reading its counters far more often than it reprograms them. Writes take their value from
 * x1..x5, reads land in x10..x15, so every round sees the same inputs.
 */
static const struct guest_access trap_mix[] = {
	{PV_PMCCNTR_EL0, 10, true},     {PV_PMEVCNTR_EL0(0), 11, true},
	{PV_PMEVCNTR_EL0(3), 12, true}, {PV_PMCCNTR_EL0, 13, true},
	{PV_PMEVCNTR_EL0(5), 14, true}, {PV_PMEVCNTR_EL0(1), 1, false},
	{PV_PMXEVTYPER_EL0, 2, false}, /* PMSELR_EL0.SEL = 2, set up below */
	{PV_PMEVCNTR_EL0(4), 3, false}, {PV_PMCR_EL0, 4, false},
	{PV_PMCCNTR_EL0, 15, true},
};
#define TRAP_MIX_LEN (sizeof(trap_mix) / sizeof(trap_mix[0]))

static void die(const char *what)
{
	fprintf(stderr, "bench_vpmu: %s\n", what);
	exit(1);
}

/* A guest access from EL1 that the vPMU must handle; anything else is a broken setup. */
static void guest_write(struct bench_machine *m, uint32_t key, uint64_t value)
{
	m->x[0] = value;
	if (pv_trap(&m->vcpu, esr_sys(key, 0, false), 1, m->x) != PV_TRAP_HANDLED)
		die("setup: a guest register write was not handled");
}

/* memplat_init(6), one pCPU with no host counters, a VM with PMUv3p5 and 6 counters. */
static struct bench_machine *machine_new_fgt(bool fgt)
{
	struct bench_machine *m = calloc(1, sizeof(*m));
	if (!m)
		die("out of memory");
	memplat_init(&m->hw_cpu, VM_COUNTERS);
	if (fgt)
		*memplat_reg(&m->hw_cpu,
			     PV_ID_AA64MMFR0_EL1) |= PV_FIELD_PREP(PV_ID_AA64MMFR0_FGT, 1);
	pv_pcpu_init(&m->cpu, &m->hw_cpu);
	int err = pv_hw_probe(&m->hw, &m->cpu, 0);
	if (err)
		die(pv_strerror(err));
	m->hw.fgt_words = fgt; /* this "host" applies every trap word */
	pv_pcpu_setup(&m->cpu, &m->hw);
	struct pv_vm_config cfg = {.features = PV_FEAT_PMU};
	cfg.pmu.version = PV_PMUVER_V3P5;
	cfg.pmu.nr_counters = VM_COUNTERS;
	cfg.pmu.direct = fgt;
	err = pv_vm_init(&m->vm, &m->hw, &cfg);
	if (err)
		die(pv_strerror(err));
	pv_vcpu_init(&m->vcpu, &m->vm, 0, &m->hw_vcpu);
	return m;
}

static struct bench_machine *machine_new(void)
{
	return machine_new_fgt(false);
}

/* The mix's accesses that still trap, over all of them. */
static int run_direct_mix(void)
{
	struct bench_machine *m = machine_new_fgt(true);
	if (!m->vm.pmu.direct)
		die("direct_mix: the VM did not get direct counter access");
	const struct pv_trap_words *w = &m->vcpu.traps;
	unsigned traps = 0;
	for (unsigned i = 0; i < TRAP_MIX_LEN; i++)
		traps += sim_pmu_el2_trap(w->mdcr_el2, w->hdfgrtr_el2, w->hdfgwtr_el2,
					  trap_mix[i].key, trap_mix[i].is_read);
	printf("value %.1f\n", (double)traps / TRAP_MIX_LEN);
	free(m);
	return 0;
}

/* The guest programs every counter and the cycle counter and starts them. */
static void guest_uses_all_counters(struct bench_machine *m)
{
	static const uint16_t events[VM_COUNTERS] = {
		PV_EVT_INST_RETIRED,     PV_EVT_CPU_CYCLES,  PV_EVT_L1D_CACHE,
		PV_EVT_L1D_CACHE_REFILL, PV_EVT_BR_MIS_PRED, PV_EVT_BR_RETIRED,
	};
	for (unsigned n = 0; n < VM_COUNTERS; n++) {
		guest_write(m, PV_PMEVTYPER_EL0(n), events[n]);
		guest_write(m, PV_PMEVCNTR_EL0(n), 1000u * n);
	}
	guest_write(m, PV_PMCCFILTR_EL0, 0);
	guest_write(m, PV_PMINTENSET_EL1,
		    PV_BIT(PV_PMU_CYCLE_IDX) | PV_GENMASK(VM_COUNTERS - 1, 0));
	guest_write(m, PV_PMCNTENSET_EL0,
		    PV_BIT(PV_PMU_CYCLE_IDX) | PV_GENMASK(VM_COUNTERS - 1, 0));
	guest_write(m, PV_PMSELR_EL0, 2);
	guest_write(m, PV_PMCR_EL0, PV_PMCR_E | PV_PMCR_LC | PV_PMCR_LP);
}

/* The measured loop and its baseline are one body, so they compile alike. */
#define TRAP_LOOP(function, trap)                                                              \
	BENCH_MEASURED unsigned function(struct bench_machine *m, const uint64_t *esr,         \
					 unsigned len, unsigned rounds)                        \
	{                                                                                      \
		unsigned handled = 0;                                                          \
		for (unsigned r = 0; r < rounds; r++)                                          \
			for (unsigned i = 0; i < len; i++)                                     \
				handled += trap(&m->vcpu, esr[i], 1, m->x) == PV_TRAP_HANDLED; \
		return handled;                                                                \
	}
TRAP_LOOP(measure_trap_mix, pv_trap)
TRAP_LOOP(measure_trap_mix_baseline, baseline_trap)

BENCH_SWITCH_LOOP(measure_switch_busy, pv_vcpu_load, pv_vcpu_put)
BENCH_SWITCH_LOOP(measure_switch_busy_baseline, baseline_load, baseline_put)
BENCH_SWITCH_LOOP(measure_switch_idle, pv_vcpu_load, pv_vcpu_put)

static int run_trap_mix(bool baseline)
{
	struct bench_machine *m = machine_new();
	pv_vcpu_load(&m->vcpu, &m->cpu);
	guest_uses_all_counters(m);
	for (unsigned r = 1; r <= 5; r++)
		m->x[r] = 0x1000u * r;
	/* The control writes give back what the registers hold: counter 2's type
	 * (PMSELR_EL0.SEL = 2), and PMCR_EL0 enabled. */
	m->x[2] = PV_EVT_L1D_CACHE;
	m->x[4] = PV_PMCR_E | PV_PMCR_LC | PV_PMCR_LP;

	uint64_t esr[TRAP_MIX_LEN];
	for (unsigned i = 0; i < TRAP_MIX_LEN; i++)
		esr[i] = esr_sys(trap_mix[i].key, trap_mix[i].rt, trap_mix[i].is_read);

	unsigned handled = baseline ? measure_trap_mix_baseline(m, esr, TRAP_MIX_LEN,
								TRAP_ROUNDS)
				    : measure_trap_mix(m, esr, TRAP_MIX_LEN, TRAP_ROUNDS);
	if (handled != TRAP_MIX_LEN * TRAP_ROUNDS)
		die("trap_mix: an access of the mix was not handled");
	printf("operations %u\n", handled);
	free(m);
	return 0;
}

static int run_switch_busy(bool baseline)
{
	struct bench_machine *m = machine_new();
	pv_vcpu_load(&m->vcpu, &m->cpu);
	guest_uses_all_counters(m);
	pv_vcpu_put(&m->vcpu);
	if (!m->vcpu.pmu.active)
		die("switch_busy: the vCPU's PMU is not active after it programmed every "
		    "counter");
	if (baseline)
		measure_switch_busy_baseline(&m->vcpu, &m->cpu, SWITCH_ROUNDS);
	else
		measure_switch_busy(&m->vcpu, &m->cpu, SWITCH_ROUNDS);
	printf("operations %u\n", SWITCH_ROUNDS);
	free(m);
	return 0;
}

/* A vCPU that never touches the PMU: count the platform's register accesses directly. */
static int run_switch_idle(void)
{
	struct bench_machine *m = machine_new();
	m->hw_cpu.reads = m->hw_cpu.writes = 0;
	measure_switch_idle(&m->vcpu, &m->cpu, SWITCH_ROUNDS);
	uint64_t accesses = m->hw_cpu.reads + m->hw_cpu.writes;
	double per_switch = (double)accesses / SWITCH_ROUNDS;
	if (accesses % SWITCH_ROUNDS == 0)
		printf("value %llu\n", (unsigned long long)(accesses / SWITCH_ROUNDS));
	else
		printf("value %.2f\n", per_switch);
	free(m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: bench_vpmu --list | <mode>\n", stderr);
		return 2;
	}
	const char *mode = argv[1];
	if (strcmp(mode, "--list") == 0) {
		puts("vpmu.trap_mix instructions/access callgrind trap_mix");
		puts("vpmu.switch_idle pmu-accesses/switch direct switch_idle");
		puts("vpmu.switch_busy instructions/switch callgrind switch_busy");
		puts("vpmu.direct_mix traps/access direct direct_mix");
		return 0;
	}
	if (strcmp(mode, "trap_mix") == 0)
		return run_trap_mix(false);
	if (strcmp(mode, "trap_mix_baseline") == 0)
		return run_trap_mix(true);
	if (strcmp(mode, "switch_busy") == 0)
		return run_switch_busy(false);
	if (strcmp(mode, "switch_busy_baseline") == 0)
		return run_switch_busy(true);
	if (strcmp(mode, "switch_idle") == 0)
		return run_switch_idle();
	if (strcmp(mode, "direct_mix") == 0)
		return run_direct_mix();
	fprintf(stderr, "bench_vpmu: unknown mode '%s'\n", mode);
	return 2;
}
