# shellcheck shell=sh
# SPDX-License-Identifier: MIT
# What the guest suites share, whatever host runs the guests (sourced with ". FILE"):
# tests/guest/run.sh under perfvisor's hypervisor, integrations/xen/check.sh under Xen.
# The caller sets `gdir` (the guest binaries) before calling the functions that need it.
passed=0
failed=0
skipped=0

pass() {
	passed=$((passed + 1))
}

fail() {
	failed=$((failed + 1))
	echo "    FAIL: $1"
}

# result TITLE: one test, passed when the command run just before succeeded.
result() {
	if [ $? -eq 0 ]; then
		echo "$1: ok"
		pass
	else
		fail "$1"
	fi
}

# summary: the suite's last line, "N passed, M failed[, K skipped]"; fails if any failed.
summary() {
	if [ "$skipped" -ne 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

# type_after LOG MARKER TEXT: prints TEXT (a line; printf escapes allowed) once LOG shows
# MARKER, as someone typing at the terminal would; at most 60 s of waiting. For QEMU's stdin.
type_after() {
	i=0
	while [ "$i" -lt 600 ] && ! grep -q "$2" "$1" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	# shellcheck disable=SC2059 # TEXT is a printf format: "\001" is Ctrl-A
	printf "$3\n"
}

# tally NAME LOG PREFIX: every "ok"/"not ok" line the guests printed is one test. PREFIX is
# the basic regular expression the host puts before a guest's console line.
tally() {
	p=$(grep -c "^$3ok " "$2")
	f=$(grep -c "^$3not ok " "$2")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$1: $p passed, $f failed (log: $2)"
	grep "^$3not ok " "$2" | sed 's/^/    /'
}

# The Linux guest's perf measurements (tests/guest/linux/init.c): COUNT_ITERS rounds of a
# two-instruction loop counted by perf stat, SAMPLE_ITERS of them sampled every SAMPLE_PERIOD
# instructions; init adds 6 instructions of its own to each window.
COUNT_ITERS=1000000
SAMPLE_ITERS=2500000
SAMPLE_PERIOD=50000

# linux_perf_checks NAME LOG PREFIX COUNTERS: the PMU driver's probe of the guest's COUNTERS
# counters, then perf's counts, exact under -icount (1 cycle per instruction). PREFIX: as
# for tally.
linux_perf_checks() {
	lp_prefix=$3
	lp() { sed -n "s/^$lp_prefix\[ *[0-9.]*\] pvinit: $1 \([0-9]*\)\$/\1/p" "$2" | head -n1; }
	probe="hw perfevents: enabled with armv8_pmuv3 PMU driver, $((${4:-0} + 1)) counters available"
	grep -q "^$3\[ *[0-9.]*\] $probe\$" "$2"
	result "$1: PMU driver probed the guest's ${4:-?} counters + the cycle counter"
	k=$((2 * COUNT_ITERS + 6))
	ks=$((2 * SAMPLE_ITERS + 6))
	[ "$(lp instructions "$2")" = "$k" ]
	result "$1: perf instructions:u over the window = $k"
	[ "$(lp instructions-again "$2")" = "$((2 * k))" ]
	result "$1: perf instructions:u over two windows = $((2 * k))"
	[ "$(lp cycles "$2")" = "$k" ]
	result "$1: perf cycles:u over the window = $k (icount: 1 cycle per instruction)"
	[ "$(lp sampling-instructions "$2")" = "$ks" ]
	result "$1: perf sampling: instructions:u = $ks"
	irqs=$(lp sampling-interrupts "$2")
	want=$((ks / SAMPLE_PERIOD))
	[ -n "$irqs" ] && [ "$irqs" -ge $((want - 1)) ] && [ "$irqs" -le "$want" ]
	result "$1: perf sampling: ${irqs:-no} PMU overflow interrupts for $want periods"
}
