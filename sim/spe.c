/* SPDX-License-Identifier: MIT */
/*
 * The Statistical Profiling Unit model (see spe.h). Function names in comments are the Arm ARM
 * J1.1.1 pseudocode functions each part follows.
 */
#include "spe.h"

#include <stdlib.h>
#include <string.h>

#include "perfvisor/spe_packet.h"
#include "perfvisor/vspe.h"

#define PMSCR_EL1_MASK                                                                         \
	(PV_PMSCR_E0SPE | PV_PMSCR_E1SPE | PV_PMSCR_CX | PV_PMSCR_PA | PV_PMSCR_TS | PV_BIT(6))
#define PMBSR_MASK                                                                             \
	(PV_PMBSR_EC | PV_PMBSR_DL | PV_PMBSR_EA | PV_PMBSR_S | PV_PMBSR_COLL | PV_PMBSR_MSS)

void sim_spe_init(struct sim_spe *s, const struct sim_spe_config *cfg, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->rng = seed;
	const struct sim_spe_config *c = cfg;
	s->pmsidr = PV_PMSIDR_FE | PV_PMSIDR_FT | PV_PMSIDR_FL | PV_PMSIDR_LDS |
		    (c->version >= PV_SPE_V1P2 ? PV_PMSIDR_FNE : 0) |
		    PV_FIELD_PREP(PV_PMSIDR_INTERVAL, c->interval) |
		    PV_FIELD_PREP(PV_PMSIDR_MAXSIZE, c->max_size) |
		    PV_FIELD_PREP(PV_PMSIDR_COUNTSIZE, c->count16 ? 3 : 2);
	/* F = 1 (hardware AF/dirty management as for explicit accesses); EA = 0b0001: External
	 * aborts on the profiler's writes are ignored. */
	s->pmbidr = (c->align & 0xFu) | PV_PMBIDR_F | (uint64_t)(c->ea_events ? 2 : 1) << 8;
}

void sim_spe_inject_collisions(struct sim_spe *s, uint64_t n)
{
	s->coll_left = n;
}

void sim_spe_inject_ea(struct sim_spe *s, uint64_t after_bytes)
{
	s->ea_armed = true;
	s->ea_left = after_bytes;
}

static uint64_t rnd(struct sim_spe *s)
{
	uint64_t z = (s->rng += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* True with probability num / den (0 when den is 0). */
static bool chance(struct sim_spe *s, uint64_t num, uint64_t den)
{
	return den && rnd(s) % den < num;
}

/* ---- registers ------------------------------------------------------------------------------ */

bool sim_spe_is_reg(uint32_t key)
{
	return (key & ~(0x7u << 17)) == PV_SYSREG(3, 0, 9, 9, 0) || key == PV_PMBLIMITR_EL1 ||
	       key == PV_PMBPTR_EL1 || key == PV_PMBSR_EL1 || key == PV_PMBIDR_EL1 ||
	       key == PV_PMSCR_EL2;
}

bool sim_spe_has(const struct sim_spe *s, uint32_t key, bool is_read, unsigned el)
{
	if (!s->cfg.version || el == 0 || !sim_spe_is_reg(key))
		return false;
	if (key == PV_PMSCR_EL2)
		return el >= 2;
	if (key == PV_PMSNEVFR_EL1 && s->cfg.version < PV_SPE_V1P2)
		return false;
	return is_read || (key != PV_PMSIDR_EL1 && key != PV_PMBIDR_EL1);
}

static uint64_t *reg(struct sim_spe *s, uint32_t key, uint64_t *mask)
{
	bool v1p2 = s->cfg.version >= PV_SPE_V1P2;
	switch (key) {
	case PV_PMSCR_EL1:
		*mask = PMSCR_EL1_MASK;
		return &s->scr;
	case PV_PMSICR_EL1:
		*mask = PV_PMSICR_COUNT;
		return &s->icr;
	case PV_PMSIRR_EL1:
		*mask = PV_PMSIRR_INTERVAL | PV_PMSIRR_RND;
		return &s->irr;
	case PV_PMSFCR_EL1:
		*mask = PV_PMSFCR_FE | PV_PMSFCR_FT | PV_PMSFCR_FL | PV_PMSFCR_B |
			PV_PMSFCR_LD | PV_PMSFCR_ST | (v1p2 ? PV_PMSFCR_FnE : 0);
		return &s->fcr;
	case PV_PMSEVFR_EL1:
		*mask = s->cfg.events; /* unimplemented filters RAZ/WI */
		return &s->evfr;
	case PV_PMSNEVFR_EL1:
		*mask = s->cfg.events;
		return &s->nevfr;
	case PV_PMSLATFR_EL1:
		*mask = s->cfg.count16 ? 0xFFFF : 0xFFF;
		return &s->latfr;
	case PV_PMBLIMITR_EL1:
		*mask = PV_PMBLIMITR_LIMIT | PV_PMBLIMITR_FM | PV_PMBLIMITR_E |
			(v1p2 ? PV_PMBLIMITR_PMFZ : 0);
		return &s->limitr;
	case PV_PMBPTR_EL1:
		*mask = ~UINT64_C(0);
		return &s->ptr;
	case PV_PMBSR_EL1:
		*mask = PMBSR_MASK;
		return &s->bsr;
	default:
		return NULL;
	}
}

enum sim_acc sim_spe_read(struct sim_spe *s, unsigned el, unsigned e2pb, uint32_t key,
			  uint64_t *val)
{
	*val = 0;
	if (!sim_spe_has(s, key, true, el))
		return SIM_ACC_UNDEF;
	if (key == PV_PMBIDR_EL1) { /* P: the owning EL is higher (D24.7.1) */
		bool p = s->cfg.el3_owned || (el == 1 && e2pb == 0);
		*val = s->pmbidr | (p ? PV_PMBIDR_P : 0);
		return SIM_ACC_OK;
	}
	if (s->cfg.el3_owned && el < 3)
		return SIM_ACC_UNDEF; /* trapped to EL3 (MDCR_EL3.NSPB) */
	if (key == PV_PMSIDR_EL1) {
		*val = s->pmsidr;
		return SIM_ACC_OK;
	}
	uint64_t mask, *r = reg(s, key, &mask);
	if (!r)
		return SIM_ACC_UNKNOWN;
	*val = *r;
	return SIM_ACC_OK;
}

enum sim_acc sim_spe_write(struct sim_spe *s, unsigned el, uint32_t key, uint64_t val)
{
	if (!sim_spe_has(s, key, false, el))
		return SIM_ACC_UNDEF;
	if (s->cfg.el3_owned && el < 3)
		return SIM_ACC_UNDEF;
	uint64_t mask, *r = reg(s, key, &mask);
	if (!r)
		return SIM_ACC_UNKNOWN;
	*r = val & mask;
	return SIM_ACC_OK;
}

bool sim_spe_irq(const struct sim_spe *s)
{
	return (s->bsr & PV_PMBSR_S) != 0;
}

void sim_spe_psb(struct sim_spe *s)
{
	s->busy_until = 0;
	s->undrained = false;
}

void sim_spe_log_free(struct sim_spe_log *l)
{
	free(l->s);
	memset(l, 0, sizeof(*l));
}

const char *sim_spe_status_name(enum sim_spe_status st)
{
	static const char *const n[] = {"written", "filtered", "collided", "discarded", "lost"};
	return st <= SIM_SPE_LOST ? n[st] : "?";
}

/* ---- who samples ---------------------------------------------------------------------------- */

/* ProfilingBufferOwner(): EL2 when MDCR_EL2.E2PB is 0b00 (Non-secure, EL2 implemented). */
static unsigned owner_el(const struct sim_spe_env *e)
{
	return PV_FIELD_GET(PV_MDCR_EL2_E2PB, e->mdcr_el2) == 0 ? 2 : 1;
}

static bool buffer_enabled(const struct sim_spe *s)
{
	return (s->limitr & PV_PMBLIMITR_E) && !(s->bsr & PV_PMBSR_S);
}

/* StatisticalProfilingEnabled(el). */
static bool profiling_enabled(const struct sim_spe *s, const struct sim_spe_env *e)
{
	if (!s->cfg.version || s->cfg.el3_owned || !buffer_enabled(s))
		return false;
	bool tge = (e->hcr_el2 & PV_HCR_EL2_TGE) != 0;
	unsigned owner = owner_el(e);
	if (owner < e->el || (tge && owner == 1))
		return false;
	switch (e->el) {
	case 2:
		return e->pmscr_el2 & PV_PMSCR_E1SPE; /* E2SPE */
	case 1:
		return s->scr & PV_PMSCR_E1SPE;
	case 0:
		return tge ? (e->pmscr_el2 & PV_PMSCR_E0SPE) : (s->scr & PV_PMSCR_E0SPE);
	default:
		return false;
	}
}

/* SPEResetSampleCounter(): COUNT[31:8] = INTERVAL, COUNT[7:0] random with RND. An INTERVAL of
 * 0 gives an UNKNOWN interval: the model takes 256. */
static void reset_counter(struct sim_spe *s)
{
	uint64_t interval = s->irr & PV_PMSIRR_INTERVAL;
	if (!interval)
		interval = 0x100;
	uint64_t low = (s->irr & PV_PMSIRR_RND) ? rnd(s) & 0xFF : 0;
	s->icr = (s->icr & ~PV_PMSICR_COUNT) | interval | low;
}

/* ---- one sample ----------------------------------------------------------------------------- */

static uint64_t ev(const struct sim_work *w, enum sim_ev e)
{
	return w->ev[e];
}

static uint64_t pick_addr(struct sim_spe *s, uint64_t base, uint64_t size, unsigned align)
{
	uint64_t slots = size >> align;
	return slots ? base + (rnd(s) % slots << align) : base;
}

/* The operation: its class and subclass (SPEConstructClass()), addresses, latencies and
 * events, from the work's mix. */
static void draw(struct sim_spe *s, const struct sim_spe_env *e, const struct sim_work *w,
		 struct sim_spe_sample *o, bool *load)
{
	uint64_t spec = ev(w, SIM_EV_INST_SPEC), inst = ev(w, SIM_EV_INST_RETIRED);
	if (spec < inst)
		spec = inst;
	uint64_t br = ev(w, SIM_EV_BR_RETIRED), mem = ev(w, SIM_EV_MEM_ACCESS);
	uint64_t r = spec ? rnd(s) % spec : 0;
	o->el = (uint8_t)e->el;
	o->pc = pick_addr(s, e->code.pc, e->code.pc_size, 2);
	if (chance(s, inst, spec))
		o->events |= PV_SPE_EV_RETIRED;
	uint16_t issue = (uint16_t)(1 + rnd(s) % 4), rest;
	*load = false;
	if (r < br) {
		bool cond = chance(s, 1, 2), taken = !cond || chance(s, 2, 3);
		bool indirect = chance(s, 1, 8);
		o->op_class = PV_SPE_OP_BRANCH;
		o->op_sub = (uint8_t)((cond ? 1 : 0) | (indirect ? 2 : 0));
		if (cond && !taken)
			o->events |= PV_SPE_EV_NOT_TAKEN; /* SPECompleteSample(): bit 6 */
		bool mispred = chance(s, ev(w, SIM_EV_BR_MIS_PRED), br);
		if (mispred)
			o->events |= PV_SPE_EV_MISPRED;
		if (taken) {
			o->has_target = true;
			o->target = pick_addr(s, e->code.pc, e->code.pc_size, 2);
		}
		rest = (uint16_t)(1 + (mispred ? 11 : 0));
	} else if (r < br + mem) {
		bool store = chance(s, 1, 3);
		o->op_class = PV_SPE_OP_LDST;
		o->op_sub = store ? 1 : 0; /* general-purpose register load/store */
		*load = !store;
		o->has_va = true;
		o->va = pick_addr(s, e->code.data, e->code.data_size, 3);
		o->events |= PV_SPE_EV_L1D_ACCESS | PV_SPE_EV_TLB_ACCESS;
		unsigned level = 0; /* L1, L2, LLC, DRAM */
		if (chance(s, ev(w, SIM_EV_L1D_CACHE_REFILL), ev(w, SIM_EV_L1D_CACHE))) {
			o->events |= PV_SPE_EV_L1D_REFILL;
			level = 1;
			if (chance(s, ev(w, SIM_EV_L2D_CACHE_REFILL),
				   ev(w, SIM_EV_L2D_CACHE))) {
				o->events |= PV_SPE_EV_LLC_ACCESS;
				level = 2;
				if (chance(s, 1, 2)) {
					o->events |= PV_SPE_EV_LLC_MISS;
					level = 3;
				}
			}
		}
		static const uint16_t lat[4] = {4, 14, 40, 160}, jitter[4] = {1, 8, 20, 200};
		static const uint16_t source[4] = {0x0, 0x8, 0xB,
						   0xE}; /* IMPLEMENTATION DEFINED */
		rest = (uint16_t)(lat[level] + rnd(s) % jitter[level]);
		if (chance(s, 1, 32)) {
			o->events |= PV_SPE_EV_TLB_WALK;
			o->lat[2] = (uint16_t)(8 + rnd(s) % 40);
			rest = (uint16_t)(rest + o->lat[2]);
		}
		if (*load) {
			o->has_ds = true;
			o->ds = source[level];
		}
	} else {
		bool cond = chance(s, 1, 16);
		o->op_class = PV_SPE_OP_OTHER;
		o->op_sub = cond ? 1 : 0;
		rest = (uint16_t)(1 + rnd(s) % 3);
	}
	o->lat[1] = issue;
	o->lat[0] = (uint16_t)(issue + rest);
	uint16_t sat = s->cfg.count16 ? 0xFFFF : 0xFFF; /* saturating counters */
	for (unsigned i = 0; i < 3; i++)
		if (o->lat[i] > sat)
			o->lat[i] = sat;
}

/* SPEFilterByEvents(), SPEFilterByType(), SPEFilterByLatency(). The CONSTRAINED UNPREDICTABLE
 * cases (FE with PMSEVFR_EL1 zero, FnE with a bit in both filters, FT with no type, FL with
 * MINLAT zero) behave as if that filter were off. */
static bool rejected(const struct sim_spe *s, const struct sim_spe_sample *o)
{
	uint64_t mask = s->cfg.events, e = o->events & mask;
	uint64_t evfr = s->evfr & mask, nevfr = s->nevfr & mask;
	bool fne = s->cfg.version >= PV_SPE_V1P2 && (s->fcr & PV_PMSFCR_FnE);
	bool fe = s->fcr & PV_PMSFCR_FE;
	bool both = fe && fne && (evfr & nevfr);
	if (fe && evfr && !both && (~e & evfr))
		return true;
	if (fne && nevfr && !both && (e & nevfr))
		return true;
	if (s->fcr & PV_PMSFCR_FT) {
		uint64_t ctrl = s->fcr >> 16 & 7; /* B, LD, ST */
		unsigned flags = o->op_class == PV_SPE_OP_BRANCH ? 1
				 : o->op_class == PV_SPE_OP_LDST ? (o->op_sub & 1 ? 4 : 2)
								 : 0;
		if (ctrl && !(flags & ctrl))
			return true;
	}
	if ((s->fcr & PV_PMSFCR_FL) && (s->latfr & 0xFFFF) && o->lat[0] < (s->latfr & 0xFFFF))
		return true;
	return false;
}

/* CollectTimeStamp() without FEAT_ECV (PCT bit 1 RES0); EL2 is implemented and enabled. */
static bool timestamp(const struct sim_spe *s, const struct sim_spe_env *e, uint64_t *ts)
{
	unsigned owner = owner_el(e);
	if (!((owner == 2 ? e->pmscr_el2 : s->scr) & PV_PMSCR_TS))
		return false;
	bool in_host = (e->hcr_el2 & PV_HCR_EL2_E2H) &&
		       (e->el == 2 || (e->el == 0 && (e->hcr_el2 & PV_HCR_EL2_TGE)));
	bool physical;
	if (!(e->pmscr_el2 & PV_BIT(6)))
		physical = in_host; /* PCT_el2 = 0b00: virtual */
	else if (owner == 2)
		physical = true; /* 0b01, owned by EL2 */
	else
		physical = (s->scr & PV_BIT(6)) != 0; /* 0b01: PMSCR_EL1.PCT decides */
	*ts = physical ? e->cntpct : e->cntpct - e->cntvoff;
	return true;
}

/* DebugWriteFault(): the syndrome of a buffer write that faulted. */
static uint64_t fault_syndrome(const struct sim_fault *f)
{
	static const uint8_t base[] = {[SIM_FAULT_ADDR_SIZE] = 0x00,
				       [SIM_FAULT_TRANSLATION] = 0x04,
				       [SIM_FAULT_ACCESS] = 0x08,
				       [SIM_FAULT_PERMISSION] = 0x0C,
				       [SIM_FAULT_EXTERNAL] = 0x14};
	unsigned ec = f->stage2 ? PV_PMBSR_EC_FAULT_S2 : PV_PMBSR_EC_FAULT_S1;
	return PV_FIELD_PREP(PV_PMBSR_EC, ec) | (uint64_t)(base[f->kind] + f->level);
}

/* SPEWriteToBuffer(): byte by byte at PMBPTR_EL1, which moves on only while no management
 * event has stopped the profiler. Returns the bytes written. */
static size_t write_record(struct sim_spe *s, const struct sim_spe_env *e, const uint8_t *rec,
			   size_t len)
{
	uint64_t page = ~UINT64_C(0), pa = 0;
	size_t i = 0;
	for (; i < len && !(s->bsr & PV_PMBSR_S); i++) {
		uint64_t va = s->ptr;
		if (s->ea_armed && !s->ea_left--) { /* injected: a synchronous External abort */
			s->ea_armed = false;
			s->stats.ext_aborts++;
			if (s->cfg.ea_events) {
				s->bsr = (s->bsr & PV_PMBSR_COLL) | PV_PMBSR_S | PV_PMBSR_EA |
					 PV_PMBSR_DL;
				break;
			}
		}
		if (va >> 12 != page) { /* translated once a page, as a TLB would */
			struct sim_fault f;
			if (!e->xlate(e->ctx, va, true, &pa, &f)) {
				s->bsr = (s->bsr & PV_PMBSR_COLL) | PV_PMBSR_S |
					 fault_syndrome(&f) | (i ? PV_PMBSR_DL : 0);
				if (f.stage2)
					s->stats.s2_faults++;
				else
					s->stats.s1_faults++;
				break;
			}
			page = va >> 12;
			pa -= va & 0xFFF;
		}
		e->write(e->ctx, pa + (va & 0xFFF), &rec[i], 1);
		s->undrained = true;
		s->ptr++;
	}
	s->stats.bytes += i;
	return i;
}

static void log_sample(const struct sim_spe_env *e, const struct sim_spe_sample *o)
{
	struct sim_spe_log *l = e->log;
	if (!l)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct sim_spe_sample *p = realloc(l->s, cap * sizeof(*p));
		if (!p)
			abort();
		l->s = p;
		l->cap = cap;
	}
	l->s[l->n++] = *o;
}

static uint64_t pc_packet(uint64_t addr, unsigned el)
{
	/* [55:0] address, [63] NS, [62:61] EL, [60] NSE (Non-secure: 1, 0). */
	return (addr & PV_GENMASK(55, 0)) | PV_BIT(63) | (uint64_t)el << 61;
}

/* SPEStartSample() .. SPECompleteSample() for an operation selected at `cycle`. */
static void sample(struct sim_spe *s, const struct sim_spe_env *e, const struct sim_work *w,
		   uint64_t cycle, uint64_t ts_at)
{
	struct sim_spe_sample o = {.seq = ++s->seq};
	s->stats.selected++;
	if (cycle < s->busy_until || s->coll_left) { /* SPESampleCollision() */
		s->coll_left -= s->coll_left ? 1 : 0;
		s->bsr |= PV_PMBSR_COLL;
		s->stats.collisions++;
		o.status = SIM_SPE_COLLIDED;
		o.el = (uint8_t)e->el;
		log_sample(e, &o);
		return;
	}
	bool load;
	draw(s, e, w, &o, &load);
	s->busy_until = cycle + o.lat[0];
	unsigned owner = owner_el(e);
	bool tge = e->hcr_el2 & PV_HCR_EL2_TGE;
	if (e->el != 2 && !tge && (s->scr & PV_PMSCR_CX)) { /* CollectContextIDR1() */
		o.has_ctx1 = true;
		o.ctx1 = e->contextidr_el1;
	}
	if (e->pmscr_el2 & PV_PMSCR_CX) { /* CollectContextIDR2() */
		o.has_ctx2 = true;
		o.ctx2 = e->contextidr_el2;
	}
	o.has_ts = timestamp(s, e, &o.ts);
	o.ts += o.has_ts ? ts_at : 0;
	/* CollectPhysicalAddress(): PMSCR_EL2.PA and, owned by EL1, PMSCR_EL1.PA. */
	bool pa = (e->pmscr_el2 & PV_PMSCR_PA) && (owner == 2 || (s->scr & PV_PMSCR_PA));
	struct sim_fault f;
	if (o.has_va && pa && e->xlate(e->ctx, o.va, false, &o.pa, &f))
		o.has_pa = true;
	if (rejected(s, &o)) {
		s->stats.filtered++;
		o.status = SIM_SPE_FILTERED;
		log_sample(e, &o);
		return;
	}
	if (s->cfg.version >= PV_SPE_V1P2 &&
	    PV_FIELD_GET(PV_PMBLIMITR_FM, s->limitr) == PV_PMBLIMITR_FM_DISCARD) {
		s->stats.discarded++;
		o.status = SIM_SPE_DISCARDED;
		log_sample(e, &o);
		return;
	}
	/* SPEConstructRecord(). */
	struct pv_spe_record r = {0};
	r.ctx_valid = (uint8_t)((o.has_ctx1 ? 1 : 0) | (o.has_ctx2 ? 2 : 0));
	r.context[0] = o.ctx1;
	r.context[1] = o.ctx2;
	r.cnt_valid = 3u | ((o.events & PV_SPE_EV_TLB_WALK) ? 4u : 0u);
	for (unsigned i = 0; i < 3; i++)
		r.cnt[i] = o.lat[i];
	r.addr_valid = 1u << PV_SPE_ADDR_PC;
	r.addr[PV_SPE_ADDR_PC] = pc_packet(o.pc, o.el);
	if (o.has_target) {
		r.addr_valid |= 1u << PV_SPE_ADDR_BRANCH;
		r.addr[PV_SPE_ADDR_BRANCH] = pc_packet(o.target, o.el);
	}
	if (o.has_va) {
		r.addr_valid |= 1u << PV_SPE_ADDR_DATA_VA;
		r.addr[PV_SPE_ADDR_DATA_VA] = o.va;
	}
	if (o.has_pa) { /* [55:0] PA, [63] NS */
		r.addr_valid |= 1u << PV_SPE_ADDR_DATA_PA;
		r.addr[PV_SPE_ADDR_DATA_PA] = (o.pa & PV_GENMASK(55, 0)) | PV_BIT(63);
	}
	r.has_ds = o.has_ds;
	r.ds_len = 2;
	r.data_source = o.ds;
	r.has_op = true;
	r.op_class = o.op_class;
	r.op_subclass = o.op_sub;
	r.has_events = true;
	r.events_len = 2;
	r.events = o.events;
	r.has_ts = o.has_ts;
	r.timestamp = o.ts;
	uint8_t buf[2048];
	size_t len = pv_spe_record_encode(&r, s->cfg.align, buf, sizeof(buf));
	o.rec_len = (uint16_t)len;
	o.buf_va = s->ptr;
	o.written = (uint16_t)write_record(s, e, buf, len);
	if (o.written == len) {
		o.status = SIM_SPE_WRITTEN;
		s->stats.written++;
	} else {
		o.status = SIM_SPE_LOST;
		s->stats.lost++;
	}
	log_sample(e, &o);
	/* SPEBufferIsFull(): no room left for a record of the largest size. */
	uint64_t limit = s->limitr & PV_PMBLIMITR_LIMIT, max = UINT64_C(1) << s->cfg.max_size;
	if (!(s->bsr & PV_PMBSR_S) && (limit < max || s->ptr > limit - max)) {
		s->bsr = (s->bsr & PV_PMBSR_COLL) | PV_PMBSR_S | PV_PMBSR_BSC_FULL;
		s->stats.full_events++;
	}
}

void sim_spe_exec(struct sim_spe *s, const struct sim_spe_env *e, const struct sim_work *w)
{
	uint64_t cycles = w->ev[SIM_EV_CPU_CYCLES], start = s->cycle;
	s->cycle += cycles;
	if (!profiling_enabled(s, e))
		return; /* PMSICR_EL1 does not change while profiling is disabled */
	uint64_t n = w->ev[SIM_EV_INST_SPEC] > w->ev[SIM_EV_INST_RETIRED]
			     ? w->ev[SIM_EV_INST_SPEC]
			     : w->ev[SIM_EV_INST_RETIRED];
	/* SPEToCollectSample() per operation, in bulk: COUNT == 0 reloads (that operation is not
	 * sampled); otherwise it counts down and the operation that takes it to zero is sampled. */
	uint64_t i = 0;
	while (i < n && buffer_enabled(s)) {
		uint64_t count = s->icr & PV_PMSICR_COUNT;
		if (!count) {
			reset_counter(s);
			i++;
			continue;
		}
		if (count > n - i) {
			s->icr -= n - i;
			break;
		}
		i += count;
		s->icr &= ~PV_PMSICR_COUNT;
		uint64_t at = (i - 1) * cycles / n, ticks = (i - 1) * e->ticks / n;
		sample(s, e, w, start + at, ticks);
	}
}
