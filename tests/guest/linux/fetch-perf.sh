#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-perf.sh DIR IMAGE_PACKAGE: what an SPE profile needs in the Linux guest's initramfs,
# from Debian's own packages of the kernel's version, put in DIR/root and listed in
# DIR/files (one NAME=FILE a line, as mkcpio.sh takes them):
#   - arm_spe_pmu.ko, the kernel's own SPE driver, from IMAGE_PACKAGE (the .deb whose Image the
#     suite boots, e.g. linux-image-6.1.0-57-cloud-arm64_6.1.192-3_arm64.deb: the cloud
#     flavour builds CONFIG_ARM_SPE_PMU as a module of the same package);
#   - perf (Debian's linux-perf of the same version, so that its SPE decoder is the kernel's
#     tree's) as bin/perf, and the shared libraries it loads, found by following each ELF's
#     DT_NEEDED from perf down (readelf), as lib/NAME, with the dynamic loader.
# The packages come through a private apt state (scripts/apt-private.sh: the machine's own
# sources, arm64 lists only; nothing installed, the system's lists untouched); downloads are
# cached in DIR/debs, so a second run needs no network. Exit status 0 with DIR/files on
# stdout; otherwise nonzero with one line on stderr starting "fetch-perf: ".
set -u
dir=$1
image_pkg=$2
FETCH_TIMEOUT=${FETCH_TIMEOUT:-300}

fail() {
	echo "fetch-perf: $*" >&2
	exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (a Debian machine is needed)"
command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb not found"
readelf=$(command -v aarch64-linux-gnu-readelf || command -v readelf) || fail "readelf not found"
# linux-image-6.1.0-57-cloud-arm64_6.1.192-3_arm64.deb: the package and its version
kpkg=${image_pkg%%_*}
kver=${image_pkg#*_}
kver=${kver%_*}
if [ -z "$kpkg" ] || [ "$kver" = "$image_pkg" ]; then
	fail "cannot read a package and version from '$image_pkg'"
fi
mkdir -p "$dir/debs" || fail "cannot create $dir"
dir=$(cd "$dir" && pwd)
apt=$dir/apt
private=$(cd "$(dirname "$0")/../../../scripts" && pwd)/apt-private.sh
aptp() {
	tool=$1
	shift
	FETCH_TIMEOUT=$FETCH_TIMEOUT sh "$private" "$apt" "$tool" -o APT::Architecture=arm64 \
		-o APT::Architectures=arm64 "$@"
}
log=$dir/fetch.log
: >"$log"

# have NAME: a .deb of NAME is in the cache (the version is checked for the two that matter).
have() { ls "$dir/debs/$1"_*.deb >/dev/null 2>&1; }
if ! have "$kpkg" || ! have linux-perf || [ ! -f "$dir/debs/closure" ]; then
	APT_PRIVATE_LISTS='*_binary-arm64_Packages*' aptp apt-get update >>"$log" 2>&1 ||
		fail "apt-get update (arm64 package lists) failed: $(grep -E '^(E|W|Err):' "$log" | head -n1)"
	# The shared libraries perf may load: every lib* (and zlib) package of its closure (the
	# interpreters' own packages, perl and python3, are not needed: perf links libperl and
	# libpython, which load their modules only for scripts).
	aptp apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "linux-perf=$kver" 2>>"$log" | grep -E '^(lib|zlib)' | sort -u \
		>"$dir/debs/closure.tmp"
	[ -s "$dir/debs/closure.tmp" ] || fail "no dependencies of linux-perf=$kver: $(grep -E '^(E|W):' "$log" | tail -n1)"
	# shellcheck disable=SC2046 # one package a line
	(cd "$dir/debs" && aptp apt-get download "$kpkg:arm64=$kver" "linux-perf:arm64=$kver" \
		$(sed 's/$/:arm64/' closure.tmp)) >>"$log" 2>&1 ||
		fail "apt-get download failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
	mv "$dir/debs/closure.tmp" "$dir/debs/closure"
fi
have "$kpkg" || fail "no $kpkg"
ls "$dir/debs/linux-perf_${kver}_arm64.deb" >/dev/null 2>&1 || fail "no linux-perf $kver (the kernel's version)"

rm -rf "$dir/root" "$dir/x"
mkdir -p "$dir/x" "$dir/root/bin" "$dir/root/lib" || fail "cannot create $dir/root"
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir/x" || fail "dpkg-deb -x $deb failed"
done
ko=$(find "$dir/x/lib/modules" -name arm_spe_pmu.ko | head -n1)
[ -n "$ko" ] || fail "$kpkg has no arm_spe_pmu.ko (CONFIG_ARM_SPE_PMU not a module)"
cp "$ko" "$dir/root/arm_spe_pmu.ko" || fail "cannot copy $ko"
perf=$dir/x/usr/bin/perf
[ -f "$perf" ] || fail "linux-perf $kver has no usr/bin/perf"
cp "$perf" "$dir/root/bin/perf" || fail "cannot copy $perf"

# The libraries, by DT_NEEDED from perf down; the loader by perf's PT_INTERP.
interp=$("$readelf" -l "$perf" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$interp" ] || fail "perf has no program interpreter"
todo="$perf"
done_libs=" "
while [ -n "$todo" ]; do
	# shellcheck disable=SC2086 # a list of paths without spaces
	set -- $todo
	elf=$1
	shift
	todo=$*
	for so in $("$readelf" -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		case $done_libs in *" $so "*) continue ;; esac
		f=""
		for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib; do
			[ -e "$dir/x/$d/$so" ] && f=$dir/x/$d/$so && break
		done
		[ -n "$f" ] || fail "no package of perf's closure has $so (needed by $(basename "$elf"))"
		cp -L "$f" "$dir/root/lib/$so" || fail "cannot copy $f"
		done_libs="$done_libs$so "
		todo="$todo $dir/root/lib/$so"
	done
done
loader=$(basename "$interp")
[ -f "$dir/root/lib/$loader" ] || cp -L "$dir/x$interp" "$dir/root/lib/$loader" 2>/dev/null ||
	cp -L "$dir/x/usr$interp" "$dir/root/lib/$loader" || fail "no $interp"
{
	echo "arm_spe_pmu.ko=$dir/root/arm_spe_pmu.ko"
	echo "bin/perf=$dir/root/bin/perf"
	for f in "$dir"/root/lib/*; do
		echo "lib/$(basename "$f")=$f"
	done
} >"$dir/files"
rm -rf "$dir/x" "$apt"
echo "$dir/files"
