#!/bin/sh
# SPDX-License-Identifier: MIT
# apply-hooks.sh NAME SRC WORK HOOKS: makes WORK a copy of another project's source tree SRC
# (NAME: "Xen", "QEMU", for the messages) with the hooks of the list HOOKS inserted into its
# own files at the places found by their identifiers. The integrations (integrations/*/
# apply.sh) call it, then install their own files into WORK. Nothing of the other project is
# kept in this repository: what is inserted is ours, and where it goes is found by a
# function's name or a statement, never by a line number or by the text around it.
#
# HOOKS, one directive a line ("#" lines and empty lines between directives are comments):
#   file PATH            the file the hooks below go into (relative to the source top)
#   include [HEADER]     #include HEADER after the file's first #include line (HEADER
#                        defaults to $APPLY_INCLUDE, e.g. <asm/perfvisor.h>)
#   after REGEX          the lines up to "end" go after the one line REGEX matches
#   before REGEX         ... before it
#   after-brace REGEX    ... after the first "{" line at or below it (a function's or a
#                        struct's opening brace)
#   replace REGEX        ... instead of it: the one line REGEX matches (a statement that must
#                        change rather than gain one beside it) is replaced by the block
#   within REGEX         the next hook's REGEX must match exactly one line from this line to
#                        the next "}" at the start of a line (the function's end), not one of
#                        the file (for a statement that recurs: the one inside a function)
# A block's lines are taken verbatim, "#" lines too (the preprocessor's). REGEX is an awk
# extended regular expression; it must match exactly one line (of the file, or of the scope
# `within` names), or nothing is made: the script stops (exit 1, one line on stderr starting
# "apply: ") with the file, the expression and how many lines it matched. The source
# drifted from the one the hooks were written for, and the list must follow it.
#
# WORK/.perfvisor-hooked marks a finished tree: its first line is when it was made, each
# further line a file the hooks changed. With WORK finished already, nothing is done (the
# caller removes WORK when HOOKS or this script changed). SRC with such a marker is refused
# (hooked already: it would get every hook twice), and so is WORK = SRC. A failed run leaves
# no WORK behind.
set -u
if [ $# -ne 4 ]; then
	echo "usage: apply-hooks.sh NAME SRC WORK HOOKS" >&2
	exit 2
fi
name=$1 src=$2 work=$3 hooks=$4

fail() {
	echo "apply: $*" >&2
	rm -rf "$work.tmp" "$work.hooks"
	exit 1
}

[ -d "$src" ] || fail "$src: no such directory"
[ -f "$hooks" ] || fail "$hooks: no such file"
[ -f "$work/.perfvisor-hooked" ] && exit 0
[ -f "$src/.perfvisor-hooked" ] && fail "$src holds perfvisor's hooks already: give the unmodified $name source"
mkdir -p "$(dirname "$work")" || fail "cannot create $(dirname "$work")"
[ "$(cd "$src" && pwd -P)" != "$(cd "$(dirname "$work")" && pwd -P)/$(basename "$work")" ] ||
	fail "WORK is SRC: the hooked tree must be a copy"

rm -rf "$work" "$work.tmp" "$work.hooks"
cp -a "$src" "$work.tmp" || fail "cannot copy $src"
# The list, read once: one record per hook (fields separated by \001, records by \002).
awk -v incl="${APPLY_INCLUDE:-}" '
	function flush() {
		if (kind == "") return
		n++
		f[n] = file; k[n] = kind; r[n] = re; t[n] = text; w[n] = within; l[n] = NR
		kind = ""; text = ""; within = ""
	}
	inblock && $0 == "end" { inblock = 0; flush(); next }
	inblock { text = text $0 "\n"; next } # verbatim: "#" lines too (preprocessor)
	/^#/ || /^$/ { next }
	$1 == "file" { file = $2; next }
	$1 == "include" {
		h = NF > 1 ? $2 : incl
		if (h == "") {
			printf "apply: hooks line %d: include names no header (and APPLY_INCLUDE is empty)\n", NR > "/dev/stderr"
			bad = 1; exit 1
		}
		n++; f[n] = file; k[n] = "include"; r[n] = ""; t[n] = "#include " h " /* perfvisor */\n"
		w[n] = ""; l[n] = NR; next
	}
	$1 == "within" { within = substr($0, length($1) + 2); next }
	$1 == "after" || $1 == "before" || $1 == "after-brace" || $1 == "replace" {
		if (file == "") {
			printf "apply: hooks line %d: a hook before any \"file\" line\n", NR > "/dev/stderr"
			bad = 1; exit 1
		}
		kind = $1; re = substr($0, length($1) + 2); inblock = 1; next
	}
	{ printf "apply: hooks line %d: unknown directive \"%s\"\n", NR, $1 > "/dev/stderr"
	  bad = 1; exit 1 }
	END {
		if (bad) exit 1
		if (inblock) { print "apply: the hooks list ends inside a block" > "/dev/stderr"; exit 1 }
		for (i = 1; i <= n; i++)
			printf "%s\001%s\001%s\001%s\001%s\002", f[i], k[i], r[i], t[i], w[i]
	}
' "$hooks" >"$work.hooks" || fail "the hooks list $hooks cannot be read"

# Each record placed by a second awk over its file, in the list's order.
awk -v RS='\002' -v FS='\001' -v root="$work.tmp" -v name="$name" '
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
		close(path)
		RS = "\002"
		if (nl == 0) { printf "apply: %s: no such file in the %s source\n", $1, name > "/dev/stderr"; exit 1 }
		if (within != "" && scopes != 1) {
			printf "apply: %s: /%s/ matches %d lines, not 1: the %s source drifted\n", $1, within, scopes, name > "/dev/stderr"
			exit 1
		}
		if (kind == "include") {
			for (at = 1; at <= nl && lines[at] !~ /^#include /; at++) ;
			if (at > nl) { printf "apply: %s: no #include line\n", $1 > "/dev/stderr"; exit 1 }
			kind = "after"
		} else if (hits != 1) {
			printf "apply: %s: /%s/ matches %d lines, not 1: the %s source drifted\n", $1, re, hits, name > "/dev/stderr"
			exit 1
		}
		if (kind == "after-brace") {
			while (at <= nl && lines[at] !~ /^[ \t]*\{[ \t]*$/) at++
			if (at > nl) { printf "apply: %s: no \"{\" line below /%s/\n", $1, re > "/dev/stderr"; exit 1 }
			kind = "after"
		}
		out = ""
		for (i = 1; i <= nl; i++) {
			if ((kind == "before" || kind == "replace") && i == at) out = out text
			if (!(kind == "replace" && i == at)) out = out lines[i] "\n"
			if (kind == "after" && i == at) out = out text
		}
		printf "%s", out > path
		close(path)
		delete lines
		changed[$1] = 1
	}
	END {
		for (p in changed) print p > (root "/.perfvisor-changed")
	}
' "$work.hooks" || fail "a hook could not be placed (above)"
rm -f "$work.hooks"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	sort "$work.tmp/.perfvisor-changed" 2>/dev/null
} >"$work.tmp/.perfvisor-hooked" || fail "cannot write $work.tmp/.perfvisor-hooked"
rm -f "$work.tmp/.perfvisor-changed"
mv "$work.tmp" "$work" || fail "cannot move the tree to $work"
