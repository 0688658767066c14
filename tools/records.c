/* SPDX-License-Identifier: MIT */
/* Reading live figures records: records.h. */
#include "records.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[REC_STATUS_COUNT] = {
	[REC_OK] = "ok",   [REC_NOT_RECORD] = "not-record", [REC_VERSION] = "version",
	[REC_CRC] = "crc", [REC_MALFORMED] = "malformed",   [REC_TOO_LONG] = "too-long",
};

/* The CRC-32 of pv_record_crc32() a byte a step through a table, not a bit a step: the bitwise
 * one, small for the library, was two thirds of the reader's time. */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (unsigned b = 0; b < 8; b++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
		crc_table[i] = c;
	}
}

uint32_t rec_crc32(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xFFFFFFFFu;
	pthread_once(&crc_once, crc_init);
	for (size_t i = 0; i < len; i++)
		crc = (crc >> 8) ^ crc_table[(crc ^ p[i]) & 0xFF];
	return ~crc;
}

const char *rec_status_name(enum rec_status s)
{
	return s < REC_STATUS_COUNT ? status_names[s] : "?";
}

/* A whole decimal (or, with hex, 0x-prefixed hexadecimal) number of [s, s + n). */
static bool number(const char *s, size_t n, bool hex, uint64_t *v)
{
	char buf[32];
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	const char *digits = buf;
	int base = 10;
	if (hex) {
		if (n < 3 || buf[0] != '0' || buf[1] != 'x')
			return false;
		digits += 2;
		base = 16;
	}
	for (const char *p = digits; *p; p++)
		if (!(*p >= '0' && *p <= '9') && !(hex && ((*p >= 'a' && *p <= 'f'))))
			return false;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(digits, &end, base);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* A word of [a-z0-9-]+ into dst (size cap). */
static bool word(const char *s, size_t n, char *dst, size_t cap)
{
	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-'))
			return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == '-';
}

/* A VM name with its %xx escapes undone, as the library writes it: [A-Za-z0-9._:-] as they
 * are, any other byte escaped in lower-case hexadecimal, never one of those; and what it
 * names is printable ASCII (a label value every scraper takes), 1 to PV_RECORD_MAX_NAME
 * bytes. */
static bool vm_name(const char *s, size_t n, char *dst, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (i + 2 >= n)
				return false;
			int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0)
				return false;
			c = (char)(hi * 16 + lo);
			if (c < 0x20 || c > 0x7E || name_char(c))
				return false;
			i += 2;
		} else if (!name_char(c)) {
			return false;
		}
		if (o + 1 >= cap || o == PV_RECORD_MAX_NAME)
			return false;
		dst[o++] = c;
	}
	dst[o] = '\0';
	return o > 0;
}

const char *const rec_trap_groups[PV_KIND_COUNT] = {
	[PV_KIND_PMU] = "pmu",   [PV_KIND_SPE] = "spe", [PV_KIND_AMU] = "amu",
	[PV_KIND_MPAM] = "mpam", [PV_KIND_ID] = "id",
};

static bool key_is(const char *k, size_t kl, const char *want)
{
	return strlen(want) == kl && !memcmp(k, want, kl);
}

/* Keys a record holds once; their bits in `seen`. */
enum {
	K_SEQ = 1u << 0,
	K_TNS = 1u << 1,
	K_VM = 1u << 2,
	K_VCPU = 1u << 3,
	K_STATE = 1u << 4,
	K_REQUIRED = (1u << 5) - 1,
	K_LOADS = 1u << 5,
	K_SWITCHES = 1u << 6,
	K_IRQS = 1u << 7,
	K_PMCR = 1u << 8,
	K_CCNT = 1u << 9,
	K_SPE = 1u << 10,
	K_AMU = 1u << 11,
	K_TRAP0 = 1u << 12, /* and up: rec_trap_groups[] */
};

/* spe=<bytes>,<pinned>,<enables>,<rejected>,<events>,<chunks>,<s2_faults>: seven numbers,
 * no more, no fewer. */
static bool spe_figures(const char *v, size_t vl, struct rec_spe *spe)
{
	uint64_t *x[] = {&spe->bytes,  &spe->pinned, &spe->enables,  &spe->rejected,
			 &spe->events, &spe->chunks, &spe->s2_faults};
	const char *end = v + vl;
	for (unsigned i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		const char *sep = memchr(v, ',', (size_t)(end - v));
		const char *e = sep ? sep : end;
		if ((i + 1 < sizeof(x) / sizeof(x[0])) != (sep != NULL) ||
		    !number(v, (size_t)(e - v), false, x[i]))
			return false;
		v = e + 1;
	}
	return true;
}

/* amu=<the four group 0 counters>,<one per auxiliary counter of the VM>: 4 to
 * PV_AMU_COUNTERS numbers, none empty. */
static bool amu_figures(const char *v, size_t vl, struct rec_vcpu *r)
{
	const char *end = v + vl;
	unsigned n = 0;
	for (;;) {
		const char *sep = memchr(v, ',', (size_t)(end - v));
		const char *e = sep ? sep : end;
		if (n == PV_AMU_COUNTERS || !number(v, (size_t)(e - v), false, &r->amu[n]))
			return false;
		n++;
		if (!sep)
			break;
		v = sep + 1;
	}
	r->namu = n;
	return n >= PV_AMU_GROUP0;
}

/* Marks key `bit` seen; false if it was already (a record holds each once). */
static bool once(unsigned *seen, unsigned bit)
{
	if (*seen & bit)
		return false;
	*seen |= bit;
	return true;
}

/* One key=value field into r; false when it is not as PVR1 says. Unknown keys are fine. */
static bool parse_field(struct rec_vcpu *r, const char *k, size_t kl, const char *v, size_t vl,
			unsigned *seen)
{
	uint64_t x, y;
	const char *sep;
	if (key_is(k, kl, "seq"))
		return once(seen, K_SEQ) && number(v, vl, false, &r->seq);
	if (key_is(k, kl, "t_ns"))
		return once(seen, K_TNS) && number(v, vl, false, &r->time_ns);
	if (key_is(k, kl, "vm"))
		return once(seen, K_VM) && vm_name(v, vl, r->vm, sizeof(r->vm));
	if (key_is(k, kl, "vcpu")) {
		if (!once(seen, K_VCPU) || !number(v, vl, false, &x) || x > UINT32_MAX)
			return false;
		r->vcpu = (unsigned)x;
		return true;
	}
	if (key_is(k, kl, "state"))
		return once(seen, K_STATE) && word(v, vl, r->state, sizeof(r->state));
	if (key_is(k, kl, "loads"))
		return once(seen, K_LOADS) && number(v, vl, false, &r->loads);
	if (key_is(k, kl, "switches"))
		return once(seen, K_SWITCHES) && number(v, vl, false, &r->switches);
	if (key_is(k, kl, "pmu_irqs"))
		return once(seen, K_IRQS) && number(v, vl, false, &r->pmu_irqs);
	if (kl > 5 && memcmp(k, "trap.", 5) == 0)
		for (unsigned t = 0; t < PV_KIND_COUNT; t++)
			if (key_is(k + 5, kl - 5, rec_trap_groups[t]))
				return once(seen, K_TRAP0 << t) &&
				       number(v, vl, false, &r->traps[t]);
	if (kl > 5 && !memcmp(k, "exit.", 5)) {
		if (r->nexits >= PV_RECORD_MAX_EXIT_KINDS || !(sep = memchr(v, ',', vl)))
			return false;
		struct rec_exit *e = &r->exit[r->nexits];
		if (!word(k + 5, kl - 5, e->kind, sizeof(e->kind)) ||
		    !number(v, (size_t)(sep - v), false, &e->exits) ||
		    !number(sep + 1, vl - (size_t)(sep - v) - 1, false, &e->el2_instructions))
			return false;
		for (unsigned i = 0; i < r->nexits; i++)
			if (!strcmp(r->exit[i].kind, e->kind))
				return false; /* twice */
		r->nexits++;
		return true;
	}
	if (key_is(k, kl, "pmcr")) {
		r->pmu_used = true;
		return once(seen, K_PMCR) && number(v, vl, true, &r->pmcr);
	}
	if (kl > 4 && !memcmp(k, "pmc.", 4)) {
		if (!number(k + 4, kl - 4, false, &x) || x > 30 || r->ncounters >= 31 ||
		    !(sep = memchr(v, ':', vl)) || !number(v, (size_t)(sep - v), true, &y) ||
		    y > 0xFFFF)
			return false;
		struct rec_counter *c = &r->counter[r->ncounters];
		for (unsigned i = 0; i < r->ncounters; i++)
			if (r->counter[i].index == x)
				return false;
		c->index = (unsigned)x;
		c->event = (uint32_t)y;
		if (!number(sep + 1, vl - (size_t)(sep - v) - 1, false, &c->value))
			return false;
		r->ncounters++;
		return true;
	}
	if (key_is(k, kl, "spe")) {
		r->has_spe = true;
		return once(seen, K_SPE) && spe_figures(v, vl, &r->spe);
	}
	if (key_is(k, kl, "amu"))
		return once(seen, K_AMU) && amu_figures(v, vl, r);
	if (key_is(k, kl, "ccnt")) {
		struct rec_counter *c = &r->counter[r->ncounters];
		if (!once(seen, K_CCNT) || r->ncounters >= 32 ||
		    !number(v, vl, false, &c->value))
			return false;
		c->index = PV_PMU_CYCLE_IDX;
		c->event = PV_EVT_CPU_CYCLES;
		r->ncounters++;
		return true;
	}
	return true; /* a key a later PVR1 added */
}

enum rec_status rec_parse(const char *line, size_t len, struct rec_vcpu *out)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len < 3 || memcmp(line, "PVR", 3) != 0)
		return REC_NOT_RECORD;
	if (len < 5 || memcmp(line, "PVR1 ", 5) != 0)
		return REC_VERSION;
	/* One line of printable ASCII, no longer than the library ever writes one. */
	if (len + 2 > PV_RECORD_MAX)
		return REC_MALFORMED;
	for (size_t i = 0; i < len; i++)
		if (line[i] < 0x20 || line[i] > 0x7E)
			return REC_MALFORMED;
	/* " crc=" and eight hexadecimal digits end the line; they cover all before them. */
	if (len < 5 + 13 || memcmp(line + len - 13, " crc=", 5) != 0)
		return REC_CRC;
	uint64_t crc;
	char digits[11] = "0x";
	memcpy(digits + 2, line + len - 8, 8);
	digits[10] = '\0';
	if (!number(digits, 10, true, &crc) || crc != rec_crc32(line, len - 13))
		return REC_CRC;
	struct rec_vcpu r;
	memset(&r, 0, sizeof(r));
	unsigned seen = 0;
	const char *p = line + 5, *end = line + len - 13;
	while (p < end) {
		const char *f = p;
		const char *sp = memchr(f, ' ', (size_t)(end - f));
		const char *fe = sp ? sp : end;
		const char *eq = memchr(f, '=', (size_t)(fe - f));
		if (!eq || eq == f)
			return REC_MALFORMED;
		if (!parse_field(&r, f, (size_t)(eq - f), eq + 1, (size_t)(fe - eq - 1), &seen))
			return REC_MALFORMED;
		p = sp ? sp + 1 : end;
	}
	/* seq, t_ns, vm, vcpu and state are in every record. */
	if ((seen & K_REQUIRED) != K_REQUIRED)
		return REC_MALFORMED;
	*out = r;
	return REC_OK;
}

/* FNV-1a of the VM's name and the vCPU's index: the store's bucket of a vCPU. */
static unsigned bucket_of(const char *vm, unsigned vcpu)
{
	uint32_t h = 2166136261u;
	for (const char *p = vm; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (unsigned i = 0; i < 4; i++, vcpu >>= 8)
		h = (h ^ (vcpu & 0xFF)) * 16777619u;
	return h & (REC_STORE_BUCKETS - 1);
}

/* Takes entry `at` out of its bucket's chain. */
static void unlink_entry(struct rec_store *s, unsigned at)
{
	uint16_t *p = &s->bucket[bucket_of(s->vcpu[at].vm, s->vcpu[at].vcpu)];
	while (*p && *p != at + 1)
		p = &s->next[*p - 1];
	if (*p)
		*p = s->next[at];
}

enum rec_status rec_store_line(struct rec_store *s, const char *line, size_t len)
{
	struct rec_vcpu r;
	enum rec_status st = rec_parse(line, len, &r);
	s->lines[st]++;
	if (st != REC_OK)
		return st;
	s->reads++;
	unsigned b = bucket_of(r.vm, r.vcpu);
	for (unsigned e = s->bucket[b]; e; e = s->next[e - 1]) {
		struct rec_vcpu *v = &s->vcpu[e - 1];
		if (v->vcpu == r.vcpu && strcmp(v->vm, r.vm) == 0) {
			*v = r;
			s->last_read[e - 1] = s->reads;
			return st;
		}
	}
	unsigned at = s->n;
	if (s->n < REC_STORE_MAX) {
		s->n++;
	} else { /* full: the vCPU heard from longest ago makes room */
		at = 0;
		for (unsigned i = 1; i < s->n; i++)
			if (s->last_read[i] < s->last_read[at])
				at = i;
		unlink_entry(s, at);
		s->evicted++;
	}
	s->vcpu[at] = r;
	s->last_read[at] = s->reads;
	s->next[at] = s->bucket[b];
	s->bucket[b] = (uint16_t)(at + 1);
	return st;
}

void rec_lines_feed(struct rec_lines *l, const char *bytes, size_t len, rec_piece_fn *fn,
		    void *ctx)
{
	while (len) {
		const char *nl = memchr(bytes, '\n', len);
		size_t n = nl ? (size_t)(nl - bytes) + 1 : len;
		if (l->long_line) {
			fn(ctx, REC_LONG_MORE, bytes, n);
		} else if (l->len + n <= REC_LINE_MAX) {
			memcpy(l->line + l->len, bytes, n);
			l->len += n;
		} else { /* past the bound: what is held goes as the head, the rest as it comes */
			size_t fill = REC_LINE_MAX - l->len;
			memcpy(l->line + l->len, bytes, fill);
			fn(ctx, REC_LONG_HEAD, l->line, REC_LINE_MAX);
			fn(ctx, REC_LONG_MORE, bytes + fill, n - fill);
			l->long_line = true;
		}
		if (nl) {
			if (!l->long_line)
				fn(ctx, REC_LINE, l->line, l->len);
			l->len = 0;
			l->long_line = false;
		}
		bytes += n;
		len -= n;
	}
}

void rec_lines_end(struct rec_lines *l, rec_piece_fn *fn, void *ctx)
{
	if (l->len && !l->long_line)
		fn(ctx, REC_LINE, l->line, l->len);
	l->len = 0;
	l->long_line = false;
}
