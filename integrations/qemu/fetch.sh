#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch.sh DIR: puts Debian trixie's QEMU source, with Debian's patches applied, in DIR/src and
# prints DIR/src (scripts/fetch-source.sh: the version pinned below while the archive has it,
# else trixie's current one; DIR/src/.perfvisor-note says which). Nothing of QEMU is
# committed. QEMU_VERSION overrides the pin. Exit status and messages as fetch-source.sh's.
set -u
dir=${1:-build/hw-qemu}
QEMU_VERSION=${QEMU_VERSION:-1:10.0.13+ds-0+deb13u1}
exec sh "$(dirname "$0")/../../scripts/fetch-source.sh" "$dir" qemu trixie "$QEMU_VERSION" target/arm/cpu.c
