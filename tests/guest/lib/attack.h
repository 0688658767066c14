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

/* One attempt: `held` is true when the guest got the architected answer. */
static bool attempt(bool held, const char *name, const char *fmt, uint64_t a, uint64_t b)
{
	tried++;
	if (!held)
		escapes++;
	return check(held, name, fmt, a, b);
}

static void attack_report(void)
{
	gprintf("attacks: %u, escapes: %u\n", tried, escapes);
}

#endif
