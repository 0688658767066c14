/* SPDX-License-Identifier: MIT */
/*
 * SPE sample records in the architected packet format (Arm ARM D18, "Statistical Profiling
 * Extension sample record specification"): one encoder and one decoder, freestanding, shared by
 * the machine model (which writes records), the `perfvisor spe-decode` tool and the tests.
 *
 * A packet is a header byte, optionally preceded by an extended-header byte (0b001000:idx[4:3],
 * for Address and Counter packets with an index of 8 or more), and a little-endian payload of
 * 1 << header[5:4] bytes. A record is a sequence of packets ending with an End packet, or with a
 * Timestamp packet when it has one; Padding bytes (0x00) may stand between records (the hardware
 * pads each record to PMBIDR_EL1.Align) and, as headers of a record's sequence (D18.1.2), between
 * its packets: hardware does write them there.
 */
#ifndef PERFVISOR_SPE_PACKET_H
#define PERFVISOR_SPE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pv_spe_pkt_type {
	PV_SPE_PKT_PAD,         /* 0x00 */
	PV_SPE_PKT_END,         /* 0x01 */
	PV_SPE_PKT_TIMESTAMP,   /* 0x71: 8 bytes */
	PV_SPE_PKT_EVENTS,      /* 0b01xx0010: 1, 2, 4 or 8 bytes */
	PV_SPE_PKT_DATA_SOURCE, /* 0b01xx0011: 1, 2, 4 or 8 bytes */
	PV_SPE_PKT_CONTEXT, /* 0b011001ii: 4 bytes; index 0 CONTEXTIDR_EL1, 1 CONTEXTIDR_EL2 */
	PV_SPE_PKT_OP_TYPE, /* 0b010010cc: 1 byte; index = class */
	PV_SPE_PKT_ADDRESS, /* 0b10110iii: 8 bytes */
	PV_SPE_PKT_COUNTER, /* 0b10011iii: 2 bytes */
	PV_SPE_PKT_TYPES
};

/* Address packet indexes, and the fields of their payload. */
#define PV_SPE_ADDR_PC 0u          /* [55:0] VA, [63] NS, [62:61] EL, [60] NSE */
#define PV_SPE_ADDR_BRANCH 1u      /* same layout */
#define PV_SPE_ADDR_DATA_VA 2u     /* the 64-bit VA (tag byte included under TBI) */
#define PV_SPE_ADDR_DATA_PA 3u     /* [55:0] PA, [63] NS, [62] CH, [60] NSE, [59:56] PAT */
#define PV_SPE_ADDR_PREV_BRANCH 4u /* FEAT_SPE_PBT */
#define PV_SPE_ADDR_MAX 32u
/* Counter packet indexes. */
#define PV_SPE_CNT_TOTAL 0u
#define PV_SPE_CNT_ISSUE 1u
#define PV_SPE_CNT_XLAT 2u
#define PV_SPE_CNT_MAX 32u
/* Operation type classes. */
#define PV_SPE_OP_OTHER 0u
#define PV_SPE_OP_LDST 1u
#define PV_SPE_OP_BRANCH 2u
/* Events packet bits (Arm ARM D18.2.6, Events packet). */
#define PV_SPE_EV_EXCEPTION (1u << 0)
#define PV_SPE_EV_RETIRED (1u << 1)
#define PV_SPE_EV_L1D_ACCESS (1u << 2)
#define PV_SPE_EV_L1D_REFILL (1u << 3)
#define PV_SPE_EV_TLB_ACCESS (1u << 4)
#define PV_SPE_EV_TLB_WALK (1u << 5)
#define PV_SPE_EV_NOT_TAKEN (1u << 6)
#define PV_SPE_EV_MISPRED (1u << 7)
#define PV_SPE_EV_LLC_ACCESS (1u << 8)
#define PV_SPE_EV_LLC_MISS (1u << 9)
#define PV_SPE_EV_REMOTE (1u << 10)
#define PV_SPE_EV_ALIGNMENT (1u << 11)

#define PV_SPE_ERR_TRUNCATED (-1) /* the buffer ends inside a packet or a record */
#define PV_SPE_ERR_BAD (-2) /* a reserved header, or a packet of a size its type forbids */
#define PV_SPE_ERR_DUPLICATE (-3) /* a record carries the same packet twice */

struct pv_spe_pkt {
	uint8_t type;        /* enum pv_spe_pkt_type */
	uint8_t index;       /* Address/Counter/Context index, Operation type class */
	uint8_t len;         /* bytes of the whole packet, headers included */
	uint8_t payload_len; /* bytes of payload */
	uint64_t payload;
};
#define PV_SPE_PKT_MAX 10 /* extended header, header, 8 bytes of payload */

/**
 * pv_spe_pkt_decode() - Decode the packet at buf[0..len).
 * @buf: the bytes.
 * @len: how many there are.
 * @p: the packet (type, index, len, payload_len, payload); written only on success.
 *
 * A Padding byte is a packet of its own (PV_SPE_PKT_PAD, length 1).
 *
 * Return: the packet's length (> 0), headers included; PV_SPE_ERR_TRUNCATED when the bytes
 * end inside it (or @len is 0); PV_SPE_ERR_BAD for a reserved header, an extended header
 * before anything but an Address or Counter packet, or a size its type forbids.
 */
int pv_spe_pkt_decode(const uint8_t *buf, size_t len, struct pv_spe_pkt *p);

/**
 * pv_spe_pkt_encode() - Encode one packet.
 * @out: where the bytes go.
 * @cap: how many fit there.
 * @p: the packet: type, index, payload_len, payload (len is ignored, and so is payload_len
 *     but for Events and Data Source packets: the others have a fixed size).
 *
 * An Address or Counter packet with an index of 8 or more gets an extended header.
 *
 * Return: bytes written, or 0 (nothing written) when the packet does not fit in @cap or the
 * architecture has no such packet (an Events or Data Source payload_len other than 1, 2, 4
 * or 8, a Context index above 1, an Operation type class above 2, an Address or Counter
 * index above 31, a type outside the enumeration).
 */
size_t pv_spe_pkt_encode(uint8_t *out, size_t cap, const struct pv_spe_pkt *p);

/* A whole record. Fields absent from it have their bit clear in the *_valid masks. */
struct pv_spe_record {
	uint32_t addr_valid; /* bit n: addr[n] */
	uint32_t cnt_valid;  /* bit n: cnt[n] */
	uint64_t addr[PV_SPE_ADDR_MAX];
	uint16_t cnt[PV_SPE_CNT_MAX];
	uint8_t ctx_valid; /* bit 0: context[0] (EL1), bit 1: context[1] (EL2) */
	uint32_t context[2];
	bool has_op, has_events, has_ds, has_ts;
	uint8_t op_class, op_subclass;
	uint8_t events_len, ds_len; /* payload bytes: 1, 2, 4 or 8 */
	uint64_t events, data_source;
	uint64_t timestamp;
};

/**
 * pv_spe_record_encode() - Encode a whole record, padded.
 * @r: the record; fields whose *_valid bit or has_* flag is clear are left out.
 * @align: log2 of the padding unit (PMBIDR_EL1.Align); above 11 it is taken as 11 (2 KiB).
 * @out: where the bytes go.
 * @cap: how many fit there.
 *
 * The packets go in the order the Arm ARM's SPEConstructRecord() uses (contexts, counters,
 * addresses, data source, operation type, events, then Timestamp or End), and the record is
 * padded with zeros to a multiple of 1 << @align.
 *
 * Return: bytes written, or 0 when the record does not fit or a field cannot be encoded
 * (then @out may hold part of it).
 */
size_t pv_spe_record_encode(const struct pv_spe_record *r, unsigned align, uint8_t *out,
			    size_t cap);

/**
 * pv_spe_record_decode() - Decode the record at buf[*pos..len), skipping Padding before it.
 * @buf: the bytes.
 * @len: how many there are.
 * @pos: where to start; moved past the Padding skipped and, for a record, past the record.
 * @r: the record, cleared first when one starts (fields absent from it have their *_valid
 *     bit or has_* flag clear); untouched when only Padding is left.
 * @pads: if not NULL, receives the number of Padding bytes skipped.
 *
 * Return: 1 (a record), 0 (nothing but Padding up to @len), or a PV_SPE_ERR_* with *pos at
 * the offending packet: PV_SPE_ERR_TRUNCATED also when the bytes end before the record's End
 * or Timestamp packet (*pos is then @len), PV_SPE_ERR_DUPLICATE for a packet the record
 * already has. Padding between a record's packets is skipped (not counted in @pads).
 */
int pv_spe_record_decode(const uint8_t *buf, size_t len, size_t *pos, struct pv_spe_record *r,
			 size_t *pads);

/**
 * pv_spe_strerror() - Describe a PV_SPE_ERR_* code.
 * @err: PV_SPE_ERR_TRUNCATED, PV_SPE_ERR_BAD or PV_SPE_ERR_DUPLICATE.
 *
 * Return: "truncated packet or record", "reserved or malformed packet" or "packet repeated
 * in a record"; "no error" for any other value, an unknown negative one included.
 */
const char *pv_spe_strerror(int err);

/**
 * pv_spe_pkt_name() - The name of a packet type.
 * @t: the type.
 *
 * Return: "PAD", "END", "TIMESTAMP", "EVENTS", "DATA-SOURCE", "CONTEXT", "OP-TYPE",
 * "ADDRESS" or "COUNTER"; "?" for a value outside the enumeration.
 */
const char *pv_spe_pkt_name(enum pv_spe_pkt_type t);

#endif
