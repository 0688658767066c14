/* SPDX-License-Identifier: MIT */
/* Traffic generators and the memory system's step (see traffic.h). */
#include "traffic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s ? *s : 0x9E3779B97F4A7C15u;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Du;
}

static double uniform(uint64_t *s)
{
	return (double)(next(s) >> 11) / 9007199254740992.0;
}

void sim_tgen_init(struct sim_tgen *g, uint16_t partid, unsigned node, uint64_t rate,
		   uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->partid = partid;
	g->active = true;
	if (node < SIM_MPAM_MAX_NODES)
		g->rate[node] = rate;
	g->read_pct = 50;
	g->pattern = SIM_TRAFFIC_CONST;
	g->period_ns = 1000000000u;
	g->rng = seed;
	g->level = 1.0;
}

void sim_tgen_mix(struct sim_tgen *g, unsigned i, unsigned nodes, uint64_t min_rate,
		  uint64_t max_rate, uint64_t seed)
{
	uint64_t rng = seed ^ (0xD1B54A32D192ED03u * (i + 1));
	for (unsigned k = 0; k < 4; k++)
		next(&rng);
	double span = log((double)max_rate / (double)min_rate);
	double base = (double)min_rate * exp(span * uniform(&rng));
	for (unsigned n = 0; n < nodes && n < SIM_MPAM_MAX_NODES; n++)
		g->rate[n] = (uint64_t)(n == i % nodes ? base
						       : base * (0.1 + 0.2 * uniform(&rng)));
	g->read_pct = (uint8_t)(40 + 40 * uniform(&rng));
	g->noise = 0.1;
	g->level = 1.0;
	g->phase_end = 0;
	g->rng = rng;
	switch (i % 10) {
	case 0:
	case 1:
	case 2:
		g->pattern = SIM_TRAFFIC_SINE;
		g->depth = 0.3 + 0.3 * uniform(&rng);
		g->period_ns = (uint64_t)(1e9 + 5e9 * uniform(&rng));
		g->phase = 6.283185307179586 * uniform(&rng);
		break;
	case 3:
	case 4:
	case 5:
		g->pattern = SIM_TRAFFIC_WALK;
		g->depth = 0.02 + 0.03 * uniform(&rng);
		break;
	case 6:
	case 7:
		g->pattern = SIM_TRAFFIC_ONOFF;
		g->depth = 0.1 + 0.3 * uniform(&rng);
		g->period_ns = (uint64_t)(0.5e9 + 3.5e9 * uniform(&rng));
		break;
	default:
		g->pattern = SIM_TRAFFIC_CONST;
		break;
	}
}

double sim_tgen_level(struct sim_tgen *g, uint64_t t, uint64_t dt)
{
	double m = 1.0;
	switch (g->pattern) {
	case SIM_TRAFFIC_SINE:
		m = 1.0 + g->depth * sin(6.283185307179586 * (double)t / (double)g->period_ns +
					 g->phase);
		break;
	case SIM_TRAFFIC_ONOFF:
		while (t >= g->phase_end) {
			g->level = g->level == 1.0 ? g->depth : 1.0;
			double mean = (double)g->period_ns / 2;
			g->phase_end += (uint64_t)(-mean * log(1.0 - uniform(&g->rng))) + 1;
		}
		m = g->level;
		break;
	case SIM_TRAFFIC_WALK: {
		double u1 = uniform(&g->rng), u2 = uniform(&g->rng);
		double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
		g->level *= exp(g->depth * z * sqrt((double)dt / 1e7));
		if (g->level < 0.1)
			g->level = 0.1;
		if (g->level > 3.0)
			g->level = 3.0;
		m = g->level;
		break;
	}
	default:
		break;
	}
	if (g->noise > 0)
		m *= 1.0 + g->noise * (2.0 * uniform(&g->rng) - 1.0);
	return m > 0 ? m : 0;
}

static void set_now(struct sim_mpam *mp, uint64_t t)
{
	mp->now = t;
	for (unsigned i = 0; i < mp->nmsc; i++)
		mp->msc[i].now = t;
}

void sim_traffic_idle(struct sim_mpam *mp, uint64_t dt)
{
	set_now(mp, mp->now + dt);
}

static struct sim_req *scratch(struct sim_mpam *mp, unsigned n)
{
	if (mp->nscratch < n) {
		free(mp->scratch);
		mp->scratch = calloc(n, sizeof(*mp->scratch));
		mp->nscratch = mp->scratch ? n : 0;
	}
	return mp->scratch;
}

/* Serves one node's demand: every RIS of the node's memory MSCs with a weight gets its share
 * of each stream (the last RIS takes the rounding remainder). */
static void serve_node(struct sim_mpam *mp, unsigned node, struct sim_tgen *g, unsigned n,
		       const uint64_t *rd, const uint64_t *wr, uint64_t t0, uint64_t dt)
{
	uint64_t total_w = 0;
	for (unsigned i = 0; i < mp->nmsc; i++)
		if (mp->msc[i].cfg.node == (int)node)
			for (unsigned k = 0; k < mp->msc[i].cfg.nris; k++)
				total_w += mp->msc[i].ris[k].cfg.weight;
	struct sim_req *req = scratch(mp, n);
	if (!total_w || !req)
		return; /* no memory behind the node: nothing is delivered */
	uint64_t *given_rd = calloc(n, sizeof(uint64_t)),
		 *given_wr = calloc(n, sizeof(uint64_t));
	uint64_t acc_w = 0;
	for (unsigned i = 0; i < mp->nmsc; i++) {
		struct sim_msc *m = &mp->msc[i];
		if (m->cfg.node != (int)node)
			continue;
		for (unsigned k = 0; k < m->cfg.nris; k++) {
			uint64_t w = m->ris[k].cfg.weight;
			if (!w)
				continue;
			acc_w += w;
			bool last = acc_w == total_w;
			for (unsigned j = 0; j < n; j++) {
				uint64_t r = last ? rd[j] - given_rd[j]
						  : (uint64_t)((double)rd[j] * (double)w /
							       (double)total_w);
				uint64_t x = last ? wr[j] - given_wr[j]
						  : (uint64_t)((double)wr[j] * (double)w /
							       (double)total_w);
				given_rd[j] += r;
				given_wr[j] += x;
				req[j] = (struct sim_req){.partid = g[j].partid,
							  .pmg = g[j].pmg,
							  .rd = r,
							  .wr = x};
			}
			sim_msc_serve(m, k, req, n, t0, dt);
			for (unsigned j = 0; j < n; j++) {
				uint64_t done = req[j].rd_done + req[j].wr_done;
				g[j].delivered[node] += done;
				mp->truth[(size_t)node * SIM_MPAM_PARTIDS + g[j].partid] +=
					done;
			}
		}
	}
	free(given_rd);
	free(given_wr);
}

void sim_traffic_step(struct sim_mpam *mp, struct sim_tgen *g, unsigned n, uint64_t dt)
{
	uint64_t t0 = mp->now;
	set_now(mp, t0);
	double *lvl = calloc(n ? n : 1, sizeof(double));
	uint64_t *rd = calloc(n ? n : 1, sizeof(uint64_t)),
		 *wr = calloc(n ? n : 1, sizeof(uint64_t));
	for (unsigned j = 0; j < n; j++)
		lvl[j] = g[j].active ? sim_tgen_level(&g[j], t0, dt) : 0;
	for (unsigned node = 0; node < mp->nodes; node++) {
		bool any = false;
		for (unsigned j = 0; j < n; j++) {
			double want = (double)g[j].rate[node] * lvl[j] * (double)dt / 1e9 +
				      g[j].carry[node];
			uint64_t bytes = want > 0 ? (uint64_t)want : 0;
			g[j].carry[node] = want > 0 ? want - (double)bytes : 0;
			rd[j] = bytes * g[j].read_pct / 100;
			wr[j] = bytes - rd[j];
			g[j].demanded[node] += bytes;
			any |= bytes != 0;
		}
		if (any)
			serve_node(mp, node, g, n, rd, wr, t0, dt);
	}
	free(lvl);
	free(rd);
	free(wr);
	set_now(mp, t0 + dt);
}
