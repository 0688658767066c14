/* SPDX-License-Identifier: MIT */
/*
 * spe_host LOG: the records tests/hw/spe wrote at EL2 (its "spe-dump:" line: the record
 * count, the loop's first PC and the stopping instruction's, the buffer's bytes), decoded
 * on the host with perfvisor's own record codec (sim/spe_packet.c), which shares nothing with
 * the QEMU model that wrote them nor with the decoder of tests/hw/spe.c. One check line, as
 * the model tests print them, for tests/hw/run.sh: every byte decodes into exactly that many
 * records, each a PC at EL2 in the loop, an operation type, events and a timestamp, the
 * timestamps 257 ticks apart, loads and stores with their data address and latencies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfvisor/spe_packet.h"

static int fail(const char *why)
{
	printf("not ok spe_host_codec: %s\n", why);
	return 0;
}

int main(int argc, char **argv)
{
	static char line[1 << 16];
	static uint8_t buf[1 << 14];
	unsigned n = 0, len = 0;
	unsigned long long lo = 0, hi = 0;
	FILE *f;
	char *p;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: spe_host LOG\n");
		return 2;
	}
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "spe-dump: ", 10) == 0)
			break;
	fclose(f);
	if (sscanf(line, "spe-dump: %u records, PCs %llx..%llx at EL2:", &n, &lo, &hi) != 3)
		return fail("no spe-dump line in the log");
	p = strchr(line, ':');
	p = strchr(p + 1, ':') + 1;
	while (len < sizeof(buf)) {
		char *end;
		unsigned long v = strtoul(p, &end, 16);

		if (end == p)
			break;
		buf[len++] = (uint8_t)v;
		p = end;
	}

	size_t pos = 0;
	unsigned got = 0;
	uint64_t last_ts = 0;
	struct pv_spe_record r;
	int rc;

	while ((rc = pv_spe_record_decode(buf, len, &pos, &r, NULL)) == 1) {
		uint64_t pc = r.addr[PV_SPE_ADDR_PC] & ((1ULL << 56) - 1);
		unsigned el = (unsigned)(r.addr[PV_SPE_ADDR_PC] >> 61) & 3;

		if (!(r.addr_valid & 1u << PV_SPE_ADDR_PC) || pc < lo || pc > hi || el != 2)
			return fail("a record's PC is not in the loop at EL2");
		if (!r.has_op || !r.has_events || !r.has_ts || !(r.events & PV_SPE_EV_RETIRED))
			return fail("a record without its operation type, events or timestamp");
		if (got && r.timestamp - last_ts != 257)
			return fail("timestamps not 257 ticks apart");
		if (r.op_class == 1 && (!(r.addr_valid & 1u << PV_SPE_ADDR_DATA_VA) ||
					r.cnt_valid != 7))
			return fail("a load or store without its data address and three latencies");
		last_ts = r.timestamp;
		got++;
	}
	if (rc < 0)
		return fail(pv_spe_strerror(rc));
	if (got != n || pos != len)
		return fail("not the records the program counted");
	printf("ok spe_host_codec (%u records, %u bytes)\n", got, len);
	return 0;
}
