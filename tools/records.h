/* SPDX-License-Identifier: MIT */
/*
 * Reading live figures records (include/perfvisor/record.h, docs/records.md) out of a
 * hypervisor's console: each line that is a record is checked whole (version, CRC, every
 * field) before anything of it is used; a line that is not is skipped and counted by reason.
 * The last record of each vCPU is kept, to be served as metrics.
 */
#ifndef PERFVISOR_RECORDS_H
#define PERFVISOR_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfvisor/perfvisor.h"
#include "perfvisor/record.h"

struct rec_exit {
	char kind[PV_RECORD_MAX_WORD + 1];
	uint64_t exits, el2_instructions;
};

struct rec_counter {
	unsigned index; /* 0..30; PV_PMU_CYCLE_IDX for the cycle counter */
	uint32_t event; /* the event programmed (CPU_CYCLES for the cycle counter) */
	uint64_t value;
};

struct rec_vcpu {
	uint64_t seq, time_ns;
	char vm[PV_RECORD_MAX_NAME + 1]; /* %xx escapes undone: printable ASCII */
	unsigned vcpu;
	char state[PV_RECORD_MAX_STATE + 1];
	uint64_t loads, switches, pmu_irqs;
	uint64_t traps[PV_KIND_COUNT];
	unsigned nexits;
	struct rec_exit exit[PV_RECORD_MAX_EXIT_KINDS];
	bool pmu_used; /* the PMU fields are present */
	uint64_t pmcr;
	unsigned ncounters; /* event counters, then the cycle counter last */
	struct rec_counter counter[32];
	bool has_spe; /* spe= is present: the VM has SPE */
	struct rec_spe {
		uint64_t bytes, pinned, enables, rejected, events, chunks, s2_faults;
	} spe;
	/* amu=: 0 (absent: the VM has no AMU), or PV_AMU_GROUP0 + its auxiliary counters; amu[k]
	 * is counter k as pv_vamu_counter() numbers them (4 + n: AMEVCNTR1<n>). */
	unsigned namu;
	uint64_t amu[PV_AMU_COUNTERS];
};

enum rec_status {
	REC_OK,
	REC_NOT_RECORD,  /* console text: not a record at all */
	REC_VERSION,     /* "PVR<n>" of a version this reader does not know */
	REC_CRC,         /* no crc= field, or it does not match: corrupt or truncated */
	REC_MALFORMED,   /* the CRC matches but a field is not as PVR1 says */
	REC_TOO_LONG,    /* longer than REC_LINE_MAX: never held whole, never parsed */
	REC_STATUS_COUNT /* how many */
};

/* The register groups of trap.<group> (trap.pmu, ...), by enum pv_trap_kind. */
extern const char *const rec_trap_groups[PV_KIND_COUNT];

/* A name for each status ("ok", "not-record", "version", "crc", "malformed", "too-long"). */
const char *rec_status_name(enum rec_status s);
/* pv_record_crc32(), computed faster. */
uint32_t rec_crc32(const void *data, size_t len);
/* Parses one line (without or with its "\n", "\r\n"); *out is set only on REC_OK. */
enum rec_status rec_parse(const char *line, size_t len, struct rec_vcpu *out);

/* The last record of each vCPU (the last read wins), and counts of what was read. Found by
 * (VM, vCPU) through a hash table: a host of 1024 vCPUs costs no more per record than one. */
#define REC_STORE_MAX 4096
#define REC_STORE_BUCKETS 8192 /* a power of two */
struct rec_store {
	unsigned n;
	struct rec_vcpu vcpu[REC_STORE_MAX];
	uint64_t last_read[REC_STORE_MAX]; /* when each was last updated, in records stored */
	uint64_t reads;                    /* records stored */
	uint64_t lines[REC_STATUS_COUNT];  /* lines read, by status */
	uint64_t evicted; /* vCPUs forgotten to make room: the one heard from longest ago */
	/* The hash chains: entry + 1 of each bucket's first and of each entry's next, 0 ends. */
	uint16_t bucket[REC_STORE_BUCKETS];
	uint16_t next[REC_STORE_MAX];
};
/* Reads one line into the store; returns its status. */
enum rec_status rec_store_line(struct rec_store *s, const char *line, size_t len);

/*
 * Splitting a console's bytes into lines, in bounded memory: a line of at most REC_LINE_MAX
 * bytes, its newline included, is handed over whole (a record with CR LF is at most that);
 * of a longer one, only pieces, and its bytes past the bound are never held. The caller
 * feeds what it reads, in any pieces, and then says where the input ends.
 */
#define REC_LINE_MAX PV_RECORD_MAX
enum rec_piece {
	REC_LINE,      /* a whole line, of at most REC_LINE_MAX bytes, its newline included */
	REC_LONG_HEAD, /* the first REC_LINE_MAX bytes of a longer line: once a line */
	REC_LONG_MORE, /* more of it, up to its newline included */
};
typedef void rec_piece_fn(void *ctx, enum rec_piece kind, const char *bytes, size_t len);
struct rec_lines {
	size_t len;     /* bytes of the line held so far */
	bool long_line; /* the line is past the bound: its rest goes by as REC_LONG_MORE */
	char line[REC_LINE_MAX];
};
void rec_lines_feed(struct rec_lines *l, const char *bytes, size_t len, rec_piece_fn *fn,
		    void *ctx);
/* The input ended: a last line without its newline is a line too. */
void rec_lines_end(struct rec_lines *l, rec_piece_fn *fn, void *ctx);

#endif
