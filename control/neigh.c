/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbor learning on the main lcore: apply what the workers' ARP handling reported. */
#include "lsw/log.h"
#include "jsonv.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "switch.h"

/* What NDP taught; fib6ctl checks the link (a config change may have moved it). */
static void
neigh6(struct lsw_switch *sw, const struct lsw_neigh_msg *m, uint64_t now)
{
	if (m->port >= sw->cfg->n_ports)
		return;
	int rc = lsw_fib6ctl_neigh_learn(sw->fib6c, sw->cfg, m->ip6, m->port, m->mac,
					 m->flags & LSW_NEIGH_MSG_UPDATE_ONLY, now);
	char ip[48], mac[24];
	struct rte_ether_addr ea;
	lsw_fmt_ipv6(ip, sizeof(ip), m->ip6);
	lsw_u64_to_mac(m->mac, &ea);
	lsw_fmt_mac(mac, sizeof(mac), &ea);
	if (rc > 0)
		LSW_LOG(INFO, "neighbor %s is at %s on %s", ip, mac, sw->cfg->port[m->port].name);
	else if (rc < 0)
		LSW_LOG(WARNING, "neighbor %s on %s: table full, not learned", ip,
			sw->cfg->port[m->port].name);
}

void
lsw_neigh_process(struct lsw_switch *sw)
{
	struct lsw_neigh_msg msgs[32];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst_elem(sw->dp.neigh_ring, msgs, sizeof(msgs[0]), 32,
						   NULL)) > 0) {
		uint64_t now = lsw_now_ns();
		for (unsigned int i = 0; i < n; i++) {
			const struct lsw_neigh_msg *m = &msgs[i];
			/* Sent before a config change moved or removed its subnet: stale. */
			bool own;
			if (m->flags & LSW_NEIGH_MSG_V6) {
				neigh6(sw, m, now);
				continue;
			}
			if (lsw_config_on_link_port(sw->cfg, m->ip, &own) != m->port)
				continue;
			int rc = lsw_fibctl_neigh_learn(sw->fibc, m->ip, m->port, m->mac,
							m->flags & LSW_NEIGH_MSG_UPDATE_ONLY, now);
			char ip[16], mac[24];
			struct rte_ether_addr ea;
			lsw_fmt_ipv4(ip, sizeof(ip), m->ip);
			lsw_u64_to_mac(m->mac, &ea);
			lsw_fmt_mac(mac, sizeof(mac), &ea);
			if (rc > 0)
				LSW_LOG(INFO, "neighbor %s is at %s on %s", ip, mac,
					sw->cfg->port[m->port].name);
			else if (rc < 0)
				LSW_LOG(WARNING, "neighbor %s on %s: table full, not learned", ip,
					sw->cfg->port[m->port].name);
		}
	}
}
