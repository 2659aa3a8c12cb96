/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * WRED_PROFILE (reference/buffers.md 4.3): SONiC's fields, per colour, with the separate ECN
 * curve of the newer YANG model where given. Bound to queues by QUEUE|<port>|<q>.wred_profile
 * (config_qos.c).
 */
#include <stdio.h>
#include <string.h>
#include "config.h"
#include "jsonv.h"

#define MAX_THRESHOLD (1ull << 40)

static const char *const colors[LSW_COLORS] = {"green", "yellow", "red"};

/* "ecn" values: which colours are marked (bit per colour). */
static const char *const ecn_modes[] = {
	"ecn_none", "ecn_green", "ecn_yellow", "ecn_green_yellow", "ecn_red", "ecn_green_red",
	"ecn_yellow_red", "ecn_all", NULL,
};

/* @prefix "green" reads green_min_threshold, green_max_threshold, green_drop_probability;
 * "ecn_green" reads ecn_green_min_threshold, ..., ecn_green_mark_probability. */
static void
parse_curve(json_t *o, const char *path, const char *prefix, const char *prob_name,
	    struct lsw_ecn_curve_conf *c, struct lsw_errs *errs)
{
	char k_min[48], k_max[48], k_prob[48], p[LSW_PATH_LEN];
	json_t *v;
	bool ok = true;

	snprintf(k_min, sizeof(k_min), "%s_min_threshold", prefix);
	snprintf(k_max, sizeof(k_max), "%s_max_threshold", prefix);
	snprintf(k_prob, sizeof(k_prob), "%s_%s_probability", prefix, prob_name);
	bool has_min = (v = json_object_get(o, k_min)) != NULL;
	if (has_min) {
		lsw_path_key(p, path, k_min);
		ok &= lsw_jv_size(v, p, MAX_THRESHOLD, &c->min, errs);
	}
	bool has_max = (v = json_object_get(o, k_max)) != NULL;
	if (has_max) {
		lsw_path_key(p, path, k_max);
		ok &= lsw_jv_size(v, p, MAX_THRESHOLD, &c->max, errs);
	}
	if ((v = json_object_get(o, k_prob)) != NULL) {
		uint64_t x;
		lsw_path_key(p, path, k_prob);
		if (lsw_jv_uint(v, p, 0, 100, &x, errs))
			c->prob = (uint8_t)x;
	}
	if (has_min != has_max) {
		lsw_path_key(p, path, has_min ? k_max : k_min);
		lsw_errs_add(errs, p, "required with %s", has_min ? k_min : k_max);
		return;
	}
	if (has_min && ok && c->max < c->min) {
		lsw_path_key(p, path, k_max);
		lsw_errs_add(errs, p, "%llu is below %s (%llu)", (unsigned long long)c->max, k_min,
			     (unsigned long long)c->min);
		return;
	}
	c->set = has_min && ok;
}

static void
parse_profile(json_t *o, const char *path, struct lsw_ecn_conf *w, struct lsw_errs *errs)
{
	char p[LSW_PATH_LEN], k[48];
	unsigned int mode = 0;
	json_t *v;

	for (int i = 0; i < LSW_COLORS; i++) {
		w->wred[i].prob = 100; /* SONiC's default drop probability */
		snprintf(k, sizeof(k), "wred_%s_enable", colors[i]);
		if ((v = json_object_get(o, k)) != NULL) {
			lsw_path_key(p, path, k);
			lsw_jv_bool(v, p, &w->drop[i], errs);
		}
		parse_curve(o, path, colors[i], "drop", &w->wred[i], errs);
		snprintf(k, sizeof(k), "ecn_%s", colors[i]);
		parse_curve(o, path, k, "mark", &w->mark[i], errs);
	}
	if ((v = json_object_get(o, "ecn")) != NULL) {
		lsw_path_key(p, path, "ecn");
		lsw_jv_enum(v, p, ecn_modes, &mode, errs);
	}
	if ((v = json_object_get(o, "weight")) != NULL) {
		uint64_t x;
		/* SAI's EWMA weight; 0 = the instantaneous queue, the only thing lsw does. */
		lsw_path_key(p, path, "weight");
		if (lsw_jv_uint(v, p, 0, 15, &x, errs) && x != 0)
			lsw_errs_add(errs, p, "lsw marks and drops on the instantaneous queue: "
				     "weight must be 0");
	}
	for (int i = 0; i < LSW_COLORS; i++) {
		w->ecn[i] = mode >> i & 1;
		if (!w->mark[i].set) /* ECN follows the WRED curve when it has none of its own */
			w->mark[i] = w->wred[i];
		if ((w->drop[i] && !w->wred[i].set) || (w->ecn[i] && !w->mark[i].set)) {
			snprintf(k, sizeof(k), "%s_min_threshold", colors[i]);
			lsw_path_key(p, path, k);
			lsw_errs_add(errs, p, "required: %s is %s", w->drop[i] ? "WRED drop" : "ECN",
				     "enabled for this colour");
		}
	}
}

void
lsw_config_ecn(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	static const char *const fields[] = {
		"wred_green_enable", "wred_yellow_enable", "wred_red_enable", "ecn", "weight",
		"green_min_threshold", "green_max_threshold", "green_drop_probability",
		"yellow_min_threshold", "yellow_max_threshold", "yellow_drop_probability",
		"red_min_threshold", "red_max_threshold", "red_drop_probability",
		"ecn_green_min_threshold", "ecn_green_max_threshold", "ecn_green_mark_probability",
		"ecn_yellow_min_threshold", "ecn_yellow_max_threshold", "ecn_yellow_mark_probability",
		"ecn_red_min_threshold", "ecn_red_max_threshold", "ecn_red_mark_probability",
		NULL,
	};
	char p[LSW_PATH_LEN];
	const char *name;
	json_t *o;

	if (!json_is_object(t)) {
		lsw_errs_add(errs, "$.WRED_PROFILE", "expected an object");
		return;
	}
	json_object_foreach(t, name, o) {
		lsw_path_key(p, "$.WRED_PROFILE", name);
		if (!lsw_jv_object(o, p, fields, errs))
			continue;
		if (q->n_ecn == LSW_MAX_ECN || strlen(name) >= LSW_QOS_NAME_LEN) {
			lsw_errs_add(errs, p, "too many WRED profiles (%d) or name too long",
				     LSW_MAX_ECN);
			continue;
		}
		struct lsw_ecn_conf *w = &q->ecn[q->n_ecn++];
		memset(w, 0, sizeof(*w));
		snprintf(w->name, sizeof(w->name), "%s", name);
		parse_profile(o, p, w, errs);
	}
}
