#!/bin/sh
# SPDX-License-Identifier: MIT
# make hw-check: the QEMU of our own, and everything that runs on it.
#   check.sh QEMU_DIR TESTS_DIR
#     1. the insertion script's own test (integrations/qemu/test-apply.sh: no QEMU needed);
#     2. the QEMU itself (integrations/qemu/build.sh: cached, seconds when nothing changed);
#        where its source cannot be fetched at all, the rest is skipped, with the reason;
#     3. migration refused with the fixes on (their state is not migrated), accepted off;
#        the model tests (tests/hw/run.sh): each program of TESTS_DIR with the fixes on and off;
#     4. the reference hypervisor's guest suite on this QEMU (below: its place).
# Last line "N passed, M failed" (", 1 skipped" with the line before saying why). Logs in
# build/hw-check.
set -u
qdir=$1
tdir=$2
logdir=build/hw-check
mkdir -p "$logdir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh

sh integrations/qemu/test-apply.sh build/hw-qemu-test-apply >"$logdir/apply.log" 2>&1
tally apply "$logdir/apply.log" ''

if ! qemu=$(sh integrations/qemu/build.sh build "$qdir" 2>"$logdir/build.err"); then
	if grep -q '^hw-qemu: fetch: ' "$logdir/build.err"; then
		echo "hw-check: skipped: QEMU's source: $(sed -n 's/^hw-qemu: fetch: //p' "$logdir/build.err" | head -n1)"
		skipped=1
	else
		sed 's/^/    /' "$logdir/build.err"
		false
		result "hw_qemu_build: make hw-qemu"
	fi
	summary
	exit $?
fi
true
result "hw_qemu_build: make hw-qemu ($(tail -n1 "$logdir/build.err"))"
# Which QEMU this run tests (tests/run.sh puts it beside the suite's result).
echo "tested: QEMU $(cat "$qdir/src/.perfvisor-note" 2>/dev/null || cat "$qdir/src/.perfvisor-version")"

# The models' state is not migrated: with the fixes on, migration (and savevm, which asks
# the same blockers) is refused with the reason, rather than the state lost; off, it runs.
migrate() { # migrate FIXES: QMP's answers to a migration of a stopped machine
	printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"migrate","arguments":{"uri":"exec:cat >/dev/null"}}' \
		'{"execute":"quit"}' |
		QEMU=$qemu timeout 30 sh scripts/qemu.sh -cpu "max,pv-pmu-fixes=$1" -S -qmp stdio 2>&1 |
		tr -d '\r'
}
migrate on >"$logdir/migrate-on.log"
grep -q '"error".*pv-pmu-fixes keeps per-CPU PMU state that is not migrated' "$logdir/migrate-on.log"
result "migration_blocked: migrate refused with the fixes on, with the reason"
migrate off >"$logdir/migrate-off.log"
[ "$(sed -n 3p "$logdir/migrate-off.log")" = '{"return": {}}' ] # the greeting, capabilities, migrate
result "migration_stock: migrate accepted with the fixes off"

HW_LOGDIR=$tdir/logs sh tests/hw/run.sh "$qemu" "$tdir" >"$logdir/models.log" 2>&1
models=$(tail -n1 "$logdir/models.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
if [ -n "$models" ]; then
	passed=$((passed + ${models% *}))
	failed=$((failed + ${models#* }))
else
	failed=$((failed + 1))
fi
echo "models: $(tail -n1 "$logdir/models.log") (log: $logdir/models.log)"
grep -v '^[0-9]* passed' "$logdir/models.log" | grep -v ': [0-9]* passed (log' | sed 's/^/    /'

# The reference hypervisor's guest suite on this QEMU (issue 28, item 4) goes here: run as
# `make qemu-check` runs it, with QEMU_AARCH64=$qemu, its summary added like the models'.

summary
