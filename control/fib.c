/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include "lsw/log.h"
#include "fib.h"

struct lsw_fibctl *
lsw_fibctl_create(struct rte_rcu_qsbr *qsv, const char *name)
{
	struct lsw_fibctl *fc = calloc(1, sizeof(*fc));
	char n[RTE_HASH_NAMESIZE];

	if (fc == NULL)
		return NULL;
	fc->fib = rte_zmalloc("lsw_fib", sizeof(*fc->fib), RTE_CACHE_LINE_SIZE);
	struct rte_lpm_config lc = {
		.max_rules = LSW_MAX_ROUTES,
		.number_tbl8s = 4096, /* /25-/32 rules, neighbors' host routes among them */
	};
	snprintf(n, sizeof(n), "%s_lpm", name);
	if (fc->fib != NULL)
		fc->fib->lpm = rte_lpm_create(n, SOCKET_ID_ANY, &lc);
	snprintf(n, sizeof(n), "%s_nh", name);
	struct rte_hash_parameters hp = {
		.name = n, .entries = LSW_MAX_NH, .key_len = sizeof(uint32_t),
		.hash_func = rte_jhash, .socket_id = SOCKET_ID_ANY,
	};
	fc->nh_by_ip = rte_hash_create(&hp);
	if (fc->fib == NULL || fc->fib->lpm == NULL || fc->nh_by_ip == NULL)
		goto fail;
	if (qsv != NULL) {
		/* Deletes wait for a grace period, so a worker never reads a freed tbl8. */
		struct rte_lpm_rcu_config rc = {.v = qsv, .mode = RTE_LPM_QSBR_MODE_SYNC};
		if (rte_lpm_rcu_qsbr_add(fc->fib->lpm, &rc) != 0)
			goto fail;
	}
	static struct lsw_nhg local = {.type = LSW_NHG_LOCAL};
	static struct lsw_nhg blackhole = {.type = LSW_NHG_BLACKHOLE};
	fc->fib->group[LSW_NHG_ID_LOCAL] = &local;
	fc->fib->group[LSW_NHG_ID_BLACKHOLE] = &blackhole;
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		struct lsw_nhg *g = rte_zmalloc("lsw_nhg", sizeof(*g), 0);
		if (g == NULL)
			goto fail;
		g->type = LSW_NHG_GLEAN;
		g->port = p;
		fc->fib->group[LSW_NHG_ID_GLEAN0 + p] = g;
	}
	fc->next_group = LSW_NHG_ID_FIRST_FREE;
	return fc;
fail:
	lsw_fibctl_destroy(fc);
	return NULL;
}

void
lsw_fibctl_destroy(struct lsw_fibctl *fc)
{
	if (fc == NULL)
		return;
	if (fc->fib != NULL) {
		rte_lpm_free(fc->fib->lpm);
		for (uint32_t g = LSW_NHG_ID_GLEAN0; g < LSW_MAX_NHG; g++)
			rte_free(fc->fib->group[g]);
		rte_free(fc->fib);
	}
	rte_hash_free(fc->nh_by_ip);
	free(fc->routes);
	free(fc);
}

static struct lsw_route *
route_find(struct lsw_fibctl *fc, uint32_t prefix, uint8_t plen)
{
	for (uint32_t i = 0; i < fc->n_routes; i++)
		if (fc->routes[i].prefix == prefix && fc->routes[i].plen == plen)
			return &fc->routes[i];
	return NULL;
}

static int
route_add(struct lsw_fibctl *fc, uint32_t prefix, uint8_t plen, uint8_t kind, uint16_t port,
	  uint32_t value)
{
	if (fc->n_routes == fc->cap) {
		uint32_t cap = fc->cap ? fc->cap * 2 : 64;
		struct lsw_route *r = realloc(fc->routes, cap * sizeof(*r));
		if (r == NULL)
			return -1;
		fc->routes = r;
		fc->cap = cap;
	}
	if (rte_lpm_add(fc->fib->lpm, prefix, plen, value) != 0)
		return -1;
	fc->routes[fc->n_routes++] = (struct lsw_route){
		.prefix = prefix, .plen = plen, .kind = kind, .port = port, .value = value,
	};
	return 0;
}

int
lsw_fibctl_nh_find(const struct lsw_fibctl *fc, uint32_t ip)
{
	void *data;

	if (rte_hash_lookup_data(fc->nh_by_ip, &ip, &data) < 0)
		return -1;
	return (int)(uintptr_t)data;
}

/* The next hop for @ip on @port, created unresolved if new. */
static int
nh_get(struct lsw_fibctl *fc, uint32_t ip, uint16_t port)
{
	int id = lsw_fibctl_nh_find(fc, ip);

	if (id >= 0)
		return id;
	for (id = 0; id < LSW_MAX_NH; id++)
		if (fc->meta[id].state == LSW_NH_FREE)
			break;
	if (id == LSW_MAX_NH)
		return -1;
	struct lsw_nh *nh = &fc->fib->nh[id];
	nh->ip = ip;
	nh->port = port;
	__atomic_store_n(&nh->mac, 0, __ATOMIC_RELEASE);
	if (rte_hash_add_key_data(fc->nh_by_ip, &ip, (void *)(uintptr_t)id) < 0)
		return -1;
	fc->meta[id] = (struct lsw_nh_meta){.state = LSW_NH_INCOMPLETE};
	return id;
}

/* Resolve next hop @id to @mac and give it a /32 host route unless a configured route
 * already covers exactly that address. */
static int
nh_resolve(struct lsw_fibctl *fc, int id, uint64_t mac, uint8_t state, uint64_t now_ns)
{
	struct lsw_nh *nh = &fc->fib->nh[id];
	struct lsw_nh_meta *m = &fc->meta[id];

	__atomic_store_n(&nh->mac, mac | LSW_NH_MAC_VALID, __ATOMIC_RELEASE);
	m->state = state;
	m->updated_ns = now_ns;
	if (m->host_route || route_find(fc, nh->ip, 32) != NULL)
		return 0;
	if (route_add(fc, nh->ip, 32, LSW_RT_NEIGH, nh->port, LSW_FIB_NH_BIT | (uint32_t)id) != 0)
		return -1;
	m->host_route = true;
	return 0;
}

int
lsw_fibctl_neigh_learn(struct lsw_fibctl *fc, uint32_t ip, uint16_t port, uint64_t mac,
		       bool update_only, uint64_t now_ns)
{
	int id = lsw_fibctl_nh_find(fc, ip);

	mac &= ~LSW_NH_MAC_VALID;
	if (id >= 0) {
		struct lsw_nh_meta *m = &fc->meta[id];
		if (m->state == LSW_NH_STATIC || fc->fib->nh[id].port != port)
			return 0;
		if (update_only && m->state != LSW_NH_LEARNED)
			return 0;
		bool changed = m->state != LSW_NH_LEARNED ||
			       (fc->fib->nh[id].mac & ~LSW_NH_MAC_VALID) != mac;
		m->updated_ns = now_ns;
		if (!changed)
			return 0;
	} else {
		if (update_only)
			return 0;
		id = nh_get(fc, ip, port);
		if (id < 0)
			return -1;
	}
	return nh_resolve(fc, id, mac, LSW_NH_LEARNED, now_ns) == 0 ? 1 : -1;
}

static uint32_t
static_route_value(struct lsw_fibctl *fc, const struct lsw_route_conf *r)
{
	uint32_t ids[LSW_MAX_ECMP];

	if (r->blackhole)
		return LSW_NHG_ID_BLACKHOLE;
	for (unsigned int i = 0; i < r->n_nh; i++) {
		int id = nh_get(fc, r->nh_ip[i], r->nh_port[i]);
		if (id < 0)
			return UINT32_MAX;
		fc->meta[id].refs++;
		ids[i] = (uint32_t)id;
	}
	if (r->n_nh == 1)
		return LSW_FIB_NH_BIT | ids[0];
	if (fc->next_group == LSW_MAX_NHG)
		return UINT32_MAX;
	struct lsw_nhg *g = rte_zmalloc("lsw_nhg", sizeof(*g), 0);
	if (g == NULL)
		return UINT32_MAX;
	g->type = LSW_NHG_FORWARD;
	g->n = r->n_nh;
	memcpy(g->member, ids, r->n_nh * sizeof(ids[0]));
	uint32_t gid = fc->next_group++;
	__atomic_store_n(&fc->fib->group[gid], g, __ATOMIC_RELEASE);
	return gid;
}

int
lsw_fibctl_load(struct lsw_fibctl *fc, const struct lsw_config *c)
{
	for (uint16_t p = 0; p < c->n_ports; p++) {
		for (unsigned int i = 0; i < c->port[p].n_addr; i++) {
			const struct lsw_addr *a = &c->port[p].addr[i];
			if (route_add(fc, a->ip, 32, LSW_RT_LOCAL, p, LSW_NHG_ID_LOCAL) != 0)
				goto fail;
			if (a->plen < 32 &&
			    route_add(fc, a->ip & lsw_prefix_mask(a->plen), a->plen,
				      LSW_RT_CONNECTED, p, LSW_NHG_ID_GLEAN0 + p) != 0)
				goto fail;
		}
	}
	for (uint32_t i = 0; i < c->n_routes; i++) {
		const struct lsw_route_conf *r = &c->routes[i];
		uint32_t v = static_route_value(fc, r);
		if (v == UINT32_MAX || route_add(fc, r->prefix, r->plen, LSW_RT_STATIC, 0, v) != 0)
			goto fail;
	}
	for (uint32_t i = 0; i < c->n_neighs; i++) {
		const struct lsw_neigh_conf *n = &c->neighs[i];
		int id = nh_get(fc, n->ip, n->port);
		if (id < 0 || nh_resolve(fc, id, lsw_mac_to_u64(&n->mac), LSW_NH_STATIC, 0) != 0)
			goto fail;
	}
	return 0;
fail:
	LSW_LOG(ERR, "FIB: could not install the configured routes (%u installed): "
		"table full", fc->n_routes);
	return -1;
}
