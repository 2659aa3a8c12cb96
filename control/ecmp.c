/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP in the workers' snapshot: per port, the band thresholds of its quality; per next-hop
 * group, its mode and flowlet tables. Tables belong to one worker each and outlive
 * snapshots: a config change that leaves a group's mode, table size, seed, hash fields and
 * inactivity time alone keeps its flows where they are (no reordering for an unrelated
 * change); any of those changing gives it fresh tables, the old ones freed after the grace
 * period.
 */
#include <string.h>
#include <rte_malloc.h>
#include "fibctl.h"
#include "switch.h"

const struct lsw_ecmp_grp_conf *
lsw_ecmp_group_conf(const struct lsw_config *c, uint32_t prefix, uint8_t plen)
{
	for (uint32_t i = 0; i < c->ecmp.n_grp; i++)
		if (c->ecmp.grp[i].prefix == prefix && c->ecmp.grp[i].plen == plen)
			return &c->ecmp.grp[i];
	return &c->ecmp.dflt;
}

/* Seven rising thresholds: @lo, five even steps, @hi (bands 0 below lo .. 7 from hi). */
static void
thresholds(uint64_t lo, uint64_t hi, uint64_t *thr)
{
	for (int k = 0; k < LSW_ECMP_LEVELS - 1; k++)
		thr[k] = (lo + (hi - lo) * (uint64_t)k / (LSW_ECMP_LEVELS - 2)) << LSW_ECMP_FIX;
}

static bool
same_tables(const struct lsw_ecmp_grp_dp *a, const struct lsw_ecmp_grp_dp *b)
{
	return a->mode == b->mode && a->mask == b->mask && a->seed == b->seed &&
	       a->fields == b->fields && a->inactivity == b->inactivity;
}

static int
build_group(struct lsw_switch *sw, const struct lsw_snapshot *cur, uint32_t gid,
	    const struct lsw_ecmp_grp_conf *gc, struct lsw_ecmp_grp_dp *g)
{
	uint64_t us = sw->dp.tsc_hz / 1000000;
	uint16_t nw = sw->dp.n_workers;

	if (sw->ecmp[gid] == NULL) {
		struct lsw_ecmp_gctl *gt = rte_zmalloc("lsw_ecmp", sizeof(*gt), 0);
		if (gt == NULL)
			return -1;
		/* For every worker there could be: tests change the count. */
		gt->ws = rte_zmalloc("lsw_ecmp_ws", sizeof(*gt->ws) * LSW_MAX_WORKERS,
				     RTE_CACHE_LINE_SIZE);
		if (gt->ws == NULL) {
			rte_free(gt);
			return -1;
		}
		sw->ecmp[gid] = gt;
	}
	*g = (struct lsw_ecmp_grp_dp){
		.mode = gc->mode, .fields = gc->fields, .rebalance = gc->rebalance,
		.margin = gc->margin, .seed = lsw_seed_mix(gc->seed), .mask = gc->table_size - 1,
		.inactivity = gc->inactivity_us * us, .rebalance_iv = gc->rebalance_us * us,
		.ws = sw->ecmp[gid]->ws,
	};
	if (!lsw_ecmp_has_table(g->mode))
		return 0;
	const struct lsw_ecmp_grp_dp *old = cur != NULL && gid < cur->ecmp.n_grp ?
					 &cur->ecmp.grp[gid] : NULL;
	if (old != NULL && old->tbl[0] != NULL && same_tables(old, g)) {
		memcpy(g->tbl, old->tbl, sizeof(g->tbl));
		return 0;
	}
	for (uint16_t w = 0; w < nw; w++) {
		g->tbl[w] = rte_zmalloc("lsw_flowlets", sizeof(struct lsw_flowlet) * gc->table_size,
					RTE_CACHE_LINE_SIZE);
		if (g->tbl[w] == NULL)
			return -1;
	}
	return 0;
}

int
lsw_ecmp_build(struct lsw_switch *sw, struct lsw_snapshot *d)
{
	const struct lsw_ecmp_conf *ec = &sw->cfg->ecmp;
	const struct lsw_snapshot *cur = sw->dp.conf;
	const struct lsw_fibctl *fc = sw->fibc;
	struct lsw_ecmp_dp *e = &d->ecmp;

	e->sample = (uint64_t)ec->sample_us * sw->dp.tsc_hz / 1000000;
	e->shift = ec->ewma_exp;
	e->w_load = ec->w_load;
	e->w_queue = ec->w_queue;
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++) {
		uint64_t mbps = sw->port[p].speed;
		/* Bytes a sample holds at the port's full speed; the queue band scales with the
		 * speed from the 10 Gb/s it is configured for (SAI's scaling factor). */
		uint64_t full = mbps * ec->sample_us / 8;
		thresholds(full * ec->load_min / 100, full * ec->load_max / 100, e->load_thr[p]);
		thresholds(ec->queue_min * mbps / 10000, ec->queue_max * mbps / 10000,
			   e->queue_thr[p]);
	}
	e->n_grp = fc->next_group;
	e->grp = rte_zmalloc("lsw_ecmp_grp_dp", sizeof(*e->grp) * e->n_grp, RTE_CACHE_LINE_SIZE);
	if (e->grp == NULL)
		return -1;
	for (uint32_t i = 0; i < fc->n_routes; i++) {
		const struct lsw_route *r = &fc->routes[i];
		if (r->kind != LSW_RT_STATIC || (r->value & LSW_FIB_NH_BIT) ||
		    r->value < LSW_NHG_ID_FIRST_FREE || r->value >= e->n_grp)
			continue;
		if (build_group(sw, cur, r->value, lsw_ecmp_group_conf(sw->cfg, r->prefix, r->plen),
				&e->grp[r->value]) != 0) {
			lsw_ecmp_retire(d, cur); /* what was new in @d */
			return -1;
		}
	}
	return 0;
}

void
lsw_ecmp_retire(struct lsw_snapshot *old, const struct lsw_snapshot *cur)
{
	for (uint32_t gid = 0; gid < old->ecmp.n_grp; gid++) {
		const struct lsw_ecmp_grp_dp *g = &old->ecmp.grp[gid];
		const struct lsw_ecmp_grp_dp *n = cur != NULL && gid < cur->ecmp.n_grp ?
					       &cur->ecmp.grp[gid] : NULL;
		for (int w = 0; w < LSW_MAX_WORKERS; w++)
			if (g->tbl[w] != NULL && (n == NULL || n->tbl[w] != g->tbl[w]))
				rte_free(g->tbl[w]);
	}
	rte_free(old->ecmp.grp);
	old->ecmp.grp = NULL;
	old->ecmp.n_grp = 0;
}

void
lsw_ecmp_free(struct lsw_switch *sw)
{
	if (sw->dp.conf != NULL)
		lsw_ecmp_retire(sw->dp.conf, NULL);
	for (uint32_t gid = 0; gid < LSW_MAX_NHG; gid++) {
		if (sw->ecmp[gid] != NULL)
			rte_free(sw->ecmp[gid]->ws);
		rte_free(sw->ecmp[gid]);
		sw->ecmp[gid] = NULL;
	}
}

static void
sum(const struct lsw_switch *sw, uint32_t gid, struct lsw_ecmp_ctr *out)
{
	memset(out, 0, sizeof(*out));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const struct lsw_ecmp_ctr *c = &sw->ecmp[gid]->ws[w].ctr;
		for (int i = 0; i < LSW_MAX_ECMP; i++) {
#define MEMBER_ADD(name, f) \
			out->member[i].f += lsw_counter_read(&c->member[i].f);
			LSW_FOREACH_ECMP_MEMBER_CTR(MEMBER_ADD)
#undef MEMBER_ADD
		}
	}
}

void
lsw_ecmp_counters(const struct lsw_switch *sw, uint32_t gid, struct lsw_ecmp_ctr *out)
{
	const struct lsw_ecmp_ctr *base = &sw->ecmp[gid]->base;

	sum(sw, gid, out);
	for (int i = 0; i < LSW_MAX_ECMP; i++) {
#define MEMBER_SUB(name, f) out->member[i].f -= base->member[i].f;
		LSW_FOREACH_ECMP_MEMBER_CTR(MEMBER_SUB)
#undef MEMBER_SUB
	}
}

void
lsw_ecmp_clear(struct lsw_switch *sw)
{
	for (uint32_t gid = 0; gid < LSW_MAX_NHG; gid++)
		if (sw->ecmp[gid] != NULL)
			sum(sw, gid, &sw->ecmp[gid]->base);
}

void
lsw_ecmp_forget(struct lsw_switch *sw, uint32_t gid)
{
	if (sw->ecmp[gid] == NULL)
		return;
	memset(sw->ecmp[gid]->ws, 0, sizeof(*sw->ecmp[gid]->ws) * LSW_MAX_WORKERS);
	memset(&sw->ecmp[gid]->base, 0, sizeof(sw->ecmp[gid]->base));
}
