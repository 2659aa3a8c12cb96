/* SPDX-License-Identifier: BSD-3-Clause */
/* drops.list and drops.clear: the last drop (and mark) snapshots (dropsnap.c). */
#include <stdio.h>
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

/* drops.list's params: what to list. */
struct filter {
	int port;           /* -1: any */
	int reason;         /* -1: any */
	int64_t qp;         /* -1: any */
	int kind;           /* -1: any; else enum lsw_dropsnap_kind */
	uint64_t limit;     /* 0: no limit */
};

/* The lsw port a packet arrived on (by its DPDK port id), or LSW_DROPSNAP_NONE. */
static uint8_t
rx_port(const struct lsw_switch *sw, const struct lsw_dropsnap *s)
{
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++)
		if (s->rx_port_id != LSW_DROPSNAP_PORT_NONE && sw->port[p].port_id == s->rx_port_id)
			return (uint8_t)p;
	return LSW_DROPSNAP_NONE;
}

static const char *
port_name(const struct lsw_switch *sw, uint8_t p)
{
	return p < sw->cfg->n_ports ? sw->cfg->port[p].name : NULL;
}

static bool
matches(const struct lsw_switch *sw, const struct lsw_dropsnap *s, const struct filter *f)
{
	struct lsw_dropsnap_bth r;

	if (f->kind >= 0 && s->kind != f->kind)
		return false;
	if (f->reason >= 0 && (s->kind != LSW_DROPSNAP_DROP || s->reason != f->reason))
		return false;
	if (f->port >= 0 && s->port != f->port && s->out_port != f->port &&
	    rx_port(sw, s) != f->port)
		return false;
	if (f->qp >= 0 && (!lsw_dropsnap_roce(s, &r) || r.dqpn != f->qp))
		return false;
	return true;
}

static json_t *
snap_json(const struct lsw_switch *sw, const struct lsw_dropsnap *s, uint64_t seq)
{
	static const char hex[] = "0123456789abcdef";
	char data[2 * LSW_DROPSNAP_BYTES + 1];
	struct lsw_dropsnap_bth r;
	const char *rx = port_name(sw, rx_port(sw, s));

	for (unsigned int i = 0; i < s->caplen; i++) {
		data[2 * i] = hex[s->data[i] >> 4];
		data[2 * i + 1] = hex[s->data[i] & 15];
	}
	data[2 * s->caplen] = '\0';
	json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:s?, s:s?, s:i, s:i, s:s}",
		"seq", (json_int_t)seq,
		"time_ns", (json_int_t)lsw_clock_wall_ns(&sw->clock, s->tsc),
		"kind", lsw_dropsnap_kind_names[s->kind],
		"port", port_name(sw, s->port), "in_port", rx,
		"out_port", s->out_port == LSW_DROPSNAP_NONE ? NULL : port_name(sw, s->out_port),
		"len", s->len, "caplen", s->caplen, "data", data);
	json_object_set_new(o, "queue", s->queue == LSW_DROPSNAP_NONE ? json_null() :
			    json_integer(s->queue));
	/* A trim has one when the trim queue refused it. */
	json_object_set_new(o, "reason", s->kind == LSW_DROPSNAP_DROP ||
			    (s->kind == LSW_DROPSNAP_TRIM && s->reason != 0) ?
			    json_string(lsw_drop_name((enum lsw_drop)s->reason)) : json_null());
	if (lsw_dropsnap_roce(s, &r))
		json_object_set_new(o, "roce", json_pack("{s:i, s:i, s:i}", "opcode", r.opcode,
							"dqpn", (int)r.dqpn, "psn", (int)r.psn));
	return o;
}

static bool
reason_param(const struct lsw_field *f, json_t *v, const char *path, void *out, void *ctx,
	     struct lsw_errs *errs)
{
	int *reason = (int *)((char *)out + f->off);
	const char *name;

	RTE_SET_USED(ctx);
	if (!lsw_jv_str(v, path, 64, &name, errs))
		return false;
	for (int d = 1; d < LSW_DROP_MAX; d++)
		if (strcmp(name, lsw_drop_name((enum lsw_drop)d)) == 0)
			*reason = d;
	if (*reason >= 0)
		return true;
	lsw_errs_add(errs, path, "no drop reason named '%s'", name);
	return false;
}

#define AT(m) LSW_AT(struct filter, m)
static const struct lsw_field filter_rows[] = {
	LSW_RPC_PORT_ROW(struct filter, port),
	{.name = "reason", .type = LSW_F_CUSTOM, AT(reason), .dflt = -1, .fn = reason_param,
	 .doc = "string"},
	{.name = "qp", .type = LSW_F_UINT, AT(qp), .max = 0xffffff, .dflt = -1,
	 .doc = "integer"},
	{.name = "kind", .type = LSW_F_ENUM, AT(kind), .choices = lsw_dropsnap_kind_names,
	 .dflt = -1, .doc = "drop|mark"},
	{.name = "limit", .type = LSW_F_UINT, AT(limit), .min = 1, .max = 65536,
	 .doc = "integer"},
};
#undef AT
static const struct lsw_fields filter_params = LSW_FIELDS(filter_rows);

static json_t *
drops_list(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct filter f = *(const struct filter *)args;
	struct lsw_lcore_counters *sum;
	uint64_t seq;

	lsw_dropsnap_poll(sw);
	json_t *list = json_array();
	const struct lsw_dropsnap *s;
	for (uint32_t i = 0; (s = lsw_dropsnap_get(sw, i, &seq)) != NULL; i++)
		if (matches(sw, s, &f))
			json_array_append_new(list, snap_json(sw, s, seq));
	/* The newest @limit of those that match. */
	while (f.limit != 0 && json_array_size(list) > f.limit)
		json_array_remove(list, 0);
	if ((sum = lsw_stats_counters(sw, false)) == NULL) {
		json_decref(list);
		return lsw_rpc_nomem(e);
	}
	json_t *r = json_pack("{s:i, s:b, s:I, s:o}", "capacity", (int)sw->dropsnaps.cap,
			      "marks", sw->cfg->g.mark_snapshots, "missed",
			      (json_int_t)sum->event[LSW_EV_SNAPSHOT_MISSED], "snapshots", list);
	free(sum);
	return r;
}

static const struct lsw_rpc_method m_drops_list = {
	.name = "drops.list",
	.summary = "The last dropped (and marked) packets: where, why, first bytes, RoCE BTH",
	.params = &filter_params,
	.args_size = sizeof(struct filter),
	.fn = drops_list,
};
LSW_RPC_REGISTER(m_drops_list)

static json_t *
drops_clear(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(args);
	RTE_SET_USED(e);
	lsw_dropsnap_clear(sw);
	return json_pack("{s:b}", "cleared", true);
}

static const struct lsw_rpc_method m_drops_clear = {
	.name = "drops.clear",
	.summary = "Forget the stored drop and mark snapshots",
	.fn = drops_clear,
};
LSW_RPC_REGISTER(m_drops_clear)
