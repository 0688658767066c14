/* SPDX-License-Identifier: MIT */
/*
 * The Statistical Profiling Unit of one PE (FEAT_SPE up to SPEv1p2), written from the Arm ARM:
 * the D24.7 registers, and the J1.1.1 pseudocode for sampling (SPEToCollectSample(): the PMSICR
 * interval counter, PMSIRR reload with random low bits), collisions (SPESampleCollision()),
 * filtering (SPECollectRecord(): PMSEVFR, PMSNEVFR, PMSFCR type and latency), records
 * (SPEConstructRecord(), through the shared encoder), buffer writes byte by byte through the
 * owning translation regime (SPEWriteToBuffer(): stage-1 / stage-2 Data Aborts, DL), buffer
 * full (SPEBufferIsFull()), PMBIRQ = PMBSR_EL1.S, who owns and who may sample
 * (ProfilingBufferOwner(), StatisticalProfilingEnabled()), what is collected
 * (CollectPhysicalAddress(), CollectTimeStamp(), CollectContextIDR1/2()).
 *
 * Operations are drawn from each chunk of work's event counts (a branch with probability
 * BR_RETIRED / INST_SPEC, ...); the unit logs every sample it took and what became of it: the
 * ground truth tests decode buffers against. Standalone: the machine says what the PE is doing
 * (struct sim_spe_env), including how to translate and write a buffer address.
 */
#ifndef SIM_SPE_H
#define SIM_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "mem.h"
#include "pmu.h" /* enum sim_acc */

struct sim_spe_config {
	uint8_t version;  /* ID_AA64DFR0_EL1.PMSVer: 0 (none), 1 SPE, 2 SPEv1p1, 3 SPEv1p2 */
	uint8_t align;    /* PMBIDR_EL1.Align */
	uint8_t max_size; /* PMSIDR_EL1.MaxSize: log2 of the largest record */
	uint8_t interval; /* PMSIDR_EL1.Interval */
	bool count16;     /* 16-bit saturating counters (else 12-bit) */
	bool el3_owned;   /* EL3 keeps SPE (MDCR_EL3.NSPB): PMBIDR_EL1.P = 1 at EL2 */
	uint16_t events;  /* PMSEVFR_EL1 / PMSNEVFR_EL1 bits that filter (others RAZ/WI) */
	bool ea_events;   /* PMBIDR_EL1.EA 0b0010: an External abort on a buffer write is a
			      buffer management event (else 0b0001: ignored) */
};

/* Where the running code and its data are: sampled PCs and data addresses fall there. */
struct sim_spe_region {
	uint64_t pc, pc_size, data, data_size;
};

enum sim_spe_status {
	SIM_SPE_WRITTEN,   /* its record is in the buffer at buf_va */
	SIM_SPE_FILTERED,  /* rejected by PMSFCR_EL1 filters */
	SIM_SPE_COLLIDED,  /* selected while the previous sample was in flight: dropped, COLL */
	SIM_SPE_DISCARDED, /* discard mode */
	SIM_SPE_LOST, /* a buffer management event stopped its write (DL if partly written) */
};

/* Ground truth of one sample. */
struct sim_spe_sample {
	uint64_t seq;
	uint8_t status, el, op_class, op_sub;
	bool has_target, has_va, has_pa, has_ts, has_ds, has_ctx1, has_ctx2;
	uint16_t lat[3]; /* total, issue, translation (lat[2] only with a TLB walk) */
	uint16_t ds;
	uint32_t events;
	uint32_t ctx1, ctx2;
	uint64_t pc, target, va, pa, ts;
	uint64_t buf_va; /* where its record starts (WRITTEN, LOST) */
	uint16_t rec_len, written;
};

struct sim_spe_log {
	struct sim_spe_sample *s;
	size_t n, cap;
};

struct sim_spe_env {
	unsigned el;                /* where the work runs */
	uint64_t mdcr_el2, hcr_el2; /* E2PB; TGE, E2H */
	uint64_t pmscr_el2;         /* as in force */
	uint64_t cntpct, ticks;     /* physical count at the chunk's start, ticks it lasts */
	uint64_t cntvoff;           /* CNTVOFF_EL2 in force */
	uint32_t contextidr_el1, contextidr_el2;
	struct sim_spe_region code;
	/* Translates a VA of the owning regime: for a buffer write (`buffer`: the profiler's
	 * write, nothing faulted in) or for the PA of a sampled data access (the CPU's own access,
	 * which succeeded). False with *f on a fault. */
	bool (*xlate)(void *ctx, uint64_t va, bool buffer, uint64_t *pa, struct sim_fault *f);
	void (*write)(void *ctx, uint64_t pa, const uint8_t *b, size_t n);
	void *ctx;
	struct sim_spe_log *log; /* the running context's truth, or NULL */
};

struct sim_spe_stats {
	uint64_t selected, collisions, filtered, written, lost, discarded, bytes;
	uint64_t s1_faults, s2_faults, full_events;
	uint64_t stray;      /* bytes the machine saw written outside the owner's memory */
	uint64_t ext_aborts; /* External aborts injected (sim_spe_inject_ea) */
};

struct sim_spe {
	struct sim_spe_config cfg;
	uint64_t scr, icr, irr, fcr, evfr, nevfr, latfr; /* PMS*_EL1 */
	uint64_t limitr, ptr, bsr;                       /* PMB*_EL1 */
	uint64_t pmsidr, pmbidr;
	uint64_t rng, cycle, busy_until, seq;
	/* A record byte written since the last PSB CSYNC; DSB: the model writes at once, but the
	 * architecture promises those writes complete only then (D17.9). */
	bool undrained;
	bool ea_armed; /* fault injection: an External abort after ea_left bytes */
	uint64_t ea_left;
	uint64_t coll_left; /* fault injection: samples to collide regardless of timing */
	struct sim_spe_stats stats;
};

void sim_spe_init(struct sim_spe *s, const struct sim_spe_config *cfg, uint64_t seed);
/* PMS*_EL1, PMB*_EL1 and PMSCR_EL2 encodings. */
bool sim_spe_is_reg(uint32_t key);
/* UNDEFINED before any trap (D24.7 access pseudocode): no SPE, PMSNEVFR_EL1 without FnE, a
 * write to PMSIDR/PMBIDR, PMSCR_EL2 below EL2, anything at EL0. */
bool sim_spe_has(const struct sim_spe *s, uint32_t key, bool is_read, unsigned el);
/* Accesses from `el` (EL1 direct, EL2 the hypervisor; `e2pb` for PMBIDR_EL1.P). PMSCR_EL2 is
 * the machine's, not here. */
enum sim_acc sim_spe_read(struct sim_spe *s, unsigned el, unsigned e2pb, uint32_t key,
			  uint64_t *val);
enum sim_acc sim_spe_write(struct sim_spe *s, unsigned el, uint32_t key, uint64_t val);
/* Runs the unit over a chunk of work. */
void sim_spe_exec(struct sim_spe *s, const struct sim_spe_env *env, const struct sim_work *w);
/* PSB CSYNC; DSB: the sample in flight completes (the model writes records at once), and
 * every record written is drained. */
void sim_spe_psb(struct sim_spe *s);
/* Fault injection: the buffer write `after_bytes` bytes from now meets a synchronous External
 * abort. With cfg.ea_events the unit stops as DebugWriteExternalAbort() says (PMBSR_EL1 S, EA,
 * DL, EC 0x00, MSS 0); without (PMBIDR_EL1.EA 0b0001) the model lets the write complete. */
void sim_spe_inject_ea(struct sim_spe *s, uint64_t after_bytes);
/* Fault injection: the next `n` samples selected collide (SPESampleCollision(): dropped,
 * PMBSR_EL1.COLL), as when the previous one is still in flight. */
void sim_spe_inject_collisions(struct sim_spe *s, uint64_t n);
/* PMBIRQ: PMBSR_EL1.S (no FEAT_SPE_EXC). */
bool sim_spe_irq(const struct sim_spe *s);
void sim_spe_log_free(struct sim_spe_log *l);
const char *sim_spe_status_name(enum sim_spe_status st);

#endif
