/* SPDX-License-Identifier: MIT */
/*
 * Virtual PMUv3: per-VM configuration, per-vCPU state and the operator's views (the register
 * handlers are internal to the core: build/gen/regdb.h).
 *
 * The physical counters are partitioned: guest counters are [0, HPMN) plus the cycle counter,
 * host counters are [HPMN, N). A vCPU's virtual counter n lives in physical counter n while
 * the vCPU is loaded and in `struct pv_vpmu` otherwise.
 */
#ifndef PERFVISOR_VPMU_H
#define PERFVISOR_VPMU_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/api.h"

PV_BEGIN_DECLS

struct pv_vm;
struct pv_vcpu;
struct pv_pcpu;
struct pv_hw;

/* Event filter range, laid out as KVM's struct kvm_pmu_event_filter so a VMM can reuse its
 * KVM_ARM_VCPU_PMU_V3_FILTER ranges unchanged. */
struct pv_pmu_filter {
	uint16_t base_event;
	uint16_t nevents;
	uint8_t action; /* PV_PMU_FILTER_ALLOW or PV_PMU_FILTER_DENY */
	uint8_t pad[3];
};
#define PV_PMU_FILTER_ALLOW 0
#define PV_PMU_FILTER_DENY 1
#define PV_PMU_MAX_FILTERS 32

struct pv_pmu_config {
	uint8_t version;     /* ID_AA64DFR0_EL1.PMUVer to expose: V3, V3P1, V3P4 or V3P5 */
	uint8_t nr_counters; /* PMCR_EL0.N the guest sees; at most the hardware's HPMN */
	uint8_t nr_filters;  /* 0: every event allowed */
	/* 1: every PMU register but the event types, PMCEID0/1 and PMMIR reached without a
	 * trap, and the overflow interrupt presented mapped (PV_IRQ_GUEST_MAPPED), where the
	 * hardware can keep them the VM's own: FEAT_FGT and a host that applies the fine-grained
	 * trap words (pv_hw.fgt_words, PV_FGT_DIRECT_*), at least one counter, the hardware's
	 * PMUVer (docs/vpmu.md, "Direct access"). Elsewhere, or 0, every PMU access traps. */
	uint8_t direct;
	/* 1: the VM owns the guests' part of the physical PMU ([0, HPMN) and the cycle counter)
	 * of the pCPU it is loaded on, and no PMU access traps: that PMU is the VM's exactly (the
	 * hardware's PMUVer, which must be PMUv3p5, for HPMD and HCCD; nr_counters = HPMN; no event
	 * filter). The host presents the physical PMU interrupt to the VM mapped
	 * (PV_IRQ_GUEST_MAPPED). Where it is not possible, as for 0: direct or trapping as above
	 * (docs/vpmu.md, "Passthrough"). */
	uint8_t passthrough;
	struct pv_pmu_filter filters[PV_PMU_MAX_FILTERS];
};

/*
 * The fine-grained traps a direct VM's trap words set (HDFGRTR_EL2, HDFGWTR_EL2; Arm ARM
 * D24.2.67, D24.2.69): the event types (PMEVTYPER<n>_EL0 and PMXEVTYPER_EL0, one bit;
 * PMCCFILTR_EL0), read and written, and PMCEID0/1_EL0 and PMMIR_EL1, read. A host that
 * sets pv_hw.fgt_words must take every one of them from EL1 and EL0: one it misses would let
 * a guest program an event type the filter denies, or count EL2 (docs/vpmu.md).
 */
#define PV_FGT_DIRECT_READ                                                                     \
	(PV_HDFGRTR_EL2_PMEVTYPERn_EL0 | PV_HDFGRTR_EL2_PMCCFILTR_EL0 |                        \
	 PV_HDFGRTR_EL2_PMCEIDn_EL0 | PV_HDFGRTR_EL2_PMMIR_EL1)
#define PV_FGT_DIRECT_WRITE (PV_HDFGWTR_EL2_PMEVTYPERn_EL0 | PV_HDFGWTR_EL2_PMCCFILTR_EL0)

/* Per-VM values derived once from the configuration and the hardware. */
struct pv_vm_pmu {
	uint32_t counter_mask; /* implemented counters [0, N) and bit 31 (cycle counter) */
	uint64_t evtyper_mask; /* guest-visible (stored) bits of PMEVTYPER<n>_EL0 */
	uint64_t ccfiltr_mask; /* guest-visible bits of PMCCFILTR_EL0 */
	uint64_t pmcr_stored;  /* PMCR_EL0 bits a guest write stores */
	uint64_t pmcr_fixed;   /* read-only PMCR_EL0 bits: IMP, IDCODE, N, LC when RES1 */
	uint64_t pmceid0;      /* guest views, masked by the event filter */
	uint64_t pmceid1;
	uint64_t pmmir;
	uint64_t cycles_allowed; /* 1 if the filter allows CPU_CYCLES (the cycle counter) */
	uint8_t version;
	uint8_t nr_counters;
	/* Derived by vpmu/ at pv_vm_init for its own use: */
	uint8_t conds;           /* what the PE has for the registers' masks (the core's) */
	bool el3;                /* NSK/NSU/M are implemented (hw->el3) */
	bool direct;             /* all but the types untrapped (pv_pmu_config.direct) */
	bool passthrough;        /* nothing traps (pv_pmu_config.passthrough, and possible) */
	uint32_t event_mask;     /* evtCount width: 0x3FF (PMUv3) or 0xFFFF (PMUv3p1+) */
	uint32_t host_mask;      /* physical overflow bits of host counters [HPMN, N) */
	uint64_t evcntr_mask;    /* guest-visible width of PMEVCNTR<n>: 32 or 64 bits */
	uint64_t pmcr_res1;      /* PMCR_EL0.LC when RES1 (no AArch32), else 0 */
	uint64_t hw_nothing;     /* physical PMEVTYPER value that counts nothing */
	uint32_t filter_lut[16]; /* physical filter bits for guest PMEVTYPER bits [31:28] */
	uint64_t allowed[65536 / 64]; /* bit e: event e is counted in hardware (allowed by the
					 filter, not SW_INCR or CHAIN) */
};

/*
 * The counter reads a host may answer at its exception entry, before its full register save
 * (docs/vpmu.md, "The fast path"): MRS of PMEVCNTR<n>_EL0, PMXEVCNTR_EL0 and PMCCNTR_EL0
 * whose answer is the physical register of the loaded vCPU. The library keeps it current
 * whenever it changes what is plain (activation, load, put, a CHAIN type, PMUSERENR_EL0,
 * PMSELR_EL0); nothing is plain while the vCPU is not loaded. A read it does not mark plain
 * goes to pv_trap_sys64() as before. A host that serves a read writes
 * `physical & evcntr_mask` (an event counter) or the physical PMCCNTR_EL0 to Rt (none for
 * Rt = 31), adds 1 to the vCPU's stats.traps[PV_KIND_PMU] (struct pv_vcpu's second member,
 * also at a fixed offset), and completes the MRS as for any emulated trap: ELR_EL2 + 4, with
 * SPSR_EL2.SS and BTYPE cleared. The EL and member checks are folded into the word.
 * PMEVCNTR<31> is no register (that encoding is PMCCFILTR_EL0): bit 31 is PMCCNTR_EL0's
 * alone.
 */
struct pv_vpmu_fast {
	uint32_t el0; /* bit n < 31: PMEVCNTR<n>_EL0 is plain from EL0; bit 31: PMCCNTR */
	uint32_t el1; /* the same from EL1 */
	uint64_t evcntr_mask; /* what an event counter read keeps: 32 bits before PMUv3p5 */
	/* The event counter PMXEVCNTR_EL0 reads (PMSELR_EL0.SEL) if that read is plain from
	 * EL0, from EL1; 31 if not (31 names no event counter). */
	uint8_t xev_el0, xev_el1;
	uint8_t pad[6];
};

struct pv_vpmu {
	uint64_t pmcr;       /* stored bits only (E, D, DP, LC, LP, FZS) */
	uint64_t evcntr[31]; /* counter values while the vCPU is not loaded */
	uint64_t ccntr;
	uint64_t evtyper[31]; /* what the guest wrote, masked to the visible bits */
	uint64_t ccfiltr;
	uint32_t cnten;    /* PMCNTENSET_EL0 */
	uint32_t inten;    /* PMINTENSET_EL1 */
	uint32_t ovs;      /* PMOVSSET_EL0: the canonical overflow status */
	uint32_t emulated; /* counters whose event is SW_INCR or CHAIN (software) */
	uint8_t selr;      /* PMSELR_EL0.SEL */
	uint8_t userenr;   /* PMUSERENR_EL0 */
	uint8_t host_selr; /* passthrough, direct: the pCPU's PMSELR_EL0 at load, back at put */
	bool active;       /* touched: its state is switched at load/put */
	bool irq_level;    /* current level of the virtual PMU interrupt */
	/* 0xFF while a passthrough or direct vCPU is loaded: its PMUSERENR_EL0 is the
	 * hardware's, written untrapped (the stored one is stale), and the hardware applied it
	 * to an EL0 access before it trapped to EL2 (Arm ARM D24.5); 0 otherwise. */
	uint8_t el0_open;
	/* vpmu/'s own bookkeeping: */
	uint32_t chain;      /* odd counters whose event is CHAIN */
	uint32_t slow;       /* counters (bit 31: the cycle counter) whose accesses take
					the slow path: the CHAIN ones while the vCPU is active
					and loaded, all of them otherwise (vpmu_set_slow) */
	uint64_t hwtype[32]; /* sanitised physical PMEVTYPER<n> (31: PMCCFILTR) */
};

/**
 * pv_vpmu_event_allowed() - Whether a VM's event filter lets its counters count an event.
 * @vm: the VM, pv_vm_init() done.
 * @event: the event number.
 *
 * The KVM filter semantics: the first range sets the default (ALLOW first: deny the rest),
 * later ranges override.
 *
 * Return: true for SW_INCR and CHAIN, which are never filtered (even in a VM without a PMU);
 * for any other event, true if it is within the VM's event space (10 bits before PMUv3p1,
 * 16 from it) and its filter allows it, so false in a VM without a PMU.
 */
PV_API bool pv_vpmu_event_allowed(const struct pv_vm *vm, uint32_t event);

/**
 * pv_vpmu_counter() - Operator view: the guest-visible value of a PMU counter.
 * @v: the vCPU, loaded or not.
 * @idx: the counter: 0..30 an event counter, 31 the cycle counter.
 *
 * The physical counter is read while the vCPU is loaded and has touched its PMU. For an odd
 * counter whose event is CHAIN, the pending overflows of its even partner are folded first,
 * as for a guest read: the vCPU's overflow status and virtual interrupt may change.
 *
 * Context: on the vCPU's pCPU while it is loaded.
 * Return: the value the guest would read (event counters 32 bits wide before PMUv3p5); 0 for
 * any @idx but 31 at or above the VM's PMCR_EL0.N.
 */
PV_API uint64_t pv_vpmu_counter(struct pv_vcpu *v, unsigned idx);

/**
 * pv_vpmu_sync() - Bring struct pv_vpmu up to date for a loaded passthrough or direct vCPU.
 * @v: the vCPU, loaded or not.
 *
 * A passthrough or direct vCPU (vm->pmu.passthrough, vm->pmu.direct) changes its PMU
 * registers without a trap (a direct one's event types aside), so while it is loaded its
 * struct pv_vpmu holds what it had at load. This reads them back from the hardware, which it
 * does not change. For any other vCPU, and one not loaded, it does nothing: struct pv_vpmu
 * is current (counter values aside: pv_vpmu_counter()).
 *
 * Context: on the vCPU's pCPU while it is loaded.
 */
PV_API void pv_vpmu_sync(struct pv_vcpu *v);

PV_END_DECLS

#endif
