#!/bin/sh
# SPDX-License-Identifier: MIT
# mkspe.sh DIR IMAGE_PACKAGE: the SPE initramfs, DIR/initramfs.cpio: tests/guest/linux/
# spe-init.sh as /init, Debian's busybox-static, the kernel package's arm_spe_pmu.ko and
# Debian's perf of the kernel's version with its libraries (fetch-perf.sh, into DIR), and the
# known loop (spe-loop.S, built here as DIR/spe-loop) and the bench's window (window.c, built
# as DIR/pvwindow). Prints two lines: the initramfs's path, then the kernel command-line
# words that give init the loop's and its buffer's bounds (from the binary's own symbols).
# Exit status nonzero with one line on stderr that says why. AARCH64_CC (default
# aarch64-linux-gnu-gcc) builds the loop and the window; its nm reads the symbols.
set -u
dir=$1
image_pkg=$2
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
here=$(dirname "$0")

command -v "$cc" >/dev/null 2>&1 || { echo "mkspe: no $cc" >&2; exit 1; }
nm=${cc%gcc}nm
mkdir -p "$dir" || exit 1
files=$(sh "$here/fetch-perf.sh" "$dir" "$image_pkg") || exit 1
busybox=$(sh "$here/fetch-busybox.sh" build/linux) || exit 1
loop=$dir/spe-loop
"$cc" -static -nostdlib -no-pie -o "$loop" "$here/spe-loop.S" ||
	{ echo "mkspe: $cc could not build $here/spe-loop.S" >&2; exit 1; }
window=$dir/pvwindow
"$cc" -std=c11 -Wall -Wextra -Werror -O2 -static -nostdlib -ffreestanding -fno-builtin \
	-fno-stack-protector -no-pie -mgeneral-regs-only -s -o "$window" "$here/window.c" ||
	{ echo "mkspe: $cc could not build $here/window.c" >&2; exit 1; }
sym() { "$nm" "$loop" | sed -n "s/^0*\([0-9a-f]*\) . $1\$/\1/p"; }
# shellcheck disable=SC2046 # one NAME=FILE a line
sh "$here/mkcpio.sh" "$dir/initramfs.cpio" "$here/spe-init.sh" bin/busybox="$busybox" \
	bin/spe-loop="$loop" bin/pvwindow="$window" $(cat "$files") ||
	{ echo "mkspe: mkcpio.sh could not write $dir/initramfs.cpio" >&2; exit 1; }
echo "$dir/initramfs.cpio"
echo "pvspe_loop=$(sym spe_loop)-$(sym spe_loop_end) pvspe_buf=$(sym spe_buf)-$(sym spe_buf_end)"
