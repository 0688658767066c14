/* SPDX-License-Identifier: MIT */
/*
 * SPE packet and record encoder/decoder (Arm ARM D18 "Statistical Profiling Extension sample
 * record specification"; the record layout of the Arm ARM pseudocode SPEConstructRecord()):
 * host code, not the core's (the EL2 library never looks inside a record). The machine
 * model's profiler writes records with it; the tool and the tests read them back.
 */
#include "perfvisor/spe_packet.h"

#define HDR_EXT 0x20u /* 0b001000:idx[4:3], then the short header */
#define HDR_END 0x01u
#define HDR_TIMESTAMP 0x71u
#define HDR_EVENTS 0x42u      /* | sz << 4 */
#define HDR_DATA_SOURCE 0x43u /* | sz << 4 */
#define HDR_CONTEXT 0x64u     /* | index, sz = 0b10 */
#define HDR_OP_TYPE 0x48u     /* | class, sz = 0b00 */
#define HDR_ADDRESS 0xB0u     /* | index[2:0], sz = 0b11 */
#define HDR_COUNTER 0x98u     /* | index[2:0], sz = 0b01 */

static unsigned size_code(unsigned bytes)
{
	return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : bytes == 8 ? 3 : 4;
}

/* The type, index and fixed payload size a short header names; false for a reserved one.
 * A payload size of 0 means "any of 1, 2, 4, 8 from the header". */
static bool classify(uint8_t h, uint8_t *type, uint8_t *index, unsigned *fixed)
{
	*index = 0;
	*fixed = 0;
	if (h == 0x00 || h == HDR_END) {
		*type = h ? PV_SPE_PKT_END : PV_SPE_PKT_PAD;
		*fixed = 0;
		return true;
	}
	if (h == HDR_TIMESTAMP) {
		*type = PV_SPE_PKT_TIMESTAMP;
		*fixed = 8;
		return true;
	}
	if ((h & 0xCFu) == HDR_EVENTS || (h & 0xCFu) == HDR_DATA_SOURCE) {
		*type = (h & 1u) ? PV_SPE_PKT_DATA_SOURCE : PV_SPE_PKT_EVENTS;
		return true;
	}
	if ((h & 0xFCu) == HDR_CONTEXT && (h & 3u) < 2) {
		*type = PV_SPE_PKT_CONTEXT;
		*index = h & 3u;
		*fixed = 4;
		return true;
	}
	if ((h & 0xFCu) == HDR_OP_TYPE && (h & 3u) < 3) {
		*type = PV_SPE_PKT_OP_TYPE;
		*index = h & 3u;
		*fixed = 1;
		return true;
	}
	if ((h & 0xF8u) == HDR_ADDRESS || (h & 0xF8u) == HDR_COUNTER) {
		bool addr = (h & 0xF8u) == HDR_ADDRESS;
		*type = addr ? PV_SPE_PKT_ADDRESS : PV_SPE_PKT_COUNTER;
		*index = h & 7u;
		*fixed = addr ? 8 : 2;
		return true;
	}
	return false;
}

int pv_spe_pkt_decode(const uint8_t *buf, size_t len, struct pv_spe_pkt *p)
{
	if (len == 0)
		return PV_SPE_ERR_TRUNCATED;
	size_t at = 0;
	unsigned hi = 0;
	bool ext = (buf[0] & 0xFCu) == HDR_EXT;
	if (ext) {
		hi = (buf[0] & 3u) << 3;
		if (len < 2)
			return PV_SPE_ERR_TRUNCATED;
		at = 1;
	}
	uint8_t h = buf[at], type, index;
	unsigned fixed;
	if (!classify(h, &type, &index, &fixed))
		return PV_SPE_ERR_BAD;
	/* Only Address and Counter packets have an extended form. */
	if (ext && type != PV_SPE_PKT_ADDRESS && type != PV_SPE_PKT_COUNTER)
		return PV_SPE_ERR_BAD;
	unsigned size = type == PV_SPE_PKT_PAD || type == PV_SPE_PKT_END ? 0
									 : 1u << (h >> 4 & 3u);
	if (fixed && size != fixed)
		return PV_SPE_ERR_BAD;
	size_t total = at + 1 + size;
	if (len < total)
		return PV_SPE_ERR_TRUNCATED;
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)buf[at + 1 + i] << (8 * i);
	*p = (struct pv_spe_pkt){.type = type,
				 .index = (uint8_t)(index | hi),
				 .len = (uint8_t)total,
				 .payload_len = (uint8_t)size,
				 .payload = v};
	return (int)total;
}

size_t pv_spe_pkt_encode(uint8_t *out, size_t cap, const struct pv_spe_pkt *p)
{
	unsigned size = p->payload_len, sz = size_code(size);
	uint8_t h;
	bool ext = false;
	switch (p->type) {
	case PV_SPE_PKT_PAD:
	case PV_SPE_PKT_END:
		size = 0;
		h = p->type == PV_SPE_PKT_END ? HDR_END : 0;
		break;
	case PV_SPE_PKT_TIMESTAMP:
		size = 8;
		h = HDR_TIMESTAMP;
		break;
	case PV_SPE_PKT_EVENTS:
	case PV_SPE_PKT_DATA_SOURCE:
		if (sz > 3)
			return 0;
		h = (uint8_t)((p->type == PV_SPE_PKT_EVENTS ? HDR_EVENTS : HDR_DATA_SOURCE) |
			      sz << 4);
		break;
	case PV_SPE_PKT_CONTEXT:
		if (p->index > 1)
			return 0;
		size = 4;
		h = (uint8_t)(HDR_CONTEXT | p->index);
		break;
	case PV_SPE_PKT_OP_TYPE:
		if (p->index > 2)
			return 0;
		size = 1;
		h = (uint8_t)(HDR_OP_TYPE | p->index);
		break;
	case PV_SPE_PKT_ADDRESS:
	case PV_SPE_PKT_COUNTER:
		if (p->index >= 32)
			return 0;
		size = p->type == PV_SPE_PKT_ADDRESS ? 8 : 2;
		h = (uint8_t)((p->type == PV_SPE_PKT_ADDRESS ? HDR_ADDRESS : HDR_COUNTER) |
			      (p->index & 7u));
		ext = p->index >= 8;
		break;
	default:
		return 0;
	}
	size_t total = (ext ? 2u : 1u) + size;
	if (cap < total)
		return 0;
	size_t at = 0;
	if (ext)
		out[at++] = (uint8_t)(HDR_EXT | p->index >> 3);
	out[at++] = h;
	for (unsigned i = 0; i < size; i++)
		out[at++] = (uint8_t)(p->payload >> (8 * i));
	return total;
}

/* Appends one packet; false when it does not fit. */
static bool put(uint8_t *out, size_t cap, size_t *at, uint8_t type, unsigned index,
		unsigned bytes, uint64_t payload)
{
	struct pv_spe_pkt p = {.type = type,
			       .index = (uint8_t)index,
			       .payload_len = (uint8_t)bytes,
			       .payload = payload};
	size_t n = pv_spe_pkt_encode(out + *at, cap - *at, &p);
	*at += n;
	return n != 0;
}

size_t pv_spe_record_encode(const struct pv_spe_record *r, unsigned align, uint8_t *out,
			    size_t cap)
{
	size_t at = 0;
	bool ok = true;
	for (unsigned i = 0; i < 2; i++)
		if (r->ctx_valid >> i & 1)
			ok = ok && put(out, cap, &at, PV_SPE_PKT_CONTEXT, i, 4, r->context[i]);
	for (unsigned i = 0; i < PV_SPE_CNT_MAX; i++)
		if (r->cnt_valid >> i & 1)
			ok = ok && put(out, cap, &at, PV_SPE_PKT_COUNTER, i, 2, r->cnt[i]);
	for (unsigned i = 0; i < PV_SPE_ADDR_MAX; i++)
		if (r->addr_valid >> i & 1)
			ok = ok && put(out, cap, &at, PV_SPE_PKT_ADDRESS, i, 8, r->addr[i]);
	if (r->has_ds)
		ok = ok &&
		     put(out, cap, &at, PV_SPE_PKT_DATA_SOURCE, 0, r->ds_len, r->data_source);
	if (r->has_op)
		ok = ok &&
		     put(out, cap, &at, PV_SPE_PKT_OP_TYPE, r->op_class, 1, r->op_subclass);
	if (r->has_events)
		ok = ok && put(out, cap, &at, PV_SPE_PKT_EVENTS, 0, r->events_len, r->events);
	if (r->has_ts)
		ok = ok && put(out, cap, &at, PV_SPE_PKT_TIMESTAMP, 0, 8, r->timestamp);
	else
		ok = ok && put(out, cap, &at, PV_SPE_PKT_END, 0, 0, 0);
	if (!ok)
		return 0;
	size_t unit = (size_t)1 << (align > 11 ? 11 : align);
	while (at % unit) {
		if (at == cap)
			return 0;
		out[at++] = 0;
	}
	return at;
}

int pv_spe_record_decode(const uint8_t *buf, size_t len, size_t *pos, struct pv_spe_record *r,
			 size_t *pads)
{
	size_t at = *pos, skipped = 0;
	while (at < len && buf[at] == 0) {
		at++;
		skipped++;
	}
	if (pads)
		*pads = skipped;
	*pos = at;
	if (at >= len)
		return 0;
	*r = (struct pv_spe_record){0};
	for (;;) {
		struct pv_spe_pkt p;
		int n = pv_spe_pkt_decode(buf + at, len - at, &p);
		if (n < 0) {
			*pos = at;
			return n;
		}
		bool dup = false;
		switch (p.type) {
		case PV_SPE_PKT_PAD: /* a header like any other within a record (D18.1.2), one
					that ends nothing: skipped */
			break;
		case PV_SPE_PKT_END:
			*pos = at + (size_t)n;
			return 1;
		case PV_SPE_PKT_TIMESTAMP:
			r->has_ts = true;
			r->timestamp = p.payload;
			*pos = at + (size_t)n;
			return 1;
		case PV_SPE_PKT_EVENTS:
			dup = r->has_events;
			r->has_events = true;
			r->events_len = p.payload_len;
			r->events = p.payload;
			break;
		case PV_SPE_PKT_DATA_SOURCE:
			dup = r->has_ds;
			r->has_ds = true;
			r->ds_len = p.payload_len;
			r->data_source = p.payload;
			break;
		case PV_SPE_PKT_CONTEXT:
			dup = r->ctx_valid >> p.index & 1;
			r->ctx_valid |= (uint8_t)(1u << p.index);
			r->context[p.index] = (uint32_t)p.payload;
			break;
		case PV_SPE_PKT_OP_TYPE:
			dup = r->has_op;
			r->has_op = true;
			r->op_class = p.index;
			r->op_subclass = (uint8_t)p.payload;
			break;
		case PV_SPE_PKT_ADDRESS:
			dup = r->addr_valid >> p.index & 1;
			r->addr_valid |= 1u << p.index;
			r->addr[p.index] = p.payload;
			break;
		case PV_SPE_PKT_COUNTER:
			dup = r->cnt_valid >> p.index & 1;
			r->cnt_valid |= 1u << p.index;
			r->cnt[p.index] = (uint16_t)p.payload;
			break;
		default:
			break;
		}
		if (dup) {
			*pos = at;
			return PV_SPE_ERR_DUPLICATE;
		}
		at += (size_t)n;
		if (at >= len) {
			*pos = at;
			return PV_SPE_ERR_TRUNCATED; /* no End or Timestamp packet */
		}
	}
}

const char *pv_spe_strerror(int err)
{
	switch (err) {
	case PV_SPE_ERR_TRUNCATED:
		return "truncated packet or record";
	case PV_SPE_ERR_BAD:
		return "reserved or malformed packet";
	case PV_SPE_ERR_DUPLICATE:
		return "packet repeated in a record";
	default:
		return "no error";
	}
}

const char *pv_spe_pkt_name(enum pv_spe_pkt_type t)
{
	static const char *const names[PV_SPE_PKT_TYPES] = {
		"PAD",     "END",     "TIMESTAMP", "EVENTS",  "DATA-SOURCE",
		"CONTEXT", "OP-TYPE", "ADDRESS",   "COUNTER",
	};
	return (unsigned)t < PV_SPE_PKT_TYPES ? names[t] : "?";
}
