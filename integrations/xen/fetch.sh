#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch.sh DIR: puts Debian bookworm's Xen source, with Debian's patches applied, in DIR/src and
# prints DIR/src (scripts/fetch-source.sh: the version pinned below while the archive has it,
# else bookworm's current one; DIR/src/.perfvisor-note says which). Nothing of Xen is
# committed. XEN_VERSION overrides the pin. Exit status and messages as fetch-source.sh's.
set -u
dir=${1:-build/xen}
XEN_VERSION=${XEN_VERSION:-4.17.5+72-g01140da4e8-1}
exec sh "$(dirname "$0")/../../scripts/fetch-source.sh" "$dir" xen bookworm "$XEN_VERSION" xen/Makefile
