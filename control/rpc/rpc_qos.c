/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qos.port: a port's effective QoS as the running configuration gives it (the maps bound or
 * AZURE's, pfc_enable, per queue and PG what they use, the PFC watchdog, the CNP class, MTU
 * and speed), with the JSON path of each config field, so that a client (lsw-agent) that
 * finds a mismatch can name the field to change.
 */
#include <stdio.h>
#include <string.h>
#include "jsonv.h"
#include "pfcwd.h"
#include "rpc.h"
#include "switch.h"

struct qos_port_args {
	int port;
};

static const struct lsw_field qos_port_rows[] = {
	LSW_RPC_PORT_ROW_REQUIRED(struct qos_port_args, port),
};
static const struct lsw_fields qos_port_params = LSW_FIELDS(qos_port_rows);

static const char *const map_tables[LSW_MAP_KINDS] = {
#define QOS_MAP_TABLE(kind, table, field) [LSW_MAP_##kind] = table,
	LSW_FOREACH_MAP(QOS_MAP_TABLE)
#undef QOS_MAP_TABLE
};

/* Whether PORT_QOS_MAP key @key ("Ethernet0,Ethernet4") names port @name. */
static bool
key_has_port(const char *key, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = key; s != NULL; s = strchr(s, ',')) {
		if (*s == ',')
			s++;
		if (strncmp(s, name, n) == 0 && (s[n] == ',' || s[n] == '\0'))
			return true;
	}
	return false;
}

/* The path of PORT_QOS_MAP's @field for port @p: the last entry naming the port and
 * having the field (the one in force, as the loader reads them in order), else the first
 * entry naming the port, else the entry the port would get. NULL @field: the entry. */
static void
port_qos_path(const struct lsw_switch *sw, uint16_t p, const char *const *fields,
	      char *out)
{
	json_t *t = json_object_get(sw->cfg->doc, "PORT_QOS_MAP");
	const char *name = sw->cfg->port[p].name, *key, *with = NULL, *any = NULL;
	const char *field = fields[0];
	char entry[LSW_PATH_LEN];
	json_t *v;

	json_object_foreach(t, key, v) {
		if (!key_has_port(key, name))
			continue;
		if (any == NULL)
			any = key;
		for (const char *const *f = fields; *f != NULL; f++)
			if (json_object_get(v, *f) != NULL) {
				with = key;
				field = *f;
				break;
			}
	}
	lsw_path_key(entry, "$.PORT_QOS_MAP", with ? with : any ? any : name);
	lsw_path_key(out, entry, field);
}

/* The path of @field of the QUEUE-style table @table ("PORTS|INDEX[-LAST]" keys) that
 * binds (port @p, index @idx): the last entry covering it with the field, else the entry a
 * config would add. */
static void
indexed_path(const struct lsw_switch *sw, const char *table, uint16_t p, int idx,
	     const char *field, char *out)
{
	json_t *t = json_object_get(sw->cfg->doc, table);
	const char *key, *with = NULL;
	char tbl[LSW_PATH_LEN], entry[LSW_PATH_LEN], own[LSW_NAME_LEN + 8];
	bool ports[LSW_MAX_PORTS];
	struct lsw_errs errs;
	json_t *v;
	int lo, hi;

	json_object_foreach(t, key, v) {
		errs.n = 0;
		if (lsw_config_port_range(sw->cfg, key, "", ports, &lo, &hi, LSW_NUM_QUEUES - 1,
					  &errs) && ports[p] && lo <= idx && idx <= hi &&
		    json_object_get(v, field) != NULL)
			with = key;
	}
	snprintf(own, sizeof(own), "%s|%d", sw->cfg->port[p].name, idx);
	snprintf(tbl, sizeof(tbl), "$.%s", table);
	lsw_path_key(entry, tbl, with ? with : own);
	lsw_path_key(out, entry, field);
}

static json_t *
map_array(const struct lsw_map_conf *m, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(m->v[i]));
	return a;
}

static json_t *
prio_array(uint8_t mask)
{
	json_t *a = json_array();

	for (int n = 0; n < 8; n++)
		if (mask >> n & 1)
			json_array_append_new(a, json_integer(n));
	return a;
}

static json_t *
queues_json(const struct lsw_switch *sw, uint16_t p)
{
	const struct lsw_qos_conf *qc = &sw->cfg->qos;
	const struct lsw_port_qos_conf *pq = &qc->port[p];
	json_t *queues = json_object();
	char k[4], ps[LSW_PATH_LEN], pw[LSW_PATH_LEN], pb[LSW_PATH_LEN];

	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		const struct lsw_sched_conf *sc = &qc->sched[pq->q_sched[q]];
		const struct lsw_ecn_conf *w = pq->q_ecn[q] == LSW_NONE ? NULL :
					       &qc->ecn[pq->q_ecn[q]];
		indexed_path(sw, "QUEUE", p, q, "scheduler", ps);
		indexed_path(sw, "QUEUE", p, q, "wred_profile", pw);
		indexed_path(sw, "BUFFER_QUEUE", p, q, "profile", pb);
		snprintf(k, sizeof(k), "%d", q);
		/* ecn: the profile marks green packets, the only colour lsw has (no policer). */
		json_object_set_new(queues, k, json_pack(
			"{s:s, s:s, s:i, s:s?, s:b, s:b, s:s, s:{s:s, s:s, s:s}}",
			"scheduler", sc->name, "type", lsw_sched_type_names[sc->type],
			"weight", sc->weight, "wred_profile", w ? w->name : NULL,
			"ecn", w && w->ecn[LSW_GREEN], "wred_drop", w && w->drop[LSW_GREEN],
			"profile", qc->profile[pq->q_profile[q]].name,
			"paths", "scheduler", ps, "wred_profile", pw, "profile", pb));
	}
	return queues;
}

static json_t *
pgs_json(const struct lsw_switch *sw, uint16_t p)
{
	const struct lsw_qos_conf *qc = &sw->cfg->qos;
	json_t *pgs = json_object();
	char k[4], pb[LSW_PATH_LEN];

	for (int pg = 0; pg < LSW_NUM_PG; pg++) {
		const struct lsw_profile_conf *pr = &qc->profile[qc->port[p].pg_profile[pg]];
		indexed_path(sw, "BUFFER_PG", p, pg, "profile", pb);
		snprintf(k, sizeof(k), "%d", pg);
		json_object_set_new(pgs, k, json_pack(
			"{s:s, s:b, s:b, s:I, s:I, s:I, s:{s:s}}",
			"profile", pr->name, "computed", pr->computed, "lossless", pr->xoff > 0,
			"headroom", (json_int_t)pr->xoff, "xon", (json_int_t)pr->xon,
			"size", (json_int_t)pr->size, "paths", "profile", pb));
	}
	return pgs;
}

/* The watchdog on the port: which priorities it watches and, per priority, its settings
 * and the state of the queue it watches. */
static json_t *
pfcwd_json(const struct lsw_switch *sw, uint16_t p)
{
	const struct lsw_qos_conf *qc = &sw->cfg->qos;
	const struct lsw_port_qos_conf *pq = &qc->port[p];
	const struct lsw_pfcwd_port_conf *wp = &qc->wd.port[p];
	json_t *per = json_object();
	char k[4];

	for (uint8_t prio = 0; prio < 8; prio++) {
		bool on = pq->pfcwd_enable >> prio & 1;
		uint8_t q = qc->map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]].v[prio];
		snprintf(k, sizeof(k), "%u", prio);
		json_object_set_new(per, k, on ? json_pack(
			"{s:b, s:i, s:s, s:i, s:i, s:s}", "enabled", true, "queue", q,
			"action", lsw_pfcwd_action_names[wp->action],
			"detection_time", wp->detection_ms, "restoration_time", wp->restoration_ms,
			"status", lsw_wd_state_names[sw->wdq[p][q].state]) :
			json_pack("{s:b}", "enabled", false));
	}
	return json_pack("{s:o, s:i, s:b, s:o}", "priorities", prio_array(pq->pfcwd_enable),
			 "poll_interval", qc->wd.poll_ms, "big_red_switch", qc->wd.big_red_switch,
			 "per_priority", per);
}

static json_t *
qos_port(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const uint16_t p = (uint16_t)((const struct qos_port_args *)args)->port;
	const struct lsw_config *c = sw->cfg;
	const struct lsw_qos_conf *qc = &c->qos;
	const struct lsw_port_qos_conf *pq = &qc->port[p];
	const char *name = c->port[p].name;
	char pp[LSW_PATH_LEN], path[LSW_PATH_LEN], tbl[LSW_PATH_LEN];
	json_t *paths = json_object(), *out = json_object();

	RTE_SET_USED(e);
	json_object_set_new(out, "port", json_string(name));
	for (int k = 0; k < LSW_MAP_KINDS; k++) {
		static const char *const fields[LSW_MAP_KINDS] = {
#define QOS_MAP_FIELD(kind, table, field) [LSW_MAP_##kind] = field,
			LSW_FOREACH_MAP(QOS_MAP_FIELD)
#undef QOS_MAP_FIELD
		};
		/* A port without dot1p_to_tc_map classifies by DSCP alone. */
		const struct lsw_map_conf *m = pq->map[k] == LSW_NONE ? NULL :
					       &qc->map[k][pq->map[k]];
		char key[40];
		if (m != NULL) {
			snprintf(tbl, sizeof(tbl), "$.%s", map_tables[k]);
			lsw_path_key(path, tbl, m->name);
		}
		json_object_set_new(paths, fields[k], m ? json_string(path) : json_null());
		json_object_set_new(out, fields[k], m ? json_string(m->name) : json_null());
		/* dscp_to_tc_map -> dscp_to_tc: the values, by DSCP, PCP, TC or priority. */
		snprintf(key, sizeof(key), "%.*s", (int)(strlen(fields[k]) - 4), fields[k]);
		json_object_set_new(out, key, m ? map_array(m, k == LSW_MAP_DSCP_TO_TC ? 64 : 8) :
				    json_null());
	}
	json_object_set_new(out, "pfc_enable", prio_array(pq->pfc_enable));
	port_qos_path(sw, p, (const char *const[]){"pfc_enable", NULL}, path);
	json_object_set_new(paths, "pfc_enable", json_string(path));
	json_object_set_new(out, "queues", queues_json(sw, p));
	json_object_set_new(out, "pgs", pgs_json(sw, p));
	json_object_set_new(out, "pfcwd", pfcwd_json(sw, p));
	/* Which field turned the watchdog on: PORT_QOS_MAP's, else a PFC_WD entry alone. */
	json_t *wd = json_object_get(c->doc, "PFC_WD");
	if (json_object_get(wd, name) != NULL && !pq->pfcwd_set) {
		lsw_path_key(path, "$.PFC_WD", name);
	} else {
		port_qos_path(sw, p, (const char *const[]){"pfcwd_sw_enable",
			      "pfc_watchdog_status", NULL}, path);
		/* Neither given: the field that would turn it on. */
		if (!pq->pfcwd_set)
			port_qos_path(sw, p, (const char *const[]){"pfc_watchdog_status", NULL},
				      path);
	}
	json_object_set_new(paths, "pfcwd", json_string(path));
	json_object_set_new(out, "cnp_tc", json_integer(c->g.cnp_tc == LSW_CNP_TC_DSCP ? -1 :
							 c->g.cnp_tc));
	json_object_set_new(paths, "cnp_tc", json_string("$.LSW.global.cnp_tc"));
	json_object_set_new(out, "mtu", json_integer(c->port[p].mtu));
	json_object_set_new(out, "speed", json_integer(sw->port[p].speed));
	lsw_path_key(pp, "$.PORT", name);
	lsw_path_key(path, pp, "mtu");
	json_object_set_new(paths, "mtu", json_string(path));
	lsw_path_key(path, pp, "speed");
	json_object_set_new(paths, "speed", json_string(path));
	json_object_set_new(out, "paths", paths);
	return out;
}

static const struct lsw_rpc_method m_qos_port = {
	.name = "qos.port",
	.summary = "A port's effective QoS: maps, lossless TCs, queues, PGs, PFC watchdog, "
		   "CNP class, MTU, with each field's config path",
	.params = &qos_port_params,
	.args_size = sizeof(struct qos_port_args),
	.fn = qos_port,
};
LSW_RPC_REGISTER(m_qos_port)
