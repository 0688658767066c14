#!/bin/sh
# SPDX-License-Identifier: MIT
# The mutation gate (make mutants; docs/security.md, "Mutations"): every mutation of the lists
# given, each an edit of one security-relevant line found by identifiers, must be killed by
# the tests it names.
#   run.sh LIST...
#   run.sh --table LIST...   the lists as a markdown table (docs/security.md's), nothing run
# LIST: tests/mutants/*.txt, blocks of
#   mutant NAME             a name of its own
#   why TEXT                the promise the line keeps (for the report)
#   file PATH               the file, from the top of the tree
#   within ERE              optional: the function whose body holds the line (its first line)
#   line ERE                the one line mutated (exactly one, of the file or the function)
#   delete                  the line is dropped, or
#   replace FROM [TO...]    the first match of the ERE FROM (one word: [[:space:]] for a
#                           blank) in it becomes TO (the rest of the line, literal; \t a tab;
#                           none: the match is removed)
#   kill TEST...            what must fail once it is applied: host test binaries by name
#                           (test_scen_pmu_passthrough), or guest:SCENARIO for a scenario of
#                           the reference hypervisor's guest suite (tests/guest/run.sh one),
#                           or hw:SCENARIO for one on the QEMU of our own (its SPE and AMU
#                           scenarios: build/hw-qemu/qemu-system-aarch64 of this checkout,
#                           which make check or make hw-qemu builds)
#   end
# Lines starting with "#" are comments. The mutations are made in copies of the tree (of the
# working tree, or of the commit MUTANTS_FROM names): MUTANTS_JOBS workers (default one per
# CPU), each with a copy of its own (MUTANTS_TREE, default build/mutants/tree, then tree.2,
# ...) and every MUTANTS_JOBS-th mutation. A copy keeps its build between runs, and a new one
# starts from the checkout's build, so that only what a mutation touches is rebuilt. In each,
# first every test named is built and run unmutated: each must pass there, or a failing test
# would seem to kill. Then one mutation at a time: applied, the tests built and run until one
# fails (killed), the file restored. One "ok"/"FAIL" line a mutation in the lists' order
# (killed; survived; no longer applies: the source moved and the list must follow; does not
# build: not a mutation of behaviour), then "N passed, M failed". MUTANTS_ONLY=NAME... runs
# those mutations alone.
set -u
here=$(cd "$(dirname "$0")" && pwd)
hw_qemu=$(cd "$here/../.." && pwd)/build/hw-qemu/qemu-system-aarch64
top=$(cd "$here/../.." && pwd)
base=${MUTANTS_TREE:-build/mutants/tree}
case $base in /*) ;; *) base=$top/$base ;; esac

[ $# -gt 0 ] || { echo "usage: run.sh [--table] LIST..." >&2; exit 2; }

# --table: the lists as the markdown table docs/security.md carries (make docs writes it there,
# make docs-check holds it), with no mutation run.
if [ "$1" = --table ]; then
	shift
	echo "| mutation | file | the line keeps | killed by |"
	echo "| --- | --- | --- | --- |"
	awk '
		function flush() {
			if (name != "") printf "| `%s` | `%s` | %s | %s |\n", name, file, why, kill
			name = file = why = kill = ""
		}
		{ rest = $0; sub(/^[a-z]+[ \t]*/, "", rest) }
		$1 == "mutant" { flush(); name = $2 }
		$1 == "why" { why = rest }
		$1 == "file" { file = rest }
		$1 == "kill" { kill = rest; gsub(/[^ ]+/, "`&`", kill); gsub(/ /, ", ", kill) }
		$1 == "end" { flush() }
		END { flush() }' "$@"
	exit 0
fi

# The lists, one record a mutation: INDEX NAME FILE WITHIN LINE OP FROM TO KILL WHY, separated
# by \001.
records=$(awk '
	function flush() {
		if (name == "") return
		if (file == "" || line == "" || op == "" || kill == "") {
			printf "mutants: %s:%d: mutant %s lacks file, line, delete/replace or kill\n", FILENAME, start, name > "/dev/stderr"
			bad = 1
		}
		printf "%s\001%s\001%s\001%s\001%s\001%s\001%s\001%s\001%s\n", name, file, within, line, op, from, to, kill, why
		name = file = within = line = op = from = to = kill = why = ""
	}
	/^[ \t]*(#|$)/ { next }
	{ rest = $0; sub(/^[a-z]+[ \t]*/, "", rest) }
	$1 == "mutant" { flush(); name = $2; start = FNR; next }
	$1 == "why" { why = rest; next }
	$1 == "file" { file = rest; next }
	$1 == "within" { within = rest; next }
	$1 == "line" { line = rest; next }
	$1 == "delete" { op = "delete"; next }
	$1 == "replace" { op = "replace"; from = $2; to = rest; if (!sub(/^[^ \t]+[ \t]+/, "", to)) to = ""; next }
	$1 == "kill" { kill = rest; next }
	$1 == "end" { flush(); next }
	{ printf "mutants: %s:%d: unknown line: %s\n", FILENAME, FNR, $0 > "/dev/stderr"; bad = 1 }
	END { flush(); exit bad }' "$@") || exit 2
if [ -n "${MUTANTS_ONLY:-}" ]; then
	records=$(printf '%s\n' "$records" | awk -F '\001' -v only=" $MUTANTS_ONLY " 'index(only, " " $1 " ")')
fi
[ -n "$records" ] || { echo "mutants: no mutation to run" >&2; exit 2; }
records=$(printf '%s\n' "$records" | awk '{ printf "%d\001%s\n", NR, $0 }')

# The source: the repository's files (tracked, and new ones not ignored), or the commit's.
mkdir -p "$(dirname "$base")" || exit 1
src=$top
if [ -n "${MUTANTS_FROM:-}" ]; then
	src=$base.from
	rm -rf "$src" && mkdir -p "$src" &&
		(cd "$top" && git archive "$MUTANTS_FROM") | tar -xf - -C "$src" ||
		{ echo "mutants: cannot take $MUTANTS_FROM" >&2; exit 1; }
	files=$(cd "$src" && find . -type f | sed 's|^\./||')
elif files=$(cd "$top" && git ls-files -co --exclude-standard 2>/dev/null); then
	:
else # not a git checkout: every file but the build's
	files=$(cd "$top" && find . -path ./build -prune -o -type f -print | sed 's|^\./||')
fi

# sync_tree: the copy's files, each copied only where its contents differ from the copy's,
# then with a new time, so that make there rebuilds only what changed since the last run. A
# file new to the copy keeps its time, and a new copy starts from the checkout's build (the
# objects the tests need, with their times), so that nothing but what a mutation touches is
# built there.
sync_tree() {
	mkdir -p "$tree" || return 1
	if [ ! -d "$tree/build" ] && [ -z "${MUTANTS_FROM:-}" ] && [ -d "$top/build/gen" ]; then
		mkdir -p "$tree/build" || return 1
		for d in gen core trap vpmu vspe vamu vmpam sim tests tools hyp guest linux \
			libperfvisor.a libpvsim.a perfvisor; do
			[ ! -e "$top/build/$d" ] || cp -a "$top/build/$d" "$tree/build/" || return 1
		done
	fi
	printf '%s\n' "$files" | grep -v '^build/' | while IFS= read -r f; do
		[ -f "$src/$f" ] || continue
		if [ ! -e "$tree/$f" ]; then
			mkdir -p "$tree/$(dirname "$f")" && cp -p "$src/$f" "$tree/$f" || exit 1
		elif ! cmp -s "$src/$f" "$tree/$f"; then
			cp "$src/$f" "$tree/$f" || exit 1
		fi
	done || return 1
	# A file the source no longer has goes from the copy too: a build that globs a folder
	# would link it (a file split in two, its old whole beside its halves).
	printf '%s\n' "$files" | grep -v '^build/' | LC_ALL=C sort >"$tree.want" &&
		(cd "$tree" && find . -path ./build -prune -o -type f -print) | sed 's|^\./||' |
		LC_ALL=C sort | LC_ALL=C comm -23 - "$tree.want" | while IFS= read -r f; do
			rm -f "$tree/$f"
		done
}

# build_test TEST: builds it in the tree; prints nothing, status of make.
build_test() {
	case $1 in
	guest:* | hw:*) make -C "$tree" --no-print-directory hyp >>"$log" 2>&1 ;;
	*)
		bin=$(cd "$tree" && ls tests/unit/"$1".c tests/scenario/"$1".c tests/tool/"$1".c 2>/dev/null | head -n1)
		[ -n "$bin" ] || { echo "mutants: no test $1" >>"$log"; return 1; }
		make -C "$tree" --no-print-directory "build/${bin%.c}" >>"$log" 2>&1
		;;
	esac
}

# run_test TEST: status 0 when it passes.
run_test() {
	case $1 in
	guest:*)
		(cd "$tree" && QEMU_TIMEOUT=${QEMU_TIMEOUT:-60} GUEST_LOGDIR=build/mutants-guest \
			sh tests/guest/run.sh one build/hyp/perfvisor.elf build/guest "${1#guest:}") >>"$log" 2>&1
		;;
	hw:*)
		if [ ! -x "$hw_qemu" ]; then
			echo "mutants: $1 needs the QEMU of our own, $hw_qemu: make hw-qemu" >>"$log"
			return 1
		fi
		(cd "$tree" && QEMU=$hw_qemu QEMU_TIMEOUT=${QEMU_TIMEOUT:-60} \
			GUEST_LOGDIR=build/mutants-guest-hw \
			sh tests/guest/run.sh one build/hyp/perfvisor.elf build/guest "${1#hw:}") >>"$log" 2>&1
		;;
	*)
		bin=$(cd "$tree" && ls build/tests/unit/"$1" build/tests/scenario/"$1" build/tests/tool/"$1" 2>/dev/null | head -n1)
		(cd "$tree" && timeout "${MUTANT_TIMEOUT:-300}" "$bin") >>"$log" 2>&1
		;;
	esac
}

# worker TREE RECORDS: the records' mutations made in TREE, a line each: "INDEX ok ..." or
# "INDEX FAIL ..." (index 0: the tree itself failed).
worker() {
	tree=$1
	log=$tree.log
	# One run at a time in a tree: another would mutate the files under this one's tests.
	if ! mkdir "$tree.lock" 2>/dev/null; then
		echo "0 FAIL mutants: another run uses $tree (remove $tree.lock if none does)"
		return
	fi
	trap 'rm -rf "$tree.lock"' EXIT
	trap 'exit 130' INT TERM HUP
	sync_tree || { echo "0 FAIL mutants: cannot copy the tree to $tree"; return; }
	: >"$log"
	# Every test, unmutated: it must pass, or it could not tell a mutation from the truth.
	tests=$(printf '%s\n' "$2" | awk -F '\001' '{ n = split($9, t, " "); for (i = 1; i <= n; i++) if (!seen[t[i]]++) print t[i] }')
	for t in $tests; do
		if ! build_test "$t" || ! run_test "$t"; then
			echo "0 FAIL unmutated: $t does not pass on the tree as it is (log: $log)"
			return
		fi
	done
	tab=$(printf '\001')
	while IFS="$tab" read -r idx name file within line op from to kill why; do
		start=$(date +%s)
		f=$tree/$file
		cp "$f" "$f.orig" || { echo "$idx FAIL $name: no file $file"; continue; }
		if ! MUT_WITHIN=$within MUT_LINE=$line MUT_OP=$op MUT_FROM=$from MUT_TO=$to \
			awk -f "$here/mutate.awk" "$f.orig" >"$f.new" 2>"$tree.err"; then
			echo "$idx FAIL $name: no longer applies: $(cat "$tree.err") (the list must follow the source)"
			rm -f "$f.new" "$f.orig"
			continue
		fi
		mv "$f.new" "$f"
		echo "== $name: $file" >>"$log"
		verdict=survived
		for t in $kill; do
			if ! build_test "$t"; then
				verdict="does not build"
				break
			fi
			if ! run_test "$t"; then
				verdict="killed by $t"
				break
			fi
		done
		# Restored with a new time, so that make rebuilds what the mutation touched.
		cp "$f.orig" "$f" && rm -f "$f.orig"
		secs=$(($(date +%s) - start))
		case $verdict in
		killed*) echo "$idx ok   $name: $verdict (${secs}s)" ;;
		*) echo "$idx FAIL $name: $verdict: $why ($file; log: $log)" ;;
		esac
	done <<EOF
$2
EOF
}

total=$(printf '%s\n' "$records" | wc -l)
jobs=${MUTANTS_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
[ "$jobs" -le "$total" ] || jobs=$total
start_all=$(date +%s)
out=$base.out
rm -f "$out".*
k=1
while [ "$k" -le "$jobs" ]; do
	t=$base
	[ "$k" -eq 1 ] || t=$base.$k
	mine=$(printf '%s\n' "$records" | awk -F '\001' -v k="$k" -v n="$jobs" '($1 - 1) % n == k - 1')
	(worker "$t" "$mine") >"$out.$k" &
	k=$((k + 1))
done
wait
sort -n -s -k1,1 "$out".* | sed 's/^[0-9]* //'
passed=$(cat "$out".* | grep -c '^[0-9]* ok ')
failed=$(cat "$out".* | grep -c '^[0-9]* FAIL ')
rm -f "$out".*
echo "mutants: $total checked in $(($(date +%s) - start_all))s by $jobs workers"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$total" ]
