#!/bin/sh
# SPDX-License-Identifier: MIT
# prometheus.sh HYP_ELF GUEST_DIR TOOL: a guest's live figures in a real Prometheus.
#   The steady guest runs under perfvisor's hypervisor in QEMU (records_ms: a record per VM
#   every 100 ms of virtual time on the console), the console piped into `perfvisor serve`;
#   Debian's Prometheus, started here on 127.0.0.1 with a generated configuration, scrapes it
#   every second. Through Prometheus' HTTP API, while the guest runs: its counter's rate is
#   above 0 while it counts; once it stops, the counts Prometheus has are exactly those the
#   guest printed; after it ends, its state is "ended". promtool accepts the Prometheus text
#   format, the client library's OpenMetrics parser the OpenMetrics one (promtool 2.42 reads
#   the text format only), node_exporter's textfile collector the text format files of
#   `perfvisor stats --format prometheus` and of serve. Every wait is bounded; everything
#   started is stopped by PID.
# One "NAME: ok" line or FAIL per check; figures on "figure:" lines; the last line is
# "N passed, M failed" (", 1 skipped" without Prometheus: the line before says why).
set -u
hyp=$1
gdir=$2
tool=$3
. tests/guest/suite.sh
py=/usr/bin/python3
dir=build/guest-logs/prometheus
rm -rf "$dir" && mkdir -p "$dir"
pids=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap cleanup EXIT

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
	echo "prometheus: skipped: prometheus or promtool not installed (Debian: prometheus)"
	skipped=1
	summary
	exit $?
fi

# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS (10 tries a second).
wait_for() {
	n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# free_port: a TCP port of 127.0.0.1 that nothing listens on now.
free_port() {
	$py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The machine: the console's input from a FIFO this script writes to (held open, so QEMU
# never sees its end), its output through another FIFO into perfvisor serve.
mkfifo "$dir/in" "$dir/out"
start=$(date +%s)
exec 3<>"$dir/in"
timeout 300 sh scripts/qemu.sh -serial stdio -icount shift=0,sleep=off -kernel "$hyp" \
	-append "vm0=steady focus=0 records_ms=100" \
	-device loader,file="$gdir/steady.bin",addr=0x48200000,force-raw=on \
	<"$dir/in" >"$dir/out" 2>&1 &
pids="$pids $!"
"$tool" serve --listen 127.0.0.1:0 --echo <"$dir/out" >"$dir/console.log" 2>"$dir/serve.err" &
serve_pid=$!
pids="$pids $serve_pid"
port() { sed -n 's|^perfvisor serve: http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$dir/serve.err"; }
wait_for 30 grep -q '^perfvisor serve: http' "$dir/serve.err"
result "prometheus: perfvisor serve listens ($(port))"
metrics=http://127.0.0.1:$(port)/metrics

# serve's other mode: the demo scenario on the simulated machine (one run: the period is long),
# served beside it; its figures are those `perfvisor stats` prints for the same run.
"$tool" serve --scenario examples/demo/scenario.xml --period 3600 --listen 127.0.0.1:0 \
	>/dev/null 2>"$dir/serve-sim.err" &
pids="$pids $!"
sport() { sed -n 's|^perfvisor serve: http://127.0.0.1:\([0-9]*\)/metrics$|\1|p' "$dir/serve-sim.err"; }
wait_for 30 grep -q '^perfvisor serve: http' "$dir/serve-sim.err"
result "prometheus: perfvisor serve --scenario listens ($(sport))"

# Prometheus on a free port, scraping both every second.
pport=$(free_port)
prom=http://127.0.0.1:$pport
cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: perfvisor
    static_configs:
      - targets: ["127.0.0.1:$(port)"]
  - job_name: perfvisor-sim
    static_configs:
      - targets: ["127.0.0.1:$(sport)"]
EOF
promtool check config "$dir/prometheus.yml" >"$dir/promtool-config.log" 2>&1
result "prometheus: promtool accepts the generated configuration"
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
	--web.listen-address="127.0.0.1:$pport" >"$dir/prometheus.log" 2>&1 &
pids="$pids $!"
wait_for 60 $py tests/guest/promq.py get "$prom/-/ready"
result "prometheus: Prometheus is ready on 127.0.0.1:$pport"

q() { $py tests/guest/promq.py query "$prom" "$1" 2>>"$dir/queries.err"; }
sel='domain="steady",vcpu="0"'
# While the guest counts: the rate of its instruction counter, through PromQL.
counting() {
	v=$(q "rate(perfvisor_vcpu_pmu_events{$sel,counter=\"0\",event=\"0x0008\",name=\"inst_retired\"}[5s])" | awk '{ print $2 }')
	[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'
}
wait_for 60 counting
result "prometheus: rate(perfvisor_vcpu_pmu_events{counter=\"0\"}[5s]) > 0 while the guest counts ($v/s)"
up=$(q "up{job=\"perfvisor\"}" | awk '{ print $2 }')
[ "$up" = 1 ]
result "prometheus: the target is up (up = ${up:-none})"

# The simulated machine's figures, per domain and memory node, as stats prints them.
"$tool" stats --format prometheus examples/demo/scenario.xml >"$dir/stats.prom" 2>/dev/null
want=$(sed -n 's/^perfvisor_domain_memory_bandwidth_bytes_total{domain="db",monitor="vcpus_0",vcpus="0",node="0"} \([0-9]*\)$/\1/p' "$dir/stats.prom")
sim() {
	[ -n "$want" ] && [ "$(q "perfvisor_domain_memory_bandwidth_bytes_total{job=\"perfvisor-sim\",domain=\"db\",node=\"0\"}" | awk '{ print $2 }')" = "$want" ]
}
wait_for 60 sim
result "prometheus: the scenario's bytes per domain and node, as stats prints them (db, node 0: ${want:-?} bytes)"

# Stop it: the counts it prints must be what Prometheus gets.
printf 's\n' >&3
wait_for 60 grep -q '^\[steady\] count: steady inst ' "$dir/console.log"
printed=$(sed -n 's/^\[steady\] count: steady inst \([0-9]*\) cycles \([0-9]*\) .*/\1 \2/p' "$dir/console.log")
inst=${printed% *}
cycles=${printed#* }
exact() {
	[ "$(q "perfvisor_vcpu_pmu_events{$sel,counter=\"0\"}" | awk '{ print $2 }')" = "$inst" ] &&
		[ "$(q "perfvisor_vcpu_pmu_events{$sel,counter=\"cycle\"}" | awk '{ print $2 }')" = "$cycles" ]
}
[ -n "$printed" ] && wait_for 60 exact
result "prometheus: Prometheus has exactly the counts the guest printed (inst ${inst:-?}, cycles ${cycles:-?})"
rate0() {
	[ "$(q "rate(perfvisor_vcpu_pmu_events{$sel,counter=\"0\"}[3s])" | awk '{ print $2 }')" = 0 ]
}
wait_for 60 rate0
result "prometheus: and its rate falls to 0 once it stopped"
polls=$(q "rate(perfvisor_vcpu_exits_total{$sel,kind=\"mmio-uart\"}[5s])" | awk '{ print $2 }')
[ -n "$polls" ] && awk -v v="$polls" 'BEGIN { exit !(v > 0) }'
result "prometheus: its console polls, as exits: rate(perfvisor_vcpu_exits_total{kind=\"mmio-uart\"}[5s]) = ${polls:-none}/s"

# Both exposition formats, as the tools of each read them.
fetched=$(date +%s)
$py tests/guest/promq.py get "$metrics" >"$dir/metrics.prom" 2>"$dir/metrics.prom.type" &&
	grep -q 'Content-Type: text/plain; version=0.0.4' "$dir/metrics.prom.type" &&
	promtool check metrics <"$dir/metrics.prom" >"$dir/promtool-metrics.log" 2>&1
result "prometheus: promtool check metrics accepts the Prometheus text format"
$py tests/guest/promq.py get "$metrics" "application/openmetrics-text; version=1.0.0" \
	>"$dir/metrics.om" 2>"$dir/metrics.om.type" &&
	grep -q 'Content-Type: application/openmetrics-text; version=1.0.0' "$dir/metrics.om.type" &&
	$py tests/guest/promq.py openmetrics "$dir/metrics.om" >"$dir/openmetrics.log" 2>&1
result "prometheus: the OpenMetrics parser accepts the OpenMetrics format ($(wc -l <"$dir/openmetrics.log") families)"

# node_exporter's textfile collector: what `perfvisor stats --format prometheus` writes and
# what serve served, as .prom files; accepted when it reports no error and has their samples.
if command -v prometheus-node-exporter >/dev/null 2>&1; then
	mkdir -p "$dir/textfile"
	"$tool" stats --format prometheus examples/demo/scenario.xml \
		>"$dir/textfile/perfvisor-demo.prom" 2>"$dir/stats.err"
	cp "$dir/metrics.prom" "$dir/textfile/perfvisor-live.prom"
	nport=$(free_port)
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir/textfile" \
		--web.listen-address="127.0.0.1:$nport" >"$dir/node-exporter.log" 2>&1 &
	pids="$pids $!"
	ne() { $py tests/guest/promq.py get "http://127.0.0.1:$nport/metrics" >"$dir/node-exporter.metrics"; }
	wait_for 30 ne &&
		grep -q '^node_textfile_scrape_error 0$' "$dir/node-exporter.metrics" &&
		grep -q '^perfvisor_domain_perf_events_total{' "$dir/node-exporter.metrics" &&
		grep -q '^perfvisor_vcpu_traps_total{domain="steady"' "$dir/node-exporter.metrics"
	result "prometheus: node_exporter's textfile collector takes stats --format prometheus and serve's output"
else
	echo "textfile: skipped: prometheus-node-exporter not installed"
	skipped=$((skipped + 1))
fi

# End it: the last record says so.
printf 'q\n' >&3
ended() { [ "$(q "perfvisor_vcpu_state{$sel,state=\"ended\"}" | awk '{ print $2 }')" = 1 ]; }
wait_for 60 ended
result "prometheus: after the guest ended, perfvisor_vcpu_state{state=\"ended\"} = 1"
grep -q '^\[steady\] done: 2 passed, 0 failed' "$dir/console.log" &&
	grep -q '^hyp: all VMs ended' "$dir/console.log"
result "prometheus: the guest and the hypervisor ended normally"

# Figures: scrape size and time for this one-VM target, and records per second of wall time.
samples=$(q "scrape_samples_scraped{job=\"perfvisor\"}" | awk '{ print $2 }')
secs=$(q "scrape_duration_seconds{job=\"perfvisor\"}" | awk '{ print $2 }')
echo "figure: prometheus.scrape_samples_per_vm: ${samples:-?}"
echo "figure: prometheus.scrape_bytes_per_vm: $(wc -c <"$dir/metrics.prom")"
echo "figure: prometheus.scrape_seconds_per_vm: ${secs:-?}"
records=$(sed -n 's/^perfvisor_records_read_total{status="ok"} \([0-9]*\)$/\1/p' "$dir/metrics.prom")
echo "figure: prometheus.records_per_second: $(awk -v n="${records:-0}" -v s=$((fetched - start)) 'BEGIN { printf "%.1f", s ? n / s : 0 }') (${records:-?} records in $((fetched - start)) s of wall time, records_ms=100 of virtual time)"
exec 3>&-
summary
