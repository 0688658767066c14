#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs each libFuzzer target of tests/fuzz/ for a bounded time (make fuzz), or once over its
# seeds (make check).
#   run.sh SECONDS BUILD_DIR TARGET...
#   run.sh corpus BUILD_DIR TARGET...
# Each target starts from its seeds, tests/fuzz/corpus/TARGET/ (kept in the repository, read
# only), and from what earlier runs found, BUILD_DIR/corpus/TARGET/ (new inputs go there).
# With "corpus" it runs every seed once and nothing else (libFuzzer's -runs=0 over the seeds
# alone): no mutation, no new input, the same inputs every time, so that an input known to
# have crashed fails the ordinary test run.
# A crash, a sanitizer report, a leak or a broken invariant fails the target; the input is
# kept as BUILD_DIR/artifacts/TARGET-crash-* and the log as BUILD_DIR/logs/TARGET.log.
# One line per target with its figures, then "N passed, M failed".
secs=$1
dir=$2
shift 2
passed=0
failed=0
mkdir -p "$dir/logs" "$dir/artifacts"
for t in "$@"; do
	bin=$dir/$t
	seeds=tests/fuzz/corpus/$t
	work=$dir/corpus/$t
	log=$dir/logs/$t.log
	mkdir -p "$seeds"
	dict=""
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	if [ "$secs" = corpus ]; then
		run="-runs=0 $seeds"
	else
		mkdir -p "$work"
		run="-max_total_time=$secs $work $seeds"
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$bin" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$t-" $dict $run >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -n1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	if [ "$secs" = corpus ]; then
		figures="${execs:-?} runs (each seed once) in ${took}s, cov ${cov:-?}, ft ${ft:-?}"
	else
		figures="${execs:-?} execs in ${took}s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
	fi
	if [ "$rc" -eq 0 ] && [ -n "$execs" ]; then
		echo "fuzz: $t: ok: $figures"
		passed=$((passed + 1))
	else
		echo "fuzz: $t: FAILED (status $rc): $figures; log: $log"
		grep -E 'invariant violated|^  [a-z_]|ERROR: |SUMMARY: |Test unit written' "$log" |
			head -n 8 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
