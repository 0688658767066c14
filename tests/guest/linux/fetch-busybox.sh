#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-busybox.sh [DIR]: puts Debian's arm64 busybox-static (one static binary: a shell and
# the usual commands) in DIR/busybox (default build/linux) and prints its path, for the shell
# initramfs of `make run-linux`. Reused once there; nothing of it is committed. Fetched with
# apt-fetch.sh from the machine's own Debian mirror; nothing is installed. Exit status 0 with
# the path on stdout; otherwise nonzero with one line on stderr starting "fetch-busybox: ".
set -u
dir=${1:-build/linux}

fail() {
	echo "fetch-busybox: $*" >&2
	exit 1
}

# is_busybox FILE: a static AArch64 ELF (e_machine 183 = 0xB7 at offset 18).
is_busybox() {
	[ -f "$1" ] && [ "$(od -An -tx1 -j18 -N1 "$1" | tr -d ' ')" = b7 ]
}

if is_busybox "$dir/busybox"; then
	echo "$dir/busybox"
	exit 0
fi
mkdir -p "$dir" || fail "cannot create $dir"
fetch="$dir/fetch-busybox"
x=$(sh "$(dirname "$0")/apt-fetch.sh" busybox-static "$fetch" 2>"$dir/fetch-busybox.err") ||
	fail "$(sed 's/^apt-fetch: //' "$dir/fetch-busybox.err" | tail -n1)"
is_busybox "$x/bin/busybox" || fail "$(cat "$fetch/package") has no AArch64 bin/busybox"
cp "$x/bin/busybox" "$dir/busybox.tmp" && chmod 755 "$dir/busybox.tmp" &&
	mv "$dir/busybox.tmp" "$dir/busybox" || fail "cannot write $dir/busybox"
rm -rf "$fetch/x"
echo "$dir/busybox"
