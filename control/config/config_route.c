/* SPDX-License-Identifier: BSD-3-Clause */
/* STATIC_ROUTE and NEIGH, checked against the ports' subnets (config_port.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

/* Split a comma-separated list in place; returns the count, or -1 if more than @max. */
static int
split_list(char *s, char **items, int max)
{
	int n = 0;

	for (char *tok = strtok(s, ","); tok != NULL; tok = strtok(NULL, ",")) {
		while (*tok == ' ')
			tok++;
		if (n == max)
			return -1;
		items[n++] = tok;
	}
	return n;
}

/* A STATIC_ROUTE entry as written: lists of addresses and ports, comma-separated. */
struct route_entry {
	char nexthop[1024];
	char ifname[1024];
	bool blackhole;
};

#define AT(m) LSW_AT(struct route_entry, m)
static const struct lsw_field route_rows[] = {
	{.name = "nexthop", .type = LSW_F_STR, AT(nexthop)},
	{.name = "ifname", .type = LSW_F_STR, AT(ifname)},
	{.name = "blackhole", .type = LSW_F_BOOL, AT(blackhole)},
};
#undef AT
static const struct lsw_fields route_table = LSW_FIELDS(route_rows);
LSW_CONFIG_OBJECT(static_route, "STATIC_ROUTE", &route_table)

/* The lists of @e, both families: the next hops into @nhs (*@nn), their interfaces into
 * @ifs (*@ni: none, or one per next hop). False when there is nothing more to check: a
 * blackhole (refused if it has next hops), or lists refused here. */
static bool
nexthop_lists(struct route_entry *e, const char *path, bool blackhole, char **nhs,
	      char **ifs, int *nn, int *ni, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];

	*nn = split_list(e->nexthop, nhs, LSW_MAX_ECMP);
	*ni = split_list(e->ifname, ifs, LSW_MAX_ECMP);
	lsw_path_key(p, path, "nexthop");
	if (blackhole) {
		if (*nn != 0)
			lsw_errs_add(errs, p, "a blackhole route has no next hop");
		return false;
	}
	if (*nn <= 0) {
		lsw_errs_add(errs, p, *nn < 0 ? "more than %d next hops" :
			     "required: one or more next-hop addresses, comma-separated (or "
			     "blackhole: true)", LSW_MAX_ECMP);
		return false;
	}
	if (*ni != 0 && *ni != *nn) {
		lsw_path_key(p, path, "ifname");
		lsw_errs_add(errs, p, "lists %d interfaces for %d next hops", *ni, *nn);
		return false;
	}
	return true;
}

/* The next hops of @e into @r: each on a connected subnet (of its ifname, if given). */
static void
route_nexthops(struct route_entry *e, const char *path, const struct lsw_config *c,
	       struct lsw_route_conf *r, struct lsw_errs *errs)
{
	char *nhs[LSW_MAX_ECMP], *ifs[LSW_MAX_ECMP], p[LSW_PATH_LEN];
	int nn, ni;
	bool own;

	if (!nexthop_lists(e, path, r->blackhole, nhs, ifs, &nn, &ni, errs))
		return;
	lsw_path_key(p, path, "nexthop");
	for (int i = 0; i < nn; i++) {
		uint32_t ip;
		if (!lsw_parse_ipv4(nhs[i], &ip)) {
			lsw_errs_add(errs, p, "'%s' is not an IPv4 address", nhs[i]);
			continue;
		}
		int port = lsw_config_on_link_port(c, ip, &own);
		if (ni) {
			int want = lsw_config_port_index(c, ifs[i]);
			if (want < 0) {
				char pi[LSW_PATH_LEN];
				lsw_path_key(pi, path, "ifname");
				lsw_errs_add(errs, pi, "no port named '%s'", ifs[i]);
				continue;
			}
			if (port != want) {
				lsw_errs_add(errs, p, "next hop %s is not on a subnet of %s",
					     nhs[i], ifs[i]);
				continue;
			}
		}
		if (port < 0 || own) {
			lsw_errs_add(errs, p, own ? "next hop %s is the switch's own address" :
				     "next hop %s is not on any connected subnet", nhs[i]);
			continue;
		}
		for (unsigned int j = 0; j < r->n_nh; j++)
			if (r->nh_ip[j] == ip)
				lsw_errs_add(errs, p, "next hop %s listed twice", nhs[i]);
		r->nh_ip[r->n_nh] = ip;
		r->nh_port[r->n_nh++] = (uint16_t)port;
	}
}

/* The IPv6 next hops of @e into @r: each on a connected subnet (of its ifname, if given),
 * or link-local with its ifname. */
static void
route6_nexthops(struct route_entry *e, const char *path, const struct lsw_config *c,
		struct lsw_route6_conf *r, struct lsw_errs *errs)
{
	char *nhs[LSW_MAX_ECMP], *ifs[LSW_MAX_ECMP], p[LSW_PATH_LEN], pi[LSW_PATH_LEN];
	int nn, ni;
	bool own;

	if (!nexthop_lists(e, path, r->blackhole, nhs, ifs, &nn, &ni, errs))
		return;
	lsw_path_key(p, path, "nexthop");
	lsw_path_key(pi, path, "ifname");
	for (int i = 0; i < nn; i++) {
		uint8_t ip[16];
		if (!lsw_parse_ipv6(nhs[i], ip)) {
			lsw_errs_add(errs, p, "'%s' is not an IPv6 address (the prefix is IPv6)",
				     nhs[i]);
			continue;
		}
		int want = ni ? lsw_config_port_index(c, ifs[i]) : -1;
		if (ni && want < 0) {
			lsw_errs_add(errs, pi, "no port named '%s'", ifs[i]);
			continue;
		}
		int port = lsw_config_on_link_port6(c, ip, &own);
		if (lsw_ip6_is_ll(ip)) {
			/* fe80::/64 is on every port: only the ifname says which. */
			if (!ni) {
				lsw_errs_add(errs, pi, "required: the interface of "
					     "link-local next hop %s", nhs[i]);
				continue;
			}
			port = want;
		} else if (lsw_ip6_is_mc(ip) || lsw_ip6_is_zero(ip)) {
			lsw_errs_add(errs, p, "next hop %s is not a unicast address", nhs[i]);
			continue;
		} else if (ni && port != want) {
			lsw_errs_add(errs, p, "next hop %s is not on a subnet of %s", nhs[i],
				     ifs[i]);
			continue;
		}
		if (port < 0 || own) {
			lsw_errs_add(errs, p, own ? "next hop %s is the switch's own address" :
				     "next hop %s is not on any connected subnet", nhs[i]);
			continue;
		}
		for (unsigned int j = 0; j < r->n_nh; j++)
			if (lsw_ip6_eq(r->nh_ip[j], ip) && r->nh_port[j] == port)
				lsw_errs_add(errs, p, "next hop %s listed twice", nhs[i]);
		memcpy(r->nh_ip[r->n_nh], ip, 16);
		r->nh_port[r->n_nh++] = (uint16_t)port;
	}
}

/* STATIC_ROUTE."IPV6-PREFIX" or "default|IPV6-PREFIX"; "::/0" is the default route. */
static void
parse_route6(const char *key, const char *pfx, json_t *o, const char *path,
	     struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_route6_conf *r = &c->routes6[c->n_routes6];
	struct route_entry e = {.blackhole = false};
	unsigned int before = errs->n;
	uint8_t net[16];

	*r = (struct lsw_route6_conf){0};
	if (!lsw_parse_prefix6(pfx, r->prefix, &r->plen)) {
		lsw_errs_add(errs, path, "'%s' is not an IPv6 prefix (optionally 'default|' "
			     "before it; other VRFs are not supported)", key);
		return;
	}
	memcpy(net, r->prefix, 16);
	lsw_ip6_mask(net, r->plen);
	if (!lsw_ip6_eq(net, r->prefix)) {
		lsw_errs_add(errs, path, "%s has host bits set", pfx);
		return;
	}
	if (lsw_ip6_is_ll(r->prefix) || lsw_ip6_is_mc(r->prefix)) {
		if (r->plen >= 10) {
			lsw_errs_add(errs, path, "%s is link-local or multicast: not routed", pfx);
			return;
		}
	}
	if (!lsw_decode(o, path, &route_table, &e, c, NULL, errs))
		return;
	r->blackhole = e.blackhole;
	route6_nexthops(&e, path, c, r, errs);
	if (errs->n != before)
		return;
	for (unsigned int i = 0; i < c->n_routes6; i++)
		if (lsw_ip6_eq(c->routes6[i].prefix, r->prefix) && c->routes6[i].plen == r->plen)
			lsw_errs_add(errs, path, "the same prefix is given twice");
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr6; j++) {
			const struct lsw_addr6 *a = &c->port[i].addr6[j];
			memcpy(net, a->ip, 16);
			lsw_ip6_mask(net, a->plen);
			if ((r->plen == a->plen && lsw_ip6_eq(r->prefix, net)) ||
			    (r->plen == 128 && lsw_ip6_eq(r->prefix, a->ip)))
				lsw_errs_add(errs, path, "is %s's connected subnet or address",
					     c->port[i].name);
		}
	c->n_routes6++;
}

/* STATIC_ROUTE."PREFIX" or "default|PREFIX". */
static void
parse_route(const char *key, json_t *o, const char *path, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	struct lsw_route_conf *r = &c->routes[c->n_routes];
	struct route_entry e = {.blackhole = false};
	const char *pfx = strncmp(key, "default|", 8) == 0 ? key + 8 : key;
	unsigned int before = errs->n;

	if (strchr(pfx, ':') != NULL) {
		parse_route6(key, pfx, o, path, c, errs);
		return;
	}
	*r = (struct lsw_route_conf){0};
	if (!lsw_parse_prefix(pfx, &r->prefix, &r->plen)) {
		lsw_errs_add(errs, path, "'%s' is not an IPv4 prefix (optionally 'default|' "
			     "before it; other VRFs are not supported)", key);
		return;
	}
	if (r->prefix & ~lsw_prefix_mask(r->plen)) {
		lsw_errs_add(errs, path, "%s has host bits set", pfx);
		return;
	}
	if (!lsw_decode(o, path, &route_table, &e, c, NULL, errs))
		return;
	r->blackhole = e.blackhole;
	route_nexthops(&e, path, c, r, errs);
	if (errs->n != before)
		return;
	for (unsigned int i = 0; i < c->n_routes; i++)
		if (c->routes[i].prefix == r->prefix && c->routes[i].plen == r->plen)
			lsw_errs_add(errs, path, "the same prefix is given twice");
	for (unsigned int i = 0; i < c->n_ports; i++)
		for (unsigned int j = 0; j < c->port[i].n_addr; j++) {
			const struct lsw_addr *a = &c->port[i].addr[j];
			uint32_t subnet = a->ip & lsw_prefix_mask(a->plen);
			if ((r->plen == a->plen && r->prefix == subnet) ||
			    (r->plen == 32 && r->prefix == a->ip))
				lsw_errs_add(errs, path, "is %s's connected subnet or address",
					     c->port[i].name);
		}
	c->n_routes++;
}

void
lsw_config_routes(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	if (json_is_object(t)) {
		c->routes = calloc(json_object_size(t) + 1, sizeof(*c->routes));
		c->routes6 = calloc(json_object_size(t) + 1, sizeof(*c->routes6));
	}
	lsw_decode_entries(t, "$.STATIC_ROUTE", parse_route, c, errs);
	if (c->n_routes > LSW_MAX_ROUTES / 2)
		lsw_errs_add(errs, "$.STATIC_ROUTE", "more than %d routes", LSW_MAX_ROUTES / 2);
	if (c->n_routes6 > LSW_MAX_ROUTES6 / 2)
		lsw_errs_add(errs, "$.STATIC_ROUTE", "more than %d IPv6 routes",
			     LSW_MAX_ROUTES6 / 2);
}

static const char *const families[] = {"IPv4", "IPv6", NULL};

/* A NEIGH entry as written. */
struct neigh_entry {
	struct rte_ether_addr mac;
	unsigned int family;     /* index in families: it must agree with the key */
};

#define AT(m) LSW_AT(struct neigh_entry, m)
static const struct lsw_field neigh_rows[] = {
	{.name = "neigh", .type = LSW_F_MAC, AT(mac), .required = "the neighbor's MAC address"},
	{.name = "family", .type = LSW_F_ENUM, AT(family), .choices = families},
};
#undef AT
static const struct lsw_fields neigh_table = LSW_FIELDS(neigh_rows);
LSW_CONFIG_OBJECT(neigh, "NEIGH", &neigh_table)

/* NEIGH."PORT|ADDRESS" */
static void
parse_neigh(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	struct lsw_neigh_conf *n = &c->neighs[c->n_neighs];
	struct neigh_entry e = {.family = 0};
	unsigned int before = errs->n;
	char port[LSW_NAME_LEN], fp[LSW_PATH_LEN];
	const char *rest;
	bool own;

	if (!lsw_decode(o, p, &neigh_table, &e, c, NULL, errs))
		return;
	bool split = lsw_config_split_key(key, port, sizeof(port), &rest);
	bool v6 = split && strchr(rest, ':') != NULL;
	if (!split || !(v6 ? lsw_parse_ipv6(rest, c->neighs6[c->n_neighs6].ip) :
			lsw_parse_ipv4(rest, &n->ip))) {
		lsw_errs_add(errs, p, "keys are PORT|IPv4-address or PORT|IPv6-address");
		return;
	}
	int pi = lsw_config_port_index(c, port);
	if (pi < 0) {
		lsw_errs_add(errs, p, "no port named '%s'", port);
		return;
	}
	lsw_path_key(fp, p, "family");
	if (json_object_get(o, "family") != NULL && e.family != (v6 ? 1u : 0u)) {
		lsw_errs_add(errs, fp, "'%s' does not match the key's %s address",
			     families[e.family], v6 ? "IPv6" : "IPv4");
		return;
	}
	if (v6) {
		struct lsw_neigh6_conf *n6 = &c->neighs6[c->n_neighs6];
		int on = lsw_config_on_link_port6(c, n6->ip, &own);
		if (lsw_ip6_is_mc(n6->ip) || lsw_ip6_is_zero(n6->ip)) {
			lsw_errs_add(errs, p, "%s is not a unicast address", rest);
			return;
		}
		/* A link-local neighbor is on its port's link by definition. */
		if ((!lsw_ip6_is_ll(n6->ip) && on != pi) || own) {
			lsw_errs_add(errs, p, own ? "%s is the switch's own address" :
				     "%s is not on a subnet of %s", rest, port);
			return;
		}
		n6->port = (uint16_t)pi;
		n6->mac = e.mac;
		for (unsigned int i = 0; i < c->n_neighs6; i++)
			if (lsw_ip6_eq(c->neighs6[i].ip, n6->ip) && c->neighs6[i].port == pi)
				lsw_errs_add(errs, p, "the same neighbor is given twice");
		if (errs->n == before)
			c->n_neighs6++;
		return;
	}
	n->mac = e.mac;
	if (lsw_config_on_link_port(c, n->ip, &own) != pi || own) {
		lsw_errs_add(errs, p, own ? "%s is the switch's own address" :
			     "%s is not on a subnet of %s", rest, port);
		return;
	}
	n->port = (uint16_t)pi;
	if (errs->n == before)
		c->n_neighs++;
}

void
lsw_config_neighs(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	if (json_is_object(t)) {
		c->neighs = calloc(json_object_size(t) + 1, sizeof(*c->neighs));
		c->neighs6 = calloc(json_object_size(t) + 1, sizeof(*c->neighs6));
	}
	lsw_decode_entries(t, "$.NEIGH", parse_neigh, c, errs);
}
