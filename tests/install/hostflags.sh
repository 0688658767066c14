#!/bin/sh
# SPDX-License-Identifier: MIT
# The warning flags of the hosts perfvisor's core is built inside, as their own builds set them
# for a file of theirs, so that an integrator who drops the core or the installed headers into
# either tree meets no warning (docs/integration.md says so).
#
#   hostflags.sh flags linux|xen|linux-c++|xen-c++ CC [warnings]
#                                   the set, less what CC does not take (the -W and -std alone)
#   hostflags.sh core CC [MODE]                          every core file, each set, -Werror
#
# Linux: the arm64 kernel 6.1 (Debian 12's, the guest suite's): the top Makefile's
# KBUILD_CFLAGS, its -Wno-* and the arch Makefile's, CONFIG_FRAME_WARN=2048 and
# CONFIG_CC_IMPLICIT_FALLTHROUGH of its .config, and W=1 (scripts/Makefile.extrawarn:
# -Wmissing-prototypes, -Wold-style-definition, ...; a default from 6.8). Plus
# -Wdeclaration-after-statement, which the kernel set up to 6.4 and 6.1.y up to 6.1.81 (Debian
# 6.1.82-1: "kbuild: Drop -Wdeclaration-after-statement").
# Xen: 4.17 (xen-check's): Config.mk, xen/Makefile's hypervisor CFLAGS and xen/arch/arm/arch.mk
# for arm64. Neither set's -nostdinc: the core's three freestanding headers come from the
# compiler here, where an integration gives them from the host's own.
set -eu

linux='-std=gnu11 -O2 -Wall -Wundef -Werror=strict-prototypes -Wno-trigraphs
-fno-strict-aliasing -fno-common -fshort-wchar -fno-PIE -Werror=implicit-function-declaration
-Werror=implicit-int -Werror=return-type -Wno-format-security -Wno-main
-Wno-unused-but-set-variable -Wno-unused-const-variable -Wno-dangling-pointer
-Wframe-larger-than=2048 -Wno-array-bounds -Wvla -Wno-pointer-sign -Wcast-function-type
-Wno-stringop-truncation -Wno-stringop-overflow -Wno-restrict -Wno-maybe-uninitialized
-Wno-alloc-size-larger-than -Wimplicit-fallthrough=5 -fno-strict-overflow -fno-stack-check
-fconserve-stack -Werror=date-time -Werror=incompatible-pointer-types -Werror=designated-init
-Wno-packed-not-aligned -Wdeclaration-after-statement
-Wextra -Wunused -Wno-unused-parameter -Wmissing-declarations -Wmissing-format-attribute
-Wmissing-prototypes -Wold-style-definition -Wmissing-include-dirs -Wunused-but-set-variable
-Wunused-const-variable -Wpacked-not-aligned -Wstringop-truncation
-Wno-missing-field-initializers -Wno-sign-compare -Wno-type-limits -Wno-shift-negative-value'
linux_arm64='-mgeneral-regs-only -Wno-psabi -mabi=lp64 -fno-asynchronous-unwind-tables
-fno-unwind-tables'
xen='-std=gnu99 -O2 -fno-strict-aliasing -Wall -Wstrict-prototypes -Wno-unused-but-set-variable
-Wno-unused-local-typedefs -fomit-frame-pointer -fno-builtin -fno-common -Wredundant-decls
-Wno-pointer-arith -Wdeclaration-after-statement -Wvla -Wnested-externs -fno-pie
-fno-stack-protector -fno-exceptions -fno-asynchronous-unwind-tables'
xen_arm64='-mcpu=generic -mgeneral-regs-only -mno-outline-atomics'

# As the hosts' own cc-option: a flag the compiler refuses (clang's lack of some of GCC's, a
# C-only warning in C++, an arm64 option elsewhere) is left out, not an error.
takes() {
	# shellcheck disable=SC2086 # one flag, or all of them as words
	out=$("$1" -Werror $2 -c -x "$3" /dev/null -o /dev/null 2>&1) || return 1
	[ -z "$out" ]
}

# shellcheck disable=SC2086 # a set is words, one flag each
flags() { # set compiler [warnings]
	set_=$1 cc=$2 lang=c
	case $set_ in
	*-c++) lang=c++ set_=${set_%-c++} ;;
	esac
	case $set_ in
	linux) list="$linux $linux_arm64" ;;
	xen) list="$xen $xen_arm64" ;;
	*) echo "hostflags.sh: no set $set_" >&2; exit 2 ;;
	esac
	if [ "$lang" = c++ ]; then # the C++ file says its own standard
		list=$(printf '%s\n' $list | grep -v '^-std=')
	fi
	if [ "${3:-}" = warnings ]; then # a hosted program: their diagnostics, not their code
		list=$(printf '%s\n' $list | grep -E '^-(W|std=)')
	fi
	if takes "$cc" "$list" "$lang"; then # all taken: one compile, not one per flag
		echo $list
		return
	fi
	kept=
	for f in $list; do
		if takes "$cc" "$f" "$lang"; then kept="$kept $f"; fi
	done
	echo $kept
}

case ${1:-} in
flags)
	flags "$2" "$3" "${4:-}"
	;;
core)
	# The two sets at once, one compiler run each, the objects thrown away; -Werror fails a
	# run on the first warning of any file, which the compiler names. MODE -fsyntax-only
	# stops after the front end (every warning above but the frame size's), for a cheap
	# second compiler.
	cc=$2 mode=${3:--c} top=$(pwd) out=$(mktemp -d)
	srcs=$(ls core/*.c trap/*.c vpmu/*.c vspe/*.c vamu/*.c vmpam/*.c)
	for set_ in linux xen; do
		fl=$(flags "$set_" "$cc")
		mkdir "$out/$set_"
		# shellcheck disable=SC2046,SC2086 # the flags and the sources are words
		(cd "$out/$set_" && "$cc" $fl -Werror -ffreestanding -I"$top/include" \
			-I"$top/${GEN:-build/gen}" "$mode" $(printf "$top/%s " $srcs) ||
			echo "hostflags.sh: the core fails $set_'s flags with $cc" >"$out/$set_.failed") &
	done
	wait
	status=0
	for f in "$out"/*.failed; do
		[ -e "$f" ] && { cat "$f" >&2; status=1; }
	done
	rm -rf "$out"
	echo "core: $(printf '%s\n' "$srcs" | wc -l) files, $cc $mode, Linux's and Xen's flags:" \
		"$([ $status = 0 ] && echo clean || echo failed)"
	exit $status
	;;
*)
	echo "usage: hostflags.sh flags SET CC [warnings] | core CC [MODE]" >&2
	exit 2
	;;
esac
