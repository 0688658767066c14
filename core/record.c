/* SPDX-License-Identifier: MIT */
/*
 * Live figures records (include/perfvisor/record.h, docs/records.md): formatted here, in the
 * core, so that every host emits the same format; freestanding, no libc.
 */
#include "perfvisor/record.h"
#include "perfvisor/vamu.h"
#include "perfvisor/vpmu.h"
#include "perfvisor/vspe.h"

/* Appends to a bounded buffer; once anything did not fit, `ok` stays false. */
struct out {
	char *buf;
	size_t size, len;
	bool ok;
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len++] = c;
	else
		o->ok = false;
}

static void put_str(struct out *o, const char *s)
{
	while (*s)
		put_char(o, *s++);
}

static void put_dec(struct out *o, uint64_t v)
{
	char d[20];
	unsigned n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		put_char(o, d[--n]);
}

static void put_hex(struct out *o, uint64_t v, unsigned min_digits)
{
	static const char digit[] = "0123456789abcdef";
	char d[16];
	unsigned n = 0;
	do {
		d[n++] = digit[v & 0xF];
		v >>= 4;
	} while (v || n < min_digits);
	while (n)
		put_char(o, d[--n]);
}

static void field(struct out *o, const char *key, uint64_t v)
{
	put_char(o, ' ');
	put_str(o, key);
	put_char(o, '=');
	put_dec(o, v);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == '-';
}

/* A VM name: anything outside [A-Za-z0-9._:-] as %XX, so a field never holds a space. */
static void put_name(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (name_char(*s)) {
			put_char(o, *s);
		} else {
			put_char(o, '%');
			put_hex(o, (uint8_t)*s, 2);
		}
	}
}

/* The host's words (state, exit kinds): [a-z0-9-], 1 to `max` of them, or the record is
 * refused. */
static bool is_word(const char *s, size_t max)
{
	size_t n = 0;
	if (!s || !*s)
		return false;
	for (; *s; s++, n++)
		if (n == max ||
		    !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static bool name_ok(const char *s)
{
	size_t n = 0;
	while (s && s[n] && n <= PV_RECORD_MAX_NAME)
		n++;
	return s && n && n <= PV_RECORD_MAX_NAME;
}

uint32_t pv_record_crc32(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (unsigned b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static const char *const trap_key[PV_KIND_COUNT] = {
	[PV_KIND_PMU] = "trap.pmu",   [PV_KIND_SPE] = "trap.spe", [PV_KIND_AMU] = "trap.amu",
	[PV_KIND_MPAM] = "trap.mpam", [PV_KIND_ID] = "trap.id",
};

size_t pv_record_vcpu(char *buf, size_t size, struct pv_vcpu *v, const struct pv_record_host *h)
{
	struct out o = {.buf = buf, .size = size, .ok = size > 0};
	bool host_ok = h && name_ok(h->vm_name) && is_word(h->state, PV_RECORD_MAX_STATE) &&
		       h->nr_exits <= PV_RECORD_MAX_EXIT_KINDS && (h->exits || !h->nr_exits);
	const struct pv_vpmu *p = &v->pmu;
	uint32_t crc;
	for (unsigned k = 0; host_ok && k < h->nr_exits; k++)
		host_ok = is_word(h->exits[k].kind, PV_RECORD_MAX_WORD);
	if (!host_ok || !o.ok) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	put_str(&o, "PVR1");
	field(&o, "seq", h->seq);
	field(&o, "t_ns", h->time_ns);
	put_str(&o, " vm=");
	put_name(&o, h->vm_name);
	field(&o, "vcpu", v->id);
	put_str(&o, " state=");
	put_str(&o, h->state);
	field(&o, "loads", v->stats.loads);
	field(&o, "switches", h->switches_in);
	field(&o, "pmu_irqs", v->stats.pmu_irqs);
	for (unsigned k = 0; k < PV_KIND_COUNT; k++)
		field(&o, trap_key[k], v->stats.traps[k]);
	for (unsigned k = 0; k < h->nr_exits; k++) {
		put_str(&o, " exit.");
		put_str(&o, h->exits[k].kind);
		put_char(&o, '=');
		put_dec(&o, h->exits[k].exits);
		put_char(&o, ',');
		put_dec(&o, h->exits[k].el2_instructions);
	}
	pv_vpmu_sync(v); /* a passthrough vCPU's registers, read back if it is loaded */
	if (p->active) {
		put_str(&o, " pmcr=0x");
		put_hex(&o, p->pmcr, 1);
		for (unsigned n = 0; n < v->vm->pmu.nr_counters; n++) {
			uint64_t value = pv_vpmu_counter(v, n);
			put_str(&o, " pmc.");
			put_dec(&o, n);
			put_str(&o, "=0x");
			put_hex(&o, p->evtyper[n] & v->vm->pmu.event_mask, 1);
			put_char(&o, ':');
			put_dec(&o, value);
		}
		field(&o, "ccnt", pv_vpmu_counter(v, PV_PMU_CYCLE_IDX));
	}
	if (v->vm->spe.version) {
		const struct pv_vspe_stats *st = &v->spe.stats;
		/* One field, not seven: their keys would not fit in PV_RECORD_MAX beside the
		 * longest host's side (record.h). */
		uint64_t spe[7];
		pv_vspe_pointer(v); /* a loaded vCPU's bytes written up to now */
		spe[0] = st->bytes;
		spe[1] = v->spe.pinned_bytes;
		spe[2] = st->enables;
		spe[3] = st->rejected;
		spe[4] = st->events;
		spe[5] = st->chunks;
		spe[6] = st->s2_faults;
		put_str(&o, " spe=");
		for (unsigned k = 0; k < 7; k++) {
			if (k)
				put_char(&o, ',');
			put_dec(&o, spe[k]);
		}
	}
	if (v->vm->amu.version) {
		/* The four group 0 counters, then each auxiliary counter the VM has, as the
		 * guest reads them (zeros under AMCR_EL0.CG1RZ, Arm ARM D24.6). One field, as
		 * spe= is: twenty keys of their own would not fit in PV_RECORD_MAX. pv_vm_init()
		 * allows no more than PV_AMU_AUX_MAX auxiliary counters; bounding them here too
		 * keeps the record within PV_RECORD_MAX whatever struct pv_vm_amu holds. */
		unsigned aux = v->vm->amu.nr_aux < PV_AMU_AUX_MAX ? v->vm->amu.nr_aux
								  : PV_AMU_AUX_MAX;
		put_str(&o, " amu=");
		for (unsigned k = 0; k < PV_AMU_GROUP0 + aux; k++) {
			if (k)
				put_char(&o, ',');
			put_dec(&o, pv_vamu_counter(v, k));
		}
	}
	if (!o.ok) { /* the CRC must cover all of it: no room, no record */
		buf[0] = '\0';
		return 0;
	}
	crc = pv_record_crc32(buf, o.len);
	put_str(&o, " crc=");
	put_hex(&o, crc, 8);
	put_char(&o, '\n');
	if (!o.ok) {
		buf[0] = '\0';
		return 0;
	}
	buf[o.len] = '\0';
	return o.len;
}
