/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes, neighbors and addresses changed at run time (route.add/del, neighbor.add/del,
 * config.set on STATIC_ROUTE, NEIGH, INTERFACE): each change reaches the forwarding path,
 * a changed route is replaced in place, freed groups and next hops are reclaimed and
 * reused, refusals leave the FIB as it was.
 */
#include <string.h>
#include "harness.h"

static uint8_t buf[2048];

/* Send a packet from Ethernet0 to @dst: the port it leaves on (-1: none), its MAC in @mac. */
static int
route_of(struct t_switch *t, const char *dst, struct rte_ether_addr *mac)
{
	struct t_flow f = {.src = "10.0.0.1", .dst = dst, .sport = 7, .dport = 9, .payload = 64,
			   .vlan = -1};
	uint16_t len = t_build_ipv4(buf, &f);
	int out = -1;

	t_rx(t, T_PORT0, buf, len, 0);
	for (uint16_t p = 0; p < t->sw.cfg->n_ports; p++) {
		struct rte_mbuf *m;
		while ((m = t_tx_take(t, p)) != NULL) {
			if (mac != NULL)
				*mac = rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr;
			out = p;
			rte_pktmbuf_free(m);
		}
	}
	return out;
}

/* A call that must succeed, its answer dropped. */
static void
t_call(struct t_switch *t, const char *method, const char *params)
{
	json_t *resp;

	t_rpc_ok(t, method, params, &resp);
	json_decref(resp);
}

static bool
mac_is(const struct rte_ether_addr *a, const char *s)
{
	struct rte_ether_addr b;

	t_mac(s, &b);
	return rte_is_same_ether_addr(a, &b);
}

/* A call refused with its first error at @path. */
static void
t_refused(struct t_switch *t, const char *method, const char *params, const char *path)
{
	json_t *resp = t_rpc(t, method, params);

	assert_string_equal(t_error_path(resp), path);
	json_decref(resp);
}

/* The route.list entry for @prefix, or NULL. */
static json_t *
route_entry(struct t_switch *t, const char *prefix, json_t **resp)
{
	json_t *a = t_rpc_ok(t, "route.list", NULL, resp), *r;
	size_t i;

	json_array_foreach(a, i, r)
		if (strcmp(json_string_value(json_object_get(r, "prefix")), prefix) == 0)
			return r;
	return NULL;
}

/* Whether route.list has @prefix. */
static bool
has_route(struct t_switch *t, const char *prefix)
{
	json_t *resp;
	bool found = route_entry(t, prefix, &resp) != NULL;

	json_decref(resp);
	return found;
}


static void
test_route_add_replace_del(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct rte_ether_addr mac;
	json_t *resp;

	(void)state;
	assert_int_equal(route_of(t, "10.5.1.1", NULL), -1);
	t_call(t, "route.add", "{\"prefix\": \"10.5.0.0/16\", \"nexthop\": \"10.0.1.3\"}");
	assert_int_equal(route_of(t, "10.5.1.1", &mac), T_PORT8);
	assert_true(mac_is(&mac, "02:00:00:00:08:01"));
	/* The running config says what the FIB holds. */
	resp = t_rpc(t, "config.get", NULL);
	assert_non_null(json_object_get(json_object_get(json_object_get(resp, "result"),
							"STATIC_ROUTE"), "10.5.0.0/16"));
	json_decref(resp);

	/* Adding it again is refused by path; replace changes it whole (ifname goes). */
	t_refused(t, "route.add", "{\"prefix\": \"10.5.0.0/16\", \"nexthop\": \"10.0.1.1\"}",
		  "$.params.prefix");
	t_call(t, "route.add", "{\"prefix\": \"10.2.0.0/16\", \"nexthop\": [\"10.0.1.3\"], "
		 "\"replace\": true}");
	assert_int_equal(route_of(t, "10.2.9.9", &mac), T_PORT8);
	resp = t_rpc(t, "config.get", NULL);
	assert_null(json_object_get(json_object_get(json_object_get(json_object_get(resp,
		"result"), "STATIC_ROUTE"), "10.2.0.0/16"), "ifname"));
	json_decref(resp);

	/* A blackhole, then gone: 10.3.x falls back to no route. */
	assert_int_equal(route_of(t, "10.3.0.1", NULL), -1);
	uint64_t bh = t_drops(t, T_PORT0, LSW_DROP_BLACKHOLE_ROUTE);
	t_call(t, "route.del", "{\"prefix\": \"10.3.0.0/16\"}");
	assert_int_equal(route_of(t, "10.3.0.1", NULL), -1);
	assert_int_equal(t_drops(t, T_PORT0, LSW_DROP_BLACKHOLE_ROUTE), bh);
	assert_false(has_route(t, "10.3.0.0/16"));
	t_refused(t, "route.del", "{\"prefix\": \"10.3.0.0/16\"}",
		  "$.params.prefix");

	/* A group with an ECMP entry down to one next hop: the entry goes with the group. */
	t_call(t, "config.set", "{\"config\": {\"ECMP\": {\"10.1.0.0/16\": "
	       "{\"mode\": \"packet_quality\"}}}}");
	t_call(t, "route.add", "{\"prefix\": \"10.1.0.0/16\", \"nexthop\": \"10.0.1.1\", "
	       "\"replace\": true}");
	resp = t_rpc(t, "config.get", NULL);
	assert_null(json_object_get(json_object_get(json_object_get(resp, "result"), "ECMP"),
				    "10.1.0.0/16"));
	json_decref(resp);
	t_refused(t, "route.add", "{\"prefix\": \"10.1.0.1/16\", \"nexthop\": \"10.0.1.1\"}",
		  "$.params.prefix");

	/* 10.4.0.0/16's next hop was unresolved and only it used it: forgotten with it. */
	assert_int_not_equal(lsw_fibctl_nh_find(t->sw.fibc, t_ip("192.168.5.77")), -1);
	t_call(t, "route.del", "{\"prefix\": \"10.4.0.0/16\"}");
	assert_int_equal(lsw_fibctl_nh_find(t->sw.fibc, t_ip("192.168.5.77")), -1);
	t_switch_free(t);
}

/* An ECMP group replaced by another: the old one is freed after the grace period, and its
 * id comes back with zero counters; many changes do not use up ids or next hops. */
static void
test_group_reclaim(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct lsw_fibctl *fc = t->sw.fibc;
	uint32_t v;

	(void)state;
	assert_int_equal(rte_lpm_lookup(fc->fib->lpm, t_ip("10.1.0.1"), &v), 0);
	uint32_t gid = v;
	assert_true(gid >= LSW_NHG_ID_FIRST_FREE && fc->fib->group[gid] != NULL);
	assert_int_not_equal(route_of(t, "10.1.2.3", NULL), -1);
	struct lsw_ecmp_ctr c;
	lsw_ecmp_counters(&t->sw, false, gid, &c);
	assert_int_equal(c.member[0].pkts + c.member[1].pkts, 1);

	t_call(t, "route.add", "{\"prefix\": \"10.1.0.0/16\", \"nexthop\": \"10.0.1.1\", "
		 "\"replace\": true}");
	assert_null(fc->fib->group[gid]);
	assert_int_equal(fc->n_dead_gid, 0);
	assert_int_equal(route_of(t, "10.1.2.3", NULL), T_PORT4);

	uint32_t routes = fc->n_routes, next = fc->next_group;
	for (int i = 0; i < 300; i++) {
		t_call(t, "route.add", "{\"prefix\": \"10.1.0.0/16\", \"nexthop\": "
			 "\"10.0.1.1,10.0.1.3\", \"replace\": true}");
		t_call(t, "route.add", "{\"prefix\": \"10.1.0.0/16\", \"nexthop\": "
			 "\"10.0.1.3\", \"replace\": true}");
	}
	assert_int_equal(fc->n_routes, routes);
	assert_true(fc->next_group <= next + 1);
	t_call(t, "route.add", "{\"prefix\": \"10.1.0.0/16\", \"nexthop\": "
		 "\"10.0.1.1,10.0.1.3\", \"replace\": true}");
	assert_int_equal(rte_lpm_lookup(fc->fib->lpm, t_ip("10.1.0.1"), &v), 0);
	lsw_ecmp_counters(&t->sw, false, v, &c);
	assert_int_equal(c.member[0].pkts + c.member[1].pkts, 0);
	assert_int_not_equal(route_of(t, "10.1.2.3", NULL), -1);
	t_switch_free(t);
}

static void
test_neighbor_add_del(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct rte_ether_addr mac;

	(void)state;
	/* Unresolved: the packet waits for ARP (held), nothing leaves but the request. */
	uint64_t held = t_event(t, LSW_EV_NEIGH_HELD);
	route_of(t, "192.168.5.9", NULL);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), held + 1);

	t_call(t, "neighbor.add", "{\"port\": \"Ethernet12\", \"ip\": \"192.168.5.9\", "
		 "\"mac\": \"02:00:00:00:0c:09\"}");
	assert_int_equal(route_of(t, "192.168.5.9", &mac), T_PORT12);
	assert_true(mac_is(&mac, "02:00:00:00:0c:09"));
	assert_true(has_route(t, "192.168.5.9/32"));

	/* A new MAC in place (replace), no unresolved moment. */
	t_refused(t, "neighbor.add", "{\"port\": \"Ethernet12\", \"ip\": \"192.168.5.9\", "
		     "\"mac\": \"02:00:00:00:0c:0a\"}",
		  "$.params.ip");
	t_call(t, "neighbor.add", "{\"port\": \"Ethernet12\", \"ip\": \"192.168.5.9\", "
		 "\"mac\": \"02:00:00:00:0c:0a\", \"replace\": true}");
	assert_int_equal(route_of(t, "192.168.5.9", &mac), T_PORT12);
	assert_true(mac_is(&mac, "02:00:00:00:0c:0a"));

	t_call(t, "neighbor.del", "{\"port\": \"Ethernet12\", \"ip\": \"192.168.5.9\"}");
	assert_false(has_route(t, "192.168.5.9/32"));
	assert_int_equal(lsw_fibctl_nh_find(t->sw.fibc, t_ip("192.168.5.9")), -1);
	held = t_event(t, LSW_EV_NEIGH_HELD);
	route_of(t, "192.168.5.9", NULL);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), held + 1);

	/* A static neighbor that routes use: it stays as a next hop, unresolved. */
	t_call(t, "neighbor.del", "{\"port\": \"Ethernet4\", \"ip\": \"10.0.1.1\"}");
	int id = lsw_fibctl_nh_find(t->sw.fibc, t_ip("10.0.1.1"));
	assert_true(id >= 0);
	assert_int_equal(t->sw.fibc->meta[id].state, LSW_NH_INCOMPLETE);
	assert_int_equal(t->sw.fibc->fib->nh[id].mac, 0);

	/* Refusals name the field. */
	t_refused(t, "neighbor.del", "{\"port\": \"Ethernet99\", \"ip\": \"10.0.1.1\"}",
		  "$.params.port");
	t_refused(t, "neighbor.add", "{\"port\": \"Ethernet4\", \"ip\": \"10.9.9.9\", "
		     "\"mac\": \"02:00:00:00:00:09\"}",
		  "$.NEIGH['Ethernet4|10.9.9.9']");
	t_refused(t, "neighbor.add", "{\"port\": \"Ethernet4\", \"ip\": \"10.0.1.1\", "
		     "\"mac\": \"zz\"}",
		  "$.params.mac");
	t_switch_free(t);
}

static void
test_addresses(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct lsw_fibctl *fc = t->sw.fibc;

	(void)state;
	t_call(t, "config.set", "{\"config\": {\"INTERFACE\": {\"Ethernet12|172.16.0.1/24\": "
		 "{}}}}");
	assert_true(has_route(t, "172.16.0.0/24"));
	assert_true(has_route(t, "172.16.0.1/32"));
	/* A packet to the new subnet gleans on Ethernet12. */
	uint64_t held = t_event(t, LSW_EV_NEIGH_HELD);
	route_of(t, "172.16.0.5", NULL);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), held + 1);

	/* Removing the subnet a route's next hop is on is refused, and nothing changes. */
	uint32_t routes = fc->n_routes;
	t_refused(t, "config.set", "{\"config\": {\"INTERFACE\": "
		     "{\"Ethernet12|192.168.5.1/24\": null}}}",
		  "$.STATIC_ROUTE['10.4.0.0/16'].nexthop");
	assert_int_equal(fc->n_routes, routes);
	assert_true(has_route(t, "192.168.5.0/24"));

	/* With the route gone too, the address goes with its connected subnet. */
	t_call(t, "config.set", "{\"config\": {\"INTERFACE\": {\"Ethernet12|192.168.5.1/24\": "
		 "null}, \"STATIC_ROUTE\": {\"10.4.0.0/16\": null}}}");
	assert_false(has_route(t, "192.168.5.0/24"));
	assert_false(has_route(t, "192.168.5.1/32"));
	assert_int_equal(fc->n_routes, routes - 3);
	t_switch_free(t);
}

/* Changes that move things in one config.set: a subnet (with its neighbor and the route
 * through it) to another port, a static route replaced by a connected subnet, a static
 * /32 over a resolved neighbor deleted. Each ends with traffic where the config says. */
static void
test_moves(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct rte_ether_addr mac;
	json_t *resp;

	(void)state;
	t_call(t, "neighbor.add", "{\"port\": \"Ethernet12\", \"ip\": \"192.168.5.77\", "
	       "\"mac\": \"02:00:00:00:0c:4d\"}");
	assert_int_equal(route_of(t, "10.4.1.1", &mac), T_PORT12);
	t_call(t, "config.set", "{\"config\": {\"INTERFACE\": {\"Ethernet12|192.168.5.1/24\": "
	       "null, \"Ethernet8|192.168.5.1/24\": {}}, \"NEIGH\": {\"Ethernet12|192.168.5.77\":"
	       " null, \"Ethernet8|192.168.5.77\": {\"neigh\": \"02:00:00:00:08:4d\"}}}}");
	assert_int_equal(route_of(t, "10.4.1.1", &mac), T_PORT8);
	assert_true(mac_is(&mac, "02:00:00:00:08:4d"));
	int id = lsw_fibctl_nh_find(t->sw.fibc, t_ip("192.168.5.77"));
	assert_int_equal(t->sw.fibc->fib->nh[id].port, T_PORT8);
	assert_int_equal(t->sw.fibc->meta[id].refs, 1);

	/* The static route goes and its prefix becomes a connected subnet, in one change. */
	t_call(t, "config.set", "{\"config\": {\"STATIC_ROUTE\": {\"10.4.0.0/16\": null}, "
	       "\"INTERFACE\": {\"Ethernet12|10.4.0.1/16\": {}}}}");
	json_t *r = route_entry(t, "10.4.0.0/16", &resp);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "type")), "connected");
	json_decref(resp);
	uint64_t held = t_event(t, LSW_EV_NEIGH_HELD);
	route_of(t, "10.4.3.3", NULL);
	assert_int_equal(t_event(t, LSW_EV_NEIGH_HELD), held + 1);
	assert_int_equal(lsw_fibctl_nh_find(t->sw.fibc, t_ip("192.168.5.77")), id); /* static */

	/* A static /32 over a resolved neighbor: deleted, the neighbor's host route is back. */
	t_call(t, "route.add", "{\"prefix\": \"10.0.1.1/32\", \"nexthop\": \"10.0.1.3\"}");
	assert_int_equal(route_of(t, "10.0.1.1", NULL), T_PORT8);
	t_call(t, "route.del", "{\"prefix\": \"10.0.1.1/32\"}");
	assert_int_equal(route_of(t, "10.0.1.1", &mac), T_PORT4);
	assert_true(mac_is(&mac, "02:00:00:00:04:01"));
	r = route_entry(t, "10.0.1.1/32", &resp);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "type")), "neighbor");
	json_decref(resp);
	t_switch_free(t);
}

/* @n ECMP routes 10.64.0.0/24 onwards, each over @nh of the three next hops on
 * Ethernet4/8/12's subnets (and 10.0.1.1 first): a config.set patch. */
static char *
many_routes(unsigned int n, unsigned int nh)
{
	static const char *const hops[] = {"10.0.1.1", "10.0.1.3", "192.168.5.77"};
	size_t cap = 64 + (size_t)n * 96, len;
	char *p = malloc(cap);

	len = (size_t)snprintf(p, cap, "{\"config\": {\"STATIC_ROUTE\": {");
	for (unsigned int i = 0; i < n; i++) {
		len += (size_t)snprintf(p + len, cap - len, "%s\"10.%u.%u.0/24\": {\"nexthop\": \"",
					i ? ", " : "", 64 + i / 256, i % 256);
		for (unsigned int k = 0; k < nh; k++)
			len += (size_t)snprintf(p + len, cap - len, "%s%s", k ? "," : "", hops[k]);
		len += (size_t)snprintf(p + len, cap - len, "\"}");
	}
	snprintf(p + len, cap - len, "}}}");
	return p;
}

/* A change that would run out of group ids half-way is refused whole, before anything
 * changes; the same change in two steps fits. Renumbering an address keeps its subnet. */
static void
test_capacity(void **state)
{
	struct t_switch *t = t_switch_new(T_CONFIG);
	struct lsw_fibctl *fc = t->sw.fibc;
	char *two = many_routes(2100, 2), *three = many_routes(2100, 3);
	struct rte_ether_addr mac;

	(void)state;
	t_call(t, "config.set", two);
	uint32_t routes = fc->n_routes, next = fc->next_group;
	/* Every group replaced at once: 2100 new ids while the 2100 old ones are held. */
	json_t *resp = t_rpc(t, "config.set", three);
	assert_non_null(json_object_get(resp, "error"));
	json_decref(resp);
	assert_int_equal(fc->n_routes, routes);
	assert_int_equal(fc->next_group, next);
	assert_int_equal(fc->n_dead_gid, 0);
	assert_int_not_equal(route_of(t, "10.64.3.1", &mac), -1);
	resp = t_rpc(t, "config.get", NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		json_object_get(resp, "result"), "STATIC_ROUTE"), "10.64.0.0/24"), "nexthop")),
		"10.0.1.1,10.0.1.3");
	json_decref(resp);
	/* Half first (the old groups come back after the grace period), then the rest. */
	char *half = many_routes(1050, 3);
	t_call(t, "config.set", half);
	t_call(t, "config.set", three);
	assert_int_equal(fc->n_routes, routes);
	free(half);
	free(two);
	free(three);

	/* Renumbered: the subnet stays (overwritten in place), the address changes. */
	t_call(t, "config.set", "{\"config\": {\"INTERFACE\": {\"Ethernet12|192.168.5.1/24\": "
	       "null, \"Ethernet12|192.168.5.2/24\": {}}}}");
	json_t *r = route_entry(t, "192.168.5.0/24", &resp);
	assert_non_null(r);
	json_decref(resp);
	assert_false(has_route(t, "192.168.5.1/32"));
	assert_true(has_route(t, "192.168.5.2/32"));
	t_switch_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_add_replace_del),
		cmocka_unit_test(test_group_reclaim),
		cmocka_unit_test(test_neighbor_add_del),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_capacity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
