/* SPDX-License-Identifier: MIT */
/*
 * Shared fixture of the vmpam unit tests: plain-memory pCPU and MMIO (tests/support/memplat),
 * MSCs faked by writing their ID registers into the MMIO store, and a script that makes one
 * register return a given sequence of values (a counter moving between two reads).
 * Offsets and fields are written out from the MPAM specification, as in test_sim_msc.c.
 * MMIO writes are logged in order, so a test can replay what each monitor was given.
 */
#ifndef TEST_VMPAM_RIG_H
#define TEST_VMPAM_RIG_H

#include <stdlib.h>
#include <string.h>

#include "memplat.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/vmpam.h"
#include "regdb.h"              /* the register handlers, internal to the core */
#include "../../core/modules.h" /* the modules' verbs, likewise */

enum {
	R_IDR = 0x0000,
	R_AIDR = 0x0020,
	R_CPOR_IDR = 0x0030,
	R_MBW_IDR = 0x0040,
	R_MSMON_IDR = 0x0080,
	R_MBWUMON_IDR = 0x0090,
	R_ESR = 0x00F8,
	R_PART_SEL = 0x0100,
	R_MBW_MIN = 0x0200,
	R_MBW_MAX = 0x0208,
	R_MON_SEL = 0x0800,
	R_MBWU_FLT = 0x0820,
	R_MBWU_CTL = 0x0828,
	R_MBWU = 0x0860,
	R_MBWU_L = 0x0880,
	R_CPBM = 0x1000,
};
#define RIG_BASE UINT64_C(0x40000000)
#define RIG_FRAME 0x4000u
#define RIG_MSCS 4
#define RIG_VMS 64
#define RIG_NODES 4
#define RIG_WLOG 8192

/* MPAMF_IDR / MPAMF_MBW_IDR / MPAMF_MBWUMON_IDR values */
#define IDR(partid_max, pmg_max, mbw, cpor, msmon)                                             \
	((uint32_t)(partid_max) | (uint32_t)(pmg_max) << 16 | (uint32_t)(cpor) << 25 |         \
	 (uint32_t)(mbw) << 26 | (uint32_t)(msmon) << 30)
#define MBW_IDR(wd, min, max) ((uint32_t)(wd) | (uint32_t)(min) << 10 | (uint32_t)(max) << 11)
#define MBWUMON_IDR(n, scale, lng, lwd)                                                        \
	((uint32_t)(n) | (uint32_t)(scale) << 16 | (uint32_t)(lwd) << 29 |                     \
	 (uint32_t)(lng) << 30)
/* MPAMn_ELx label fields (Arm ARM): PARTID_I 15:0, PARTID_D 31:16, PMG_I 39:32, PMG_D 47:40 */
#define MPAMN(pi, pd, gi, gd)                                                                  \
	((uint64_t)(pi) | (uint64_t)(pd) << 16 | (uint64_t)(gi) << 32 | (uint64_t)(gd) << 40)
#define F_PI(v) ((unsigned)(0xFFFF & (v)))
#define F_PD(v) ((unsigned)((v) >> 16 & 0xFFFF))
#define F_GI(v) ((unsigned)((v) >> 32 & 0xFF))
#define F_GD(v) ((unsigned)((v) >> 40 & 0xFF))
#define CPU_IDR(partid_max, pmg_max, hcr, vpmr)                                                \
	((uint64_t)(partid_max) | (uint64_t)(pmg_max) << 32 | (uint64_t)(hcr) << 17 |          \
	 (uint64_t)(vpmr) << 18)

struct rig {
	struct memplat_cpu mc;
	struct memplat_vcpu mv;
	struct memplat_mmio io;
	uint32_t words[RIG_MSCS * RIG_FRAME / 4];
	struct pv_pcpu cpu;
	struct pv_vmpam_sys sys;
	struct pv_vm_mpam *table[RIG_VMS];
	struct pv_vmpam_acct acct[RIG_VMS * RIG_NODES * 2]; /* total and local accounts */
	struct pv_vmpam_msc_desc desc[RIG_MSCS];
	unsigned ndesc;
	uint64_t cpu_idr[2];
	unsigned ncpus;
	bool topology;          /* give cpu_node to pv_vmpam_init */
	uint8_t cpu_node[2];    /* memory node local to pCPU 0 and 1 */
	struct memplat_cpu mc2; /* a second pCPU (index 1), registers only */
	struct pv_pcpu cpu2;
	struct {
		uint64_t pa;
		uint32_t val;
	} wlog[RIG_WLOG];
	unsigned nwlog;
	struct pv_vmpam_setup setup;
	/* script: reads of `script_pa` return script[] in turn, then the stored word */
	uint64_t script_pa;
	uint32_t script[32];
	unsigned nscript, iscript;
	unsigned script_reads;
};

static inline uint32_t *rig_word(struct rig *r, unsigned msc, uint32_t off)
{
	return &r->words[(msc * RIG_FRAME + off) / 4];
}

static inline uint32_t rig_dev_read(void *dev, uint64_t pa)
{
	struct rig *r = dev;
	uint32_t *w = memplat_mmio_word(&r->io, pa);
	if (pa == r->script_pa) {
		r->script_reads++;
		if (r->iscript < r->nscript)
			return r->script[r->iscript++];
	}
	return w ? *w : 0;
}

static inline void rig_dev_write(void *dev, uint64_t pa, uint32_t val)
{
	struct rig *r = dev;
	uint32_t *w = memplat_mmio_word(&r->io, pa);
	if (w)
		*w = val;
	if (r->nwlog < RIG_WLOG) {
		r->wlog[r->nwlog].pa = pa;
		r->wlog[r->nwlog++].val = val;
	}
}

/* A fresh rig: one pCPU with MPAMIDR_EL1 = cpu_idr, no MSC yet. */
static inline struct rig *rig_new(uint64_t cpu_idr)
{
	struct rig *r = calloc(1, sizeof(*r));
	memplat_init(&r->mc, 6);
	r->io = (struct memplat_mmio){.base = RIG_BASE,
				      .words = r->words,
				      .nwords = sizeof(r->words) / 4,
				      .dev_read = rig_dev_read,
				      .dev_write = rig_dev_write,
				      .dev = r};
	r->mc.mmio = &r->io;
	pv_pcpu_init(&r->cpu, &r->mc);
	memplat_init(&r->mc2, 6);
	pv_pcpu_init(&r->cpu2, &r->mc2);
	r->cpu2.index = 1;
	r->cpu_idr[0] = r->cpu_idr[1] = cpu_idr;
	r->ncpus = 1;
	return r;
}

/* MSC i at RIG_BASE + i * RIG_FRAME, MPAM v1.0, one RIS. */
static inline void rig_msc(struct rig *r, unsigned kind, unsigned id, uint32_t idr,
			   uint32_t mbw_idr, uint32_t cpbm_wd, uint32_t mbwumon_idr)
{
	unsigned i = r->ndesc++;
	r->desc[i] = (struct pv_vmpam_msc_desc){.base = RIG_BASE + i * RIG_FRAME,
						.kind = (uint8_t)kind,
						.id = (uint8_t)id,
						.nrdy_ns = 0};
	*rig_word(r, i, R_AIDR) = 0x10;
	*rig_word(r, i, R_IDR) = idr;
	*rig_word(r, i, R_MBW_IDR) = mbw_idr;
	*rig_word(r, i, R_CPOR_IDR) = cpbm_wd;
	*rig_word(r, i, R_MSMON_IDR) = mbwumon_idr ? 1u << 17 : 0;
	*rig_word(r, i, R_MBWUMON_IDR) = mbwumon_idr;
}

static inline int rig_init(struct rig *r, unsigned host_partids)
{
	r->setup = (struct pv_vmpam_setup){.msc = r->desc,
					   .nmsc = r->ndesc,
					   .cpu_mpamidr = r->cpu_idr,
					   .ncpus = r->ncpus,
					   .cpu_node = r->topology ? r->cpu_node : NULL,
					   .host_partids = host_partids,
					   .vms = r->table,
					   .max_vms = RIG_VMS,
					   .acct = r->acct,
					   .nacct = sizeof(r->acct) / sizeof(r->acct[0])};
	return pv_vmpam_init(&r->sys, &r->cpu, &r->setup);
}

static inline void rig_script(struct rig *r, unsigned msc, uint32_t off, const uint32_t *v,
			      unsigned n)
{
	r->script_pa = RIG_BASE + msc * RIG_FRAME + off;
	memcpy(r->script, v, n * sizeof(*v));
	r->nscript = n;
	r->iscript = 0;
	r->script_reads = 0;
}

#endif
