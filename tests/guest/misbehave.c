/* SPDX-License-Identifier: MIT */
/*
 * A guest that misbehaves, and the architectural answers it must get: accesses outside its
 * RAM (other VMs' and the hypervisor's physical memory included) are synchronous external
 * aborts with the right syndrome; MMIO the syndrome cannot describe is an abort; unknown
 * device registers are RAZ/WI; unknown hypercalls return NOT_SUPPORTED; PSCI answers as a
 * one-CPU PSCI 1.0; the EL1 physical timer is RAZ/WI; WFI waits for its wake-up event, its
 * virtual timer here, with interrupts masked (an interrupt pending wakes it); the guest's own
 * exceptions (SVC, BRK, UDF) stay inside the guest.
 *
 * Host: perfvisor's hypervisor (its memory map, its one-CPU PSCI 1.0, its RAZ/WI devices).
 */
#include "guest.h"

#define PSCI_VERSION 0x84000000ul
#define PSCI_CPU_ON 0xC4000003ul
#define PSCI_AFFINITY_INFO 0xC4000004ul
#define PSCI_MIGRATE_INFO_TYPE 0x84000006ul
#define PSCI_FEATURES 0x8400000Aul
#define PSCI_SYSTEM_OFF 0x84000008ul
#define NOT_SUPPORTED ((uint64_t)-1)

static uint64_t rd64(uint64_t a)
{
	return *(volatile uint64_t *)a;
}
static void wr32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}
static uint32_t rd32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

static void test_memory(void)
{
	uint64_t base = 0, size = 0;
	dt_memory(&base, &size);
	CHECK_EQ(UNDEFS((void)rd64(base + size - 8)), 0, "stage2: last word of RAM readable");
	static const uint64_t outside[] = {0x0, 0x30000000ul, 0x0A000000ul, 0x3FFFF000ul};
	unsigned n = 0;
	expect_begin(EC_DABT_CUR);
	for (unsigned i = 0; i < 4; i++)
		(void)rd64(outside[i]);
	(void)rd64(base + size);  /* just past the VM's RAM */
	(void)rd64(0x4C000000ul); /* another VM's RAM (PA of slot 1) */
	(void)rd64(0x80000000ul); /* above 2 GiB */
	n = expect_end();
	CHECK_EQ(n, 7, "stage2: reads outside RAM are data aborts");
	check((g_last_esr >> 26) == 0x25 && (g_last_esr & 0x3F) == 0x10 &&
		      !(g_last_esr & (1u << 6)),
	      "stage2: abort syndrome: EC 0x25, DFSC sync external, read", "ESR 0x%lx",
	      g_last_esr);
	CHECK_EQ(g_last_far, 0x80000000ul, "stage2: FAR_EL1 holds the address");
	/* The PL011 is 4 KiB: the first word after it is no device (the board's next one is at
	 * 0x09010000), so both a read and a write there abort, while its last word answers. */
	expect_begin(EC_DABT_CUR);
	(void)rd32(0x09000FFCul);
	CHECK_EQ(expect_end(), 0, "uart: its last word (UARTPCellID3) answers");
	expect_begin(EC_DABT_CUR);
	(void)rd32(0x09001000ul);
	wr32(0x09001000ul, 0);
	CHECK_EQ(expect_end(), 2, "uart: the word after its 4 KiB is a data abort");
	expect_begin(EC_DABT_CUR);
	wr32(0x0A000000ul, 1);
	*(volatile uint64_t *)(base + size + 0x1000) = 5;
	n = expect_end();
	CHECK_EQ(n, 2, "stage2: writes outside RAM are data aborts");
	CHECK(g_last_esr & (1u << 6), "stage2: abort syndrome says write (WnR)");

	/* Instruction fetch outside RAM: an instruction abort, resumed at the return address. */
	expect_begin_ret(EC_IABT_CUR);
	__asm__ volatile("mov x0, #0x30000000\n\tadr x30, 1f\n\tbr x0\n1:" ::
				 : "x0", "x30", "memory");
	n = expect_end();
	CHECK_EQ(n, 1, "stage2: fetch outside RAM is an instruction abort");
	CHECK_EQ(g_last_esr >> 26, EC_IABT_CUR, "stage2: instruction abort EC 0x21");
}

static void test_mmio(void)
{
	uint64_t uart = g_uart_base;
	CHECK_EQ(rd32(uart + 0x18) & 0x90, 0x90, "uart: UARTFR says TX and RX FIFOs empty");
	CHECK_EQ(rd32(uart + 0xFE0), 0x11, "uart: UARTPeriphID0 reads 0x11 (PL011)");
	wr32(uart + 0x30, 0x301);
	CHECK_EQ(rd32(uart + 0x30), 0x301, "uart: UARTCR reads back");
	CHECK_EQ(rd32(uart + 0x800), 0, "uart: unknown offset RAZ");
	/* A load pair cannot be described by the syndrome (ISV = 0): abort, not a hang. */
	expect_begin(EC_DABT_CUR);
	__asm__ volatile("ldp x0, x1, [%0]" : : "r"(uart) : "x0", "x1", "memory");
	CHECK_EQ(expect_end(), 1, "mmio: LDP to the UART (no valid syndrome) is an abort");
	/* Post-indexed store: no valid syndrome either. */
	uint64_t p = uart;
	expect_begin(EC_DABT_CUR);
	__asm__ volatile("str wzr, [%0], #4" : "+r"(p) : : "memory");
	CHECK_EQ(expect_end(), 1, "mmio: writeback store to the UART is an abort");
	CHECK_EQ(rd32(g_gicd_base + 0x6320), 0, "gic: IROUTER of an SPI it lacks (100) RAZ");
	wr32(g_gicd_base + 0x6320, 0xFFFFFFFFu);
	CHECK_EQ(rd32(g_gicd_base + 0x6320), 0, "gic: IROUTER of an SPI it lacks (100) WI");
	CHECK_EQ(*(volatile uint8_t *)(g_gicr_base + 0xFFE8), 0x3B,
		 "gic: byte read of GICR_PIDR2");
}

static void test_calls(void)
{
	CHECK_EQ(hvc_call(PSCI_VERSION, 0, 0, 0), 0x10000, "psci: VERSION over HVC is 1.0");
	CHECK_EQ(smc_call(PSCI_VERSION, 0, 0, 0), 0x10000,
		 "psci: VERSION over SMC (trapped) is 1.0");
	CHECK_EQ(hvc_call(PSCI_FEATURES, PSCI_SYSTEM_OFF, 0, 0), 0,
		 "psci: FEATURES(SYSTEM_OFF) = 0");
	CHECK_EQ(hvc_call(PSCI_FEATURES, 0x84000077ul, 0, 0), NOT_SUPPORTED,
		 "psci: FEATURES(unknown) = NOT_SUPPORTED");
	CHECK_EQ(hvc_call(PSCI_CPU_ON, 1, 0x40200000ul, 0), (uint64_t)-2,
		 "psci: CPU_ON of a CPU that does not exist = INVALID_PARAMETERS");
	CHECK_EQ(hvc_call(PSCI_CPU_ON, 0, 0x40200000ul, 0), (uint64_t)-4,
		 "psci: CPU_ON of itself = ALREADY_ON");
	CHECK_EQ(hvc_call(PSCI_AFFINITY_INFO, 0, 0, 0), 0, "psci: AFFINITY_INFO(0) = ON");
	CHECK_EQ(hvc_call(PSCI_MIGRATE_INFO_TYPE, 0, 0, 0), 2, "psci: MIGRATE_INFO_TYPE = 2");
	CHECK_EQ(hvc_call(0x12345678ul, 1, 2, 3), NOT_SUPPORTED,
		 "hvc: unknown function NOT_SUPPORTED");
	CHECK_EQ(smc_call(0x80000000ul, 0, 0, 0), 0x10001,
		 "smc: SMCCC_VERSION = 1.1 (boot.c: over HVC)");
	CHECK_EQ(smc_call(0xC2001234ul, 0, 0, 0), NOT_SUPPORTED,
		 "smc: unknown function NOT_SUPPORTED");
	CHECK_EQ(hvc_call(HYP_CALL_NULL, 0, 0, 0), 0, "hvc: perfvisor null call returns 0");
}

static void test_misc(void)
{
	CHECK_EQ(UNDEFS((void)rd(cntp_ctl_el0); wr(cntp_ctl_el0, 1); wr(cntp_cval_el0, 5)), 0,
		 "timer: EL1 physical timer accesses do not fault");
	CHECK_EQ(rd(cntp_ctl_el0), 0, "timer: EL1 physical timer RAZ/WI");
	/* WFI waits until its timer's interrupt is pending (PSTATE.I masked: not taken), and
	 * returns then, not before (a spurious early return is allowed once: WFI is a hint). */
	gic_setup(NULL);
	gic_ppi_enable(27, 0x80, true);
	uint64_t t0 = rd(cntvct_el0), ms = rd(cntfrq_el0) / 1000;
	wr(cntv_cval_el0, t0 + ms);
	wr(cntv_ctl_el0, 1);
	isb();
	unsigned wfis = 0;
	while (!(rd(cntv_ctl_el0) & 4) && wfis < 1000) {
		__asm__ volatile("wfi");
		wfis++;
	}
	check(wfis <= 2 && rd(cntvct_el0) >= t0 + ms, "wfi: waits for its virtual timer",
	      "%u WFIs, %lu ticks", wfis, rd(cntvct_el0) - t0);
	wr(cntv_ctl_el0, 0);
	isb();
	expect_begin(EC_SVC64);
	__asm__ volatile("svc #7");
	CHECK_EQ(expect_end(), 1, "svc: taken by the guest's own EL1 vectors");
	CHECK_EQ(g_last_esr & 0xFFFF, 7, "svc: immediate in ESR_EL1");
	expect_begin(EC_BRK);
	__asm__ volatile("brk #3");
	CHECK_EQ(expect_end(), 1, "brk: taken by the guest's own EL1 vectors");
	CHECK_EQ(UNDEFS(__asm__ volatile("udf #0")), 1, "udf: UNDEF taken by the guest");
	CHECK_EQ(UNDEFS(__asm__ volatile("msr S3_4_C1_C1_0, xzr")), 1,
		 "el2 register: HCR_EL2 write from EL1 UNDEFINED");
	CHECK_EQ(UNDEFS((void)rd(S3_0_C15_C15_7)), 1, "impdef register: UNDEFINED");
}

void test_main(void)
{
	test_memory();
	test_mmio();
	test_calls();
	test_misc();
}
