#!/bin/sh
# SPDX-License-Identifier: MIT
# linux-spe.sh QEMU LOGDIR: Linux's unmodified SPE driver on the QEMU of our own, no
# hypervisor. The Debian kernel the guest suite boots, booted directly (-kernel, at EL2 with
# VHE) with -icount shift=0,sleep=off, with an initramfs of its own (tests/guest/linux/
# spe-init.sh as /init, Debian's busybox-static, the kernel package's arm_spe_pmu.ko, Debian's
# perf of the kernel's version with its libraries: tests/guest/linux/fetch-perf.sh, and the
# known loop tests/guest/linux/spe-loop.S: tests/guest/linux/mkspe.sh). Two runs, in parallel:
#   -cpu max,pv-spe=on  the driver probes (the kernel did not unmap itself at EL0: CSV3 and
#                       E0PD), perf record -e arm_spe_0//u of the loop and perf script: every
#                       sample's PC in the loop, every load's and store's data address in its
#                       buffer, loads and stores both sampled, as many as the interval gives;
#                       the AUX buffer wrapped at least 4 times with no record cut and
#                       no "AUX data lost"; the driver met no buffer fault;
#   -cpu max            stock QEMU's: no SPE, so no arm_spe_0 and perf record fails (what the
#                       checks above stand on is the model, switched by its property).
# The checks of the first are tests/guest/linux/spe-checks.sh's, which the guest suite's
# linux_spe scenario makes too, under the reference hypervisor.
# Kernel: tests/guest/linux/fetch-kernel.sh (build/linux/Image); perf and the module from
# Debian's packages of the same version (build/linux-spe); where they cannot be had, or
# LINUX_GUEST=off, the check is skipped, with the reason. Each run bounded by timeout
# (LINUX_SPE_TIMEOUT, 300 s). Last line "N passed, M failed[, 1 skipped]".
set -u
qemu=$1
logdir=$2
linuxdir=build/linux
spedir=build/linux-spe
timeout=${LINUX_SPE_TIMEOUT:-300}
aux_pages=8 # 32 KiB of AUX buffer
mkdir -p "$logdir" "$spedir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh
# shellcheck source=tests/guest/linux/spe-checks.sh
. tests/guest/linux/spe-checks.sh

reason=""
if [ "${LINUX_GUEST:-}" = off ]; then
	reason="LINUX_GUEST=off"
elif ! image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/fetch.err"); then
	reason="no arm64 Linux kernel: $(tail -n1 "$logdir/fetch.err")"
elif [ ! -f "$linuxdir/Image.package" ]; then
	reason="$image is not from a Debian package (no $linuxdir/Image.package): no module or perf of its version"
elif ! made=$(sh tests/guest/linux/mkspe.sh "$spedir" "$(cat "$linuxdir/Image.package")" \
	2>"$logdir/fetch.err"); then
	reason="$(tail -n1 "$logdir/fetch.err")"
fi
if [ -n "$reason" ]; then
	echo "linux_spe: skipped: $reason"
	skipped=1
	summary
	exit $?
fi
echo "linux_spe: kernel $image ($(cat "$linuxdir/Image.package")), perf and arm_spe_pmu.ko of its version"
initrd=$(echo "$made" | sed -n 1p)
bounds=$(echo "$made" | sed -n 2p)

run() { # run CPU LOG
	QEMU=$qemu QEMU_CPU=$1 timeout -k 5 "$timeout" sh scripts/qemu.sh -serial stdio \
		-icount shift=0,sleep=off -no-reboot -kernel "$image" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 quiet $bounds pvspe_aux_pages=$aux_pages" \
		>"$2" 2>&1 </dev/null
}
start=$(date +%s)
run max,pv-spe=on "$logdir/spe.log" &
spe_pid=$!
run max "$logdir/stock.log" &
stock_pid=$!
wait "$spe_pid"
rc=$?
wait "$stock_pid"
stock_rc=$?
echo "linux_spe: both runs in $(($(date +%s) - start)) s"

log=$logdir/spe.log
t="linux_spe (-cpu max,pv-spe=on)"
spe_linux_checks "$t" "$log" "" "$spedir/spe-loop" "$aux_pages"
[ "$rc" -eq 0 ] && grep -q 'reboot: Power down' "$log"
result "$t: the kernel powered the machine off (QEMU exit status $rc; log: $log)"

log=$logdir/stock.log
t="linux_spe (-cpu max: no SPE)"
[ "$(spe_v "$log" "" arm_spe_0)" != 0 ] && [ "$(spe_v "$log" "" record)" != 0 ] &&
	[ -n "$(spe_v "$log" "" record)" ] && [ "$stock_rc" -eq 0 ] && grep -q '^pvspe: done' "$log"
result "$t: no arm_spe_0, perf record refused (log: $log)"
summary
