# SPDX-License-Identifier: MIT
#
# The register database's generator (POSIX awk):
#   awk -v keys=OUT/perfvisor/sysreg_defs.h -v db=OUT/regdb.h -v el2h=OUT/regdb_el2.h \
#       -f arch/gen-sysregs.awk arch/sysregs.txt
# The database's own header describes its columns and the lines below a row. Any row it
# cannot read, two rows that claim one encoding, a handler that does not fit its row, or a
# register whose bits are not all accounted for stop the build with the line's number.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

# The same, for a row whose lines are all read: the message names the row's own line.
function fail_at(line, msg) {
	printf "%s:%d: %s\n", FILENAME, line, msg > "/dev/stderr"
	failed = 1
	exit 1
}

function bits_for(x,   k) {
	for (k = 0; (2 ^ k) <= x; k++)
		;
	return k
}

function check_in(v, list, what) {
	if (index(" " list " ", " " v " ") == 0)
		fail(what " '" v "' is not one of: " list)
}

function check_num(v, lo, hi, what) {
	if (v !~ /^[0-9]+$/ || v + 0 < lo || v + 0 > hi)
		fail(what " '" v "' is not a number in " lo ".." hi)
}

# The EL0 rule as a C expression (regdb.h's PV_EL0_* encoding).
function el0_expr(p,   n, parts, i, e) {
	if (p == "-" || p == "UNDEF")
		return "PV_EL0_UNDEF"
	if (p == "ANY")
		return "PV_EL0_ANY"
	if (p == "AMU")
		return "PV_EL0_AMU"
	if (p == "IDST")
		return "PV_EL0_IDST"
	n = split(p, parts, "|")
	e = ""
	for (i = 1; i <= n; i++) {
		check_in(parts[i], "EN SW CR ER", "PMUSERENR_EL0 bit")
		e = e (i > 1 ? " | " : "") "PV_PMUSERENR_" parts[i]
	}
	return "PV_EL0_PMU(" e ")"
}

function version_expr(feature, v) {
	if (feature == "PMU") {
		check_in(v, "V3 V3P1 V3P4 V3P5 V3P7 V3P8 V3P9", "PMUVer")
		return "PV_PMUVER_" v
	}
	check_num(v, 0, 15, "version")
	return v
}

# The CRm and Op2 of member n of row r (n = 0 for a register): n = CRm[k-1:0]:Op2.
function slot_crm(r, n) {
	return family[r] ? crm[r] + int(n / 8) : crm[r]
}

function slot_op2(r, n) {
	return family[r] ? n % 8 : op2[r]
}

# The handler of row r for direction dir ("read" or "write"): NULL where the guest has no
# such access; with n >= 0, member n's own (pv_vpmu_pmevcntr3_read) of a row whose line
# gives the pattern (pv_vpmu_pmevcntr<n>_read).
function handler_of(r, dir, n,   f) {
	f = (dir == "read") ? rdname[r] : wrname[r]
	if (f == "")
		return "NULL"
	if (n >= 0) {
		f = (dir == "read") ? rdpat[r] : wrpat[r]
		sub(/<n>/, n, f)
	}
	return f
}

# The name the coverage document shows: the pattern of a family's own handlers, else the
# handler; "" for none.
function handler_shown(r, dir) {
	if (dir == "read")
		return each[r] ? rdpat[r] : rdname[r]
	return each[r] ? wrpat[r] : wrname[r]
}

# Bits BIT or HI:LO into the globals hi and lo.
function bits_of(s,   n, b) {
	n = split(s, b, ":")
	hi = b[1] + 0
	lo = (n == 2) ? b[2] + 0 : hi
	if (hi > 63 || lo > hi)
		fail("bits " s " are not within 63:0, high first")
}

# Bits hi..lo of row r are `what`'s: no bit of a register is in two lines.
function cover(r, what, hi, lo,   b) {
	for (b = lo; b <= hi; b++) {
		if ((r, b) in cov)
			fail("bit " b " of " name[r] " is in " cov[r, b] " and in " what)
		cov[r, b] = what
	}
	cover_lines[r]++
}

# The module whose handlers serve a feature's registers.
function module_of(f) {
	if (f == "PMU")
		return "vpmu"
	if (f == "SPE")
		return "vspe"
	if (f == "AMU")
		return "vamu"
	if (f == "MPAM")
		return "vmpam"
	return "trap"
}

# A field line's words from $from: its access, the version it exists from, the condition it
# needs, what it is without them; records them for the masks and returns where the note starts.
function field_attrs(from,   i, c) {
	i = from
	nbits++
	bl_row[nbits] = rows
	bl_hi[nbits] = hi
	bl_lo[nbits] = lo
	bl_line[nbits] = FNR
	bl_name[nbits] = $2
	bl_acc[nbits] = ""
	bl_since[nbits] = ""
	bl_cond[nbits] = ""
	bl_or[nbits] = 0
	bl_else1[nbits] = 0
	if (i <= NF && index(" " ACCESSES " ", " " $i " ")) {
		bl_acc[nbits] = $i
		i++
	}
	if (i <= NF && $i == "since") {
		if (i + 1 > NF)
			fail("since needs a version of " feature[rows])
		bl_since[nbits] = version_expr(feature[rows], $(i + 1))
		i += 2
		if (i <= NF && $i == "or") {
			c = (i + 1 <= NF) ? $(i + 1) : ""
			check_in(c, CONDS, "condition")
			bl_cond[nbits] = c
			bl_or[nbits] = 1
			i += 2
		}
	} else if (i <= NF && $i == "if") {
		c = (i + 1 <= NF) ? $(i + 1) : ""
		check_in(c, CONDS, "condition")
		bl_cond[nbits] = c
		i += 2
	}
	if (i <= NF && $i == "else") {
		if (bl_since[nbits] == "" && bl_cond[nbits] == "")
			fail("else needs a since or an if before it")
		if (i + 1 > NF || $(i + 1) != "RES1")
			fail("a field that is not there is RES0, or RES1 with 'else RES1'")
		bl_else1[nbits] = 1
		i += 2
	}
	if (bl_acc[nbits] == "" && (bl_since[nbits] != "" || bl_cond[nbits] != ""))
		fail("a field with a version or a condition needs its access first")
	return i
}

# The C condition under which line i's bits are there (for version v and conditions h, the
# parameters of the mask macros); "" when always.
function presence(i,   v, c) {
	v = bl_since[i] != "" ? "(v) >= " bl_since[i] : ""
	c = bl_cond[i] != "" ? "((h) & PV_COND_" toupper(bl_cond[i]) ")" : ""
	if (v != "" && c != "")
		return "(" v " || " c ")"
	if (v != "")
		return "(" v ")"
	return c
}

# Bit strings: 64 characters, bit 63 first.
function zeros(   t, b) {
	t = ""
	for (b = 0; b < 64; b++)
		t = t "0"
	return t
}

function set_bits(m, hi, lo,   b) {
	for (b = lo; b <= hi; b++)
		m = substr(m, 1, 63 - b) "1" substr(m, 65 - b)
	return m
}

function hex_of(m,   t, i, d) {
	t = ""
	for (i = 1; i <= 64; i += 4) {
		d = substr(m, i, 1) * 8 + substr(m, i + 1, 1) * 4 + substr(m, i + 2, 1) * 2 + \
		    substr(m, i + 3, 1)
		t = t substr("0123456789ABCDEF", d + 1, 1)
	}
	sub(/^0+/, "", t)
	return "UINT64_C(0x" (t == "" ? "0" : t) ")"
}

# The C expression of row r's bits of access `acc` (RW, RO, WO, W1S, W1C, RES1), for version
# v and conditions h: the bits always there, then those of each version or condition.
function mask_expr(r, acc,   i, p, k, np, pk, pm, fixed, e, absent) {
	fixed = zeros()
	np = 0
	for (i = 1; i <= nbits; i++) {
		if (bl_row[i] != r)
			continue
		p = presence(i)
		absent = 0
		if (bl_acc[i] != acc) {
			if (!(acc == "RES1" && bl_else1[i]))
				continue
			absent = 1
		}
		if (p == "") {
			fixed = set_bits(fixed, bl_hi[i], bl_lo[i])
			continue
		}
		k = (absent ? "!" : "") p
		if (!(k in pk_of)) {
			pk_of[k] = ++np
			pk[np] = k
			pm[np] = zeros()
		}
		pm[pk_of[k]] = set_bits(pm[pk_of[k]], bl_hi[i], bl_lo[i])
	}
	e = (np && fixed == zeros()) ? "" : hex_of(fixed)
	for (k = 1; k <= np; k++) {
		e = e (e == "" ? "" : " | ") "(" pk[k] " ? " hex_of(pm[k]) " : 0)"
		delete pk_of[pk[k]]
	}
	return np ? "(" e ")" : e
}

# Every line of row r is read: its handlers against its access, its bits against the rule
# that every bit of a register whose bits are described is in exactly one line.
function finish_row(r,   rd, wr, need, b, gaps, start, i, a) {
	rd = (guest[r] == "RW" || guest[r] == "RO")
	wr = (guest[r] == "RW" || guest[r] == "WO")
	if (rd && rdname[r] == "")
		fail_at(row_line[r], name[r] " is " guest[r] " for the guest: it needs a read line")
	if (!rd && rdname[r] != "")
		fail_at(row_line[r], name[r] " is not readable by the guest: no read line")
	if (wr && wrname[r] == "")
		fail_at(row_line[r], name[r] " is " guest[r] " for the guest: it needs a write line")
	if (!wr && wrname[r] != "")
		fail_at(row_line[r], name[r] " is not writable by the guest: no write line")
	each[r] = (rdpat[r] != "" || wrpat[r] != "")
	if (each[r] && ((rdname[r] != "" && rdpat[r] == "") || (wrname[r] != "" && wrpat[r] == "")))
		fail_at(row_line[r], name[r] ": both handlers are patterns with <n>, or neither")
	for (i = 1; i <= naliases; i++) {
		if (alias_row[i] != r)
			continue
		for (b = alias_lo[i]; b <= alias_hi[i]; b++)
			if (!((r, b) in cov) || cov[r, b] !~ /^field /)
				fail_at(alias_line[i], "alias " alias_name[i] " of " name[r] \
					" names bit " b ", which no field has")
	}
	need = described[r] || (wr && index(" " COMPLETE " ", " " feature[r] " "))
	if (!need || as_of[r] != "")
		return
	gaps = ""
	start = -1
	for (b = 63; b >= -1; b--) {
		if (b >= 0 && !((r, b) in cov)) {
			if (start < 0)
				start = b
			continue
		}
		if (start >= 0)
			gaps = gaps (gaps == "" ? "" : ", ") (start == b + 1 ? start : start ":" (b + 1))
		start = -1
	}
	if (gaps != "")
		fail_at(row_line[r], "Unspecified bits of " name[r] ": " gaps \
			" (every bit is in a field, res0 or res1 line)")
	for (i = 1; i <= nbits; i++) {
		if (bl_row[i] != r)
			continue
		a = bl_acc[i]
		if (a == "")
			fail_at(bl_line[i], "field " bl_name[i] " of " name[r] " needs its access: " \
				ACCESSES)
		if (guest[r] == "WO" && a != "WO" && a != "RAZ/WI" && a != "RES0" && a != "RES1")
			fail_at(bl_line[i], "field " bl_name[i] " of the write-only " name[r] \
				" is WO or RAZ/WI")
	}
	full[r] = 1
}

# Claims encoding (o0, o1, crn, crm, op2) for table `t` (trap or el2).
function claim(t, o0, o1, crn, crm, op2, who,   k) {
	k = t " " o0 " " o1 " " crn " " crm " " op2
	if (k in claimed)
		fail(who " has the encoding of " claimed[k])
	claimed[k] = who
}

BEGIN {
	if (keys == "" || db == "" || el2h == "") {
		print "usage: awk -v keys=FILE -v db=FILE -v el2h=FILE -f gen-sysregs.awk sysregs.txt" > "/dev/stderr"
		exit 2
	}
	rows = 0
	# The access a field of a bit-complete register has (Arm ARM D24, each field's "Access
	# to this field is"): RW; RO; WO (an action, reads 0: PMCR_EL0.P); W1S and W1C (a 1 sets
	# or clears, reads the state: PMCNTENSET_EL0 and PMCNTENCLR_EL0); RAZ/WI (what the
	# architecture leaves to the implementation, not implemented: PMCR_EL0.X).
	ACCESSES = "RW RO WO W1S W1C RAZ/WI"
	# What a field may need of the PE beyond its feature's version (the mask macros' h):
	# AArch32 at some EL, EL3, Secure EL2, FEAT_RME, and the VM's SPE at SPEv1p2 or later.
	CONDS = "AA32 EL3 SEL2 RME SPEv1p2"
	# The features whose guest-writable registers must have every bit accounted for.
	COMPLETE = "PMU AMU MPAM"
}

/^[ \t]*#/ || /^[ \t]*$/ { next }

# field NAME BITS [ACCESS] [since VER [or COND] | if COND] [else RES1] [note]: a field of the
# row above, bit n or bits hi:lo; ACCESS, the version it exists from and the condition it
# needs are what the bit-complete registers' masks are made of (see the database's header).
# value FIELD NAME VALUE [note]: a named value of one of its fields.
# alias NAME BITS [note]: a name for bits that fields already cover (PV_PMEVTYPER_EVT_V3P1).
/^[ \t]*(field|value|alias)[ \t]/ {
	if (!rows)
		fail("a field before any row")
	if (as_of[rows] != "")
		fail(name[rows] " takes its bits from " as_of[rows] ": no fields of its own")
	kind = $1
	if (kind == "field" || kind == "alias") {
		if (NF < 3 || $2 !~ /^[A-Za-z][A-Za-z0-9_]*$/ || $3 !~ /^[0-9]+(:[0-9]+)?$/)
			fail("a " kind " is: " kind " NAME BIT or " kind " NAME HI:LO [note]")
		bits_of($3)
		fname = prefix_of(rows) "_" $2
		fdef = (hi == lo) ? sprintf("PV_BIT(%d)", lo) : sprintf("PV_GENMASK(%d, %d)", hi, lo)
		note = note_of(kind == "field" ? field_attrs(4) : 4)
		fieldbits[fname] = $3
		if (kind == "field")
			cover(rows, "field " $2, hi, lo)
		else {
			naliases++
			alias_row[naliases] = rows
			alias_hi[naliases] = hi
			alias_lo[naliases] = lo
			alias_line[naliases] = FNR
			alias_name[naliases] = $2
		}
	} else {
		if (NF < 4 || $4 !~ /^(0x[0-9A-Fa-f]+|[0-9]+)$/)
			fail("a value is: value FIELD NAME NUMBER [note]")
		if (!((prefix_of(rows) "_" $2) in fieldbits))
			fail("value of " $2 ", which is no field of " name[rows] " listed above it")
		fname = prefix_of(rows) "_" $2 "_" $3
		fdef = $4 "u"
		note = note_of(5)
	}
	if (fname in defined)
		fail(fname " is defined twice")
	if (substr(fname, 4) in seen_id)
		fail(fname " is also a register's key")
	defined[fname] = 1
	nfields++
	field_name[nfields] = fname
	field_def[nfields] = fdef
	field_note[nfields] = note
	field_row[nfields] = rows
	next
}

# res0 BITS [note], res1 BITS [note]: bits that are RES0 or RES1 in every version.
/^[ \t]*(res0|res1)[ \t]/ {
	if (!rows)
		fail("a " $1 " line before any row")
	if (as_of[rows] != "")
		fail(name[rows] " takes its bits from " as_of[rows] ": no fields of its own")
	if (NF < 2 || $2 !~ /^[0-9]+(:[0-9]+)?$/)
		fail("a " $1 " line is: " $1 " BIT or " $1 " HI:LO [note]")
	bits_of($2)
	note_of(3)
	cover(rows, toupper($1) " " $2, hi, lo)
	nbits++
	bl_row[nbits] = rows
	bl_hi[nbits] = hi
	bl_lo[nbits] = lo
	bl_acc[nbits] = toupper($1)
	bl_since[nbits] = ""
	bl_cond[nbits] = ""
	bl_or[nbits] = 0
	bl_else1[nbits] = 0
	described[rows] = 1
	next
}

# read NAME, write NAME: the row's handlers, as C names them; for a family whose members have
# their own, the pattern and then the handler that takes n (read pv_vpmu_pmevcntr<n>_read
# pv_vpmu_pmevcntr_read).
/^[ \t]*(read|write)[ \t]/ {
	if (!rows)
		fail("a handler before any row")
	dir = $1
	if ((dir == "read" && rdname[rows] != "") || (dir == "write" && wrname[rows] != ""))
		fail(name[rows] " has two " dir " lines")
	if (NF < 2 || NF > 3)
		fail("a handler line is: " dir " NAME, or " dir " PATTERN NAME for a family's own")
	mod = module_of(feature[rows])
	want = "^pv_" mod "_[a-z0-9_]+_" dir "$"
	pat = ""
	fn = $2
	if (NF == 3) {
		pat = $2
		fn = $3
		if (!family[rows])
			fail("per-member handlers (<n>) are for families")
		if (pat !~ /<n>/)
			fail("a family's own handlers are a pattern with <n>: " pat)
		t = pat
		sub(/<n>/, "", t)
		if (t != fn)
			fail("the handler that takes n is the pattern without <n>: " t ", not " fn)
		t = pat
		sub(/<n>/, "0", t)
		if (t !~ want)
			fail("a " dir " handler of a " feature[rows] " register is pv_" mod "_NAME_" dir \
			     ", not " pat)
	} else if (fn ~ /<n>/)
		fail("the pattern " fn " needs the handler that takes n after it")
	if (fn !~ want)
		fail("a " dir " handler of a " feature[rows] " register is pv_" mod "_NAME_" dir \
		     ", not " fn)
	if (dir == "read") {
		rdname[rows] = fn
		rdpat[rows] = pat
	} else {
		wrname[rows] = fn
		wrpat[rows] = pat
	}
	next
}

# as REGISTER...: the register has no bits of its own; it reads and writes those of the one
# it selects (PMXEVTYPER_EL0: PMEVTYPER<n>_EL0, or PMCCFILTR_EL0).
/^[ \t]*as[ \t]/ {
	if (!rows)
		fail("an as line before any row")
	if (NF < 2 || as_of[rows] != "" || cover_lines[rows] || naliases && alias_row[naliases] == rows)
		fail("an as line is: as REGISTER..., once, and instead of fields")
	t = ""
	for (i = 2; i <= NF; i++) {
		if ($i !~ /^[A-Z][A-Z0-9_]*(<n>)?[A-Z0-9_]*$/)
			fail("'" $i "' is not a register's name")
		t = t (i > 2 ? " " : "") $i
	}
	as_of[rows] = t
	as_line[rows] = FNR
	next
}

/^[ \t]*title[ \t]+"/ {
	if (!rows)
		fail("a title before any row")
	t = $0
	sub(/^[ \t]*title[ \t]+"/, "", t)
	sub(/"[ \t]*$/, "", t)
	title[rows] = t
	next
}

/^[ \t]*"/ {
	if (!rows)
		fail("a behaviour before any row")
	t = $0
	sub(/^[ \t]*"/, "", t)
	if (t !~ /"[ \t]*$/)
		fail("a behaviour must end with a quote")
	sub(/"[ \t]*$/, "", t)
	if (t ~ /["\\]/)
		fail("a behaviour may not hold a quote or a backslash")
	text[rows] = t
	next
}

{
	if (NF != 14)
		fail("a row has 14 columns, this one " NF \
		     (NF == 15 ? " (its handlers are its read and write lines)" : ""))
	if (rows)
		finish_row(rows)
	r = ++rows
	row_line[r] = FNR
	name[r] = $1
	if ($1 !~ /^[A-Z][A-Z0-9_]*(<n>)?[A-Z0-9_]*$/)
		fail("bad register name '" $1 "'")
	id = $1
	sub(/<n>/, "", id)
	if (id in seen_id)
		fail(id " is listed twice")
	if (("PV_" id) in defined)
		fail("PV_" id " is already a field's name")
	seen_id[id] = r
	row_of_name[$1] = r
	ident[r] = id
	check_num($2, 0, 3, "op0"); check_num($3, 0, 7, "op1"); check_num($4, 0, 15, "CRn")
	check_num($5, 0, 15, "CRm"); check_num($6, 0, 7, "op2")
	o0[r] = $2; o1[r] = $3; crn[r] = $4; crm[r] = $5; op2[r] = $6
	family[r] = ($7 != "-")
	if (family[r] != ($1 ~ /<n>/))
		fail("a family has <n> in its name and an index range, a register neither")
	first[r] = 0; last[r] = 0; kbits[r] = 0
	if (family[r]) {
		if ($7 !~ /^[0-9]+\.\.[0-9]+$/)
			fail("index range '" $7 "' is not first..last")
		split($7, ix, /\.\./)
		first[r] = ix[1] + 0; last[r] = ix[2] + 0
		if (first[r] >= last[r] || last[r] > 127)
			fail("index range '" $7 "' has fewer than two members, or is too large")
		kbits[r] = bits_for(int(last[r] / 8))
		if (op2[r] != 0 || (crm[r] % (2 ^ kbits[r])) != 0 || kbits[r] > 4)
			fail("a family's first encoding has n's CRm and Op2 bits zero")
	}
	check_in($8, "PMU SPE AMU MPAM ID EL2 EL1 FGT FGTAMU", "feature")
	feature[r] = $8
	minv[r] = version_expr($8, $9)
	check_in($10, "- PMEV AMEV0 AMEV1 AUX ID", "gate")
	gate[r] = ($10 == "-") ? "NONE" : $10
	check_in($11, "- RW RO WO", "el2 access")
	el2acc[r] = $11
	check_in($12, "- RW RO WO UNDEF", "guest access")
	guest[r] = $12
	el0rd[r] = el0_expr($13)
	el0wr[r] = el0_expr($14)
	if (guest[r] != "-" && (feature[r] == "EL1" || feature[r] == "EL2" || feature[r] == "FGT" ||
	    feature[r] == "FGTAMU"))
		fail("feature " feature[r] " is for registers only EL2 uses")
	for (n = first[r]; n <= last[r]; n++) {
		if (guest[r] != "-")
			claim("trap", o0[r], o1[r], crn[r], slot_crm(r, n), slot_op2(r, n), name[r])
		if (el2acc[r] != "-")
			claim("el2", o0[r], o1[r], crn[r], slot_crm(r, n), slot_op2(r, n), name[r])
	}
}

# Fields are named after the register without a final _EL0 or _EL1 (PV_PMCR_E,
# PV_PMEVTYPER_P); EL2 registers keep their _EL2 (PV_MDCR_EL2_TPM), as their EL1 namesakes
# often have fields of their own.
function prefix_of(r,   p) {
	p = ident[r]
	sub(/_EL[01]$/, "", p)
	return "PV_" p
}

# The words after field $from, as a comment.
function note_of(from,   i, t) {
	t = ""
	for (i = from; i <= NF; i++)
		t = t (i > from ? " " : "") $i
	if (t ~ /\*\//)
		fail("a note may not close a comment")
	return t
}

function key_expr(r) {
	if (!family[r])
		return sprintf("PV_SYSREG(%d, %d, %d, %d, %d)", o0[r], o1[r], crn[r], crm[r], op2[r])
	return sprintf("PV_SYSREG(%d, %d, %d, %d | (((n) >> 3) & %d), (n) & 7)", o0[r], o1[r],
		       crn[r], crm[r], 2 ^ kbits[r] - 1)
}

function c_string(s) {
	return "\"" s "\""
}

END {
	if (failed)
		exit 1
	if (rows)
		finish_row(rows)
	# A register with an as line has the bits of those it selects, which must have them all.
	for (r = 1; r <= rows; r++) {
		if (as_of[r] == "")
			continue
		n = split(as_of[r], ts, " ")
		for (i = 1; i <= n; i++)
			if (!(ts[i] in row_of_name) || !full[row_of_name[ts[i]]])
				fail_at(as_line[r], name[r] " is as " ts[i] \
					", which is no register with every bit accounted for")
	}
	print "/* Generated from arch/sysregs.txt by arch/gen-sysregs.awk: do not edit. */" > keys
	print "#ifndef PERFVISOR_SYSREG_DEFS_H" > keys
	print "#define PERFVISOR_SYSREG_DEFS_H" > keys
	print "/* The ISS key of each register (PV_SYSREG, sysreg.h), a family's taking its index, then" > keys
	print " * the fields and named values of those the database describes (PV_BIT, PV_GENMASK). */" > keys
	for (r = 1; r <= rows; r++) {
		if (family[r])
			printf "#define PV_%s(n) %s\n", ident[r], key_expr(r) > keys
		else
			printf "#define PV_%s %s\n", ident[r], key_expr(r) > keys
	}
	shown = 0
	for (i = 1; i <= nfields; i++) {
		if (field_row[i] != shown) {
			printf "\n/* %s */\n", name[field_row[i]] > keys
			shown = field_row[i]
		}
		if (field_note[i] != "")
			printf "#define %s %s /* %s */\n", field_name[i], field_def[i], field_note[i] > keys
		else
			printf "#define %s %s\n", field_name[i], field_def[i] > keys
	}
	print "#endif" > keys

	print "/* Generated from arch/sysregs.txt by arch/gen-sysregs.awk: do not edit. */" > db
	print "#ifndef PV_REGDB_H" > db
	print "#define PV_REGDB_H" > db
	print "" > db
	print "#include \"perfvisor/trap.h\"" > db
	print "" > db
	print "/* What the EL0 rule AMU asks (vamu/): the vCPU's AMUSERENR_EL0.EN. */" > db
	print "bool pv_vamu_el0_enabled(const struct pv_vcpu *v);" > db
	print "" > db

	# The trap table's entries, in the database's order.
	print "/* X(ident, title, op0, op1, crn, crm, op2, first, last, crm_bits, kind, feature, min," > db
	print " *   gate, access, el0_rd, el0_wr, rd, wr, each, text, rd_name, wr_name): every register" > db
	print " *   the trap table serves; each is ONE (one function for the entry) or EACH (one per" > db
	print " *   member); rd_name and wr_name are the database's read and write lines (\"\" for none). */" > db
	print "#define PV_REGDB_ENTRIES(X) \\" > db
	for (r = 1; r <= rows; r++) {
		if (guest[r] == "-")
			continue
		t = (r in title) ? title[r] : name[r]
		acc = guest[r] == "UNDEF" ? el2acc[r] : guest[r]
		rd = handler_of(r, "read", -1)
		wr = handler_of(r, "write", -1)
		kind = feature[r]
		feat = feature[r] == "ID" ? "0" : "PV_FEAT_" feature[r]
		printf "\tX(%s, %s, %d, %d, %d, %d, %d, %d, %d, %d, PV_KIND_%s, %s, %s, PV_GATE_%s, PV_ACC_%s, %s, %s, %s, %s, %s, %s, %s, %s) \\\n", \
			ident[r], c_string(t), o0[r], o1[r], crn[r], crm[r], op2[r], first[r], last[r], \
			kbits[r], kind, feat, minv[r], gate[r], acc, el0rd[r], el0wr[r], rd, wr, \
			each[r] ? "EACH" : "ONE", c_string(text[r]), c_string(handler_shown(r, "read")), \
			c_string(handler_shown(r, "write")) > db
	}
	print "\t/* end */" > db
	print "" > db

	# Every encoding the trap table answers, and the function that answers it.
	print "/* X(fn, op0, op1, crn, crm, op2): the trap function of each encoding (fn is the entry's" > db
	print " * ident, or ident_<n> for an EACH family). */" > db
	print "#define PV_REGDB_SLOTS(X) \\" > db
	for (r = 1; r <= rows; r++) {
		if (guest[r] == "-")
			continue
		for (n = first[r]; n <= last[r]; n++) {
			fn = each[r] ? ident[r] "_" n : ident[r]
			printf "\tX(%s, %d, %d, %d, %d, %d) \\\n", fn, o0[r], o1[r], crn[r], \
				slot_crm(r, n), slot_op2(r, n) > db
		}
	}
	print "\t/* end */" > db
	print "" > db

	print "/* X(ident, n, rd, wr): the members of the EACH families and their own handlers. */" > db
	print "#define PV_REGDB_EACH(X) \\" > db
	for (r = 1; r <= rows; r++) {
		if (guest[r] == "-" || !each[r])
			continue
		for (n = first[r]; n <= last[r]; n++)
			printf "\tX(%s, %d, %s, %s) \\\n", ident[r], n, handler_of(r, "read", n), \
				handler_of(r, "write", n) > db
	}
	print "\t/* end */" > db
	print "" > db

	# The (op0, op1, CRn) spaces of the trap table, for its first level.
	print "/* S(op0, op1, crn): the spaces that hold a trapped register. */" > db
	print "#define PV_REGDB_SPACES(S) \\" > db
	for (r = 1; r <= rows; r++) {
		if (guest[r] == "-")
			continue
		s = o0[r] "_" o1[r] "_" crn[r]
		if (s in space_seen)
			continue
		space_seen[s] = 1
		printf "\tS(%d, %d, %d) \\\n", o0[r], o1[r], crn[r] > db
	}
	print "\t/* end */" > db
	print "" > db

	# Handler prototypes: every function the table names, once.
	print "/* The register handlers (vpmu/, vspe/, vamu/, vmpam/, trap/): internal to the core. A" > db
	print " * read handler stores through `val` only when it returns PV_TRAP_HANDLED. */" > db
	for (r = 1; r <= rows; r++) {
		if (guest[r] == "-" || guest[r] == "UNDEF")
			continue
		for (dir = 0; dir < 2; dir++) {
			d = dir == 0 ? "read" : "write"
			for (n = each[r] ? first[r] - 1 : -1; n <= (each[r] ? last[r] : -1); n++) {
				f = handler_of(r, d, n < first[r] ? -1 : n)
				if (f == "NULL" || (f in proto_seen))
					continue
				proto_seen[f] = 1
				printf "pv_reg_%s_fn %s;\n", d, f > db
			}
		}
	}
	print "" > db

	# The bits of every register whose bits are all accounted for, by access.
	print "/* What a field may need of the PE beyond its feature's version: the h of PV_BITS_*. */" > db
	nc = split(CONDS, cs, " ")
	for (i = 1; i <= nc; i++)
		printf "#define PV_COND_%s 0x%xu\n", toupper(cs[i]), 2 ^ (i - 1) > db
	print "" > db
	print "/* PV_BITS_<register>_<access>(v, h): the bits of a register whose every bit the database" > db
	print " * accounts for that have that access (RW, RO, WO, W1S, W1C, RES1) in version v of its" > db
	print " * feature (PV_PMUVER_* for the PMU) on a PE with the conditions h (PV_COND_*); the bits" > db
	print " * of none are RES0 or RAZ/WI. _WRITE: those a write acts on (RW, WO, W1S, W1C). */" > db
	for (r = 1; r <= rows; r++) {
		if (!full[r])
			continue
		printf "/* %s */\n", name[r] > db
		split("RW RO WO W1S W1C RES1", as_list, " ")
		for (i = 1; i <= 6; i++)
			printf "#define PV_BITS_%s_%s(v, h) %s\n", ident[r], as_list[i], \
				mask_expr(r, as_list[i]) > db
		printf "#define PV_BITS_%s_WRITE(v, h) \\\n", ident[r] > db
		printf "\t(PV_BITS_%s_RW(v, h) | PV_BITS_%s_WO(v, h) | PV_BITS_%s_W1S(v, h) | \\\n", \
			ident[r], ident[r], ident[r] > db
		printf "\t PV_BITS_%s_W1C(v, h))\n", ident[r] > db
	}
	print "" > db
	print "/* X(ident, key): every register with PV_BITS_<ident>_*, and its key (a family's first" > db
	print " * member's). */" > db
	print "#define PV_REGDB_BITS(X) \\" > db
	for (r = 1; r <= rows; r++)
		if (full[r])
			printf "\tX(%s, %s) \\\n", ident[r], \
				family[r] ? "PV_" ident[r] "(" first[r] ")" : "PV_" ident[r] > db
	print "\t/* end */" > db
	print "" > db

	print "#endif" > db

	print "/* Generated from arch/sysregs.txt by arch/gen-sysregs.awk: do not edit. */" > el2h
	print "#ifndef PV_REGDB_EL2_H" > el2h
	print "#define PV_REGDB_EL2_H" > el2h
	# The EL2 accessors: every register EL2 reads or writes, by (op0, op1, CRn) space.
	print "/* G(op0, op1, crn, list): the spaces EL2 accesses; list(X) gives" > el2h
	print " * X(op0, op1, crn, crm, op2, access, feature, min) for each register in it. */" > el2h
	ns = 0
	for (r = 1; r <= rows; r++) {
		if (el2acc[r] == "-")
			continue
		s = o0[r] "_" o1[r] "_" crn[r]
		if (!(s in el2_space)) {
			el2_space[s] = ++ns
			el2_name[ns] = s
			el2_list[ns] = ""
		}
		j = el2_space[s]
		for (n = first[r]; n <= last[r]; n++)
			el2_list[j] = el2_list[j] sprintf(" \\\n\tX(%d, %d, %d, %d, %d, %s, %s, %s)", \
				o0[r], o1[r], crn[r], slot_crm(r, n), slot_op2(r, n), el2acc[r], \
				feature[r], minv[r])
	}
	for (j = 1; j <= ns; j++)
		printf "#define PV_REGDB_EL2_%s(X)%s\n", el2_name[j], el2_list[j] > el2h
	print "#define PV_REGDB_EL2_SPACES(G) \\" > el2h
	for (j = 1; j <= ns; j++) {
		split(el2_name[j], sp, "_")
		printf "\tG(%d, %d, %d, PV_REGDB_EL2_%s) \\\n", sp[1], sp[2], sp[3], el2_name[j] > el2h
	}
	print "\t/* end */" > el2h
	print "" > el2h
	print "#endif" > el2h
}
