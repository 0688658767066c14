#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian 12 packages each make goal needs, and their installation. The Makefile calls
# `deps.sh ensure GOAL...` before it reads anything else, so a goal's first run on a fresh
# machine installs exactly what that goal uses and nothing more.
#
#   deps.sh ensure GOAL...   install the packages GOAL... need that are not installed, with
#                            apt-get, as root or through `sudo -n`, printing the list first;
#                            where neither works, exit 1 with the exact apt-get line to run
#   deps.sh missing GOAL...  the packages GOAL... need that are not installed, one a line
#   deps.sh list [GOAL...]   the packages GOAL... need (no goal: every goal's), one a line
#
# PERFVISOR_INSTALL=no: ensure only reports what is missing and exits 0 (the goal then runs
# what it can: a suite that cannot run says why it was skipped).
# APT_GET, DPKG_QUERY and SUDO name the commands used (the tests of this script set them).
set -eu

APT_GET=${APT_GET:-apt-get}
DPKG_QUERY=${DPKG_QUERY:-dpkg-query}
SUDO=${SUDO:-sudo}

# The demo: the tool (libxml2, libvirt, libmicrohttpd for serve) on the simulated machine.
demo="make gcc libc6-dev pkg-config libxml2-dev libvirt-dev libmicrohttpd-dev"
# The host test binaries (cmocka) beside the tool.
build="$demo libcmocka-dev"
# The fuzz targets (make fuzz; make check runs each over its seeds): clang and libFuzzer.
libfuzzer="clang libclang-rt-dev"
# The tool tests parse every report format with real parsers; a real Prometheus (and its
# promtool) scrapes perfvisor serve, node_exporter's textfile collector reads its files.
parsers="python3 python3-prometheus-client jq"
prometheus="prometheus prometheus-node-exporter"
# The install test (test_tool_install) reads the shared library's SONAME and symbols
# (binutils), renders the man page (groff) and builds its consumer as C++ too (g++);
# pkg-config is the demo's already.
installtest="binutils groff-base g++"
# The reference hypervisor, its guests and QEMU (the guest suite, make run, the hyp.* figures).
guests="make gcc-aarch64-linux-gnu qemu-system-arm"
# Xen on Arm with perfvisor (make xen-check): its source unpacked (dpkg-source), its kconfig
# (flex, bison), the device trees of its domains (dtc).
xen="$guests dpkg-dev xz-utils flex bison device-tree-compiler"
# The QEMU of our own (make hw-qemu, integrations/qemu/): Debian's source unpacked, configured
# by meson (bookworm-backports' meson, unpacked under build/, needs Python's venv) and built by
# ninja against glib, libfdt and zlib, through ccache.
hwqemu="make gcc libc6-dev pkg-config dpkg-dev xz-utils python3 python3-venv ninja-build ccache libglib2.0-dev libfdt-dev zlib1g-dev"

# packages GOAL: the packages one make goal needs. A goal not named here (a file under build/,
# `all`, `tests`) is built with the host compiler and cmocka.
packages() {
	case "$1" in
	clean) ;;
	demo | docs | docs-check | install | shlib) echo "$demo" ;;
	uninstall) echo "make" ;;
	check) echo "$build $parsers $installtest $xen $prometheus $libfuzzer $hwqemu" ;;
	# The Xen suite reads its domains' live figures with the tool's serve, over HTTP (Python),
	# and through a real Prometheus.
	xen-check) echo "$demo $xen python3 prometheus" ;;
	xen-bench) echo "$xen" ;;
	hw-qemu | hw-qemu-diff | build/hw-qemu/*) echo "$hwqemu" ;;
	hw-qemu-test-apply) echo "make" ;;
	# The models' tests: the QEMU, and the cross compiler for the programs.
	hw-check) echo "$hwqemu gcc-aarch64-linux-gnu" ;;
	hw-tests | build/hw-tests/*) echo "make gcc-aarch64-linux-gnu" ;;
	check-host | check-sanitize) echo "$build $parsers $installtest" ;;
	memcheck) echo "$build $parsers $installtest valgrind" ;;
	bench | bench-check) echo "$build valgrind $xen" ;;
	bench-baseline) echo "make" ;;
	lint) echo "$build cppcheck clang-tidy clang-format" ;;
	format | format-check) echo "make clang-format" ;;
	fuzz | fuzz-build) echo "$build $libfuzzer" ;;
	aarch64 | aarch64-cc | build/aarch64/*) echo "make gcc-aarch64-linux-gnu" ;;
	hyp | guests | qemu-check | qemu-linux | qemu-bench | run | run-linux) echo "$guests" ;;
	build/hyp/* | build/guest/* | build/linux/* | build/xen/*) echo "make gcc-aarch64-linux-gnu" ;;
	# Everything happens inside the root file system it builds (scripts/fresh-check.sh).
	fresh-check) echo "make debootstrap" ;;
	deps) packages all-goals ;;
	all-goals)
		for g in check memcheck bench lint fuzz fresh-check hw-qemu; do
			packages "$g"
		done
		;;
	*) echo "$build" ;;
	esac
}

# needed GOAL...: the union of the goals' packages, one a line, in first-named order.
needed() {
	for g in "$@"; do
		packages "$g"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

# missing PACKAGE...: those of them dpkg does not have installed.
missing() {
	[ $# -gt 0 ] || return 0
	# shellcheck disable=SC2016 # dpkg-query expands ${Package}, not the shell
	installed=$("$DPKG_QUERY" -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null |
		awk '$2 == "ii" { print $1 }') || true
	for p in "$@"; do
		printf '%s\n' "$installed" | grep -qx "$p" || echo "$p"
	done
}

# ensure GOAL...
ensure() {
	if ! command -v "$DPKG_QUERY" >/dev/null 2>&1; then
		echo "perfvisor: no $DPKG_QUERY here, so installed packages cannot be checked;" \
			"make $* uses these Debian packages: $(needed "$@" | tr '\n' ' ')" >&2
		return 0
	fi
	# shellcheck disable=SC2046
	m=$(missing $(needed "$@") | tr '\n' ' ' | sed 's/ $//')
	[ -n "$m" ] || return 0
	line="apt-get install -y --no-install-recommends $m"
	echo "perfvisor: make $* needs these packages, not installed here: $m" >&2
	if [ "${PERFVISOR_INSTALL:-yes}" = no ]; then
		echo "perfvisor: PERFVISOR_INSTALL=no: not installing them (as root: apt-get update && $line)" >&2
		return 0
	fi
	if [ "$(id -u)" = 0 ]; then
		as=""
	elif command -v "$SUDO" >/dev/null 2>&1 && "$SUDO" -n true >/dev/null 2>&1; then
		as="$SUDO -n"
	else
		echo "perfvisor: cannot install them (not root, and sudo -n is not allowed); as root, run:" >&2
		echo "    apt-get update && $line" >&2
		return 1
	fi
	echo "perfvisor: installing them: ${as:+$as }$line" >&2
	# A fresh machine has no package lists yet: update first. Every apt line goes to stderr,
	# so a Makefile that calls this in $(shell) shows it as it happens.
	# shellcheck disable=SC2086
	if ! $as env DEBIAN_FRONTEND=noninteractive "$APT_GET" update -q </dev/null >&2 ||
		! $as env DEBIAN_FRONTEND=noninteractive "$APT_GET" install -y -q \
			--no-install-recommends $m </dev/null >&2; then
		echo "perfvisor: apt-get failed; to retry as root: apt-get update && $line" >&2
		return 1
	fi
	# shellcheck disable=SC2046
	still=$(missing $(needed "$@") | tr '\n' ' ' | sed 's/ $//')
	if [ -n "$still" ]; then
		echo "perfvisor: still not installed after apt-get: $still" >&2
		return 1
	fi
	echo "perfvisor: installed: $m" >&2
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
ensure)
	[ $# -gt 0 ] || set -- all
	ensure "$@"
	;;
missing)
	[ $# -gt 0 ] || set -- all
	# shellcheck disable=SC2046
	missing $(needed "$@")
	;;
list)
	[ $# -gt 0 ] || set -- all-goals
	needed "$@"
	;;
*)
	echo "usage: deps.sh ensure|missing|list [GOAL...]" >&2
	exit 2
	;;
esac
