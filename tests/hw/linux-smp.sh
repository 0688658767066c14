#!/bin/sh
# SPDX-License-Identifier: MIT
# linux-smp.sh QEMU LOGDIR WANT=CPU...: the Debian kernel the guest suite boots, booted directly
# on QEMU (no hypervisor: -kernel, at the EL QEMU hands it, EL2 here) with -smp 2 and
# -icount shift=0,sleep=off, its init in pvinit_smp=1 mode (tests/guest/linux/init.c, smp()):
# a process pinned to each CPU counts instructions:u (perf_event_open, exclude_kernel and
# exclude_hv) of a window of N, then 2N, iterations of a two-instruction loop, by a counter of
# the task and then by one of its CPU, both CPUs running their windows at once. One run per
# WANT=CPU (CPU: the -cpu value), WANT saying what the counts must be:
#   exact   every count is 2N + 6 and 4N + 6 (2N apart): each CPU counted its own
#           instructions and none of the other's;
#   global  every count is above that, as where INST_RETIRED is one count for the machine
#           (stock QEMU; ours with -cpu max,pv-pmu-fixes=off): each CPU counted what the other
#           executed while its counter was on.
# In both, each process ran on its own CPU, each pair of windows overlapped by at least N ns
# (N instructions of either CPU at shift=0), and the kernel powered the machine off.
# Kernel: tests/guest/linux/fetch-kernel.sh (build/linux/Image; LINUX_IMAGE names another);
# where none can be had, or LINUX_GUEST=off, the check is skipped, with the reason.
# Initramfs: LINUX_INITRD (default build/linux/initramfs.cpio, made by make hyp).
# Each run bounded by timeout (LINUX_SMP_TIMEOUT, 300 s); the runs go in parallel. Last line
# "N passed, M failed[, 1 skipped]".
set -u
qemu=$1
logdir=$2
shift 2
linuxdir=build/linux
initrd=${LINUX_INITRD:-$linuxdir/initramfs.cpio}
timeout=${LINUX_SMP_TIMEOUT:-300}
iters=10000000 # SMP_ITERS of init.c
mkdir -p "$logdir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh

reason=""
if [ "${LINUX_GUEST:-}" = off ]; then
	reason="LINUX_GUEST=off"
elif [ ! -f "$initrd" ]; then
	reason="$initrd missing (make hyp builds it)"
elif ! image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/fetch.err"); then
	reason="no arm64 Linux kernel: $(tail -n1 "$logdir/fetch.err")"
fi
if [ -n "$reason" ]; then
	echo "linux_smp: skipped: $reason"
	skipped=1
	summary
	exit $?
fi
echo "linux_smp: kernel $image ($(cat "$linuxdir/Image.package" 2>/dev/null || echo local))"

# The runs, in parallel: each QEMU runs its CPUs in turn on one host thread.
i=0
for want_cpu in "$@"; do
	QEMU=$qemu QEMU_SMP=2 QEMU_CPU=${want_cpu#*=} timeout -k 5 "$timeout" sh scripts/qemu.sh \
		-serial stdio -icount shift=0,sleep=off -no-reboot -kernel "$image" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 printk.devkmsg=on pvinit_smp=1 pvinit_console=0" \
		>"$logdir/run$i.log" 2>&1 </dev/null &
	echo $! >"$logdir/run$i.pid"
	i=$((i + 1))
done

i=0
for want_cpu in "$@"; do
	want=${want_cpu%%=*}
	cpu=${want_cpu#*=}
	log=$logdir/run$i.log
	wait "$(cat "$logdir/run$i.pid")"
	rc=$?
	i=$((i + 1))
	v() { tr -d '\r' <"$log" | sed -n "s/^\[ *[0-9.]*\] pvinit: smp-$1 \([0-9]*\)\$/\1/p" | head -n1; }
	t="linux_smp (-cpu $cpu)"
	echo "$t: cpu0 task $(v cpu0-task-n) $(v cpu0-task-2n), cpu $(v cpu0-cpu-n) $(v cpu0-cpu-2n);" \
		"cpu1 task $(v cpu1-task-n) $(v cpu1-task-2n), cpu $(v cpu1-cpu-n) $(v cpu1-cpu-2n);" \
		"overlap ns $(v overlap-ns-task-n) $(v overlap-ns-task-2n) $(v overlap-ns-cpu-n)" \
		"$(v overlap-ns-cpu-2n) (log: $log)"

	[ "$(v iterations)" = "$iters" ] && [ "$(v cpu0)" = 0 ] && [ "$(v cpu1)" = 1 ]
	result "$t: N = $iters; each process pinned to its CPU (sched_setaffinity, getcpu)"
	for p in cpu0 cpu1; do
		for kind in task cpu; do
			n=$(v "$p-$kind-n")
			n2=$(v "$p-$kind-2n")
			if [ "$want" = exact ]; then
				[ "$n" = $((2 * iters + 6)) ] && [ "$n2" = $((4 * iters + 6)) ]
				result "$t: $p, $kind counter: instructions:u = $((2 * iters + 6)) and $((4 * iters + 6)), $((2 * iters)) apart"
			else
				[ -n "$n" ] && [ -n "$n2" ] &&
					[ "$n" -gt $((2 * iters + 6)) ] && [ "$n2" -gt $((4 * iters + 6)) ]
				result "$t: $p, $kind counter: instructions:u above $((2 * iters + 6)) and $((4 * iters + 6)) (the other CPU's counted too)"
			fi
		done
	done
	ok=1
	for w in task-n task-2n cpu-n cpu-2n; do
		o=$(v "overlap-ns-$w")
		[ -n "$o" ] && [ "$o" -ge "$iters" ] || ok=""
	done
	[ -n "$ok" ]
	result "$t: the two CPUs' windows overlapped by at least $iters ns each"
	[ "$rc" -eq 0 ] && grep -q 'pvinit: poweroff 0' "$log" && grep -q 'reboot: Power down' "$log"
	result "$t: the kernel powered the machine off (QEMU exit status $rc)"
done
summary
