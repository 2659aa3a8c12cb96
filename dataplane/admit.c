/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's admission step: the packets a burst routed (ipv4.c, ipv6.c, nexthop.c) go to
 * the MMU (dataplane/buffer.c) in runs, and then to their queue, another worker's handoff,
 * the trim path or a drop counter. The MMU itself decides and accounts, and calls nothing
 * of the worker's.
 */
#include "lsw/buffer.h"
#include "lsw/dataplane.h"

/* The (ingress port, PG, egress port, queue) a packet is charged to: a run's key. */
static inline uint32_t
class_key(const struct lsw_pkt_meta *m)
{
	return (uint32_t)m->in_port << 24 | (uint32_t)m->pg << 16 | (uint32_t)m->out_port << 8 |
	       m->queue;
}

/* A burst's routed packets (ipv4.c collects them): admitted in runs of one (ingress PG,
 * egress queue), each run decided against the state once and written once, then queued. */
void
lsw_admit_flush(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	struct lsw_pkt_meta *meta[LSW_BURST];
	struct lsw_charge res[LSW_BURST];
	uint32_t len[LSW_BURST];
	uint8_t drop[LSW_BURST];
	uint16_t n = w->n_adm;

	w->n_adm = 0;
	for (uint16_t i = 0; i < n; i++) {
		meta[i] = lsw_meta(w->adm[i]);
		len[i] = w->adm[i]->pkt_len;
	}
	for (uint16_t i = 0, j; i < n; i = j) {
		/* A run: consecutive packets of one (ingress PG, egress queue); the TC too, for
		 * the histogram, and ABM's unscheduled flag, for the threshold. */
		uint32_t key = class_key(meta[i]);
		for (j = i + 1; j < n && class_key(meta[j]) == key && meta[j]->tc == meta[i]->tc &&
		     ((meta[j]->flags ^ meta[i]->flags) & LSW_META_UNSCHED) == 0;
		     j++)
			;
		uint16_t k = (uint16_t)(j - i), out = meta[i]->out_port;
		uint16_t admitted = lsw_buffer_admit_run(w->dp->buffer, conf->n_workers, w->buffer,
							 &conf->buffer, meta[i], len + i, k,
							 drop + i, res + i);
		/* Within one worker occupancy only grows here, so the run's end is its peak. */
		lsw_buffer_watermarks(w->dp->buffer, conf->n_workers, w->buffer, &conf->buffer,
				      meta[i]->in_port, meta[i]->pg, out, meta[i]->queue);
		/* The run's queue, when it is ours: no per-packet lookups. */
		struct lsw_fifo *f = conf->port[out].owner == w->idx ?
				     &w->dp->sched[out]->q[meta[i]->queue] : NULL;
		/* The common case: the whole run admitted, to our queue in one push, or to
		 * another worker's in one stage; its entries are written from the charges, and
		 * the metas are not. */
		if (likely(admitted == k)) {
			if (likely(f != NULL) && lsw_fifo_push_run(f, w->adm + i, res + i, k))
				continue;
			if (f == NULL && lsw_handoff_put_run(w, conf, out, w->adm + i,
							     meta[i]->queue, res + i, k))
				continue;
		}
		for (uint16_t x = i; x < j; x++) {
			enum lsw_drop d = (enum lsw_drop)drop[x];
			if (unlikely(d != LSW_DROP_NONE)) {
				/* Out of packets: the next loop leaves the rx queues alone. */
				w->rx_hold |= d == LSW_DROP_MBUF_LIMIT;
				/* The queue's profile says trim (include/lsw/trim.h). */
				if (unlikely(conf->trim.q_trim[out] >> meta[x]->queue & 1))
					lsw_trim(w, conf, w->adm[x], d);
				else
					lsw_count_drop(w, lsw_drop_is_egress(d) ? out :
						       meta[x]->in_port, d, w->adm[x]);
				continue;
			}
			if (likely(f != NULL)) {
				lsw_meta_charge(meta[x], &res[x]);
				/* The queue holds every mbuf: this never fails. */
				lsw_fifo_push(f, w->adm[x], meta[x]);
			} else {
				/* Another worker's port: the charge travels in the handoff
				 * entry, and the meta is not written. */
				lsw_handoff_put(w, conf, out, (uintptr_t)w->adm[x] | meta[x]->queue,
						&res[x]);
			}
		}
	}
}

/* The PFC watchdog's drop action: nothing for a stormed queue, nothing from the stormed
 * port's priority, and before admission so no PG fills (no pause upstream). Out of line:
 * it is rare, and kept out of lsw_admit_enqueue that stays small enough to inline. */
__rte_noinline bool
lsw_wd_dropped(struct lsw_worker *w, const struct lsw_snapshot *conf, struct rte_mbuf *m)
{
	const struct lsw_pkt_meta *meta = lsw_meta(m);
	uint8_t out = meta->out_port, in = meta->in_port;
	uint8_t in_q = conf->buffer.tc_q[in][meta->tc];

	if (conf->port[out].wd_drop >> meta->queue & 1) {
		w->buffer->ctr.wd_tx_drops[out][meta->queue]++;
		lsw_count_drop(w, out, LSW_DROP_PFC_WD_TX_DROP, m);
		return true;
	}
	if (conf->port[in].wd_drop >> in_q & 1) {
		w->buffer->ctr.wd_rx_drops[in][in_q]++;
		lsw_count_drop(w, in, LSW_DROP_PFC_WD_RX_DROP, m);
		return true;
	}
	return false;
}

void
lsw_l3_output(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t out,
	      struct rte_mbuf *m)
{
	struct lsw_pkt_meta *meta = lsw_meta(m);

	meta->out_port = (uint8_t)out;
	meta->queue = conf->buffer.tc_q[out][meta->tc];
	lsw_admit_enqueue(w, conf, meta->in_port, &conf->port[out], out, m);
}
