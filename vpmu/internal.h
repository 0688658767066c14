/* SPDX-License-Identifier: MIT */
/*
 * vPMU internals shared by the vpmu/ sources. Not a public header.
 *
 * Model (see docs/vpmu.md): guest counter n is physical counter n while the vCPU is loaded
 * and active; otherwise its value is in struct pv_vpmu. Enables, interrupt enables, types,
 * PMCR, PMSELR and PMUSERENR are always kept in struct pv_vpmu (the hardware never changes
 * them). The virtual PMOVS is canonical: physical overflow bits of guest counters are folded
 * into it and cleared in hardware.
 */
#ifndef PV_VPMU_INTERNAL_H
#define PV_VPMU_INTERNAL_H

#include "perfvisor/perfvisor.h"
#include "perfvisor/platform.h"
#include "regdb.h"
#include "../core/modules.h"

/* X(n, ...) for each event counter number n = 0..30 (give X at least one more argument). */
/* clang-format off */
#define PV_PMEV_EACH(X, ...)                                                                   \
	X(0, __VA_ARGS__) X(1, __VA_ARGS__) X(2, __VA_ARGS__) X(3, __VA_ARGS__)                \
	X(4, __VA_ARGS__) X(5, __VA_ARGS__) X(6, __VA_ARGS__) X(7, __VA_ARGS__)                \
	X(8, __VA_ARGS__) X(9, __VA_ARGS__) X(10, __VA_ARGS__) X(11, __VA_ARGS__)              \
	X(12, __VA_ARGS__) X(13, __VA_ARGS__) X(14, __VA_ARGS__) X(15, __VA_ARGS__)            \
	X(16, __VA_ARGS__) X(17, __VA_ARGS__) X(18, __VA_ARGS__) X(19, __VA_ARGS__)            \
	X(20, __VA_ARGS__) X(21, __VA_ARGS__) X(22, __VA_ARGS__) X(23, __VA_ARGS__)            \
	X(24, __VA_ARGS__) X(25, __VA_ARGS__) X(26, __VA_ARGS__) X(27, __VA_ARGS__)            \
	X(28, __VA_ARGS__) X(29, __VA_ARGS__) X(30, __VA_ARGS__)
/* clang-format on */

/* Keeps a rarely taken path out of line, so that the hot one stays short; or a hot one in
 * line where the compiler would not. */
#if defined(__GNUC__)
#define VPMU_COLD __attribute__((noinline, cold))
#define VPMU_NOINLINE __attribute__((noinline))
#define VPMU_INLINE inline __attribute__((always_inline))
#else
#define VPMU_COLD
#define VPMU_NOINLINE
#define VPMU_INLINE inline
#endif

/* The hardware's PMEVCNTR<n>_EL0 and PMEVTYPER<n>_EL0: by index where the platform offers
 * it (platform.h, PV_PLATFORM_HAS_PMEV), else by key, from a table (counters.c; PMEVTYPER<n>
 * has CRm bit 2 set as well). */
#ifdef PV_PLATFORM_HAS_PMEV
#define hw_evcntr_read(cpu, n) pv_plat_pmevcntr_read(cpu, n)
#define hw_evcntr_write(cpu, n, val) pv_plat_pmevcntr_write(cpu, n, val)
#define hw_evtyper_write(cpu, n, val) pv_plat_pmevtyper_write(cpu, n, val)
#else
extern const uint32_t pv_vpmu__evcntr_key[PV_PMU_MAX_COUNTERS];
#define hw_evcntr_read(cpu, n) pv_plat_sysreg_read(cpu, pv_vpmu__evcntr_key[n])
#define hw_evcntr_write(cpu, n, val) pv_plat_sysreg_write(cpu, pv_vpmu__evcntr_key[n], val)
#define hw_evtyper_write(cpu, n, val)                                                          \
	pv_plat_sysreg_write(cpu, pv_vpmu__evcntr_key[n] | PV_SYSREG(0, 0, 0, 4, 0), val)
#endif

/* Full stored value of event counter n: in hardware while loaded and active. */
static inline uint64_t vpmu_evcntr_raw(const struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n)
{
	return cpu ? hw_evcntr_read(cpu, n) : v->pmu.evcntr[n];
}

static inline void vpmu_evcntr_set(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n,
				   uint64_t val)
{
	if (cpu)
		hw_evcntr_write(cpu, n, val);
	else
		v->pmu.evcntr[n] = val;
}

/* First access of any kind: mark the vCPU active and, if loaded, put its state in hardware. */
void pv_vpmu__activate(struct pv_vcpu *v);
/* The same, answering PV_TRAP_HANDLED: a handler's first access tail-calls it, so that its
 * hot path makes no call and needs no stack frame. */
enum pv_trap_result pv_vpmu__activate_handled(struct pv_vcpu *v);

/* The EL0 rules of the registers (their PMUSERENR_EL0 bits), from the register database. */
#define VPMU_EL0_READ_RULE(ident, title, o0, o1, n, m, o2, first, last, crm_bits, kind,        \
			   feature, min, gate, access, el0_rd, el0_wr, rd, wr, each, text,     \
			   rd_name, wr_name)                                                   \
	VPMU_EL0RD_##ident = (el0_rd),
enum { PV_REGDB_ENTRIES(VPMU_EL0_READ_RULE) };
_Static_assert(
	VPMU_EL0RD_PMXEVCNTR_EL0 == VPMU_EL0RD_PMEVCNTR_EL0,
	"PMXEVCNTR_EL0 reads take PMEVCNTR<n>_EL0's EL0 rule: the fast word has one mask");

/* The host's fast word (struct pv_vpmu_fast): a read is plain where the C fast path below
 * would read the physical register, and from EL0 where the guest's PMUSERENR_EL0 also lets
 * it through (trap/dispatch.c's EL0 rule, the same bits). */
static inline void vpmu_fast_sync(struct pv_vcpu *v)
{
	uint32_t plain = ~v->pmu.slow & v->vm->pmu.counter_mask;
	uint32_t u = v->pmu.userenr;
	uint32_t el0 = ((u & VPMU_EL0RD_PMEVCNTR_EL0 & 0xFFu) ? ~(1u << PV_PMU_CYCLE_IDX) : 0) |
		       ((u & VPMU_EL0RD_PMCCNTR_EL0 & 0xFFu) ? 1u << PV_PMU_CYCLE_IDX : 0);
	unsigned sel = v->pmu.selr; /* 0..31; 31, like any SEL >= N, is not plain */
	v->fast.el1 = plain;
	v->fast.el0 = plain & el0;
	v->fast.xev_el1 = (uint8_t)(sel < 31 && ((plain >> sel) & 1) ? sel : 31);
	v->fast.xev_el0 = (uint8_t)(sel < 31 && ((plain & el0) >> sel & 1) ? sel : 31);
}

/* A PMSELR_EL0 write changes only what PMXEVCNTR_EL0 reads: its entries follow from the
 * masks, which vpmu_fast_sync keeps current wherever they change (a put clears both). SEL =
 * 31 gives 31 whatever bit 31 (the cycle counter) says. */
static inline void vpmu_fast_sel(struct pv_vcpu *v)
{
	unsigned sel = v->pmu.selr; /* 0..31 */
	v->fast.xev_el1 = (uint8_t)((v->fast.el1 >> sel) & 1 ? sel : 31);
	v->fast.xev_el0 = (uint8_t)((v->fast.el0 >> sel) & 1 ? sel : 31);
}

/* Nothing plain: the vCPU leaves its pCPU (a put costs three stores, not a recomputation). */
static inline void vpmu_fast_clear(struct pv_vcpu *v)
{
	v->fast.el0 = v->fast.el1 = 0;
	v->fast.xev_el0 = v->fast.xev_el1 = 31;
}

/* One test on the hot paths: the fast path needs the vCPU active, loaded, and the counter
 * not a CHAIN one (whose reads fold pending overflows first). */
static inline void vpmu_set_slow(struct pv_vcpu *v)
{
	v->pmu.slow = (v->pmu.active && v->cpu) ? v->pmu.chain : ~0u;
	vpmu_fast_sync(v);
}

/* The pCPU whose counters hold this vCPU's state, or NULL (not loaded). Activates. */
static inline struct pv_pcpu *vpmu_cpu(struct pv_vcpu *v)
{
	if (!v->pmu.active)
		pv_vpmu__activate(v);
	return v->cpu;
}

/* A read of state perfvisor keeps (no hardware access, nothing activation changes); the
 * first access activates the vCPU. */
static inline enum pv_trap_result vpmu_read_kept(struct pv_vcpu *v, uint64_t kept,
						 uint64_t *val)
{
	*val = kept;
	if (!v->pmu.active)
		return pv_vpmu__activate_handled(v);
	return PV_TRAP_HANDLED;
}

/* switch.c */
uint64_t pv_vpmu__fold(struct pv_vcpu *v, struct pv_pcpu *cpu);

/* CHAIN counts each overflow of its even partner at the moment it happens. An overflow still
 * pending in hardware is folded before anything that decides whether or how it chains
 * changes: PMCR.E or LP, the enables, the CHAIN counter's value or type. */
static inline void vpmu_settle_chain(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	if (v->pmu.chain && cpu && v->pmu.active)
		pv_vpmu__fold(v, cpu);
}

/* Counting just stopped (PMCNTENCLR, PMCR.E = 0, a type change; the hardware already has the
 * write): the overflow flags the hardware holds are folded now, so an overflow that happened
 * while the counter counted raises the virtual interrupt as the architecture says (at once,
 * or when PMCR.E is set again) without waiting for a physical PMU interrupt, which a host may
 * not take for counters that no longer count (QEMU 7.2 flags an event counter's overflow
 * late, and hyp/ polls for it only while interrupting counters run). */
static inline void vpmu_fold_on_stop(struct pv_vcpu *v, struct pv_pcpu *cpu)
{
	if (cpu && v->pmu.active)
		pv_vpmu__fold(v, cpu);
}

/* The virtual PMU interrupt is a level: PMCR.E && (PMINTEN & PMOVS) != 0. */
static inline void vpmu_update_level(struct pv_vcpu *v)
{
	bool level = (v->pmu.pmcr & PV_PMCR_E) && (v->pmu.inten & v->pmu.ovs);
	if (level != v->pmu.irq_level) {
		v->pmu.irq_level = level;
		v->stats.pmu_irqs += level;
		pv_plat_virq_set(v, PV_INTID_PMU, level);
	}
}

/* Whether `event` (at most event_mask) is counted by a physical counter: allowed by the
 * VM's filter and not one of the software-emulated SW_INCR and CHAIN. */
static inline bool vpmu_event_in_hw(const struct pv_vm_pmu *p, uint32_t event)
{
	return (p->allowed[event / 64] >> (event % 64)) & 1;
}

/* The VM's event filter: SW_INCR and CHAIN are never filtered. */
static inline bool vpmu_event_allowed(const struct pv_vm_pmu *p, uint32_t event)
{
	if (event == PV_EVT_SW_INCR || event == PV_EVT_CHAIN)
		return true;
	return event <= p->event_mask && vpmu_event_in_hw(p, event);
}

/* Physical filter bits (P, U, NSK, NSU) for a guest filter value: pv_vpmu__filter_lut(). */
static inline uint64_t vpmu_hw_filter(const struct pv_vm_pmu *p, uint64_t t)
{
	return p->filter_lut[(t >> 28) & 0xF];
}

/* Hardware copy of a (stored) guest PMEVTYPER. SW_INCR and CHAIN are counted in software,
 * denied events not at all: such a counter is programmed to count nothing (event 0 with
 * P = U = 1 and NSK = NSU = M = 0). */
static inline uint64_t vpmu_hw_evtyper(const struct pv_vm_pmu *p, uint64_t type)
{
	uint32_t event = (uint32_t)(type & p->event_mask);
	return vpmu_event_in_hw(p, event) ? event | vpmu_hw_filter(p, type) : p->hw_nothing;
}

/* Hardware copy of PMCCFILTR: counts nothing when the filter denies CPU_CYCLES. */
static inline uint64_t vpmu_hw_ccfiltr(const struct pv_vm_pmu *p, uint64_t filter)
{
	return p->cycles_allowed ? vpmu_hw_filter(p, filter) : p->hw_nothing;
}

/* filter.c */
void pv_vpmu__filter_build(struct pv_vm_pmu *p, const struct pv_pmu_config *c);
void pv_vpmu__filter_lut(struct pv_vm_pmu *p);

/* chain.c */
bool pv_vpmu__increment(struct pv_vcpu *v, struct pv_pcpu *cpu, unsigned n);
void pv_vpmu__chain_overflows(struct pv_vcpu *v, struct pv_pcpu *cpu, uint32_t overflowed);

/* switch.c */
void pv_vpmu__sync_inten(struct pv_vcpu *v, struct pv_pcpu *cpu);

/* The VM's PMU registers are the hardware's while it is loaded (passthrough.c): passthrough
 * and direct access. */
static inline bool vpmu_in_hw(const struct pv_vm_pmu *p)
{
	return p->passthrough || p->direct;
}

/* passthrough.c */
void pv_vpmu__pt_load(struct pv_vcpu *v, struct pv_pcpu *cpu);
void pv_vpmu__pt_put(struct pv_vcpu *v, struct pv_pcpu *cpu);
bool pv_vpmu__pt_level(struct pv_vcpu *v, struct pv_pcpu *cpu);

#endif
