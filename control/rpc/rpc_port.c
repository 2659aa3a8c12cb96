/* SPDX-License-Identifier: BSD-3-Clause */
/* port.list, port.stats, port.set */
#include <stdlib.h>
#include "jsonv.h"
#include "rpc.h"
#include "switch.h"

static json_t *
port_json(struct lsw_switch *sw, uint16_t i)
{
	const struct lsw_port_conf *pc = &sw->cfg->port[i];
	const struct lsw_port_rt *rt = &sw->port[i];
	char mac[24], buf[64];
	json_t *addrs = json_array();
	uint8_t ll[16];

	lsw_fmt_mac(mac, sizeof(mac), &rt->mac);
	for (unsigned int a = 0; a < pc->n_addr; a++) {
		lsw_fmt_prefix(buf, sizeof(buf), pc->addr[a].ip, pc->addr[a].plen);
		json_array_append_new(addrs, json_string(buf));
	}
	for (unsigned int a = 0; a < pc->n_addr6; a++) {
		lsw_fmt_prefix6(buf, sizeof(buf), pc->addr6[a].ip, pc->addr6[a].plen);
		json_array_append_new(addrs, json_string(buf));
	}
	/* The link-local address, from the MAC in effect (EUI-64). */
	lsw_ip6_ll_from_mac(ll, &rt->mac);
	lsw_fmt_prefix6(buf, sizeof(buf), ll, 64);
	json_array_append_new(addrs, json_string(buf));
	return json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:o, s:s, s:b}",
		"name", pc->name, "index", i, "port_id", rt->port_id, "devargs", pc->devargs,
		"driver", rt->driver, "mac", mac, "mtu", pc->mtu, "speed", rt->speed,
		"admin_status", pc->admin_up ? "up" : "down",
		"oper_status", lsw_port_oper_status(sw, i), "lcore", pc->lcore, "addresses", addrs,
		"alias", pc->alias, "priority_tagging", pc->prio_tag);
}

static json_t *
port_list(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	RTE_SET_USED(args);
	RTE_SET_USED(e);
	json_t *a = json_array();
	for (uint16_t i = 0; i < sw->cfg->n_ports; i++)
		json_array_append_new(a, port_json(sw, i));
	return a;
}

static const struct lsw_rpc_method m_port_list = {
	.name = "port.list",
	.summary = "Ports: devargs, driver, MAC, MTU, speed, admin/oper status, lcore, addresses",
	.fn = port_list,
};
LSW_RPC_REGISTER(m_port_list)

static json_t *
port_stats_json(struct lsw_switch *sw, uint16_t p, const struct lsw_lcore_counters *sum)
{
	const struct lsw_port_counters *pc = &sum->port[p];
	json_t *o = json_object(), *drops = json_object();
	uint64_t in_disc = 0, out_disc = 0;
	struct rte_eth_stats st;

	for (int i = 0; i < LSW_PC_MAX; i++)
		json_object_set_new(o, lsw_port_ctr_name(i), json_integer((json_int_t)pc->ctr[i]));
	for (int d = 1; d < LSW_DROP_MAX; d++) {
		if (pc->drop[d] == 0)
			continue;
		json_object_set_new(drops, lsw_drop_name(d), json_integer((json_int_t)pc->drop[d]));
		if (lsw_drop_is_egress(d))
			out_disc += pc->drop[d];
		else
			in_disc += pc->drop[d];
	}
	json_object_set_new(o, "IF_IN_DISCARDS", json_integer((json_int_t)in_disc));
	json_object_set_new(o, "IF_OUT_DISCARDS", json_integer((json_int_t)out_disc));
	json_object_set_new(o, "drops", drops);
	lsw_stats_pmd(sw, p, &st);
	json_object_set_new(o, "pmd", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"ipackets", (json_int_t)st.ipackets, "opackets", (json_int_t)st.opackets,
		"ibytes", (json_int_t)st.ibytes, "obytes", (json_int_t)st.obytes,
		"imissed", (json_int_t)st.imissed, "ierrors", (json_int_t)st.ierrors,
		"oerrors", (json_int_t)st.oerrors, "rx_nombuf", (json_int_t)st.rx_nombuf));
	return o;
}

static json_t *
port_stats(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const int port = ((const struct lsw_rpc_port_args *)args)->port;
	struct lsw_lcore_counters *sum = lsw_stats_counters(sw, false);

	if (sum == NULL)
		return lsw_rpc_nomem(e);
	json_t *ports = json_object();
	for (uint16_t p = 0; p < sw->cfg->n_ports; p++)
		if (port < 0 || p == port)
			json_object_set_new(ports, sw->cfg->port[p].name,
					    port_stats_json(sw, p, sum));
	free(sum);
	return json_pack("{s:I, s:o}", "timestamp_ns", (json_int_t)lsw_now_ns(), "ports", ports);
}

static const struct lsw_rpc_method m_port_stats = {
	.name = "port.stats",
	.summary = "Per-port counters (SAI names), drops by reason and the PMD's own counters",
	.params = &lsw_rpc_port_params,
	.args_size = sizeof(struct lsw_rpc_port_args),
	.fn = port_stats,
};
LSW_RPC_REGISTER(m_port_stats)

struct port_set_args {
	int port;
	unsigned int up;        /* by lsw_admin_status_names */
};

static const struct lsw_field port_set_rows[] = {
	LSW_RPC_PORT_ROW_REQUIRED(struct port_set_args, port),
	{.name = "admin_status", .type = LSW_F_ENUM, LSW_AT(struct port_set_args, up),
	 .choices = lsw_admin_status_names, .required = "up or down",
	 .doc = "\"up\"|\"down\""},
};
static const struct lsw_fields port_set_params = LSW_FIELDS(port_set_rows);

static json_t *
port_set(struct lsw_switch *sw, const void *args, struct lsw_rpc_error *e)
{
	const struct port_set_args *a = args;
	const int port = a->port;
	const unsigned int up = a->up;
	bool was = sw->cfg->port[port].admin_up;
	lsw_port_set_admin(sw, (uint16_t)port, up == 1);
	if (lsw_snapshot_refresh(sw) != 0) {
		lsw_port_set_admin(sw, (uint16_t)port, was);
		lsw_rpc_fail(e, LSW_RPC_INTERNAL_ERROR, "out of memory");
		return NULL;
	}
	/* The running config document follows, so that what is reported stays true. */
	json_t *pt = json_object_get(json_object_get(sw->cfg->doc, "PORT"),
				     sw->cfg->port[port].name);
	json_object_set_new(pt, "admin_status", json_string(lsw_admin_status_names[up]));
	return port_json(sw, (uint16_t)port);
}

static const struct lsw_rpc_method m_port_set = {
	.name = "port.set",
	.summary = "Set a port's admin status; workers get a new snapshot under RCU",
	.params = &port_set_params,
	.args_size = sizeof(struct port_set_args),
	.fn = port_set,
};
LSW_RPC_REGISTER(m_port_set)
