#!/bin/sh
# SPDX-License-Identifier: MIT
# Arm ARM citations against the one pinned revision (docs/README.md, "Architecture
# references"): every section number cited in the sources and documents (D<n>[.<m>...],
# J<n>.<m>...) must be a row of that table; a wildcard section (an x for a number) and a
# DDI 0487 issue named anywhere but in that file are errors.
#   citations.sh [ROOT]     (ROOT: the tree to check, default .)
# Prints one line per finding, file:line: what; exits 1 when there is any.
root=${1:-.}
table=$root/docs/README.md
if [ ! -f "$table" ]; then
	echo "citations: $table: no such file" >&2
	exit 1
fi
cd "$root" || exit 1
# The tracked files when ROOT is a git checkout's top, otherwise every file of the tree.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	files=$(git ls-files -- '*.c' '*.h' '*.S' '*.md' '*.txt' '*.awk' '*.sh' 'Makefile')
else
	files=$(find . -path ./build -prune -o -type f \( -name '*.[chS]' -o -name '*.md' \
		-o -name '*.txt' -o -name '*.awk' -o -name '*.sh' -o -name Makefile \) -print)
fi
# shellcheck disable=SC2086
awk -v table=docs/README.md '
	BEGIN {
		# The table: rows "| D24.7.1 | ... |" after the "## Architecture references" heading.
		while ((getline line < table) > 0) {
			if (line ~ /^## /) intable = (line == "## Architecture references")
			if (intable && line ~ /^\| [DJ][0-9]+(\.[0-9]+)* \|/) {
				split(line, col, "|")
				gsub(/ /, "", col[2])
				known[col[2]] = 1
				nknown++
			}
		}
		if (!nknown) {
			print table ": no section table under \"## Architecture references\""
			bad = 1
		}
	}
	FNR == 1 { file = FILENAME; sub(/^\.\//, "", file) }
	{
		line = $0
		if (file != table && line ~ /DDI ?0487[ ,]*(issue )?[A-Z]\.[a-z]/) {
			print file ":" FNR ": names a DDI 0487 issue: the pin is in " table " only"
			bad = 1
		}
		# A citation: D or J, a chapter number, optional .sections, not inside a word, a
		# hex literal or a dotted identifier.
		while (match(line, /(^|[^A-Za-z0-9_.])[DJ][0-9][0-9]?(\.[0-9x]+)*/)) {
			cite = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			sub(/^[^DJ]/, "", cite)
			if (line ~ /^[A-Za-z0-9_]/) continue     # part of a longer token
			if (cite ~ /^J[0-9]+$/) continue          # "J1" alone is not a citation
			if (file == table) continue
			if (cite ~ /\.x/) {
				print file ":" FNR ": " cite ": a wildcard section; cite the section"
				bad = 1
			} else if (!(cite in known)) {
				print file ":" FNR ": " cite ": not in the table of " table
				bad = 1
			}
		}
	}
	END { exit bad }
' $files
