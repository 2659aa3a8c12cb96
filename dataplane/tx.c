/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit side. Only a port's owner worker calls rte_eth_tx_burst on it (one tx queue per
 * port); other workers hand packets over through an SP/SC ring per (worker, port).
 */
#include <rte_ethdev.h>
#include "lsw/dataplane.h"

void
lsw_tx_flush(struct lsw_worker *w, const struct lsw_dp_conf *conf, uint16_t port)
{
	struct lsw_txbuf *b = &w->txb[port];
	const struct lsw_dp_port *p = &conf->port[port];
	struct lsw_port_counters *pc = &w->ctr->port[port];
	uint16_t n = b->n, sent;

	if (n == 0)
		return;
	b->n = 0;
	if (p->owner != w->idx) {
		sent = (uint16_t)rte_ring_sp_enqueue_burst(w->dp->handoff[w->idx][port],
							   (void **)b->pkt, n, NULL);
		for (uint16_t i = sent; i < n; i++)
			lsw_count_drop(w, port, LSW_DROP_TX_RING_FULL, b->pkt[i]);
		return;
	}
	/* Count before the burst: the PMD may free the mbufs as soon as it has them. */
	uint64_t bytes = 0, mc = 0;
	for (uint16_t i = 0; i < n; i++) {
		bytes += b->pkt[i]->pkt_len;
		mc += *rte_pktmbuf_mtod(b->pkt[i], uint8_t *) & 1;
	}
	sent = rte_eth_tx_burst(p->port_id, 0, b->pkt, n);
	for (uint16_t i = sent; i < n; i++) {
		bytes -= b->pkt[i]->pkt_len;
		mc -= *rte_pktmbuf_mtod(b->pkt[i], uint8_t *) & 1;
		lsw_count_drop(w, port, LSW_DROP_TX_QUEUE_FULL, b->pkt[i]);
	}
	pc->ctr[LSW_PC_IF_OUT_OCTETS] += bytes;
	pc->ctr[LSW_PC_IF_OUT_NON_UCAST_PKTS] += mc;
	pc->ctr[LSW_PC_IF_OUT_UCAST_PKTS] += sent - mc;
}

void
lsw_tx_flush_all(struct lsw_worker *w, const struct lsw_dp_conf *conf)
{
	for (uint16_t p = 0; p < conf->n_ports; p++)
		lsw_tx_flush(w, conf, p);
}

/* Move what other workers handed over for our ports to the wire. Returns packets moved. */
uint32_t
lsw_tx_drain_handoff(struct lsw_worker *w, const struct lsw_dp_conf *conf)
{
	uint32_t total = 0;

	if (conf->n_workers < 2)
		return 0;
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		struct lsw_txbuf *b = &w->txb[port];
		for (uint16_t q = 0; q < conf->n_workers; q++) {
			struct rte_ring *r = w->dp->handoff[q][port];
			if (r == NULL)
				continue;
			lsw_tx_flush(w, conf, port);
			b->n = (uint16_t)rte_ring_sc_dequeue_burst(r, (void **)b->pkt, LSW_BURST,
								   NULL);
			total += b->n;
			lsw_tx_flush(w, conf, port);
		}
	}
	return total;
}
