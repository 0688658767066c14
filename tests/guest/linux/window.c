/* SPDX-License-Identifier: MIT */
/*
 * /bin/pvwindow COMMAND [ARG...]: the SPE initramfs's measured window (tests/guest/linux/
 * spe-init.sh, pvspe_bench=1), a static program with no libc. It runs COMMAND as its child
 * and waits for it, and reads three counts at each end of that: the virtual counter
 * (CNTVCT_EL0), the EL2 instructions the hypervisor has spent on this VM (its self-count
 * page, hyp/selfcount.c, through /dev/mem) and the guest's own instructions on CPU 0, kernel
 * and user, by a system-wide INST_RETIRED counter as `perf stat -a` opens it (exclude_hv = 0:
 * the hypervisor refuses EL2 counting, so it counts EL0 and EL1). Run as perf record's
 * command (`perf record ... -- pvwindow /bin/spe-loop`), the window is the workload's life
 * under the profiler: its own instructions and, on the one CPU, the kernel's and perf
 * record's while they drain the AUX buffer.
 *
 * The guest's instructions are counted, not taken from the ticks: under -icount
 * shift=0,sleep=off the virtual counter counts the instructions of every level, but it also
 * jumps across the time the CPU waits, and the workload sleeps (spe-loop.S).
 *
 * Prints "pvwindow: KEY VALUE" lines on its standard error: cntfrq, ticks, el2-instructions
 * (-1: no self-count), guest-instructions (a negative errno: no counter), status (the
 * command's wait status). Exits with the command's exit status (127 if it could not run).
 */
#include "nolibc.h"

#define INST_RETIRED 0x08

/* "pvwindow: KEY VALUE\n" on standard error. */
static void say(const char *key, long value)
{
	char line[96];
	size_t n = 0;
	for (const char *p = "pvwindow: "; *p; p++)
		line[n++] = *p;
	for (const char *p = key; *p && n < 60; p++)
		line[n++] = *p;
	line[n++] = ' ';
	unsigned long v = (unsigned long)value;
	if (value < 0) {
		line[n++] = '-';
		v = -v;
	}
	char digits[24];
	size_t d = 0;
	do {
		digits[d++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (d)
		line[n++] = digits[--d];
	line[n++] = '\n';
	sys3(SYS_write, 2, line, n);
}

static long read_count(long fd)
{
	uint64_t v = 0;
	long r = sys3(SYS_read, fd, &v, sizeof(v));
	return r == (long)sizeof(v) ? (long)v : (r < 0 ? r : -5);
}

long pvwindow(long argc, char **argv, char **envp);
long pvwindow(long argc, char **argv, char **envp)
{
	if (argc < 2) {
		sys3(SYS_write, 2, "usage: pvwindow COMMAND [ARG...]\n", 33);
		return 2;
	}
	long cntfrq;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(cntfrq));
	const volatile uint64_t *self = selfcount_open(NULL, NULL);
	struct perf_attr a = {0};
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = INST_RETIRED; /* counting from the open: not disabled */
	long fd = sys6(SYS_perf_event_open, (long)&a, -1 /* every task */, 0 /* CPU 0 */,
		       -1 /* no group */, 0, 0);

	long g0 = fd < 0 ? fd : read_count(fd);
	uint64_t e0 = self ? *self : UINT64_MAX;
	uint64_t t0 = cntvct();
	long pid = sys6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
	if (pid == 0) {
		sys3(SYS_execve, argv[1], argv + 1, envp);
		sys3(SYS_exit_group, 127, 0, 0);
	}
	int status = 127 << 8;
	if (pid > 0)
		sys6(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);
	uint64_t t1 = cntvct();
	uint64_t e1 = self ? *self : UINT64_MAX;
	long g1 = fd < 0 ? fd : read_count(fd);

	say("cntfrq", cntfrq);
	say("ticks", (long)(t1 - t0));
	say("el2-instructions", e0 == UINT64_MAX || e1 == UINT64_MAX ? -1 : (long)(e1 - e0));
	say("guest-instructions", g0 < 0 ? g0 : g1 < 0 ? g1 : g1 - g0);
	say("status", status);
	return pid < 0 ? 127 : (status >> 8) & 0xff;
}

/* The entry: argc at the stack pointer, then argv, a null, envp. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n\t"
	"ldr x0, [sp]\n\t"
	"add x1, sp, #8\n\t"
	"add x2, x1, x0, lsl #3\n\t"
	"add x2, x2, #8\n\t"
	"bl pvwindow\n\t"
	"mov x8, #94\n\t" /* exit_group */
	"svc #0\n");
