#!/bin/sh
# SPDX-License-Identifier: MIT
# Kernel-doc comments (Linux's Documentation/doc-guide/kernel-doc.rst) of the functions the
# given headers declare or define inline at file scope (typedefs, macros and the bodies of
# structures and enumerations are not functions). Each needs, immediately above it (no blank
# line, code or directive between), a comment that opens with "/**" and whose first line is
# " * name() - summary" with the function's own name; one "@name:" line for each parameter,
# in declaration order, and none for anything else (a parameter without a name is a finding
# of its own); and a "Return:" line if and only if the return type is not plain void.
#   kerneldoc.sh HEADER...     one line per finding, file:line: function: what; exit 1 if any
#   kerneldoc.sh --self-test   the check against headers that break each rule once, beside
#                              declarations that break none; exit 0 if it finds exactly those

check() { # check HEADER...
	awk '
	function reset_stmt() {
		stmt = ""
	}
	function trim(s) {
		sub(/^[ \t]+/, "", s)
		sub(/[ \t]+$/, "", s)
		return s
	}
	function finding(what) {
		print file ":" s_line ": " f_name ": " what
		bad = 1
	}
	# Line k of the comment above the statement, without the comment markers, the leading
	# " * " and trailing blanks.
	function doc_text(k,    t) {
		t = s_com[k]
		if (k == 1)
			sub(/^.*\/\*\*/, "", t)
		sub(/\*\/.*$/, "", t)
		sub(/^[ \t]*/, "", t)
		if (k > 1 && substr(t, 1, 1) == "*")
			t = substr(t, 2)
		sub(/^ /, "", t)
		return trim(t)
	}
	# A statement starts on this line: is the last comment right above it? It counts when
	# nothing but blank lines follows it, and no code precedes it on the line it opens on.
	function snapshot(    k) {
		s_line = FNR
		s_state = "none"
		if (com_end > 0 && com_clean && com_end > last_code)
			s_state = (com_end == FNR - 1) ? "adjacent" : "gap"
		s_doc = com_doc
		s_ncom = ncom
		for (k = 1; k <= ncom; k++)
			s_com[k] = com[k]
	}
	# Is statement s a function declaration (or the head of a definition)? Sets f_name,
	# f_ret and f_params.
	function classify(s,    p, pre, depth, j, ch) {
		s = trim(s)
		if (s ~ /^typedef[^A-Za-z0-9_]/)
			return 0
		p = index(s, "(")
		if (!p)
			return 0
		pre = trim(substr(s, 1, p - 1))
		if (!match(pre, /[A-Za-z_][A-Za-z0-9_]*$/))
			return 0
		f_name = substr(pre, RSTART)
		f_ret = trim(substr(pre, 1, RSTART - 1))
		if (f_ret == "" || f_ret ~ /[{}=(),]/)
			return 0 # no return type (a macro call, _Static_assert), or not a function
		if (f_name ~ /^(void|char|short|int|long|float|double|signed|unsigned|_Bool|bool)$/ ||
		    substr(s, p + 1) ~ /^[ \t]*\*/)
			return 0 # a pointer to a function: int (*f)(void)
		depth = 1
		for (j = p + 1; j <= length(s) && depth > 0; j++) {
			ch = substr(s, j, 1)
			if (ch == "(")
				depth++
			else if (ch == ")")
				depth--
		}
		if (depth)
			return 0
		f_params = substr(s, p + 1, j - p - 2)
		return 1
	}
	# The return type without storage class and function specifiers: "void" for plain void.
	function plain_ret(r,    t, n, k, out) {
		gsub(/\*/, " * ", r)
		n = split(r, t, /[ \t]+/)
		out = ""
		for (k = 1; k <= n; k++) {
			if (t[k] == "" || t[k] ~ /^(static|inline|__inline|__inline__|extern|_Noreturn|PV_API|PV_PLATFORM)$/)
				continue
			out = out (out == "" ? "" : " ") t[k]
		}
		return out
	}
	# The name of parameter q: its last identifier (not a type), or "" when it has none.
	function param_name(q,    t, n, k, ids, last) {
		if (match(q, /\([ \t]*\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/)) {
			q = substr(q, RSTART + 1, RLENGTH - 2)
			sub(/^[ \t]*\*[ \t]*/, "", q)
			return trim(q)
		}
		while (match(q, /\[[^]]*\]/))
			q = substr(q, 1, RSTART - 1) " " substr(q, RSTART + RLENGTH)
		gsub(/\*/, " * ", q)
		n = split(trim(q), t, /[ \t]+/)
		ids = 0
		last = ""
		for (k = 1; k <= n; k++) {
			if (t[k] ~ /^(const|volatile|restrict|__restrict)$/)
				continue
			last = t[k]
			if (t[k] != "*")
				ids++
		}
		if (last == "*" || last == "" || ids < 2)
			return ""
		if (last ~ /^(void|char|short|int|long|float|double|signed|unsigned|_Bool|bool)$/)
			return ""
		if (ids == 2 && t[1] ~ /^(struct|union|enum)$/)
			return ""
		return last
	}
	function check_decl(    np, pn, q, depth, k, ch, nd, dn, seen, want, t, first, has_ret,
			      miss, extra, order, isvoid, nm) {
		if (s_state == "none") {
			finding("no comment immediately above the declaration")
			return
		}
		if (s_state == "gap") {
			finding("a blank line between its comment and the declaration")
			return
		}
		if (!s_doc) {
			finding("the comment above does not open with /**")
			return
		}
		# The parameters, split at the commas outside parentheses; (void) is none.
		np = 0
		q = ""
		depth = 0
		for (k = 1; k <= length(f_params) + 1; k++) {
			ch = k <= length(f_params) ? substr(f_params, k, 1) : ","
			if (ch == "(")
				depth++
			else if (ch == ")")
				depth--
			if (ch != "," || depth) {
				q = q ch
				continue
			}
			q = trim(q)
			if (q != "" && q != "..." && !(np == 0 && q == "void" && k > length(f_params))) {
				np++
				pn[np] = param_name(q)
				if (pn[np] == "")
					finding("parameter " np " (" q ") has no name")
			}
			q = ""
		}
		# The comment: its first line, its @name: lines, a Return: line.
		k = 1
		first = doc_text(1)
		if (first == "" && s_ncom >= 2)
			first = doc_text(k = 2)
		nd = 0
		has_ret = 0
		for (k++; k <= s_ncom; k++) {
			t = doc_text(k)
			if (match(t, /^@[A-Za-z_][A-Za-z0-9_]*:/))
				dn[++nd] = substr(t, 2, RLENGTH - 2)
			else if (t ~ /^Return:/)
				has_ret = 1
		}
		if (first !~ /^[A-Za-z_][A-Za-z0-9_]*\(\) - ?/) {
			finding("first line is not \" * " f_name "() - summary\"")
		} else {
			nm = substr(first, 1, index(first, "(") - 1)
			if (nm != f_name)
				finding("first line names " nm "(), not " f_name "()")
			else if (trim(substr(first, length(nm) + 5)) == "")
				finding("no summary after \"" f_name "() -\"")
		}
		miss = extra = 0
		for (k = 1; k <= nd; k++) {
			if (seen[dn[k]]++) {
				finding("@" dn[k] ": given twice")
				extra++
			}
		}
		for (k = 1; k <= np; k++) {
			if (pn[k] == "")
				continue
			want[pn[k]] = 1
			if (!(pn[k] in seen)) {
				finding("no @" pn[k] ": line for parameter " pn[k])
				miss++
			}
		}
		for (k = 1; k <= nd; k++) {
			if (!(dn[k] in want)) {
				finding("@" dn[k] ": names no parameter")
				extra++
			}
		}
		if (!miss && !extra) {
			order = 0
			t = 0
			for (k = 1; k <= np; k++)
				if (pn[k] != "" && dn[++t] != pn[k])
					order = 1
			if (order)
				finding("@name: lines not in the order of the parameters")
		}
		isvoid = plain_ret(f_ret) == "void"
		if (isvoid && has_ret)
			finding("a Return: line, but it returns void")
		else if (!isvoid && !has_ret)
			finding("no Return: line (it returns " plain_ret(f_ret) ")")
	}
	FNR == 1 {
		file = FILENAME
		incom = indir = depth = body = 0
		com_end = -1
		com_doc = com_clean = ncom = 0
		last_code = 0
		reset_stmt()
	}
	{
		line = $0
		n = length(line)
		code_on_line = 0
		if (incom)
			com[++ncom] = line
		else if (!indir && line ~ /^[ \t]*#/)
			indir = 1
		# The C++ linkage brackets of api.h are not code: a line alone, like a directive.
		if (!incom && line ~ /^[ \t]*PV_(BEGIN|END)_DECLS[ \t]*$/)
			next
		for (i = 1; i <= n; i++) {
			c = substr(line, i, 1)
			if (incom) {
				if (c == "*" && substr(line, i + 1, 1) == "/") {
					incom = 0
					com_end = FNR
					i++
				}
				continue
			}
			if (c == "/" && substr(line, i + 1, 1) == "*") {
				incom = 1
				ncom = 1
				com[1] = line
				com_doc = substr(line, i, 3) == "/**" &&
					  (i + 3 > n || substr(line, i + 3, 1) ~ /[ \t]/)
				com_clean = !code_on_line
				i++
				continue
			}
			if (c == "/" && substr(line, i + 1, 1) == "/") {
				ncom = 1
				com[1] = line
				com_doc = 0
				com_clean = !code_on_line
				com_end = FNR
				break
			}
			if (c == " " || c == "\t") {
				if (!indir && !body && stmt != "")
					stmt = stmt " "
				continue
			}
			# Code from here on: a comment that ended on this line is not alone on it.
			if (FNR == com_end)
				com_clean = 0
			if (c == "\"" || c == "\047") {
				for (i++; i <= n; i++) {
					ch = substr(line, i, 1)
					if (ch == "\\")
						i++
					else if (ch == c)
						break
				}
				c = "\"\""
			}
			code_on_line = 1
			if (indir) {
				last_code = FNR
				continue
			}
			if (body) {
				if (c == "{") {
					depth++
				} else if (c == "}" && --depth == 0) {
					if (body == 2)
						stmt = stmt "{}"
					body = 0
				}
				last_code = FNR
				continue
			}
			if (stmt == "")
				snapshot()
			last_code = FNR
			if (c == ";") {
				if (classify(stmt))
					check_decl()
				reset_stmt()
			} else if (c == "{") {
				depth = 1
				if (classify(stmt)) {
					check_decl() # an inline definition: its body is skipped
					reset_stmt()
					body = 1
				} else {
					body = 2 # an aggregate: the statement goes on after its body
				}
			} else {
				stmt = stmt c
			}
		}
		if (!indir && !body && stmt != "")
			stmt = stmt " "
		if (indir && !incom && line !~ /\\$/)
			indir = 0
	}
	END { exit bad }
	' "$@"
}

self_test() {
	tmp=$(mktemp -d 2>/dev/null) || {
		tmp=build/kerneldoc-self.$$
		mkdir -p "$tmp" || exit 1
	}
	trap 'rm -rf "$tmp"' EXIT
	cat >"$tmp/good.h" <<'END_GOOD'
/* kerneldoc.sh self-test: declarations that break no rule, and things that are not
 * functions. */
#ifndef GOOD_H
#define GOOD_H

#include <stddef.h>

#define NOT_A_FUNCTION(x, y)                                                   \
	((x) + (y))

struct holder {
	int (*callback)(int a, int b); /* a member, not a function */
	unsigned n;
};

typedef int handler_fn(struct holder *h, unsigned n);
extern int (*hook)(int a);

enum { ONE, TWO };

/**
 * good_plain() - Every part in place.
 * @a: the first.
 * @b: the second,
 *     on two lines.
 *
 * Context: anywhere.
 * Return: a number.
 */
int good_plain(int a, const char *b);

/**
 * good_void() - No parameters, nothing returned.
 */
void good_void(void);

/**
 * good_pointer() - A pointer to void is a value; the prototype spans lines.
 * @h: a holder.
 * @out: where to write.
 * @pos: position, moved on.
 * @cb: a function-pointer parameter.
 *
 * Return: a pointer.
 */
const void *good_pointer(const struct holder *h, unsigned char out[4], size_t *pos,
			 int (*cb)(int x, int y));

/**
 * good_inline() - Defined in the header.
 * @x: the value.
 *
 * Return: one more than @x.
 */
static inline unsigned good_inline(unsigned x)
{
	if (x == '{')
		return x; /* a brace in a character literal: } */
	return x + 1;
}

/**
 * good_struct() - Returns a pointer to a structure.
 * @n: an index.
 *
 * Return: the holder.
 */
const struct holder *good_struct(unsigned n); /* a trailing comment */

/**
 * good_last() - After a declaration with a trailing comment.
 */
void good_last(void);

#endif
END_GOOD
	cat >"$tmp/bad.h" <<'END_BAD'
/* kerneldoc.sh self-test: each bad_* function breaks one rule, good_after none. */

/**
 * bad_othername() - The summary names another function.
 * @a: the value.
 *
 * Return: a number.
 */
int bad_name(int a);

/**
 * bad_summary() -
 */
void bad_summary(void);

int bad_missing(int a);

/**
 * bad_noparam() - A parameter without its line.
 * @a: the first.
 *
 * Return: a number.
 */
int bad_noparam(int a, int b);

/**
 * bad_extra() - A line that names no parameter.
 * @a: the value.
 * @z: not a parameter.
 */
void bad_extra(int a);

/**
 * bad_noreturn() - Returns a value and says nothing of it.
 * @a: the value.
 */
void *bad_noreturn(int a);

/**
 * bad_voidreturn() - Returns nothing, with a Return line.
 * @a: the value.
 *
 * Return: nothing.
 */
void bad_voidreturn(int a);

/**
 * bad_gap() - A blank line before the declaration.
 * @a: the value.
 */

void bad_gap(int a);

/*
 * bad_plain() - The comment does not open with the kernel-doc marker.
 * @a: the value.
 */
void bad_plain(int a);

/**
 * bad_order() - The parameter lines out of order.
 * @b: the second.
 * @a: the first.
 */
void bad_order(int a, int b);

/**
 * bad_unnamed() - A parameter without a name.
 * @a: the value.
 */
void bad_unnamed(int a, struct holder *);

/**
 * good_after() - Right after a bad one, and fine.
 * @v: the value.
 *
 * Return: a holder.
 */
struct holder *good_after(int v);
END_BAD
	st=0
	out=$(check "$tmp/good.h")
	if [ $? -ne 0 ] || [ -n "$out" ]; then
		printf 'kerneldoc self-test: good.h: expected no finding, got:\n%s\n' "$out"
		st=1
	fi
	want="bad_extra bad_gap bad_missing bad_name bad_noparam bad_noreturn bad_order"
	want="$want bad_plain bad_summary bad_unnamed bad_voidreturn "
	out=$(check "$tmp/good.h" "$tmp/bad.h")
	rc=$?
	got=$(printf '%s\n' "$out" | sed -n 's/^[^:]*:[0-9]*: \([A-Za-z0-9_]*\): .*$/\1/p' |
		sort | tr '\n' ' ')
	if [ $rc -ne 1 ] || [ "$got" != "$want" ]; then
		printf 'kerneldoc self-test: expected one finding for each of %s(exit 1); got (exit %s):\n%s\n' \
			"$want" "$rc" "$out"
		st=1
	fi
	return $st
}

if [ "${1:-}" = "--self-test" ]; then
	self_test
	exit $?
fi
if [ $# -eq 0 ]; then
	echo "usage: kerneldoc.sh HEADER... | kerneldoc.sh --self-test" >&2
	exit 2
fi
check "$@"
