#!/bin/sh
# Checks (or installs, as root) the Debian packages perfvisor builds and tests with.
#   deps.sh check    exit 1 with the exact apt-get line if something required is missing
#   deps.sh install  apt-get install what is missing
#   deps.sh list     every package, required and optional, one a line (.ci/run installs them)
set -eu

# package  : how to tell it is present
required="build-essential:cc libcmocka-dev:/usr/include/cmocka.h pkg-config:pkg-config libxml2-dev:/usr/include/libxml2/libxml/parser.h libvirt-dev:/usr/include/libvirt/libvirt.h"
optional="valgrind:valgrind gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc qemu-system-arm:qemu-system-aarch64 python3-prometheus-client:/usr/lib/python3/dist-packages/prometheus_client jq:jq clang:clang libclang-rt-dev:/usr/share/doc/libclang-rt-dev clang-tidy:clang-tidy cppcheck:cppcheck"

present() {
	case "$1" in
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

missing() {
	out=""
	for entry in $1; do
		pkg=${entry%%:*}
		probe=${entry#*:}
		present "$probe" || out="$out $pkg"
	done
	echo "$out"
}

case "${1:-check}" in
check)
	m=$(missing "$required")
	if [ -n "$m" ]; then
		echo "perfvisor: missing packages:$m" >&2
		echo "install them with:  sudo apt-get install -y$m   (or: sudo make deps)" >&2
		exit 1
	fi
	;;
install)
	m=$(missing "$required $optional")
	if [ -z "$m" ]; then
		echo "deps: everything is installed"
		exit 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "deps: run as root: apt-get install -y$m" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$m
	;;
list)
	for entry in $required $optional; do
		echo "${entry%%:*}"
	done
	;;
*)
	echo "usage: deps.sh check|install|list" >&2
	exit 2
	;;
esac
