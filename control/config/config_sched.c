/* SPDX-License-Identifier: BSD-3-Clause */
/* SCHEDULER and QUEUE: how each egress queue is served, and its WRED_PROFILE. */
#include <stdio.h>
#include <string.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

const char *const lsw_sched_type_names[] = {"DWRR", "STRICT", "WRR", NULL};
#define SCHED_WRR 2 /* the index of "WRR" above */

#define AT(m) LSW_AT(struct lsw_sched_conf, m)
static const struct lsw_field sched_rows[] = {
	{.name = "type", .type = LSW_F_ENUM, AT(type), .choices = lsw_sched_type_names,
	 .required = "DWRR, WRR or STRICT"},
	{.name = "weight", .type = LSW_F_UINT, AT(weight), .min = 1, .max = 100, .dflt = 1},
};
#undef AT
static const struct lsw_fields sched = LSW_FIELDS(sched_rows);
LSW_CONFIG_OBJECT(scheduler, "SCHEDULER", &sched)
enum { S_TYPE, S_WEIGHT }; /* rows */

/* SCHEDULER.<name>: DWRR or WRR (both DWRR here) with a weight, or STRICT. */
static void
parse_scheduler(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = ctx;
	unsigned int before = errs->n;
	char pf[LSW_PATH_LEN];
	uint64_t seen;

	if (q->n_scheds == LSW_MAX_SCHEDULERS || strlen(name) >= LSW_QOS_NAME_LEN ||
	    lsw_config_find(name, q->sched, q->n_scheds, sizeof(q->sched[0])) >= 0) {
		lsw_errs_add(errs, p, "too many schedulers, name too long, or 'default'");
		return;
	}
	struct lsw_sched_conf *s = &q->sched[q->n_scheds];
	memset(s, 0, sizeof(*s));
	lsw_decode_defaults(&sched, s);
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (!lsw_decode(o, p, &sched, s, q, &seen, errs))
		return;
	bool strict = s->type == LSW_SCHED_STRICT, weight = seen >> S_WEIGHT & 1;
	lsw_path_key(pf, p, "weight");
	if (strict && weight)
		lsw_errs_add(errs, pf, "a STRICT scheduler has no weight");
	else if (!strict && !weight)
		lsw_errs_add(errs, pf, "required for DWRR and WRR: 1..100");
	if (s->type == SCHED_WRR)
		s->type = LSW_SCHED_DWRR;
	if (errs->n == before)
		q->n_scheds++;
}

void
lsw_config_schedulers(json_t *t, struct lsw_qos_conf *q, struct lsw_errs *errs)
{
	lsw_decode_entries(t, "$.SCHEDULER", parse_scheduler, q, errs);
}

/* QUEUE."PORTS|INDEX[-LAST]": its scheduler and WRED profile, by name. */
struct queue_entry {
	int sched, ecn;       /* -1: not given */
};

static const struct lsw_qos_ref sched_ref = LSW_QOS_REF("SCHEDULER", sched, n_scheds);
static const struct lsw_qos_ref ecn_ref = LSW_QOS_REF("WRED_PROFILE", ecn, n_ecn);

#define AT(m) LSW_AT(struct queue_entry, m)
static const struct lsw_field queue_rows[] = {
	{.name = "scheduler", .type = LSW_F_CUSTOM, AT(sched), .dflt = -1, .fn = lsw_config_ref,
	 .arg = &sched_ref},
	{.name = "wred_profile", .type = LSW_F_CUSTOM, AT(ecn), .dflt = -1, .fn = lsw_config_ref,
	 .arg = &ecn_ref},
};
#undef AT
static const struct lsw_fields queue = LSW_FIELDS(queue_rows);
LSW_CONFIG_OBJECT(queue, "QUEUE", &queue)

static void
parse_queue(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	unsigned int before = errs->n;
	bool ports[LSW_MAX_PORTS];
	struct queue_entry e;
	int lo, hi;

	lsw_decode_defaults(&queue, &e);
	if (!lsw_decode(o, p, &queue, &e, &c->qos, NULL, errs) ||
	    !lsw_config_port_range(c, key, p, ports, &lo, &hi, 7, errs) || errs->n != before)
		return;
	for (uint16_t port = 0; port < c->n_ports; port++)
		for (int i = lo; ports[port] && i <= hi; i++) {
			if (e.sched >= 0)
				c->qos.port[port].q_sched[i] = (uint16_t)e.sched;
			if (e.ecn >= 0)
				c->qos.port[port].q_ecn[i] = (uint16_t)e.ecn;
		}
}

void
lsw_config_queues(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	lsw_decode_entries(t, "$.QUEUE", parse_queue, c, errs);
}
