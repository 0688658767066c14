# SPDX-License-Identifier: MIT
# hyp/ — the reference EL2 hypervisor for QEMU `virt`, and the guest test suite in tests/guest/.
# Included by the top-level Makefile (which defines BUILD and CORE_SRCS).
#
#   make hyp          build/hyp/perfvisor.elf and the guest images in build/guest/
#   make qemu-check   run the guest suite under QEMU; last line "N passed, M failed"
#   make run          demo: several VMs time-sliced, their counts and the hypervisor's report
#   make qemu-bench   "bench: hyp.*" lines (EL2 instructions per trap and per switch)
#   make qemu-linux   a Debian arm64 kernel as a guest, its perf counts checked (the Linux part
#                     of qemu-check; the kernel is fetched from Debian's packages into build/)
#   make run-linux    that kernel with a shell on its console, interactive
#
# QEMU_CHECK_AVAILABLE is "yes" when qemu-system-aarch64 and the cross compiler are installed,
# so `make check` can add qemu-check conditionally.

HYP_CROSS    ?= aarch64-linux-gnu-
HYP_CC       := $(HYP_CROSS)gcc
HYP_OBJCOPY  := $(HYP_CROSS)objcopy
HYP_NM       := $(HYP_CROSS)nm
QEMU_AARCH64 ?= qemu-system-aarch64
QEMU_CHECK_AVAILABLE := $(shell command -v $(QEMU_AARCH64) >/dev/null 2>&1 && \
                          command -v $(HYP_CC) >/dev/null 2>&1 && echo yes)

HYP_BUILD   := $(BUILD)/hyp
GUEST_BUILD := $(BUILD)/guest
HYP_CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -g -ffreestanding -nostdlib \
               -fno-builtin -fno-tree-loop-distribute-patterns -fno-stack-protector -fno-pie \
               -mgeneral-regs-only -Iinclude -I$(GEN) -Ihyp -Iel2 \
               -DPV_PLATFORM_INLINE='"plat_sysreg.h"' \
               -MMD -MP
HYP_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,norelro -Wl,--no-warn-rwx-segments
HYP_DEPS    := $(PV_HDRS) hyp/hyp.h hyp/frame.h $(wildcard el2/*.h) hyp/hyp.mk

# The EL2 accessors every host on the CPU shares (el2/), built with the hypervisor's flags;
# but the stage-2 stubs of a host without SPE: this one pins and translates (platform.c).
EL2_SRCS    := $(filter-out el2/plat_no_spe.c,$(sort $(wildcard el2/*.c)))
HYP_C_SRCS  := $(sort $(wildcard hyp/*.c))
HYP_S_SRCS  := $(sort $(wildcard hyp/*.S))
HYP_OBJS    := $(HYP_S_SRCS:hyp/%.S=$(HYP_BUILD)/%.o) $(HYP_C_SRCS:hyp/%.c=$(HYP_BUILD)/%.o) \
               $(EL2_SRCS:el2/%.c=$(HYP_BUILD)/el2/%.o)
HYP_CORE_OBJS := $(CORE_SRCS:%.c=$(HYP_BUILD)/core/%.o)
HYP_ELF     := $(HYP_BUILD)/perfvisor.elf

$(HYP_C_SRCS:hyp/%.c=$(HYP_BUILD)/%.o): $(HYP_BUILD)/%.o: hyp/%.c $(HYP_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HYP_CFLAGS) -c $< -o $@

$(EL2_SRCS:el2/%.c=$(HYP_BUILD)/el2/%.o): $(HYP_BUILD)/el2/%.o: el2/%.c $(HYP_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HYP_CFLAGS) -c $< -o $@

$(HYP_S_SRCS:hyp/%.S=$(HYP_BUILD)/%.o): $(HYP_BUILD)/%.o: hyp/%.S $(HYP_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HYP_CFLAGS) -c $< -o $@

# The library core, freestanding, with the hypervisor's flags.
$(HYP_CORE_OBJS): $(HYP_BUILD)/core/%.o: %.c $(HYP_DEPS) $(wildcard vpmu/*.h)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HYP_CFLAGS) -c $< -o $@

$(HYP_ELF): $(HYP_OBJS) $(HYP_CORE_OBJS) hyp/hyp.ld
	@$(OBJCYCLES) $(HYP_NM) hyp $(HYP_OBJS)
	$(HYP_CC) $(HYP_LDFLAGS) -T hyp/hyp.ld -o $@ $(HYP_OBJS) $(HYP_CORE_OBJS) -lgcc

# ---- Guests (tests/guest/): a small freestanding library and one program per image ------------
GUEST_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -ffreestanding -nostdlib -fno-builtin \
                -fno-tree-loop-distribute-patterns -fno-stack-protector -fno-pie \
                -mgeneral-regs-only -mstrict-align -fno-delete-null-pointer-checks \
                -Itests/guest/lib
GUEST_LIB_SRCS := $(sort $(wildcard tests/guest/lib/*.c tests/guest/lib/*.S))
GUEST_LIB_OBJS := $(patsubst tests/guest/lib/%,$(GUEST_BUILD)/lib/%.o,$(GUEST_LIB_SRCS))
GUEST_PROGS := $(patsubst tests/guest/%.c,%,$(sort $(wildcard tests/guest/*.c)))
GUEST_BINS  := $(GUEST_PROGS:%=$(GUEST_BUILD)/%.bin)
GUEST_DEPS  := $(wildcard tests/guest/lib/*.h) hyp/hyp.mk

$(GUEST_LIB_OBJS): $(GUEST_BUILD)/lib/%.o: tests/guest/lib/% $(GUEST_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_BUILD)/%.elf: tests/guest/%.c $(GUEST_LIB_OBJS) tests/guest/lib/guest.ld $(GUEST_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(GUEST_CFLAGS) $(HYP_LDFLAGS) -T tests/guest/lib/guest.ld -o $@ $< \
		$(GUEST_LIB_OBJS) -lgcc

$(GUEST_BUILD)/%.bin: $(GUEST_BUILD)/%.elf
	$(HYP_OBJCOPY) -O binary $< $@

# ---- The Linux guest's initramfs (tests/guest/linux/): /init, a static program, no libc -----
LINUX_BUILD  := $(BUILD)/linux
LINUX_INITRD := $(LINUX_BUILD)/initramfs.cpio
LINUX_INIT_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -static -nostdlib -ffreestanding \
                     -fno-builtin -fno-stack-protector -no-pie -mgeneral-regs-only -s

$(LINUX_BUILD)/init: tests/guest/linux/init.c tests/guest/linux/nolibc.h hyp/hyp.mk
	@mkdir -p $(dir $@)
	$(HYP_CC) $(LINUX_INIT_CFLAGS) -o $@ $<

$(LINUX_INITRD): $(LINUX_BUILD)/init tests/guest/linux/mkcpio.sh
	sh tests/guest/linux/mkcpio.sh $@ $<

# The shell initramfs of `make run-linux`: Debian's busybox-static (fetched into build/linux,
# like the kernel) and a shell on the console.
LINUX_SHELL_INITRD := $(LINUX_BUILD)/initramfs-shell.cpio
$(LINUX_BUILD)/busybox:
	@sh tests/guest/linux/fetch-busybox.sh $(LINUX_BUILD) >/dev/null

$(LINUX_SHELL_INITRD): $(LINUX_BUILD)/busybox tests/guest/linux/shell-init.sh tests/guest/linux/mkcpio.sh
	sh tests/guest/linux/mkcpio.sh $@ tests/guest/linux/shell-init.sh bin/busybox=$(LINUX_BUILD)/busybox

.PHONY: hyp guests qemu-check run qemu-bench qemu-linux run-linux
hyp: $(HYP_ELF) $(GUEST_BINS) $(LINUX_INITRD)
guests: $(GUEST_BINS)

qemu-check: hyp
	@QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh check $(HYP_ELF) $(GUEST_BUILD)

run: hyp
	@QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh demo $(HYP_ELF) $(GUEST_BUILD)

qemu-bench: hyp
	@QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh bench $(HYP_ELF) $(GUEST_BUILD)

qemu-linux: hyp
	@QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh linux $(HYP_ELF) $(GUEST_BUILD)

# The Debian kernel with a shell on its console, interactive: type at the terminal; Ctrl-A K
# gives VM slot K the input; `poweroff -f` ends it (docs/qemu.md, "A shell").
run-linux: hyp $(LINUX_SHELL_INITRD)
	@QEMU=$(QEMU_AARCH64) sh tests/guest/run.sh shell $(HYP_ELF) $(GUEST_BUILD)
