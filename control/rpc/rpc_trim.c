/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trim.stats: packet trimming as SONiC shows it (`show switch-trimming global`, `show switch
 * counters trim`, `show interfaces counters trim`): the settings in effect with the
 * capabilities STATE_DB lists, the switch's SAI_SWITCH_STAT_TX_TRIM_PACKETS and
 * DROPPED_TRIM_PACKETS (the sums over the ports), each port's three counters and trim
 * DSCP, and the exemptions. Per queue the counters are queue.stats'.
 */
#include <stdlib.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

static json_t *
settings(const struct lsw_trim_conf *t)
{
	return json_pack("{s:b, s:i, s:o, s:i, s:o, s:[ss], s:[ss]}",
		"configured", t->set, "size", (int)t->size,
		"dscp_value", t->from_tc ? json_string("from-tc") : json_integer(t->dscp),
		"tc_value", t->tc,
		"queue_index", t->queue == LSW_TRIM_QUEUE_DYNAMIC ? json_string("dynamic") :
			       json_integer(t->queue),
		/* STATE_DB SWITCH_CAPABILITY's, with SAI's names. */
		"dscp_resolution_modes", "DSCP_VALUE", "FROM_TC",
		"queue_resolution_modes", "STATIC", "DYNAMIC");
}

static json_t *
exemptions(const struct lsw_config *c, const struct lsw_trim_conf *t)
{
	json_t *a = json_array();
	char buf[64];

	for (uint16_t i = 0; i < t->n_rules; i++) {
		const struct lsw_trim_rule *r = &t->rule[i];
		json_t *o = json_pack("{s:s, s:s}", "rule", t->rule_name[i],
				      "PACKET_ACTION", "DISABLE_TRIM");
		json_t *ports = json_array();
		for (uint16_t p = 0; p < c->n_ports; p++)
			if (r->in_ports >> p & 1)
				json_array_append_new(ports, json_string(c->port[p].name));
		json_object_set_new(o, "ports", ports);
		const uint8_t *addr[2] = {r->src, r->dst};
		const uint8_t plen[2] = {r->src_plen, r->dst_plen};
		for (int k = 0; k < 2; k++) {
			if (plen[k] == 0)
				continue;
			if (r->v6) {
				lsw_fmt_prefix6(buf, sizeof(buf), addr[k], plen[k]);
			} else {
				uint32_t ip;
				memcpy(&ip, addr[k], 4);
				lsw_fmt_prefix(buf, sizeof(buf), rte_be_to_cpu_32(ip), plen[k]);
			}
			json_object_set_new(o, k == 0 ? (r->v6 ? "SRC_IPV6" : "SRC_IP") :
					    (r->v6 ? "DST_IPV6" : "DST_IP"), json_string(buf));
		}
		if (r->dscp)
			json_object_set_new(o, "DSCP", json_integer(__builtin_ctzll(r->dscp)));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
trim_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const int port = ((const struct lsw_rpc_port_args *)args)->port;
	const struct lsw_config *c = sw->cfg;
	const struct lsw_trim_dp *dp = &sw->dp.conf->trim;
	struct lsw_lcore_counters *sum = lsw_stats_counters(sw, false);
	uint64_t tx = 0, dropped = 0;

	if (sum == NULL)
		return lsw_rpc_nomem(e);
	json_t *ports = json_object();
	for (uint16_t p = 0; p < c->n_ports; p++) {
		const uint64_t *pc = sum->port[p].ctr;
		tx += pc[LSW_PC_TX_TRIM_PACKETS];
		dropped += pc[LSW_PC_DROPPED_TRIM_PACKETS];
		if (port >= 0 && p != port)
			continue;
		json_t *qs = json_array();
		for (int q = 0; q < LSW_NUM_QUEUES; q++)
			if (dp->q_trim[p] >> q & 1)
				json_array_append_new(qs, json_integer(q));
		json_object_set_new(ports, c->port[p].name, json_pack("{s:I, s:I, s:I, s:i, s:o}",
			"TRIM_PACKETS", (json_int_t)pc[LSW_PC_TRIM_PACKETS],
			"TX_TRIM_PACKETS", (json_int_t)pc[LSW_PC_TX_TRIM_PACKETS],
			"DROPPED_TRIM_PACKETS", (json_int_t)pc[LSW_PC_DROPPED_TRIM_PACKETS],
			"dscp", dp->dscp[p], "trim_queues", qs));
	}
	free(sum);
	return json_pack("{s:I, s:o, s:{s:I, s:I}, s:o, s:o}",
		"timestamp_ns", (json_int_t)lsw_now_ns(), "settings", settings(&c->qos.trim),
		"switch", "TX_TRIM_PACKETS", (json_int_t)tx,
		"DROPPED_TRIM_PACKETS", (json_int_t)dropped,
		"ports", ports, "exemptions", exemptions(c, &c->qos.trim));
}

static const struct lsw_rpc_method m_trim_stats = {
	.name = "trim.stats",
	.summary = "Packet trimming: settings, switch and port counters (SAI names), exemptions",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = trim_stats,
};
LSW_RPC_REGISTER(m_trim_stats)
