/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ECMP table: ECMP.GLOBAL holds the uplink quality settings (sampling, EWMA, bands,
 * weights) and the defaults of every next-hop group; ECMP|<prefix> overrides the group of
 * that STATIC_ROUTE (one with two or more next hops), IPv4 or IPv6: one table, the same
 * settings and modes for both families. Defaults follow SAI and SONiC's ARS
 * where they have one (SAI's adaptive routing, Broadcom's DLB): idle time 256 us, EWMA
 * exponent 2, 8 bands, Juniper's 50/50 weights and 20-80% load band.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

/* "hash_fields": a list or a comma-separated string of SAI field names (not ROCE_DEST_QP,
 * which mode hash_qp adds). */
static bool
hash_fields(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	    struct lsw_errs *errs)
{
	uint8_t *fields = (uint8_t *)out + f->off;
	char buf[256], p[LSW_PATH_LEN];
	unsigned int before = errs->n;
	uint8_t bits = 0;

	if (json_is_string(v)) {
		snprintf(buf, sizeof(buf), "%s", json_string_value(v));
		json_t *arr = json_array();
		char *save;
		for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
			json_array_append_new(arr, json_string(t));
		bool ok = hash_fields(f, arr, path, out, ctx, errs);
		json_decref(arr);
		return ok;
	}
	if (!json_is_array(v) || json_array_size(v) == 0) {
		lsw_errs_add(errs, path, "expected a non-empty list of SRC_IP, DST_IP, "
			     "L4_SRC_PORT, L4_DST_PORT, IP_PROTOCOL, IPV6_FLOW_LABEL");
		return false;
	}
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		unsigned int k;
		lsw_path_index(p, path, i);
		if (lsw_jv_enum_n(e, p, lsw_hash_field_names, LSW_HF_CONFIGURABLE, &k, errs))
			bits |= (uint8_t)(1u << k);
	}
	*fields = bits;
	return errs->n == before;
}

/* Uplink settings: ECMP.GLOBAL only, since they describe ports, not groups. */
#define AT(m) LSW_AT(struct lsw_ecmp_conf, m)
static const struct lsw_field uplink_rows[] = {
	{.name = "sample_interval", .type = LSW_F_UINT, AT(sample_us), .min = 1, .max = 1000000,
	 .dflt = 16},
	{.name = "ewma_exponent", .type = LSW_F_UINT, AT(ewma_exp), .max = 10, .dflt = 2},
	{.name = "load_min_threshold", .type = LSW_F_UINT, AT(load_min), .max = 100, .dflt = 20},
	{.name = "load_max_threshold", .type = LSW_F_UINT, AT(load_max), .min = 1, .max = 100,
	 .dflt = 80},
	{.name = "queue_min_threshold", .type = LSW_F_SIZE, AT(queue_min), .max = 1ull << 34,
	 .dflt = 2080},
	{.name = "queue_max_threshold", .type = LSW_F_SIZE, AT(queue_max), .max = 1ull << 34,
	 .dflt = 208000},
	{.name = "load_weight", .type = LSW_F_UINT, AT(w_load), .max = 100, .dflt = 50},
	{.name = "queue_weight", .type = LSW_F_UINT, AT(w_queue), .max = 100, .dflt = 50},
};
#undef AT
static const struct lsw_fields uplink = LSW_FIELDS(uplink_rows);
LSW_CONFIG_OBJECT(uplink, "ECMP.GLOBAL", &uplink)

/* A group's settings (the seed's default is LSW.global.ecmp_seed). */
#define AT(m) LSW_AT(struct lsw_ecmp_grp_conf, m)
static const struct lsw_field group_rows[] = {
	{.name = "mode", .type = LSW_F_ENUM, AT(mode), .choices = lsw_ecmp_mode_names,
	 .dflt = LSW_ECMP_HASH},
	{.name = "hash_fields", .type = LSW_F_CUSTOM, AT(fields), .dflt = LSW_HF_DEFAULT,
	 .fn = hash_fields},
	{.name = "seed", .type = LSW_F_UINT, AT(seed), .max = UINT32_MAX},
	{.name = "inactivity_time", .type = LSW_F_UINT, AT(inactivity_us), .min = 1,
	 .max = 10000000, .dflt = 256},
	{.name = "flowlet_table_size", .type = LSW_F_UINT, AT(table_size), .min = 64,
	 .max = 1 << 20, .dflt = 4096},
	{.name = "rebalance", .type = LSW_F_BOOL, AT(rebalance)},
	{.name = "rebalance_margin", .type = LSW_F_UINT, AT(margin), .min = 1,
	 .max = LSW_ECMP_LEVELS - 1, .dflt = 2},
	{.name = "rebalance_interval", .type = LSW_F_UINT, AT(rebalance_us), .min = 1,
	 .max = 10000000, .dflt = 500},
};
#undef AT
static const struct lsw_fields group = LSW_FIELDS(group_rows);
LSW_CONFIG_OBJECT(group, "ECMP", &group)

static const struct lsw_field global_rows[] = {
	{.name = "uplink", .type = LSW_F_INCLUDE, .sub = &uplink},
	{.name = "group", .type = LSW_F_INCLUDE, LSW_AT(struct lsw_ecmp_conf, dflt), .sub = &group},
};
static const struct lsw_fields global = LSW_FIELDS(global_rows);

static const struct lsw_field entry_rows[] = {
	{.name = "uplink", .type = LSW_F_INCLUDE, .sub = &uplink,
	 .refuse = "an uplink setting: set it in ECMP.GLOBAL"},
	{.name = "group", .type = LSW_F_INCLUDE, .sub = &group},
};
static const struct lsw_fields entry = LSW_FIELDS(entry_rows);

/* Checks of a group's settings once GLOBAL's defaults are merged in. */
static void
check_group(const struct lsw_ecmp_grp_conf *g, const char *path, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];

	if (g->table_size & (g->table_size - 1)) {
		lsw_path_key(p, path, "flowlet_table_size");
		lsw_errs_add(errs, p, "%u is not a power of two", g->table_size);
	}
	if (g->rebalance && g->mode != LSW_ECMP_FLOWLET_QUALITY) {
		lsw_path_key(p, path, "rebalance");
		lsw_errs_add(errs, p, "reactive rebalance applies to mode flowlet_quality only "
			     "(this group's mode is %s)", lsw_ecmp_mode_names[g->mode]);
	}
}

static void
parse_global(json_t *o, struct lsw_ecmp_conf *e, struct lsw_errs *errs)
{
	const char *path = "$.ECMP.GLOBAL";
	char p[LSW_PATH_LEN];

	if (!lsw_decode(o, path, &global, e, NULL, NULL, errs))
		return;
	if (e->load_min >= e->load_max) {
		lsw_path_key(p, path, "load_max_threshold");
		lsw_errs_add(errs, p, "%u%% is not above load_min_threshold (%u%%)", e->load_max,
			     e->load_min);
	}
	if (e->queue_min >= e->queue_max) {
		lsw_path_key(p, path, "queue_max_threshold");
		lsw_errs_add(errs, p, "%llu is not above queue_min_threshold (%llu)",
			     (unsigned long long)e->queue_max, (unsigned long long)e->queue_min);
	}
	if (e->w_load + e->w_queue != 100) {
		lsw_path_key(p, path, json_object_get(o, "queue_weight") ? "queue_weight" :
			     "load_weight");
		lsw_errs_add(errs, p, "load_weight (%u) and queue_weight (%u) must add up to 100",
			     e->w_load, e->w_queue);
	}
	check_group(&e->dflt, path, errs);
}

void
lsw_config_ecmp_defaults(struct lsw_ecmp_conf *e, uint32_t seed)
{
	memset(e, 0, sizeof(*e));
	lsw_decode_defaults(&global, e);
	e->dflt.seed = seed;
}

const struct lsw_ecmp_grp_conf *
lsw_ecmp_group_conf(const struct lsw_config *c, bool v6, uint32_t prefix,
		    const uint8_t *prefix6, uint8_t plen)
{
	for (uint32_t i = 0; i < c->ecmp.n_grp; i++) {
		const struct lsw_ecmp_grp_conf *g = &c->ecmp.grp[i];
		if (g->v6 == v6 && g->plen == plen &&
		    (v6 ? lsw_ip6_eq(g->prefix6, prefix6) : g->prefix == prefix))
			return g;
	}
	return &c->ecmp.dflt;
}

/* ECMP."PREFIX": a static route's group, with GLOBAL's settings where it says nothing. */
static void
parse_entry(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	struct lsw_ecmp_conf *e = &c->ecmp;
	struct lsw_ecmp_grp_conf *g = &e->grp[e->n_grp];

	if (strcmp(key, "GLOBAL") == 0)
		return;
	*g = e->dflt;
	const char *pfx = strncasecmp(key, "default|", 8) == 0 ? key + 8 : key;
	bool multi = false; /* a route of the prefix with two or more next hops */
	if (lsw_parse_prefix(pfx, &g->prefix, &g->plen)) {
		for (uint32_t i = 0; i < c->n_routes; i++)
			if (c->routes[i].prefix == g->prefix && c->routes[i].plen == g->plen)
				multi = !c->routes[i].blackhole && c->routes[i].n_nh >= 2;
	} else if (lsw_parse_prefix6(pfx, g->prefix6, &g->plen)) {
		g->v6 = true;
		g->prefix = 0;
		for (uint32_t i = 0; i < c->n_routes6; i++)
			if (lsw_ip6_eq(c->routes6[i].prefix, g->prefix6) &&
			    c->routes6[i].plen == g->plen)
				multi = !c->routes6[i].blackhole && c->routes6[i].n_nh >= 2;
	} else {
		lsw_errs_add(errs, p, "keys are GLOBAL or a STATIC_ROUTE prefix (A.B.C.D/LEN or "
			     "X:X::X/LEN)");
		return;
	}
	if (!multi) {
		lsw_errs_add(errs, p, "no STATIC_ROUTE %s with two or more next hops", pfx);
		return;
	}
	if (lsw_ecmp_group_conf(c, g->v6, g->prefix, g->prefix6, g->plen) != &e->dflt)
		lsw_errs_add(errs, p, "the same prefix is given twice");
	unsigned int before = errs->n;
	if (!lsw_decode(o, p, &entry, g, c, NULL, errs))
		return;
	check_group(g, p, errs);
	if (errs->n == before)
		e->n_grp++;
}

void
lsw_config_ecmp(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	json_t *o;

	if (json_is_object(t)) {
		if ((o = json_object_get(t, "GLOBAL")) != NULL)
			parse_global(o, &c->ecmp, errs);
		c->ecmp.grp = calloc(json_object_size(t) + 1, sizeof(*c->ecmp.grp));
	}
	lsw_decode_entries(t, "$.ECMP", parse_entry, c, errs);
}
