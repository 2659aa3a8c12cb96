/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC_WD: the watchdog's poll interval and big red switch (GLOBAL), and per port its action
 * and times. Which priorities a port watches comes from PORT_QOS_MAP (config_qos.c); a port
 * watched without a PFC_WD entry gets SONiC's `pfcwd start_default`.
 */
#include <stdio.h>
#include <string.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

const char *const lsw_pfcwd_action_names[] = {"drop", "forward", "alert", NULL};
const char *const lsw_enable_names[] = {"disable", "enable", NULL};

static const struct lsw_field global_rows[] = {
	{.name = "POLL_INTERVAL", .type = LSW_F_UINT, LSW_AT(struct lsw_pfcwd_conf, poll_ms),
	 .min = 100, .max = 1000, .dflt = LSW_PFCWD_DEFAULT_MS},
	{.name = "BIG_RED_SWITCH", .type = LSW_F_ENUM,
	 LSW_AT(struct lsw_pfcwd_conf, big_red_switch), .choices = lsw_enable_names},
};
static const struct lsw_fields global = LSW_FIELDS(global_rows);
LSW_CONFIG_OBJECT(pfcwd_global, "PFC_WD.GLOBAL", &global)

#define AT(m) LSW_AT(struct lsw_pfcwd_port_conf, m)
static const struct lsw_field port_rows[] = {
	{.name = "action", .type = LSW_F_ENUM, AT(action), .choices = lsw_pfcwd_action_names,
	 .dflt = LSW_WD_DROP},
	{.name = "detection_time", .type = LSW_F_UINT, AT(detection_ms), .min = 100, .max = 5000,
	 .required = "100..5000 ms"},
	{.name = "restoration_time", .type = LSW_F_UINT, AT(restoration_ms), .min = 100,
	 .max = 60000},
	{.name = "pfc_stat_history", .type = LSW_F_ENUM, AT(stat_history),
	 .choices = lsw_enable_names},
};
#undef AT
static const struct lsw_fields port = LSW_FIELDS(port_rows);
LSW_CONFIG_OBJECT(pfcwd_port, "PFC_WD", &port)

/* PFC_WD.<port> */
static void
parse_port(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;

	if (strcmp(key, "GLOBAL") == 0)
		return;
	int pi = lsw_config_port_index(c, key);
	if (pi < 0) {
		lsw_errs_add(errs, p, "no port named '%s' (or GLOBAL)", key);
		return;
	}
	struct lsw_pfcwd_port_conf *wp = &c->qos.wd.port[pi];
	memset(wp, 0, sizeof(*wp));
	lsw_decode_defaults(&port, wp);
	if (lsw_decode(o, p, &port, wp, c, NULL, errs))
		wp->configured = true;
}

/* A port that PORT_QOS_MAP watches without a PFC_WD entry, and what a PFC_WD entry alone
 * watches. */
static void
settle(struct lsw_config *c)
{
	struct lsw_qos_conf *q = &c->qos;

	for (uint16_t i = 0; i < c->n_ports; i++) {
		struct lsw_port_qos_conf *pq = &q->port[i];
		/* A PFC_WD entry alone watches the lossless priorities, as SONiC's does. */
		if (q->wd.port[i].configured && !pq->pfcwd_set)
			pq->pfcwd_enable = pq->pfc_enable;
		/* The watchdog on, but no PFC_WD entry: SONiC's `pfcwd start_default` (the
		 * deployment guides' snippet relies on it), written into the running config. */
		if (pq->pfcwd_enable && !q->wd.port[i].configured)
			q->wd.port[i] = (struct lsw_pfcwd_port_conf){
				.configured = true, .defaulted = true, .action = LSW_WD_DROP,
				.detection_ms = LSW_PFCWD_DEFAULT_MS,
				.restoration_ms = LSW_PFCWD_DEFAULT_MS,
			};
	}
}

void
lsw_config_pfcwd(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_pfcwd_conf *wd = &c->qos.wd;
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];
	json_t *o;

	lsw_decode_defaults(&global, wd);
	if (t != NULL) {
		if (json_is_object(t) && (o = json_object_get(t, "GLOBAL")) != NULL)
			lsw_decode(o, "$.PFC_WD.GLOBAL", &global, wd, c, NULL, errs);
		lsw_decode_entries(t, "$.PFC_WD", parse_port, c, errs);
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
	settle(c);
}
