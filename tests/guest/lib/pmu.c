/* SPDX-License-Identifier: MIT */
/* Indexed PMU register accessors: one MRS/MSR per index (the encoding carries n). */
#include "pmu.h"

/* clang-format off */
#define SEQ(X)                                                                                   \
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)     \
	X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)
/* clang-format on */

uint64_t pmevcntr_read(unsigned n)
{
	switch (n) {
#define R(i)                                                                                   \
	case i:                                                                                \
		return rd(pmevcntr##i##_el0);
		SEQ(R)
#undef R
	}
	return 0;
}

void pmevcntr_write(unsigned n, uint64_t v)
{
	switch (n) {
#define W(i)                                                                                   \
	case i:                                                                                \
		wr(pmevcntr##i##_el0, v);                                                      \
		break;
		SEQ(W)
#undef W
	}
}

uint64_t pmevtyper_read(unsigned n)
{
	switch (n) {
#define R(i)                                                                                   \
	case i:                                                                                \
		return rd(pmevtyper##i##_el0);
		SEQ(R)
#undef R
	}
	return 0;
}

void pmevtyper_write(unsigned n, uint64_t v)
{
	switch (n) {
#define W(i)                                                                                   \
	case i:                                                                                \
		wr(pmevtyper##i##_el0, v);                                                     \
		break;
		SEQ(W)
#undef W
	}
}

void pmu_reset(void)
{
	wr(pmcr_el0, PMCR_P | PMCR_C);
	wr(pmcntenclr_el0, 0xFFFFFFFFul);
	wr(pmintenclr_el1, 0xFFFFFFFFul);
	wr(pmovsclr_el0, 0xFFFFFFFFul);
	wr(pmselr_el0, 0);
	isb();
}
