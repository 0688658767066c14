/* SPDX-License-Identifier: MIT */
/*
 * `perfvisor spe-decode`: a raw SPE profiling buffer (what a guest's PMBPTR_EL1 left behind,
 * the bytes between its buffer base and its pointer) as one readable line per record, or as
 * JSON. The decoding is the core's (include/perfvisor/spe_packet.h), the one the machine model
 * writes with.
 *
 *   perfvisor spe-decode [--json] FILE      FILE "-": standard input
 *
 * Exit status: 0 every byte decoded; 1 the file cannot be read, or it holds a truncated or
 * malformed packet (the records before it are printed, then the error with its offset);
 * 2 bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "perfvisor/spe_packet.h"
#include "tool.h"

static void usage(FILE *out)
{
	fputs("usage: perfvisor spe-decode [--json] FILE\n"
	      "\n"
	      "Decodes a raw Statistical Profiling Extension buffer (FILE, or - for standard\n"
	      "input): one line per record with its offset, the sampled PC and exception "
	      "level,\n"
	      "the operation, addresses, latencies, events, data source, contexts and "
	      "timestamp.\n"
	      "\n"
	      "options:\n"
	      "  --json      one JSON document: {\"records\": [...], \"bytes\": N}\n"
	      "  -h, --help  this text\n",
	      out);
}

static const char *const event_names[] = {
	"exception", "retired",      "l1d-access", "l1d-refill", "tlb-access", "tlb-walk",
	"not-taken", "mispredicted", "llc-access", "llc-miss",   "remote",     "misaligned",
};
#define NEVENTS (sizeof(event_names) / sizeof(event_names[0]))

/* The operation type packet (D18.2.7, Operation Type packet), in words. */
static void op_text(const struct pv_spe_record *r, char *out, size_t size)
{
	unsigned sub = r->op_subclass;
	if (!r->has_op) {
		snprintf(out, size, "-");
	} else if (r->op_class == PV_SPE_OP_OTHER) {
		snprintf(out, size, "other%s", sub & 1 ? "-conditional" : "");
	} else if (r->op_class == PV_SPE_OP_BRANCH) {
		snprintf(out, size, "branch%s%s", sub & 2 ? "-indirect" : "",
			 sub & 1 ? "-conditional" : "");
	} else {
		const char *kind = (sub & 0xE2) == 0x02   ? "atomic-"
				   : (sub & 0xFE) == 0x04 ? "simd-fp-"
				   : (sub & 0x0A) == 0x08 ? "sve-"
							  : "";
		snprintf(out, size, "%s%s", kind, sub & 1 ? "store" : "load");
	}
}

static void events_text(uint64_t ev, char *out, size_t size)
{
	size_t at = 0;
	out[0] = 0;
	for (unsigned b = 0; b < 64 && at < size; b++) {
		if (!(ev >> b & 1))
			continue;
		int n = b < NEVENTS
				? snprintf(out + at, size - at, "%s%s", at ? "," : "",
					   event_names[b])
				: snprintf(out + at, size - at, "%sevent%u", at ? "," : "", b);
		at += n > 0 ? (size_t)n : 0;
	}
	if (!at)
		snprintf(out, size, "-");
}

/* An address packet's payload: [55:0] address; PC and branch targets also NS and EL. */
static void addr_text(FILE *out, const char *name, uint64_t a, bool with_el)
{
	if (with_el)
		fprintf(out, " %s=0x%014" PRIx64 ":el%u%s", name,
			a & UINT64_C(0xFFFFFFFFFFFFFF), (unsigned)(a >> 61 & 3),
			a >> 63 ? "" : ":s");
	else
		fprintf(out, " %s=0x%016" PRIx64, name, a);
}

static void line(FILE *out, size_t off, const struct pv_spe_record *r)
{
	char op[48], ev[512];
	op_text(r, op, sizeof(op));
	events_text(r->events, ev, sizeof(ev));
	fprintf(out, "%08zx %s", off, op);
	if (r->addr_valid >> PV_SPE_ADDR_PC & 1)
		addr_text(out, "pc", r->addr[PV_SPE_ADDR_PC], true);
	if (r->addr_valid >> PV_SPE_ADDR_BRANCH & 1)
		addr_text(out, "target", r->addr[PV_SPE_ADDR_BRANCH], true);
	if (r->addr_valid >> PV_SPE_ADDR_DATA_VA & 1)
		addr_text(out, "va", r->addr[PV_SPE_ADDR_DATA_VA], false);
	if (r->addr_valid >> PV_SPE_ADDR_DATA_PA & 1)
		addr_text(out, "pa", r->addr[PV_SPE_ADDR_DATA_PA] & UINT64_C(0xFFFFFFFFFFFFFF),
			  false);
	if (r->addr_valid >> PV_SPE_ADDR_PREV_BRANCH & 1)
		addr_text(out, "prev", r->addr[PV_SPE_ADDR_PREV_BRANCH], true);
	for (unsigned i = PV_SPE_ADDR_PREV_BRANCH + 1; i < PV_SPE_ADDR_MAX; i++)
		if (r->addr_valid >> i & 1)
			fprintf(out, " addr%u=0x%016" PRIx64, i, r->addr[i]);
	static const char *const cnt[3] = {"total", "issue", "xlat"};
	for (unsigned i = 0; i < PV_SPE_CNT_MAX; i++)
		if (r->cnt_valid >> i & 1) {
			if (i < 3)
				fprintf(out, " %s=%u", cnt[i], r->cnt[i]);
			else
				fprintf(out, " count%u=%u", i, r->cnt[i]);
		}
	fprintf(out, " events=%s", r->has_events ? ev : "-");
	if (r->has_ds)
		fprintf(out, " source=0x%" PRIx64, r->data_source);
	if (r->ctx_valid & 1)
		fprintf(out, " ctx1=0x%" PRIx32, r->context[0]);
	if (r->ctx_valid & 2)
		fprintf(out, " ctx2=0x%" PRIx32, r->context[1]);
	if (r->has_ts)
		fprintf(out, " ts=%" PRIu64, r->timestamp);
	fputc('\n', out);
}

static void json_addr(FILE *out, const char *name, uint64_t a, bool with_el)
{
	if (with_el)
		fprintf(out,
			", \"%s\": {\"address\": \"0x%" PRIx64 "\", \"el\": %u, \"ns\": %s}",
			name, a & UINT64_C(0xFFFFFFFFFFFFFF), (unsigned)(a >> 61 & 3),
			a >> 63 ? "true" : "false");
	else
		fprintf(out, ", \"%s\": \"0x%" PRIx64 "\"", name, a);
}

static void json_record(FILE *out, size_t off, const struct pv_spe_record *r, bool first)
{
	char op[48];
	op_text(r, op, sizeof(op));
	fprintf(out, "%s\n    {\"offset\": %zu, \"op\": \"%s\"", first ? "" : ",", off, op);
	if (r->has_op)
		fprintf(out, ", \"class\": %u, \"subclass\": %u", r->op_class, r->op_subclass);
	if (r->addr_valid >> PV_SPE_ADDR_PC & 1)
		json_addr(out, "pc", r->addr[PV_SPE_ADDR_PC], true);
	if (r->addr_valid >> PV_SPE_ADDR_BRANCH & 1)
		json_addr(out, "target", r->addr[PV_SPE_ADDR_BRANCH], true);
	if (r->addr_valid >> PV_SPE_ADDR_DATA_VA & 1)
		json_addr(out, "va", r->addr[PV_SPE_ADDR_DATA_VA], false);
	if (r->addr_valid >> PV_SPE_ADDR_DATA_PA & 1)
		json_addr(out, "pa", r->addr[PV_SPE_ADDR_DATA_PA] & UINT64_C(0xFFFFFFFFFFFFFF),
			  false);
	if (r->addr_valid >> PV_SPE_ADDR_PREV_BRANCH & 1)
		json_addr(out, "prev_target", r->addr[PV_SPE_ADDR_PREV_BRANCH], true);
	if (r->cnt_valid) {
		static const char *const cnt[3] = {"total", "issue", "translation"};
		fputs(", \"latency\": {", out);
		bool any = false;
		for (unsigned i = 0; i < PV_SPE_CNT_MAX; i++) {
			if (!(r->cnt_valid >> i & 1))
				continue;
			if (i < 3)
				fprintf(out, "%s\"%s\": %u", any ? ", " : "", cnt[i],
					r->cnt[i]);
			else
				fprintf(out, "%s\"counter%u\": %u", any ? ", " : "", i,
					r->cnt[i]);
			any = true;
		}
		fputc('}', out);
	}
	if (r->has_events) {
		fprintf(out, ", \"events\": {\"raw\": %" PRIu64 ", \"names\": [", r->events);
		bool any = false;
		for (unsigned b = 0; b < NEVENTS; b++)
			if (r->events >> b & 1) {
				fprintf(out, "%s\"%s\"", any ? ", " : "", event_names[b]);
				any = true;
			}
		fputs("]}", out);
	}
	if (r->has_ds)
		fprintf(out, ", \"data_source\": %" PRIu64, r->data_source);
	if (r->ctx_valid & 1)
		fprintf(out, ", \"contextidr_el1\": %" PRIu32, r->context[0]);
	if (r->ctx_valid & 2)
		fprintf(out, ", \"contextidr_el2\": %" PRIu32, r->context[1]);
	if (r->has_ts)
		fprintf(out, ", \"timestamp\": %" PRIu64, r->timestamp);
	fputc('}', out);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		uint8_t *p = realloc(buf, cap * 2);
		if (!p) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = p;
		cap *= 2;
	}
	int err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	*len = n;
	return buf;
}

enum { OPT_JSON = OPT_LONG_ONLY };

int tool_spe_decode(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, OPT_JSON},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const struct tool_options o = {.cmd = "spe-decode", .shortopts = "h", .longopts = opts};
	bool json = false;
	int c;
	optind = 1;
	while ((c = tool_getopt(&o, argc, argv)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		if (optind == argc)
			fputs("perfvisor spe-decode: no file given\n", stderr);
		else
			fprintf(stderr, "perfvisor spe-decode: one file only ('%s' and '%s')\n",
				argv[optind], argv[optind + 1]);
		fputs("Try 'perfvisor spe-decode --help' for its options.\n", stderr);
		return 2;
	}
	const char *path = argv[optind];
	size_t len = 0;
	uint8_t *buf = slurp(path, &len);
	if (!buf) {
		fprintf(stderr, "perfvisor spe-decode: %s: %s\n", xml_origin_of(path),
			strerror(errno));
		return 1;
	}
	size_t pos = 0, records = 0;
	int res;
	if (json)
		fputs("{\"records\": [", stdout);
	for (;;) {
		struct pv_spe_record r;
		size_t at = pos, pads = 0;
		res = pv_spe_record_decode(buf, len, &pos, &r, &pads);
		if (res <= 0)
			break;
		if (json) /* the record starts after the Padding before it */
			json_record(stdout, at + pads, &r, records == 0);
		else
			line(stdout, at + pads, &r);
		records++;
	}
	if (json)
		fprintf(stdout, "%s], \"bytes\": %zu, \"complete\": %s}\n",
			records ? "\n  " : "", len, res == 0 ? "true" : "false");
	free(buf);
	if (res < 0) {
		fflush(stdout);
		fprintf(stderr, "perfvisor spe-decode: %s: offset 0x%zx: %s\n",
			xml_origin_of(path), pos, pv_spe_strerror(res));
		return 1;
	}
	return 0;
}
