/* SPDX-License-Identifier: MIT */
/*
 * The platform's system-register accessors (include/perfvisor/platform.h), inline: the
 * hypervisor builds the core with -DPV_PLATFORM_INLINE='"plat_sysreg.h"', so an access the
 * core makes to a register known at compile time is a single MRS or MSR, and the event
 * counters it reaches by index are a branch into a table of MRS/MSR (n < 31). Keys not known
 * at compile time go through one switch, out of line (platform.c).
 *
 * Every key becomes a real MRS/MSR written with its generic S<op0>_<op1>_C<n>_C<m>_<op2>
 * name, so no assembler feature flag is needed. Registers of features the CPU lacks (SPE,
 * AMU, MPAM, PMMIR_EL1 before PMUv3p4) would UNDEF at EL2: they read 0 and ignore writes, as
 * do keys the platform does not know.
 */
#ifndef HYP_PLAT_SYSREG_H
#define HYP_PLAT_SYSREG_H

#include <stdbool.h>
#include <stdint.h>

#include "perfvisor/sysreg.h"

#define PV_PLATFORM_HAS_SYSREG 1
#define PV_PLATFORM_HAS_PMEV 1

struct pv_pcpu;

/* Optional features present on this CPU (plat_init, platform.c). */
struct plat_feat {
	bool pmmir, spe, amu, mpam;
};
extern struct plat_feat plat_feat;

/* Registers are listed per group (Op0, Op1, CRn); within a group the switch is on
 * CRm:Op2, dense enough for a jump table. */
#define PLAT_GROUP_MASK (PV_ISS_SYS_KEY_MASK & ~(0xFu << PV_ISS_SYS_CRM_SHIFT) &                      \
		    ~(0x7u << PV_ISS_SYS_OP2_SHIFT))
#define PLAT_GROUP(op0, op1, crn) PV_SYSREG(op0, op1, crn, 0, 0)
#define PLAT_DENSE(k) (PV_SYSREG_CRM(k) * 8u + PV_SYSREG_OP2(k))

#define PLAT_SEQ7(X, a, b, c, d) X(a, b, c, d, 0) X(a, b, c, d, 1) X(a, b, c, d, 2) X(a, b, c, d, 3)    \
	X(a, b, c, d, 4) X(a, b, c, d, 5) X(a, b, c, d, 6)
#define PLAT_SEQ8(X, a, b, c, d) PLAT_SEQ7(X, a, b, c, d) X(a, b, c, d, 7)

/* Group (3,3,9): PMCR, PMCNTENSET/CLR, PMOVSCLR, PMSWINC (WO), PMSELR, PMCEID0/1 (RO),
 * PMCCNTR, PMXEVTYPER, PMXEVCNTR, PMUSERENR, PMOVSSET (Arm ARM D24.5). */
#define PLAT_G339_RW(X)                                                                               \
	X(3, 3, 9, 12, 0) X(3, 3, 9, 12, 1) X(3, 3, 9, 12, 2) X(3, 3, 9, 12, 3) X(3, 3, 9, 12, 5) \
	X(3, 3, 9, 13, 0) X(3, 3, 9, 13, 1) X(3, 3, 9, 13, 2) X(3, 3, 9, 14, 0) X(3, 3, 9, 14, 3)
#define PLAT_G339_RO(X) X(3, 3, 9, 12, 6) X(3, 3, 9, 12, 7)
#define PLAT_G339_WO(X) X(3, 3, 9, 12, 4)
/* Group (3,3,14): PMEVCNTR<n> (CRm 8-11), PMEVTYPER<n> (CRm 12-15), PMCCFILTR. */
#define PLAT_G3314_RW(X)                                                                              \
	PLAT_SEQ8(X, 3, 3, 14, 8) PLAT_SEQ8(X, 3, 3, 14, 9) PLAT_SEQ8(X, 3, 3, 14, 10) PLAT_SEQ7(X, 3, 3, 14, 11)     \
	PLAT_SEQ8(X, 3, 3, 14, 12) PLAT_SEQ8(X, 3, 3, 14, 13) PLAT_SEQ8(X, 3, 3, 14, 14) PLAT_SEQ8(X, 3, 3, 14, 15)
/* Group (3,0,9): PMINTENSET/CLR; PMMIR (RO, PMUv3p4); SPE PMS* and PMB* (CRm 9, 10). */
#define PLAT_G309_RW(X) X(3, 0, 9, 14, 1) X(3, 0, 9, 14, 2)
#define PLAT_G309_PMMIR(X) X(3, 0, 9, 14, 6)
#define PLAT_G309_SPE_RW(X)                                                                           \
	X(3, 0, 9, 9, 0) X(3, 0, 9, 9, 1) X(3, 0, 9, 9, 2) X(3, 0, 9, 9, 3) X(3, 0, 9, 9, 4)      \
	X(3, 0, 9, 9, 5) X(3, 0, 9, 9, 6) X(3, 0, 9, 10, 0) X(3, 0, 9, 10, 1) X(3, 0, 9, 10, 3)
#define PLAT_G309_SPE_RO(X) X(3, 0, 9, 9, 7) X(3, 0, 9, 10, 7)
/* Group (3,4,9): PMSCR_EL2 (SPE). */
#define PLAT_G349_SPE_RW(X) X(3, 4, 9, 9, 0)
/* Group (3,0,0): the ID group, CRm 1..7; reserved encodings are RAZ. */
#define PLAT_G300_RO(X)                                                                               \
	PLAT_SEQ8(X, 3, 0, 0, 1) PLAT_SEQ8(X, 3, 0, 0, 2) PLAT_SEQ8(X, 3, 0, 0, 3) PLAT_SEQ8(X, 3, 0, 0, 4)           \
	PLAT_SEQ8(X, 3, 0, 0, 5) PLAT_SEQ8(X, 3, 0, 0, 6) PLAT_SEQ8(X, 3, 0, 0, 7)
/* Group (3,4,1): HCR_EL2, MDCR_EL2, CPTR_EL2. */
#define PLAT_G341_RW(X) X(3, 4, 1, 1, 0) X(3, 4, 1, 1, 1) X(3, 4, 1, 1, 2)
/* Group (3,3,13): AMU. */
#define PLAT_G3313_AMU_RW(X)                                                                          \
	X(3, 3, 13, 2, 0) X(3, 3, 13, 2, 3) X(3, 3, 13, 2, 4) X(3, 3, 13, 2, 5) X(3, 3, 13, 3, 0) \
	X(3, 3, 13, 3, 1) PLAT_SEQ8(X, 3, 3, 13, 4) PLAT_SEQ8(X, 3, 3, 13, 5) PLAT_SEQ8(X, 3, 3, 13, 12)         \
	PLAT_SEQ8(X, 3, 3, 13, 13) PLAT_SEQ8(X, 3, 3, 13, 14) PLAT_SEQ8(X, 3, 3, 13, 15)
#define PLAT_G3313_AMU_RO(X)                                                                          \
	X(3, 3, 13, 2, 1) X(3, 3, 13, 2, 2) X(3, 3, 13, 2, 6) PLAT_SEQ8(X, 3, 3, 13, 6)                \
	PLAT_SEQ8(X, 3, 3, 13, 7)
/* Group (3,4,13): AMU virtual offsets. */
#define PLAT_G3413_AMU_RW(X)                                                                          \
	PLAT_SEQ8(X, 3, 4, 13, 8) PLAT_SEQ8(X, 3, 4, 13, 9) PLAT_SEQ8(X, 3, 4, 13, 10) PLAT_SEQ8(X, 3, 4, 13, 11)
/* Groups (3,0,10) and (3,4,10): MPAM. */
#define PLAT_G3010_MPAM_RW(X) X(3, 0, 10, 5, 0) X(3, 0, 10, 5, 1) X(3, 0, 10, 5, 3)
#define PLAT_G3010_MPAM_RO(X) X(3, 0, 10, 4, 4)
#define PLAT_G3410_MPAM_RW(X)                                                                         \
	X(3, 4, 10, 5, 0) X(3, 4, 10, 4, 0) X(3, 4, 10, 4, 1) PLAT_SEQ8(X, 3, 4, 10, 6)

#define PLAT_STR_(x) #x
#define PLAT_STR(x) PLAT_STR_(x)
#define PLAT_REG(a, b, c, d, e) S##a##_##b##_C##c##_C##d##_##e
#define PLAT_RD(a, b, c, d, e)                                                                        \
	case (d) * 8 + (e): {                                                                    \
		uint64_t v_;                                                                     \
		__asm__ volatile("mrs %0, " PLAT_STR(PLAT_REG(a, b, c, d, e)) : "=r"(v_));            \
		return v_;                                                                       \
	}
#define PLAT_WR(a, b, c, d, e)                                                                        \
	case (d) * 8 + (e):                                                                      \
		__asm__ volatile("msr " PLAT_STR(PLAT_REG(a, b, c, d, e)) ", %0" : : "r"(val));       \
		return;

#define PLAT_INLINE static inline __attribute__((always_inline))

/* The switch over every key, for reads (RW = RO = PLAT_RD, WO = nothing) and for writes
 * (RW = WO = PLAT_WR, RO = nothing); `d` is PLAT_DENSE(reg). */
#define PLAT_NONE(a, b, c, d, e)
#define PLAT_SWITCH(reg, d, RW, RO, WO)                                                          \
	switch ((reg) & PLAT_GROUP_MASK) {                                                       \
	case PLAT_GROUP(3, 3, 14):                                                               \
		switch (d) { PLAT_G3314_RW(RW) }                                                 \
		break;                                                                           \
	case PLAT_GROUP(3, 3, 9):                                                                \
		switch (d) { PLAT_G339_RW(RW) PLAT_G339_RO(RO) PLAT_G339_WO(WO) }                \
		break;                                                                           \
	case PLAT_GROUP(3, 0, 9):                                                                \
		switch (d) { PLAT_G309_RW(RW) }                                                  \
		if (plat_feat.pmmir)                                                             \
			switch (d) { PLAT_G309_PMMIR(RO) }                                       \
		if (plat_feat.spe)                                                               \
			switch (d) { PLAT_G309_SPE_RW(RW) PLAT_G309_SPE_RO(RO) }                 \
		break;                                                                           \
	case PLAT_GROUP(3, 0, 0):                                                                \
		switch (d) { PLAT_G300_RO(RO) }                                                  \
		break;                                                                           \
	case PLAT_GROUP(3, 4, 1):                                                                \
		switch (d) { PLAT_G341_RW(RW) }                                                  \
		break;                                                                           \
	case PLAT_GROUP(3, 4, 9):                                                                \
		if (plat_feat.spe)                                                               \
			switch (d) { PLAT_G349_SPE_RW(RW) }                                      \
		break;                                                                           \
	case PLAT_GROUP(3, 3, 13):                                                               \
		if (plat_feat.amu)                                                               \
			switch (d) { PLAT_G3313_AMU_RW(RW) PLAT_G3313_AMU_RO(RO) }               \
		break;                                                                           \
	case PLAT_GROUP(3, 4, 13):                                                               \
		if (plat_feat.amu)                                                               \
			switch (d) { PLAT_G3413_AMU_RW(RW) }                                     \
		break;                                                                           \
	case PLAT_GROUP(3, 0, 10):                                                               \
		if (plat_feat.mpam)                                                              \
			switch (d) { PLAT_G3010_MPAM_RW(RW) PLAT_G3010_MPAM_RO(RO) }             \
		break;                                                                           \
	case PLAT_GROUP(3, 4, 10):                                                               \
		if (plat_feat.mpam)                                                              \
			switch (d) { PLAT_G3410_MPAM_RW(RW) }                                    \
		break;                                                                           \
	default:                                                                                 \
		break;                                                                           \
	}

/* What the hardware's PMU can interrupt for, tracked from the writes that decide it, so the
 * overflow poll (timer.c) needs no look into the vPMU: an event counter (not the cycle
 * counter, bit 31) enabled in PMCNTENSET_EL0 and PMINTENSET_EL1 with PMCR_EL0.E set (Arm ARM
 * D13.x, the PMU overflow interrupt request; the host's counter above HPMN never
 * interrupts). Every write goes through here: the vPMU's, and the hypervisor's own. */
struct plat_pmu_enables {
	uint32_t cnten, inten;
	bool e;
	bool event_irq; /* cnten & inten & event counters, and E */
};
extern struct plat_pmu_enables plat_pmu;
/* event_irq has just become true (timer.c: the overflow poll starts). */
void plat_pmu_event_irq_started(void);

PLAT_INLINE void plat_pmu_track(uint32_t reg, uint64_t val)
{
	uint32_t bits = (uint32_t)val;
	switch (reg) {
	case PV_PMCNTENSET_EL0:
		plat_pmu.cnten |= bits;
		break;
	case PV_PMCNTENCLR_EL0:
		plat_pmu.cnten &= ~bits;
		break;
	case PV_PMINTENSET_EL1:
		plat_pmu.inten |= bits;
		break;
	case PV_PMINTENCLR_EL1:
		plat_pmu.inten &= ~bits;
		break;
	case PV_PMCR_EL0:
		plat_pmu.e = (val & PV_PMCR_E) != 0;
		break;
	default:
		return;
	}
	bool was = plat_pmu.event_irq;
	plat_pmu.event_irq = plat_pmu.e && (plat_pmu.cnten & plat_pmu.inten & 0x7FFFFFFFu);
	if (plat_pmu.event_irq && !was)
		plat_pmu_event_irq_started();
}

/* Inline: folded to one instruction for a constant key. */
PLAT_INLINE uint64_t plat_sysreg_read_any(uint32_t reg)
{
	unsigned d = PLAT_DENSE(reg);
	PLAT_SWITCH(reg, d, PLAT_RD, PLAT_RD, PLAT_NONE)
	return 0;
}

PLAT_INLINE void plat_sysreg_write_any(uint32_t reg, uint64_t val)
{
	unsigned d = PLAT_DENSE(reg);
	plat_pmu_track(reg, val);
	PLAT_SWITCH(reg, d, PLAT_WR, PLAT_NONE, PLAT_WR)
}

/* The same switch, out of line (platform.c), for keys known only at run time. */
uint64_t plat_sysreg_read(uint32_t reg);
void plat_sysreg_write(uint32_t reg, uint64_t val);

PLAT_INLINE uint64_t pv_plat_sysreg_read(struct pv_pcpu *cpu, uint32_t reg)
{
	(void)cpu;
	if (__builtin_constant_p(reg))
		return plat_sysreg_read_any(reg);
	return plat_sysreg_read(reg);
}

PLAT_INLINE void pv_plat_sysreg_write(struct pv_pcpu *cpu, uint32_t reg, uint64_t val)
{
	(void)cpu;
	if (__builtin_constant_p(reg))
		plat_sysreg_write_any(reg, val);
	else
		plat_sysreg_write(reg, val);
}

/* PMEVCNTR<n>_EL0 / PMEVTYPER<n>_EL0, n = 0..30 (CRm = 8 + n / 8 or 12 + n / 8, Op2 = n % 8):
 * one MRS or MSR when n is known at compile time, else a branch to entry n of a table of
 * two-instruction entries (an MRS or MSR, then a branch out). */
#define PLAT_PMEV_N(X, crm)                                                                           \
	X(crm, 0) X(crm, 1) X(crm, 2) X(crm, 3) X(crm, 4) X(crm, 5) X(crm, 6) X(crm, 7)
#define PLAT_PMEV_TABLE(X, c0, c1, c2, c3)                                                            \
	PLAT_PMEV_N(X, c0) PLAT_PMEV_N(X, c1) PLAT_PMEV_N(X, c2) X(c3, 0) X(c3, 1) X(c3, 2) X(c3, 3) X(c3, 4)   \
	X(c3, 5) X(c3, 6)
#define PLAT_PMEV_MRS(crm, op2) "mrs %0, S3_3_C14_C" #crm "_" #op2 "\n\tb 2f\n\t"
#define PLAT_PMEV_MSR(crm, op2) "msr S3_3_C14_C" #crm "_" #op2 ", %2\n\tb 2f\n\t"

PLAT_INLINE uint64_t pv_plat_pmevcntr_read(struct pv_pcpu *cpu, unsigned n)
{
	(void)cpu;
	if (__builtin_constant_p(n))
		return plat_sysreg_read_any(PV_PMEVCNTR_EL0(n));
	uint64_t v, at;
	__asm__ volatile("adr %1, 1f\n\tadd %1, %1, %w2, uxtw #3\n\tbr %1\n1:\n\t"
			 PLAT_PMEV_TABLE(PLAT_PMEV_MRS, 8, 9, 10, 11) "2:"
			 : "=r"(v), "=&r"(at)
			 : "r"(n));
	return v;
}

PLAT_INLINE void pmev_write(unsigned n, uint64_t val, bool typer)
{
	uint64_t at;
	if (typer)
		__asm__ volatile("adr %0, 1f\n\tadd %0, %0, %w1, uxtw #3\n\tbr %0\n1:\n\t"
				 PLAT_PMEV_TABLE(PLAT_PMEV_MSR, 12, 13, 14, 15) "2:"
				 : "=&r"(at)
				 : "r"(n), "r"(val));
	else
		__asm__ volatile("adr %0, 1f\n\tadd %0, %0, %w1, uxtw #3\n\tbr %0\n1:\n\t"
				 PLAT_PMEV_TABLE(PLAT_PMEV_MSR, 8, 9, 10, 11) "2:"
				 : "=&r"(at)
				 : "r"(n), "r"(val));
}

PLAT_INLINE void pv_plat_pmevcntr_write(struct pv_pcpu *cpu, unsigned n, uint64_t val)
{
	(void)cpu;
	if (__builtin_constant_p(n))
		plat_sysreg_write_any(PV_PMEVCNTR_EL0(n), val);
	else
		pmev_write(n, val, false);
}

PLAT_INLINE void pv_plat_pmevtyper_write(struct pv_pcpu *cpu, unsigned n, uint64_t val)
{
	(void)cpu;
	if (__builtin_constant_p(n))
		plat_sysreg_write_any(PV_PMEVTYPER_EL0(n), val);
	else
		pmev_write(n, val, true);
}

#endif
