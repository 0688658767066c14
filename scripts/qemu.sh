#!/bin/sh
# SPDX-License-Identifier: MIT
# The machine every perfvisor run uses: QEMU's `virt` board with EL2 (virtualization=on) and
# a GICv3, one `max` CPU (QEMU_SMP=N: N of them), 1 GiB (QEMU_MEM=SIZE: more, for more VM
# slots of the reference hypervisor: 3G holds all 32), no network card (its option ROM comes
# from a package a fresh machine lacks), no display, no monitor. The caller adds the rest: the console (-serial or
# -chardev), -icount, -kernel build/hyp/perfvisor.elf, -append BOOTARGS and the guests'
# -device loader lines, and bounds the run with timeout (exec: the signal reaches QEMU).
#   scripts/qemu.sh OPTION...      QEMU: the emulator to run (default qemu-system-aarch64);
#                                  QEMU_CPU: the CPU (default max; the QEMU of our own takes
#                                  max,pv-pmu-fixes=off: docs/qemu.md)
exec "${QEMU:-qemu-system-aarch64}" -M virt,virtualization=on,gic-version=3 -cpu "${QEMU_CPU:-max}" \
	-smp "${QEMU_SMP:-1}" \
	-m "${QEMU_MEM:-1G}" -nic none -display none -monitor none "$@"
