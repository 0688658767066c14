#!/bin/sh
# SPDX-License-Identifier: MIT
# mkcpio.sh OUT INIT [NAME=FILE...]: writes OUT, an initramfs (cpio "newc", the format the
# kernel unpacks: Documentation/driver-api/early-userspace/buffer-format.rst) holding /dev,
# /proc, INIT as /init and each FILE as /NAME (executable; NAME may be in /bin, which it then
# has, or in any other directory, which is then made before it). Plain POSIX sh: headers are
# ASCII, file data is copied with cat, padding from /dev/zero.
set -eu
out=$1
init=$2
shift 2
tmp=$out.tmp
: >"$tmp"
ino=1

# entry NAME MODE FILE|-: one header, the name (NUL-terminated) and the data, each padded to 4.
entry() {
	name=$1
	mode=$2
	file=$3
	size=0
	[ "$file" = - ] || size=$(wc -c <"$file" | tr -d ' ')
	namesize=$((${#name} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		"$ino" "$mode" 0 0 1 0 "$size" 0 0 0 0 "$namesize" 0 >>"$tmp"
	printf '%s\0' "$name" >>"$tmp"
	pad=$(((4 - (110 + namesize) % 4) % 4))
	head -c "$pad" /dev/zero >>"$tmp"
	if [ "$file" != - ]; then
		cat "$file" >>"$tmp"
		head -c $(((4 - size % 4) % 4)) /dev/zero >>"$tmp"
	fi
	ino=$((ino + 1))
}

entry dev $((0040755)) -
entry proc $((0040555)) -
[ $# -eq 0 ] || entry bin $((0040755)) -
entry init $((0100755)) "$init"
made=" bin "
for extra in "$@"; do
	target=${extra%%=*}
	# Each directory above NAME once, parents first (the kernel makes no missing ones).
	dir=""
	rest=$target
	while [ "${rest#*/}" != "$rest" ]; do
		dir=$dir${rest%%/*}
		rest=${rest#*/}
		case $made in *" $dir "*) ;; *)
			entry "$dir" $((0040755)) -
			made="$made$dir "
			;;
		esac
		dir=$dir/
	done
	entry "$target" $((0100755)) "${extra#*=}"
done
entry TRAILER!!! 0 -
mv "$tmp" "$out"
