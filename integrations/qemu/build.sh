#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh MODE [DIR]: the QEMU of our own (make hw-qemu, make hw-qemu-diff), under DIR
# (default build/hw-qemu). Run from the top of the tree.
#   build.sh build DIR   DIR/qemu-system-aarch64, built if it is not up to date; prints its path
#   build.sh tree DIR    only the hooked tree DIR/work; prints its path
#   build.sh diff DIR    the hooked tree as a diff against the pristine source, on stdout
#
# Steps, each done once and kept under DIR:
#   1. DIR/src: Debian trixie's QEMU source with Debian's patches (fetch.sh: pinned, or the
#      suite's current version once the pin has left the archive);
#   2. DIR/meson: bookworm-backports' meson, unpacked, not installed (meson.sh);
#   3. DIR/work: a copy of the source with our hooks and files (apply.sh), made anew when the
#      source's version, the hooks or the scripts that place them change; only our files are
#      copied again otherwise;
#   4. DIR/obj: QEMU configured for qemu-system-aarch64 alone (below), configured anew when the
#      source's version, meson's or the options change;
#   5. ninja in DIR/obj, through ccache (CCACHE_DIR, default build/ccache).
# DIR/qemu-system-aarch64.key holds what the binary was built from (the source's version and
# the hash of our files and options): while it matches, nothing runs. An edit of one of our
# model files rebuilds that file and relinks: ninja in the existing tree.
#
# ccache: the cache is keyed with paths relative to the top of the tree (CCACHE_BASEDIR) and
# without the working directory (CCACHE_NOHASHDIR), so a tree elsewhere (make fresh-check's
# new system) hits it. A hit still needs every header the compile includes and the link
# every library: the build proves its dependencies wherever it runs.
#
# Exit status 0, or 1 with a line on stderr starting "hw-qemu: " (or "fetch: ", "apply: ")
# that says why; the logs are in DIR/logs. HW_QEMU_JOBS: ninja's jobs (default: the CPUs).
set -u
mode=${1:-build}
dir=${2:-build/hw-qemu}
here=integrations/qemu
logs=$dir/logs

fail() {
	echo "hw-qemu: $*" >&2
	exit 1
}

[ -f "$here/hooks.txt" ] || fail "run from the top of perfvisor's tree"
mkdir -p "$logs" || fail "cannot create $logs"
top=$(pwd -P)

# QEMU's configuration: qemu-system-aarch64 alone, with the virt board and TCG, nothing
# optional that a machine may or may not have (so every machine builds the same QEMU, and
# needs only glib, libfdt and zlib). Debian's own patches already keep meson from unpacking
# the firmware images the +ds source does not ship (skip-unpack-edk2-blobs) and drop the
# test-only pycotap (disable-pycotap). The binary names itself: "QEMU emulator version
# 10.0.13 (perfvisor)", which bench/gate.sh's key maps to the baseline qemu-10.0-perfvisor
# (the option reaches qemu-version.h alone, so ccache still hits every other compile).
CONFIG="--python=/usr/bin/python3 --cc=/usr/lib/ccache/gcc --with-pkgversion=perfvisor
	--target-list=aarch64-softmmu --with-devices-aarch64=minimal
	--without-default-features --enable-tcg --enable-fdt=system
	--disable-docs --disable-tools --disable-user --disable-werror
	--disable-download --disable-install-blobs"

# hash FILE...: a short hash of the files' names and contents.
hash() {
	for f in "$@"; do
		echo "$f"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# 1. The pristine source.
src=$(sh "$here/fetch.sh" "$dir" 2>"$logs/fetch.err") || fail "$(cat "$logs/fetch.err")"
version=$(cat "$src/.perfvisor-version")

# 3. The hooked tree: made anew when what places the hooks changed (the list of the files
# the last hooks changed is kept, so those are rebuilt too where a hook went away).
work=$dir/work
treekey="$version $(hash "$here/hooks.txt" "$here/apply.sh" scripts/apply-hooks.sh)"
if [ "$(cat "$dir/work.key" 2>/dev/null)" != "$treekey" ]; then
	old=$(tail -n +2 "$work/.perfvisor-hooked" 2>/dev/null)
	rm -rf "$work" "$dir/work.key"
	sh "$here/apply.sh" "$src" "$work" >/dev/null || exit 1
	for f in $old; do
		[ ! -f "$work/$f" ] || touch "$work/$f"
	done
	echo "$treekey" >"$dir/work.key"
else
	sh "$here/apply.sh" "$src" "$work" >/dev/null || exit 1
fi

case $mode in
tree)
	echo "$work"
	exit 0
	;;
diff)
	# Paths as src/... and work/...; diff's status 1 (they differ) is the expected one.
	(cd "$dir" && diff -ruN --exclude='.perfvisor-*' src work)
	[ $? -le 1 ] || fail "diff failed"
	exit 0
	;;
build) ;;
*) fail "MODE is build, tree or diff, not '$mode'" ;;
esac

# 2. meson.
meson=$(sh "$here/meson.sh" "$dir/meson" 2>"$logs/meson.err") || fail "$(cat "$logs/meson.err")"
meson=$(cd "$meson" && pwd -P)
mesonv=$(cat "$meson/.perfvisor-version")
PATH=$meson/usr/bin:$PATH
PYTHONPATH=$meson/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
export PATH PYTHONPATH

out=$dir/qemu-system-aarch64
# What the binary is made of: the source, our files and hooks, what places them, how it is
# configured (this script), and meson.
# shellcheck disable=SC2046 # one name a line, no spaces in our paths
key="$version $(hash $(find "$here/files" -type f | sort) "$here/hooks.txt" "$here/apply.sh" \
	scripts/apply-hooks.sh "$here/build.sh") $mesonv"
if [ -x "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	echo "hw-qemu: up to date: QEMU $version, perfvisor's models $(echo "$key" | cut -d' ' -f2)" >&2
	echo "$out"
	exit 0
fi

export CCACHE_DIR="${CCACHE_DIR:-$top/build/ccache}"
export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1
command -v ccache >/dev/null 2>&1 && [ -x /usr/lib/ccache/gcc ] ||
	fail "no ccache (apt-get install ccache)"
mkdir -p "$CCACHE_DIR" || fail "cannot create $CCACHE_DIR"

# 4. Configured (QEMU's configure runs meson from the build directory).
obj=$dir/obj
confkey="$version $mesonv $(echo "$CONFIG" | tr -s ' \t\n' '   ')"
if [ ! -f "$obj/build.ninja" ] || [ "$(cat "$dir/obj.key" 2>/dev/null)" != "$confkey" ]; then
	rm -rf "$obj" "$dir/obj.key"
	mkdir -p "$obj" || fail "cannot create $obj"
	echo "hw-qemu: configuring QEMU $version (log: $logs/configure.log)" >&2
	# shellcheck disable=SC2086 # the options are words
	if ! (cd "$obj" && "$(cd "../$(basename "$work")" && pwd -P)/configure" $CONFIG) \
		>"$logs/configure.log" 2>&1; then
		tail -n 15 "$logs/configure.log" | sed 's/^/    /' >&2
		fail "configure failed (log: $logs/configure.log)"
	fi
	echo "$confkey" >"$dir/obj.key"
fi

# 5. Built.
start=$(date +%s)
echo "hw-qemu: building qemu-system-aarch64 (log: $logs/build.log)" >&2
ccache -z >/dev/null 2>&1
if ! ninja -C "$obj" -j"${HW_QEMU_JOBS:-$(nproc)}" qemu-system-aarch64 >"$logs/build.log" 2>&1; then
	grep -E 'error|FAILED' "$logs/build.log" | head -n 15 | sed 's/^/    /' >&2
	fail "ninja failed (log: $logs/build.log)"
fi

# The hooks at work in what was built: -cpu max has the property (the post-init hook), and
# read back from the realized CPU it says what the realize hook put in force (on by default,
# off on a CPU without a PMU). QMP on standard input; the machine never starts (-S).
fixes() { # fixes CPU: pv-pmu-fixes of the realized CPU (-cpu CPU), true or false
	printf '%s\n' '{"execute":"qmp_capabilities"}' \
		'{"execute":"qom-get","arguments":{"path":"/machine/unattached/device[0]","property":"pv-pmu-fixes"}}' \
		'{"execute":"quit"}' |
		QEMU=$obj/qemu-system-aarch64 timeout 30 sh scripts/qemu.sh -cpu "$1" -S -qmp stdio 2>&1 |
		tr -d '\r' | sed -n 's/^{"return": \(true\|false\)}$/\1/p'
}
on=$(fixes max)
off=$(fixes max,pmu=off)
if [ "$on" != true ] || [ "$off" != false ]; then
	fail "the hooks are not at work: pv-pmu-fixes read '$on' on -cpu max and '$off' with pmu=off (true and false expected)"
fi
ln -sf obj/qemu-system-aarch64 "$out"
echo "$key" >"$out.key"
stats=$(ccache --print-stats 2>/dev/null | awk -F'\t' '
	$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hit += $2 }
	$1 == "cache_miss" { miss += $2 }
	END { printf "ccache %d hits, %d misses", hit, miss }')
echo "hw-qemu: QEMU $version with perfvisor's models built in $(($(date +%s) - start)) s" \
	"($(grep -c '^\[' "$logs/build.log") steps, $stats): $out" >&2
echo "$out"
