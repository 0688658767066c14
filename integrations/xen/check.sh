#!/bin/sh
# SPDX-License-Identifier: MIT
# make xen-check: perfvisor as the vPMU of Xen on Arm, end to end.
#   check.sh check LIB GUEST_DIR   the scenarios below
#   check.sh bench LIB GUEST_DIR   "bench: xen.*" lines (make bench)
#     0. apply.sh's own test (test-apply.sh);
#     1. the pinned Xen source, or bookworm's current one once the pin has left the archive
#        (fetch.sh: once, into build/xen/src; a "tested:" line says which; no network: the
#        suite is skipped, with the reason), then the fallback itself on the real archive
#        (a pin that is not there);
#     2. the integration applied to a copy of it (apply.sh) and Xen built for arm64 with the
#        bridge archive LIB linked in;
#     3. each scenario: a device tree made from QEMU's own with dom0less domains under /chosen
#        (each a guest program of GUEST_DIR, with its perfvisor properties), Xen booted under
#        QEMU 7.2 (-icount shift=0 -nic none, bounded by timeout), every "ok"/"not ok" line
#        of every domain one test; each domain must print "done:" and the machine must power
#        itself off after the last one (the integration does it); the Debian kernel as a
#        domU too, when it can be fetched (else skipped, with the reason).
# Last line "N passed, M failed" (", 1 skipped" when Xen or the Linux kernel could not be had:
# a line before says why). Logs and device trees in build/xen/logs.
set -u
mode=$1
lib=$2
gdir=$3
dir=build/xen
logdir=$dir/logs
QEMU_TIMEOUT=${QEMU_TIMEOUT:-120}
CROSS=${HYP_CROSS:-aarch64-linux-gnu-}
mkdir -p "$logdir"
# shellcheck source=tests/guest/suite.sh
. tests/guest/suite.sh
finish() {
	summary
	exit $?
}

# apply.sh's own rules first, on a small tree of ours: they need no Xen.
[ "$mode" = bench ] || {
	sh integrations/xen/test-apply.sh "$dir/test-apply" >"$logdir/apply.log" 2>&1
	tally apply "$logdir/apply.log" ''
}
if ! src=$(sh integrations/xen/fetch.sh "$dir" 2>"$logdir/fetch.err"); then
	echo "xen-check: skipped: $(cat "$logdir/fetch.err")"
	[ "$mode" != bench ] || echo "bench: xen.*: skipped ($(cat "$logdir/fetch.err"))"
	skipped=1
	finish
fi
# The fallback on the real archive, which the pin will leave one day: a version of a small
# source package that never existed gives the suite's current one, said in its note.
[ "$mode" = bench ] || {
	rm -rf "$dir/fallback"
	sh scripts/fetch-source.sh "$dir/fallback" hello bookworm 0~never-1 src/hello.c \
		>"$logdir/fallback.out" 2>&1 &&
		grep -q "^[0-9][^,]*, bookworm's current version: the pin 0~never-1 is not in the archive\$" \
			"$dir/fallback/src/.perfvisor-note"
	result "fetch_fallback: a pin bookworm does not have gives its current version, said"
	rm -rf "$dir/fallback"
}
# Which Xen this run tests: the pin, or the suite's current one once the pin has left the
# archive (fetch-source.sh); tests/run.sh puts this line beside the suite's result.
echo "tested: Xen $(cat "$src/.perfvisor-note")"
work=$(sh integrations/xen/apply.sh "$src" "$dir/work") || {
	fail "the integration does not apply to Xen $(cat "$src/.perfvisor-note")"
	finish
}
# Xen's own build, with the bridge archive in its link (xen/Makefile: PERFVISOR_LIB).
xmake() {
	MAKEFLAGS= make -C "$work/xen" -j"${XEN_JOBS:-2}" XEN_TARGET_ARCH=arm64 \
		CROSS_COMPILE="$CROSS" PERFVISOR_LIB="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")" "$@"
}
if [ ! -f "$work/xen/.config" ]; then
	xmake defconfig >"$logdir/build.log" 2>&1 || { fail "Xen defconfig (log: $logdir/build.log)"; finish; }
fi
start=$(date +%s)
if ! xmake >>"$logdir/build.log" 2>&1; then
	fail "Xen with perfvisor does not build (log: $logdir/build.log)"
	grep -E 'error|undefined' "$logdir/build.log" | head -n 10 | sed 's/^/    /'
	finish
fi
image=$work/xen/xen
echo "xen-check: Xen $(cat "$src/.perfvisor-version") with perfvisor built in $(($(date +%s) - start))s"

# QEMU's own device tree for N CPUs, once: the base of every scenario's.
base_dts() {
	b=$dir/virt-smp$1.dts
	if [ ! -s "$b" ]; then
		QEMU_SMP=$1 timeout 30 sh scripts/qemu.sh -machine dumpdtb="$b.dtb" >/dev/null 2>&1
		dtc -q -I dtb -O dts -o "$b" "$b.dtb" || return 1
	fi
	echo "$b"
}
# The machine of the scenarios that follow: CPUs, and QEMU's instruction counting (exact
# counts need one CPU and -icount; two CPUs run without: QEMU cannot count them exactly).
SMP=1
ICOUNT="-icount shift=0,sleep=off"

# make_dtb OUT DOMAIN...: QEMU's tree with Xen's boot arguments and one dom0less domain per
# argument NAME:GUEST:COUNTERS[:BOOTARGS[:FILTER]] (FILTER: the cells of perfvisor,pmu-filter,
# <deny base count> triples), its image loaded at 0x60000000 + k * 16 MiB.
make_dtb() {
	out=$1
	shift
	k=0
	nodes=""
	for d in "$@"; do
		IFS=: read -r dname dguest dcounters dargs dfilter <<-EOF
		$d
		EOF
		addr=$(printf '0x%x' "$(image_addr "$k" "$dguest")")
		size=$(printf '0x%x' "$(wc -c <"$(image_file "$dguest")")")
		mem=0x10000 # KiB: 64 MiB
		ramdisk=""
		if [ "$dguest" = linux ]; then
			mem=0x20000
			ramdisk="			module@54000000 {
				compatible = \"multiboot,ramdisk\", \"multiboot,module\";
				reg = <0x00 0x54000000 0x00 $(printf '0x%x' "$(wc -c <"$linux_initrd")")>;
			};
"
		fi
		nodes="$nodes		$dname {
			compatible = \"xen,domain\";
			#address-cells = <0x02>;
			#size-cells = <0x02>;
			memory = <0x00 $mem>;
			cpus = <0x01>;
			vpl011;
			perfvisor,pmu-counters = <$dcounters>;
${dfilter:+			perfvisor,pmu-filter = <$dfilter>;
}			module@${addr#0x} {
				compatible = \"multiboot,kernel\", \"multiboot,module\";
				reg = <0x00 $addr 0x00 $size>;
${dargs:+				bootargs = \"$dargs\";
}			};
$ramdisk		};
"
		k=$((k + 1))
	done
	base=$(base_dts "$SMP") || return 1
	NODES=$nodes awk '
		$0 == "\tchosen {" { print; inchosen = 1
			print "\t\t#address-cells = <0x02>;"
			print "\t\t#size-cells = <0x02>;"
			print "\t\txen,xen-bootargs = \"console=dtuart dtuart=/pl011@9000000 timer_slop=0 perfvisor_host_counters=1 perfvisor_poweroff=1\";"
			next }
		inchosen && $0 == "\t};" { printf "%s", ENVIRON["NODES"]; inchosen = 0 }
		{ print }
	' "$base" >"$out.dts"
	dtc -q -I dts -O dtb -o "$out" "$out.dts"
}

# The image of a domain's guest ("linux": the Debian kernel, its initramfs a module of its
# own) and where it is loaded: the guest programs at 0x60000000 + k * 16 MiB, Linux below.
image_file() {
	if [ "$1" = linux ]; then echo "$linux_image"; else echo "$gdir/$1.bin"; fi
}
image_addr() {
	if [ "$2" = linux ]; then echo $((0x50000000)); else echo $((0x60000000 + $1 * 0x1000000)); fi
}

# loaders DOMAIN...: the -device loader options of make_dtb's images.
loaders() {
	k=0
	for d in "$@"; do
		g=$(echo "$d" | cut -d: -f2)
		printf ' -device loader,file=%s,addr=0x%x,force-raw=on' "$(image_file "$g")" \
			"$(image_addr "$k" "$g")"
		[ "$g" != linux ] ||
			printf ' -device loader,file=%s,addr=0x54000000,force-raw=on' "$linux_initrd"
		k=$((k + 1))
	done
}

# scenario NAME DOMAIN...: every "ok"/"not ok" line of every domain is one test; each domain
# must reach "done:", and QEMU must exit by itself after the power-off.
scenario() {
	name=$1
	shift
	log=$logdir/$name.log
	make_dtb "$logdir/$name.dtb" "$@" || { fail "$name: device tree"; return; }
	: >"$log.raw"
	# shellcheck disable=SC2046,SC2086 # the loader and icount options are words
	{ [ -z "${TYPE_AFTER:-}" ] || type_after "$log.raw" "$TYPE_AFTER" "$TYPED"; } |
		QEMU_SMP=$SMP timeout "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio $ICOUNT \
		-kernel "$image" -dtb "$logdir/$name.dtb" $(loaders "$@") >"$log.raw" 2>&1
	rc=$?
	tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw" # the console ends lines with CR LF
	tally "$name" "$log" '(XEN) DOM[0-9]*: '
	if [ "$rc" -eq 124 ]; then
		fail "$name: QEMU timed out after ${QEMU_TIMEOUT}s"
	elif ! grep -q '^(XEN) perfvisor: the last domain has shut down' "$log"; then
		fail "$name: Xen did not power the machine off (exit status $rc)"
		grep -E 'Panic|FATAL|BUG' "$log" | head -n 5 | sed 's/^/    /'
	fi
	k=1
	for d in "$@"; do
		# Linux ends with its own power-off (the run's end above says it came).
		[ "$(echo "$d" | cut -d: -f2)" = linux ] ||
			grep -q "^(XEN) DOM$k: done: " "$log" || fail "$name: domain $k ($d) did not finish"
		k=$((k + 1))
	done
}

# counts SCENARIO DOMID: the "count:" lines a domain printed, without Xen's prefix.
counts() {
	grep "^(XEN) DOM$2: count: " "$logdir/$1.log" | sed "s/^(XEN) DOM$2: //"
}

if [ "$mode" = bench ]; then
	# EL2 instructions per exit, from the guest's clock: CNTVCT_EL0 under -icount shift=0
	# counts every level's instructions (1 per ns), the guest's counter 2 its own
	# (tests/guest/bench.c, bench.clock=1).
	# The figures of the QEMU they come from (bench/gate.sh).
	echo "bench: baseline $(sh bench/gate.sh key "${QEMU:-qemu-system-aarch64}")"
	scenario bench bench:bench:0:bench.rounds=2000\ bench.clock=1
	line=$(grep '^(XEN) DOM1: bench: clock ' "$logdir/bench.log")
	echo "$line" | awk '{
		hz = $5; ns = 1e9 / hz
		floor = ($10 * ns - $12) / $8; pmu = ($17 * ns - $19) / $15
		printf "bench: xen.trap_floor: %.1f el2-instructions/trap\n", floor
		printf "bench: xen.trap_pmu: %.1f el2-instructions/trap\n", pmu
	}'
	[ -n "$line" ] || echo "bench: xen.*: n/a (the bench domain printed no clock line: $logdir/bench.log)"
	exit 0
fi

scenario hello hello:hello:0
scenario pmu_regs regs:pmu_regs:5
scenario pmu_regs_n3 regs3:pmu_regs:3
scenario pmu_count count:pmu_count:0
scenario features features:features:0
# The event filter from the domain's node (KVM's semantics): a denied event, an allow-only
# filter, a denied CPU_CYCLES; the reference hypervisor's suite runs the same three.
scenario pmu_filter_deny "filter:pmu_filter:0:filter.denied=8 filter.allowed=0x11:1 0x8 1"
scenario pmu_filter_only "filter:pmu_filter:0:filter.only=0x11 filter.denied=8 filter.allowed=0x11:0 0x11 1"
scenario pmu_filter_cycles "filter:pmu_filter:0:filter.denied=0x11 filter.allowed=8:1 0x11 1"
# A malformed domain node stops the boot, naming the domain and the property: Xen panics, and
# resets (-no-reboot: QEMU exits there).
bad=bad:hello:5\ 6
# shellcheck disable=SC2046,SC2086 # the loader and icount options are words
make_dtb "$logdir/bad_config.dtb" "$bad" &&
	timeout "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio $ICOUNT -no-reboot -kernel "$image" \
		-dtb "$logdir/bad_config.dtb" $(loaders "$bad") 2>&1 | tr -d '\r' >"$logdir/bad_config.log"
grep -q '^(XEN) perfvisor: d1: perfvisor,pmu-counters: 8 bytes, not one cell$' "$logdir/bad_config.log" &&
	grep -q 'perfvisor: bad configuration of domain bad$' "$logdir/bad_config.log"
result "bad_config: perfvisor,pmu-counters = <5 6> stops the boot, naming domain and property"
scenario exact_alone exact:pmu_exact:0
scenario exact_busy exact:pmu_exact:0 busy1:busy:0 busy2:busy:0 busy3:busy:0
a=$(counts exact_alone 1)
[ -n "$a" ] && [ "$a" = "$(counts exact_busy 1)" ]
result "exact: alone and beside three busy domains, identical counts ($(echo "$a" | wc -l) lines)"
# The busy domains were still running when exact ended: it was time-sliced with them.
first=$(grep -n '^(XEN) DOM1: done: ' "$logdir/exact_busy.log" | cut -d: -f1)
last=$(grep -n '^(XEN) DOM[234]: done: ' "$logdir/exact_busy.log" | head -n1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$last" ] && [ "$first" -lt "$last" ]
result "exact_busy: the busy domains ran during all of exact's windows"
# The adversarial guests beside exact: each reports "attacks: N, escapes: M"; the run as a
# whole is an attempt too (Xen powers off, exact's counts do not move).
scenario attack exact:pmu_exact:0 attack_pmu:attack_pmu:0 attack_irq:attack_irq:0
tried=0
escaped=0
for k in 2 3; do
	line=$(sed -n "s/^(XEN) DOM$k: attacks: \([0-9]*\), escapes: \([0-9]*\)\$/\1 \2/p" \
		"$logdir/attack.log")
	if [ -z "$line" ]; then
		echo "attack: domain $k did not report (an escape)"
		line="1 1"
	fi
	tried=$((tried + ${line% *}))
	escaped=$((escaped + ${line#* }))
done
tried=$((tried + 2))
grep -q '^(XEN) perfvisor: the last domain has shut down' "$logdir/attack.log" ||
	{ escaped=$((escaped + 1)); echo "attack: ESCAPE: Xen did not finish the run"; }
[ -n "$a" ] && [ "$a" = "$(counts attack 1)" ] ||
	{ escaped=$((escaped + 1)); echo "attack: ESCAPE: exact's counts moved beside the attackers"; }
echo "attacks: $tried, escapes: $escaped"
[ "$escaped" -eq 0 ]
result "attack: no escape"
# The Debian cloud kernel as a domU, alone and beside a busy domain: its perf counts are
# those the reference hypervisor's Linux scenario checks (tests/guest/run.sh), exact.
linuxdir=build/linux
linux_initrd=$linuxdir/initramfs.cpio
if [ "${LINUX_GUEST:-}" = off ]; then
	echo "linux: skipped: LINUX_GUEST=off"
	skipped=1
elif [ ! -f "$linux_initrd" ]; then
	echo "linux: skipped: $linux_initrd missing (make hyp builds it)"
	skipped=1
elif ! linux_image=$(sh tests/guest/linux/fetch-kernel.sh "$linuxdir" 2>"$logdir/linux-fetch.err"); then
	echo "linux: skipped: no arm64 Linux kernel: $(tail -n1 "$logdir/linux-fetch.err")"
	skipped=1
else
	largs="console=ttyAMA0 earlycon=pl011,0x22000000 panic=-1 printk.devkmsg=on"
	export TYPE_AFTER="pvinit: console-write" TYPED="\001\001\001perfvisor console input"
	scenario linux "linux:linux:0:$largs"
	scenario linux_busy "linux:linux:3:$largs" busy:busy:3:busy.mult=60
	unset TYPE_AFTER TYPED
	for run in linux linux_busy; do
		l=$logdir/$run.log
		n=$(sed -n 's/^(XEN) perfvisor: d1 (linux): vPMU with \([0-9]*\) counters.*/\1/p' "$l")
		linux_perf_checks "$run" "$l" '(XEN) DOM1: ' "$n"
	done
	grep -q '^(XEN) DOM2: done: ' "$logdir/linux_busy.log" && ! grep -q '^(XEN) DOM2: not ok' "$logdir/linux_busy.log"
	result "linux_busy: the busy domain passed beside Linux"
fi

# Two pCPUs, without icount (QEMU cannot count instructions exactly there): four domains of
# one vCPU each, moved between the pCPUs by Xen's scheduler; each checks its counters stay
# its own and monotonic and the host's out of reach; no crash; every domain ends.
SMP=2
ICOUNT=""
scenario smp2 m1:migrate:0 m2:migrate:3 m3:migrate:0 m4:migrate:2
moves=$(sed -n 's/^(XEN) perfvisor: d[0-9]*v[0-9]*: .*, migrations \([0-9]*\)$/\1/p' \
	"$logdir/smp2.log" | awk '{ s += $1 } END { print s + 0 }')
[ "$moves" -gt 0 ]
result "smp2: vCPUs moved between the pCPUs ($moves loads on another pCPU)"
finish
