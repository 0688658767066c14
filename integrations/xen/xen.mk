# SPDX-License-Identifier: MIT
# integrations/xen/ — perfvisor as the vPMU of Xen on Arm. Included by the top-level Makefile
# (BUILD, GEN, CORE_SRCS, HYP_* and GUEST_BINS come from there and hyp/hyp.mk).
#
#   make xen-check   Debian's Xen 4.17 source (pinned), the integration applied, Xen built
#                    with the bridge archive, its guests booted dom0less under QEMU, their live
#                    figures read by the tool's `perfvisor serve`; last line "N passed,
#                    M failed" (", 1 skipped" without network: the line before says why)
#
# The bridge archive: the core, the shared EL2 accessors (el2/) and the bridge, built with
# perfvisor's headers for aarch64 (Xen's build cannot include them), linked into Xen.
XEN_BUILD := $(BUILD)/xen
XEN_LIB   := $(XEN_BUILD)/libperfvisor-xen.a
XEN_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -ffreestanding -nostdlib -fno-builtin \
              -fno-tree-loop-distribute-patterns -fno-stack-protector -fno-pie \
              -fno-asynchronous-unwind-tables -mgeneral-regs-only -Iinclude -I$(GEN) -Iel2 \
              -Iintegrations/xen/bridge -DPV_PLATFORM_INLINE='"plat_sysreg.h"' -MMD -MP
XEN_SRCS  := $(CORE_SRCS) $(sort $(wildcard el2/*.c integrations/xen/bridge/*.c))
XEN_OBJS  := $(XEN_SRCS:%.c=$(XEN_BUILD)/obj/%.o)
XEN_HOST_OBJS := $(filter $(XEN_BUILD)/obj/el2/% $(XEN_BUILD)/obj/integrations/%,$(XEN_OBJS))

$(XEN_OBJS): $(XEN_BUILD)/obj/%.o: %.c $(PV_HDRS) $(wildcard el2/*.h) $(wildcard integrations/xen/bridge/*.h) \
		integrations/xen/xen.mk $(wildcard vpmu/*.h)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(XEN_CFLAGS) -c $< -o $@

$(XEN_LIB): $(XEN_OBJS)
	@$(OBJCYCLES) $(HYP_NM) xen-bridge $(XEN_HOST_OBJS)
	rm -f $@
	$(HYP_CROSS)ar rcs $@ $(XEN_OBJS)

# The Xen suite's own guest programs (integrations/xen/guests/: what only Xen's console
# tests), built as the guest suite's are, with its library.
XEN_GUEST_BINS := $(patsubst integrations/xen/guests/%.c,$(XEN_BUILD)/guests/%.bin,\
                  $(sort $(wildcard integrations/xen/guests/*.c)))

$(XEN_BUILD)/guests/%.elf: integrations/xen/guests/%.c $(GUEST_LIB_OBJS) tests/guest/lib/guest.ld $(GUEST_DEPS)
	@mkdir -p $(dir $@)
	$(HYP_CC) $(GUEST_CFLAGS) $(HYP_LDFLAGS) -T tests/guest/lib/guest.ld -o $@ $< \
		$(GUEST_LIB_OBJS) -lgcc

$(XEN_BUILD)/guests/%.bin: $(XEN_BUILD)/guests/%.elf
	$(HYP_OBJCOPY) -O binary $< $@

# make check runs the Xen suite (the Makefile's check): its own guests, built beside it.
check: $(if $(QEMU_CHECK_AVAILABLE),$(XEN_GUEST_BINS))

# A change to the hooks makes the hooked tree anew (apply.sh copies it once otherwise).
$(XEN_BUILD)/work/.perfvisor-hooked: integrations/xen/hooks.txt integrations/xen/apply.sh scripts/apply-hooks.sh
	rm -rf $(XEN_BUILD)/work

.PHONY: xen-check
xen-check: $(XEN_LIB) $(GUEST_BINS) $(XEN_GUEST_BINS) $(TOOL) $(LINUX_INITRD) \
		$(wildcard $(XEN_BUILD)/work/.perfvisor-hooked)
	@HYP_CROSS=$(HYP_CROSS) sh integrations/xen/check.sh check $(XEN_LIB) $(GUEST_BUILD)

# The xen.* figures of make bench.
.PHONY: xen-bench
xen-bench: $(XEN_LIB) $(GUEST_BINS) $(wildcard $(XEN_BUILD)/work/.perfvisor-hooked)
	@HYP_CROSS=$(HYP_CROSS) sh integrations/xen/check.sh bench $(XEN_LIB) $(GUEST_BUILD)
