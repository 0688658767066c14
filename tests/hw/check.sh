#!/bin/sh
# SPDX-License-Identifier: MIT
# make hw-check: the QEMU of our own, and everything that runs on it.
#   check.sh QEMU_DIR TESTS_DIR
#     1. the insertion script's own test (integrations/qemu/test-apply.sh: no QEMU needed);
#     2. the QEMU itself (integrations/qemu/build.sh: cached, seconds when nothing changed);
#        where its source cannot be fetched at all, the rest is skipped, with the reason;
#     3. migration refused with the fixes on or SPE on (their state is not migrated), accepted
#        with both off; the model tests (tests/hw/run.sh): each program of TESTS_DIR with the
#        models on and off (and the SPE one with SPE alone);
#     4. the reference hypervisor's guest suite on this QEMU, and its boot probes with the
#        fixes off (HW_GUEST_SUITE=off leaves them out: make fresh-check's new system);
#     5. Linux booted directly on this QEMU with -smp 2: instructions:u of a loop pinned to
#        each CPU, exact per CPU with the fixes on, the other CPU's counted too with them off
#        (tests/hw/linux-smp.sh; skipped, with the reason, where no kernel can be fetched);
#     6. Linux booted directly with SPE: its own arm_spe_pmu driver and Debian's perf record
#        a known loop (tests/hw/linux-spe.sh; skipped, with the reason, where no kernel,
#        module or perf can be fetched).
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

# The models' state is not migrated: with the fixes on, or SPE on, migration (and savevm,
# which asks the same blockers) is refused with the reason, rather than the state lost; with
# both off, it runs. SPE needs -icount to be in force.
migrate() { # migrate CPU: QMP's answers to a migration of a stopped machine
	printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"migrate","arguments":{"uri":"exec:cat >/dev/null"}}' \
		'{"execute":"quit"}' |
		QEMU=$qemu timeout 30 sh scripts/qemu.sh -cpu "$1" -icount shift=0,sleep=off -S \
			-qmp stdio 2>&1 |
		tr -d '\r'
}
migrate max,pv-pmu-fixes=on >"$logdir/migrate-on.log"
grep -q '"error".*pv-pmu-fixes keeps per-CPU PMU state that is not migrated' "$logdir/migrate-on.log"
result "migration_blocked: migrate refused with the fixes on, with the reason"
migrate max,pv-pmu-fixes=off,pv-spe=on >"$logdir/migrate-spe.log"
grep -q '"error".*pv-spe keeps Statistical Profiling state that is not migrated' "$logdir/migrate-spe.log"
result "migration_blocked_spe: migrate refused with SPE on, with the reason"
migrate max,pv-pmu-fixes=off >"$logdir/migrate-off.log"
[ "$(sed -n 3p "$logdir/migrate-off.log")" = '{"return": {}}' ] # the greeting, capabilities, migrate
result "migration_stock: migrate accepted with the fixes and SPE off"

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

# The reference hypervisor's guest suite on this QEMU, run as make qemu-check runs it (the
# Linux guest included: tests/guest/run.sh), its summary added like the models'; then the
# boot probes again with the fixes off, where the QEMU 7.2 workarounds must be on once more
# (docs/qemu.md, "QEMU 7.2 deviations"). In the main CI pass only: HW_GUEST_SUITE=off (make
# fresh-check's new system, whose make check runs the suite on Debian's QEMU) leaves it out.
# HYP_ELF and GUEST_BUILD: the hypervisor and the guests (make hyp).
guest_part() { # guest_part NAME LOG: LOG's "N passed, M failed[, K skipped]" added, its FAILs shown
	gp=$(tail -n1 "$2" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p')
	if [ -n "$gp" ]; then
		set -- "$1" "$2" $gp
		passed=$((passed + $3))
		failed=$((failed + $4))
		skipped=$((skipped + ${5:-0}))
	else
		failed=$((failed + 1))
	fi
	echo "$1: $(tail -n1 "$2") (log: $2)"
	grep '^    FAIL\|^linux: skipped' "$2" | sed 's/^/    /'
}
if [ "${HW_GUEST_SUITE:-on}" = off ]; then
	echo "guest_suite: not run here (HW_GUEST_SUITE=off)"
else
	hyp=${HYP_ELF:-build/hyp/perfvisor.elf}
	guests=${GUEST_BUILD:-build/guest}
	QEMU=$qemu GUEST_LOGDIR=$logdir/guest sh tests/guest/run.sh check "$hyp" "$guests" \
		>"$logdir/guest.log" 2>&1
	guest_part guest_suite "$logdir/guest.log"
	QEMU=$qemu QEMU_CPU=max,pv-pmu-fixes=off GUEST_LOGDIR=$logdir/guest-fixes-off \
		sh tests/guest/run.sh one "$hyp" "$guests" probe probe_passthrough \
		>"$logdir/guest-fixes-off.log" 2>&1
	guest_part guest_probes_fixes_off "$logdir/guest-fixes-off.log"
fi

# Linux on this QEMU with -smp 2 and no hypervisor: each CPU's instructions:u of a known loop
# exact while the other CPU runs its own, and with the fixes off (one instruction count for
# the machine) each CPU's count holds the other's too. The kernel and the initramfs are the
# guest suite's (make hyp builds the initramfs); no kernel to be had is a skip, with the reason.
sh tests/hw/linux-smp.sh "$qemu" "$logdir/linux-smp" exact=max global=max,pv-pmu-fixes=off \
	>"$logdir/linux-smp.log" 2>&1
guest_part linux_smp "$logdir/linux-smp.log"
grep '^linux_smp (.*): cpu0 task ' "$logdir/linux-smp.log" | sed 's/^/    /'
grep '^linux_smp: skipped: ' "$logdir/linux-smp.log"

# Linux on this QEMU with SPE and no hypervisor: Debian's arm_spe_pmu module probes, and
# Debian's perf records a known loop through it: PCs in the loop, data addresses in its
# buffer, the AUX buffer wrapped with nothing lost; with SPE off, no arm_spe_0.
sh tests/hw/linux-spe.sh "$qemu" "$logdir/linux-spe" >"$logdir/linux-spe.log" 2>&1
guest_part linux_spe "$logdir/linux-spe.log"
grep '^linux_spe (.*): [0-9]* AUX records' "$logdir/linux-spe.log" | sed 's/^/    /'
grep '^linux_spe: skipped: ' "$logdir/linux-spe.log"

summary
