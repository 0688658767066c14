#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# shellcheck shell=dash
# /init of the SPE initramfs (tests/hw/linux-spe.sh): Linux's own SPE driver and Debian's perf
# on a known loop. Loads arm_spe_pmu.ko, runs `perf record -e arm_spe_0//u` of /bin/spe-loop
# (tests/guest/linux/spe-loop.S) with an AUX buffer of PVSPE_AUX_PAGES pages, then reads the
# profile back with perf report -D, perf script and perf report, and prints what the host
# checks as "pvspe: KEY VALUE" lines. The loop's and the buffer's bounds come from the kernel
# command line (pvspe_loop=START-END pvspe_buf=START-END, hexadecimal, from the binary's
# symbols), which the kernel hands to init as environment variables. Then powers off.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
aux_pages=${pvspe_aux_pages:-8}
say() { echo "pvspe: $*"; }
up() { cut -d' ' -f1 /proc/uptime; }

# The driver refuses to probe where the kernel unmaps itself at EL0 (KPTI); it need not when
# the CPU says it is not affected by Meltdown (ID_AA64PFR0_EL1.CSV3) and has E0PD.
say "meltdown $(cat /sys/devices/system/cpu/vulnerabilities/meltdown)"
say "kpti $(dmesg | grep -c 'Kernel page table isolation')"
say "e0pd $(dmesg | grep -c 'CPU features: detected: E0PD')"
insmod /arm_spe_pmu.ko
say "insmod $?"
dmesg | grep 'arm_spe_pmu' | sed 's/^/pvspe-dmesg: /'
[ -d /sys/bus/event_source/devices/arm_spe_0 ]
say "arm_spe_0 $?"
say "min_interval $(cat /sys/bus/event_source/devices/arm_spe_0/caps/min_interval)"

# pvspe_bench=1 (tests/guest/run.sh bench): hyp.linux_spe_el2_share's window alone. The
# same record of the same loop, its interval fixed by the event's period term (pvspe_period,
# default 256: a sample every 257 instructions, the model's minimum) and its AUX buffer by -m,
# the loop run by /bin/pvwindow (window.c), which prints the virtual counter's ticks, the
# hypervisor's EL2 instructions and the guest's own across the loop's life under perf record.
if [ "${pvspe_bench:-0}" = 1 ]; then
	perf record -e "arm_spe_0/period=${pvspe_period:-256}/u" -m ,"$aux_pages" \
		-o /tmp/perf.data -- /bin/pvwindow /bin/spe-loop >/tmp/record.out 2>&1
	say "record $?"
	sed -n 's/^pvwindow: /pvspe: window-/p' /tmp/record.out
	grep -v '^pvwindow: ' /tmp/record.out | sed 's/^/pvspe-record: /'
	say "record-lost $(grep -c 'AUX data lost' /tmp/record.out)"
	perf evlist -v -i /tmp/perf.data 2>/dev/null | grep '^arm_spe' | sed 's/^/pvspe-evlist: /'
	say "record-period $(perf evlist -v -i /tmp/perf.data 2>/dev/null | grep '^arm_spe' |
		sed -n 's/.*sample_period[a-z_, }]*: \([0-9]*\).*/\1/p')"
	say "done"
	poweroff -f
fi

t0=$(up)
perf record -e arm_spe_0//u -m ,"$aux_pages" -o /tmp/perf.data -- /bin/spe-loop \
	>/tmp/record.out 2>&1
say "record $?"
t1=$(up)
sed 's/^/pvspe-record: /' /tmp/record.out
say "record-lost $(grep -c 'AUX data lost' /tmp/record.out)"

# The AUX records: how much was written, and whether any was cut (flags T: truncated).
perf report -D -i /tmp/perf.data 2>/dev/null | grep 'PERF_RECORD_AUX offset' >/tmp/aux
say "aux-records $(wc -l </tmp/aux)"
say "aux-truncated $(grep -c '\[.*T.*\]' /tmp/aux)"
say "aux-bytes $(awk '{ for (i = 1; i < NF; i++) if ($i == "size:") s += sprintf("%d", $(i + 1)) } END { print s + 0 }' /tmp/aux)"
say "aux-buffer $((aux_pages * 4096))"

# Every synthesised sample: its event, PC and (for loads and stores) data address.
perf script -i /tmp/perf.data -F event,ip,addr >/tmp/script 2>/tmp/script.err
say "script $?"
t2=$(up)
sed 's/^/pvspe-script-err: /' /tmp/script.err
say "script-lost $(grep -c 'AUX data lost' /tmp/script.err)"
pvspe_loop=${pvspe_loop:-0-0}
pvspe_buf=${pvspe_buf:-0-0}
lo=${pvspe_loop%-*}
hi=${pvspe_loop#*-}
blo=${pvspe_buf%-*}
bhi=${pvspe_buf#*-}
awk -v lo=$((0x$lo)) -v hi=$((0x$hi)) -v blo=$((0x$blo)) -v bhi=$((0x$bhi)) '
	function hex(s) { return sprintf("%d", "0x" s) }
	NF >= 2 {
		ev = $1; sub(":$", "", ev)
		ip = hex($NF)
		all++
		if (ip >= lo && ip < hi) inloop++
		if (ev == "memory") {
			mem++
			a = hex($(NF - 1))
			if (a >= blo && a < bhi) inbuf++
			pcs[$NF]++
		}
	}
	END {
		printf "pvspe: samples %d\npvspe: samples-in-loop %d\n", all, inloop
		printf "pvspe: memory %d\npvspe: memory-in-buffer %d\n", mem, inbuf
		for (p in pcs) printf "pvspe: memory-pc %s %d\n", p, pcs[p]
	}' /tmp/script
head -n 8 /tmp/script | sed 's/^/pvspe-script: /'
perf report --stdio --sort sym -i /tmp/perf.data 2>/dev/null | grep -v '^#' | grep . |
	head -n 12 | sed 's/^/pvspe-report: /'
t3=$(up)
say "times record $t0 $t1 script $t2 report $t3"
# A buffer fault the driver met (it prints one for a fault it did not expect).
say "driver-faults $(dmesg | grep -c -i 'arm_spe_pmu.*fault\|buffer fault')"
say "done"
poweroff -f
