#!/bin/sh
# SPDX-License-Identifier: MIT
# meson.sh DIR: the meson QEMU 10 configures with (>= 1.5; Debian 12 has 1.0), from
# bookworm-backports, unpacked under DIR and not installed (scripts/fetch-deb.sh: the version
# pinned below while the archive has it, else the suite's current one). Prints the unpacked
# tree: its usr/bin goes on PATH and its usr/lib/python3/dist-packages on PYTHONPATH.
# MESON_VERSION overrides the pin. Exit status 0, or nonzero with a "fetch: " line on stderr.
set -u
dir=${1:-build/hw-qemu/meson}
MESON_VERSION=${MESON_VERSION:-1.7.0-1~bpo12+1}
x=$(sh "$(dirname "$0")/../../scripts/fetch-deb.sh" "$dir" meson bookworm-backports \
	"$MESON_VERSION" usr/lib/python3/dist-packages/mesonbuild/__init__.py) || exit 1
v=$(cat "$x/.perfvisor-version")
if ! dpkg --compare-versions "$v" ge 1.5; then
	echo "fetch: meson $v from bookworm-backports is older than 1.5, which QEMU 10 needs" >&2
	exit 1
fi
echo "$x"
