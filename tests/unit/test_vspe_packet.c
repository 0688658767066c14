/* SPDX-License-Identifier: MIT */
/*
 * The SPE packet format (Arm ARM D18, the sample records): headers of every packet
 * type byte by byte, the extended header for indexes 8..31, payload sizes, the record layout of
 * SPEConstructRecord() with its padding, round trips of random records, and the decoder's
 * refusals: truncated packets and records, reserved headers, fixed-size packets of the wrong
 * size, a packet repeated in a record; Padding between a record's packets read through.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "perfvisor/spe_packet.h"

static size_t enc(uint8_t *out, uint8_t type, unsigned index, unsigned len, uint64_t payload)
{
	struct pv_spe_pkt p = {.type = type,
			       .index = (uint8_t)index,
			       .payload_len = (uint8_t)len,
			       .payload = payload};
	return pv_spe_pkt_encode(out, 16, &p);
}

static void test_headers(void **state)
{
	(void)state;
	uint8_t b[16];
	/* Short headers: PAD 0x00, END 0x01, TIMESTAMP 0x71, EVENTS 0b01xx0010, DATA_SOURCE
	 * 0b01xx0011, CONTEXT 0b01100100 + idx, OP_TYPE 0b010010 + class, ADDRESS 0b10110 + idx,
	 * COUNTER 0b10011 + idx; payloads little-endian. */
	assert_int_equal(enc(b, PV_SPE_PKT_PAD, 0, 0, 0), 1);
	assert_int_equal(b[0], 0x00);
	assert_int_equal(enc(b, PV_SPE_PKT_END, 0, 0, 0), 1);
	assert_int_equal(b[0], 0x01);
	assert_int_equal(enc(b, PV_SPE_PKT_TIMESTAMP, 0, 8, 0x1122334455667788), 9);
	assert_memory_equal(b, "\x71\x88\x77\x66\x55\x44\x33\x22\x11", 9);
	assert_int_equal(enc(b, PV_SPE_PKT_EVENTS, 0, 2, 0x0842), 3);
	assert_memory_equal(b, "\x52\x42\x08", 3);
	assert_int_equal(enc(b, PV_SPE_PKT_EVENTS, 0, 1, 0x2), 2);
	assert_int_equal(b[0], 0x42);
	assert_int_equal(enc(b, PV_SPE_PKT_EVENTS, 0, 8, 1), 9);
	assert_int_equal(b[0], 0x72);
	assert_int_equal(enc(b, PV_SPE_PKT_DATA_SOURCE, 0, 2, 0xE), 3);
	assert_int_equal(b[0], 0x53);
	assert_int_equal(enc(b, PV_SPE_PKT_CONTEXT, 0, 4, 0xDEADBEEF), 5);
	assert_memory_equal(b, "\x64\xEF\xBE\xAD\xDE", 5);
	assert_int_equal(enc(b, PV_SPE_PKT_CONTEXT, 1, 4, 7), 5);
	assert_int_equal(b[0], 0x65);
	assert_int_equal(enc(b, PV_SPE_PKT_OP_TYPE, PV_SPE_OP_BRANCH, 1, 0x3), 2);
	assert_memory_equal(b, "\x4A\x03", 2);
	assert_int_equal(enc(b, PV_SPE_PKT_ADDRESS, PV_SPE_ADDR_DATA_VA, 8, 0x1234), 9);
	assert_int_equal(b[0], 0xB2);
	assert_int_equal(enc(b, PV_SPE_PKT_COUNTER, PV_SPE_CNT_XLAT, 2, 0xABC), 3);
	assert_memory_equal(b, "\x9A\xBC\x0A", 3);
	/* Index 8..31: the extended header 0b001000:idx[4:3], then idx[2:0] in the header. */
	assert_int_equal(enc(b, PV_SPE_PKT_ADDRESS, 13, 8, 5), 10);
	assert_int_equal(b[0], 0x21);
	assert_int_equal(b[1], 0xB5);
	assert_int_equal(enc(b, PV_SPE_PKT_COUNTER, 31, 2, 5), 4);
	assert_memory_equal(b, "\x23\x9F\x05\x00", 4);
	/* What the architecture has no encoding for. */
	assert_int_equal(enc(b, PV_SPE_PKT_CONTEXT, 2, 4, 0), 0);
	assert_int_equal(enc(b, PV_SPE_PKT_OP_TYPE, 3, 1, 0), 0);
	assert_int_equal(enc(b, PV_SPE_PKT_EVENTS, 0, 3, 0), 0);
	assert_int_equal(enc(b, PV_SPE_PKT_ADDRESS, 32, 8, 0), 0);
	struct pv_spe_pkt big = {.type = PV_SPE_PKT_TIMESTAMP, .payload_len = 8};
	assert_int_equal(pv_spe_pkt_encode(b, 8, &big), 0); /* no room */
}

static void test_decode_each_header_byte(void **state)
{
	(void)state;
	/* Every byte as a header: the decoder accepts exactly the architected ones. */
	for (unsigned h = 0; h < 256; h++) {
		uint8_t b[16] = {(uint8_t)h};
		struct pv_spe_pkt p;
		int n = pv_spe_pkt_decode(b, sizeof(b), &p);
		bool ok = h == 0x00 || h == 0x01 || h == 0x71 || (h & 0xCF) == 0x42 ||
			  (h & 0xCF) == 0x43 || h == 0x64 || h == 0x65 ||
			  (h >= 0x48 && h <= 0x4A) || (h & 0xF8) == 0xB0 ||
			  (h & 0xF8) == 0x98 || (h & 0xFC) == 0x20;
		/* An extended header must prefix an Address or Counter packet: b[1] = 0 is not. */
		if ((h & 0xFC) == 0x20)
			ok = false;
		if (ok) {
			assert_true(n > 0);
		} else {
			if (n != PV_SPE_ERR_BAD)
				fail_msg("header 0x%02x: %d", h, n);
		}
	}
	/* Fixed-size packets with another size are malformed. */
	uint8_t ts4[] = {0x52, 1, 2, 3, 4}; /* EVENTS, 2 bytes: any size is fine */
	struct pv_spe_pkt p;
	assert_int_equal(pv_spe_pkt_decode(ts4, sizeof(ts4), &p), 3);
	uint8_t ctx2[] = {0x54, 1, 2}; /* a CONTEXT-like header with sz = 0b01: reserved */
	assert_int_equal(pv_spe_pkt_decode(ctx2, sizeof(ctx2), &p), PV_SPE_ERR_BAD);
	uint8_t addr4[] = {0xA0, 1, 2, 3, 4};
	assert_int_equal(pv_spe_pkt_decode(addr4, sizeof(addr4), &p), PV_SPE_ERR_BAD);
}

static void test_decode_truncated(void **state)
{
	(void)state;
	uint8_t b[16];
	size_t n = enc(b, PV_SPE_PKT_ADDRESS, 20, 8, 0x0102030405060708);
	for (size_t len = 0; len < n; len++) {
		struct pv_spe_pkt p;
		assert_int_equal(pv_spe_pkt_decode(b, len, &p), PV_SPE_ERR_TRUNCATED);
	}
	struct pv_spe_pkt p;
	assert_int_equal(pv_spe_pkt_decode(b, n, &p), (int)n);
	assert_int_equal(p.type, PV_SPE_PKT_ADDRESS);
	assert_int_equal(p.index, 20);
	assert_int_equal(p.payload, 0x0102030405060708);
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static void random_record(struct pv_spe_record *r, uint64_t *s)
{
	static const uint8_t sizes[] = {1, 2, 4, 8};
	memset(r, 0, sizeof(*r));
	r->addr_valid = (uint32_t)rnd(s);
	r->cnt_valid = (uint32_t)rnd(s) & 0x8000000Fu;
	for (unsigned i = 0; i < 32; i++) {
		if (r->addr_valid >> i & 1)
			r->addr[i] = rnd(s);
		if (r->cnt_valid >> i & 1)
			r->cnt[i] = (uint16_t)rnd(s);
	}
	r->ctx_valid = (uint8_t)(rnd(s) & 3);
	r->context[0] = r->ctx_valid & 1 ? (uint32_t)rnd(s) : 0;
	r->context[1] = r->ctx_valid & 2 ? (uint32_t)rnd(s) : 0;
	r->has_op = rnd(s) & 1;
	r->op_class = r->has_op ? (uint8_t)(rnd(s) % 3) : 0;
	r->op_subclass = r->has_op ? (uint8_t)rnd(s) : 0;
	r->has_events = rnd(s) & 1;
	r->events_len = r->has_events ? sizes[rnd(s) % 4] : 0;
	r->events = r->has_events
			    ? rnd(s) & (r->events_len == 8
						? ~UINT64_C(0)
						: (UINT64_C(1) << (8 * r->events_len)) - 1)
			    : 0;
	r->has_ds = rnd(s) & 1;
	r->ds_len = r->has_ds ? sizes[rnd(s) % 4] : 0;
	r->data_source = r->has_ds ? rnd(s) & (r->ds_len == 8
						       ? ~UINT64_C(0)
						       : (UINT64_C(1) << (8 * r->ds_len)) - 1)
				   : 0;
	r->has_ts = rnd(s) & 1;
	r->timestamp = r->has_ts ? rnd(s) : 0;
}

static void test_record_round_trip(void **state)
{
	(void)state;
	uint64_t seed = 7;
	static uint8_t buf[1 << 16];
	for (unsigned align = 0; align <= 11; align++) {
		struct pv_spe_record in[32];
		size_t at = 0;
		for (unsigned i = 0; i < 32; i++) {
			random_record(&in[i], &seed);
			size_t n = pv_spe_record_encode(&in[i], align, buf + at,
							sizeof(buf) - at);
			assert_true(n > 0);
			assert_int_equal(n % ((size_t)1 << align), 0); /* padded to Align */
			at += n;
		}
		size_t pos = 0;
		for (unsigned i = 0; i < 32; i++) {
			struct pv_spe_record out;
			assert_int_equal(pv_spe_record_decode(buf, at, &pos, &out, NULL), 1);
			assert_memory_equal(&out, &in[i], sizeof(out));
		}
		struct pv_spe_record out;
		assert_int_equal(pv_spe_record_decode(buf, at, &pos, &out, NULL), 0);
		assert_int_equal(pos, at);
	}
}

/* Padding between a record's packets (D18.1.2: a record is a sequence of headers, Padding among
 * them; D18.2.8; hardware writes it there): each random record, re-laid with one to three
 * Padding bytes after each of its packets but the last, decodes as it was, to its last byte,
 * with only the Padding before it counted. */
static void test_record_padding_inside(void **state)
{
	(void)state;
	uint64_t seed = 11;
	for (unsigned i = 0; i < 200; i++) {
		struct pv_spe_record in, out;
		random_record(&in, &seed);
		uint8_t rec[1024], laid[4096] = {0, 0};
		size_t n = pv_spe_record_encode(&in, 0, rec, sizeof(rec)), at = 0, len = 2;
		assert_true(n > 0);
		unsigned gaps = 0;
		while (at < n) {
			struct pv_spe_pkt p;
			int k = pv_spe_pkt_decode(rec + at, n - at, &p);
			assert_true(k > 0);
			memcpy(laid + len, rec + at, (size_t)k);
			len += (size_t)k;
			at += (size_t)k;
			if (at < n) {
				size_t pad = 1 + (size_t)(rnd(&seed) % 3);
				memset(laid + len, 0, pad);
				len += pad;
				gaps++;
			}
		}
		assert_true(gaps > 0);
		size_t pos = 0, pads = 9;
		assert_int_equal(pv_spe_record_decode(laid, len, &pos, &out, &pads), 1);
		assert_memory_equal(&out, &in, sizeof(out));
		assert_int_equal(pos, len);
		assert_int_equal(pads, 2);
	}
}

/* The layout SPEConstructRecord() produces: contexts, counters, addresses, data source,
 * operation type, events, then Timestamp (no End) or End. */
static void test_record_order(void **state)
{
	(void)state;
	struct pv_spe_record r = {0};
	r.ctx_valid = 1;
	r.context[0] = 0x10;
	r.cnt_valid = 3;
	r.cnt[0] = 9;
	r.cnt[1] = 2;
	r.addr_valid = 1u << PV_SPE_ADDR_PC | 1u << PV_SPE_ADDR_DATA_VA;
	r.addr[0] = 0x8000000000001000;
	r.addr[2] = 0x2000;
	r.has_op = true;
	r.op_class = PV_SPE_OP_LDST;
	r.has_events = true;
	r.events_len = 2;
	r.events = 0x6;
	uint8_t b[128];
	size_t n = pv_spe_record_encode(&r, 0, b, sizeof(b));
	static const uint8_t want[] = {
		0x64, 0x10, 0,    0,    0,                /* CONTEXT EL1 */
		0x98, 9,    0,    0x99, 2, 0,             /* COUNTER 0, 1 */
		0xB0, 0x00, 0x10, 0,    0, 0, 0, 0, 0x80, /* ADDRESS PC */
		0xB2, 0x00, 0x20, 0,    0, 0, 0, 0, 0,    /* ADDRESS data VA */
		0x49, 0x00,                               /* OP_TYPE LD/ST, load */
		0x52, 0x06, 0x00,                         /* EVENTS (2 bytes) */
		0x01,                                     /* END */
	};
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(b, want, sizeof(want));
	r.has_ts = true;
	r.timestamp = 0x55;
	n = pv_spe_record_encode(&r, 6, b, sizeof(b));
	assert_int_equal(n, 64);
	assert_int_equal(b[sizeof(want) - 1], 0x71); /* TIMESTAMP ends it instead of END */
	for (size_t i = sizeof(want) + 8; i < 64; i++)
		assert_int_equal(b[i], 0);                       /* Padding */
	assert_int_equal(pv_spe_record_encode(&r, 6, b, 60), 0); /* no room for the padding */
}

static void test_record_errors(void **state)
{
	(void)state;
	uint8_t b[64];
	struct pv_spe_record r = {.addr_valid = 1,
				  .addr = {0x1234},
				  .has_events = true,
				  .events_len = 1,
				  .events = 2};
	size_t n = pv_spe_record_encode(&r, 0, b, sizeof(b));
	struct pv_spe_record out;
	/* Cut anywhere before its End: truncated, at the packet that could not be finished or
	 * at the end for a missing End. */
	for (size_t len = 1; len < n; len++) {
		size_t pos = 0;
		assert_int_equal(pv_spe_record_decode(b, len, &pos, &out, NULL),
				 PV_SPE_ERR_TRUNCATED);
	}
	/* A packet twice. */
	uint8_t dup[] = {0x42, 2, 0x42, 2, 0x01};
	size_t pos = 0;
	assert_int_equal(pv_spe_record_decode(dup, sizeof(dup), &pos, &out, NULL),
			 PV_SPE_ERR_DUPLICATE);
	assert_int_equal(pos, 2);
	/* A reserved header inside a record, reported where it stands. */
	uint8_t bad[] = {0, 0, 0, 0x42, 2, 0x02, 0x01};
	size_t pads = 0;
	pos = 0;
	assert_int_equal(pv_spe_record_decode(bad, sizeof(bad), &pos, &out, &pads),
			 PV_SPE_ERR_BAD);
	assert_int_equal(pos, 5);
	assert_int_equal(pads, 3);
	/* Padding inside a record is one of its headers (D18.1.2), not the end of anything: a
	 * packet after it is still a repeat. */
	uint8_t dup_pad[] = {0x42, 2, 0x00, 0x00, 0x42, 2, 0x01};
	pos = 0;
	assert_int_equal(pv_spe_record_decode(dup_pad, sizeof(dup_pad), &pos, &out, NULL),
			 PV_SPE_ERR_DUPLICATE);
	assert_int_equal(pos, 4);
	/* Only Padding: no record, the position at the end. */
	uint8_t pad[8] = {0};
	pos = 0;
	assert_int_equal(pv_spe_record_decode(pad, sizeof(pad), &pos, &out, &pads), 0);
	assert_int_equal(pos, 8);
	assert_int_equal(pads, 8);
	assert_string_equal(pv_spe_strerror(PV_SPE_ERR_TRUNCATED),
			    "truncated packet or record");
	assert_string_equal(pv_spe_pkt_name(PV_SPE_PKT_COUNTER), "COUNTER");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_decode_each_header_byte),
		cmocka_unit_test(test_decode_truncated),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_record_padding_inside),
		cmocka_unit_test(test_record_order),
		cmocka_unit_test(test_record_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
