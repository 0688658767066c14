# SPDX-License-Identifier: MIT
# One mutation of one source file (tests/mutants/run.sh), found by identifiers as the hooks
# of scripts/apply-hooks.sh are:
#   MUT_WITHIN=ERE MUT_LINE=ERE MUT_OP=delete|replace MUT_FROM=ERE MUT_TO=TEXT \
#       awk -f tests/mutants/mutate.awk FILE >NEW
# MUT_LINE must match exactly one line of FILE, or, with MUT_WITHIN, of the scope from the one
# line MUT_WITHIN matches to the next line that starts with "}" (the function's end). That line
# is deleted, or its first match of MUT_FROM is replaced by MUT_TO (taken literally; "\t" is a
# tab). The patterns come from the environment, so no backslash of theirs is interpreted.
# Exit 3, with one line on stderr saying how many lines matched, when the file has drifted
# from the mutation (the list must follow it); exit 4 when MUT_FROM is not in the line.
BEGIN {
	within = ENVIRON["MUT_WITHIN"]
	pat = ENVIRON["MUT_LINE"]
	op = ENVIRON["MUT_OP"]
	from = ENVIRON["MUT_FROM"]
	to = ENVIRON["MUT_TO"]
	gsub(/\\t/, "\t", to)
	inscope = within == ""
}
{ line[NR] = $0 }
within != "" && $0 ~ within { if (!nwithin++) inscope = 1 }
inscope && $0 ~ pat { nmatch++; at = NR }
within != "" && inscope && /^}/ { inscope = 0 }
END {
	if (within != "" && nwithin != 1) {
		printf "mutate: %s: within /%s/ matches %d lines, not 1\n", FILENAME, within, nwithin > "/dev/stderr"
		exit 3
	}
	if (nmatch != 1) {
		printf "mutate: %s: /%s/ matches %d lines%s, not 1\n", FILENAME, pat, nmatch,
			within != "" ? " of the function" : "" > "/dev/stderr"
		exit 3
	}
	if (op == "replace") {
		# A literal search for MUT_FROM's first match: index() after a regex locate.
		l = line[at]
		if (!match(l, from)) {
			printf "mutate: %s:%d: /%s/ is not in the line\n", FILENAME, at, from > "/dev/stderr"
			exit 4
		}
		line[at] = substr(l, 1, RSTART - 1) to substr(l, RSTART + RLENGTH)
	} else if (op != "delete") {
		printf "mutate: unknown operation '%s'\n", op > "/dev/stderr"
		exit 2
	}
	for (i = 1; i <= NR; i++)
		if (!(i == at && op == "delete"))
			print line[i]
}
