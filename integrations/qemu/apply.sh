#!/bin/sh
# SPDX-License-Identifier: MIT
# apply.sh SRC WORK: makes WORK a copy of the QEMU source tree SRC with perfvisor's models in
# it: the hooks of integrations/qemu/hooks.txt inserted into QEMU's own files at the places
# found by their identifiers (scripts/apply-hooks.sh), and our files (integrations/qemu/files/,
# laid out as in QEMU's tree) installed. Nothing of QEMU is kept in this repository.
#
# Stops (exit 1, one line on stderr starting "apply: ") when a hook's place is not exactly
# one line of its file (QEMU drifted: hooks.txt must follow it), when SRC is not a QEMU tree
# or holds the hooks already, and when one of our files would replace one of QEMU's. With
# WORK made already, only our files are copied again, and only those that changed (so ninja
# rebuilds what they touch); build.sh makes WORK anew when the hooks or the scripts change.
# Prints WORK.
set -u
src=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
hooks=${APPLY_HOOKS:-$here/hooks.txt} # another list: for the test (test-apply.sh)
files=${APPLY_FILES:-$here/files}

fail() {
	echo "apply: $*" >&2
	exit 1
}

[ -f "$src/target/arm/cpu.c" ] && [ -f "$src/meson.build" ] ||
	fail "$src is not a QEMU source tree (no target/arm/cpu.c)"
# The source must be QEMU's own: hooked once already, it would get every hook twice.
if [ -f "$src/.perfvisor-hooked" ] || grep -qs 'perfvisor' "$src/target/arm/cpu.c"; then
	fail "$src holds perfvisor's hooks already: give the unmodified QEMU source"
fi
# Our files only add to QEMU's tree: none may take the place of one of QEMU's.
ours=$(cd "$files" && find . -type f | sed 's|^\./||' | sort) || fail "no $files"
for f in $ours; do
	[ ! -e "$src/$f" ] || fail "$f is QEMU's own file: ours may only add files"
done
APPLY_INCLUDE='"perfvisor/pv-hw.h"' sh "$here/../../scripts/apply-hooks.sh" QEMU "$src" "$work" "$hooks" ||
	exit 1

# Copied when different, so that ninja sees a change only where there is one; a file that
# is ours no more is removed from WORK (the list of the last copy is WORK/.perfvisor-files).
for f in $(cat "$work/.perfvisor-files" 2>/dev/null); do
	[ -f "$files/$f" ] || rm -f "$work/$f"
done
for f in $ours; do
	mkdir -p "$(dirname "$work/$f")" || fail "cannot create $(dirname "$work/$f")"
	cmp -s "$files/$f" "$work/$f" 2>/dev/null || cp "$files/$f" "$work/$f" ||
		fail "cannot copy $f into $work"
done
printf '%s\n' "$ours" >"$work/.perfvisor-files"
echo "$work"
