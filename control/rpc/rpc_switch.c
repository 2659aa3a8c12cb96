/* SPDX-License-Identifier: BSD-3-Clause */
/* switch.info and stats.clear */
#include <stdlib.h>
#include <unistd.h>
#include <rte_version.h>
#include "jsonv.h"
#include "rpc.h"
#include "rpc_server.h"
#include "switch.h"

static json_t *
switch_info(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	struct lsw_lcore_counters *sum = lsw_stats_counters(sw, false);

	RTE_SET_USED(args);
	if (sum == NULL)
		return lsw_rpc_nomem(e);
	json_t *workers = json_array();
	for (uint16_t w = 0; w < sw->dp.n_workers; w++) {
		json_t *ports = json_array();
		for (uint16_t p = 0; p < sw->cfg->n_ports; p++)
			if ((unsigned int)sw->cfg->port[p].lcore == sw->cfg->g.workers[w])
				json_array_append_new(ports, json_string(sw->cfg->port[p].name));
		const struct lsw_lcore_counters *c = &sw->dp.ctr[w];
		json_array_append_new(workers, json_pack("{s:i, s:i, s:i, s:o, s:I, s:I}",
			"index", w, "lcore", sw->cfg->g.workers[w], "cpu", sw->cfg->g.worker_cpu[w],
			"ports", ports,
			"loops", (json_int_t)lsw_counter_read(&c->loops),
			"busy_loops", (json_int_t)lsw_counter_read(&c->busy_loops)));
	}
	const struct lsw_rpc_stats *rs = lsw_rpc_server_stats(sw->rpc);
	json_t *rpc = json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"socket", sw->rpc_path, "clients", lsw_rpc_server_conns(sw->rpc),
		"connections", (json_int_t)rs->connections, "refused", (json_int_t)rs->refused,
		"requests", (json_int_t)rs->requests, "parse_errors", (json_int_t)rs->parse_errors,
		"too_large", (json_int_t)rs->too_large, "timeouts", (json_int_t)rs->timeouts,
		"output_overflow", (json_int_t)rs->output_overflow,
		"idle_closed", (json_int_t)rs->idle_closed,
		"tcp_connections", (json_int_t)rs->tcp_connections);
	if (sw->cfg->g.rpc_tcp_port != 0) {
		char a[16], tcp[24];
		lsw_fmt_ipv4(a, sizeof(a), sw->cfg->g.rpc_tcp_addr);
		snprintf(tcp, sizeof(tcp), "%s:%u", a, sw->cfg->g.rpc_tcp_port);
		json_object_set_new(rpc, "tcp", json_string(tcp));
	}
	json_t *events = json_object();
	for (int i = 0; i < LSW_EV_MAX; i++)
		json_object_set_new(events, lsw_event_name(i),
				    json_integer((json_int_t)sum->event[i]));
	free(sum);
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:f, s:i, s:o, s:i, s:b, s:i, s:i, s:o, s:o}",
		"version", LSW_VERSION, "dpdk", rte_version(), "hostname", sw->cfg->hostname,
		"pid", (int)getpid(), "config", sw->config_path,
		"uptime_s", (double)(lsw_now_ns() - sw->start_ns) / 1e9,
		"main_lcore", sw->cfg->g.main_lcore, "workers", workers,
		"idle_sleep_us", sw->cfg->g.idle_sleep_us, "hugepages", sw->hugepages,
		"ports", sw->cfg->n_ports,
		"mbufs_free", rte_mempool_avail_count(sw->dp.pool),
		"events", events, "rpc", rpc);
}

static const struct lsw_rpc_method m_switch_info = {
	.name = "switch.info",
	.summary = "Version, uptime, lcores and their ports, events, RPC transport counters",
	.fn = switch_info,
};
LSW_RPC_REGISTER(m_switch_info)

static json_t *
stats_clear(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(e);
	lsw_stats_clear(sw, ((const struct lsw_rpc_port_args *)args)->port);
	return json_pack("{s:b}", "cleared", 1);
}

static const struct lsw_rpc_method m_stats_clear = {
	.name = "stats.clear",
	.summary = "Clear counters (all, or one port's); workers' counters are never written",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = stats_clear,
};
LSW_RPC_REGISTER(m_stats_clear)

/* stats.get: what the per-feature methods return, in one document under one timestamp, so
 * that a script computes rates from two calls. Each part is the method's own result (the
 * same names and shape as RPC.md documents for it) without its own timestamp. */
static const struct {
	const char *key, *method;
} stats_parts[] = {
	{"switch", "switch.info"}, {"port", "port.stats"}, {"pg", "pg.stats"},
	{"queue", "queue.stats"}, {"buffer", "buffer.stats"}, {"pfc", "pfc.stats"},
	{"pfcwd", "pfcwd.stats"}, {"ecmp", "ecmp.stats"}, {"trim", "trim.stats"},
};

static json_t *
stats_get(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	json_t *out, *empty;

	RTE_SET_USED(args);
	out = json_pack("{s:I}", "timestamp_ns", (json_int_t)lsw_now_ns());
	empty = json_object();
	for (size_t i = 0; i < RTE_DIM(stats_parts); i++) {
		const struct lsw_rpc_method *m = lsw_rpc_method_find(stats_parts[i].method);
		json_t *r = lsw_rpc_call(sw, m, empty, e);
		if (r == NULL) {
			json_decref(empty);
			json_decref(out);
			return NULL;
		}
		json_object_del(r, "timestamp_ns");
		json_object_set_new(out, stats_parts[i].key, r);
	}
	json_decref(empty);
	return out;
}

static const struct lsw_rpc_method m_stats_get = {
	.name = "stats.get",
	.summary = "Every counter of the switch in one document, with a monotonic timestamp",
	.fn = stats_get,
};
LSW_RPC_REGISTER(m_stats_get)
