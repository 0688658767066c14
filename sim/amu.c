/* SPDX-License-Identifier: MIT */
/* Activity Monitors model: counting, register semantics, virtual offsets, power-down. */
#include "amu.h"

#include <string.h>

#include "perfvisor/sysreg.h"
#include "perfvisor/vamu.h"

/* A value no hypervisor would choose: what UNKNOWN state reads as after power-up. */
#define UNKNOWN_VALUE UINT64_C(0x5EED0FF5E7DEAD00)

enum reg_id {
	R_CR,
	R_CFGR,
	R_CGCR,
	R_USERENR,
	R_CNTENCLR0,
	R_CNTENSET0,
	R_CG1IDR,
	R_CNTENCLR1,
	R_CNTENSET1,
	R_EVCNTR0,
	R_EVTYPER0,
	R_EVCNTR1,
	R_EVTYPER1,
	R_VOFF0,
	R_VOFF1,
	R_NONE
};

static const uint32_t keys[R_EVCNTR0] = {
	[R_CR] = PV_AMCR_EL0,
	[R_CFGR] = PV_AMCFGR_EL0,
	[R_CGCR] = PV_AMCGCR_EL0,
	[R_USERENR] = PV_AMUSERENR_EL0,
	[R_CNTENCLR0] = PV_AMCNTENCLR0_EL0,
	[R_CNTENSET0] = PV_AMCNTENSET0_EL0,
	[R_CG1IDR] = PV_AMCG1IDR_EL0,
	[R_CNTENCLR1] = PV_AMCNTENCLR1_EL0,
	[R_CNTENSET1] = PV_AMCNTENSET1_EL0,
};

/* Families: Op0=3 CRn=13, n = CRm[0]:Op2; Op1=3 CRm 4/6/12/14 for counters and types, Op1=4
 * CRm 8/10 for the EL2 offsets. */
#define FAMILY_MASK                                                                            \
	(PV_ISS_SYS_KEY_MASK & ~(0x1u << PV_ISS_SYS_CRM_SHIFT) &                               \
	 ~(0x7u << PV_ISS_SYS_OP2_SHIFT))

static enum reg_id lookup(uint32_t key, unsigned *n)
{
	static const struct {
		uint32_t key;
		enum reg_id id;
	} families[] = {
		{PV_AMEVCNTR0_EL0(0), R_EVCNTR0},  {PV_AMEVTYPER0_EL0(0), R_EVTYPER0},
		{PV_AMEVCNTR1_EL0(0), R_EVCNTR1},  {PV_AMEVTYPER1_EL0(0), R_EVTYPER1},
		{PV_AMEVCNTVOFF0_EL2(0), R_VOFF0}, {PV_AMEVCNTVOFF1_EL2(0), R_VOFF1},
	};
	*n = (PV_SYSREG_CRM(key) & 1u) << 3 | PV_SYSREG_OP2(key);
	for (unsigned i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if ((key & FAMILY_MASK) == families[i].key)
			return families[i].id;
	*n = 0;
	for (int i = 0; i < R_EVCNTR0; i++)
		if (keys[i] == key)
			return (enum reg_id)i;
	return R_NONE;
}

void sim_amu_init(struct sim_amu *a, const struct sim_amu_config *cfg)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	if (a->cfg.aux > SIM_AMU_AUX_MAX)
		a->cfg.aux = SIM_AMU_AUX_MAX;
	if (a->cfg.version < 2) {
		a->cfg.aux_voff = 0;
		a->cfg.cg1rz = false;
	}
	uint32_t aux = (uint32_t)((1u << a->cfg.aux) - 1);
	a->cfg.aux_voff &= (uint16_t)aux;
	/* Firmware's boot programming (TF-A amu_init_el3): enables, AMCR; AMUSERENR_EL0 and the
	 * offsets are UNKNOWN after reset. */
	a->en0 = a->cfg.enable0 & 0xFu;
	a->en1 = a->cfg.enable1 & aux;
	a->amcr = a->cfg.cg1rz ? PV_AMCR_CG1RZ : 0;
	a->userenr = UNKNOWN_VALUE & PV_AMUSERENR_EN;
	for (unsigned k = 0; k < SIM_AMU_COUNTERS; k++)
		a->voff[k] = UNKNOWN_VALUE;
}

bool sim_amu_enabled(const struct sim_amu *a, unsigned k)
{
	if (k < 4)
		return a->en0 >> k & 1;
	return k - 4 < a->cfg.aux && (a->en1 >> (k - 4) & 1);
}

static uint64_t event_count(uint32_t event, const struct sim_work *w, uint64_t ticks)
{
	if (event == PV_EVT_CNT_CYCLES)
		return ticks;
	if (event == PV_EVT_STALL_BACKEND_MEM)
		return w->ev
			[SIM_EV_STALL_BACKEND]; /* the model's backend stalls are all memory */
	int s = sim_ev_slot(event);
	return s < 0 ? 0 : w->ev[s];
}

uint64_t sim_amu_event(const struct sim_amu *a, unsigned k, const struct sim_work *w,
		       uint64_t ticks)
{
	static const uint32_t group0[4] = PV_AMU_GROUP0_EVENTS;
	uint32_t event = k < 4 ? group0[k] : a->cfg.aux_events[k - 4];
	return event_count(event, w, ticks);
}

void sim_amu_count(struct sim_amu *a, const struct sim_work *w, uint64_t ticks)
{
	if (!a->cfg.version)
		return;
	for (unsigned k = 0; k < 4u + a->cfg.aux; k++)
		if (sim_amu_enabled(a, k))
			a->cnt[k] += sim_amu_event(a, k, w, ticks); /* 64-bit, wraps silently */
}

bool sim_amu_is_reg(uint32_t key)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	return r != R_NONE && r != R_VOFF0 && r != R_VOFF1;
}

bool sim_amu_is_voff(uint32_t key)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	return r == R_VOFF0 || r == R_VOFF1;
}

/* Whether counter k has a virtual offset register. */
static bool has_voff(const struct sim_amu *a, unsigned k)
{
	if (a->cfg.version < 2)
		return false;
	return k < 4 ? k != 1 : (a->cfg.aux_voff >> (k - 4) & 1);
}

bool sim_amu_has(const struct sim_amu *a, uint32_t key, bool is_read, unsigned el, bool highest)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (r == R_NONE || !a->cfg.version)
		return false;
	switch (r) {
	case R_CFGR:
	case R_CGCR:
	case R_EVTYPER0:
		if (!is_read)
			return false; /* no MSR encoding */
		return r != R_EVTYPER0 || n < 4;
	case R_CG1IDR:
		return is_read && a->cfg.version >= 2;
	case R_USERENR:
		return is_read || el > 0;
	case R_CNTENCLR1:
	case R_CNTENSET1:
		return a->cfg.aux && (is_read || highest);
	case R_EVCNTR0:
		return n < 4 && (is_read || highest);
	case R_EVCNTR1:
		return n < a->cfg.aux && (is_read || highest);
	case R_EVTYPER1:
		return n < a->cfg.aux && is_read; /* events fixed at implementation */
	case R_VOFF0:
		return el >= 2 && a->cfg.version >= 2 && n < 4 && has_voff(a, n);
	case R_VOFF1:
		return el >= 2 && n < a->cfg.aux && has_voff(a, 4 + n);
	default:
		return is_read || highest; /* AMCR, AMCNTENSET0/CLR0 */
	}
}

uint64_t sim_amu_fgt_bit(uint32_t key)
{
	unsigned n;
	switch (lookup(key, &n)) {
	case R_CNTENCLR0:
	case R_CNTENSET0:
		return PV_HAFGRTR_AMCNTEN0;
	case R_CNTENCLR1:
	case R_CNTENSET1:
		return PV_HAFGRTR_AMCNTEN1;
	case R_EVCNTR0:
		return n < 4 ? PV_HAFGRTR_AMEVCNTR0(n) : 0;
	case R_EVCNTR1:
		return PV_HAFGRTR_AMEVCNTR1(n);
	case R_EVTYPER1:
		return PV_HAFGRTR_AMEVTYPER1(n);
	default:
		return 0;
	}
}

int sim_amu_counter_of(uint32_t key)
{
	unsigned n;
	switch (lookup(key, &n)) {
	case R_EVCNTR0:
		return n < 4 ? (int)n : -1;
	case R_EVCNTR1:
		return 4 + (int)n;
	default:
		return -1;
	}
}

enum sim_acc sim_amu_read(struct sim_amu *a, const struct sim_amu_ctx *c, uint32_t key,
			  uint64_t *val)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	*val = 0;
	if (!sim_amu_has(a, key, true, c->el, c->highest))
		return SIM_ACC_UNDEF;
	uint32_t aux = (uint32_t)((1u << a->cfg.aux) - 1);
	switch (r) {
	case R_CR:
		*val = a->amcr;
		break;
	case R_CFGR:
		*val = PV_AMCFGR_HDBG | PV_AMCFGR_SIZE_64 |
		       PV_FIELD_PREP(PV_AMCFGR_NCG, (uint64_t)(a->cfg.aux ? 1 : 0)) |
		       (4u + a->cfg.aux - 1);
		break;
	case R_CGCR:
		*val = PV_FIELD_PREP(PV_AMCGCR_CG1NC, (uint64_t)a->cfg.aux) | 4;
		break;
	case R_CG1IDR:
		*val = aux | PV_FIELD_PREP(PV_AMCG1IDR_OFF, (uint64_t)a->cfg.aux_voff);
		break;
	case R_USERENR:
		*val = a->userenr;
		break;
	case R_CNTENCLR0:
	case R_CNTENSET0:
		*val = a->en0;
		break;
	case R_CNTENCLR1:
	case R_CNTENSET1:
		*val = a->en1;
		break;
	case R_EVCNTR0:
	case R_EVCNTR1: {
		unsigned k = r == R_EVCNTR0 ? n : 4 + n;
		/* CG1RZ: group 1 reads as zero below the highest EL. */
		if (r == R_EVCNTR1 && (a->amcr & PV_AMCR_CG1RZ) && !c->highest)
			break;
		*val = a->cnt[k];
		/* EL0/EL1 reads return PCount - AMEVCNTVOFF<g><n>_EL2 (D24.6.9, D24.6.10). */
		if (c->el < 2 && c->offsets && has_voff(a, k))
			*val -= a->voff[k];
		break;
	}
	case R_EVTYPER0: {
		static const uint16_t ev[4] = PV_AMU_GROUP0_EVENTS;
		*val = ev[n];
		break;
	}
	case R_EVTYPER1:
		*val = a->cfg.aux_events[n];
		break;
	case R_VOFF0:
		*val = a->voff[n];
		break;
	case R_VOFF1:
		*val = a->voff[4 + n];
		break;
	default:
		return SIM_ACC_UNDEF;
	}
	return SIM_ACC_OK;
}

enum sim_acc sim_amu_write(struct sim_amu *a, const struct sim_amu_ctx *c, uint32_t key,
			   uint64_t val)
{
	unsigned n;
	enum reg_id r = lookup(key, &n);
	if (!sim_amu_has(a, key, false, c->el, c->highest))
		return SIM_ACC_UNDEF;
	uint32_t aux = (uint32_t)((1u << a->cfg.aux) - 1);
	switch (r) {
	case R_CR:
		a->amcr = val & (PV_AMCR_HDBG | (a->cfg.version >= 2 ? PV_AMCR_CG1RZ : 0));
		break;
	case R_USERENR:
		a->userenr = val & PV_AMUSERENR_EN;
		break;
	case R_CNTENSET0:
		a->en0 |= (uint32_t)val & 0xFu;
		break;
	case R_CNTENCLR0:
		a->en0 &= ~((uint32_t)val & 0xFu);
		break;
	case R_CNTENSET1:
		a->en1 |= (uint32_t)val & aux;
		break;
	case R_CNTENCLR1:
		a->en1 &= ~((uint32_t)val & aux);
		break;
	case R_EVCNTR0:
		a->cnt[n] = val;
		break;
	case R_EVCNTR1:
		a->cnt[4 + n] = val;
		break;
	case R_VOFF0:
		a->voff[n] = val;
		break;
	case R_VOFF1:
		a->voff[4 + n] = val;
		break;
	default:
		return SIM_ACC_UNDEF;
	}
	return SIM_ACC_OK;
}

void sim_amu_power_down(struct sim_amu *a)
{
	memcpy(a->saved, a->cnt, sizeof(a->cnt));
}

void sim_amu_power_up(struct sim_amu *a)
{
	if (a->cfg.fw_keeps_counters)
		memcpy(a->cnt, a->saved, sizeof(a->cnt));
	else
		memset(a->cnt, 0, sizeof(a->cnt));
	/* Firmware re-enables the counters and restores AMCR; EL2's registers are UNKNOWN. */
	uint32_t aux = (uint32_t)((1u << a->cfg.aux) - 1);
	a->en0 = a->cfg.enable0 & 0xFu;
	a->en1 = a->cfg.enable1 & aux;
	a->amcr = a->cfg.cg1rz ? PV_AMCR_CG1RZ : 0;
	a->userenr = PV_AMUSERENR_EN ^ (a->userenr & PV_AMUSERENR_EN);
	for (unsigned k = 0; k < SIM_AMU_COUNTERS; k++)
		a->voff[k] = UNKNOWN_VALUE ^ a->voff[k];
}
