/* SPDX-License-Identifier: MIT */
/* The model tests' library (hw.h): console, checks, PSCI, GICv3, exceptions. */
#include "hw.h"

#include <stdarg.h>

/* QEMU virt's devices (its device tree says the same; these tests read none). */
#define UART_BASE 0x09000000UL
#define GICD_BASE 0x08000000UL
#define GICR_BASE 0x080a0000UL
#define GICR_STRIDE 0x20000UL
#define GICR_SGI 0x10000UL

/* PSCI 1.0 (DEN 0022) over SMC: virt's conduit when EL2 is the highest EL. */
#define PSCI_CPU_ON 0xc4000003UL
#define PSCI_SYSTEM_OFF 0x84000008UL

static void mmio_w32(uintptr_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

static uint32_t mmio_r32(uintptr_t a)
{
	return *(volatile uint32_t *)a;
}

static void putc_raw(char c)
{
	while (mmio_r32(UART_BASE + 0x18) & (1u << 5)) /* UARTFR.TXFF */
		;
	mmio_w32(UART_BASE, (uint8_t)c);
}

static void puts_raw(const char *s)
{
	while (*s)
		putc_raw(*s++);
}

static void put_u64(unsigned long long v, unsigned base, bool alt)
{
	char buf[24];
	int i = 0;

	if (alt && base == 16)
		puts_raw("0x");
	do {
		unsigned d = (unsigned)(v % base);
		buf[i++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	while (i)
		putc_raw(buf[--i]);
}

static void vprint(const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		bool alt = false;
		int longs = 0;

		if (*fmt != '%') {
			putc_raw(*fmt);
			continue;
		}
		fmt++;
		if (*fmt == '#') {
			alt = true;
			fmt++;
		}
		while (*fmt == 'l' || *fmt == 'z') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			puts_raw(va_arg(ap, const char *));
			break;
		case 'c':
			putc_raw((char)va_arg(ap, int));
			break;
		case 'd': {
			long long v = longs ? va_arg(ap, long long) : va_arg(ap, int);
			if (v < 0) {
				putc_raw('-');
				v = -v;
			}
			put_u64((unsigned long long)v, 10, false);
			break;
		}
		case 'u':
		case 'x':
			put_u64(longs ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned),
				*fmt == 'x' ? 16 : 10, alt);
			break;
		case '%':
			putc_raw('%');
			break;
		default:
			putc_raw('?');
			break;
		}
	}
}

void hw_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(fmt, ap);
	va_end(ap);
}

static unsigned passed, failed;

bool hw_check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		hw_printf("ok %s\n", name);
		return true;
	}
	failed++;
	hw_printf("not ok %s: ", name);
	va_start(ap, fmt);
	vprint(fmt, ap);
	va_end(ap);
	putc_raw('\n');
	return false;
}

static int64_t smc(uint64_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "memory");
	return (int64_t)x0;
}

_Noreturn void hw_done(void)
{
	hw_printf("done: %u passed, %u failed\n", passed, failed);
	smc(PSCI_SYSTEM_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

unsigned hw_cpu(void)
{
	return (unsigned)(READ_SYSREG(mpidr_el1) & 0xff);
}

extern char hw_stack1_top[];
extern void hw_secondary_entry(void);
static void (*volatile secondary_fn)(void);

int64_t hw_cpu_on(unsigned cpu, void (*fn)(void))
{
	if (cpu != 1)
		return -2; /* INVALID_PARAMETERS: one other CPU has a stack */
	secondary_fn = fn;
	__asm__ volatile("dsb sy" : : : "memory");
	return smc(PSCI_CPU_ON, cpu, (uint64_t)(uintptr_t)hw_secondary_entry,
		   (uint64_t)(uintptr_t)hw_stack1_top);
}

void hw_secondary_start(void);
void hw_secondary_start(void)
{
	secondary_fn();
	for (;;)
		__asm__ volatile("wfi");
}

void hw_start(void);
void hw_start(void)
{
	main();
	hw_done();
}

/* ---- GICv3 ------------------------------------------------------------------------- */

static hw_irq_fn *irq_fn;

void hw_gic_init(void)
{
	uintptr_t rd = GICR_BASE + hw_cpu() * GICR_STRIDE;

	/* Distributor: affinity routing, both groups (one Security state: GICD_CTLR.DS = 1). */
	mmio_w32(GICD_BASE, (1u << 4) | (1u << 1) | 1u);
	/* Redistributor awake. */
	mmio_w32(rd + 0x14, mmio_r32(rd + 0x14) & ~(1u << 1));
	while (mmio_r32(rd + 0x14) & (1u << 2))
		;
	/* CPU interface: system registers at EL2, every priority, group 1 on. */
	WRITE_SYSREG(S3_4_C12_C9_5, 0xf); /* ICC_SRE_EL2: SRE, DFB, DIB, Enable */
	ISB();
	WRITE_SYSREG(S3_0_C4_C6_0, 0xff); /* ICC_PMR_EL1 */
	WRITE_SYSREG(S3_0_C12_C12_3, 0);  /* ICC_BPR1_EL1 */
	WRITE_SYSREG(S3_0_C12_C12_7, 1);  /* ICC_IGRPEN1_EL1 */
	ISB();
	/* Physical IRQs to EL2 (HCR_EL2.IMO), wherever the CPU runs. */
	WRITE_SYSREG(hcr_el2, READ_SYSREG(hcr_el2) | (1UL << 4));
	ISB();
}

void hw_irq_enable(unsigned intid)
{
	uintptr_t sgi = GICR_BASE + hw_cpu() * GICR_STRIDE + GICR_SGI;

	mmio_w32(sgi + 0x80, mmio_r32(sgi + 0x80) | (1u << intid)); /* GICR_IGROUPR0: group 1 */
	*(volatile uint8_t *)(sgi + 0x400 + intid) = 0x80;          /* GICR_IPRIORITYR */
	mmio_w32(sgi + 0x100, 1u << intid);                         /* GICR_ISENABLER0 */
	__asm__ volatile("dsb sy" : : : "memory");
}

void hw_irq_handler(hw_irq_fn *fn)
{
	irq_fn = fn;
}

unsigned hw_irq_pending(void)
{
	ISB();
	return (unsigned)(READ_SYSREG(S3_0_C12_C12_2) & 0xffffff); /* ICC_HPPIR1_EL1 */
}

/* ---- Exceptions ---------------------------------------------------------------------- */

volatile unsigned hw_lower_faults;
volatile uint64_t hw_lower_esr;
volatile bool hw_el2_skip_faults;
volatile unsigned hw_el2_faults;
volatile uint64_t hw_el2_esr;
volatile bool hw_el2_take_lower_traps;
volatile unsigned hw_el2_lower_traps;
volatile uint64_t hw_el2_lower_esr;

/* KIND: the vector's index (0..3 current EL with SP0, 4..7 with SPx, 8..15 lower ELs). */
void hw_el2_exception(struct hw_frame *f, unsigned kind);
void hw_el2_exception(struct hw_frame *f, unsigned kind)
{
	if (kind == 5 || kind == 9) {                       /* IRQ */
		uint64_t iar = READ_SYSREG(S3_0_C12_C12_0); /* ICC_IAR1_EL1 */

		if ((iar & 0xffffff) < 1020 && irq_fn)
			irq_fn((unsigned)(iar & 0xffffff), f);
		WRITE_SYSREG(S3_0_C12_C12_1, iar); /* ICC_EOIR1_EL1 */
		return;
	}
	if (kind == 8 && hw_el2_take_lower_traps) { /* synchronous, from EL1 or EL0 */
		hw_el2_lower_traps++;
		hw_el2_lower_esr = READ_SYSREG(esr_el2);
		f->elr += 4;
		return;
	}
	if (kind == 4 && hw_el2_skip_faults) {
		hw_el2_faults++;
		hw_el2_esr = READ_SYSREG(esr_el2);
		f->elr += 4;
		return;
	}
	hw_printf("not ok unexpected_exception: EL2 vector %u, ESR_EL2 %#llx, ELR_EL2 %#llx, "
		  "FAR_EL2 %#llx\n",
		  kind, (unsigned long long)READ_SYSREG(esr_el2), (unsigned long long)f->elr,
		  (unsigned long long)READ_SYSREG(far_el2));
	hw_done();
}

void hw_el1_exception(struct hw_frame *f, unsigned kind);
void hw_el1_exception(struct hw_frame *f, unsigned kind)
{
	if (kind == 4 || kind == 8) { /* synchronous, from EL1 or EL0 */
		hw_lower_faults++;
		hw_lower_esr = READ_SYSREG(esr_el1);
		f->elr += 4;
		return;
	}
	hw_printf("not ok unexpected_exception: EL1 vector %u, ESR_EL1 %#llx, ELR_EL1 %#llx\n",
		  kind, (unsigned long long)READ_SYSREG(esr_el1), (unsigned long long)f->elr);
	hw_done();
}
