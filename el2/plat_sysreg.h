/* SPDX-License-Identifier: MIT */
/*
 * The platform's system-register accessors (include/perfvisor/platform.h) for a host running
 * at EL2 on the CPU itself (the reference hypervisor, the Xen bridge), inline: the host builds
 * the core with -Iel2 -DPV_PLATFORM_INLINE='"plat_sysreg.h"', so an access the core makes to
 * a register known at compile time is a single MRS or MSR, and the event counters it reaches
 * by index are a branch into a table of MRS/MSR (n < 31). Keys not known at compile time go
 * through one switch, out of line (plat_sysreg.c).
 *
 * The host gives each pCPU a struct plat_pcpu at the start of its per-CPU context (the `plat`
 * of pv_pcpu_init()), provides plat_pmu_event_irq_started() and
 * plat_pmu_event_counter_written(), and calls plat_init() once before the core runs.
 *
 * Every key becomes a real MRS/MSR written with its generic S<op0>_<op1>_C<n>_C<m>_<op2>
 * name, so no assembler feature flag is needed. Registers of features the CPU lacks (SPE,
 * AMU, MPAM, PMMIR_EL1 before PMUv3p4) would UNDEF at EL2: they read 0 and ignore writes, as
 * do keys the register database does not give EL2.
 */
#ifndef EL2_PLAT_SYSREG_H
#define EL2_PLAT_SYSREG_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"
#include "perfvisor/sysreg.h"
#include "regdb_el2.h"

#define PV_PLATFORM_HAS_SYSREG 1
#define PV_PLATFORM_HAS_PMEV 1

struct pv_pcpu;

/* What this CPU has (plat_init, plat_sysreg.c): the PMU's and the AMU's versions (0: none, an
 * IMPLEMENTATION DEFINED PMU counts as none beyond PMUv3), SPE's (PMSVer), MPAM and FEAT_FGT;
 * and whether it is QEMU's (MIDR_EL1.Implementer 0), whose deviations qemu72.h works around:
 * pmu_line_stale, QEMU 7.2's PMU interrupt line that a PMCR_EL0 write leaves as it was, is
 * assumed of every QEMU until a host's probe of the CPU says otherwise. */
struct plat_feat {
	unsigned pmuver, amuver, spever;
	bool mpam, fgt;
	bool qemu;
	bool pmu_line_stale;
};
extern struct plat_feat plat_feat;

/* Every register EL2 accesses is a row of the register database (arch/sysregs.txt);
 * regdb_el2.h lists them by (Op0, Op1, CRn) space, and within a space the switch is on
 * CRm:Op2, dense enough for a jump table. */
#define PLAT_SPACE_MASK                                                                        \
	(PV_ISS_SYS_KEY_MASK & ~(0xFu << PV_ISS_SYS_CRM_SHIFT) &                               \
	 ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define PLAT_SPACE(op0, op1, crn) PV_SYSREG(op0, op1, crn, 0, 0)
#define PLAT_DENSE(k) (PV_SYSREG_CRM(k) * 8u + PV_SYSREG_OP2(k))

/* Whether the CPU has a register of `feature` from version `min`: one it lacks would UNDEF
 * at EL2, so it reads 0 and ignores writes instead, as do keys the database does not list. */
#define PLAT_HAS_PMU(min) ((min) <= PV_PMUVER_V3 || plat_feat.pmuver >= (min))
#define PLAT_HAS_AMU(min) (plat_feat.amuver >= (min))
#define PLAT_HAS_SPE(min) (plat_feat.spever >= (min))
#define PLAT_HAS_MPAM(min) plat_feat.mpam
#define PLAT_HAS_FGT(min) plat_feat.fgt
#define PLAT_HAS_FGTAMU(min) (plat_feat.fgt && plat_feat.amuver >= (min))
#define PLAT_HAS_ID(min) 1
#define PLAT_HAS_EL1(min) 1
#define PLAT_HAS_EL2(min) 1

#define PLAT_STR_(x) #x
#define PLAT_STR(x) PLAT_STR_(x)
#define PLAT_REG(a, b, c, d, e) S##a##_##b##_C##c##_C##d##_##e
#define PLAT_MRS(a, b, c, d, e, feat, min)                                                     \
	case 8 * (d) + (e): {                                                                  \
		uint64_t v_ = 0;                                                               \
		if (PLAT_HAS_##feat(min))                                                      \
			__asm__ volatile("mrs %0, " PLAT_STR(PLAT_REG(a, b, c, d, e))          \
					 : "=r"(v_));                                          \
		return v_;                                                                     \
	}
#define PLAT_MSR(a, b, c, d, e, feat, min)                                                     \
	case 8 * (d) + (e):                                                                    \
		if (PLAT_HAS_##feat(min))                                                      \
			__asm__ volatile("msr " PLAT_STR(PLAT_REG(a, b, c, d, e)) ", %0"       \
					 :                                                     \
					 : "r"(val));                                          \
		return;
#define PLAT_NONE(a, b, c, d, e, feat, min)

/* One database row for reads (RW, RO: an MRS) and for writes (RW, WO: an MSR). */
#define PLAT_RD(a, b, c, d, e, acc, feat, min) PLAT_RD_##acc(a, b, c, d, e, feat, min)
#define PLAT_RD_RW PLAT_MRS
#define PLAT_RD_RO PLAT_MRS
#define PLAT_RD_WO PLAT_NONE
#define PLAT_WR(a, b, c, d, e, acc, feat, min) PLAT_WR_##acc(a, b, c, d, e, feat, min)
#define PLAT_WR_RW PLAT_MSR
#define PLAT_WR_WO PLAT_MSR
#define PLAT_WR_RO PLAT_NONE
#define PLAT_SPACE_RD(o0, o1, n, list)                                                         \
	case PLAT_SPACE(o0, o1, n):                                                            \
		switch (d) {                                                                   \
			list(PLAT_RD)                                                          \
		}                                                                              \
		break;
#define PLAT_SPACE_WR(o0, o1, n, list)                                                         \
	case PLAT_SPACE(o0, o1, n):                                                            \
		switch (d) {                                                                   \
			list(PLAT_WR)                                                          \
		}                                                                              \
		break;

#define PLAT_INLINE static inline __attribute__((always_inline))

/* What the hardware's PMU can interrupt for, tracked from the writes that decide it, so the
 * overflow poll (timer.c) needs no look into the vPMU: an event counter (not the cycle
 * counter, bit 31) enabled in PMCNTENSET_EL0 and PMINTENSET_EL1 with PMCR_EL0.E set (Arm ARM
 * D13.3.1, generating overflow interrupt requests; the host's counter above HPMN never
 * interrupts). Every write goes through here: the vPMU's, and the hypervisor's own. */
struct plat_pmu_enables {
	uint32_t cnten, inten;
	bool e;
	bool event_irq; /* cnten & inten & event counters, and E */
};

/* What these accessors keep per pCPU: a host's per-CPU context (pv_pcpu.plat) begins with it,
 * so each pCPU tracks its own PMU. */
struct plat_pcpu {
	struct plat_pmu_enables pmu;
};

PLAT_INLINE struct plat_pmu_enables *plat_pmu_of(struct pv_pcpu *cpu)
{
	return &((struct plat_pcpu *)cpu->plat)->pmu;
}

/* event_irq has just become true on `cpu`, the pCPU running (the overflow poll starts). */
void plat_pmu_event_irq_started(struct pv_pcpu *cpu);
/* An event counter was written on `cpu` while event_irq holds: it may be nearer its overflow
 * (a poll that waits for the soonest overflow is set again). */
void plat_pmu_event_counter_written(struct pv_pcpu *cpu);

PLAT_INLINE void plat_pmu_track(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	uint32_t bits = (uint32_t)val;
	struct plat_pmu_enables *e;
	switch (reg) {
	case PV_PMCNTENSET_EL0:
		e = plat_pmu_of(cpu);
		e->cnten |= bits;
		break;
	case PV_PMCNTENCLR_EL0:
		e = plat_pmu_of(cpu);
		e->cnten &= ~bits;
		break;
	case PV_PMINTENSET_EL1:
		e = plat_pmu_of(cpu);
		e->inten |= bits;
		break;
	case PV_PMINTENCLR_EL1:
		e = plat_pmu_of(cpu);
		e->inten &= ~bits;
		break;
	case PV_PMCR_EL0:
		e = plat_pmu_of(cpu);
		e->e = (val & PV_PMCR_E) != 0;
		break;
	default:
		return;
	}
	bool was = e->event_irq;
	e->event_irq = e->e && (e->cnten & e->inten & 0x7FFFFFFFu);
	if (e->event_irq && !was)
		plat_pmu_event_irq_started(cpu);
}

/* Inline: folded to one instruction for a constant key. */
PLAT_INLINE uint64_t plat_sysreg_read_any(uint32_t reg)
{
	unsigned d = PLAT_DENSE(reg);
	switch (reg & PLAT_SPACE_MASK) {
		PV_REGDB_EL2_SPACES(PLAT_SPACE_RD)
	default:
		break;
	}
	return 0;
}

PLAT_INLINE void plat_sysreg_write_any(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	unsigned d = PLAT_DENSE(reg);
	plat_pmu_track(cpu, reg, val);
	switch (reg & PLAT_SPACE_MASK) {
		PV_REGDB_EL2_SPACES(PLAT_SPACE_WR)
	default:
		break;
	}
}

/* The same switch, out of line (plat_sysreg.c), for keys known only at run time. */
void plat_init(void);
uint64_t plat_sysreg_read(uint32_t reg);
void plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val);

PLAT_INLINE uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	(void)cpu;
	if (__builtin_constant_p(reg))
		return plat_sysreg_read_any(reg);
	return plat_sysreg_read(reg);
}

PLAT_INLINE void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	if (__builtin_constant_p(reg))
		plat_sysreg_write_any(cpu, reg, val);
	else
		plat_sysreg_write(cpu, reg, val);
}

/* PMEVCNTR<n>_EL0 / PMEVTYPER<n>_EL0, n = 0..30 (CRm = 8 + n / 8 or 12 + n / 8, Op2 = n % 8):
 * one MRS or MSR when n is known at compile time, else a branch to entry n of a table of
 * two-instruction entries (an MRS or MSR, then a branch out). */
/* clang-format off */
#define PLAT_PMEV_N(X, crm)                                                                           \
	X(crm, 0) X(crm, 1) X(crm, 2) X(crm, 3) X(crm, 4) X(crm, 5) X(crm, 6) X(crm, 7)
/* clang-format on */
/* clang-format off */
#define PLAT_PMEV_TABLE(X, c0, c1, c2, c3)                                                            \
	PLAT_PMEV_N(X, c0) PLAT_PMEV_N(X, c1) PLAT_PMEV_N(X, c2) X(c3, 0) X(c3, 1) X(c3, 2) X(c3, 3) X(c3, 4)   \
	X(c3, 5) X(c3, 6)
/* clang-format on */
#define PLAT_PMEV_MRS(crm, op2) "mrs %0, S3_3_C14_C" #crm "_" #op2 "\n\tb 2f\n\t"
#define PLAT_PMEV_MSR(crm, op2) "msr S3_3_C14_C" #crm "_" #op2 ", %2\n\tb 2f\n\t"

PLAT_INLINE uint64_t pv_plat_pmevcntr_read(struct pv_pcpu *cpu, unsigned n)
{
	(void)cpu;
	if (__builtin_constant_p(n))
		return plat_sysreg_read_any(PV_PMEVCNTR_EL0(n));
	uint64_t v, at;
	__asm__ volatile(
		"adr %1, 1f\n\tadd %1, %1, %w2, uxtw #3\n\tbr %1\n1:\n\t" PLAT_PMEV_TABLE(
			PLAT_PMEV_MRS, 8, 9, 10, 11) "2:"
		: "=r"(v), "=&r"(at)
		: "r"(n));
	return v;
}

PLAT_INLINE void pmev_write(unsigned n, uint64_t val, bool typer)
{
	uint64_t at;
	if (typer)
		__asm__ volatile(
			"adr %0, 1f\n\tadd %0, %0, %w1, uxtw #3\n\tbr "
			"%0\n1:\n\t" PLAT_PMEV_TABLE(PLAT_PMEV_MSR, 12, 13, 14, 15) "2:"
			: "=&r"(at)
			: "r"(n), "r"(val));
	else
		__asm__ volatile("adr %0, 1f\n\tadd %0, %0, %w1, uxtw #3\n\tbr "
				 "%0\n1:\n\t" PLAT_PMEV_TABLE(PLAT_PMEV_MSR, 8, 9, 10, 11) "2:"
				 : "=&r"(at)
				 : "r"(n), "r"(val));
}

PLAT_INLINE void pv_plat_pmevcntr_write(struct pv_pcpu *cpu, unsigned n, uint64_t val)
{
	if (__builtin_constant_p(n))
		plat_sysreg_write_any(cpu, PV_PMEVCNTR_EL0(n), val);
	else
		pmev_write(n, val, false);
	if (plat_pmu_of(cpu)->event_irq)
		plat_pmu_event_counter_written(cpu);
}

PLAT_INLINE void pv_plat_pmevtyper_write(struct pv_pcpu *cpu, unsigned n, uint64_t val)
{
	(void)cpu;
	if (__builtin_constant_p(n))
		plat_sysreg_write_any(cpu, PV_PMEVTYPER_EL0(n), val);
	else
		pmev_write(n, val, true);
}

#endif
