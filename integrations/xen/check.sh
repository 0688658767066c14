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
#        domU too, when it can be fetched (else skipped, with the reason);
#     4. the live figures: Xen's console read as it runs by the tool's `perfvisor serve`
#        (records), and through it by a real Prometheus (prometheus), an operator's typing
#        scripted.
# Last line "N passed, M failed" (", 1 skipped" when Xen or the Linux kernel could not be had:
# a line before says why). Logs and device trees in build/xen/logs.
# XEN_ONLY="NAME..." runs only those scenarios (and the checks on their logs), for a developer;
# the tool (`perfvisor serve`, for the live figures) is the one beside LIB's build
# (PERFVISOR_TOOL to name another).
set -u
mode=$1
lib=$2
gdir=$3
dir=build/xen
tool=${PERFVISOR_TOOL:-$(dirname "$(dirname "$lib")")/perfvisor}
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
# want NAME: the scenario NAME runs (every one, unless XEN_ONLY names some).
want() {
	case " ${XEN_ONLY:-$1} " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# apply.sh's own rules first, on a small tree of ours: they need no Xen.
[ "$mode" = bench ] || ! want apply || {
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
[ "$mode" = bench ] || ! want fetch_fallback || {
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
# <deny base count> triples), its image loaded at 0x60000000 + k * 16 MiB; XEN_ARGS: more of
# Xen's command line.
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
	NODES=$nodes XEN_ARGS=${XEN_ARGS:+ $XEN_ARGS} awk '
		$0 == "\tchosen {" { print; inchosen = 1
			print "\t\t#address-cells = <0x02>;"
			print "\t\t#size-cells = <0x02>;"
			print "\t\txen,xen-bootargs = \"console=dtuart dtuart=/pl011@9000000 timer_slop=0 perfvisor_host_counters=1 perfvisor_poweroff=1" ENVIRON["XEN_ARGS"] "\";"
			next }
		inchosen && $0 == "\t};" { printf "%s", ENVIRON["NODES"]; inchosen = 0 }
		{ print }
	' "$base" >"$out.dts"
	dtc -q -I dts -O dtb -o "$out" "$out.dts"
}

# The image of a domain's guest ("linux": the Debian kernel, its initramfs a module of its
# own; a program of the guest suite's, or of this suite's own, integrations/xen/guests/) and
# where it is loaded: the guest programs at 0x60000000 + k * 16 MiB, Linux below.
image_file() {
	if [ "$1" = linux ]; then
		echo "$linux_image"
	elif [ -f "$gdir/$1.bin" ]; then
		echo "$gdir/$1.bin"
	else
		echo "$dir/guests/$1.bin"
	fi
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
	want "$name" || return 0
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
if want bad_config; then
	# shellcheck disable=SC2046,SC2086 # the loader and icount options are words
	make_dtb "$logdir/bad_config.dtb" "$bad" &&
		timeout "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio $ICOUNT -no-reboot -kernel "$image" \
			-dtb "$logdir/bad_config.dtb" $(loaders "$bad") 2>&1 | tr -d '\r' >"$logdir/bad_config.log"
	grep -q '^(XEN) perfvisor: d1: perfvisor,pmu-counters: 8 bytes, not one cell$' "$logdir/bad_config.log" &&
		grep -q 'perfvisor: bad configuration of domain bad$' "$logdir/bad_config.log"
	result "bad_config: perfvisor,pmu-counters = <5 6> stops the boot, naming domain and property"
fi
scenario exact_alone exact:pmu_exact:0
scenario exact_busy exact:pmu_exact:0 busy1:busy:0 busy2:busy:0 busy3:busy:0
a=$(counts exact_alone 1 2>/dev/null)
if want exact_alone && want exact_busy; then
	[ -n "$a" ] && [ "$a" = "$(counts exact_busy 1)" ]
	result "exact: alone and beside three busy domains, identical counts ($(echo "$a" | wc -l) lines)"
	# The busy domains were still running when exact ended: it was time-sliced with them.
	first=$(grep -n '^(XEN) DOM1: done: ' "$logdir/exact_busy.log" | cut -d: -f1)
	last=$(grep -n '^(XEN) DOM[234]: done: ' "$logdir/exact_busy.log" | head -n1 | cut -d: -f1)
	[ -n "$first" ] && [ -n "$last" ] && [ "$first" -lt "$last" ]
	result "exact_busy: the busy domains ran during all of exact's windows"
fi
# The adversarial guests beside exact: each reports "attacks: N, escapes: M"; the run as a
# whole is an attempt too (Xen powers off, exact's counts do not move).
scenario attack exact:pmu_exact:0 attack_pmu:attack_pmu:0 attack_irq:attack_irq:0
if want attack; then
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
	# (exact's own counts, from exact_alone, when it ran too)
	! want exact_alone || { [ -n "$a" ] && [ "$a" = "$(counts attack 1)" ]; } ||
		{ escaped=$((escaped + 1)); echo "attack: ESCAPE: exact's counts moved beside the attackers"; }
	echo "attacks: $tried, escapes: $escaped"
	[ "$escaped" -eq 0 ]
	result "attack: no escape"
fi
# ---- Live figures records (docs/xen.md, "Live figures") ----
# wait_until SECONDS COMMAND...: until COMMAND succeeds, ten tries a second; 1 after SECONDS.
wait_until() {
	n=$(($1 * 10))
	shift
	until "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
# await SECONDS COMMAND...: wait_until, given up at once when the run whose console is $raw
# has ended (the scenarios' steps, which run beside it, set raw).
await() {
	k=$(($1 * 10))
	shift
	until "$@" >/dev/null 2>&1; do
		! grep -q -e 'the last domain has shut down' -e 'Panic on CPU' "$raw" || return 1
		k=$((k - 1))
		[ "$k" -gt 0 ] || return 1
		sleep 0.1
	done
}
# recs LOG VM [ERE]: the records of VM in LOG (after the first line matching ERE, if given).
recs() {
	tr -d '\r' <"$1" | awk -v vm="$2" -v re="${3:-}" '
		re != "" && !seen { if ($0 ~ re) seen = 1; next }
		index($0, "PVR1 ") == 1 && index($0, " vm=" vm " ") { print }'
}
# at_least N LOG VM [ERE]: LOG holds N records of VM (after ERE).
at_least() {
	[ "$(recs "$2" "$3" "${4:-}" | wc -l)" -ge "$1" ]
}
# metric FILE NAME LABEL...: the value of the sample of family NAME with every LABEL
# (key="value"), from a /metrics page.
metric() {
	page=$1
	family=$2
	shift 2
	awk -v fam="$family" -v want="$*" '
		index($0, fam "{") == 1 {
			split(want, w, " "); ok = 1
			for (i in w) if (!index($0, w[i])) ok = 0
			if (ok) { print $NF; exit }
		}' "$page"
}
# scrape OUT: the /metrics page of the perfvisor serve whose stderr is $serr, now, into OUT.
scrape() {
	port=$(sed -n 's|^perfvisor serve: http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$serr")
	[ -n "$port" ] && /usr/bin/python3 tests/guest/promq.py get "http://127.0.0.1:$port/metrics" \
		>"$1" 2>/dev/null
}
# serve_file LOG OUT: perfvisor serve reads the console LOG of a finished run; its /metrics
# page, once it has read all of it, into OUT.
serve_file() {
	serr=$2.serve.err
	"$tool" serve --input "$1" --listen 127.0.0.1:0 >/dev/null 2>"$serr" &
	sp=$!
	wait_until 30 grep -q '^perfvisor serve: end of ' "$serr" && scrape "$2"
	r=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	return $r
}
# records_read LOG PAGE MIN: LOG holds at least MIN records, numbered from 0 in the console's
# order, their time never going back; serve read every one (its PAGE says so), none skipped.
records_read() {
	all=$(grep '^PVR1 ' "$1")
	n=$(echo "$all" | grep -c '^PVR1 ')
	ok=
	skip=
	echo "$all" | awk -v min="$3" '{
		for (i = 2; i <= 3; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["seq"] != NR - 1 || v["t_ns"] + 0 < t) bad = 1
		t = v["t_ns"] + 0
	} END { exit bad || NR < min }' || return 1
	ok=$(metric "$2" perfvisor_records_read_total 'status="ok"')
	skip=0
	for st in version crc malformed too-long; do
		skip=$((skip + $(metric "$2" perfvisor_records_read_total "status=\"$st\"")))
	done
	[ "${ok:-0}" = "$n" ] && [ "$skip" = 0 ]
}
# settled RAWLOG OUT: serve's page into OUT once it has read steady's last record in RAWLOG
# (its counter 0 as that record says: serve reads the console a moment after the log has it).
settled() {
	last=$(recs "$1" steady | tail -n1 | tr ' ' '\n' | sed -n 's/^pmc\.0=0x[0-9a-f]*://p')
	scrape "$2" && [ -n "$last" ] &&
		[ "$(metric "$2" perfvisor_vcpu_pmu_events 'domain="steady"' 'vcpu="0"' 'counter="0"')" = "$last" ]
}
# records_steps RAWLOG: what the operator types during the records scenario, each step once
# the console shows what it waits for (steps.log says how far it got). Xen has the console's
# input first (conswitch=ax); three Ctrl-A give it to the next domain, DOM0 (none) first.
records_steps() {
	raw=$1
	st=$logdir/records.steps.log
	: >"$st"
	step() {
		echo "$1" >>"$st"
	}
	# steady counts (DOM2): its figures, live, twice.
	if ! { await 60 at_least 3 "$raw" steady && await 5 settled "$raw" "$logdir/records.m1" &&
		await 30 at_least 6 "$raw" steady && await 5 settled "$raw" "$logdir/records.m2"; }; then
		step "steady: no records"
		return
	fi
	step counting
	# Xen's debug key, while the domains run.
	printf f
	if ! await 30 grep -q "^(XEN) perfvisor: d4 (forge)" "$raw"; then
		step "debug key: no dump"
		return
	fi
	step "debug key"
	# forge_input (DOM1) gets the input, and forges.
	printf '\001\001\001\001\001\001'
	if ! { await 30 grep -q "Serial input to DOM1" "$raw" && printf x &&
		await 60 grep -q "^(XEN) done: " "$raw"; }; then
		step "forge_input: not done"
		return
	fi
	step forged
	# steady (DOM2) gets the input: stops counting; its figures, live; then it ends.
	printf '\001\001\001'
	if ! { await 30 grep -q "Serial input to DOM2" "$raw" && printf s &&
		await 60 at_least 2 "$raw" steady "count: steady inst" &&
		await 5 settled "$raw" "$logdir/records.m3"; }; then
		step "steady: no records after it stopped"
		return
	fi
	step stopped
	printf e
	step ended
}
# records_checks LOG: the records scenario's figures, from its console LOG and serve's pages
# (records.m1, .m2 while steady counted, .m3 once it stopped, .m4 after the run).
records_checks() {
	l=$1
	m=$logdir/records
	records_read "$l" "$m.m4" 30
	result "records: $n records in the console's order, all read by perfvisor serve as they came (ok ${ok:-none}, skipped $skip)"
	# While steady counted: its INST_RETIRED counter grew from one live scrape to the next.
	c1=$(metric "$m.m1" perfvisor_vcpu_pmu_events 'domain="steady"' 'vcpu="0"' 'counter="0"')
	c2=$(metric "$m.m2" perfvisor_vcpu_pmu_events 'domain="steady"' 'vcpu="0"' 'counter="0"')
	[ "${c1:-0}" -gt 0 ] && [ "${c2:-0}" -gt "$c1" ]
	result "records: steady counting, serve's figures grew as it ran (counter 0: ${c1:-none}, then ${c2:-none})"
	# Once it stopped: serve's figures are what the guest printed.
	got=$(sed -n 's/^(XEN) count: steady inst \([0-9]*\) cycles \([0-9]*\) .*/\1 \2/p' "$l")
	i3=$(metric "$m.m3" perfvisor_vcpu_pmu_events 'domain="steady"' 'vcpu="0"' 'counter="0"' \
		'event="0x0008"')
	y3=$(metric "$m.m3" perfvisor_vcpu_pmu_events 'domain="steady"' 'vcpu="0"' 'counter="cycle"')
	[ -n "$got" ] && [ "$got" = "$i3 $y3" ]
	result "records: steady stopped, serve's figures are what it printed (inst cycles: ${got:-none}; served: $i3 $y3)"
	# victim (hello) made one trapped PMU access: the forged 999999 never reached serve.
	t=$(metric "$m.m4" perfvisor_vcpu_traps_total 'domain="victim"' 'group="pmu"')
	[ "$t" = 1 ] && [ "$(metric "$m.m4" perfvisor_vcpu_traps_total 'domain="victim"' 'group="id"')" = 0 ]
	result "records: victim's trapped PMU accesses, served: ${t:-none} (hello's one PMCR_EL0 read)"
	for vm in forge_input steady victim forge; do
		[ "$(metric "$m.m4" perfvisor_vcpu_state "domain=\"$vm\"" 'state="ended"')" = 1 ] || break
	done
	result "records: each domain's last record says it ended (the last: $vm)"
	grep -q '^PVR1 .* vm=forge_input vcpu=0 state=waiting ' "$l" &&
		grep -q '^PVR1 .* vm=steady vcpu=0 state=running ' "$l"
	result "records: states while the domains ran (steady running, forge_input waiting in WFI)"
	# The forgers: every forged line shown as a domain's text, none a record; forge_input's
	# line left open across a record ended by the record, its next line Xen's again.
	# (11: forge's six but the one after its NUL, which Xen's "%s" cuts; forge_input's six)
	f=$(grep -c 'trap\.pmu=999999' "$l")
	! grep -q '^PVR1 .*trap\.pmu=999999' "$l" && [ "$f" = 11 ]
	result "records: $f forged records on the console, each a domain's text, none a record"
	awk '
		$0 == "(XEN) waiting: " { open = NR }
		open && NR == open + 1 && index($0, "PVR1 ") == 1 { closed = 1 }
		closed && index($0, "999999") { ok = index($0, "(XEN) PVR1 ") == 1; exit }
		END { exit !ok }' "$l"
	result "records: forge_input's open line ended by a record, its next characters a line of Xen's"
	grep -q '^(d1) PVR1 .*trap\.pmu=999999' "$l"
	result "records: the console hypercall's forged line shown with its domain's prefix"
	# Xen's debug key: a line per domain, the same figures.
	d=$(sed -n "/^(XEN) 'f' pressed -> perfvisor's figures per domain/,\$p" "$l" |
		grep -c '^(XEN) perfvisor: d[1-4] ([a-z_]*): vcpus 1 (')
	grep -q '^(XEN) perfvisor: d3 (victim): vcpus 1 .* trap\.pmu 1 trap\.spe 0 trap\.amu 0 trap\.mpam 0 trap\.id 0, exit\.mmio [1-9]' "$l" &&
		grep -q '^(XEN) perfvisor: d2 (steady): vcpus 1 (running 1 ' "$l" && [ "$d" = 4 ]
	result "records: debug key 'f': a line per domain ($d), victim's one PMU trap, steady running"
}
# ---- A real Prometheus scraping Xen's domains (docs/xen.md, "Live figures") ----
# prom_steps RAWLOG: what the operator types during the prometheus scenario, and what it asks
# Prometheus meanwhile (prometheus.results: an "ok TITLE" or "not ok TITLE" line per check;
# prometheus.pid: Prometheus', for the suite to stop).
prom_steps() {
	raw=$1
	pd=$logdir/prometheus
	res=$logdir/prometheus.results
	: >"$res"
	check() {
		if [ "$1" = 0 ]; then echo "ok $2" >>"$res"; else echo "not ok $2" >>"$res"; fi
	}
	q() { /usr/bin/python3 tests/guest/promq.py query "$prom" "$1" 2>>"$pd/queries.err" | awk '{ print $NF }'; }
	is() { [ "$(q "$1")" = "$2" ]; }
	positive() { v=$(q "$1") && [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'; }
	# Prometheus, once serve listens: every second, serve's page.
	await 60 grep -q '^perfvisor serve: http' "$serr" || {
		check 1 "prometheus: perfvisor serve listens"
		return
	}
	pport=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	prom=http://127.0.0.1:$pport
	sport=$(sed -n 's|^perfvisor serve: http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$serr")
	printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: xen\n    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' \
		"$sport" >"$pd/prometheus.yml"
	prometheus --config.file="$pd/prometheus.yml" --storage.tsdb.path="$pd/data" \
		--web.listen-address="127.0.0.1:$pport" >"$pd/prometheus.log" 2>&1 &
	echo $! >"$logdir/prometheus.pid"
	await 60 /usr/bin/python3 tests/guest/promq.py get "$prom/-/ready"
	check $? "prometheus: Prometheus is ready, scraping perfvisor serve on Xen's console"
	# steady (DOM2) counts: its counter's rate, through PromQL.
	await 60 positive "rate(perfvisor_vcpu_pmu_events{domain=\"steady\",vcpu=\"0\",counter=\"0\",name=\"inst_retired\"}[5s])"
	check $? "prometheus: rate(perfvisor_vcpu_pmu_events{domain=\"steady\",counter=\"0\"}[5s]) > 0 while steady counts"
	# Linux (DOM1) has run perf and waits at its console: its PMU interrupts are those its
	# sampling took, as it printed them; its vCPU waits.
	await 90 grep -q 'pvinit: console-write' "$raw"
	irqs=$(tr -d '\r' <"$raw" | sed -n 's/.*pvinit: sampling-interrupts \([0-9]*\).*/\1/p')
	[ -n "$irqs" ] && await 30 is "perfvisor_vcpu_pmu_interrupts_total{domain=\"linux\",vcpu=\"0\"}" "$irqs"
	check $? "prometheus: Linux's PMU interrupts are the $irqs its perf record took ($(q "perfvisor_vcpu_pmu_interrupts_total{domain=\"linux\"}"))"
	await 30 is "perfvisor_vcpu_state{domain=\"linux\",vcpu=\"0\",state=\"waiting\"}" 1
	check $? "prometheus: Linux waiting at its console (perfvisor_vcpu_state{state=\"waiting\"} = 1)"
	# Linux gets the input, reads its line, powers off: Prometheus has Xen's final figures.
	printf '\001\001\001'
	await 30 grep -q "Serial input to DOM1" "$raw" && printf 'perfvisor console input\n' &&
		await 60 grep -q '^(XEN) perfvisor: d1v0: traps pmu ' "$raw"
	traps=$(tr -d '\r' <"$raw" | sed -n 's/^(XEN) perfvisor: d1v0: traps pmu \([0-9]*\) .*/\1/p')
	[ -n "$traps" ] && await 30 is "perfvisor_vcpu_state{domain=\"linux\",vcpu=\"0\",state=\"ended\"}" 1 &&
		is "perfvisor_vcpu_traps_total{domain=\"linux\",vcpu=\"0\",group=\"pmu\"}" "$traps"
	check $? "prometheus: Linux ended; its trapped PMU accesses are the $traps Xen reported"
	# steady gets the input, stops: Prometheus has exactly what it printed; then it ends.
	printf '\001\001\001'
	await 30 grep -q "Serial input to DOM2" "$raw" && printf s &&
		await 60 grep -q 'count: steady inst' "$raw"
	got=$(tr -d '\r' <"$raw" | sed -n 's/.*count: steady inst \([0-9]*\) cycles \([0-9]*\) .*/\1 \2/p')
	exact() {
		is "perfvisor_vcpu_pmu_events{domain=\"steady\",vcpu=\"0\",counter=\"0\"}" "${got% *}" &&
			is "perfvisor_vcpu_pmu_events{domain=\"steady\",vcpu=\"0\",counter=\"cycle\"}" "${got#* }"
	}
	[ -n "$got" ] && await 30 exact
	check $? "prometheus: Prometheus has exactly the counts steady printed (inst cycles: ${got:-none})"
	await 30 is "rate(perfvisor_vcpu_pmu_events{domain=\"steady\",vcpu=\"0\",counter=\"0\"}[3s])" 0
	check $? "prometheus: and its rate falls to 0 once it stopped"
	printf e
	# The run is over (await would give up): plain waits from here.
	wait_until 30 is "perfvisor_vcpu_state{domain=\"steady\",vcpu=\"0\",state=\"ended\"}" 1
	check $? "prometheus: after steady ended, perfvisor_vcpu_state{state=\"ended\"} = 1"
	n=$(q "count(count by (domain, vcpu) (perfvisor_vcpu_switches_total))")
	[ "$n" = 2 ]
	check $? "prometheus: two domains' vCPUs, per domain and vCPU (${n:-none})"
}
if want records; then
	# Four domains, their records every 20 ms on the console, read by perfvisor serve as they
	# come: forge_input (the console's input domain when it forges), steady (counts until a
	# character comes), victim (hello: one trapped PMU access), forge (the guest suite's
	# forger, its output through the vPL011's "DOMn: " lines). guest_loglvl=all shows the
	# console hypercall's lines.
	name=records
	log=$logdir/$name.log
	serr=$logdir/$name.serve.err
	rdoms="forge_input:forge_input:0:forge_input.wait_ms=60 steady:steady:0 victim:hello:0 forge:forge:0"
	rm -f "$logdir/$name".m* "$logdir/$name.out" "$serr"
	start=$(date +%s)
	XEN_ARGS="perfvisor_records_ms=20 conswitch=ax guest_loglvl=all"
	# shellcheck disable=SC2086 # the domains are words
	if [ ! -x "$tool" ]; then
		fail "records: no perfvisor tool at $tool (make $tool)"
	elif [ ! -x /usr/bin/python3 ]; then
		fail "records: no /usr/bin/python3 to read perfvisor serve's pages (Debian: python3)"
	elif make_dtb "$logdir/$name.dtb" $rdoms; then
		mkfifo "$logdir/$name.out"
		"$tool" serve --input "$logdir/$name.out" --listen 127.0.0.1:0 >/dev/null 2>"$serr" &
		spid=$!
		: >"$log.raw"
		# shellcheck disable=SC2046,SC2086 # the loader and icount options are words
		records_steps "$log.raw" |
			QEMU_SMP=1 timeout "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio $ICOUNT \
				-kernel "$image" -dtb "$logdir/$name.dtb" $(loaders $rdoms) 2>&1 |
			tee "$log.raw" >"$logdir/$name.out"
		wait_until 30 grep -q '^perfvisor serve: end of ' "$serr" && scrape "$logdir/$name.m4"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		rm -f "$logdir/$name.out"
		tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
		echo "records: $(($(date +%s) - start))s; steps: $(tr '\n' ' ' <"$logdir/$name.steps.log")"
		tally "$name" "$log" '(XEN) \(DOM[0-9]*: \)\{0,1\}'
		grep -q '^(XEN) perfvisor: the last domain has shut down' "$log" &&
			[ "$(grep -c '^(XEN) \(DOM[0-9]*: \)\{0,1\}done: ' "$log")" = 4 ]
		result "records: the four domains ended, the machine powered off"
		records_checks "$log"
	else
		fail "records: device tree"
	fi
	unset XEN_ARGS
fi
# The Debian cloud kernel as a domU, alone and beside a busy domain: its perf counts are
# those the reference hypervisor's Linux scenario checks (tests/guest/run.sh), exact.
linuxdir=build/linux
linux_initrd=$linuxdir/initramfs.cpio
if ! want linux && ! want linux_busy && ! want prometheus; then
	:
elif [ "${LINUX_GUEST:-}" = off ]; then
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
		want "$run" || continue
		l=$logdir/$run.log
		n=$(sed -n 's/^(XEN) perfvisor: d1 (linux): vPMU with \([0-9]*\) counters.*/\1/p' "$l")
		linux_perf_checks "$run" "$l" '(XEN) DOM1: ' "$n"
	done
	if want linux_busy; then
		grep -q '^(XEN) DOM2: done: ' "$logdir/linux_busy.log" && ! grep -q '^(XEN) DOM2: not ok' "$logdir/linux_busy.log"
		result "linux_busy: the busy domain passed beside Linux"
	fi
	if want prometheus && ! command -v prometheus >/dev/null 2>&1; then
		echo "prometheus: skipped: prometheus not installed (Debian: prometheus)"
		skipped=1
	elif want prometheus; then
		# Linux (perf stat, perf record) and steady, their records every 50 ms read by
		# perfvisor serve from the console as it runs, a real Prometheus scraping serve;
		# checked through Prometheus' API against what the guests printed and Xen reported.
		name=prometheus
		log=$logdir/$name.log
		serr=$logdir/$name.serve.err
		rm -rf "$logdir/$name" "$logdir/$name.out" "$logdir/$name.pid" "$serr"
		mkdir -p "$logdir/$name"
		start=$(date +%s)
		XEN_ARGS="perfvisor_records_ms=50"
		if make_dtb "$logdir/$name.dtb" "linux:linux:0:$largs" steady:steady:0; then
			mkfifo "$logdir/$name.out"
			"$tool" serve --input "$logdir/$name.out" --listen 127.0.0.1:0 >/dev/null 2>"$serr" &
			spid=$!
			: >"$log.raw"
			# shellcheck disable=SC2046,SC2086 # the loader and icount options are words
			prom_steps "$log.raw" |
				QEMU_SMP=1 timeout "$QEMU_TIMEOUT" sh scripts/qemu.sh -serial stdio $ICOUNT \
					-kernel "$image" -dtb "$logdir/$name.dtb" \
					$(loaders "linux:linux:0:$largs" steady:steady:0) 2>&1 |
				tee "$log.raw" >"$logdir/$name.out"
			[ ! -s "$logdir/$name.pid" ] || kill "$(cat "$logdir/$name.pid")" 2>/dev/null
			kill "$spid" 2>/dev/null
			wait 2>/dev/null
			rm -f "$logdir/$name.out"
			tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"
			echo "prometheus: $(($(date +%s) - start))s"
			while read -r status title; do
				if [ "$status" = ok ]; then
					echo "$title: ok"
					pass
				else
					fail "${title#ok }"
				fi
			done <"$logdir/$name.results"
			[ "$(grep -c 'ok prometheus: ' "$logdir/$name.results")" = 9 ]
			result "prometheus: every check ran"
		else
			fail "prometheus: device tree"
		fi
		unset XEN_ARGS
	fi
fi

# Two pCPUs, without icount (QEMU cannot count instructions exactly there): four domains of
# one vCPU each, moved between the pCPUs by Xen's scheduler; each checks its counters stay
# its own and monotonic and the host's out of reach; no crash; every domain ends.
SMP=2
ICOUNT=""
XEN_ARGS="perfvisor_records_ms=10"
scenario smp2 m1:migrate:0 m2:migrate:3 m3:migrate:0 m4:migrate:2
unset XEN_ARGS
if want smp2; then
	# Its live figures records too: each pCPU writes those of the vCPUs last loaded on it.
	ended=0
	if serve_file "$logdir/smp2.log" "$logdir/smp2.m" &&
		records_read "$logdir/smp2.log" "$logdir/smp2.m" 8; then
		for vm in m1 m2 m3 m4; do
			[ "$(metric "$logdir/smp2.m" perfvisor_vcpu_state "domain=\"$vm\"" 'state="ended"')" != 1 ] ||
				ended=$((ended + 1))
		done
	fi
	[ "$ended" = 4 ]
	result "smp2: $n records as the vCPUs moved between the pCPUs, all read by perfvisor serve (ok ${ok:-none}, skipped $skip), each domain's last one ended"
	moves=$(sed -n 's/^(XEN) perfvisor: d[0-9]*v[0-9]*: .*, migrations \([0-9]*\)$/\1/p' \
		"$logdir/smp2.log" | awk '{ s += $1 } END { print s + 0 }')
	[ "$moves" -gt 0 ]
	result "smp2: vCPUs moved between the pCPUs ($moves loads on another pCPU)"
fi
finish
