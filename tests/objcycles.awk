# SPDX-License-Identifier: MIT
# The dependency graph of a set of objects, from their symbols, and its cycles.
# Input: "node symbol D" (node defines symbol) and "node symbol U" (node uses it) lines, as
# tests/objcycles.sh writes them from nm. An edge a -> b for each symbol a uses and b defines
# (a != b). Prints "cycle: n1 n2 ..." for each strongly connected set of two or more nodes
# (Tarjan's algorithm) and "edges: N" last; exits 1 if there was a cycle.
$3 == "D" { def[$2] = $1; nodes[$1] = 1; next }
$3 == "U" { use[++nuse] = $1 SUBSEP $2; nodes[$1] = 1; next }

function visit(v,   k, w, set, size) {
	order[v] = low[v] = ++counter
	stack[++depth] = v
	on_stack[v] = 1
	for (k = 1; k <= nout[v]; k++) {
		w = out[v, k]
		if (!(w in order)) {
			visit(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (on_stack[w] && order[w] < low[v]) {
			low[v] = order[w]
		}
	}
	if (low[v] != order[v])
		return
	set = ""
	size = 0
	do {
		w = stack[depth--]
		on_stack[w] = 0
		set = set " " w
		size++
	} while (w != v)
	if (size > 1) {
		print "cycle:" set
		cycles++
	}
}

END {
	for (i = 1; i <= nuse; i++) {
		split(use[i], u, SUBSEP)
		if (!(u[2] in def))
			continue
		a = u[1]
		b = def[u[2]]
		if (a == b || ((a, b) in edge))
			continue
		edge[a, b] = 1
		out[a, ++nout[a]] = b
		nedges++
	}
	for (v in nodes)
		if (!(v in order))
			visit(v)
	print "edges: " nedges + 0
	exit cycles ? 1 : 0
}
