#!/bin/sh
# SPDX-License-Identifier: MIT
# apply.sh SRC WORK: makes WORK a copy of the Xen source tree SRC with perfvisor integrated:
# the glue files of integrations/xen/xen/ and the bridge's header installed in it, and the
# hooks of integrations/xen/hooks.txt inserted into Xen's own files at the places found by
# their identifiers. Nothing of Xen is kept in this repository: what is inserted is ours.
#
# Stops (exit 1, one line on stderr starting "apply: ") when a hook's place is not exactly
# one line of its file: the source drifted from the one the hooks were written for, and
# hooks.txt must follow it. With WORK present, only the glue files are copied again (so Xen
# rebuilds incrementally); the Makefile makes WORK anew when hooks.txt or this script change.
set -u
src=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
hooks=${APPLY_HOOKS:-$here/hooks.txt} # another list: for apply.sh's own test (test-apply.sh)

fail() {
	echo "apply: $*" >&2
	exit 1
}

[ -f "$src/xen/Makefile" ] || fail "$src is not a Xen source tree (no xen/Makefile)"
# The source must be Xen's own: hooked once already, it would get every hook twice.
if [ -f "$src/.perfvisor-hooked" ] || grep -qs 'perfvisor' "$src/xen/arch/arm/traps.c"; then
	fail "$src holds perfvisor's hooks already: give the unmodified Xen source"
fi
mkdir -p "$(dirname "$work")" || fail "cannot create $(dirname "$work")"
[ "$(cd "$src" && pwd -P)" != "$(cd "$(dirname "$work")" && pwd -P)/$(basename "$work")" ] ||
	fail "WORK is SRC: the hooked tree must be a copy"

# install FILE DEST: copy when different, so make sees a change only when there is one.
install() {
	cmp -s "$1" "$2" 2>/dev/null || cp "$1" "$2" || fail "cannot copy $1 to $2"
}

if [ ! -f "$work/.perfvisor-hooked" ]; then
	rm -rf "$work" "$work.tmp"
	cp -a "$src" "$work.tmp" || fail "cannot copy $src"
	# The hooks, one at a time: each is (file, kind, regex, lines).
	awk -v root="$work.tmp" '
		function flush() {
			if (kind == "") return
			n++
			f[n] = file; k[n] = kind; r[n] = re; t[n] = text; w[n] = within
			kind = ""; text = ""; within = ""
		}
		inblock && $0 == "end" { inblock = 0; flush(); next }
		inblock { text = text $0 "\n"; next } # verbatim: "#" lines too (preprocessor)
		/^#/ || /^$/ { next }
		$1 == "file" { file = $2; next }
		$1 == "include" { n++; f[n] = file; k[n] = "include"; w[n] = ""; next }
		$1 == "within" { within = substr($0, length($1) + 2); next }
		$1 == "after" || $1 == "before" || $1 == "after-brace" {
			kind = $1; re = substr($0, length($1) + 2); inblock = 1; next
		}
		{ printf "apply: hooks.txt line %d: unknown directive \"%s\"\n", NR, $1 > "/dev/stderr"
		  bad = 1; exit 1 }
		END {
			if (bad) exit 1
			if (inblock) { print "apply: hooks.txt ends inside a block" > "/dev/stderr"; exit 1 }
			for (i = 1; i <= n; i++) {
				# One record per hook, fields separated by \001, records by \002.
				printf "%s\001%s\001%s\001%s\001%s\002", f[i], k[i], r[i], t[i], w[i]
			}
		}
	' "$hooks" >"$work.hooks" || fail "hooks.txt cannot be read"
	# Apply each record with a second awk over its file.
	awk -v RS='\002' -v FS='\001' -v root="$work.tmp" '
		NF < 2 { next }
		{
			path = root "/" $1; kind = $2; re = $3; text = $4; within = $5
			nl = 0; hits = 0; from = 0; scopes = 0; closed = 0
			RS = "\n" # for the file: records of this list are \002-separated
			while ((getline line < path) > 0) {
				lines[++nl] = line
				if (within != "" && line ~ within) { scopes++; from = nl; closed = 0 }
				# The only match within the scope (from its line to the closing "}" of the
				# function, at the start of a line), or else in the file.
				if (kind != "include" && line ~ re && (within == "" || (from && !closed))) {
					hits++; at = nl
				}
				if (from && nl > from && line ~ /^}/) closed = 1
			}
			if (within != "" && scopes != 1) {
				printf "apply: %s: /%s/ matches %d lines, not 1: the Xen source drifted\n", $1, within, scopes > "/dev/stderr"
				exit 1
			}
			close(path)
			RS = "\002"
			if (nl == 0) { printf "apply: %s: no such file in the Xen source\n", $1 > "/dev/stderr"; exit 1 }
			if (kind == "include") {
				for (at = 1; at <= nl && lines[at] !~ /^#include /; at++) ;
				if (at > nl) { printf "apply: %s: no #include line\n", $1 > "/dev/stderr"; exit 1 }
				text = "#include <asm/perfvisor.h> /* perfvisor */\n"
				kind = "after"
			} else if (hits != 1) {
				printf "apply: %s: /%s/ matches %d lines, not 1: the Xen source drifted\n", $1, re, hits > "/dev/stderr"
				exit 1
			}
			if (kind == "after-brace") {
				while (at <= nl && lines[at] !~ /^[ \t]*\{[ \t]*$/) at++
				if (at > nl) { printf "apply: %s: no \"{\" line below /%s/\n", $1, re > "/dev/stderr"; exit 1 }
				kind = "after"
			}
			out = ""
			for (i = 1; i <= nl; i++) {
				if (kind == "before" && i == at) out = out text
				out = out lines[i] "\n"
				if (kind == "after" && i == at) out = out text
			}
			printf "%s", out > path
			close(path)
			delete lines
		}
	' "$work.hooks" || fail "a hook could not be placed (above)"
	rm -f "$work.hooks"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$work.tmp/.perfvisor-hooked"
	mv "$work.tmp" "$work" || fail "cannot move the tree to $work"
fi
arm=$work/xen/arch/arm
install "$here/xen/perfvisor.c" "$arm/perfvisor.c"
install "$here/xen/perfvisor.h" "$arm/include/asm/perfvisor.h"
install "$here/bridge/pvx.h" "$arm/include/asm/pvx.h"
echo "$work"
