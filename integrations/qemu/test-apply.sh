#!/bin/sh
# SPDX-License-Identifier: MIT
# test-apply.sh DIR: the insertion script's rules (integrations/qemu/apply.sh and the engine
# it shares with Xen's, scripts/apply-hooks.sh), on a small tree of our making in DIR (no QEMU
# needed): each kind of hook lands exactly where its identifiers say, `replace` takes the place
# of the one line it names, our files are added and copied again only when they change; and
# nothing is made when a place matches no line or two (in the file, or in the function a
# `within` names), when the list is malformed, when the source is hooked already, when one of
# our files would replace one of the source's, or when WORK is SRC.
# One "ok"/"not ok" line per check; the last line is "N passed, M failed".
set -u
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
check() { # check TITLE: the command just before succeeded
	if [ $? -eq 0 ]; then
		echo "ok $1"
		passed=$((passed + 1))
	else
		echo "not ok $1"
		failed=$((failed + 1))
	fi
}

rm -rf "$dir" && mkdir -p "$dir/src/target/arm" "$dir/files/target/arm/ours" || exit 1
src=$dir/src
echo "project('stand-in')" >"$src/meson.build"
printf "a_ss = []\nsubdir('one')\n" >"$src/target/arm/meson.build"
cat >"$src/target/arm/cpu.c" <<'EOF'
/* a comment */
#include "first.h"
#include "second.h"
void one(void)
{
    step(a);
}
static void two(int x)
{
    step(a);
    set(x, 1);
    last();
}
EOF
echo 'int ours;' >"$dir/files/target/arm/ours/ours.c"
echo '# ours' >"$dir/files/target/arm/ours/meson.build"
hooks=$dir/hooks.txt
work=$dir/work
# apply_with HOOKS...: apply.sh with that hook list and files/, SRC into WORK; its status.
apply_with() {
	printf '%s\n' "$@" >"$hooks"
	rm -rf "$work"
	APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$src" "$work" >/dev/null 2>"$dir/err"
}
# body FUNCTION: that function of the hooked cpu.c, its lines joined by "|".
body() {
	sed -n "/^$1/,/^}/p" "$work/target/arm/cpu.c" | tr '\n' '|'
}

apply_with "file target/arm/meson.build" "after ^subdir\\('one'\\)\$" "subdir('ours')" end \
	"file target/arm/cpu.c" include "after-brace ^void one\\(void\\)\$" "    first();" end \
	"within ^static void two" "replace ^    set\\(x, 1\\);\$" "#ifdef X" "    set(x, 2);" "#endif" end \
	"within ^static void two" "before ^    step\\(a\\);\$" "    hook();" end
[ "$(body 'void one')" = 'void one(void)|{|    first();|    step(a);|}|' ] &&
	[ "$(body 'static void two')" = 'static void two(int x)|{|    hook();|    step(a);|#ifdef X|    set(x, 2);|#endif|    last();|}|' ] &&
	[ "$(sed -n 2,3p "$work/target/arm/cpu.c" | tr '\n' '|')" = '#include "first.h"|#include "perfvisor/pv-hw.h" /* perfvisor */|' ] &&
	[ "$(tail -n1 "$work/target/arm/meson.build")" = "subdir('ours')" ]
check "each hook where its identifiers say: include after the first #include, after-brace, within, replace (its # lines kept), before"

[ "$(tail -n +2 "$work/.perfvisor-hooked" | tr '\n' ' ')" = 'target/arm/cpu.c target/arm/meson.build ' ] &&
	cmp -s "$dir/files/target/arm/ours/ours.c" "$work/target/arm/ours/ours.c" &&
	cmp -s "$dir/files/target/arm/ours/meson.build" "$work/target/arm/ours/meson.build" &&
	[ ! -e "$src/target/arm/ours" ] && ! grep -q perfvisor "$src/target/arm/cpu.c"
check "the marker lists the files hooked; our files added to WORK; the source untouched"

# Again with WORK there: only what changed is copied; a file no longer ours leaves WORK.
touch -d '2001-01-01' "$work/target/arm/ours/meson.build" "$work/target/arm/cpu.c"
echo 'int ours2;' >"$dir/files/target/arm/ours/ours.c"
echo 'int extra;' >"$dir/files/target/arm/ours/extra.c"
APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$src" "$work" >/dev/null 2>"$dir/err" &&
	cmp -s "$dir/files/target/arm/ours/ours.c" "$work/target/arm/ours/ours.c" &&
	[ -f "$work/target/arm/ours/extra.c" ] &&
	[ -z "$(find "$work/target/arm/ours/meson.build" "$work/target/arm/cpu.c" -newermt 2002-01-01)" ]
check "WORK made already: a changed file of ours copied, a new one added, the rest left (their times kept)"
rm "$dir/files/target/arm/ours/extra.c"
APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$src" "$work" >/dev/null 2>"$dir/err" &&
	[ ! -e "$work/target/arm/ours/extra.c" ]
check "a file no longer ours is removed from WORK"

apply_with "file target/arm/cpu.c" "after ^    step\\(a\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 2 lines, not 1: the QEMU source drifted' "$dir/err" && [ ! -e "$work" ] &&
	[ ! -e "$work.tmp" ]
check "a place matching two lines of the file: refused, no tree left"

apply_with "file target/arm/cpu.c" "replace ^    gone\\(\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 0 lines, not 1' "$dir/err" && [ ! -e "$work" ]
check "replace: a statement that is not there: refused, no tree left"

apply_with "file target/arm/cpu.c" "replace ^    step\\(a\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 2 lines, not 1' "$dir/err" && [ ! -e "$work" ]
check "replace: a statement that recurs, without within: refused"

apply_with "file target/arm/cpu.c" "within ^void one" "after ^    last\\(\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 0 lines, not 1' "$dir/err"
check "within: a match below the function's end does not count"

apply_with "file target/arm/cpu.c" "within ^(void one|static void two)" "after ^    last\\(\\);\$" x end
[ $? -ne 0 ] && grep -q 'matches 2 lines, not 1' "$dir/err"
check "within: a function name that matches two functions: refused"

apply_with "file target/arm/gone.c" "after ^x\$" x end
[ $? -ne 0 ] && grep -q 'target/arm/gone.c: no such file in the QEMU source' "$dir/err" && [ ! -e "$work" ]
check "a file the source does not have: refused"

apply_with "file target/arm/cpu.c" "insert ^x\$" x end
[ $? -ne 0 ] && grep -q 'unknown directive "insert"' "$dir/err" && [ ! -e "$work" ]
check "an unknown directive: refused"

apply_with "file target/arm/cpu.c" "after ^    last\\(\\);\$" x
[ $? -ne 0 ] && grep -q 'ends inside a block' "$dir/err" && [ ! -e "$work" ]
check "a block with no end: refused"

apply_with "after ^    last\\(\\);\$" x end
[ $? -ne 0 ] && grep -q 'before any "file" line' "$dir/err" && [ ! -e "$work" ]
check "a hook before any file line: refused"

cp -a "$src" "$dir/hooked" && echo '    pv_hw_cpu_post_init(obj); /* perfvisor */' >>"$dir/hooked/target/arm/cpu.c"
APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$dir/hooked" "$dir/again" >/dev/null 2>"$dir/err"
[ $? -ne 0 ] && grep -q "holds perfvisor's hooks already" "$dir/err" && [ ! -e "$dir/again" ]
check "a source that is hooked already: refused"

mkdir -p "$dir/files/target/arm/perfvisor" && echo x >"$dir/files/target/arm/cpu.c"
apply_with "file target/arm/cpu.c" "after ^    last\\(\\);\$" x end
[ $? -ne 0 ] && grep -q "target/arm/cpu.c is QEMU's own file" "$dir/err" && [ ! -e "$work" ]
check "a file of ours that would replace one of QEMU's: refused"
rm "$dir/files/target/arm/cpu.c"

printf '%s\n' "file target/arm/cpu.c" "after ^    last\\(\\);\$" x end >"$hooks"
APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$src" "$src" >/dev/null 2>"$dir/err"
[ $? -ne 0 ] && grep -q 'WORK is SRC' "$dir/err" && ! grep -q '^x$' "$src/target/arm/cpu.c"
check "WORK the same as SRC: refused, the source left alone"

rm -rf "$dir/notqemu" && mkdir -p "$dir/notqemu"
APPLY_HOOKS=$hooks APPLY_FILES=$dir/files sh "$here/apply.sh" "$dir/notqemu" "$work" >/dev/null 2>"$dir/err"
[ $? -ne 0 ] && grep -q 'is not a QEMU source tree' "$dir/err"
check "a tree that is not QEMU's: refused"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
