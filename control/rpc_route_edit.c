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

/* A string param, or a list given as a string "a,b" or an array of strings: as "a,b". */
static bool
list_param(json_t *params, const char *name, bool required, char *out, size_t len,
	   struct lsw_rpc_error *e)
{
	json_t *v = json_object_get(params, name), *x;
	char path[LSW_PATH_LEN];
	size_t i, n = 0;

	lsw_path_key(path, "$.params", name);
	out[0] = '\0';
	if (v == NULL) {
		if (required)
			lsw_errs_add(&e->errs, path, "required");
		return !required;
	}
	if (json_is_string(v)) {
		if (json_string_length(v) < len) {
			snprintf(out, len, "%s", json_string_value(v));
			return true;
		}
	} else if (json_is_array(v) && json_array_size(v) > 0) {
		json_array_foreach(v, i, x) {
			if (!json_is_string(x))
				break;
			int k = snprintf(out + n, len - n, "%s%s", i ? "," : "", json_string_value(x));
			if (k < 0 || (size_t)k >= len - n)
				break;
			n += (size_t)k;
		}
		if (i == json_array_size(v))
			return true;
	}
	lsw_errs_add(&e->errs, path, "expected a string or an array of strings (%zu bytes at "
		     "most)", len - 1);
	return false;
}

static bool
bool_param(json_t *params, const char *name, bool *out, struct lsw_rpc_error *e)
{
	json_t *v = json_object_get(params, name);
	char path[LSW_PATH_LEN];

	*out = false;
	lsw_path_key(path, "$.params", name);
	return v == NULL || lsw_jv_bool(v, path, out, &e->errs);
}

/* The key of @table (STATIC_ROUTE or ECMP) in the running config naming @prefix/@plen. */
static const char *
route_key(struct lsw_switch *sw, const char *table, uint32_t prefix, uint8_t plen)
{
	json_t *t = json_object_get(sw->cfg->doc, table), *v;
	const char *k;
	uint32_t ip;
	uint8_t len;

	json_object_foreach(t, k, v) {
		const char *p = strncasecmp(k, "default|", 8) == 0 ? k + 8 : k;
		if (lsw_parse_prefix(p, &ip, &len) && ip == prefix && len == plen)
			return k;
	}
	return NULL;
}

/* params.prefix: parsed into @ip/@plen; its STATIC_ROUTE key, or NULL when there is none. */
static bool
prefix_param(struct lsw_switch *sw, json_t *params, uint32_t *ip, uint8_t *plen,
	     const char **key, struct lsw_rpc_error *e)
{
	const char *s;

	if (json_object_get(params, "prefix") == NULL) {
		lsw_errs_add(&e->errs, "$.params.prefix", "required: an IPv4 prefix, a.b.c.d/len");
		return false;
	}
	if (!lsw_jv_str(json_object_get(params, "prefix"), "$.params.prefix", 32, &s, &e->errs))
		return false;
	if (!lsw_parse_prefix(s, ip, plen)) {
		lsw_errs_add(&e->errs, "$.params.prefix", "'%s' is not an IPv4 prefix", s);
		return false;
	}
	if (*ip & ~lsw_prefix_mask(*plen)) {
		lsw_errs_add(&e->errs, "$.params.prefix", "%s has host bits set", s);
		return false;
	}
	*key = route_key(sw, "STATIC_ROUTE", *ip, *plen);
	return true;
}

static json_t *
invalid(struct lsw_rpc_error *e)
{
	lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
	return NULL;
}

static json_t *
apply(struct lsw_switch *sw, json_t *patch, struct lsw_rpc_error *e)
{
	json_t *r = lsw_rpc_config_apply(sw, patch, e);

	json_decref(patch);
	return r;
}

static json_t *
route_add(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"prefix", "nexthop", "ifname", "blackhole",
					      "replace", NULL};
	char nh[1024], ifn[1024];
	bool blackhole, replace;
	const char *key;
	uint32_t ip;
	uint8_t plen;

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	bool ok = prefix_param(sw, params, &ip, &plen, &key, e);
	ok &= bool_param(params, "blackhole", &blackhole, e);
	ok &= bool_param(params, "replace", &replace, e);
	ok &= list_param(params, "nexthop", !blackhole, nh, sizeof(nh), e);
	ok &= list_param(params, "ifname", false, ifn, sizeof(ifn), e);
	if (ok && key != NULL && !replace)
		lsw_errs_add(&e->errs, "$.params.prefix", "a route to %s exists (replace: true "
			     "changes it)", key);
	if (!ok || e->errs.n)
		return invalid(e);
	/* Every field is written, null for the absent ones: the entry replaces the old one
	 * whole instead of merging into it. */
	json_t *entry = json_pack("{s:o, s:o, s:o}",
		"nexthop", nh[0] ? json_string(nh) : json_null(),
		"ifname", ifn[0] ? json_string(ifn) : json_null(),
		"blackhole", blackhole ? json_string("true") : json_null());
	json_t *routes = json_object();
	json_object_set_new(routes, key ? key : json_string_value(json_object_get(params,
		"prefix")), entry);
	json_t *patch = json_pack("{s:o}", "STATIC_ROUTE", routes);
	/* Down to one next hop (or a blackhole): the group's ECMP entry has nothing to say. */
	const char *ek = route_key(sw, "ECMP", ip, plen);
	if (ek != NULL && (blackhole || strchr(nh, ',') == NULL))
		json_object_set_new(patch, "ECMP", json_pack("{s:n}", ek));
	return apply(sw, patch, e);
}

static const struct lsw_rpc_method m_route_add = {
	.name = "route.add",
	.summary = "Add (or with replace, change) a static route, as config.set would",
	.params = "prefix: string, nexthop: string|[string] (or blackhole: true), "
		  "ifname?: string|[string], replace?: bool",
	.safe_while_forwarding = true,
	.fn = route_add,
};
LSW_RPC_REGISTER(m_route_add)

static json_t *
route_del(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"prefix", NULL};
	const char *key;
	uint32_t ip;
	uint8_t plen;

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	if (!prefix_param(sw, params, &ip, &plen, &key, e))
		return invalid(e);
	if (key == NULL) {
		lsw_errs_add(&e->errs, "$.params.prefix", "no static route to %s",
			     json_string_value(json_object_get(params, "prefix")));
		return invalid(e);
	}
	json_t *patch = json_pack("{s:{s:n}}", "STATIC_ROUTE", key);
	/* The route's ECMP settings go with it (ECMP refuses entries for unknown routes). */
	const char *ek = route_key(sw, "ECMP", ip, plen);
	if (ek != NULL)
		json_object_set_new(patch, "ECMP", json_pack("{s:n}", ek));
	return apply(sw, patch, e);
}

static const struct lsw_rpc_method m_route_del = {
	.name = "route.del",
	.summary = "Delete a static route (and its ECMP entry), as config.set would",
	.params = "prefix: string",
	.safe_while_forwarding = true,
	.fn = route_del,
};
LSW_RPC_REGISTER(m_route_del)

/* params.port and params.ip: the NEIGH key "PORT|IP" in @key, and whether it exists. */
static bool
neigh_key(struct lsw_switch *sw, json_t *params, char *key, size_t len, bool *exists,
	  struct lsw_rpc_error *e)
{
	json_t *t = json_object_get(sw->cfg->doc, "NEIGH"), *v;
	int port = lsw_rpc_port_param(sw, params, true, e);
	const char *s, *k;
	uint32_t ip, kip;

	e->code = 0; /* the caller fails once with every error */
	if (json_object_get(params, "ip") == NULL) {
		lsw_errs_add(&e->errs, "$.params.ip", "required: the neighbor's IPv4 address");
		return false;
	}
	if (!lsw_jv_str(json_object_get(params, "ip"), "$.params.ip", 16, &s, &e->errs))
		return false;
	if (!lsw_parse_ipv4(s, &ip)) {
		lsw_errs_add(&e->errs, "$.params.ip", "'%s' is not an IPv4 address", s);
		return false;
	}
	if (port < 0)
		return false;
	snprintf(key, len, "%s|%s", sw->cfg->port[port].name, s);
	*exists = false;
	json_object_foreach(t, k, v) {
		const char *bar = strchr(k, '|');
		size_t n = strlen(sw->cfg->port[port].name);
		if (bar != NULL && (size_t)(bar - k) == n &&
		    strncmp(k, sw->cfg->port[port].name, n) == 0 &&
		    lsw_parse_ipv4(bar + 1, &kip) && kip == ip) {
			snprintf(key, len, "%s", k);
			*exists = true;
		}
	}
	return true;
}

static json_t *
neighbor_add(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"port", "ip", "mac", "replace", NULL};
	char key[LSW_NAME_LEN + 20];
	struct rte_ether_addr mac;
	bool exists = false, replace;
	json_t *m = json_object_get(params, "mac");

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	bool ok = neigh_key(sw, params, key, sizeof(key), &exists, e);
	ok &= bool_param(params, "replace", &replace, e);
	if (m == NULL)
		lsw_errs_add(&e->errs, "$.params.mac", "required: the neighbor's MAC address");
	else
		ok &= lsw_jv_mac(m, "$.params.mac", &mac, &e->errs);
	if (ok && exists && !replace)
		lsw_errs_add(&e->errs, "$.params.ip", "%s is a static neighbor already (replace: "
			     "true changes it)", key);
	if (!ok || e->errs.n)
		return invalid(e);
	return apply(sw, json_pack("{s:{s:{s:O, s:n}}}", "NEIGH", key, "neigh", m, "family"), e);
}

static const struct lsw_rpc_method m_neighbor_add = {
	.name = "neighbor.add",
	.summary = "Add (or with replace, change) a static neighbor, as config.set would",
	.params = "port: string, ip: string, mac: string, replace?: bool",
	.safe_while_forwarding = true,
	.fn = neighbor_add,
};
LSW_RPC_REGISTER(m_neighbor_add)

static json_t *
neighbor_del(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"port", "ip", NULL};
	char key[LSW_NAME_LEN + 20];
	bool exists = false;

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	if (!neigh_key(sw, params, key, sizeof(key), &exists, e))
		return invalid(e);
	if (!exists) {
		lsw_errs_add(&e->errs, "$.params.ip", "no static neighbor %s", key);
		return invalid(e);
	}
	return apply(sw, json_pack("{s:{s:n}}", "NEIGH", key), e);
}

static const struct lsw_rpc_method m_neighbor_del = {
	.name = "neighbor.del",
	.summary = "Delete a static neighbor (routes through it resolve by ARP again)",
	.params = "port: string, ip: string",
	.safe_while_forwarding = true,
	.fn = neighbor_del,
};
LSW_RPC_REGISTER(m_neighbor_del)
