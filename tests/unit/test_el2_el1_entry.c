/* SPDX-License-Identifier: MIT */
/* The EL1 exception entry a host injects (el2/el1_entry.h), against the Arm ARM: the vector
 * offsets of D1.4.1.6 and the PSTATE AArch64.TakeException gives an exception taken to EL1
 * (D1.4.2). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "el1_entry.h"

#define M_EL0T 0x0ul
#define M_EL1T 0x4ul
#define M_EL1H 0x5ul
#define M_USR32 0x10ul
#define DAIF (0xFul << 6)
#define SSBS (1ul << 12)
#define PAN (1ul << 22)
#define DIT (1ul << 24)
#define NZCV (0xFul << 28)
#define SPAN (1ul << 23)
#define DSSBS (1ul << 44)

static void vectors(void **state)
{
	(void)state;
	assert_int_equal(el1_sync_vector(M_EL1T), 0x000);  /* current EL with SP_EL0 */
	assert_int_equal(el1_sync_vector(M_EL1H), 0x200);  /* current EL with SP_ELx */
	assert_int_equal(el1_sync_vector(M_EL0T), 0x400);  /* lower EL, AArch64 */
	assert_int_equal(el1_sync_vector(M_USR32), 0x600); /* lower EL, AArch32 */
	assert_int_equal(el1_sync_vector(M_EL0T | DAIF | NZCV), 0x400); /* M[4:0] alone */
}

static void pstate_masks_and_mode(void **state)
{
	(void)state;
	/* EL1h, D A I F set, whatever was masked before; SPAN = 1 keeps PAN clear. */
	assert_int_equal(el1_sync_pstate(M_EL0T, SPAN), M_EL1H | DAIF);
	assert_int_equal(el1_sync_pstate(M_EL1H | DAIF, SPAN), M_EL1H | DAIF);
}

static void pstate_keeps_flags_and_dit(void **state)
{
	(void)state;
	assert_int_equal(el1_sync_pstate(M_EL0T | NZCV | DIT, SPAN),
			 M_EL1H | DAIF | NZCV | DIT);
	/* From AArch32, DIT is SPSR bit 21; PSTATE.DIT is bit 24 in an AArch64 SPSR. */
	assert_int_equal(el1_sync_pstate(M_USR32 | (1ul << 21), SPAN), M_EL1H | DAIF | DIT);
	assert_int_equal(el1_sync_pstate(M_USR32 | DIT, SPAN) & DIT, 0);
}

static void pstate_pan(void **state)
{
	(void)state;
	/* SCTLR_EL1.SPAN == 0: PAN set on entry to EL1; == 1: PAN unchanged. */
	assert_int_equal(el1_sync_pstate(M_EL0T, 0) & PAN, PAN);
	assert_int_equal(el1_sync_pstate(M_EL0T | PAN, SPAN) & PAN, PAN);
	assert_int_equal(el1_sync_pstate(M_EL0T, SPAN) & PAN, 0);
}

static void pstate_ssbs_from_dssbs(void **state)
{
	(void)state;
	assert_int_equal(el1_sync_pstate(M_EL0T, SPAN | DSSBS) & SSBS, SSBS);
	assert_int_equal(el1_sync_pstate(M_EL0T | SSBS, SPAN) & SSBS, 0);
}

static void pstate_clears_the_rest(void **state)
{
	(void)state;
	/* SS (21), IL (20), BTYPE (11:10), UAO (23) of an AArch64 SPSR; IT and T of AArch32. */
	uint64_t rest64 = (1ul << 21) | (1ul << 20) | (3ul << 10) | (1ul << 23);
	assert_int_equal(el1_sync_pstate(M_EL0T | rest64, SPAN), M_EL1H | DAIF);
	uint64_t rest32 = (0x3Ful << 10) | (3ul << 25) | (1ul << 5) | (1ul << 20);
	assert_int_equal(el1_sync_pstate(M_USR32 | rest32, SPAN), M_EL1H | DAIF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vectors),
		cmocka_unit_test(pstate_masks_and_mode),
		cmocka_unit_test(pstate_keeps_flags_and_dit),
		cmocka_unit_test(pstate_pan),
		cmocka_unit_test(pstate_ssbs_from_dssbs),
		cmocka_unit_test(pstate_clears_the_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
