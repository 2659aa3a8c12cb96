/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ECMP in the workers' snapshot: per port, the band thresholds of its quality; per next-hop
 * group of either FIB (IPv4's and IPv6's group ids are two spaces), its mode and flowlet
 * tables. Tables belong to one worker each and outlive
 * snapshots: a config change that leaves a group's mode, table size, seed, hash fields and
 * inactivity time alone keeps its flows where they are (no reordering for an unrelated
 * change); any of those changing gives it fresh tables, the old ones freed after the grace
 * period.
 */
#include <string.h>
#include <rte_malloc.h>
#include "fibctl.h"
#include "fib6ctl.h"
#include "switch.h"

/* Where the control plane keeps group @gid's state of a family (@v6: IPv6's). */
static inline struct lsw_ecmp_gctl **
gctl(const struct lsw_switch *sw, bool v6, uint32_t gid)
{
	return (struct lsw_ecmp_gctl **)(v6 ? &sw->ecmp6[gid] : &sw->ecmp[gid]);
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

/* Group @gid of a family (@v6), the group of route @prefix/@plen (@prefix6/@plen), in
 * snapshot @d; @cur the running one (NULL: none), whose tables it may keep. */
static int
build_group(struct lsw_switch *sw, const struct lsw_snapshot *cur, struct lsw_snapshot *d,
	    bool v6, uint32_t gid, uint32_t prefix, const uint8_t *prefix6, uint8_t plen)
{
	const struct lsw_ecmp_grp_conf *gc = lsw_ecmp_group_conf(sw->cfg, v6, prefix, prefix6,
								 plen);
	const struct lsw_ecmp_grp_dp *old = cur != NULL ? lsw_ecmp_grp(&cur->ecmp, v6, gid) :
					    NULL;
	struct lsw_ecmp_grp_dp *g = v6 ? &d->ecmp.grp6[gid] : &d->ecmp.grp[gid];
	uint64_t us = sw->dp.tsc_hz / 1000000;
	uint16_t nw = sw->dp.n_workers;
	struct lsw_ecmp_gctl **slot = gctl(sw, v6, gid);

	if (*slot == NULL) {
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
		*slot = gt;
	}
	*g = (struct lsw_ecmp_grp_dp){
		.mode = gc->mode, .fields = gc->fields, .rebalance = gc->rebalance,
		.margin = gc->margin, .seed = lsw_seed_mix(gc->seed), .mask = gc->table_size - 1,
		.inactivity = gc->inactivity_us * us, .rebalance_iv = gc->rebalance_us * us,
		.ws = (*slot)->ws,
	};
	if (!lsw_ecmp_has_table(g->mode))
		return 0;
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
	/* IPv6's FIB reuses the lowest free id and keeps no high mark: one past the highest
	 * group a route names, so that a snapshot holds no more than it needs. */
	e->n_grp6 = 0;
	for (uint32_t i = 0; sw->fib6c != NULL && i < sw->fib6c->n_routes; i++) {
		uint32_t v = sw->fib6c->routes[i].value;
		if (!(v & LSW_FIB6_NH_BIT) && v >= e->n_grp6)
			e->n_grp6 = v + 1;
	}
	e->grp = rte_zmalloc("lsw_ecmp_grp_dp", sizeof(*e->grp) * e->n_grp, RTE_CACHE_LINE_SIZE);
	e->grp6 = rte_zmalloc("lsw_ecmp_grp_dp", sizeof(*e->grp6) * RTE_MAX(e->n_grp6, 1u),
			      RTE_CACHE_LINE_SIZE);
	if (e->grp == NULL || e->grp6 == NULL)
		goto fail;
	for (uint32_t i = 0; i < fc->n_routes; i++) {
		const struct lsw_route *r = &fc->routes[i];
		if (r->kind != LSW_RT_STATIC || (r->value & LSW_FIB_NH_BIT) ||
		    r->value < LSW_NHG_ID_FIRST_FREE || r->value >= e->n_grp)
			continue;
		if (build_group(sw, cur, d, false, r->value, r->prefix, NULL, r->plen) != 0)
			goto fail;
	}
	const struct lsw_fib6ctl *fc6 = sw->fib6c;
	for (uint32_t i = 0; fc6 != NULL && i < fc6->n_routes; i++) {
		const struct lsw_route6 *r = &fc6->routes[i];
		if (r->kind != LSW_RT_STATIC || (r->value & LSW_FIB6_NH_BIT) ||
		    r->value < LSW_NHG6_ID_FIRST_FREE || r->value >= e->n_grp6)
			continue;
		if (build_group(sw, cur, d, true, r->value, 0, r->prefix, r->plen) != 0)
			goto fail;
	}
	return 0;
fail:
	lsw_ecmp_retire(d, cur); /* what was new in @d */
	return -1;
}

/* Free the tables of @n groups @g that the @nc groups @c (the running snapshot's) do not
 * use, and the array. */
static void
retire_groups(struct lsw_ecmp_grp_dp *g, uint32_t n, const struct lsw_ecmp_grp_dp *c,
	      uint32_t nc)
{
	for (uint32_t gid = 0; gid < n; gid++)
		for (int w = 0; w < LSW_MAX_WORKERS; w++)
			if (g[gid].tbl[w] != NULL && (gid >= nc || c[gid].tbl[w] != g[gid].tbl[w]))
				rte_free(g[gid].tbl[w]);
	rte_free(g);
}

void
lsw_ecmp_retire(struct lsw_snapshot *old, const struct lsw_snapshot *cur)
{
	const struct lsw_ecmp_dp *c = cur != NULL ? &cur->ecmp : NULL;

	retire_groups(old->ecmp.grp, old->ecmp.n_grp, c != NULL ? c->grp : NULL,
		      c != NULL ? c->n_grp : 0);
	retire_groups(old->ecmp.grp6, old->ecmp.n_grp6, c != NULL ? c->grp6 : NULL,
		      c != NULL ? c->n_grp6 : 0);
	old->ecmp.grp = old->ecmp.grp6 = NULL;
	old->ecmp.n_grp = old->ecmp.n_grp6 = 0;
}

/* Free every group state of a family: @n slots from @slot. */
static void
free_gctl(struct lsw_ecmp_gctl **slot, uint32_t n)
{
	for (uint32_t gid = 0; gid < n; gid++) {
		if (slot[gid] != NULL)
			rte_free(slot[gid]->ws);
		rte_free(slot[gid]);
		slot[gid] = NULL;
	}
}

void
lsw_ecmp_free(struct lsw_switch *sw)
{
	if (sw->dp.conf != NULL)
		lsw_ecmp_retire(sw->dp.conf, NULL);
	free_gctl(sw->ecmp, LSW_MAX_NHG);
	free_gctl(sw->ecmp6, LSW_MAX_NHG6);
}

/* @gt's counters summed over the workers. */
static void
sum(const struct lsw_switch *sw, const struct lsw_ecmp_gctl *gt, struct lsw_ecmp_ctr *out)
{
	memset(out, 0, sizeof(*out));
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		const struct lsw_ecmp_ctr *c = &gt->ws[w].ctr;
		for (int i = 0; i < LSW_MAX_ECMP; i++) {
#define MEMBER_ADD(name, f) \
			out->member[i].f += lsw_counter_read(&c->member[i].f);
			LSW_FOREACH_ECMP_MEMBER_CTR(MEMBER_ADD)
#undef MEMBER_ADD
		}
	}
}

void
lsw_ecmp_counters(const struct lsw_switch *sw, bool v6, uint32_t gid, struct lsw_ecmp_ctr *out)
{
	const struct lsw_ecmp_gctl *gt = *gctl(sw, v6, gid);

	sum(sw, gt, out);
	for (int i = 0; i < LSW_MAX_ECMP; i++) {
#define MEMBER_SUB(name, f) out->member[i].f -= gt->base.member[i].f;
		LSW_FOREACH_ECMP_MEMBER_CTR(MEMBER_SUB)
#undef MEMBER_SUB
	}
}

void
lsw_ecmp_clear(struct lsw_switch *sw)
{
	for (uint32_t gid = 0; gid < LSW_MAX_NHG; gid++)
		if (sw->ecmp[gid] != NULL)
			sum(sw, sw->ecmp[gid], &sw->ecmp[gid]->base);
	for (uint32_t gid = 0; gid < LSW_MAX_NHG6; gid++)
		if (sw->ecmp6[gid] != NULL)
			sum(sw, sw->ecmp6[gid], &sw->ecmp6[gid]->base);
}

void
lsw_ecmp_forget(struct lsw_switch *sw, bool v6, uint32_t gid)
{
	struct lsw_ecmp_gctl *gt = *gctl(sw, v6, gid);

	if (gt == NULL)
		return;
	memset(gt->ws, 0, sizeof(*gt->ws) * LSW_MAX_WORKERS);
	memset(&gt->base, 0, sizeof(gt->base));
}
