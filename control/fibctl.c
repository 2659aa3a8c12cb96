/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include "lsw/log.h"
#include "fibctl.h"

const char *const lsw_route_kind_names[] = {
	[LSW_RT_CONNECTED] = "connected", [LSW_RT_LOCAL] = "local",
	[LSW_RT_STATIC] = "static", [LSW_RT_NEIGH] = "neighbor",
};
const char *const lsw_nh_state_names[] = {
	[LSW_NH_FREE] = "free", [LSW_NH_INCOMPLETE] = "incomplete",
	[LSW_NH_LEARNED] = "learned", [LSW_NH_STATIC] = "static",
	[LSW_NH_RECLAIM] = "reclaim",
};

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

static void nh_kill(struct lsw_fibctl *fc, uint32_t id);

/* The next hop for @ip on @port, created unresolved if new. */
static int
nh_get(struct lsw_fibctl *fc, uint32_t ip, uint16_t port)
{
	int id = lsw_fibctl_nh_find(fc, ip);

	if (id >= 0 && fc->fib->nh[id].port == port)
		return id;
	/* Its subnet moved to another port: a new next hop there. The routes through the old
	 * one move to the new one in the same update (their next-hop port changed too). */
	if (id >= 0)
		nh_kill(fc, (uint32_t)id);
	for (id = 0; id < LSW_MAX_NH; id++)
		if (fc->meta[id].state == LSW_NH_FREE)
			break;
	if (id == LSW_MAX_NH)
		return -1;
	struct lsw_nh *nh = &fc->fib->nh[id];
	nh->ip = ip;
	nh->port = port;
	lsw_publish(&nh->mac, 0);
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

	lsw_publish(&nh->mac, mac | LSW_NH_MAC_VALID);
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
	unsigned int taken = 0;
	for (; taken < r->n_nh; taken++) {
		int id = nh_get(fc, r->nh_ip[taken], r->nh_port[taken]);
		if (id < 0)
			goto fail;
		fc->meta[id].refs++;
		ids[taken] = (uint32_t)id;
	}
	if (r->n_nh == 1)
		return LSW_FIB_NH_BIT | ids[0];
	uint32_t gid = LSW_NHG_ID_FIRST_FREE;
	while (gid < LSW_MAX_NHG && fc->fib->group[gid] != NULL)
		gid++;
	struct lsw_nhg *g = gid < LSW_MAX_NHG ? rte_zmalloc("lsw_nhg", sizeof(*g), 0) : NULL;
	if (g == NULL)
		goto fail;
	g->type = LSW_NHG_FORWARD;
	g->n = r->n_nh;
	memcpy(g->member, ids, r->n_nh * sizeof(ids[0]));
	if (gid >= fc->next_group)
		fc->next_group = gid + 1;
	lsw_publish(&fc->fib->group[gid], g);
	return gid;
fail:
	while (taken-- > 0)
		fc->meta[ids[taken]].refs--;
	return UINT32_MAX;
}

/* Take @route's list entry out, and its prefix out of the LPM. */
static void
route_remove(struct lsw_fibctl *fc, struct lsw_route *r)
{
	rte_lpm_delete(fc->fib->lpm, r->prefix, r->plen);
	*r = fc->routes[--fc->n_routes];
}

static void
route_del(struct lsw_fibctl *fc, uint32_t prefix, uint8_t plen, uint8_t kind)
{
	struct lsw_route *r = route_find(fc, prefix, plen);

	if (r != NULL && r->kind == kind)
		route_remove(fc, r);
}

/* A static route's value is no longer used: its next hops lose a reference, its group is
 * freed after the grace period (lsw_fibctl_reclaim): a worker may still hold its id. */
static void
value_release(struct lsw_fibctl *fc, uint32_t v)
{
	if (v & LSW_FIB_NH_BIT) {
		fc->meta[v & ~LSW_FIB_NH_BIT].refs--;
		return;
	}
	if (v < LSW_NHG_ID_FIRST_FREE)
		return;
	const struct lsw_nhg *g = fc->fib->group[v];
	for (unsigned int i = 0; i < g->n; i++)
		fc->meta[g->member[i]].refs--;
	fc->dead_gid[fc->n_dead_gid++] = v;
}

/* Forget next hop @id: its host route now, its slot after the grace period. */
static void
nh_kill(struct lsw_fibctl *fc, uint32_t id)
{
	struct lsw_nh_meta *m = &fc->meta[id];
	uint32_t ip = fc->fib->nh[id].ip;

	if (m->host_route)
		route_del(fc, ip, 32, LSW_RT_NEIGH);
	rte_hash_del_key(fc->nh_by_ip, &ip);
	m->state = LSW_NH_RECLAIM;
	m->host_route = false;
	fc->dead_nh[fc->n_dead_nh++] = id;
}

static const struct lsw_route_conf *
conf_route(const struct lsw_config *c, uint32_t prefix, uint8_t plen)
{
	for (uint32_t i = 0; c != NULL && i < c->n_routes; i++)
		if (c->routes[i].prefix == prefix && c->routes[i].plen == plen)
			return &c->routes[i];
	return NULL;
}

/* @c's entry for @n's address on @n's port, with the same MAC if @mac_too. */
static const struct lsw_neigh_conf *
conf_neigh(const struct lsw_config *c, const struct lsw_neigh_conf *n, bool mac_too)
{
	for (uint32_t i = 0; c != NULL && i < c->n_neighs; i++)
		if (c->neighs[i].ip == n->ip && c->neighs[i].port == n->port &&
		    (!mac_too || rte_is_same_ether_addr(&c->neighs[i].mac, &n->mac)))
			return &c->neighs[i];
	return NULL;
}

static bool
conf_has_addr(const struct lsw_config *c, uint16_t port, const struct lsw_addr *a)
{
	if (c == NULL || port >= c->n_ports)
		return false;
	for (unsigned int i = 0; i < c->port[port].n_addr; i++)
		if (c->port[port].addr[i].ip == a->ip && c->port[port].addr[i].plen == a->plen)
			return true;
	return false;
}

static bool
on_port(const struct lsw_config *c, uint16_t port, uint32_t ip)
{
	bool own;

	return lsw_config_on_link_port(c, ip, &own) == port;
}

/* @c has the address @ip (@plen 32), or a subnet @ip/@plen, on any port. */
static bool
conf_has_prefix(const struct lsw_config *c, uint32_t ip, uint8_t plen)
{
	for (uint16_t p = 0; c != NULL && p < c->n_ports; p++)
		for (unsigned int i = 0; i < c->port[p].n_addr; i++) {
			const struct lsw_addr *a = &c->port[p].addr[i];
			if (plen == 32 ? a->ip == ip :
			    a->plen == plen && (a->ip & lsw_prefix_mask(plen)) == ip)
				return true;
		}
	return false;
}

/* The FIB already forwards @r as it says (same next hops, in order, on the same ports). */
static bool
installed(const struct lsw_fibctl *fc, const struct lsw_route *fr,
	  const struct lsw_route_conf *r)
{
	const uint32_t *ids;
	uint32_t one, n;

	if (fr == NULL || fr->kind != LSW_RT_STATIC)
		return false;
	if (r->blackhole || fr->value == LSW_NHG_ID_BLACKHOLE)
		return r->blackhole && fr->value == LSW_NHG_ID_BLACKHOLE;
	if (fr->value & LSW_FIB_NH_BIT) {
		one = fr->value & ~LSW_FIB_NH_BIT;
		ids = &one;
		n = 1;
	} else {
		ids = fc->fib->group[fr->value]->member;
		n = fc->fib->group[fr->value]->n;
	}
	if (n != r->n_nh)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const struct lsw_nh *nh = &fc->fib->nh[ids[i]];
		if (nh->ip != r->nh_ip[i] || nh->port != r->nh_port[i] ||
		    fc->meta[ids[i]].state == LSW_NH_RECLAIM)
			return false;
	}
	return true;
}

/* A next hop for @ip on @port exists (else nh_get takes a slot). */
static bool
has_nh(const struct lsw_fibctl *fc, uint32_t ip, uint16_t port)
{
	int id = lsw_fibctl_nh_find(fc, ip);

	return id >= 0 && fc->fib->nh[id].port == port;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether @n's routes and neighbors fit the free group ids and next-hop slots, counted
 * before anything changes: a change must not stop half-way for want of either (what it
 * lets go of is only free after the grace period). */
static bool
room_for(const struct lsw_fibctl *fc, const struct lsw_config *n)
{
	uint32_t free_g = 0, free_nh = 0, need_g = 0, n_ips = 0, need_nh = 0;
	uint32_t *ips = malloc(sizeof(*ips) * (n->n_routes * LSW_MAX_ECMP + n->n_neighs + 1));

	if (ips == NULL)
		return false;
	for (uint32_t g = LSW_NHG_ID_FIRST_FREE; g < LSW_MAX_NHG; g++)
		free_g += fc->fib->group[g] == NULL;
	for (uint32_t id = 0; id < LSW_MAX_NH; id++)
		free_nh += fc->meta[id].state == LSW_NH_FREE;
	for (uint32_t i = 0; i < n->n_routes; i++) {
		const struct lsw_route_conf *r = &n->routes[i];
		if (installed(fc, route_find((struct lsw_fibctl *)fc, r->prefix, r->plen), r))
			continue;
		need_g += r->n_nh > 1;
		for (unsigned int k = 0; k < r->n_nh; k++)
			if (!has_nh(fc, r->nh_ip[k], r->nh_port[k]))
				ips[n_ips++] = r->nh_ip[k];
	}
	for (uint32_t i = 0; i < n->n_neighs; i++)
		if (!has_nh(fc, n->neighs[i].ip, n->neighs[i].port))
			ips[n_ips++] = n->neighs[i].ip;
	/* Distinct addresses that need a next hop slot. */
	qsort(ips, n_ips, sizeof(*ips), cmp_u32);
	for (uint32_t i = 0; i < n_ips; i++)
		if (i == 0 || ips[i] != ips[i - 1])
			need_nh++;
	free(ips);
	return need_g <= free_g && need_nh <= free_nh;
}

/* Install @prefix/@plen, overwriting in place whatever route has it now (the LPM rule is
 * replaced, never missing). */
static int
route_set(struct lsw_fibctl *fc, uint32_t prefix, uint8_t plen, uint8_t kind, uint16_t port,
	  uint32_t value)
{
	struct lsw_route *r = route_find(fc, prefix, plen);

	if (r == NULL)
		return route_add(fc, prefix, plen, kind, port, value);
	if (rte_lpm_add(fc->fib->lpm, prefix, plen, value) != 0)
		return -1;
	if (r->kind == LSW_RT_STATIC)
		value_release(fc, r->value);
	else if (r->kind == LSW_RT_NEIGH)
		fc->meta[r->value & ~LSW_FIB_NH_BIT].host_route = false;
	*r = (struct lsw_route){.prefix = prefix, .plen = plen, .kind = kind, .port = port,
				.value = value};
	return 0;
}

/* Removals first, so that an addition never lands on a prefix a removal then deletes. */
static void
remove_old(struct lsw_fibctl *fc, const struct lsw_config *o, const struct lsw_config *n)
{
	for (uint16_t p = 0; p < o->n_ports; p++)
		for (unsigned int i = 0; i < o->port[p].n_addr; i++) {
			const struct lsw_addr *a = &o->port[p].addr[i];
			if (conf_has_addr(n, p, a))
				continue;
			/* One that stays (on this port or another) is overwritten in place
			 * below. */
			if (!conf_has_prefix(n, a->ip, 32))
				route_del(fc, a->ip, 32, LSW_RT_LOCAL);
			if (!conf_has_prefix(n, a->ip & lsw_prefix_mask(a->plen), a->plen))
				route_del(fc, a->ip & lsw_prefix_mask(a->plen), a->plen,
					  LSW_RT_CONNECTED);
		}
	for (uint32_t i = 0; i < o->n_routes; i++) {
		const struct lsw_route_conf *r = &o->routes[i];
		struct lsw_route *fr = route_find(fc, r->prefix, r->plen);
		if (conf_route(n, r->prefix, r->plen) != NULL || fr == NULL ||
		    fr->kind != LSW_RT_STATIC)
			continue;
		int id = r->plen == 32 ? lsw_fibctl_nh_find(fc, r->prefix) : -1;
		uint8_t st = id >= 0 ? fc->meta[id].state : LSW_NH_FREE;
		if (st == LSW_NH_LEARNED || st == LSW_NH_STATIC) {
			/* A resolved neighbor under the /32: its host route takes over. */
			route_set(fc, r->prefix, 32, LSW_RT_NEIGH, fc->fib->nh[id].port,
				  LSW_FIB_NH_BIT | (uint32_t)id);
			fc->meta[id].host_route = true;
			continue;
		}
		value_release(fc, fr->value);
		route_remove(fc, fr);
	}
	/* Static neighbors gone (or moved to another port) go back to unresolved, so that ARP
	 * takes over for the routes using them; nh_gc forgets the ones no route uses. A new
	 * MAC on the same port is written in place below, with no unresolved moment. */
	for (uint32_t i = 0; i < o->n_neighs; i++) {
		int id = lsw_fibctl_nh_find(fc, o->neighs[i].ip);
		if (conf_neigh(n, &o->neighs[i], false) != NULL || id < 0 ||
		    fc->meta[id].state != LSW_NH_STATIC)
			continue;
		lsw_publish(&fc->fib->nh[id].mac, 0);
		fc->meta[id].state = LSW_NH_INCOMPLETE;
		if (fc->meta[id].host_route)
			route_del(fc, o->neighs[i].ip, 32, LSW_RT_NEIGH);
		fc->meta[id].host_route = false;
	}
}

static int
add_new(struct lsw_fibctl *fc, const struct lsw_config *o, const struct lsw_config *n,
	uint64_t now_ns)
{
	for (uint16_t p = 0; p < n->n_ports; p++)
		for (unsigned int i = 0; i < n->port[p].n_addr; i++) {
			const struct lsw_addr *a = &n->port[p].addr[i];
			if (conf_has_addr(o, p, a))
				continue;
			if (route_set(fc, a->ip, 32, LSW_RT_LOCAL, p, LSW_NHG_ID_LOCAL) != 0)
				return -1;
			if (a->plen < 32 &&
			    route_set(fc, a->ip & lsw_prefix_mask(a->plen), a->plen,
				      LSW_RT_CONNECTED, p, LSW_NHG_ID_GLEAN0 + p) != 0)
				return -1;
		}
	/* A changed static route is replaced in place: its traffic never sees it missing. */
	for (uint32_t i = 0; i < n->n_routes; i++) {
		const struct lsw_route_conf *r = &n->routes[i];
		/* Compared with the FIB, not with @o: a rollback then redoes only what the
		 * failed pass changed. */
		if (installed(fc, route_find(fc, r->prefix, r->plen), r))
			continue;
		uint32_t v = static_route_value(fc, r);
		if (v == UINT32_MAX)
			return -1;
		if (route_set(fc, r->prefix, r->plen, LSW_RT_STATIC, 0, v) != 0) {
			value_release(fc, v);
			return -1;
		}
	}
	for (uint32_t i = 0; i < n->n_neighs; i++) {
		const struct lsw_neigh_conf *nb = &n->neighs[i];
		if (conf_neigh(o, nb, true) != NULL)
			continue;
		int id = nh_get(fc, nb->ip, nb->port);
		if (id < 0 || nh_resolve(fc, id, lsw_mac_to_u64(&nb->mac), LSW_NH_STATIC,
					 now_ns) != 0)
			return -1;
	}
	return 0;
}

/* Next hops nothing needs any more: unresolved ones no route uses, learned ones no longer
 * on a subnet of their port. Resolved ones whose host route a deleted route uncovered get
 * it back. */
static int
nh_gc(struct lsw_fibctl *fc, const struct lsw_config *n)
{
	for (uint32_t id = 0; id < LSW_MAX_NH; id++) {
		struct lsw_nh_meta *m = &fc->meta[id];
		const struct lsw_nh *nh = &fc->fib->nh[id];
		if ((m->state == LSW_NH_INCOMPLETE && m->refs == 0) ||
		    (m->state == LSW_NH_LEARNED && m->refs == 0 && !on_port(n, nh->port, nh->ip)))
			nh_kill(fc, id);
		else if ((m->state == LSW_NH_LEARNED || m->state == LSW_NH_STATIC) &&
			 !m->host_route && route_find(fc, nh->ip, 32) == NULL) {
			if (route_add(fc, nh->ip, 32, LSW_RT_NEIGH, nh->port,
				      LSW_FIB_NH_BIT | id) != 0)
				return -1;
			m->host_route = true;
		}
	}
	return 0;
}

int
lsw_fibctl_update(struct lsw_fibctl *fc, const struct lsw_config *o, const struct lsw_config *n,
		  uint64_t now_ns)
{
	if (!room_for(fc, n)) {
		LSW_LOG(ERR, "FIB: not enough free next-hop groups or next hops for the change");
		return -2;
	}
	if (o != NULL)
		remove_old(fc, o, n);
	if (add_new(fc, o, n, now_ns) != 0 || nh_gc(fc, n) != 0) {
		LSW_LOG(ERR, "FIB: could not install the configured routes (%u installed): "
			"table full", fc->n_routes);
		return -1;
	}
	return 0;
}

int
lsw_fibctl_load(struct lsw_fibctl *fc, const struct lsw_config *c)
{
	return lsw_fibctl_update(fc, NULL, c, 0);
}

void
lsw_fibctl_reclaim(struct lsw_fibctl *fc)
{
	for (uint32_t i = 0; i < fc->n_dead_gid; i++) {
		uint32_t gid = fc->dead_gid[i];
		rte_free(fc->fib->group[gid]);
		fc->fib->group[gid] = NULL;
	}
	for (uint32_t i = 0; i < fc->n_dead_nh; i++)
		fc->meta[fc->dead_nh[i]] = (struct lsw_nh_meta){.state = LSW_NH_FREE};
	fc->n_dead_gid = fc->n_dead_nh = 0;
}
