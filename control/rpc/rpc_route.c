/* SPDX-License-Identifier: BSD-3-Clause */
/* route.list and neighbor.list */
#include "jsonv.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "rpc.h"
#include "switch.h"

static json_t *
nh_json(struct lsw_switch *sw, uint32_t id)
{
	const struct lsw_nh *nh = &sw->fibc->fib->nh[id];
	uint64_t mac = lsw_load_relaxed(&nh->mac);
	char ip[16], m[24];
	struct rte_ether_addr ea;

	lsw_fmt_ipv4(ip, sizeof(ip), nh->ip);
	lsw_u64_to_mac(mac, &ea);
	lsw_fmt_mac(m, sizeof(m), &ea);
	return json_pack("{s:s, s:s, s:o}", "ip", ip, "port", sw->cfg->port[nh->port].name,
			 "mac", mac & LSW_NH_MAC_VALID ? json_string(m) : json_null());
}

static json_t *
nh6_json(struct lsw_switch *sw, uint32_t id)
{
	const struct lsw_nh6 *nh = &sw->fib6c->fib->nh[id];
	uint64_t mac = lsw_load_relaxed(&nh->mac);
	char ip[48], m[24];
	struct rte_ether_addr ea;

	lsw_fmt_ipv6(ip, sizeof(ip), nh->ip);
	lsw_u64_to_mac(mac, &ea);
	lsw_fmt_mac(m, sizeof(m), &ea);
	return json_pack("{s:s, s:s, s:o}", "ip", ip, "port", sw->cfg->port[nh->port].name,
			 "mac", mac & LSW_NH_MAC_VALID ? json_string(m) : json_null());
}

/* The IPv6 routes, in route.list's shape, appended to @a. */
static void
route6_list(struct lsw_switch *sw, json_t *a)
{
	const struct lsw_fib6ctl *fc = sw->fib6c;
	char pfx[64];

	for (uint32_t i = 0; i < fc->n_routes; i++) {
		const struct lsw_route6 *r = &fc->routes[i];
		json_t *nhs = json_array();
		const char *type = lsw_route_kind_names[r->kind];
		lsw_fmt_prefix6(pfx, sizeof(pfx), r->prefix, r->plen);
		if (r->value & LSW_FIB6_NH_BIT) {
			json_array_append_new(nhs, nh6_json(sw, r->value & ~LSW_FIB6_NH_BIT));
		} else {
			const struct lsw_nhg *g = fc->fib->group[r->value];
			if (g->type == LSW_NHG_BLACKHOLE)
				type = "blackhole";
			for (unsigned int m = 0; g->type == LSW_NHG_FORWARD && m < g->n; m++)
				json_array_append_new(nhs, nh6_json(sw, g->member[m]));
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "prefix", pfx, "family", "IPv6",
				      "type", type, "nexthops", nhs);
		if (r->kind == LSW_RT_CONNECTED || r->kind == LSW_RT_LOCAL)
			json_object_set_new(o, "port", json_string(sw->cfg->port[r->port].name));
		json_array_append_new(a, o);
	}
}

static json_t *
route_list(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_fibctl *fc = sw->fibc;
	char pfx[24];

	RTE_SET_USED(args);
	RTE_SET_USED(e);
	json_t *a = json_array();
	for (uint32_t i = 0; i < fc->n_routes; i++) {
		const struct lsw_route *r = &fc->routes[i];
		json_t *nhs = json_array();
		const char *type = lsw_route_kind_names[r->kind];
		lsw_fmt_prefix(pfx, sizeof(pfx), r->prefix, r->plen);
		if (r->value & LSW_FIB_NH_BIT) {
			json_array_append_new(nhs, nh_json(sw, r->value & ~LSW_FIB_NH_BIT));
		} else {
			const struct lsw_nhg *g = fc->fib->group[r->value];
			if (g->type == LSW_NHG_BLACKHOLE)
				type = "blackhole";
			for (unsigned int m = 0; g->type == LSW_NHG_FORWARD && m < g->n; m++)
				json_array_append_new(nhs, nh_json(sw, g->member[m]));
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "prefix", pfx, "family", "IPv4",
				      "type", type, "nexthops", nhs);
		if (r->kind == LSW_RT_CONNECTED || r->kind == LSW_RT_LOCAL)
			json_object_set_new(o, "port", json_string(sw->cfg->port[r->port].name));
		json_array_append_new(a, o);
	}
	route6_list(sw, a);
	return a;
}

static const struct lsw_rpc_method m_route_list = {
	.name = "route.list",
	.summary = "IPv4 then IPv6 routes: connected, local, static (ECMP members), neighbor "
		   "host routes",
	.fn = route_list,
};
LSW_RPC_REGISTER(m_route_list)

static json_t *
neighbor_list(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct lsw_fibctl *fc = sw->fibc;
	uint64_t now = lsw_now_ns();

	RTE_SET_USED(args);
	RTE_SET_USED(e);
	json_t *a = json_array();
	for (uint32_t id = 0; id < LSW_MAX_NH; id++) {
		const struct lsw_nh_meta *m = &fc->meta[id];
		if (m->state == LSW_NH_FREE || m->state == LSW_NH_RECLAIM)
			continue;
		json_t *o = nh_json(sw, id);
		json_object_set_new(o, "family", json_string("IPv4"));
		json_object_set_new(o, "state", json_string(lsw_nh_state_names[m->state]));
		json_object_set_new(o, "age_s", m->state == LSW_NH_LEARNED ?
				    json_real((double)(now - m->updated_ns) / 1e9) : json_null());
		json_array_append_new(a, o);
	}
	for (uint32_t id = 0; id < LSW_MAX_NH6; id++) {
		const struct lsw_nh_meta *m = &sw->fib6c->meta[id];
		if (m->state == LSW_NH_FREE || m->state == LSW_NH_RECLAIM)
			continue;
		json_t *o = nh6_json(sw, id);
		json_object_set_new(o, "family", json_string("IPv6"));
		json_object_set_new(o, "state", json_string(lsw_nh_state_names[m->state]));
		json_object_set_new(o, "age_s", m->state == LSW_NH_LEARNED ?
				    json_real((double)(now - m->updated_ns) / 1e9) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static const struct lsw_rpc_method m_neighbor_list = {
	.name = "neighbor.list",
	.summary = "Neighbors (next hops): IP, port, MAC, static/learned/incomplete, age",
	.fn = neighbor_list,
};
LSW_RPC_REGISTER(m_neighbor_list)
