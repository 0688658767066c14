#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh QEMU DIR: the model tests (DIR/*.elf, built from tests/hw/*.c), each run twice on
# QEMU (the QEMU of our own) under -icount shift=0,sleep=off: with the models on
# (-cpu max,pv-spe=on: the PMU fixes, on by default, and SPE), where every check must pass,
# and with them off (-cpu max,pv-pmu-fixes=off: stock QEMU, SPE off by default), where the
# checks listed below for the program must fail, as stock QEMU fails them (which proves that
# the properties switch each model), and every other check must pass. The SPE program runs a
# third time with SPE alone (-cpu max,pv-pmu-fixes=off,pv-spe=on), where every check must pass:
# the SPE model does not lean on the PMU fixes. The AMU program runs with FEAT_AMUv1p1
# (-cpu max,pv-pmu-fixes=on,pv-spe=on,pv-amu=on), with FEAT_AMUv1 (the same with pv-amu=v1),
# where every check must pass and the program must say it found that version ("amu version:"),
# and on stock QEMU. The MPAM program runs with MPAM's CPU side (-cpu max,pv-mpam=on), where
# every check must pass, and on stock QEMU. Each program prints one
# "ok NAME..." or "not ok NAME: why" line per check and ends with "done: ..." (tests/hw/lib).
# One result per check and mode; the last line is "N passed, M failed". Logs in
# HW_LOGDIR (default build/hw-tests/logs); each run bounded by timeout (QEMU_TIMEOUT, 60 s).
set -u
qemu=$1
dir=$2
logdir=${HW_LOGDIR:-$dir/logs}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-60}
mkdir -p "$logdir"
passed=0
failed=0

# stock PROGRAM: the checks stock QEMU fails (the defects of qemu-hardware.md), and why.
stock() {
	case $1 in
	# The overflow timer one event short, then never armed again; no LD_RETIRED.
	overflow) echo "overflow_preset_max overflow_preset_5 overflow_ld_retired overflow_preset_zero" ;;
	# PMCR_EL0 and MDCR_EL2 writes leave the line; every request gated on PMCR_EL0.E.
	irq) echo "irq_pmcr_e_lowers irq_hpme_raises irq_pmcr_e_not_host irq_hpme_overflow" ;;
	# Nothing past HPMN hidden but PMCR_EL0.N; past N, PMXEVCNTR/PMXEVTYPER read zero.
	hpmn) echo "hpmn_el2_pmxevcntr_absent_undef hpmn_el2_pmxevtyper_absent_undef" \
		"hpmn_el1_pmcnten hpmn_el1_pmovs hpmn_el1_pminten hpmn_el1_pmevcntr_trap" \
		"hpmn_el1_pmevcntr_write_trap hpmn_el1_pmevtyper_trap hpmn_el1_pmevtyper_write_trap" \
		"hpmn_el1_pmxevcntr_trap hpmn_el1_pmxevcntr_write_trap hpmn_el1_pmxevtyper_trap" \
		"hpmn_el1_pmxevtyper_write_trap hpmn_el1_pmxevcntr_absent_undef" \
		"hpmn_el1_pmxevtyper_absent_undef hpmn_el1_pmxevcntr_sel31_undef" \
		"hpmn_el1_pmcntenclr_ignored hpmn_el1_pmovsclr_ignored hpmn_el1_pmintenset_ignored" \
		"hpmn_el1_pmswinc_ignored hpmn_el1_pmxevtyper_ignored hpmn_el1_pmevtyper_write_ignored" \
		"hpmn_el1_pmcr_p_host hpmn_el1_tpm_absent_undef hpmn_el1_fgt_absent_undef" \
		"hpmn_el0_pmcnten hpmn_el0_pmevcntr_trap hpmn_el0_pmxevcntr_trap" \
		"hpmn_el0_pmxevcntr_absent_undef hpmn_el0_pmswinc_ignored" \
		"hpmn_el0_userenr_absent_undef" ;;
	# No fine-grained trap for PMUSERENR_EL0.
	pmuserenr) echo "fgt_pmuserenr_read fgt_pmuserenr_write fgt_pmuserenr_write_kept" \
		"fgt_pmuserenr_el0_read" ;;
	# One instruction count for the whole machine.
	smp) echo "smp_cpu0_inst_retired smp_cpu1_inst_retired" ;;
	# No SPE at all: every check but the one that PMSVer and the registers agree.
	spe) echo "spe_pmsver spe_pmsidr spe_pmbidr_el2 spe_el2_decode spe_el2_count" \
		"spe_el2_records spe_el2_timestamps spe_el2_pmbsr spe_el2_pmsicr" \
		"spe_published_decode spe_published_load_format spe_published_branch_format" \
		"spe_not_taken_count spe_not_taken spe_published_not_taken spe_full_pmbsr" \
		"spe_full_pointer spe_full_records spe_full_irq_pending spe_full_irq_taken" \
		"spe_full_irq_lowered spe_full_irq_sw_set spe_filter_branch spe_filter_load" \
		"spe_filter_store spe_filter_events spe_filter_inverted_events" \
		"spe_filter_latency spe_discard_mode spe_random_interval spe_el1_decode" \
		"spe_el1_count spe_el1_records spe_el1_pmbsr spe_s1_fault" \
		"spe_s1_fault_pointer spe_s1_fault_irq spe_s1_fault_whole spe_s2_fault" \
		"spe_s2_fault_pointer spe_s2_fault_no_exception spe_s2_fault_walk" \
		"spe_trap_tpms spe_no_trap_pms spe_no_trap_pmb spe_pmbidr_el1_owner" \
		"spe_trap_e2pb_10 spe_trap_e2pb_00 spe_pmbidr_p spe_fgt_pmsirr" \
		"spe_fgt_pmsnevfr_set spe_fgt_npmsnevfr spe_pmscr_el2_at_el1 spe_el0_undef" \
		"spe_register_bits spe_irq_follows_s spe_host_codec" ;;
	# No AMU at all: every check but the one that ID_AA64PFR0_EL1.AMU and the registers agree:
	# each "amu_..." string of amu.c (both versions' checks), wherever it is on its line.
	amu) grep -o '"amu_[a-z0-9_]*"' tests/hw/amu.c | tr -d '"' | grep -vx amu_id_agrees |
		sort -u | tr '\n' ' ' ;;
	# No MPAM at all: every check but the one that ID_AA64PFR0_EL1.MPAM and the registers agree.
	mpam) grep -o '"mpam_[a-z0-9_]*"' tests/hw/mpam.c | tr -d '"' | grep -vx mpam_id_agrees |
		sort -u | tr '\n' ' ' ;;
	# None of the five events.
	events) echo "events_pmceid events_ldst events_pairs events_acqrel events_excl" \
		"events_atomics events_dczva events_simd events_sve events_mops events_branches" \
		"events_fault_not_retired events_fault_mem_access" ;;
	esac
}

# run PROGRAM MODE: the program under QEMU with the models MODE (on, off, spe: SPE alone,
# amu: the AMU at FEAT_AMUv1p1, amu_v1: at FEAT_AMUv1, mpam: MPAM's CPU side); its log.
run() {
	smp=1
	[ "$1" != smp ] || smp=2
	log=$logdir/$1-$2.log
	case $2 in
	on) cpu=max,pv-pmu-fixes=on,pv-spe=on ;;
	amu) cpu=max,pv-pmu-fixes=on,pv-spe=on,pv-amu=on ;;
	amu_v1) cpu=max,pv-pmu-fixes=on,pv-spe=on,pv-amu=v1 ;;
	mpam) cpu=max,pv-pmu-fixes=on,pv-mpam=on ;;
	off) cpu=max,pv-pmu-fixes=off ;;
	*) cpu=max,pv-pmu-fixes=off,pv-spe=on ;;
	esac
	QEMU=$qemu QEMU_SMP=$smp timeout -k 5 "$QEMU_TIMEOUT" sh scripts/qemu.sh \
		-serial stdio -icount shift=0,sleep=off -cpu "$cpu" \
		-kernel "$dir/$1.elf" >"$log" 2>&1 </dev/null
	# The SPE program's records, decoded on the host by perfvisor's codec: one more check.
	if [ "$1" = spe ]; then
		"$dir/spe_host" "$log" >>"$log" 2>&1 || echo "not ok spe_host_codec: spe_host failed" >>"$log"
	fi
	echo "$log"
}

for elf in "$dir"/*.elf; do
	prog=$(basename "$elf" .elf)
	modes="on off"
	[ "$prog" != spe ] || modes="on off spe"
	# The AMU program: the AMU on with the other models, FEAT_AMUv1p1 (pv-amu=on) and
	# FEAT_AMUv1 (pv-amu=v1), and stock QEMU.
	[ "$prog" != amu ] || modes="amu amu_v1 off"
	[ "$prog" != mpam ] || modes="mpam off"
	for mode in $modes; do
		log=$(run "$prog" "$mode")
		expect=" $(stock "$prog") "
		p=0
		f=0
		# One result per check line: "ok NAME..." or "not ok NAME: ..."
		results=$(sed -n 's/^ok \([a-z0-9_]*\).*/ok \1/p; s/^not ok \([a-z0-9_]*\).*/no \1/p' "$log")
		bad=""
		for r in $(echo "$results" | tr ' ' ':'); do
			got=${r%%:*}
			name=${r#*:}
			want=ok
			if [ "$mode" = off ] && [ "${expect#* "$name" }" != "$expect" ]; then
				want=no
			fi
			if [ "$got" = "$want" ]; then
				p=$((p + 1))
			else
				f=$((f + 1))
				if [ "$want" = ok ]; then
					bad="$bad    $name: failed (models $mode)\n"
				else
					bad="$bad    $name: passed with the fixes off, as stock QEMU would not\n"
				fi
			fi
		done
		# Every listed stock failure must have run, and the program must have finished.
		if [ "$mode" = off ]; then
			for name in $(stock "$prog"); do
				echo "$results" | grep -qx "[a-z]* $name" ||
					{ f=$((f + 1)); bad="$bad    $name: did not run\n"; }
			done
		fi
		# The AMU program checks the version ID_AA64PFR0_EL1.AMU gives: the mode's.
		version=""
		case $mode in
		amu) version=FEAT_AMUv1p1 ;;
		amu_v1) version=FEAT_AMUv1 ;;
		esac
		if [ -n "$version" ] && ! grep -q "^amu version: $version\$" "$log"; then
			f=$((f + 1))
			bad="$bad    the CPU's AMU is not $version: $(grep '^amu version: ' "$log")\n"
		fi
		if ! grep -q '^done: ' "$log"; then
			f=$((f + 1))
			bad="$bad    the program did not finish (timeout or crash)\n"
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		case $mode in
		spe) what="SPE alone" ;;
		amu) what="models on, AMU on (FEAT_AMUv1p1)" ;;
		amu_v1) what="models on, AMU v1 (FEAT_AMUv1)" ;;
		mpam) what="models on, MPAM on" ;;
		*) what="models $mode" ;;
		esac
		if [ "$f" -eq 0 ]; then
			echo "$prog, $what: $p passed (log: $log)"
		else
			echo "$prog, $what: $p passed, $f failed (log: $log)"
			# shellcheck disable=SC2059 # the \n of $bad
			printf "$bad"
			grep '^not ok \|^    ' "$log" | sed 's/^/    | /'
		fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
