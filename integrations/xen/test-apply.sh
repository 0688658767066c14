#!/bin/sh
# SPDX-License-Identifier: MIT
# test-apply.sh DIR: apply.sh's own rules, on a small tree of our making in DIR (no Xen
# needed): a hook lands exactly where its identifiers say, "#" lines of a block are kept, and
# apply.sh refuses, leaving no tree, when a place matches no line or two (in the file, or in
# the function a `within` names), when the source is hooked already, and when WORK is SRC.
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

rm -rf "$dir" && mkdir -p "$dir/src/xen/arch/arm/include/asm" || exit 1
src=$dir/src
echo 'all:' >"$src/xen/Makefile"
cat >"$src/xen/arch/arm/f.c" <<'EOF'
#include <a.h>
void one(void)
{
    step();
}
void two(void)
{
    step();
    last();
}
EOF
hooks=$dir/hooks.txt
# apply_with HOOKS...: apply.sh with that hook list, SRC into $dir/work; its status.
apply_with() {
	printf '%s\n' "$@" >"$hooks"
	rm -rf "$dir/work"
	APPLY_HOOKS=$hooks sh "$here/apply.sh" "$src" "$dir/work" >/dev/null 2>"$dir/err"
}

apply_with "file xen/arch/arm/f.c" include "within ^void two" "before ^    step\\(\\);\$" \
	"#ifdef X" "    hook();" "#endif" end
got=$(sed -n '/^void two/,/^}/p' "$dir/work/xen/arch/arm/f.c" | tr '\n' '|')
[ "$got" = 'void two(void)|{|#ifdef X|    hook();|#endif|    step();|    last();|}|' ] &&
	grep -q '^#include <asm/perfvisor.h>' "$dir/work/xen/arch/arm/f.c" &&
	[ "$(grep -c 'hook()' "$dir/work/xen/arch/arm/f.c")" = 1 ]
check "a within hook goes into that function alone, its # lines kept, the include added"

apply_with "file xen/arch/arm/f.c" "after ^    step\\(\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 2 lines, not 1' "$dir/err" && [ ! -e "$dir/work" ]
check "a place matching two lines of the file: refused, no tree left"

apply_with "file xen/arch/arm/f.c" "after ^    gone\\(\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 0 lines, not 1' "$dir/err" && [ ! -e "$dir/work" ]
check "a place matching no line: refused, no tree left"

apply_with "file xen/arch/arm/f.c" "within ^void one" "after ^    last\\(\\);\$" "    hook();" end
[ $? -ne 0 ] && grep -q 'matches 0 lines, not 1' "$dir/err"
check "within: a match below the function's end does not count"

printf '    step();\n}\n' >>"$src/xen/arch/arm/f.c"
sed -i 's/^void two(void)$/void two(void) \/\/ drifted/' "$src/xen/arch/arm/f.c"
apply_with "file xen/arch/arm/f.c" "within ^void two\\(void\\)\$" "before ^    last\\(\\);\$" x end
[ $? -ne 0 ] && grep -q 'matches 0 lines, not 1' "$dir/err"
check "within: a function whose line drifted is not found"

apply_with "file xen/arch/arm/f.c" "after ^    last\\(\\);\$" "    hook();" end &&
	mv "$dir/work" "$dir/hooked" && rm -f "$dir/hooked/.perfvisor-hooked" &&
	mkdir -p "$dir/hooked/xen/arch/arm" && echo 'perfvisor_do_sysreg();' >"$dir/hooked/xen/arch/arm/traps.c"
APPLY_HOOKS=$hooks sh "$here/apply.sh" "$dir/hooked" "$dir/again" >/dev/null 2>"$dir/err"
[ $? -ne 0 ] && grep -q "holds perfvisor's hooks already" "$dir/err" && [ ! -e "$dir/again" ]
check "a source that is hooked already: refused"

APPLY_HOOKS=$hooks sh "$here/apply.sh" "$src" "$src" >/dev/null 2>"$dir/err"
[ $? -ne 0 ] && grep -q 'WORK is SRC' "$dir/err" && [ -f "$src/xen/Makefile" ]
check "WORK the same as SRC: refused, the source left alone"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
