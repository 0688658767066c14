#!/bin/sh
# fetch-kernel.sh [DIR]: puts an arm64 Linux kernel Image from Debian's own packages in
# DIR/Image (default build/linux) and prints its path. Nothing of the kernel is committed.
#
#   - If DIR/Image is already there (and is an arm64 Image), it is reused: no network. Remove
#     it to get the newest kernel the mirror has.
#   - LINUX_IMAGE=/path/to/Image uses that file instead (checked, not copied).
#   - Otherwise apt-get downloads LINUX_PACKAGE (default linux-image-cloud-arm64, the small
#     "cloud" flavour: PL011, GICv3, PSCI, arch timer, the PMUv3 driver and initramfs support
#     are built in) for arm64, resolving the meta-package to the versioned image package.
#     apt runs with its own state under DIR/apt (package lists for arm64, download cache):
#     dpkg's architectures and the system's package lists are left alone, nothing is
#     installed. The sources are the machine's own (/etc/apt), so only the Debian mirror is
#     contacted. The .deb is unpacked with dpkg-deb and the Image taken from boot/vmlinuz-*
#     (uncompressed with zcat when it is gzip-compressed); it must have the arm64 Image magic
#     "ARM\x64" at offset 56.
#
# Exit status 0 with the Image's path on stdout; otherwise nonzero, with one line on stderr
# starting "fetch-kernel: " that says why (the guest suite reports it as the skip reason).
# Each apt-get call is bounded by FETCH_TIMEOUT seconds (default 60); apt's log is kept in
# DIR/fetch.log.
set -u
dir=${1:-build/linux}
pkg=${LINUX_PACKAGE:-linux-image-cloud-arm64}
FETCH_TIMEOUT=${FETCH_TIMEOUT:-60}

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

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (a Debian machine is needed)"
command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb not found"
mkdir -p "$dir" || fail "cannot create $dir"
apt=$(cd "$dir" && pwd)/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" || fail "cannot create $apt"
# apt with private state: arm64 package lists only, no dpkg status (nothing is installed).
set -- -q -o APT::Architecture=arm64 -o APT::Architectures=arm64 \
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::status=/dev/null \
	-o Acquire::Retries=1 -o Acquire::http::Timeout=20
# apt's downloads run as the _apt user when it can switch to it; that user may not be able
# to write into the build tree, so root downloads as root (apt would only warn about it).
[ "$(id -u)" = 0 ] && set -- "$@" -o APT::Sandbox::User=root

log="$dir/fetch.log"
# apt-get update exits 0 when a mirror cannot be reached: the lists it got are what counts.
if ! timeout "$FETCH_TIMEOUT" apt-get "$@" update >"$log" 2>&1 ||
	! ls "$apt"/lists/*_binary-arm64_Packages* >/dev/null 2>&1; then
	fail "apt-get update (arm64 package lists) failed: $(grep -E -A1 '^(E|W|Err):' "$log" | head -n2 | tr -s '\n\t ' '  ')"
fi
real=$(apt-cache "$@" depends "$pkg" 2>>"$log" |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
[ -n "$real" ] || real=$pkg # already a versioned package
tmp="$dir/fetch.tmp"
rm -rf "$tmp"
mkdir -p "$tmp" || fail "cannot create $tmp"
if ! (cd "$tmp" && timeout "$FETCH_TIMEOUT" apt-get "$@" download "$real:arm64") >>"$log" 2>&1
then
	fail "apt-get download $real:arm64 failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
fi
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || fail "apt-get download $real:arm64 gave no .deb"
dpkg-deb -x "$deb" "$tmp/x" || fail "dpkg-deb -x $deb failed"
vmlinuz=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -n1)
[ -n "$vmlinuz" ] || fail "$deb has no boot/vmlinuz-*"
if [ "$(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
	zcat "$vmlinuz" >"$tmp/Image" || fail "zcat $vmlinuz failed"
else
	cp "$vmlinuz" "$tmp/Image" || fail "cp $vmlinuz failed"
fi
is_image "$tmp/Image" || fail "$vmlinuz is not an arm64 Image (no ARM\\x64 magic at offset 56)"
cp "$tmp"/x/boot/config-* "$dir/Image.config" 2>/dev/null
mv "$tmp/Image" "$dir/Image" || fail "cannot write $dir/Image"
echo "$(basename "$deb")" >"$dir/Image.package"
rm -rf "$tmp" "$apt" # the package lists are only needed again if the Image is removed
echo "$dir/Image"
