#!/bin/sh
# SPDX-License-Identifier: MIT
# The benchmark gate: what `make bench` prints, held against checked-in baselines, and the
# figures the docs quote held against the same baselines (docs/benchmarks.md, "The gate").
#
#   gate.sh check FIGURES DIR        each figure of FIGURES (make bench's output) against
#                                    DIR/KEY.txt; one "ok"/"FAIL" line a figure, then
#                                    "N passed, M failed[, K skipped]"
#   gate.sh update FIGURES DIR       rewrites the values of DIR/KEY.txt from FIGURES (the
#                                    tolerances and comments stay); new figures are added,
#                                    figures no longer printed by a measured KEY removed
#   gate.sh docs-check DIR FILE...   every <!--bench:NAME-->VALUE in FILE... is NAME's value
#                                    in its baseline, and docs/benchmarks.md's generated table
#                                    is what DIR holds; "docs-check: ..." and status 1 if not
#   gate.sh docs-update DIR FILE...  rewrites those values and that table from DIR
#   gate.sh key QEMU                 the baseline of the figures QEMU gives: qemu-MAJOR.MINOR,
#                                    with -perfvisor for the project's own build of it
#
# FIGURES: "bench: baseline KEY" starts the figures of baseline KEY (the host's library
# figures are "host"; the hypervisors' are the QEMU's, as `key` names it), then
# "bench: NAME: VALUE UNIT" lines; "bench: PATTERN: skipped (WHY)" says why a KEY's figures
# are missing. Other lines are ignored.
#
# DIR/KEY.txt: "NAME VALUE UNIT [tolerance=T] [better=higher]" a line, "#" comments. Without
# a tolerance the figure is deterministic (an instruction count, a count under -icount) and
# must be equal: a regression fails, and so does an improvement, until the baseline is
# updated in the same commit (make bench-baseline). With one (T absolute, or T% of the
# baseline), a change by more than T fails, worse or better (the docs quote the baseline);
# the comment says why the figure moves. Lower is better unless better=higher.
set -u
cmd=${1:-}
[ $# -gt 0 ] && shift

usage() {
	echo "usage: gate.sh check|update FIGURES DIR | docs-check|docs-update DIR FILE... | key QEMU" >&2
	exit 2
}

# The table docs/benchmarks.md carries between these two lines, generated from DIR.
TABLE_BEGIN='<!-- bench-table: generated from bench/baseline/ by make docs; do not edit -->'
TABLE_END='<!-- bench-table: end -->'

# figures FIGURES: "KEY NAME VALUE UNIT" a figure, "skip KEY-PATTERN WHY" a skipped group.
figures() {
	awk '
	/^bench: baseline [A-Za-z0-9._-]+$/ { key = $3; next }
	/^bench: [^ ]+: skipped/ {
		pat = $2; sub(/:$/, "", pat); why = $0; sub(/^bench: [^ ]+: skipped *\(?/, "", why)
		sub(/\)$/, "", why)
		print "skip", pat, why; next }
	/^bench: [a-z0-9_.]+: [^ ]+ [^ ]+$/ {
		name = $2; sub(/:$/, "", name)
		print (key == "" ? "host" : key), name, $3, $4 }' "$1"
}

# baselines DIR: "KEY NAME VALUE UNIT TOLERANCE BETTER" a baseline figure (TOLERANCE "-"
# when exact, BETTER lower|higher).
baselines() {
	for f in "$1"/*.txt; do
		[ -f "$f" ] || continue
		k=$(basename "$f" .txt)
		awk -v key="$k" -v file="$f" '
		{ sub(/#.*/, "") }
		NF == 0 { next }
		NF < 3 { printf "gate: %s:%d: NAME VALUE UNIT expected\n", file, NR > "/dev/stderr"; bad = 1; next }
		{
			tol = "-"; better = "lower"
			for (i = 4; i <= NF; i++) {
				if ($i ~ /^tolerance=[0-9.]+%?$/) tol = substr($i, 11)
				else if ($i == "better=higher") better = "higher"
				else { printf "gate: %s:%d: unknown field %s\n", file, NR, $i > "/dev/stderr"; bad = 1 }
			}
			print key, $1, $2, $3, tol, better
		}
		END { exit bad }' "$f" || return 1
	done
}

check() {
	[ -f "$1" ] || { echo "gate: no figures file $1 (make bench-check writes it)" >&2; exit 2; }
	base=$(baselines "$2") || exit 2
	figs=$(figures "$1")
	printf '%s\n---\n%s\n' "$base" "$figs" | awk '
	BEGIN { part = 1 }
	$0 == "---" { part = 2; next }
	part == 1 && NF == 6 {
		k = $1 SUBSEP $2; bval[k] = $3; bunit[k] = $4; btol[k] = $5; bbetter[k] = $6
		order[++nb] = k; keys[$1] = 1; next }
	part == 2 && $1 == "skip" { why = $0; sub(/^skip [^ ]+ /, "", why); skipwhy[$2] = why; next }
	part == 2 && NF == 4 {
		k = $1 SUBSEP $2; measured[$1] = 1; seen[k]++
		if (seen[k] > 1) { fail($1, $2, "printed twice"); next }
		if (!($1 in keys)) { fail($1, $2, "no baseline " $1 ".txt (make bench-baseline writes it)"); next }
		if (!(k in bval)) { fail($1, $2, $3 " " $4 " is not in the baseline (make bench-baseline adds it)"); next }
		if ($4 != bunit[k]) { fail($1, $2, "unit " $4 ", the baseline says " bunit[k]); next }
		if ($3 !~ /^-?[0-9]+(\.[0-9]+)?$/) { fail($1, $2, "printed \"" $3 "\", not a number"); next }
		compare(k, $1, $2, $3, bval[k])
	}
	function fail(key, name, why) { printf "FAIL %s/%s: %s\n", key, name, why; failed++ }
	function ok(key, name, what) { printf "ok   %s/%s: %s\n", key, name, what; passed++ }
	# compare: NOW and WAS are the figure as printed and as the baseline has it.
	function compare(k, key, name, now, was,   worse, tol) {
		worse = bbetter[k] == "higher" ? was - now : now - was
		if (btol[k] == "-") {
			if (now + 0 == was + 0) ok(key, name, now " " bunit[k])
			else if (worse > 0)
				fail(key, name, "regressed: " now " " bunit[k] ", the baseline " was)
			else
				fail(key, name, "improved: " now " " bunit[k] ", the baseline " was \
					": update the baseline in this commit (make bench-baseline, make docs)")
			return
		}
		tol = btol[k]
		if (tol ~ /%$/) tol = substr(tol, 1, length(tol) - 1) * (was < 0 ? -was : was) / 100
		if (worse > tol + 1e-9)
			fail(key, name, "regressed: " now " " bunit[k] ", the baseline " was \
				" (tolerance " btol[k] ")")
		else if (-worse > tol + 1e-9) # the docs quote the baseline: it must move too
			fail(key, name, "improved: " now " " bunit[k] ", the baseline " was \
				" (tolerance " btol[k] "): update the baseline in this commit " \
				"(make bench-baseline, make docs)")
		else
			ok(key, name, now " " bunit[k] " (baseline " was ", tolerance " btol[k] ")")
	}
	END {
		for (i = 1; i <= nb; i++) {
			k = order[i]; split(k, kn, SUBSEP)
			if (k in seen) continue
			why = ""
			for (p in skipwhy) {
				re = p; gsub(/\./, "\\.", re); gsub(/\*/, ".*", re)
				if (kn[2] ~ ("^" re "$") || kn[1] == p) why = skipwhy[p]
			}
			if (why == "" && kn[1] in measured) { fail(kn[1], kn[2], "in the baseline, not printed"); continue }
			if (why == "") why = "not measured here"
			group = kn[1] ": " why
			if (!(group in said)) printf "skipped: baseline %s\n", group
			said[group] = 1; nskip++
		}
		if (nskip) printf "%d passed, %d failed, %d skipped\n", passed, failed, nskip
		else printf "%d passed, %d failed\n", passed, failed
		exit failed > 0
	}'
}

update() {
	[ -f "$1" ] || { echo "gate: no figures file $1 (make bench writes it)" >&2; exit 2; }
	baselines "$2" >/dev/null || exit 2
	mkdir -p "$2"
	figs=$(figures "$1")
	for k in $(printf '%s\n' "$figs" | awk '$1 != "skip" { print $1 }' | sort -u); do
		f=$2/$k.txt
		[ -f "$f" ] || printf '# SPDX-License-Identifier: MIT\n# The figures of baseline %s (bench/gate.sh: NAME VALUE UNIT [tolerance=T] [better=higher]).\n' "$k" >"$f"
		printf '%s\n' "$figs" | awk -v key="$k" -v file="$f" '
		FNR == NR { if ($1 == key) { val[$2] = $3; unit[$2] = $4; order[++n] = $2 } next }
		{
			line = $0; body = line; sub(/#.*/, "", body)
			split(body, w, " ")
			if (w[1] == "") { print line; next }
			if (!(w[1] in val)) { removed++; next }
			done[w[1]] = 1
			rest = ""
			for (i = 4; i in w; i++) rest = rest " " w[i]
			c = index(line, "#"); comment = c ? "  " substr(line, c) : ""
			printf "%s %s %s%s%s\n", w[1], val[w[1]], unit[w[1]], rest, comment
		}
		END {
			for (i = 1; i <= n; i++) if (!(order[i] in done)) printf "%s %s %s\n", order[i], val[order[i]], unit[order[i]]
		}' /dev/stdin "$f" >"$f.tmp" && mv "$f.tmp" "$f" || exit 1
		echo "gate: $f updated"
	done
}

# table DIR: the markdown table of every baseline figure.
table() {
	echo "| baseline | figure | value | unit | held |"
	echo "| --- | --- | --- | --- | --- |"
	baselines "$1" | awk '{
		held = $5 == "-" ? "exactly" : "within " $5
		if ($6 == "higher") held = held ", higher is better"
		printf "| %s | `%s` | %s | %s | %s |\n", $1, $2, $3, $4, held }'
}

# docs MODE DIR FILE...: MODE check or update.
docs() {
	mode=$1 dir=$2
	shift 2
	base=$(baselines "$dir") || exit 2
	tab=$(table "$dir")
	status=0
	for f in "$@"; do
		printf '%s\n---table---\n%s\n---doc---\n' "$base" "$tab" | cat - "$f" | awk -v mode="$mode" \
			-v file="$f" -v tb="$TABLE_BEGIN" -v te="$TABLE_END" '
		BEGIN { part = 1 }
		part == 1 && $0 == "---table---" { part = 2; next }
		part == 2 && $0 == "---doc---" { part = 3; next }
		part == 3 { line_no++ }
		part == 1 { val[$1 "/" $2] = $3; n[$2]++; only[$2] = $1 "/" $2; next }
		part == 2 { table = table $0 "\n"; next }
		part == 3 && $0 == tb { print; intable = 1; hadtable = 1; got = ""; next }
		part == 3 && $0 == te {
			if (got != table) {
				if (mode == "check") { printf "docs-check: %s: the figures table is not what bench/baseline/ holds (make docs)\n", file > "/dev/stderr"; bad = 1 }
			}
			printf "%s", table; print; intable = 0; next }
		part == 3 && intable { got = got $0 "\n"; next }
		part == 3 {
			line = $0; out = ""
			while (match(line, /<!--bench:[A-Za-z0-9._\/-]+-->[0-9]+(,[0-9][0-9][0-9])*(\.[0-9]+)?/)) {
				m = substr(line, RSTART, RLENGTH)
				ref = m; sub(/^<!--bench:/, "", ref); sub(/-->.*/, "", ref)
				shown = m; sub(/^.*-->/, "", shown)
				key = ref in val ? ref : (n[ref] == 1 ? only[ref] : "")
				if (key == "") {
					printf "docs-check: %s:%d: %s is %s\n", file, line_no, ref, \
						(n[ref] > 1 ? "in several baselines: name it KEY/NAME" : "in no baseline") > "/dev/stderr"
					bad = 1; out = out substr(line, 1, RSTART + RLENGTH - 1)
				} else {
					plain = shown; gsub(/,/, "", plain)
					if (plain + 0 == val[key] + 0) new = shown
					else {
						new = val[key]
						if (mode == "check") {
							printf "docs-check: %s:%d: %s says %s, its baseline %s (make docs)\n", file, line_no, ref, shown, val[key] > "/dev/stderr"
							bad = 1
						}
					}
					out = out substr(line, 1, RSTART - 1) "<!--bench:" ref "-->" new
				}
				line = substr(line, RSTART + RLENGTH)
			}
			print out line
		}
		END { exit bad }' >"$f.gate.tmp" || status=1
		if [ "$mode" = update ] && ! cmp -s "$f" "$f.gate.tmp"; then
			mv "$f.gate.tmp" "$f" && echo "docs: $f: figures from bench/baseline/"
		else
			rm -f "$f.gate.tmp"
		fi
	done
	return $status
}

key() {
	"$1" --version 2>/dev/null | awk 'NR == 1 {
		v = $4; split(v, p, ".")
		printf "qemu-%s.%s%s\n", p[1], p[2], index($0, "(perfvisor") ? "-perfvisor" : "" }'
}

case "$cmd" in
check) [ $# -eq 2 ] || usage; check "$1" "$2" ;;
update) [ $# -eq 2 ] || usage; update "$1" "$2" ;;
docs-check) [ $# -ge 2 ] || usage; docs check "$@" ;;
docs-update) [ $# -ge 2 ] || usage; docs update "$@" ;;
key) [ $# -eq 1 ] || usage; key "$1" ;;
*) usage ;;
esac
