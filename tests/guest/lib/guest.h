/* SPDX-License-Identifier: MIT */
/*
 * The guest test library: a freestanding EL1 runtime for test programs run under perfvisor's
 * hypervisor. Checks are reported on the UART one per line ("ok <name>" / "not ok <name>:
 * why"); exceptions the test expects are counted by the guest's own EL1 vectors and skipped;
 * the program ends with "done: P passed, F failed" and PSCI SYSTEM_OFF.
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each program defines this; it runs at EL1h, MMU off, interrupts masked. */
void test_main(void);

/* ---- output ---- */
void gputc(char c);
void gputs(const char *s);
void gprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Busy-waits n (> 0) rounds of a two-instruction loop. */
static inline void spin(uint64_t n)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n));
}

/* ---- checks ---- */
bool check(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define CHECK(cond, name) check((cond), (name), "%s", #cond)
#define CHECK_EQ(got, want, name)                                                              \
	({                                                                                     \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                          \
		check(g_ == w_, (name), "got 0x%lx, expected 0x%lx", g_, w_);                  \
	})
__attribute__((noreturn)) void done(void);
extern unsigned g_passed, g_failed;

/* ---- exceptions ---- */
struct gframe {
	uint64_t x[31];
	uint64_t elr, spsr;
};
/* Arm: exceptions with this EC (ESR_EL1[31:26]) are counted and the instruction skipped. */
void expect_begin(unsigned ec);
/* Like expect_begin, but a taken exception resumes at the frame's x30 (for faults whose
 * instruction cannot simply be skipped, such as a branch to an unmapped address). */
void expect_begin_ret(unsigned ec);
/* Disarm; returns how many were taken. */
unsigned expect_end(void);
extern uint64_t g_last_esr, g_last_far, g_last_elr;
extern unsigned g_last_vector; /* 4: from EL1h, 8: from EL0, 12: from AArch32 EL0 */
#define EC_UNKNOWN 0x00
#define EC_SYS64 0x18
#define EC_IABT_CUR 0x21
#define EC_DABT_CUR 0x25
#define EC_SVC64 0x15
#define EC_BRK 0x3C
/* Counts UNDEFs (EC 0) taken while running `stmt`. */
#define UNDEFS(stmt)                                                                           \
	({                                                                                     \
		expect_begin(EC_UNKNOWN);                                                      \
		stmt;                                                                          \
		expect_end();                                                                  \
	})

/* ---- interrupts (GICv3: ICC_* system registers, GICD/GICR MMIO) ---- */
typedef void irq_fn(uint32_t intid);
void gic_setup(irq_fn *handler);
void gic_ppi_enable(uint32_t intid, uint8_t prio, bool on);
uint32_t gic_ppi_pending(void);
void irq_unmask(void);
void irq_mask(void);
void gic_set_pmr(uint8_t pmr);
/* Waits in WFI `ms` of virtual time, until the virtual timer (INTID 27) fires: for a program
 * that takes no other interrupt (its first call sets the GIC up with a handler of its own). */
void vtimer_sleep_ms(uint64_t ms);
/* The CRC-32 a live figures record ends with (docs/records.md), of s[0, n). */
uint32_t record_crc32(const char *s, size_t n);

/* ---- PSCI / hypercalls ---- */
uint64_t hvc_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3);
uint64_t smc_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3);
/* A PSCI call through the conduit the device tree's /psci node names (SMC without one). */
uint64_t psci_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3);
__attribute__((noreturn)) void system_off(void);
#define HYP_CALL_NULL 0xC6000000ul

/* ---- EL0 ---- */
uint64_t run_el0(uint64_t (*fn)(uint64_t), uint64_t arg);
/* A32 code (T32 with t32) at AArch32 EL0 until its SVC (vector 12, EC 0x11); its r0.
 * Exceptions it takes otherwise come to guest_exception as vector 12 (sync) or 13 (IRQ). */
uint64_t run_el0_a32(const void *code, uint64_t arg, bool t32);
#define EC_SVC32 0x11

/* ---- device tree handed over in x0 ---- */
extern const void *g_dtb;
/* The devices the tree describes, read before test_main: the UART (compatible "arm,pl011" or
 * "arm,sbsa-uart"), the GICv3 distributor and redistributor ("arm,gic-v3" reg 0 and 1). A
 * device the tree lacks keeps QEMU virt's address, as perfvisor's hypervisor maps it. */
extern uint64_t g_uart_base, g_gicd_base, g_gicr_base;
/* Entry i of the "reg" of the first top-level node compatible with `compatible`. */
bool dt_reg(const char *compatible, unsigned i, uint64_t *base, uint64_t *size);
/* /chosen/bootargs: the words the user passed after "--", or NULL when there are none. */
const char *dt_bootargs(void);
bool dt_memory(uint64_t *base, uint64_t *size);
/* The hypervisor's facts about the VM: /chosen/perfvisor,vm-name (NULL without one) and
 * /chosen/perfvisor,pmu-counters (`def` without one). */
const char *dt_vm_name(void);
/* Any /chosen property, and its length in bytes; NULL without it. */
const void *dt_chosen(const char *prop, uint32_t *len);
uint32_t dt_pmu_counters(uint32_t def);
/* Value of "key=<number>" in the bootargs (decimal, or hexadecimal after 0x), or `def`. */
uint64_t arg_num(const char *key, uint64_t def);

/* ---- misc ---- */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);
#define isb() __asm__ volatile("isb" ::: "memory")
#define rd(reg) rd_(reg)
#define wr(reg, v) wr_(reg, v)
#define rd_(reg)                                                                               \
	({                                                                                     \
		uint64_t v_;                                                                   \
		__asm__ volatile("mrs %0, " #reg : "=r"(v_)::"memory");                        \
		v_;                                                                            \
	})
#define wr_(reg, v) __asm__ volatile("msr " #reg ", %0" ::"r"((uint64_t)(v)) : "memory")

#endif
