/* SPDX-License-Identifier: MIT */
/*
 * Boot: EL2 MMU, the GIC, the library (probe with one host counter, pCPU setup), the
 * hypervisor's own EL2 controls, then one VM per non-empty image slot, then the scheduler.
 *
 * Configuration comes from QEMU's -append (the /chosen/bootargs of the device tree QEMU puts
 * at the start of RAM for an ELF kernel):
 *   slice_us=N        scheduler slice in microseconds of virtual time (default 1000)
 *   vm<k>=NAME        name of the VM in slot k (default "vm<k>")
 *   counters=N        PMU counters each VM sees (default: all guest counters, HPMN)
 *   host_counters=N   counters kept by the hypervisor (default 1: self-measurement; 0 with
 *                     pmu_passthrough=on or pmu_direct=on where the PMU leaves counters past
 *                     HPMN in EL1's reach, as QEMU 7.2's does: probe.c)
 *   pmu_poll_us=N     the overflow poll's shortest wait (timer.c; default 10 where the PMU
 *                     flags an overflow late, as QEMU's does, else 0: off; probe.c)
 *   vm<k>_mem=N       MiB of RAM for the VM in slot k (default 64; a multiple of 64: the VM
 *                     then spans that many slots, which hold no other VM)
 *   vm<k>_pmu_filter=R,...  the event filter of the VM in slot k, KVM's semantics: each R is
 *                     allow:BASE:COUNT or deny:BASE:COUNT, applied in order (the first one's
 *                     action decides what the ranges do not name: its opposite)
 *   vm<k>_initrd=O,S  the VM's initrd (initramfs) is at RAM offset O (IPA 0x40000000 + O), S
 *                     bytes long; its device tree says so (linux,initrd-start/-end)
 *   limit_ms=N        end every VM after N ms of virtual time, with the report (default: none)
 *   records_ms=N      a live figures record per VM every N ms of virtual time (records.c;
 *                     default 0: none) and a last one at the end
 *   focus=K           console input goes to the VM in slot K (default: none; Ctrl-A K at the
 *                     terminal switches it, uart.c)
 *   fasttrap=on|off   serve the counter reads the library marks plain at the exception entry,
 *                     before the register save (vectors.S; default on), or send every trap
 *                     to C
 *   pmu_passthrough=on|off  each VM owns the guests' part of the PMU while it runs, and no
 *                     PMU access traps (docs/vpmu.md, "Passthrough"; default off)
 *   pmu_direct=on|off each VM's PMU is the hardware's while it runs but for its event
 *                     types, PMCEID and PMMIR, which trap by their fine-grained bits (its
 *                     event filter holds), and its overflow interrupt is presented mapped
 *                     (docs/vpmu.md, "Direct access"; FEAT_FGT; default off);
 *                     pmu_passthrough takes precedence
 *   selfcount_page=on|off  a page in every VM whose register reads the EL2 instructions
 *                     spent on it (selfcount.c; default off)
 *   spe=on|off        every VM gets the Statistical Profiling Extension where the CPU has
 *                     it and EL3 lets EL2 own it (docs/spe.md; default off: hidden)
 *   vm<k>_spe=on|off  the same for the VM in slot k alone (it overrides spe=)
 *   spe_max_kib=N     the largest profiling buffer a vCPU may have pinned, KiB (a multiple
 *                     of 4, at most 65536, the default)
 *   amu=on|off        every VM gets the Activity Monitors where the CPU has them: its
 *                     version, all of its auxiliary counters (docs/amu.md; default on)
 *   vm<k>_amu=on|off  the same for the VM in slot k alone (it overrides amu=)
 *   end_hold=KIND     a test of the check after each VM's end alone: KIND (pins, loaded, pmu,
 *                     lr, timer, spe) is held again before it, which must name it (sched.c)
 *   -- ARGS           everything after "--" is every VM's /chosen/bootargs, word for word
 */
#include "hyp.h"
#include "perfvisor/platform.h"

/* HCR_EL2 (Arm ARM D24.2): VM (stage 2), SWIO, FMO/IMO/AMO (interrupts and SErrors to EL2),
 * TWI (WFI yields), TSC (guest SMCs trap), RW (EL1 is AArch64). */
#define HCR_HYP                                                                                \
	((1ul << 0) | (1ul << 1) | (1ul << 3) | (1ul << 4) | (1ul << 5) | (1ul << 13) |        \
	 (1ul << 19) | (1ul << 31))
/* CPTR_EL2 (E2H = 0): RES1 bits, with TZ (SVE) and TSM (SME) set, so those trap; FP free. */
#define CPTR_HYP 0x33FFul
/* VTCR_EL2: T0SZ = 32, SL0 = 1 (level 1), IRGN0/ORGN0 WB-WA, SH0 inner, TG0 4K, PS 40 bits,
 * RES1 bit 31. */
#define VTCR_HYP                                                                               \
	(32ul | (1ul << 6) | (1ul << 8) | (1ul << 10) | (3ul << 12) | (2ul << 16) | (1ul << 31))

static struct {
	uint64_t slice_us, pmu_poll_us, limit_ms, records_ms;
	unsigned counters, host_counters;
	bool host_counters_given, pmu_poll_given;
	unsigned focus; /* the VM slot console input goes to, or MAX_VMS: none */
	bool fasttrap, pmu_passthrough, pmu_direct;
	char names[MAX_VMS][24];
	uint64_t mem_mib[MAX_VMS];
	uint64_t initrd_off[MAX_VMS], initrd_size[MAX_VMS];
	char pmu_filter[MAX_VMS][128];
	bool spe, amu;
	uint8_t vm_spe[MAX_VMS]; /* 0: as spe=, 1: off, 2: on */
	uint8_t vm_amu[MAX_VMS]; /* 0: as amu=, 1: off, 2: on */
	uint64_t spe_max_kib;
	char guest_args[GUEST_ARGS_MAX];
} cfg = {.slice_us = 1000,
	 .spe_max_kib = SPE_MAX_BUFFER >> 10,
	 .pmu_poll_us = 10,
	 .counters = 0,
	 .host_counters = 1,
	 .focus = MAX_VMS,
	 .amu = true,
	 .fasttrap = true};

/* A decimal or 0x-prefixed hexadecimal number at the start of s[0, n); *used = its length. */
static uint64_t parse_num_len(const char *s, size_t n, size_t *used)
{
	uint64_t v = 0;
	size_t i = 0;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++) {
			char c = s[i];
			unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
				     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
				     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
							    : 16;
			if (d == 16)
				break;
			v = v * 16 + d;
		}
	} else {
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (used)
		*used = i;
	return v;
}

/* KEY=on or KEY=off into *flag; anything else leaves it, with a message. */
static void parse_on_off(const char *key, const char *val, size_t vl, bool *flag)
{
	if ((vl == 2 && !strncmp(val, "on", 2)) || (vl == 3 && !strncmp(val, "off", 3)))
		*flag = vl == 2;
	else
		hyp_printf("hyp: %s takes on or off; it stays %s\n", key, *flag ? "on" : "off");
}

static uint64_t parse_num(const char *s, size_t n)
{
	return parse_num_len(s, n, NULL);
}

/* vm<k>_spe= or vm<k>_amu= (`what`: spe, amu): on or off for slot k's VM alone into *own (2,
 * 1); anything else leaves *own as it was, 0 unless given before (the VM then has what spe=
 * or amu= says, whatever their place among the arguments), with a message. */
static void parse_vm_on_off(const char *what, uint64_t k, const char *val, size_t vl,
			    uint8_t *own)
{
	if (vl == 2 && !strncmp(val, "on", 2))
		*own = 2;
	else if (vl == 3 && !strncmp(val, "off", 3))
		*own = 1;
	else
		hyp_printf("hyp: vm%lu_%s takes on or off; ignored\n", k, what);
}

/* end_hold=KIND: the test of the check after each VM's end (sched.c, end_hold). */
static void parse_end_hold(const char *val, size_t vl)
{
	for (unsigned h = END_HOLD_PINS; h < END_HOLD_KINDS; h++)
		if (strlen(end_hold_names[h]) == vl && !strncmp(val, end_hold_names[h], vl)) {
			end_hold_kind = (uint8_t)h;
			return;
		}
	hyp_puts("hyp: end_hold takes pins, loaded, pmu, lr, timer or spe; ignored\n");
}

/* A KEY=VALUE word the hypervisor does not know: said, not silently dropped. */
static void unknown_arg(const char *a, size_t kl)
{
	char key[32];
	bool cut = kl >= sizeof(key);
	size_t m = cut ? sizeof(key) - 1 : kl;
	memcpy(key, a, m);
	key[m] = '\0';
	hyp_printf("hyp: unknown argument %s%s: ignored\n", key, cut ? "..." : "");
}

/* A VM's own argument, vm<k>[_SUFFIX]=VAL with k < MAX_VMS in decimal, one or two digits
 * without a leading zero (KEY a[0, kl)): into slot k's configuration; false if KEY is not one.
 * A longer number is no slot's, whatever it comes to modulo 2^64. */
static bool parse_vm_arg(const char *a, size_t kl, const char *val, size_t vl)
{
	size_t used = 0;
	if (kl < 3 || a[0] != 'v' || a[1] != 'm' || a[2] < '0' || a[2] > '9')
		return false;
	uint64_t k = parse_num_len(a + 2, kl - 2, &used);
	const char *suffix = a + 2 + used;
	size_t sl = kl - 2 - used;
	if (used > 2 || k >= MAX_VMS || (used > 1 && a[2] == '0'))
		return false;
	if (!sl) {
		size_t m = vl < sizeof(cfg.names[k]) - 1 ? vl : sizeof(cfg.names[k]) - 1;
		memcpy(cfg.names[k], val, m);
		cfg.names[k][m] = '\0';
	} else if (sl == 4 && !strncmp(suffix, "_spe", 4)) {
		parse_vm_on_off("spe", k, val, vl, &cfg.vm_spe[k]);
	} else if (sl == 4 && !strncmp(suffix, "_amu", 4)) {
		parse_vm_on_off("amu", k, val, vl, &cfg.vm_amu[k]);
	} else if (sl == 4 && !strncmp(suffix, "_mem", 4)) {
		cfg.mem_mib[k] = parse_num(val, vl);
	} else if (sl == 7 && !strncmp(suffix, "_initrd", 7)) {
		size_t off_len = 0;
		cfg.initrd_off[k] = parse_num_len(val, vl, &off_len);
		cfg.initrd_size[k] = off_len < vl && val[off_len] == ','
					     ? parse_num(val + off_len + 1, vl - off_len - 1)
					     : 0;
	} else if (sl == 11 && !strncmp(suffix, "_pmu_filter", 11)) {
		size_t m = vl < sizeof(cfg.pmu_filter[k]) - 1 ? vl
							      : sizeof(cfg.pmu_filter[k]) - 1;
		memcpy(cfg.pmu_filter[k], val, m);
		cfg.pmu_filter[k][m] = '\0';
	} else {
		return false;
	}
	return true;
}

static void parse_bootargs(const char *a)
{
	while (a && *a) {
		while (*a == ' ')
			a++;
		size_t n = 0;
		while (a[n] && a[n] != ' ')
			n++;
		if (n == 2 && a[0] == '-' && a[1] == '-') { /* the rest is for the guests */
			a += 2;
			while (*a == ' ')
				a++;
			size_t m = strlen(a);
			if (m >= sizeof(cfg.guest_args)) {
				hyp_printf("hyp: guest arguments longer than %lu bytes: cut\n",
					   (unsigned long)sizeof(cfg.guest_args) - 1);
				m = sizeof(cfg.guest_args) - 1;
			}
			memcpy(cfg.guest_args, a, m);
			cfg.guest_args[m] = '\0';
			return;
		}
		const char *eq = a;
		while (eq < a + n && *eq != '=')
			eq++;
		if (eq < a + n) {
			size_t kl = (size_t)(eq - a), vl = n - kl - 1;
			const char *val = eq + 1;
			if (kl == 8 && !strncmp(a, "slice_us", 8))
				cfg.slice_us = parse_num(val, vl);
			else if (kl == 11 && !strncmp(a, "pmu_poll_us", 11)) {
				cfg.pmu_poll_us = parse_num(val, vl);
				cfg.pmu_poll_given = true;
			} else if (kl == 10 && !strncmp(a, "pmu_direct", 10))
				parse_on_off("pmu_direct", val, vl, &cfg.pmu_direct);
			else if (kl == 8 && !strncmp(a, "counters", 8))
				cfg.counters = (unsigned)parse_num(val, vl);
			else if (kl == 13 && !strncmp(a, "host_counters", 13)) {
				cfg.host_counters = (unsigned)parse_num(val, vl);
				cfg.host_counters_given = true;
			} else if (kl == 8 && !strncmp(a, "limit_ms", 8))
				cfg.limit_ms = parse_num(val, vl);
			else if (kl == 10 && !strncmp(a, "records_ms", 10))
				cfg.records_ms = parse_num(val, vl);
			else if (kl == 5 && !strncmp(a, "focus", 5))
				cfg.focus = (unsigned)parse_num(val, vl);
			else if (kl == 8 && !strncmp(a, "fasttrap", 8))
				parse_on_off("fasttrap", val, vl, &cfg.fasttrap);
			else if (kl == 14 && !strncmp(a, "selfcount_page", 14))
				parse_on_off("selfcount_page", val, vl, &hyp.selfcount_page);
			else if (kl == 15 && !strncmp(a, "pmu_passthrough", 15))
				parse_on_off("pmu_passthrough", val, vl, &cfg.pmu_passthrough);
			else if (kl == 3 && !strncmp(a, "spe", 3))
				parse_on_off("spe", val, vl, &cfg.spe);
			else if (kl == 11 && !strncmp(a, "spe_max_kib", 11))
				cfg.spe_max_kib = parse_num(val, vl);
			else if (kl == 3 && !strncmp(a, "amu", 3))
				parse_on_off("amu", val, vl, &cfg.amu);
			else if (kl == 8 && !strncmp(a, "end_hold", 8))
				parse_end_hold(val, vl);
			else if (!parse_vm_arg(a, kl, val, vl))
				unknown_arg(a, kl);
		}
		a += n;
	}
}

/* vm<k>_pmu_filter's ranges into the VM's PMU configuration; false, with the reason
 * printed, on anything but allow|deny:BASE:COUNT entries (pv_vm_init checks the ranges). */
static bool parse_pmu_filter(const char *vm, unsigned k, const char *s,
			     struct pv_pmu_config *pc)
{
	while (*s) {
		struct pv_pmu_filter *f = &pc->filters[pc->nr_filters];
		size_t n = 0, used = 0;
		while (s[n] && s[n] != ',')
			n++;
		const char *e = s;
		if (n > 6 && !strncmp(e, "allow:", 6)) {
			f->action = PV_PMU_FILTER_ALLOW;
			e += 6;
		} else if (n > 5 && !strncmp(e, "deny:", 5)) {
			f->action = PV_PMU_FILTER_DENY;
			e += 5;
		} else {
			e = NULL;
		}
		size_t left = e ? n - (size_t)(e - s) : 0;
		uint64_t base = e ? parse_num_len(e, left, &used) : 0;
		uint64_t count = 0;
		bool ok = e && pc->nr_filters < PV_PMU_MAX_FILTERS && used && used + 1 < left &&
			  e[used] == ':' && base <= 0xFFFF;
		if (ok) {
			size_t cused = 0;
			count = parse_num_len(e + used + 1, left - used - 1, &cused);
			ok = cused == left - used - 1 && count > 0 && count <= 0xFFFF;
		}
		if (!ok) {
			hyp_printf(
				"hyp: vm %s: vm%u_pmu_filter entry %u is not "
				"allow|deny:BASE:COUNT "
				"(BASE, COUNT < 0x10000, COUNT > 0, at most %u entries): not "
				"started\n",
				vm, k, (unsigned)pc->nr_filters, (unsigned)PV_PMU_MAX_FILTERS);
			return false;
		}
		f->base_event = (uint16_t)base;
		f->nevents = (uint16_t)count;
		pc->nr_filters++;
		s += n + (s[n] == ',');
	}
	return true;
}

/* Direct access: the hypervisor applies the trap words' fine-grained traps at each load
 * (sched.c), where the CPU has them and takes every one the words set (probe.c): an event
 * type one misses would reach the hardware as the guest wrote it, not sanitised (EL2
 * counted, a denied event counted), and a PMCEID read would show what the filter hides. */
static bool direct_hw(void)
{
	return plat_feat.fgt && !hyp.probe.fgt_untrapped;
}

/* A VM that owns PMU registers untrapped (passthrough: the guests' part; direct: its
 * counters) reaches the counters past MDCR_EL2.HPMN too where the PMU does not hide them
 * (probe.c), as QEMU 7.2's and 10.0's do not: the hypervisor then keeps none of its own
 * unless told to, to measure itself (selfcount.c). */
static void keep_counters_from_owners(void)
{
	bool owners = cfg.pmu_passthrough || (cfg.pmu_direct && direct_hw());
	if (!owners || hyp.probe.hpmn_hides)
		return;
	if (!cfg.host_counters_given)
		cfg.host_counters = 0;
	else if (cfg.host_counters)
		hyp_puts("hyp: the PMU does not hide counters past HPMN: the guests can reach "
			 "the hypervisor's counters (host_counters: for measurement only)\n");
}

/* Direct access for a VM of `n` counters: its MDCR_EL2.HPMN is n (vpmu/), so where the PMU
 * does not hide counters past HPMN the VM would reach [n, N): others' counts if n is below
 * the guests' part. */
static bool direct_allowed(unsigned n)
{
	return hyp.probe.hpmn_hides || n >= hyp.hw.hpmn;
}

/* Why a VM that asked for direct access traps (docs/vpmu.md, "Direct access"). */
static const char *direct_refusal(const struct pv_vm_config *vc)
{
	if (!plat_feat.fgt)
		return "no FEAT_FGT";
	if (hyp.probe.fgt_untrapped)
		return "a fine-grained trap it needs is not taken";
	if (!vc->pmu.nr_counters)
		return "no counter";
	if (!direct_allowed(vc->pmu.nr_counters))
		return "counters past HPMN are not hidden, and it has fewer than the guests' "
		       "part";
	if (vc->pmu.version != hyp.hw.pmu_version)
		return "its PMU version is not the hardware's";
	return "docs/vpmu.md";
}

/* The VM slots the RAM holds (QEMU's -m; hyp_main). */
static unsigned ram_slots;

static bool slot_has_image(unsigned k)
{
	if (k >= ram_slots)
		return false;
	const uint64_t *p = (const uint64_t *)(VM_SLOT(k) + VM_IMAGE_OFF);
	for (unsigned i = 0; i < 8; i++)
		if (p[i])
			return true;
	return false;
}

/* The ID registers a VM sees, beyond what the library manages: features whose state this
 * hypervisor does not switch (SVE, SME, MTE, pointer authentication keys) are hidden, and
 * trapped by CPTR_EL2 / HCR_EL2 (API = APK = 0). */
static void hide_unswitched(struct pv_vm *pvm)
{
	uint64_t *pfr0 = &pvm->id_view[PV_ID_SLOT(PV_ID_AA64PFR0_EL1)];
	uint64_t *pfr1 = &pvm->id_view[PV_ID_SLOT(PV_ID_AA64PFR1_EL1)];
	uint64_t *isar1 = &pvm->id_view[PV_ID_SLOT(PV_ID_AA64ISAR1_EL1)];
	uint64_t *isar2 = &pvm->id_view[PV_ID_SLOT(PV_ID_AA64ISAR2_EL1)];
	*pfr0 &= ~PV_ID_AA64PFR0_SVE;
	*pfr1 &= ~(PV_ID_AA64PFR1_MTE | PV_ID_AA64PFR1_SME);
	/* Pointer authentication: the keys are not switched. */
	*isar1 &= ~(PV_ID_AA64ISAR1_APA | PV_ID_AA64ISAR1_API | PV_ID_AA64ISAR1_GPA |
		    PV_ID_AA64ISAR1_GPI);
	*isar2 &= ~(PV_ID_AA64ISAR2_GPA3 | PV_ID_AA64ISAR2_APA3);
	pvm->id_view[PV_ID_SLOT(PV_ID_AA64ZFR0_EL1)] = 0;
	pvm->id_view[PV_ID_SLOT(PV_ID_AA64SMFR0_EL1)] = 0;
}

/* The arm64 Image header, if the image has one (Linux booting.rst): magic "ARM\x64" at
 * offset 56, text_offset at 8, image_size at 16. The image is entered at its load address,
 * 2 MiB into RAM: where booting.rst puts it for a text_offset of 0 (modern kernels: base
 * 0x40200000) or of 2 MiB (perfvisor's guest programs: base 0x40000000, as Xen loads them). */
static void describe_image(struct vm *vm)
{
	const uint8_t *img = (const uint8_t *)(vm->pa_base + VM_IMAGE_OFF);
	uint32_t magic = (uint32_t)img[56] | (uint32_t)img[57] << 8 | (uint32_t)img[58] << 16 |
			 (uint32_t)img[59] << 24;
	if (magic != 0x644D5241u) {
		hyp_printf("hyp: vm %s: flat image (no arm64 Image header)\n", vm->name);
		return;
	}
	uint64_t text_offset = *(const uint64_t *)(img + 8),
		 size = *(const uint64_t *)(img + 16);
	hyp_printf("hyp: vm %s: arm64 Image, text_offset %lx, image_size %lu%s\n", vm->name,
		   text_offset, size,
		   text_offset % VM_IMAGE_OFF ? " (text_offset not a multiple of 2 MiB: "
						"entered at the load address anyway)"
					      : "");
	if (size > vm->ram_size - VM_IMAGE_OFF) { /* a size no placement may trust */
		hyp_printf("hyp: vm %s: image_size exceeds its RAM: taken as unknown\n",
			   vm->name);
		size = 0;
	}
	vm->image_size = size;
}

/* The VM's initrd, if configured: it must lie in the VM's RAM, clear of its image
 * (image_size from the Image header, when there is one). */
static void place_initrd(struct vm *vm, unsigned k)
{
	uint64_t off = cfg.initrd_off[k], size = cfg.initrd_size[k];
	if (!size)
		return;
	uint64_t image_end = VM_IMAGE_OFF + vm->image_size;
	if (off > vm->ram_size || size > vm->ram_size - off ||
	    (off < image_end && off + size > VM_IMAGE_OFF)) {
		hyp_printf(
			"hyp: vm %s: initrd at RAM offset %lx, %lu bytes, does not fit beside "
			"its image in its RAM: ignored\n",
			vm->name, off, size);
		return;
	}
	vm->initrd_start = RAM_BASE + off;
	vm->initrd_end = RAM_BASE + off + size;
	hyp_printf("hyp: vm %s: initrd at IPA %lx, %lu bytes\n", vm->name, vm->initrd_start,
		   size);
}

/* Where the VM's device tree goes, as QEMU places it for -kernel: the first 2 MiB block after
 * the image and the initrd; at the top of RAM when the image's size is unknown (no arm64
 * Image header) or nothing fits after them; failing that, the highest block clear of both. A
 * block of its own meets Linux booting.rst (8-byte aligned, at most 2 MiB, in no 2 MiB block
 * that needs other attributes), and a guest that checks its tree lies above its own image
 * finds it there. false: no free block. */
static bool dtb_block_free(const struct vm *vm, uint64_t off)
{
	/* An image of unknown size holds at least its first block. */
	uint64_t image_end = VM_IMAGE_OFF + (vm->image_size ? vm->image_size : VM_DTB_BLOCK);
	if (off < image_end && off + VM_DTB_BLOCK > VM_IMAGE_OFF)
		return false;
	return !vm->initrd_end || !(off < vm->initrd_end - RAM_BASE &&
				    off + VM_DTB_BLOCK > vm->initrd_start - RAM_BASE);
}

static bool place_dtb(struct vm *vm)
{
	uint64_t end = VM_IMAGE_OFF + vm->image_size; /* RAM offsets */
	if (vm->initrd_end && vm->initrd_end - RAM_BASE > end)
		end = vm->initrd_end - RAM_BASE;
	uint64_t off = (end + VM_DTB_BLOCK - 1) & ~(VM_DTB_BLOCK - 1);
	if (!vm->image_size || off > vm->ram_size - VM_DTB_BLOCK || !dtb_block_free(vm, off)) {
		/* The top block, else the highest free one (block 0 is below every image). */
		for (off = vm->ram_size - VM_DTB_BLOCK;; off -= VM_DTB_BLOCK) {
			if (dtb_block_free(vm, off))
				break;
			if (!off)
				return false;
		}
	}
	vm->dtb_ipa = RAM_BASE + off;
	return true;
}

/* Slots a VM configured with vm<k>_mem=N MiB spans (at least 1). */
static unsigned vm_slots(unsigned k)
{
	uint64_t mib = cfg.mem_mib[k], slot_mib = VM_RAM_SIZE >> 20;
	uint64_t slots = mib ? mib / slot_mib + (mib % slot_mib != 0) : 1;
	return slots > ram_slots - k ? ram_slots - k : (unsigned)slots;
}

/* Each vCPU's pin store (docs/spe.md, "Configuration"): what a buffer of the largest size
 * spe_max_kib allows needs, in entries of 16 bytes. */
static struct pv_vspe_pin spe_pins[MAX_VMS][PV_VSPE_PIN_SLOTS(SPE_MAX_BUFFER)];

/* Why the hypervisor can give no VM SPE, or NULL when it can. */
static const char *spe_refusal(void)
{
	if (!hyp.hw.spe)
		return "the CPU has no SPE (ID_AA64DFR0_EL1.PMSVer 0)";
	if (!hyp.hw.spehw.usable)
		return "EL3 keeps the profiling buffer (PMBIDR_EL1.P 1 at EL2) or its ID "
		       "registers are outside the architecture";
	return NULL;
}

/* Whether the VM in slot k asked for SPE (spe=, vm<k>_spe=) and gets it, and its
 * configuration: the hardware's version up to SPEv1p2, buffers up to spe_max_kib. A VM that
 * cannot have it runs without, hidden (PMSVer 0, every SPE register UNDEFINED). */
static bool spe_for(const struct vm *vm, unsigned k, struct pv_vm_config *vc)
{
	bool want = cfg.vm_spe[k] ? cfg.vm_spe[k] == 2 : cfg.spe;
	if (!want)
		return false;
	const char *why = spe_refusal();
	if (why) {
		hyp_printf("hyp: vm %s: SPE not possible here (%s): hidden\n", vm->name, why);
		return false;
	}
	uint64_t max = cfg.spe_max_kib << 10;
	if (!max || max > SPE_MAX_BUFFER || max % 4096) {
		hyp_printf(
			"hyp: vm %s: spe_max_kib=%lu is not a multiple of 4 from 4 to %lu: it "
			"gets %lu\n",
			vm->name, cfg.spe_max_kib, SPE_MAX_BUFFER >> 10, SPE_MAX_BUFFER >> 10);
		max = SPE_MAX_BUFFER;
	}
	vc->features |= PV_FEAT_SPE;
	vc->spe.version = hyp.hw.spehw.version > PV_SPE_V1P2 ? PV_SPE_V1P2
							     : hyp.hw.spehw.version;
	vc->spe.max_buffer = max;
	return true;
}

/* Where no EL3 is implemented EL2 is the highest EL, the only one that may enable the
 * activity counters (Arm ARM D24.6: AMCNTENSET0/1_EL0 writes at the highest EL only), and
 * they reset disabled (D16.2.3). Firmware's part, then: every group 0 counter and every
 * implemented auxiliary one counts from boot, as TF-A enables them (amu_enable). Below an
 * EL3 the enables are firmware's, and perfvisor shows them as they are. */
static void amu_enable_as_highest_el(void)
{
	uint64_t pfr0 = read_sysreg(id_aa64pfr0_el1);
	unsigned amu = (unsigned)PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_AMU);
	if (!amu || PV_ID_FIELD(pfr0, PV_ID_AA64PFR0_EL3_STATES))
		return;
	uint64_t cgcr = pv_plat_sysreg_read(&hyp.pcpu, PV_AMCGCR_EL0);
	unsigned cg0 = (unsigned)PV_FIELD_GET(PV_AMCGCR_CG0NC, cgcr);
	unsigned cg1 = (unsigned)PV_FIELD_GET(PV_AMCGCR_CG1NC, cgcr);
	pv_plat_sysreg_write(&hyp.pcpu, PV_AMCNTENSET0_EL0, PV_BIT(cg0 > 16 ? 16 : cg0) - 1);
	if (!cg1 || !PV_FIELD_GET(PV_AMCFGR_NCG, pv_plat_sysreg_read(&hyp.pcpu, PV_AMCFGR_EL0)))
		return;
	/* AMUv1p1: only the auxiliary counters AMCG1IDR_EL0 lists are implemented. */
	uint64_t present = PV_BIT(cg1 > 16 ? 16 : cg1) - 1;
	if (amu >= PV_AMU_V1P1)
		present &= pv_plat_sysreg_read(&hyp.pcpu, PV_AMCG1IDR_EL0);
	pv_plat_sysreg_write(&hyp.pcpu, PV_AMCNTENSET1_EL0, present);
}

/* The auxiliary counters a VM can be given: those from 0 up that the CPU implements
 * (AMCG1IDR_EL0 with AMUv1p1; an AMUv1 AMU implements all AMCGCR_EL0.CG1NC). Under
 * AMCR_EL0.CG1RZ only an AMUv1p1 VM has the field that says they read as zero (vamu.h). */
static uint8_t amu_aux(void)
{
	const struct pv_hw_amu *a = &hyp.hw.amuhw;
	uint8_t n = 0;
	while (n < a->aux && (a->aux_present >> n & 1))
		n++;
	if (!hyp.hw.amuv1p1 && (a->amcr & PV_AMCR_CG1RZ))
		n = 0;
	return n;
}

/* Whether the VM in slot k gets the AMU (amu=, vm<k>_amu=): the hardware's version and
 * every auxiliary counter it implements, so that an AMUv1p1 VM can take the
 * virtual-offset path (vamu/config.c). A VM without it has it hidden: ID_AA64PFR0_EL1.AMU 0,
 * every AMU register UNDEFINED (CPTR_EL2.TAM). */
static bool amu_for(const struct vm *vm, unsigned k, struct pv_vm_config *vc)
{
	bool want = cfg.vm_amu[k] ? cfg.vm_amu[k] == 2 : cfg.amu;
	if (!want)
		return false;
	if (!hyp.hw.amu) {
		if (cfg.vm_amu[k] == 2) /* asked for by name: say why not */
			hyp_printf("hyp: vm %s: AMU not possible here (the CPU has none): "
				   "hidden\n",
				   vm->name);
		return false;
	}
	vc->features |= PV_FEAT_AMU;
	vc->amu.version = hyp.hw.amuv1p1 ? PV_AMU_V1P1 : PV_AMU_V1;
	vc->amu.nr_aux = amu_aux();
	return true;
}

static void vm_create(unsigned k)
{
	struct vm *vm = &hyp.vms[k];
	struct vcpu *v = &vm->vcpu;
	vm->index = k;
	if (cfg.names[k][0])
		memcpy(vm->name, cfg.names[k], sizeof(vm->name));
	else
		hyp_snprintf(vm->name, sizeof(vm->name), "vm%u", k);
	vm->pa_base = VM_SLOT(k);
	vm->ram_size = (uint64_t)vm_slots(k) * VM_RAM_SIZE;
	if (cfg.mem_mib[k] && cfg.mem_mib[k] != vm->ram_size >> 20)
		hyp_printf("hyp: vm %s: vm%u_mem=%lu: RAM comes in slots of %lu MiB; it gets "
			   "%lu\n",
			   vm->name, k, cfg.mem_mib[k], VM_RAM_SIZE >> 20, vm->ram_size >> 20);
	vm->guest_args = cfg.guest_args;
	describe_image(vm);
	place_initrd(vm, k);
	if (!place_dtb(vm)) {
		hyp_printf("hyp: vm %s: no 2 MiB block of its RAM is free for its device tree "
			   "beside "
			   "its image and initrd: not started\n",
			   vm->name);
		return;
	}

	struct pv_vm_config vc = {.features = PV_FEAT_PMU};
	vc.pmu.version = hyp.hw.pmu_version > PV_PMUVER_V3P5 ? PV_PMUVER_V3P5
							     : hyp.hw.pmu_version;
	vc.pmu.nr_counters = cfg.counters && cfg.counters <= hyp.hw.hpmn ? (uint8_t)cfg.counters
									 : hyp.hw.hpmn;
	vc.pmu.passthrough = cfg.pmu_passthrough;
	vc.pmu.direct = cfg.pmu_direct && direct_allowed(vc.pmu.nr_counters);
	if (!parse_pmu_filter(vm->name, k, cfg.pmu_filter[k], &vc.pmu))
		return;
	bool spe = spe_for(vm, k, &vc);
	bool amu = amu_for(vm, k, &vc);
	int err = pv_vm_init(&vm->pv, &hyp.hw, &vc);
	if (err == PV_ERR_FILTER_RANGE) {
		hyp_printf("hyp: vm %s: vm%u_pmu_filter: %s: not started\n", vm->name, k,
			   pv_strerror(err));
		return;
	}
	if (err)
		hyp_panic("VM %s: pv_vm_init: %s", vm->name, pv_strerror(err));
	hide_unswitched(&vm->pv);
	stage2_init(vm);
	uint64_t dtb_pa = vm->pa_base + (vm->dtb_ipa - RAM_BASE);
	size_t dtb = fdt_build_vm((void *)dtb_pa, VM_DTB_MAX, vm);
	if (!dtb)
		hyp_panic("VM %s: device tree does not fit", vm->name);
	dcache_clean(dtb_pa, dtb); /* the guest reads it with its MMU off */

	pv_vcpu_init(&v->pv, &vm->pv, 0, v);
	if (spe) /* its pin store: every page of the largest buffer, with its tables */
		pv_vspe_vcpu_pins(&v->pv, spe_pins[k],
				  PV_VSPE_PIN_SLOTS(vm->pv.spe.max_buffer));
	v->evcntr_reads = vm->pv.pmu.evcntr_mask == UINT64_MAX ? evcntr_reads_64
							       : evcntr_reads_32;
	v->evcntr_reads_xev = v->evcntr_reads + EVCNTR_READ_CHECK;
	/* A passthrough or direct vCPU writes its counters untrapped: its overflow polls have a
	 * fixed period (timer.c), which the fast vectors serve at the entry. */
	bool owns = vm->pv.pmu.passthrough || vm->pv.pmu.direct;
	v->poll_ticks = owns ? hyp.pmu_poll_ticks : 0;
	v->pmu_mapped = owns; /* its overflow interrupt is its own (vgic.c) */
	v->guest_selr = owns;
	vcpu_regs_init(v);
	v->vm = vm;
	v->vmpidr = 0x80000000ul; /* MPIDR_EL1: RES1 bit 31, affinity 0.0.0.0 */
	v->f.x[0] = vm->dtb_ipa;  /* Linux arm64 boot protocol: x0 = DTB, x1..x3 = 0 */
	v->f.elr = RAM_BASE + VM_IMAGE_OFF;
	v->f.spsr = 0x3C5;           /* EL1h, D A I F masked */
	v->el1.sctlr = 0x30D00800ul; /* RES1 bits, MMU and caches off */
	vgic_init(v);
	vm->state = VM_RUNNABLE;
	hyp.nr_vms++;
	char mode[128] = "";
	if (vm->pv.pmu.passthrough)
		hyp_snprintf(mode, sizeof(mode), ", passthrough (no PMU trap)");
	else if (cfg.pmu_passthrough)
		hyp_snprintf(mode, sizeof(mode),
			     ", trapped (passthrough is not possible: docs/vpmu.md)");
	else if (vm->pv.pmu.direct)
		hyp_snprintf(mode, sizeof(mode),
			     ", direct (no PMU trap but its event types, PMCEID and PMMIR)");
	else if (cfg.pmu_direct)
		hyp_snprintf(mode, sizeof(mode), ", trapped (direct is not possible: %s)",
			     direct_refusal(&vc));
	hyp_printf(
		"hyp: vm %s: slot %u, RAM %lu MiB at PA %lx (IPA %lx), entry %lx, device tree "
		"%lx, VMID %u, %u PMU counters%s\n",
		vm->name, k, vm->ram_size >> 20, vm->pa_base, RAM_BASE, v->f.elr, vm->dtb_ipa,
		k + 1, (unsigned)vm->pv.pmu.nr_counters, mode);
	if (spe)
		hyp_printf("hyp: vm %s: SPE, PMSVer %u, buffers up to %lu KiB pinned\n",
			   vm->name, (unsigned)vm->pv.spe.version, vm->pv.spe.max_buffer >> 10);
	if (amu) {
		const struct pv_vm_amu *a = &vm->pv.amu;
		unsigned trapped = (unsigned)__builtin_popcount(
			(uint32_t)(a->hafgrtr & ~PV_HAFGRTR_AMEVCNTR0(PV_AMU_CNT_CYCLES)));
		if (a->path == PV_AMU_PATH_VOFF)
			hyp_printf("hyp: vm %s: AMU (AMUv1%s, %u auxiliary counters), virtual "
				   "offsets (reads trap: CNT_CYCLES and %u of the auxiliary "
				   "counters)\n",
				   vm->name, a->version == PV_AMU_V1P1 ? "p1" : "",
				   (unsigned)a->nr_aux, trapped);
		else
			hyp_printf(
				"hyp: vm %s: AMU (AMUv1%s, %u auxiliary counters), trapped\n",
				vm->name, a->version == PV_AMU_V1P1 ? "p1" : "",
				(unsigned)a->nr_aux);
	}
}

void hyp_main(void)
{
	mmu_init();
	hyp_puts("hyp: perfvisor EL2 hypervisor\n");
	uint64_t ram_end = fdt_ram_end((const void *)RAM_BASE);
	mmu_map_ram(ram_end);
	ram_slots = ram_end > VM_SLOT(0) ? (unsigned)((ram_end - VM_SLOT(0)) / VM_RAM_SIZE) : 0;
	if (ram_slots > MAX_VMS)
		ram_slots = MAX_VMS;
	parse_bootargs(fdt_bootargs((const void *)RAM_BASE));
	/* The guests deactivate their PMU interrupt (vgic.c): a passthrough or direct VM's is
	 * presented mapped. Where direct access is not possible after all, EOI then deactivates
	 * in two writes. */
	if (cfg.pmu_passthrough || cfg.pmu_direct)
		hyp.split_eoi = true;
	gic_init();

	plat_init();
	pv_pcpu_init(&hyp.pcpu, &hyp.plat);
	probe_pmu();
	keep_counters_from_owners();
	amu_enable_as_highest_el();
	int err = pv_hw_probe(&hyp.hw, &hyp.pcpu, cfg.host_counters);
	if (err) {
		hyp_printf("hyp: pv_hw_probe: %s; no host counter\n", pv_strerror(err));
		err = pv_hw_probe(&hyp.hw, &hyp.pcpu, 0);
		if (err)
			hyp_panic("pv_hw_probe: %s", pv_strerror(err));
	}
	hyp_printf("hyp: PMUv3 version %u, %u counters: guests [0,%u), hypervisor [%u,%u)\n",
		   hyp.hw.pmu_version, hyp.hw.pmu_counters, hyp.hw.hpmn, hyp.hw.hpmn,
		   hyp.hw.pmu_counters);
	const char *no_spe = spe_refusal();
	if (no_spe) {
		hyp_printf("hyp: SPE: none for VMs: %s\n", no_spe);
	} else {
		hyp_printf("hyp: SPE: PMSVer %u, PMSIDR_EL1 %lx, PMBIDR_EL1 %lx\n",
			   (unsigned)hyp.hw.spehw.version, hyp.hw.spehw.pmsidr,
			   hyp.hw.spehw.pmbidr);
		gic_enable_ppi(PV_INTID_SPE, true); /* its buffer interrupt, taken at EL2 */
	}
	if (hyp.hw.amu)
		hyp_printf(
			"hyp: AMU: AMUv1%s, AMCFGR_EL0 %lx, AMCGCR_EL0 %lx, AMCG1IDR_EL0 %lx; "
			"%s\n",
			hyp.hw.amuv1p1 ? "p1" : "", hyp.hw.amuhw.amcfgr, hyp.hw.amuhw.amcgcr,
			hyp.hw.amuhw.amcg1idr,
			hyp.hw.amuhw.voff ? "virtual offsets (AMUv1p1, FEAT_FGT)"
					  : "trapped (no virtual offsets here)");
	else
		hyp_puts("hyp: AMU: none for VMs: the CPU has none (ID_AA64PFR0_EL1.AMU 0)\n");
	hyp.hw.fgt_words = direct_hw();
	if (cfg.pmu_direct && !hyp.hw.fgt_words)
		hyp_printf("hyp: pmu_direct: not possible here (%s): every VM traps its PMU\n",
			   plat_feat.fgt ? "fine-grained traps not taken" : "no FEAT_FGT");
	if (plat_feat.fgt) { /* none of its own: an EL1 register access traps only for a VM */
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGRTR_EL2, 0);
		pv_plat_sysreg_write(&hyp.pcpu, PV_HDFGWTR_EL2, 0);
		hyp.amu_fgt = hyp.hw.amu;
		if (hyp.amu_fgt)
			pv_plat_sysreg_write(&hyp.pcpu, PV_HAFGRTR_EL2, 0);
	}

	hyp.hcr_hyp = HCR_HYP;
	hyp.cptr_hyp = CPTR_HYP;
	hyp.mdcr_hyp = 0;
	write_sysreg(vtcr_el2, VTCR_HYP);
	write_sysreg(S3_4_C0_C0_0, read_sysreg(midr_el1)); /* VPIDR_EL2 */
	/* MDCR_EL2 until the first vCPU is loaded (then its trap words): the partition (HPMN),
	 * the host counters enabled (HPME) and 64 bits wide (HLP, PMUv3p5). */
	write_sysreg(mdcr_el2,
		     PV_FIELD_PREP(PV_MDCR_EL2_HPMN, hyp.hw.hpmn) |
			     (hyp.hw.host_counters ? PV_MDCR_EL2_HPME : 0) |
			     (hyp.hw.pmu_version >= PV_PMUVER_V3P5 ? PV_MDCR_EL2_HLP : 0));
	isb();
	__asm__ volatile("tlbi alle1\n\tdsb ish" ::: "memory");
	isb();
	pv_pcpu_setup(&hyp.pcpu, &hyp.hw);
	/* QEMU 7.2 lets EL0 PMCCNTR reads (CR), event counter reads and PMSELR (ER) and PMSWINC
	 * writes (SW) bypass MDCR_EL2.TPM when those physical PMUSERENR bits are set; EN alone
	 * already passes every EL0 access on to the TPM trap, architecturally and in QEMU. */
	pv_plat_sysreg_write(&hyp.pcpu, PV_PMUSERENR_EL0, PV_PMUSERENR_EN);
	selfcount_init();
	if (cfg.fasttrap) {
		write_sysreg(vbar_el2, (uint64_t)hyp_vectors_fast);
		isb();
	}
	hyp_printf("hyp: fast trap path %s\n", cfg.fasttrap ? "on" : "off");
	/* ticks = us * CNTFRQ_EL0 / 1e6: 62.5 MHz on QEMU 7.2, 1 GHz on QEMU 10.0 (Arm ARM D12) */
	uint64_t freq = read_sysreg(cntfrq_el0);
	/* The overflow poll, where the PMU needs it (probe.c), or as told. */
	if (!cfg.pmu_poll_given && !hyp.probe.overflow_late)
		cfg.pmu_poll_us = 0;
	uint64_t slice = cfg.slice_us * freq / 1000000;
	timer_init(slice ? slice : 1, cfg.pmu_poll_us * freq / 1000000);
	hyp_printf(
		"hyp: QEMU 7.2 workarounds: overflow poll %s (%lu us); PMU line resync %s; a "
		"counter of the hypervisor's beside VMs that own theirs: %s\n",
		hyp.pmu_poll_ticks ? "on" : "off", cfg.pmu_poll_us,
		plat_feat.pmu_line_stale ? "on" : "off",
		hyp.probe.hpmn_hides ? "yes" : "only if asked (host_counters=N)");
	if (cfg.limit_ms) {
		hyp.limit_ms = cfg.limit_ms;
		hyp.limit_deadline = timer_now() + cfg.limit_ms * (freq / 1000);
	}
	hyp.records_freq = freq ? freq : 1;
	if (cfg.records_ms) {
		hyp.records_ticks = cfg.records_ms * (freq / 1000);
		hyp.records_deadline = timer_now() + hyp.records_ticks;
	}

	vcpu_regs_probe();
	for (unsigned k = 0; k < ram_slots; k++)
		if (slot_has_image(k)) {
			unsigned span = vm_slots(k);
			vm_create(k);
			if (hyp.vms[k].state == VM_RUNNABLE)
				hyp.slots = k + 1; /* the scheduler looks no further */
			k += span - 1; /* the slots it spans hold its RAM, not VMs */
		}
	bool images = false;
	for (unsigned k = 0; k < ram_slots; k++)
		images |= slot_has_image(k);
	if (!hyp.nr_vms) {
		if (images)
			hyp_puts("hyp: no VM to run: none of the images was started (above: "
				 "why)\n");
		else
			hyp_puts("hyp: no VM to run (load a guest image with -device loader,"
				 "file=IMG,addr=0x48200000,force-raw=on)\n");
		machine_off();
	}
	hyp_printf("hyp: %u VMs, slice %lu us (%lu ticks)\n", hyp.nr_vms, cfg.slice_us, slice);
	if (cfg.focus < MAX_VMS) {
		uart_set_focus(&hyp.vms[cfg.focus]);
		hyp_printf("hyp: console input goes to slot %u%s\n", cfg.focus,
			   hyp.vms[cfg.focus].state == VM_RUNNABLE ? ""
								   : " (which runs no VM)");
	}
	uart_host_init();
	if (cfg.limit_ms)
		hyp_printf("hyp: time limit %lu ms\n", cfg.limit_ms);
	sched_start();
}
