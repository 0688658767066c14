/* SPDX-License-Identifier: MIT */
/*
 * The boot hand-off, checked as a bare-metal test harness checks it before its first test:
 * the device tree in x0 lies above the harness's own image, inside RAM, 8-byte aligned and
 * alone in its 2 MiB block (Linux booting.rst, as QEMU and kvmtool place it); every bootargs
 * word is an argument the harness knows ("boot.argc=N", "alpha", "beta", "boot.initrd=1" or
 * "=2": the VM has an initrd, and the tree lies above it, or at least clear of it), and there are
 * exactly N of them, so a hypervisor word among them fails it; the hypervisor's facts come in
 * properties of their own; and the firmware probe a guest makes first (SMC Calling Convention
 * 1.1, DEN 0028: SMCCC_VERSION, SMCCC_ARCH_FEATURES, PSCI_FEATURES) is answered as the
 * convention says.
 */
#include "pmu.h"

extern char _start[], __image_end[];

#define SMCCC_VERSION 0x80000000ul
#define SMCCC_ARCH_FEATURES 0x80000001ul
#define SMCCC_ARCH_SOC_ID 0x80000002ul
#define SMCCC_ARCH_WORKAROUND_1 0x80008000ul
#define PSCI_VERSION 0x84000000ul
#define PSCI_FEATURES 0x8400000Aul
#define NOT_SUPPORTED 0xFFFFFFFFFFFFFFFFul /* -1 in x0 */

static uint32_t be32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && !strncmp(w, s, n);
}

static void check_tree_placement(void)
{
	const uint8_t *tree = g_dtb;
	uint64_t dtb = (uint64_t)tree, size = be32(tree + 4);
	uint64_t base = 0, ram = 0;
	gprintf("boot: image [%lx, %lx), device tree at %lx, %lu bytes\n", (uint64_t)_start,
		(uint64_t)__image_end, dtb, size);
	CHECK(be32(tree) == 0xD00DFEEDu, "boot: x0 points at a flattened device tree");
	CHECK(dtb >= (uint64_t)__image_end, "boot: the device tree lies above the image");
	CHECK((dtb & 7) == 0, "boot: the device tree is 8-byte aligned");
	CHECK(size <= (2ul << 20) && dtb >> 21 == (dtb + size - 1) >> 21,
	      "boot: the device tree is at most 2 MiB, within one 2 MiB block");
	CHECK(dtb >> 21 > ((uint64_t)__image_end - 1) >> 21,
	      "boot: the device tree's 2 MiB block holds nothing of the image");
	CHECK(dt_memory(&base, &ram) && dtb >= base && dtb + size <= base + ram,
	      "boot: the device tree lies in the VM's RAM");
	/* With an initrd (boot.initrd=1: where QEMU would put the tree above it; 2: at the top of
	 * RAM, so the tree goes below it), the tree shares no 2 MiB block with it. */
	uint32_t len = 0, len2 = 0;
	const uint8_t *start = dt_chosen("linux,initrd-start", &len);
	const uint8_t *end = dt_chosen("linux,initrd-end", &len2);
	uint64_t where = arg_num("boot.initrd", 0);
	if (where) {
		uint64_t s0 = start && len == 8 ? (uint64_t)be32(start) << 32 | be32(start + 4)
						: 0;
		uint64_t e0 = end && len2 == 8 ? (uint64_t)be32(end) << 32 | be32(end + 4) : 0;
		CHECK(s0 && e0 > s0, "boot: /chosen/linux,initrd-start and -end present");
		CHECK(dtb >> 21 > (e0 - 1) >> 21 || (dtb + size - 1) >> 21 < s0 >> 21,
		      "boot: the device tree's 2 MiB block holds nothing of the initrd");
		if (where == 1)
			CHECK(dtb >= e0, "boot: the device tree lies above the initrd");
	}
}

/* Every word is an argument: one the harness does not know fails it, as it would fail a
 * harness that turns bootargs into argv. */
static void check_arguments(void)
{
	const char *a = dt_bootargs();
	unsigned argc = 0, unknown = 0;
	uint64_t want = 0;
	CHECK(a != NULL, "boot: bootargs present");
	while (a && *a) {
		size_t n = 0;
		while (a[n] && a[n] != ' ')
			n++;
		if (n > 10 && !strncmp(a, "boot.argc=", 10)) {
			for (size_t i = 10; i < n && a[i] >= '0' && a[i] <= '9'; i++)
				want = want * 10 + (uint64_t)(a[i] - '0');
		} else if (n && !word_is(a, n, "alpha") && !word_is(a, n, "beta") &&
			   !word_is(a, n, "boot.initrd=1") && !word_is(a, n, "boot.initrd=2")) {
			gputs("boot: unknown argument '");
			for (size_t i = 0; i < n; i++)
				gputc(a[i]);
			gputs("'\n");
			unknown++;
		}
		argc += n != 0;
		a += n;
		while (*a == ' ')
			a++;
	}
	CHECK_EQ(unknown, 0, "boot: every bootargs word is one the guest was given");
	CHECK_EQ(argc, want, "boot: as many bootargs words as the guest was given");
	const char *name = dt_vm_name();
	CHECK(name && !strncmp(name, "boot", 5),
	      "boot: /chosen/perfvisor,vm-name is the VM's name");
	CHECK_EQ(dt_pmu_counters(99), PMCR_N(rd(pmcr_el0)),
		 "boot: /chosen/perfvisor,pmu-counters is PMCR_EL0.N");
}

static void check_smccc(void)
{
	CHECK_EQ(hvc_call(PSCI_FEATURES, SMCCC_VERSION, 0, 0), 0,
		 "boot: PSCI_FEATURES(SMCCC_VERSION) = 0: SMCCC 1.1 or later is there");
	CHECK_EQ(hvc_call(SMCCC_VERSION, 0, 0, 0), 0x10001, "boot: SMCCC_VERSION = 1.1");
	CHECK_EQ(hvc_call(SMCCC_ARCH_FEATURES, SMCCC_VERSION, 0, 0), 0,
		 "boot: SMCCC_ARCH_FEATURES(SMCCC_VERSION) = 0 (implemented)");
	CHECK_EQ(hvc_call(SMCCC_ARCH_FEATURES, SMCCC_ARCH_FEATURES, 0, 0), 0,
		 "boot: SMCCC_ARCH_FEATURES(SMCCC_ARCH_FEATURES) = 0 (implemented)");
	CHECK_EQ(hvc_call(SMCCC_ARCH_FEATURES, SMCCC_ARCH_WORKAROUND_1, 0, 0), NOT_SUPPORTED,
		 "boot: SMCCC_ARCH_FEATURES(ARCH_WORKAROUND_1) = NOT_SUPPORTED");
	CHECK_EQ(hvc_call(SMCCC_ARCH_FEATURES, SMCCC_ARCH_SOC_ID, 0, 0), NOT_SUPPORTED,
		 "boot: SMCCC_ARCH_FEATURES(ARCH_SOC_ID) = NOT_SUPPORTED");
	CHECK_EQ(
		hvc_call(SMCCC_ARCH_FEATURES, PSCI_VERSION, 0, 0), NOT_SUPPORTED,
		"boot: SMCCC_ARCH_FEATURES of a non-Arm-architecture function = NOT_SUPPORTED");
	CHECK_EQ(hvc_call(0x8000FF00ul, 0, 0, 0), NOT_SUPPORTED,
		 "boot: an unknown Arm architecture call = NOT_SUPPORTED");
}

void test_main(void)
{
	check_tree_placement();
	check_arguments();
	check_smccc();
}
