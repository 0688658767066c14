/* SPDX-License-Identifier: MIT */
/*
 * The attack programs (attack_pmu.c, attack_irq.c): every attempt must get the architected
 * answer, and one that does not is an escape. Each program is one translation unit that
 * includes this once, and ends with attack_report(): the line tests/guest/run.sh reads.
 */
#ifndef GUEST_ATTACK_H
#define GUEST_ATTACK_H

#include "guest.h"

static unsigned tried, escapes;

static bool attempt_count(bool held)
{
	tried++;
	if (!held)
		escapes++;
	return held;
}

/* One attempt: `held` is true when the guest got the architected answer. The failure message
 * is a printf format for the two values a and b (as uint64_t), checked by the compiler as
 * check()'s. */
#define attempt(held, name, fmt, a, b)                                                         \
	({                                                                                     \
		bool held_ = attempt_count(held);                                              \
		check(held_, (name), fmt, (uint64_t)(a), (uint64_t)(b));                       \
	})

static void attack_report(void)
{
	gprintf("attacks: %u, escapes: %u\n", tried, escapes);
}

#endif
