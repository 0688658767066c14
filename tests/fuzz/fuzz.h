/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets of tests/fuzz/: reading the fuzzer's bytes as a stream of
 * small integers (zero once the input is used up), and invariant checks that stop the run with
 * a message naming the invariant, so that libFuzzer saves the input as a crash.
 */
#ifndef PERFVISOR_FUZZ_H
#define PERFVISOR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline int fz_left(const struct fz *f)
{
	return f->n != 0;
}

static inline uint8_t fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t lo = fz_u8(f);
	return (uint16_t)(lo | (uint16_t)fz_u8(f) << 8);
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t lo = fz_u16(f);
	return lo | (uint32_t)fz_u16(f) << 16;
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t lo = fz_u32(f);
	return lo | (uint64_t)fz_u32(f) << 32;
}

/* An invariant of docs/security.md: on violation, say which and abort (libFuzzer keeps the
 * input under build/fuzz/artifacts/). */
#define FZ_CHECK(cond, ...)                                                                    \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "invariant violated at %s:%d: %s\n  ", __FILE__,       \
				__LINE__, #cond);                                              \
			fprintf(stderr, __VA_ARGS__);                                          \
			fprintf(stderr, "\n");                                                 \
			abort();                                                               \
		}                                                                              \
	} while (0)

#endif
