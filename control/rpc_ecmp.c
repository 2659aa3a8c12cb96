/* SPDX-License-Identifier: BSD-3-Clause */
/* ecmp.groups and ecmp.stats: next-hop groups, their modes, members and counters. */
#include <rte_cycles.h>
#include "jsonv.h"
#include "fibctl.h"
#include "rpc.h"
#include "switch.h"

/* Each FORWARD group once, through the static route that made it. */
#define FOR_EACH_GROUP(sw, r) \
	for (const struct lsw_route *r = (sw)->fibc->routes; \
	     r < (sw)->fibc->routes + (sw)->fibc->n_routes; r++) \
		if (r->kind == LSW_RT_STATIC && !(r->value & LSW_FIB_NH_BIT) && \
		    r->value < (sw)->dp.conf->ecmp.n_grp && (sw)->ecmp[r->value] != NULL)

static json_t *
group_json(struct lsw_switch *sw, const struct lsw_route *r)
{
	const struct lsw_ecmp_grp_conf *gc = lsw_ecmp_group_conf(sw->cfg, r->prefix, r->plen);
	uint8_t f = gc->fields | (gc->mode == LSW_ECMP_HASH_QP ? LSW_HF_ROCE_DQP : 0);
	char pfx[24];
	json_t *fields = json_array();

	lsw_fmt_prefix(pfx, sizeof(pfx), r->prefix, r->plen);
	for (unsigned int i = 0; lsw_hash_field_names[i] != NULL; i++)
		if (f >> i & 1)
			json_array_append_new(fields, json_string(lsw_hash_field_names[i]));
	return json_pack("{s:s, s:i, s:s, s:o, s:I, s:I, s:I, s:b, s:i, s:I}", "prefix", pfx,
			 "group_id", (int)r->value, "mode", lsw_ecmp_mode_names[gc->mode],
			 "hash_fields", fields, "seed", (json_int_t)gc->seed,
			 "inactivity_time_us", (json_int_t)gc->inactivity_us,
			 "flowlet_table_size", (json_int_t)gc->table_size,
			 "rebalance", gc->rebalance, "rebalance_margin", gc->margin,
			 "rebalance_interval_us", (json_int_t)gc->rebalance_us);
}

static json_t *
member_json(struct lsw_switch *sw, uint32_t nh_id)
{
	const struct lsw_nh *nh = &sw->fibc->fib->nh[nh_id];
	char ip[16];

	lsw_fmt_ipv4(ip, sizeof(ip), nh->ip);
	return json_pack("{s:s, s:s}", "ip", ip, "port", sw->cfg->port[nh->port].name);
}

static json_t *
ecmp_groups(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_ecmp_conf *ec = &sw->cfg->ecmp;

	RTE_SET_USED(args);
	RTE_SET_USED(e);
	json_t *groups = json_array();
	FOR_EACH_GROUP(sw, r) {
		const struct lsw_nhg *g = sw->fibc->fib->group[r->value];
		json_t *o = group_json(sw, r), *m = json_array();
		for (unsigned int i = 0; i < g->n; i++)
			json_array_append_new(m, member_json(sw, g->member[i]));
		json_object_set_new(o, "members", m);
		json_array_append_new(groups, o);
	}
	json_t *q = json_pack("{s:I, s:i, s:i, s:i, s:I, s:I, s:i, s:i}",
			      "sample_interval_us", (json_int_t)ec->sample_us,
			      "ewma_exponent", ec->ewma_exp, "load_min_threshold", ec->load_min,
			      "load_max_threshold", ec->load_max,
			      "queue_min_threshold", (json_int_t)ec->queue_min,
			      "queue_max_threshold", (json_int_t)ec->queue_max,
			      "load_weight", ec->w_load, "queue_weight", ec->w_queue);
	return json_pack("{s:o, s:o}", "quality", q, "groups", groups);
}

static const struct lsw_rpc_method m_ecmp_groups = {
	.name = "ecmp.groups",
	.summary = "Next-hop groups: prefix, mode and settings, members; the quality settings",
	.fn = ecmp_groups,
};
LSW_RPC_REGISTER(m_ecmp_groups)

/* Flowlet entries per member in use now (seen within the inactivity time; any, for fixed).
 * Read while the workers write them: a count of the moment, not a counter. */
static void
active_flowlets(const struct lsw_switch *sw, const struct lsw_ecmp_grp_dp *g, uint8_t n,
		uint64_t *out)
{
	uint64_t now = rte_rdtsc();

	for (uint16_t w = 0; w < sw->dp.n_workers && g->tbl[w] != NULL; w++)
		for (uint32_t i = 0; i <= g->mask; i++) {
			uint64_t last = lsw_load_relaxed(&g->tbl[w][i].last);
			uint8_t m = lsw_load_relaxed(&g->tbl[w][i].member);
			if (last != 0 && m < n && (g->mode == LSW_ECMP_FIXED ||
						   now - last <= g->inactivity))
				out[m]++;
		}
}

static json_t *
port_quality(struct lsw_switch *sw, uint16_t port)
{
	const struct lsw_ecmp_sig *s = &sw->dp.ecmp_sig[port];
	const struct lsw_ecmp_conf *ec = &sw->cfg->ecmp;
	double full = (double)sw->port[port].speed * ec->sample_us / 8;
	json_t *paused = json_array();
	uint8_t pq = lsw_load_relaxed(&s->paused);

	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		if (pq >> q & 1)
			json_array_append_new(paused, json_integer(q));
	const double load = (double)(lsw_load_relaxed(&s->load) >> LSW_ECMP_FIX);

	return json_pack("{s:b, s:i, s:i, s:i, s:f, s:I, s:o}",
			 /* the workers' view: ECMP leaves out members whose port is down */
			 "live", !(sw->dp.conf->ecmp_down >> port & 1),
			 "quality", lsw_load_relaxed(&s->quality),
			 "load_level", lsw_load_relaxed(&s->load_level),
			 "queue_level", lsw_load_relaxed(&s->queue_level),
			 "load_percent", full > 0 ? load * 100 / full : 0,
			 "queue_bytes", (json_int_t)(lsw_load_relaxed(&s->queue) >> LSW_ECMP_FIX),
			 "paused_queues", paused);
}

/* ecmp.stats's params: one group, by its route's prefix (all when none). */
struct group_args {
	const char *prefix;     /* as given; NULL: every group */
	uint32_t ip;
	uint8_t plen;
};

static bool
prefix_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	     struct lsw_errs *errs)
{
	struct group_args *a = out;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!json_is_string(v) || !lsw_parse_prefix(json_string_value(v), &a->ip, &a->plen)) {
		lsw_errs_add(errs, path, "expected A.B.C.D/LEN");
		return false;
	}
	a->prefix = json_string_value(v);
	return true;
}

static const struct lsw_field group_rows[] = {
	{.name = "prefix", .type = LSW_F_CUSTOM, .fn = prefix_param,
	 .doc = "string (A.B.C.D/LEN)"},
};
static const struct lsw_fields group_params = LSW_FIELDS(group_rows);

static json_t *
ecmp_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct group_args *a = args;
	json_t *groups = json_array();
	bool found = false;
	FOR_EACH_GROUP(sw, r) {
		if (a->prefix != NULL && (r->prefix != a->ip || r->plen != a->plen))
			continue;
		found = true;
		const struct lsw_nhg *g = sw->fibc->fib->group[r->value];
		struct lsw_ecmp_ctr c;
		uint64_t active[LSW_MAX_ECMP] = {0};
		lsw_ecmp_counters(sw, r->value, &c);
		active_flowlets(sw, &sw->dp.conf->ecmp.grp[r->value], g->n, active);
		json_t *o = group_json(sw, r), *ms = json_array();
		for (unsigned int i = 0; i < g->n; i++) {
			json_t *m = member_json(sw, g->member[i]);
			json_object_update_new(m, port_quality(sw, sw->fibc->fib->nh[g->member[i]].port));
			const struct lsw_ecmp_member_ctr *mc = &c.member[i];
#define MEMBER_CTR(name, f) \
			json_object_set_new(m, #name, json_integer((json_int_t)mc->f));
			LSW_FOREACH_ECMP_MEMBER_CTR(MEMBER_CTR)
#undef MEMBER_CTR
			json_object_set_new(m, "active_flowlets",
					    json_integer((json_int_t)active[i]));
			json_array_append_new(ms, m);
		}
		json_object_set_new(o, "members", ms);
		json_array_append_new(groups, o);
	}
	if (a->prefix != NULL && !found) {
		lsw_errs_add(&e->errs, "$.params.prefix", "no ECMP group for %s", a->prefix);
		json_decref(groups);
		return lsw_rpc_invalid(e);
	}
	return json_pack("{s:o}", "groups", groups);
}

static const struct lsw_rpc_method m_ecmp_stats = {
	.name = "ecmp.stats",
	.summary = "Per group member: packets, bytes, quality, load, queue, PFC pause, flowlets, "
		   "reassignments",
	.params = &group_params,
	.args_size = sizeof(struct group_args),
	.fn = ecmp_stats,
};
LSW_RPC_REGISTER(m_ecmp_stats)
