/* SPDX-License-Identifier: MIT */
/*
 * A tiny flattened device tree writer (Devicetree Specification v0.4, chapter 5: header,
 * memory reservation block, structure block, strings block; all big-endian), used to give
 * each VM a device tree that describes exactly its machine; and a reader that finds
 * /chosen/bootargs in the tree QEMU hands the hypervisor.
 */
#include "hyp.h"

#define FDT_MAGIC 0xD00DFEEDu
#define FDT_BEGIN_NODE 1u
#define FDT_END_NODE 2u
#define FDT_PROP 3u
#define FDT_NOP 4u
#define FDT_END 9u
#define HDR_SIZE 40u

struct fdt_w {
	uint8_t *buf;
	size_t size;
	uint8_t st[4096]; /* structure block */
	size_t st_len;
	char str[512]; /* strings block */
	size_t str_len;
	bool overflow;
};

static uint32_t be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void st_bytes(struct fdt_w *w, const void *d, size_t n)
{
	if (w->st_len + n + 3 > sizeof(w->st)) {
		w->overflow = true;
		return;
	}
	memcpy(w->st + w->st_len, d, n);
	w->st_len += n;
	while (w->st_len & 3)
		w->st[w->st_len++] = 0;
}

static void st_u32(struct fdt_w *w, uint32_t v)
{
	uint8_t b[4];
	put32(b, v);
	st_bytes(w, b, 4);
}

static uint32_t string_off(struct fdt_w *w, const char *s)
{
	size_t n = strlen(s) + 1;
	for (size_t off = 0; off < w->str_len; off += strlen(w->str + off) + 1)
		if (!memcmp(w->str + off, s, n))
			return (uint32_t)off;
	if (w->str_len + n > sizeof(w->str)) {
		w->overflow = true;
		return 0;
	}
	memcpy(w->str + w->str_len, s, n);
	w->str_len += n;
	return (uint32_t)(w->str_len - n);
}

static void begin(struct fdt_w *w, const char *name)
{
	st_u32(w, FDT_BEGIN_NODE);
	st_bytes(w, name, strlen(name) + 1);
}

static void end(struct fdt_w *w)
{
	st_u32(w, FDT_END_NODE);
}

static void prop(struct fdt_w *w, const char *name, const void *data, size_t len)
{
	st_u32(w, FDT_PROP);
	st_u32(w, (uint32_t)len);
	st_u32(w, string_off(w, name));
	st_bytes(w, data, len);
}

static void prop_str(struct fdt_w *w, const char *name, const char *s)
{
	prop(w, name, s, strlen(s) + 1);
}

/* A property of n 32-bit cells. */
static void prop_cells(struct fdt_w *w, const char *name, const uint32_t *cells, size_t n)
{
	uint32_t be[16];
	for (size_t i = 0; i < n && i < 16; i++)
		be[i] = be32(cells[i]);
	prop(w, name, be, 4 * (n < 16 ? n : 16));
}

static void prop_u32(struct fdt_w *w, const char *name, uint32_t v)
{
	prop_cells(w, name, &v, 1);
}

/* Writes header, empty reservation map, structure and strings into w->buf. */
static size_t finish(struct fdt_w *w)
{
	st_u32(w, FDT_END);
	uint32_t off_rsv = HDR_SIZE, off_st = off_rsv + 16;
	uint32_t off_str = off_st + (uint32_t)w->st_len;
	uint32_t total = off_str + (uint32_t)w->str_len;
	if (w->overflow || total > w->size)
		return 0;
	uint8_t *b = w->buf;
	memset(b, 0, total);
	uint32_t hdr[10] = {FDT_MAGIC,
			    total,
			    off_st,
			    off_str,
			    off_rsv,
			    17,
			    16,
			    0,
			    (uint32_t)w->str_len,
			    (uint32_t)w->st_len};
	for (unsigned i = 0; i < 10; i++)
		put32(b + 4 * i, hdr[i]);
	memcpy(b + off_st, w->st, w->st_len);
	memcpy(b + off_str, w->str, w->str_len);
	return total;
}

static struct fdt_w fdtw; /* one tree is built at a time */

/* The VM's machine: one CPU (PSCI over HVC), its RAM at RAM_BASE, the PL011, the GICv3
 * (distributor and one redistributor), the generic timer, the PMU (PPI 7 = INTID 23) and,
 * when the VM has it, SPE (PPI 5 = INTID 21). */
size_t fdt_build_vm(void *buf, size_t size, const struct vm *vm)
{
	struct fdt_w *w = &fdtw;
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->size = size;
	char tmp[64];

	begin(w, "");
	prop_u32(w, "#address-cells", 2);
	prop_u32(w, "#size-cells", 2);
	prop_str(w, "compatible", "linux,dummy-virt");
	hyp_snprintf(tmp, sizeof(tmp), "perfvisor VM %s", vm->name);
	prop_str(w, "model", tmp);
	prop_u32(w, "interrupt-parent", 1);

	/* bootargs are the user's words after "--" and nothing else (a guest may take each word
	 * as an argument); like QEMU, no property when there are none. The hypervisor's facts
	 * about the VM have properties of their own, with the vendor prefix (DT spec 2.2.4). */
	begin(w, "chosen");
	if (vm->guest_args && *vm->guest_args)
		prop_str(w, "bootargs", vm->guest_args);
	prop_str(w, "perfvisor,vm-name", vm->name);
	prop_u32(w, "perfvisor,pmu-counters", (uint32_t)vm->pv.pmu.nr_counters);
	prop_str(w, "stdout-path", "/pl011@9000000");
	if (vm->initrd_end) { /* Linux: Documentation/devicetree/bindings/chosen.txt */
		uint32_t start[2] = {(uint32_t)(vm->initrd_start >> 32),
				     (uint32_t)vm->initrd_start};
		uint32_t stop[2] = {(uint32_t)(vm->initrd_end >> 32), (uint32_t)vm->initrd_end};
		prop_cells(w, "linux,initrd-start", start, 2);
		prop_cells(w, "linux,initrd-end", stop, 2);
	}
	end(w);

	hyp_snprintf(tmp, sizeof(tmp), "memory@%lx", RAM_BASE);
	begin(w, tmp);
	prop_str(w, "device_type", "memory");
	uint32_t reg[4] = {0, (uint32_t)RAM_BASE, (uint32_t)(vm->ram_size >> 32),
			   (uint32_t)vm->ram_size};
	prop_cells(w, "reg", reg, 4);
	end(w);

	begin(w, "cpus");
	prop_u32(w, "#address-cells", 1);
	prop_u32(w, "#size-cells", 0);
	begin(w, "cpu@0");
	prop_str(w, "device_type", "cpu");
	prop_str(w, "compatible", "arm,armv8");
	prop_u32(w, "reg", 0);
	prop_str(w, "enable-method", "psci");
	end(w);
	end(w);

	begin(w, "psci");
	static const char psci_compat[] = "arm,psci-1.0\0arm,psci-0.2";
	prop(w, "compatible", psci_compat, sizeof(psci_compat));
	prop_str(w, "method", "hvc");
	end(w);

	begin(w, "apb-pclk");
	prop_str(w, "compatible", "fixed-clock");
	prop_u32(w, "#clock-cells", 0);
	prop_u32(w, "clock-frequency", 24000000);
	prop_str(w, "clock-output-names", "clk24mhz");
	prop_u32(w, "phandle", 2);
	end(w);

	begin(w, "pl011@9000000");
	static const char uart_compat[] = "arm,pl011\0arm,primecell";
	prop(w, "compatible", uart_compat, sizeof(uart_compat));
	uint32_t ureg[4] = {0, (uint32_t)UART_BASE, 0, 0x1000};
	prop_cells(w, "reg", ureg, 4);
	uint32_t clocks[2] = {2, 2};
	prop_cells(w, "clocks", clocks, 2);
	static const char clk_names[] = "uartclk\0apb_pclk";
	prop(w, "clock-names", clk_names, sizeof(clk_names));
	uint32_t uirq[3] = {0, INTID_UART - 32, 4}; /* GIC_SPI 1, level high */
	prop_cells(w, "interrupts", uirq, 3);
	end(w);

	if (hyp.selfcount_page) {
		begin(w, "selfcount@a000000");
		prop_str(w, "compatible", "perfvisor,selfcount");
		uint32_t sreg[4] = {0, (uint32_t)SELFCOUNT_IPA, 0, 0x1000};
		prop_cells(w, "reg", sreg, 4);
		end(w);
	}

	begin(w, "intc@8000000");
	prop_str(w, "compatible", "arm,gic-v3");
	prop_u32(w, "#interrupt-cells", 3);
	prop(w, "interrupt-controller", NULL, 0);
	prop_u32(w, "#redistributor-regions", 1);
	uint32_t greg[8] = {0, (uint32_t)GICD_BASE, 0, 0x10000,
			    0, (uint32_t)GICR_BASE, 0, 0x20000};
	prop_cells(w, "reg", greg, 8);
	prop_u32(w, "phandle", 1);
	end(w);

	begin(w, "timer");
	prop_str(w, "compatible", "arm,armv8-timer");
	/* PPI 13 (secure phys), 14 (phys), 11 (virt), 10 (hyp); level-high (4) */
	uint32_t tirq[12] = {1, 13, 4, 1, 14, 4, 1, 11, 4, 1, 10, 4};
	prop_cells(w, "interrupts", tirq, 12);
	prop(w, "always-on", NULL, 0);
	end(w);

	begin(w, "pmu");
	prop_str(w, "compatible", "arm,armv8-pmuv3");
	uint32_t pirq[3] = {1, PV_INTID_PMU - 16, 4};
	prop_cells(w, "interrupts", pirq, 3);
	end(w);

	/* SPE (docs/spe.md): its buffer interrupt is PPI 5 (INTID 21), level high, as the
	 * binding of Linux's arm_spe_pmu driver (arm,statistical-profiling-extension-v1) says. */
	if (vm->pv.spe.version) {
		begin(w, "spe-pmu");
		prop_str(w, "compatible", "arm,statistical-profiling-extension-v1");
		uint32_t sirq[3] = {1, PV_INTID_SPE - 16, 4};
		prop_cells(w, "interrupts", sirq, 3);
		end(w);
	}

	end(w);
	return finish(w);
}

/* Property `prop` of the top-level node `node` (or `node@...`) of a flattened device tree,
 * and its length in *len; NULL if there is none or the tree is not one. Names are compared
 * whole, with their NUL, and no more of a strings block that may end unterminated is read
 * than the name asked for. */
static const uint8_t *fdt_find(const void *fdt, const char *node, const char *prop,
			       uint32_t *len)
{
	const uint8_t *b = fdt;
	if (get32(b) != FDT_MAGIC)
		return NULL;
	uint32_t total = get32(b + 4), off_st = get32(b + 8), off_str = get32(b + 12);
	uint32_t st_size = get32(b + 36);
	if (off_st >= total || off_str >= total || st_size > total - off_st)
		return NULL;
	size_t node_len = strlen(node), prop_len = strlen(prop);
	const uint8_t *p = b + off_st, *e = p + st_size;
	int depth = 0;
	bool in_node = false;
	while (p + 4 <= e) {
		uint32_t tok = get32(p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)p;
			size_t n = strlen(name);
			depth++;
			if (depth == 2 && n >= node_len && !strncmp(name, node, node_len) &&
			    (name[node_len] == '\0' || name[node_len] == '@'))
				in_node = true;
			p += (n + 4) & ~3ul;
		} else if (tok == FDT_END_NODE) {
			if (depth == 2 && in_node)
				return NULL; /* the node, without the property */
			depth--;
		} else if (tok == FDT_PROP) {
			if (e - p < 8)
				break; /* no room for its length and name: no tree */
			uint32_t plen = get32(p), nameoff = get32(p + 4);
			if (plen > (uint64_t)(e - p - 8))
				break; /* a value past the block's end: no tree */
			const uint8_t *data = p + 8;
			/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
			if (in_node && (uint64_t)off_str + nameoff < total &&
			    !strncmp((const char *)b + off_str + nameoff, prop, prop_len + 1)) {
				*len = plen;
				return data;
			}
			p += 8 + ((plen + 3) & ~3u);
		} else if (tok != FDT_NOP) {
			break; /* FDT_END, or a token no tree may hold */
		}
	}
	return NULL;
}

/* /chosen/bootargs of a flattened tree, or NULL. Bounds-checked against totalsize. */
const char *fdt_bootargs(const void *fdt)
{
	uint32_t len;
	return (const char *)fdt_find(fdt, "chosen", "bootargs", &len);
}

/* The end of the RAM QEMU's tree describes from RAM_BASE (its /memory node's reg: #address-
 * and #size-cells are 2 on the virt board), or RAM_BASE + 1 GiB if it says nothing usable (no
 * such node, or one elsewhere). Less than 1 GiB is taken as it is (QEMU_MEM=512M: 6 slots):
 * the slots past it have no memory behind them, and reading one is an external abort. */
uint64_t fdt_ram_end(const void *fdt)
{
	uint32_t len = 0;
	const uint8_t *reg = fdt_find(fdt, "memory", "reg", &len);
	if (!reg || len < 16)
		return RAM_BASE + (1ul << 30);
	uint64_t base = (uint64_t)get32(reg) << 32 | get32(reg + 4);
	uint64_t size = (uint64_t)get32(reg + 8) << 32 | get32(reg + 12);
	if (base != RAM_BASE || size > UINT64_MAX - base)
		return RAM_BASE + (1ul << 30);
	return base + size;
}
