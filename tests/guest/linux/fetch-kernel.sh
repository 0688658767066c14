#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-kernel.sh [DIR]: puts an arm64 Linux kernel Image from Debian's own packages in
# DIR/Image (default build/linux) and prints its path. Nothing of the kernel is committed.
#
#   - If DIR/Image is already there (and is an arm64 Image), it is reused: no network. Remove
#     it to get the newest kernel the mirror has.
#   - LINUX_IMAGE=/path/to/Image uses that file instead (checked, not copied).
#   - Otherwise apt-fetch.sh downloads LINUX_PACKAGE (default linux-image-cloud-arm64, the
#     small "cloud" flavour: PL011, GICv3, PSCI, arch timer, the PMUv3 driver and initramfs
#     support are built in) for arm64, resolving the meta-package to the versioned image
#     package, and unpacks it (nothing is installed; only the Debian mirror of /etc/apt is
#     contacted). The Image is taken from boot/vmlinuz-* (uncompressed with zcat when it is
#     gzip-compressed); it must have the arm64 Image magic "ARM\x64" at offset 56.
#
# Exit status 0 with the Image's path on stdout; otherwise nonzero, with one line on stderr
# starting "fetch-kernel: " that says why (the guest suite reports it as the skip reason).
# Each apt-get call is bounded by FETCH_TIMEOUT seconds (default 60); apt's log is kept in
# DIR/fetch-kernel/fetch.log.
set -u
dir=${1:-build/linux}
pkg=${LINUX_PACKAGE:-linux-image-cloud-arm64}

fail() {
	echo "fetch-kernel: $*" >&2
	exit 1
}

# is_image FILE: the arm64 Image header magic at offset 56.
is_image() {
	[ -f "$1" ] && [ "$(dd if="$1" bs=1 skip=56 count=4 2>/dev/null)" = "$(printf 'ARM\144')" ]
}

if [ -n "${LINUX_IMAGE:-}" ]; then
	is_image "$LINUX_IMAGE" || fail "LINUX_IMAGE=$LINUX_IMAGE is not an arm64 Image"
	echo "$LINUX_IMAGE"
	exit 0
fi
if is_image "$dir/Image"; then
	echo "$dir/Image"
	exit 0
fi

# The package, downloaded and unpacked by apt-fetch.sh into a directory of its own.
fetch="$dir/fetch-kernel"
x=$(APT_FETCH_RESOLVE='linux-image-[0-9]' sh "$(dirname "$0")/apt-fetch.sh" "$pkg" "$fetch" \
	2>"$dir/fetch.err") || fail "$(sed 's/^apt-fetch: //' "$dir/fetch.err" | tail -n1)"
vmlinuz=$(ls "$x"/boot/vmlinuz-* 2>/dev/null | head -n1)
[ -n "$vmlinuz" ] || fail "$(cat "$fetch/package") has no boot/vmlinuz-*"
tmp="$dir/fetch.tmp"
rm -rf "$tmp"
mkdir -p "$tmp" || fail "cannot create $tmp"
if [ "$(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
	zcat "$vmlinuz" >"$tmp/Image" || fail "zcat $vmlinuz failed"
else
	cp "$vmlinuz" "$tmp/Image" || fail "cp $vmlinuz failed"
fi
is_image "$tmp/Image" || fail "$vmlinuz is not an arm64 Image (no ARM\\x64 magic at offset 56)"
cp "$x"/boot/config-* "$dir/Image.config" 2>/dev/null
mv "$tmp/Image" "$dir/Image" || fail "cannot write $dir/Image"
cp "$fetch/package" "$dir/Image.package"
rm -rf "$tmp" "$fetch/x"
echo "$dir/Image"
