/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * WRED_PROFILE (SONiC's, and SAI's saiwred.h): ECN marking and WRED drop, SONiC's fields per
 * colour, with the separate ECN curve of the newer YANG model where given. Bound to queues
 * by QUEUE|<port>|<q>.wred_profile (config_sched.c).
 */
#include <stdio.h>
#include <string.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

#define MAX_THRESHOLD (1ull << 40)

static const char *const colors[LSW_COLORS] = {"green", "yellow", "red"};

/* "ecn": which colours are marked, a bit per colour in the order of colors[]. */
static const char *const ecn_modes[] = {
	"ecn_none", "ecn_green", "ecn_yellow", "ecn_green_yellow", "ecn_red", "ecn_green_red",
	"ecn_yellow_red", "ecn_all", NULL,
};

static bool
ecn_mode(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	 struct lsw_errs *errs)
{
	struct lsw_ecn_conf *w = out;
	unsigned int mode;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!lsw_jv_enum(v, path, ecn_modes, &mode, errs))
		return false;
	for (int i = 0; i < LSW_COLORS; i++)
		w->ecn[i] = mode >> i & 1;
	return true;
}

/* SAI's EWMA weight; 0 = the instantaneous queue, the only thing lsw does. */
static bool
ecn_weight(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	uint64_t x;

	RTE_SET_USED(f);
	RTE_SET_USED(out);
	RTE_SET_USED(ctx);
	if (!lsw_jv_uint(v, path, 0, 15, &x, errs))
		return false;
	if (x == 0)
		return true;
	lsw_errs_add(errs, path, "lsw marks and drops on the instantaneous queue: weight must "
		     "be 0");
	return false;
}

#define AT(m) LSW_AT(struct lsw_ecn_conf, m)
/* A colour's WRED curve (SONiC's default drop probability: 100) and its ECN curve, which
 * follows the WRED one where it is not given. */
#define COLOR_ROWS(c, i) \
	{.name = #c "_min_threshold", .type = LSW_F_SIZE, AT(wred[i].min), .max = MAX_THRESHOLD}, \
	{.name = #c "_max_threshold", .type = LSW_F_SIZE, AT(wred[i].max), .max = MAX_THRESHOLD}, \
	{.name = #c "_drop_probability", .type = LSW_F_UINT, AT(wred[i].prob), .max = 100, \
	 .dflt = 100}
#define ECN_ROWS(c, i) \
	{.name = "ecn_" #c "_min_threshold", .type = LSW_F_SIZE, AT(mark[i].min), \
	 .max = MAX_THRESHOLD}, \
	{.name = "ecn_" #c "_max_threshold", .type = LSW_F_SIZE, AT(mark[i].max), \
	 .max = MAX_THRESHOLD}, \
	{.name = "ecn_" #c "_mark_probability", .type = LSW_F_UINT, AT(mark[i].prob), .max = 100}
static const struct lsw_field profile_rows[] = {
	{.name = "wred_green_enable", .type = LSW_F_BOOL, AT(drop[LSW_GREEN])},
	{.name = "wred_yellow_enable", .type = LSW_F_BOOL, AT(drop[LSW_YELLOW])},
	{.name = "wred_red_enable", .type = LSW_F_BOOL, AT(drop[LSW_RED])},
	{.name = "ecn", .type = LSW_F_CUSTOM, .fn = ecn_mode},
	{.name = "weight", .type = LSW_F_CUSTOM, .fn = ecn_weight},
	COLOR_ROWS(green, LSW_GREEN), COLOR_ROWS(yellow, LSW_YELLOW), COLOR_ROWS(red, LSW_RED),
	ECN_ROWS(green, LSW_GREEN), ECN_ROWS(yellow, LSW_YELLOW), ECN_ROWS(red, LSW_RED),
};
#undef ECN_ROWS
#undef COLOR_ROWS
#undef AT
static const struct lsw_fields profile = LSW_FIELDS(profile_rows);
LSW_CONFIG_OBJECT(wred_profile, "WRED_PROFILE", &profile)

/* A curve read from <prefix>_min_threshold and <prefix>_max_threshold: both or neither,
 * max not below min; set when both hold. */
static void
check_curve(json_t *o, const char *path, const char *prefix, struct lsw_ecn_curve_conf *c,
	    struct lsw_errs *errs)
{
	char k_min[48], k_max[48], p[LSW_PATH_LEN];

	snprintf(k_min, sizeof(k_min), "%s_min_threshold", prefix);
	snprintf(k_max, sizeof(k_max), "%s_max_threshold", prefix);
	bool has_min = json_object_get(o, k_min) != NULL;
	bool has_max = json_object_get(o, k_max) != NULL;
	if (has_min != has_max) {
		lsw_path_key(p, path, has_min ? k_max : k_min);
		lsw_errs_add(errs, p, "required with %s", has_min ? k_min : k_max);
		return;
	}
	if (has_min && c->max < c->min) {
		lsw_path_key(p, path, k_max);
		lsw_errs_add(errs, p, "%llu is below %s (%llu)", (unsigned long long)c->max, k_min,
			     (unsigned long long)c->min);
		return;
	}
	c->set = has_min;
}

/* WRED_PROFILE.<name> */
static void
parse_profile(const char *name, json_t *o, const char *path, void *ctx, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = ctx;
	char p[LSW_PATH_LEN], k[48];

	if (q->n_ecn == LSW_MAX_ECN || strlen(name) >= LSW_QOS_NAME_LEN) {
		lsw_errs_add(errs, path, "too many WRED profiles (%d) or name too long",
			     LSW_MAX_ECN);
		return;
	}
	struct lsw_ecn_conf *w = &q->ecn[q->n_ecn++];
	unsigned int before = errs->n;
	memset(w, 0, sizeof(*w));
	lsw_decode_defaults(&profile, w);
	snprintf(w->name, sizeof(w->name), "%s", name);
	if (!lsw_decode(o, path, &profile, w, q, NULL, errs) || errs->n != before)
		return;
	for (int i = 0; i < LSW_COLORS; i++) {
		check_curve(o, path, colors[i], &w->wred[i], errs);
		snprintf(k, sizeof(k), "ecn_%s", colors[i]);
		check_curve(o, path, k, &w->mark[i], errs);
		if (!w->mark[i].set) /* ECN follows the WRED curve when it has none of its own */
			w->mark[i] = w->wred[i];
		if ((w->drop[i] && !w->wred[i].set) || (w->ecn[i] && !w->mark[i].set)) {
			snprintf(k, sizeof(k), "%s_min_threshold", colors[i]);
			lsw_path_key(p, path, k);
			lsw_errs_add(errs, p, "required: %s is enabled for this colour",
				     w->drop[i] ? "WRED drop" : "ECN");
		}
	}
}

void
lsw_config_ecn(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	lsw_decode_entries(t, "$.WRED_PROFILE", parse_profile, q, errs);
}
