/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit side. A port's owner worker keeps its egress queues (include/lsw/sched.h) and is
 * the only one to call rte_eth_tx_burst on it; other workers hand it packets through an SP/SC
 * ring per (worker, port) of entries that carry what the owner needs to queue them (struct
 * lsw_hoent), so that it does not touch a packet until it sends it. Data packets arrive here
 * admitted by the MMU; switch-originated ones (ARP, ICMP) go to the control queue, uncharged.
 *
 * A sender whose ring is full keeps the packets staged and takes no more from its rx queues
 * until the ring has room (worker.c): under overload the excess waits, and is dropped, in
 * the rx queues, at no cost to the workers, and a packet the MMU admitted is never dropped
 * on its way to the owner. The owner drains its rings whole unless its egress is behind
 * (it had more to send than a loop's bursts): then only what it sends in a loop, so that the
 * rings fill and the senders stop, rather than its queues filling and the senders dropping
 * what they have received and routed.
 */
#include <rte_ethdev.h>
#include <rte_ring_elem.h>
#include "lsw/dataplane.h"

/* Drop a packet that was queued or staged: give back its buffer first. */
static void
drop_queued(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	    struct rte_mbuf *m, enum lsw_drop why)
{
	struct lsw_pkt_meta *meta = lsw_meta(m);

	if (meta->flags & LSW_META_CHARGED)
		lsw_buffer_release(w->buffer, &conf->buffer, meta);
	lsw_count_drop(w, port, why, m);
}

static inline void
push_local(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	   struct rte_mbuf *m)
{
	struct lsw_sched *s = w->dp->sched[port];
	struct lsw_pkt_meta *meta = lsw_meta(m);
	struct lsw_fifo *f = meta->flags & LSW_META_CTL ? &s->ctl : &s->q[meta->queue];

	/* Queues hold as many packets as the mempool; only the control queue can fill. */
	if (unlikely(!lsw_fifo_push(f, m, meta)))
		drop_queued(w, conf, port, m, LSW_DROP_TX_RING_FULL);
}

void
lsw_tx_enqueue(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	       struct rte_mbuf *m)
{
	if (likely(conf->port[port].owner == w->idx)) {
		/* Direct forwarding stages every port's packets and sends them in bursts. */
		if (conf->direct)
			lsw_tx_stage(w, conf, port, m);
		else
			push_local(w, conf, port, m);
		return;
	}
	const struct lsw_pkt_meta *meta = lsw_meta(m);
	struct lsw_charge c = {.len = (uint16_t)m->pkt_len};
	uintptr_t mq = (uintptr_t)m;

	if (meta->flags & LSW_META_CTL) {
		mq |= LSW_HO_CTL;
	} else if (meta->flags & LSW_META_CHARGED) {
		c = (struct lsw_charge){.bytes = (uint16_t)meta->charged, .len = c.len,
					.in_port = meta->in_port, .pg = meta->pg,
					.in_part = meta->in_part, .eg_part = meta->eg_part};
		mq |= meta->queue;
	} else {
		mq |= LSW_HO_DIRECT;
	}
	lsw_handoff_put(w, conf, port, mq, &c);
}

void
lsw_tx_ctl(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	   struct rte_mbuf *m)
{
	lsw_meta(m)->flags = LSW_META_CTL;
	lsw_tx_enqueue(w, conf, port, m);
}

static uint16_t tx_burst(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
			 struct rte_mbuf **pkts, uint16_t n);

/* Send the packets staged for @port, which this worker owns (forwarding direct). */
void
lsw_tx_flush(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port)
{
	struct lsw_txbuf *b = &w->txb[port];
	uint16_t n = b->n, sent;

	w->tx_staged &= ~(1u << port);
	if (n == 0)
		return;
	b->n = 0;
	if (unlikely(conf->port[port].suspended)) {
		for (uint16_t i = 0; i < n; i++)
			lsw_count_drop(w, port, LSW_DROP_L3_EGRESS_LINK_DOWN, b->pkt[i]);
		return;
	}
	/* Direct forwarding keeps no buffer: what the PMD refuses is dropped. */
	sent = tx_burst(w, conf, port, b->pkt, n);
	for (uint16_t i = sent; i < n; i++)
		lsw_count_drop(w, port, LSW_DROP_TX_QUEUE_FULL, b->pkt[i]);
}

/* The ports staged for, not every port: a loop's cost does not grow with the ports. */
void
lsw_tx_flush_all(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	while (w->tx_staged)
		lsw_tx_flush(w, conf, (uint16_t)__builtin_ctz(w->tx_staged));
}

/* Drop a handoff entry @e for @port, its buffer given back. */
void
lsw_handoff_drop(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		 const struct lsw_hoent *e, enum lsw_drop why)
{
	struct rte_mbuf *m = lsw_hoent_mbuf(e->mq);

	if (!(e->mq & (LSW_HO_CTL | LSW_HO_DIRECT))) {
		const struct lsw_pkt_meta meta = {
			.charged = e->c.bytes, .in_port = e->c.in_port, .pg = e->c.pg,
			.out_port = (uint8_t)port, .queue = (uint8_t)(e->mq & LSW_HO_QUEUE),
			.in_part = e->c.in_part, .eg_part = e->c.eg_part,
		};
		lsw_buffer_release(w->buffer, &conf->buffer, &meta);
	}
	lsw_count_drop(w, port, why, m);
}

void
lsw_handoff_flush(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port)
{
	struct lsw_hostage *b = &w->hob[port];
	struct rte_ring *r = w->dp->handoff[w->idx][port];
	unsigned int sent;

	if (unlikely(r == NULL)) { /* no ring: the port's owner is this worker after all */
		for (uint16_t i = 0; i < b->n; i++)
			lsw_handoff_drop(w, conf, port, &b->e[i], LSW_DROP_TX_RING_FULL);
		b->n = 0;
		w->ho_staged &= ~(1u << port);
		return;
	}
	sent = rte_ring_sp_enqueue_burst_elem(r, b->e, sizeof(b->e[0]), b->n, NULL);
	if (likely(w->dp->ho_bell != NULL) && sent != 0) { /* after the entries, for the owner */
		uint32_t *bell = &w->dp->ho_bell[w->idx].sent[conf->port[port].owner];
		lsw_publish(bell, *bell + sent);
	}
	b->n = (uint16_t)(b->n - sent);
	if (b->n == 0) {
		w->ho_full &= ~(1u << port);
		w->ho_staged &= ~(1u << port);
		return;
	}
	memmove(b->e, b->e + sent, b->n * sizeof(b->e[0]));
	w->ho_full |= 1u << port;
}

uint32_t
lsw_handoff_flush_all(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	for (uint32_t left = w->ho_staged; left != 0; left &= left - 1)
		lsw_handoff_flush(w, conf, (uint16_t)__builtin_ctz(left));
	return w->ho_full;
}

/* Queue @n handoff entries @e for @port, one of ours. */
static void
queue_handed(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	     const struct lsw_hoent *e, unsigned int n)
{
	struct lsw_sched *s = w->dp->sched[port];

	for (unsigned int i = 0; i < n; i++) {
		const uintptr_t mq = e[i].mq;
		struct rte_mbuf *m = lsw_hoent_mbuf(mq);
		rte_prefetch0(m);
		rte_prefetch0(&m->cacheline1);
		if (likely(!(mq & (LSW_HO_CTL | LSW_HO_DIRECT)))) {
			/* A data queue holds every mbuf: this never fails. */
			lsw_fifo_push_ent(&s->q[mq & LSW_HO_QUEUE], m, &e[i].c);
		} else if (mq & LSW_HO_DIRECT) {
			lsw_tx_stage(w, conf, port, m);
		} else if (unlikely(!lsw_fifo_push_ent(&s->ctl, m, &e[i].c))) {
			lsw_handoff_drop(w, conf, port, &e[i], LSW_DROP_TX_RING_FULL);
		}
	}
}

/* Move what other workers handed over into our ports' queues. Returns packets moved. */
uint32_t
lsw_tx_drain_handoff(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	struct lsw_hoent e[2 * LSW_BURST];
	const uint16_t nw = conf->n_workers;
	uint32_t total = 0;

	if (nw < 2)
		return 0;
	/* The senders with something for us: what they rang for and we did not take. */
	uint32_t from = 0;
	for (uint16_t q = 0; q < nw; q++)
		if (q != w->idx && (w->dp->ho_bell == NULL ||
				    lsw_acquire(&w->dp->ho_bell[q].sent[w->idx]) != w->ho_got[q]))
			from |= 1u << q;
	if (from == 0)
		return 0;
	/* The senders take turns at being drained first, for when the port is behind. */
	w->ho_first = (uint16_t)(w->ho_first + 1 < nw ? w->ho_first + 1 : 0);
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		/* Behind: what a loop sends, no more (the rest waits in the rings). */
		uint32_t room = w->dp->sched[port]->behind ? LSW_TX_ROUNDS * LSW_BURST :
			UINT32_MAX;
		for (uint16_t k = 0; k < nw && room; k++) {
			uint16_t q = (uint16_t)(w->ho_first + k < nw ? w->ho_first + k :
						 w->ho_first + k - nw);
			struct rte_ring *r = w->dp->handoff[q][port];
			unsigned int n;
			if (!(from >> q & 1) || r == NULL)
				continue;
			do {
				n = rte_ring_sc_dequeue_burst_elem(r, e, sizeof(e[0]),
								   RTE_MIN(room, RTE_DIM(e)), NULL);
				queue_handed(w, conf, port, e, n);
				w->ho_got[q] += n;
				total += n;
				room -= n;
			} while (n == RTE_DIM(e) && room);
		}
	}
	return total;
}

/* 1 for a frame to a group address. A routed frame says unicast in its mbuf's first line
 * (lsw_ucast_flag), which the PMD reads anyway: its data line, written by the worker that
 * routed it, is not pulled to this one (issue 34: that load was 95% of tx_burst's time with
 * every packet crossing workers). */
static inline uint64_t
non_ucast(const struct rte_mbuf *m)
{
	if (likely(m->ol_flags & lsw_ucast_flag))
		return 0;
	return *rte_pktmbuf_mtod(m, const uint8_t *) & 1;
}

/* Give the PMD @n frames; count what it took. Returns how many it took: the rest are the
 * caller's (the egress keeps them for the next loop, as a link holds back its sender). */
static uint16_t
tx_burst(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	 struct rte_mbuf **pkts, uint16_t n)
{
	struct lsw_port_counters *pc = &w->ctr->port[port];
	uint64_t bytes = 0, mc = 0;
	uint16_t sent;

	/* Count before the burst: the PMD may free the mbufs as soon as it has them. */
	for (uint16_t i = 0; i < n; i++) {
		bytes += pkts[i]->pkt_len;
		mc += non_ucast(pkts[i]);
	}
	/* Every frame that leaves goes through here, switch-originated ones (PFC, ARP, ICMP)
	 * included: the place to capture what a port sends. */
	if (unlikely(conf->capture.tx_ports >> port & 1))
		sent = lsw_capture_tx_burst(w, conf, port, pkts, n);
	else
		sent = rte_eth_tx_burst(conf->port[port].port_id, 0, pkts, n);
	for (uint16_t i = sent; i < n; i++) {
		bytes -= pkts[i]->pkt_len;
		mc -= non_ucast(pkts[i]);
	}
	pc->ctr[LSW_PC_IF_OUT_OCTETS] += bytes;
	pc->ctr[LSW_PC_IF_OUT_NON_UCAST_PKTS] += mc;
	pc->ctr[LSW_PC_IF_OUT_UCAST_PKTS] += sent - mc;
	return sent;
}

/* Send from the egress: what the PMD refuses waits in the port's pending slots. */
static void
egress_tx(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	  struct rte_mbuf **pkts, uint16_t n)
{
	struct lsw_sched *s = w->dp->sched[port];
	uint16_t sent = tx_burst(w, conf, port, pkts, n);

	for (uint16_t i = sent; i < n; i++) {
		s->pend[s->n_pend++] = pkts[i];
		s->pend_bytes += pkts[i]->pkt_len;
	}
}

/* Empty data queue @q of @port, giving the buffer back and counting each packet as @why.
 * Returns how many there were. */
static uint32_t
drop_queue(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port, int q,
	   enum lsw_drop why)
{
	struct lsw_fifo *f = &w->dp->sched[port]->q[q];
	struct lsw_qent *e;
	uint32_t n = 0;

	while ((e = lsw_fifo_pop_ent(f)) != NULL) {
		struct lsw_pkt_meta meta = {
			.charged = e->charged, .in_port = e->in_port, .pg = e->pg,
			.out_port = (uint8_t)port, .queue = (uint8_t)q,
			.in_part = e->in_part, .eg_part = e->eg_part,
		};
		lsw_buffer_release(w->buffer, &conf->buffer, &meta);
		lsw_count_drop(w, port, why, e->m);
		n++;
	}
	f->bytes = 0;
	return n;
}

void
lsw_egress_drop_all(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		    enum lsw_drop why)
{
	struct lsw_sched *s = w->dp->sched[port];
	struct rte_mbuf *m;

	while ((m = lsw_fifo_pop(&s->ctl)) != NULL)
		lsw_count_drop(w, port, why, m);
	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		drop_queue(w, conf, port, q, why);
	for (uint16_t i = 0; i < s->n_pend; i++)
		lsw_count_drop(w, port, why, s->pend[i]);
	s->n_pend = 0;
	s->pend_bytes = 0;
}

/* A packet WRED dropped at dequeue (its buffer is already given back). */
static void
wred_drop(struct lsw_worker *w, uint16_t port, uint8_t q, struct rte_mbuf *m)
{
	w->buffer->ctr.q_drop_reason[port][q][LSW_QDROP_WRED_DROP]++;
	w->buffer->ctr.q_drop_bytes[port][q] += m->pkt_len;
	w->buffer->ctr.q_wred_drop_bytes[port][q] += m->pkt_len;
	lsw_count_drop(w, port, LSW_DROP_WRED_DROP, m);
}

/* Queues the PFC watchdog stormed with action drop hold nothing. */
static void
wd_flush(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port)
{
	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		if (conf->port[port].wd_drop >> q & 1)
			w->buffer->ctr.wd_tx_drops[port][q] += drop_queue(w, conf, port, q,
								   LSW_DROP_PFC_WD_TX_DROP);
}

/* What releasing an entry's buffer depends on besides its queue: its ingress port, PG and
 * the parts it was charged to, as one word. */
static inline uint32_t
qent_key(const struct lsw_qent *e)
{
	uint32_t k;

	memcpy(&k, &e->in_port, sizeof(k));
	return k;
}
_Static_assert(offsetof(struct lsw_qent, eg_part) == offsetof(struct lsw_qent, in_port) + 3 &&
	       offsetof(struct lsw_qent, pg) == offsetof(struct lsw_qent, in_port) + 1 &&
	       offsetof(struct lsw_qent, in_part) == offsetof(struct lsw_qent, in_port) + 2,
	       "qent_key reads in_port, pg, in_part and eg_part as one word");

/* Give back @bytes of @pkts entries of @port's queue @q that share @key (qent_key). Out of
 * line: a run of one flow's packets calls it once. */
static __rte_noinline void
release_run(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port, uint8_t q,
	    uint32_t key, int64_t bytes, int64_t pkts)
{
	struct lsw_qent e;

	memcpy(&e.in_port, &key, sizeof(key));
	const struct lsw_pkt_meta meta = {
		.in_port = e.in_port, .pg = e.pg, .in_part = e.in_part, .eg_part = e.eg_part,
		.out_port = (uint8_t)port, .queue = q,
	};
	lsw_buffer_release_bytes(w->buffer, &conf->buffer, &meta, bytes, pkts);
}

/* What comes before the queues: a port that is down drops everything, a suspended one
 * waits, stormed queues are emptied, the frames the PMD refused go first, and a PFC frame
 * ahead of all (into pkts[0], *@n = 1). False when nothing else moves this time. */
static __rte_always_inline bool
egress_prepare(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	       uint64_t now, struct rte_mbuf **pkts, uint16_t *n)
{
	struct lsw_sched *s = w->dp->sched[port];
	const struct lsw_sched_dp *c = &conf->sched[port];
	const uint64_t bit_ticks = 8 * w->dp->tsc_hz;
	struct rte_mbuf *m;

	if (unlikely(!conf->port[port].admin_up)) {
		lsw_egress_drop_all(w, conf, port, LSW_DROP_L3_EGRESS_LINK_DOWN);
		/* A port that is down sends no PFC frame either, and the peer's pause ends with
		 * the link (its timer runs out at the latest): an XON or XOFF left pending here
		 * would wait for ever (the packet fuzzer found it), so none is. The port comes
		 * back with the peer taken as not paused, and a PG still congested then sends
		 * its XOFF at once (tx_xoff_pg clear), not at its next refresh. */
		s->pfc.tx_xoff = s->pfc.tx_xon = s->pfc.tx_paused = s->pfc.tx_xoff_pg = 0;
		return false;
	}
	if (unlikely(conf->port[port].suspended))
		return false; /* its queues wait for the port to come back */
	if (unlikely(conf->port[port].wd_drop))
		wd_flush(w, conf, port);
	/* Frames the PMD refused last time go first; while it refuses, nothing else moves. */
	if (unlikely(s->n_pend != 0)) {
		uint16_t k = s->n_pend;
		s->n_pend = 0;
		s->pend_bytes = 0;
		egress_tx(w, conf, port, s->pend, k); /* moves what is left to the front */
		if (s->n_pend != 0)
			return false;
	}
	/* A PFC frame goes ahead of everything, outside the shaper (its bytes count). */
	if (unlikely((s->pfc.tx_xoff | s->pfc.tx_xon) != 0) &&
	    (m = lsw_pfc_take_frame(w, conf, port, now)) != NULL) {
		lsw_shaper_refill(s, c, w->dp->tsc_hz, now, now - w->rx_read_prev);
		s->tokens -= (int64_t)((m->pkt_len + c->overhead) * bit_ticks);
		pkts[(*n)++] = m;
	}
	return true;
}

/* Serve a run from queue @q of @port while the shaper and its deficit allow, into pkts[n..]
 * (up to the burst); buffer is given back once per run of packets charged alike. Returns
 * the new n; *@stalled when the queue's head waits for tokens (nothing sent or dropped).
 * Inline: the run's state stays in registers (see below). */
static __rte_always_inline uint16_t
serve_queue(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port, int q,
	    bool late, uint32_t *busy, struct rte_mbuf **pkts, uint16_t n, bool *stalled)
{
	struct lsw_sched *s = w->dp->sched[port];
	const struct lsw_sched_dp *c = &conf->sched[port];
	const uint64_t bit_ticks = 8 * w->dp->tsc_hz;
	struct lsw_fifo *f = &s->q[q];
	const bool dwrr = !(c->strict_mask >> q & 1);
	/* A DWRR queue alone with packets: when its credit runs out, a new round
	 * would pass every other queue (empty, no credit) and come straight back to
	 * it with one more quantum (lsw_sched_pick). It gets the quantum here and the
	 * run goes on, rather than in runs of two 4-KB frames. */
	const bool alone = dwrr && *busy == 1u << q;
	const int64_t quantum = c->quantum[q];
	uint64_t bytes = 0, dropped = 0;
	uint16_t first = n;
	/* The run's state in locals, stored once at its end: the ring and its head (so
	 * that each entry's address does not wait on the last one's store), the
	 * shaper's tokens and the queue's deficit. GCC otherwise reloaded the ring from
	 * memory each packet and kept the release's key byte by byte on the stack. Few
	 * enough that they stay in registers (each one more was a load every packet). */
	const struct lsw_qent *slot = f->slot;
	const uint32_t mask = f->mask;
	uint32_t head = f->head;
	/* The entries the run may take: the queue's, up to the burst's room (a packet
	 * WRED drops takes none, and moves the end one further). */
	uint32_t end = head + RTE_MIN(f->tail - head, (uint32_t)(LSW_BURST - n));
	/* The shaper's tokens as whole bytes: (len + overhead) * bit_ticks fits the
	 * tokens exactly when len + overhead fits tokens / bit_ticks (truncated: a
	 * negative bucket holds 0, and nothing fits). One division a run. */
	const int64_t overhead = (int64_t)c->overhead;
	const int64_t budget0 = s->tokens / (int64_t)bit_ticks;
	int64_t budget = budget0;
	/* A strict queue has no deficit: as good as endless, never stored. */
	int64_t deficit = dwrr ? s->deficit[q] : INT64_MAX;
	/* Buffer is given back once per stretch of entries charged alike. */
	uint32_t key = 0;
	int64_t rel_bytes = 0, rel_pkts = 0;
	/* ECN and WRED see the bytes left behind, the departing packet excluded, and
	 * those the PMD refused, which leave ahead of it: they look at a packet when
	 * more than ecn_min stay behind, that is while the run's bytes are below
	 * ecn_lim. */
	uint64_t in_queue = f->bytes + s->pend_bytes;
	if (late && budget0 > 0) {
		const uint64_t owed = (uint64_t)budget0 -
			RTE_MIN((uint64_t)budget0, lsw_fifo_head_len(f) + c->overhead);
		in_queue = in_queue > owed ? in_queue - owed : 0;
	}
	const uint64_t ecn_lim = in_queue > c->ecn_min[q] ? in_queue - c->ecn_min[q] : 0;
	while (head != end) {
		const struct lsw_qent *e = &slot[head & mask];
		const int64_t len = e->len;
		if (budget < len + overhead)
			break;
		if (deficit < len) {
			if (!alone)
				break;
			deficit += quantum; /* >= len: a quantum fits any frame */
		}
		head++;
		bytes += (uint64_t)len;
		uint32_t k = qent_key(e);
		if (k != key && rel_pkts != 0) {
			release_run(w, conf, port, (uint8_t)q, key, rel_bytes, rel_pkts);
			rel_bytes = rel_pkts = 0;
		}
		key = k;
		rel_bytes += e->charged;
		rel_pkts++;
		if (unlikely(bytes < ecn_lim) &&
		    lsw_ecn_dequeue(w, &conf->ecn[port][q], port, (uint8_t)q, e->m,
				    in_queue - bytes)) {
			wred_drop(w, port, (uint8_t)q, e->m);
			dropped += (uint64_t)len;
			if (end != f->tail)
				end++;
			continue;
		}
		budget -= len + overhead;
		deficit -= len;
		pkts[n++] = e->m;
	}
	lsw_publish(&f->head, head);
	if (head == f->tail)
		*busy &= ~(1u << q);
	s->tokens -= (budget0 - budget) * (int64_t)bit_ticks;
	if (dwrr)
		s->deficit[q] = deficit;
	if (rel_pkts != 0)
		release_run(w, conf, port, (uint8_t)q, key, rel_bytes, rel_pkts);
	f->bytes -= bytes;
	w->buffer->ctr.q_tx_pkts[port][q] += n - first;
	w->buffer->ctr.q_tx_bytes[port][q] += bytes - dropped;
	*stalled = n == first && dropped == 0;
	return n;
}

/* Out of line, as when it was one function: inlined into the worker's loop (its steps now
 * small enough for GCC to do so) it grew the loop by 5 KB for no gain. */
__rte_noinline uint32_t
lsw_egress_run(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	       uint64_t now)
{
	struct lsw_sched *s = w->dp->sched[port];
	const struct lsw_sched_dp *c = &conf->sched[port];
	const uint64_t hz = w->dp->tsc_hz, bit_ticks = 8 * hz;
	struct rte_mbuf *pkts[LSW_BURST], *m;
	uint16_t n = 0;

	if (!egress_prepare(w, conf, port, now, pkts, &n))
		return 0;
	/* The data queues holding packets. Nothing is queued here during the run (the worker
	 * is the queues' only writer), so a queue only leaves this set. */
	uint32_t busy = 0;
	for (int q = 0; q < LSW_NUM_QUEUES; q++)
		busy |= (uint32_t)(lsw_fifo_count(&s->q[q]) != 0) << q;
	if ((busy | lsw_fifo_count(&s->ctl)) == 0) {
		s->starved = false;
		s->held = false;
		if (n)
			egress_tx(w, conf, port, pkts, n);
		return n;
	}
	/* A bucket's tokens beyond its head frame are line time the port owes: a starved
	 * port's worker woke late, or an idle port's frames came while the worker was away
	 * from its rx rings (catch-up, lsw_shaper_refill). A hardware port would have sent
	 * those bytes already, so ECN and WRED look at the queue less them: the queue the line
	 * would have, not the one the worker's lateness left (which marked flows at the line
	 * rate now and then: a lone flow's first frames, found together after a late wake-up,
	 * stood in the queue for good). Buffer accounting and PFC see every byte: memory. */
	const bool late = lsw_shaper_refill(s, c, hz, now, now - w->rx_read_prev);
	s->starved = false; /* until the run ends short of tokens */
	/* Switch-originated frames go first and are never held back by the shaper; their
	 * bytes still count against it. An 802.3x PAUSE stops them too (it stops the MAC's
	 * every data frame: ARP and ICMP are data frames); PFC stops only its priorities. */
	const bool rx_port_paused = unlikely(s->pfc.rx_port_paused) &&
				 (int64_t)(s->pfc.rx_port_until - now) > 0;
	while (unlikely(lsw_fifo_count(&s->ctl) != 0) && n < LSW_BURST && !rx_port_paused) {
		m = lsw_fifo_pop(&s->ctl);
		s->tokens -= (int64_t)((m->pkt_len + c->overhead) * bit_ticks);
		pkts[n++] = m;
	}
	while (n < LSW_BURST) {
		int q = lsw_sched_pick(s, c, now);
		if (q < 0)
			break;
		bool stalled;
		n = serve_queue(w, conf, port, q, late, &busy, pkts, n, &stalled);
		if (stalled) {
			s->starved = true; /* out of tokens: the head waits */
			break;
		}
	}
	s->held = (busy | lsw_fifo_count(&s->ctl)) != 0;
	if (n)
		egress_tx(w, conf, port, pkts, n);
	return n;
}

uint64_t
lsw_egress_wait(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		uint64_t now)
{
	struct lsw_sched *s = w->dp->sched[port];
	const struct lsw_sched_dp *c = &conf->sched[port];
	uint64_t best = UINT64_MAX;

	if (s->pfc.tx_xoff || s->pfc.tx_xon)
		return 0;
	if (lsw_fifo_count(&s->ctl) != 0) {
		if (!s->pfc.rx_port_paused || (int64_t)(s->pfc.rx_port_until - now) <= 0)
			return 0;
		best = s->pfc.rx_port_until - now; /* 802.3x PAUSE holds them */
	}
	if (s->n_pend) /* the PMD was full: look again in a microsecond */
		return w->dp->tsc_hz / 1000000;
	/* A PG pausing its peer must refresh the XOFF before the peer's timer runs out. */
	for (uint8_t pg = 0; s->pfc.tx_xoff_pg >> pg; pg++)
		if (s->pfc.tx_xoff_pg >> pg & 1)
			best = RTE_MIN(best, (int64_t)(s->pfc.tx_refresh[pg] - now) > 0 ?
					     s->pfc.tx_refresh[pg] - now : 0);
	for (int q = 0; q < LSW_NUM_QUEUES; q++) {
		struct rte_mbuf *m = lsw_fifo_peek(&s->q[q]);
		if (m == NULL)
			continue;
		uint64_t t = lsw_shaper_wait(s, c, w->dp->tsc_hz,
					     lsw_shaper_cost(c, w->dp->tsc_hz, m->pkt_len));
		if ((int64_t)(s->pause_until[q] - now) > 0 && s->pause_until[q] - now > t)
			t = s->pause_until[q] - now;
		best = RTE_MIN(best, t);
	}
	return best;
}
