/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 FIB's writer. Each change is computed whole: the routes the config and the
 * neighbors want, compared with what is installed, give a list of rule adds and deletes.
 * rte_fib6 has no RCU support in DPDK 22.11 (a delete or a replace rewrites and frees tbl8
 * groups under a concurrent lookup), so the list is applied to the standby table, which no
 * worker reads; the standby is published as active; after a grace period of the workers'
 * QSBR variable no worker reads the other one, and the same list is applied to it. A
 * failure on the standby is undone there, and the active table never saw it.
 *
 * A config change already waits for a grace period when it publishes its snapshot: it
 * begins the update (standby changed and made active), publishes, and ends it (the same
 * changes to the other table, groups and next hops freed) without a grace period of its
 * own, so that a route change costs one grace period, as IPv4's does. That matters when
 * workers share a CPU: a grace period then lasts until each has had its turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include "lsw/log.h"
#include "fib6ctl.h"

/* rte_jhash reads its key 4 bytes at a time, past an 18-byte key's end (ASan): padded to
 * 20, the pad always zero (every key is built with an initializer). */
struct nh_key {
	uint8_t ip[16];
	uint16_t port;
	uint16_t pad;
};
_Static_assert(sizeof(struct nh_key) % 4 == 0, "rte_jhash reads whole words");

/* A rule change: @r's prefix/plen to its value, or deleted (@del); @old what it was. The
 * route is a copy: the changes wait for the old table after the routes moved on. */
struct lsw_fib6_op {
	struct lsw_route6 r;
	bool del, had;
	uint32_t old;
};

struct lsw_fib6ctl *
lsw_fib6ctl_create(struct rte_rcu_qsbr *qsv, const char *name, uint32_t num_tbl8)
{
	struct lsw_fib6ctl *fc = calloc(1, sizeof(*fc));
	char n[RTE_HASH_NAMESIZE];

	if (fc == NULL)
		return NULL;
	fc->qsv = qsv;
	fc->fib = rte_zmalloc("lsw_fib6", sizeof(*fc->fib), RTE_CACHE_LINE_SIZE);
	fc->routes = malloc(sizeof(*fc->routes) * LSW_MAX_ROUTES6);
	fc->pending = malloc(sizeof(*fc->pending) * LSW_MAX_ROUTES6 * 2);
	if (fc->fib == NULL || fc->routes == NULL || fc->pending == NULL)
		goto fail;
	struct rte_fib6_conf conf = {
		.type = RTE_FIB6_TRIE,
		.default_nh = LSW_FIB6_MISS,
		.max_routes = LSW_MAX_ROUTES6,
		/* tbl8 ids share the 15 bits of a next hop: 32767 at most (16 MiB). A /128
		 * apart from others takes up to 13; those of one /64 share 5. */
		.trie = {.nh_sz = RTE_FIB6_TRIE_2B, .num_tbl8 = num_tbl8 ? num_tbl8 : 32767},
	};
	for (int t = 0; t < 2; t++) {
		snprintf(n, sizeof(n), "%s_fib6%c", name, 'a' + t);
		fc->fib->tbl[t] = rte_fib6_create(n, SOCKET_ID_ANY, &conf);
		if (fc->fib->tbl[t] == NULL)
			goto fail;
	}
	snprintf(n, sizeof(n), "%s_nh6", name);
	struct rte_hash_parameters hp = {
		.name = n, .entries = LSW_MAX_NH6, .key_len = sizeof(struct nh_key),
		.hash_func = rte_jhash, .socket_id = SOCKET_ID_ANY,
	};
	fc->nh_by_key = rte_hash_create(&hp);
	if (fc->nh_by_key == NULL)
		goto fail;
	static struct lsw_nhg local = {.type = LSW_NHG_LOCAL};
	static struct lsw_nhg blackhole = {.type = LSW_NHG_BLACKHOLE};
	fc->fib->group[LSW_NHG6_ID_LOCAL] = &local;
	fc->fib->group[LSW_NHG6_ID_BLACKHOLE] = &blackhole;
	for (uint16_t p = 0; p < LSW_MAX_PORTS; p++) {
		struct lsw_nhg *g = rte_zmalloc("lsw_nhg6", sizeof(*g), 0);
		if (g == NULL)
			goto fail;
		g->type = LSW_NHG_GLEAN;
		g->port = p;
		fc->fib->group[LSW_NHG6_ID_GLEAN0 + p] = g;
	}
	return fc;
fail:
	LSW_LOG(ERR, "cannot create the IPv6 FIB: %s", rte_strerror(rte_errno));
	lsw_fib6ctl_destroy(fc);
	return NULL;
}

void
lsw_fib6ctl_destroy(struct lsw_fib6ctl *fc)
{
	if (fc == NULL)
		return;
	if (fc->fib != NULL) {
		rte_fib6_free(fc->fib->tbl[0]);
		rte_fib6_free(fc->fib->tbl[1]);
		for (uint32_t g = LSW_NHG6_ID_GLEAN0; g < LSW_MAX_NHG6; g++)
			rte_free(fc->fib->group[g]);
		rte_free(fc->fib);
	}
	rte_hash_free(fc->nh_by_key);
	free(fc->routes);
	free(fc->pending);
	free(fc);
}

int
lsw_fib6ctl_nh_find(const struct lsw_fib6ctl *fc, const uint8_t *ip, uint16_t port)
{
	struct nh_key k = {.port = port};
	void *data;

	memcpy(k.ip, ip, 16);
	if (rte_hash_lookup_data(fc->nh_by_key, &k, &data) < 0)
		return -1;
	return (int)(uintptr_t)data;
}

/* The next hop for @ip on @port, created unresolved if new; -1 when none is free. */
static int
nh_get(struct lsw_fib6ctl *fc, const uint8_t *ip, uint16_t port)
{
	int id = lsw_fib6ctl_nh_find(fc, ip, port);

	if (id >= 0)
		return id;
	for (id = 0; id < LSW_MAX_NH6; id++)
		if (fc->meta[id].state == LSW_NH_FREE)
			break;
	if (id == LSW_MAX_NH6)
		return -1;
	struct lsw_nh6 *nh = &fc->fib->nh[id];
	struct nh_key k = {.port = port};
	memcpy(k.ip, ip, 16);
	/* Written before any rule or group names the id: the publish of either orders it. */
	memcpy(nh->ip, ip, 16);
	nh->port = port;
	lsw_publish(&nh->mac, 0);
	if (rte_hash_add_key_data(fc->nh_by_key, &k, (void *)(uintptr_t)id) < 0)
		return -1;
	fc->meta[id] = (struct lsw_nh_meta){.state = LSW_NH_INCOMPLETE};
	return id;
}

static int
cmp_route(const void *a, const void *b)
{
	const struct lsw_route6 *x = a, *y = b;
	int c = memcmp(x->prefix, y->prefix, 16);

	return c != 0 ? c : (int)x->plen - (int)y->plen;
}

static const struct lsw_route6 *
installed(const struct lsw_fib6ctl *fc, const uint8_t *prefix, uint8_t plen)
{
	struct lsw_route6 k = {.plen = plen};

	memcpy(k.prefix, prefix, 16);
	return bsearch(&k, fc->routes, fc->n_routes, sizeof(k), cmp_route);
}

/* The group of @ids, the installed one of @prefix if it has those members, else a new one
 * (UINT32_MAX: none free). A new group is published before any rule names it. */
static uint32_t
group_for(struct lsw_fib6ctl *fc, const struct lsw_route6_conf *r, const uint32_t *ids)
{
	const struct lsw_route6 *cur = installed(fc, r->prefix, r->plen);

	if (cur != NULL && cur->kind == LSW_RT_STATIC && !(cur->value & LSW_FIB6_NH_BIT) &&
	    cur->value >= LSW_NHG6_ID_FIRST_FREE) {
		const struct lsw_nhg *g = fc->fib->group[cur->value];
		if (g->n == r->n_nh && memcmp(g->member, ids, r->n_nh * sizeof(*ids)) == 0)
			return cur->value;
	}
	uint32_t gid = LSW_NHG6_ID_FIRST_FREE;
	while (gid < LSW_MAX_NHG6 && fc->fib->group[gid] != NULL)
		gid++;
	struct lsw_nhg *g = gid < LSW_MAX_NHG6 ? rte_zmalloc("lsw_nhg6", sizeof(*g), 0) : NULL;
	if (g == NULL)
		return UINT32_MAX;
	g->type = LSW_NHG_FORWARD;
	g->n = r->n_nh;
	memcpy(g->member, ids, r->n_nh * sizeof(*ids));
	lsw_publish(&fc->fib->group[gid], g);
	return gid;
}

/* The routes @n and the neighbors want, into @d (sorted); their count, or -1 when the next
 * hops or groups ran out. Next hops' references are counted anew. */
static int
want(struct lsw_fib6ctl *fc, const struct lsw_config *n, struct lsw_route6 *d, uint64_t now_ns)
{
	uint32_t nd = 0;
	bool own;

	for (uint32_t id = 0; id < LSW_MAX_NH6; id++)
		fc->meta[id].refs = 0;
	for (uint16_t p = 0; p < n->n_ports; p++)
		for (unsigned int i = 0; i < n->port[p].n_addr6; i++) {
			const struct lsw_addr6 *a = &n->port[p].addr6[i];
			d[nd] = (struct lsw_route6){.plen = 128, .kind = LSW_RT_LOCAL, .port = p,
						    .value = LSW_NHG6_ID_LOCAL};
			memcpy(d[nd++].prefix, a->ip, 16);
			if (a->plen == 128)
				continue;
			d[nd] = (struct lsw_route6){.plen = a->plen, .kind = LSW_RT_CONNECTED,
						    .port = p, .value = LSW_NHG6_ID_GLEAN0 + p};
			memcpy(d[nd].prefix, a->ip, 16);
			lsw_ip6_mask(d[nd++].prefix, a->plen);
		}
	for (uint32_t i = 0; i < n->n_routes6; i++) {
		const struct lsw_route6_conf *r = &n->routes6[i];
		uint32_t ids[LSW_MAX_ECMP], v = LSW_NHG6_ID_BLACKHOLE;
		for (unsigned int k = 0; k < r->n_nh; k++) {
			int id = nh_get(fc, r->nh_ip[k], r->nh_port[k]);
			if (id < 0)
				return -1;
			fc->meta[id].refs++;
			ids[k] = (uint32_t)id;
		}
		if (r->n_nh == 1)
			v = LSW_FIB6_NH_BIT | ids[0];
		else if (r->n_nh > 1 && (v = group_for(fc, r, ids)) == UINT32_MAX)
			return -1;
		d[nd] = (struct lsw_route6){.plen = r->plen, .kind = LSW_RT_STATIC, .value = v};
		memcpy(d[nd++].prefix, r->prefix, 16);
	}
	/* Static neighbors: resolved in place (a new MAC never leaves them unresolved);
	 * those the config dropped go back to unresolved, for NDP to take over. */
	static bool configured[LSW_MAX_NH6];
	memset(configured, 0, sizeof(configured));
	for (uint32_t i = 0; i < n->n_neighs6; i++) {
		const struct lsw_neigh6_conf *nb = &n->neighs6[i];
		int id = nh_get(fc, nb->ip, nb->port);
		if (id < 0)
			return -1;
		uint64_t mac = lsw_mac_to_u64(&nb->mac) | LSW_NH_MAC_VALID;
		if (fc->meta[id].state != LSW_NH_STATIC || fc->fib->nh[id].mac != mac)
			fc->meta[id].updated_ns = now_ns;
		lsw_publish(&fc->fib->nh[id].mac, mac);
		fc->meta[id].state = LSW_NH_STATIC;
		configured[id] = true;
	}
	for (uint32_t id = 0; id < LSW_MAX_NH6; id++)
		if (fc->meta[id].state == LSW_NH_STATIC && !configured[id]) {
			lsw_publish(&fc->fib->nh[id].mac, 0);
			fc->meta[id].state = LSW_NH_INCOMPLETE;
		}
	qsort(d, nd, sizeof(*d), cmp_route);
	/* Host routes of resolved neighbors on a subnet of their port, unless a configured
	 * route has that /128 (link-local ones have none: fe80::/64 is on every port). */
	uint32_t nconf = nd;
	for (uint32_t id = 0; id < LSW_MAX_NH6; id++) {
		const struct lsw_nh6 *nh = &fc->fib->nh[id];
		uint8_t st = fc->meta[id].state;
		if ((st != LSW_NH_LEARNED && st != LSW_NH_STATIC) || lsw_ip6_is_ll(nh->ip) ||
		    lsw_config_on_link_port6(n, nh->ip, &own) != nh->port || own)
			continue;
		struct lsw_route6 k = {.plen = 128};
		memcpy(k.prefix, nh->ip, 16);
		if (bsearch(&k, d, nconf, sizeof(k), cmp_route) != NULL)
			continue;
		if (nd == LSW_MAX_ROUTES6)
			return -1;
		d[nd] = k;
		d[nd].kind = LSW_RT_NEIGH;
		d[nd].port = nh->port;
		d[nd++].value = LSW_FIB6_NH_BIT | id;
	}
	qsort(d, nd, sizeof(*d), cmp_route);
	return (int)nd;
}

static int
apply_op(struct rte_fib6 *t, const struct lsw_fib6_op *o, bool undo)
{
	if (undo)
		return o->had ? rte_fib6_add(t, o->r.prefix, o->r.plen, o->old) :
				rte_fib6_delete(t, o->r.prefix, o->r.plen);
	return o->del ? rte_fib6_delete(t, o->r.prefix, o->r.plen) :
			rte_fib6_add(t, o->r.prefix, o->r.plen, o->r.value);
}

/* The changes from the installed routes to @d: deletes first, so that a table never holds
 * more rules than the larger of the two sets. */
static uint32_t
diff(const struct lsw_fib6ctl *fc, const struct lsw_route6 *d, uint32_t nd, struct lsw_fib6_op *ops)
{
	uint32_t i = 0, j = 0, n = 0;

	while (i < fc->n_routes || j < nd) {
		int c = i == fc->n_routes ? 1 : j == nd ? -1 : cmp_route(&fc->routes[i], &d[j]);
		if (c < 0) {
			ops[n++] = (struct lsw_fib6_op){.r = fc->routes[i], .del = true,
						       .had = true, .old = fc->routes[i].value};
			i++;
		} else if (c > 0) {
			j++;
		} else {
			i++;
			j++;
		}
	}
	for (i = 0, j = 0; j < nd; j++) {
		while (i < fc->n_routes && cmp_route(&fc->routes[i], &d[j]) < 0)
			i++;
		bool had = i < fc->n_routes && cmp_route(&fc->routes[i], &d[j]) == 0;
		if (!had || fc->routes[i].value != d[j].value)
			ops[n++] = (struct lsw_fib6_op){.r = d[j], .had = had,
						       .old = had ? fc->routes[i].value : 0};
	}
	return n;
}

/* Free what no installed rule names any more: groups, and next hops nothing uses. Only
 * after a grace period since the last rule naming them left the active table. */
static void
collect(struct lsw_fib6ctl *fc, const struct lsw_config *n)
{
	static bool used[LSW_MAX_NHG6];
	bool own;

	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < fc->n_routes; i++)
		if (!(fc->routes[i].value & LSW_FIB6_NH_BIT))
			used[fc->routes[i].value] = true;
	for (uint32_t g = LSW_NHG6_ID_FIRST_FREE; g < LSW_MAX_NHG6; g++)
		if (!used[g] && fc->fib->group[g] != NULL) {
			rte_free(fc->fib->group[g]);
			fc->fib->group[g] = NULL;
			fc->dead_gid[g / 64] |= UINT64_C(1) << (g % 64);
		}
	for (uint32_t id = 0; id < LSW_MAX_NH6; id++) {
		struct lsw_nh_meta *m = &fc->meta[id];
		struct lsw_nh6 *nh = &fc->fib->nh[id];
		if (m->refs != 0 || m->state == LSW_NH_FREE || m->state == LSW_NH_STATIC)
			continue;
		/* Learned: kept while on a subnet of its port (link-local: while a route used
		 * it; it was learned for one). */
		if (m->state == LSW_NH_LEARNED && !lsw_ip6_is_ll(nh->ip) &&
		    lsw_config_on_link_port6(n, nh->ip, &own) == nh->port && !own)
			continue;
		struct nh_key k = {.port = nh->port};
		memcpy(k.ip, nh->ip, 16);
		rte_hash_del_key(fc->nh_by_key, &k);
		lsw_publish(&nh->mac, 0);
		*m = (struct lsw_nh_meta){.state = LSW_NH_FREE};
	}
}

int
lsw_fib6ctl_update_begin(struct lsw_fib6ctl *fc, const struct lsw_config *n, uint64_t now_ns)
{
	struct lsw_route6 *d = malloc(sizeof(*d) * LSW_MAX_ROUTES6);
	struct lsw_fib6_op *ops = fc->pending;
	int nd = -1;
	uint32_t nops = 0, done = 0;

	/* An update not ended yet: its grace period first, so that the standby is whole. */
	if (fc->collect_cfg != NULL) {
		if (fc->n_pending != 0 && fc->qsv != NULL)
			rte_rcu_qsbr_synchronize(fc->qsv, RTE_QSBR_THRID_INVALID);
		lsw_fib6ctl_update_end(fc, fc->collect_cfg);
	}
	if (d == NULL || (nd = want(fc, n, d, now_ns)) < 0)
		goto fail;
	nops = diff(fc, d, (uint32_t)nd, ops);
	uint32_t a = lsw_load_relaxed(&fc->fib->active), s = a ^ 1;
	for (done = 0; done < nops; done++)
		if (apply_op(fc->fib->tbl[s], &ops[done], false) != 0)
			goto undo;
	if (nops != 0) {
		lsw_publish(&fc->fib->active, s);
		fc->swaps++;
		fc->ops += nops;
	}
	/* The old table catches up, and what no rule names goes, after a grace period. */
	fc->n_pending = nops;
	fc->collect_cfg = n;
	memcpy(fc->routes, d, sizeof(*d) * (uint32_t)nd);
	fc->n_routes = (uint32_t)nd;
	free(d);
	return 0;
undo:
	while (done-- > 0)
		apply_op(fc->fib->tbl[s], &ops[done], true);
	LSW_LOG(ERR, "FIB6: table full (%d routes wanted); nothing changed", nd);
fail:
	if (nd < 0)
		LSW_LOG(ERR, "FIB6: not enough next hops or groups for the change");
	/* Groups made for @d that no installed rule names go; refs are recounted. */
	for (uint32_t id = 0; id < LSW_MAX_NH6; id++)
		fc->meta[id].refs = 0;
	for (uint32_t i = 0; i < fc->n_routes; i++) {
		uint32_t v = fc->routes[i].value;
		if (fc->routes[i].kind != LSW_RT_STATIC || v == LSW_NHG6_ID_BLACKHOLE)
			continue;
		if (v & LSW_FIB6_NH_BIT) {
			fc->meta[v & ~LSW_FIB6_NH_BIT].refs++;
			continue;
		}
		for (unsigned int k = 0; k < fc->fib->group[v]->n; k++)
			fc->meta[fc->fib->group[v]->member[k]].refs++;
	}
	/* Nothing the active table names is freed: no grace period is needed. */
	static bool used[LSW_MAX_NHG6];
	memset(used, 0, sizeof(used));
	for (uint32_t i = 0; i < fc->n_routes; i++)
		if (!(fc->routes[i].value & LSW_FIB6_NH_BIT))
			used[fc->routes[i].value] = true;
	for (uint32_t g = LSW_NHG6_ID_FIRST_FREE; g < LSW_MAX_NHG6; g++)
		if (!used[g] && fc->fib->group[g] != NULL) {
			rte_free(fc->fib->group[g]);
			fc->fib->group[g] = NULL;
		}
	free(d);
	return -1;
}

void
lsw_fib6ctl_update_end(struct lsw_fib6ctl *fc, const struct lsw_config *n)
{
	uint32_t a = lsw_load_relaxed(&fc->fib->active) ^ 1;

	/* No worker reads the old table now: it may be rewritten. */
	for (uint32_t i = 0; i < fc->n_pending; i++)
		if (apply_op(fc->fib->tbl[a], &fc->pending[i], false) != 0)
			LSW_LOG(ERR,
				"FIB6: the standby table refused a change the active one took");
	fc->n_pending = 0;
	if (fc->collect_cfg != NULL)
		collect(fc, n);
	fc->collect_cfg = NULL;
}

int
lsw_fib6ctl_update(struct lsw_fib6ctl *fc, const struct lsw_config *n, uint64_t now_ns)
{
	if (lsw_fib6ctl_update_begin(fc, n, now_ns) != 0)
		return -1;
	if (fc->n_pending != 0 && fc->qsv != NULL)
		rte_rcu_qsbr_synchronize(fc->qsv, RTE_QSBR_THRID_INVALID);
	lsw_fib6ctl_update_end(fc, n);
	return 0;
}

int
lsw_fib6ctl_neigh_learn(struct lsw_fib6ctl *fc, const struct lsw_config *c, const uint8_t *ip,
			uint16_t port, uint64_t mac, bool update_only, uint64_t now_ns)
{
	int id = lsw_fib6ctl_nh_find(fc, ip, port);
	bool own;

	mac &= ~LSW_NH_MAC_VALID;
	if (id < 0) {
		/* A link-local neighbor is kept only when a route wants it (it exists then). */
		if (update_only || lsw_ip6_is_ll(ip) ||
		    lsw_config_on_link_port6(c, ip, &own) != port || own)
			return 0;
		if ((id = nh_get(fc, ip, port)) < 0)
			return -1;
	} else {
		struct lsw_nh_meta *m = &fc->meta[id];
		if (m->state == LSW_NH_STATIC || (update_only && m->state != LSW_NH_LEARNED))
			return 0;
		m->updated_ns = now_ns;
		if (m->state == LSW_NH_LEARNED &&
		    (fc->fib->nh[id].mac & ~LSW_NH_MAC_VALID) == mac)
			return 0;
	}
	lsw_publish(&fc->fib->nh[id].mac, mac | LSW_NH_MAC_VALID);
	fc->meta[id].state = LSW_NH_LEARNED;
	fc->meta[id].updated_ns = now_ns;
	/* A global neighbor needs its host route: the whole update puts it in. */
	if (!lsw_ip6_is_ll(ip) && installed(fc, ip, 128) == NULL &&
	    lsw_fib6ctl_update(fc, c, now_ns) != 0)
		return -1;
	return 1;
}
