#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the guest programs under perfvisor's hypervisor in QEMU.
#   run.sh check HYP_ELF GUEST_DIR   the suite, Linux guest included; last line
#                                    "N passed, M failed" (", K skipped" if the Linux kernel
#                                    could not be fetched: the line before says why)
#   run.sh one HYP_ELF GUEST_DIR SCENARIO...
#                                    those scenarios of the check list alone, run as `check`
#                                    runs them, with the checks that need no other scenario;
#                                    "N passed, M failed" (a name the list lacks fails)
#   run.sh linux HYP_ELF GUEST_DIR   the Linux guest scenarios alone (make qemu-linux)
#   run.sh demo  HYP_ELF GUEST_DIR   two VMs time-sliced, with the hypervisor's report
#   run.sh bench HYP_ELF GUEST_DIR   "bench: hyp.*" lines
#   run.sh bench-linux-spe HYP_ELF GUEST_DIR
#                                    hyp.linux_spe_el2_share's line alone
#   run.sh shell HYP_ELF GUEST_DIR   the Linux guest with a shell, at this terminal (make run-linux)
# Every QEMU run is bounded by `timeout` (QEMU_TIMEOUT seconds, default 60, and a KILL 5 s
# later: a QEMU whose machine hangs may not end on the TERM); a run that hangs
# or ends without the hypervisor's final report counts as a failure. HYP_ARGS are given to the
# hypervisor before every run's own arguments (make check runs the suite a second time with
# HYP_ARGS=fasttrap=off); the logs go to GUEST_LOGDIR (default build/guest-logs).
# The Linux scenarios need a kernel: tests/guest/linux/fetch-kernel.sh gets one from Debian's
# packages into build/linux/Image (once), or LINUX_IMAGE=/path/to/Image names one;
# LINUX_GUEST=off skips them. Their initramfs is build/linux/initramfs.cpio (make hyp);
# linux_spe's (SPE, on a QEMU with SPE only) is tests/guest/linux/mkspe.sh's, with Debian's
# perf and arm_spe_pmu.ko of the kernel's version (skipped, with the reason, without them).
mode=$1
hyp=$2
gdir=$3
QEMU=${QEMU:-qemu-system-aarch64}
export QEMU # scripts/qemu.sh runs it
QEMU_TIMEOUT=${QEMU_TIMEOUT:-60}
logdir=${GUEST_LOGDIR:-build/guest-logs}
linuxdir=build/linux
mkdir -p "$logdir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh
# shellcheck source=tests/guest/linux/spe-checks.sh
. tests/guest/linux/spe-checks.sh
# `one`: the scenarios named, and those that ran (so that a name the list lacks fails).
only=""
ran=""
if [ "$mode" = one ]; then
	shift 3
	[ $# -gt 0 ] || { echo "usage: run.sh one HYP_ELF GUEST_DIR SCENARIO..." >&2; exit 2; }
	only=" $* "
fi

# selected NAME...: whether the check list runs the scenarios NAME... here (all of them but
# under `one`), and so the checks on their logs.
selected() {
	[ "$mode" = one ] || return 0
	for sel_ in "$@"; do
		case $only in *" $sel_ "*) ;; *) return 1 ;; esac
	done
}

# any_selected NAME...: whether the check list runs any of the scenarios NAME... here.
any_selected() {
	[ "$mode" = one ] || return 0
	for as_ in "$@"; do
		selected "$as_" && return 0
	done
	return 1
}

# runs NAME: selected, and recorded as run: before a run of scenario NAME.
runs() {
	selected "$1" && ran="$ran $1 "
}

# qemu_run LOG BOOTARGS GUEST...: guest k is loaded in VM slot k (PA 0x48200000 + k * 64 MiB).
# With QEMU_TYPE_AFTER=MARKER, QEMU_TYPED is typed at the terminal once the log shows MARKER;
# such a run keeps the virtual clock with the host's while idle (sleep=on), so that a time
# limit does not come before the typing does; every other run jumps idle time (sleep=off).
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
	# HYP_ARGS (say fasttrap=off) go before every run's own, so before its "--".
	args="${HYP_ARGS:+$HYP_ARGS }$args"
	: >"$log"
	icount=shift=0,sleep=off
	[ -z "${QEMU_TYPE_AFTER:-}" ] || icount=shift=0
	# shellcheck disable=SC2086
	{ [ -z "${QEMU_TYPE_AFTER:-}" ] || type_after "$log" "$QEMU_TYPE_AFTER" "$QEMU_TYPED"; } |
		timeout -k 5 "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio -icount "$icount" \
		-kernel "$hyp" -append "$args" $loaders >"$log" 2>&1
	return $?
}

# scenario NAME BOOTARGS GUEST...: every "ok"/"not ok" line of every VM is one test; each VM
# must reach "done:", and the hypervisor must end with its report. Nothing when not selected.
scenario() {
	runs "$1" || return 0
	name=$1
	args=$2
	shift 2
	log=$logdir/$name.log
	qemu_run "$log" "$args" "$@"
	rc=$?
	tally "$name" "$log" '\[[^]]*\] '
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
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

# ---- The Linux guest (tests/guest/linux/) ------------------------------------------------
# The kernel's VM has 128 MiB (slots 0 and 1), its initramfs at RAM offset 64 MiB; a
# neighbour goes in slot 2. The init program measures through perf_event_open and prints
# "pvinit: KEY VALUE" lines to the kernel log; see init.c for the windows it measures.
LINUX_MEM=128
LINUX_INITRD_OFF=0x4000000
# printk.devkmsg=on: init's /dev/kmsg lines are not rate-limited (10 a burst by default).
LINUX_ARGS="console=ttyAMA0 earlycon=pl011,0x09000000 panic=-1 printk.devkmsg=on"
# An idle Linux sleeping 0.2 s: bare QEMU counts about 1.4 M instructions on its CPU; a
# hypervisor whose WFI returns at once made it 152 M (docs/qemu.md).
LINUX_IDLE_MAX=10000000
# The line typed at the terminal: the hypervisor passes it to the VM with the focus (focus=0),
# init reads it from /dev/console.
LINUX_CONSOLE_INPUT="perfvisor console input"

# linux_run LOG BOOTARGS KERNEL INITRD [NEIGHBOUR [ARGS]]: the kernel in slot 0 with INITRD
# ("-": none) at RAM offset LINUX_INITRD_OFF, the guest program NEIGHBOUR (if any) in slot 2.
# BOOTARGS are the hypervisor's; ARGS and LINUX_ARGS follow "--" (every VM gets them; each
# guest ignores what it does not know). limit_ms ends a kernel that hangs, with the report.
linux_run() {
	log=$1
	loaders="-device loader,file=$3,addr=0x48200000,force-raw=on"
	initrd_arg=""
	if [ "$4" != - ]; then
		initrd_arg="vm0_initrd=$LINUX_INITRD_OFF,$(wc -c <"$4" | tr -d ' ')"
		loaders="$loaders -device loader,file=$4,addr=$(printf '0x%x' $((0x48000000 + LINUX_INITRD_OFF))),force-raw=on"
	fi
	[ -z "${5:-}" ] || loaders="$loaders -device loader,file=$gdir/$5.bin,addr=0x50200000,force-raw=on"
	start=$(date +%s)
	: >"$log"
	# What is typed at the terminal (LINUX_TYPED), once the log shows LINUX_TYPE_AFTER: by
	# default init's line, once it has the console open (Linux's PL011 driver empties the
	# receive FIFO when the port opens, as on hardware). At most 60 s of waiting.
	# A run that waits for input keeps the virtual clock with the host's while idle
	# (sleep=on): with sleep=off Linux's idle timers would take it 30 s or more a second
	# past its time limit before the line is typed. One with nothing typed (LINUX_TYPED=-:
	# ARGS then have pvinit_console=0; no initramfs) jumps idle time (sleep=off), so that
	# what it measures does not depend on the host.
	icount=shift=0
	if [ "${LINUX_TYPED:-}" = - ] || [ "$4" = - ]; then
		icount=shift=0,sleep=off
	fi
	# shellcheck disable=SC2086
	{ [ "$icount" != shift=0 ] || type_after "$log" "${LINUX_TYPE_AFTER:-pvinit: console-write}" \
		"${LINUX_TYPED:-$LINUX_CONSOLE_INPUT}"; } |
		timeout -k 5 "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio -icount "$icount" \
		-kernel "$hyp" $loaders \
		-append "${HYP_ARGS:+$HYP_ARGS }vm0=linux vm0_mem=$LINUX_MEM $initrd_arg limit_ms=10000 focus=0 $2 -- ${6:-}${6:+ }$LINUX_ARGS" \
		>"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	return $rc
}

# linux_overhead LOG: "stat X %, record Y %": the hypervisor's instructions (its self-count,
# as the VM read it at each end of the window) over the guest's while perf stat counted and
# while perf record -c 10000 sampled the workload (init.c): CNTVCT ticks under -icount shift=0
# are instructions of every level, one a nanosecond, so the guest's are the rest.
linux_overhead() {
	hz=$(pvinit "$1" overhead-cntfrq)
	st=$(pvinit "$1" overhead-stat-ticks)
	se=$(pvinit "$1" overhead-stat-el2-instructions)
	rt=$(pvinit "$1" overhead-record-ticks)
	re=$(pvinit "$1" overhead-record-el2-instructions)
	if [ -z "$hz" ] || [ -z "$st" ] || [ -z "$se" ] || [ -z "$rt" ] || [ -z "$re" ]; then
		echo "n/a"
		return
	fi
	awk -v hz="$hz" -v st="$st" -v se="$se" -v rt="$rt" -v re="$re" 'BEGIN {
		ns = 1e9 / hz
		printf "stat %.2f %%, record %.2f %%", se * 100 / (st * ns - se), re * 100 / (rt * ns - re) }'
}

# pvinit LOG KEY: the value init printed for KEY ("pvinit: KEY VALUE").
pvinit() {
	sed -n "s/^\[linux\] \[ *[0-9.]*\] pvinit: $2 \([0-9]*\)\$/\1/p" "$1" | head -n1
}

# report_field LOG VM FIELD: a number from the VM's "traps to perfvisor" or "scheduled in"
# report lines, e.g. FIELD "pmu", "id", "answered undef", "injected undef".
report_field() {
	report_of "$1" "$2" | grep -E '^hyp:   (traps|scheduled)' |
		sed -n "s/.*[ ,;]$3 \\([0-9]*\\).*/\\1/p" | head -n1
}

# report_of LOG VM: the VM's part of the hypervisor's final report.
report_of() {
	awk -v vm="$2" '/^hyp: ---- report/ { r = 1 }
		r && /^hyp: (vm |overhead)/ { on = index($0, "hyp: vm " vm ": ") == 1 }
		r && on' "$1"
}

# linux_checks NAME LOG: what one Linux run must show; each `result` is one test, passed when
# the command just before it succeeded.
linux_checks() {
	name=$1
	log=$2
	echo "$name: QEMU ran ${secs}s (log: $log)"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		fail "$name: QEMU timed out after ${QEMU_TIMEOUT}s"
		return
	fi
	grep -q '^\[linux\] \[ *[0-9.]*\] Linux version ' "$log"
	result "$name: the kernel booted ($(sed -n 's/^\[linux\] \[ *[0-9.]*\] \(Linux version [^ ]*\).*/\1/p' "$log"))"
	n=$(sed -n 's/^hyp: vm linux: slot .*, \([0-9]*\) PMU counters.*$/\1/p' "$log")
	linux_perf_checks "$name" "$log" '\[linux\] ' "$n"
	grep "hw perfevents" "$log" | sed 's/^/    /'
	# The console both ways: a 300-character line written to /dev/console shows whole, and
	# the line typed at the terminal reaches init's read of /dev/console.
	long=$(awk 'BEGIN { s = ""; for (i = 0; i < 300; i++) s = s (i % 10); print s }')
	[ "$(pvinit "$log" console-write)" = 314 ] && grep -qx "\[linux\] pvinit-long: $long" "$log"
	result "$name: /dev/console: a 300-character line written, shown whole"
	grep -qx "\[linux\] \[ *[0-9.]*\] pvinit-echo: $LINUX_CONSOLE_INPUT" "$log"
	result "$name: /dev/console: the line typed at the terminal was read by init"
	idle=$(pvinit "$log" idle-instructions)
	[ -n "$idle" ] && [ "$idle" -lt "$LINUX_IDLE_MAX" ]
	result "$name: idle: the CPU executed ${idle:-no} instructions while Linux slept 0.2 s (under $LINUX_IDLE_MAX: it waits in WFI)"
	grep '^\[linux\] .* pvinit: ' "$log" | sed 's/^/    /'
	grep -q '^hyp: vm linux: PSCI SYSTEM_OFF$' "$log"
	result "$name: the kernel powered its VM off (PSCI SYSTEM_OFF)"
	pmu=$(report_field "$log" linux pmu)
	id=$(report_field "$log" linux id)
	und=$(report_field "$log" linux "answered undef")
	inj=$(report_field "$log" linux "injected undef")
	if [ "${3:-}" = passthrough ]; then
		grep -q '^hyp: vm linux: slot .* PMU counters, passthrough (no PMU trap)$' "$log" &&
			[ "${pmu:-x}" = 0 ] && [ "${id:-0}" -gt 0 ] && [ "$und" = 0 ] && [ "$inj" = 0 ]
		result "$name: passthrough: not one PMU trap, ${id:-no} ID register traps; answered undef ${und:-?}, injected undef ${inj:-?}"
	else
		[ "${pmu:-0}" -gt 0 ] && [ "${id:-0}" -gt 0 ] && [ "$und" = 0 ] && [ "$inj" = 0 ]
		result "$name: perfvisor served ${pmu:-no} PMU and ${id:-no} ID register traps; answered undef ${und:-?}, injected undef ${inj:-?}"
	fi
	report_of "$log" linux | grep -E '^hyp:   (traps|scheduled|exits sysreg)' | sed 's/^/    /'
	grep -q '^hyp: all VMs ended' "$log"
	result "$name: the hypervisor ended with its report"
}

LINUX_SCENARIOS="linux linux_passthrough linux_direct linux_busy linux_shell linux_panic linux_spe linux_amu"
linux_suite() {
	# Under `one`, only when one of its scenarios is named.
	want=yes
	if [ "$mode" = one ]; then
		want=""
		for s in $LINUX_SCENARIOS; do
			selected "$s" && want=yes
		done
	fi
	[ -n "$want" ] || return 0
	if [ "${LINUX_GUEST:-}" = off ]; then
		reason="LINUX_GUEST=off"
	elif [ ! -f "$linuxdir/initramfs.cpio" ]; then
		reason="$linuxdir/initramfs.cpio missing (make hyp builds it)"
	elif image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/linux-fetch.err"); then
		reason=""
	else
		reason=$(tail -n1 "$logdir/linux-fetch.err")
		reason=${reason:-tests/guest/linux/fetch-kernel.sh failed}
	fi
	if [ -n "$reason" ]; then
		echo "linux: skipped: no arm64 Linux kernel: $reason"
		skipped=$((skipped + 1))
		for s in $LINUX_SCENARIOS; do
			runs "$s" # named, known, skipped
		done
		return
	fi
	echo "linux: kernel $image ($(cat "$linuxdir/Image.package" 2>/dev/null || echo local))"
	initrd=$linuxdir/initramfs.cpio
	if runs linux; then
		linux_run "$logdir/linux.log" selfcount_page=on "$image" "$initrd" "" pvinit_overhead=1
		linux_checks linux "$logdir/linux.log"
		# The overhead windows (init.c): measured, with the sampling interrupts taken. What
		# they come to is make qemu-bench's (hyp.linux_perf_*_overhead), never asserted.
		log=$logdir/linux.log
		ir=$(pvinit "$log" overhead-record-interrupts)
		[ -n "$(pvinit "$log" overhead-stat-el2-instructions)" ] &&
			[ -n "$(pvinit "$log" overhead-record-el2-instructions)" ] &&
			[ "$(pvinit "$log" overhead-stat-events)" = 10 ] && [ "${ir:-0}" -gt 0 ]
		result "linux: perf stat (10 events) and perf record -c 10000 (${ir:-no} interrupts) windows measured, EL2 over guest instructions: $(linux_overhead "$log")"
	fi
	# The same with the PMU passed through (docs/vpmu.md, "Passthrough"): the guest's own
	# perf, exact, with no PMU trap; one host counter kept for the self-count (QEMU 7.2 does
	# not hide it from the guest: for measurement only).
	if runs linux_passthrough; then
		log=$logdir/linux_passthrough.log
		linux_run "$log" "pmu_passthrough=on host_counters=1 selfcount_page=on" "$image" "$initrd" "" \
			pvinit_overhead=1
		linux_checks linux_passthrough "$log" passthrough
		ir=$(pvinit "$log" overhead-record-interrupts)
		[ -n "$(pvinit "$log" overhead-record-el2-instructions)" ] && [ "${ir:-0}" -gt 0 ]
		result "linux_passthrough: perf record -c 10000 (${ir:-no} interrupts) measured, EL2 over guest instructions: $(linux_overhead "$log")"
	fi
	# Direct counter access with what passthrough cannot have, an event filter and the
	# hypervisor's own counter (docs/vpmu.md): the guest's perf exact, its counter reads
	# untrapped where the hypervisor can give it (direct_suite); elsewhere trapped, as linux.
	if runs linux_direct; then
		log=$logdir/linux_direct.log
		linux_run "$log" "pmu_direct=on host_counters=1 selfcount_page=on vm0_pmu_filter=deny:0x24:1" \
			"$image" "$initrd" "" pvinit_overhead=1
		linux_checks linux_direct "$log"
		echo "linux_direct: the VM is $(direct_mode "$log" linux)"
	fi
	# Beside a busy VM whose windows are 60 times longer than usual (so it is still running
	# when Linux powers off), with 3 counters per VM and 200 us slices.
	if runs linux_busy; then
		linux_run "$logdir/linux_busy.log" "vm2=busy counters=3 slice_us=200" "$image" "$initrd" \
			busy busy.mult=60
		linux_checks linux_busy "$logdir/linux_busy.log"
	fi
	linux_shell "$image"
	linux_spe "$image"
	linux_amu "$image" "$initrd"
	if selected linux_busy; then
		log=$logdir/linux_busy.log
		p=$(grep -c '^\[busy\] ok ' "$log")
		f=$(grep -c '^\[busy\] not ok ' "$log")
		passed=$((passed + p))
		failed=$((failed + f))
		echo "linux_busy: busy VM: $p passed, $f failed"
		grep -q '^\[busy\] done: ' "$log" || fail "linux_busy: VM busy did not finish"
		# The last perf window is the idle one; the console test after it waits for input.
		off=$(grep -n '^\[linux\] .* pvinit: idle-instructions ' "$log" | cut -d: -f1)
		bdone=$(grep -n '^\[busy\] done: ' "$log" | cut -d: -f1)
		[ -n "$off" ] && [ -n "$bdone" ] && [ "$off" -lt "$bdone" ]
		result "linux_busy: the busy VM ran during all of Linux's perf windows"
	fi
	selected linux linux_busy && compare_counts_pvinit
	# No initramfs: the kernel probes its PMU, finds no root file system, panics and (panic=-1)
	# resets through PSCI; the hypervisor ends the run with its report.
	if runs linux_panic; then
		log=$logdir/linux_panic.log
		linux_run "$log" "" "$image" -
		echo "linux_panic: QEMU ran ${secs}s (log: $log)"
		grep -q '^\[linux\] .*hw perfevents: enabled with armv8_pmuv3 PMU driver, 6 counters available$' "$log" &&
			grep -q '^\[linux\] .*Kernel panic - not syncing: VFS: Unable to mount root fs' "$log" &&
			grep -q '^hyp: vm linux: PSCI SYSTEM_RESET' "$log" && grep -q '^hyp: all VMs ended' "$log"
		result "linux_panic: without an initramfs the kernel probes its PMU, panics, resets (PSCI SYSTEM_RESET); the run ends with the report"
	fi
}

# The init program's counts must not depend on a neighbour, a smaller PMU or time-slicing.
# linux_shell IMAGE: the kernel with the shell initramfs of make run-linux (busybox, fetched
# like the kernel); a command typed at its prompt runs, and `poweroff -f` ends the VM.
linux_shell() {
	runs linux_shell || return 0
	if ! busybox=$(sh tests/guest/linux/fetch-busybox.sh "$linuxdir" 2>"$logdir/busybox.err"); then
		echo "linux_shell: skipped: no busybox: $(tail -n1 "$logdir/busybox.err")"
		skipped=$((skipped + 1))
		return
	fi
	shell_initrd=$linuxdir/initramfs-shell.cpio
	if ! sh tests/guest/linux/mkcpio.sh "$shell_initrd" tests/guest/linux/shell-init.sh \
		"bin/busybox=$busybox"; then
		fail "linux_shell: mkcpio.sh could not write $shell_initrd"
		return
	fi
	LINUX_TYPE_AFTER='perfvisor: a shell on' LINUX_TYPED='echo shell-says-$((6 * 7)); poweroff -f' \
		linux_run "$logdir/linux_shell.log" "" "$1" "$shell_initrd"
	log=$logdir/linux_shell.log
	echo "linux_shell: QEMU ran ${secs}s (log: $log)"
	grep -q '^\[linux\] shell-says-42$' "$log"
	result "linux_shell: a command typed at the shell's prompt ran (shell-says-42)"
	grep -q '^hyp: vm linux: PSCI SYSTEM_OFF$' "$log"
	result "linux_shell: poweroff -f at the prompt powered the VM off"
}

# linux_amu IMAGE INITRD: the Debian kernel under the hypervisor on a CPU with the AMU
# (pv-amu=on, on the QEMU of our own only; elsewhere not for this QEMU, as amu_suite's): the
# VM is given it on the virtual-offset path, Linux's cpufeature code finds it ("CPU features:
# detected CPU0: Activity Monitors Unit (AMU)", arch/arm64/kernel/cpufeature.c), and the
# linux scenario's checks hold; the report's figures add up (not CNT_CYCLES: Linux idles in
# WFI while loaded, where the model's CNT_CYCLES goes on, docs/qemu.md).
linux_amu() {
	runs linux_amu || return 0
	if ! amu_here; then
		echo "linux_amu: not on this QEMU: $amu_why"
		return
	fi
	log=$logdir/linux_amu.log
	with_cpu "$amu_base,pv-amu=on" linux_run "$log" "" "$1" "$2"
	linux_checks linux_amu "$log"
	grep -q '^hyp: vm linux: AMU (AMUv1p1, 3 auxiliary counters), virtual offsets ' "$log" &&
		grep -q '^\[linux\] \[ *[0-9.]*\] CPU features: detected CPU0: Activity Monitors Unit (AMU)$' "$log"
	result "linux_amu: the kernel detected the AMU its VM was given (AMUv1p1, virtual offsets)"
	amu_life linux_amu linux
	report_of "$log" linux | grep -E '^hyp:   (amu|traps to perfvisor):' | sed 's/^/    /'
}

# linux_spe IMAGE: Linux's own SPE driver in a VM the hypervisor gives SPE (spe=on), on a
# QEMU with SPE only: the initramfs and checks of tests/hw/linux-spe.sh (mkspe.sh,
# spe-checks.sh: perf record -e arm_spe_0//u of a known loop, its PCs and data addresses, the
# AUX buffer wrapped with nothing lost), and the hypervisor's side: no stage-2 fault on the
# buffer (so none reached the guest), no abort injected, and the pages pinned at most no more
# than the AUX buffer's with their stage-1 tables, all released at the VM's end. 256 MiB for
# the VM: the initramfs unpacks to 30 MB (perf and its libraries).
LINUX_SPE_AUX_PAGES=8
# linux_spe_made IMAGE: the SPE initramfs (mkspe.sh) for the kernel IMAGE, its two lines in
# $made and the CPU with SPE in $cpu; or why it cannot run here in $why ($spe_here too when
# the reason is this QEMU, which has no SPE or is told not to).
# model_here PROP WHAT: whether the suite's CPU has the model of our own QEMU behind the -cpu
# max property PROP (pv-spe: SPE, pv-amu: the AMU), that is this QEMU has it and QEMU_CPU does
# not turn it off; why not in $model_why.
model_here() {
	case ${QEMU_CPU:-max} in *"$1=off"*) model_why="QEMU_CPU has $1=off" ;; *) model_why="" ;; esac
	if [ -z "$model_why" ] &&
		! timeout 30 sh scripts/qemu.sh -device max-arm-cpu,help 2>/dev/null | grep -q "$1"; then
		model_why="this QEMU has no $2 model (make hw-qemu builds the QEMU of our own)"
	fi
	[ -z "$model_why" ]
}

linux_spe_made() {
	model_here pv-spe SPE
	why=$model_why
	spe_here=$why
	if [ -z "$why" ] && [ ! -f "$linuxdir/Image.package" ]; then
		why="$1 is not from a Debian package: no module or perf of its version"
	elif [ -z "$why" ] && ! made=$(sh tests/guest/linux/mkspe.sh build/linux-spe \
		"$(cat "$linuxdir/Image.package")" 2>"$logdir/linux-spe.err"); then
		why=$(tail -n1 "$logdir/linux-spe.err")
	fi
	cpu=${QEMU_CPU:-max}
	case $cpu in *pv-spe=on*) ;; *) cpu=$cpu,pv-spe=on ;; esac
}

linux_spe() {
	runs linux_spe || return 0
	linux_spe_made "$1"
	if [ -n "$spe_here" ]; then # not a skip, as the SPE scenarios (spe_suite)
		echo "linux_spe: not on this QEMU: $why"
		return
	elif [ -n "$why" ]; then
		echo "linux_spe: skipped: $why"
		skipped=$((skipped + 1))
		return
	fi
	log=$logdir/linux_spe.log
	# Boot, perf record, perf script and perf report take about 40 s of host time here.
	ls_mem=$LINUX_MEM
	ls_timeout=$QEMU_TIMEOUT
	LINUX_MEM=256
	QEMU_TIMEOUT=${LINUX_SPE_TIMEOUT:-300}
	LINUX_TYPED=- with_cpu "$cpu" linux_run "$log" "spe=on limit_ms=60000" "$1" \
		"$(echo "$made" | sed -n 1p)" "" \
		"quiet $(echo "$made" | sed -n 2p) pvspe_aux_pages=$LINUX_SPE_AUX_PAGES"
	LINUX_MEM=$ls_mem
	QEMU_TIMEOUT=$ls_timeout
	echo "linux_spe: QEMU ran ${secs}s (log: $log)"
	spe_linux_checks linux_spe "$log" '\[linux\] ' build/linux-spe/spe-loop "$LINUX_SPE_AUX_PAGES"
	grep -q '^hyp: vm linux: PSCI SYSTEM_OFF$' "$log"
	result "linux_spe: the kernel powered the VM off"
	[ "$(spe_field linux_spe linux 'stage-2 faults')" = 0 ] &&
		[ "$(spe_field linux_spe linux 'records lost')" = 0 ] &&
		[ "$(report_field "$log" linux abort)" = 0 ] && [ "$(spe_field linux_spe linux enables)" -gt 0 ]
	result "linux_spe: no stage-2 fault on the buffer, no record lost, no abort injected ($(spe_field linux_spe linux enables) enables, $(spe_field linux_spe linux events) buffer events)"
	spe_pins linux_spe linux
	# The AUX buffer's pages, and at most one page of each of the four stage-1 levels above
	# them: what Linux's driver gives the profiler is pinned, and nothing more.
	ls_max=$(report_of "$log" linux | sed -n 's/^hyp:   stage 2: .*(at most \([0-9]*\),.*/\1/p')
	[ -n "$ls_max" ] && [ "$ls_max" -le $((LINUX_SPE_AUX_PAGES + 4)) ]
	result "linux_spe: ${ls_max:-no} pages pinned at most, within the AUX buffer's $LINUX_SPE_AUX_PAGES and their stage-1 tables"
	report_of "$log" linux | grep -E '^hyp:   (stage 2|spe|traps to perfvisor):' | sed 's/^/    /'
}

# linux_spe_share IMAGE: "bench: hyp.linux_spe_el2_share: X %" (docs/spe.md, "Linux in a
# guest"), or skipped with the reason: the SPE initramfs in its bench mode (spe-init.sh,
# pvspe_bench=1) under the reference hypervisor with its self-count page, the VM alone on
# the one pCPU: perf record -e arm_spe_0/period=LINUX_SPE_PERIOD/u with an AUX buffer of
# LINUX_SPE_AUX_PAGES pages runs the loop through /bin/pvwindow (window.c), which reads the
# hypervisor's EL2 instructions and the guest's own (INST_RETIRED on CPU 0, EL0 and EL1)
# across the loop's life. Then the hypervisor's exits of the whole run by kind, for what the
# EL2 instructions are (the window is most of the SPE ones, none of the boot's).
LINUX_SPE_PERIOD=256
linux_spe_share() {
	linux_spe_made "$1"
	if [ -n "$why" ]; then
		echo "bench: hyp.linux_spe_el2_share: skipped (no Linux SPE here: $why)"
		return
	fi
	log=$logdir/bench_linux_spe.log
	ls_mem=$LINUX_MEM
	ls_timeout=$QEMU_TIMEOUT
	LINUX_MEM=256
	QEMU_TIMEOUT=${LINUX_SPE_TIMEOUT:-300}
	LINUX_TYPED=- with_cpu "$cpu" linux_run "$log" "spe=on selfcount_page=on limit_ms=60000" \
		"$1" "$(echo "$made" | sed -n 1p)" "" \
		"quiet $(echo "$made" | sed -n 2p) pvspe_aux_pages=$LINUX_SPE_AUX_PAGES pvspe_bench=1 pvspe_period=$LINUX_SPE_PERIOD"
	LINUX_MEM=$ls_mem
	QEMU_TIMEOUT=$ls_timeout
	ss_el2=$(spe_v "$log" '\[linux\] ' window-el2-instructions)
	ss_guest=$(spe_v "$log" '\[linux\] ' window-guest-instructions)
	ss_ticks=$(spe_v "$log" '\[linux\] ' window-ticks)
	ss_share=""
	if [ "$(spe_v "$log" '\[linux\] ' record)" = 0 ] &&
		[ "$(spe_v "$log" '\[linux\] ' window-status)" = 0 ] &&
		[ "$(spe_v "$log" '\[linux\] ' record-lost)" = 0 ] &&
		[ "$(spe_v "$log" '\[linux\] ' record-period)" = "$LINUX_SPE_PERIOD" ] &&
		[ "$(spe_field bench_linux_spe linux 'stage-2 faults')" = 0 ] &&
		[ "${ss_el2:--1}" -ge 0 ] && [ "${ss_guest:-0}" -gt 0 ]; then
		ss_share=$(awk -v e="$ss_el2" -v g="$ss_guest" 'BEGIN { printf "%.2f", e * 100 / g }')
		echo "bench: linux_spe: $ss_el2 EL2 instructions over $ss_guest of the guest's own;" \
			"$ss_ticks ticks (the rest: the CPU waiting); the run's exits:" >&2
		report_of "$log" linux | grep -E '^hyp:   (exits|spe:|traps to)' | sed 's/^/    /' >&2
	else
		echo "bench: the Linux SPE run did not measure its window (see $log)" >&2
	fi
	echo "bench: hyp.linux_spe_el2_share: ${ss_share:-n/a} %"
}

# bench_linux_spe: hyp.linux_spe_el2_share where a Linux guest can run, else skipped.
bench_linux_spe() {
	if [ "${LINUX_GUEST:-}" = off ]; then
		echo "bench: hyp.linux_spe_el2_share: skipped (LINUX_GUEST=off)"
	elif image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/linux-fetch.err"); then
		linux_spe_share "$image"
	else
		echo "bench: hyp.linux_spe_el2_share: skipped (no Linux kernel: $(tail -n1 "$logdir/linux-fetch.err"))"
	fi
}

compare_counts_pvinit() {
	# The counts of init's own windows; the idle figure is the whole CPU's and depends on
	# what else ran, so it is not compared.
	a=$(grep '^\[linux\] .* pvinit: ' "$logdir/linux.log" | grep -v ' pvinit: idle-' |
		grep -v ' pvinit: overhead-' | sed 's/^\[linux\] \[ *[0-9.]*\] //')
	b=$(grep '^\[linux\] .* pvinit: ' "$logdir/linux_busy.log" | grep -v ' pvinit: idle-' |
		sed 's/^\[linux\] \[ *[0-9.]*\] //')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		echo "linux: alone and beside a busy VM, init reports identical counts: yes"
		pass
	else
		fail "linux: init's counts differ alone and beside a busy VM"
		diff "$logdir/linux.log" "$logdir/linux_busy.log" | grep 'pvinit:' | sed 's/^/    /'
	fi
}

# ---- The boot probes (hyp/probe.c; docs/qemu.md, "QEMU 7.2 deviations") ------------------
# QEMU 7.2 and a stock QEMU 10.0 have every deviation the probes look for; the QEMU of our own
# with its fixes (-cpu max, pv-pmu-fixes on) none, with QEMU_CPU=max,pv-pmu-fixes=off all of
# them again. The workarounds follow what the probes found: the overflow poll, the PMU line
# resync, and a counter of the hypervisor's beside VMs that own theirs (passthrough).
probe_suite() {
	scenario probe "vm0=hello" hello
	scenario probe_passthrough "pmu_passthrough=on vm0=hello" hello
	fixed=no
	if timeout 30 sh scripts/qemu.sh -device max-arm-cpu,help 2>/dev/null | grep -q pv-pmu-fixes; then
		case ${QEMU_CPU:-max} in
		*pv-pmu-fixes=off*) ;;
		*) fixed=yes ;;
		esac
	fi
	if [ "$fixed" = yes ]; then
		want="yes; interrupt line follows PMCR_EL0.E: yes; counters past HPMN hidden from EL1: yes;"
		works="off (0 us); PMU line resync off; a counter of the hypervisor's beside VMs that own theirs: yes"
		what="the QEMU of our own with its fixes: no deviation, no workaround"
	else
		want="no; interrupt line follows PMCR_EL0.E: no; counters past HPMN hidden from EL1: no;"
		works="on (10 us); PMU line resync on; a counter of the hypervisor's beside VMs that own theirs: only if asked"
		what="QEMU's own PMU: every deviation, every workaround"
	fi
	if selected probe; then
		log=$logdir/probe.log
		grep -q "^hyp: the PMU: overflow flagged when a counter wraps: $want" "$log" &&
			grep -q "^hyp: QEMU 7.2 workarounds: overflow poll $works" "$log"
		result "probe: $what"
		grep '^hyp: \(the PMU\|QEMU 7.2 workarounds\):' "$log" | sed 's/^/    /'
	fi
	# Passthrough: the hypervisor keeps its counter where the PMU hides it from the guests.
	if selected probe_passthrough; then
		log=$logdir/probe_passthrough.log
		if [ "$fixed" = yes ]; then
			grep -q '^hyp: PMUv3 .*: guests \[0,5), hypervisor \[5,6)$' "$log"
		else
			grep -q '^hyp: PMUv3 .*: guests \[0,6), hypervisor \[6,6)$' "$log"
		fi
		result "probe_passthrough: $(sed -n 's/^hyp: PMUv3 .*: \(guests .*\)$/\1/p' "$log")"
	fi
}

# ---- Direct access (docs/vpmu.md, "Direct access"): pmu_direct=on -------------------------
# Where the hypervisor can give it (FEAT_FGT, and every fine-grained trap it sets taken: its
# boot line "hyp: the PMU: ..." says what the PMU does), a VM's PMU is the hardware's but for
# its event types, PMCEID and PMMIR, which trap; elsewhere (QEMU 7.2) every PMU access traps.
# The answers are the same either way.

# direct_mode LOG VM: "direct" when the hypervisor gave VM direct access, else "trapped".
direct_mode() {
	if grep -q "^hyp: vm $2: .*, direct (no PMU trap but its event types, PMCEID and PMMIR)\$" "$1"; then
		echo direct
	else
		echo trapped
	fi
}

# direct_counts LOG VM: "R U T", the counter accesses, the other accesses direct access leaves
# untrapped and the ones it traps that VM made (tests/guest/pmu_direct.c).
direct_counts() {
	sed -n "s/^\[$2\] direct: \([0-9]*\) counter accesses, \([0-9]*\) other untrapped PMU accesses, \([0-9]*\) trapped PMU accesses\$/\1 \2 \3/p" "$1"
}

# direct_traps NAME VM: one test, VM's PMU traps in the report are its trapped accesses where
# it is direct, all of them where it traps.
direct_traps() {
	dt_log=$logdir/$1.log
	dt_mode=$(direct_mode "$dt_log" "$2")
	dt_counts=$(direct_counts "$dt_log" "$2")
	# shellcheck disable=SC2086
	set -- "$1" "$2" $dt_counts
	dt_r=${3:-} dt_u=${4:-} dt_t=${5:-}
	dt_pmu=$(report_field "$dt_log" "$2" pmu)
	if [ "$dt_mode" = direct ]; then
		dt_want=$dt_t
	else
		dt_want=$((${dt_r:-0} + ${dt_u:-0} + ${dt_t:-0}))
	fi
	[ -n "$dt_counts" ] && [ "${dt_pmu:-x}" = "$dt_want" ]
	result "$1: $2 $dt_mode: ${dt_pmu:-no} PMU traps for ${dt_r:-?} counter, ${dt_u:-?} other untrapped and ${dt_t:-?} trapped accesses"
}

direct_suite() {
	# A filter (CPU_CYCLES denied) and the hypervisor's own counter, exact counts.
	scenario direct "pmu_direct=on vm0=direct vm0_pmu_filter=deny:0x11:1 -- direct.denied=0x11 direct.reads=100" \
		pmu_direct
	selected direct && direct_traps direct direct
	# Two direct VMs time-sliced.
	scenario direct_busy "pmu_direct=on vm0=direct vm1=busy slice_us=50 -- direct.reads=1000" \
		pmu_direct busy
	selected direct_busy && direct_traps direct_busy direct
	# Every counter past N UNDEFs, the hypervisor's among them: where the VM is direct and the
	# PMU hides counters past HPMN, the hypervisor keeps its counter (past a VM's N) for itself.
	scenario direct_past "pmu_direct=on vm0=direct -- direct.past=1" pmu_direct
	if selected direct_past; then
		log=$logdir/direct_past.log
		if [ "$(direct_mode "$log" direct)" = direct ] &&
			grep -q '^hyp: the PMU: .* counters past HPMN hidden from EL1: yes;' "$log"; then
			own=$(sed -n 's/^hyp: PMUv3 .*, hypervisor \[\([0-9]*\),\([0-9]*\))$/\1 \2/p' "$log")
			[ -n "$own" ] && [ "${own% *}" -lt "${own#* }" ]
			result "direct_past: direct, the hypervisor keeps a counter past the VM's N (${own:-none})"
		else
			echo "direct_past: $(direct_mode "$log" direct): no counter of the hypervisor's past HPMN to hold"
		fi
	fi
	# The suite's own PMU guests, direct: exact counts beside three busy VMs, the same as
	# alone and trapped; two VMs' registers kept apart; the event filter; counter reads into
	# every Rt, from EL1 and EL0.
	scenario direct_exact "pmu_direct=on vm0=exact vm1=busy1 vm2=busy2 vm3=busy3 slice_us=50" \
		pmu_exact busy busy busy
	selected exact_alone direct_exact &&
		compare_counts "direct_exact: direct beside three busy VMs, the counts of exact alone" \
			exact_alone exact direct_exact exact
	scenario direct_isolate "pmu_direct=on vm0=isoA vm1=isoB slice_us=50" isolate isolate
	scenario direct_filter "pmu_direct=on vm0=filter vm0_pmu_filter=deny:0x8:1 -- filter.denied=8 filter.allowed=0x11" \
		pmu_filter
	scenario direct_fast_reads "pmu_direct=on vm0=fast_reads" fast_reads
	# Two adversaries by volume (a PMSWINC flood, an interrupt storm, overflows pending under
	# masked interrupts, WFI and power-off with one pending), direct, one with a filter: their
	# interrupts presented mapped, no escape.
	scenario attack_direct "pmu_direct=on vm0=irqA vm1=irqB vm1_pmu_filter=deny:0x24:1 slice_us=50" \
		attack_irq attack_irq
	for vm in irqA irqB; do
		selected attack_direct || continue
		grep -q "^\[$vm\] attacks: [0-9]*, escapes: 0\$" "$logdir/attack_direct.log"
		result "attack_direct: $vm ($(direct_mode "$logdir/attack_direct.log" $vm)): no escape"
	done
}

# ---- Adversarial guests (tests/guest/attack_*.c, docs/security.md) ------------------------
# Two attacking VMs beside the exact-counting one. Each attacker counts its attempts and the
# ones that did not get the architected answer; the runner adds what no guest can see: the
# hypervisor finished, its own counter (the host counter above HPMN, self-measurement) kept
# counting sanely and PMSELR_EL0 kept its value, and the exact VM's counts are the ones it has
# alone. Prints "attacks: <tried>, escapes: <n>"; one test, passed with zero escapes.
attack_suite() {
	scenario attack "vm0=exact vm1=attack_pmu vm2=attack_irq slice_us=50" \
		pmu_exact attack_pmu attack_irq
	selected attack || return 0
	log=$logdir/attack.log
	tried=0
	escaped=0
	for vm in attack_pmu attack_irq; do
		line=$(sed -n "s/^\[$vm\] attacks: \([0-9]*\), escapes: \([0-9]*\)\$/\1 \2/p" "$log")
		if [ -z "$line" ]; then
			echo "attack: $vm did not report (an escape)"
			tried=$((tried + 1))
			escaped=$((escaped + 1))
			continue
		fi
		echo "attack: $vm: attacks: ${line% *}, escapes: ${line#* }"
		tried=$((tried + ${line% *}))
		escaped=$((escaped + ${line#* }))
	done
	# hyp_check TITLE: one attempt of the run as a whole, held when the command before did.
	hyp_check() {
		st=$?
		tried=$((tried + 1))
		if [ "$st" -ne 0 ]; then
			escaped=$((escaped + 1))
			echo "attack: ESCAPE: $1"
		fi
	}
	grep -q '^hyp: all VMs ended' "$log"
	hyp_check "the hypervisor did not finish the run"
	grep -q '^hyp: overhead sysreg-pmu ' "$log" &&
		! grep -q 'PMSELR_EL0 was changed' "$log" &&
		! awk '/^hyp: overhead / && $(NF - 2) + 0 > 100000 { bad = 1 } END { exit !bad }' "$log"
	hyp_check "the host counter was reset or stopped (hyp overhead figures, PMSELR_EL0)"
	if selected exact_alone; then
		a=$(counts "$logdir/exact_alone.log" exact)
		b=$(counts "$log" exact)
		[ -n "$a" ] && [ "$a" = "$b" ]
		hyp_check "the exact VM's counts moved beside the attackers"
	fi
	echo "attacks: $tried, escapes: $escaped"
	if [ "$escaped" -eq 0 ]; then
		pass
	else
		fail "attack: $escaped escapes"
	fi
}

# ---- SPE (docs/spe.md): the guest's own profiling buffer, pinned through stage 2 --------------
# Only the QEMU of our own has SPE, behind -cpu max,pv-spe=on (docs/qemu.md, "The SPE model"):
# there the SPE scenarios run with it on; elsewhere they are skipped, saying so. The VM that
# asks for SPE where the CPU has none runs with it hidden, on any QEMU.
SPE_SCENARIOS="spe spe_swap spe_busy spe_hidden spe_end_limit spe_end_crash spe_s1fault spe_adversarial spe_side released_spe"

# spe_pins NAME VM: one test, the VM's pins all released at its end (its stage-2 line in the
# report: no page pinned, some were, no unpin of a page that was not pinned).
spe_pins() {
	sp_line=$(report_of "$logdir/$1.log" "$2" | grep '^hyp:   stage 2: ')
	sp_max=$(echo "$sp_line" | sed -n 's/.*(at most \([0-9]*\),.*/\1/p')
	echo "$sp_line" | grep -q 'stage 2: pinned pages 0 (at most [0-9]*, [0-9]* pin calls, 0 unpins of unpinned pages)' &&
		[ "${sp_max:-0}" -gt 0 ]
	result "$1: $2's pins all released at its end (${sp_max:-no} pages pinned at most)"
}

# spe_field NAME VM FIELD: a number of the VM's "spe:" report line.
spe_field() {
	report_of "$logdir/$1.log" "$2" | grep '^hyp:   spe: ' | sed -n "s/.*[ ,(]$3 \\([0-9a-f]*\\).*/\\1/p"
}

# with_cpu CPU COMMAND...: COMMAND with QEMU_CPU=CPU for scripts/qemu.sh, then as it was.
with_cpu() {
	wc_saved=${QEMU_CPU:-}
	QEMU_CPU=$1
	export QEMU_CPU
	shift
	"$@"
	wc_rc=$?
	QEMU_CPU=$wc_saved
	return $wc_rc
}

spe_suite() {
	# SPE hidden where the CPU has none (the suite's CPU without pv-spe=on), though asked for.
	nospe_cpu=$(echo "${QEMU_CPU:-max}" | sed 's/pv-spe=on/pv-spe=off/')
	with_cpu "$nospe_cpu" scenario spe_absent "spe=on vm0=spe -- spe.expect=0" spe_basic
	if selected spe_absent; then
		grep -q '^hyp: vm spe: SPE not possible here (the CPU has no SPE' "$logdir/spe_absent.log"
		result "spe_absent: asked for where the CPU has none, SPE is hidden, and the boot says why"
	fi
	# shellcheck disable=SC2086
	any_selected $SPE_SCENARIOS || return 0
	if ! model_here pv-spe SPE; then
		# Not a skip: they are for a QEMU with SPE, and make hw-check runs the suite on ours.
		echo "spe: not on this QEMU: $model_why"
		for s in $SPE_SCENARIOS; do
			runs "$s"
		done
		return
	fi
	spe_cpu=${QEMU_CPU:-max}
	case $spe_cpu in *pv-spe=on*) ;; *) spe_cpu=$spe_cpu,pv-spe=on ;; esac
	# Records of a known loop, buffer full and restart, the balloon refused on a pinned page
	# and a buffer over a page given back (tests/guest/spe_basic.c).
	with_cpu "$spe_cpu" scenario spe "spe=on vm0=spe" spe_basic
	if selected spe; then
		spe_pins spe spe
		report_of "$logdir/spe.log" spe | grep -q 'unmapped pages 0, unmaps refused 1$' &&
			[ "$(spe_field spe spe 'stage-2 faults')" = 1 ] && [ "$(spe_field spe spe repaired)" = 0 ]
		result "spe: one give-back refused (pinned); the page given back met once as a stage-2 fault, not repaired, the guest told (EC 0x1F)"
		report_of "$logdir/spe.log" spe | grep -E '^hyp:   (stage 2|spe):' | sed 's/^/    /'
	fi
	# The buffer's pages swapped in pairs at the guest's stage 1 over the VM's 2 MiB stage-2
	# blocks: a record across a page boundary goes on in the next stage-1 page, not the next PA.
	with_cpu "$spe_cpu" scenario spe_swap "spe=on vm0=spe -- spe.swap=1" spe_basic
	selected spe_swap && spe_pins spe_swap spe
	# The same beside a VM without SPE (named hidden: it expects none), time-sliced every
	# 50 us: the buffer is put and loaded mid-profile, and the neighbour's SPE stays hidden.
	with_cpu "$spe_cpu" scenario spe_busy "spe=on vm0=spe vm1=hidden vm1_spe=off slice_us=50" \
		spe_basic spe_basic
	selected spe_busy && spe_pins spe_busy spe
	# SPE on the CPU, not given to the VM: hidden, every register UNDEFINED (trapped).
	with_cpu "$spe_cpu" scenario spe_hidden "vm0=spe -- spe.expect=0" spe_basic
	# Ended mid-profile by the time limit (3 ms: the 1 MiB buffer is not yet full, no event)
	# and by a crash: every pin released, by the hypervisor's own count.
	if runs spe_end_limit; then
		log=$logdir/spe_end_limit.log
		with_cpu "$spe_cpu" qemu_run "$log" "spe=on vm0=spe limit_ms=3 -- spe.end=1" spe_basic
		grep -q '^hyp: vm spe: ended: time limit (limit_ms) reached$' "$log" &&
			[ "$(spe_field spe_end_limit spe events)" = 0 ] && [ "$(spe_field spe_end_limit spe enables)" = 1 ]
		result "spe_end_limit: ended by the time limit while profiling (1 enable, no buffer event yet)"
		spe_pins spe_end_limit spe
	fi
	# The buffer's VA unmapped, then read-only, in the guest's own stage 1: the guest's
	# EC 0x24 with its FSC; the hypervisor met no stage-2 fault.
	with_cpu "$spe_cpu" scenario spe_s1fault "spe=on vm0=spe -- spe.case=1" spe_basic
	if selected spe_s1fault; then
		[ "$(spe_field spe_s1fault spe 'stage-2 faults')" = 0 ] &&
			[ "$(report_field "$logdir/spe_s1fault.log" spe abort)" = 0 ]
		result "spe_s1fault: no stage-2 fault on the buffer, no abort injected"
		spe_pins spe_s1fault spe
	fi
	# What D17.7.4 leaves to the implementation, answered as docs/spe.md says: a pointer at
	# or past the limit, misaligned, top bytes that differ, a buffer above MaxBuffSize (1 MiB
	# here), PMBPTR_EL1 and PMBLIMITR_EL1 rewritten while enabled, garbage in RES0 bits.
	with_cpu "$spe_cpu" scenario spe_adversarial \
		"spe=on spe_max_kib=1024 vm0=spe -- spe.case=2 spe.max_kib=1024" spe_basic
	if selected spe_adversarial; then
		[ "$(spe_field spe_adversarial spe 'stage-2 faults')" -eq 0 ] &&
			[ "$(spe_field spe_adversarial spe rejected)" -ge 7 ]
		result "spe_adversarial: the refused enables counted ($(spe_field spe_adversarial spe rejected)), no stage-2 fault"
		spe_pins spe_adversarial spe
	fi
	# Two VMs profiling side by side, switched every 50 us, each with its buffer at the same
	# VA and IPA: each sees only its own loop's PCs and its own array's addresses.
	with_cpu "$spe_cpu" scenario spe_side "spe=on vm0=side1 vm1=side2 slice_us=50" \
		spe_basic spe_basic
	if selected spe_side; then
		sd_in=$(report_of "$logdir/spe_side.log" side1 | sed -n 's/^hyp:   scheduled in \([0-9]*\) times.*/\1/p')
		[ "${sd_in:-0}" -ge 20 ] && [ "$(spe_field spe_side side1 enables)" -ge 6 ] &&
			[ "$(spe_field spe_side side2 enables)" -ge 6 ]
		result "spe_side: both VMs profiled while switched (side1 scheduled in ${sd_in:-no} times)"
		spe_pins spe_side side1
		spe_pins spe_side side2
	fi
	if runs spe_end_crash; then
		log=$logdir/spe_end_crash.log
		with_cpu "$spe_cpu" qemu_run "$log" "spe=on vm0=spe -- spe.end=2" spe_basic
		grep -q '^hyp: vm spe: ended: its exception vectors are outside its memory$' "$log" &&
			[ "$(spe_field spe_end_crash spe enables)" = 1 ]
		result "spe_end_crash: crashed while profiling, the VM ended"
		spe_pins spe_end_crash spe
	fi
	# check_released's SPE part (as released's, above): the buffer's pages checked before
	# they are unpinned (a VM that crashed while profiling), and the buffer enabled again.
	if runs released_spe; then
		log=$logdir/released_spe_pins.log
		with_cpu "$spe_cpu" qemu_run "$log" "spe=on vm0=spe end_hold=pins -- spe.end=2" spe_basic
		grep -qx 'hyp: vm spe: still holds pinned pages after its end' "$log" &&
			[ "$(grep -c '^hyp: vm spe: released: ' "$log")" = 1 ]
		result "released_spe: end_hold=pins: the check before the unpin names the pinned pages"
		log=$logdir/released_spe_buffer.log
		with_cpu "$spe_cpu" qemu_run "$log" "vm0=hello end_hold=spe" hello
		grep -qx 'hyp: vm hello: still holds the profiling buffer after its end' "$log" &&
			[ "$(grep -c '^hyp: vm hello: released: ' "$log")" = 1 ]
		result "released_spe: end_hold=spe: the check names the profiling buffer"
	fi
}

# ---- The AMU (docs/amu.md): each vCPU's own activity monitors -------------------------------
# Only the QEMU of our own has the AMU, behind -cpu max,pv-amu=on (FEAT_AMUv1p1, the
# virtual-offset path) or pv-amu=v1 (FEAT_AMUv1, the trap path; docs/qemu.md, "The AMU
# model"): there the AMU scenarios run; elsewhere they are not for this QEMU, saying so (not
# skipped: make hw-check runs the suite on ours). The VM that asks for the AMU where the CPU
# has none runs with it hidden, on any QEMU. tests/guest/amu.c says what the guest checks.
AMU_SCENARIOS="amu amu_busy amu_v1 amu_hidden"

# amu_here: whether this QEMU has the AMU model, with the suite's CPU (pv-amu= taken out) in
# $amu_base; why not in $amu_why.
amu_here() {
	model_here pv-amu AMU
	amu_why=$model_why
	amu_base=$(echo "${QEMU_CPU:-max}" | sed 's/,pv-amu=[a-z0-9]*//')
	[ -z "$amu_why" ]
}

# amu_field LOG VM FIELD: a figure of the VM's "amu:" report line (aux: "N,N,N").
amu_field() {
	report_of "$1" "$2" | grep '^hyp:   amu: ' | sed -n "s/.* $3 \\([0-9][0-9]*\\(,[0-9][0-9]*\\)*\\).*/\\1/p"
}

# amu_life NAME VM [cnt]: one test, the VM's figures in the report, its whole life: the
# instructions at EL0, EL1 and EL2 (its auxiliary counters) are its INST_RETIRED exactly, and
# CPU_CYCLES is INST_RETIRED (the model's core clock: a cycle an instruction); with cnt,
# CNT_CYCLES too (-icount shift=0: a nanosecond an instruction, for a vCPU that never waits
# while loaded).
amu_life() {
	al_log=$logdir/$1.log
	al_inst=$(amu_field "$al_log" "$2" inst_retired)
	al_cyc=$(amu_field "$al_log" "$2" cpu_cycles)
	al_cnt=$(amu_field "$al_log" "$2" cnt_cycles)
	al_aux=$(amu_field "$al_log" "$2" aux)
	al_sum=$(echo "$al_aux" | { IFS=, read -r x y z && echo $((x + y + z)); })
	[ "${al_inst:-0}" -gt 0 ] && [ "$al_sum" = "$al_inst" ] && [ "$al_cyc" = "$al_inst" ] &&
		{ [ "${3:-}" != cnt ] || [ "$al_cnt" = "$al_inst" ]; }
	result "$1: $2's report: aux ${al_aux:-none} add up to INST_RETIRED ${al_inst:-none}; CPU_CYCLES ${al_cyc:-none}, CNT_CYCLES ${al_cnt:-none}"
}

# amu_traps NAME VM PATH: one test, the boot line names the VM's path (voff: virtual
# offsets; trap) and its report's AMU traps are exactly the accesses the guest counted for
# that path ("amu: traps: F ..., T ..., E ..."): on the virtual-offset path its reads of
# CNT_CYCLES and auxiliary counter 2 (F) and nothing sent back to its EL1; on the trap path
# every access CPTR_EL2.TAM traps (T), of which EL0's with EN 0 (E) go back to its EL1.
amu_traps() {
	at_log=$logdir/$1.log
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(sed -n "s/^\[$2\] amu: traps: \([0-9]*\) reads .*, \([0-9]*\) accesses .*, \([0-9]*\) of them .*/\1 \2 \3/p" "$at_log")
	at_amu=$(report_field "$at_log" "$2" amu)
	at_el1=$(report_field "$at_log" "$2" "sent to guest EL1")
	if [ "$3" = voff ]; then
		grep -q "^hyp: vm $2: AMU (AMUv1p1, 3 auxiliary counters), virtual offsets " "$at_log" &&
			[ -n "${4:-}" ] && [ "${at_amu:-x}" = "$4" ] && [ "$at_el1" = 0 ]
		result "$1: $2 on the virtual-offset path: ${at_amu:-no} AMU traps for its ${4:-?} reads of CNT_CYCLES and aux 2, none sent back to EL1"
	else
		grep -q "^hyp: vm $2: AMU (AMUv1, 3 auxiliary counters), trapped\$" "$at_log" &&
			[ -n "${5:-}" ] && [ "${at_amu:-x}" = "$5" ] && [ "${at_el1:-x}" = "$6" ]
		result "$1: $2 on the trap path: ${at_amu:-no} AMU traps for its ${5:-?} accesses, ${at_el1:-?} sent back to EL1 for its ${6:-?} from EL0 with EN 0"
	fi
	report_of "$at_log" "$2" | grep -E '^hyp:   (amu|traps to perfvisor):' | sed 's/^/    /'
}

amu_suite() {
	# Asked for where the CPU has none (the suite's CPU without pv-amu): hidden, and the
	# boot says why.
	noamu_cpu=$(echo "${QEMU_CPU:-max}" | sed 's/pv-amu=[a-z0-9]*/pv-amu=off/')
	with_cpu "$noamu_cpu" scenario amu_absent "vm0=amu vm0_amu=on -- amu.expect=0" amu
	if selected amu_absent; then
		grep -q '^hyp: vm amu: AMU not possible here (the CPU has none): hidden$' "$logdir/amu_absent.log"
		result "amu_absent: asked for where the CPU has none, the AMU is hidden, and the boot says why"
	fi
	# shellcheck disable=SC2086
	any_selected $AMU_SCENARIOS || return 0
	if ! amu_here; then
		# Not a skip: they are for a QEMU with the AMU, and make hw-check runs the suite on ours.
		echo "amu: not on this QEMU: $amu_why"
		for s in $AMU_SCENARIOS; do
			runs "$s"
		done
		return
	fi
	# Alone, AMUv1p1: the virtual-offset path.
	with_cpu "$amu_base,pv-amu=on" scenario amu "vm0=amu" amu
	if selected amu; then
		amu_traps amu amu voff
		amu_life amu amu cnt
	fi
	# Beside a busy VM, 50 us slices each: every counted loop spans tens of the VM's slices,
	# with the busy VM's instructions in between (busy.mult=2: it runs past the last).
	with_cpu "$amu_base,pv-amu=on" scenario amu_busy \
		"vm0=amu vm1=busy slice_us=50 -- amu.slice_us=50 amu.busy=1 busy.mult=2" amu busy
	if selected amu_busy; then
		finished_first "amu_busy: the busy VM ran during all of amu's windows" amu_busy amu busy
		amu_traps amu_busy amu voff
		amu_life amu_busy amu cnt
		amu_life amu_busy busy cnt
	fi
	# AMUv1: every access trapped and emulated (no offsets), beside the busy VM too.
	with_cpu "$amu_base,pv-amu=v1" scenario amu_v1 \
		"vm0=amu vm1=busy slice_us=50 -- amu.expect=1 amu.slice_us=50 amu.busy=1 busy.mult=2" \
		amu busy
	if selected amu_v1; then
		finished_first "amu_v1: the busy VM ran during all of amu's windows" amu_v1 amu busy
		amu_traps amu_v1 amu trap
		amu_life amu_v1 amu cnt
	fi
	# The CPU has the AMU, the VM is not given it: hidden, every access it makes answered
	# UNDEFINED by the hypervisor (CPTR_EL2.TAM) or the hardware, and no figures of it.
	with_cpu "$amu_base,pv-amu=on" scenario amu_hidden "vm0=amu vm0_amu=off -- amu.expect=0" amu
	if selected amu_hidden; then
		log=$logdir/amu_hidden.log
		ah_amu=$(report_field "$log" amu amu)
		! grep -q '^hyp: vm amu: AMU' "$log" && ! report_of "$log" amu | grep -q '^hyp:   amu:' &&
			[ "${ah_amu:-0}" -gt 0 ] && [ "$(report_field "$log" amu "answered undef")" = "$ah_amu" ]
		result "amu_hidden: no AMU given, no figures; its ${ah_amu:-no} AMU traps all answered UNDEFINED"
	fi
}

case "$mode" in
linux)
	linux_suite
	summary
	;;
check | one)
	scenario hello "vm0=hello" hello
	# The hypervisor's own arguments as a careless operator writes them: a slot number of
	# more than two digits, one with a leading zero, one past the last slot are no VM's (a
	# number that wraps modulo 2^64 to 0 does not rename slot 0's VM); each is said.
	# A VM's own on|off given something else is said and leaves the VM as the global key
	# says, wherever that comes: vm0_amu=maybe before amu=off gives vm0 no AMU (it did: the
	# value amu= had when vm0_amu= was read, taken as asked for by name).
	scenario bootargs "vm0=hello vm18446744073709551616=evil vm07=x vm32=y vm0_amu=maybe vm0_spe=maybe amu=off" hello
	if selected bootargs; then
		log=$logdir/bootargs.log
		ba_bad=""
		for ba_key in vm18446744073709551616 vm07 vm32; do
			grep -qx "hyp: unknown argument $ba_key: ignored" "$log" || ba_bad="$ba_bad $ba_key"
		done
		[ -z "$ba_bad" ] && grep -q '^hyp: vm hello: slot 0, ' "$log"
		result "bootargs: slot numbers of three digits or more, with a leading zero or past the last are said and ignored (${ba_bad:-none} otherwise)"
		grep -qx 'hyp: vm0_amu takes on or off; ignored' "$log" &&
			grep -qx 'hyp: vm0_spe takes on or off; ignored' "$log" &&
			! grep -q '^hyp: vm hello: AMU' "$log" && ! grep -q '^hyp: vm hello: SPE' "$log"
		result "bootargs: vm0_amu=maybe and vm0_spe=maybe said and ignored: with amu=off after them, vm0 has no AMU"
	fi
	# Less RAM than the default 1 GiB (QEMU_MEM=512M: to 0x60000000, 6 slots): the slots past
	# its end are not looked at (reading one is an external abort at EL2: the hypervisor took
	# the tree's 512 MiB for 1 GiB and panicked at slot 6), and a VM asking for more than the
	# slots to the end hold gets those (vm0_mem=1024: 384 MiB), no RAM past QEMU's.
	QEMU_MEM=512M
	export QEMU_MEM
	scenario ram_small "vm0=hello vm0_mem=1024" hello
	unset QEMU_MEM
	if selected ram_small; then
		grep -q '^hyp: vm hello: slot 0, RAM 384 MiB at PA 48000000 ' "$logdir/ram_small.log"
		result "ram_small: vm0_mem=1024 under QEMU_MEM=512M: the 6 slots to the RAM's end, 384 MiB"
	fi
	probe_suite
	scenario boot "vm0=boot -- boot.argc=3 alpha beta" boot
	# AArch32 at EL0 (the PE's, where it has it): interrupts and traps from there are a
	# guest's like any other, switched out and back beside a busy VM (tests/guest/el0_a32.c).
	scenario el0_a32 "vm0=a32 vm1=busy slice_us=50" el0_a32 busy
	scenario isolate "vm0=isoA vm1=isoB slice_us=50" isolate isolate
	scenario isolate_read "vm0=isoA vm1=isoR slice_us=50" isolate isolate
	# The PMU passed through (docs/vpmu.md, "Passthrough"): two VMs that own it in turn keep
	# their registers (isolate), and two adversaries by volume (a PMSWINC flood, an
	# interrupt storm, overflows left pending under masked interrupts, WFI and power-off with
	# one pending) share the pCPU with their interrupts presented mapped, with no escape.
	scenario isolate_passthrough "pmu_passthrough=on vm0=isoA vm1=isoB slice_us=50" \
		isolate isolate
	scenario attack_passthrough "pmu_passthrough=on vm0=irqA vm1=irqB slice_us=50" \
		attack_irq attack_irq
	# The same beside a VM that traps (its event filter rules passthrough out): the two modes
	# take turns on the PMU, the PMU interrupt and PMSELR_EL0.
	scenario attack_mixed "pmu_passthrough=on vm0=irqT vm1=irqP vm0_pmu_filter=deny:0x24:1 slice_us=50" \
		attack_irq attack_irq
	if selected attack_mixed; then
		grep -q '^hyp: vm irqT: .*, trapped (passthrough is not possible' "$logdir/attack_mixed.log" &&
			grep -q '^hyp: vm irqP: .*, passthrough (no PMU trap)$' "$logdir/attack_mixed.log"
		result "attack_mixed: one VM trapped, one passed through"
	fi
	for run in attack_passthrough:irqA attack_passthrough:irqB attack_mixed:irqT attack_mixed:irqP; do
		selected "${run%%:*}" || continue
		vm=${run#*:}
		grep -q "^\[$vm\] attacks: [0-9]*, escapes: 0\$" "$logdir/${run%%:*}.log"
		result "${run%%:*}: $vm: no escape"
	done
	# The mapped PMU interrupt (tests/guest/mapped_irq.c): INTID 23 as the GIC architecture
	# says, whatever the list registers, the physical active state and the PPI enable hold;
	# a trapped VM's and a passthrough one's interrupts at once while the owner holds its
	# own, and after it ends.
	scenario mapped_irq "pmu_passthrough=on vm0=owner vm1=trapped vm2=neighbour vm1_pmu_filter=deny:0x24:1 slice_us=50" \
		mapped_irq mapped_irq mapped_irq
	if selected mapped_irq; then
		finished_first "mapped_irq: the others ran through all of the owner's tests and its end" \
			mapped_irq owner trapped neighbour
		finished_first "mapped_irq: the neighbour waited alone at its end" mapped_irq trapped \
			neighbour
	fi
	# The isolation checks mean something only if the VMs took turns between a write and
	# its read-back: four rounds, each spanning several slices.
	if selected isolate; then
		turns=$(report_field "$logdir/isolate.log" isoA "scheduled in")
		[ "${turns:-0}" -ge 8 ]
		result "isolate: isoA was scheduled in ${turns:-no} times over its four rounds (at least 8)"
	fi
	scenario boot_initrd "vm0=boot vm0_initrd=0x800000,0x1000 -- boot.argc=4 alpha boot.initrd=1 beta" boot
	scenario boot_initrd_top "vm0=boot vm0_initrd=0x3FFF000,0x1000 -- boot.argc=4 alpha boot.initrd=2 beta" boot
	# An Image header whose image_size exceeds the VM's RAM: taken as unknown, the tree at the
	# top of RAM, the guest still runs (boot_huge.bin: boot.bin with image_size all ones).
	if selected boot_huge; then
		cp "$gdir/boot.bin" "$gdir/boot_huge.bin"
		printf '\377\377\377\377\377\377\377\377' | dd of="$gdir/boot_huge.bin" bs=1 seek=16 conv=notrunc 2>/dev/null
	fi
	scenario boot_huge "vm0=boot -- boot.argc=3 alpha beta" boot_huge
	scenario pmu_regs "vm0=regs" pmu_regs
	scenario pmu_regs_n3 "vm0=regs3 counters=3" pmu_regs
	scenario pmu_count "vm0=count" pmu_count
	# Counter reads into every Rt, from EL1 and EL0 (the fast trap path's register table);
	# single-stepping trapped and emulated instructions (SPSR_EL2.SS and BTYPE).
	scenario fast_reads "vm0=fast_reads" fast_reads
	scenario step "vm0=step" step
	scenario features "vm0=features" features
	# The event filter (KVM's semantics), as the Xen suite sets it from the domain's node:
	# a denied event, an allow-only filter, a denied CPU_CYCLES (the cycle counter stops).
	scenario pmu_filter_deny "vm0=filter vm0_pmu_filter=deny:0x8:1 -- filter.denied=8 filter.allowed=0x11" pmu_filter
	scenario pmu_filter_only "vm0=filter vm0_pmu_filter=allow:0x11:1 -- filter.only=0x11 filter.denied=8 filter.allowed=0x11" pmu_filter
	scenario pmu_filter_cycles "vm0=filter vm0_pmu_filter=deny:0x11:1 -- filter.denied=0x11 filter.allowed=8" pmu_filter
	# A filter the hypervisor cannot take: the VM is not started, with the reason.
	if runs pmu_filter_bad; then
		qemu_run "$logdir/pmu_filter_bad.log" "vm0=filter vm0_pmu_filter=deny:0x8:1,deny:0x11" pmu_filter
		grep -q '^hyp: vm filter: vm0_pmu_filter entry 1 is not allow|deny:BASE:COUNT .*: not started$' \
			"$logdir/pmu_filter_bad.log" &&
			grep -q '^hyp: no VM to run: none of the images was started' "$logdir/pmu_filter_bad.log"
		result "pmu_filter_bad: a malformed vm0_pmu_filter entry named, the VM not started"
	fi
	scenario gic "vm0=gic" gic
	# Live figures records (records_ms): a guest writing valid records for another VM every
	# way it can start a console line; none may start one (docs/records.md, the trust
	# model). The hypervisor's own come on time while the pCPU idles, too.
	scenario records_forge "vm0=victim vm1=forge records_ms=1" hello forge
	if selected records_forge; then
		l=$logdir/records_forge.log
		[ "$(grep -c 'trap.pmu=999999' "$l")" = 6 ] && ! grep -q '^PVR1 .*trap.pmu=999999' "$l"
		result "records_forge: the guest's 6 forged records all shown as its own text, none a record"
		grep -q '^PVR1 seq=[0-9]* t_ns=[0-9]* vm=forge vcpu=0 state=waiting ' "$l"
		result "records_forge: records while the pCPU idles (the guest in WFI: state waiting)"
	fi
	scenario gic_busy "vm0=gic vm1=busy slice_us=20" gic busy
	scenario sweep "vm0=sweep vm1=regs" sweep pmu_regs
	scenario migrate "vm0=m1 vm1=m2 slice_us=50 -- migrate.rounds=50" migrate migrate
	scenario misbehave "vm0=misbehave vm1=crash vm2=hello" misbehave crash hello
	if ! selected misbehave; then
		: # its checks need its log
	elif grep -q '^hyp: vm crash: ended: its exception vectors' "$logdir/misbehave.log"; then
		echo "misbehave: the crashing VM was ended, the others finished"
		pass
	else
		fail "misbehave: the crashing VM was not ended"
	fi
	# A VM stuck in WFI beside one that works: the other finishes with exact counts, and the
	# stuck one is ended with the reason once it is alone (it no longer spins through WFIs
	# until a time limit).
	scenario idle "vm0=idle vm1=exact -- idle.waits=20" idle pmu_exact
	# Two VMs waiting at once: the pCPU idles with the EL2 timer set for the one not loaded,
	# and each wake comes within half a slice of its timer (idle.prompt_us=500: a wake missed by
	# the idle wait would come a slice late).
	scenario idle_two "vm0=idle vm1=idle2 -- idle.waits=20 idle.prompt_us=500" idle idle
	# Alone, timers armed 0 to 2 us ahead, every tick: each fires at some point of the WFI's
	# trap and of the pCPU's wait at EL2, and must wake the VM, not end it as waiting for
	# nothing.
	scenario idle_near "vm0=idle -- idle.waits=0 idle.near_ns=2000" idle
	scenario waitforever "vm0=exact vm1=stuck" pmu_exact waitforever
	# The console both ways, with input typed at the terminal once the guest waits for it:
	# the stuck VM in slot 1 has the focus first (so neither VM is ended as waiting for
	# nothing), Ctrl-A 0 gives it to the console guest, which reads the line.
	QEMU_TYPE_AFTER='console: waiting for input' QEMU_TYPED='\0010typed at the terminal' \
		scenario console "vm0=console vm1=stuck focus=1" console waitforever
	if selected console; then
		grep -q '^hyp: console input goes to console$' "$logdir/console.log"
		result "console: Ctrl-A 0 gives slot 0 the focus"
		long=$(awk 'BEGIN { s = ""; for (i = 0; i < 300; i++) s = s (i % 10); print s }')
		grep -qx "\[console\] console: long $long" "$logdir/console.log" &&
			grep -qx "\[console\] console: got 'typed at the terminal'" "$logdir/console.log"
		result "console: a 300-character line shown whole, the typed line read by the guest"
	fi
	# Ctrl-A x ends every VM, with the report, even one that waits for input (it has the
	# focus, so it is not ended as waiting for nothing).
	if runs ctrl_a_x; then
		QEMU_TYPE_AFTER='waitforever: waiting' QEMU_TYPED='\001x' \
			qemu_run "$logdir/ctrl_a_x.log" "vm0=stuck focus=0" waitforever
		grep -q '^hyp: vm stuck: ended: Ctrl-A x at the terminal$' "$logdir/ctrl_a_x.log" &&
			grep -q '^hyp: all VMs ended' "$logdir/ctrl_a_x.log"
		result "console: Ctrl-A x ends the VMs, one waiting for input included, with the report"
	fi
	if ! selected waitforever; then
		: # its checks need its log
	elif grep -q '^hyp: vm stuck: ended: waits in WFI with no timer armed' "$logdir/waitforever.log"; then
		echo "waitforever: the VM waiting for nothing was ended, with the reason"
		pass
	else
		fail "waitforever: the VM waiting for nothing was not ended with its reason"
	fi
	scenario exact_alone "vm0=exact slice_us=50" pmu_exact
	scenario exact_busy "vm0=exact vm1=busy1 vm2=busy2 vm3=busy3 slice_us=50" \
		pmu_exact busy busy busy
	selected exact_alone exact_busy &&
		compare_counts "exact: alone and beside three busy VMs report identical counts" \
			exact_alone exact exact_busy exact
	selected exact_busy &&
		finished_first "exact_busy: the busy VMs ran during all of exact's windows" exact_busy \
			exact busy1 busy2 busy3
	# A VM running when the time limit comes is put before its end is checked: it releases
	# everything (check_released), as one that ends by itself does.
	if runs end_limit; then
		log=$logdir/end_limit.log
		qemu_run "$log" "vm0=busy limit_ms=1" busy
		grep -qx 'hyp: vm busy: ended: time limit (limit_ms) reached' "$log" &&
			[ "$(grep -c '^hyp: vm busy: released: ' "$log")" = 1 ] &&
			! grep -q '^hyp: vm .*: still holds ' "$log"
		result "end_limit: the VM running at the time limit ended and released everything"
	fi
	# Endurance (tests/guest/endure.c): 32 VMs, a slot each (QEMU_MEM=3G), time-sliced every
	# 50 us on the one pCPU for 2.5 s of virtual time, each running random PMU programs whose
	# every window is checked exact; they end every way a VM can (PSCI SYSTEM_OFF, a crash,
	# PSCI CPU_OFF, the time limit: the number in the name, modulo 4), and after each end the
	# hypervisor's own accounting finds nothing left held (its "released" line).
	if runs endure; then
		log=$logdir/endure.log
		en_args="slice_us=50 limit_ms=2500"
		en_guests=""
		for k in $(seq 0 31); do
			en_args="$en_args vm$k=e$k"
			en_guests="$en_guests endure"
		done
		QEMU_MEM=3G
		export QEMU_MEM
		# shellcheck disable=SC2086
		qemu_run "$log" "$en_args -- endure.rounds=1000" $en_guests
		unset QEMU_MEM
		tally endure "$log" '\[[^]]*\] '
		grep -q '^hyp: all VMs ended' "$log"
		result "endure: the 32 VMs ran to their ends and the hypervisor to its report"
		en_bad=""
		for k in $(seq 0 31); do
			case $((k % 4)) in
			0) en_why='PSCI SYSTEM_OFF' ;;
			1) en_why='ended: its exception vectors are outside its memory' ;;
			2) en_why='PSCI CPU_OFF of its only CPU' ;;
			*) en_why='ended: time limit (limit_ms) reached' ;;
			esac
			grep -qx "hyp: vm e$k: $en_why" "$log" &&
				[ "$(grep -c "^hyp: vm e$k: released: " "$log")" = 1 ] || en_bad="$en_bad e$k"
		done
		[ -z "$en_bad" ] && ! grep -q '^hyp: vm .*: still holds ' "$log"
		result "endure: every VM ended as it meant to and released everything (${en_bad:-none} otherwise)"
		en_rounds=$(sed -n 's/^\[e3\] endure: \([0-9]*\) rounds exact of \1$/\1/p' "$log" | tail -n1)
		en_switches=$(sed -n 's/^hyp: ---- report: [0-9]* VMs, \([0-9]*\) switches.*/\1/p' "$log")
		[ "${en_rounds:-0}" -ge 5000 ] && [ "${en_switches:-0}" -ge 20000 ]
		result "endure: e3 ran ${en_rounds:-no} exact rounds to the time limit, over ${en_switches:-no} switches"
	fi
	# The check after each VM's end (hyp/sched.c, check_released) names what is left: with
	# end_hold=KIND the hypervisor holds KIND again after the put, before a check of its own
	# (the VM loaded, its PMU counter 0 enabled, a list register, its virtual timer), then
	# gives it back; the check must name it, and the one after the release find nothing.
	# SPE's two (pinned pages, the profiling buffer) are released_spe's, on a QEMU with SPE.
	if runs released; then
		for rl_kind in loaded:'the pCPU (still loaded)' pmu:'enabled PMU counters' \
			lr:'list registers' timer:'the virtual timer'; do
			log=$logdir/released_${rl_kind%%:*}.log
			qemu_run "$log" "vm0=hello end_hold=${rl_kind%%:*}" hello
			grep -qx "hyp: vm hello: still holds ${rl_kind#*:} after its end" "$log" &&
				[ "$(grep -c '^hyp: vm hello: released: ' "$log")" = 1 ] &&
				grep -q '^hyp: all VMs ended' "$log"
			result "released: end_hold=${rl_kind%%:*}: the check names ${rl_kind#*:}, and the one after finds nothing"
		done
	fi
	# The scheduler's wrap past the last slot (hyp/sched.c, pick_from): the VM of the last
	# slot ends first, so that from slot 1 the next runnable VM is slot 0's, behind the scan's
	# end; both busy VMs must go on taking turns to their ends.
	scenario sched_last_first "vm0=busy0 vm1=busy1 vm2=quick slice_us=50" busy busy hello
	if selected sched_last_first; then
		finished_first "sched_last_first: the last slot's VM ended first" sched_last_first \
			quick busy0 busy1
		sl_in=$(report_of "$logdir/sched_last_first.log" busy0 | sed -n 's/^hyp:   scheduled in \([0-9]*\) times.*/\1/p')
		[ "${sl_in:-0}" -ge 20 ]
		result "sched_last_first: busy0 was scheduled in ${sl_in:-no} times (at least 20)"
	fi
	# The report's exit counts, end to end: the bench guest's 10 rounds are 100 null HVCs and
	# 104 PMU traps (the mix and the four writes that set it up), counted by the library.
	if runs bench_counts; then
		log=$logdir/bench_counts.log
		qemu_run "$log" "vm0=bench -- bench.rounds=10" bench
		report_of "$log" bench | grep -q '^hyp:   exits sysreg-pmu  *104 ' &&
			report_of "$log" bench | grep -q '^hyp:   exits hvc-null  *100 ' &&
			report_of "$log" bench | grep -q 'traps to perfvisor: pmu 104, '
		result "bench_counts: the report counts the bench VM's 100 null HVCs and 104 PMU traps"
	fi
	attack_suite
	direct_suite
	spe_suite
	amu_suite
	linux_suite
	for s in $only; do
		case $ran in *" $s "*) ;; *) fail "one: no scenario $s in the check list" ;; esac
	done
	summary
	;;
demo)
	log=$logdir/demo.log
	qemu_run "$log" "vm0=sieve vm1=sort vm2=sieve2 slice_us=200" demo demo demo
	rc=$?
	cat "$log"
	[ "$rc" -eq 0 ] && grep -q '^hyp: all VMs ended' "$log"
	;;
shell)
	# make run-linux: the kernel with a shell on its console, at this terminal, until the VM
	# powers off (`poweroff -f`) or Ctrl-A x ends it; RUN_TIMEOUT bounds it (default 1 h).
	image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir") || exit 1
	initrd=$linuxdir/initramfs-shell.cpio
	echo "run-linux: Ctrl-A x ends the run; Ctrl-A K gives VM slot K the input"
	# --foreground: QEMU keeps the terminal (it sets it raw; in a background process group it
	# would stop). signal=off: Ctrl-C goes to the guest's shell, not to QEMU.
	timeout --foreground "${RUN_TIMEOUT:-3600}" sh scripts/qemu.sh \
		-chardev stdio,id=console,signal=off -serial chardev:console \
		-kernel "$hyp" -device loader,file="$image",addr=0x48200000,force-raw=on \
		-device loader,file="$initrd",addr="$(printf '0x%x' $((0x48000000 + LINUX_INITRD_OFF)))",force-raw=on \
		-append "vm0=linux vm0_mem=$LINUX_MEM vm0_initrd=$LINUX_INITRD_OFF,$(wc -c <"$initrd" | tr -d ' ') focus=0 -- $LINUX_ARGS"
	;;
bench)
	# The figures of the QEMU they come from (bench/gate.sh).
	echo "bench: baseline $(sh bench/gate.sh key "${QEMU:-qemu-system-aarch64}")"
	log=$logdir/bench.log
	qemu_run "$log" "vm0=bench vm1=busy slice_us=20" bench busy
	if ! grep -q '^hyp: all VMs ended' "$log"; then
		echo "bench: the run did not finish (see $log)" >&2
		exit 1
	fi
	each() {
		sed -n "s/^hyp: overhead $1 .* exits, \([0-9]*\) el2-instructions each/\1/p" "$log"
	}
	# The bench VM's own exits of a kind (its null HVCs; its PMU mix and the four writes
	# that set it up), to one decimal: the busy VM's few PMU traps are not the mix.
	mine() {
		report_of "$log" bench |
			awk -v k="$1" '$2 == "exits" && $3 == k && $4 > 0 && $5 == "el2-instructions" {
				printf "%.1f", $6 / $4 }'
	}
	floor=$(mine hvc-null)
	pmu=$(mine sysreg-pmu)
	# The switches again without the fast path: the EL2 instructions of the reads it serves
	# are charged to the next exception accounted (docs/vpmu.md), at times a switch. The
	# switch's own path is the same with either vector table.
	log=$logdir/bench_switch.log
	qemu_run "$log" "fasttrap=off vm0=bench vm1=busy slice_us=20" bench busy
	if ! grep -q '^hyp: all VMs ended' "$log"; then
		echo "bench: the run without the fast path did not finish (see $log)" >&2
		exit 1
	fi
	switch=$(each switch)
	# Switches between two vCPUs that never touch the PMU (vpmu load and put do nothing).
	log=$logdir/bench_no_pmu.log
	qemu_run "$log" "vm0=bench vm1=bench2 slice_us=20 -- bench.pmu=0" bench bench
	if ! grep -q '^hyp: all VMs ended' "$log"; then
		echo "bench: the run without the PMU did not finish (see $log)" >&2
		exit 1
	fi
	if grep -q '^hyp:   traps to perfvisor: pmu [1-9]' "$log"; then
		echo "bench: a VM of the run without the PMU used it (see $log)" >&2
		exit 1
	fi
	switch_no_pmu=$(each switch)
	# An idle VM: 100 waits of 1 ms in WFI for its virtual timer. hyp.idle_ms is the EL2
	# instructions of its WFI exits and of the interrupts that end them, per idle ms.
	log=$logdir/bench_idle.log
	qemu_run "$log" "vm0=idle -- idle.waits=100" idle
	if ! grep -q '^\[idle\] done: [0-9]* passed, 0 failed' "$log"; then
		echo "bench: the idle run did not pass (see $log)" >&2
		exit 1
	fi
	idle_ms=$(report_of "$log" idle |
		awk '$2 == "exits" && ($3 == "wfi" || $3 ~ /^irq-/) && $5 == "el2-instructions" {
			t += $6 } END { if (t) printf "%.0f", t / 100 }')
	# From the guest's clock (tests/guest/bench.c, bench.clock=1), alone, so that no other
	# VM's slices are in the clock: counter reads with the fast path (fasttrap=on, the
	# default) and without it; with it, what it leaves to C: PMSELR_EL0 writes and PMCR_EL0
	# reads. clock_of PHASE: EL2 instructions per access of that phase of the clock line
	# ("PHASE N accesses TICKS ticks GUEST guest-instructions").
	clock_of() {
		grep '^\[bench\] bench: clock ' "$log" | awk -v phase="$1" '{
			ns = 1e9 / $4
			for (i = 5; i + 5 <= NF; i++)
				if ($i == phase) {
					printf "%.1f", ($(i + 3) * ns - $(i + 5)) / $(i + 1)
					exit
				}
		}'
	}
	log=$logdir/bench_clock_on.log
	qemu_run "$log" "fasttrap=on vm0=bench -- bench.rounds=2000 bench.clock=1" bench
	fast=$(clock_of pmu-reads)
	write_slow=$(clock_of pmselr-writes)
	pmcr_read=$(clock_of pmcr-reads)
	log=$logdir/bench_clock_off.log
	qemu_run "$log" "fasttrap=off vm0=bench -- bench.rounds=2000 bench.clock=1" bench
	slow_read=$(clock_of pmu-reads)
	echo "bench: hyp.trap_floor: ${floor:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_pmu: ${pmu:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_fast: ${fast:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_read_slow: ${slow_read:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_write_slow: ${write_slow:-n/a} el2-instructions/trap"
	echo "bench: hyp.trap_pmcr_read: ${pmcr_read:-n/a} el2-instructions/trap"
	echo "bench: hyp.switch: ${switch:-n/a} el2-instructions/switch"
	echo "bench: hyp.switch_no_pmu: ${switch_no_pmu:-n/a} el2-instructions/switch"
	echo "bench: hyp.idle_ms: ${idle_ms:-n/a} el2-instructions/idle-ms"
	# Direct access (pmu_direct=on), where the hypervisor can give it (FEAT_FGT, every trap it
	# sets taken): PMU traps per counter read, of tests/guest/pmu_direct.c's 10,000 (the
	# report's PMU traps less the guest's trapped accesses, over its counter accesses).
	log=$logdir/bench_direct.log
	qemu_run "$log" "pmu_direct=on vm0=direct -- direct.reads=1000" pmu_direct
	direct_why=$(sed -n 's/^hyp: pmu_direct: not possible here (\(.*\)): .*/\1/p' "$log")
	if [ "$(direct_mode "$log" direct)" = direct ]; then
		dc=$(direct_counts "$log" direct)
		dp=$(report_field "$log" direct pmu)
		echo "bench: hyp.direct_read: $(awk -v r="${dc%% *}" -v t="${dc##* }" -v p="${dp:-x}" 'BEGIN {
			if (p == "x" || r == "" || r == 0) print "n/a"; else printf "%.2f", (p - t) / r }') traps/read"
	else
		echo "bench: hyp.direct_read: skipped (no direct access here: ${direct_why:-see $log})"
	fi
	# SPE (docs/spe.md), on a QEMU with it (the suite's CPU plus pv-spe=on, as spe_suite
	# picks it): tests/guest/spe_basic.c's spe.bench=1. hyp.spe_enable: the EL2 instructions
	# of the trapped PMBLIMITR_EL1 write that enables a 64 MiB buffer (walk and first chunk),
	# from the guest's clock: its ticks across that write less those across a NOP, per enable
	# (1 GHz under -icount shift=0: a tick is an instruction). hyp.spe_event: the VM's irq-spe
	# exits while it profiles about 2 MiB into that buffer, each a chunk advance (the
	# report's own count). hyp.spe_pinned_ratio: the most pages pinned at once over the
	# bytes written plus one chunk (PV_VSPE_PIN_CHUNK, 256 KiB).
	spe_enable="" spe_event="" spe_ratio=""
	if model_here pv-spe SPE; then
		spe_cpu=${QEMU_CPU:-max}
		case $spe_cpu in *pv-spe=on*) ;; *) spe_cpu=$spe_cpu,pv-spe=on ;; esac
		log=$logdir/bench_spe.log
		with_cpu "$spe_cpu" qemu_run "$log" "spe=on vm0=spe -- spe.bench=1" spe_basic
		if grep -q '^\[spe\] done: [0-9]* passed, 0 failed' "$log"; then
			spe_enable=$(sed -n 's/^\[spe\] spe: bench: \([0-9]*\) Hz: enable-64mib \([0-9]*\) enables \([0-9]*\) ticks; nop [0-9]* \([0-9]*\) ticks;.*/\1 \2 \3 \4/p' "$log" |
				awk '{ printf "%.0f", ($3 - $4) * 1e9 / $1 / $2 }')
			spe_event=$(report_of "$log" spe | awk '$2 == "exits" && $3 == "irq-spe" && $4 > 0 {
				printf "%.0f", $6 / $4 }')
			spe_written=$(sed -n 's/^\[spe\] spe: bench: .* profile \([0-9]*\) bytes written$/\1/p' "$log")
			spe_pages=$(report_of "$log" spe | sed -n 's/^hyp:   stage 2: .*(at most \([0-9]*\),.*/\1/p')
			spe_ratio=$(awk -v p="${spe_pages:-0}" -v w="${spe_written:-0}" 'BEGIN {
				if (p > 0 && w > 0) printf "%.3f", p * 4096 / (w + 262144) }')
		else
			echo "bench: the SPE run did not pass (see $log)" >&2
		fi
		echo "bench: hyp.spe_enable: ${spe_enable:-n/a} el2-instructions/enable"
		echo "bench: hyp.spe_event: ${spe_event:-n/a} el2-instructions/event"
		echo "bench: hyp.spe_pinned_ratio: ${spe_ratio:-n/a} pinned/(written+chunk)"
	else
		for f in spe_enable spe_event spe_pinned_ratio; do
			echo "bench: hyp.$f: skipped (no SPE here: $model_why)"
		done
	fi
	# The AMU (docs/amu.md), on a QEMU with it (the suite's CPU plus pv-amu=on, or pv-amu=v1
	# for the trap path): tests/guest/bench.c's bench.amu=1 reads the activity counters a
	# governor reads. hyp.amu_read: the report's AMU traps per read on AMUv1p1 (the virtual
	# offsets: 0). hyp.amu_read_v1: EL2 instructions per read on AMUv1, where each traps,
	# from the guest's clock as the PMU reads'. hyp.amu_switch: what the AMU adds to
	# hyp.switch, the same two VMs switched on a CPU with AMUv1p1, every VM given it.
	if amu_here; then
		amu_cpu=$amu_base
		amu_read="" amu_read_v1="" amu_switch=""
		log=$logdir/bench_amu.log
		with_cpu "$amu_cpu,pv-amu=on" qemu_run "$log" \
			"vm0=bench -- bench.rounds=2000 bench.clock=1 bench.amu=1" bench
		amu_n=$(sed -n 's/^\[bench\] bench: clock .* amu-reads \([0-9]*\) accesses .*/\1/p' "$log")
		amu_t=$(report_field "$log" bench amu)
		if grep -q '^hyp: vm bench: AMU (AMUv1p1, .*), virtual offsets' "$log" && [ -n "$amu_n" ]; then
			amu_read=$(awk -v t="${amu_t:-x}" -v n="$amu_n" 'BEGIN {
				if (t != "x" && n > 0) printf "%.2f", t / n }')
		fi
		log=$logdir/bench_amu_v1.log
		with_cpu "$amu_cpu,pv-amu=v1" qemu_run "$log" \
			"vm0=bench -- bench.rounds=2000 bench.clock=1 bench.amu=1" bench
		grep -q '^hyp: vm bench: AMU (AMUv1, .*), trapped$' "$log" && amu_read_v1=$(clock_of amu-reads)
		log=$logdir/bench_amu_switch.log
		with_cpu "$amu_cpu,pv-amu=on" qemu_run "$log" "fasttrap=off vm0=bench vm1=busy slice_us=20" \
			bench busy
		if grep -q '^hyp: vm busy: AMU (AMUv1p1, ' "$log" && [ -n "$switch" ]; then
			amu_switch=$(each switch)
			amu_switch=${amu_switch:+$((amu_switch - switch))}
		fi
		echo "bench: hyp.amu_read: ${amu_read:-n/a} traps/read"
		echo "bench: hyp.amu_read_v1: ${amu_read_v1:-n/a} el2-instructions/read"
		echo "bench: hyp.amu_switch: ${amu_switch:-n/a} el2-instructions/switch"
	else
		echo "bench: hyp.amu_*: skipped (no AMU here: $amu_why)"
	fi
	# A Linux guest's own perf: EL2 instructions (the self-count) over the guest's while perf
	# stat counts ten events over the workload of tests/guest/linux/init.c, and while perf
	# record -c 10000 samples it; with the PMU passed through, the way to run a guest's perf
	# (docs/vpmu.md, "Passthrough"), then with every PMU access trapped (_trapped).
	stat_ov="" rec_ov="" pt_stat_ov="" pt_rec_ov="" di_rec_ov=""
	if [ "${LINUX_GUEST:-}" != off ] && [ -f "$linuxdir/initramfs.cpio" ] &&
		image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/linux-fetch.err"); then
		# Nothing typed (the console is the suite's): idle time jumps (-icount sleep=off).
		LINUX_TYPED=-
		log=$logdir/bench_linux.log
		linux_run "$log" selfcount_page=on "$image" "$linuxdir/initramfs.cpio" "" \
			"pvinit_overhead=1 pvinit_console=0"
		set -- $(linux_overhead "$log")
		[ "$1" = stat ] && stat_ov=$2 rec_ov=$5
		log=$logdir/bench_linux_passthrough.log
		linux_run "$log" "pmu_passthrough=on host_counters=1 selfcount_page=on" "$image" \
			"$linuxdir/initramfs.cpio" "" "pvinit_overhead=1 pvinit_console=0"
		set -- $(linux_overhead "$log")
		[ "$1" = stat ] && pt_stat_ov=$2 pt_rec_ov=$5
		# Direct access with what passthrough cannot have: an event filter and the
		# hypervisor's own counter (docs/vpmu.md, "Direct access").
		log=$logdir/bench_linux_direct.log
		linux_run "$log" "pmu_direct=on host_counters=1 selfcount_page=on vm0_pmu_filter=deny:0x24:1" \
			"$image" "$linuxdir/initramfs.cpio" "" "pvinit_overhead=1 pvinit_console=0"
		LINUX_TYPED=
		if [ "$(direct_mode "$log" linux)" = direct ]; then
			set -- $(linux_overhead "$log")
			[ "$1" = stat ] && di_rec_ov=$5
		fi
	fi
	echo "bench: hyp.linux_perf_stat_overhead: ${pt_stat_ov:-n/a} %"
	echo "bench: hyp.linux_perf_record_overhead: ${pt_rec_ov:-n/a} %"
	echo "bench: hyp.linux_perf_stat_overhead_trapped: ${stat_ov:-n/a} %"
	echo "bench: hyp.linux_perf_record_overhead_trapped: ${rec_ov:-n/a} %"
	if [ -n "$direct_why" ]; then
		echo "bench: hyp.linux_perf_record_overhead_direct: skipped (no direct access here: $direct_why)"
	else
		echo "bench: hyp.linux_perf_record_overhead_direct: ${di_rec_ov:-n/a} %"
	fi
	bench_linux_spe
	;;
bench-linux-spe)
	echo "bench: baseline $(sh bench/gate.sh key "${QEMU:-qemu-system-aarch64}")"
	bench_linux_spe
	;;
*)
	echo "usage: run.sh check|linux|demo|bench|bench-linux-spe|shell HYP_ELF GUEST_DIR, run.sh one HYP_ELF GUEST_DIR SCENARIO..." >&2
	exit 2
	;;
esac
