/* SPDX-License-Identifier: MIT */
/*
 * A platform whose hardware is plain memory: every system register is a 64-bit cell, nothing
 * counts by itself. Unit tests use it to see exactly what the core wrote to "hardware";
 * benchmarks use it so that instruction counts are the library's own cost.
 */
#ifndef PERFVISOR_MEMPLAT_H
#define PERFVISOR_MEMPLAT_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"

/*
 * MMIO (pv_plat_mmio_*): a plain store of 32-bit words over [base, base + 4 * nwords), or,
 * when `dev_read` is set, a device model (for example sim/msc.c) that gets every access.
 * Accesses are counted either way; outside the window reads 0 and writes are dropped.
 */
struct memplat_mmio {
	uint64_t base;
	uint32_t *words; /* the caller's array of nwords entries */
	size_t nwords;
	uint32_t (*dev_read)(void *dev, uint64_t pa);
	void (*dev_write)(void *dev, uint64_t pa, uint32_t val);
	void *dev;
	uint64_t reads, writes, outside;
};

struct memplat_cpu {
	uint64_t reg[1u << 16];    /* indexed by memplat_slot(key) */
	uint64_t reads, writes;    /* platform register accesses */
	struct memplat_mmio *mmio; /* NULL: MMIO reads 0 */
	uint64_t psb;              /* pv_plat_psb_csync calls */
	/* PMBLIMITR_EL1.E written 1 since the last PSB CSYNC; DSB: the profiler may still have
	 * records to write (Arm ARM D17.9). */
	bool spe_undrained;
};

/*
 * A VM's memory (pv_plat_guest_read64, pv_plat_s2_*): RAM at IPA [base, base + size) held in
 * the caller's `bytes`; stage 2 maps every RAM page, IPA -> IPA + pa_offset; pins counted per
 * 4 KiB page in the caller's `pins` (size / 4096 entries). Outside RAM nothing is mapped.
 */
struct memplat_mem {
	uint64_t base, size, pa_offset;
	uint8_t *bytes;
	uint32_t *pins;
	uint64_t reads, pin_calls, unpin_calls, bad_unpins;
	/* Pages whose last pin went while the vCPU was loaded on a pCPU whose profiling buffer
	 * was enabled (PMBLIMITR_EL1.E) or not drained: a host that frees unpinned pages could
	 * see a record written into one after it was given away. */
	uint64_t live_unpins;
};

struct memplat_vcpu {
	bool line[32];           /* virtual PPI levels */
	unsigned changes;        /* pv_plat_virq_set calls */
	struct memplat_mem *mem; /* its VM's memory, NULL: none */
};

/* One slot per register: Op0:Op2:Op1:CRn (key bits [21:10]) above CRm (key bits [4:1]). */
static inline uint32_t memplat_slot(uint32_t key)
{
	return ((key >> 10) << 4 | ((key >> 1) & 0xFu)) & 0xFFFFu;
}

static inline uint64_t *memplat_reg(struct memplat_cpu *c, uint32_t key)
{
	return &c->reg[memplat_slot(key)];
}

/* Fills ID registers and PMU identification like QEMU 7.2 `-cpu max` (PMUv3p5, N = 6, no
 * SPE/AMU/MPAM, EL3 absent); `counters` overrides N. */
void memplat_init(struct memplat_cpu *c, unsigned counters);

/* Pages of `m` with a pin count above zero. */
uint64_t memplat_pinned_pages(const struct memplat_mem *m);

/* The word of the plain MMIO store at `pa`, or NULL outside the window. */
uint32_t *memplat_mmio_word(struct memplat_mmio *io, uint64_t pa);

#endif
