/* SPDX-License-Identifier: MIT */
/*
 * vSPE internals shared by the vspe/ sources. Not a public header.
 *
 * Model (see docs/spe.md): the guest's SPE registers live in struct pv_vspe. While its vCPU is
 * loaded and its buffer enabled, checked and pinned (hw_on), the hardware runs the guest's
 * buffer and holds the live PMBPTR_EL1/PMSICR_EL1; pv_vspe__sync() brings them, and any buffer
 * management event the hardware raised, back into the virtual registers. With direct sampling
 * controls (pv_vm_spe.direct) the hardware also holds the guest's PMS* registers while its
 * vCPU is loaded and used (vspe_live()): they are read there, and saved at put.
 */
#ifndef PV_VSPE_INTERNAL_H
#define PV_VSPE_INTERNAL_H

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "regdb.h"
#include "../core/modules.h"

/* The guest-visible bits of PMBSR_EL1 (MSS2 is RES0 up to SPEv1p2). */
#define VSPE_BSR_MASK                                                                          \
	(PV_PMBSR_EC | PV_PMBSR_DL | PV_PMBSR_EA | PV_PMBSR_S | PV_PMBSR_COLL | PV_PMBSR_MSS)
/* PMSCR_EL1 fields that reach the hardware: never PA or PCT (Arm ARM D24.7.8). */
#define VSPE_SCR_TO_HW (PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_TS)

static inline bool vspe_has(const struct pv_vcpu *v)
{
	return v->vm->spe.version != 0;
}

/* The guest's sampling controls are the hardware's registers now: direct sampling controls,
 * the vCPU loaded and using SPE (its first access restored them and cleared TPMS). */
static inline bool vspe_live(const struct pv_vcpu *v)
{
	return v->cpu && v->spe.used && v->vm->spe.direct;
}

/* What the hardware's PMSCR_EL1 gets of the guest's. Trapped, never PA or PCT; direct, the
 * guest writes it all itself, and PMSCR_EL2 (all zero) bounds it: no physical address
 * (CollectPhysicalAddress()), virtual timestamps (CollectTimeStamp(), J1.1.1). */
static inline uint64_t vspe_scr_hw(const struct pv_vcpu *v, uint64_t scr)
{
	return v->vm->spe.direct ? scr : scr & VSPE_SCR_TO_HW;
}

static inline uint64_t vspe_limit(uint64_t limitr)
{
	return limitr & PV_PMBLIMITR_LIMIT;
}

static inline bool vspe_discard(uint64_t limitr)
{
	return PV_FIELD_GET(PV_PMBLIMITR_FM, limitr) == PV_PMBLIMITR_FM_DISCARD;
}

/* The guest's buffer is enabled (ProfilingBufferEnabled(): E = 1 and not stopped, S = 0). */
static inline bool vspe_enabled(const struct pv_vspe *s)
{
	return (s->limitr & PV_PMBLIMITR_E) && !(s->bsr & PV_PMBSR_S);
}

/* ---- buffer.c ---- */
/* Records a buffer management event in the virtual PMBSR_EL1 (S = 1, raising INTID 21). */
void pv_vspe__event(struct pv_vcpu *v, unsigned ec, uint64_t mss, uint64_t flags);
/* Sets the virtual INTID 21 to PMBSR_EL1.S. */
void pv_vspe__line(struct pv_vcpu *v);
/* After a change of the guest's PMB* registers: check, walk and pin the buffer if it is newly
 * enabled, unpin it if disabled or replaced, and program the hardware if loaded. */
void pv_vspe__apply(struct pv_vcpu *v);
/* Brings the hardware's PMBPTR_EL1 and buffer management events into the virtual registers
 * (after a PSB CSYNC unless `drained`): guest events are reflected, stage-2 faults repaired. */
void pv_vspe__sync(struct pv_vcpu *v, bool drained);
void pv_vspe__unpin_all(struct pv_vcpu *v);
/* The walks pinned no table yet (pv_vspe.tables). */
static inline void pv_vspe__tables_forget(struct pv_vspe *s)
{
	for (unsigned h = 0; h < 2; h++)
		for (unsigned l = 0; l < 4; l++)
			s->tables[h][l] = ~UINT64_C(0);
}

/* ---- walk.c: the guest's stage 1 (Arm ARM D8, VMSAv8-64 translation) ---- */
#define VSPE_OK (-1)    /* translated */
#define VSPE_NOMEM (-2) /* a table is not the VM's memory, or pinning failed */

/* One translation regime of EL1&0 as its registers describe it. */
struct vspe_regime {
	uint64_t ttbr0, ttbr1, tcr, sctlr;
};

/* Pending runs of pinned pages (leaves and tables), flushed to the platform and the store. */
struct vspe_run {
	uint64_t ipa, size, va;
};
struct vspe_pinner {
	struct pv_vcpu *v;
	struct vspe_run leaf, table;
	bool failed;           /* the platform or the store refused: stop here */
	bool refresh;          /* repair: a page the store already holds is mapped again (pinned
				 and unpinned), not stored twice */
	uint64_t (*tables)[4]; /* pv_vspe.tables: skip and record the tables pinned; NULL:
				  pin every table the walk reads */
	uint64_t fail_va;      /* first VA page left unpinned, or without its tables */
};

/* A walk over consecutive pages, remembering the table of each level (a page only reads what
 * the previous one did not). */
/* Walk parameters of one half of the VA space (Arm ARM D8.2, the TCR_EL1 fields of TTBRn). */
struct vspe_half {
	uint64_t root;
	uint8_t g, stride, ia, start, top_bits;
	bool epd, tbi, hpd;
};

struct vspe_walker {
	struct pv_vcpu *v;
	struct vspe_pinner *pin; /* tables read are pinned through it; NULL: none */
	const struct pv_hw_spe *hw;
	bool mmu;
	bool ha, hd;      /* hardware Access flag / dirty state (PMBIDR_EL1.F, TCR_EL1) */
	uint8_t out_bits; /* effective output size: min(TCR_EL1.IPS, PARange) */
	struct vspe_regime r;
	struct vspe_half half[2]; /* TTBR0, TTBR1 */
	uint64_t cache_key[2][4]; /* per half, per level: VA bits that select the table */
	uint64_t cache_table[2][4];
	uint8_t cache_valid[2];
};

struct vspe_xlate {
	int fsc;       /* VSPE_OK, VSPE_NOMEM, or the FSC of the stage-1 fault */
	uint64_t ipa;  /* of the VA (VSPE_OK) */
	uint64_t span; /* bytes from the VA to the end of its page or block (VSPE_OK) */
};

void pv_vspe__regime_read(struct pv_vcpu *v, struct vspe_regime *r);
void pv_vspe__walker_init(struct vspe_walker *w, struct pv_vcpu *v, const struct vspe_regime *r,
			  struct vspe_pinner *pin);
/* Translates `va` for an SPE write (an EL1 write access in the EL1&0 regime). */
void pv_vspe__translate(struct vspe_walker *w, uint64_t va, struct vspe_xlate *x);

void pv_vspe__pinner_add(struct vspe_pinner *p, struct vspe_run *run, uint64_t ipa,
			 uint64_t size, uint64_t va);
void pv_vspe__pinner_flush(struct vspe_pinner *p);

#endif
