# SPDX-License-Identifier: MIT
#
# The event database's generator (POSIX awk):
#   awk -v defs=OUT/perfvisor/event_defs.h -v db=OUT/eventdb.h -f arch/gen-events.awk arch/events.txt
# The database's own header describes its columns. A row it cannot read, two rows with one
# number or one name, a libvirt event named twice or mapped by two rows, a mapped libvirt
# event with a reason or an unmapped one without, and an AMU group 0 counter that is missing
# or taken twice stop the build with the line's number.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

function check_in(v, list, what) {
	if (index(" " list " ", " " v " ") == 0)
		fail(what " '" v "' is not one of: " list)
}

# The C value of a hex number of the database (awk has no hex input of its own).
function hexval(s,   i, v) {
	v = 0
	s = toupper(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789ABCDEF", substr(s, i, 1)) - 1
	return v
}

{ sub(/\r$/, "") }
/^[ \t]*(#|$)/ { next }

$1 == "libvirt" {
	name = $2
	if (name !~ /^[a-z][a-z0-9_]*$/)
		fail("libvirt event '" name "' is not a lower-case C identifier")
	if (name in lv_line)
		fail("libvirt event " name " is listed twice")
	why = $0
	sub(/^libvirt[ \t]+[a-z0-9_]+[ \t]*/, "", why)
	if (why != "" && why !~ /^"[^"\\]+"$/)
		fail("libvirt " name ": the reason is one quoted text without \" or \\")
	lv_line[name] = FNR
	lv_why[name] = why
	lv_order[++nlv] = name
	next
}

{
	if (NF != 6)
		fail("an event row has 6 columns: number name pmu amu libvirt sim")
	if ($1 !~ /^0x[0-9A-F][0-9A-F][0-9A-F][0-9A-F]$/)
		fail("event number '" $1 "' is not 0x and four upper-case hex digits")
	if ($2 !~ /^[A-Z][A-Z0-9_]*$/)
		fail("event name '" $2 "' is not an upper-case C identifier")
	if ($1 in by_number)
		fail("event " $1 " is also row " by_number[$1])
	if ($2 in by_name)
		fail("event name " $2 " is also row " by_name[$2])
	if ($3 != "-") {
		check_in($3, "V3 V3P1 V3P4 V3P5 V3P7 V3P8 V3P9", "PMUVer")
		if (hexval($1) >= 16384 && $3 == "V3")
			fail($2 ": an event from 0x4000 is described by PMCEID's upper halves, from V3P1")
	}
	if ($4 != "-") {
		if ($4 !~ /^[0-3]$/)
			fail($2 ": the AMU's architected group 0 counters are 0..3, not '" $4 "'")
		if ($4 in amu)
			fail($2 ": AMEVCNTR0" $4 " counts " amu[$4] " already")
		amu[$4] = $2
	}
	if ($3 == "-" && $4 == "-")
		fail($2 ": neither a PMU nor an AMU event")
	if ($5 != "-") {
		if ($5 in lv_event)
			fail("libvirt event " $5 " is counted by " lv_event[$5] " already")
		lv_event[$5] = $2
		lv_event_line[$5] = FNR
	}
	check_in($6, "yes -", "sim")
	by_number[$1] = FNR
	by_name[$2] = FNR
	n++
	num[n] = $1
	nam[n] = $2
	pmu[n] = $3
	amuidx[n] = $4
	sim[n] = $6
}

END {
	if (failed)
		exit 1
	for (l in lv_event)
		if (!(l in lv_line)) {
			FNR = lv_event_line[l]
			fail(lv_event[l] ": libvirt event " l " is not in the libvirt list")
		}
	for (i = 1; i <= nlv; i++) {
		l = lv_order[i]
		FNR = lv_line[l]
		if ((l in lv_event) && lv_why[l] != "")
			fail("libvirt " l " is counted by " lv_event[l] ": it has no reason")
		if (!(l in lv_event) && lv_why[l] == "")
			fail("libvirt " l " is counted by no event: say why")
	}
	for (k = 0; k < 4; k++)
		if (!(k in amu)) {
			FNR = NR
			fail("no event of the AMU's architected group 0 counter AMEVCNTR0" k)
		}

	g = "/* Generated from arch/events.txt by arch/gen-events.awk: do not edit. */\n"
	printf "%s", g > defs
	print "#ifndef PERFVISOR_EVENT_DEFS_H" > defs
	print "#define PERFVISOR_EVENT_DEFS_H\n" > defs
	print "/* Common event numbers (Arm ARM D14.3, D16.3.1). */" > defs
	for (i = 1; i <= n; i++)
		printf "#define PV_EVT_%s 0x%s\n", nam[i], substr(num[i], 3) > defs
	print "\n/* The events of the AMU's architected counters AMEVCNTR00..03, in that order. */" > defs
	printf "#define PV_AMU_GROUP0_EVENTS {PV_EVT_%s, PV_EVT_%s, PV_EVT_%s, PV_EVT_%s}\n", \
		amu[0], amu[1], amu[2], amu[3] > defs
	print "\n#endif" > defs

	printf "%s", g > db
	print "#ifndef PERFVISOR_EVENTDB_H" > db
	print "#define PERFVISOR_EVENTDB_H\n" > db
	print "/* X(number, NAME, \"perf_name\", pmuver, amu): every event; pmuver 0 for an AMU event alone" > db
	print " * (PV_PMUVER_* otherwise), amu the AMEVCNTR0<n> it is the event of or -1. */" > db
	print "#define PV_EVENT_ROWS(X) \\" > db
	for (i = 1; i <= n; i++)
		printf "\tX(0x%s, %s, \"%s\", %s, %s)%s\n", substr(num[i], 3), nam[i], tolower(nam[i]), \
			pmu[i] == "-" ? "0" : "PV_PMUVER_" pmu[i], amuidx[i] == "-" ? "-1" : amuidx[i], \
			i < n ? " \\" : "" > db
	print "\n/* X(NAME, number): the events the machine model generates, by number. */" > db
	print "#define PV_EVENT_SIM_ROWS(X) \\" > db
	last = 0
	for (i = 1; i <= n; i++)
		if (sim[i] == "yes")
			last = i
	for (i = 1; i <= n; i++)
		if (sim[i] == "yes")
			printf "\tX(%s, 0x%s)%s\n", nam[i], substr(num[i], 3), i < last ? " \\" : "" > db
	print "\n/* X(libvirt_name, arm_number, text): libvirt's <perf> events in its order; arm_number" > db
	print " * -1 and text the reason where no Arm event counts one, else text the event's name. */" > db
	print "#define PV_LIBVIRT_PERF_ROWS(X) \\" > db
	for (i = 1; i <= nlv; i++) {
		l = lv_order[i]
		if (l in lv_event)
			printf "\tX(%s, 0x%s, \"%s\")", l, substr(num[idx_of(lv_event[l])], 3), lv_event[l] > db
		else
			printf "\tX(%s, -1, %s)", l, lv_why[l] > db
		printf "%s\n", i < nlv ? " \\" : "" > db
	}
	print "\n#endif" > db
}

function idx_of(name,   i) {
	for (i = 1; i <= n; i++)
		if (nam[i] == name)
			return i
	return 0
}
