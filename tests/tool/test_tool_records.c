/* SPDX-License-Identifier: MIT */
/*
 * Reading live figures records (tools/records.c) and serving them (tools/records_expo.c,
 * tools/expo.c): records the library wrote are read back field for field; a record with one
 * byte changed, cut short, of another version, or with a bad field is skipped and counted,
 * never misread; the longest record the library can write is read; the metrics come out in
 * both exposition formats as each defines them, the SPE and AMU figures only for the vCPUs
 * that have them, and an HTTP Accept header picks the format as Prometheus' negotiation
 * expects. A console is split into lines in bounded memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "records.h"
#include "records_expo.h"

static const struct pv_record_exit exits[] = {{"sysreg-pmu", 7, 777}, {"irq-tick", 2, 0}};

/* A record as the library writes it, for a vCPU of a 2-counter VM that programmed
 * counter 1 with INST_RETIRED and wrote it, its cycle counter too. */
static size_t library_record(char *buf, size_t size, const char *name, uint64_t seq)
{
	static struct pv_vm vm;
	static struct pv_vcpu v;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	vm.pmu.nr_counters = 2;
	vm.pmu.event_mask = 0xFFFF;
	vm.pmu.evcntr_mask = UINT64_MAX; /* PMUv3p5: 64-bit event counters */
	v.vm = &vm;
	v.id = 1;
	v.pmu.active = true;
	v.pmu.pmcr = 0x41;
	v.pmu.evtyper[1] = 0x8;
	v.pmu.evcntr[1] = 123456;
	v.pmu.ccntr = 999;
	v.stats.traps[PV_KIND_PMU] = 7;
	v.stats.traps[PV_KIND_ID] = 3;
	v.stats.loads = 4;
	v.stats.pmu_irqs = 5;
	struct pv_record_host h = {.seq = seq,
				   .time_ns = 2500000000ull,
				   .vm_name = name,
				   .state = "waiting",
				   .switches_in = 6,
				   .nr_exits = 2,
				   .exits = exits};
	return pv_record_vcpu(buf, size, &v, &h);
}

static void test_round_trip(void **state)
{
	(void)state;
	char line[PV_RECORD_MAX];
	size_t n = library_record(line, sizeof(line), "web 1", 9);
	assert_true(n > 0);
	struct rec_vcpu r;
	assert_int_equal(rec_parse(line, n, &r), REC_OK);
	assert_int_equal(r.seq, 9);
	assert_int_equal(r.time_ns, 2500000000ull);
	assert_string_equal(r.vm, "web 1"); /* %20 undone */
	assert_int_equal(r.vcpu, 1);
	assert_string_equal(r.state, "waiting");
	assert_int_equal(r.loads, 4);
	assert_int_equal(r.switches, 6);
	assert_int_equal(r.pmu_irqs, 5);
	assert_int_equal(r.traps[PV_KIND_PMU], 7);
	assert_int_equal(r.traps[PV_KIND_ID], 3);
	assert_int_equal(r.nexits, 2);
	assert_string_equal(r.exit[0].kind, "sysreg-pmu");
	assert_int_equal(r.exit[0].exits, 7);
	assert_int_equal(r.exit[0].el2_instructions, 777);
	assert_true(r.pmu_used);
	assert_int_equal(r.pmcr, 0x41);
	assert_int_equal(r.ncounters, 3);
	assert_int_equal(r.counter[1].index, 1);
	assert_int_equal(r.counter[1].event, 0x8);
	assert_int_equal(r.counter[1].value, 123456);
	assert_int_equal(r.counter[2].index, PV_PMU_CYCLE_IDX);
	assert_int_equal(r.counter[2].value, 999);
	/* The reader's CRC is the library's, for every length and byte. */
	unsigned char bytes[300];
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)(i * 131 + 7);
	for (size_t len = 0; len <= sizeof(bytes); len++)
		assert_int_equal(rec_crc32(bytes, len), pv_record_crc32(bytes, len));
	/* Without its newline, and with CR LF, the same. */
	assert_int_equal(rec_parse(line, n - 1, &r), REC_OK);
	char crlf[PV_RECORD_MAX + 1];
	memcpy(crlf, line, n - 1);
	memcpy(crlf + n - 1, "\r\n", 2);
	assert_int_equal(rec_parse(crlf, n + 1, &r), REC_OK);
}

/* A line with a correct CRC over whatever body is given. */
static size_t signed_line(char *buf, size_t size, const char *body)
{
	return (size_t)snprintf(buf, size, "%s crc=%08x\n", body,
				pv_record_crc32(body, strlen(body)));
}

static void test_corrupt_truncated_skipped(void **state)
{
	(void)state;
	char line[PV_RECORD_MAX];
	size_t n = library_record(line, sizeof(line), "a", 1);
	struct rec_vcpu r;
	memset(&r, 0x5a, sizeof(r));
	struct rec_vcpu before = r;
	/* Every single-byte change of the body, and every cut, is caught. */
	for (size_t i = 0; i + 14 < n; i++) {
		char bad[PV_RECORD_MAX];
		memcpy(bad, line, n);
		bad[i] ^= 0x01;
		enum rec_status st = rec_parse(bad, n, &r);
		assert_true(st == REC_CRC || st == REC_NOT_RECORD || st == REC_VERSION);
	}
	for (size_t cut = 1; cut + 1 < n; cut++) {
		enum rec_status st = rec_parse(line, cut, &r);
		assert_true(st != REC_OK);
	}
	assert_memory_equal(&r, &before, sizeof(r)); /* nothing was written out */
	assert_int_equal(rec_parse("PVR2 seq=1 crc=00000000", 23, &r), REC_VERSION);
	assert_int_equal(rec_parse("[vm0] hello", 11, &r), REC_NOT_RECORD);
	assert_int_equal(rec_parse("", 0, &r), REC_NOT_RECORD);
}

static void test_malformed_fields(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0",                  /* no state */
		"PVR1 seq=x t_ns=2 vm=a vcpu=0 state=running",    /* not a number */
		"PVR1 seq=1 t_ns=2 vm=a b vcpu=0 state=running",  /* a field without = */
		"PVR1 seq=1 t_ns=2 vm=a%2 vcpu=0 state=running",  /* a cut escape */
		"PVR1 seq=1 t_ns=2 vm=a%00 vcpu=0 state=running", /* a NUL */
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=Running",    /* not a word */
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running pmc.31=0x8:1",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running pmc.0=8:1", /* event not hex */
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running pmc.0=0x8:1 pmc.0=0x8:2",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running exit.wfi=1",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running seq=99999999999999999999999",
		"PVR1 seq=1 t_ns=2 vm=%61 vcpu=0 state=running",  /* needless escape */
		"PVR1 seq=1 t_ns=2 vm=a%ff vcpu=0 state=running", /* not ASCII */
		"PVR1 seq=1 t_ns=2 vm=a%0a vcpu=0 state=running", /* a newline */
		"PVR1 seq=1 t_ns=2 vm=a%2A vcpu=0 state=running", /* upper-case hex */
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running ccnt=1 ccnt=2", /* twice */
		"PVR1 seq=1 t_ns=2 vm=a vm=b vcpu=0 state=running",
		"PVR1 seq=1 seq=1 t_ns=2 vm=a vcpu=0 state=running",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running trap.pmu=1 trap.pmu=1",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running x=\x7f", /* not printable */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[512];
		struct rec_vcpu r;
		size_t n = signed_line(line, sizeof(line), bad[i]);
		if (rec_parse(line, n, &r) != REC_MALFORMED)
			fail_msg("accepted: %s", bad[i]);
	}
	/* A key this reader does not know is a later PVR1's: the record is still read. */
	char line[512];
	struct rec_vcpu r;
	size_t n = signed_line(line, sizeof(line),
			       "PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running future.key=zz");
	assert_int_equal(rec_parse(line, n, &r), REC_OK);
	assert_string_equal(r.vm, "a");
}

/* A line longer than the library ever writes is refused, whatever its CRC. */
static void test_overlong_refused(void **state)
{
	(void)state;
	static char body[PV_RECORD_MAX + 64], line[PV_RECORD_MAX + 128];
	int n = snprintf(body, sizeof(body), "PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running x=");
	memset(body + n, 'y', PV_RECORD_MAX);
	body[n + PV_RECORD_MAX] = '\0';
	struct rec_vcpu r;
	size_t len = signed_line(line, sizeof(line), body);
	assert_int_equal(rec_parse(line, len, &r), REC_MALFORMED);
}

/* Full (REC_STORE_MAX vCPUs), the store forgets the vCPU heard from longest ago, and counts
 * it; the one it forgot is no longer found, the others still are. */
static void test_store_evicts_the_oldest(void **state)
{
	(void)state;
	struct rec_store *s = calloc(1, sizeof(*s));
	char line[PV_RECORD_MAX];
	for (unsigned i = 0; i <= REC_STORE_MAX; i++) {
		char name[16];
		snprintf(name, sizeof(name), "vm%u", i);
		size_t n = library_record(line, sizeof(line), name, i);
		assert_int_equal(rec_store_line(s, line, n), REC_OK);
		if (i == REC_STORE_MAX - 1) { /* vm0 heard from again: vm1 is now the oldest */
			n = library_record(line, sizeof(line), "vm0", 100);
			assert_int_equal(rec_store_line(s, line, n), REC_OK);
		}
	}
	assert_int_equal(s->n, REC_STORE_MAX);
	assert_int_equal(s->evicted, 1);
	bool vm0 = false, vm1 = false, vm64 = false;
	for (unsigned i = 0; i < s->n; i++) {
		vm0 |= !strcmp(s->vcpu[i].vm, "vm0");
		vm1 |= !strcmp(s->vcpu[i].vm, "vm1");
		vm64 |= !strcmp(s->vcpu[i].vm, "vm64");
	}
	assert_true(vm0 && !vm1 && vm64);
	/* vm1 again takes the place of the oldest now (vm2); vm0 is updated where it is. */
	size_t n = library_record(line, sizeof(line), "vm1", 200);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	n = library_record(line, sizeof(line), "vm0", 201);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_int_equal(s->n, REC_STORE_MAX);
	assert_int_equal(s->evicted, 2);
	unsigned vm0s = 0;
	for (unsigned i = 0; i < s->n; i++) {
		assert_string_not_equal(s->vcpu[i].vm, "vm2");
		if (!strcmp(s->vcpu[i].vm, "vm0")) {
			vm0s++;
			assert_int_equal(s->vcpu[i].seq, 201);
		}
	}
	assert_int_equal(vm0s, 1);
	free(s);
}

/* What rec_lines hands over, in order: a letter per piece (L, H, M) and the bytes. */
struct pieces {
	char kinds[64];
	unsigned n;
	char bytes[3 * REC_LINE_MAX];
	size_t len;
};

static void collect(void *ctx, enum rec_piece kind, const char *bytes, size_t len)
{
	struct pieces *p = ctx;
	assert_true(p->n + 1 < sizeof(p->kinds));
	assert_true(p->len + len <= sizeof(p->bytes));
	assert_true(len > 0);
	p->kinds[p->n++] = kind == REC_LINE ? 'L' : kind == REC_LONG_HEAD ? 'H' : 'M';
	memcpy(p->bytes + p->len, bytes, len);
	p->len += len;
}

/* Feeds `text` (len bytes) in pieces of `step`, then its end. */
static void split(struct pieces *p, const char *text, size_t len, size_t step)
{
	static struct rec_lines l;
	memset(p, 0, sizeof(*p));
	memset(&l, 0, sizeof(l));
	for (size_t at = 0; at < len; at += step)
		rec_lines_feed(&l, text + at, len - at < step ? len - at : step, collect, p);
	rec_lines_end(&l, collect, p);
}

/* A line up to REC_LINE_MAX bytes with its newline is handed over whole, however it came; a
 * longer one as its first REC_LINE_MAX bytes, then the rest in pieces to its newline, and the
 * line after it is a line again. Nothing is lost or added: the pieces are the input. */
static void test_lines_bounded(void **state)
{
	(void)state;
	static char text[3 * REC_LINE_MAX];
	static const size_t steps[] = {1, 7, REC_LINE_MAX - 1, REC_LINE_MAX, sizeof(text)};
	struct pieces p;
	for (unsigned k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		/* the bound exactly, then one more, then a short line and a last one unended */
		size_t n = 0;
		memset(text + n, 'a', REC_LINE_MAX - 1);
		n += REC_LINE_MAX - 1;
		text[n++] = '\n';
		memset(text + n, 'b', REC_LINE_MAX);
		n += REC_LINE_MAX;
		text[n++] = '\n';
		memcpy(text + n, "c\nd", 3);
		n += 3;
		split(&p, text, n, steps[k]);
		assert_int_equal(p.len, n);
		assert_memory_equal(p.bytes, text, n);
		assert_int_equal(p.kinds[0], 'L');
		assert_int_equal(p.kinds[1], 'H');
		unsigned i = 2;
		while (i < p.n && p.kinds[i] == 'M')
			i++;
		assert_true(i > 2);
		assert_int_equal(p.n, i + 2);
		assert_int_equal(p.kinds[i], 'L');
		assert_int_equal(p.kinds[i + 1], 'L');
	}
	/* A long line the input ends in: its head and rest, and nothing at the end. */
	memset(text, 'x', REC_LINE_MAX + 10);
	split(&p, text, REC_LINE_MAX + 10, 100);
	assert_int_equal(p.kinds[0], 'H');
	assert_int_equal(p.len, REC_LINE_MAX + 10);
	for (unsigned i = 1; i < p.n; i++)
		assert_int_equal(p.kinds[i], 'M');
	/* Empty lines are lines; an empty input none. */
	split(&p, "\n\n", 2, 1);
	assert_int_equal(p.n, 2);
	split(&p, "", 0, 1);
	assert_int_equal(p.n, 0);
}

static void test_store_keeps_the_last(void **state)
{
	(void)state;
	struct rec_store *s = calloc(1, sizeof(*s));
	char line[PV_RECORD_MAX];
	size_t n = library_record(line, sizeof(line), "a", 1);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	n = library_record(line, sizeof(line), "a", 2);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	n = library_record(line, sizeof(line), "b", 3);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	line[10] ^= 1;
	assert_int_equal(rec_store_line(s, line, n), REC_CRC);
	assert_int_equal(rec_store_line(s, "console text\n", 13), REC_NOT_RECORD);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->vcpu[0].seq, 2);
	assert_int_equal(s->lines[REC_OK], 3);
	assert_int_equal(s->lines[REC_CRC], 1);
	assert_int_equal(s->lines[REC_NOT_RECORD], 1);
	free(s);
}

static char *render(const struct rec_store *s, enum expo_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct expo e;
	expo_begin(&e, out, f);
	records_expo(&e, s);
	expo_end(&e);
	fclose(out);
	return buf;
}

static void test_exposition_formats(void **state)
{
	(void)state;
	struct rec_store *s = calloc(1, sizeof(*s));
	char line[PV_RECORD_MAX];
	size_t n = library_record(line, sizeof(line), "a\"b", 1);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	char *prom = render(s, EXPO_PROMETHEUS), *om = render(s, EXPO_OPENMETRICS);
	/* Prometheus 0.0.4: a counter's TYPE names its samples, _total included; no UNIT, no
	 * EOF. OpenMetrics: the family without _total, its samples with it; UNIT; # EOF. */
	assert_non_null(strstr(prom, "# TYPE perfvisor_vcpu_traps_total counter\n"));
	assert_non_null(strstr(prom, "perfvisor_vcpu_traps_total{domain=\"a\\\"b\",vcpu=\"1\","
				     "group=\"pmu\"} 7\n"));
	assert_null(strstr(prom, "# UNIT"));
	assert_null(strstr(prom, "# EOF"));
	assert_non_null(strstr(om, "# TYPE perfvisor_vcpu_traps counter\n"));
	assert_non_null(strstr(om, "perfvisor_vcpu_traps_total{domain=\"a\\\"b\",vcpu=\"1\","
				   "group=\"pmu\"} 7\n"));
	assert_non_null(strstr(om, "# UNIT perfvisor_vcpu_record_time_seconds seconds\n"));
	assert_non_null(strstr(om, "perfvisor_vcpu_record_time_seconds{domain=\"a\\\"b\","
				   "vcpu=\"1\"} 2.5\n"));
	size_t oml = strlen(om);
	assert_string_equal(om + oml - 6, "# EOF\n");
	/* An event by its number and, beside it, its name as perf spells it. */
	assert_non_null(strstr(prom, "perfvisor_vcpu_pmu_events{domain=\"a\\\"b\",vcpu=\"1\","
				     "counter=\"1\",event=\"0x0008\",name=\"inst_retired\"} "
				     "123456\n"));
	assert_non_null(strstr(prom, "counter=\"cycle\",event=\"0x0011\",name=\"cpu_cycles\"} "
				     "999\n"));
	assert_non_null(strstr(prom, "perfvisor_vcpu_state{domain=\"a\\\"b\",vcpu=\"1\","
				     "state=\"waiting\"} 1\n"));
	assert_non_null(strstr(prom, "perfvisor_records_read_total{status=\"ok\"} 1\n"));
	free(prom);
	free(om);
	free(s);
}

/* A vCPU of a VM with SPE: the library's spe= read back and served, a family a figure,
 * samples for that vCPU only; none of them when no vCPU has SPE. */
static void test_spe_figures(void **state)
{
	(void)state;
	static struct pv_vm vm;
	static struct pv_vcpu v;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	vm.spe.version = PV_SPE_V1P1;
	v.vm = &vm;
	v.id = 2;
	v.spe.stats = (struct pv_vspe_stats){.bytes = 2094149,
					     .enables = 52,
					     .rejected = 3,
					     .events = 22,
					     .chunks = 7,
					     .s2_faults = 1,
					     .records_lost = 1};
	v.spe.pinned_bytes = 45056;
	struct pv_record_host h = {.vm_name = "spe", .state = "running"};
	char line[PV_RECORD_MAX];
	size_t n = pv_record_vcpu(line, sizeof(line), &v, &h);
	assert_true(n > 0);
	struct rec_store *s = calloc(1, sizeof(*s));
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_true(s->vcpu[0].has_spe);
	assert_int_equal(s->vcpu[0].spe.bytes, 2094149);
	assert_int_equal(s->vcpu[0].spe.pinned, 45056);
	assert_int_equal(s->vcpu[0].spe.enables, 52);
	assert_int_equal(s->vcpu[0].spe.rejected, 3);
	assert_int_equal(s->vcpu[0].spe.events, 22);
	assert_int_equal(s->vcpu[0].spe.chunks, 7);
	assert_int_equal(s->vcpu[0].spe.s2_faults, 1);
	n = library_record(line, sizeof(line), "nospe", 2); /* beside it, a VM without */
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_false(s->vcpu[1].has_spe);
	char *prom = render(s, EXPO_PROMETHEUS), *om = render(s, EXPO_OPENMETRICS);
	static const char *const want[] = {
		"# TYPE perfvisor_vcpu_spe_written_bytes_total counter\n"
		"perfvisor_vcpu_spe_written_bytes_total{domain=\"spe\",vcpu=\"2\"} 2094149\n",
		"# TYPE perfvisor_vcpu_spe_pinned_bytes gauge\n"
		"perfvisor_vcpu_spe_pinned_bytes{domain=\"spe\",vcpu=\"2\"} 45056\n",
		"perfvisor_vcpu_spe_buffer_enables_total{domain=\"spe\",vcpu=\"2\"} 52\n",
		"perfvisor_vcpu_spe_buffer_rejected_total{domain=\"spe\",vcpu=\"2\"} 3\n",
		"perfvisor_vcpu_spe_buffer_events_total{domain=\"spe\",vcpu=\"2\"} 22\n",
		"perfvisor_vcpu_spe_pin_chunks_total{domain=\"spe\",vcpu=\"2\"} 7\n",
		"perfvisor_vcpu_spe_stage2_faults_total{domain=\"spe\",vcpu=\"2\"} 1\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(prom, want[i]))
			fail_msg("missing: %s", want[i]);
	assert_null(strstr(prom, "vcpu_spe_pinned_bytes{domain=\"nospe\""));
	assert_non_null(strstr(om, "# TYPE perfvisor_vcpu_spe_written_bytes counter\n"
				   "# UNIT perfvisor_vcpu_spe_written_bytes bytes\n"));
	assert_non_null(strstr(om, "# UNIT perfvisor_vcpu_spe_pinned_bytes bytes\n"));
	free(prom);
	free(om);
	memset(s, 0, sizeof(*s));
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	prom = render(s, EXPO_PROMETHEUS);
	assert_null(strstr(prom, "_spe_"));
	free(prom);
	/* Seven numbers, no more, no fewer, once. */
	static const char *const bad[] = {
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,4,5,6",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,4,5,6,7,8",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,,5,6,7",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,4,5,6,x",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,4,5,6,7,",
		"PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running spe=1,2,3,4,5,6,7 "
		"spe=1,2,3,4,5,6,7",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rec_vcpu r;
		n = signed_line(line, sizeof(line), bad[i]);
		if (rec_parse(line, n, &r) != REC_MALFORMED)
			fail_msg("accepted: %s", bad[i]);
	}
	free(s);
}

/* A record the library wrote for vCPU `id` of a VM with the AMU and `aux` auxiliary counters,
 * not loaded: its counters are those it had at its last put, count[k]. */
static size_t amu_record(char *buf, size_t size, const char *name, unsigned id, unsigned aux,
			 const uint64_t *count)
{
	static struct pv_vm vm;
	static struct pv_vcpu v;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	vm.amu.version = PV_AMU_V1P1;
	vm.amu.nr_aux = (uint8_t)aux;
	vm.amu.nr = (uint8_t)(PV_AMU_GROUP0 + aux);
	v.vm = &vm;
	v.id = id;
	memcpy(v.amu.val, count, (PV_AMU_GROUP0 + aux) * sizeof(count[0]));
	struct pv_record_host h = {.vm_name = name, .state = "running"};
	return pv_record_vcpu(buf, size, &v, &h);
}

/* A vCPU of a VM with the AMU: the library's amu= read back, counter for counter, and served:
 * group 0 in perfvisor_vcpu_amu_events_total{counter=<name>}, as `perfvisor stats` has it, the
 * auxiliary counters in perfvisor_vcpu_amu_aux_events_total{counter=<n>}; nothing for a vCPU
 * without the AMU, no auxiliary family where no VM has one, no family at all where no VM has
 * the AMU. A malformed amu= is refused and counted, and the vCPU's last good record stays. */
static void test_amu_figures(void **state)
{
	(void)state;
	const uint64_t counts[7] = {40439880, 20219944, 12479960, 1234567, 11, 0, UINT64_MAX};
	char line[PV_RECORD_MAX];
	size_t n = amu_record(line, sizeof(line), "amu", 3, 3, counts);
	assert_true(n > 0);
	assert_non_null(strstr(line, " amu=40439880,20219944,12479960,1234567,11,0,"
				     "18446744073709551615 crc="));
	struct rec_store *s = calloc(1, sizeof(*s));
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_int_equal(s->vcpu[0].namu, 7);
	assert_memory_equal(s->vcpu[0].amu, counts, sizeof(counts));
	n = library_record(line, sizeof(line), "noamu", 2); /* beside it, a VM without */
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_int_equal(s->vcpu[1].namu, 0);
	char *prom = render(s, EXPO_PROMETHEUS), *om = render(s, EXPO_OPENMETRICS);
	static const char *const want[] = {
		"# HELP perfvisor_vcpu_amu_events_total A vCPU's own activity-monitor count",
		"# TYPE perfvisor_vcpu_amu_events_total counter\n"
		"perfvisor_vcpu_amu_events_total{domain=\"amu\",vcpu=\"3\","
		"counter=\"cpu_cycles\"} 40439880\n"
		"perfvisor_vcpu_amu_events_total{domain=\"amu\",vcpu=\"3\","
		"counter=\"cnt_cycles\"} 20219944\n"
		"perfvisor_vcpu_amu_events_total{domain=\"amu\",vcpu=\"3\","
		"counter=\"inst_retired\"} 12479960\n"
		"perfvisor_vcpu_amu_events_total{domain=\"amu\",vcpu=\"3\","
		"counter=\"stall_backend_mem\"} 1234567\n"
		"# HELP perfvisor_vcpu_amu_aux_events_total ",
		"# TYPE perfvisor_vcpu_amu_aux_events_total counter\n"
		"perfvisor_vcpu_amu_aux_events_total{domain=\"amu\",vcpu=\"3\",counter=\"0\"} "
		"11\n"
		"perfvisor_vcpu_amu_aux_events_total{domain=\"amu\",vcpu=\"3\",counter=\"1\"} "
		"0\n"
		"perfvisor_vcpu_amu_aux_events_total{domain=\"amu\",vcpu=\"3\",counter=\"2\"} "
		"18446744073709551615\n#",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(prom, want[i]))
			fail_msg("missing: %s\nin:\n%s", want[i], prom);
	assert_null(strstr(prom, "amu_events_total{domain=\"noamu\""));
	assert_null(strstr(prom, "amu_aux_events_total{domain=\"noamu\""));
	assert_non_null(strstr(om, "# TYPE perfvisor_vcpu_amu_events counter\n"));
	assert_non_null(strstr(om, "# TYPE perfvisor_vcpu_amu_aux_events counter\n"));
	assert_non_null(strstr(om, "perfvisor_vcpu_amu_aux_events_total{domain=\"amu\","
				   "vcpu=\"3\",counter=\"0\"} 11\n"));
	free(prom);
	free(om);
	/* A VM with the AMU and no auxiliary counter: group 0 only. */
	memset(s, 0, sizeof(*s));
	n = amu_record(line, sizeof(line), "g0", 0, 0, counts);
	assert_non_null(strstr(line, " amu=40439880,20219944,12479960,1234567 crc="));
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	assert_int_equal(s->vcpu[0].namu, 4);
	prom = render(s, EXPO_PROMETHEUS);
	assert_non_null(strstr(prom, "perfvisor_vcpu_amu_events_total{domain=\"g0\",vcpu=\"0\","
				     "counter=\"stall_backend_mem\"} 1234567\n"));
	assert_null(strstr(prom, "_aux_"));
	free(prom);
	/* No VM with the AMU: no AMU family. */
	memset(s, 0, sizeof(*s));
	n = library_record(line, sizeof(line), "noamu", 2);
	assert_int_equal(rec_store_line(s, line, n), REC_OK);
	prom = render(s, EXPO_PROMETHEUS);
	assert_null(strstr(prom, "_amu_"));
	free(prom);
	/* 4 to 20 decimal numbers, none empty, once. */
#define AMU_REC "PVR1 seq=1 t_ns=2 vm=a vcpu=0 state=running "
	static const char *const good[] = {
		AMU_REC "amu=1,2,3,4",
		AMU_REC "amu=0,0,0,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,18446744073709551615",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rec_vcpu r;
		n = signed_line(line, sizeof(line), good[i]);
		if (rec_parse(line, n, &r) != REC_OK)
			fail_msg("refused: %s", good[i]);
		assert_int_equal(r.namu, i ? 20 : 4);
		assert_int_equal(r.amu[r.namu - 1], i ? UINT64_MAX : 4);
	}
	static const char *const bad[] = {
		AMU_REC "amu=",
		AMU_REC "amu=1,2,3",
		AMU_REC "amu=0,0,0,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		AMU_REC "amu=1,2,,4",
		AMU_REC "amu=1,2,3,4,",
		AMU_REC "amu=,1,2,3,4",
		AMU_REC "amu=1,2,3,x",
		AMU_REC "amu=1,2,3,4a",
		AMU_REC "amu=1,2,3,0x4",
		AMU_REC "amu=1,2,3,-4",
		AMU_REC "amu=1,2,3,+4",
		AMU_REC "amu=1,2,3,18446744073709551616", /* 2^64 */
		AMU_REC "amu=1,2,3,4 amu=1,2,3,4",
	};
	/* Each after a good record of the same vCPU: refused, counted, and that one kept. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(s, 0, sizeof(*s));
		n = signed_line(line, sizeof(line), good[0]);
		assert_int_equal(rec_store_line(s, line, n), REC_OK);
		n = signed_line(line, sizeof(line), bad[i]);
		if (rec_store_line(s, line, n) != REC_MALFORMED)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(s->n, 1);
		assert_int_equal(s->lines[REC_MALFORMED], 1);
		assert_int_equal(s->vcpu[0].namu, 4);
		for (unsigned k = 0; k < 4; k++)
			assert_int_equal(s->vcpu[0].amu[k], k + 1);
	}
#undef AMU_REC
	free(s);
}

/* The longest record the library can write (every limit of the host's side reached, every
 * name byte escaped, 31 counters, SPE, the AMU with 16 auxiliary counters, every number at its
 * widest) is read, with its newline or CR LF: the reader's bound is the writer's. */
static void test_longest_record_read(void **state)
{
	(void)state;
	static struct pv_vm vm;
	static struct pv_vcpu v;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	vm.pmu.nr_counters = 31;
	vm.pmu.event_mask = 0xFFFF;
	vm.pmu.evcntr_mask = UINT64_MAX;
	vm.spe.version = PV_SPE_V1P2;
	vm.amu.version = PV_AMU_V1P1;
	vm.amu.nr_aux = PV_AMU_AUX_MAX;
	vm.amu.nr = PV_AMU_COUNTERS;
	v.vm = &vm;
	v.id = UINT32_MAX;
	v.pmu.active = true;
	v.pmu.pmcr = UINT64_MAX;
	for (unsigned k = 0; k < 31; k++) {
		v.pmu.evtyper[k] = 0xFFFF;
		v.pmu.evcntr[k] = UINT64_MAX;
	}
	v.pmu.ccntr = UINT64_MAX;
	v.stats.loads = v.stats.pmu_irqs = UINT64_MAX;
	for (unsigned k = 0; k < PV_KIND_COUNT; k++)
		v.stats.traps[k] = UINT64_MAX;
	memset(&v.spe.stats, 0xFF, sizeof(v.spe.stats));
	v.spe.pinned_bytes = UINT64_MAX;
	for (unsigned k = 0; k < PV_AMU_COUNTERS; k++)
		v.amu.val[k] = UINT64_MAX;
	static char kinds[PV_RECORD_MAX_EXIT_KINDS][PV_RECORD_MAX_WORD + 1];
	struct pv_record_exit ex[PV_RECORD_MAX_EXIT_KINDS];
	for (unsigned k = 0; k < PV_RECORD_MAX_EXIT_KINDS; k++) {
		memset(kinds[k], 'a' + k % 26, PV_RECORD_MAX_WORD);
		kinds[k][0] = (char)('a' + k / 26);
		ex[k] = (struct pv_record_exit){kinds[k], UINT64_MAX, UINT64_MAX};
	}
	char name[PV_RECORD_MAX_NAME + 1];
	memset(name, '"', PV_RECORD_MAX_NAME); /* each written as %22 */
	name[PV_RECORD_MAX_NAME] = '\0';
	struct pv_record_host h = {.seq = UINT64_MAX,
				   .time_ns = UINT64_MAX,
				   .vm_name = name,
				   .state = "aaaaaaaaaaaaaaa",
				   .switches_in = UINT64_MAX,
				   .nr_exits = PV_RECORD_MAX_EXIT_KINDS,
				   .exits = ex};
	static char line[PV_RECORD_MAX + 1];
	size_t n = pv_record_vcpu(line, PV_RECORD_MAX, &v, &h);
	assert_int_equal(n + 1, 4510); /* with its NUL: record.h's arithmetic */
	struct rec_vcpu r;
	assert_int_equal(rec_parse(line, n, &r), REC_OK);
	assert_int_equal(r.ncounters, 32);
	assert_int_equal(r.nexits, PV_RECORD_MAX_EXIT_KINDS);
	assert_string_equal(r.vm, name);
	assert_int_equal(r.namu, PV_AMU_COUNTERS);
	for (unsigned k = 0; k < PV_AMU_COUNTERS; k++)
		assert_int_equal(r.amu[k], UINT64_MAX);
	assert_int_equal(r.spe.s2_faults, UINT64_MAX);
	memcpy(line + n - 1, "\r\n", 3);
	assert_int_equal(rec_parse(line, n + 1, &r), REC_OK);
}

static void test_negotiation(void **state)
{
	(void)state;
	/* What Prometheus 2.42 sends: OpenMetrics first. */
	assert_int_equal(
		expo_negotiate("application/openmetrics-text;version=1.0.0,application/"
			       "openmetrics-text;version=0.0.1;q=0.75,text/plain;"
			       "version=0.0.4;q=0.5,*/*;q=0.1"),
		EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate(NULL), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("*/*"), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("text/plain; version=0.0.4"), EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("text/plain, Application/OpenMetrics-Text ; q=0.3"),
			 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("text/plain;q=0.3, Application/OpenMetrics-Text"),
			 EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate("application/openmetrics-text; q=0"), EXPO_PROMETHEUS);
	/* preference by q-value, RFC 9110's syntax for it */
	assert_int_equal(expo_negotiate("text/plain;q=1, application/openmetrics-text;q=0.1"),
			 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("*/*;q=0.9, application/openmetrics-text;q=0.95"),
			 EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate("application/openmetrics-text; q = 0"),
			 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("application/openmetrics-text;q=1e-3"),
			 EXPO_PROMETHEUS);
	assert_int_equal(expo_negotiate("application/openmetrics-text;version=1.0.0;Q=0.5"),
			 EXPO_OPENMETRICS);
	assert_int_equal(expo_negotiate("application/openmetrics-textual"), EXPO_PROMETHEUS);
	assert_string_equal(expo_content_type(EXPO_PROMETHEUS),
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(expo_content_type(EXPO_OPENMETRICS),
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_corrupt_truncated_skipped),
		cmocka_unit_test(test_malformed_fields),
		cmocka_unit_test(test_overlong_refused),
		cmocka_unit_test(test_store_evicts_the_oldest),
		cmocka_unit_test(test_store_keeps_the_last),
		cmocka_unit_test(test_lines_bounded),
		cmocka_unit_test(test_exposition_formats),
		cmocka_unit_test(test_spe_figures),
		cmocka_unit_test(test_amu_figures),
		cmocka_unit_test(test_longest_record_read),
		cmocka_unit_test(test_negotiation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
