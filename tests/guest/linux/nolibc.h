/* SPDX-License-Identifier: MIT */
/*
 * What the initramfs's static programs without a libc share (init.c, window.c): the arm64
 * Linux system calls they make (numbers from the kernel's asm-generic/unistd.h), the few
 * flags they pass, the first 64 bytes of struct perf_event_attr (PERF_ATTR_SIZE_VER0), the
 * virtual counter and the hypervisor's self-count page. Each program is one translation unit
 * and includes this once: memset is defined here, as GCC may call it for a zeroed struct even
 * when freestanding.
 */
#ifndef PV_LINUX_NOLIBC_H
#define PV_LINUX_NOLIBC_H

#include <stddef.h>
#include <stdint.h>

#define SYS_ioctl 29
#define SYS_mkdirat 34
#define SYS_mount 40
#define SYS_openat 56
#define SYS_close 57
#define SYS_read 63
#define SYS_write 64
#define SYS_exit 93
#define SYS_exit_group 94
#define SYS_nanosleep 101
#define SYS_sched_setaffinity 122
#define SYS_reboot 142
#define SYS_getcpu 168
#define SYS_clone 220
#define SYS_execve 221
#define SYS_mmap 222
#define SYS_perf_event_open 241
#define SYS_wait4 260
#define SIGCHLD 17
#define AT_FDCWD (-100)
#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_NOCTTY 0400
#define O_SYNC 04010000
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_ANONYMOUS 0x20
#define SELFCOUNT_IPA 0x0A000000ul /* the hypervisor's self-count page (hyp/selfcount.c) */
#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_RAW 4

/* struct perf_event_attr up to config1 (PERF_ATTR_SIZE_VER0, 64 bytes). */
struct perf_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t config1;
};

static inline long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

void *memset(void *d, int c, size_t n);
void *memset(void *d, int c, size_t n)
{
	volatile unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

/* The virtual counter, after every instruction before it (ISB). */
static inline uint64_t cntvct(void)
{
	uint64_t t;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
	return t;
}

/* The hypervisor's self-count register (the EL2 instructions it has spent on this VM, all
 * ones if it does not measure itself), mapped through /dev/mem; NULL if the page cannot be
 * mapped, with *err the failing call's -errno and *what its name where they are not NULL. */
static inline const volatile uint64_t *selfcount_open(long *err, const char **what)
{
	long fd = sys3(SYS_openat, AT_FDCWD, "/dev/mem", O_RDONLY | O_SYNC);
	if (fd < 0) {
		if (err && what)
			*err = fd, *what = "open";
		return NULL;
	}
	long p = sys6(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, fd, (long)SELFCOUNT_IPA);
	sys3(SYS_close, fd, 0, 0);
	if (p < 0 && p > -4096) {
		if (err && what)
			*err = p, *what = "mmap";
		return NULL;
	}
	return (const volatile uint64_t *)p;
}

#endif
