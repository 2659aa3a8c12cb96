/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QoS tables in order (lsw_config_qos), and the classification here: the maps
 * (DSCP_TO_TC_MAP and the others of LSW_FOREACH_MAP) and PORT_QOS_MAP, which binds maps to
 * ports and says which priorities are lossless and watched. The buffer tables are in
 * config_buffer.c, SCHEDULER and QUEUE in config_sched.c, WRED_PROFILE in config_ecn.c,
 * PFC_WD in config_pfcwd.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

static const struct {
	const char *table, *field;
} maps[LSW_MAP_KINDS] = {
#define LSW_MAP_ROW(kind, table, field) [LSW_MAP_##kind] = {table, field},
	LSW_FOREACH_MAP(LSW_MAP_ROW)
#undef LSW_MAP_ROW
};

/* SONiC's AZURE maps (sonic-buildimage's qos_config.j2), always present under that name. */
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

struct map_ctx {
	struct lsw_qos_conf *q;
	int kind;
};

/* <MAP TABLE>.<name>: {"3": "3", ...}, keys left out mapping to 0, as on SONiC. */
static void
parse_map(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	const struct map_ctx *mc = ctx;
	struct lsw_qos_conf *q = mc->q;
	const int k = mc->kind, nkeys = k == LSW_MAP_DSCP_TO_TC ? 64 : 8;
	const int maxv = k == LSW_MAP_TC_TO_DSCP ? 63 : 7; /* the others give TCs, PGs, ... */
	char pv[LSW_PATH_LEN];
	const char *key;
	json_t *v;

	if (!json_is_object(o)) {
		lsw_errs_add(errs, p, "expected an object of key: value");
		return;
	}
	int idx = lsw_config_find(name, q->map[k], q->n_maps[k], sizeof(q->map[k][0]));
	if (idx < 0) {
		if (q->n_maps[k] == LSW_MAX_MAPS || strlen(name) >= LSW_QOS_NAME_LEN) {
			lsw_errs_add(errs, p, "too many maps or name too long");
			return;
		}
		idx = q->n_maps[k]++;
	}
	struct lsw_map_conf *m = &q->map[k][idx];
	snprintf(m->name, sizeof(m->name), "%s", name);
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
		if (lsw_jv_uint(v, pv, 0, (uint64_t)maxv, &x, errs))
			m->v[kv] = (uint8_t)x;
	}
}

/* A PORT_QOS_MAP entry: the maps it binds (-1: not given), its PFC and watchdog fields. */
struct port_qos_entry {
	int map[LSW_MAP_KINDS];
	uint8_t pfc_enable, pfcwd_sw_enable;
	unsigned int wd_status;    /* lsw_enable_names */
};

/* "3,4" (SONiC's pfc_enable): a priority bit mask; "" is none. */
static bool
prio_list(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	  struct lsw_errs *errs)
{
	uint8_t *mask = (uint8_t *)out + f->off;
	const char *s;

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, 32, &s, errs))
		return false;
	*mask = 0;
	/* Digits 0-7 separated by single commas: "", "3", "3,4". */
	for (const char *c = s; *c; c += 2) {
		if (*c < '0' || *c > '7' || (c[1] != ',' && c[1] != '\0') ||
		    (c[1] == ',' && c[2] == '\0')) {
			lsw_errs_add(errs, path, "'%s' is not a list of priorities 0-7 like "
				     "\"3,4\"", s);
			return false;
		}
		*mask |= (uint8_t)(1 << (*c - '0'));
		if (c[1] == '\0')
			break;
	}
	return true;
}

#define AT(m) LSW_AT(struct port_qos_entry, m)
static const struct lsw_qos_ref map_refs[LSW_MAP_KINDS] = {
#define LSW_MAP_REF(kind, table, field) \
	[LSW_MAP_##kind] = LSW_QOS_REF(table, map[LSW_MAP_##kind], n_maps[LSW_MAP_##kind]),
	LSW_FOREACH_MAP(LSW_MAP_REF)
#undef LSW_MAP_REF
};
static const struct lsw_field port_qos_rows[] = {
#define LSW_MAP_FIELD(kind, table, field) \
	{.name = field, .type = LSW_F_CUSTOM, AT(map[LSW_MAP_##kind]), .dflt = -1, \
	 .fn = lsw_config_ref, .arg = &map_refs[LSW_MAP_##kind]},
	LSW_FOREACH_MAP(LSW_MAP_FIELD)
#undef LSW_MAP_FIELD
	/* The lossless priorities, and the watched ones: named (pfcwd_sw_enable), or those
	 * of pfc_enable (pfc_watchdog_status: enable), which another entry may set. */
	{.name = "pfc_enable", .type = LSW_F_CUSTOM, AT(pfc_enable), .fn = prio_list},
	{.name = "pfcwd_sw_enable", .type = LSW_F_CUSTOM, AT(pfcwd_sw_enable), .fn = prio_list},
	{.name = "pfc_watchdog_status", .type = LSW_F_ENUM, AT(wd_status),
	 .choices = lsw_enable_names},
};
#undef AT
static const struct lsw_fields port_qos = LSW_FIELDS(port_qos_rows);
LSW_CONFIG_OBJECT(port_qos_map, "PORT_QOS_MAP", &port_qos)
enum { Q_PFC = LSW_MAP_KINDS, Q_PFCWD, Q_WD_STATUS }; /* rows */

struct port_qos_ctx {
	struct lsw_config *c;
	/* Per port: the entry that armed the watchdog, and whether it follows pfc_enable
	 * (which another entry may set): settled once every entry is read. */
	const char *wd_key[LSW_MAX_PORTS];
	bool wd_follow[LSW_MAX_PORTS];
};

/* PORT_QOS_MAP."PORT[,PORT...]" */
static void
parse_port_qos(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct port_qos_ctx *pc = ctx;
	struct lsw_config *c = pc->c;
	bool ports[LSW_MAX_PORTS] = {false};
	struct port_qos_entry e;
	unsigned int before = errs->n;
	char *names;
	uint64_t seen;

	lsw_decode_defaults(&port_qos, &e);
	if (!lsw_decode(o, p, &port_qos, &e, &c->qos, &seen, errs))
		return;
	/* SONiC allows "Ethernet0,Ethernet4" keys, as long as the port list: copied whole
	 * (a fixed buffer cut 24 ports' key and named a port 'Ether'). */
	names = strdup(key);
	if (names == NULL) {
		lsw_errs_add(errs, p, "out of memory");
		return;
	}
	for (char *tok = strtok(names, ","); tok != NULL; tok = strtok(NULL, ",")) {
		int pi = lsw_config_port_index(c, tok);
		if (pi < 0) {
			lsw_errs_add(errs, p, "no port named '%s'", tok);
			free(names);
			return;
		}
		ports[pi] = true;
	}
	free(names);
	if (errs->n != before)
		return;
	bool has_pfc = seen >> Q_PFC & 1, has_wd = seen >> Q_PFCWD & 1, follow = false;
	uint8_t wd = e.pfcwd_sw_enable;
	if (seen >> Q_WD_STATUS & 1) {
		if (!has_wd) {
			follow = e.wd_status == 1;
			has_wd = true;
		} else if (e.wd_status == 0) {
			wd = 0;
		}
	}
	for (uint16_t port = 0; port < c->n_ports; port++) {
		struct lsw_port_qos_conf *pq = &c->qos.port[port];
		if (!ports[port])
			continue;
		for (int k = 0; k < LSW_MAP_KINDS; k++)
			if (e.map[k] >= 0)
				pq->map[k] = (uint16_t)e.map[k];
		if (has_pfc)
			pq->pfc_enable = e.pfc_enable;
		if (has_wd) {
			pq->pfcwd_enable = wd;
			pq->pfcwd_set = true;
			pc->wd_follow[port] = follow;
			pc->wd_key[port] = key;
		}
	}
}

static void
parse_port_qos_table(json_t *t, struct lsw_config *c, struct lsw_errs *errs)
{
	struct port_qos_ctx pc = {.c = c};
	char p[LSW_PATH_LEN], pf[LSW_PATH_LEN];

	lsw_decode_entries(t, "$.PORT_QOS_MAP", parse_port_qos, &pc, errs);
	for (uint16_t port = 0; port < c->n_ports; port++) {
		struct lsw_port_qos_conf *q = &c->qos.port[port];
		if (pc.wd_follow[port])
			q->pfcwd_enable = q->pfc_enable;
		if (q->pfcwd_enable & ~q->pfc_enable) {
			lsw_path_key(p, "$.PORT_QOS_MAP", pc.wd_key[port]);
			lsw_path_key(pf, p, "pfcwd_sw_enable");
			lsw_errs_add(errs, pf, "the watchdog watches lossless priorities: 0x%02x "
				     "is not all in %s's pfc_enable", q->pfcwd_enable,
				     c->port[port].name);
		}
	}
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

/* What every (port, PG or queue) has until a table binds it: the AZURE maps (DSCP decides
 * unless a dot1p map is bound), the default lossy profiles, scheduler and no ECN. */
static void
port_defaults(struct lsw_qos_conf *q)
{
	int in_prof = lsw_config_find("ingress_lossy_profile", q->profile, q->n_profiles,
				      sizeof(q->profile[0]));
	int eg_prof = lsw_config_find("egress_lossy_profile", q->profile, q->n_profiles,
				      sizeof(q->profile[0]));

	for (uint16_t port = 0; port < LSW_MAX_PORTS; port++) {
		struct lsw_port_qos_conf *pq = &q->port[port];
		for (int k = 0; k < LSW_MAP_KINDS; k++)
			pq->map[k] = 0; /* AZURE */
		pq->map[LSW_MAP_DOT1P_TO_TC] = LSW_NONE;
		pq->map[LSW_MAP_TC_TO_DSCP] = LSW_NONE;
		for (int i = 0; i < 8; i++) {
			pq->pg_profile[i] = (uint16_t)in_prof; /* -1: LSW_NONE, refused if left */
			pq->q_profile[i] = (uint16_t)eg_prof;
			pq->q_sched[i] = 0;
			pq->q_ecn[i] = LSW_NONE;
		}
		pq->cable_m = UINT32_MAX;
	}
}

void
lsw_config_qos(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_qos_conf *q = &c->qos;
	json_t *t;

	if (q->buf.cell == 0) { /* the largest unit that divides every AI packet size */
		q->buf.cell = q->buf.ai_sizes[0];
		for (unsigned int i = 1; i < q->buf.n_ai_sizes; i++)
			q->buf.cell = gcd(q->buf.cell, q->buf.ai_sizes[i]);
	}
	builtin_maps(q);
	for (int k = 0; k < LSW_MAP_KINDS; k++) {
		struct map_ctx mc = {.q = q, .kind = k};
		char path[LSW_PATH_LEN];
		if ((t = json_object_get(doc, maps[k].table)) == NULL)
			continue;
		snprintf(path, sizeof(path), "$.%s", maps[k].table);
		lsw_decode_entries(t, path, parse_map, &mc, errs);
	}
	q->n_scheds = 1;
	q->sched[0] = (struct lsw_sched_conf){.name = "default", .type = LSW_SCHED_DWRR,
					      .weight = 1};
	if ((t = json_object_get(doc, "SCHEDULER")) != NULL)
		lsw_config_schedulers(t, q, errs);
	if ((t = json_object_get(doc, "WRED_PROFILE")) != NULL)
		lsw_config_ecn(t, q, errs);
	lsw_config_buffer_profiles(doc, q, errs);
	if (errs->n)
		return;
	port_defaults(q);
	if ((t = json_object_get(doc, "PORT_QOS_MAP")) != NULL)
		parse_port_qos_table(t, c, errs);
	lsw_config_pfcwd(json_object_get(doc, "PFC_WD"), c, errs);
	/* IEEE 802.1Qbb: a port runs PFC or 802.3x PAUSE, not both. */
	for (uint16_t port = 0; port < c->n_ports; port++)
		if (c->port[port].rx_pause && q->port[port].pfc_enable) {
			char p[LSW_PATH_LEN], pp[LSW_PATH_LEN];
			lsw_path_key(pp, "$.LSW_PORT", c->port[port].name);
			lsw_path_key(p, pp, "rx_pause");
			lsw_errs_add(errs, p, "802.3x PAUSE and PFC exclude each other on a port, "
				     "and PORT_QOS_MAP gives %s pfc_enable", c->port[port].name);
		}
	if ((t = json_object_get(doc, "QUEUE")) != NULL)
		lsw_config_queues(t, c, errs);
	lsw_config_buffer_bindings(doc, c, errs);
	if (errs->n == 0)
		lsw_config_trim(doc, c, errs);
}
