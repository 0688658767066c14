# shellcheck shell=sh
# SPDX-License-Identifier: MIT
# What a Linux run of the SPE initramfs (spe-init.sh) must show, wherever it ran: on the QEMU
# of our own directly (tests/hw/linux-spe.sh) or under the reference hypervisor (the
# linux_spe scenario of tests/guest/run.sh). Sourced after tests/guest/suite.sh.
#   spe_linux_checks TITLE LOG PREFIX LOOP AUX_PAGES: one result per check; PREFIX is the basic
#   regular expression before the guest's console lines, LOOP the loop's binary (its symbols),
#   AUX_PAGES the AUX buffer's pages perf record was given.

# spe_v LOG PREFIX KEY: the value of init's "pvspe: KEY VALUE" line.
spe_v() {
	tr -d '\r' <"$1" | sed -n "s/^$2pvspe: $3 \\(.*\\)\$/\\1/p" | head -n1
}

spe_linux_checks() {
	sc_t=$1
	sc_log=$2
	sc_p=$3
	sc_loop=$4
	sc_pages=$5
	sc_wraps=4
	sc_samples=$(spe_v "$sc_log" "$sc_p" samples)
	sc_memory=$(spe_v "$sc_log" "$sc_p" memory)
	sc_aux=$(spe_v "$sc_log" "$sc_p" aux-bytes)
	echo "$sc_t: $(spe_v "$sc_log" "$sc_p" aux-records) AUX records, $sc_aux bytes through a" \
		"$((sc_pages * 4096))-byte AUX buffer; $sc_samples samples, $sc_memory of loads and" \
		"stores; guest uptime at record, end of record, script, report: $(spe_v "$sc_log" "$sc_p" times)"

	[ "$(spe_v "$sc_log" "$sc_p" meltdown)" = "Not affected" ] &&
		[ "$(spe_v "$sc_log" "$sc_p" kpti)" = 0 ] && [ "$(spe_v "$sc_log" "$sc_p" e0pd)" = 1 ]
	result "$sc_t: the kernel did not unmap itself at EL0 (Meltdown: not affected, by CSV3; E0PD detected)"
	[ "$(spe_v "$sc_log" "$sc_p" insmod)" = 0 ] && [ "$(spe_v "$sc_log" "$sc_p" arm_spe_0)" = 0 ] &&
		grep -q "^${sc_p}pvspe-dmesg: .*arm_spe_pmu spe-pmu: probed for CPUs 0 " "$sc_log"
	result "$sc_t: arm_spe_pmu.ko loaded and probed (arm_spe_0)"
	[ "$(spe_v "$sc_log" "$sc_p" record)" = 0 ] && [ "$(spe_v "$sc_log" "$sc_p" record-lost)" = 0 ] &&
		[ "$(spe_v "$sc_log" "$sc_p" script)" = 0 ] && [ "$(spe_v "$sc_log" "$sc_p" script-lost)" = 0 ]
	result "$sc_t: perf record -e arm_spe_0//u and perf script ran, no \"AUX data lost\""
	[ -n "$sc_samples" ] && [ "$sc_samples" -gt 0 ] &&
		[ "$(spe_v "$sc_log" "$sc_p" samples-in-loop)" = "$sc_samples" ]
	result "$sc_t: every sample's PC in the loop ($sc_samples samples)"
	# 2,400,280 loop instructions, 2 of each 6 a load or a store: a sample every 257
	# instructions gives 3,113 of them; the driver's restarts may move that by a few; 2 %
	# either way allowed.
	[ -n "$sc_memory" ] && [ "$sc_memory" -ge 3050 ] && [ "$sc_memory" -le 3175 ] &&
		[ "$(spe_v "$sc_log" "$sc_p" memory-in-buffer)" = "$sc_memory" ]
	result "$sc_t: $sc_memory loads and stores sampled (3,113 expected), every data address in the loop's buffer"
	# The load is the loop's third instruction, the store its fifth.
	sc_nm=${AARCH64_CC:-aarch64-linux-gnu-gcc}
	sc_base=$("${sc_nm%gcc}nm" "$sc_loop" | sed -n 's/^0*\([0-9a-f]*\) . spe_loop$/\1/p')
	sc_ld=$(printf %x $((0x$sc_base + 8)))
	sc_st=$(printf %x $((0x$sc_base + 16)))
	sc_nld=$(spe_v "$sc_log" "$sc_p" "memory-pc $sc_ld")
	sc_nst=$(spe_v "$sc_log" "$sc_p" "memory-pc $sc_st")
	[ -n "$sc_nld" ] && [ -n "$sc_nst" ] &&
		[ "$(tr -d '\r' <"$sc_log" | grep -c "^${sc_p}pvspe: memory-pc ")" = 2 ]
	result "$sc_t: the loop's load ($sc_ld: $sc_nld) and store ($sc_st: $sc_nst) sampled, nothing else as a load or store"
	[ "$(spe_v "$sc_log" "$sc_p" aux-truncated)" = 0 ] && [ -n "$sc_aux" ] &&
		[ "$sc_aux" -ge $((sc_wraps * sc_pages * 4096)) ]
	result "$sc_t: the AUX buffer wrapped at least $sc_wraps times ($sc_aux bytes), no record truncated"
	[ "$(spe_v "$sc_log" "$sc_p" driver-faults)" = 0 ] && grep -q "^${sc_p}pvspe: done" "$sc_log"
	result "$sc_t: the driver met no buffer fault"
}
