/* SPDX-License-Identifier: MIT */
/*
 * vmpam internals shared by the vmpam/ sources. Not a public header.
 *
 * Model (see docs/mpam.md): a VM owns physical PARTIDs from the usable range; the guest only
 * ever names virtual PARTIDs, which the VPM registers (or the trap handlers) turn into the
 * VM's own. The MSC driver (msc.c) is the only code that writes a PARTID to an MSC, and it is
 * only ever given allocated PARTIDs. Accounting (account.c) gives each account monitor slots
 * on every node, permanently while the node has enough, in turns otherwise. A VM has one
 * account per node for its total bytes and, when local bytes are counted, a second one for
 * those labelled with the node as PMG (see cpu.c).
 */
#ifndef PV_VMPAM_INTERNAL_H
#define PV_VMPAM_INTERNAL_H

#include "perfvisor/mpam_regs.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "perfvisor/vmpam.h"
#include "regdb.h"
#include "../core/modules.h"

#if defined(__GNUC__)
#define VMPAM_COLD __attribute__((noinline, cold))
#else
#define VMPAM_COLD
#endif

/* struct pv_vmpam_acct.flags */
#define ACCT_GAP 0x01      /* [at, now] is unmeasured: estimated at `rate` */
#define ACCT_SAMPLED 0x02  /* rate and dev hold a measurement */
#define ACCT_NEW 0x04      /* no traffic before its monitors were first programmed */
#define ACCT_FRESH 0x08    /* dedicated slots just programmed: the first read is a window */
#define ACCT_USED 0x10     /* the entry belongs to a VM */
#define ACCT_OVERFLOW 0x20 /* its bytes no longer fit 64 bits: sticky, no figure is given */

/* Rates are bytes per 2^RATE_SHIFT ns (about a second). */
#define RATE_SHIFT 30

/* Accounts: VM table index << sys->acct_shift | kind. A VM's accounts are consecutive, so
 * rotation usually measures both in the same window. */
enum { ACCT_TOTAL, ACCT_LOCAL };
static inline uint32_t vmpam_account(const struct pv_vmpam_sys *sys, uint32_t vm_index,
				     unsigned kind)
{
	return vm_index << sys->acct_shift | kind;
}
#define ACCT_VM(sys, c) ((c) >> (sys)->acct_shift)
#define ACCT_KIND(sys, c) ((c) & ((1u << (sys)->acct_shift) - 1))

static inline struct pv_vmpam_acct *vmpam_acct(const struct pv_vmpam_sys *sys, uint32_t account,
					       unsigned node)
{
	return &sys->acct[(size_t)account * sys->nnodes + node];
}

/* Slot encoding: account and virtual PARTID (max_vms <= 2^25 keeps it below SLOT_FREE). */
#define SLOT(acc, vp) ((uint32_t)(acc) << 5 | (uint32_t)(vp))
#define SLOT_ACCT(s) ((s) >> 5)
#define SLOT_VP(s) (31u & (s))

/* ---- arithmetic (math.c): no 128-bit division in a freestanding aarch64 build ---- */
/* (a * b) >> s, saturating (s < 64). */
uint64_t pv_vmpam__mulshr_portable(uint64_t a, uint64_t b, unsigned s);
#if defined(__SIZEOF_INT128__)
/* A 128-bit product and shift compile to a few instructions (no library call). */
static inline uint64_t pv_vmpam__mulshr(uint64_t a, uint64_t b, unsigned s)
{
	__extension__ typedef unsigned __int128 u128;
	u128 p = (u128)a * b >> s;
	return p >> 64 ? UINT64_MAX : (uint64_t)p;
}
#else
#define pv_vmpam__mulshr pv_vmpam__mulshr_portable
#endif
/* floor(a * b / c), saturating; c != 0. */
uint64_t pv_vmpam__muldiv(uint64_t a, uint64_t b, uint64_t c);
uint64_t pv_vmpam__isqrt(uint64_t x);

/* Bytes per 2^RATE_SHIFT ns of `bytes` over `ns`. */
static inline uint64_t vmpam_rate(uint64_t bytes, uint64_t ns)
{
	if (!ns)
		return 0;
	if (bytes < (UINT64_C(1) << (64 - RATE_SHIFT)))
		return (bytes << RATE_SHIFT) / ns;
	return pv_vmpam__muldiv(bytes, UINT64_C(1) << RATE_SHIFT, ns);
}

/* Bytes moved at `rate` in `ns`. */
static inline uint64_t vmpam_bytes(uint64_t rate, uint64_t ns)
{
	return pv_vmpam__mulshr(rate, ns, RATE_SHIFT);
}

/* ---- MSC driver (msc.c) ---- */
int pv_vmpam__msc_probe(struct pv_pcpu *cpu, const struct pv_vmpam_msc_desc *d,
			struct pv_vmpam_msc *m);
/* Programs the controls of `partid` on every MSC from `cfg` (NULL: no limit). Returns 0 or
 * PV_VMPAM_ERR_MSC_ERROR if an MSC recorded an error meanwhile. */
int pv_vmpam__msc_program(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, uint16_t partid,
			  const struct pv_vmpam_config *cfg);
/* MBW_MAX value for a percentage (1..99) with `wd` implemented bits, HARDLIM set; 0 or 100
 * give no limit (all ones, HARDLIM clear). */
uint32_t pv_vmpam__mbw_max(unsigned pct, unsigned wd);
/* Monitor `slot` of a node's RIS k: starts counting `partid` from zero, and only PMG `pmg`
 * when n->match_pmg[slot]. `ctl`: the slot's MATCH_PMG changed, CTL must be rewritten. */
void pv_vmpam__mon_start(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			 const struct pv_vmpam_node *n, unsigned k, unsigned slot,
			 uint16_t partid, uint8_t pmg, bool ctl);
/* Enables every slot of a node, counting the host's PARTID 0 (any PMG). */
void pv_vmpam__mon_setup(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			 const struct pv_vmpam_node *n);
/* Reads monitor `slot` of RIS k: the raw counter in *raw and its change since `last` in
 * *units (counter units), wraps corrected; `pred` is the change expected (the previous one).
 * False if it stays not ready. */
bool pv_vmpam__mon_read(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu,
			const struct pv_vmpam_node *n, unsigned k, unsigned slot, uint64_t last,
			uint64_t pred, uint64_t *raw, uint64_t *units);
/* log2 of the bytes per counter unit of RIS k of a node (SCALE, applied with SCLEN). */
unsigned pv_vmpam__mon_scale(const struct pv_vmpam_sys *sys, const struct pv_vmpam_node *n,
			     unsigned k);
/* Reads and clears every MSC's error status (statistics). */
void pv_vmpam__msc_check(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu);

/* ---- accounting (account.c) ---- */
/* Registers a new VM on every node: slots now if the node has them free, else rotation. */
void pv_vmpam__acct_add(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, struct pv_vm_mpam *vm);
/* Forgets the VM's slots and accounts. */
void pv_vmpam__acct_remove(struct pv_vmpam_sys *sys, struct pv_vm_mpam *vm);
/* The VM at table index `from` moved to `to`: entries and slots follow. */
void pv_vmpam__acct_move(struct pv_vmpam_sys *sys, uint32_t from, uint32_t to);

/* ---- CPU side (cpu.c) ---- */
void pv_vmpam__vm_views(const struct pv_vmpam_sys *sys, struct pv_vm_mpam *vm);

#endif
