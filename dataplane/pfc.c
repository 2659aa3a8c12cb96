/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC on the worker that owns the port (IEEE 802.1Qbb).
 *
 * Reception: each enabled class bit of a PFC frame sets that priority's pause to
 * time x 512 bit times at the port speed (0 resumes); bits not set are left alone; the
 * priority's queue is not served until the pause ends. Only pfc_enable priorities are
 * honoured; 802.3x PAUSE pauses every queue on ports configured for it.
 *
 * Generation: every loop, for each of our PGs that carries pfc_enable priorities, the MMU
 * says whether it is over its XOFF point; the first time, an XOFF for its priorities goes
 * out with the port's quanta, refreshed at half the pause time while it stays there; when
 * the MMU says it may resume, an XON (time 0) goes out. Frames are built from this state
 * just before transmission, ahead of every queue, so none is ever queued or dropped.
 */
#include <rte_byteorder.h>
#include "lsw/dataplane.h"

/* A pause of priority @prio ended (at @end): account its duration. */
static void
rx_resume(struct lsw_worker *w, struct lsw_pfc_port *pf, uint16_t port, int prio, uint64_t end)
{
	if (!(pf->rx_paused >> prio & 1))
		return;
	w->ctr->port[port].pfc.rx_pause_ticks[prio] += end - pf->rx_since[prio];
	lsw_store_relaxed(&pf->rx_paused, (uint8_t)(pf->rx_paused & ~(1u << prio)));
	lsw_store_relaxed(&pf->rx_since[prio], 0);
}

/* Queue pauses follow the priorities mapped to them (the longest wins); an 802.3x PAUSE
 * stops every queue, whatever the priority map says. */
static void
apply_queue_pauses(struct lsw_sched *s, const struct lsw_port_dp *p, uint64_t now)
{
	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		s->pause_until[q] = s->pfc.rx_port_paused ? s->pfc.rx_port_until : now;
	s->pfc.ignore_applied = p->wd_ignore_pause;
	for (int prio = 0; prio < 8; prio++) {
		int q = p->pfc_to_q[prio];
		if ((s->pfc.rx_paused >> prio & 1) && !(p->wd_ignore_pause >> q & 1) &&
		    (int64_t)(s->pfc.rx_until[prio] - s->pause_until[q]) > 0)
			s->pause_until[q] = s->pfc.rx_until[prio];
	}
}

/* Out of line: rare next to data packets, and the worker loop stays small enough to inline
 * the IPv4 path. */
__rte_noinline void
lsw_pfc_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	      struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now)
{
	const struct lsw_port_dp *p = &conf->port[port];
	struct lsw_sched *s = w->dp->sched[port];
	struct lsw_pfc_port *pf = &s->pfc;
	struct lsw_pfc_counters *pc = &w->ctr->port[port].pfc;
	struct lsw_pfc_frame f;
	enum lsw_drop d;

	d = lsw_pfc_decode(rte_pktmbuf_mtod_offset(m, const uint8_t *, pi->l3_off),
			   m->data_len - pi->l3_off, &f);
	if (d == LSW_DROP_NONE && f.opcode == LSW_MACCTL_PAUSE && !p->rx_pause)
		d = LSW_DROP_PAUSE_NOT_ENABLED;
	if (d != LSW_DROP_NONE) {
		lsw_count_drop(w, port, d, m);
		return;
	}
	if (f.opcode == LSW_MACCTL_PAUSE) {
		w->ctr->event[LSW_EV_PAUSE_RX]++;
		if (lsw_timeline_events(conf))
			lsw_timeline_event(w, LSW_TL_PAUSE_RX, port, LSW_TL_NONE, f.time[0], now);
		pf->rx_port_paused = f.time[0] != 0;
		pf->rx_port_until = now + lsw_pause_ticks(f.time[0], conf->sched[port].rate_bps,
						       w->dp->tsc_hz);
		apply_queue_pauses(s, p, now);
		lsw_ecmp_publish_paused(w, port, now);
		rte_pktmbuf_free(m);
		return;
	}
	w->ctr->event[LSW_EV_PFC_RX]++;
	for (int prio = 0; prio < 8; prio++) {
		if (!(f.enable >> prio & 1))
			continue;
		pc->rx_pkts[prio]++;
		if (lsw_timeline_events(conf))
			lsw_timeline_event(w, LSW_TL_PFC_RX, port, (uint8_t)prio, f.time[prio],
					   now);
		if (!((f.enable & p->pfc_enable) >> prio & 1))
			continue;
		/* A pause that ran out before this frame ended then, whether or not a poll
		 * has noticed yet: a new XOFF starts a new pause. */
		if ((pf->rx_paused >> prio & 1) && (int64_t)(now - pf->rx_until[prio]) >= 0)
			rx_resume(w, pf, port, prio, pf->rx_until[prio]);
		if (f.time[prio] == 0) {
			rx_resume(w, pf, port, prio, now);
			continue;
		}
		if (!(pf->rx_paused >> prio & 1)) {
			pc->on2off_rx[prio]++;
			lsw_store_relaxed(&pf->rx_paused, (uint8_t)(pf->rx_paused | 1u << prio));
			lsw_store_relaxed(&pf->rx_since[prio], now);
		}
		/* A new XOFF replaces the timer, whatever was left of it. */
		lsw_store_relaxed(&pf->rx_until[prio],
				  now + lsw_pause_ticks(f.time[prio], conf->sched[port].rate_bps,
							w->dp->tsc_hz));
	}
	apply_queue_pauses(s, p, now);
	lsw_ecmp_publish_paused(w, port, now); /* new flowlets avoid it from now on */
	rte_pktmbuf_free(m); /* consumed: never forwarded */
}

void
lsw_pfc_update(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	       uint64_t now)
{
	const struct lsw_port_dp *p = &conf->port[port];
	struct lsw_sched *s = w->dp->sched[port];
	struct lsw_pfc_port *pf = &s->pfc;

	/* The watchdog changed which queues ignore pause: take it into account now. */
	if (unlikely(pf->ignore_applied != p->wd_ignore_pause))
		apply_queue_pauses(s, p, now);
	/* Pauses from the peer that ran out. */
	if (pf->rx_port_paused && (int64_t)(now - pf->rx_port_until) >= 0) {
		pf->rx_port_paused = 0;
		apply_queue_pauses(s, p, now);
	}
	if (pf->rx_paused) {
		bool ended = false;
		for (int prio = 0; prio < 8; prio++)
			if ((pf->rx_paused >> prio & 1) &&
			    (int64_t)(now - pf->rx_until[prio]) >= 0) {
				rx_resume(w, pf, port, prio, pf->rx_until[prio]);
				ended = true;
			}
		if (ended)
			apply_queue_pauses(s, p, now);
	}
	if (!(p->pfc_enable | pf->tx_xoff_pg | pf->tx_paused))
		return;
	const uint64_t pause = lsw_pause_ticks(p->pfc_quanta, conf->sched[port].rate_bps,
					       w->dp->tsc_hz);
	uint8_t covered = 0;
	for (uint8_t pg = 0; pg < 8; pg++) {
		uint8_t prios = p->pg_prios[pg];
		bool paused = pf->tx_xoff_pg >> pg & 1;
		if (prios == 0) {
			pf->tx_xoff_pg &= (uint8_t)~(1u << pg); /* nothing to pause for any more */
			continue;
		}
		if (!paused) {
			if (!lsw_buffer_pg_xoff(w->dp->buffer, conf->n_workers, &conf->buffer, port,
						pg))
				continue;
			pf->tx_xoff_pg |= (uint8_t)(1u << pg);
			pf->tx_xoff |= prios;
			pf->tx_xon &= (uint8_t)~prios;
			pf->tx_refresh[pg] = now + pause / 2;
		} else if (lsw_buffer_pg_xon(w->dp->buffer, conf->n_workers, &conf->buffer, port,
					     pg)) {
			pf->tx_xoff_pg &= (uint8_t)~(1u << pg);
			pf->tx_xon |= prios;
			pf->tx_xoff &= (uint8_t)~prios;
		} else if ((int64_t)(now - pf->tx_refresh[pg]) >= 0) {
			/* Still congested: renew before the peer's timer runs out. */
			pf->tx_xoff |= prios;
			pf->tx_refresh[pg] = now + pause / 2;
		}
		if (pf->tx_xoff_pg >> pg & 1)
			covered |= prios;
	}
	/* Priorities the peer is paused for that no congested PG speaks for any more (PFC
	 * turned off, a map changed, the watchdog stormed their queue): resume them now
	 * rather than leave the peer paused until its timer runs out. */
	uint8_t stale = (pf->tx_paused | pf->tx_xoff) & (uint8_t)~covered;
	pf->tx_xon |= stale;
	pf->tx_xoff &= (uint8_t)~stale;
}

struct rte_mbuf *
lsw_pfc_take_frame(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		   uint64_t now)
{
	const struct lsw_port_dp *p = &conf->port[port];
	struct lsw_pfc_port *pf = &w->dp->sched[port]->pfc;
	struct lsw_pfc_counters *pc = &w->ctr->port[port].pfc;
	uint8_t enable = pf->tx_xoff | pf->tx_xon;
	uint16_t time[8] = {0};

	if (enable == 0)
		return NULL;
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->dp->pfc_pool ? w->dp->pfc_pool : w->dp->pool);
	uint8_t *frame = m ? (uint8_t *)rte_pktmbuf_append(m, LSW_PFC_FRAME_LEN) : NULL;
	if (frame == NULL) {
		rte_pktmbuf_free(m);
		w->ctr->event[LSW_EV_PFC_TX_DEFERRED]++;
		return NULL; /* still pending: the next loop tries again */
	}
	for (int prio = 0; prio < 8; prio++) {
		if (!(enable >> prio & 1))
			continue;
		pc->tx_pkts[prio]++;
		if (lsw_timeline_events(conf))
			lsw_timeline_event(w, LSW_TL_PFC_TX, port, (uint8_t)prio,
					   pf->tx_xoff >> prio & 1 ? p->pfc_quanta : 0, now);
		if (pf->tx_xoff >> prio & 1) {
			time[prio] = p->pfc_quanta;
			if (pf->tx_since[prio] == 0)
				lsw_store_relaxed(&pf->tx_since[prio], now);
		} else if (pf->tx_since[prio] != 0) {
			pc->tx_pause_ticks[prio] += now - pf->tx_since[prio];
			lsw_store_relaxed(&pf->tx_since[prio], 0);
		}
	}
	lsw_pfc_encode(frame, &p->mac, enable, time);
	w->ctr->event[LSW_EV_PFC_TX]++;
	lsw_meta(m)->flags = LSW_META_CTL;
	pf->tx_paused = (uint8_t)((pf->tx_paused | pf->tx_xoff) & ~pf->tx_xon);
	pf->tx_xoff = pf->tx_xon = 0;
	return m;
}
