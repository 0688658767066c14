/* SPDX-License-Identifier: MIT */
/*
 * The AMU counters of the live records (core/record.c, docs/records.md's amu=) on the machine
 * model, checked against what the machine did: after every time slice, every migration and
 * every CPU power cycle, each vCPU's record holds exactly its own activity (the ground truth:
 * what the PE counted while that vCPU was loaded), the four group 0 counters and one per
 * auxiliary counter its VM sees, whether the record finds it loaded or put, on either path;
 * zeros for the auxiliary counters under AMCR_EL0.CG1RZ; no amu= for a VM without the AMU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfvisor/record.h"
#include "scen.h"

#define CPUS 2
#define AUX 4
#define NO_VOFF (1u << 2) /* auxiliary counter 2 has no AMEVCNTVOFF1<2>_EL2 */

/* The numbers of the record's amu= into out[]; how many, or -1 without the field. */
static int amu_of(struct sim_machine *m, unsigned vcpu, uint64_t *out)
{
	char rec[PV_RECORD_MAX];
	struct pv_record_host h = {.vm_name = "amu", .state = "running"};
	assert_true(pv_record_vcpu(rec, sizeof(rec), &m->vcpu[vcpu].pv, &h) > 0);
	const char *p = strstr(rec, " amu=");
	if (!p)
		return -1;
	p += 5;
	int n = 0;
	for (;;) {
		char *end;
		assert_true(n < (int)PV_AMU_COUNTERS && *p >= '0' && *p <= '9');
		out[n++] = strtoull(p, &end, 10);
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	assert_int_equal(*p, ' ');
	return n;
}

struct tally {
	unsigned loaded, put; /* records checked of a vCPU loaded, and put */
};

/* Every vCPU's record against the truth; returns the mismatches, printed with `tag`. */
static unsigned check_all(struct sim_machine *m, const char *tag, struct tally *t)
{
	unsigned bad = 0;
	for (unsigned i = 0; i < m->nvcpus; i++) {
		struct sim_vcpu *v = &m->vcpu[i];
		const struct pv_vm_amu *a = &v->vm->pv.amu;
		uint64_t got[PV_AMU_COUNTERS];
		int n = amu_of(m, i, got);
		if (!a->version) {
			if (n != -1) {
				fprintf(stderr, "%s vcpu %u: amu= in a VM without the AMU\n",
					tag, i);
				bad++;
			}
			continue;
		}
		if (n != (int)(PV_AMU_GROUP0 + a->nr_aux)) {
			fprintf(stderr,
				"%s vcpu %u: %d numbers in amu=, the VM has %u counters\n", tag,
				i, n, PV_AMU_GROUP0 + a->nr_aux);
			bad++;
			continue;
		}
		if (v->pv.cpu)
			t->loaded++;
		else
			t->put++;
		for (unsigned k = 0; k < (unsigned)n; k++) {
			uint64_t want = k >= PV_AMU_GROUP0 && a->cg1rz ? 0 : v->amu.cnt[k];
			if (got[k] != want || got[k] != pv_vamu_counter(&v->pv, k)) {
				fprintf(stderr,
					"%s vcpu %u (%s): amu= counter %u = %" PRIu64
					", truth %" PRIu64 ", pv_vamu_counter %" PRIu64 "\n",
					tag, i, v->pv.cpu ? "loaded" : "put", k, got[k], want,
					pv_vamu_counter(&v->pv, k));
				bad++;
			}
		}
	}
	return bad;
}

/* Two pCPUs: a VM with the machine's AMU version and every auxiliary counter (the
 * virtual-offset path where the machine has it), one with two of them (trap path), one
 * without the AMU, and a second vCPU of the first; random programs with migrations, plus
 * the scheduler's, and power cycles; every record checked as the run goes. */
static unsigned run(struct sim_config c, const char *name, uint64_t seed, struct tally *t)
{
	c.cpus = CPUS;
	struct sim_machine *m = scen_machine(&c);
	assert_non_null(m);
	unsigned hwv = c.amu.version;
	struct pv_vm_config cfg[3] = {scen_amu_vm(hwv, AUX), scen_amu_vm(hwv, 2),
				      scen_vm(PV_PMUVER_V3P5, 4)};
	unsigned aux[4] = {AUX, 2, 0, AUX};
	struct sim_prog progs[4];
	uint64_t rng = seed * 977 + 3;
	for (unsigned i = 0; i < 4; i++) {
		sim_prog_init(&progs[i]);
		if (i == 2)
			scen_random_prog(&progs[i], &rng, &cfg[2], c.el3, 200);
		else
			scen_amu_random_prog(&progs[i], &rng, aux[i], 200, CPUS);
		int vi = i < 3 ? scen_vm_vcpu(m, &cfg[i], i % CPUS, &progs[i])
			       : sim_add_vcpu(m, 0, 1, &progs[i]);
		assert_int_equal(vi, (int)i);
	}
	char tag[64];
	snprintf(tag, sizeof(tag), "%s seed %" PRIu64, name, seed);
	unsigned bad = check_all(m, tag, t), steps = 0;
	while (sim_step(m)) {
		bad += check_all(m, tag, t);
		if (sim_rand(m) % 5 == 0) {
			sim_migrate(m, (unsigned)(sim_rand(m) % m->nvcpus),
				    (unsigned)(sim_rand(m) % CPUS));
			bad += check_all(m, tag, t);
		}
		if (++steps % 7 == 0) {
			sim_power_cycle(m, (unsigned)(sim_rand(m) % CPUS));
			bad += check_all(m, tag, t);
		}
	}
	bad += check_all(m, tag, t) + scen_hygiene(m, tag);
	for (unsigned i = 0; i < 4; i++)
		sim_prog_free(&progs[i]);
	scen_free(m);
	return bad;
}

/* Both cases were seen often: records of vCPUs loaded (counters read from the hardware) and
 * of vCPUs put (as of their put). */
static void enough(const struct tally *t)
{
	if (t->loaded < 20 || t->put < 20)
		fail_msg("too few records: %u of vCPUs loaded, %u put", t->loaded, t->put);
}

static void test_records_voff_path(void **state)
{
	(void)state;
	struct tally t = {0};
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct sim_config c = scen_amu_config(seed, 2, AUX, NO_VOFF, true, 3);
		c.amu.fw_keeps_counters = seed & 1;
		bad += run(c, "voff", seed, &t);
	}
	assert_int_equal(bad, 0);
	enough(&t);
}

static void test_records_trap_path_v1(void **state)
{
	(void)state;
	struct tally t = {0};
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct sim_config c = scen_amu_config(seed, 1, AUX, 0, false, 2);
		c.amu.fw_keeps_counters = seed & 1;
		bad += run(c, "v1", seed, &t);
	}
	assert_int_equal(bad, 0);
	enough(&t);
}

/* AMCR_EL0.CG1RZ: the VMs' auxiliary counters read as zero, in their records too. */
static void test_records_cg1rz(void **state)
{
	(void)state;
	struct tally t = {0};
	unsigned bad = 0;
	for (uint64_t seed = 1; seed <= 2; seed++) {
		struct sim_config c = scen_amu_config(seed, 2, AUX, NO_VOFF, true, 1);
		c.amu.cg1rz = true;
		bad += run(c, "cg1rz", seed, &t);
	}
	assert_int_equal(bad, 0);
	enough(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_voff_path),
		cmocka_unit_test(test_records_trap_path_v1),
		cmocka_unit_test(test_records_cg1rz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
