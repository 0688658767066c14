/* SPDX-License-Identifier: MIT */
/*
 * Physical memory of the machine model, the VMSAv8-64 translation table walk (Arm ARM D8) the
 * PE performs, and a builder of a guest's stage-1 tables (what a guest kernel would have set up),
 * written into the guest's memory through its stage 2. Standalone: no platform function, no
 * sim.h (bench/bench_vspe.c builds it in beside the plain-memory platform).
 *
 * Memory: RAM is [base, base + frames * 4 KiB); a 4 KiB frame is allocated on first use and
 * has an owner (the hypervisor, or a VM), so tests can check that nothing a VM caused landed in
 * a frame that is not its own.
 */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_PAGE 4096u
#define SIM_OWNER_FREE 0u
#define SIM_OWNER_HYP 1u
#define SIM_OWNER_VM(i) (2u + (i))

struct sim_mem {
	uint64_t base, frames;
	uint8_t **data; /* per frame: its bytes, NULL until allocated */
	uint16_t *owner;
	uint64_t next; /* next frame never handed out */
	uint64_t used;
};

int sim_mem_init(struct sim_mem *m, uint64_t base, uint64_t bytes);
void sim_mem_fini(struct sim_mem *m);
/* A zeroed frame for `owner`: its PA, or 0 when RAM is exhausted. */
uint64_t sim_mem_alloc(struct sim_mem *m, unsigned owner);
unsigned sim_mem_owner(const struct sim_mem *m, uint64_t pa);
/* Reads/writes inside allocated frames (may cross frames); false if any byte is not. */
bool sim_mem_read(const struct sim_mem *m, uint64_t pa, void *buf, size_t n);
bool sim_mem_write(struct sim_mem *m, uint64_t pa, const void *buf, size_t n);
/* FNV-1a over every frame `owner` holds, in PA order. */
uint64_t sim_mem_digest(const struct sim_mem *m, unsigned owner);

/* ---- the walk ------------------------------------------------------------------------------ */

enum sim_fault_kind {
	SIM_FAULT_NONE,
	SIM_FAULT_ADDR_SIZE,
	SIM_FAULT_TRANSLATION,
	SIM_FAULT_ACCESS,
	SIM_FAULT_PERMISSION,
	SIM_FAULT_EXTERNAL, /* the table is not memory */
};

struct sim_fault {
	uint8_t kind, level;
	bool stage2;  /* a stage-2 fault (for stage 1: on reading one of its tables) */
	bool on_walk; /* ... while reading a stage-1 table */
	uint64_t ipa; /* stage 2: the IPA that faulted */
};

/* One stage of translation as its controls describe it. */
struct sim_walk {
	unsigned granule;  /* 12, 14 or 16 */
	unsigned in_bits;  /* 64 - TnSZ (stage 1), 64 - VTCR_EL2.T0SZ (stage 2) */
	unsigned out_bits; /* effective output size */
	uint64_t root;     /* base of the start-level table */
	bool stage2;
	bool ha, hd, hpd; /* stage 1: TCR_EL1.HA, HD, HPDn */
	/* Reads the descriptor at `addr` (an IPA for stage 1, a PA for stage 2) into *d; false
	 * with *f filled (a stage-2 fault on the walk) when it cannot. */
	bool (*read)(void *ctx, uint64_t addr, uint64_t *d, struct sim_fault *f);
	/* Writes a descriptor back (Access flag / dirty state updates); may be NULL. */
	void (*write)(void *ctx, uint64_t addr, uint64_t d);
	void *ctx;
};

/* Translates `in` for a read or write at EL1 (stage 1) or for the VM (stage 2). `hw_flags`: the
 * walker may update AF/dirty state (PMBIDR_EL1.F for the profiler). On success *out is the
 * output address and *block the size of the page or block that maps it. */
bool sim_walk(const struct sim_walk *w, uint64_t in, bool write, bool hw_flags, uint64_t *out,
	      uint64_t *block, struct sim_fault *f);

/* Stage-1 walk parameters of TTBRn_EL1 (bit 55 of `va` picks n) from TCR_EL1, and whether `va`
 * is in range; false means a Translation fault at level 0 (VA out of range, EPDn set). `tgran`
 * says which granules the PE implements (bit 0 4K, 1 16K, 2 64K). */
bool sim_s1_params(uint64_t tcr, uint64_t ttbr0, uint64_t ttbr1, uint64_t va, unsigned pa_bits,
		   unsigned tgran, struct sim_walk *w);

/* ---- a guest's stage-1 tables ----------------------------------------------------------------- */

/* Attributes of a mapping. */
#define SIM_S1_RO 1u    /* AP[2] = 1: read-only */
#define SIM_S1_NOAF 2u  /* AF = 0 */
#define SIM_S1_BLOCK 4u /* use block descriptors where aligned */
#define SIM_S1_WP 8u    /* APTable[1] on the table above (hierarchical write protection) */
#define SIM_S1_DBM 16u  /* DBM = 1 (with AP[2] = 1: writable through dirty state) */

/* Writes 8 bytes at an IPA of the guest (a stage-1 table entry); false if it is not RAM. */
typedef bool sim_ipa_write_fn(void *ctx, uint64_t ipa, uint64_t val);
typedef bool sim_ipa_read_fn(void *ctx, uint64_t ipa, uint64_t *val);

struct sim_s1 {
	unsigned granule, va_bits;
	uint64_t root[2];        /* table IPA for TTBR0 / TTBR1 */
	uint64_t pool, pool_end; /* IPAs table pages are taken from */
	sim_ipa_write_fn *write;
	sim_ipa_read_fn *read;
	void *ctx;
	uint64_t tables; /* table pages used */
};

/* Tables for both halves in [pool, pool + pool_size) of the guest's IPA space. */
bool sim_s1_init(struct sim_s1 *t, unsigned granule, unsigned va_bits, uint64_t pool,
		 uint64_t pool_size, sim_ipa_read_fn *read, sim_ipa_write_fn *write, void *ctx);
/* Maps [va, va + size) to [ipa, ...) (granule multiples); false if out of table pages. */
bool sim_s1_map(struct sim_s1 *t, uint64_t va, uint64_t ipa, uint64_t size, unsigned attrs);
/* Makes the leaf entries of [va, va + size) invalid. */
void sim_s1_unmap(struct sim_s1 *t, uint64_t va, uint64_t size);
/* TCR_EL1 (both halves, 48-bit IPS, TBI as asked) and TTBRn_EL1 for these tables. */
uint64_t sim_s1_tcr(const struct sim_s1 *t, bool tbi, bool ha, bool hd);
uint64_t sim_s1_ttbr(const struct sim_s1 *t, unsigned half);

#endif
