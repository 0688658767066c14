/* SPDX-License-Identifier: MIT */
/* The live figures record (include/perfvisor/record.h, docs/records.md): the exact line for a
 * known vCPU state, its CRC-32 (checked against the standard check value), names escaped, the
 * PMU interrupt's rising edges counted, a vCPU's AMU counters as pv_vamu_counter() gives them,
 * loaded or not, and no record at all where one would not be whole. */
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
#include "test_vamu_rig.h"
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
 * VM has and those it lacks), each " pmc.<n>=0xffff:" and 20 digits, and ccnt's 20 digits. */
static size_t widest_counters(const char *rec, size_t len)
{
	size_t n = len + 1;
	for (const char *p = strstr(rec, " pmc."); p; p = strstr(p + 1, " pmc."))
		n -= strcspn(p + 1, " ") + 1;
	for (unsigned i = 0; i < 31; i++)
		n += strlen(" pmc.=0xffff:") + (i < 10 ? 1 : 2) + 20;
	const char *ccnt = strstr(rec, " ccnt=");
	assert_non_null(ccnt);
	return n - strcspn(ccnt + 6, " ") + 20;
}

/* The longest record, with its newline and NUL: record.h's arithmetic. */
#define WIDEST_RECORD 4510

/* The key of the vCPU's AMU counter k (pv_vamu_counter's numbering). */
static uint32_t amu_key(unsigned k)
{
	return k < PV_AMU_GROUP0 ? PV_AMEVCNTR0_EL0(k) : PV_AMEVCNTR1_EL0(k - PV_AMU_GROUP0);
}

/* The host's side within the limits, every number at its widest, every name byte escaped,
 * the VM with SPE and the AMU with every auxiliary counter: the record fits in PV_RECORD_MAX
 * with room for the counters this VM lacks (31 in all), exactly the 4510 bytes record.h
 * counts; beyond the limits there is none. */
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
	/* An AMU with the most auxiliary counters, and more than pv_vm_init() allows (the record
	 * holds no more of them); the vCPU is loaded: each counter the hardware's minus an offset
	 * one above it, 2^64 - 1. */
	r->vm.amu.version = PV_AMU_V1P1;
	r->vm.amu.nr_aux = PV_AMU_AUX_MAX + 1;
	r->vm.amu.nr = PV_AMU_COUNTERS;
	for (unsigned k = 0; k < PV_AMU_COUNTERS; k++)
		r->v.amu.off[k] = *memplat_reg(&r->mc, amu_key(k)) + 1;
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
	assert_true(len > 0);
	assert_non_null(strstr(rec, " spe=18446744073709551615,18446744073709551615,"));
	const char *amu = strstr(rec, " amu=");
	assert_non_null(amu); /* 20 numbers, each 2^64 - 1 */
	for (unsigned k = 0; k < PV_AMU_COUNTERS; k++)
		assert_memory_equal(amu + 5 + 21 * k,
				    k + 1 < PV_AMU_COUNTERS ? "18446744073709551615,"
							    : "18446744073709551615 ",
				    21);
	assert_int_equal(widest_counters(rec, len), WIDEST_RECORD);
	assert_true(WIDEST_RECORD <= PV_RECORD_MAX);
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

/* The body's amu= value (to the next space), or NULL without one. */
static const char *amu_field(const char *body, char *out, size_t size)
{
	const char *f = strstr(body, " amu=");
	if (!f)
		return NULL;
	size_t n = strcspn(f + 5, " ");
	assert_true(n < size);
	memcpy(out, f + 5, n);
	out[n] = '\0';
	return out;
}

/* The record's amu= is pv_vamu_counter()'s counters 0 .. 3 + aux, comma separated, and the
 * figures want[] (the activity the test gave the vCPU) too. */
static void check_amu(struct pv_vcpu *v, unsigned aux, const uint64_t *want)
{
	char rec[PV_RECORD_MAX], body[PV_RECORD_MAX], got[PV_RECORD_MAX], expect[512];
	struct pv_record_host h = host("amu");
	size_t len = pv_record_vcpu(rec, sizeof(rec), v, &h), at = 0;
	check_crc(rec, len, body, sizeof(body));
	for (unsigned k = 0; k < PV_AMU_GROUP0 + aux; k++) {
		assert_int_equal(pv_vamu_counter(v, k), want[k]);
		at += (size_t)snprintf(expect + at, sizeof(expect) - at, "%s%llu", k ? "," : "",
				       (unsigned long long)want[k]);
	}
	assert_non_null(amu_field(body, got, sizeof(got)));
	assert_string_equal(got, expect);
	/* the record's last field: the CRC's input ends with it */
	assert_string_equal(body + strlen(body) - strlen(expect) - 5, strstr(body, " amu="));
}

/* On either path, a VM's vCPU's amu= holds the counts the test gave it while it was loaded
 * (the hardware's, less what they had counted before the load and while the vCPU was put),
 * read from the hardware while it is loaded and kept across a put and a migration: on the
 * trap path for a VM that sees 3 of the hardware's 4 auxiliary counters, on the virtual-offset
 * path (every one, as it needs) with auxiliary counter 2 lacking its offset register. Under
 * AMCR_EL0.CG1RZ the auxiliary counts read as zero; a VM without the AMU has no amu=. */
static void test_amu_figures(void **state)
{
	(void)state;
	const uint64_t d1[8] = {700, 35, 500, 90, 1, 2, 3, 4};
	const uint64_t d2[8] = {10000, 400, 8000, 1000, 10, 20, 30, 40}; /* not the vCPU's */
	const uint64_t d3[8] = {900, 45, 600, 80, 5, 6, 7, 8};
	for (unsigned path = 0; path < 2; path++) {
		const struct amu_hw_desc hw = {
			.version = 2, .aux = 4, .voff = 0xB, .fgt = true};
		unsigned aux = path ? 4 : 3;
		struct amu_rig *r = calloc(1, sizeof(*r));
		assert_non_null(r);
		assert_int_equal(rig_init(r, &hw), PV_OK);
		if (!path)
			r->hw.amuhw.voff = false;
		assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, aux), PV_OK);
		assert_int_equal(r->vm.amu.path, path ? PV_AMU_PATH_VOFF : PV_AMU_PATH_TRAP);
		struct pv_vcpu *v = &r->v[0];
		uint64_t want[8] = {0};
		for (unsigned k = 0; k < 8; k++) { /* counting since power-on; pCPU 1 wraps */
			*rig_cntr(r, 0, k) = 1000000u * (k + 1);
			*rig_cntr(r, 1, k) = UINT64_MAX - 300 + k;
		}
		check_amu(v, aux, want); /* never run: zeros */
		pv_vcpu_load(v, &r->cpu[0]);
		for (unsigned k = 0; k < 8; k++)
			*rig_cntr(r, 0, k) += d1[k];
		memcpy(want, d1, sizeof(want));
		check_amu(v, aux, want); /* loaded: the hardware's, less the offset */
		pv_vcpu_put(v);
		for (unsigned k = 0; k < 8; k++)
			*rig_cntr(r, 0, k) += d2[k];
		check_amu(v, aux, want); /* put: as of the put */
		pv_vcpu_load(v, &r->cpu[1]);
		for (unsigned k = 0; k < 8; k++) {
			*rig_cntr(r, 1, k) += d3[k];
			want[k] += d3[k];
		}
		check_amu(v, aux, want); /* migrated, its pCPU's counters wrapped */
		pv_vcpu_put(v);
		free(r);
	}
	/* AMUv1p1 with CG1RZ: the VM's two auxiliary counters are there, and read zero. */
	const struct amu_hw_desc rz = {.version = 2, .aux = 2, .fgt = true, .cg1rz = true};
	struct amu_rig *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(rig_init(r, &rz), PV_OK);
	assert_int_equal(rig_vm(r, PV_FEAT_AMU, 2, 2), PV_OK);
	assert_true(r->vm.amu.cg1rz);
	pv_vcpu_load(&r->v[1], &r->cpu[0]);
	for (unsigned k = 0; k < 6; k++)
		*rig_cntr(r, 0, k) += 100 + k;
	const uint64_t zeroed[6] = {100, 101, 102, 103, 0, 0};
	check_amu(&r->v[1], 2, zeroed);
	pv_vcpu_put(&r->v[1]);
	/* Without the AMU (the hardware has one, the VM is not given it): no amu=. */
	memset(&r->vm, 0, sizeof(r->vm));
	assert_int_equal(rig_vm(r, 0, 0, 0), PV_OK);
	assert_int_equal(r->vm.amu.version, 0);
	pv_vcpu_load(&r->v[0], &r->cpu[0]);
	*rig_cntr(r, 0, 0) += 5;
	char rec[PV_RECORD_MAX], body[PV_RECORD_MAX], got[64];
	struct pv_record_host h = host("noamu");
	check_crc(rec, pv_record_vcpu(rec, sizeof(rec), &r->v[0], &h), body, sizeof(body));
	assert_null(amu_field(body, got, sizeof(got)));
	pv_vcpu_put(&r->v[0]);
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
		cmocka_unit_test(test_amu_figures),
		cmocka_unit_test(test_no_partial_record),
		cmocka_unit_test(test_pmu_irqs_count_rising_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
