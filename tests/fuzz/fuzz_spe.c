/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spe: the SPE record decoder (sim/spe_packet.c, include/perfvisor/spe_packet.h) on arbitrary
 * bytes, as `perfvisor spe-decode` and the tests meet a guest's buffer. Invariants
 * (docs/security.md):
 *   - no crash, no read outside the input (ASan);
 *   - a packet decodes to 1..PV_SPE_PKT_MAX bytes within the input, or to an error; an accepted
 *     packet encodes again, and that encoding decodes to the same packet;
 *   - a record decode returns 1, 0 (Padding to the end) or a PV_SPE_ERR_* that names an offset
 *     inside the input (or its end, for a truncated record), never before where it started; a
 *     record moves the position forward;
 *   - an accepted record encodes (alignment 0..6), the encoding decodes to the same record and
 *     re-encodes to the same bytes (a stable round trip), padded to the alignment.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "perfvisor/spe_packet.h"

static bool same_record(const struct pv_spe_record *a, const struct pv_spe_record *b)
{
	if (a->addr_valid != b->addr_valid || a->cnt_valid != b->cnt_valid ||
	    a->ctx_valid != b->ctx_valid || a->has_op != b->has_op ||
	    a->has_events != b->has_events || a->has_ds != b->has_ds || a->has_ts != b->has_ts)
		return false;
	for (unsigned i = 0; i < PV_SPE_ADDR_MAX; i++)
		if (a->addr_valid >> i & 1 && a->addr[i] != b->addr[i])
			return false;
	for (unsigned i = 0; i < PV_SPE_CNT_MAX; i++)
		if (a->cnt_valid >> i & 1 && a->cnt[i] != b->cnt[i])
			return false;
	for (unsigned i = 0; i < 2; i++)
		if (a->ctx_valid >> i & 1 && a->context[i] != b->context[i])
			return false;
	if (a->has_op && (a->op_class != b->op_class || a->op_subclass != b->op_subclass))
		return false;
	if (a->has_events && (a->events_len != b->events_len || a->events != b->events))
		return false;
	if (a->has_ds && (a->ds_len != b->ds_len || a->data_source != b->data_source))
		return false;
	return !a->has_ts || a->timestamp == b->timestamp;
}

static void packets(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off < size; off++) {
		struct pv_spe_pkt p;
		int n = pv_spe_pkt_decode(data + off, size - off, &p);
		if (n < 0) {
			FZ_CHECK(n == PV_SPE_ERR_TRUNCATED || n == PV_SPE_ERR_BAD,
				 "packet error %d", n);
			FZ_CHECK(pv_spe_strerror(n) != NULL, "error %d has no text", n);
			continue;
		}
		FZ_CHECK(n > 0 && n <= PV_SPE_PKT_MAX && (size_t)n <= size - off,
			 "packet of %d bytes at %zu of %zu", n, off, size);
		FZ_CHECK(p.type < PV_SPE_PKT_TYPES && p.len == n,
			 "packet type %u, len %u for %d", p.type, p.len, n);
		uint8_t out[PV_SPE_PKT_MAX];
		size_t m = pv_spe_pkt_encode(out, sizeof(out), &p);
		FZ_CHECK(m > 0,
			 "accepted packet (type %u index %u, %u bytes of payload) does not "
			 "encode",
			 p.type, p.index, p.payload_len);
		struct pv_spe_pkt q;
		int k = pv_spe_pkt_decode(out, m, &q);
		FZ_CHECK(k == (int)m && q.type == p.type && q.index == p.index &&
				 q.payload_len == p.payload_len && q.payload == p.payload,
			 "packet round trip: type %u index %u payload %u/%llx became %d bytes, "
			 "type "
			 "%u index %u payload %u/%llx",
			 p.type, p.index, p.payload_len, (unsigned long long)p.payload, k,
			 q.type, q.index, q.payload_len, (unsigned long long)q.payload);
	}
}

static void round_trip(const struct pv_spe_record *r, unsigned align)
{
	static uint8_t a[4096], b[4096];
	size_t n = pv_spe_record_encode(r, align, a, sizeof(a));
	FZ_CHECK(n > 0, "an accepted record does not encode (align %u)", align);
	FZ_CHECK(n % (1u << align) == 0, "record of %zu bytes not padded to 2^%u", n, align);
	struct pv_spe_record s;
	memset(&s, 0, sizeof(s));
	size_t pos = 0, pads = 0;
	int res = pv_spe_record_decode(a, n, &pos, &s, &pads);
	FZ_CHECK(res == 1, "the encoding of an accepted record decodes to %d at %zu", res, pos);
	FZ_CHECK(same_record(r, &s), "record round trip differs (align %u)", align);
	size_t m = pv_spe_record_encode(&s, align, b, sizeof(b));
	FZ_CHECK(m == n && memcmp(a, b, n) == 0,
		 "re-encoding is not stable: %zu, then %zu bytes", n, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	packets(data, size);
	size_t pos = 0;
	unsigned records = 0;
	for (;;) {
		struct pv_spe_record r;
		memset(&r, 0, sizeof(r));
		size_t start = pos, pads = 0;
		int res = pv_spe_record_decode(data, size, &pos, &r, &pads);
		if (res == 0) {
			FZ_CHECK(pos == size, "end of records at %zu of %zu", pos, size);
			break;
		}
		if (res < 0) {
			FZ_CHECK(res == PV_SPE_ERR_TRUNCATED || res == PV_SPE_ERR_BAD ||
					 res == PV_SPE_ERR_DUPLICATE,
				 "record error %d", res);
			/* A record cut by the end of the input is "truncated" at size. */
			FZ_CHECK(pos >= start && (pos < size ||
						  (res == PV_SPE_ERR_TRUNCATED && pos == size)),
				 "error %d (%s) names offset %zu, outside [%zu, %zu)", res,
				 pv_spe_strerror(res), pos, start, size);
			break;
		}
		FZ_CHECK(res == 1 && pos > start && pos <= size && pads <= pos - start,
			 "record: %d, position %zu -> %zu of %zu, %zu pads", res, start, pos,
			 size, pads);
		round_trip(&r, records % 7);
		records++;
	}
	return 0;
}
