/* SPDX-License-Identifier: BSD-3-Clause */
/* pfc.stats and pfcwd.stats. SAI's SAI_PORT_STAT_PFC_n_* and SONiC's PFC_WD_QUEUE_STATS_*. */
#include <rte_cycles.h>
#include <stdlib.h>
#include "rpc.h"
#include "switch.h"

static json_t *
pfc_port_json(struct lsw_switch *sw, const struct lsw_lcore_counters *sum, uint16_t p,
	      uint64_t now_tsc)
{
	const struct lsw_pfc_counters *pc = &sum->port[p].pfc;
	const struct lsw_pfc_port *pf = &sw->dp.sched[p]->pfc;
	const double us = 1e6 / (double)sw->dp.tsc_hz;
	json_t *prios = json_object();

	static const char *const names[LSW_PFC_CTR_MAX] = {
#define PFC_NAME(name, f) [LSW_PFC_##name] = #name,
		LSW_FOREACH_PFC_CTR(PFC_NAME)
#undef PFC_NAME
	};

	for (int n = 0; n < 8; n++) {
		const uint64_t v[LSW_PFC_CTR_MAX] = {
#define PFC_VALUE(name, f) [LSW_PFC_##name] = pc->f[n],
			LSW_FOREACH_PFC_CTR(PFC_VALUE)
#undef PFC_VALUE
		};
		char k[40];
		bool rx_paused, tx_pausing;
		/* Durations in microseconds, a pause still running counted so far. */
		uint64_t rx = v[LSW_PFC_RX_PAUSE_DURATION_US] +
			      lsw_pfc_rx_running(pf, n, now_tsc, &rx_paused);
		uint64_t tx = v[LSW_PFC_TX_PAUSE_DURATION_US] +
			      lsw_pfc_tx_running(pf, n, now_tsc, &tx_pausing);
		json_t *o = json_object();
		for (int i = 0; i < LSW_PFC_CTR_MAX; i++) {
			uint64_t x = v[i];
			if (i == LSW_PFC_RX_PAUSE_DURATION_US)
				x = (uint64_t)((double)rx * us);
			else if (i == LSW_PFC_TX_PAUSE_DURATION_US)
				x = (uint64_t)((double)tx * us);
			snprintf(k, sizeof(k), "PFC_%d_%s", n, names[i]);
			json_object_set_new(o, k, json_integer((json_int_t)x));
		}
		json_object_set_new(o, "rx_paused", json_boolean(rx_paused));
		json_object_set_new(o, "tx_pausing", json_boolean(tx_pausing));
		snprintf(k, sizeof(k), "%d", n);
		json_object_set_new(prios, k, o);
	}
	char en[24] = "";
	for (int n = 0, l = 0; n < 8; n++)
		if (sw->cfg->qos.port[p].pfc_enable >> n & 1)
			l += snprintf(en + l, sizeof(en) - (size_t)l, "%s%d", l ? "," : "", n);
	return json_pack("{s:s, s:i, s:b, s:o}", "pfc_enable", en,
			 "pfc_quanta", sw->cfg->port[p].pfc_quanta, "rx_pause",
			 sw->cfg->port[p].rx_pause, "priorities", prios);
}

static json_t *
pfc_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const int port = ((const struct lsw_rpc_port_args *)args)->port;

	struct lsw_lcore_counters *sum = lsw_stats_counters(sw, false);
	if (sum == NULL)
		return lsw_rpc_nomem(e);
	uint64_t now = rte_rdtsc();
	json_t *ports = json_object();
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++)
		if (port < 0 || p == port)
			json_object_set_new(ports, sw->cfg->port[p].name,
					    pfc_port_json(sw, sum, p, now));
	free(sum);
	return json_pack("{s:I, s:o}", "timestamp_ns", (json_int_t)lsw_now_ns(), "ports", ports);
}

static const struct lsw_rpc_method m_pfc_stats = {
	.name = "pfc.stats",
	.summary = "PFC per port and priority: frames sent and received, pause durations",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = pfc_stats,
};
LSW_RPC_REGISTER(m_pfc_stats)

static json_t *
pfcwd_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const int port = ((const struct lsw_rpc_port_args *)args)->port;
	const struct lsw_config *c = sw->cfg;

	/* Raw: storm counters are differences since the storm began. */
	struct lsw_buffer_lcore *v = lsw_stats_buffer(sw, true);
	if (v == NULL)
		return lsw_rpc_nomem(e);
	json_t *ports = json_object();
	for (uint16_t p = 0; p < c->n_ports; p++) {
		const struct lsw_port_qos_conf *pq = &c->qos.port[p];
		const struct lsw_pfcwd_port_conf *wp = &c->qos.wd.port[p];
		if ((port >= 0 && p != port) || !pq->pfcwd_enable)
			continue;
		json_t *queues = json_object();
		for (uint8_t prio = 0; prio < 8; prio++) {
			if (!(pq->pfcwd_enable >> prio & 1))
				continue;
			uint8_t q = c->qos.map[LSW_MAP_PFC_TO_QUEUE][pq->map[LSW_MAP_PFC_TO_QUEUE]]
				    .v[prio];
			const struct lsw_wd_queue *wq = &sw->wdq[p][q];
			const struct lsw_wd_stats *st = &sw->wds[p][q];
			uint64_t cur[LSW_WD_CTR_MAX];
			lsw_pfcwd_counters(sw, v, p, prio, q, cur);
			bool stormed = wq->state == LSW_WD_STORMED;
			json_t *o = json_pack("{s:s, s:i, s:I, s:I, s:s}",
				"PFC_WD_STATUS", lsw_wd_state_names[wq->state], "priority", prio,
				"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", (json_int_t)wq->detected,
				"PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED", (json_int_t)wq->restored,
				"action",
				lsw_pfcwd_action_names[stormed ? st->action : wp->action]);
			for (int i = 0; i < LSW_WD_CTR_MAX; i++) {
				char k[64];
				/* While stormed, the running storm counts in both. */
				uint64_t run = stormed ? cur[i] - st->base[i] : 0;
				snprintf(k, sizeof(k), "PFC_WD_QUEUE_STATS_%s",
					 lsw_wd_ctr_names[i]);
				json_object_set_new(o, k,
						    json_integer((json_int_t)(st->total[i] + run)));
				snprintf(k, sizeof(k), "PFC_WD_QUEUE_STATS_%s_LAST",
					 lsw_wd_ctr_names[i]);
				json_object_set_new(o, k, json_integer((json_int_t)(stormed ? run :
										    st->last[i])));
			}
			char k[4];
			snprintf(k, sizeof(k), "%u", q);
			json_object_set_new(queues, k, o);
		}
		json_object_set_new(ports, c->port[p].name, json_pack("{s:i, s:i, s:b, s:o}",
			"detection_time", wp->detection_ms, "restoration_time", wp->restoration_ms,
			"start_default", wp->defaulted, "queues", queues));
	}
	free(v);
	return json_pack("{s:i, s:b, s:o}", "poll_interval", c->qos.wd.poll_ms,
			 "big_red_switch", c->qos.wd.big_red_switch, "ports", ports);
}

static const struct lsw_rpc_method m_pfcwd_stats = {
	.name = "pfcwd.stats",
	.summary = "PFC watchdog per watched queue: status, storms, packets and drops",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = pfcwd_stats,
};
LSW_RPC_REGISTER(m_pfcwd_stats)
