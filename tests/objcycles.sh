#!/bin/sh
# SPDX-License-Identifier: MIT
# objcycles.sh NM NAME [--by-dir] OBJECT...: the dependency graph of the objects (which one
# calls or reads what another defines, from nm) must have no cycle. --by-dir takes each
# object's directory as its node (the core: a module may depend on the others only without
# a cycle between modules). Prints "objcycles NAME: ok (N edges)" or the cycles; exits 1 on
# a cycle.
nm=$1
name=$2
shift 2
by_dir=0
if [ "${1-}" = "--by-dir" ]; then
	by_dir=1
	shift
fi
for o in "$@"; do
	if [ "$by_dir" -eq 1 ]; then
		node=$(basename "$(dirname "$o")")
	else
		node=$(basename "$o" .o)
	fi
	"$nm" "$o" | awk -v n="$node" '
		NF == 3 && $2 ~ /^[TDBRCGSV]$/ { print n, $3, "D" }
		NF == 2 && $1 == "U" { print n, $2, "U" }'
done | awk -f "$(dirname "$0")/objcycles.awk" >"${TMPDIR:-/tmp}/objcycles.$$"
status=$?
if [ "$status" -eq 0 ]; then
	echo "objcycles $name: ok ($(sed -n 's/^edges: //p' "${TMPDIR:-/tmp}/objcycles.$$") edges)"
else
	echo "objcycles $name: dependency cycles between objects:"
	grep '^cycle:' "${TMPDIR:-/tmp}/objcycles.$$" | sed 's/^/    /'
fi
rm -f "${TMPDIR:-/tmp}/objcycles.$$"
exit "$status"
