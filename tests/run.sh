#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs test binaries (cmocka) and ends with one summary line: "N passed, M failed[, K skipped]".
# A binary that dies without a cmocka summary counts as one failure. Output of each binary is
# kept in build/test-logs/ (TEST_LOGDIR) and shown in full when it failed. TEST_WRAPPER, if
# set, is the command each binary runs under (make memcheck: valgrind). TEST_JOBS (1 unless
# set) binaries run at once; the results are reported in the order given, as if run one by
# one (the tests name their temporary files by process, so they may share the machine).
# Every skip is explained on the lines just above the summary, one "skipped: WHO: WHY" each:
# a test that skips prints "skipped: WHY" first (a skip without one is named as such).
passed=0
failed=0
skipped=0
logdir=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
reasons="$logdir/skip-reasons"
: >"$reasons"
# Run: each binary's output in its log, its exit status beside it.
export TEST_WRAPPER="${TEST_WRAPPER:-}" RUN_LOGDIR="$logdir"
printf '%s\n' "$@" | xargs -P "${TEST_JOBS:-1}" -n 1 sh -c '
	log="$RUN_LOGDIR/$(basename "$1").log"
	# shellcheck disable=SC2086
	$TEST_WRAPPER "$1" >"$log" 2>&1
	echo $? >"$log.status"' run-one
# Report, in order.
for bin in "$@"; do
	name=$(basename "$bin")
	log="$logdir/$name.log"
	rc=$(cat "$log.status" 2>/dev/null || echo 127)
	rm -f "$log.status"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | head -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | head -n1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | head -n1)
	p=${p:-0}; f=${f:-0}; s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "$name: exited with status $rc without a test summary" >>"$log"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$s" -ne 0 ]; then
		grep '^skipped: ' "$log" | sort -u | sed "s|^skipped: |skipped: $name: |" >>"$reasons"
		grep -q '^skipped: ' "$log" ||
			echo "skipped: $name: $s test(s), without a reason (log: $log)" >>"$reasons"
	fi
	if [ "$f" -ne 0 ]; then
		echo "FAIL $name ($p passed, $f failed)"
		sed 's/^/    /' "$log"
	else
		echo "ok   $name ($p passed${s:+, $s skipped})" | sed 's/, 0 skipped//'
	fi
done
# A suite run by its own command (each fuzz target over its seeds, FUZZ_SUITE; the guest
# suite under QEMU, QEMU_SUITE; a guest's live figures in Prometheus, PROM_SUITE; perfvisor in
# Xen, XEN_SUITE; the QEMU of our own and its model tests, HW_SUITE) ends with its own
# "N passed, M failed[, K skipped]"; a skip is explained by a "...: skipped: why" line.
#   suite TITLE LOGNAME COMMAND
suite() {
	title=$1
	log="$logdir/$2.log"
	$3 >"$log" 2>&1
	summary=$(tail -n1 "$log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p')
	p=$(echo "$summary" | cut -d' ' -f1)
	f=$(echo "$summary" | cut -d' ' -f2)
	s=$(echo "$summary" | cut -d' ' -f3)
	s=${s:-0}
	if [ -z "$summary" ]; then
		p=0
		f=1
		echo "$3: no summary line" >>"$log"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ "$s" -ne 0 ]; then
		sed -n "s/^\\(.*\\): skipped: /skipped: $title: \\1: /p" "$log" >>"$reasons"
		grep -q ': skipped: ' "$log" ||
			echo "skipped: $title: $s test(s), without a reason (log: $log)" >>"$reasons"
	fi
	# A suite that tests a fetched source says which version on a "tested: " line.
	tested=$(sed -n 's/^tested: /; /p' "$log" | head -n1)
	if [ "$f" -ne 0 ]; then
		echo "FAIL $title ($p passed, $f failed$tested)"
		sed 's/^/    /' "$log"
	elif [ "$s" -ne 0 ]; then
		echo "ok   $title ($p passed, $s skipped$tested)"
	else
		echo "ok   $title ($p passed$tested)"
	fi
}
[ -z "${FUZZ_SUITE:-}" ] || suite "fuzz targets over their seeds" fuzz-corpus "$FUZZ_SUITE"
[ -z "${QEMU_SUITE:-}" ] || suite "qemu guest suite" qemu-check "$QEMU_SUITE"
[ -z "${QEMU_SUITE_NOFAST:-}" ] ||
	suite "qemu guest suite, fasttrap=off" qemu-check-nofast "$QEMU_SUITE_NOFAST"
[ -z "${PROM_SUITE:-}" ] || suite "prometheus suite" prometheus "$PROM_SUITE"
[ -z "${XEN_SUITE:-}" ] || suite "xen suite" xen-check "$XEN_SUITE"
[ -z "${HW_SUITE:-}" ] || suite "hw suite" hw-check "$HW_SUITE"
# Suites that are skipped as a whole say why through SKIP_REASONS (one reason per line).
if [ -n "${SKIP_REASONS:-}" ]; then
	printf '%s\n' "$SKIP_REASONS" | grep . | sed 's/^/skipped: /' >>"$reasons"
	skipped=$((skipped + $(printf '%s\n' "$SKIP_REASONS" | grep -c .)))
fi
cat "$reasons"
if [ "$skipped" -ne 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
