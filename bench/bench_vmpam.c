/* SPDX-License-Identifier: MIT */
/*
 * vmpam benchmarks (conventions of bench/bench_vpmu.c and bench/run.sh).
 *
 *   vmpam.tick_4096vm instructions/vm  one pv_vmpam_tick over 4096 VMs and 4 memory nodes, per
 *                                      VM (callgrind, minus the same loop around an empty
 *                                      function). Plain-memory platform: every MSC access is one
 *                                      memory access; 32 monitors with 63-bit counters per node,
 *                                      so the monitors rotate.
 *   vmpam.tick_4096vm_mmio mmio/vm     MSC register accesses of that tick, per VM (direct)
 *   vmpam.rotation_error %             mean absolute error against the ground truth of the
 *                                      bytes per VM per node over 1-second intervals, 256 VMs
 *                                      on 16 monitors per node, 4 nodes, 10 modelled seconds of
 *                                      varied traffic (sim_tgen_mix) through the MSC model
 *                                      (sim/msc.c), ticks every 10 ms (direct)
 *   vmpam.rotation_coverage %          intervals of that run whose reported bound covers the
 *                                      truth (direct)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measured.h"
#include "memplat.h"
#include "perfvisor/mpam_regs.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/vmpam.h"
#include "sim/msc.h"
#include "sim/traffic.h"

#define NODES 4
#define MS 1000000ull
#define TICK (10 * MS)

static void die(const char *what)
{
	fprintf(stderr, "bench_vmpam: %s\n", what);
	exit(1);
}

static void check(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "bench_vmpam: %s: %s\n", what, pv_vmpam_strerror(err));
		exit(1);
	}
}

/* ---- one tick over 4096 VMs ---------------------------------------------------------------- */

#define TICK_VMS 4096
#define TICK_MONS 32
#define TICK_ROUNDS 16

struct tick_machine {
	struct memplat_cpu mc;
	struct memplat_mmio io;
	uint32_t words[NODES * PV_MSC_FRAME / 4];
	struct pv_pcpu cpu;
	struct pv_vmpam_sys sys;
	struct pv_vm_mpam *table[TICK_VMS];
	struct pv_vmpam_acct acct[TICK_VMS * NODES];
	struct pv_vm_mpam vm[TICK_VMS];
	uint64_t now;
};

/* Four memory MSCs in plain memory: PARTID_MAX 8191, 32 MBWU monitors with 63-bit counters. */
static struct tick_machine *tick_machine_new(void)
{
	struct tick_machine *t = calloc(1, sizeof(*t));
	if (!t)
		die("out of memory");
	memplat_init(&t->mc, 6);
	t->io = (struct memplat_mmio){
		.base = 0x40000000, .words = t->words, .nwords = sizeof(t->words) / 4};
	t->mc.mmio = &t->io;
	pv_pcpu_init(&t->cpu, &t->mc);
	struct pv_vmpam_msc_desc desc[NODES];
	for (unsigned n = 0; n < NODES; n++) {
		uint32_t *f = &t->words[n * PV_MSC_FRAME / 4];
		f[PV_MPAMF_AIDR / 4] = 0x10;
		f[PV_MPAMF_IDR / 4] = 8191 | 1u << 16 | (uint32_t)PV_IDR_HAS_MSMON;
		f[PV_MPAMF_MSMON_IDR / 4] = (uint32_t)PV_MSMON_IDR_MSMON_MBWU;
		f[PV_MPAMF_MBWUMON_IDR / 4] = TICK_MONS | (uint32_t)PV_MBWUMON_IDR_HAS_LONG |
					      (uint32_t)PV_MBWUMON_IDR_LWD;
		desc[n] = (struct pv_vmpam_msc_desc){.base = 0x40000000 + n * PV_MSC_FRAME,
						     .kind = PV_VMPAM_MSC_MEMORY,
						     .id = (uint8_t)n,
						     .nrdy_ns = 10000};
	}
	uint64_t idr = 8191 | UINT64_C(1) << 32 | PV_MPAMIDR_HAS_HCR | UINT64_C(7) << 18;
	struct pv_vmpam_setup s = {.msc = desc,
				   .nmsc = NODES,
				   .cpu_mpamidr = &idr,
				   .ncpus = 1,
				   .vms = t->table,
				   .max_vms = TICK_VMS,
				   .acct = t->acct,
				   .nacct = TICK_VMS * NODES};
	check(pv_vmpam_init(&t->sys, &t->cpu, &s), "init");
	for (unsigned i = 0; i < TICK_VMS; i++)
		check(pv_vmpam_partition_init(&t->sys, &t->cpu, &t->vm[i], NULL, true),
		      "vm_init");
	/* Steady state: several whole rotations. */
	for (unsigned k = 0; k < 3 * TICK_VMS / TICK_MONS; k++)
		pv_vmpam_tick(&t->sys, &t->cpu, t->now += TICK);
	if (!t->sys.node[0].rotating)
		die("tick_4096vm: the monitors do not rotate");
	return t;
}

BENCH_MEASURED void baseline_tick(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, uint64_t now)
{
	(void)sys, (void)cpu, (void)now;
}

#define TICK_LOOP(function, tick)                                                              \
	BENCH_MEASURED void function(struct tick_machine *t, unsigned rounds)                  \
	{                                                                                      \
		for (unsigned r = 0; r < rounds; r++)                                          \
			tick(&t->sys, &t->cpu, t->now += TICK);                                \
	}
TICK_LOOP(measure_tick_4096vm, pv_vmpam_tick)
TICK_LOOP(measure_tick_4096vm_baseline, baseline_tick)
TICK_LOOP(measure_tick_4096vm_mmio, pv_vmpam_tick)

static int run_tick(bool baseline)
{
	struct tick_machine *t = tick_machine_new();
	if (baseline)
		measure_tick_4096vm_baseline(t, TICK_ROUNDS);
	else
		measure_tick_4096vm(t, TICK_ROUNDS);
	printf("operations %u\n", TICK_ROUNDS * TICK_VMS);
	free(t);
	return 0;
}

static int run_tick_mmio(void)
{
	struct tick_machine *t = tick_machine_new();
	t->io.reads = t->io.writes = 0;
	measure_tick_4096vm_mmio(t, TICK_ROUNDS);
	printf("value %.3f\n", (double)(t->io.reads + t->io.writes) / (TICK_ROUNDS * TICK_VMS));
	free(t);
	return 0;
}

/* ---- rotation accuracy --------------------------------------------------------------------- */

#define ROT_VMS 256
#define ROT_MONS 16
#define ROT_SECONDS 10

struct rot_machine {
	struct memplat_cpu mc;
	struct memplat_mmio io;
	struct pv_pcpu cpu;
	struct sim_msc msc[NODES];
	struct sim_mpam mp;
	struct pv_vmpam_sys sys;
	struct pv_vm_mpam *table[ROT_VMS];
	struct pv_vmpam_acct acct[ROT_VMS * NODES];
	struct pv_vm_mpam vm[ROT_VMS];
	struct sim_tgen gen[ROT_VMS];
};

static uint32_t model_read(void *dev, uint64_t pa)
{
	return sim_mpam_read32(dev, pa);
}

static void model_write(void *dev, uint64_t pa, uint32_t val)
{
	sim_mpam_write32(dev, pa, val);
}

static uint64_t truth(const struct rot_machine *r, unsigned i, unsigned node)
{
	return sim_mpam_truth(&r->mp, node, r->vm[i].partid[0]);
}

/* The MSC model behind the plain-memory platform's MMIO: 4 nodes of 200 GB/s, one MSC each
 * with 16 monitors (63-bit counters, NRDY for 10 us after a reconfiguration). */
static struct rot_machine *rot_machine_new(void)
{
	struct rot_machine *r = calloc(1, sizeof(*r));
	if (!r)
		die("out of memory");
	struct pv_vmpam_msc_desc desc[NODES];
	for (unsigned n = 0; n < NODES; n++) {
		struct sim_msc_config c = {.base = 0x50000000 + n * 0x10000,
					   .node = (int)n,
					   .partid_max = 1023,
					   .pmg_max = 1,
					   .aidr = 0x11,
					   .nrdy_ns = 10000,
					   .nris = 1};
		c.ris[0] = (struct sim_ris_config){.mbw = true,
						   .bwa_wd = 8,
						   .has_max = true,
						   .num_mon = ROT_MONS,
						   .has_long = true,
						   .lwd = true,
						   .weight = 1,
						   .capacity = 200000000000ull};
		if (sim_msc_init(&r->msc[n], &c))
			die("sim_msc_init");
		desc[n] = (struct pv_vmpam_msc_desc){.base = c.base,
						     .kind = PV_VMPAM_MSC_MEMORY,
						     .id = (uint8_t)n,
						     .nrdy_ns = 10000};
	}
	if (sim_mpam_init(&r->mp, r->msc, NODES))
		die("sim_mpam_init");
	memplat_init(&r->mc, 6);
	r->io = (struct memplat_mmio){
		.dev_read = model_read, .dev_write = model_write, .dev = &r->mp};
	r->mc.mmio = &r->io;
	pv_pcpu_init(&r->cpu, &r->mc);
	uint64_t idr = 1023 | UINT64_C(1) << 32 | PV_MPAMIDR_HAS_HCR | UINT64_C(7) << 18;
	struct pv_vmpam_setup s = {.msc = desc,
				   .nmsc = NODES,
				   .cpu_mpamidr = &idr,
				   .ncpus = 1,
				   .vms = r->table,
				   .max_vms = ROT_VMS,
				   .acct = r->acct,
				   .nacct = ROT_VMS * NODES};
	check(pv_vmpam_init(&r->sys, &r->cpu, &s), "init");
	for (unsigned i = 0; i < ROT_VMS; i++) {
		check(pv_vmpam_partition_init(&r->sys, &r->cpu, &r->vm[i], NULL, true),
		      "vm_init");
		/* The label of its vCPU's traffic: virtual PARTID 0 through the VPM (the CPU-side
		 * rule is checked by tests/scenario/test_scen_mpam.c). */
		sim_tgen_init(&r->gen[i], r->vm[i].partid[0], 0, 0, 1);
		sim_tgen_mix(&r->gen[i], i, NODES, 50000000, 4000000000ull, 2024);
	}
	return r;
}

static void rot_run(struct rot_machine *r, uint64_t ns)
{
	for (uint64_t t = 0; t < ns; t += MS) {
		sim_traffic_step(&r->mp, r->gen, ROT_VMS, MS);
		if (r->mp.now % TICK == 0)
			pv_vmpam_tick(&r->sys, &r->cpu, r->mp.now);
	}
}

static int run_rotation(bool coverage)
{
	struct rot_machine *r = rot_machine_new();
	static struct pv_vmpam_reading prev[ROT_VMS][NODES];
	static uint64_t tprev[ROT_VMS][NODES];
	double rel = 0;
	unsigned n = 0, covered = 0;
	/* The first second: every VM is measured at least once before the intervals begin. */
	rot_run(r, 1000 * MS);
	for (unsigned sec = 0; sec <= ROT_SECONDS; sec++) {
		for (unsigned i = 0; i < ROT_VMS; i++) {
			for (unsigned k = 0; k < NODES; k++) {
				struct pv_vmpam_reading rd;
				struct pv_vmpam_rate rate;
				pv_vmpam_read(&r->sys, &r->vm[i], k, &rd);
				uint64_t t = truth(r, i, k);
				if (sec && pv_vmpam_rate(&prev[i][k], &rd, &rate) <=
						   PV_VMPAM_ESTIMATED) {
					double err = fabs((double)rate.bytes -
							  (double)(t - tprev[i][k]));
					rel += err / (double)(t - tprev[i][k]);
					covered += err <= (double)rate.bound;
					n++;
				}
				prev[i][k] = rd;
				tprev[i][k] = t;
			}
		}
		if (sec < ROT_SECONDS)
			rot_run(r, 1000 * MS);
	}
	if (n != ROT_SECONDS * ROT_VMS * NODES || sim_mpam_errors(&r->mp))
		die("rotation: readings missing, or MSC errors");
	printf("value %.2f\n", coverage ? 100.0 * covered / n : 100.0 * rel / n);
	sim_mpam_free(&r->mp);
	for (unsigned k = 0; k < NODES; k++)
		sim_msc_free(&r->msc[k]);
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: bench_vmpam --list | <mode>\n", stderr);
		return 2;
	}
	const char *mode = argv[1];
	if (strcmp(mode, "--list") == 0) {
		puts("vmpam.tick_4096vm instructions/vm callgrind tick_4096vm");
		puts("vmpam.tick_4096vm_mmio mmio/vm direct tick_4096vm_mmio");
		puts("vmpam.rotation_error % direct rotation_error");
		puts("vmpam.rotation_coverage % direct rotation_coverage");
		return 0;
	}
	if (strcmp(mode, "tick_4096vm") == 0)
		return run_tick(false);
	if (strcmp(mode, "tick_4096vm_baseline") == 0)
		return run_tick(true);
	if (strcmp(mode, "tick_4096vm_mmio") == 0)
		return run_tick_mmio();
	if (strcmp(mode, "rotation_error") == 0)
		return run_rotation(false);
	if (strcmp(mode, "rotation_coverage") == 0)
		return run_rotation(true);
	fprintf(stderr, "bench_vmpam: unknown mode '%s'\n", mode);
	return 2;
}
