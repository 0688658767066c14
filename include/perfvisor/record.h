/* SPDX-License-Identifier: MIT */
/*
 * Live figures records: what a hypervisor that embeds perfvisor emits, periodically, for
 * each vCPU, on a channel its host can read while it runs (a console, a log, a socket), and
 * what `perfvisor serve` turns into metrics. docs/records.md is the format's definition.
 *
 * A record is one line of printable ASCII:
 *
 *   PVR1 seq=7 t_ns=200000000 vm=exact vcpu=0 state=running ... crc=1c291ca3
 *
 * "PVR1" names the format and its version; then space-separated key=value fields; the last
 * field is the CRC-32 (IEEE 802.3, as zlib's crc32) of every byte before " crc=", in eight
 * lower-case hexadecimal digits. The line is the record's delimiter; a reader skips a line
 * whose CRC does not match (corrupt or truncated) and counts it, and ignores keys it does not
 * know (a later PVR1 may add some; a change of meaning is a new version).
 */
#ifndef PERFVISOR_RECORD_H
#define PERFVISOR_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "perfvisor/api.h"
#include "perfvisor/perfvisor.h"

PV_BEGIN_DECLS

/* What a record may hold: the host's words and the VM's name are refused beyond these. With
 * them the longest record (31 counters, 32 exit kinds, every name byte escaped, every number
 * at its widest) is 3935 bytes with its newline and NUL; 4086 with the SPE figures (151:
 * " spe=", seven numbers of 20 digits, six commas); and 4510 with the AMU counters too (424:
 * " amu=", 4 + 16 numbers of 20 digits, 19 commas): PV_RECORD_MAX is always enough. Its 98
 * bytes beyond that are room for a short field a later PVR1 may add, so that a reader built
 * with this bound still takes the longest record of such a writer. */
#define PV_RECORD_MAX 4608
#define PV_RECORD_MAX_EXIT_KINDS 32
#define PV_RECORD_MAX_NAME 63  /* bytes of the VM's name */
#define PV_RECORD_MAX_WORD 23  /* characters of an exit kind */
#define PV_RECORD_MAX_STATE 15 /* characters of the state */

/* One kind of exit to the host, as the host counts them. */
struct pv_record_exit {
	const char *kind;          /* the host's name of the exit kind: [a-z0-9-]{1,23} */
	uint64_t exits;            /* exits of that kind */
	uint64_t el2_instructions; /* EL2 instructions they cost, 0 if not measured */
};

/* What the library cannot know of a vCPU: the host's side of the record. */
struct pv_record_host {
	uint64_t seq;         /* the record's number on its channel, from 0, one per record */
	uint64_t time_ns;     /* when: the host's clock (virtual time for a guest's host) */
	const char *vm_name;  /* the VM's name: 1 to 63 bytes, none of them 0 */
	const char *state;    /* "running", "waiting" (WFI/WFE), "ended" or "stopped" */
	uint64_t switches_in; /* times the vCPU was scheduled in */
	unsigned nr_exits;    /* entries of exits[], at most PV_RECORD_MAX_EXIT_KINDS */
	const struct pv_record_exit *exits;
};

/**
 * pv_record_vcpu() - Write the live figures record of a vCPU.
 * @buf: where the record goes: one line, its newline included, then a NUL.
 * @size: the size of @buf; PV_RECORD_MAX is always enough.
 * @v: the vCPU, pv_vcpu_init() done, loaded or not.
 * @host: the host's side of the record (its names must be as the struct says).
 *
 * The library's side: the vCPU's id, its traps by register group (trap.pmu, trap.spe,
 * trap.amu, trap.mpam, trap.id), its loads, the virtual PMU interrupt's rising edges
 * (pmu_irqs), and for a vCPU that has used its PMU its PMCR_EL0 and every counter the guest
 * has (pmc.<n>=<event>:<value>, ccnt=<value>), read as the guest would read them; for a vCPU
 * of a VM with SPE its figures (spe=<bytes written>,<bytes pinned>,<enables>,<rejected>,
 * <events>,<chunks>,<stage-2 faults>: struct pv_vspe_stats), the hardware's write pointer
 * read first while it is loaded, as pv_vspe_pointer() does; for a vCPU of a VM with the AMU
 * its activity counters as pv_vamu_counter() gives them (amu=<the 4 of group 0>, then one for
 * each auxiliary counter the VM has).
 * A VM name byte outside [A-Za-z0-9._:-] is written as %xx (lower-case hexadecimal).
 *
 * Context: on the vCPU's pCPU while it is loaded (its counters are then the hardware's).
 * Return: the record's length in bytes (without the NUL); 0, with @buf holding an empty
 * string, if it does not fit in @size or @host is not as the struct says.
 */
PV_API size_t pv_record_vcpu(char *buf, size_t size, struct pv_vcpu *v,
			     const struct pv_record_host *host);

/**
 * pv_record_crc32() - The CRC-32 of a record's bytes, as its crc= field holds it.
 * @data: the bytes.
 * @len: how many.
 *
 * Return: the IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320, initial value and final
 * XOR all ones), the value zlib's crc32(0, data, len) gives.
 */
PV_API uint32_t pv_record_crc32(const void *data, size_t len);

PV_END_DECLS

#endif
