/* SPDX-License-Identifier: MIT */
/*
 * /init of the initramfs the Linux guest boots (tests/guest/linux/): a static AArch64 program
 * with no libc, raw system calls only. It measures through the kernel's perf_event_open(2)
 * path, so the guest's PMU driver programs the virtual PMU perfvisor gives the VM:
 *
 *   counting  user-only instructions and cycles over a window of exactly 2 * N + C
 *             instructions (N iterations of subs/b.ne, C the fixed instructions around it),
 *             with the perf tool's default exclude_hv = 0 (so the PMU driver asks for EL2
 *             counting too, which perfvisor must refuse for a guest);
 *   sampling  user-only instructions with a sample period of P: the PMU overflow interrupt
 *             (virtual PPI 7, INTID 23) must fire about 2 * N / P times; /proc/interrupts says
 *             how often it did;
 *   overhead  (with pvinit_overhead=1 on the kernel command line, which the kernel hands to
 *             init as an environment variable) a fixed workload timed by CNTVCT_EL0 while ten
 *             events are counted as `perf stat -e` counts them (more events than counters:
 *             the kernel multiplexes them), then while cycles are sampled as `perf record -c
 *             10000` samples, with the guest's own instructions counted over each, and the
 *             hypervisor's: perfvisor's hypervisor shows a VM the EL2 instructions it has
 *             spent on it (its self-count page, hyp/selfcount.c), read through /dev/mem at
 *             each end of a window. Under -icount shift=0 the ticks count the instructions of
 *             every level, so the guest's are the ticks' less the hypervisor's (make
 *             qemu-bench divides); the guest's own counter misses those its PMU driver runs
 *             with the PMU stopped, in every overflow interrupt.
 *
 *   smp       (with pvinit_smp=1, instead of the above: a kernel booted directly on QEMU with
 *             -smp 2 and no hypervisor, tests/hw/linux-smp.sh) this process pinned to CPU 0
 *             and a child pinned to CPU 1 (sched_setaffinity) each count instructions:u of
 *             the counting window's loop over N and 2N iterations, both CPUs at once, by a
 *             counter of the task and then by one of its CPU (smp()).
 *
 * Then the console both ways, a line written and one read (console()), unless the kernel
 * command line says pvinit_console=0: a run with nothing typed at its terminal can then jump
 * idle time (QEMU's -icount sleep=off), as one waiting for a typed line cannot.
 *
 * Results go to the kernel log through /dev/kmsg (the console the kernel prints on), one line
 * each, "pvinit: KEY VALUE", then the VM powers itself off (reboot(2) -> PSCI SYSTEM_OFF).
 */
#include "nolibc.h"

#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_HW_INSTRUCTIONS 1
#define PERF_FLAG_DISABLED (1ul << 0)
#define PERF_FLAG_EXCLUDE_KERNEL (1ul << 5)
#define PERF_FLAG_EXCLUDE_HV (1ul << 6)
#define PERF_FLAG_PINNED (1ul << 2)
#define PERF_SAMPLE_IP (1ul << 0)
#define PERF_SAMPLE_TID (1ul << 1)
#define PERF_SAMPLE_TIME (1ul << 2)
#define PERF_SAMPLE_PERIOD (1ul << 8)
#define PERF_EVENT_IOC_ENABLE 0x2400
#define PERF_EVENT_IOC_DISABLE 0x2401
#define PERF_EVENT_IOC_RESET 0x2403

#define COUNT_ITERS 1000000ul     /* counting window: 2 * N + C instructions */
#define SAMPLE_ITERS 2500000ul    /* sampling window: 5,000,000 instructions ... */
#define SAMPLE_PERIOD 50000ul     /* ... so about 100 overflow interrupts */
#define OVERHEAD_ITERS 25000000ul /* the overhead workload: 50 M instructions */
#define RECORD_PERIOD 10000ul     /* perf record -c 10000: a sample every 10000 cycles */
#define SMP_ITERS 10000000ul      /* smp: windows of 2 * N + 6 and 4 * N + 6 instructions */

static int kmsg = -1;

/* One kernel log line: "pvinit: KEY VALUE" (VALUE: a decimal, or -errno as "error -E"). */
static void report(const char *key, long value)
{
	char line[128];
	size_t n = 0;
	const char *pre = "<6>pvinit: ";
	for (const char *p = pre; *p; p++)
		line[n++] = *p;
	for (const char *p = key; *p && n < 80; p++)
		line[n++] = *p;
	line[n++] = ' ';
	if (value < 0) {
		for (const char *p = "error -"; *p; p++)
			line[n++] = *p;
		value = -value;
	}
	char digits[24];
	size_t d = 0;
	do {
		digits[d++] = (char)('0' + (unsigned long)value % 10);
		value = (long)((unsigned long)value / 10);
	} while (value);
	while (d)
		line[n++] = digits[--d];
	line[n++] = '\n';
	if (kmsg >= 0)
		sys3(SYS_write, kmsg, line, n);
}

static long perf_open(uint64_t config, uint64_t period)
{
	struct perf_attr a = {0};
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.sample_period = period;
	a.flags = PERF_FLAG_DISABLED |
		  PERF_FLAG_EXCLUDE_KERNEL; /* exclude_hv = 0, as perf(1) */
	return sys6(SYS_perf_event_open, (long)&a, 0 /* this task */, -1 /* any CPU */,
		    -1 /* no group */, 0, 0);
}

/* A system-wide counter on CPU 0, kernel and user, as `perf stat -a` opens it. */
static long perf_open_cpu(uint64_t config)
{
	struct perf_attr a = {0};
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.flags = PERF_FLAG_DISABLED;
	return sys6(SYS_perf_event_open, (long)&a, -1 /* every task */, 0 /* CPU 0 */,
		    -1 /* no group */, 0, 0);
}

static long read_count(long fd)
{
	uint64_t v = 0;
	long r = sys3(SYS_read, fd, &v, sizeof(v));
	return r == (long)sizeof(v) ? (long)v : (r < 0 ? r : -5);
}

/* The measured window: PERF_EVENT_IOC_ENABLE, N iterations of a two-instruction loop,
 * PERF_EVENT_IOC_DISABLE, all in one block so the user instructions between the two system
 * calls are fixed: 2 * N plus the movs, the loop's last iteration and the second svc. */
static void window(long fd, unsigned long n)
{
	register long x0 __asm__("x0") = fd;
	__asm__ volatile("mov x19, x0\n\t"
			 "mov x1, #0x2400\n\t" /* PERF_EVENT_IOC_ENABLE */
			 "mov x2, #0\n\t"
			 "mov x8, #29\n\t" /* ioctl */
			 "svc #0\n\t"
			 "mov x9, %[n]\n"
			 "1:\tsubs x9, x9, #1\n\t"
			 "b.ne 1b\n\t"
			 "mov x0, x19\n\t"
			 "mov x1, #0x2401\n\t" /* PERF_EVENT_IOC_DISABLE */
			 "mov x2, #0\n\t"
			 "mov x8, #29\n\t"
			 "svc #0"
			 : "+r"(x0)
			 : [n] "r"(n)
			 : "x1", "x2", "x8", "x9", "x19", "cc", "memory");
}

/* The "arm-pmu" line of /proc/interrupts: its count, or a negative error. */
static long pmu_irqs(void)
{
	static char buf[4096];
	long fd = sys3(SYS_openat, AT_FDCWD, "/proc/interrupts", O_RDONLY);
	if (fd < 0)
		return fd;
	long len = 0, r;
	while (len < (long)sizeof(buf) - 1 &&
	       (r = sys3(SYS_read, fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	sys3(SYS_close, fd, 0, 0);
	buf[len] = '\0';
	for (char *line = buf; *line;) {
		char *end = line;
		while (*end && *end != '\n')
			end++;
		int has = 0;
		for (char *p = line; p + 7 <= end; p++)
			if (p[0] == 'a' && p[1] == 'r' && p[2] == 'm' && p[3] == '-' &&
			    p[4] == 'p' && p[5] == 'm' && p[6] == 'u')
				has = 1;
		if (has) { /* " 23:        117     GICv3  23 Level     arm-pmu" */
			char *p = line;
			while (p < end && *p != ':')
				p++;
			p++;
			while (p < end && *p == ' ')
				p++;
			long v = 0;
			while (p < end && *p >= '0' && *p <= '9')
				v = v * 10 + (*p++ - '0');
			return v;
		}
		line = *end ? end + 1 : end;
	}
	return -2; /* ENOENT */
}

/* The hypervisor's self-count register (nolibc.h), or NULL if the page cannot be mapped. */
static const volatile uint64_t *selfcount;

static void selfcount_map(void)
{
	long err = 0;
	const char *what = "";
	selfcount = selfcount_open(&err, &what);
	if (!selfcount)
		report(what[0] == 'o' ? "overhead-selfcount-open" : "overhead-selfcount-mmap",
		       err);
}

/* Ticks of n iterations; *el2 the hypervisor's instructions over them, or -1 if unknown. */
static long timed_spin(unsigned long n, long *el2)
{
	uint64_t e0 = selfcount ? *selfcount : UINT64_MAX;
	uint64_t t0 = cntvct();
	__asm__ volatile("1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
	uint64_t t1 = cntvct();
	uint64_t e1 = selfcount ? *selfcount : UINT64_MAX;
	*el2 = e0 == UINT64_MAX || e1 == UINT64_MAX ? -1 : (long)(e1 - e0);
	return (long)(t1 - t0);
}

static void enable_all(const long *fd, unsigned n, unsigned long req)
{
	for (unsigned i = 0; i < n; i++)
		sys3(SYS_ioctl, fd[i], req, 0);
}

/* An instruction counter of the guest's own, user and kernel, as perf stat counts a command
 * (exclude_hv = 0: the hypervisor refuses EL2 counting, so it counts EL0 and EL1 exactly);
 * `pinned` keeps it on the hardware whatever else is multiplexed. */
static long guest_instructions(int pinned)
{
	struct perf_attr a = {0};
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = 0x08; /* INST_RETIRED */
	a.flags = PERF_FLAG_DISABLED | (pinned ? PERF_FLAG_PINNED : 0);
	return sys6(SYS_perf_event_open, (long)&a, 0, -1, -1, 0, 0);
}

/* The overhead windows (see the top of this file): ticks of the same workload, and the
 * guest's own instructions over it (the rest of the ticks' instructions are the
 * hypervisor's), while ten events are counted as perf stat counts them (instructions,
 * pinned, which gives the guest's count; cycles, speculated instructions, branches predicted
 * and mispredicted, L1D accesses and refills, memory accesses, L1I accesses and refills:
 * what the CPU lacks counts 0 but is scheduled all the same), then while cycles are sampled
 * every 10000 as `perf record -c 10000` samples. */
static void overhead(void)
{
	static const uint64_t events[] = {0x11, 0x1B, 0x12, 0x10, 0x04, 0x03, 0x13, 0x14, 0x01};
	enum { NEV = sizeof(events) / sizeof(events[0]) + 1 };
	long cntfrq;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(cntfrq));
	report("overhead-cntfrq", cntfrq);
	selfcount_map();
	long fd[NEV];
	for (unsigned i = 0; i < NEV; i++) {
		if (i) {
			struct perf_attr a = {0};
			a.type = PERF_TYPE_RAW;
			a.size = sizeof(a);
			a.config = events[i - 1];
			a.flags = PERF_FLAG_DISABLED;
			fd[i] = sys6(SYS_perf_event_open, (long)&a, 0, -1, -1, 0, 0);
		} else {
			fd[i] = guest_instructions(1);
		}
		if (fd[i] < 0) {
			report("overhead-stat-open", fd[i]);
			for (unsigned k = 0; k < i; k++)
				sys3(SYS_close, fd[k], 0, 0);
			return;
		}
	}
	long el2;
	enable_all(fd, NEV, PERF_EVENT_IOC_ENABLE);
	long stat = timed_spin(OVERHEAD_ITERS, &el2);
	enable_all(fd, NEV, PERF_EVENT_IOC_DISABLE);
	report("overhead-stat-events", NEV);
	report("overhead-stat-ticks", stat);
	report("overhead-stat-el2-instructions", el2);
	report("overhead-stat-guest-instructions", read_count(fd[0]));
	for (unsigned i = 0; i < NEV; i++)
		sys3(SYS_close, fd[i], 0, 0);

	struct perf_attr a = {0};
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.sample_period = RECORD_PERIOD;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD;
	a.flags = PERF_FLAG_DISABLED;
	long before = pmu_irqs();
	long rec[2] = {sys6(SYS_perf_event_open, (long)&a, 0, -1, -1, 0, 0),
		       guest_instructions(0)};
	if (rec[0] < 0 || rec[1] < 0) {
		report("overhead-record-open", rec[0] < 0 ? rec[0] : rec[1]);
		return;
	}
	enable_all(rec, 2, PERF_EVENT_IOC_ENABLE);
	long ticks = timed_spin(OVERHEAD_ITERS, &el2);
	enable_all(rec, 2, PERF_EVENT_IOC_DISABLE);
	long after = pmu_irqs();
	report("overhead-record-period", (long)RECORD_PERIOD);
	report("overhead-record-ticks", ticks);
	report("overhead-record-el2-instructions", el2);
	report("overhead-record-guest-instructions", read_count(rec[1]));
	report("overhead-record-interrupts", before < 0  ? before
					     : after < 0 ? after
							 : after - before);
	sys3(SYS_close, rec[0], 0, 0);
	sys3(SYS_close, rec[1], 0, 0);
}

static void setup(void)
{
	sys3(SYS_mkdirat, AT_FDCWD, "/dev", 0755);
	sys3(SYS_mkdirat, AT_FDCWD, "/proc", 0555);
	sys6(SYS_mount, (long)"devtmpfs", (long)"/dev", (long)"devtmpfs", 0, 0, 0);
	sys6(SYS_mount, (long)"proc", (long)"/proc", (long)"proc", 0, 0, 0);
	kmsg = sys3(SYS_openat, AT_FDCWD, "/dev/kmsg", O_WRONLY);
	report("start", 0);
}

static void run(void)
{
	/* Counting: the same window measured on instructions, then on cycles. */
	long fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0);
	if (fd < 0) {
		report("perf_event_open", fd);
		return;
	}
	window(fd, COUNT_ITERS);
	report("instructions", read_count(fd));
	window(fd, COUNT_ITERS);
	report("instructions-again", read_count(fd)); /* the sum of both windows */
	sys3(SYS_close, fd, 0, 0);
	fd = perf_open(PERF_COUNT_HW_CPU_CYCLES, 0);
	if (fd < 0) {
		report("perf_event_open", fd);
		return;
	}
	window(fd, COUNT_ITERS);
	report("cycles", read_count(fd));
	sys3(SYS_close, fd, 0, 0);
	report("iterations", (long)COUNT_ITERS);

	/* Sampling: overflow interrupts every SAMPLE_PERIOD user instructions. */
	long before = pmu_irqs();
	fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, SAMPLE_PERIOD);
	if (fd < 0) {
		report("perf_event_open-sampling", fd);
		return;
	}
	window(fd, SAMPLE_ITERS);
	long total = read_count(fd);
	sys3(SYS_close, fd, 0, 0);
	long after = pmu_irqs();
	report("sampling-period", (long)SAMPLE_PERIOD);
	report("sampling-instructions", total);
	report("sampling-interrupts", before < 0 ? before : after < 0 ? after : after - before);

	/* Idle: what the whole CPU executes while this, the only task, sleeps 0.2 s, as
	 * `perf stat -a -e instructions -- sleep 0.2` counts it. The kernel idles in WFI. */
	fd = perf_open_cpu(PERF_COUNT_HW_INSTRUCTIONS);
	if (fd < 0) {
		report("perf_event_open-cpu", fd);
		return;
	}
	struct {
		long sec, nsec;
	} nap = {0, 200000000};
	sys3(SYS_ioctl, fd, 0x2400, 0); /* PERF_EVENT_IOC_ENABLE */
	sys3(SYS_nanosleep, (long)&nap, 0, 0);
	sys3(SYS_ioctl, fd, 0x2401, 0); /* PERF_EVENT_IOC_DISABLE */
	report("idle-instructions", read_count(fd));
	sys3(SYS_close, fd, 0, 0);
}

/* ---- pvinit_smp=1: exact counts per CPU on SMP ---------------------------------------------
 * Two processes, this one on CPU 0 and a child on CPU 1, count the same window (window(): N
 * iterations of subs/b.ne, 2 * N + 6 user instructions) by instructions:u, as perf's :u
 * opens it (exclude_kernel and exclude_hv), N then 2N iterations: by a counter of the task,
 * then by one of the CPU (pid -1: every task's user instructions on that CPU, and no other
 * process runs at EL0 there). Each window starts at a barrier both pass, so the two CPUs run
 * their windows at the same time: a CPU whose counter also counted what the other executed
 * would be off by that. The host checks each count exactly and that the windows overlapped. */
struct smp_shared {
	volatile uint64_t phase[2]; /* the barrier each process has reached */
	long cpu[2];                /* where it runs once pinned, or -errno */
	/* [process][task, cpu counter][N, 2N]: the count, or -errno; CNTVCT_EL0 around it */
	long count[2][2][2];
	uint64_t start[2][2][2], end[2][2][2];
};

/* Both processes at phase p: each publishes its own and waits for the other's (plain loads
 * and stores, no atomics to link in). */
static void smp_barrier(struct smp_shared *s, unsigned me, uint64_t p)
{
	__asm__ volatile("dmb ish" : : : "memory");
	s->phase[me] = p;
	while (s->phase[!me] < p)
		;
	__asm__ volatile("dmb ish" : : : "memory");
}

/* instructions:u of this task (cpu < 0) or of every task on CPU cpu. */
static long smp_open(long cpu)
{
	struct perf_attr a = {0};
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.flags = PERF_FLAG_DISABLED | PERF_FLAG_EXCLUDE_KERNEL | PERF_FLAG_EXCLUDE_HV;
	return sys6(SYS_perf_event_open, (long)&a, cpu < 0 ? 0 : -1, cpu, -1, 0, 0);
}

static void smp(void)
{
	static const char *const keys[2][2][2] = {{{"smp-cpu0-task-n", "smp-cpu0-task-2n"},
						   {"smp-cpu0-cpu-n", "smp-cpu0-cpu-2n"}},
						  {{"smp-cpu1-task-n", "smp-cpu1-task-2n"},
						   {"smp-cpu1-cpu-n", "smp-cpu1-cpu-2n"}}};
	static const char *const overlap[2][2] = {
		{"smp-overlap-ns-task-n", "smp-overlap-ns-task-2n"},
		{"smp-overlap-ns-cpu-n", "smp-overlap-ns-cpu-2n"}};
	long m = sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (m < 0 && m > -4096) {
		report("smp-mmap", m);
		return;
	}
	struct smp_shared *s = (struct smp_shared *)m;
	long pid = sys6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0); /* fork() */
	if (pid < 0) {
		report("smp-clone", pid);
		return;
	}
	unsigned me = pid == 0; /* the child is process 1, on CPU 1 */
	uint64_t mask = 1ul << me;
	unsigned cpu = 0;
	long r = sys3(SYS_sched_setaffinity, 0, sizeof(mask), &mask);
	long g = sys3(SYS_getcpu, &cpu, 0, 0);
	s->cpu[me] = r < 0 ? r : g < 0 ? g : (long)cpu;
	/* Every process passes every barrier, whatever failed, so that neither waits forever. */
	uint64_t phase = 0;
	for (unsigned kind = 0; kind < 2; kind++) {
		long fd = smp_open(kind ? (long)me : -1);
		for (unsigned w = 0; w < 2; w++) {
			smp_barrier(s, me, ++phase);
			if (fd < 0) {
				s->count[me][kind][w] = fd;
				continue;
			}
			sys3(SYS_ioctl, fd, PERF_EVENT_IOC_RESET, 0);
			s->start[me][kind][w] = cntvct();
			window(fd, SMP_ITERS << w);
			s->end[me][kind][w] = cntvct();
			s->count[me][kind][w] = read_count(fd);
		}
		if (fd >= 0)
			sys3(SYS_close, fd, 0, 0);
	}
	smp_barrier(s, me, ++phase);
	if (me) /* the child's results are in the shared page */
		sys3(SYS_exit_group, 0, 0, 0);
	int status = 0;
	sys6(SYS_wait4, pid, (long)&status, 0, 0, 0, 0);

	report("smp-iterations", (long)SMP_ITERS);
	report("smp-cpu0", s->cpu[0]);
	report("smp-cpu1", s->cpu[1]);
	for (unsigned p = 0; p < 2; p++)
		for (unsigned kind = 0; kind < 2; kind++)
			for (unsigned w = 0; w < 2; w++)
				report(keys[p][kind][w], s->count[p][kind][w]);
	/* How long the two windows ran at the same time, in ns (at -icount shift=0 one
	 * instruction of either CPU), 0 if they did not. */
	uint64_t frq;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(frq));
	for (unsigned kind = 0; kind < 2; kind++)
		for (unsigned w = 0; w < 2; w++) {
			uint64_t a = s->start[0][kind][w], b = s->start[1][kind][w];
			uint64_t e = s->end[0][kind][w], f = s->end[1][kind][w];
			uint64_t from = a > b ? a : b, to = e < f ? e : f;
			report(overlap[kind][w],
			       to > from && frq ? (long)((to - from) * 1000000000u / frq) : 0);
		}
}

/* Whether the environment init was given holds `want` ("NAME=VALUE"). */
static int has_env(char **envp, const char *want)
{
	for (; *envp; envp++) {
		const char *e = *envp, *w = want;
		while (*w && *e == *w)
			e++, w++;
		if (!*w && !*e)
			return 1;
	}
	return 0;
}

/* The console both ways (/dev/console, the VM's PL011 through its interrupt): a line of
 * CONSOLE_LONG characters written whole, then one line of input read and echoed to the kernel
 * log as "pvinit-echo: LINE". */
#define CONSOLE_LONG 300
static void console(void)
{
	long con = sys3(SYS_openat, AT_FDCWD, "/dev/console", O_RDWR | O_NOCTTY);
	if (con < 0) {
		report("console-open", con);
		return;
	}
	static char line[CONSOLE_LONG + 16] = "pvinit-long: ";
	size_t n = 13;
	for (unsigned i = 0; i < CONSOLE_LONG; i++)
		line[n++] = (char)('0' + i % 10);
	line[n++] = '\n';
	report("console-write", sys3(SYS_write, con, line, n));
	static char in[128];
	long r = sys3(SYS_read, con, in, sizeof(in) - 1);
	report("console-read", r);
	if (r > 0 && kmsg >= 0) {
		static char echo[160] = "<6>pvinit-echo: ";
		size_t e = 16;
		for (long i = 0; i < r && in[i] != '\n'; i++)
			echo[e++] = in[i];
		echo[e++] = '\n';
		sys3(SYS_write, kmsg, echo, e);
	}
	sys3(SYS_close, con, 0, 0);
}

/* sp: the stack the kernel starts init with: argc, argv[argc], NULL, envp..., NULL. */
void init_main(long *sp);
void init_main(long *sp)
{
	char **envp = (char **)(sp + 1 + sp[0] + 1);
	setup();
	if (has_env(envp, "pvinit_smp=1")) {
		smp();
	} else {
		run();
		if (has_env(envp, "pvinit_overhead=1"))
			overhead();
	}
	if (!has_env(envp, "pvinit_console=0"))
		console();
	report("poweroff", 0);
	/* reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF) */
	sys6(SYS_reboot, (long)0xfee1deadu, 672274793, (long)0x4321fedcu, 0, 0, 0);
	sys3(SYS_exit, 1, 0, 0);
	for (;;)
		;
}

__asm__(".text\n\t"
	".global _start\n"
	"_start:\n\t"
	"mov x29, #0\n\t"
	"mov x30, #0\n\t"
	"mov x0, sp\n\t"
	"bl init_main\n"
	"1:\tb 1b\n");
