/* SPDX-License-Identifier: MIT */
/*
 * A VM's stage 2 in the machine model: real VMSAv8-64 stage-2 tables (4 KiB granule, 48-bit
 * IPA, start level 0) in hypervisor frames of sim memory, over the VM's RAM at
 * [ram_ipa, ram_ipa + ram_size). The host pages like a real one: a RAM page gets its frame on
 * first touch (a CPU access faulting at stage 2, or a pin), and sim_s2_reclaim() unmaps every page
 * nobody pinned (memory pressure; the frame and its contents stay, the next CPU touch maps them
 * again). The profiler cannot fault a page in: its writes to an unmapped page are stage-2 faults.
 * Standalone, like mem.h.
 */
#ifndef SIM_STAGE2_H
#define SIM_STAGE2_H

#include <stdbool.h>
#include <stdint.h>

#include "mem.h"

struct sim_s2_stats {
	uint64_t faults_in; /* pages mapped on a CPU access */
	uint64_t reclaimed; /* pages unmapped by sim_s2_reclaim */
	uint64_t pin_calls, unpin_calls;
	uint64_t refused;    /* pins refused: not RAM */
	uint64_t bad_unpins; /* unpins of a page with no pin */
	uint64_t forced;     /* pages unmapped although pinned (sim_s2_unmap) */
};

struct sim_s2 {
	struct sim_mem *mem;
	unsigned owner; /* SIM_OWNER_VM(i) */
	uint64_t root;  /* VTTBR_EL2.BADDR */
	uint64_t ram_ipa, ram_size;
	uint64_t *frame; /* per RAM page: its PA, 0 until first touched */
	uint32_t *pins;  /* per RAM page */
	struct sim_s2_stats stats;
};

int sim_s2_init(struct sim_s2 *s, struct sim_mem *mem, unsigned owner, uint64_t ram_ipa,
		uint64_t ram_size);
void sim_s2_fini(struct sim_s2 *s);
bool sim_s2_is_ram(const struct sim_s2 *s, uint64_t ipa);

/* The hardware's stage-2 walk of the tables in memory (D8.3): the PA of `ipa`, or false with
 * *f the stage-2 fault. */
bool sim_s2_translate(const struct sim_s2 *s, uint64_t ipa, bool write, uint64_t *pa,
		      struct sim_fault *f);
/* A CPU access of the VM (or the hypervisor reading guest memory): maps the page if it is RAM
 * and not mapped (a stage-2 fault the host resolves). */
bool sim_s2_fault_in(struct sim_s2 *s, uint64_t ipa, uint64_t *pa);
bool sim_s2_read(struct sim_s2 *s, uint64_t ipa, void *buf, uint64_t n);
bool sim_s2_write(struct sim_s2 *s, uint64_t ipa, const void *buf, uint64_t n);

/* pv_plat_s2_pin / _unpin: all pages RAM, mapped and counted, or nothing. */
bool sim_s2_pin(struct sim_s2 *s, uint64_t ipa, uint64_t size);
void sim_s2_unpin(struct sim_s2 *s, uint64_t ipa, uint64_t size);
uint64_t sim_s2_pinned_pages(const struct sim_s2 *s);
uint64_t sim_s2_mapped_pages(const struct sim_s2 *s);

/* Memory pressure: unmaps every page with no pin; returns how many. */
uint64_t sim_s2_reclaim(struct sim_s2 *s);
/* A hypervisor bug, or memory taken away: unmaps the page of `ipa` even if pinned. */
void sim_s2_unmap(struct sim_s2 *s, uint64_t ipa);

#endif
