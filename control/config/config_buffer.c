/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The buffer tables: LSW.buffer, LOSSLESS_TRAFFIC_PATTERN, DEFAULT_LOSSLESS_BUFFER_PARAMETER,
 * BUFFER_POOL, BUFFER_PROFILE, CABLE_LENGTH, BUFFER_PG and BUFFER_QUEUE (with the profiles
 * lsw computes for "NULL"), and the budget of every pool. A config without any of them gets
 * a default buffer (README).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"
#include "lsw/buffer.h"

#define MAX_BUFFER (1ull << 40)

const char *const lsw_pool_type_names[] = {"ingress", "egress", NULL};
const char *const lsw_th_mode_names[] = {"dynamic", "static", NULL};
/* In the order of enum lsw_pool_policy. */
const char *const lsw_pool_policy_names[] = {"dt", "static", "complete_sharing", "partitioned",
					      "abm", "hpcc_sim", NULL};
/* In the order of enum lsw_discard_action. */
const char *const lsw_discard_action_names[] = {"drop", "trim", NULL};

/* "ai_packet_sizes": the frame sizes the buffer is tuned to. */
static bool
ai_sizes(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	 struct lsw_errs *errs)
{
	struct lsw_buffer_conf *b = out;
	unsigned int before = errs->n;
	uint64_t x;
	size_t i;
	json_t *e;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > LSW_MAX_AI_SIZES) {
		lsw_errs_add(errs, path, "expected an array of 1 to %d frame sizes",
			     LSW_MAX_AI_SIZES);
		return false;
	}
	b->n_ai_sizes = 0;
	json_array_foreach(v, i, e) {
		char pi[LSW_PATH_LEN];
		lsw_path_index(pi, path, i);
		if (lsw_jv_uint(e, pi, 60, LSW_MAX_FRAME, &x, errs))
			b->ai_sizes[b->n_ai_sizes++] = (uint32_t)x;
	}
	return errs->n == before;
}

/* abm_unsched_dscp: [d, ...], DSCPs 0-63, at most each once. */
static bool
unsched_dscps(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	      struct lsw_errs *errs)
{
	struct lsw_buffer_conf *b = out;
	unsigned int before = errs->n;
	uint64_t x;
	size_t i;
	json_t *e;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!json_is_array(v)) {
		lsw_errs_add(errs, path, "expected an array of DSCPs (0-63)");
		return false;
	}
	b->abm_unsched_dscp = 0;
	json_array_foreach(v, i, e) {
		char pi[LSW_PATH_LEN];
		lsw_path_index(pi, path, i);
		if (!lsw_jv_uint(e, pi, 0, 63, &x, errs))
			continue;
		if (b->abm_unsched_dscp >> x & 1)
			lsw_errs_add(errs, pi, "DSCP %u given twice", (unsigned int)x);
		b->abm_unsched_dscp |= 1ull << x;
	}
	return errs->n == before;
}

static bool
buffer_size(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	    struct lsw_errs *errs)
{
	uint64_t *total = (uint64_t *)((char *)out + f->off);

	RTE_SET_USED(ctx);
	if (!lsw_jv_size(v, path, MAX_BUFFER, total, errs))
		return false;
	if (*total >= 64 * 1024)
		return true;
	lsw_errs_add(errs, path, "a buffer below 64KB holds nothing");
	return false;
}

static const char *const headroom_models[] = {"mellanox", "generic", NULL};

#define AT(m) LSW_AT(struct lsw_buffer_conf, m)
static const struct lsw_field buffer_rows[] = {
	{.name = "size", .type = LSW_F_CUSTOM, AT(total), .dflt = 16 << 20, .fn = buffer_size},
	{.name = "ai_packet_sizes", .type = LSW_F_CUSTOM, .fn = ai_sizes},
	/* 0: the largest unit that divides every AI packet size (lsw_config_qos). */
	{.name = "cell_size", .type = LSW_F_UINT, AT(cell), .min = 1, .max = LSW_MAX_FRAME},
	{.name = "headroom_model", .type = LSW_F_ENUM, AT(headroom_model),
	 .choices = headroom_models},
	{.name = "mac_phy_delay", .type = LSW_F_SIZE, AT(mac_phy_delay), .max = 1 << 20,
	 .dflt = 1024},
	{.name = "pipeline_latency", .type = LSW_F_SIZE, AT(pipeline_latency), .max = 1 << 20,
	 .dflt = 18 * 1024},
	{.name = "peer_response_time", .type = LSW_F_SIZE, AT(peer_response_time),
	 .max = 1 << 20},
	/* Preamble 8, FCS 4, inter-frame gap 12. */
	{.name = "shaper_overhead_bytes", .type = LSW_F_UINT, AT(shaper_overhead), .max = 64,
	 .dflt = 24},
	{.name = "shaper_burst_us", .type = LSW_F_UINT, AT(shaper_burst_us), .min = 1,
	 .max = 100000, .dflt = 10},
	/* ABM's simulator: updateInterval 30 us, sat 20 x 1400 B (gen-queue-disc.cc). */
	{.name = "abm_update_us", .type = LSW_F_UINT, AT(abm_update_us), .min = 1,
	 .max = 1000000, .dflt = 30},
	{.name = "abm_saturation", .type = LSW_F_SIZE, AT(abm_saturation), .max = 1u << 30,
	 .dflt = 28000},
	/* The hosts tag a message's first BDP (ns3-datacenter's RdmaHw: UnSchedTag); here a
	 * DSCP says it. alphaUnsched 1024 (gen-queue-disc.cc): dynamic_th 10. */
	{.name = "abm_unsched_dscp", .type = LSW_F_CUSTOM, .fn = unsched_dscps},
	{.name = "abm_unsched_dynamic_th", .type = LSW_F_INT, AT(abm_unsched_dynamic_th),
	 .min = INT8_MIN, .max = INT8_MAX, .dflt = 10},
};
static const struct lsw_fields buffer = LSW_FIELDS(buffer_rows);
LSW_CONFIG_OBJECT(buffer, "LSW.buffer", &buffer)

/* LOSSLESS_TRAFFIC_PATTERN and DEFAULT_LOSSLESS_BUFFER_PARAMETER: tables keyed by a
 * profile name (AZURE) with one entry, inputs of the headroom formula. */
static const struct lsw_field pattern_rows[] = {
	{.name = "mtu", .type = LSW_F_UINT, AT(lossless_mtu), .min = 64, .max = LSW_MAX_MTU,
	 .dflt = 1024},
	{.name = "small_packet_percentage", .type = LSW_F_UINT, AT(small_packet_percentage),
	 .max = 100, .dflt = 50},
};
static const struct lsw_fields pattern = LSW_FIELDS(pattern_rows);
LSW_CONFIG_OBJECT(pattern, "LOSSLESS_TRAFFIC_PATTERN", &pattern)

static const struct lsw_field lossless_rows[] = {
	{.name = "default_dynamic_th", .type = LSW_F_INT, AT(default_dynamic_th),
	 .min = INT8_MIN, .max = INT8_MAX},
};
#undef AT
static const struct lsw_fields lossless = LSW_FIELDS(lossless_rows);
LSW_CONFIG_OBJECT(lossless, "DEFAULT_LOSSLESS_BUFFER_PARAMETER", &lossless)

void
lsw_config_buffer_defaults(struct lsw_buffer_conf *b)
{
	memset(b, 0, sizeof(*b));
	lsw_decode_defaults(&buffer, b);
	lsw_decode_defaults(&pattern, b);
	lsw_decode_defaults(&lossless, b);
	b->ai_sizes[0] = 4160;
	b->ai_sizes[1] = 64;
	b->n_ai_sizes = 2;
}

void
lsw_config_buffer_lsw(json_t *o, struct lsw_buffer_conf *b, struct lsw_errs *errs)
{
	lsw_decode(o, "$.LSW.buffer", &buffer, b, NULL, NULL, errs);
}

static void
parse_pattern(const char *key, json_t *o, const char *path, void *ctx, struct lsw_errs *errs)
{
	RTE_SET_USED(key);
	lsw_decode(o, path, &pattern, ctx, NULL, NULL, errs);
}

static void
parse_lossless(const char *key, json_t *o, const char *path, void *ctx, struct lsw_errs *errs)
{
	RTE_SET_USED(key);
	lsw_decode(o, path, &lossless, ctx, NULL, NULL, errs);
}

#define AT(m) LSW_AT(struct lsw_pool_conf, m)
static const struct lsw_field pool_rows[] = {
	{.name = "type", .type = LSW_F_ENUM, AT(type), .choices = lsw_pool_type_names,
	 .required = "ingress or egress"},
	{.name = "mode", .type = LSW_F_ENUM, AT(mode), .choices = lsw_th_mode_names},
	{.name = "size", .type = LSW_F_SIZE, AT(size), .max = MAX_BUFFER},
	{.name = "xoff", .type = LSW_F_SIZE, AT(xoff), .max = MAX_BUFFER},
	{.name = "policy", .type = LSW_F_ENUM, AT(policy), .choices = lsw_pool_policy_names},
};
#undef AT
static const struct lsw_fields pool = LSW_FIELDS(pool_rows);
LSW_CONFIG_OBJECT(pool, "BUFFER_POOL", &pool)
enum { PL_TYPE, PL_MODE, PL_SIZE, PL_XOFF, PL_POLICY }; /* rows */

/* Policies whose threshold is the profiles' dynamic_th (alpha) or static_th; the others
 * (complete_sharing, partitioned) take profiles of either mode and use neither. */
static bool
policy_needs_mode(uint8_t policy, uint8_t *mode)
{
	switch (policy) {
	case LSW_POLICY_DT:
	case LSW_POLICY_ABM:
	case LSW_POLICY_HPCC_SIM:
		*mode = LSW_TH_DYNAMIC;
		return true;
	case LSW_POLICY_STATIC:
		*mode = LSW_TH_STATIC;
		return true;
	default:
		return false;
	}
}

/* BUFFER_POOL.<name>.policy and mode: either says the other (dt and static are what mode
 * dynamic and static always meant); both must agree. */
static void
pool_policy(struct lsw_pool_conf *pc, uint64_t seen, const char *p, struct lsw_errs *errs)
{
	char pf[LSW_PATH_LEN];
	uint8_t need;

	if (!(seen >> PL_POLICY & 1)) {
		pc->policy = pc->mode == LSW_TH_STATIC ? LSW_POLICY_STATIC : LSW_POLICY_DT;
		return;
	}
	if (!policy_needs_mode(pc->policy, &need))
		return; /* the mode only says which threshold field its profiles carry */
	if (!(seen >> PL_MODE & 1)) {
		pc->mode = need;
		return;
	}
	if (pc->mode != need) {
		lsw_path_key(pf, p, "policy");
		lsw_errs_add(errs, pf, "policy %s takes %s profiles (%s): the pool's mode is %s",
			     lsw_pool_policy_names[pc->policy], lsw_th_mode_names[need],
			     need == LSW_TH_DYNAMIC ? "dynamic_th" : "static_th",
			     lsw_th_mode_names[pc->mode]);
	}
}

/* BUFFER_POOL.<name>: a view of the shared buffer (no size: the whole of it). */
static void
parse_pool(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = ctx;
	char pf[LSW_PATH_LEN];

	if (q->n_pools == LSW_MAX_POOLS || strlen(name) >= LSW_QOS_NAME_LEN) {
		lsw_errs_add(errs, p, "more than %d pools or name too long", LSW_MAX_POOLS);
		return;
	}
	struct lsw_pool_conf *pc = &q->pool[q->n_pools];
	unsigned int before = errs->n;
	uint64_t seen;
	memset(pc, 0, sizeof(*pc));
	lsw_decode_defaults(&pool, pc);
	pc->size = q->buf.total;
	snprintf(pc->name, sizeof(pc->name), "%s", name);
	if (!lsw_decode(o, p, &pool, pc, q, &seen, errs) || errs->n != before)
		return;
	pool_policy(pc, seen, p, errs);
	if (pc->size > q->buf.total) {
		lsw_path_key(pf, p, "size");
		lsw_errs_add(errs, pf, "%llu bytes is more than the buffer (LSW.buffer.size, "
			     "%llu)", (unsigned long long)pc->size,
			     (unsigned long long)q->buf.total);
	}
	lsw_path_key(pf, p, "xoff");
	if (pc->xoff && pc->type == LSW_POOL_EGRESS)
		lsw_errs_add(errs, pf, "shared headroom is for ingress pools");
	else if (pc->xoff >= pc->size && pc->xoff)
		lsw_errs_add(errs, pf, "the shared headroom must be smaller than the pool");
	q->n_pools++;
}

/* A config whose BUFFER_POOL has no ingress (egress) pool gets one of the whole buffer, as a
 * SONiC snippet that names one pool finds the others of its switch's buffer template beside
 * it (files/build_templates/buffers_config.j2 and the devices' buffers_defaults_*.j2). */
static void
default_pools(struct lsw_qos_conf *q)
{
	static const struct {
		const char *name;
		uint8_t type;
	} d[] = {
		{"ingress_lossless_pool", LSW_POOL_INGRESS},
		{"egress_lossy_pool", LSW_POOL_EGRESS},
	};

	for (int i = 0; i < 2; i++) {
		bool have = false;
		for (uint16_t j = 0; j < q->n_pools; j++)
			have |= q->pool[j].type == d[i].type;
		if (have || q->n_pools == LSW_MAX_POOLS ||
		    lsw_config_find(d[i].name, q->pool, q->n_pools, sizeof(q->pool[0])) >= 0)
			continue;
		q->pool[q->n_pools] = (struct lsw_pool_conf){.type = d[i].type,
							     .size = q->buf.total};
		snprintf(q->pool[q->n_pools].name, sizeof(q->pool[0].name), "%s", d[i].name);
		q->n_pools++;
	}
}

static const struct lsw_qos_ref pool_ref = LSW_QOS_REF("BUFFER_POOL", pool, n_pools);

/* Sizes are at most the pool's: checked once the pool is known (see parse_profile). */
#define AT(m) LSW_AT(struct lsw_profile_conf, m)
static const struct lsw_field profile_rows[] = {
	{.name = "pool", .type = LSW_F_CUSTOM, AT(pool), .fn = lsw_config_ref, .arg = &pool_ref,
	 .required = "a BUFFER_POOL name"},
	{.name = "size", .type = LSW_F_SIZE, AT(size), .max = MAX_BUFFER},
	{.name = "dynamic_th", .type = LSW_F_INT, AT(dynamic_th), .min = INT8_MIN,
	 .max = INT8_MAX},
	{.name = "static_th", .type = LSW_F_SIZE, AT(static_th), .max = MAX_BUFFER},
	{.name = "xon", .type = LSW_F_SIZE, AT(xon), .max = MAX_BUFFER},
	{.name = "xoff", .type = LSW_F_SIZE, AT(xoff), .max = MAX_BUFFER},
	{.name = "xon_offset", .type = LSW_F_SIZE, AT(xon_offset), .max = MAX_BUFFER},
	{.name = "packet_discard_action", .type = LSW_F_ENUM, AT(discard),
	 .choices = lsw_discard_action_names},
};
#undef AT
static const struct lsw_fields profile = LSW_FIELDS(profile_rows);
LSW_CONFIG_OBJECT(profile, "BUFFER_PROFILE", &profile)
enum { P_POOL, P_SIZE, P_DYNAMIC, P_STATIC, P_XON, P_XOFF, P_XON_OFFSET, P_DISCARD }; /* rows */

/* The sizes of a profile of pool @pc: at most the pool (lsw_jv_size's words). */
static void
check_sizes(const struct lsw_profile_conf *pr, const struct lsw_pool_conf *pc, uint64_t seen,
	    const char *p, struct lsw_errs *errs)
{
	static const struct {
		int row;
		size_t off;
	} sizes[] = {
		{P_SIZE, offsetof(struct lsw_profile_conf, size)},
		{P_STATIC, offsetof(struct lsw_profile_conf, static_th)},
		{P_XON, offsetof(struct lsw_profile_conf, xon)},
		{P_XOFF, offsetof(struct lsw_profile_conf, xoff)},
		{P_XON_OFFSET, offsetof(struct lsw_profile_conf, xon_offset)},
	};
	char pf[LSW_PATH_LEN];

	for (size_t i = 0; i < RTE_DIM(sizes); i++) {
		uint64_t b = *(const uint64_t *)((const char *)pr + sizes[i].off);
		if (!(seen >> sizes[i].row & 1) || b <= pc->size)
			continue;
		lsw_path_key(pf, p, profile_rows[sizes[i].row].name);
		lsw_errs_add(errs, pf, "%llu bytes is more than %llu", (unsigned long long)b,
			     (unsigned long long)pc->size);
	}
}

/* BUFFER_PROFILE.<name> */
static void
parse_profile(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = ctx;
	unsigned int before = errs->n;
	char pf[LSW_PATH_LEN];
	uint64_t seen;

	if (q->n_profiles == LSW_MAX_PROFILES - LSW_MAX_PORTS ||
	    strlen(name) >= LSW_QOS_NAME_LEN || strcmp(name, "NULL") == 0) {
		lsw_errs_add(errs, p, "too many profiles, name too long, or named NULL");
		return;
	}
	struct lsw_profile_conf *pr = &q->profile[q->n_profiles];
	*pr = (struct lsw_profile_conf){0};
	snprintf(pr->name, sizeof(pr->name), "%s", name);
	if (!lsw_decode(o, p, &profile, pr, q, &seen, errs) || !(seen >> P_POOL & 1) ||
	    errs->n != before)
		return;
	const struct lsw_pool_conf *pc = &q->pool[pr->pool];
	bool dyn = seen >> P_DYNAMIC & 1;
	if (dyn == (bool)(seen >> P_STATIC & 1)) {
		lsw_errs_add(errs, p, "give exactly one of dynamic_th and static_th");
		return;
	}
	pr->mode = dyn ? LSW_TH_DYNAMIC : LSW_TH_STATIC;
	check_sizes(pr, pc, seen, p, errs);
	/* sonic-swss#2438: a profile whose threshold mode differs from its pool's is
	 * silently mis-programmed there; here it is refused (unless the pool's policy uses
	 * neither threshold). */
	uint8_t need;
	if (pr->mode != pc->mode && policy_needs_mode(pc->policy, &need)) {
		lsw_path_key(pf, p, dyn ? "dynamic_th" : "static_th");
		lsw_errs_add(errs, pf, "pool '%s' is %s: its profiles take %s", pc->name,
			     lsw_th_mode_names[pc->mode],
			     pc->mode == LSW_TH_DYNAMIC ? "dynamic_th" : "static_th");
	}
	bool pfc = seen & (1u << P_XON | 1u << P_XOFF | 1u << P_XON_OFFSET);
	if (pfc && pc->type == LSW_POOL_EGRESS)
		lsw_errs_add(errs, p, "xon/xoff belong to ingress (PG) profiles; '%s' is "
			     "an egress pool", pc->name);
	/* SAI's admission fail action is a queue's: a PG refuses, it does not trim. */
	if (pr->discard == LSW_DISCARD_TRIM && pc->type != LSW_POOL_EGRESS) {
		lsw_path_key(pf, p, "packet_discard_action");
		lsw_errs_add(errs, pf, "trim is an egress (queue) profile's action; '%s' is an "
			     "ingress pool", pc->name);
	}
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

static int
find_profile(const struct lsw_qos_conf *q, const char *name)
{
	return lsw_config_find(name, q->profile, q->n_profiles, sizeof(q->profile[0]));
}

static struct lsw_profile_conf *
add_profile(struct lsw_qos_conf *q, const char *name, uint16_t pool_idx)
{
	struct lsw_profile_conf *pr = &q->profile[q->n_profiles++];

	*pr = (struct lsw_profile_conf){.pool = pool_idx, .mode = q->pool[pool_idx].mode};
	snprintf(pr->name, sizeof(pr->name), "%s", name);
	return pr;
}

/* The profiles SONiC's buffer templates define, unless the config does: they take the PGs
 * and queues left unbound (lsw_config_buffer_bindings). ingress_lossy_profile and
 * egress_lossy_profile (dynamic_th 3) on the first dynamic pool of their type;
 * egress_lossless_profile on egress_lossy_profile's pool (else the first egress pool), so
 * that a queue that turns lossless keeps its pool: the whole pool, as the templates give it
 * (dynamic_th 7, or static_th 0, no limit, on a static pool). */
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
		int pool_idx = -1;
		for (uint16_t j = 0; j < q->n_pools && pool_idx < 0; j++)
			if (q->pool[j].type == d[i].type && q->pool[j].mode == LSW_TH_DYNAMIC)
				pool_idx = j;
		if (pool_idx < 0 || find_profile(q, d[i].profile) >= 0 ||
		    q->n_profiles == LSW_MAX_PROFILES)
			continue;
		add_profile(q, d[i].profile, (uint16_t)pool_idx)->dynamic_th = 3;
	}
	int lossy = find_profile(q, "egress_lossy_profile"), pool_idx = -1;
	if (lossy >= 0 && q->pool[q->profile[lossy].pool].type == LSW_POOL_EGRESS)
		pool_idx = q->profile[lossy].pool;
	for (uint16_t j = 0; j < q->n_pools && pool_idx < 0; j++)
		if (q->pool[j].type == LSW_POOL_EGRESS)
			pool_idx = j;
	if (pool_idx >= 0 && find_profile(q, "egress_lossless_profile") < 0 &&
	    q->n_profiles < LSW_MAX_PROFILES) {
		struct lsw_profile_conf *pr = add_profile(q, "egress_lossless_profile",
							  (uint16_t)pool_idx);
		if (pr->mode == LSW_TH_DYNAMIC)
			pr->dynamic_th = 7;
	}
}

void
lsw_config_buffer_profiles(json_t *doc, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	json_t *t;

	if ((t = json_object_get(doc, "LOSSLESS_TRAFFIC_PATTERN")) != NULL)
		lsw_decode_entries(t, "$.LOSSLESS_TRAFFIC_PATTERN", parse_pattern, &q->buf, errs);
	if ((t = json_object_get(doc, "DEFAULT_LOSSLESS_BUFFER_PARAMETER")) != NULL)
		lsw_decode_entries(t, "$.DEFAULT_LOSSLESS_BUFFER_PARAMETER", parse_lossless,
				   &q->buf, errs);
	if ((t = json_object_get(doc, "BUFFER_POOL")) != NULL)
		lsw_decode_entries(t, "$.BUFFER_POOL", parse_pool, q, errs);
	default_pools(q);
	if ((t = json_object_get(doc, "BUFFER_PROFILE")) != NULL)
		lsw_decode_entries(t, "$.BUFFER_PROFILE", parse_profile, q, errs);
	if (errs->n == 0)
		default_profiles(q);
}

/* CABLE_LENGTH.<any>: {"PORT": "5m", ...} */
static void
parse_cable(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	char pp[LSW_PATH_LEN];
	const char *port;
	json_t *v;

	RTE_SET_USED(name);
	if (!json_is_object(o)) {
		lsw_errs_add(errs, p, "expected an object of PORT: length");
		return;
	}
	json_object_foreach(o, port, v) {
		int pi = lsw_config_port_index(c, port);
		uint32_t m;
		lsw_path_key(pp, p, port);
		if (pi < 0)
			lsw_errs_add(errs, pp, "no port named '%s'", port);
		else if (!json_is_string(v) || !lsw_parse_length(json_string_value(v), &m) ||
			 m > 100000)
			lsw_errs_add(errs, pp, "expected a length up to 100km: \"5m\", \"300m\", "
				     "\"2km\"");
		else
			c->qos.port[pi].cable_m = m;
	}
}

/* The profile of a PG bound to "NULL": SONiC's headroom from the port's speed, cable and
 * MTU (SONiC's dynamic headroom model), named as SONiC names it; its index, or -1. */
static int
computed_profile(struct lsw_config *c, uint16_t port, const char *path, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = &c->qos;
	const struct lsw_port_conf *pc = &c->port[port];
	struct lsw_headroom h;
	char name[LSW_QOS_NAME_LEN];
	int pool_idx = lsw_config_find("ingress_lossless_pool", q->pool, q->n_pools,
				       sizeof(q->pool[0]));

	for (uint16_t j = 0; j < q->n_pools && pool_idx < 0; j++)
		if (q->pool[j].type == LSW_POOL_INGRESS)
			pool_idx = j;
	if (pool_idx < 0) {
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
				lsw_port_tx_burst_bytes(c, port, pc->speed),
				lsw_port_ring_frames(c, port, pc->speed),
				q->pool[pool_idx].xoff != 0, &h) != 0) {
		lsw_errs_add(errs, path, "cannot compute headroom");
		return -1;
	}
	/* SONiC's name for the same profile: pg_lossless_<speed>_<cable>m_profile, shared by
	 * the ports it fits. A port whose MTU or rings give other figures gets a name of its
	 * own (SONiC adds _mtu<mtu> too): sharing the first port's profile gave a port with a
	 * larger MTU or ring a headroom too small for it. */
	int idx = -1;
	for (int form = 0; form < 3; form++) {
		if (form == 0)
			snprintf(name, sizeof(name), "pg_lossless_%u_%um_profile", pc->speed,
				 q->port[port].cable_m);
		else if (form == 1)
			snprintf(name, sizeof(name), "pg_lossless_%u_%um_mtu%u_profile",
				 pc->speed, q->port[port].cable_m, pc->mtu);
		else
			snprintf(name, sizeof(name), "pg_lossless_%u_%um_mtu%u_xoff%" PRIu64
				 "_profile", pc->speed, q->port[port].cable_m, pc->mtu, h.xoff);
		idx = lsw_config_find(name, q->profile, q->n_profiles, sizeof(q->profile[0]));
		if (idx < 0)
			break;
		const struct lsw_profile_conf *o = &q->profile[idx];
		if (o->computed && o->xoff == h.xoff && o->size == h.size && o->xon == h.xon)
			return idx;
	}
	if (idx >= 0) {
		lsw_errs_add(errs, path, "computed headroom profile %s exists with other figures",
			     name);
		return -1;
	}
	if (q->n_profiles == LSW_MAX_PROFILES) {
		lsw_errs_add(errs, path, "too many profiles");
		return -1;
	}
	struct lsw_profile_conf *pr = &q->profile[q->n_profiles];
	*pr = (struct lsw_profile_conf){
		.pool = (uint16_t)pool_idx, .mode = q->pool[pool_idx].mode,
		.dynamic_th = q->buf.default_dynamic_th, .static_th = q->pool[pool_idx].size,
		.size = h.size, .xoff = h.xoff, .xon = h.xon, .computed = true,
		/* XON once the PG is xon (the pipeline latency) below its XOFF point: with 0,
		 * XOFF and XON are a cell apart and a PG hovering there sends a pair per cell. */
		.xon_offset = h.xon,
	};
	snprintf(pr->name, sizeof(pr->name), "%s", name);
	return q->n_profiles++;
}

/* BUFFER_PG and BUFFER_QUEUE: "PORTS|INDEX[-LAST]": {"profile": NAME}. */
struct binding {
	char profile[129];
};

static const struct lsw_field pg_rows[] = {
	{.name = "profile", .type = LSW_F_STR, LSW_AT(struct binding, profile),
	 .required = "a BUFFER_PROFILE name or NULL"},
};
static const struct lsw_fields pg_binding = LSW_FIELDS(pg_rows);
LSW_CONFIG_OBJECT(pg_binding, "BUFFER_PG", &pg_binding)

static const struct lsw_field queue_rows[] = {
	{.name = "profile", .type = LSW_F_STR, LSW_AT(struct binding, profile),
	 .required = "a BUFFER_PROFILE name"},
};
static const struct lsw_fields queue_binding = LSW_FIELDS(queue_rows);
LSW_CONFIG_OBJECT(queue_binding, "BUFFER_QUEUE", &queue_binding)

struct bindings {
	struct lsw_config *c;
	bool pg;                          /* BUFFER_PG, else BUFFER_QUEUE */
	bool seen[LSW_MAX_PORTS][8];      /* bound by an earlier key */
};

static void
parse_binding(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct bindings *bs = ctx;
	struct lsw_config *c = bs->c;
	struct lsw_qos_conf *q = &c->qos;
	const bool pg = bs->pg;
	char pf[LSW_PATH_LEN], buf[LSW_QOS_NAME_LEN];
	struct binding b = {""};
	bool ports[LSW_MAX_PORTS];
	unsigned int before = errs->n;
	int lo, hi;

	if (!lsw_decode(o, p, pg ? &pg_binding : &queue_binding, &b, c, NULL, errs) ||
	    errs->n != before || !lsw_config_port_range(c, key, p, ports, &lo, &hi, 7, errs))
		return;
	lsw_path_key(pf, p, "profile");
	const char *s = lsw_config_ref_name(b.profile, "BUFFER_PROFILE", buf, sizeof(buf));
	int prof = -1;
	if (!(pg && strcmp(s, "NULL") == 0)) {
		prof = lsw_config_find(s, q->profile, q->n_profiles, sizeof(q->profile[0]));
		if (prof < 0) {
			lsw_errs_add(errs, pf, "no BUFFER_PROFILE named '%s'", s);
			return;
		}
		uint8_t type = q->pool[q->profile[prof].pool].type;
		if (type != (pg ? LSW_POOL_INGRESS : LSW_POOL_EGRESS)) {
			lsw_errs_add(errs, pf, "'%s' uses an %s pool; %s needs an %s one", s,
				     lsw_pool_type_names[type], pg ? "a PG" : "a queue",
				     pg ? "ingress" : "egress");
			return;
		}
	}
	for (uint16_t port = 0; port < c->n_ports; port++) {
		if (!ports[port])
			continue;
		int pr = prof >= 0 ? prof : computed_profile(c, port, pf, errs);
		if (pr < 0)
			break;
		for (int i = lo; i <= hi; i++) {
			if (bs->seen[port][i]) {
				lsw_errs_add(errs, p, "%s %s %d is already bound by another key",
					     c->port[port].name, pg ? "PG" : "queue", i);
				break;
			}
			bs->seen[port][i] = true;
			if (pg)
				q->port[port].pg_profile[i] = (uint16_t)pr;
			else
				q->port[port].q_profile[i] = (uint16_t)pr;
		}
	}
}

/* A queue left unbound that a lossless priority's pause stops (pfc_enable through
 * pfc_to_queue_map) takes egress_lossless_profile, as SONiC's templates bind queues 3-4,
 * the lossless ones; the others keep egress_lossy_profile (port_defaults). */
static void
lossless_queues(struct lsw_config *c, const struct bindings *bs)
{
	struct lsw_qos_conf *q = &c->qos;
	int pr = find_profile(q, "egress_lossless_profile");

	if (pr < 0)
		return;
	for (uint16_t port = 0; port < c->n_ports; port++) {
		struct lsw_port_qos_conf *pq = &q->port[port];
		const struct lsw_map_conf *m =
			&q->map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]];
		for (int prio = 0; prio < 8; prio++) {
			uint8_t i = m->v[prio];
			if (pq->pfc_enable >> prio & 1 && i < LSW_NUM_QUEUES && !bs->seen[port][i])
				pq->q_profile[i] = (uint16_t)pr;
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
			const struct lsw_port_qos_conf *pq = &q->port[port];
			const struct lsw_profile_conf *pg = &q->profile[pq->pg_profile[i]];
			const struct lsw_profile_conf *qu = &q->profile[pq->q_profile[i]];
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
lsw_config_buffer_bindings(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	const struct lsw_qos_conf *q = &c->qos;
	struct bindings bs = {.c = c, .pg = true};
	json_t *t;

	if ((t = json_object_get(doc, "CABLE_LENGTH")) != NULL)
		lsw_decode_entries(t, "$.CABLE_LENGTH", parse_cable, c, errs);
	if ((t = json_object_get(doc, "BUFFER_PG")) != NULL)
		lsw_decode_entries(t, "$.BUFFER_PG", parse_binding, &bs, errs);
	memset(&bs, 0, sizeof(bs));
	bs.c = c;
	if ((t = json_object_get(doc, "BUFFER_QUEUE")) != NULL)
		lsw_decode_entries(t, "$.BUFFER_QUEUE", parse_binding, &bs, errs);
	if (errs->n)
		return;
	lossless_queues(c, &bs);
	for (uint16_t port = 0; port < c->n_ports; port++) {
		const struct lsw_port_qos_conf *pq = &q->port[port];
		for (int i = 0; i < 8; i++) {
			if (pq->pg_profile[i] != LSW_NONE && pq->q_profile[i] != LSW_NONE)
				continue;
			char p[LSW_PATH_LEN];
			lsw_path_key(p, "$.PORT", c->port[port].name);
			lsw_errs_add(errs, p, "PG or queue %d has no buffer profile: bind one in "
				     "BUFFER_PG/BUFFER_QUEUE, or define ingress_lossy_profile and "
				     "egress_lossy_profile", i);
			return;
		}
	}
	check_budgets(c, errs);
}
