# SPDX-License-Identifier: MIT
# integrations/qemu/ — the QEMU of our own: Debian trixie's QEMU 10.0 source (pinned), with
# perfvisor's hardware models inserted by a script of ours, built for aarch64 (docs/qemu.md,
# "The QEMU of our own"). Included by the top-level Makefile (BUILD comes from there).
#
#   make hw-qemu             build/hw-qemu/qemu-system-aarch64 (cached: seconds when nothing
#                            changed or one model file did; ccache in build/ccache)
#   make hw-qemu-diff        the hooked tree as a diff against the pristine source, on stdout
#                            (for a reviewer; never committed)
#   make hw-qemu-test-apply  the insertion script's own test, on a small tree of ours
HW_QEMU_BUILD := $(BUILD)/hw-qemu
HW_QEMU       := $(HW_QEMU_BUILD)/qemu-system-aarch64

.PHONY: hw-qemu hw-qemu-diff hw-qemu-test-apply
hw-qemu:
	@sh integrations/qemu/build.sh build $(HW_QEMU_BUILD) >/dev/null

hw-qemu-diff:
	@sh integrations/qemu/build.sh diff $(HW_QEMU_BUILD)

hw-qemu-test-apply:
	@sh integrations/qemu/test-apply.sh $(BUILD)/hw-qemu-test-apply

# ---- The models' tests (tests/hw/): bare-metal programs at EL2 on this QEMU, no perfvisor ----
#   make hw-check            builds what it needs (hw-qemu), runs the insertion script's test and
#                            the model tests, each with the fixes on and off; last line
#                            "N passed, M failed" (", 1 skipped" where QEMU's source cannot be
#                            fetched at all: the line before says why)
HW_TESTS_BUILD := $(BUILD)/hw-tests
HW_TEST_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -ffreestanding -nostdlib -fno-builtin \
                  -fno-tree-loop-distribute-patterns -fno-stack-protector -fno-pie \
                  -mgeneral-regs-only -mstrict-align -march=armv8.8-a -Itests/hw/lib -MMD -MP
HW_TEST_LIB   := $(HW_TESTS_BUILD)/lib/start.o $(HW_TESTS_BUILD)/lib/hw.o
HW_TEST_PROGS := $(patsubst tests/hw/%.c,%,$(sort $(wildcard tests/hw/*.c)))
HW_TEST_ELFS  := $(HW_TEST_PROGS:%=$(HW_TESTS_BUILD)/%.elf)

$(HW_TESTS_BUILD)/lib/%.o: tests/hw/lib/%.c integrations/qemu/qemu.mk
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HW_TEST_CFLAGS) -c $< -o $@

$(HW_TESTS_BUILD)/%.o: tests/hw/%.S integrations/qemu/qemu.mk
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HW_TEST_CFLAGS) -c $< -o $@

$(HW_TESTS_BUILD)/lib/%.o: tests/hw/lib/%.S integrations/qemu/qemu.mk
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HW_TEST_CFLAGS) -c $< -o $@

# A program is tests/hw/NAME.c, with tests/hw/NAME_seq.S when there is one.
$(foreach p,$(HW_TEST_PROGS),$(if $(wildcard tests/hw/$(p)_seq.S),\
	$(eval $(HW_TESTS_BUILD)/$(p).elf: $(HW_TESTS_BUILD)/$(p)_seq.o)))
$(HW_TEST_ELFS): $(HW_TESTS_BUILD)/%.elf: tests/hw/%.c $(HW_TEST_LIB) tests/hw/lib/hw.ld
	@mkdir -p $(dir $@)
	$(HYP_CC) $(HW_TEST_CFLAGS) $(HYP_LDFLAGS) -T tests/hw/lib/hw.ld -o $@ $< \
		$(filter %.o,$^) -lgcc

-include $(wildcard $(HW_TESTS_BUILD)/*.d $(HW_TESTS_BUILD)/lib/*.d)

# The host side of tests/hw/spe: perfvisor's own record codec (sim/spe_packet.c) reads the
# records the model wrote (tests/hw/run.sh runs it on the program's log).
$(HW_TESTS_BUILD)/spe_host: tests/hw/host/spe_host.c sim/spe_packet.c \
		include/perfvisor/spe_packet.h integrations/qemu/qemu.mk
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -Iinclude -D_DEFAULT_SOURCE -o $@ \
		tests/hw/host/spe_host.c sim/spe_packet.c

.PHONY: hw-tests hw-check
hw-tests: $(HW_TEST_ELFS) $(HW_TESTS_BUILD)/spe_host

hw-check: hw-tests
	@sh tests/hw/check.sh $(HW_QEMU_BUILD) $(HW_TESTS_BUILD)
# The reference hypervisor and its guests, for the guest suite on this QEMU (tests/hw/check.sh).
hw-check: hyp
