#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the benchmark binaries given as arguments and prints one line per figure:
#   bench: <name>: <value> <unit>
# Each binary lists its figures with --list ("<name> <unit> <method> <mode>", see
# bench/bench_vpmu.c). Method "direct": the binary prints "value <x>". Method "callgrind":
# instructions counted by valgrind's callgrind inside measure_<mode>, minus the same loop run
# as <mode>_baseline around empty functions, divided by the operations the binary reports.
# The figure is the library's own cost: instructions executed inside the platform functions
# (pv_plat_*, the "hardware" of the plain-memory platform) are left out; a second line,
# <name>_with_platform, includes them.
# Raw callgrind output is kept in build/bench-out/.
set -u

outdir=build/bench-out
mkdir -p "$outdir"

have_valgrind=yes
command -v valgrind >/dev/null 2>&1 || have_valgrind=no
valgrind_skipped=no
status=0

fail() {
	echo "bench: error: $*" >&2
	status=1
}

# callgrind_run <binary> <mode> <toggle>...: prints "<instructions> <operations>".
callgrind_run() {
	bin=$1
	mode=$2
	shift 2
	out="$outdir/$(basename "$bin").$mode.callgrind"
	toggles=""
	for fn in "$@"; do
		toggles="$toggles --toggle-collect=$fn"
	done
	# $toggles is split on purpose: function names and patterns carry no blanks.
	# shellcheck disable=SC2086
	ops=$(valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
		$toggles "$bin" "$mode" 2>"$out.log" </dev/null | sed -n 's/^operations //p')
	instructions=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$out" 2>/dev/null | head -n1)
	[ -n "$instructions" ] ||
		instructions=$(sed -n 's/^summary: *\([0-9][0-9]*\).*/\1/p' "$out" 2>/dev/null | head -n1)
	if [ -z "$ops" ] || [ -z "$instructions" ]; then
		return 1
	fi
	# Self cost of the platform functions (they call nothing, so self = inclusive).
	platform=$(callgrind_annotate --auto=no --threshold=100 "$out" 2>/dev/null |
		awk '/:pv_plat_/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	echo "$instructions $ops $platform"
}

# The library's figures are held by the baseline "host" (bench/gate.sh).
echo "bench: baseline host"
for bin in "$@"; do
	list=$("$bin" --list </dev/null) || { fail "$bin --list failed"; continue; }
	while read -r name unit method mode; do
		[ -n "$name" ] || continue
		case "$method" in
		direct)
			value=$("$bin" "$mode" </dev/null | sed -n 's/^value //p')
			if [ -z "$value" ]; then
				fail "$name: '$bin $mode' printed no value"
				continue
			fi
			echo "bench: $name: $value $unit"
			;;
		callgrind)
			if [ "$have_valgrind" = no ]; then
				valgrind_skipped=yes
				continue
			fi
			measured=$(callgrind_run "$bin" "$mode" "measure_$mode") || {
				fail "$name: callgrind run failed, see $outdir/$(basename "$bin").$mode.callgrind.log"
				continue
			}
			baseline=$(callgrind_run "$bin" "${mode}_baseline" "measure_${mode}_baseline" \
				'baseline_*') || {
				fail "$name: callgrind baseline run failed, see $outdir/$(basename "$bin").${mode}_baseline.callgrind.log"
				continue
			}
			set -- $measured
			m_instr=$1 m_ops=$2 m_plat=$3
			set -- $baseline
			b_instr=$1 b_ops=$2
			if [ "$m_ops" != "$b_ops" ] || [ "$m_ops" -eq 0 ]; then
				fail "$name: measured and baseline runs did different work ($m_ops vs $b_ops operations)"
				continue
			fi
			value=$(awk -v m="$m_instr" -v b="$b_instr" -v p="$m_plat" -v n="$m_ops" \
				'BEGIN { printf "%.1f", (m - b - p) / n }')
			with_platform=$(awk -v m="$m_instr" -v b="$b_instr" -v n="$m_ops" \
				'BEGIN { printf "%.1f", (m - b) / n }')
			echo "bench: $name: $value $unit"
			echo "bench: ${name}_with_platform: $with_platform $unit"
			;;
		*)
			fail "$name: unknown method '$method' listed by $bin"
			;;
		esac
	done <<EOF
$list
EOF
done

if [ "$valgrind_skipped" = yes ]; then
	echo "bench: host: skipped (valgrind not installed: apt-get install valgrind)"
fi
exit "$status"
