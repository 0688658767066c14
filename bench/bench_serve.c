/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor serve` under load (conventions of bench/bench_vpmu.c and bench/run.sh; all
 * direct). The tool of this build is run as a process, its console a pipe fed with records the
 * library's writer made (pv_record_vcpu) for 256 VMs of 4 vCPUs, each with 6 counters and 4
 * kinds of exit: a round of 1024 records for every 100 ms of the host's clock. It is scraped
 * over HTTP, as Prometheus does.
 *
 *   serve.records_per_s records/s       records read per second of the server's CPU time
 *                                       (user and system), 300 rounds written as fast as it
 *                                       reads them (a host at 100 ms needs 10,240 a second)
 *   serve.scrape_ms_1024vcpu ms         the server's CPU time per scrape of the 1024 vCPUs'
 *                                       figures (Prometheus text format), over 50 scrapes
 *   serve.scrape_bytes_1024vcpu bytes   the size of that scrape
 *   serve.rss_growth KiB                resident memory at the end of a soak of 1000 rounds
 *                                       (1,024,000 records, a scrape every 10 rounds) less
 *                                       what it was after the first 100, both once everything
 *                                       written was read and a scrape answered
 *   serve.scrape_ms_2000slow ms         the median wall-clock time of 11 scrapes of the 1024
 *                                       vCPUs, request to last byte, while 2,000 slow clients
 *                                       from 250 loopback addresses hold requests open (a
 *                                       header line every 2 s, back 2 s after each close)
 *
 * CPU and wall-clock times move with what else the machine runs: their baselines carry a
 * tolerance (bench/baseline/host.txt). The size and the growth are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "perfvisor/perfvisor.h"
#include "perfvisor/record.h"
#include "serve_client.h"

#ifndef TOOL_BIN
#define TOOL_BIN "build/perfvisor"
#endif

#define VMS 256
#define VCPUS 4
enum { ROUND = VMS * VCPUS }; /* records a round */
#define ROUND_NS 100000000ull /* 100 ms */
#define ROUNDS_KEPT 10        /* distinct rounds made, written again and again */
#define SCRAPE_MS 10000

static void die(const char *what)
{
	fprintf(stderr, "bench_serve: %s\n", what);
	exit(1);
}

/* The hypervisor's exit kinds, as its records name them. */
static const char *const exit_kinds[] = {"sysreg-pmu", "hvc-null", "mmio-uart", "switch"};

/* Rounds r0 .. r0 + n - 1 of records, one after another, in a buffer of the caller's. */
static char *make_rounds(unsigned r0, unsigned n, size_t *len)
{
	static struct pv_vm vm;
	static struct pv_vcpu v;
	size_t cap = (size_t)n * ROUND * 512u, at = 0;
	char *buf = malloc(cap);
	if (!buf)
		die("out of memory");
	for (unsigned r = r0; r < r0 + n; r++)
		for (unsigned i = 0; i < ROUND; i++) {
			memset(&vm, 0, sizeof(vm));
			memset(&v, 0, sizeof(v));
			vm.pmu.nr_counters = 6;
			vm.pmu.event_mask = 0xFFFF;
			vm.pmu.evcntr_mask = UINT64_MAX;
			v.vm = &vm;
			v.id = i % VCPUS;
			v.pmu.active = true;
			v.pmu.pmcr = 0x41;
			for (unsigned c = 0; c < 6; c++) {
				v.pmu.evtyper[c] = c % 2 ? 0x11 : 0x8;
				v.pmu.evcntr[c] = (uint64_t)r * 5000000 + (uint64_t)i * 1000 +
						  c;
			}
			v.pmu.ccntr = (uint64_t)r * 9000000 + i;
			v.stats.traps[PV_KIND_PMU] = (uint64_t)r * 190 + i;
			v.stats.loads = (uint64_t)r * 10;
			struct pv_record_exit ex[4];
			for (unsigned k = 0; k < 4; k++)
				ex[k] = (struct pv_record_exit){exit_kinds[k],
								(uint64_t)r * (k + 1),
								(uint64_t)r * (k + 1) * 117};
			char name[16];
			snprintf(name, sizeof(name), "vm%03u", i / VCPUS);
			struct pv_record_host h = {.seq = (uint64_t)r * ROUND + i,
						   .time_ns = (uint64_t)r * ROUND_NS,
						   .vm_name = name,
						   .state = "running",
						   .switches_in = (uint64_t)r * 10,
						   .nr_exits = 4,
						   .exits = ex};
			size_t got = pv_record_vcpu(buf + at, cap - at, &v, &h);
			if (!got)
				die("a record did not fit");
			at += got;
		}
	*len = at;
	return buf;
}

static void start(struct sc_serve *s)
{
	static const char *const args[] = {"--input", "-", NULL};
	if (!sc_start(s, TOOL_BIN, NULL, args))
		die("cannot start " TOOL_BIN " serve");
}

static void feed(struct sc_serve *s, const char *bytes, size_t len)
{
	if (!sc_write(s, bytes, len))
		die("perfvisor serve stopped reading");
}

/* Ends its input and waits until it has read all of it. */
static void drain(struct sc_serve *s)
{
	sc_close_input(s);
	if (!sc_wait_stderr(s, "end of", 600000))
		die("perfvisor serve did not reach the end of its input");
}

/* A scrape that must succeed; its time in ms, its size in *bytes. */
static double scrape(uint16_t port, size_t *bytes)
{
	char *body;
	size_t len;
	double t = sc_now_s();
	int st = sc_get(port, "/metrics", NULL, SCRAPE_MS, &body, &len);
	t = (sc_now_s() - t) * 1000;
	if (st != 200)
		die("a scrape failed");
	free(body);
	if (bytes)
		*bytes = len;
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static int run_records_per_s(unsigned rounds)
{
	size_t len;
	char *text = make_rounds(0, ROUNDS_KEPT, &len);
	struct sc_serve s;
	start(&s);
	double cpu = sc_proc_cpu_s(s.pid);
	for (unsigned r = 0; r < rounds; r += ROUNDS_KEPT)
		feed(&s, text, len);
	drain(&s);
	cpu = sc_proc_cpu_s(s.pid) - cpu;
	if (cpu <= 0)
		die("cannot read the server's CPU time");
	printf("value %.0f\n", (double)rounds * ROUND / cpu);
	sc_stop(&s);
	free(text);
	return 0;
}

/* One round of every vCPU, then the scrapes. */
static void serve_one_round(struct sc_serve *s)
{
	size_t len;
	char *text = make_rounds(0, 1, &len);
	start(s);
	feed(s, text, len);
	drain(s);
	free(text);
}

static int run_scrape_ms(unsigned n)
{
	struct sc_serve s;
	serve_one_round(&s);
	for (unsigned i = 0; i < 5; i++) /* warm */
		scrape(s.port, NULL);
	double cpu = sc_proc_cpu_s(s.pid);
	for (unsigned i = 0; i < n; i++)
		scrape(s.port, NULL);
	cpu = sc_proc_cpu_s(s.pid) - cpu;
	if (cpu <= 0)
		die("cannot read the server's CPU time");
	printf("value %.2f\n", cpu * 1000 / n);
	sc_stop(&s);
	return 0;
}

static int run_scrape_bytes(unsigned unused)
{
	(void)unused;
	struct sc_serve s;
	serve_one_round(&s);
	size_t bytes;
	scrape(s.port, &bytes);
	printf("value %zu\n", bytes);
	sc_stop(&s);
	return 0;
}

/* VmRSS once it has read `records` records and answered a scrape, as it is at either end of
 * the soak. */
static unsigned long quiet_rss(struct sc_serve *s, uint64_t records)
{
	uint64_t end = sc_now_ms() + 60000;
	while (sc_now_ms() < end) {
		char *body;
		size_t len;
		if (sc_get(s->port, "/metrics", NULL, SCRAPE_MS, &body, &len) != 200)
			die("a scrape failed");
		long long ok = sc_sample(body, "perfvisor_records_read_total{status=\"ok\"}");
		free(body);
		if (ok == (long long)records)
			return sc_proc_kib(s->pid, "VmRSS");
		usleep(1000);
	}
	die("perfvisor serve did not read what it was given");
	return 0;
}

static int run_rss_growth(unsigned rounds)
{
	size_t len;
	char *text = make_rounds(0, ROUNDS_KEPT, &len);
	struct sc_serve s;
	start(&s);
	unsigned long warm = 0;
	for (unsigned r = 0; r < rounds; r += ROUNDS_KEPT) {
		feed(&s, text, len);
		scrape(s.port, NULL);
		if (r + ROUNDS_KEPT == rounds / 10)
			warm = quiet_rss(&s, (uint64_t)(r + ROUNDS_KEPT) * ROUND);
	}
	drain(&s);
	unsigned long end = quiet_rss(&s, (uint64_t)rounds * ROUND);
	if (!warm || !end)
		die("cannot read the server's VmRSS");
	fprintf(stderr, "bench_serve: VmRSS %lu KiB after %u records, %lu KiB after %u\n", warm,
		rounds / 10 * ROUND, end, rounds * ROUND);
	printf("value %ld\n", (long)end - (long)warm);
	sc_stop(&s);
	free(text);
	return 0;
}

static int run_scrape_slow(unsigned n)
{
	if (!sc_fd_room(2000 + 256))
		die("the descriptor limit is below 2256 (ulimit -Hn)");
	struct sc_serve s;
	serve_one_round(&s);
	struct sc_slow slow;
	if (!sc_slow_start(&slow, s.port, 2000, 250, 2000))
		die("cannot start the slow clients");
	uint64_t t0 = sc_now_ms();
	while (atomic_load(&slow.opened) < 2000 && sc_now_ms() - t0 < 30000)
		usleep(10000);
	usleep(2000000);
	double t[64];
	for (unsigned i = 0; i < n; i++) {
		t[i] = scrape(s.port, NULL);
		usleep(300000);
	}
	sc_slow_stop(&slow);
	printf("value %.2f\n", median(t, n));
	sc_stop(&s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct bench_mode modes[] = {
		{"records_per_s", "serve.records_per_s", "records/s", "direct",
		 run_records_per_s, 300},
		{"scrape_ms", "serve.scrape_ms_1024vcpu", "ms", "direct", run_scrape_ms, 50},
		{"scrape_bytes", "serve.scrape_bytes_1024vcpu", "bytes", "direct",
		 run_scrape_bytes, 0},
		{"rss_growth", "serve.rss_growth", "KiB", "direct", run_rss_growth, 1000},
		{"scrape_slow", "serve.scrape_ms_2000slow", "ms", "direct", run_scrape_slow,
		 11},
	};
	return bench_main("bench_serve", modes, sizeof(modes) / sizeof(modes[0]), argc, argv);
}
