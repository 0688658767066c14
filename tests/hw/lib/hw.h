/* SPDX-License-Identifier: MIT */
/*
 * The model tests' library: bare-metal programs at EL2 on QEMU virt (virtualization=on,
 * GICv3), with no perfvisor and no firmware. Each program's main() prints one line per check,
 * "ok NAME" or "not ok NAME: why", then hw_done() prints "done: N passed, M failed" and powers
 * the machine off (PSCI SYSTEM_OFF). The checks say what the Arm ARM says; tests/hw/run.sh
 * knows which of them stock QEMU fails.
 */
#ifndef HW_H
#define HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HW_STR(x) #x
#define HW_XSTR(x) HW_STR(x)
#define READ_SYSREG(r)                                                                         \
	({                                                                                     \
		uint64_t v_;                                                                   \
		__asm__ volatile("mrs %0, " HW_XSTR(r) : "=r"(v_));                            \
		v_;                                                                            \
	})
#define WRITE_SYSREG(r, v)                                                                     \
	do {                                                                                   \
		uint64_t w_ = (v);                                                             \
		__asm__ volatile("msr " HW_XSTR(r) ", %0" : : "r"(w_) : "memory");             \
	} while (0)
#define ISB() __asm__ volatile("isb" : : : "memory")

/* An exception's frame: x0..x30, ELR, SPSR of the EL it was taken to. */
struct hw_frame {
	uint64_t x[31];
	uint64_t elr;
	uint64_t spsr;
	uint64_t pad;
};

/* main() of each test program, on CPU 0 at EL2. */
int main(void);

/* The console (PL011). */
void hw_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One check: "ok NAME", or "not ok NAME: " and the reason. */
bool hw_check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define HW_CHECK_EQ(name, got, want)                                                           \
	hw_check((uint64_t)(got) == (uint64_t)(want), (name), "%s is %llu (%#llx), not %llu",  \
		 #got, (unsigned long long)(got), (unsigned long long)(got),                   \
		 (unsigned long long)(want))
_Noreturn void hw_done(void);

/* The CPU this runs on (MPIDR_EL1.Aff0). */
unsigned hw_cpu(void);
/* PSCI CPU_ON: CPU (Aff0) starts at EL2 in fn, on its own stack. 0, or PSCI's error. */
int64_t hw_cpu_on(unsigned cpu, void (*fn)(void));

/*
 * The GICv3 (distributor, this CPU's redistributor and CPU interface), physical interrupts
 * taken at EL2 (HCR_EL2.IMO). hw_irq_handler() names what is called for each interrupt
 * (after the acknowledge, before the end of interrupt); hw_irq_pending() is the interrupt the
 * CPU interface would signal next (ICC_HPPIR1_EL1: 1023 for none), masked or not.
 */
typedef void hw_irq_fn(unsigned intid, struct hw_frame *frame);
void hw_gic_init(void);
void hw_irq_enable(unsigned intid);
void hw_irq_handler(hw_irq_fn *fn);
unsigned hw_irq_pending(void);
#define HW_INTID_PMU 23  /* PPI 7, virt's PMU interrupt */
#define HW_INTID_CNTP 30 /* PPI 14, the EL1 physical timer */
#define HW_INTID_NONE 1023

/*
 * fn(arg) at EL1 (el = 1) or EL0 (el = 0) and back at EL2, interrupts masked. An exception
 * taken to EL1 meanwhile (an UNDEFINED instruction, an abort from EL0) is counted in
 * hw_lower_faults, its ESR_EL1 kept in hw_lower_esr, and the instruction skipped.
 */
uint64_t hw_run_lower(uint64_t (*fn)(uint64_t), uint64_t arg, unsigned el);
extern volatile unsigned hw_lower_faults;
extern volatile uint64_t hw_lower_esr;

/*
 * EL2's own synchronous exceptions: with hw_el2_skip_faults set, each is counted in
 * hw_el2_faults (its ESR_EL2 in hw_el2_esr) and the instruction skipped; otherwise it ends the
 * test as a failure.
 */
extern volatile bool hw_el2_skip_faults;
extern volatile unsigned hw_el2_faults;
extern volatile uint64_t hw_el2_esr;

/*
 * Synchronous exceptions taken to EL2 from EL1 or EL0 (a trap), other than the HVC that ends
 * hw_run_lower(): with hw_el2_take_lower_traps set, each is counted in hw_el2_lower_traps (its
 * ESR_EL2 in hw_el2_lower_esr) and the instruction skipped; otherwise it ends the test as a
 * failure.
 */
extern volatile bool hw_el2_take_lower_traps;
extern volatile unsigned hw_el2_lower_traps;
extern volatile uint64_t hw_el2_lower_esr;

/*
 * Where the one instruction of STMT went, for the checks of trap and UNDEFINED priorities:
 * HW_DONE (completed), or the ESR of the exception it took, tagged HW_AT_EL1 (taken to EL1,
 * from hw_run_lower()'s EL1 or EL0) or HW_AT_EL2 (trapped to EL2, hw_el2_take_lower_traps set).
 */
#define HW_DONE 0ULL
#define HW_AT_EL1 (1ULL << 62)
#define HW_AT_EL2 (1ULL << 63)
#define HW_OUTCOME(stmt)                                                                       \
	({                                                                                     \
		unsigned l_ = hw_lower_faults, t_ = hw_el2_lower_traps;                        \
		stmt;                                                                          \
		hw_el2_lower_traps != t_ ? HW_AT_EL2 | (uint32_t)hw_el2_lower_esr              \
		: hw_lower_faults != l_  ? HW_AT_EL1 | (uint32_t)hw_lower_esr                  \
					 : HW_DONE;                                             \
	})
/*
 * An outcome for the EL and syndrome expected: EC 0x00 (UNDEFINED), or EC 0x18 (a trapped MSR or
 * MRS) with the ISS's Op0, Op2, Op1, CRn, CRm and direction (D24.2.46, ESR_EL2; Rt is the
 * compiler's and not compared).
 */
#define HW_EC_UNKNOWN 0x00
#define HW_EC_SYS64 0x18

/* One access at EL2 that may be UNDEFINED: whether it was (hw_el2_skip_faults above). */
#define HW_EL2_UNDEF(stmt)                                                                     \
	({                                                                                     \
		unsigned f_ = hw_el2_faults;                                                   \
		hw_el2_skip_faults = true;                                                     \
		stmt;                                                                          \
		hw_el2_skip_faults = false;                                                    \
		hw_el2_faults != f_ && ((hw_el2_esr >> 26) & 0x3f) == HW_EC_UNKNOWN;           \
	})
#define HW_ISS_SYS64(op0, op1, crn, crm, op2, read)                                            \
	(((uint64_t)(op0) << 20) | ((uint64_t)(op2) << 17) | ((uint64_t)(op1) << 14) |         \
	 ((uint64_t)(crn) << 10) | ((uint64_t)(crm) << 1) | (uint64_t)(read))
#define HW_ISS_SYS64_MASK 0x3ffc1fULL
static inline bool hw_outcome_is(uint64_t got, uint64_t at, unsigned ec, uint64_t iss)
{
	return (got & (HW_AT_EL1 | HW_AT_EL2)) == at && ((got >> 26) & 0x3f) == ec &&
	       (ec != HW_EC_SYS64 || (got & HW_ISS_SYS64_MASK) == iss);
}

/* 16 KiB of Normal memory for loads and stores, 4 KiB aligned. */
extern uint8_t hw_buffer[];

#endif
