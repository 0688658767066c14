/* SPDX-License-Identifier: MIT */
/*
 * Bytes per VM per memory node. A VM has an account per node for its total bytes (monitors
 * matching its PARTIDs, MSMON_CFG_MBWU_CTL.MATCH_PARTID) and, when local bytes are counted,
 * one for its local bytes (MATCH_PARTID | MATCH_PMG, FLT.PMG = the node: the label cpu.c puts
 * on the traffic of pCPUs local to it). Both are handled alike: a node's monitor slots are
 * given to the accounts' PARTIDs:
 *
 *  - dedicated, while every PARTID has a slot: each tick adds the counter's change. Exact
 *    (up to 2^SCALE - 1 bytes of the counter's last unit).
 *  - rotating, when PARTIDs outnumber slots: each tick the slots measure the next VMs in
 *    turn, over one tick from a zeroed counter (a "window"). Between its windows a VM's bytes
 *    are estimated at its last measured rate (a "gap"). The estimate only ever grows, so
 *    cumulative figures stay monotonic.
 *
 * Error bound of an estimate: windows are exact but for the bytes of the monitors'
 * not-ready time (compensated at the window's rate, counted in full as a linear error) and
 * the last counter unit of each window (linear). The error of a gap of length g is taken as
 * a random variable of standard deviation sigma = 5/4 * dev * g, dev being the VM's typical
 * change of rate from one window to the next (a moving average of |r_i - r_(i-1)|; 5/4 turns
 * a mean absolute deviation into a standard deviation for normal changes). Gaps are
 * independent, so variances add: bound = 2 * sqrt(sum sigma^2) + linear errors, a 95 %
 * bound for normal errors. Before its first window a VM has no rate: that first gap is
 * back-filled at the first window's rate with dev = the rate itself.
 */
#include "internal.h"

#define SIGMA_NUM 5 /* sigma of a gap = SIGMA_NUM / SIGMA_DEN * dev * length */
#define SIGMA_DEN 4
#define DEV_WEIGHT 2 /* dev moves 1 / 2^DEV_WEIGHT of the way to each new change */
#define Z95 2        /* the bound is Z95 standard deviations */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Adds to a VM's byte count; a sum past 2^64 - 1 marks the account overflowed for good
 * rather than wrapping to a small, wrong figure. */
static void acct_add(struct pv_vmpam_acct *a, uint64_t bytes)
{
	if (__builtin_add_overflow(a->bytes, bytes, &a->bytes))
		a->flags |= ACCT_OVERFLOW;
}

/* Squared KiB, rounded up, of a byte error. */
static uint64_t kib_sq(uint64_t bytes)
{
	uint64_t k = (bytes >> 10) + ((bytes & 1023) != 0);
	return pv_vmpam__mulshr(k, k, 0);
}

static uint64_t sigma(uint64_t dev, uint64_t ns)
{
	return pv_vmpam__mulshr(vmpam_bytes(dev, ns), SIGMA_NUM, 0) / SIGMA_DEN;
}

static uint64_t bound(uint64_t sq, uint64_t open, uint64_t lin, uint64_t gran)
{
	uint64_t s = pv_vmpam__isqrt(sat_add(sq, kib_sq(open)));
	return sat_add(sat_add(pv_vmpam__mulshr(s, (uint64_t)Z95 * 1024, 0), lin), gran);
}

static void update_dev(struct pv_vmpam_acct *a, uint64_t r)
{
	uint64_t d;
	if (!(a->flags & ACCT_SAMPLED)) {
		a->dev = r; /* nothing known: a change as large as the rate */
		return;
	}
	d = r > a->rate ? r - a->rate : a->rate - r;
	a->dev = a->dev - (a->dev >> DEV_WEIGHT) + (d >> DEV_WEIGHT);
}

/*
 * A window [t_prog, now] closed with `bytes` counted (monitors count from t_prog + nrdy):
 * closes the gap before it, adds the window and its not-ready part, and opens a new gap if
 * the VM's monitors go away (rotation). False if the whole window was not ready.
 */
static bool window(struct pv_vmpam_acct *a, uint64_t bytes, uint32_t gran, uint64_t t_prog,
		   uint64_t now, uint64_t nrdy, bool rotating)
{
	uint64_t w = now > t_prog ? now - t_prog : 0;
	uint64_t dark = nrdy < w ? nrdy : w;
	uint64_t r;
	bool idle_before;
	uint64_t comp;
	if (w == dark)
		return false;
	r = vmpam_rate(bytes, w - dark);
	/* A new VM whose monitors were set up before it ran has no bytes in the dark part. */
	idle_before = (a->flags & ACCT_NEW) && !(a->flags & ACCT_GAP);
	comp = idle_before ? 0 : vmpam_bytes(r, dark);
	if ((a->flags & ACCT_GAP) && t_prog > a->at) {
		uint64_t g = t_prog - a->at;
		bool known = a->flags & ACCT_SAMPLED;
		uint64_t held = vmpam_bytes(known ? a->rate : r, g), est = held;
		if (known) {
			/* The rate went from the last window's to this one's: interpolate, but
			 * never below what the held rate already showed, less this window. */
			uint64_t shown = held > bytes + comp ? held - bytes - comp : 0;
			est = (held >> 1) + (vmpam_bytes(r, g) >> 1);
			if (est < shown)
				est = shown;
		}
		acct_add(a, est);
		a->sq = sat_add(a->sq, kib_sq(sigma(known ? a->gap_dev : r, g)));
	}
	acct_add(a, bytes);
	acct_add(a, comp);
	a->lin = sat_add(a->lin, comp);
	if (rotating)
		a->lin = sat_add(a->lin,
				 gran); /* the counter restarts: its last unit is lost */
	a->gran = rotating ? 0 : gran;
	update_dev(a, r);
	a->rate = r;
	a->at = now;
	a->flags = (uint8_t)((a->flags | ACCT_SAMPLED) & ~(ACCT_NEW | ACCT_FRESH | ACCT_GAP));
	if (rotating) {
		a->flags |= ACCT_GAP;
		a->gap_dev = a->dev;
	}
	return true;
}

/* The earliest time an open gap of `a` can make its estimate, bytes + vmpam_bytes(rate,
 * t - at), pass 2^64 - 1: rate * (t - at) >= (2^64 - bytes) << RATE_SHIFT. Rounded down to
 * whole 2^RATE_SHIFT ns, so never late; UINT64_MAX if not within 64-bit time. */
static uint64_t overflow_time(const struct pv_vmpam_acct *a)
{
	uint64_t periods;
	if (!a->bytes || !a->rate)
		return UINT64_MAX;
	periods = (0 - a->bytes) / a->rate;
	if (periods > (UINT64_MAX - a->at) >> RATE_SHIFT)
		return UINT64_MAX;
	return a->at + (periods << RATE_SHIFT);
}

/* Keeps the node's seal_at at or before the overflow time of every open gap that is not
 * overflowed already: called wherever a gap opens or its bytes, rate or start change. A VM
 * joining, leaving or moving only resets, clears or copies accounts: no gap comes earlier. */
static void note_gap(struct pv_vmpam_node *n, const struct pv_vmpam_acct *a)
{
	uint64_t t;
	if ((a->flags & (ACCT_GAP | ACCT_SAMPLED | ACCT_OVERFLOW)) != (ACCT_GAP | ACCT_SAMPLED))
		return;
	t = overflow_time(a);
	if (t < n->seal_at)
		n->seal_at = t;
}

/* Folds one read of a VM's slots into its account; false if the bytes were not taken. An
 * account that overflowed takes them and drops them: no figure can hold them any more. */
static bool account(struct pv_vmpam_sys *sys, struct pv_vmpam_node *n, struct pv_vmpam_acct *a,
		    bool ok, uint64_t bytes, uint32_t gran, uint64_t now)
{
	if (a->flags & ACCT_OVERFLOW) {
		a->status = PV_VMPAM_OVERFLOW;
		return true;
	}
	if (ok && (n->rotating || (a->flags & ACCT_FRESH))) {
		uint64_t t_prog = (n->rotating || (a->flags & ACCT_GAP)) ? n->t_prog : a->at;
		ok = window(a, bytes, gran, t_prog, now, n->nrdy_ns, n->rotating);
		if (ok && n->rotating)
			sys->stats.samples++;
	} else if (ok) {
		uint64_t r = vmpam_rate(bytes, now - a->at);
		update_dev(a, r);
		a->rate = r;
		acct_add(a, bytes);
		a->at = now;
		a->gran = gran;
		a->flags |= ACCT_SAMPLED;
	}
	a->status = (a->flags & ACCT_OVERFLOW) ? PV_VMPAM_OVERFLOW
		    : ok                       ? PV_VMPAM_MEASURED
					       : PV_VMPAM_NOT_READY;
	a->nrdy = ok ? 0 : (uint16_t)(a->nrdy + (a->nrdy != UINT16_MAX));
	if (ok)
		note_gap(n, a);
	return ok;
}

/* Reads every VM holding slots on node i (a VM's slots are consecutive). Dedicated: each
 * counter that reads ready is committed; the VM's figure moves on once all of them were
 * (until then its bytes wait in `pend`). Rotating: a window counts only if all read ready. */
static void read_slots(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, unsigned i, uint64_t now)
{
	struct pv_vmpam_node *n = &sys->node[i];
	for (unsigned s = 0; s < n->nmons;) {
		uint32_t e = n->slot[s];
		unsigned k;
		bool ok = true;
		uint64_t bytes = 0;
		uint32_t gran = 0;
		bool over = false;
		struct pv_vmpam_acct *a;
		if (e == PV_VMPAM_SLOT_FREE || SLOT_VP(e) != 0) {
			s++;
			continue;
		}
		k = sys->vms[ACCT_VM(sys, SLOT_ACCT(e))]->nr_partids;
		for (unsigned j = s; j < s + k && (ok || !n->rotating); j++) {
			for (unsigned r = 0; r < n->nris && (ok || !n->rotating); r++) {
				bool ded = !n->rotating;
				uint64_t raw, d;
				unsigned scale;
				if (!pv_vmpam__mon_read(sys, cpu, n, r, j,
							ded ? n->last[j][r] : 0,
							ded ? n->pred[j][r] : 0, &raw, &d)) {
					ok = false;
					continue;
				}
				if (ded) {
					n->last[j][r] = raw;
					n->pred[j][r] = d > UINT32_MAX ? UINT32_MAX
								       : (uint32_t)d;
				}
				/* Bytes are the count times 2^SCALE (MSMON_MBWU
				 * description, MPAM spec IHI 0099): a 63-bit count with
				 * SCALE 31 does not fit 64 bits, so that is noted, not
				 * wrapped. */
				scale = pv_vmpam__mon_scale(sys, n, r);
				if (scale >= 64 || d > (UINT64_MAX >> scale) ||
				    __builtin_add_overflow(bytes, d << scale, &bytes))
					over = true;
				gran += (UINT32_C(1) << scale) - 1;
			}
		}
		a = vmpam_acct(sys, SLOT_ACCT(e), i);
		if (over || (!n->rotating && __builtin_add_overflow(bytes, a->pend, &bytes)))
			a->flags |= ACCT_OVERFLOW;
		if (n->rotating) {
			account(sys, n, a, ok, bytes, gran, now);
		} else {
			a->pend = account(sys, n, a, ok, bytes, gran, now) ? 0 : bytes;
		}
		s += k;
	}
}

/* Bytes read from a VM's dedicated counters while others were not ready: real, and counted
 * by no later read once its slots go. */
static void fold_pending(struct pv_vmpam_acct *a)
{
	acct_add(a, a->pend);
	a->pend = 0;
}

/* Slots s.. of node i count account `acc`: each of its VM's PARTIDs, and for a local account
 * only PMG i. */
static void assign(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, unsigned i, unsigned s,
		   uint32_t acc)
{
	struct pv_vmpam_node *n = &sys->node[i];
	const struct pv_vm_mpam *vm = sys->vms[ACCT_VM(sys, acc)];
	bool local = ACCT_KIND(sys, acc) == ACCT_LOCAL;
	for (unsigned j = 0; j < vm->nr_partids; j++) {
		bool ctl = n->match_pmg[s + j] != local;
		n->slot[s + j] = SLOT(acc, j);
		n->match_pmg[s + j] = local;
		for (unsigned r = 0; r < n->nris; r++) {
			pv_vmpam__mon_start(sys, cpu, n, r, s + j, vm->partid[j], (uint8_t)i,
					    ctl);
			n->last[s + j][r] = 0;
			n->pred[s + j][r] = 0;
		}
	}
}

static void free_slots(struct pv_vmpam_node *n)
{
	for (unsigned s = 0; s < n->nmons; s++)
		n->slot[s] = PV_VMPAM_SLOT_FREE;
}

/* Gives the node's slots out. Dedicated: every account, for good (the first read of each is
 * a window). Rotating: the next accounts in turn, for one tick. */
static void fill_slots(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, unsigned i, uint64_t now,
		       bool dedicated)
{
	struct pv_vmpam_node *n = &sys->node[i];
	uint32_t naccts = sys->nvms << sys->acct_shift;
	unsigned s = 0;
	free_slots(n);
	n->t_prog = now;
	for (uint32_t seen = 0; seen < naccts; seen++) {
		uint32_t idx = dedicated ? seen : n->cursor < naccts ? n->cursor : 0;
		const struct pv_vm_mpam *vm = sys->vms[ACCT_VM(sys, idx)];
		if (s + vm->nr_partids > n->nmons)
			break;
		assign(sys, cpu, i, s, idx);
		s += vm->nr_partids;
		if (dedicated) {
			struct pv_vmpam_acct *a = vmpam_acct(sys, idx, i);
			fold_pending(a);
			note_gap(n, a);
			a->flags |= ACCT_FRESH;
		} else {
			n->cursor = idx + 1;
		}
	}
	if (dedicated)
		n->rotating = n->repack = false;
}

static void to_rotation(struct pv_vmpam_sys *sys, unsigned i)
{
	struct pv_vmpam_node *n = &sys->node[i];
	free_slots(n);
	for (uint32_t v = 0; v < sys->nvms << sys->acct_shift; v++) {
		struct pv_vmpam_acct *a = vmpam_acct(sys, v, i);
		fold_pending(a);
		if (!(a->flags & ACCT_GAP)) {
			a->flags |= ACCT_GAP;
			a->gap_dev = a->dev;
		}
		a->flags &= (uint8_t)~ACCT_FRESH;
		note_gap(n, a);
	}
	n->rotating = true;
	n->repack = false;
}

/* The figure of an account in a gap is its bytes plus the held rate over the gap so far. Once
 * that passes 2^64 - 1 the account is marked overflowed here, at the tick, so that OVERFLOW
 * stays for good rather than turning back into a figure (or NOT_READY) if a window later
 * closes the gap at a lower rate. The estimate only grows while the gap is open, so no
 * account can pass before the node's seal_at: the tick calls this only from then on, and it
 * sets seal_at again from the gaps still open and not overflowed. */
static VMPAM_COLD void seal_open_estimates(struct pv_vmpam_sys *sys, unsigned i, uint64_t now)
{
	struct pv_vmpam_node *n = &sys->node[i];
	n->seal_at = UINT64_MAX;
	for (uint32_t v = 0; v < sys->nvms << sys->acct_shift; v++) {
		struct pv_vmpam_acct *a = vmpam_acct(sys, v, i);
		uint64_t sum;
		if ((a->flags & (ACCT_GAP | ACCT_SAMPLED)) == (ACCT_GAP | ACCT_SAMPLED) &&
		    now > a->at &&
		    __builtin_add_overflow(a->bytes, vmpam_bytes(a->rate, now - a->at), &sum))
			a->flags |= ACCT_OVERFLOW;
		note_gap(n, a);
	}
}

void pv_vmpam_tick(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, uint64_t now)
{
	if (now < sys->now)
		now = sys->now;
	for (unsigned i = 0; i < sys->nnodes; i++) {
		struct pv_vmpam_node *n = &sys->node[i];
		bool rotate;
		if (!n->nmons)
			continue;
		if (now >= n->seal_at)
			seal_open_estimates(sys, i, now);
		/* A rotation window shorter than the not-ready time cannot be read (every
		 * monitor still reads NRDY): it stays open until a later tick. */
		if (n->rotating && now - n->t_prog < n->nrdy_ns)
			continue;
		read_slots(sys, cpu, i, now);
		rotate = n->used > n->nmons;
		if (rotate && !n->rotating)
			to_rotation(sys, i);
		else if ((!rotate && n->rotating) || n->repack)
			fill_slots(sys, cpu, i, now, true);
		if (n->rotating && sys->nvms)
			fill_slots(sys, cpu, i, now, false);
	}
	pv_vmpam__msc_check(sys, cpu);
	sys->now = now;
	sys->stats.ticks++;
}

/* ---- VMs joining and leaving ---- */

/* First run of `k` free slots, or -1. */
static int free_run(const struct pv_vmpam_node *n, unsigned k)
{
	unsigned run = 0;
	for (unsigned s = 0; s < n->nmons; s++) {
		run = n->slot[s] == PV_VMPAM_SLOT_FREE ? run + 1 : 0;
		if (run == k)
			return (int)(s + 1 - k);
	}
	return -1;
}

void pv_vmpam__acct_add(struct pv_vmpam_sys *sys, struct pv_pcpu *cpu, struct pv_vm_mpam *vm)
{
	for (unsigned i = 0; i < sys->nnodes; i++) {
		struct pv_vmpam_node *n = &sys->node[i];
		for (unsigned kind = 0; kind < 1u << sys->acct_shift; kind++) {
			uint32_t acc = vmpam_account(sys, vm->index, kind);
			struct pv_vmpam_acct *a = vmpam_acct(sys, acc, i);
			int s;
			*a = (struct pv_vmpam_acct){.at = sys->now,
						    .flags = ACCT_USED | ACCT_NEW,
						    .status = PV_VMPAM_MEASURED};
			if (!n->nmons)
				continue;
			n->used += vm->nr_partids;
			s = n->rotating || n->used > n->nmons ? -1
							      : free_run(n, vm->nr_partids);
			if (s < 0) {
				/* Rotation (from the next tick), or a repack of the dedicated slots. */
				a->flags |= ACCT_GAP;
				n->repack |= !n->rotating && n->used <= n->nmons;
				continue;
			}
			assign(sys, cpu, i, (unsigned)s, acc);
			a->flags |= ACCT_FRESH;
		}
	}
}

void pv_vmpam__acct_remove(struct pv_vmpam_sys *sys, struct pv_vm_mpam *vm)
{
	unsigned kinds = 1u << sys->acct_shift;
	for (unsigned i = 0; i < sys->nnodes; i++) {
		struct pv_vmpam_node *n = &sys->node[i];
		if (n->nmons)
			n->used -= vm->nr_partids * kinds;
		for (unsigned s = 0; s < n->nmons; s++)
			if (n->slot[s] != PV_VMPAM_SLOT_FREE &&
			    ACCT_VM(sys, SLOT_ACCT(n->slot[s])) == vm->index)
				n->slot[s] = PV_VMPAM_SLOT_FREE;
		for (unsigned kind = 0; kind < kinds; kind++)
			*vmpam_acct(sys, vmpam_account(sys, vm->index, kind),
				    i) = (struct pv_vmpam_acct){0};
	}
}

void pv_vmpam__acct_move(struct pv_vmpam_sys *sys, uint32_t from, uint32_t to)
{
	for (unsigned i = 0; i < sys->nnodes; i++) {
		struct pv_vmpam_node *n = &sys->node[i];
		for (unsigned kind = 0; kind < 1u << sys->acct_shift; kind++) {
			uint32_t f = vmpam_account(sys, from, kind),
				 t = vmpam_account(sys, to, kind);
			*vmpam_acct(sys, t, i) = *vmpam_acct(sys, f, i);
			*vmpam_acct(sys, f, i) = (struct pv_vmpam_acct){0};
		}
		for (unsigned s = 0; s < n->nmons; s++) {
			uint32_t acc = SLOT_ACCT(n->slot[s]);
			if (n->slot[s] != PV_VMPAM_SLOT_FREE && ACCT_VM(sys, acc) == from)
				n->slot[s] = SLOT(vmpam_account(sys, to, ACCT_KIND(sys, acc)),
						  SLOT_VP(n->slot[s]));
		}
	}
}

/* ---- readings ---- */

static int read_account(const struct pv_vmpam_sys *sys, const struct pv_vm_mpam *vm,
			unsigned kind, unsigned node, struct pv_vmpam_reading *out)
{
	const struct pv_vmpam_acct *a;
	*out = (struct pv_vmpam_reading){.at_ns = sys->now, .status = PV_VMPAM_NO_DATA};
	if (!vm || vm->sys != sys || node >= sys->nnodes || !sys->node[node].nmons ||
	    kind >= 1u << sys->acct_shift)
		return out->status;
	a = vmpam_acct(sys, vmpam_account(sys, vm->index, kind), node);
	if (a->flags & ACCT_OVERFLOW)
		return out->status = PV_VMPAM_OVERFLOW;
	if (!(a->flags & ACCT_SAMPLED))
		return out->status;
	if (a->status == PV_VMPAM_NOT_READY)
		return out->status = PV_VMPAM_NOT_READY;
	out->bytes = a->bytes;
	if ((a->flags & ACCT_GAP) && sys->now > a->at) {
		if (__builtin_add_overflow(out->bytes, vmpam_bytes(a->rate, sys->now - a->at),
					   &out->bytes)) {
			out->bytes = 0;
			return out->status = PV_VMPAM_OVERFLOW;
		}
		out->open = sigma(a->gap_dev, sys->now - a->at);
	}
	out->sq = a->sq;
	out->lin = a->lin;
	out->gran = a->gran;
	out->bound = bound(a->sq, out->open, a->lin, a->gran);
	out->status = (a->sq || a->lin || out->open) ? PV_VMPAM_ESTIMATED : PV_VMPAM_MEASURED;
	return out->status;
}

int pv_vmpam_read(const struct pv_vmpam_sys *sys, const struct pv_vm_mpam *vm, unsigned node,
		  struct pv_vmpam_reading *out)
{
	return read_account(sys, vm, ACCT_TOTAL, node, out);
}

int pv_vmpam_read_local(const struct pv_vmpam_sys *sys, const struct pv_vm_mpam *vm,
			unsigned node, struct pv_vmpam_reading *out)
{
	/* Only a local account exists while local bytes are counted (acct_shift 1). */
	return read_account(sys, vm, ACCT_LOCAL, node, out);
}

int pv_vmpam_rate(const struct pv_vmpam_reading *from, const struct pv_vmpam_reading *to,
		  struct pv_vmpam_rate *out)
{
	uint64_t sq;
	uint64_t lin;
	uint64_t gran;
	*out = (struct pv_vmpam_rate){.status = from->status > to->status ? from->status
									  : to->status};
	if (out->status > PV_VMPAM_ESTIMATED || to->at_ns < from->at_ns)
		return out->status;
	out->ns = to->at_ns - from->at_ns;
	out->bytes = to->bytes > from->bytes ? to->bytes - from->bytes : 0;
	/* A gap open at `from` is counted whole: in to->sq once closed, in to->open if not. */
	sq = to->sq > from->sq ? to->sq - from->sq : 0;
	lin = to->lin > from->lin ? to->lin - from->lin : 0;
	gran = to->gran > from->gran ? to->gran : from->gran;
	out->bound = bound(sq, to->open, lin, gran);
	out->status = (sq || lin || to->open) ? PV_VMPAM_ESTIMATED : PV_VMPAM_MEASURED;
	if (out->ns) {
		out->bytes_per_s = pv_vmpam__muldiv(out->bytes, 1000000000u, out->ns);
		out->bound_per_s = pv_vmpam__muldiv(out->bound, 1000000000u, out->ns);
	}
	return out->status;
}
