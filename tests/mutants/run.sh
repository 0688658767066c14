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
#                           the reference hypervisor's guest suite (tests/guest/run.sh one)
#   end
# Lines starting with "#" are comments. The mutations are made in a copy of the tree,
# MUTANTS_TREE (default build/mutants/tree; its own build directory is kept between runs, so
# that only what a mutation touches is rebuilt): of the working tree, or of the commit
# MUTANTS_FROM names. First every test named is built and run
# unmutated: each must pass there, or a failing test would seem to kill. Then one mutation at
# a time: applied, the tests built and run until one fails (killed), the file restored.
# One "ok"/"FAIL" line a mutation (killed; survived; no longer applies: the source moved and
# the list must follow; does not build: not a mutation of behaviour), then
# "N passed, M failed". MUTANTS_ONLY=NAME... runs those mutations alone.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tree=${MUTANTS_TREE:-build/mutants/tree}
case $tree in /*) ;; *) tree=$top/$tree ;; esac
log=$tree.log
passed=0
failed=0

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

# One run at a time in a tree: another would mutate the files under this one's tests.
mkdir -p "$(dirname "$tree")" || exit 1
if ! mkdir "$tree.lock" 2>/dev/null; then
	echo "mutants: another run uses $tree (remove $tree.lock if none does)" >&2
	exit 2
fi
trap 'rm -rf "$tree.lock"' EXIT
trap 'exit 130' INT TERM HUP

# The tree: the repository's files (tracked, and new ones not ignored; or, with
# MUTANTS_FROM=REV, the commit REV's), a file copied only where its contents differ from the
# copy's, so that make there rebuilds only what changed since the last run.
mkdir -p "$tree" || exit 1
src=$top
if [ -n "${MUTANTS_FROM:-}" ]; then
	src=$tree.src
	rm -rf "$src" && mkdir -p "$src" &&
		(cd "$top" && git archive "$MUTANTS_FROM") | tar -xf - -C "$src" ||
		{ echo "mutants: cannot take $MUTANTS_FROM" >&2; exit 1; }
	files=$(cd "$src" && find . -type f | sed 's|^\./||')
elif files=$(cd "$top" && git ls-files -co --exclude-standard 2>/dev/null); then
	:
else # not a git checkout: every file but the build's
	files=$(cd "$top" && find . -path ./build -prune -o -type f -print | sed 's|^\./||')
fi
printf '%s\n' "$files" | grep -v '^build/' | while IFS= read -r f; do
	[ -f "$src/$f" ] || continue
	cmp -s "$src/$f" "$tree/$f" 2>/dev/null && continue
	mkdir -p "$tree/$(dirname "$f")" && cp "$src/$f" "$tree/$f" || exit 1
done || { echo "mutants: cannot copy the tree to $tree" >&2; exit 1; }
: >"$log"

# The lists, one record a mutation: NAME|FILE|WITHIN|LINE|OP|FROM|TO|KILL|WHY, "|" replaced
# by \001 between fields.
records=$(awk '
	function field(s) { return s }
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

# build_test TEST: builds it in the tree; prints nothing, status of make.
build_test() {
	case $1 in
	guest:*) make -C "$tree" --no-print-directory hyp >>"$log" 2>&1 ;;
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
	*)
		bin=$(cd "$tree" && ls build/tests/unit/"$1" build/tests/scenario/"$1" build/tests/tool/"$1" 2>/dev/null | head -n1)
		(cd "$tree" && timeout "${MUTANT_TIMEOUT:-300}" "$bin") >>"$log" 2>&1
		;;
	esac
}

# Every test, unmutated: it must pass, or it could not tell a mutation from the truth.
tests=$(printf '%s\n' "$records" | awk -F '\001' '{ n = split($8, t, " "); for (i = 1; i <= n; i++) if (!seen[t[i]]++) print t[i] }')
unmutated_ok=yes
for t in $tests; do
	if ! build_test "$t" || ! run_test "$t"; then
		echo "FAIL unmutated: $t does not pass on the tree as it is (log: $log)"
		failed=$((failed + 1))
		unmutated_ok=no
	fi
done

tab=$(printf '\001')
start_all=$(date +%s)
while IFS="$tab" read -r name file within line op from to kill why; do
	[ "$unmutated_ok" = yes ] || break
	start=$(date +%s)
	f=$tree/$file
	cp "$f" "$f.orig" || { echo "FAIL $name: no file $file"; failed=$((failed + 1)); continue; }
	if ! MUT_WITHIN=$within MUT_LINE=$line MUT_OP=$op MUT_FROM=$from MUT_TO=$to \
		awk -f "$here/mutate.awk" "$f.orig" >"$f.new" 2>"$tree.err"; then
		echo "FAIL $name: no longer applies: $(cat "$tree.err") (the list must follow the source)"
		failed=$((failed + 1))
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
	killed*)
		echo "ok   $name: $verdict (${secs}s)"
		passed=$((passed + 1))
		;;
	*)
		echo "FAIL $name: $verdict: $why ($file; log: $log)"
		failed=$((failed + 1))
		;;
	esac
done <<EOF
$records
EOF
echo "mutants: $((passed + failed)) checked in $(($(date +%s) - start_all))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
