/* SPDX-License-Identifier: BSD-3-Clause */
/* ecmp.groups and ecmp.stats: next-hop groups of both families, their modes, members and
 * counters. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_cycles.h>
#include "jsonv.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "rpc.h"
#include "switch.h"

/* A prefix as text: an IPv6 address, a slash and up to three digits. */
#define PREFIX_LEN (INET6_ADDRSTRLEN + 4)

/* A FORWARD group of either FIB, through the static route that made it. */
struct grp_ref {
	bool v6;                     /* a group of the IPv6 FIB */
	uint32_t gid;
	char prefix[PREFIX_LEN];
	const struct lsw_ecmp_grp_conf *gc;
	const struct lsw_nhg *g;
};

/* Every FORWARD group with ECMP state, IPv4's then IPv6's, into @out (as many as groups
 * can be); how many. */
static uint32_t
list_groups(const struct lsw_switch *sw, struct grp_ref *out)
{
	const struct lsw_ecmp_dp *e = &sw->dp.conf->ecmp;
	uint32_t n = 0;

	for (uint32_t i = 0; i < sw->fibc->n_routes; i++) {
		const struct lsw_route *r = &sw->fibc->routes[i];
		if (r->kind != LSW_RT_STATIC || (r->value & LSW_FIB_NH_BIT) ||
		    lsw_ecmp_grp(e, false, r->value) == NULL || sw->ecmp[r->value] == NULL)
			continue;
		out[n] = (struct grp_ref){.gid = r->value, .g = sw->fibc->fib->group[r->value],
			.gc = lsw_ecmp_group_conf(sw->cfg, false, r->prefix, NULL, r->plen)};
		lsw_fmt_prefix(out[n++].prefix, PREFIX_LEN, r->prefix, r->plen);
	}
	for (uint32_t i = 0; i < sw->fib6c->n_routes; i++) {
		const struct lsw_route6 *r = &sw->fib6c->routes[i];
		if (r->kind != LSW_RT_STATIC || (r->value & LSW_FIB6_NH_BIT) ||
		    lsw_ecmp_grp(e, true, r->value) == NULL || sw->ecmp6[r->value] == NULL)
			continue;
		out[n] = (struct grp_ref){.v6 = true, .gid = r->value,
			.g = sw->fib6c->fib->group[r->value],
			.gc = lsw_ecmp_group_conf(sw->cfg, true, 0, r->prefix, r->plen)};
		lsw_fmt_prefix6(out[n++].prefix, PREFIX_LEN, r->prefix, r->plen);
	}
	return n;
}

static json_t *
group_json(const struct grp_ref *r)
{
	const struct lsw_ecmp_grp_conf *gc = r->gc;
	uint8_t f = gc->fields | (gc->mode == LSW_ECMP_HASH_QP ? LSW_HF_ROCE_DQP : 0);
	json_t *fields = json_array();

	/* An IPv4 packet has no flow label: its groups do not list it. */
	if (!r->v6)
		f &= (uint8_t)~LSW_HF_IPV6_FLOW_LABEL;
	for (unsigned int i = 0; lsw_hash_field_names[i] != NULL; i++)
		if (f >> i & 1)
			json_array_append_new(fields, json_string(lsw_hash_field_names[i]));
	return json_pack("{s:s, s:s, s:i, s:s, s:o, s:I, s:I, s:I, s:b, s:i, s:I}",
			 "prefix", r->prefix, "family", r->v6 ? "IPv6" : "IPv4",
			 "group_id", (int)r->gid, "mode", lsw_ecmp_mode_names[gc->mode],
			 "hash_fields", fields, "seed", (json_int_t)gc->seed,
			 "inactivity_time_us", (json_int_t)gc->inactivity_us,
			 "flowlet_table_size", (json_int_t)gc->table_size,
			 "rebalance", gc->rebalance, "rebalance_margin", gc->margin,
			 "rebalance_interval_us", (json_int_t)gc->rebalance_us);
}

/* Member @i of @r's group: its next hop and port. */
static json_t *
member_json(const struct lsw_switch *sw, const struct grp_ref *r, unsigned int i)
{
	char ip[INET6_ADDRSTRLEN];
	uint16_t port;

	if (r->v6) {
		const struct lsw_nh6 *nh = &sw->fib6c->fib->nh[r->g->member[i]];
		lsw_fmt_ipv6(ip, sizeof(ip), nh->ip);
		port = nh->port;
	} else {
		const struct lsw_nh *nh = &sw->fibc->fib->nh[r->g->member[i]];
		lsw_fmt_ipv4(ip, sizeof(ip), nh->ip);
		port = nh->port;
	}
	return json_pack("{s:s, s:s}", "ip", ip, "port", sw->cfg->port[port].name);
}

static json_t *
ecmp_groups(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_ecmp_conf *ec = &sw->cfg->ecmp;

	RTE_SET_USED(args);
	struct grp_ref *refs = malloc(sizeof(*refs) * (LSW_MAX_NHG + LSW_MAX_NHG6));
	if (refs == NULL)
		return lsw_rpc_nomem(e);
	uint32_t n = list_groups(sw, refs);
	json_t *groups = json_array();
	for (uint32_t k = 0; k < n; k++) {
		json_t *o = group_json(&refs[k]), *m = json_array();
		for (unsigned int i = 0; i < refs[k].g->n; i++)
			json_array_append_new(m, member_json(sw, &refs[k], i));
		json_object_set_new(o, "members", m);
		json_array_append_new(groups, o);
	}
	free(refs);
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
	char canon[PREFIX_LEN]; /* as ecmp.groups writes it */
};

static bool
prefix_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	     struct lsw_errs *errs)
{
	struct group_args *a = out;
	uint8_t ip6[16], plen;
	uint32_t ip;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	const char *s = json_is_string(v) ? json_string_value(v) : "";
	if (lsw_parse_prefix(s, &ip, &plen)) {
		lsw_fmt_prefix(a->canon, sizeof(a->canon), ip, plen);
	} else if (lsw_parse_prefix6(s, ip6, &plen)) {
		lsw_fmt_prefix6(a->canon, sizeof(a->canon), ip6, plen);
	} else {
		lsw_errs_add(errs, path, "expected A.B.C.D/LEN or X:X::X/LEN");
		return false;
	}
	a->prefix = s;
	return true;
}

static const struct lsw_field group_rows[] = {
	{.name = "prefix", .type = LSW_F_CUSTOM, .fn = prefix_param,
	 .doc = "string (A.B.C.D/LEN or X:X::X/LEN)"},
};
static const struct lsw_fields group_params = LSW_FIELDS(group_rows);

static json_t *
ecmp_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct group_args *a = args;
	struct grp_ref *refs = malloc(sizeof(*refs) * (LSW_MAX_NHG + LSW_MAX_NHG6));
	if (refs == NULL)
		return lsw_rpc_nomem(e);
	uint32_t n = list_groups(sw, refs);
	json_t *groups = json_array();
	bool found = false;
	for (uint32_t k = 0; k < n; k++) {
		const struct grp_ref *r = &refs[k];
		if (a->prefix != NULL && strcmp(r->prefix, a->canon) != 0)
			continue;
		found = true;
		const struct lsw_nhg *g = r->g;
		struct lsw_ecmp_ctr c;
		uint64_t active[LSW_MAX_ECMP] = {0};
		lsw_ecmp_counters(sw, r->v6, r->gid, &c);
		active_flowlets(sw, lsw_ecmp_grp(&sw->dp.conf->ecmp, r->v6, r->gid), g->n, active);
		json_t *o = group_json(r), *ms = json_array();
		for (unsigned int i = 0; i < g->n; i++) {
			json_t *m = member_json(sw, r, i);
			json_object_update_new(m, port_quality(sw, lsw_nh_port(&sw->dp, r->v6,
									       g->member[i])));
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
	free(refs);
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
