#!/bin/sh
# SPDX-License-Identifier: MIT
# make lint: cppcheck and clang-tidy with the configurations checked in at the top of the tree
# (.cppcheck-suppressions, .clang-tidy), clang-format (.clang-format, over $FORMAT_SRCS), the
# generated documents against what is committed, the Arm ARM citations (citations.sh), and the
# kernel-doc comment of every function of the public headers (kerneldoc.sh).
#   lint.sh CPPCHECK CLANG_TIDY "CORE_SOURCES" "FUZZ_SOURCES" "TOOL_CFLAGS" REGISTERS_MD
# One test per analyser and set of sources; an analyser that is not installed is a failure
# (CI installs both). REGISTERS_MD is docs/registers.md as the register database generates it
# now (make docs). Ends with "N passed, M failed".
cppcheck=$1
tidy=$2
core=$3
fuzz=$4
toolcflags=$5
registers_md=$6
passed=0
failed=0
logdir=build/lint
mkdir -p "$logdir"

result() { # result NAME STATUS LOG
	if [ "$2" -eq 0 ]; then
		echo "lint: $1: clean"
		passed=$((passed + 1))
	else
		echo "lint: $1: FAILED (log: $3)"
		grep -E '(warning|error|style|performance|portability):' "$3" | head -n 20 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

run_cppcheck() { # run_cppcheck NAME SOURCES FLAGS...
	name=$1
	srcs=$2
	shift 2
	log=$logdir/cppcheck-$name.log
	if ! command -v "$cppcheck" >/dev/null 2>&1; then
		echo "$cppcheck: not installed (apt-get install cppcheck)" >"$log"
		result "cppcheck $name" 1 "$log"
		return
	fi
	# shellcheck disable=SC2086
	"$cppcheck" --enable=warning,style,performance,portability --std=c11 --inline-suppr -q \
		--suppressions-list=.cppcheck-suppressions --error-exitcode=1 \
		--template='{file}:{line}: {severity}: {message} [{id}]' "$@" $srcs >"$log" 2>&1
	result "cppcheck $name" $? "$log"
}

run_tidy() { # run_tidy NAME SOURCES FLAGS...
	name=$1
	srcs=$2
	shift 2
	log=$logdir/clang-tidy-$name.log
	if ! command -v "$tidy" >/dev/null 2>&1; then
		echo "$tidy: not installed (apt-get install clang-tidy)" >"$log"
		result "clang-tidy $name" 1 "$log"
		return
	fi
	# shellcheck disable=SC2086
	"$tidy" --quiet $srcs -- "$@" >"$log" 2>&1
	st=$?
	# Findings are errors (WarningsAsErrors); anything reported at all fails.
	grep -qE '(warning|error): ' "$log" && st=1
	result "clang-tidy $name" $st "$log"
}

run_cppcheck core "$core" -Iinclude -Ibuild/gen -D__GNUC__
run_tidy core "$core" -std=c11 -Iinclude -Ibuild/gen -ffreestanding
if [ -n "$fuzz" ]; then
	# shellcheck disable=SC2086
	run_cppcheck fuzz "$fuzz" -Iinclude -Ibuild/gen -Itests/support -Itools
	# shellcheck disable=SC2086
	run_tidy fuzz "$fuzz" -std=c11 -D_DEFAULT_SOURCE -Iinclude -Ibuild/gen -Itests/support -Itools -I. $toolcflags
fi
# The host code: the machine model and the tool (LINT_HOST), and the code that runs at EL2
# (LINT_HYP: the hypervisor, el2/, the Xen bridge), analysed for aarch64 as it is built.
if [ -n "${LINT_HOST:-}" ]; then
	# shellcheck disable=SC2086
	run_cppcheck host "$LINT_HOST" -Iinclude -Ibuild/gen -I. -Itools -D_DEFAULT_SOURCE $toolcflags
	# shellcheck disable=SC2086
	run_tidy host "$LINT_HOST" -std=c11 -D_DEFAULT_SOURCE -Iinclude -Ibuild/gen -I. -Itools \
		$toolcflags
fi
if [ -n "${LINT_HYP:-}" ]; then
	run_cppcheck hyp "$LINT_HYP" -Iinclude -Ibuild/gen -Ihyp -Iel2 -Iintegrations/xen/bridge \
		-D__GNUC__ -D__aarch64__
	run_tidy hyp "$LINT_HYP" --target=aarch64-linux-gnu -std=c11 -ffreestanding -Iinclude \
		-Ibuild/gen -Ihyp -Iel2 -Iintegrations/xen/bridge '-DPV_PLATFORM_INLINE="plat_sysreg.h"'
fi

# Every C file as .clang-format says (make format fixes them).
log=$logdir/format-check.log
if command -v "${CLANG_FORMAT:-clang-format}" >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	"${CLANG_FORMAT:-clang-format}" --style=file --dry-run -Werror $FORMAT_SRCS >"$log" 2>&1
	result "clang-format" $? "$log"
else
	echo "error: ${CLANG_FORMAT:-clang-format} is not installed" >"$log"
	result "clang-format" 1 "$log"
fi

# docs/registers.md is generated (make docs): the committed one must be the database's.
log=$logdir/docs-check.log
if [ -n "$registers_md" ] && cmp -s "$registers_md" docs/registers.md; then
	: >"$log"
	result "docs-check" 0 "$log"
else
	{ diff -u docs/registers.md "$registers_md" | head -n 40
	  echo "error: docs/registers.md is stale: run make docs and commit it"; } >"$log" 2>&1
	result "docs-check" 1 "$log"
fi
# Arm ARM citations against the pinned revision's table (docs/README.md), and the check itself
# against a tree that breaks each of its rules.
log=$logdir/citations.log
sh tests/citations.sh >"$log" 2>&1
result "citations" $? "$log"
log=$logdir/citations-self.log
bad=$logdir/citations-tree
rm -rf "$bad" && mkdir -p "$bad/docs" && cp docs/README.md "$bad/docs/" &&
	printf '/* D%s */\n/* D%s */\n/* DDI %s K.a */\n/* D24.5, 0xD12, PMD1 */\n' 13.x 99.1 0487 \
		>"$bad/a.c"
sh tests/citations.sh "$bad" >"$log.out" 2>&1
if [ "$(cut -d: -f2 "$log.out" | tr '\n' ' ')" = "1 2 3 " ]; then st=0; else st=1; fi
{ echo "expected findings on lines 1 2 3 of a.c, got:"; cat "$log.out"; } >"$log"
result "citations self-test" $st "$log"
# A kernel-doc comment on every function of the public headers, and the check itself against
# headers that break each of its rules.
log=$logdir/kerneldoc.log
sh tests/kerneldoc.sh include/perfvisor/*.h >"$log" 2>&1
result "kernel-doc" $? "$log"
log=$logdir/kerneldoc-self.log
sh tests/kerneldoc.sh --self-test >"$log" 2>&1
result "kernel-doc self-test" $? "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
