#!/bin/sh
# Runs the guest programs under perfvisor's hypervisor in QEMU.
#   run.sh check HYP_ELF GUEST_DIR   the suite; last line "N passed, M failed"
#   run.sh demo  HYP_ELF GUEST_DIR   two VMs time-sliced, with the hypervisor's report
#   run.sh bench HYP_ELF GUEST_DIR   "bench: hyp.*" lines
# Every QEMU run is bounded by `timeout` (QEMU_TIMEOUT seconds, default 60); a run that hangs
# or ends without the hypervisor's final report counts as a failure.
mode=$1
hyp=$2
gdir=$3
QEMU=${QEMU:-qemu-system-aarch64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-60}
logdir=build/guest-logs
mkdir -p "$logdir"
passed=0
failed=0

# qemu_run LOG BOOTARGS GUEST...: guest k is loaded in VM slot k (PA 0x48200000 + k * 64 MiB).
qemu_run() {
	log=$1
	args=$2
	shift 2
	loaders=""
	k=0
	for g in "$@"; do
		addr=$(printf '0x%x' $((0x48200000 + k * 0x4000000)))
		loaders="$loaders -device loader,file=$gdir/$g.bin,addr=$addr,force-raw=on"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	timeout "$QEMU_TIMEOUT" "$QEMU" -M virt,virtualization=on,gic-version=3 -cpu max -smp 1 \
		-m 1G -display none -serial stdio -monitor none -icount shift=0 \
		-kernel "$hyp" -append "$args" $loaders </dev/null >"$log" 2>&1
	return $?
}

pass() {
	passed=$((passed + 1))
}

fail() {
	failed=$((failed + 1))
	echo "    FAIL: $1"
}

# scenario NAME BOOTARGS GUEST...: every "ok"/"not ok" line of every VM is one test; each VM
# must reach "done:", and the hypervisor must end with its report.
scenario() {
	name=$1
	args=$2
	shift 2
	log=$logdir/$name.log
	qemu_run "$log" "$args" "$@"
	rc=$?
	p=$(grep -c '^\[[^]]*\] ok ' "$log")
	f=$(grep -c '^\[[^]]*\] not ok ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$name: $p passed, $f failed (log: $log)"
	grep '^\[[^]]*\] not ok ' "$log" | sed 's/^/    /'
	if [ "$rc" -eq 124 ]; then
		fail "$name: QEMU timed out after ${QEMU_TIMEOUT}s"
	elif ! grep -q '^hyp: all VMs ended' "$log"; then
		fail "$name: the hypervisor did not finish (exit status $rc)"
		grep '^hyp: panic' "$log" | sed 's/^/    /'
	fi
	k=0
	for g in "$@"; do
		vm=$(echo "$args" | tr ' ' '\n' | sed -n "s/^vm$k=//p")
		[ -n "$vm" ] || vm=vm$k
		grep -q "^\[$vm\] done: " "$log" || fail "$name: VM $vm ($g) did not finish"
		k=$((k + 1))
	done
}

# counts LOG VM: the "count:" lines a VM printed, without the VM prefix.
counts() {
	grep "^\[$2\] count: " "$1" | sed "s/^\[$2\] //"
}

# finished_first TITLE SCENARIO VM OTHER...: one test, VM printed "done:" before every OTHER.
finished_first() {
	title=$1
	log=$logdir/$2.log
	first=$(grep -n "^\[$3\] done: " "$log" | cut -d: -f1)
	shift 3
	ok=${first:+yes}
	for o in "$@"; do
		line=$(grep -n "^\[$o\] done: " "$log" | cut -d: -f1)
		[ -n "$line" ] && [ -n "$first" ] && [ "$first" -lt "$line" ] || ok=""
	done
	if [ -n "$ok" ]; then
		echo "$title: yes"
		pass
	else
		fail "$title"
	fi
}

# compare_counts TITLE SCENARIO1 VM1 SCENARIO2 VM2: one test, the two runs' "count:" lines
# must be identical (and present).
compare_counts() {
	a=$(counts "$logdir/$2.log" "$3")
	b=$(counts "$logdir/$4.log" "$5")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		echo "$1: identical ($(echo "$a" | wc -l) lines)"
		pass
	else
		fail "$1"
		diff "$logdir/$2.log" "$logdir/$4.log" | grep 'count:' | sed 's/^/    /'
	fi
}

case "$mode" in
check)
	scenario hello "vm0=hello" hello
	scenario pmu_regs "vm0=regs" pmu_regs
	scenario pmu_regs_n3 "vm0=regs3 counters=3" pmu_regs
	scenario pmu_count "vm0=count" pmu_count
	scenario features "vm0=features" features
	scenario gic "vm0=gic" gic
	scenario gic_busy "vm0=gic vm1=busy slice_us=20" gic busy
	scenario sweep "vm0=sweep vm1=regs" sweep pmu_regs
	scenario misbehave "vm0=misbehave vm1=crash vm2=hello" misbehave crash hello
	if grep -q '^hyp: vm crash: ended: its exception vectors' "$logdir/misbehave.log"; then
		echo "misbehave: the crashing VM was ended, the others finished"
		pass
	else
		fail "misbehave: the crashing VM was not ended"
	fi
	scenario exact_alone "vm0=exact slice_us=50" pmu_exact
	scenario exact_busy "vm0=exact vm1=busy1 vm2=busy2 vm3=busy3 slice_us=50" \
		pmu_exact busy busy busy
	compare_counts "exact: alone and beside three busy VMs report identical counts" \
		exact_alone exact exact_busy exact
	finished_first "exact_busy: the busy VMs ran during all of exact's windows" exact_busy exact \
		busy1 busy2 busy3
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
demo)
	log=$logdir/demo.log
	qemu_run "$log" "vm0=sieve vm1=sort vm2=sieve2 slice_us=200" demo demo demo
	rc=$?
	cat "$log"
	[ "$rc" -eq 0 ] && grep -q '^hyp: all VMs ended' "$log"
	;;
bench)
	log=$logdir/bench.log
	qemu_run "$log" "vm0=bench vm1=busy slice_us=20" bench busy
	if ! grep -q '^hyp: all VMs ended' "$log"; then
		echo "bench: the run did not finish (see $log)" >&2
		exit 1
	fi
	each() {
		sed -n "s/^hyp: overhead $1 .* exits, \([0-9]*\) el2-instructions each/\1/p" "$log"
	}
	floor=$(each hvc-null)
	pmu=$(each sysreg-pmu)
	switch=$(each switch)
	echo "bench: hyp.trap_floor: ${floor:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_pmu: ${pmu:-n/a} el2-instructions/trap"
	echo "bench: hyp.switch: ${switch:-n/a} el2-instructions/switch"
	;;
*)
	echo "usage: run.sh check|demo|bench HYP_ELF GUEST_DIR" >&2
	exit 2
	;;
esac
