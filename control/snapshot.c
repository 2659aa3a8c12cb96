/* SPDX-License-Identifier: BSD-3-Clause */
/* The workers' configuration: built from the running config, published by pointer swap, the
 * old copy freed after every worker has passed a quiescent state. */
#include <rte_malloc.h>
#include "switch.h"

struct lsw_dp_conf *
lsw_snapshot_build(const struct lsw_switch *sw)
{
	const struct lsw_config *c = sw->cfg;
	struct lsw_dp_conf *d = rte_zmalloc("lsw_dp_conf", sizeof(*d), RTE_CACHE_LINE_SIZE);

	if (d == NULL)
		return NULL;
	d->n_ports = c->n_ports;
	d->n_workers = c->g.n_workers;
	d->idle_sleep_us = c->g.idle_sleep_us;
	d->ecmp_seed = c->g.ecmp_seed;
	d->arp_retry_ms = c->g.arp_retry_ms;
	d->arp_tries = c->g.arp_tries;
	d->icmp_rate = c->g.icmp_rate;
	d->icmp_burst = c->g.icmp_burst;
	for (uint16_t i = 0; i < c->n_ports; i++) {
		const struct lsw_port_conf *pc = &c->port[i];
		struct lsw_dp_port *p = &d->port[i];
		p->port_id = sw->port[i].port_id;
		p->admin_up = pc->admin_up;
		p->mtu = pc->mtu;
		p->mac = sw->port[i].mac;
		p->n_addr = pc->n_addr;
		for (unsigned int a = 0; a < pc->n_addr; a++) {
			p->addr[a] = pc->addr[a].ip;
			p->plen[a] = pc->addr[a].plen;
		}
		for (uint16_t w = 0; w < c->g.n_workers; w++)
			if (c->g.workers[w] == (unsigned int)pc->lcore)
				p->owner = w;
		d->owned[p->owner][d->n_owned[p->owner]++] = (uint8_t)i;
	}
	return d;
}

void
lsw_snapshot_publish(struct lsw_switch *sw, struct lsw_dp_conf *conf)
{
	struct lsw_dp_conf *old = sw->dp.conf;

	__atomic_store_n(&sw->dp.conf, conf, __ATOMIC_RELEASE);
	if (old == NULL)
		return;
	/* Returns at once for workers that are offline (asleep) or not started. */
	rte_rcu_qsbr_synchronize(sw->dp.qsv, RTE_QSBR_THRID_INVALID);
	rte_free(old);
}
