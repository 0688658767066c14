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
