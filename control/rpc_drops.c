/* SPDX-License-Identifier: BSD-3-Clause */
/* drops.list and drops.clear: the last drop (and mark) snapshots (dropsnap.c). */
#include <stdio.h>
#include <string.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

struct filter {
	int port;           /* -1: any */
	int reason;         /* -1: any */
	int64_t qp;         /* -1: any */
	int kind;           /* -1: any */
	uint64_t limit;
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
		"seq", (json_int_t)seq, "time_ns", (json_int_t)lsw_clock_wall_ns(&sw->clock, s->tsc),
		"kind", s->kind == LSW_DROPSNAP_DROP ? "drop" : "mark",
		"port", port_name(sw, s->port), "in_port", rx,
		"out_port", s->out_port == LSW_DROPSNAP_NONE ? NULL : port_name(sw, s->out_port),
		"len", s->len, "caplen", s->caplen, "data", data);
	json_object_set_new(o, "queue", s->queue == LSW_DROPSNAP_NONE ? json_null() :
			    json_integer(s->queue));
	json_object_set_new(o, "reason", s->kind == LSW_DROPSNAP_DROP ?
			    json_string(lsw_drop_name((enum lsw_drop)s->reason)) : json_null());
	if (lsw_dropsnap_roce(s, &r))
		json_object_set_new(o, "roce", json_pack("{s:i, s:i, s:i}", "opcode", r.opcode,
							"dqpn", (int)r.dqpn, "psn", (int)r.psn));
	return o;
}

static bool
parse_filter(struct lsw_switch *sw, json_t *params, struct filter *f, struct lsw_rpc_error *e)
{
	static const char *const kinds[] = {"drop", "mark", NULL};
	const char *name;
	unsigned int k;
	uint64_t x;
	json_t *v;

	*f = (struct filter){.port = -1, .reason = -1, .qp = -1, .kind = -1, .limit = UINT64_MAX};
	if ((f->port = lsw_rpc_port_param(sw, params, false, e)) == -2)
		return false;
	if ((v = json_object_get(params, "reason")) != NULL &&
	    lsw_jv_str(v, "$.params.reason", 64, &name, &e->errs)) {
		for (int d = 1; d < LSW_DROP_MAX; d++)
			if (strcmp(name, lsw_drop_name((enum lsw_drop)d)) == 0)
				f->reason = d;
		if (f->reason < 0)
			lsw_errs_add(&e->errs, "$.params.reason", "no drop reason named '%s'", name);
	}
	if ((v = json_object_get(params, "qp")) != NULL &&
	    lsw_jv_uint(v, "$.params.qp", 0, 0xffffff, &x, &e->errs))
		f->qp = (int64_t)x;
	if ((v = json_object_get(params, "kind")) != NULL &&
	    lsw_jv_enum(v, "$.params.kind", kinds, &k, &e->errs))
		f->kind = (int)k;
	if ((v = json_object_get(params, "limit")) != NULL)
		lsw_jv_uint(v, "$.params.limit", 1, 65536, &f->limit, &e->errs);
	if (e->errs.n) {
		lsw_rpc_fail(e, LSW_RPC_INVALID_PARAMS, "invalid params");
		return false;
	}
	return true;
}

static json_t *
drops_list(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {"port", "reason", "qp", "kind", "limit", NULL};
	struct lsw_lcore_counters *sum;
	struct filter f;
	uint64_t seq;

	if (!lsw_rpc_params_check(params, allowed, e) || !parse_filter(sw, params, &f, e))
		return NULL;
	lsw_dropsnap_poll(sw);
	json_t *list = json_array();
	const struct lsw_dropsnap *s;
	for (uint32_t i = 0; (s = lsw_dropsnap_get(sw, i, &seq)) != NULL; i++)
		if (matches(sw, s, &f))
			json_array_append_new(list, snap_json(sw, s, seq));
	/* The newest @limit of those that match. */
	while (json_array_size(list) > f.limit)
		json_array_remove(list, 0);
	if ((sum = malloc(sizeof(*sum))) == NULL) {
		json_decref(list);
		lsw_rpc_fail(e, LSW_RPC_INTERNAL_ERROR, "out of memory");
		return NULL;
	}
	lsw_stats_sum(sw, sum);
	json_t *r = json_pack("{s:i, s:b, s:I, s:o}", "capacity", (int)sw->dropsnaps.cap,
			      "marks", sw->cfg->g.mark_snapshots, "missed",
			      (json_int_t)sum->event[LSW_EV_SNAPSHOT_MISSED], "snapshots", list);
	free(sum);
	return r;
}

static const struct lsw_rpc_method m_drops_list = {
	.name = "drops.list",
	.summary = "The last dropped (and marked) packets: where, why, first bytes, RoCE BTH",
	.params = "port?: string, reason?: string, qp?: integer, kind?: drop|mark, limit?: integer",
	.safe_while_forwarding = true,
	.fn = drops_list,
};
LSW_RPC_REGISTER(m_drops_list)

static json_t *
drops_clear(struct lsw_switch *sw, json_t *params, struct lsw_rpc_error *e)
{
	static const char *const allowed[] = {NULL};

	if (!lsw_rpc_params_check(params, allowed, e))
		return NULL;
	lsw_dropsnap_clear(sw);
	return json_pack("{s:b}", "cleared", true);
}

static const struct lsw_rpc_method m_drops_clear = {
	.name = "drops.clear",
	.summary = "Forget the stored drop and mark snapshots",
	.params = "",
	.safe_while_forwarding = true,
	.fn = drops_clear,
};
LSW_RPC_REGISTER(m_drops_clear)
