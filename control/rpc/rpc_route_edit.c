/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.add, route.del, neighbor.add, neighbor.del: shortcuts for scripts. Each one writes
 * a partial config (the STATIC_ROUTE or NEIGH entry, in the file's shape) and applies it
 * exactly as config.set does, so that the running config, config.get and config.save always
 * say what the FIB holds.
 */
#include <string.h>
#include <strings.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

/* A list param, given as a string "a,b" or an array of strings: as "a,b". */
struct list_param {
	char text[1024];
	bool given;
};

static bool
list_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	struct list_param *l = (struct list_param *)((char *)out + f->off);
	const size_t len = sizeof(l->text);
	size_t i, n = 0;
	json_t *x;

	RTE_SET_USED(ctx);
	l->given = true;
	if (json_is_string(v)) {
		if (json_string_length(v) < len) {
			snprintf(l->text, len, "%s", json_string_value(v));
			return true;
		}
	} else if (json_is_array(v) && json_array_size(v) > 0) {
		json_array_foreach(v, i, x) {
			if (!json_is_string(x))
				break;
			int k = snprintf(l->text + n, len - n, "%s%s", i ? "," : "",
					 json_string_value(x));
			if (k < 0 || (size_t)k >= len - n)
				break;
			n += (size_t)k;
		}
		if (i == json_array_size(v))
			return true;
	}
	lsw_errs_add(errs, path, "expected a string or an array of strings (%zu bytes at most)",
		     len - 1);
	return false;
}

/* params.prefix: an IPv4 or IPv6 prefix without host bits. */
struct prefix_param {
	const char *text;       /* as given */
	bool v6;
	uint32_t ip;
	uint8_t ip6[16];
	uint8_t plen;
};

static bool
prefix_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	     struct lsw_errs *errs)
{
	struct prefix_param *p = (struct prefix_param *)((char *)out + f->off);
	const char *s;

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, 48, &s, errs))
		return false;
	p->v6 = strchr(s, ':') != NULL;
	if (p->v6) {
		uint8_t net[16];
		if (!lsw_parse_prefix6(s, p->ip6, &p->plen)) {
			lsw_errs_add(errs, path, "'%s' is not an IPv6 prefix", s);
			return false;
		}
		memcpy(net, p->ip6, 16);
		lsw_ip6_mask(net, p->plen);
		if (!lsw_ip6_eq(net, p->ip6)) {
			lsw_errs_add(errs, path, "%s has host bits set", s);
			return false;
		}
		p->text = s;
		return true;
	}
	if (!lsw_parse_prefix(s, &p->ip, &p->plen)) {
		lsw_errs_add(errs, path, "'%s' is not an IPv4 or IPv6 prefix", s);
		return false;
	}
	if (p->ip & ~lsw_prefix_mask(p->plen)) {
		lsw_errs_add(errs, path, "%s has host bits set", s);
		return false;
	}
	p->text = s;
	return true;
}

#define PREFIX_ROW(T) \
	{.name = "prefix", .type = LSW_F_CUSTOM, .off = offsetof(T, prefix), .fn = prefix_param, \
	 .required = "an IPv4 or IPv6 prefix, a.b.c.d/len or x:y::/len", .doc = "string"}

/* The key of @table (STATIC_ROUTE or ECMP) in the running config naming @pp. */
static const char *
route_key(struct lsw_switch *sw, const char *table, const struct prefix_param *pp)
{
	json_t *t = json_object_get(sw->cfg->doc, table), *v;
	const char *k;
	uint32_t ip;
	uint8_t len, ip6[16];

	json_object_foreach(t, k, v) {
		const char *p = strncasecmp(k, "default|", 8) == 0 ? k + 8 : k;
		if (pp->v6 ? lsw_parse_prefix6(p, ip6, &len) && lsw_ip6_eq(ip6, pp->ip6) &&
			     len == pp->plen :
			     lsw_parse_prefix(p, &ip, &len) && ip == pp->ip && len == pp->plen)
			return k;
	}
	return NULL;
}

/* The ECMP entry of route @p goes too, if it has one: ECMP refuses an entry for a route
 * without two next hops. */
static void
patch_ecmp_out(struct lsw_switch *sw, json_t *patch, const struct prefix_param *p)
{
	const char *ek = route_key(sw, "ECMP", p);

	if (ek != NULL)
		json_object_set_new(patch, "ECMP", json_pack("{s:n}", ek));
}

static json_t *
apply(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e)
{
	json_t *r = lsw_rpc_config_apply(sw, patch, e);

	json_decref(patch);
	return r;
}

struct route_args {
	struct prefix_param prefix;
	struct list_param nexthop, ifname;
	bool blackhole, replace;
};

#define AT(m) LSW_AT(struct route_args, m)
static const struct lsw_field route_add_rows[] = {
	PREFIX_ROW(struct route_args),
	{.name = "nexthop", .type = LSW_F_CUSTOM, .off = offsetof(struct route_args, nexthop),
	 .fn = list_param, .doc = "string|[string] (required unless blackhole: true)"},
	{.name = "ifname", .type = LSW_F_CUSTOM, .off = offsetof(struct route_args, ifname),
	 .fn = list_param, .doc = "string|[string]"},
	{.name = "blackhole", .type = LSW_F_BOOL, AT(blackhole), .doc = "bool"},
	{.name = "replace", .type = LSW_F_BOOL, AT(replace), .doc = "bool"},
};
#undef AT
static const struct lsw_fields route_add_params = LSW_FIELDS(route_add_rows);

static json_t *
route_add(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct route_args *a = args;
	const char *nh = a->nexthop.text, *ifn = a->ifname.text;
	const char *key = route_key(sw, "STATIC_ROUTE", &a->prefix);

	if (!a->blackhole && !a->nexthop.given)
		lsw_errs_add(&e->errs, "$.params.nexthop", "required");
	else if (key != NULL && !a->replace)
		lsw_errs_add(&e->errs, "$.params.prefix", "a route to %s exists (replace: true "
			     "changes it)", key);
	if (e->errs.n)
		return lsw_rpc_invalid(e);
	/* Every field is written, null for the absent ones: the entry replaces the old one
	 * whole instead of merging into it. */
	json_t *entry = json_pack("{s:o, s:o, s:o}",
		"nexthop", nh[0] ? json_string(nh) : json_null(),
		"ifname", ifn[0] ? json_string(ifn) : json_null(),
		"blackhole", a->blackhole ? json_string("true") : json_null());
	json_t *routes = json_object();
	json_object_set_new(routes, key ? key : a->prefix.text, entry);
	json_t *patch = json_pack("{s:o}", "STATIC_ROUTE", routes);
	/* Down to one next hop (or a blackhole): the group's ECMP entry has nothing to say. */
	if (a->blackhole || strchr(nh, ',') == NULL)
		patch_ecmp_out(sw, patch, &a->prefix);
	return apply(sw, patch, e);
}

static const struct lsw_rpc_method m_route_add = {
	.name = "route.add",
	.summary = "Add (or with replace, change) a static route, as config.set would",
	.params = &route_add_params,
	.args_size = sizeof(struct route_args),
	.fn = route_add,
};
LSW_RPC_REGISTER(m_route_add)

struct route_del_args {
	struct prefix_param prefix;
};

static const struct lsw_field route_del_rows[] = {
	PREFIX_ROW(struct route_del_args),
};
static const struct lsw_fields route_del_params = LSW_FIELDS(route_del_rows);

static json_t *
route_del(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct prefix_param *p = &((const struct route_del_args *)args)->prefix;
	const char *key = route_key(sw, "STATIC_ROUTE", p);

	if (key == NULL) {
		lsw_errs_add(&e->errs, "$.params.prefix", "no static route to %s", p->text);
		return lsw_rpc_invalid(e);
	}
	json_t *patch = json_pack("{s:{s:n}}", "STATIC_ROUTE", key);
	patch_ecmp_out(sw, patch, p);
	return apply(sw, patch, e);
}

static const struct lsw_rpc_method m_route_del = {
	.name = "route.del",
	.summary = "Delete a static route (and its ECMP entry), as config.set would",
	.params = &route_del_params,
	.args_size = sizeof(struct route_del_args),
	.fn = route_del,
};
LSW_RPC_REGISTER(m_route_del)

/* params.ip: the neighbor's IPv4 or IPv6 address. */
struct ip_param {
	const char *text;       /* as given */
	bool v6;
	uint32_t ip;
	uint8_t ip6[16];
};

static bool
ip_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	 struct lsw_errs *errs)
{
	struct ip_param *p = (struct ip_param *)((char *)out + f->off);
	const char *s;

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, 46, &s, errs))
		return false;
	p->v6 = strchr(s, ':') != NULL;
	if (p->v6 ? !lsw_parse_ipv6(s, p->ip6) : !lsw_parse_ipv4(s, &p->ip)) {
		lsw_errs_add(errs, path, "'%s' is not an IPv4 or IPv6 address", s);
		return false;
	}
	p->text = s;
	return true;
}

/* params.mac: checked, and kept as the client wrote it for the NEIGH entry. */
static bool
mac_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	  struct lsw_errs *errs)
{
	struct rte_ether_addr mac;

	RTE_SET_USED(ctx);
	if (!lsw_jv_mac(v, path, &mac, errs))
		return false;
	*(json_t **)((char *)out + f->off) = v;
	return true;
}

struct neigh_args {
	int port;
	struct ip_param ip;
	json_t *mac;
	bool replace;
};

#define IP_ROW \
	{.name = "ip", .type = LSW_F_CUSTOM, .off = offsetof(struct neigh_args, ip), \
	 .fn = ip_param, .required = "the neighbor's IPv4 or IPv6 address", .doc = "string"}

/* The NEIGH key "PORT|IP" of @a in @key; whether the running config has it (its own
 * spelling of the address kept). */
static bool
neigh_key(struct lsw_switch *sw, const struct neigh_args *a, char *key, size_t len)
{
	json_t *t = json_object_get(sw->cfg->doc, "NEIGH"), *v;
	const char *name = sw->cfg->port[a->port].name, *k;
	size_t n = strlen(name);
	bool exists = false;
	uint32_t kip;
	uint8_t kip6[16];

	snprintf(key, len, "%s|%s", name, a->ip.text);
	json_object_foreach(t, k, v) {
		const char *bar = strchr(k, '|');
		if (bar != NULL && (size_t)(bar - k) == n && strncmp(k, name, n) == 0 &&
		    (a->ip.v6 ? lsw_parse_ipv6(bar + 1, kip6) && lsw_ip6_eq(kip6, a->ip.ip6) :
		     lsw_parse_ipv4(bar + 1, &kip) && kip == a->ip.ip)) {
			snprintf(key, len, "%s", k);
			exists = true;
		}
	}
	return exists;
}

static const struct lsw_field neighbor_add_rows[] = {
	LSW_RPC_PORT_ROW_REQUIRED(struct neigh_args, port),
	IP_ROW,
	{.name = "mac", .type = LSW_F_CUSTOM, .off = offsetof(struct neigh_args, mac),
	 .fn = mac_param, .required = "the neighbor's MAC address", .doc = "string"},
	{.name = "replace", .type = LSW_F_BOOL, LSW_AT(struct neigh_args, replace),
	 .doc = "bool"},
};
static const struct lsw_fields neighbor_add_params = LSW_FIELDS(neighbor_add_rows);

static json_t *
neighbor_add(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct neigh_args *a = args;
	char key[LSW_NAME_LEN + 48];

	if (neigh_key(sw, a, key, sizeof(key)) && !a->replace) {
		lsw_errs_add(&e->errs, "$.params.ip", "%s is a static neighbor already (replace: "
			     "true changes it)", key);
		return lsw_rpc_invalid(e);
	}
	return apply(sw, json_pack("{s:{s:{s:O, s:n}}}", "NEIGH", key, "neigh", a->mac,
				   "family"), e);
}

static const struct lsw_rpc_method m_neighbor_add = {
	.name = "neighbor.add",
	.summary = "Add (or with replace, change) a static neighbor, as config.set would",
	.params = &neighbor_add_params,
	.args_size = sizeof(struct neigh_args),
	.fn = neighbor_add,
};
LSW_RPC_REGISTER(m_neighbor_add)

static const struct lsw_field neighbor_del_rows[] = {
	LSW_RPC_PORT_ROW_REQUIRED(struct neigh_args, port),
	IP_ROW,
};
static const struct lsw_fields neighbor_del_params = LSW_FIELDS(neighbor_del_rows);

static json_t *
neighbor_del(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	char key[LSW_NAME_LEN + 48];

	if (!neigh_key(sw, args, key, sizeof(key))) {
		lsw_errs_add(&e->errs, "$.params.ip", "no static neighbor %s", key);
		return lsw_rpc_invalid(e);
	}
	return apply(sw, json_pack("{s:{s:n}}", "NEIGH", key), e);
}

static const struct lsw_rpc_method m_neighbor_del = {
	.name = "neighbor.del",
	.summary = "Delete a static neighbor (routes through it resolve by ARP/NDP again)",
	.params = &neighbor_del_params,
	.args_size = sizeof(struct neigh_args),
	.fn = neighbor_del,
};
LSW_RPC_REGISTER(m_neighbor_del)
