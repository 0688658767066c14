#!/bin/sh
# SPDX-License-Identifier: MIT
# fresh-check.sh DIR: what a new user meets on a fresh Debian 12 machine (make fresh-check).
#
# Builds a minimal Debian 12 root file system in DIR/root (debootstrap --variant=minbase, from
# the Debian mirror this machine's apt uses), copies the tree into it as a clean clone has it
# (`git archive HEAD`: what is committed, not the work tree's edits), and there, as root, runs the README's
# set-up line and its two commands exactly as the README writes them:
#     apt-get update && apt-get install -y make
#     make demo
#     make check
# Both commands must succeed, and make check must end "N passed, 0 failed" with nothing
# skipped: on a fresh machine every suite runs. The root file system must not have ipxe-qemu
# (the package whose ROM QEMU's default network card needs), so a QEMU line without
# `-nic none` fails here as it would on a user's machine.
#
# Downloads are cached under DIR: debootstrap's in DIR/debootstrap, apt's in DIR/archives
# (seeded with hard links from this machine's own apt cache, where it has one), so a rerun
# fetches little; the root file system itself is made anew each run. The QEMU build's compiler
# cache, DIR/../ccache (FRESH_CCACHE), is shared with the new system's build/ccache. Its mounts
# (/proc, /sys, /dev, the caches) exist only in a private mount namespace (unshare), so none
# outlives the check, however it ends. Needs root and debootstrap. Logs: DIR/logs/. Ends with
# "N passed, M failed".
set -u
if [ $# -ne 1 ] || [ -z "$1" ] || [ "$1" = / ]; then
	echo "usage: fresh-check.sh DIR (not /)" >&2
	exit 2
fi
suite=bookworm
src=$(pwd)
mkdir -p "$1" || exit 1
dir=$(cd "$1" && pwd)
root=$dir/root
logs=$dir/logs
FRESH_TIMEOUT=${FRESH_TIMEOUT:-2400}

# The README's lines, run as written (each is checked to be in README.md first).
setup_line='apt-get update && apt-get install -y make'
demo_line='make demo'
check_line='make check'

say() { echo "fresh-check: $*"; }
die() {
	say "$*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

if [ "$(id -u)" -ne 0 ]; then
	die "run as root: debootstrap and chroot need it"
fi
command -v debootstrap >/dev/null 2>&1 || die "no debootstrap (apt-get install debootstrap)"

# Everything below runs in a mount namespace of its own.
if [ -z "${FRESH_CHECK_NS:-}" ]; then
	FRESH_CHECK_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi

for line in "$setup_line" "$demo_line" "$check_line"; do
	grep -qF "$line" "$src/README.md" || die "README.md no longer says '$line': update this script"
done

# sources_uri SUITE: the first URI this machine's apt takes SUITE from (deb822 .sources
# stanzas first, then one-line sources.list entries).
sources_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$1" 'BEGIN { RS = "" } {
			n = split($0, l, "\n"); uri = ""; ok = 0; deb = 0; on = 1
			for (i = 1; i <= n; i++) {
				k = tolower(l[i])
				if (k ~ /^uris:/) { split(l[i], w, /[ \t]+/); uri = w[2] }
				if (k ~ /^types:/ && k ~ /[ \t]deb([ \t]|$)/) deb = 1
				if (k ~ /^enabled:[ \t]*no/) on = 0
				if (k ~ /^suites:/) {
					m = split(l[i], w, /[ \t]+/)
					for (j = 2; j <= m; j++) if (w[j] == suite) ok = 1
				}
			}
			if (ok && deb && on && uri != "") { print uri; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed 's/\[[^]]*\]//' "$f" | awk -v suite="$1" '$1 == "deb" && $3 == suite { print $2; exit }'
	done
}
mirror=${FRESH_MIRROR:-$(sources_uri "$suite" | head -n1)}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=$(sources_uri "$suite-security" | head -n1)

mkdir -p "$logs" "$dir/debootstrap" "$dir/archives/partial" || die "cannot create $dir"
# Only a root file system this script made is removed (its marker says so).
if [ -e "$root" ] && [ ! -e "$root/.perfvisor-fresh-check" ]; then
	die "$root exists and is not a root file system of fresh-check's: not removing it"
fi
rm -rf --one-file-system "$root" || die "cannot remove the last run's $root"
if [ -d /var/cache/apt/archives ]; then
	find /var/cache/apt/archives -maxdepth 1 -name '*.deb' -exec ln -f {} "$dir/archives/" \; \
		2>/dev/null
fi
passed=0
failed=0

start=$(date +%s)
say "debootstrap --variant=minbase $suite from $mirror (log: $logs/debootstrap.log)"
if ! timeout 1200 debootstrap --variant=minbase --cache-dir="$dir/debootstrap" "$suite" \
	"$root" "$mirror" >"$logs/debootstrap.log" 2>&1; then
	tail -n 20 "$logs/debootstrap.log" | sed 's/^/    /'
	die "debootstrap failed"
fi
: >"$root/.perfvisor-fresh-check"
say "root file system ready in $(($(date +%s) - start)) s"

# The machine's network settings, and apt's sources as a Debian 12 install has them.
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
{
	echo "deb $mirror $suite main"
	echo "deb $mirror $suite-updates main"
	[ -z "$security" ] || echo "deb $security $suite-security main"
} >"$root/etc/apt/sources.list"
if ! { mount -t proc proc "$root/proc" && mount -t sysfs sysfs "$root/sys" &&
	mount --rbind /dev "$root/dev" &&
	mount --bind "$dir/archives" "$root/var/cache/apt/archives"; }; then
	die "cannot mount /proc, /sys, /dev or the package cache in $root"
fi

mkdir -p "$root/root/perfvisor"
if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	git -C "$src" archive HEAD | tar -xf - -C "$root/root/perfvisor" || die "cannot copy the tree"
else
	(cd "$src" && tar --exclude=./build --exclude=./.git -cf - .) |
		tar -xf - -C "$root/root/perfvisor" || die "cannot copy the tree"
fi
# The compiler cache of the QEMU of our own (integrations/qemu/build.sh) is this machine's:
# a hit still needs every header and library in the new system, so the build there proves
# its dependencies all the same, in a fraction of the time. Nothing built is handed over.
ccache_dir=${FRESH_CCACHE:-$(dirname "$dir")/ccache}
mkdir -p "$ccache_dir" "$root/root/perfvisor/build/ccache" &&
	mount --bind "$ccache_dir" "$root/root/perfvisor/build/ccache" ||
	die "cannot mount the compiler cache $ccache_dir in $root"

# in_root LOG LINE: LINE as root in the new system, in a copy of the tree, with nothing of this
# machine's environment. HW_GUEST_SUITE=off: make hw-check (in make check) leaves out the guest
# suite on the QEMU of our own, the main CI pass's (make check runs it on Debian's QEMU here).
in_root() {
	env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 TERM=dumb HW_GUEST_SUITE=off timeout "$FRESH_TIMEOUT" \
		chroot "$root" /bin/sh -c "cd /root/perfvisor && $2" </dev/null >"$1" 2>&1
}

# run NAME LINE: one of the README's lines, timed, logged in $log (DIR/logs/NAME.log); its
# failures and the tail of its log if it failed.
run() {
	log=$logs/$1.log
	t=$(date +%s)
	in_root "$log" "$2"
	rc=$?
	say "$2: exit status $rc in $(($(date +%s) - t)) s (log: $log)"
	if [ "$rc" -ne 0 ]; then
		grep -E '^(FAIL|    FAIL|skipped:|perfvisor:)' "$log" | head -n 40 | sed 's/^/    /'
		tail -n 30 "$log" | sed 's/^/    /'
	fi
	return "$rc"
}

# summary: the "N passed, M failed[, K skipped]" line of $log.
summary() {
	grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1
}

run setup "$setup_line" || die "the set-up line failed"
# QEMU looks for its default network card's ROM here; ipxe-qemu is what makes it resolve.
if [ -e "$root/usr/share/qemu/efi-virtio.rom" ]; then
	die "efi-virtio.rom (ipxe-qemu) is in the root file system, so it cannot catch a missing -nic none"
fi

if run demo "$demo_line"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

if ! run check "$check_line"; then
	failed=$((failed + 1))
elif ! summary | grep -Eq '^[0-9]+ passed, 0 failed$'; then
	say "$check_line ended '$(summary)', not 'N passed, 0 failed' with nothing skipped"
	grep '^skipped: ' "$log" | sed 's/^/    /'
	failed=$((failed + 1))
else
	say "$check_line: $(summary)"
	passed=$((passed + 1))
fi

say "$(in_root /dev/stdout 'dpkg-query -W | wc -l') packages installed in the new system;" \
	"done in $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
