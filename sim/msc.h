/* SPDX-License-Identifier: MIT */
/*
 * MPAM memory-system components (MSCs), modelled from the Arm MPAM specification (IHI 0099):
 * the memory-mapped register file at the architected offsets (include/perfvisor/mpam_regs.h),
 * several resource instances (RIS) per MSC, per-PARTID bandwidth controls (MBW_MIN, MBW_MAX
 * with HARDLIM, MBW_PROP stored) and cache-portion bitmaps, bandwidth-usage (MBWU) monitors
 * with 31-, 44- and 63-bit counters, scaling, capture, overflow status and hardware-managed
 * NRDY, and the error status register with the architected error codes.
 *
 * Traffic reaches an MSC through sim_msc_serve() (sim/traffic.c routes it): requests carry a
 * PARTID and PMG; a label out of range raises Req_PARTID_Range / Req_PMG_Range and is served
 * as the default (0). Each RIS that models bandwidth has a capacity; MBW_MAX throttles what a
 * PARTID gets. Monitors count the bytes actually delivered.
 *
 * struct sim_mpam is the memory system: the MSCs, model time, and the ground truth (bytes
 * delivered per PARTID per memory node). The sim machine points at one (sim_machine.mpam) and
 * routes pv_plat_mmio_* to it.
 */
#ifndef SIM_MSC_H
#define SIM_MSC_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_MSC_MAX_RIS 16
#define SIM_MSC_MAX_MON 1024
#define SIM_MPAM_MAX_NODES 8
#define SIM_MPAM_PARTIDS 65536u /* every 16-bit label, valid or not */

struct sim_ris_config {
	/* Memory-bandwidth partitioning (MPAMF_MBW_IDR); `mbw` sets HAS_MBW_PART. */
	bool mbw;
	uint8_t bwa_wd; /* implemented fraction bits of MIN/MAX, 1..16 */
	bool has_min, has_max, has_prop;
	/* Cache-portion partitioning (MPAMF_CPOR_IDR): CPBM_WD, 0 for none. */
	uint16_t cpbm_wd;
	/* Bandwidth-usage monitors (MPAMF_MBWUMON_IDR). */
	uint16_t num_mon;
	bool has_long; /* MSMON_MBWU_L */
	bool lwd;      /* long counter is 63 bits (else 44) */
	bool has_capture;
	bool has_rwbw; /* MSMON_CFG_MBWU_FLT.RWBW */
	uint8_t scale; /* SCALE: with CTL.SCLEN the counter counts 2^SCALE-byte units */
	/* Traffic through this RIS: its share of the node's traffic (weight, 0: none) and the
	 * bytes per second it can serve (0: unlimited). */
	uint32_t weight;
	uint64_t capacity;
};

struct sim_msc_config {
	uint64_t base; /* MMIO base (PV_MSC_FRAME bytes) */
	int node;      /* memory node it serves, or -1 (a cache: no traffic) */
	uint16_t partid_max;
	uint8_t pmg_max;
	uint8_t aidr; /* MPAMF_AIDR: 0x10 (v1.0) or 0x11 (v1.1) */
	uint32_t iidr;
	uint64_t nrdy_ns; /* monitors read NRDY this long after a (re)configuration */
	unsigned nris;    /* 1..16; more than one sets HAS_RIS and EXT */
	struct sim_ris_config ris[SIM_MSC_MAX_RIS];
};

struct sim_mon {
	uint32_t flt, ctl; /* MSMON_CFG_MBWU_FLT / _CTL as stored */
	uint64_t count;    /* the counter, masked to its width */
	uint64_t frac;     /* bytes towards the next 2^SCALE unit (SCLEN) */
	uint64_t ready_at; /* model time at which NRDY clears */
	bool stuck;        /* fault injection: NRDY never clears */
	uint64_t capture;  /* MSMON_MBWU_L_CAPTURE value (31-bit view in the short one) */
	bool capture_nrdy;
	uint64_t counted; /* bytes this monitor counted (statistics) */
};

/* A request stream through one RIS in one step: demand in, delivery out. */
struct sim_req {
	uint16_t partid;
	uint8_t pmg;
	uint64_t rd, wr;           /* bytes demanded */
	uint64_t rd_done, wr_done; /* bytes delivered */
};

struct sim_ris {
	struct sim_ris_config cfg;
	uint32_t *mbw_min, *mbw_max, *mbw_prop; /* per PARTID */
	uint32_t *cpbm;                         /* per PARTID, cpbm_words words each */
	unsigned cpbm_words;
	struct sim_mon *mon;
	/* per-PARTID scratch for sim_msc_serve */
	double *dem, *got;
	uint64_t *drd, *dwr;
	uint16_t *touched; /* PARTIDs seen in the current step */
	uint8_t *mark;
	uint64_t served; /* bytes delivered (statistics) */
};

struct sim_msc {
	struct sim_msc_config cfg;
	struct sim_ris ris[SIM_MSC_MAX_RIS];
	uint32_t part_sel, mon_sel, ecr;
	uint64_t esr;
	uint64_t errors[16];    /* errors raised, by ERRCODE */
	uint64_t oflow_irqs;    /* overflow interrupts signalled (OFLOW_INTR) */
	uint64_t now;           /* model time, ns */
	uint64_t reads, writes; /* register accesses */
};

/* The configuration of an MPAM v1.1 MSC as the machine's are made (AIDR 0x11, Arm's IIDR)
 * at `base` for `node` (-1: a cache), with the RIS in `ris` (nris of them, at most
 * SIM_MSC_MAX_RIS): one constructor for every machine that builds MSCs. */
struct sim_msc_config sim_msc_config_v1p1(uint64_t base, int node, uint16_t partid_max,
					  uint8_t pmg_max, uint64_t nrdy_ns,
					  const struct sim_ris_config *ris, unsigned nris);
/* Allocates the per-PARTID state; every control at its reset value, monitors disabled.
 * Returns 0, or -1 for a configuration out of range. */
int sim_msc_init(struct sim_msc *m, const struct sim_msc_config *c);
void sim_msc_free(struct sim_msc *m);
/* 32-bit register access at `off` (4-byte aligned) from the MSC base. */
uint32_t sim_msc_read(struct sim_msc *m, uint32_t off);
void sim_msc_write(struct sim_msc *m, uint32_t off, uint32_t val);
/* The error interrupt: MPAMF_ECR.INTEN and an error recorded in MPAMF_ESR. */
bool sim_msc_err_irq(const struct sim_msc *m);
/* Serves one step [t0, t0 + dt) of requests through RIS `ris`: label checks, throttling,
 * monitor counting. Fills rd_done/wr_done. */
void sim_msc_serve(struct sim_msc *m, unsigned ris, struct sim_req *req, unsigned n,
		   uint64_t t0, uint64_t dt);
/* Fault injection: monitor `mon` of `ris` reads NRDY forever (or again normally). */
void sim_msc_stick_nrdy(struct sim_msc *m, unsigned ris, unsigned mon, bool stuck);
/* Fault injection: the MSC records error `code` (enum pv_msc_errcode) in MPAMF_ESR for
 * PARTID/monitor `partid_mon`, `pmg`, `ris`, as if a request or access had raised it (OVRWR if
 * one is already recorded); with MPAMF_ECR.INTEN, sim_msc_err_irq() is then high. */
void sim_msc_inject_error(struct sim_msc *m, unsigned code, unsigned partid_mon, unsigned pmg,
			  unsigned ris);
/* Width in bits of the counters of a RIS: 31, 44 or 63. */
unsigned sim_msc_counter_bits(const struct sim_ris_config *r);

/* ---- the memory system ---- */
struct sim_mpam {
	struct sim_msc *msc; /* the caller's array */
	unsigned nmsc;
	unsigned nodes;  /* 1 + the highest node served by an MSC */
	uint64_t now;    /* model time, ns */
	uint64_t *truth; /* bytes delivered, [node * SIM_MPAM_PARTIDS + label PARTID] */
	uint64_t mmio_reads, mmio_writes, mmio_unmapped;
	struct sim_req *scratch;
	unsigned nscratch;
};

int sim_mpam_init(struct sim_mpam *mp, struct sim_msc *msc, unsigned nmsc);
void sim_mpam_free(struct sim_mpam *mp);
/* MMIO by physical address: the MSC whose frame holds `pa`; unmapped reads 0. */
uint32_t sim_mpam_read32(struct sim_mpam *mp, uint64_t pa);
void sim_mpam_write32(struct sim_mpam *mp, uint64_t pa, uint32_t val);
/* Ground truth: bytes requests labelled `partid` moved through memory node `node`. */
uint64_t sim_mpam_truth(const struct sim_mpam *mp, unsigned node, unsigned partid);
/* Sum of the errors of every MSC (all codes). */
uint64_t sim_mpam_errors(const struct sim_mpam *mp);

#endif
