/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ECMP table: ECMP.GLOBAL holds the uplink quality settings (sampling, EWMA, bands,
 * weights) and the defaults of every next-hop group; ECMP|<prefix> overrides the group of
 * that STATIC_ROUTE (one with two or more next hops). Defaults follow SAI and SONiC's ARS
 * where they have one (reference/loadbalance.md 2.7): idle time 256 us, EWMA exponent 2,
 * 8 bands, Juniper's 50/50 weights and 20-80% load band.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "config.h"
#include "jsonv.h"

/* Uplink settings: GLOBAL only, since they describe ports, not groups. */
static const char *const port_fields[] = {
	"sample_interval", "ewma_exponent", "load_min_threshold", "load_max_threshold",
	"queue_min_threshold", "queue_max_threshold", "load_weight", "queue_weight", NULL,
};

static const char *const group_fields[] = {
	"mode", "hash_fields", "seed", "inactivity_time", "flowlet_table_size", "rebalance",
	"rebalance_margin", "rebalance_interval", NULL,
};

static const char *const hash_field_names[] = {
	"SRC_IP", "DST_IP", "L4_SRC_PORT", "L4_DST_PORT", "IP_PROTOCOL", NULL,
};

/* "hash_fields": a list or a comma-separated string of SAI field names. */
static void
parse_hash_fields(json_t *v, const char *path, uint8_t *out, struct lsw_errs *errs)
{
	char buf[256], p[LSW_PATH_LEN];
	uint8_t f = 0;

	if (json_is_string(v)) {
		snprintf(buf, sizeof(buf), "%s", json_string_value(v));
		json_t *arr = json_array();
		for (char *save, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
			json_array_append_new(arr, json_string(t));
		parse_hash_fields(arr, path, out, errs);
		json_decref(arr);
		return;
	}
	if (!json_is_array(v) || json_array_size(v) == 0) {
		lsw_errs_add(errs, path, "expected a non-empty list of SRC_IP, DST_IP, L4_SRC_PORT, "
			     "L4_DST_PORT, IP_PROTOCOL");
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		unsigned int k;
		lsw_path_index(p, path, i);
		if (lsw_jv_enum(e, p, hash_field_names, &k, errs))
			f |= (uint8_t)(1u << k);
	}
	*out = f;
}

static void
get_u32(json_t *o, const char *path, const char *key, uint64_t min, uint64_t max, void *out,
	size_t len, struct lsw_errs *errs)
{
	uint32_t x = len == 1 ? *(uint8_t *)out : *(uint32_t *)out;

	lsw_jv_get_u32(o, path, key, min, max, &x, errs);
	if (len == 1)
		*(uint8_t *)out = (uint8_t)x;
	else
		*(uint32_t *)out = x;
}
#define GET(o, path, key, min, max, field) \
	get_u32(o, path, key, min, max, &(field), sizeof(field), errs)

static void
parse_group(json_t *o, const char *path, struct lsw_ecmp_grp_conf *g, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];
	json_t *v;

	if ((v = json_object_get(o, "mode")) != NULL) {
		unsigned int m;
		lsw_path_key(p, path, "mode");
		if (lsw_jv_enum(v, p, lsw_ecmp_mode_names, &m, errs))
			g->mode = (uint8_t)m;
	}
	if ((v = json_object_get(o, "hash_fields")) != NULL) {
		lsw_path_key(p, path, "hash_fields");
		parse_hash_fields(v, p, &g->fields, errs);
	}
	GET(o, path, "seed", 0, UINT32_MAX, g->seed);
	GET(o, path, "inactivity_time", 1, 10000000, g->inactivity_us);
	GET(o, path, "flowlet_table_size", 64, 1 << 20, g->table_size);
	if (g->table_size & (g->table_size - 1)) {
		lsw_path_key(p, path, "flowlet_table_size");
		lsw_errs_add(errs, p, "%u is not a power of two", g->table_size);
	}
	if ((v = json_object_get(o, "rebalance")) != NULL) {
		lsw_path_key(p, path, "rebalance");
		lsw_jv_bool(v, p, &g->rebalance, errs);
	}
	GET(o, path, "rebalance_margin", 1, LSW_ECMP_LEVELS - 1, g->margin);
	GET(o, path, "rebalance_interval", 1, 10000000, g->rebalance_us);
}

/* Checks of a group's settings once GLOBAL's defaults are merged in. */
static void
check_group(const struct lsw_ecmp_grp_conf *g, const char *path, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];

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
	json_t *v;

	GET(o, path, "sample_interval", 1, 1000000, e->sample_us);
	GET(o, path, "ewma_exponent", 0, 10, e->ewma_exp);
	GET(o, path, "load_min_threshold", 0, 100, e->load_min);
	GET(o, path, "load_max_threshold", 1, 100, e->load_max);
	if (e->load_min >= e->load_max) {
		lsw_path_key(p, path, "load_max_threshold");
		lsw_errs_add(errs, p, "%u%% is not above load_min_threshold (%u%%)", e->load_max,
			     e->load_min);
	}
	static const char *const qk[2] = {"queue_min_threshold", "queue_max_threshold"};
	uint64_t *qv[2] = {&e->queue_min, &e->queue_max};
	for (int i = 0; i < 2; i++)
		if ((v = json_object_get(o, qk[i])) != NULL) {
			lsw_path_key(p, path, qk[i]);
			lsw_jv_size(v, p, 1ull << 34, qv[i], errs);
		}
	if (e->queue_min >= e->queue_max) {
		lsw_path_key(p, path, "queue_max_threshold");
		lsw_errs_add(errs, p, "%llu is not above queue_min_threshold (%llu)",
			     (unsigned long long)e->queue_max, (unsigned long long)e->queue_min);
	}
	GET(o, path, "load_weight", 0, 100, e->w_load);
	GET(o, path, "queue_weight", 0, 100, e->w_queue);
	if (e->w_load + e->w_queue != 100) {
		lsw_path_key(p, path, json_object_get(o, "queue_weight") ? "queue_weight" :
			     "load_weight");
		lsw_errs_add(errs, p, "load_weight (%u) and queue_weight (%u) must add up to 100",
			     e->w_load, e->w_queue);
	}
	parse_group(o, path, &e->dflt, errs);
	check_group(&e->dflt, path, errs);
}

void
lsw_config_ecmp_defaults(struct lsw_ecmp_conf *e, uint32_t seed)
{
	*e = (struct lsw_ecmp_conf){
		.sample_us = 16, .ewma_exp = 2, .load_min = 20, .load_max = 80,
		.queue_min = 2080, .queue_max = 208000, .w_load = 50, .w_queue = 50,
		.dflt = {
			.mode = LSW_ECMP_HASH, .fields = LSW_HF_DEFAULT, .seed = seed,
			.inactivity_us = 256, .table_size = 4096, .margin = 2,
			.rebalance_us = 500,
		},
	};
}

void
lsw_config_ecmp(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_ecmp_conf *e = &c->ecmp;
	char p[LSW_PATH_LEN];
	const char *key;
	json_t *o;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.ECMP", "expected an object");
		return;
	}
	const char *all[32];
	size_t n = 0;
	for (size_t i = 0; port_fields[i]; i++)
		all[n++] = port_fields[i];
	for (size_t i = 0; group_fields[i]; i++)
		all[n++] = group_fields[i];
	all[n] = NULL;
	if ((o = json_object_get(t, "GLOBAL")) != NULL && lsw_jv_object(o, "$.ECMP.GLOBAL", all,
									  errs))
		parse_global(o, e, errs);
	e->grp = calloc(json_object_size(t) + 1, sizeof(*e->grp));
	json_object_foreach(t, key, o) {
		if (strcmp(key, "GLOBAL") == 0)
			continue;
		lsw_path_key(p, "$.ECMP", key);
		struct lsw_ecmp_grp_conf *g = &e->grp[e->n_grp];
		*g = e->dflt;
		const char *pfx = strncasecmp(key, "default|", 8) == 0 ? key + 8 : key;
		if (!lsw_parse_prefix(pfx, &g->prefix, &g->plen)) {
			lsw_errs_add(errs, p, "keys are GLOBAL or a STATIC_ROUTE prefix (A.B.C.D/LEN)");
			continue;
		}
		const struct lsw_route_conf *r = NULL;
		for (uint32_t i = 0; i < c->n_routes; i++)
			if (c->routes[i].prefix == g->prefix && c->routes[i].plen == g->plen)
				r = &c->routes[i];
		if (r == NULL || r->blackhole || r->n_nh < 2) {
			lsw_errs_add(errs, p, "no STATIC_ROUTE %s with two or more next hops", pfx);
			continue;
		}
		for (uint32_t i = 0; i < e->n_grp; i++)
			if (e->grp[i].prefix == g->prefix && e->grp[i].plen == g->plen)
				lsw_errs_add(errs, p, "the same prefix is given twice");
		unsigned int before = errs->n;
		if (!lsw_jv_object(o, p, all, errs))
			continue;
		for (size_t i = 0; port_fields[i]; i++)
			if (json_object_get(o, port_fields[i]) != NULL) {
				char pf[LSW_PATH_LEN];
				lsw_path_key(pf, p, port_fields[i]);
				lsw_errs_add(errs, pf, "an uplink setting: set it in ECMP.GLOBAL");
			}
		parse_group(o, p, g, errs);
		check_group(g, p, errs);
		if (errs->n == before)
			e->n_grp++;
	}
}
