/* SPDX-License-Identifier: MIT */
/*
 * The common events the model adds (D14.3.1): LD_RETIRED (0x06), ST_RETIRED (0x07),
 * BR_IMMED_RETIRED (0x0D), MEM_ACCESS (0x13), BR_RETIRED (0x21), advertised in PMCEID0/1_EL0
 * (D24.5.4, D24.5.5) and counting known instruction sequences (events_seq.S) exactly, by the
 * rules docs/qemu.md writes down: INST_RETIRED beside them says each window is what it
 * should be. Stock QEMU has none of the five.
 */
#include "hw.h"
#include "pmu.h"

enum { C_LD, C_ST, C_BR_IMMED, C_MEM, C_BR, C_INST, NCOUNTERS };

static const unsigned events[NCOUNTERS] = {
	EV_LD_RETIRED, EV_ST_RETIRED, EV_BR_IMMED_RETIRED,
	EV_MEM_ACCESS, EV_BR_RETIRED, EV_INST_RETIRED,
};
static const char *const names[NCOUNTERS] = {
	"LD_RETIRED", "ST_RETIRED", "BR_IMMED_RETIRED",
	"MEM_ACCESS", "BR_RETIRED", "INST_RETIRED",
};

typedef uint64_t seq_fn(uint64_t mask, void *src, void *dst);
seq_fn seq_ldst, seq_prefetch, seq_pairs, seq_acqrel, seq_excl, seq_atomics, seq_dczva,
	seq_simd, seq_sve, seq_mops, seq_branches;
uint64_t seq_fault(uint64_t addr);

struct seq {
	const char *name;
	seq_fn *fn;
	uint64_t want[NCOUNTERS]; /* MEM_ACCESS is LD + ST */
};

#define SEQ(n, ld, st, imm, br, inst)                                                          \
	{                                                                                      \
#n, seq_##n,                                                                   \
		{                                                                              \
			ld, st, imm, (ld) + (st), br, inst                                     \
		}                                                                              \
	}
static const struct seq seqs[] = {
	SEQ(ldst, 13, 8, 0, 0, 22), SEQ(prefetch, 0, 0, 0, 0, 6),   SEQ(pairs, 4, 3, 0, 0, 8),
	SEQ(acqrel, 4, 3, 0, 0, 8), SEQ(excl, 2, 2, 0, 0, 8),       SEQ(atomics, 7, 7, 0, 0, 9),
	SEQ(dczva, 0, 3, 0, 0, 4),  SEQ(simd, 6, 2, 0, 0, 9),       SEQ(sve, 9, 4, 0, 0, 16),
	SEQ(mops, 3, 6, 0, 0, 7),   SEQ(branches, 0, 0, 7, 11, 15),
};

static void program(uint64_t filter)
{
	pmu_reset();
	for (unsigned i = 0; i < NCOUNTERS; i++)
		pmu_set_type(i, filter | events[i]);
	WRITE_SYSREG(pmcr_el0, PMCR_E | PMCR_LC);
	ISB();
}

static void check_counts(const char *title, const uint64_t *want)
{
	char name[96];
	unsigned len = 0;
	bool ok = true;
	uint64_t got[NCOUNTERS];

	for (const char *p = "events_"; *p;)
		name[len++] = *p++;
	for (const char *p = title; *p && len < sizeof(name) - 1;)
		name[len++] = *p++;
	name[len] = 0;
	for (unsigned i = 0; i < NCOUNTERS; i++) {
		got[i] = pmu_count(i);
		ok = ok && got[i] == want[i];
	}
	if (ok) {
		hw_check(true, name, " ");
		return;
	}
	hw_check(false, name, "counted");
	for (unsigned i = 0; i < NCOUNTERS; i++)
		hw_printf("    %s %llu (want %llu)\n", names[i], (unsigned long long)got[i],
			  (unsigned long long)want[i]);
}

int main(void)
{
	uint64_t ceid0 = READ_SYSREG(pmceid0_el0), ceid1 = READ_SYSREG(pmceid1_el0);
	uint8_t *src = hw_buffer, *dst = hw_buffer + 4096;

	hw_check(
		(ceid0 & ((1UL << 0x06) | (1UL << 0x07) | (1UL << 0x0d) | (1UL << 0x13))) ==
				((1UL << 0x06) | (1UL << 0x07) | (1UL << 0x0d) |
				 (1UL << 0x13)) &&
			(ceid1 & (1UL << (0x21 - 0x20))),
		"events_pmceid: PMCEID0/1_EL0 advertise events 0x06, 0x07, 0x0D, 0x13 and 0x21",
		"PMCEID0_EL0 %#llx, PMCEID1_EL0 %#llx", (unsigned long long)ceid0,
		(unsigned long long)ceid1);

	for (unsigned i = 0; i < 64; i++)
		src[i] = (uint8_t)i;
	for (unsigned s = 0; s < sizeof(seqs) / sizeof(seqs[0]); s++) {
		uint64_t r;

		for (unsigned i = 0; i < 256; i++)
			dst[i] = 0;
		program(PMEVTYPER_NSH);
		r = seqs[s].fn((1UL << NCOUNTERS) - 1, src, dst);
		check_counts(seqs[s].name, seqs[s].want);
		if (seqs[s].fn == seq_excl)
			HW_CHECK_EQ(
				"events_excl_status: the Store-Exclusives succeeded, failed, "
				"failed, succeeded",
				r, 0x6);
	}

	/* At EL0 a load that aborts does not retire: counters count EL0 only (P, not NSH). */
	program(PMEVTYPER_P);
	WRITE_SYSREG(pmcntenset_el0, (1UL << NCOUNTERS) - 1);
	ISB();
	hw_lower_faults = 0;
	hw_run_lower(seq_fault, (uint64_t)(uintptr_t)src, 0);
	WRITE_SYSREG(pmcntenclr_el0, ~0UL);
	HW_CHECK_EQ("events_fault_taken: the load from nowhere aborted, once", hw_lower_faults,
		    1);
	HW_CHECK_EQ(
		"events_fault_not_retired: LD_RETIRED counts the 2 loads that retired at EL0",
		pmu_count(C_LD), 2);
	HW_CHECK_EQ("events_fault_mem_access: MEM_ACCESS counts their 2 accesses",
		    pmu_count(C_MEM), 2);
	pmu_reset();
	return 0;
}
