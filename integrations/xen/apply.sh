#!/bin/sh
# SPDX-License-Identifier: MIT
# apply.sh SRC WORK: makes WORK a copy of the Xen source tree SRC with perfvisor integrated:
# the glue files of integrations/xen/xen/ and the bridge's header installed in it, and the
# hooks of integrations/xen/hooks.txt inserted into Xen's own files at the places found by
# their identifiers. Nothing of Xen is kept in this repository: what is inserted is ours.
#
# Stops (exit 1, one line on stderr starting "apply: ") when a hook's place is not exactly
# one line of its file: the source drifted from the one the hooks were written for, and
# hooks.txt must follow it (scripts/apply-hooks.sh places them). With WORK present, only the
# glue files are copied again (so Xen rebuilds incrementally); the Makefile makes WORK anew
# when hooks.txt, this script or the engine change.
set -u
src=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
hooks=${APPLY_HOOKS:-$here/hooks.txt} # another list: for apply.sh's own test (test-apply.sh)

fail() {
	echo "apply: $*" >&2
	exit 1
}

[ -f "$src/xen/Makefile" ] || fail "$src is not a Xen source tree (no xen/Makefile)"
# The source must be Xen's own: hooked once already, it would get every hook twice.
if [ -f "$src/.perfvisor-hooked" ] || grep -qs 'perfvisor' "$src/xen/arch/arm/traps.c"; then
	fail "$src holds perfvisor's hooks already: give the unmodified Xen source"
fi
# The hooks, by the engine every integration shares (scripts/apply-hooks.sh: its rules).
APPLY_INCLUDE='<asm/perfvisor.h>' sh "$here/../../scripts/apply-hooks.sh" Xen "$src" "$work" "$hooks" ||
	exit 1

# install FILE DEST: copy when different, so make sees a change only when there is one.
install() {
	cmp -s "$1" "$2" 2>/dev/null || cp "$1" "$2" || fail "cannot copy $1 to $2"
}

arm=$work/xen/arch/arm
install "$here/xen/perfvisor.c" "$arm/perfvisor.c"
install "$here/xen/perfvisor.h" "$arm/include/asm/perfvisor.h"
install "$here/bridge/pvx.h" "$arm/include/asm/pvx.h"
echo "$work"
