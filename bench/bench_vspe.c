/* SPDX-License-Identifier: MIT */
/*
 * vSPE benchmarks on the plain-memory platform (tests/support/memplat), following
 * bench/bench_vpmu.c: `--list` names the figures, a mode runs one of them.
 *
 *   vspe.enable_1mib    instructions per guest enable (the PMBLIMITR_EL1 write with E = 1 and
 *                       profiling on) of a 1 MiB buffer: the D17.7.4 checks, the stage-1 walk
 *                       of its first chunk (PV_VSPE_PIN_CHUNK, 64 pages of 4 KiB) through the
 *                       guest's tables, their pinning
 *   vspe.enable_64mib   the same for 64 MiB: the same one chunk
 *   vspe.pinned_ratio   the most perfvisor had pinned over a profiling run into a 16 MiB buffer
 *                       (the model's unit writing it, as for vspe.loss), over what the unit had
 *                       written plus one chunk: buffer pages only, the tables aside
 *   vspe.switch         instructions per pv_vcpu_load + pv_vcpu_put of a vCPU that profiles
 *                       (PSB CSYNC drain, save, restore)
 *   vspe.switch_direct  the same with direct sampling controls (docs/spe.md): the controls
 *                       saved from the hardware at put
 *   vspe.restart        instructions per stop and start of Linux's arm_spe_pmu (what it does
 *                       at each switch of the profiled task: PMSCR_EL1 = 0, PMBLIMITR_EL1 = 0,
 *                       PMBSR_EL1 and PMBPTR_EL1 read, PMSICR_EL1 read; then PMBPTR_EL1,
 *                       PMBLIMITR_EL1 with E, PMSFCR_EL1, PMSEVFR_EL1, PMSLATFR_EL1, PMSIRR_EL1,
 *                       PMSICR_EL1, PMSCR_EL1 written) with a 32 KiB buffer, every access
 *                       trapped; the disable unpins, so each enable walks and pins again
 *   vspe.restart_direct the same with direct sampling controls: the buffer registers alone
 *                       trap (the others are the platform's cells, as the hardware's)
 *   vspe.restart_traps, vspe.restart_traps_direct: the traps of one such stop and start
 *   vspe.loss           records lost over a steady-state run: two vCPUs profiling into 512 KiB
 *                       buffers, migrating between two pCPUs, a Linux-like driver restarting
 *                       its buffer at each buffer-full interrupt. The "hardware" is the
 *                       machine model's SPE unit (sim/spe.c), its registers bridged to the
 *                       platform's cells, its writes translated by the guest's stage 1 and a
 *                       stage 2 that maps only what perfvisor pinned. Target: 0.
 * The machine: SPEv1p2, PMBIDR_EL1.Align 6, MaxSize 7 (128-byte records), FEAT_FGT; one VM with
 * only SPE, 4 KiB granule, 48-bit VAs, kernel buffers under TTBR1_EL1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/measured.h"
#include "esr.h"
#include "perfvisor/spe_packet.h"
#include "tests/unit/test_vspe_rig.h"

/* The simulator's SPE unit model and what it needs (pure hardware models: they call no
 * platform function), linked beside the plain-memory platform, not the machine model. */
#include "sim/events.h"
#include "sim/mem.h"
#include "sim/spe.h"

#define KVA UINT64_C(0xFFFF800080000000)
#define SCR_ON (PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_TS)
#define BASELINE 0x100u
#define DIRECT 0x200u
#define TRAPS 0x400u

static const struct spe_hw_desc HW = {.version = 3, .align = 6, .max_size = 7, .fgt = true};
/* The same machine whose PMSIDR_EL1 a VM of its version sees as it is (no EFT, no FDS): direct
 * sampling controls. */
static const struct spe_hw_desc HW_DIRECT = {.version = 3,
					     .align = 6,
					     .max_size = 7,
					     .fgt = true,
					     .no_eft_fds = true,
					     .fgt_words = true};

static void die(const char *what)
{
	fprintf(stderr, "bench_vspe: %s\n", what);
	exit(1);
}

static void wr(struct pv_vcpu *v, uint32_t key, uint64_t val)
{
	uint64_t x[31] = {0};
	x[3] = val;
	if (pv_trap(v, esr_sys(key, 3, false), 1, x) != PV_TRAP_HANDLED)
		die("a guest SPE write was not handled");
}

static uint64_t rd(struct pv_vcpu *v, uint32_t key)
{
	uint64_t x[31] = {0};
	if (pv_trap(v, esr_sys(key, 3, true), 1, x) != PV_TRAP_HANDLED)
		die("a guest SPE read was not handled");
	return x[3];
}

/* The rig: a VM with SPE only (max buffer `max`), the guest's 4 KiB tables on both pCPUs, and
 * `size` bytes of buffer per vCPU at KVA + vcpu * 16 MiB, its pages at IPAs shuffled within the
 * vCPU's 32 MiB of RAM (so runs are never contiguous by accident). */
static struct spe_rig *machine_on(const struct spe_hw_desc *hw, uint64_t max, uint64_t size,
				  unsigned vcpus)
{
	struct spe_rig *r = spe_rig_new(hw);
	if (spe_rig_vm(r, PV_FEAT_SPE, 3, max))
		die("setup: pv_vm_init");
	uint64_t root0 = rig_new_table(r, 12), root1 = rig_new_table(r, 12);
	for (unsigned c = 0; c < RIG_CPUS; c++)
		rig_regime(r, c, root0, root1, 12, 48, true);
	uint64_t pages = size >> 12, seed = 0x5EED;
	uint64_t *perm = malloc(pages * sizeof(*perm));
	if (!perm)
		die("out of memory");
	for (unsigned i = 0; i < vcpus; i++) {
		for (uint64_t p = 0; p < pages; p++)
			perm[p] = p;
		for (uint64_t p = pages - 1; p > 0; p--) { /* Fisher-Yates */
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			uint64_t k = (seed >> 33) % (p + 1), t = perm[p];
			perm[p] = perm[k];
			perm[k] = t;
		}
		for (uint64_t p = 0; p < pages; p++)
			rig_map(r, root1, 12, 48, KVA + (uint64_t)i * (16u << 20) + p * 4096,
				RIG_RAM + (uint64_t)i * (32u << 20) + perm[p] * 4096, 4096, 3,
				0);
	}
	free(perm);
	return r;
}

static struct spe_rig *machine_new(uint64_t max, uint64_t size, unsigned vcpus)
{
	return machine_on(&HW, max, size, vcpus);
}

/* ---- enable ------------------------------------------------------------------------------- */

#define ENABLE_ONE(function, trap)                                                             \
	BENCH_MEASURED enum pv_trap_result function(struct pv_vcpu *v, uint64_t esr,           \
						    uint64_t *x)                               \
	{                                                                                      \
		return trap(v, esr, 1, x);                                                     \
	}
ENABLE_ONE(measure_enable_1mib, pv_trap)
ENABLE_ONE(measure_enable_1mib_baseline, baseline_trap)
ENABLE_ONE(measure_enable_64mib, pv_trap)
ENABLE_ONE(measure_enable_64mib_baseline, baseline_trap)

/* arg: MiB, | BASELINE. Each round enables (measured), then disables (not measured: it unpins,
 * so that every enable checks, walks and pins its first chunk again). */
static int run_enable(unsigned arg)
{
	uint64_t size = (uint64_t)(arg & 0xFF) << 20;
	bool baseline = arg & BASELINE;
	unsigned rounds = size > (UINT64_C(1) << 20) ? 4 : 200;
	struct spe_rig *r = machine_new(UINT64_C(64) << 20, size, 1);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	wr(v, PV_PMSIRR_EL1, 4096);
	wr(v, PV_PMSCR_EL1, SCR_ON);
	uint64_t esr = esr_sys(PV_PMBLIMITR_EL1, 3, false);
	for (unsigned i = 0; i < rounds; i++) {
		wr(v, PV_PMBPTR_EL1, KVA);
		uint64_t x[31] = {0};
		x[3] = (KVA + size) | PV_PMBLIMITR_E;
		enum pv_trap_result t = size > (UINT64_C(1) << 20)
						? (baseline ? measure_enable_64mib_baseline
							    : measure_enable_64mib)(v, esr, x)
						: (baseline ? measure_enable_1mib_baseline
							    : measure_enable_1mib)(v, esr, x);
		if (t != PV_TRAP_HANDLED)
			die("enable: not handled");
		if (baseline)
			wr(v, PV_PMBLIMITR_EL1, x[3]);
		/* Either way the buffer is now on, its first chunk pinned. */
		uint64_t first = size < PV_VSPE_PIN_CHUNK ? size : PV_VSPE_PIN_CHUNK;
		if (!v->spe.hw_on || rig_pinned(r) < first >> 12 || rd(v, PV_PMBSR_EL1))
			die("enable: the buffer is not on and pinned");
		wr(v, PV_PMBLIMITR_EL1, 0);
		if (rig_pinned(r))
			die("disable: pins left");
	}
	printf("operations %u\n", rounds);
	pv_vcpu_put(v);
	spe_rig_free(r);
	return 0;
}

/* ---- switch -------------------------------------------------------------------------------- */

BENCH_SWITCH_LOOP(measure_switch, pv_vcpu_load, pv_vcpu_put)
BENCH_SWITCH_LOOP(measure_switch_baseline, baseline_load, baseline_put)
BENCH_SWITCH_LOOP(measure_switch_direct, pv_vcpu_load, pv_vcpu_put)
BENCH_SWITCH_LOOP(measure_switch_direct_baseline, baseline_load, baseline_put)

/* arg: | BASELINE, | DIRECT. */
static int run_switch(unsigned arg)
{
	enum { ROUNDS = 2000 };
	bool baseline = arg & BASELINE, direct = arg & DIRECT;
	struct spe_rig *r = machine_on(direct ? &HW_DIRECT : &HW, UINT64_C(1) << 20,
				       UINT64_C(1) << 20, 1);
	void (*loop)(struct pv_vcpu *, struct pv_pcpu *, unsigned) =
		direct ? (baseline ? measure_switch_direct_baseline : measure_switch_direct)
		       : (baseline ? measure_switch_baseline : measure_switch);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	wr(v, PV_PMSIRR_EL1, 4096);
	wr(v, PV_PMSCR_EL1, SCR_ON);
	wr(v, PV_PMBPTR_EL1, KVA);
	wr(v, PV_PMBLIMITR_EL1, (KVA + (UINT64_C(1) << 20)) | PV_PMBLIMITR_E);
	if (!v->spe.hw_on)
		die("switch: the buffer is not on");
	pv_vcpu_put(v);
	loop(v, &r->cpu[0], ROUNDS);
	pv_vcpu_load(v, &r->cpu[0]);
	if (!v->spe.hw_on || v->spe.stats.enables != 1 || r->vm.spe.direct != direct)
		die("switch: the buffer was walked again or is off, or the path is not the "
		    "one");
	printf("operations %u\n", ROUNDS);
	pv_vcpu_put(v);
	spe_rig_free(r);
	return 0;
}

/* ---- restart: Linux's arm_spe_pmu_stop() and arm_spe_pmu_start() ------------------------- */

/* One guest access as the hardware routes it by the trap words in force: MDCR_EL2.E2PB traps
 * the buffer registers, a sampling control traps by its fine-grained bit or MDCR_EL2.TPMS
 * (none of those of HW_DIRECT has a bit set), else it is the hardware's register. */
#define RESTART_LOOP(function, trap)                                                           \
	static uint64_t function##_access(struct pv_vcpu *v, uint32_t key, bool rd,            \
					  uint64_t val)                                        \
	{                                                                                      \
		bool pmb = key == PV_PMBLIMITR_EL1 || key == PV_PMBPTR_EL1 ||                  \
			   key == PV_PMBSR_EL1;                                                \
		if (pmb || (v->traps.mdcr_el2 & PV_MDCR_EL2_TPMS)) {                           \
			uint64_t x[31] = {0};                                                  \
			x[3] = val;                                                            \
			if (trap(v, esr_sys(key, 3, rd), 1, x) != PV_TRAP_HANDLED)             \
				die("restart: an access was not handled");                     \
			return x[3];                                                           \
		}                                                                              \
		uint64_t *cell = memplat_reg(v->cpu->plat, key);                               \
		if (!rd)                                                                       \
			*cell = val;                                                           \
		return *cell;                                                                  \
	}                                                                                      \
	BENCH_MEASURED void function(struct pv_vcpu *v, unsigned rounds, uint64_t size)        \
	{                                                                                      \
		for (unsigned i = 0; i < rounds; i++) {                                        \
			uint64_t icr;                                                          \
			function##_access(v, PV_PMSCR_EL1, false, 0);                          \
			function##_access(v, PV_PMBLIMITR_EL1, false, 0);                      \
			function##_access(v, PV_PMBSR_EL1, true, 0);                           \
			function##_access(v, PV_PMBPTR_EL1, true, 0);                          \
			icr = function##_access(v, PV_PMSICR_EL1, true, 0);                    \
			function##_access(v, PV_PMBPTR_EL1, false, KVA);                       \
			function##_access(v, PV_PMBLIMITR_EL1, false,                          \
					  (KVA + size) | PV_PMBLIMITR_E);                      \
			function##_access(v, PV_PMSFCR_EL1, false, 0);                         \
			function##_access(v, PV_PMSEVFR_EL1, false, 0);                        \
			function##_access(v, PV_PMSLATFR_EL1, false, 0);                       \
			function##_access(v, PV_PMSIRR_EL1, false, 4096);                      \
			function##_access(v, PV_PMSICR_EL1, false, icr);                       \
			function##_access(v, PV_PMSCR_EL1, false, SCR_ON);                     \
		}                                                                              \
	}
RESTART_LOOP(measure_restart, pv_trap)
RESTART_LOOP(measure_restart_baseline, baseline_trap)
RESTART_LOOP(measure_restart_direct, pv_trap)
RESTART_LOOP(measure_restart_direct_baseline, baseline_trap)

/* arg: | BASELINE, | DIRECT, | TRAPS (the traps a restart takes, not its instructions). A
 * 32 KiB buffer (8 pages), as Linux's AUX buffer in docs/spe.md's "Linux in a guest". */
static int run_restart(unsigned arg)
{
	enum { ROUNDS = 200 };
	const uint64_t size = UINT64_C(32) << 10;
	bool direct = arg & DIRECT, baseline = arg & BASELINE;
	struct spe_rig *r = machine_on(direct ? &HW_DIRECT : &HW, UINT64_C(1) << 20, size, 1);
	struct pv_vcpu *v = &r->v[0];
	void (*loop)(struct pv_vcpu *, unsigned, uint64_t) =
		direct ? (baseline ? measure_restart_direct_baseline : measure_restart_direct)
		       : (baseline ? measure_restart_baseline : measure_restart);
	if (r->vm.spe.direct != direct)
		die("restart: the path is not the one asked for");
	pv_vcpu_load(v, &r->cpu[0]);
	/* Running, as the first start left it (and the first write took TPMS off). */
	wr(v, PV_PMSIRR_EL1, 4096);
	wr(v, PV_PMBPTR_EL1, KVA);
	wr(v, PV_PMBLIMITR_EL1, (KVA + size) | PV_PMBLIMITR_E);
	wr(v, PV_PMSCR_EL1, SCR_ON);
	uint64_t traps = v->stats.traps[PV_KIND_SPE];
	loop(v, ROUNDS, size);
	traps = v->stats.traps[PV_KIND_SPE] - traps;
	if (!baseline && (!v->spe.hw_on || v->spe.stats.enables != ROUNDS + 1))
		die("restart: the buffer is not on, or was not enabled at each start");
	if (arg & TRAPS)
		printf("value %llu.%llu\n", (unsigned long long)(traps / ROUNDS),
		       (unsigned long long)(traps % ROUNDS * 10 / ROUNDS));
	else
		printf("operations %u\n", ROUNDS);
	pv_vcpu_put(v);
	spe_rig_free(r);
	return 0;
}

/* ---- loss: the model's unit behind the platform's cells ---------------------------------- */

static const uint32_t bridged[] = {
	PV_PMSCR_EL1,    PV_PMSICR_EL1,   PV_PMSIRR_EL1,    PV_PMSFCR_EL1, PV_PMSEVFR_EL1,
	PV_PMSNEVFR_EL1, PV_PMSLATFR_EL1, PV_PMBLIMITR_EL1, PV_PMBPTR_EL1, PV_PMBSR_EL1};

static uint64_t *unit_field(struct sim_spe *u, uint32_t key)
{
	switch (key) {
	case PV_PMSCR_EL1:
		return &u->scr;
	case PV_PMSICR_EL1:
		return &u->icr;
	case PV_PMSIRR_EL1:
		return &u->irr;
	case PV_PMSFCR_EL1:
		return &u->fcr;
	case PV_PMSEVFR_EL1:
		return &u->evfr;
	case PV_PMSNEVFR_EL1:
		return &u->nevfr;
	case PV_PMSLATFR_EL1:
		return &u->latfr;
	case PV_PMBLIMITR_EL1:
		return &u->limitr;
	case PV_PMBPTR_EL1:
		return &u->ptr;
	default:
		return &u->bsr;
	}
}

struct loss {
	struct spe_rig *r;
	struct sim_spe unit[RIG_CPUS];
	struct pv_vcpu *on[RIG_CPUS];
	unsigned cpu;              /* the pCPU whose unit is writing */
	uint64_t stray, s2_faults; /* bytes outside the VM's pinned pages; stage-2 faults */
	uint64_t decoded, guest_faults;
};

static bool desc_read(void *ctx, uint64_t addr, uint64_t *d, struct sim_fault *f)
{
	struct spe_rig *r = ctx;
	if (addr < RIG_RAM || addr + 8 > RIG_RAM + RIG_RAM_SIZE) {
		*f = (struct sim_fault){
			.kind = SIM_FAULT_TRANSLATION, .stage2 = true, .ipa = addr};
		return false;
	}
	*d = *rig_ipa(r, addr);
	return true;
}

/* The profiler's translation: the guest's stage 1 (read from its memory), then a stage 2 in
 * which only pinned pages are mapped, IPA -> IPA + pa_offset. */
static bool loss_xlate(void *ctx, uint64_t va, bool buffer, uint64_t *pa, struct sim_fault *f)
{
	struct loss *l = ctx;
	struct spe_rig *r = l->r;
	struct memplat_cpu *c = &r->mc[l->cpu];
	if (!buffer) { /* a sampled access's PA: never collected for a guest (PMSCR_EL2.PA = 0) */
		*pa = va & PV_GENMASK(47, 0);
		return true;
	}
	struct sim_walk w;
	uint64_t ipa, block;
	if (!sim_s1_params(*memplat_reg(c, PV_TCR_EL1), *memplat_reg(c, PV_TTBR0_EL1),
			   *memplat_reg(c, PV_TTBR1_EL1), va, 48, 1, &w)) {
		*f = (struct sim_fault){.kind = SIM_FAULT_TRANSLATION};
		return false;
	}
	w.read = desc_read;
	w.ctx = r;
	if (!sim_walk(&w, va, true, true, &ipa, &block, f))
		return false;
	if (ipa < RIG_RAM || ipa >= RIG_RAM + RIG_RAM_SIZE ||
	    !rig_pin_count(r, ipa & ~UINT64_C(0xFFF))) {
		*f = (struct sim_fault){
			.kind = SIM_FAULT_TRANSLATION, .level = 3, .stage2 = true, .ipa = ipa};
		l->s2_faults++;
		return false;
	}
	*pa = ipa + r->mem.pa_offset;
	return true;
}

static void loss_write(void *ctx, uint64_t pa, const uint8_t *b, size_t n)
{
	struct loss *l = ctx;
	uint64_t ipa = pa - l->r->mem.pa_offset;
	if (ipa < RIG_RAM || ipa + n > RIG_RAM + RIG_RAM_SIZE) {
		l->stray += n;
		return;
	}
	memcpy(l->r->mem.bytes + (ipa - RIG_RAM), b, n);
}

/* One chunk of guest work on pCPU `c`: cells -> unit, run, unit -> cells, then PMBIRQ. */
static void loss_run(struct loss *l, unsigned c, const struct sim_work *w, uint64_t t)
{
	struct spe_rig *r = l->r;
	struct pv_vcpu *v = l->on[c];
	struct sim_spe *u = &l->unit[c];
	for (size_t k = 0; k < sizeof(bridged) / sizeof(bridged[0]); k++)
		*unit_field(u, bridged[k]) = *memplat_reg(&r->mc[c], bridged[k]);
	/* What the hypervisor has in force while the guest runs: its own PMSCR_EL2 asks for all
	 * (PA, physical timestamps, CONTEXTIDR_EL2), the vCPU's words take them away. */
	uint64_t host_scr = PV_PMSCR_PA | PV_PMSCR_PCT | PV_PMSCR_CX;
	const struct pv_trap_words *tw = &v->traps;
	struct sim_spe_env e = {
		.el = 1,
		.mdcr_el2 = tw->mdcr_el2,
		.hcr_el2 = tw->hcr_el2,
		.pmscr_el2 = (host_scr & ~tw->pmscr_el2_owned) | tw->pmscr_el2,
		.cntpct = t,
		.ticks = 1000,
		.contextidr_el1 = 0x100 + v->id,
		.code = {.pc = UINT64_C(0xFFFF800010000000),
			 .pc_size = 1u << 20,
			 .data = UINT64_C(0xFFFF800090000000),
			 .data_size = 16u << 20},
		.xlate = loss_xlate,
		.write = loss_write,
		.ctx = l,
	};
	l->cpu = c;
	sim_spe_exec(u, &e, w);
	for (size_t k = 0; k < sizeof(bridged) / sizeof(bridged[0]); k++)
		*memplat_reg(&r->mc[c], bridged[k]) = *unit_field(u, bridged[k]);
	if (sim_spe_irq(u) && pv_irq(&r->cpu[c], PV_INTID_SPE) != PV_IRQ_HANDLED)
		die("loss: PMBIRQ not handled");
}

/* The guest's records in [KVA_i, ptr): decoded and counted, none carrying a PA packet. */
static void loss_collect(struct loss *l, struct pv_vcpu *v)
{
	uint64_t base = KVA + (uint64_t)v->id * (16u << 20), ptr = rd(v, PV_PMBPTR_EL1);
	size_t len = (size_t)(ptr - base), pos = 0, pads;
	uint8_t *buf = malloc(len + 1);
	if (!buf)
		die("out of memory");
	for (size_t i = 0; i < len; i += 4096) { /* through the guest's own tables */
		struct sim_fault f;
		uint64_t pa;
		l->cpu = (unsigned)(v->cpu - l->r->cpu);
		if (!loss_xlate(l, base + i, true, &pa, &f))
			die("loss: the guest's buffer is not mapped");
		size_t n = len - i < 4096 ? len - i : 4096;
		memcpy(buf + i, l->r->mem.bytes + (pa - l->r->mem.pa_offset - RIG_RAM), n);
	}
	struct pv_spe_record rec;
	int st;
	while ((st = pv_spe_record_decode(buf, len, &pos, &rec, &pads)) == 1) {
		if (rec.addr_valid & 1u << PV_SPE_ADDR_DATA_PA)
			die("loss: a physical address reached the guest");
		l->decoded++;
	}
	if (st != 0)
		die("loss: a record does not decode");
	free(buf);
}

/* The driver's interrupt handler (Linux's arm_spe_pmu_irq_handler, in outline): a buffer-full
 * event restarts the buffer at its base; anything else is counted as a fault the guest saw. */
static void loss_guest_irq(struct loss *l, struct pv_vcpu *v, uint64_t size)
{
	uint64_t bsr = rd(v, PV_PMBSR_EL1), base = KVA + (uint64_t)v->id * (16u << 20);
	if (PV_FIELD_GET(PV_PMBSR_EC, bsr) != PV_PMBSR_EC_BUF || (bsr & PV_PMBSR_DL))
		l->guest_faults++;
	loss_collect(l, v);
	wr(v, PV_PMBPTR_EL1, base);
	wr(v, PV_PMBLIMITR_EL1, (base + size) | PV_PMBLIMITR_E);
	wr(v, PV_PMBSR_EL1, 0);
}

static int run_loss(unsigned arg)
{
	(void)arg;
	enum { SLICES = 3000, CHUNK = 200000 };
	const uint64_t size = 512u << 10;
	struct loss *l = calloc(1, sizeof(*l));
	if (!l)
		die("out of memory");
	l->r = machine_new(UINT64_C(1) << 20, size, 2);
	struct spe_rig *r = l->r;
	struct sim_spe_config uc = {
		.version = 3, .align = 6, .max_size = 7, .interval = 2, .events = 0xFFE};
	for (unsigned c = 0; c < RIG_CPUS; c++)
		sim_spe_init(&l->unit[c], &uc, 0xB0B + c);
	for (unsigned i = 0; i < 2; i++) {
		struct pv_vcpu *v = &r->v[i];
		pv_vcpu_load(v, &r->cpu[i]);
		l->on[i] = v;
		uint64_t base = KVA + (uint64_t)i * (16u << 20);
		wr(v, PV_PMSIRR_EL1, 1024);
		wr(v, PV_PMSFCR_EL1, 0);
		/* The guest asks for physical addresses and timestamps: not given. */
		wr(v, PV_PMSCR_EL1, SCR_ON | PV_PMSCR_PA | PV_FIELD_PREP(PV_PMSCR_PCT, 1));
		wr(v, PV_PMBPTR_EL1, base);
		wr(v, PV_PMBLIMITR_EL1, (base + size) | PV_PMBLIMITR_E);
	}
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_MEM, CHUNK);
	for (unsigned t = 0; t < SLICES; t++) {
		for (unsigned c = 0; c < RIG_CPUS; c++) {
			loss_run(l, c, &w, (uint64_t)t * 1000);
			struct pv_vcpu *v = l->on[c];
			if (r->mv[v->id].line[PV_INTID_SPE])
				loss_guest_irq(l, v, size);
		}
		if (t % 7 == 6) { /* both vCPUs migrate */
			for (unsigned c = 0; c < RIG_CPUS; c++)
				pv_vcpu_put(l->on[c]);
			struct pv_vcpu *a = l->on[0];
			l->on[0] = l->on[1];
			l->on[1] = a;
			for (unsigned c = 0; c < RIG_CPUS; c++)
				pv_vcpu_load(l->on[c], &r->cpu[c]);
		}
	}
	uint64_t written = 0, lost = 0, selected = 0;
	for (unsigned c = 0; c < RIG_CPUS; c++) {
		loss_collect(l, l->on[c]);
		written += l->unit[c].stats.written;
		lost += l->unit[c].stats.lost;
		selected += l->unit[c].stats.selected;
	}
	uint64_t pv_lost = r->v[0].spe.stats.records_lost + r->v[1].spe.stats.records_lost;
	if (l->decoded != written || l->stray || l->guest_faults || written < 10000)
		die("loss: the run is not what it should be");
	printf("samples %llu written %llu decoded %llu s2-faults %llu\n",
	       (unsigned long long)selected, (unsigned long long)written,
	       (unsigned long long)l->decoded, (unsigned long long)l->s2_faults);
	printf("value %llu\n", (unsigned long long)(lost + pv_lost));
	for (unsigned c = 0; c < RIG_CPUS; c++) { /* the drivers stop: every pin is released */
		wr(l->on[c], PV_PMBLIMITR_EL1, 0);
		pv_vcpu_put(l->on[c]);
	}
	if (rig_pinned(r) || r->mem.bad_unpins)
		die("loss: pins left after the buffers were disabled");
	spe_rig_free(r);
	free(l);
	return 0;
}

/* Buffer pages pinned (below the rig's table pages). */
static uint64_t pinned_buffer_bytes(struct spe_rig *r)
{
	uint64_t n = 0;
	for (uint64_t ipa = RIG_RAM; ipa < RIG_TABLES; ipa += 4096)
		n += rig_pin_count(r, ipa) != 0;
	return n * 4096;
}

/* One vCPU profiling into 16 MiB until the unit has written 4 MiB: after every slice of work,
 * what is pinned over what was written plus one chunk. Prints the largest, in thousandths. */
static int run_pinned(unsigned arg)
{
	(void)arg;
	enum { WORK = 200000 };
	const uint64_t size = 16u << 20, stop = 4u << 20;
	struct loss *l = calloc(1, sizeof(*l));
	if (!l)
		die("out of memory");
	l->r = machine_new(size, size, 1);
	struct spe_rig *r = l->r;
	struct sim_spe_config uc = {
		.version = 3, .align = 6, .max_size = 7, .interval = 2, .events = 0xFFE};
	sim_spe_init(&l->unit[0], &uc, 0xB0B);
	struct pv_vcpu *v = &r->v[0];
	pv_vcpu_load(v, &r->cpu[0]);
	l->on[0] = v;
	wr(v, PV_PMSIRR_EL1, 1024);
	wr(v, PV_PMSFCR_EL1, 0);
	wr(v, PV_PMSCR_EL1, SCR_ON);
	wr(v, PV_PMBPTR_EL1, KVA);
	wr(v, PV_PMBLIMITR_EL1, (KVA + size) | PV_PMBLIMITR_E);
	struct sim_work w;
	sim_work_profile(&w, SIM_PROF_MEM, WORK);
	uint64_t written = 0, peak = 0;
	for (uint64_t t = 0; written < stop; t++) {
		loss_run(l, 0, &w, t * 1000);
		if (r->mv[0].line[PV_INTID_SPE] || t > 1000000)
			die("pinned: the buffer stopped before 4 MiB was written");
		written = rd(v, PV_PMBPTR_EL1) - KVA;
		uint64_t ratio = pinned_buffer_bytes(r) * 1000 /
				 (written + v->vm->spe.pin_chunk);
		if (ratio > peak)
			peak = ratio;
	}
	if (l->s2_faults || l->stray || l->unit[0].stats.lost || !v->spe.stats.chunks)
		die("pinned: the run is not what it should be");
	printf("chunks %llu written %llu\n", (unsigned long long)v->spe.stats.chunks,
	       (unsigned long long)written);
	printf("value %llu.%03llu\n", (unsigned long long)(peak / 1000),
	       (unsigned long long)(peak % 1000));
	wr(v, PV_PMBLIMITR_EL1, 0);
	pv_vcpu_put(v);
	spe_rig_free(r);
	free(l);
	return 0;
}

static const struct bench_mode modes[] = {
	{"enable_1mib", "vspe.enable_1mib", "instructions", "callgrind", run_enable, 1},
	{"enable_1mib_baseline", NULL, NULL, NULL, run_enable, 1 | BASELINE},
	{"enable_64mib", "vspe.enable_64mib", "instructions", "callgrind", run_enable, 64},
	{"enable_64mib_baseline", NULL, NULL, NULL, run_enable, 64 | BASELINE},
	{"switch", "vspe.switch", "instructions/switch", "callgrind", run_switch, 0},
	{"switch_baseline", NULL, NULL, NULL, run_switch, BASELINE},
	{"switch_direct", "vspe.switch_direct", "instructions/switch", "callgrind", run_switch,
	 DIRECT},
	{"switch_direct_baseline", NULL, NULL, NULL, run_switch, DIRECT | BASELINE},
	{"restart", "vspe.restart", "instructions/restart", "callgrind", run_restart, 0},
	{"restart_baseline", NULL, NULL, NULL, run_restart, BASELINE},
	{"restart_direct", "vspe.restart_direct", "instructions/restart", "callgrind",
	 run_restart, DIRECT},
	{"restart_direct_baseline", NULL, NULL, NULL, run_restart, DIRECT | BASELINE},
	{"restart_traps", "vspe.restart_traps", "traps/restart", "direct", run_restart, TRAPS},
	{"restart_traps_direct", "vspe.restart_traps_direct", "traps/restart", "direct",
	 run_restart, TRAPS | DIRECT},
	{"loss", "vspe.loss", "records-lost", "direct", run_loss, 0},
	{"pinned", "vspe.pinned_ratio", "pinned/(written+chunk)", "direct", run_pinned, 0},
};

int main(int argc, char **argv)
{
	return bench_main("bench_vspe", modes, sizeof(modes) / sizeof(modes[0]), argc, argv);
}
