/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer and QoS tables: LSW.buffer, BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE,
 * CABLE_LENGTH, LOSSLESS_TRAFFIC_PATTERN, DEFAULT_LOSSLESS_BUFFER_PARAMETER, the four
 * classification maps, PORT_QOS_MAP, SCHEDULER and QUEUE. Checked after the ports, every
 * error with its JSON path. A config without any of them gets a default buffer (README).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "eal.h"
#include "jsonv.h"

#define MAX_BUFFER (1ull << 40)

static const char *const map_tables[LSW_MAP_KINDS] = {
	"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP",
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_DOT1P_MAP",
};
static const char *const map_fields[LSW_MAP_KINDS] = {
	"dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_pg_map", "tc_to_queue_map",
	"pfc_to_pg_map", "pfc_to_queue_map", "tc_to_dot1p_map",
};

/* SONiC's AZURE maps (reference/buffers.md 5), always present under that name. */
static void
builtin_maps(struct lsw_qos_conf *q)
{
	for (int k = 0; k < LSW_MAP_KINDS; k++) {
		struct lsw_map_conf *m = &q->map[k][0];
		snprintf(m->name, sizeof(m->name), "AZURE");
		q->n_maps[k] = 1;
		for (int i = 0; i < 64; i++)
			m->v[i] = k == LSW_MAP_DSCP_TO_TC ? 1 : (k == LSW_MAP_TC_TO_PG ? 0 : i & 7);
	}
	uint8_t *dscp = q->map[LSW_MAP_DSCP_TO_TC][0].v;
	dscp[3] = 3, dscp[4] = 4, dscp[8] = 0, dscp[46] = 5, dscp[48] = 6;
	uint8_t *pg = q->map[LSW_MAP_TC_TO_PG][0].v;
	pg[3] = 3, pg[4] = 4, pg[7] = 7;
	/* PFC priority n pauses PG n and is honoured on queue n (SONiC's {3:3, 4:4} and the
	 * identity default). */
}

static void
buffer_defaults(struct lsw_buffer_conf *b)
{
	*b = (struct lsw_buffer_conf){
		.total = 16ull << 20,
		.ai_sizes = {4160, 64},
		.n_ai_sizes = 2,
		.mac_phy_delay = 1024,
		.pipeline_latency = 18 * 1024,
		.peer_response_time = 0,
		.lossless_mtu = 1024,
		.small_packet_percentage = 50,
		.default_dynamic_th = 0,
		.shaper_overhead = 24, /* preamble 8, FCS 4, inter-frame gap 12 */
		.shaper_burst_us = 10,
	};
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static bool
get_size(json_t *o, const char *path, const char *key, uint64_t max, uint64_t *out,
	 struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN];
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return false;
	lsw_path_key(p, path, key);
	return lsw_jv_size(v, p, max, out, errs);
}

static void
parse_lsw_buffer(json_t *o, struct lsw_buffer_conf *b, struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"size", "ai_packet_sizes", "cell_size", "headroom_model", "mac_phy_delay",
		"pipeline_latency", "peer_response_time", "shaper_overhead_bytes",
		"shaper_burst_us", NULL,
	};
	static const char *const models[] = {"mellanox", "generic", NULL};
	const char *path = "$.LSW.buffer";
	char p[LSW_PATH_LEN];
	uint64_t x;
	json_t *v;

	if (o == NULL || !lsw_jv_object(o, path, fields, errs))
		return;
	if (get_size(o, path, "size", MAX_BUFFER, &x, errs)) {
		if (x < 64 * 1024)
			lsw_errs_add(errs, "$.LSW.buffer.size", "a buffer below 64KB holds nothing");
		b->total = x;
	}
	if ((v = json_object_get(o, "ai_packet_sizes")) != NULL) {
		lsw_path_key(p, path, "ai_packet_sizes");
		if (!json_is_array(v) || json_array_size(v) == 0 ||
		    json_array_size(v) > LSW_MAX_AI_SIZES) {
			lsw_errs_add(errs, p, "expected an array of 1 to %d frame sizes",
				     LSW_MAX_AI_SIZES);
		} else {
			size_t i;
			json_t *e;
			b->n_ai_sizes = 0;
			json_array_foreach(v, i, e) {
				char pi[LSW_PATH_LEN];
				lsw_path_index(pi, p, i);
				if (lsw_jv_uint(e, pi, 60, LSW_MAX_FRAME, &x, errs))
					b->ai_sizes[b->n_ai_sizes++] = (uint32_t)x;
			}
		}
	}
	lsw_jv_get_u32(o, path, "cell_size", 1, LSW_MAX_FRAME, &b->cell, errs);
	if ((v = json_object_get(o, "headroom_model")) != NULL) {
		unsigned int m;
		lsw_path_key(p, path, "headroom_model");
		if (lsw_jv_enum(v, p, models, &m, errs))
			b->headroom_model = (uint8_t)m;
	}
	if (get_size(o, path, "mac_phy_delay", 1 << 20, &x, errs))
		b->mac_phy_delay = (uint32_t)x;
	if (get_size(o, path, "pipeline_latency", 1 << 20, &x, errs))
		b->pipeline_latency = (uint32_t)x;
	if (get_size(o, path, "peer_response_time", 1 << 20, &x, errs))
		b->peer_response_time = (uint32_t)x;
	lsw_jv_get_u32(o, path, "shaper_overhead_bytes", 0, 64, &b->shaper_overhead, errs);
	lsw_jv_get_u32(o, path, "shaper_burst_us", 1, 100000, &b->shaper_burst_us, errs);
}

/* Tables keyed by a profile name (AZURE) with one entry: LOSSLESS_TRAFFIC_PATTERN and
 * DEFAULT_LOSSLESS_BUFFER_PARAMETER. */
static void
parse_lossless_params(json_t *doc, struct lsw_buffer_conf *b, struct lsw_errs *errs)
{
	static const char *const pat_fields[] = {"mtu", "small_packet_percentage", NULL};
	static const char *const def_fields[] = {"default_dynamic_th", NULL};
	char p[LSW_PATH_LEN];
	const char *k;
	json_t *t, *o;

	if ((t = json_object_get(doc, "LOSSLESS_TRAFFIC_PATTERN")) != NULL) {
		if (!json_is_object(t))
			lsw_errs_add(errs, "$.LOSSLESS_TRAFFIC_PATTERN", "expected an object");
		else
			json_object_foreach(t, k, o) {
				lsw_path_key(p, "$.LOSSLESS_TRAFFIC_PATTERN", k);
				if (!lsw_jv_object(o, p, pat_fields, errs))
					continue;
				lsw_jv_get_u32(o, p, "mtu", 64, LSW_MAX_MTU, &b->lossless_mtu, errs);
				lsw_jv_get_u32(o, p, "small_packet_percentage", 0, 100,
					&b->small_packet_percentage, errs);
			}
	}
	if ((t = json_object_get(doc, "DEFAULT_LOSSLESS_BUFFER_PARAMETER")) != NULL) {
		if (!json_is_object(t))
			lsw_errs_add(errs, "$.DEFAULT_LOSSLESS_BUFFER_PARAMETER", "expected an object");
		else
			json_object_foreach(t, k, o) {
				lsw_path_key(p, "$.DEFAULT_LOSSLESS_BUFFER_PARAMETER", k);
				if (!lsw_jv_object(o, p, def_fields, errs))
					continue;
				json_t *v = json_object_get(o, "default_dynamic_th");
				int64_t th;
				char pf[LSW_PATH_LEN];
				lsw_path_key(pf, p, "default_dynamic_th");
				if (v && lsw_jv_int(v, pf, INT8_MIN, INT8_MAX, &th, errs))
					b->default_dynamic_th = (int8_t)th;
			}
	}
}

static int
find_name(const char *name, const void *arr, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp((const char *)arr + i * stride, name) == 0)
			return (int)i;
	return -1;
}

/* "[BUFFER_POOL|name]" (older SONiC) or "name". */
static const char *
ref_name(const char *s, const char *table, char *buf, size_t len)
{
	size_t tl = strlen(table);

	if (s[0] == '[' && strncmp(s + 1, table, tl) == 0 && s[1 + tl] == '|' &&
	    s[strlen(s) - 1] == ']') {
		snprintf(buf, len, "%.*s", (int)(strlen(s) - tl - 3), s + 2 + tl);
		return buf;
	}
	return s;
}

static void
parse_maps(json_t *doc, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	for (int k = 0; k < LSW_MAP_KINDS; k++) {
		json_t *t = json_object_get(doc, map_tables[k]), *o, *v;
		int nkeys = k == LSW_MAP_DSCP_TO_TC ? 64 : 8;
		char tp[LSW_PATH_LEN], p[LSW_PATH_LEN], pv[LSW_PATH_LEN];
		const char *name, *key;

		if (t == NULL)
			continue;
		snprintf(tp, sizeof(tp), "$.%s", map_tables[k]);
		if (!json_is_object(t)) {
			lsw_errs_add(errs, tp, "expected an object of maps");
			continue;
		}
		json_object_foreach(t, name, o) {
			lsw_path_key(p, tp, name);
			if (!json_is_object(o)) {
				lsw_errs_add(errs, p, "expected an object of key: value");
				continue;
			}
			int idx = find_name(name, q->map[k], q->n_maps[k], sizeof(q->map[k][0]));
			if (idx < 0) {
				if (q->n_maps[k] == LSW_MAX_MAPS || strlen(name) >= LSW_QOS_NAME_LEN) {
					lsw_errs_add(errs, p, "too many maps or name too long");
					continue;
				}
				idx = q->n_maps[k]++;
			}
			struct lsw_map_conf *m = &q->map[k][idx];
			snprintf(m->name, sizeof(m->name), "%s", name);
			/* Unmapped keys go to 0, as on SONiC. */
			memset(m->v, 0, sizeof(m->v));
			json_object_foreach(o, key, v) {
				char *end;
				long kv = strtol(key, &end, 10);
				uint64_t x;
				lsw_path_key(pv, p, key);
				if (*key == '\0' || *end != '\0' || kv < 0 || kv >= nkeys) {
					lsw_errs_add(errs, pv, "keys are %s 0..%d",
						     k == LSW_MAP_DSCP_TO_TC ? "DSCP values" :
						     k == LSW_MAP_DOT1P_TO_TC ? "802.1p priorities" :
						     "traffic classes", nkeys - 1);
					continue;
				}
				if (lsw_jv_uint(v, pv, 0, 7, &x, errs))
					m->v[kv] = (uint8_t)x;
			}
		}
	}
}

static void
parse_schedulers(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	static const char *const fields[] = {"type", "weight", NULL};
	static const char *const types[] = {"DWRR", "STRICT", "WRR", NULL};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];
	const char *name;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.SCHEDULER", "expected an object");
		return;
	}
	json_object_foreach(t, name, o) {
		lsw_path_key(p, "$.SCHEDULER", name);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		if (q->n_scheds == LSW_MAX_SCHEDULERS || strlen(name) >= LSW_QOS_NAME_LEN ||
		    find_name(name, q->sched, q->n_scheds, sizeof(q->sched[0])) >= 0) {
			lsw_errs_add(errs, p, "too many schedulers, name too long, or 'default'");
			continue;
		}
		struct lsw_sched_conf *s = &q->sched[q->n_scheds];
		unsigned int type = 0;
		uint64_t w = 1;
		snprintf(s->name, sizeof(s->name), "%s", name);
		lsw_path_key(pf, p, "type");
		if ((v = json_object_get(o, "type")) == NULL)
			lsw_errs_add(errs, pf, "required: DWRR, WRR or STRICT");
		else if (!lsw_jv_enum(v, pf, types, &type, errs))
			continue;
		lsw_path_key(pf, p, "weight");
		v = json_object_get(o, "weight");
		if (type == 1 && v != NULL) {
			lsw_errs_add(errs, pf, "a STRICT scheduler has no weight");
			continue;
		}
		if (type != 1 && v == NULL) {
			lsw_errs_add(errs, pf, "required for DWRR and WRR: 1..100");
			continue;
		}
		if (v != NULL && !lsw_jv_uint(v, pf, 1, 100, &w, errs))
			continue;
		s->type = type == 1 ? LSW_SCHED_STRICT : LSW_SCHED_DWRR;
		s->weight = (uint16_t)w;
		q->n_scheds++;
	}
}

static void
parse_pools(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	static const char *const fields[] = {"type", "mode", "size", "xoff", NULL};
	static const char *const types[] = {"ingress", "egress", NULL};
	static const char *const modes[] = {"dynamic", "static", NULL};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];
	const char *name;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.BUFFER_POOL", "expected an object");
		return;
	}
	json_object_foreach(t, name, o) {
		lsw_path_key(p, "$.BUFFER_POOL", name);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		if (q->n_pools == LSW_MAX_POOLS || strlen(name) >= LSW_QOS_NAME_LEN) {
			lsw_errs_add(errs, p, "more than %d pools or name too long", LSW_MAX_POOLS);
			continue;
		}
		struct lsw_pool_conf *pc = &q->pool[q->n_pools];
		unsigned int x = 0;
		*pc = (struct lsw_pool_conf){.size = q->buf.total};
		snprintf(pc->name, sizeof(pc->name), "%s", name);
		lsw_path_key(pf, p, "type");
		if ((v = json_object_get(o, "type")) == NULL) {
			lsw_errs_add(errs, pf, "required: ingress or egress");
			continue;
		}
		if (!lsw_jv_enum(v, pf, types, &x, errs))
			continue;
		pc->type = (uint8_t)x;
		lsw_path_key(pf, p, "mode");
		if ((v = json_object_get(o, "mode")) != NULL && lsw_jv_enum(v, pf, modes, &x, errs))
			pc->mode = (uint8_t)x;
		/* No size: the whole buffer (the pools are views of the same memory). */
		get_size(o, p, "size", MAX_BUFFER, &pc->size, errs);
		if (pc->size > q->buf.total) {
			lsw_path_key(pf, p, "size");
			lsw_errs_add(errs, pf, "%llu bytes is more than the buffer (LSW.buffer.size, "
				     "%llu)", (unsigned long long)pc->size,
				     (unsigned long long)q->buf.total);
		}
		get_size(o, p, "xoff", MAX_BUFFER, &pc->xoff, errs);
		lsw_path_key(pf, p, "xoff");
		if (pc->xoff && pc->type == LSW_POOL_EGRESS)
			lsw_errs_add(errs, pf, "shared headroom is for ingress pools");
		else if (pc->xoff >= pc->size && pc->xoff)
			lsw_errs_add(errs, pf, "the shared headroom must be smaller than the pool");
		q->n_pools++;
	}
}

static void
parse_profiles(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"pool", "size", "dynamic_th", "static_th", "xon", "xoff", "xon_offset", NULL,
	};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN], buf[LSW_QOS_NAME_LEN];
	const char *name, *s;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.BUFFER_PROFILE", "expected an object");
		return;
	}
	json_object_foreach(t, name, o) {
		unsigned int before = errs->n;
		lsw_path_key(p, "$.BUFFER_PROFILE", name);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		if (q->n_profiles == LSW_MAX_PROFILES - LSW_MAX_PORTS ||
		    strlen(name) >= LSW_QOS_NAME_LEN || strcmp(name, "NULL") == 0) {
			lsw_errs_add(errs, p, "too many profiles, name too long, or named NULL");
			continue;
		}
		struct lsw_profile_conf *pr = &q->profile[q->n_profiles];
		*pr = (struct lsw_profile_conf){0};
		snprintf(pr->name, sizeof(pr->name), "%s", name);
		lsw_path_key(pf, p, "pool");
		if ((v = json_object_get(o, "pool")) == NULL) {
			lsw_errs_add(errs, pf, "required: a BUFFER_POOL name");
			continue;
		}
		if (!lsw_jv_str(v, pf, 128, &s, errs))
			continue;
		int pool = find_name(ref_name(s, "BUFFER_POOL", buf, sizeof(buf)), q->pool,
				     q->n_pools, sizeof(q->pool[0]));
		if (pool < 0) {
			lsw_errs_add(errs, pf, "no BUFFER_POOL named '%s'", s);
			continue;
		}
		pr->pool = (uint16_t)pool;
		const struct lsw_pool_conf *pc = &q->pool[pool];
		json_t *dyn = json_object_get(o, "dynamic_th"), *st = json_object_get(o, "static_th");
		if ((dyn == NULL) == (st == NULL)) {
			lsw_errs_add(errs, p, "give exactly one of dynamic_th and static_th");
			continue;
		}
		if (dyn != NULL) {
			int64_t th;
			lsw_path_key(pf, p, "dynamic_th");
			if (!lsw_jv_int(dyn, pf, INT8_MIN, INT8_MAX, &th, errs))
				continue;
			pr->mode = LSW_TH_DYNAMIC;
			pr->dynamic_th = (int8_t)th;
		} else {
			lsw_path_key(pf, p, "static_th");
			if (!lsw_jv_size(st, pf, pc->size, &pr->static_th, errs))
				continue;
			pr->mode = LSW_TH_STATIC;
		}
		/* sonic-swss#2438: a profile whose threshold mode differs from its pool's is
		 * silently mis-programmed there; here it is refused. */
		if (pr->mode != pc->mode) {
			lsw_path_key(pf, p, dyn ? "dynamic_th" : "static_th");
			lsw_errs_add(errs, pf, "pool '%s' is %s: its profiles take %s", pc->name,
				     pc->mode == LSW_TH_DYNAMIC ? "dynamic" : "static",
				     pc->mode == LSW_TH_DYNAMIC ? "dynamic_th" : "static_th");
		}
		get_size(o, p, "size", pc->size, &pr->size, errs);
		get_size(o, p, "xoff", pc->size, &pr->xoff, errs);
		get_size(o, p, "xon", pc->size, &pr->xon, errs);
		get_size(o, p, "xon_offset", pc->size, &pr->xon_offset, errs);
		bool pfc = json_object_get(o, "xoff") || json_object_get(o, "xon") ||
			   json_object_get(o, "xon_offset");
		if (pfc && pc->type == LSW_POOL_EGRESS)
			lsw_errs_add(errs, p, "xon/xoff belong to ingress (PG) profiles; '%s' is "
				     "an egress pool", pc->name);
		/* SONiC's size holds the private headroom (size = xon + xoff). */
		if (pr->xoff && pc->xoff == 0 && pr->size < pr->xoff) {
			lsw_path_key(pf, p, "size");
			lsw_errs_add(errs, pf, "size (%llu) must hold the headroom xoff (%llu): "
				     "size = xon + xoff", (unsigned long long)pr->size,
				     (unsigned long long)pr->xoff);
		}
		if (errs->n == before)
			q->n_profiles++;
	}
}

/* A config without BUFFER_POOL gets one ingress and one egress pool of the whole buffer. */
static void
default_pools(struct lsw_qos_conf *q)
{
	if (q->n_pools != 0)
		return;
	q->pool[0] = (struct lsw_pool_conf){.name = "ingress_lossless_pool",
					    .type = LSW_POOL_INGRESS, .size = q->buf.total};
	q->pool[1] = (struct lsw_pool_conf){.name = "egress_lossy_pool",
					    .type = LSW_POOL_EGRESS, .size = q->buf.total};
	q->n_pools = 2;
}

/* ingress_lossy_profile and egress_lossy_profile, unless the config defines them, on the
 * first dynamic pool of their type: they take the PGs and queues left unbound. */
static void
default_profiles(struct lsw_qos_conf *q)
{
	static const struct {
		const char *profile;
		uint8_t type;
	} d[] = {
		{"ingress_lossy_profile", LSW_POOL_INGRESS},
		{"egress_lossy_profile", LSW_POOL_EGRESS},
	};

	for (int i = 0; i < 2; i++) {
		int pool = -1;
		for (uint16_t j = 0; j < q->n_pools && pool < 0; j++)
			if (q->pool[j].type == d[i].type && q->pool[j].mode == LSW_TH_DYNAMIC)
				pool = j;
		if (pool < 0 ||
		    find_name(d[i].profile, q->profile, q->n_profiles, sizeof(q->profile[0])) >= 0)
			continue;
		struct lsw_profile_conf *pr = &q->profile[q->n_profiles++];
		*pr = (struct lsw_profile_conf){.pool = (uint16_t)pool, .mode = LSW_TH_DYNAMIC,
						.dynamic_th = 3};
		snprintf(pr->name, sizeof(pr->name), "%s", d[i].profile);
	}
}

/* "Ethernet0|3-4", "Ethernet0,Ethernet4|0": ports and an index range. */
static bool
parse_port_range(const struct lsw_config *c, const char *key, const char *path, bool ports[],
		 int *lo, int *hi, int max, struct lsw_errs *errs)
{
	char buf[512];
	const char *bar = strrchr(key, '|');

	if (bar == NULL || strlen(key) >= sizeof(buf)) {
		lsw_errs_add(errs, path, "keys are PORT|INDEX or PORT|FIRST-LAST");
		return false;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(bar - key), key);
	memset(ports, 0, sizeof(bool) * LSW_MAX_PORTS);
	for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
		int pi = lsw_config_port_index(c, tok);
		if (pi < 0) {
			lsw_errs_add(errs, path, "no port named '%s'", tok);
			return false;
		}
		ports[pi] = true;
	}
	char tail;
	int n = sscanf(bar + 1, "%d-%d%c", lo, hi, &tail);
	if (n == 1)
		*hi = *lo;
	if ((n != 1 && n != 2) || *lo < 0 || *hi > max || *lo > *hi ||
	    strspn(bar + 1, "0123456789-") != strlen(bar + 1)) {
		lsw_errs_add(errs, path, "'%s' is not an index or range within 0-%d", bar + 1, max);
		return false;
	}
	return true;
}

static int
computed_profile(struct lsw_config *c, uint16_t port, const char *path, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = &c->qos;
	const struct lsw_port_conf *pc = &c->port[port];
	struct lsw_headroom h;
	char name[LSW_QOS_NAME_LEN];
	int pool = find_name("ingress_lossless_pool", q->pool, q->n_pools, sizeof(q->pool[0]));

	for (uint16_t j = 0; j < q->n_pools && pool < 0; j++)
		if (q->pool[j].type == LSW_POOL_INGRESS)
			pool = j;
	if (pool < 0) {
		lsw_errs_add(errs, path, "profile NULL (computed headroom) needs an ingress pool");
		return -1;
	}
	if (pc->speed == 0) {
		lsw_errs_add(errs, path, "profile NULL computes headroom from the port speed: set "
			     "PORT.%s.speed", pc->name);
		return -1;
	}
	if (q->port[port].cable_m == UINT32_MAX) {
		lsw_errs_add(errs, path, "profile NULL computes headroom from the cable: set "
			     "CABLE_LENGTH for %s", pc->name);
		return -1;
	}
	if (lsw_buffer_headroom(&q->buf, pc->speed, q->port[port].cable_m, pc->mtu,
			      lsw_port_inflight_bytes(c, port, pc->speed), q->pool[pool].xoff != 0,
			      &h) != 0) {
		lsw_errs_add(errs, path, "cannot compute headroom");
		return -1;
	}
	/* SONiC's name for the same profile: pg_lossless_<speed>_<cable>m_profile. */
	snprintf(name, sizeof(name), "pg_lossless_%u_%um_profile", pc->speed,
		 q->port[port].cable_m);
	int idx = find_name(name, q->profile, q->n_profiles, sizeof(q->profile[0]));
	if (idx >= 0)
		return idx;
	if (q->n_profiles == LSW_MAX_PROFILES) {
		lsw_errs_add(errs, path, "too many profiles");
		return -1;
	}
	struct lsw_profile_conf *pr = &q->profile[q->n_profiles];
	*pr = (struct lsw_profile_conf){
		.pool = (uint16_t)pool, .mode = q->pool[pool].mode,
		.dynamic_th = q->buf.default_dynamic_th, .static_th = q->pool[pool].size,
		.size = h.size, .xoff = h.xoff, .xon = h.xon, .computed = true,
		/* XON once the PG is xon (the pipeline latency) below its XOFF point: with 0,
		 * XOFF and XON are a cell apart and a PG hovering there sends a pair per cell. */
		.xon_offset = h.xon,
	};
	snprintf(pr->name, sizeof(pr->name), "%s", name);
	return q->n_profiles++;
}

/* BUFFER_PG (pg = true) or BUFFER_QUEUE. */
static void
parse_bindings(json_t *t, struct lsw_config *c, bool pg, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = &c->qos;
	const char *table = pg ? "$.BUFFER_PG" : "$.BUFFER_QUEUE";
	static const char *const fields[] = {"profile", NULL};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN], buf[LSW_QOS_NAME_LEN];
	bool seen[LSW_MAX_PORTS][8] = {{false}}, ports[LSW_MAX_PORTS];
	const char *key, *s;
	json_t *o, *v;
	int lo, hi;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, table, "expected an object");
		return;
	}
	json_object_foreach(t, key, o) {
		lsw_path_key(p, table, key);
		if (!lsw_jv_object(o, p, fields, errs) ||
		    !parse_port_range(c, key, p, ports, &lo, &hi, 7, errs))
			continue;
		lsw_path_key(pf, p, "profile");
		if ((v = json_object_get(o, "profile")) == NULL) {
			lsw_errs_add(errs, pf, "required: a BUFFER_PROFILE name%s",
				     pg ? " or NULL" : "");
			continue;
		}
		if (!lsw_jv_str(v, pf, 128, &s, errs))
			continue;
		s = ref_name(s, "BUFFER_PROFILE", buf, sizeof(buf));
		int prof = -1;
		if (!(pg && strcmp(s, "NULL") == 0)) {
			prof = find_name(s, q->profile, q->n_profiles, sizeof(q->profile[0]));
			if (prof < 0) {
				lsw_errs_add(errs, pf, "no BUFFER_PROFILE named '%s'", s);
				continue;
			}
			uint8_t type = q->pool[q->profile[prof].pool].type;
			if (type != (pg ? LSW_POOL_INGRESS : LSW_POOL_EGRESS)) {
				lsw_errs_add(errs, pf, "'%s' uses an %s pool; %s needs an %s one", s,
					     pg ? "egress" : "ingress", pg ? "a PG" : "a queue",
					     pg ? "ingress" : "egress");
				continue;
			}
		}
		for (uint16_t port = 0; port < c->n_ports; port++) {
			if (!ports[port])
				continue;
			int pr = prof >= 0 ? prof : computed_profile(c, port, pf, errs);
			if (pr < 0)
				break;
			for (int i = lo; i <= hi; i++) {
				if (seen[port][i]) {
					lsw_errs_add(errs, p, "%s %s %d is already bound by another "
						     "key", c->port[port].name, pg ? "PG" : "queue", i);
					break;
				}
				seen[port][i] = true;
				if (pg)
					q->port[port].pg_profile[i] = (uint16_t)pr;
				else
					q->port[port].q_profile[i] = (uint16_t)pr;
			}
		}
	}
}

static void
parse_cable(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN], pp[LSW_PATH_LEN];
	const char *name, *port;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.CABLE_LENGTH", "expected an object");
		return;
	}
	json_object_foreach(t, name, o) {
		lsw_path_key(p, "$.CABLE_LENGTH", name);
		if (!json_is_object(o)) {
			lsw_errs_add(errs, p, "expected an object of PORT: length");
			continue;
		}
		json_object_foreach(o, port, v) {
			int pi = lsw_config_port_index(c, port);
			uint32_t m;
			lsw_path_key(pp, p, port);
			if (pi < 0)
				lsw_errs_add(errs, pp, "no port named '%s'", port);
			else if (!json_is_string(v) || !lsw_parse_length(json_string_value(v), &m) ||
				 m > 100000)
				lsw_errs_add(errs, pp, "expected a length up to 100km: \"5m\", "
					     "\"300m\", \"2km\"");
			else
				c->qos.port[pi].cable_m = m;
		}
	}
}

/* Member @field of @o naming an entry of @table ("name" or "[TABLE|name]") among the @n of
 * @arr: its index, -1 when absent, -2 when refused (with its path). */
static int
ref_field(json_t *o, const char *path, const char *field, const char *table, const void *arr,
	  size_t n, size_t stride, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN], buf[LSW_QOS_NAME_LEN];
	json_t *v = json_object_get(o, field);
	const char *s;

	if (v == NULL)
		return -1;
	lsw_path_key(p, path, field);
	if (!lsw_jv_str(v, p, 128, &s, errs))
		return -2;
	s = ref_name(s, table, buf, sizeof(buf));
	int i = find_name(s, arr, n, stride);
	if (i < 0) {
		lsw_errs_add(errs, p, "no %s named '%s'", table, s);
		return -2;
	}
	return i;
}

/* "3,4" (SONiC's pfc_enable): a priority bit mask; "" is none. */
static bool
parse_prio_list(json_t *v, const char *path, uint8_t *mask, struct lsw_errs *errs)
{
	const char *s;

	if (!lsw_jv_str(v, path, 32, &s, errs))
		return false;
	*mask = 0;
	/* Digits 0-7 separated by single commas: "", "3", "3,4". */
	for (const char *c = s; *c; c += 2) {
		if (*c < '0' || *c > '7' || (c[1] != ',' && c[1] != '\0') ||
		    (c[1] == ',' && c[2] == '\0')) {
			lsw_errs_add(errs, path, "'%s' is not a list of priorities 0-7 like \"3,4\"", s);
			return false;
		}
		*mask |= (uint8_t)(1 << (*c - '0'));
		if (c[1] == '\0')
			break;
	}
	return true;
}

static void
parse_port_qos(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_pg_map", "tc_to_queue_map",
		"pfc_to_pg_map", "pfc_to_queue_map", "tc_to_dot1p_map", "pfc_enable",
		"pfcwd_sw_enable", "pfc_watchdog_status", NULL,
	};
	static const char *const wd_states[] = {"disable", "enable", NULL};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];
	/* Per port: the entry that armed the watchdog, and whether it named priorities
	 * (pfcwd_sw_enable) or follows pfc_enable (pfc_watchdog_status), which another entry
	 * may set: both are settled once every entry is read. */
	const char *wd_key[LSW_MAX_PORTS] = {NULL};
	bool wd_follow[LSW_MAX_PORTS] = {false};
	const char *key;
	json_t *o, *v;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.PORT_QOS_MAP", "expected an object");
		return;
	}
	json_object_foreach(t, key, o) {
		bool ports[LSW_MAX_PORTS] = {false};
		char names[256];
		lsw_path_key(p, "$.PORT_QOS_MAP", key);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		/* SONiC allows "Ethernet0,Ethernet4" keys. */
		snprintf(names, sizeof(names), "%s", key);
		bool ok = true;
		for (char *tok = strtok(names, ","); tok != NULL; tok = strtok(NULL, ",")) {
			int pi = lsw_config_port_index(c, tok);
			if (pi < 0) {
				lsw_errs_add(errs, p, "no port named '%s'", tok);
				ok = false;
				break;
			}
			ports[pi] = true;
		}
		if (!ok)
			continue;
		for (int k = 0; k < LSW_MAP_KINDS; k++) {
			int m = ref_field(o, p, map_fields[k], map_tables[k], c->qos.map[k],
					  c->qos.n_maps[k], sizeof(c->qos.map[k][0]), errs);
			if (m < 0)
				continue;
			for (uint16_t port = 0; port < c->n_ports; port++)
				if (ports[port])
					c->qos.port[port].map[k] = (uint16_t)m;
		}
		/* pfc_enable: the lossless priorities. pfcwd_sw_enable (priorities) or
		 * pfc_watchdog_status (enable: the pfc_enable ones) arm the watchdog. */
		uint8_t pfc = 0, wd = 0;
		bool has_pfc = false, has_wd = false, follow = false;
		unsigned int st = 0;
		if ((v = json_object_get(o, "pfc_enable")) != NULL) {
			lsw_path_key(pf, p, "pfc_enable");
			has_pfc = parse_prio_list(v, pf, &pfc, errs);
		}
		if ((v = json_object_get(o, "pfcwd_sw_enable")) != NULL) {
			lsw_path_key(pf, p, "pfcwd_sw_enable");
			has_wd = parse_prio_list(v, pf, &wd, errs);
		}
		if ((v = json_object_get(o, "pfc_watchdog_status")) != NULL) {
			lsw_path_key(pf, p, "pfc_watchdog_status");
			if (lsw_jv_enum(v, pf, wd_states, &st, errs) && !has_wd) {
				follow = st == 1;
				has_wd = true;
			} else if (has_wd && st == 0) {
				wd = 0;
			}
		}
		for (uint16_t port = 0; port < c->n_ports; port++) {
			if (!ports[port])
				continue;
			if (has_pfc)
				c->qos.port[port].pfc_enable = pfc;
			if (has_wd) {
				c->qos.port[port].pfcwd_enable = wd;
				c->qos.port[port].pfcwd_set = true;
				wd_follow[port] = follow;
				wd_key[port] = key;
			}
		}
	}
	for (uint16_t port = 0; port < c->n_ports; port++) {
		struct lsw_port_qos_conf *q = &c->qos.port[port];
		if (wd_follow[port])
			q->pfcwd_enable = q->pfc_enable;
		if (q->pfcwd_enable & ~q->pfc_enable) {
			lsw_path_key(p, "$.PORT_QOS_MAP", wd_key[port]);
			lsw_path_key(pf, p, "pfcwd_sw_enable");
			lsw_errs_add(errs, pf, "the watchdog watches lossless priorities: 0x%02x is not "
				     "all in %s's pfc_enable", q->pfcwd_enable, c->port[port].name);
		}
	}
}

static void
parse_pfcwd(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const gfields[] = {"POLL_INTERVAL", "BIG_RED_SWITCH", NULL};
	static const char *const pfields[] = {
		"action", "detection_time", "restoration_time", "pfc_stat_history", NULL,
	};
	static const char *const actions[] = {"drop", "forward", "alert", NULL};
	static const char *const onoff[] = {"disable", "enable", NULL};
	struct lsw_pfcwd_conf *wd = &c->qos.wd;
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];
	const char *key;
	json_t *o, *v;
	unsigned int x;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.PFC_WD", "expected an object");
		return;
	}
	if ((o = json_object_get(t, "GLOBAL")) != NULL &&
	    lsw_jv_object(o, "$.PFC_WD.GLOBAL", gfields, errs)) {
		lsw_jv_get_u32(o, "$.PFC_WD.GLOBAL", "POLL_INTERVAL", 100, 1000, &wd->poll_ms, errs);
		if ((v = json_object_get(o, "BIG_RED_SWITCH")) != NULL &&
		    lsw_jv_enum(v, "$.PFC_WD.GLOBAL.BIG_RED_SWITCH", onoff, &x, errs))
			wd->big_red_switch = x == 1;
	}
	json_object_foreach(t, key, o) {
		if (strcmp(key, "GLOBAL") == 0)
			continue;
		lsw_path_key(p, "$.PFC_WD", key);
		int pi = lsw_config_port_index(c, key);
		if (pi < 0) {
			lsw_errs_add(errs, p, "no port named '%s' (or GLOBAL)", key);
			continue;
		}
		if (!lsw_jv_object(o, p, pfields, errs))
			continue;
		struct lsw_pfcwd_port_conf *wp = &wd->port[pi];
		*wp = (struct lsw_pfcwd_port_conf){.configured = true, .action = LSW_WD_DROP};
		if ((v = json_object_get(o, "action")) != NULL) {
			lsw_path_key(pf, p, "action");
			if (lsw_jv_enum(v, pf, actions, &x, errs))
				wp->action = (uint8_t)x;
		}
		lsw_path_key(pf, p, "detection_time");
		if (json_object_get(o, "detection_time") == NULL)
			lsw_errs_add(errs, pf, "required: 100..5000 ms");
		lsw_jv_get_u32(o, p, "detection_time", 100, 5000, &wp->detection_ms, errs);
		lsw_jv_get_u32(o, p, "restoration_time", 100, 60000, &wp->restoration_ms, errs);
		if ((v = json_object_get(o, "pfc_stat_history")) != NULL) {
			lsw_path_key(pf, p, "pfc_stat_history");
			lsw_jv_enum(v, pf, onoff, &x, errs); /* lsw always keeps the history */
		}
	}
	/* The detection must span whole polls (sonic-pfcwd.yang). */
	for (uint16_t i = 0; i < c->n_ports; i++) {
		const struct lsw_pfcwd_port_conf *wp = &wd->port[i];
		if (!wp->configured)
			continue;
		lsw_path_key(p, "$.PFC_WD", c->port[i].name);
		if (wp->detection_ms && wp->detection_ms < wd->poll_ms) {
			lsw_path_key(pf, p, "detection_time");
			lsw_errs_add(errs, pf, "%u ms is shorter than POLL_INTERVAL (%u ms)",
				     wp->detection_ms, wd->poll_ms);
		}
		if (wp->restoration_ms && wp->restoration_ms < wd->poll_ms) {
			lsw_path_key(pf, p, "restoration_time");
			lsw_errs_add(errs, pf, "%u ms is shorter than POLL_INTERVAL (%u ms)",
				     wp->restoration_ms, wd->poll_ms);
		}
	}
}

static void
parse_queues(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	static const char *const fields[] = {"scheduler", "wred_profile", NULL};
	char p[LSW_PATH_LEN];
	bool ports[LSW_MAX_PORTS];
	const char *key;
	json_t *o;
	int lo, hi;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.QUEUE", "expected an object");
		return;
	}
	json_object_foreach(t, key, o) {
		lsw_path_key(p, "$.QUEUE", key);
		if (!lsw_jv_object(o, p, fields, errs) ||
		    !parse_port_range(c, key, p, ports, &lo, &hi, 7, errs))
			continue;
		int sc = ref_field(o, p, "scheduler", "SCHEDULER", c->qos.sched, c->qos.n_scheds,
				   sizeof(c->qos.sched[0]), errs);
		int wr = ref_field(o, p, "wred_profile", "WRED_PROFILE", c->qos.ecn, c->qos.n_ecn,
				   sizeof(c->qos.ecn[0]), errs);
		if (sc == -2 || wr == -2)
			continue;
		for (uint16_t port = 0; port < c->n_ports; port++)
			for (int i = lo; ports[port] && i <= hi; i++) {
				if (sc >= 0)
					c->qos.port[port].q_sched[i] = (uint16_t)sc;
				if (wr >= 0)
					c->qos.port[port].q_ecn[i] = (uint16_t)wr;
			}
	}
}

/* Reserved buffer and private headroom of every PG (queue) charged to a pool must leave
 * some shared buffer: otherwise the dynamic threshold arithmetic has nothing to divide. */
static void
check_budgets(const struct lsw_config *c, struct lsw_errs *errs)
{
	const struct lsw_qos_conf *q = &c->qos;
	uint64_t reserved[LSW_MAX_POOLS] = {0}, headroom[LSW_MAX_POOLS] = {0};
	char p[LSW_PATH_LEN];

	for (uint16_t port = 0; port < c->n_ports; port++)
		for (int i = 0; i < 8; i++) {
			const struct lsw_profile_conf *pg = &q->profile[q->port[port].pg_profile[i]];
			const struct lsw_profile_conf *qu = &q->profile[q->port[port].q_profile[i]];
			reserved[pg->pool] += pg->size - (q->pool[pg->pool].xoff ? 0 : pg->xoff);
			if (q->pool[pg->pool].xoff == 0)
				headroom[pg->pool] += pg->xoff;
			reserved[qu->pool] += qu->size;
		}
	for (uint16_t i = 0; i < q->n_pools; i++) {
		uint64_t used = reserved[i] + headroom[i] + q->pool[i].xoff;
		if (used >= q->pool[i].size) {
			lsw_path_key(p, "$.BUFFER_POOL", q->pool[i].name);
			lsw_errs_add(errs, p, "reserved (%llu) plus headroom (%llu) reach the pool "
				     "size (%llu): no shared buffer would be left",
				     (unsigned long long)reserved[i],
				     (unsigned long long)(headroom[i] + q->pool[i].xoff),
				     (unsigned long long)q->pool[i].size);
		}
	}
}

void
lsw_config_qos(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = &c->qos;
	json_t *t;
	int in_prof = -1, eg_prof = -1;

	buffer_defaults(&q->buf);
	builtin_maps(q);
	q->n_scheds = 1;
	q->sched[0] = (struct lsw_sched_conf){.name = "default", .type = LSW_SCHED_DWRR,
					      .weight = 1};
	parse_lsw_buffer(json_object_get(json_object_get(doc, "LSW"), "buffer"), &q->buf, errs);
	parse_lossless_params(doc, &q->buf, errs);
	if (q->buf.cell == 0) { /* the largest unit that divides every AI packet size */
		q->buf.cell = q->buf.ai_sizes[0];
		for (unsigned int i = 1; i < q->buf.n_ai_sizes; i++)
			q->buf.cell = gcd(q->buf.cell, q->buf.ai_sizes[i]);
	}
	parse_maps(doc, q, errs);
	if ((t = json_object_get(doc, "SCHEDULER")) != NULL)
		parse_schedulers(t, q, errs);
	if ((t = json_object_get(doc, "WRED_PROFILE")) != NULL)
		lsw_config_ecn(t, q, errs);
	if ((t = json_object_get(doc, "BUFFER_POOL")) != NULL)
		parse_pools(t, q, errs);
	default_pools(q);
	if ((t = json_object_get(doc, "BUFFER_PROFILE")) != NULL)
		parse_profiles(t, q, errs);
	if (errs->n)
		return;
	default_profiles(q);
	in_prof = find_name("ingress_lossy_profile", q->profile, q->n_profiles,
			    sizeof(q->profile[0]));
	eg_prof = find_name("egress_lossy_profile", q->profile, q->n_profiles,
			    sizeof(q->profile[0]));
	for (uint16_t port = 0; port < LSW_MAX_PORTS; port++) {
		struct lsw_port_qos_conf *pq = &q->port[port];
		for (int k = 0; k < LSW_MAP_KINDS; k++)
			pq->map[k] = 0; /* AZURE */
		pq->map[LSW_MAP_DOT1P_TO_TC] = LSW_NONE; /* DSCP decides unless bound */
		for (int i = 0; i < 8; i++) {
			pq->pg_profile[i] = (uint16_t)in_prof;
			pq->q_profile[i] = (uint16_t)eg_prof;
			pq->q_sched[i] = 0;
			pq->q_ecn[i] = LSW_NONE;
		}
		pq->cable_m = UINT32_MAX;
	}
	if ((t = json_object_get(doc, "CABLE_LENGTH")) != NULL)
		parse_cable(t, c, errs);
	if ((t = json_object_get(doc, "PORT_QOS_MAP")) != NULL)
		parse_port_qos(t, c, errs);
	q->wd.poll_ms = LSW_PFCWD_DEFAULT_MS; /* SONiC's pfcwd start_default */
	if ((t = json_object_get(doc, "PFC_WD")) != NULL)
		parse_pfcwd(t, c, errs);
	for (uint16_t port = 0; port < c->n_ports; port++) {
		struct lsw_port_qos_conf *pq = &q->port[port];
		char p[LSW_PATH_LEN];
		/* A PFC_WD entry alone watches the lossless priorities, as SONiC's does. */
		if (q->wd.port[port].configured && !pq->pfcwd_set)
			pq->pfcwd_enable = pq->pfc_enable;
		/* The watchdog on, but no PFC_WD entry: SONiC's `pfcwd start_default` (the
		 * deployment guides' snippet relies on it), written into the running config. */
		if (pq->pfcwd_enable && !q->wd.port[port].configured)
			q->wd.port[port] = (struct lsw_pfcwd_port_conf){
				.configured = true, .defaulted = true, .action = LSW_WD_DROP,
				.detection_ms = LSW_PFCWD_DEFAULT_MS, .restoration_ms = LSW_PFCWD_DEFAULT_MS,
			};
		/* IEEE 802.1Qbb: a port runs PFC or 802.3x PAUSE, not both. */
		if (c->port[port].rx_pause && pq->pfc_enable) {
			char pp[LSW_PATH_LEN];
			lsw_path_key(pp, "$.LSW_PORT", c->port[port].name);
			lsw_path_key(p, pp, "rx_pause");
			lsw_errs_add(errs, p, "802.3x PAUSE and PFC exclude each other on a port, and "
				     "PORT_QOS_MAP gives %s pfc_enable", c->port[port].name);
		}
	}
	if ((t = json_object_get(doc, "QUEUE")) != NULL)
		parse_queues(t, c, errs);
	if ((t = json_object_get(doc, "BUFFER_PG")) != NULL)
		parse_bindings(t, c, true, errs);
	if ((t = json_object_get(doc, "BUFFER_QUEUE")) != NULL)
		parse_bindings(t, c, false, errs);
	if (errs->n)
		return;
	for (uint16_t port = 0; port < c->n_ports; port++)
		for (int i = 0; i < 8; i++)
			if (q->port[port].pg_profile[i] == (uint16_t)-1 ||
			    q->port[port].q_profile[i] == (uint16_t)-1) {
				char p[LSW_PATH_LEN];
				lsw_path_key(p, "$.PORT", c->port[port].name);
				lsw_errs_add(errs, p, "PG or queue %d has no buffer profile: bind one in "
					     "BUFFER_PG/BUFFER_QUEUE, or define ingress_lossy_profile "
					     "and egress_lossy_profile", i);
				return;
			}
	check_budgets(c, errs);
}
