/* SPDX-License-Identifier: MIT */
/* The live figures record (include/perfvisor/record.h, docs/records.md): the exact line for a
 * known vCPU state, its CRC-32 (checked against the standard check value), names escaped, the
 * PMU interrupt's rising edges counted, and no record at all where one would not be whole. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esr.h"
#include "memplat.h"
#include "vcpu_rig.h"
#include "perfvisor/record.h"
#include "perfvisor/trap.h"
#include "perfvisor/vspe.h"

static struct vcpu_rig *rig_new(void)
{
	return vcpu_rig_new(0, PV_FEAT_PMU, PV_PMUVER_V3P5, 2);
}

static void guest_write(struct vcpu_rig *r, uint32_t key, uint64_t val)
{
	r->x[3] = val;
	assert_int_equal(pv_trap(&r->v, esr_sys(key, 3, false), 1, r->x), PV_TRAP_HANDLED);
}

static const struct pv_record_exit exits[] = {{"sysreg-pmu", 4, 444}, {"wfi", 1, 0}};

static struct pv_record_host host(const char *name)
{
	return (struct pv_record_host){.seq = 3,
				       .time_ns = 1500000,
				       .vm_name = name,
				       .state = "running",
				       .switches_in = 2,
				       .nr_exits = 2,
				       .exits = exits};
}

/* The line without " crc=XXXXXXXX\n", after checking that field against the rest. */
static void check_crc(const char *rec, size_t len, char *body, size_t body_size)
{
	assert_true(len > 14 && rec[len - 1] == '\n');
	const char *crc = rec + len - 14;
	assert_memory_equal(crc, " crc=", 5);
	size_t n = (size_t)(crc - rec);
	char want[9];
	snprintf(want, sizeof(want), "%08x", pv_record_crc32(rec, n));
	assert_memory_equal(crc + 5, want, 8);
	assert_true(n < body_size);
	memcpy(body, rec, n);
	body[n] = '\0';
}

static void test_crc32_check_value(void **state)
{
	(void)state;
	/* The CRC-32/ISO-HDLC check value of "123456789", as zlib's crc32 gives it. */
	assert_int_equal(pv_record_crc32("123456789", 9), 0xCBF43926u);
	assert_int_equal(pv_record_crc32("", 0), 0);
}

static void test_record_of_an_idle_vcpu(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	char rec[PV_RECORD_MAX], body[PV_RECORD_MAX];
	struct pv_record_host h = host("exact");
	size_t len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	assert_int_equal(len, strlen(rec));
	check_crc(rec, len, body, sizeof(body));
	assert_string_equal(body, "PVR1 seq=3 t_ns=1500000 vm=exact vcpu=0 state=running "
				  "loads=1 switches=2 pmu_irqs=0 trap.pmu=0 trap.spe=0 "
				  "trap.amu=0 trap.mpam=0 trap.id=0 exit.sysreg-pmu=4,444 "
				  "exit.wfi=1,0");
	free(r);
}

static void test_record_with_counters(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	guest_write(r, PV_PMEVTYPER_EL0(1), 0x8 | (1ul << 31)); /* INST_RETIRED, not at EL1 */
	guest_write(r, PV_PMEVCNTR_EL0(1), 1234);
	guest_write(r, PV_PMCCNTR_EL0, 99);
	guest_write(r, PV_PMCR_EL0, 1);
	char rec[PV_RECORD_MAX], body[PV_RECORD_MAX];
	struct pv_record_host h = host("exact");
	h.nr_exits = 0;
	size_t len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	check_crc(rec, len, body, sizeof(body));
	assert_string_equal(body, "PVR1 seq=3 t_ns=1500000 vm=exact vcpu=0 state=running "
				  "loads=1 switches=2 pmu_irqs=0 trap.pmu=4 trap.spe=0 "
				  "trap.amu=0 trap.mpam=0 trap.id=0 pmcr=0x1 pmc.0=0x0:0 "
				  "pmc.1=0x8:1234 ccnt=99");
	free(r);
}

static void test_names_escaped_host_words_checked(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	char rec[PV_RECORD_MAX];
	struct pv_record_host h = host("my vm=1%");
	assert_true(pv_record_vcpu(rec, sizeof(rec), &r->v, &h) > 0);
	assert_non_null(strstr(rec, " vm=my%20vm%3d1%25 vcpu=0 "));
	h = host("a");
	h.state = "Running now";
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	assert_string_equal(rec, "");
	struct pv_record_exit bad[] = {{"irq tick", 1, 1}};
	h = host("a");
	h.exits = bad;
	h.nr_exits = 1;
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	h.nr_exits = PV_RECORD_MAX_EXIT_KINDS + 1;
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	free(r);
}

/* The record's length with its NUL were its counters at their widest: 31 of them (those the
 * VM has and those it lacks), each " pmc.NN=0xffff:" and 20 digits, and ccnt's 20 digits. */
static size_t widest_counters(const char *rec, size_t len, unsigned missing)
{
	size_t n = len + 1 + missing * 35;
	for (const char *p = strstr(rec, " pmc."); p; p = strstr(p + 1, " pmc."))
		n = n - (strcspn(p + 1, " ") + 1) + 35;
	const char *ccnt = strstr(rec, " ccnt=");
	assert_non_null(ccnt);
	return n - strcspn(ccnt + 6, " ") + 20;
}

/* The host's side within the limits, every number at its widest, every name byte escaped,
 * the VM with SPE: the record fits in PV_RECORD_MAX with room for the counters this VM lacks
 * (31 in all), exactly the 4096 bytes record.h counts; beyond the limits there is none. */
static void test_limits(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	guest_write(r, PV_PMCR_EL0, 1); /* the PMU used: its fields are written */
	r->v.pmu.pmcr = UINT64_MAX;
	r->v.id = UINT32_MAX;
	r->vm.spe.version = PV_SPE_V1; /* its figures written, every one at its widest */
	memset(&r->v.spe.stats, 0xFF, sizeof(r->v.spe.stats));
	r->v.spe.pinned_bytes = UINT64_MAX;
	static char kinds[PV_RECORD_MAX_EXIT_KINDS][PV_RECORD_MAX_WORD + 2];
	struct pv_record_exit ex[PV_RECORD_MAX_EXIT_KINDS];
	for (unsigned k = 0; k < PV_RECORD_MAX_EXIT_KINDS; k++) {
		memset(kinds[k], 'a' + k % 26, PV_RECORD_MAX_WORD);
		kinds[k][PV_RECORD_MAX_WORD] = '\0';
		ex[k] = (struct pv_record_exit){kinds[k], UINT64_MAX, UINT64_MAX};
	}
	char name[PV_RECORD_MAX_NAME + 2];
	memset(name, ' ', PV_RECORD_MAX_NAME); /* each written as %20 */
	name[PV_RECORD_MAX_NAME] = '\0';
	for (unsigned k = 0; k < PV_KIND_COUNT; k++)
		r->v.stats.traps[k] = UINT64_MAX;
	r->v.stats.loads = r->v.stats.pmu_irqs = UINT64_MAX;
	struct pv_record_host h = {.seq = UINT64_MAX,
				   .time_ns = UINT64_MAX,
				   .vm_name = name,
				   .state = "aaaaaaaaaaaaaaa", /* 15 */
				   .switches_in = UINT64_MAX,
				   .nr_exits = PV_RECORD_MAX_EXIT_KINDS,
				   .exits = ex};
	static char rec[PV_RECORD_MAX];
	size_t len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	unsigned missing = 31 - r->vm.pmu.nr_counters;
	assert_true(len > 0);
	assert_non_null(strstr(rec, " spe=18446744073709551615,18446744073709551615,"));
	assert_int_equal(widest_counters(rec, len, missing), PV_RECORD_MAX);
	/* one more byte of name, of state, of an exit kind: refused */
	name[PV_RECORD_MAX_NAME] = 'x';
	name[PV_RECORD_MAX_NAME + 1] = '\0';
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	name[PV_RECORD_MAX_NAME] = '\0';
	h.state = "aaaaaaaaaaaaaaaa"; /* 16 */
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	h.state = "running";
	kinds[3][PV_RECORD_MAX_WORD] = 'z';
	kinds[3][PV_RECORD_MAX_WORD + 1] = '\0';
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	kinds[3][PV_RECORD_MAX_WORD] = '\0';
	assert_true(pv_record_vcpu(rec, sizeof(rec), &r->v, &h) > 0);
	h.vm_name = "";
	assert_int_equal(pv_record_vcpu(rec, sizeof(rec), &r->v, &h), 0);
	free(r);
}

/* A vCPU of a VM with SPE: its figures in their order, after the PMU's; none without SPE. */
static void test_spe_figures(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	char rec[PV_RECORD_MAX], body[PV_RECORD_MAX];
	struct pv_record_host h = host("exact");
	h.nr_exits = 0;
	struct pv_vspe_stats *st = &r->v.spe.stats;
	st->bytes = 1;
	r->v.spe.pinned_bytes = 2;
	st->enables = 3;
	st->rejected = 4;
	st->events = 5;
	st->chunks = 6;
	st->s2_faults = 7;
	st->records_lost = st->pin_calls = 99; /* not in the record */
	size_t len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	check_crc(rec, len, body, sizeof(body));
	assert_null(strstr(body, " spe="));
	r->vm.spe.version = PV_SPE_V1P1;
	len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	check_crc(rec, len, body, sizeof(body));
	assert_string_equal(body, "PVR1 seq=3 t_ns=1500000 vm=exact vcpu=0 state=running "
				  "loads=1 switches=2 pmu_irqs=0 trap.pmu=0 trap.spe=0 "
				  "trap.amu=0 trap.mpam=0 trap.id=0 spe=1,2,3,4,5,6,7");
	free(r);
}

static void test_no_partial_record(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	char rec[PV_RECORD_MAX], small[PV_RECORD_MAX];
	struct pv_record_host h = host("exact");
	size_t len = pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	/* Room for the line and its NUL: written whole; one byte less: nothing. */
	assert_int_equal(pv_record_vcpu(small, len + 1, &r->v, &h), len);
	assert_string_equal(small, rec);
	for (size_t size = 1; size <= len; size++) {
		memset(small, 'x', sizeof(small));
		assert_int_equal(pv_record_vcpu(small, size, &r->v, &h), 0);
		assert_int_equal(small[0], '\0');
	}
	assert_int_equal(pv_record_vcpu(small, 0, &r->v, &h), 0);
	free(r);
}

static void test_pmu_irqs_count_rising_edges(void **state)
{
	(void)state;
	struct vcpu_rig *r = rig_new();
	guest_write(r, PV_PMINTENSET_EL1, 1);
	guest_write(r, PV_PMCR_EL0, 1);
	guest_write(r, PV_PMOVSSET_EL0, 1); /* level rises */
	guest_write(r, PV_PMOVSSET_EL0, 1); /* stays high: no new edge */
	guest_write(r, PV_PMOVSCLR_EL0, 1); /* falls */
	guest_write(r, PV_PMOVSSET_EL0, 1); /* rises again */
	assert_int_equal(r->v.stats.pmu_irqs, 2);
	char rec[PV_RECORD_MAX];
	struct pv_record_host h = host("exact");
	pv_record_vcpu(rec, sizeof(rec), &r->v, &h);
	assert_non_null(strstr(rec, " pmu_irqs=2 "));
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_check_value),
		cmocka_unit_test(test_record_of_an_idle_vcpu),
		cmocka_unit_test(test_record_with_counters),
		cmocka_unit_test(test_names_escaped_host_words_checked),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_spe_figures),
		cmocka_unit_test(test_no_partial_record),
		cmocka_unit_test(test_pmu_irqs_count_rising_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
