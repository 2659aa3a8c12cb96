/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker loop, l3fwd style: rx burst, per-packet dispatch, tx buffers with a drain timer. */
#include <unistd.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>
#include <rte_cycles.h>
#include "lsw/dataplane.h"

#define PREFETCH_OFFSET 3
#define TX_DRAIN_US     100

void
lsw_worker_init(struct lsw_worker *w, struct lsw_dp *dp, uint16_t idx, unsigned int lcore)
{
	memset(w, 0, sizeof(*w));
	w->dp = dp;
	w->idx = idx;
	w->lcore = lcore;
	w->ctr = &dp->ctr[idx];
	w->icmp_tokens = UINT64_MAX; /* a full bucket */
}

static inline void
handle_one(struct lsw_worker *w, const struct lsw_dp_conf *conf, uint16_t port,
	   const struct lsw_dp_port *p, struct rte_mbuf *m, uint64_t now)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	struct lsw_pkt_info pi;
	enum lsw_drop d;

	if (unlikely(m->nb_segs != 1)) {
		d = LSW_DROP_MULTI_SEGMENT;
		goto drop;
	}
	d = lsw_parse((const uint8_t *)eth, m->data_len, &pi);
	if (unlikely(d != LSW_DROP_NONE))
		goto drop;
	if (unlikely(eth->src_addr.addr_bytes[0] & 1)) {
		d = LSW_DROP_SMAC_MULTICAST;
		goto drop;
	}
	if (unlikely(!(pi.flags & LSW_PF_DMAC_MC) && !rte_is_same_ether_addr(&eth->dst_addr,
									     &p->mac))) {
		d = LSW_DROP_DMAC_MISMATCH;
		goto drop;
	}
	if (unlikely((pi.flags & LSW_PF_VLAN) && (pi.vlan_tci & RTE_VLAN_ID_MASK))) {
		d = LSW_DROP_VLAN_TAG_NOT_ALLOWED;
		goto drop;
	}
	switch (pi.ethertype) {
	case LSW_ETHERTYPE_IPV4:
		lsw_ipv4_input(w, conf, port, m, &pi, now);
		return;
	case LSW_ETHERTYPE_ARP:
		lsw_arp_input(w, conf, port, m, &pi);
		return;
	case LSW_ETHERTYPE_IPV6:
		d = LSW_DROP_IPV6_NOT_ROUTED;
		break;
	default: /* LSW_ETHERTYPE_MACCTL */
		d = LSW_DROP_MAC_CONTROL;
		break;
	}
drop:
	lsw_count_drop(w, port, d, m);
}

void
lsw_process_burst(struct lsw_worker *w, const struct lsw_dp_conf *conf, uint16_t port,
		  struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	const struct lsw_dp_port *p = &conf->port[port];
	struct lsw_port_counters *pc = &w->ctr->port[port];
	uint64_t bytes = 0, mc = 0;
	uint16_t i;

	for (i = 0; i < PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (i + PREFETCH_OFFSET < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_OFFSET], void *));
		bytes += m->pkt_len;
		mc += *rte_pktmbuf_mtod(m, uint8_t *) & 1;
		if (unlikely(!p->admin_up)) {
			lsw_count_drop(w, port, LSW_DROP_IRIF_DISABLED, m);
			continue;
		}
		handle_one(w, conf, port, p, m, now);
	}
	pc->ctr[LSW_PC_IF_IN_OCTETS] += bytes;
	pc->ctr[LSW_PC_IF_IN_NON_UCAST_PKTS] += mc;
	pc->ctr[LSW_PC_IF_IN_UCAST_PKTS] += n - mc;
}

/* Shutdown: send what is buffered, drop what waits for ARP. */
void
lsw_worker_drop_all(struct lsw_worker *w, const struct lsw_dp_conf *conf)
{
	lsw_tx_flush_all(w, conf);
	lsw_neigh_drop_held(w);
}

int
lsw_worker_main(void *arg)
{
	struct lsw_worker *w = arg;
	struct lsw_dp *dp = w->dp;
	const uint64_t drain_tsc = dp->tsc_hz * TX_DRAIN_US / 1000000;
	struct rte_mbuf *pkts[LSW_BURST];
	const struct lsw_dp_conf *conf = NULL;

	rte_rcu_qsbr_thread_register(dp->qsv, w->idx);
	rte_rcu_qsbr_thread_online(dp->qsv, w->idx);
	while (!__atomic_load_n(&dp->quit, __ATOMIC_ACQUIRE)) {
		/* One snapshot per iteration; it stays valid until the quiescent report below. */
		conf = __atomic_load_n(&dp->conf, __ATOMIC_ACQUIRE);
		uint64_t now = rte_rdtsc();
		uint32_t work = 0;

		for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
			uint16_t port = conf->owned[w->idx][i];
			uint16_t n = rte_eth_rx_burst(conf->port[port].port_id, 0, pkts, LSW_BURST);
			if (n == 0)
				continue;
			work += n;
			lsw_process_burst(w, conf, port, pkts, n, now);
		}
		work += lsw_tx_drain_handoff(w, conf);
		if (unlikely(w->n_held))
			lsw_neigh_poll(w, conf, now);
		if (now - w->last_drain > drain_tsc) {
			lsw_tx_flush_all(w, conf);
			w->last_drain = now;
		}
		w->ctr->loops++;
		if (work)
			w->ctr->busy_loops++;
		rte_rcu_qsbr_quiescent(dp->qsv, w->idx);
		if (work == 0 && conf->idle_sleep_us) {
			/* Offline while asleep so that a writer's grace period does not wait. */
			lsw_tx_flush_all(w, conf);
			rte_rcu_qsbr_thread_offline(dp->qsv, w->idx);
			usleep(conf->idle_sleep_us);
			rte_rcu_qsbr_thread_online(dp->qsv, w->idx);
		}
	}
	conf = __atomic_load_n(&dp->conf, __ATOMIC_ACQUIRE);
	lsw_worker_drop_all(w, conf);
	rte_rcu_qsbr_thread_offline(dp->qsv, w->idx);
	rte_rcu_qsbr_thread_unregister(dp->qsv, w->idx);
	return 0;
}
