/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet trimming's tables (dataplane/TRIMMING.md): SWITCH_TRIMMING|GLOBAL as SONiC's
 * packet trimming HLD has it (size, dscp_value, tc_value, queue_index), and the exemption:
 * ACL_TABLE entries of type TRIMMING_L3 (the HLD's sample table type, built in: no
 * ACL_TABLE_TYPE needed) bound to ingress ports, and their ACL_RULE entries, whose only
 * action is DISABLE_TRIM. Read once the profiles are bound (config_buffer.c), which say
 * which queues trim.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <rte_common.h>
#include "config.h"
#include "decode.h"
#include "jsonv.h"

/* A value that is a number in [0, @max] or the one keyword @word (into @max + 1). */
static bool
num_or_word(json_t *v, const char *path, uint64_t max, const char *word, uint8_t *out,
	    struct lsw_errs *errs)
{
	uint64_t x;

	if (json_is_string(v) && strcmp(json_string_value(v), word) == 0) {
		*out = (uint8_t)(max + 1);
		return true;
	}
	if ((json_is_integer(v) || (json_is_string(v) && json_string_length(v) > 0 &&
				    strspn(json_string_value(v), "0123456789") ==
				    json_string_length(v))) &&
	    lsw_jv_uint(v, path, 0, UINT64_MAX, &x, errs) && x <= max) {
		*out = (uint8_t)x;
		return true;
	}
	lsw_errs_add(errs, path, "expected 0-%u or \"%s\"", (unsigned int)max, word);
	return false;
}

static bool
dscp_value(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	struct lsw_trim_conf *t = out;
	uint8_t x;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!num_or_word(v, path, 63, "from-tc", &x, errs))
		return false;
	t->from_tc = x == 64;
	t->dscp = t->from_tc ? 0 : x;
	return true;
}

static bool
queue_index(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	    struct lsw_errs *errs)
{
	struct lsw_trim_conf *t = out;
	uint8_t x;

	RTE_SET_USED(f);
	RTE_SET_USED(ctx);
	if (!num_or_word(v, path, LSW_NUM_QUEUES - 1, "dynamic", &x, errs))
		return false;
	t->queue = x == LSW_NUM_QUEUES ? LSW_TRIM_QUEUE_DYNAMIC : x;
	return true;
}

/* SAI's defaults (SAI_SWITCH_ATTR_PACKET_TRIM_*): size 128, DSCP 0, TC 0, queue 0. */
#define AT(m) LSW_AT(struct lsw_trim_conf, m)
static const struct lsw_field global_rows[] = {
	{.name = "size", .type = LSW_F_UINT, AT(size), .min = LSW_TRIM_MIN_SIZE,
	 .max = LSW_MAX_FRAME, .dflt = LSW_TRIM_DEFAULT_SIZE},
	{.name = "dscp_value", .type = LSW_F_CUSTOM, .fn = dscp_value},
	{.name = "tc_value", .type = LSW_F_UINT, AT(tc), .max = LSW_NUM_TC - 1},
	{.name = "queue_index", .type = LSW_F_CUSTOM, .fn = queue_index},
};
#undef AT
static const struct lsw_fields global = LSW_FIELDS(global_rows);
LSW_CONFIG_OBJECT(trim_global, "SWITCH_TRIMMING.GLOBAL", &global)

static void
parse_global(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_trim_conf *t = ctx;

	if (strcmp(key, "GLOBAL") != 0) {
		lsw_errs_add(errs, p, "SWITCH_TRIMMING has one entry, GLOBAL");
		return;
	}
	if (lsw_decode(o, p, &global, t, NULL, NULL, errs))
		t->set = true;
}

/* ---- ACL_TABLE ----------------------------------------------------------------------- */

struct acl_table {
	char type[32], stage[16], desc[128];
	json_t *ports;
};

/* The value itself, read once the table's name is known (table_ports). */
static bool
keep_value(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	   struct lsw_errs *errs)
{
	RTE_SET_USED(path);
	RTE_SET_USED(ctx);
	RTE_SET_USED(errs);
	*(json_t **)((char *)out + f->off) = v;
	return true;
}

#define AT(m) LSW_AT(struct acl_table, m)
static const struct lsw_field table_rows[] = {
	{.name = "type", .type = LSW_F_STR, AT(type), .required = "TRIMMING_L3"},
	{.name = "stage", .type = LSW_F_STR, AT(stage), .dflt_str = "ingress"},
	{.name = "ports", .type = LSW_F_CUSTOM, .off = offsetof(struct acl_table, ports),
	 .fn = keep_value},
	{.name = "policy_desc", .type = LSW_F_STR, AT(desc)},
};
#undef AT
static const struct lsw_fields acl_table = LSW_FIELDS(table_rows);
LSW_CONFIG_OBJECT(acl_table, "ACL_TABLE", &acl_table)
enum { T_TYPE, T_STAGE, T_PORTS }; /* rows */

/* "ports": ["Ethernet0", ...], or one string "Ethernet0,Ethernet4" as CONFIG_DB's "ports@". */
static bool
table_ports(const struct lsw_config *c, json_t *v, const char *path, uint32_t *ports,
	    struct lsw_errs *errs)
{
	char names[1024], pi[LSW_PATH_LEN];
	json_t *e;
	size_t i;

	*ports = 0;
	if (json_is_string(v)) {
		snprintf(names, sizeof(names), "%s", json_string_value(v));
		for (char *tok = strtok(names, ","); tok != NULL; tok = strtok(NULL, ",")) {
			int p = lsw_config_port_index(c, tok);
			if (p < 0) {
				lsw_errs_add(errs, path, "no port named '%s'", tok);
				return false;
			}
			*ports |= 1u << p;
		}
		return true;
	}
	if (!json_is_array(v)) {
		lsw_errs_add(errs, path, "expected a list of port names");
		return false;
	}
	json_array_foreach(v, i, e) {
		int p = json_is_string(e) ? lsw_config_port_index(c, json_string_value(e)) : -1;
		lsw_path_index(pi, path, i);
		if (p < 0) {
			lsw_errs_add(errs, pi, "expected the name of a port");
			return false;
		}
		*ports |= 1u << p;
	}
	return true;
}

static void
parse_table(const char *name, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	struct lsw_trim_conf *t = &c->qos.trim;
	struct acl_table a = {0};
	unsigned int before = errs->n;
	char pf[LSW_PATH_LEN];
	uint64_t seen;

	lsw_decode_defaults(&acl_table, &a);
	if (!lsw_decode(o, p, &acl_table, &a, c, &seen, errs) || errs->n != before)
		return;
	if (t->n_tables == LSW_TRIM_MAX_TABLES || strlen(name) >= LSW_QOS_NAME_LEN) {
		lsw_errs_add(errs, p, "more than %d ACL tables, or name too long",
			     LSW_TRIM_MAX_TABLES);
		return;
	}
	/* lsw's ACL does one thing: exempt traffic from trimming. */
	if (strcasecmp(a.type, "TRIMMING_L3") != 0) {
		lsw_path_key(pf, p, "type");
		lsw_errs_add(errs, pf, "lsw's ACL tables are of type TRIMMING_L3 (their rules' "
			     "action: DISABLE_TRIM), not '%s'", a.type);
		return;
	}
	if (strcasecmp(a.stage, "ingress") != 0) {
		lsw_path_key(pf, p, "stage");
		lsw_errs_add(errs, pf, "a TRIMMING_L3 table is bound at ingress, not '%s'",
			     a.stage);
		return;
	}
	uint32_t ports = 0;
	lsw_path_key(pf, p, "ports");
	if ((seen >> T_PORTS & 1) && !table_ports(c, a.ports, pf, &ports, errs))
		return;
	snprintf(t->table[t->n_tables].name, LSW_QOS_NAME_LEN, "%s", name);
	t->table[t->n_tables++].ports = ports;
}

/* ---- ACL_RULE ------------------------------------------------------------------------ */

struct acl_rule {
	uint32_t priority;
	char action[32], src[64], dst[64], src6[64], dst6[64];
	uint8_t dscp;
};

#define AT(m) LSW_AT(struct acl_rule, m)
static const struct lsw_field rule_rows[] = {
	{.name = "PRIORITY", .type = LSW_F_UINT, AT(priority), .max = 999999},
	{.name = "PACKET_ACTION", .type = LSW_F_STR, AT(action), .required = "DISABLE_TRIM"},
	{.name = "SRC_IP", .type = LSW_F_STR, AT(src)},
	{.name = "DST_IP", .type = LSW_F_STR, AT(dst)},
	{.name = "SRC_IPV6", .type = LSW_F_STR, AT(src6)},
	{.name = "DST_IPV6", .type = LSW_F_STR, AT(dst6)},
	{.name = "DSCP", .type = LSW_F_UINT, AT(dscp), .max = 63},
};
#undef AT
static const struct lsw_fields acl_rule = LSW_FIELDS(rule_rows);
LSW_CONFIG_OBJECT(acl_rule, "ACL_RULE", &acl_rule)
enum { R_PRIO, R_ACTION, R_SRC, R_DST, R_SRC6, R_DST6, R_DSCP }; /* rows */

/* An address match: "10.0.0.1/32" or "10.0.0.1" (IPv4, @v6 false), or IPv6 the same. */
static bool
addr_match(const char *s, bool v6, const char *path, uint8_t *ip, uint8_t *plen,
	   struct lsw_errs *errs)
{
	uint32_t a;
	bool ok;

	if (v6) {
		ok = strchr(s, '/') ? lsw_parse_prefix6(s, ip, plen) : lsw_parse_ipv6(s, ip);
		if (ok && strchr(s, '/') == NULL)
			*plen = 128;
	} else {
		ok = strchr(s, '/') ? lsw_parse_prefix(s, &a, plen) : lsw_parse_ipv4(s, &a);
		if (ok && strchr(s, '/') == NULL)
			*plen = 32;
		a = rte_cpu_to_be_32(a);
		memcpy(ip, &a, sizeof(a));
	}
	if (ok && *plen == 0)
		ok = false; /* matches everything: leave the field out */
	if (!ok)
		lsw_errs_add(errs, path, "'%s' is not an %s address or prefix (e.g. %s)", s,
			     v6 ? "IPv6" : "IPv4", v6 ? "2001:db8::1/128" : "10.0.0.1/32");
	return ok;
}

static void
parse_rule(const char *key, json_t *o, const char *p, void *ctx, struct lsw_errs *errs)
{
	struct lsw_config *c = ctx;
	struct lsw_trim_conf *t = &c->qos.trim;
	char tbl[LSW_QOS_NAME_LEN], pf[LSW_PATH_LEN];
	const char *rest;
	struct acl_rule a = {0};
	unsigned int before = errs->n;
	uint64_t seen;

	if (!lsw_config_split_key(key, tbl, sizeof(tbl), &rest) || *rest == '\0') {
		lsw_errs_add(errs, p, "an ACL_RULE key is TABLE|RULE");
		return;
	}
	int ti = lsw_config_find(tbl, t->table, t->n_tables, sizeof(t->table[0]));
	if (ti < 0) {
		lsw_errs_add(errs, p, "no ACL_TABLE named '%s'", tbl);
		return;
	}
	if (!lsw_decode(o, p, &acl_rule, &a, c, &seen, errs) || errs->n != before)
		return;
	if (strcmp(a.action, "DISABLE_TRIM") != 0) {
		lsw_path_key(pf, p, "PACKET_ACTION");
		lsw_errs_add(errs, pf, "a TRIMMING_L3 rule's action is DISABLE_TRIM, not '%s'",
			     a.action);
		return;
	}
	if (t->n_rules == LSW_TRIM_MAX_RULES) {
		lsw_errs_add(errs, p, "more than %d ACL rules", LSW_TRIM_MAX_RULES);
		return;
	}
	bool v4 = seen & (1u << R_SRC | 1u << R_DST), v6 = seen & (1u << R_SRC6 | 1u << R_DST6);
	if (v4 && v6) {
		lsw_errs_add(errs, p, "a rule matches IPv4 (SRC_IP, DST_IP) or IPv6 (SRC_IPV6, "
			     "DST_IPV6) addresses, not both");
		return;
	}
	struct lsw_trim_rule *r = &t->rule[t->n_rules];
	*r = (struct lsw_trim_rule){.in_ports = t->table[ti].ports, .v6 = v6};
	static const struct {
		int row;
		bool v6, dst;
	} addrs[] = {{R_SRC, false, false}, {R_DST, false, true}, {R_SRC6, true, false},
		     {R_DST6, true, true}};
	const char *text[] = {a.src, a.dst, a.src6, a.dst6};
	for (size_t i = 0; i < RTE_DIM(addrs); i++) {
		if (!(seen >> addrs[i].row & 1))
			continue;
		lsw_path_key(pf, p, rule_rows[addrs[i].row].name);
		addr_match(text[i], addrs[i].v6, pf, addrs[i].dst ? r->dst : r->src,
			   addrs[i].dst ? &r->dst_plen : &r->src_plen, errs);
	}
	if (seen >> R_DSCP & 1)
		r->dscp = 1ull << a.dscp;
	if (errs->n != before)
		return;
	snprintf(t->rule_name[t->n_rules], sizeof(t->rule_name[0]), "%s", key);
	t->rule_table[t->n_rules++] = (uint16_t)ti;
}

/* "from-tc" takes each trimming port's DSCP from its TC_TO_DSCP_MAP: one must be bound. */
static void
check_from_tc(const struct lsw_config *c, struct lsw_errs *errs)
{
	const struct lsw_qos_conf *q = &c->qos;

	for (uint16_t p = 0; p < c->n_ports; p++) {
		bool trims = false;
		for (int i = 0; i < LSW_NUM_QUEUES; i++)
			trims |= q->profile[q->port[p].q_profile[i]].discard == LSW_DISCARD_TRIM;
		if (!trims || q->port[p].map[LSW_MAP_TC_TO_DSCP] != LSW_NONE)
			continue;
		lsw_errs_add(errs, "$.SWITCH_TRIMMING.GLOBAL.dscp_value", "from-tc takes the "
			     "trim DSCP from each egress port's TC_TO_DSCP_MAP: %s trims and has "
			     "none (PORT_QOS_MAP.%s.tc_to_dscp_map)", c->port[p].name,
			     c->port[p].name);
		return;
	}
}

void
lsw_config_trim(json_t *doc, struct lsw_config *c, struct lsw_errs *errs)
{
	struct lsw_trim_conf *t = &c->qos.trim;
	json_t *v;

	memset(t, 0, sizeof(*t));
	lsw_decode_defaults(&global, t);
	if ((v = json_object_get(doc, "SWITCH_TRIMMING")) != NULL)
		lsw_decode_entries(v, "$.SWITCH_TRIMMING", parse_global, t, errs);
	if ((v = json_object_get(doc, "ACL_TABLE")) != NULL)
		lsw_decode_entries(v, "$.ACL_TABLE", parse_table, c, errs);
	if (errs->n == 0 && (v = json_object_get(doc, "ACL_RULE")) != NULL)
		lsw_decode_entries(v, "$.ACL_RULE", parse_rule, c, errs);
	if (errs->n == 0 && t->from_tc)
		check_from_tc(c, errs);
}

void
lsw_trim_build(const struct lsw_config *c, struct lsw_trim_dp *d)
{
	const struct lsw_qos_conf *q = &c->qos;
	const struct lsw_trim_conf *t = &q->trim;

	memset(d, 0, sizeof(*d));
	d->size = (uint16_t)t->size;
	d->from_tc = t->from_tc;
	d->tc = t->tc;
	d->queue = t->queue;
	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_port_qos_conf *pq = &q->port[p];
		for (int i = 0; i < LSW_NUM_QUEUES; i++)
			if (q->profile[pq->q_profile[i]].discard == LSW_DISCARD_TRIM)
				d->q_trim[p] |= (uint8_t)(1u << i);
		/* A port without a map trims nothing with "from-tc" (validation). */
		d->dscp[p] = !t->from_tc ? t->dscp : pq->map[LSW_MAP_TC_TO_DSCP] == LSW_NONE ? 0 :
			     q->map[LSW_MAP_TC_TO_DSCP][pq->map[LSW_MAP_TC_TO_DSCP]].v[t->tc];
	}
	d->n_rules = (uint8_t)t->n_rules;
	memcpy(d->rule, t->rule, sizeof(d->rule));
}
