#!/bin/sh
# SPDX-License-Identifier: MIT
# linux-spe.sh QEMU LOGDIR: Linux's unmodified SPE driver on the QEMU of our own, no
# hypervisor. The Debian kernel the guest suite boots, booted directly (-kernel, at EL2 with
# VHE) with -icount shift=0,sleep=off, with an initramfs of its own (tests/guest/linux/
# spe-init.sh as /init, Debian's busybox-static, the kernel package's arm_spe_pmu.ko, Debian's
# perf of the kernel's version with its libraries: tests/guest/linux/fetch-perf.sh, and the
# known loop tests/guest/linux/spe-loop.S). Two runs, in parallel:
#   -cpu max,pv-spe=on  the driver probes (the kernel did not unmap itself at EL0: CSV3 and
#                       E0PD), perf record -e arm_spe_0//u of the loop and perf script: every
#                       sample's PC in the loop, every load's and store's data address in its
#                       buffer, loads and stores both sampled, as many as the interval gives;
#                       the AUX buffer wrapped at least AUX_WRAPS times with no record cut and
#                       no "AUX data lost"; the driver met no buffer fault;
#   -cpu max            stock QEMU's: no SPE, so no arm_spe_0 and perf record fails (what the
#                       checks above stand on is the model, switched by its property).
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
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
aux_pages=8 # 32 KiB of AUX buffer
aux_wraps=4
mkdir -p "$logdir" "$spedir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh

reason=""
if [ "${LINUX_GUEST:-}" = off ]; then
	reason="LINUX_GUEST=off"
elif ! command -v "$cc" >/dev/null 2>&1; then
	reason="no $cc"
elif ! image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/fetch.err"); then
	reason="no arm64 Linux kernel: $(tail -n1 "$logdir/fetch.err")"
elif [ ! -f "$linuxdir/Image.package" ]; then
	reason="$image is not from a Debian package (no $linuxdir/Image.package): no module or perf of its version"
elif ! files=$(sh tests/guest/linux/fetch-perf.sh "$spedir" "$(cat "$linuxdir/Image.package")" \
	2>"$logdir/fetch.err"); then
	reason="$(tail -n1 "$logdir/fetch.err")"
elif ! busybox=$(sh tests/guest/linux/fetch-busybox.sh "$linuxdir" 2>"$logdir/fetch.err"); then
	reason="$(tail -n1 "$logdir/fetch.err")"
fi
if [ -n "$reason" ]; then
	echo "linux_spe: skipped: $reason"
	skipped=1
	summary
	exit $?
fi
echo "linux_spe: kernel $image ($(cat "$linuxdir/Image.package")), perf and arm_spe_pmu.ko of its version"

# The loop, and its bounds from its own symbols, for init to hold the samples to.
loop=$spedir/spe-loop
"$cc" -static -nostdlib -no-pie -o "$loop" tests/guest/linux/spe-loop.S
sym() { aarch64-linux-gnu-nm "$loop" 2>/dev/null | sed -n "s/^0*\([0-9a-f]*\) . $1\$/\1/p"; }
bounds="pvspe_loop=$(sym spe_loop)-$(sym spe_loop_end) pvspe_buf=$(sym spe_buf)-$(sym spe_buf_end)"
# shellcheck disable=SC2046 # one NAME=FILE a line
sh tests/guest/linux/mkcpio.sh "$spedir/initramfs.cpio" tests/guest/linux/spe-init.sh \
	bin/busybox="$busybox" bin/spe-loop="$loop" $(cat "$files")

run() { # run CPU LOG
	QEMU=$qemu QEMU_CPU=$1 timeout -k 5 "$timeout" sh scripts/qemu.sh -serial stdio \
		-icount shift=0,sleep=off -no-reboot -kernel "$image" -initrd "$spedir/initramfs.cpio" \
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
secs=$(($(date +%s) - start))

v() { tr -d '\r' <"$1" | sed -n "s/^pvspe: $2 \(.*\)\$/\1/p" | head -n1; }
log=$logdir/spe.log
t="linux_spe (-cpu max,pv-spe=on)"
samples=$(v "$log" samples)
memory=$(v "$log" memory)
aux=$(v "$log" aux-bytes)
echo "$t: $(v "$log" aux-records) AUX records, $aux bytes through a $((aux_pages * 4096))-byte" \
	"AUX buffer; $samples samples, $memory of loads and stores; times $(v "$log" times);" \
	"$secs s for both runs (log: $log)"

[ "$(v "$log" meltdown)" = "Not affected" ] && [ "$(v "$log" kpti)" = 0 ] && [ "$(v "$log" e0pd)" = 1 ]
result "$t: the kernel did not unmap itself at EL0 (Meltdown: not affected, by CSV3; E0PD detected)"
[ "$(v "$log" insmod)" = 0 ] && [ "$(v "$log" arm_spe_0)" = 0 ] &&
	grep -q '^pvspe-dmesg: .*arm_spe_pmu spe-pmu: probed for CPUs 0 ' "$log"
result "$t: arm_spe_pmu.ko loaded and probed (arm_spe_0)"
[ "$(v "$log" record)" = 0 ] && [ "$(v "$log" record-lost)" = 0 ] &&
	[ "$(v "$log" script)" = 0 ] && [ "$(v "$log" script-lost)" = 0 ]
result "$t: perf record -e arm_spe_0//u and perf script ran, no \"AUX data lost\""
[ -n "$samples" ] && [ "$samples" -gt 0 ] && [ "$(v "$log" samples-in-loop)" = "$samples" ]
result "$t: every sample's PC in the loop ($samples samples)"
# 2,400,280 loop instructions, 2 of each 6 a load or a store: a sample every 257 instructions
# gives 3,113 of them; the driver's restarts may move that by a few; 2 % either way allowed.
[ -n "$memory" ] && [ "$memory" -ge 3050 ] && [ "$memory" -le 3175 ] &&
	[ "$(v "$log" memory-in-buffer)" = "$memory" ]
result "$t: $memory loads and stores sampled (3,113 expected), every data address in the loop's buffer"
# The load is the loop's third instruction, the store its fifth.
ld=$(printf %x $((0x$(sym spe_loop) + 8)))
st=$(printf %x $((0x$(sym spe_loop) + 16)))
[ -n "$(v "$log" "memory-pc $ld")" ] && [ -n "$(v "$log" "memory-pc $st")" ] &&
	[ "$(tr -d '\r' <"$log" | grep -c '^pvspe: memory-pc ')" = 2 ]
result "$t: the loop's load ($ld: $(v "$log" "memory-pc $ld")) and store ($st: $(v "$log" "memory-pc $st")) sampled, nothing else as a load or store"
[ "$(v "$log" aux-truncated)" = 0 ] && [ -n "$aux" ] &&
	[ "$aux" -ge $((aux_wraps * aux_pages * 4096)) ]
result "$t: the AUX buffer wrapped at least $aux_wraps times ($aux bytes), no record truncated"
[ "$(v "$log" driver-faults)" = 0 ]
result "$t: the driver met no buffer fault"
[ "$rc" -eq 0 ] && grep -q '^pvspe: done' "$log" && grep -q 'reboot: Power down' "$log"
result "$t: the kernel powered the machine off (QEMU exit status $rc)"

log=$logdir/stock.log
t="linux_spe (-cpu max: no SPE)"
[ "$(v "$log" arm_spe_0)" != 0 ] && [ "$(v "$log" record)" != 0 ] && [ -n "$(v "$log" record)" ] &&
	[ "$stock_rc" -eq 0 ] && grep -q '^pvspe: done' "$log"
result "$t: no arm_spe_0, perf record refused (log: $log)"
summary
