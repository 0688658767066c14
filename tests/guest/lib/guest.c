/* SPDX-License-Identifier: MIT */
/* The guest runtime: UART output, checks, exception counting, PSCI, GIC, device tree. */
#include <stdarg.h>

#include "guest.h"

#define UARTFR_TXFF (1u << 5)
#define GICR_SGI (g_gicr_base + 0x10000ul)

/* Until the device tree says otherwise: QEMU virt's devices, as perfvisor's hypervisor gives
 * them to a VM (so that an early message, or a host without a tree, still reaches a UART). */
uint64_t g_uart_base = 0x09000000ul, g_gicd_base = 0x08000000ul, g_gicr_base = 0x080A0000ul;
static bool psci_smc = true; /* the PSCI conduit: /psci "method", SMC until it is read */

unsigned g_passed, g_failed;
uint64_t g_last_esr, g_last_far, g_last_elr;
unsigned g_last_vector;
const void *g_dtb;
static unsigned expect_ec = ~0u, expect_count;
static bool expect_ret;
static irq_fn *irq_handler;

static inline uint32_t mmio_r32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}
static inline void mmio_w32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

/* ---- string helpers ---- */
void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}
void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}
size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}
int strncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i] != b[i])
			return (unsigned char)a[i] - (unsigned char)b[i];
		if (!a[i])
			return 0;
	}
	return 0;
}

/* ---- output ---- */
void gputc(char c)
{
	while (mmio_r32(g_uart_base + 0x18) & UARTFR_TXFF)
		;
	mmio_w32(g_uart_base, (uint8_t)c);
}

void gputs(const char *s)
{
	while (*s)
		gputc(*s++);
}

static void put_num(uint64_t v, unsigned base, bool neg, int width, char pad)
{
	char t[24];
	int i = 0;
	do {
		unsigned d = (unsigned)(v % base);
		t[i++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	if (neg)
		t[i++] = '-';
	for (int w = i; w < width; w++)
		gputc(pad);
	while (i)
		gputc(t[--i]);
}

static void vgprintf(const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			gputc(*fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		int width = 0, lng = 0;
		if (*fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			gputs(s ? s : "(null)");
			break;
		}
		case 'c':
			gputc((char)va_arg(ap, int));
			break;
		case 'd': {
			int64_t v = lng ? va_arg(ap, long) : va_arg(ap, int);
			put_num(v < 0 ? (uint64_t)-v : (uint64_t)v, 10, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			uint64_t v = lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			put_num(v, *fmt == 'u' ? 10 : 16, false, width, pad);
			break;
		}
		default:
			gputc(*fmt);
			break;
		}
	}
}

void gprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vgprintf(fmt, ap);
	va_end(ap);
}

/* ---- checks ---- */
bool check(bool ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		g_passed++;
		gprintf("ok %s\n", name);
		return true;
	}
	g_failed++;
	gprintf("not ok %s: ", name);
	va_list ap;
	va_start(ap, fmt);
	vgprintf(fmt, ap);
	va_end(ap);
	gputc('\n');
	return false;
}

void done(void)
{
	gprintf("done: %u passed, %u failed\n", g_passed, g_failed);
	system_off();
}

/* ---- PSCI ---- */
uint64_t hvc_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fid, x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2, x3 __asm__("x3") = a3;
	__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "memory");
	return x0;
}

uint64_t smc_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fid, x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2, x3 __asm__("x3") = a3;
	__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : "memory");
	return x0;
}

uint64_t psci_call(uint64_t fid, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return psci_smc ? smc_call(fid, a1, a2, a3) : hvc_call(fid, a1, a2, a3);
}

void system_off(void)
{
	psci_call(0x84000008, 0, 0, 0);
	gputs("not ok system_off: PSCI SYSTEM_OFF returned\n");
	for (;;)
		__asm__ volatile("wfi");
}

/* ---- exceptions ---- */
void expect_begin_ret(unsigned ec)
{
	expect_ret = true;
	expect_ec = ec;
	expect_count = 0;
	__asm__ volatile("" ::: "memory");
}

void expect_begin(unsigned ec)
{
	expect_ret = false;
	expect_ec = ec;
	expect_count = 0;
	__asm__ volatile("" ::: "memory");
}

unsigned expect_end(void)
{
	__asm__ volatile("" ::: "memory");
	expect_ec = ~0u;
	return expect_count;
}

void guest_exception(struct gframe *f, unsigned vec);
extern const char run_el0_end[];
void guest_exception(struct gframe *f, unsigned vec)
{
	if (vec == 5 || vec == 9 || vec == 13) { /* IRQ from EL1h, EL0 or AArch32 EL0 */
		uint32_t intid = (uint32_t)rd(S3_0_C12_C12_0) & 0xFFFFFF; /* ICC_IAR1_EL1 */
		if (intid >= 1020)
			return;
		if (irq_handler)
			irq_handler(intid);
		wr(S3_0_C12_C12_1, intid); /* ICC_EOIR1_EL1 */
		isb();
		return;
	}
	uint64_t esr = rd(esr_el1);
	if (vec == 12 && (esr >> 26) == EC_SVC32) { /* run_el0_a32's end, at EL1h */
		f->elr = (uint64_t)run_el0_end;
		f->spsr = 0x3c5;
		return;
	}
	g_last_esr = esr;
	g_last_far = rd(far_el1);
	g_last_elr = f->elr;
	g_last_vector = vec;
	if ((vec == 4 || vec == 8 || vec == 12) && (esr >> 26) == expect_ec) {
		expect_count++;
		/* SVC's preferred return address is already the next instruction. */
		if (expect_ret)
			f->elr = f->x[30];
		else if ((esr >> 26) != EC_SVC64)
			f->elr += 4;
		return;
	}
	g_failed++;
	gprintf("not ok unexpected exception: vector %u ESR %lx ELR %lx FAR %lx\n", vec, esr,
		f->elr, g_last_far);
	done();
}

/* ---- GIC ---- */
void gic_setup(irq_fn *handler)
{
	irq_handler = handler;
	mmio_w32(g_gicd_base, (1u << 4) | (1u << 1)); /* GICD_CTLR: ARE, EnableGrp1 */
	/* GICR_WAKER.ProcessorSleep = 0 */
	mmio_w32(g_gicr_base + 0x14, mmio_r32(g_gicr_base + 0x14) & ~2u);
	while (mmio_r32(g_gicr_base + 0x14) & 4u)
		;
	mmio_w32(GICR_SGI + 0x80, 0xFFFFFFFFu);     /* all SGIs/PPIs Group 1 */
	wr(S3_0_C12_C12_5, rd(S3_0_C12_C12_5) | 1); /* ICC_SRE_EL1.SRE */
	isb();
	wr(S3_0_C4_C6_0, 0xFF); /* ICC_PMR_EL1 */
	wr(S3_0_C12_C12_7, 1);  /* ICC_IGRPEN1_EL1 */
	isb();
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's), what a live figures record ends with
 * (docs/records.md): the forging guests make records that would pass. */
uint32_t record_crc32(const char *s, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint8_t)s[i];
		for (unsigned b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* The virtual timer's interrupt, for vtimer_sleep_ms: its line lowered, the wait ended. */
static volatile unsigned vtimer_fired;

static void vtimer_irq(uint32_t intid)
{
	if (intid == 27) { /* the EL1 virtual timer's PPI (the virt board's) */
		wr(cntv_ctl_el0, 0);
		isb();
		vtimer_fired++;
	}
}

void vtimer_sleep_ms(uint64_t ms)
{
	static bool set_up;
	unsigned before = vtimer_fired;
	if (!set_up) {
		gic_setup(vtimer_irq);
		gic_ppi_enable(27, 0x80, true);
		set_up = true;
	}
	wr(cntv_cval_el0, rd(cntvct_el0) + rd(cntfrq_el0) / 1000 * ms);
	wr(cntv_ctl_el0, 1);
	isb();
	irq_unmask();
	while (vtimer_fired == before)
		__asm__ volatile("wfi" ::: "memory");
	irq_mask();
}

void gic_set_pmr(uint8_t pmr)
{
	wr(S3_0_C4_C6_0, pmr);
	isb();
}

void gic_ppi_enable(uint32_t intid, uint8_t prio, bool on)
{
	*(volatile uint8_t *)(GICR_SGI + 0x400 + intid) = prio;
	mmio_w32(GICR_SGI + (on ? 0x100 : 0x180), 1u << intid);
}

uint32_t gic_ppi_pending(void)
{
	return mmio_r32(GICR_SGI + 0x200);
}

void irq_unmask(void)
{
	__asm__ volatile("msr daifclr, #2\n\tisb" ::: "memory");
}

void irq_mask(void)
{
	__asm__ volatile("msr daifset, #2\n\tisb" ::: "memory");
}

/* ---- device tree ---- */
static uint32_t be(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The structure block as tokens (Devicetree Specification v0.4, 5.4): `next` steps over the
 * token at `p` and its payload. */
#define FDT_BEGIN_NODE 1u
#define FDT_END_NODE 2u
#define FDT_PROP 3u
#define FDT_NOP 4u

static const uint8_t *fdt_next(const uint8_t *p)
{
	uint32_t tok = be(p);
	if (tok == FDT_BEGIN_NODE)
		return p + 4 + ((strlen((const char *)p + 4) + 4) & ~3ul);
	if (tok == FDT_PROP)
		return p + 12 + ((be(p + 4) + 3) & ~3u);
	return p + 4;
}

static bool fdt_ok(const uint8_t *b)
{
	return b && be(b) == 0xD00DFEEDu;
}

/* The property `prop` of the node that starts at `node` (its BEGIN_NODE token): its own
 * properties only, not its children's. */
static const void *node_prop(const uint8_t *node, const char *prop, uint32_t *len)
{
	const uint8_t *b = g_dtb;
	const char *strs = (const char *)b + be(b + 12);
	const uint8_t *end = b + be(b + 8) + be(b + 36);
	for (const uint8_t *p = fdt_next(node); p < end; p = fdt_next(p)) {
		uint32_t tok = be(p);
		if (tok == FDT_PROP) {
			if (!strncmp(strs + be(p + 8), prop, strlen(prop) + 1)) {
				*len = be(p + 4);
				return p + 12;
			}
		} else if (tok != FDT_NOP) {
			return NULL; /* a child or the node's end: properties come first */
		}
	}
	return NULL;
}

/* The first node at depth 1 (a child of the root) that `match` accepts, or NULL. */
static const uint8_t *dt_node(bool (*match)(const uint8_t *node, const void *arg),
			      const void *arg)
{
	const uint8_t *b = g_dtb;
	if (!fdt_ok(b))
		return NULL;
	const uint8_t *p = b + be(b + 8), *end = p + be(b + 36);
	int depth = 0;
	for (; p < end; p = fdt_next(p)) {
		uint32_t tok = be(p);
		if (tok == FDT_BEGIN_NODE) {
			if (++depth == 2 && match(p, arg))
				return p;
		} else if (tok == FDT_END_NODE) {
			depth--;
		} else if (tok != FDT_PROP && tok != FDT_NOP) {
			break;
		}
	}
	return NULL;
}

static bool name_starts(const uint8_t *node, const void *prefix)
{
	return !strncmp((const char *)node + 4, prefix, strlen(prefix));
}

/* "compatible" is a list of NUL-terminated strings: any of them equal to `compat`. */
static bool is_compatible(const uint8_t *node, const void *compat)
{
	uint32_t len;
	const char *c = node_prop(node, "compatible", &len);
	for (uint32_t i = 0; c && i < len; i += (uint32_t)strlen(c + i) + 1)
		if (!strncmp(c + i, compat, strlen(compat) + 1))
			return true;
	return false;
}

/* The property `prop` of the top-level node whose name starts with `node`. */
static const void *dt_prop(const char *node, const char *prop, uint32_t *len)
{
	const uint8_t *n = dt_node(name_starts, node);
	return n ? node_prop(n, prop, len) : NULL;
}

/* A cell count of the root (#address-cells, #size-cells), `def` without it. */
static uint32_t root_cells(const char *prop, uint32_t def)
{
	const uint8_t *b = g_dtb;
	uint32_t len;
	const uint8_t *c = fdt_ok(b) ? node_prop(b + be(b + 8), prop, &len) : NULL;
	return c && len == 4 ? be(c) : def;
}

static uint64_t cells(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++)
		v = v << 32 | be(p + 4 * i);
	return v;
}

/* Entry i of a "reg" property, in the root's address and size cells. */
static bool reg_entry(const uint8_t *node, unsigned i, uint64_t *base, uint64_t *size)
{
	uint32_t ac = root_cells("#address-cells", 2), sc = root_cells("#size-cells", 1), len;
	const uint8_t *r = node ? node_prop(node, "reg", &len) : NULL;
	uint32_t stride = 4 * (ac + sc);
	if (!r || ac > 2 || sc > 2 || (uint64_t)stride * (i + 1) > len)
		return false;
	*base = cells(r + stride * i, ac);
	*size = cells(r + stride * i + 4 * ac, sc);
	return true;
}

bool dt_reg(const char *compatible, unsigned i, uint64_t *base, uint64_t *size)
{
	return reg_entry(dt_node(is_compatible, compatible), i, base, size);
}

/* The machine the tree describes: the UART (a PL011, or the SBSA UART Xen emulates, whose
 * transmit registers are the PL011's), the GICv3 distributor and first redistributor, the
 * PSCI conduit. Whatever the tree lacks keeps its default. */
static void dt_machine(void)
{
	uint64_t base, size;
	if (dt_reg("arm,pl011", 0, &base, &size) || dt_reg("arm,sbsa-uart", 0, &base, &size))
		g_uart_base = base;
	if (dt_reg("arm,gic-v3", 0, &base, &size))
		g_gicd_base = base;
	if (dt_reg("arm,gic-v3", 1, &base, &size))
		g_gicr_base = base;
	uint32_t len;
	const uint8_t *psci = dt_node(name_starts, "psci");
	const char *method = psci ? node_prop(psci, "method", &len) : NULL;
	if (method)
		psci_smc = !strncmp(method, "smc", 4);
}

const char *dt_bootargs(void)
{
	uint32_t len;
	return dt_prop("chosen", "bootargs", &len);
}

const void *dt_chosen(const char *prop, uint32_t *len)
{
	return dt_prop("chosen", prop, len);
}

const char *dt_vm_name(void)
{
	uint32_t len;
	return dt_prop("chosen", "perfvisor,vm-name", &len);
}

uint32_t dt_pmu_counters(uint32_t def)
{
	uint32_t len;
	const uint8_t *c = dt_prop("chosen", "perfvisor,pmu-counters", &len);
	return c && len == 4 ? be(c) : def;
}

bool dt_memory(uint64_t *base, uint64_t *size)
{
	return reg_entry(dt_node(name_starts, "memory"), 0, base, size);
}

uint64_t arg_num(const char *key, uint64_t def)
{
	const char *a = dt_bootargs();
	size_t kl = strlen(key);
	while (a && *a) {
		if (!strncmp(a, key, kl) && a[kl] == '=') {
			uint64_t v = 0;
			const char *p = a + kl + 1;
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
				for (p += 2;; p++) {
					unsigned d = *p >= '0' && *p <= '9'
							     ? (unsigned)(*p - '0')
						     : *p >= 'a' && *p <= 'f'
							     ? (unsigned)(*p - 'a' + 10)
						     : *p >= 'A' && *p <= 'F'
							     ? (unsigned)(*p - 'A' + 10)
							     : 16;
					if (d == 16)
						return v;
					v = v * 16 + d;
				}
			}
			for (; *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (uint64_t)(*p - '0');
			return v;
		}
		while (*a && *a != ' ')
			a++;
		while (*a == ' ')
			a++;
	}
	return def;
}

void guest_start(const void *dtb);
void guest_start(const void *dtb)
{
	g_dtb = dtb;
	dt_machine();
	test_main();
	done();
}
