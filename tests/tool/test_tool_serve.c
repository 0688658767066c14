/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor serve` under what a guest or a client can do to it (docs/operator.md, "The
 * limits"), the tool run as a process and talked to over real sockets:
 * - a console line with no end (64 MiB, no newline) is counted as too-long as soon as it
 *   passes the bound, and the server's peak resident memory does not grow by it; the record
 *   after it is read;
 * - a line longer than a record is echoed whole with --echo, in pieces, and counted once;
 * - 2,000 slow clients from 250 loopback addresses, each keeping its request open with a
 *   header line every 2 s and coming back when closed, never keep a scraper out: every scrape
 *   is answered within 10 s, and the server holds a bounded number of connections;
 * - a request's deadline is the whole request's, not an idle timeout: a client that sends a
 *   header line every second is cut once its 10 s are over, while a client that keeps its
 *   connection alive between requests is served request after request.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfvisor/perfvisor.h"
#include "perfvisor/record.h"
#include "tests/support/serve_client.h"
#include "tooltest.h"

#define SCRAPE_MS 10000 /* what a scrape may take, at most: Prometheus' default timeout */

/* A record as the library writes it, of vCPU `vcpu` of VM `name`. */
static size_t record(char *buf, size_t size, const char *name, unsigned vcpu, uint64_t seq)
{
	static struct pv_vm vm;
	static struct pv_vcpu v;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	vm.pmu.nr_counters = 2;
	vm.pmu.event_mask = 0xFFFF;
	vm.pmu.evcntr_mask = UINT64_MAX;
	v.vm = &vm;
	v.id = vcpu;
	v.pmu.active = true;
	v.pmu.pmcr = 0x41;
	v.pmu.evtyper[0] = 0x8;
	v.pmu.evcntr[0] = 1000 + seq;
	struct pv_record_host h = {
		.seq = seq, .time_ns = seq * 100000000ull, .vm_name = name, .state = "running"};
	return pv_record_vcpu(buf, size, &v, &h);
}

/* The exposition, from a scrape that must succeed. */
static char *scrape(uint16_t port)
{
	char *body;
	size_t len;
	int st = sc_get(port, "/metrics", NULL, SCRAPE_MS, &body, &len);
	if (st != 200)
		fail_msg("scrape: HTTP status %d (0: no answer in %d ms)", st, SCRAPE_MS);
	return body;
}

/* Waits, scraping, until `sample` has `want`, at most 10 s; its last value. */
static long long wait_sample(uint16_t port, const char *sample, long long want)
{
	long long v = -1;
	for (unsigned i = 0; i < 100 && v != want; i++) {
		char *body = scrape(port);
		v = sc_sample(body, sample);
		free(body);
		if (v != want)
			usleep(100000);
	}
	return v;
}

#define TOO_LONG "perfvisor_records_read_total{status=\"too-long\"}"
#define OK "perfvisor_records_read_total{status=\"ok\"}"
#define NOT_RECORD "perfvisor_records_read_total{status=\"not-record\"}"

static void test_endless_line_bounded(void **state)
{
	(void)state;
	struct sc_serve s;
	static const char *const args[] = {"--input", "-", NULL};
	assert_true(sc_start(&s, TOOL_BIN, NULL, args));
	free(scrape(s.port)); /* what a scrape itself costs, in the peak before the line */
	unsigned long before = sc_proc_kib(s.pid, "VmHWM");
	assert_true(before > 0);
	/* 64 MiB and no newline, the pipe kept open: the line has not ended. */
	static char chunk[1 << 20];
	memset(chunk, 'x', sizeof(chunk));
	chunk[0] = 'P', chunk[1] = 'V', chunk[2] = 'R', chunk[3] = '1', chunk[4] = ' ';
	for (unsigned i = 0; i < 64; i++) {
		assert_true(sc_write(&s, chunk, sizeof(chunk)));
		chunk[0] = 'x';
	}
	long long counted = wait_sample(s.port, TOO_LONG, 1);
	if (counted != 1)
		fail_msg("a 64 MiB line still open: %s %lld, expected 1", TOO_LONG, counted);
	unsigned long after = sc_proc_kib(s.pid, "VmHWM");
	print_message(
		"peak resident memory: %lu KiB before the line, %lu KiB with 64 MiB of it\n",
		before, after);
	if (after > before + 8192)
		fail_msg("a 64 MiB line took the peak resident memory from %lu to %lu KiB",
			 before, after);
	/* Its end, then a record and a line of text: each read as itself. */
	char line[PV_RECORD_MAX];
	size_t n = record(line, sizeof(line), "vm0", 0, 1);
	assert_true(n > 0);
	assert_true(sc_write(&s, "yyy\n", 4));
	assert_true(sc_write(&s, line, n));
	assert_true(sc_write(&s, "console\n", 8));
	sc_close_input(&s);
	assert_true(sc_wait_stderr(&s, "end of", 10000));
	char *body = scrape(s.port);
	assert_int_equal(sc_sample(body, OK), 1);
	assert_int_equal(sc_sample(body, NOT_RECORD), 1);
	assert_int_equal(sc_sample(body, TOO_LONG), 1);
	free(body);
	assert_int_equal(sc_stop(&s), 0);
}

/* With --echo, a line longer than a record goes to stdout whole, as the console had it. */
static void test_long_line_echoed(void **state)
{
	(void)state;
	const char *out = tt_write_tmp("serve-echo.out", "");
	struct sc_serve s;
	static const char *const args[] = {"--input", "-", "--echo", NULL};
	assert_true(sc_start(&s, TOOL_BIN, out, args));
	static char longline[10001], edge[PV_RECORD_MAX + 1];
	memset(longline, 'z', sizeof(longline) - 1);
	memcpy(longline, "PVR1 ", 5);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	/* A line of exactly the bound, its newline included, is held and read as a line. */
	memset(edge, 'e', sizeof(edge) - 1);
	edge[PV_RECORD_MAX - 1] = '\n';
	edge[PV_RECORD_MAX] = '\0';
	char rec[PV_RECORD_MAX];
	size_t n = record(rec, sizeof(rec), "vm0", 0, 1);
	assert_true(sc_write(&s, "before\n", 7));
	assert_true(sc_write(&s, longline, strlen(longline)));
	assert_true(sc_write(&s, rec, n));
	assert_true(sc_write(&s, edge, strlen(edge)));
	assert_true(sc_write(&s, "after", 5)); /* no newline: its end is the input's */
	sc_close_input(&s);
	assert_true(sc_wait_stderr(&s, "end of", 10000));
	char *body = scrape(s.port);
	assert_int_equal(sc_sample(body, OK), 1);
	assert_int_equal(sc_sample(body, TOO_LONG), 1);
	assert_int_equal(sc_sample(body, NOT_RECORD), 3);
	free(body);
	assert_int_equal(sc_stop(&s), 0);
	static char got[20000];
	FILE *f = fopen(out, "rb");
	assert_non_null(f);
	size_t have = fread(got, 1, sizeof(got), f);
	fclose(f);
	size_t want = 7 + strlen(longline) + strlen(edge) + 5;
	assert_int_equal(have, want);
	assert_memory_equal(got, "before\n", 7);
	assert_memory_equal(got + 7, longline, strlen(longline));
	assert_memory_equal(got + 7 + strlen(longline), edge, strlen(edge));
	assert_memory_equal(got + want - 5, "after", 5);
	unlink(out);
}

/* Descriptors the process holds. */
static unsigned open_fds(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	unsigned n = 0;
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n > 2 ? n - 2 : 0; /* . and .. */
}

#define SLOW 2000u
#define SLOW_ADDRS 250u

static void test_scrapes_through_slow_clients(void **state)
{
	(void)state;
	if (!sc_fd_room(SLOW + 256)) {
		fflush(stdout);
		fprintf(stderr, "skipped: the descriptor limit is below %u (ulimit -Hn)\n",
			SLOW + 256);
		skip();
	}
	char text[4 * PV_RECORD_MAX];
	size_t at = 0;
	for (unsigned v = 0; v < 4; v++)
		at += record(text + at, sizeof(text) - at, "vm0", v, v);
	const char *in = tt_write_tmp("serve-slow.in", text);
	struct sc_serve s;
	const char *const args[] = {"--input", in, NULL};
	assert_true(sc_start(&s, TOOL_BIN, NULL, args));
	assert_true(sc_wait_stderr(&s, "end of", 10000));
	struct sc_slow slow;
	assert_true(sc_slow_start(&slow, s.port, SLOW, SLOW_ADDRS, 2000));
	/* All of them made, and a turn of their header lines. */
	uint64_t t0 = sc_now_ms();
	while (atomic_load(&slow.opened) < SLOW && sc_now_ms() - t0 < 20000)
		usleep(10000);
	assert_true(atomic_load(&slow.opened) >= SLOW);
	usleep(2000000);
	unsigned most_fds = 0;
	char *body = NULL;
	for (unsigned round = 0; round < 5; round++) {
		size_t len;
		double t = sc_now_s();
		int st = sc_get(s.port, "/metrics", NULL, SCRAPE_MS, &body, &len);
		t = sc_now_s() - t;
		unsigned fds = open_fds(s.pid);
		most_fds = fds > most_fds ? fds : most_fds;
		print_message(
			"scrape %u with %u slow clients open (%lu made): HTTP %d in %.3f s; "
			"the server holds %u descriptors\n",
			round, atomic_load(&slow.open), atomic_load(&slow.opened), st, t, fds);
		if (st != 200)
			fail_msg("scrape %u: HTTP status %d (0: no answer in %d ms) with %u "
				 "slow "
				 "clients",
				 round, st, SCRAPE_MS, atomic_load(&slow.open));
		assert_int_equal(sc_sample(body, OK), 4);
		if (round < 4) {
			free(body);
			usleep(3000000);
		}
	}
	sc_slow_stop(&slow);
	/* The limit did the work, and the connections held stayed few. */
	long long cut = sc_sample(body,
				  "perfvisor_serve_connections_cut_total{reason=\"limit\"}");
	print_message("connections cut at the limit: %lld\n", cut);
	assert_true(cut > 0);
	free(body);
	assert_true(most_fds <= 128);
	assert_int_equal(sc_stop(&s), 0);
	unlink(in);
}

/* One request on a kept-alive connection: true on a 200 with its whole body. */
static bool keepalive_get(int fd)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	if (poll(&p, 1, SCRAPE_MS) != 1 ||
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(req) - 1)
		return false;
	static char buf[1 << 20];
	size_t n = 0;
	uint64_t end = sc_now_ms() + SCRAPE_MS;
	for (;;) {
		buf[n] = '\0';
		char *h = strstr(buf, "\r\n\r\n"), *cl = strstr(buf, "Content-Length: ");
		if (h && cl && n >= (size_t)(h + 4 - buf) + strtoul(cl + 16, NULL, 10))
			return !strncmp(buf, "HTTP/1.1 200", 12);
		p = (struct pollfd){.fd = fd, .events = POLLIN};
		uint64_t now = sc_now_ms();
		if (now >= end || n + 1 >= sizeof(buf) || poll(&p, 1, (int)(end - now)) != 1)
			return false;
		ssize_t got = recv(fd, buf + n, sizeof(buf) - 1 - n, 0);
		if (got <= 0)
			return false;
		n += (size_t)got;
	}
}

static void test_deadline_is_the_whole_request(void **state)
{
	(void)state;
	struct sc_serve s;
	static const char *const args[] = {"--input", "-", NULL};
	assert_true(sc_start(&s, TOOL_BIN, NULL, args));
	int slow = sc_connect(s.port, "127.2.0.1"), alive = sc_connect(s.port, "127.2.0.2");
	assert_true(slow >= 0 && alive >= 0);
	uint64_t t0 = sc_now_ms(), cut_at = 0, next_line = t0;
	unsigned served = 0;
	bool started = false;
	/* For 15 s: a header line every second on one; on the other, a request every 4 s. */
	while (sc_now_ms() - t0 < 15000) {
		uint64_t now = sc_now_ms();
		if (!cut_at && now >= next_line) {
			const char *m = started ? "X-Slow: 1\r\n" : "GET /metrics HTTP/1.1\r\n";
			if (send(slow, m, strlen(m), MSG_NOSIGNAL) > 0)
				started = true;
			next_line = now + 1000;
		}
		char c;
		ssize_t got = recv(slow, &c, 1, MSG_DONTWAIT);
		if (!cut_at && (got == 0 || (got < 0 && errno != EAGAIN)))
			cut_at = now;
		if (now - t0 >= served * 4000ull && served < 4) {
			if (!keepalive_get(alive))
				fail_msg("request %u on a kept-alive connection was not "
					 "answered",
					 served);
			served++;
		}
		usleep(50000);
	}
	close(slow);
	close(alive);
	if (!cut_at)
		fail_msg("a request that sent a header line every second was still open at 15 "
			 "s");
	print_message("the trickling request was cut at %.1f s\n",
		      (double)(cut_at - t0) / 1000.0);
	assert_true(cut_at - t0 >= 9500); /* its deadline, not sooner */
	char *body = scrape(s.port);
	assert_int_equal(
		sc_sample(body, "perfvisor_serve_connections_cut_total{reason=\"deadline\"}"),
		1);
	free(body);
	assert_int_equal(sc_stop(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endless_line_bounded),
		cmocka_unit_test(test_long_line_echoed),
		cmocka_unit_test(test_scrapes_through_slow_clients),
		cmocka_unit_test(test_deadline_is_the_whole_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
