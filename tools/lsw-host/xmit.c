/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit (lsw-host's engine, engine.h): which frame a host sends next, whenever its link
 * is free: PFC frames (never held by a pause), ICMP echo replies and ARP, trim NACKs,
 * ACK/NAK, CNP, then data from its QPs in round robin, each QP paced at its DCQCN rate. A
 * frame on a paused priority waits; nothing is dropped on the way out. And when a host
 * next has something to do.
 */
#include <string.h>
#include <rte_common.h>
#include "engine.h"

#define ARP_RETRY_NS  (50ull * 1000 * 1000)

/* One frame from @h if one is due and allowed: true when one went out. */
bool
lsw_host_tx_one(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
{
	if (h->pfc_xoff_due) {
		if (!lsw_host_send_pfc(e, h, h->c.prio_data, h->c.pause_quanta, now))
			return false;
		h->pfc_xoff_due = false;
		h->tx_refresh = now + lsw_host_half_pause_ns(h, h->c.pause_quanta);
		return true;
	}
	if (h->pfc_xon_due) {
		if (!lsw_host_send_pfc(e, h, h->c.prio_data, 0, now))
			return false;
		h->pfc_xon_due = false;
		return true;
	}
	if (lsw_host_storm_on(h, now) && due(h->storm_next, now)) {
		if (!lsw_host_send_pfc(e, h, (uint8_t)h->c.storm_prio, h->c.storm_quanta, now))
			return false;
		h->ctr[LSW_HC_tx_pause_storm_frames]++;
		h->storm_next = now + lsw_host_half_pause_ns(h, h->c.storm_quanta);
		return true;
	}
	/* ARP is not on a priority: an 802.3x PAUSE holds it, PFC does not. */
	if (h->echo_len && due(h->rx_port_until, now)) {
		uint8_t *f = e->io.tx_frame(e->io.ctx, h, RTE_MAX(h->echo_len, (uint16_t)60));
		if (f == NULL)
			return false;
		memset(f, 0, RTE_MAX(h->echo_len, (uint16_t)60));
		memcpy(f, h->echo, h->echo_len);
		lsw_host_link_take(e, h, RTE_MAX(h->echo_len, (uint16_t)60), now);
		h->ctr[LSW_HC_icmp_echo_replies_sent]++;
		h->echo_len = 0;
		return true;
	}
	if (h->arp_reply_due && due(h->rx_port_until, now)) {
		if (!lsw_host_send_arp(e, h, true, now))
			return false;
		h->arp_reply_due = false;
		return true;
	}
	/* At start every host asks for its gateway, also when its MAC is static: the switch
	 * learns the host from the request (as from a Linux host's) before traffic comes. */
	if ((!h->gw_resolved || !h->arp_announced) && due(h->arp_next, now) &&
	    due(h->rx_port_until, now)) {
		if (!lsw_host_send_arp(e, h, false, now))
			return false;
		h->arp_announced = true;
		h->arp_next = now + ARP_RETRY_NS;
		return true;
	}
	if (!h->gw_resolved)
		return false;
	struct lsw_trim_nak tn;
	if (!paused(h, h->c.prio_ack, now) && lsw_host_trim_nak_peek(h, &tn)) {
		if (!lsw_host_send_trim_nak(e, h, &tn, now))
			return false;
		lsw_host_trim_nak_pop(h);
		return true;
	}
	if (h->ack_head != h->ack_tail && !paused(h, h->c.prio_ack, now)) {
		struct lsw_qp *qp = &e->qp[h->ctl_ack[h->ack_head & (h->ctl_cap - 1)]];
		if (!lsw_host_send_ack(e, h, qp, now))
			return false;
		qp->ctl_ack = false;
		h->ack_head++;
		return true;
	}
	if (h->cnp_head != h->cnp_tail && !paused(h, h->c.prio_cnp, now)) {
		struct lsw_qp *qp = &e->qp[h->ctl_cnp[h->cnp_head & (h->ctl_cap - 1)]];
		if (!lsw_host_send_cnp(e, h, qp, now))
			return false;
		qp->ctl_cnp = false;
		h->cnp_head++;
		return true;
	}
	if (h->n_active == 0 || paused(h, h->c.prio_data, now))
		return false;
	for (uint32_t n = 0; n < h->n_active; n++) {
		struct lsw_qp *qp = &e->qp[h->active[h->rr]];
		h->rr = h->rr + 1 == h->n_active ? 0 : h->rr + 1;
		if ((qp->snd_nxt < qp->psn_end || lsw_host_trim_rtx_pending(qp->trim)) &&
		    due(qp->next_tx, now))
			return lsw_host_send_data(e, h, qp, now);
	}
	return false;
}

/* When @h next has something to do on its own (not counting frames that may arrive). */
uint64_t
lsw_host_next(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	bool want = false;

	for (int p = 0; p < 8; p++)
		if (h->rx_since[p] != 0)
			next = earlier(next, h->rx_until[p]);
	if (!due(h->rx_port_until, now))
		next = earlier(next, h->rx_port_until);
	/* Frames ready now, unless their priority is paused (its end is counted above). */
	if (h->pfc_xoff_due || h->pfc_xon_due ||
	    ((h->arp_reply_due || h->echo_len) && due(h->rx_port_until, now)) ||
	    (h->gw_resolved && (h->ack_head != h->ack_tail || h->tnak_head != h->tnak_tail) &&
	     !paused(h, h->c.prio_ack, now)) ||
	    (h->gw_resolved && h->cnp_head != h->cnp_tail && !paused(h, h->c.prio_cnp, now)))
		want = true;
	if (h->c.rx_buffer && h->tx_paused) {
		next = earlier(next, h->tx_refresh);
		/* When the buffer will have drained to XON. */
		uint64_t left = h->rxbuf > h->c.rx_xon ? h->rxbuf - h->c.rx_xon : 0;
		next = earlier(next, now + ns_at(left, (double)h->c.rx_drain_bps) + 1);
	}
	if (h->c.storm_prio >= 0 && h->storm_from != 0) {
		if (lsw_host_storm_on(h, now))
			next = earlier(next, h->storm_next);
		else if (!due(h->storm_from, now))
			next = earlier(next, h->storm_from);
	}
	if (!h->gw_resolved || !h->arp_announced)
		next = earlier(next, h->arp_next);
	for (uint32_t i = 0; i < h->n_active; i++) {
		const struct lsw_qp *qp = &e->qp[h->active[i]];
		if (qp->rto_at)
			next = earlier(next, qp->rto_at);
		if ((qp->snd_nxt < qp->psn_end || lsw_host_trim_rtx_pending(qp->trim)) &&
		    h->gw_resolved &&
		    !paused(h, h->c.prio_data, now))
			next = earlier(next, qp->next_tx);
	}
	if (want)
		next = earlier(next, now);
	/* Whatever is due waits for the link. */
	if (next != UINT64_MAX && (int64_t)(h->link_next - next) > 0)
		next = h->link_next;
	return next;
}
