/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine: what an emulated RoCE NIC does with the frames it receives and when it
 * sends (RC transport, DCQCN, PFC). Frames and time come from the caller; nothing here reads
 * a clock or touches a device.
 *
 * Each host sends, in this order, whenever its link is free: PFC frames (never held by a
 * pause), ARP, ACK/NAK, CNP, then data from its QPs in round robin, each QP paced at its
 * DCQCN rate. A frame on a paused priority waits; nothing is dropped on the way out.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include "lsw/parse.h"
#include "lsw/pfc.h"
#include "host.h"

const char *const lsw_host_ctr_names[LSW_HC_MAX] = {
#define X(n, d) #n,
	LSW_FOREACH_HOST_CTR(X)
#undef X
};

#define ARP_RETRY_NS  (50ull * 1000 * 1000)
#define NSEC_S      1000000000.0

/* Nanoseconds that @bytes take at @bps. */
static inline uint64_t
ns_at(uint64_t bytes, double bps)
{
	return bps > 0 ? (uint64_t)(bytes * 8 * NSEC_S / bps) : 0;
}

static inline bool
due(uint64_t t, uint64_t now)
{
	return (int64_t)(now - t) >= 0;
}

static inline uint64_t
earlier(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- pauses ------------------------------------------------------------------------ */

/* Pauses that ended by @now are accounted in rx_pause_ns. */
static void
pause_expire(struct lsw_host *h, uint64_t now)
{
	for (int p = 0; p < 8; p++)
		if (h->paused_since[p] != 0 && due(h->paused_until[p], now)) {
			h->ps.rx_pause_ns[p] += h->paused_until[p] - h->paused_since[p];
			h->paused_since[p] = 0;
		}
}

static inline bool
paused(const struct lsw_host *h, int prio, uint64_t now)
{
	return !due(h->port_paused_until, now) ||
	       (h->paused_since[prio] != 0 && !due(h->paused_until[prio], now));
}

static void
pfc_rx(struct lsw_host *h, const uint8_t *body, uint32_t len, uint64_t now)
{
	struct lsw_pfc_frame f;
	enum lsw_drop why = lsw_pfc_decode(body, len, &f);

	if (why != LSW_DROP_NONE) {
		h->ps.rx_drop[why]++;
		return;
	}
	if (f.opcode == LSW_MACCTL_PAUSE) {
		h->port_paused_until = now + ns_at((uint64_t)f.time[0] * 64,
						   (double)h->c.speed_bps);
		return;
	}
	for (int p = 0; p < 8; p++) {
		if (!(f.enable >> p & 1))
			continue;
		h->ps.rx_pause[p]++;
		if (f.time[p] == 0) {
			if (h->paused_since[p] != 0 && !due(h->paused_until[p], now))
				h->paused_until[p] = now;
			pause_expire(h, now);
			continue;
		}
		pause_expire(h, now);
		if (h->paused_since[p] == 0)
			h->paused_since[p] = now;
		/* A quantum is 512 bit times: 64 bytes at the link's speed. */
		h->paused_until[p] = now + ns_at((uint64_t)f.time[p] * 64, (double)h->c.speed_bps);
	}
}

/* ---- the receive buffer of a slow receiver, and the storm --------------------------- */

static void
rxbuf_drain(struct lsw_host *h, uint64_t now)
{
	uint64_t gone = (uint64_t)((now - h->rxbuf_at) * (double)h->c.rx_drain_bps / 8 / NSEC_S);

	if (gone > 0 || h->rxbuf == 0) {
		h->rxbuf = gone >= h->rxbuf ? 0 : h->rxbuf - gone;
		h->rxbuf_at = now;
	}
	if (!h->pausing && h->rxbuf > h->c.rx_xoff) {
		h->pausing = true;
		h->pausing_since = now;
		h->pfc_xoff_due = true;
	} else if (h->pausing && h->rxbuf <= h->c.rx_xon) {
		h->pausing = false;
		h->pfc_xon_due = true;
		h->ps.tx_pause_ns[h->c.prio_data] += now - h->pausing_since;
	} else if (h->pausing && due(h->pause_refresh, now)) {
		h->pfc_xoff_due = true;
	}
}

/* Half a pause of @quanta: when a pause that must hold is sent again. */
static uint64_t
half_pause_ns(const struct lsw_host *h, uint16_t quanta)
{
	return ns_at((uint64_t)quanta * 32, (double)h->c.speed_bps);
}

static bool
storm_on(const struct lsw_host *h, uint64_t now)
{
	/* storm_from is 0 until the workload starts. */
	return h->c.storm_prio >= 0 && h->storm_from != 0 && due(h->storm_from, now) &&
	       (h->storm_until == 0 || !due(h->storm_until, now));
}

/* ---- frames ------------------------------------------------------------------------ */

static inline uint8_t
tos_of(uint8_t dscp)
{
	return (uint8_t)(dscp << 2 | LSW_ECN_ECT0); /* RoCE NICs send every packet ECT(0) */
}

/* Where @h's frames to @dip go: the gateway's MAC (or the static one). */
static void
l2l3(const struct lsw_host *h, uint32_t dip, uint8_t dscp, uint8_t prio, uint16_t sport,
     struct lsw_roce_l2l3 *l)
{
	l->dmac = h->gw_mac;
	l->smac = h->c.mac;
	l->sip = h->c.ip;
	l->dip = dip;
	l->tos = tos_of(dscp);
	l->tagged = h->c.priority_tagging;
	l->pcp = prio;
	l->sport = sport;
	l->ttl = 0; /* 64; set here, or a TTL 1 (ttl_one_psn) stays on the caller's stack */
}

/* A frame of @len bytes goes out at @now: the link is busy for its wire time. */
static void
link_take(struct lsw_hosts *e, struct lsw_host *h, uint16_t len, uint64_t now)
{
	uint64_t from = h->link_next;

	/* After a late wake-up the link catches up at most tx_burst_ns: a burst, not a
	 * flood, as a NIC's own pacing would allow. */
	if ((int64_t)(now - h->c.tx_burst_ns - from) > 0)
		from = now - h->c.tx_burst_ns;
	h->link_next = from + ns_at(lsw_wire_bytes(len), (double)h->c.speed_bps);
	h->ps.tx_packets++;
	h->ps.tx_bytes += len;
	(void)e;
}

static bool
send_pfc(struct lsw_hosts *e, struct lsw_host *h, uint8_t prio, uint16_t quanta, uint64_t now)
{
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, LSW_PFC_FRAME_LEN);
	uint16_t time[8] = {0};

	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	time[prio] = quanta;
	lsw_pfc_encode(f, &h->c.mac, (uint8_t)(1u << prio), time);
	link_take(e, h, LSW_PFC_FRAME_LEN, now);
	h->ps.tx_pause[prio]++;
	return true;
}

static bool
send_arp(struct lsw_hosts *e, struct lsw_host *h, bool reply, uint64_t now)
{
	uint16_t len = RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr);
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, 60);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);

	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	memset(f, 0, 60);
	eth->src_addr = h->c.mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_data.arp_sha = h->c.mac;
	a->arp_data.arp_sip = rte_cpu_to_be_32(h->c.ip);
	if (reply) {
		eth->dst_addr = h->arp_reply_mac;
		a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
		a->arp_data.arp_tha = h->arp_reply_mac;
		a->arp_data.arp_tip = rte_cpu_to_be_32(h->arp_reply_ip);
		h->ctr[LSW_HC_arp_replies_sent]++;
	} else {
		memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
		a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
		a->arp_data.arp_tip = rte_cpu_to_be_32(h->c.gw);
		h->ctr[LSW_HC_arp_requests_sent]++;
	}
	(void)len;
	link_take(e, h, 60, now);
	return true;
}

/* An ACK or NAK of @qp's responder: AETH @syndrome, naming @psn. */
static bool
send_aeth(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint8_t syndrome,
	  uint32_t psn, uint64_t now)
{
	const struct lsw_host *peer = &e->host[qp->src];
	uint16_t len = lsw_roce_frame_len(h->c.priority_tagging, LSW_OP_ACK, 0);
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, len);
	struct lsw_roce_l2l3 l;
	struct lsw_roce_bth b = {.opcode = LSW_OP_ACK, .pkey = LSW_ROCE_PKEY, .dqpn = qp->qpn,
				 .psn = psn};
	struct lsw_roce_ext x = {.syndrome = syndrome, .msn = qp->msn};

	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	l2l3(h, peer->c.ip, h->c.dscp_ack, h->c.prio_ack, qp->sport, &l);
	lsw_roce_build(f, &l, &b, &x, 0);
	link_take(e, h, len, now);
	if (LSW_AETH_IS_NAK(syndrome)) {
		qp->st.naks_sent++;
		if (h->first_nak_ns == 0)
			h->first_nak_ns = now;
	}
	return true;
}

/* The responder's ACK or NAK of @qp, as it stands now (the latest replaces the earlier). */
static bool
send_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	if (!send_aeth(e, h, qp, qp->ack_syndrome, (uint32_t)qp->ack_psn, now))
		return false;
	if (LSW_AETH_IS_NAK(qp->ack_syndrome)) {
		h->ctr[LSW_HC_resp_nak_sent]++;
	} else {
		h->ctr[LSW_HC_resp_ack_sent]++;
		qp->st.acks_sent++;
	}
	return true;
}

static bool
send_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	const struct lsw_host *peer = &e->host[qp->src];
	uint16_t len = lsw_roce_frame_len(h->c.priority_tagging, LSW_OP_CNP, 0);
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, len);
	struct lsw_roce_l2l3 l;
	struct lsw_roce_bth b = {.opcode = LSW_OP_CNP, .pkey = LSW_ROCE_PKEY, .becn = true,
				 .dqpn = qp->qpn};
	struct lsw_roce_ext x = {0};

	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	/* UDP source port 0, as a ConnectX-4 Lx sends its CNPs. */
	l2l3(h, peer->c.ip, h->c.dscp_cnp, h->c.prio_cnp, 0, &l);
	lsw_roce_build(f, &l, &b, &x, 0);
	link_take(e, h, len, now);
	h->ctr[LSW_HC_np_cnp_sent]++;
	qp->st.cnps_sent++;
	return true;
}

/* A trim NACK (trim.h): an AETH NAK of UET's code for the trimmed PSN, sent at once. */
static bool
send_trim_nak(struct lsw_hosts *e, struct lsw_host *h, const struct lsw_trim_nak *n,
	      uint64_t now)
{
	if (!send_aeth(e, h, &e->qp[n->qp], (uint8_t)LSW_AETH_NAK_TRIM(n->code), n->psn, now))
		return false;
	h->ctr[n->code == LSW_UET_NACK_TRIMMED_LAST_HOP ? LSW_HC_resp_nack_trimmed_last_hop_sent :
						     LSW_HC_resp_nack_trimmed_sent]++;
	return true;
}

/* ---- the requester ----------------------------------------------------------------- */

static inline struct lsw_msg *
msg_at(struct lsw_qp *qp, uint32_t n)
{
	return &qp->msg[n - qp->msg_base];
}

static inline uint64_t
msg_end(const struct lsw_msg *m)
{
	return m->first_psn + m->npkts;
}

static void
activate(struct lsw_hosts *e, struct lsw_qp *qp)
{
	struct lsw_host *h = &e->host[qp->src];

	if (qp->active)
		return;
	if (h->n_active == h->active_cap) {
		uint32_t cap = h->active_cap ? 2 * h->active_cap : 16;
		uint32_t *a = realloc(h->active, cap * sizeof(*a));
		if (a == NULL)
			abort(); /* a few bytes per QP: the run cannot go on without them */
		h->active = a;
		h->active_cap = cap;
	}
	h->active[h->n_active++] = qp->idx;
	qp->active = true;
}

static void
deactivate(struct lsw_hosts *e, struct lsw_qp *qp)
{
	struct lsw_host *h = &e->host[qp->src];

	for (uint32_t i = 0; i < h->n_active; i++)
		if (h->active[i] == qp->idx) {
			h->active[i] = h->active[--h->n_active];
			if (h->rr >= h->n_active)
				h->rr = 0;
			break;
		}
	qp->active = false;
	if (e->sample_ns) { /* its last interval is sampled with the next */
		if (e->n_idle == e->idle_cap) {
			uint32_t cap = e->idle_cap ? 2 * e->idle_cap : 64;
			uint32_t *a = realloc(e->idle, cap * sizeof(*a));
			if (a == NULL)
				abort();
			e->idle = a;
			e->idle_cap = cap;
		}
		e->idle[e->n_idle++] = qp->idx;
	}
}

static uint64_t
ideal_ns(const struct lsw_hosts *e, const struct lsw_qp *qp, const struct lsw_msg *m)
{
	const struct lsw_host *s = &e->host[qp->src], *d = &e->host[qp->dst];
	uint64_t bps = RTE_MIN(s->c.speed_bps, d->c.speed_bps);
	uint64_t bytes = 0;
	uint32_t left = m->size;

	for (uint32_t i = 0; i < m->npkts; i++) {
		uint32_t pay = RTE_MIN(left, qp->mtu);
		uint8_t op = m->npkts == 1 ? LSW_OP_WRITE_ONLY : i == 0 ? LSW_OP_WRITE_FIRST :
									  LSW_OP_WRITE_MIDDLE;
		bytes += lsw_wire_bytes(lsw_roce_frame_len(s->c.priority_tagging, op, pay));
		left -= pay;
	}
	return ns_at(bytes, (double)bps) + e->base_rtt_ns;
}

static void coll_msg_done(struct lsw_hosts *e, int32_t step, uint64_t now);

static void
msg_complete(struct lsw_hosts *e, struct lsw_qp *qp, struct lsw_msg *m, uint64_t now)
{
	if (e->n_fct == e->fct_cap) {
		uint32_t cap = e->fct_cap ? 2 * e->fct_cap : 1024;
		struct lsw_fct *f = realloc(e->fct, cap * sizeof(*f));
		if (f == NULL)
			abort();
		e->fct = f;
		e->fct_cap = cap;
	}
	e->fct[e->n_fct++] = (struct lsw_fct){.qp = qp->idx, .seq = m->seq, .size = m->size,
					      .post_ns = m->post_ns - e->start_ns,
					      .fct_ns = now - m->post_ns,
					      .ideal_ns = ideal_ns(e, qp, m)};
	qp->st.msgs_done++;
	qp->st.bytes_done += m->size;
	e->msgs_done++;
	if (m->coll_step >= 0)
		coll_msg_done(e, m->coll_step, now);
}

/* Post a message of @size bytes on @qp now. */
static void
post_msg(struct lsw_hosts *e, struct lsw_qp *qp, uint32_t size, int32_t step, uint64_t now)
{
	if (qp->error) {
		e->msgs_posted++;
		e->msgs_failed++;
		return;
	}
	if (qp->msg_tail - qp->msg_base == qp->msg_cap) {
		/* Drop what is done from the front before growing. */
		uint32_t done = qp->msg_head - qp->msg_base;
		if (done > qp->msg_cap / 2) {
			memmove(qp->msg, qp->msg + done,
				(qp->msg_tail - qp->msg_head) * sizeof(*qp->msg));
			qp->msg_base = qp->msg_head;
		} else {
			uint32_t cap = qp->msg_cap ? 2 * qp->msg_cap : 4;
			struct lsw_msg *m = realloc(qp->msg, cap * sizeof(*m));
			if (m == NULL)
				abort();
			qp->msg = m;
			qp->msg_cap = cap;
		}
	}
	struct lsw_msg *m = msg_at(qp, qp->msg_tail);
	m->post_ns = now;
	m->first_psn = qp->psn_end;
	m->size = size;
	m->npkts = size == 0 ? 1 : (size + qp->mtu - 1) / qp->mtu;
	m->coll_step = step;
	m->seq = qp->msg_tail++;
	qp->psn_end += m->npkts;
	qp->st.msgs_posted++;
	e->msgs_posted++;
	activate(e, qp);
}

static void
qp_progress(struct lsw_hosts *e, struct lsw_qp *qp, uint64_t una, uint64_t now)
{
	const struct lsw_host *h = &e->host[qp->src];

	lsw_host_trim_acked(qp, una);
	qp->snd_una = una;
	qp->retries = 0;
	qp->rto_at = qp->snd_una < qp->snd_max ? now + h->c.rto_ns : 0;
	while (qp->msg_head < qp->msg_tail && msg_end(msg_at(qp, qp->msg_head)) <= qp->snd_una)
		msg_complete(e, qp, msg_at(qp, qp->msg_head++), now);
	if (qp->msg_cur < qp->msg_head)
		qp->msg_cur = qp->msg_head;
	if (qp->snd_nxt < qp->snd_una)
		qp->snd_nxt = qp->snd_una;
}

/* Back to @psn (go-back-N): the next packet sent is that one. */
static void
qp_rewind(struct lsw_qp *qp, uint64_t psn)
{
	lsw_host_trim_rewound(qp, psn);
	qp->snd_nxt = psn;
	qp->msg_cur = qp->msg_head;
}

static void
req_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, const struct lsw_roce_rx *r,
	uint64_t now)
{
	/* The PSN relative to the oldest unacknowledged one, in the 64-bit space. */
	uint64_t psn = qp->snd_una + (uint64_t)(int64_t)lsw_psn_diff(r->bth.psn,
								  (uint32_t)qp->snd_una);

	if (LSW_AETH_IS_ACK(r->syndrome)) {
		/* An ACK names the last PSN it covers. */
		if (psn >= qp->snd_una && psn < qp->snd_max)
			qp_progress(e, qp, psn + 1, now);
		return;
	}
	if (r->syndrome == LSW_AETH_NAK_PSN) {
		/* A NAK names the PSN the responder expects: all before it arrived. */
		h->ctr[LSW_HC_packet_seq_err]++;
		qp->st.naks++;
		if (psn < qp->snd_una || psn > qp->snd_max)
			return;
		qp_progress(e, qp, psn, now);
		qp_rewind(qp, psn);
		return;
	}
	if (LSW_AETH_IS_NAK_TRIM(r->syndrome)) {
		/* Selective repeat: that PSN alone, nothing acknowledged (trim.c). */
		lsw_host_trim_nak(h, qp, psn, r->syndrome);
		return;
	}
	/* Any other NAK ends the QP, as a NIC moves it to the error state. */
	qp->error = true;
}

static void
req_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	(void)e;
	if (h->c.cc == LSW_CC_NONE) {
		h->ctr[LSW_HC_rp_cnp_ignored]++;
		qp->st.cnp_ignored++;
		return;
	}
	switch (lsw_dcqcn_rp_cnp(&qp->rp, &h->c.dcqcn, h->c.speed_bps, now)) {
	case LSW_DCQCN_CNP_DEFERRED:
		h->ctr[LSW_HC_rp_cnp_deferred]++;
		/* fall through */
	case LSW_DCQCN_CNP_CUT:
		h->ctr[LSW_HC_rp_cnp_handled]++;
		qp->st.cnp_handled++;
		break;
	case LSW_DCQCN_CNP_MERGED:
		h->ctr[LSW_HC_rp_cnp_merged]++;
		h->ctr[LSW_HC_rp_cnp_ignored]++;
		qp->st.cnp_ignored++;
		break;
	}
}

static double
qp_rate(struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	if (h->c.cc == LSW_CC_NONE)
		return (double)h->c.speed_bps;
	lsw_dcqcn_rp_advance(&qp->rp, &h->c.dcqcn, h->c.speed_bps, now);
	return qp->rp.rc;
}

/* The next packet of @qp: opcode, payload and AckReq from its place in its message. */
static bool
send_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	struct lsw_msg *m;
	/* A PSN a trim NACK named goes first, alone (its message found from the oldest). */
	const bool alone = lsw_host_trim_rtx_pending(qp->trim);
	const uint64_t psn = alone ? lsw_host_trim_rtx_take(qp) : qp->snd_nxt;

	if (alone) {
		uint32_t k = qp->msg_head;
		while (msg_end(m = msg_at(qp, k)) <= psn)
			k++;
	} else {
		while (msg_end(m = msg_at(qp, qp->msg_cur)) <= qp->snd_nxt)
			qp->msg_cur++;
	}
	uint32_t i = (uint32_t)(psn - m->first_psn);
	uint32_t pay = m->size > i * qp->mtu ? RTE_MIN(m->size - i * qp->mtu, qp->mtu) : 0;
	bool first = i == 0, last = i + 1 == m->npkts;
	uint8_t op;
	if (qp->op == LSW_OPK_WRITE)
		op = first && last ? LSW_OP_WRITE_ONLY : first ? LSW_OP_WRITE_FIRST :
			last ? LSW_OP_WRITE_LAST : LSW_OP_WRITE_MIDDLE;
	else
		op = first && last ? LSW_OP_SEND_ONLY : first ? LSW_OP_SEND_FIRST :
			last ? LSW_OP_SEND_LAST : LSW_OP_SEND_MIDDLE;

	uint16_t len = lsw_roce_frame_len(h->c.priority_tagging, op, pay);
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, len);
	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	struct lsw_roce_l2l3 l;
	struct lsw_roce_bth b = {
		.opcode = op, .pkey = LSW_ROCE_PKEY, .dqpn = qp->qpn,
		.psn = (uint32_t)psn,
		.ackreq = last || (psn + 1) % h->c.ack_every == 0};
	/* A made-up remote buffer: the key and address only have to be consistent. */
	struct lsw_roce_ext x = {.va = (uint64_t)qp->qpn << 32, .rkey = qp->qpn,
				 .dma_len = m->size};
	/* Data marked trimmable carries the trimmable DSCP, a packet resent alone for a trim
	 * the retransmission DSCP, when the host has them (trim.h). */
	l2l3(h, e->host[qp->dst].c.ip, alone && h->c.dscp_rtx < 64 ? h->c.dscp_rtx :
	     h->c.dscp_trimmable < 64 ? h->c.dscp_trimmable : h->c.dscp_data, h->c.prio_data,
	     qp->sport, &l);
	if (!alone && qp->snd_nxt == qp->snd_max && (int64_t)qp->snd_nxt == h->c.ttl_one_psn)
		l.ttl = 1;
	lsw_roce_build(f, &l, &b, &x, pay);
	link_take(e, h, len, now);

	if (alone || qp->snd_nxt < qp->snd_max) {
		qp->st.retransmitted++;
		h->ctr[LSW_HC_req_retransmitted_packets]++;
	}
	if (alone) {
		h->ctr[LSW_HC_req_selective_retransmits]++;
	} else {
		qp->snd_nxt++;
		if (qp->snd_nxt > qp->snd_max)
			qp->snd_max = qp->snd_nxt;
	}
	if (qp->rto_at == 0)
		qp->rto_at = now + h->c.rto_ns;
	qp->st.packets_sent++;
	qp->st.bytes_sent += pay;

	double rate = qp_rate(h, qp, now);
	uint64_t from = qp->next_tx;
	if ((int64_t)(now - h->c.tx_burst_ns - from) > 0)
		from = now - h->c.tx_burst_ns;
	qp->next_tx = from + ns_at(lsw_wire_bytes(len), rate);
	if (h->c.cc != LSW_CC_NONE)
		lsw_dcqcn_rp_sent(&qp->rp, &h->c.dcqcn, h->c.speed_bps, lsw_wire_bytes(len));
	return true;
}

static void
qp_fail(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp)
{
	qp->error = true;
	h->ctr[LSW_HC_req_transport_retries_exceeded]++;
	e->msgs_failed += qp->msg_tail - qp->msg_head;
	qp->msg_head = qp->msg_tail;
	deactivate(e, qp);
}

/* Timeouts and retirement of @h's QPs. */
static void
qp_timers(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
{
	for (uint32_t i = 0; i < h->n_active;) {
		struct lsw_qp *qp = &e->qp[h->active[i]];

		if (qp->error) {
			qp_fail(e, h, qp);
			continue;
		}
		if (qp->rto_at != 0 && due(qp->rto_at, now)) {
			h->ctr[LSW_HC_local_ack_timeout_err]++;
			qp->st.timeouts++;
			if (h->first_timeout_ns == 0)
				h->first_timeout_ns = now;
			if (++qp->retries > h->c.retry_cnt) {
				qp_fail(e, h, qp);
				continue;
			}
			qp_rewind(qp, qp->snd_una);
			qp->rto_at = now + h->c.rto_ns;
		}
		if (qp->snd_una == qp->psn_end) {
			deactivate(e, qp); /* all acknowledged: idle until the next post */
			continue;
		}
		i++;
	}
}

/* ---- the responder ----------------------------------------------------------------- */

/* Queue @qp on a control ring of @h. Each QP is on a ring at most once (its flag says so),
 * and a ring holds every QP of the host, so that it never fills; the check is a guard. */
static void
ctl_push(struct lsw_host *h, uint32_t *ring, uint32_t head, uint32_t *tail, uint32_t qp)
{
	if (*tail - head >= h->ctl_cap) {
		h->ctr[LSW_HC_ctl_ring_full]++;
		return;
	}
	ring[*tail & (h->ctl_cap - 1)] = qp;
	(*tail)++;
}

static void
queue_ack(struct lsw_host *h, struct lsw_qp *qp, uint8_t syndrome, uint64_t psn)
{
	/* A later ACK or NAK replaces one not sent yet: it says at least as much. */
	qp->ack_syndrome = syndrome;
	qp->ack_psn = psn;
	if (!qp->ctl_ack) {
		qp->ctl_ack = true;
		ctl_push(h, h->ctl_ack, h->ack_head, &h->ack_tail, qp->idx);
	}
}

static bool
is_last(uint8_t op)
{
	return op == LSW_OP_WRITE_LAST || op == LSW_OP_WRITE_ONLY || op == LSW_OP_SEND_LAST ||
	       op == LSW_OP_SEND_ONLY;
}

static bool
is_data(uint8_t op)
{
	return op <= LSW_OP_SEND_ONLY || (op >= LSW_OP_WRITE_FIRST && op <= LSW_OP_WRITE_ONLY);
}

static void
resp_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, const struct lsw_roce_rx *r,
	  uint64_t now)
{
	int32_t d = lsw_psn_diff(r->bth.psn, (uint32_t)qp->epsn);

	(void)e;
	/* NP: every CE-marked packet counts, in order or not; CNPs at most one per interval. */
	if ((r->tos & LSW_ECN_MASK) == LSW_ECN_CE) {
		h->ctr[LSW_HC_np_ecn_marked_roce_packets]++;
		qp->st.ce_marked++;
		if (lsw_dcqcn_np_ce(&qp->last_cnp, &h->c.dcqcn, now) && !qp->ctl_cnp) {
			qp->ctl_cnp = true;
			ctl_push(h, h->ctl_cnp, h->cnp_head, &h->cnp_tail, qp->idx);
		}
	}
	if (d == 0) {
		if (h->rx_first == 0)
			h->rx_first = now;
		h->rx_last = now;
		qp->epsn++;
		qp->nak_sent = false;
		qp->st.rx_packets++;
		qp->st.rx_bytes += r->payload;
		if (r->bth.opcode >= LSW_OP_WRITE_FIRST)
			h->ctr[LSW_HC_rx_write_requests]++;
		else
			h->ctr[LSW_HC_rx_send_requests]++;
		if (is_last(r->bth.opcode))
			qp->msn++;
		bool ack = false;
		/* Packets kept past a trimmed hole this one filled follow it in (trim.c). */
		if (qp->trim != NULL)
			qp->msn += lsw_host_trim_advance(qp, &ack);
		if (ack || r->bth.ackreq || is_last(r->bth.opcode))
			queue_ack(h, qp, LSW_AETH_ACK, qp->epsn - 1);
	} else if (d > 0 && lsw_host_trim_keep(h, qp, r, d, now)) {
		/* Kept past a trimmed hole: delivered when the hole fills. */
	} else if (d > 0) {
		/* Ahead: one NAK for this ePSN, then silence until it arrives (go-back-N). */
		h->ctr[LSW_HC_out_of_sequence]++;
		qp->st.out_of_sequence++;
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			queue_ack(h, qp, LSW_AETH_NAK_PSN, qp->epsn);
		}
	} else {
		/* Behind: a duplicate; say again how far we are, where the requester asks. */
		h->ctr[LSW_HC_duplicate_request]++;
		qp->st.duplicates++;
		if (r->bth.ackreq || is_last(r->bth.opcode))
			queue_ack(h, qp, LSW_AETH_ACK, qp->epsn - 1);
	}
}

/* ---- receive ----------------------------------------------------------------------- */

static struct lsw_qp *
qp_by_qpn(struct lsw_hosts *e, uint32_t qpn)
{
	if (qpn < LSW_QPN_BASE || qpn - LSW_QPN_BASE >= e->n_qps)
		return NULL;
	return &e->qp[qpn - LSW_QPN_BASE];
}

static void
rx_arp(struct lsw_host *h, const uint8_t *f, const struct lsw_pkt_info *pi, uint64_t now)
{
	const struct rte_arp_hdr *a = (const struct rte_arp_hdr *)(f + pi->l3_off);
	uint32_t sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	uint32_t tip = rte_be_to_cpu_32(a->arp_data.arp_tip);

	if (sip == h->c.gw && !h->c.gw_mac_static) {
		h->gw_mac = a->arp_data.arp_sha;
		h->gw_resolved = true;
	}
	if (rte_be_to_cpu_16(a->arp_opcode) == RTE_ARP_OP_REQUEST && tip == h->c.ip) {
		h->arp_reply_due = true;
		h->arp_reply_ip = sip;
		h->arp_reply_mac = a->arp_data.arp_sha;
	}
	(void)now;
}

/* An echo request to the host becomes its reply in place: addresses swapped, type 0, the
 * checksums updated; sent when the link is free (a ping from a namespace checks wiring). */
static void
rx_icmp(struct lsw_host *h, const uint8_t *f, const struct lsw_pkt_info *pi)
{
	const uint8_t *ip = f + pi->l3_off;
	uint16_t end = (uint16_t)(pi->l3_off + pi->l3_len);
	uint32_t dip = (uint32_t)ip[16] << 24 | (uint32_t)ip[17] << 16 | ip[18] << 8 | ip[19];

	if (dip != h->c.ip || pi->l4_off + 8 > end || f[pi->l4_off] != 8 /* echo request */ ||
	    end > sizeof(h->echo) || h->echo_len != 0) {
		h->ctr[LSW_HC_rx_not_for_us]++;
		return;
	}
	memcpy(h->echo, f, end);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)h->echo;
	uint8_t *rip = h->echo + pi->l3_off, *icmp = h->echo + pi->l4_off, t[4];
	eth->dst_addr = eth->src_addr;
	eth->src_addr = h->c.mac;
	memcpy(t, rip + 12, 4);
	memcpy(rip + 12, rip + 16, 4);
	memcpy(rip + 16, t, 4);
	rip[8] = 64;
	rip[10] = rip[11] = 0;
	uint16_t c = rte_ipv4_cksum((const struct rte_ipv4_hdr *)rip);
	memcpy(rip + 10, &c, 2);
	icmp[0] = 0;
	icmp[2] = icmp[3] = 0;
	c = (uint16_t)~rte_raw_cksum(icmp, (size_t)(end - pi->l4_off));
	memcpy(icmp + 2, &c, 2);
	h->echo_len = end;
}

void
lsw_host_rx(struct lsw_hosts *e, struct lsw_host *h, uint8_t *f, uint16_t len)
{
	uint64_t now = e->now;
	struct lsw_pkt_info pi;
	struct lsw_roce_rx r;
	enum lsw_drop why = lsw_parse(f, len, &pi);

	h->ps.rx_packets++;
	h->ps.rx_bytes += len;
	if (why != LSW_DROP_NONE) {
		h->ps.rx_drop[why]++;
		return;
	}
	if (pi.ethertype == LSW_ETHERTYPE_MACCTL) {
		pfc_rx(h, f + pi.l3_off, (uint32_t)(len - pi.l3_off), now);
		return;
	}
	if (pi.ethertype == LSW_ETHERTYPE_ARP) {
		rx_arp(h, f, &pi, now);
		return;
	}
	if (pi.ethertype == LSW_ETHERTYPE_IPV4 && pi.l4_proto == IPPROTO_ICMP) {
		rx_icmp(h, f, &pi);
		return;
	}
	if (!(pi.flags & LSW_PF_ROCE)) {
		h->ctr[LSW_HC_rx_not_for_us]++;
		return;
	}
	/* A trim-aware host knows a trim by its DSCP, before the ICRC check (a cut packet's
	 * ICRC cannot verify) and before the full parse (a small trim may end inside its
	 * RETH): the BTH is all it needs. A packet of a trim DSCP whose ICRC verifies was
	 * re-marked whole (not longer than the switch's trim size), and is taken as it is. */
	const uint8_t trim = pi.ethertype == LSW_ETHERTYPE_IPV4 ?
			     lsw_host_trim_code(h, f[pi.l3_off + 1] >> 2) : 0;
	const bool parsed = lsw_roce_parse(f, len, &r);
	const uint16_t end = (uint16_t)(pi.l3_off + pi.l3_len);
	const bool icrc_ok = parsed && (!(h->c.verify_icrc || trim) ||
			     lsw_roce_icrc(f, r.l3_off, end) == lsw_roce_icrc_stored(f, end));
	struct lsw_qp *qp = qp_by_qpn(e, pi.bth_dqpn);
	if (trim && !icrc_ok) {
		uint32_t dip;
		memcpy(&dip, f + pi.l3_off + 16, sizeof(dip));
		if (rte_be_to_cpu_32(dip) != h->c.ip)
			h->ctr[LSW_HC_rx_not_for_us]++;
		else if (!is_data(pi.bth_opcode) || qp == NULL || qp->dst != h->idx)
			h->ctr[LSW_HC_rx_unknown_qp]++;
		else
			lsw_host_trim_rx(h, qp, pi.bth_psn, trim);
		return;
	}
	if (!parsed || r.dip != h->c.ip) {
		h->ctr[LSW_HC_rx_not_for_us]++;
		return;
	}
	if (trim)
		h->ctr[LSW_HC_rx_trim_dscp_whole]++;
	if (!icrc_ok) {
		h->ctr[LSW_HC_rx_icrc_errors]++;
		return;
	}
	if (r.bth.opcode == LSW_OP_ACK || r.bth.opcode == LSW_OP_CNP) {
		if (qp == NULL || qp->src != h->idx) {
			h->ctr[LSW_HC_rx_unknown_qp]++;
			return;
		}
		if (r.bth.opcode == LSW_OP_ACK)
			req_ack(e, h, qp, &r, now);
		else
			req_cnp(e, h, qp, now);
		return;
	}
	if (!is_data(r.bth.opcode) || qp == NULL || qp->dst != h->idx) {
		h->ctr[LSW_HC_rx_unknown_qp]++;
		return;
	}
	/* A slow receiver's buffer: what does not fit is lost (and NAKed later). */
	if (h->c.rx_buffer) {
		rxbuf_drain(h, now);
		if (h->rxbuf + len > h->c.rx_buffer) {
			h->ctr[LSW_HC_out_of_buffer]++;
			return;
		}
		h->rxbuf += len;
		rxbuf_drain(h, now);
	}
	resp_data(e, h, qp, &r, now);
}

/* ---- collectives ------------------------------------------------------------------- */

static void
coll_step_start(struct lsw_hosts *e, struct lsw_coll *c, uint64_t now)
{
	c->done_in_step = 0;
	for (uint32_t i = 0; i < c->n; i++)
		post_msg(e, &e->qp[c->qps[i]], c->chunk, (int32_t)(c - e->coll), now);
}

static void
coll_msg_done(struct lsw_hosts *e, int32_t id, uint64_t now)
{
	struct lsw_coll *c = &e->coll[id];

	if (++c->done_in_step < c->n)
		return;
	/* The barrier: every host's chunk of this step has arrived. */
	if (++c->step < c->steps) {
		coll_step_start(e, c, now);
		return;
	}
	c->jct_ns[c->iter++] = now - c->start_ns;
	c->running = false;
	c->step = 0;
	/* The next iteration computes first (nothing on the wire), then its steps start. */
	c->start_at = now + c->compute_ns;
}

/* ---- transmit ---------------------------------------------------------------------- */

/* One frame from @h if one is due and allowed: true when one went out. */
static bool
tx_one(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
{
	if (h->pfc_xoff_due) {
		if (!send_pfc(e, h, h->c.prio_data, h->c.pause_quanta, now))
			return false;
		h->pfc_xoff_due = false;
		h->pause_refresh = now + half_pause_ns(h, h->c.pause_quanta);
		return true;
	}
	if (h->pfc_xon_due) {
		if (!send_pfc(e, h, h->c.prio_data, 0, now))
			return false;
		h->pfc_xon_due = false;
		return true;
	}
	if (storm_on(h, now) && due(h->storm_next, now)) {
		if (!send_pfc(e, h, (uint8_t)h->c.storm_prio, h->c.storm_quanta, now))
			return false;
		h->ctr[LSW_HC_tx_pause_storm_frames]++;
		h->storm_next = now + half_pause_ns(h, h->c.storm_quanta);
		return true;
	}
	/* ARP is not on a priority: an 802.3x PAUSE holds it, PFC does not. */
	if (h->echo_len && due(h->port_paused_until, now)) {
		uint8_t *f = e->io.tx_frame(e->io.ctx, h, RTE_MAX(h->echo_len, (uint16_t)60));
		if (f == NULL)
			return false;
		memset(f, 0, RTE_MAX(h->echo_len, (uint16_t)60));
		memcpy(f, h->echo, h->echo_len);
		link_take(e, h, RTE_MAX(h->echo_len, (uint16_t)60), now);
		h->ctr[LSW_HC_icmp_echo_replies_sent]++;
		h->echo_len = 0;
		return true;
	}
	if (h->arp_reply_due && due(h->port_paused_until, now)) {
		if (!send_arp(e, h, true, now))
			return false;
		h->arp_reply_due = false;
		return true;
	}
	/* At start every host asks for its gateway, also when its MAC is static: the switch
	 * learns the host from the request (as from a Linux host's) before traffic comes. */
	if ((!h->gw_resolved || !h->arp_announced) && due(h->arp_next, now) &&
	    due(h->port_paused_until, now)) {
		if (!send_arp(e, h, false, now))
			return false;
		h->arp_announced = true;
		h->arp_next = now + ARP_RETRY_NS;
		return true;
	}
	if (!h->gw_resolved)
		return false;
	struct lsw_trim_nak tn;
	if (!paused(h, h->c.prio_ack, now) && lsw_host_trim_nak_peek(h, &tn)) {
		if (!send_trim_nak(e, h, &tn, now))
			return false;
		lsw_host_trim_nak_pop(h);
		return true;
	}
	if (h->ack_head != h->ack_tail && !paused(h, h->c.prio_ack, now)) {
		struct lsw_qp *qp = &e->qp[h->ctl_ack[h->ack_head & (h->ctl_cap - 1)]];
		if (!send_ack(e, h, qp, now))
			return false;
		qp->ctl_ack = false;
		h->ack_head++;
		return true;
	}
	if (h->cnp_head != h->cnp_tail && !paused(h, h->c.prio_cnp, now)) {
		struct lsw_qp *qp = &e->qp[h->ctl_cnp[h->cnp_head & (h->ctl_cap - 1)]];
		if (!send_cnp(e, h, qp, now))
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
			return send_data(e, h, qp, now);
	}
	return false;
}

/* When @h next has something to do on its own (not counting frames that may arrive). */
static uint64_t
host_next(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	bool want = false;

	for (int p = 0; p < 8; p++)
		if (h->paused_since[p] != 0)
			next = earlier(next, h->paused_until[p]);
	if (!due(h->port_paused_until, now))
		next = earlier(next, h->port_paused_until);
	/* Frames ready now, unless their priority is paused (its end is counted above). */
	if (h->pfc_xoff_due || h->pfc_xon_due ||
	    ((h->arp_reply_due || h->echo_len) && due(h->port_paused_until, now)) ||
	    (h->gw_resolved && (h->ack_head != h->ack_tail || h->tnak_head != h->tnak_tail) &&
	     !paused(h, h->c.prio_ack, now)) ||
	    (h->gw_resolved && h->cnp_head != h->cnp_tail && !paused(h, h->c.prio_cnp, now)))
		want = true;
	if (h->c.rx_buffer && h->pausing) {
		next = earlier(next, h->pause_refresh);
		/* When the buffer will have drained to XON. */
		uint64_t left = h->rxbuf > h->c.rx_xon ? h->rxbuf - h->c.rx_xon : 0;
		next = earlier(next, now + ns_at(left, (double)h->c.rx_drain_bps) + 1);
	}
	if (h->c.storm_prio >= 0 && h->storm_from != 0) {
		if (storm_on(h, now))
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

static void
sample_qp(struct lsw_hosts *e, struct lsw_qp *qp, uint64_t now)
{
	struct lsw_host *h = &e->host[qp->src];

	if (e->n_samples == e->sample_cap) {
		uint32_t cap = e->sample_cap ? 2 * e->sample_cap : 4096;
		struct lsw_sample *s = realloc(e->sample, cap * sizeof(*s));
		if (s == NULL)
			abort();
		e->sample = s;
		e->sample_cap = cap;
	}
	e->sample[e->n_samples++] = (struct lsw_sample){
		.t_ns = now - e->start_ns, .qp = qp->idx,
		.stall_us = (float)(e->stall_ns + e->ring_full_ns - e->stall_sampled) / 1000,
		.rate_bps = (float)qp_rate(h, qp, now),
		.tx_bps = (float)((qp->st.bytes_sent - qp->st.bytes_sample) * 8 * NSEC_S /
				  (double)e->sample_ns),
		.alpha = h->c.cc == LSW_CC_NONE ? 0.0f : (float)qp->rp.alpha};
	qp->st.bytes_sample = qp->st.bytes_sent;
}

/* The QPs that sent or may send: the active ones, and those that went idle since the last
 * sample (their last interval's bytes). Not every QP: a Poisson run has a hundred thousand. */
static void
take_samples(struct lsw_hosts *e, uint64_t now)
{
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		const struct lsw_host *h = &e->host[i];
		for (uint32_t k = 0; h->local && k < h->n_active; k++)
			sample_qp(e, &e->qp[h->active[k]], now);
	}
	for (uint32_t k = 0; k < e->n_idle; k++) {
		struct lsw_qp *qp = &e->qp[e->idle[k]];
		if (!qp->active && qp->st.bytes_sent != qp->st.bytes_sample)
			sample_qp(e, qp, now);
	}
	e->n_idle = 0;
	e->stall_sampled = e->stall_ns + e->ring_full_ns;
}

/* A poll later than the last one asked, by more than a stall's threshold. A poll that asked
 * for a time already past (something was due, or waits for the ring) wanted the next at
 * once: late from its own time. */
static void
stall_check(struct lsw_hosts *e, uint64_t now)
{
	uint64_t asked = RTE_MAX(e->want_ns, e->poll_ns);

	e->poll_ns = now;
	if (asked == 0 || now <= asked + LSW_HOST_STALL_NS)
		return;
	uint64_t late = now - asked;
	e->stalls++;
	e->stall_ns += late;
	if (late > e->stall_max_ns)
		e->stall_max_ns = late;
}

/* The workload's clock starts once every host here knows its gateway (and the switch has
 * heard each of them ask), after settle_ns: times in the config count from then. */
static bool
workload_go(struct lsw_hosts *e, uint64_t now)
{
	for (uint16_t i = 0; i < e->n_hosts; i++)
		if (e->host[i].local && (!e->host[i].gw_resolved || !e->host[i].arp_announced))
			return false;
	e->ready = true;
	e->start_ns = now + e->settle_ns;
	for (uint32_t i = 0; i < e->n_posts; i++)
		e->post[i].at += e->start_ns;
	for (uint32_t i = 0; i < e->n_coll; i++)
		e->coll[i].start_at += e->start_ns;
	e->sample_next = e->start_ns;
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		h->storm_from = e->start_ns + h->c.storm_start_ns;
		h->storm_until = h->c.storm_ns ? h->storm_from + h->c.storm_ns : 0;
		h->storm_next = h->storm_from;
	}
	return true;
}

uint64_t
lsw_hosts_poll(struct lsw_hosts *e, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	e->now = now;
	stall_check(e, now);
	if (!e->ready && !workload_go(e, now)) {
		/* Only ARP until then: the hosts' own traffic waits. */
		for (uint16_t i = 0; i < e->n_hosts; i++) {
			struct lsw_host *h = &e->host[i];
			if (!h->local)
				continue;
			if (e->io.tx_room(e->io.ctx, h) > 0 && due(h->link_next, now))
				tx_one(e, h, now);
			next = earlier(next, host_next(e, h, now));
		}
		e->want_ns = next == UINT64_MAX ? 0 : next;
		return next;
	}
	while (e->post_next < e->n_posts && due(e->post[e->post_next].at, now)) {
		const struct lsw_post *p = &e->post[e->post_next++];
		post_msg(e, &e->qp[p->qp], p->size, p->coll_step, now);
	}
	for (uint32_t i = 0; i < e->n_coll; i++) {
		struct lsw_coll *c = &e->coll[i];
		if (c->running || c->iter >= c->iterations)
			continue;
		if (due(c->start_at, now)) {
			c->running = true;
			/* An iteration's JCT counts its compute phase (bench §10.1). */
			c->start_ns = now - c->compute_ns;
			coll_step_start(e, c, now);
		} else {
			next = earlier(next, c->start_at);
		}
	}
	if (e->sample_ns && due(e->sample_next, now) && !lsw_hosts_done(e)) {
		take_samples(e, now);
		while (due(e->sample_next, now))
			e->sample_next += e->sample_ns;
	}
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		if (!h->local)
			continue;
		pause_expire(h, now);
		if (h->c.rx_buffer)
			rxbuf_drain(h, now);
		qp_timers(e, h, now);
		for (uint32_t room = e->io.tx_room(e->io.ctx, h); room > 0; room--) {
			if (!due(h->link_next, now) || !tx_one(e, h, now))
				break;
		}
		next = earlier(next, host_next(e, h, now));
	}
	if (e->post_next < e->n_posts)
		next = earlier(next, e->post[e->post_next].at);
	if (e->sample_ns && !lsw_hosts_done(e))
		next = earlier(next, e->sample_next);
	e->want_ns = next == UINT64_MAX ? 0 : next;
	return next;
}

bool
lsw_hosts_done(const struct lsw_hosts *e)
{
	if (!e->ready)
		return false;
	for (uint32_t i = 0; i < e->n_coll; i++) {
		const struct lsw_coll *c = &e->coll[i];
		bool failed = false;
		for (uint32_t k = 0; k < c->n; k++)
			failed |= e->qp[c->qps[k]].error; /* its barrier never comes */
		if (c->iter < c->iterations && !failed)
			return false;
	}
	return e->post_next == e->n_posts && e->msgs_done + e->msgs_failed >= e->msgs_posted;
}

/* ---- building a run ---------------------------------------------------------------- */

int
lsw_hosts_add_qp(struct lsw_hosts *e, uint16_t src, uint16_t dst, enum lsw_op_kind op)
{
	if (e->n_qps == e->qp_cap) {
		uint32_t cap = e->qp_cap ? 2 * e->qp_cap : 64;
		struct lsw_qp *q = realloc(e->qp, cap * sizeof(*q));
		if (q == NULL)
			return -1;
		e->qp = q;
		e->qp_cap = cap;
	}
	struct lsw_qp *qp = &e->qp[e->n_qps];
	memset(qp, 0, sizeof(*qp));
	qp->idx = e->n_qps++;
	qp->qpn = LSW_QPN_BASE + qp->idx;
	qp->src = src;
	qp->dst = dst;
	qp->op = op;
	qp->mtu = RTE_MIN(e->host[src].c.mtu, e->host[dst].c.mtu);
	/* Per-QP UDP source port, as NICs derive it, for ECMP entropy (49152..65535). */
	qp->sport = (uint16_t)(49152 + ((qp->qpn * 2654435761u) >> 18) % 16384);
	return (int)qp->idx;
}

int
lsw_hosts_add_post(struct lsw_hosts *e, uint64_t at, uint32_t qp, uint32_t size, int32_t step)
{
	if (e->n_posts == e->post_cap) {
		uint32_t cap = e->post_cap ? 2 * e->post_cap : 64;
		struct lsw_post *p = realloc(e->post, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		e->post = p;
		e->post_cap = cap;
	}
	e->post[e->n_posts++] = (struct lsw_post){.at = at, .qp = qp, .size = size,
						  .coll_step = step};
	return 0;
}

static int
post_cmp(const void *a, const void *b)
{
	const struct lsw_post *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->qp < y->qp ? -1 : x->qp > y->qp;
}

void
lsw_hosts_sort_posts(struct lsw_hosts *e)
{
	if (e->n_posts > 1) /* e->post is NULL with none: qsort's argument is nonnull */
		qsort(e->post, e->n_posts, sizeof(*e->post), post_cmp);
}

static uint32_t
pow2_at_least(uint32_t n)
{
	uint32_t p = 16;

	while (p < n)
		p *= 2;
	return p;
}

void
lsw_hosts_start(struct lsw_hosts *e, uint64_t now)
{
	uint32_t touch[LSW_HOST_MAX] = {0};

	for (uint32_t i = 0; i < e->n_qps; i++) {
		touch[e->qp[i].src]++;
		touch[e->qp[i].dst]++;
	}
	e->start_ns = e->now = now;
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		struct lsw_host *h = &e->host[i];
		h->idx = i;
		h->ctl_cap = pow2_at_least(touch[i]);
		h->ctl_ack = calloc(h->ctl_cap, sizeof(uint32_t));
		h->ctl_cnp = calloc(h->ctl_cap, sizeof(uint32_t));
		h->trim_nak = h->c.trim_aware ? calloc(LSW_TRIM_NAK_RING, sizeof(*h->trim_nak)) :
			      NULL;
		if (h->ctl_ack == NULL || h->ctl_cnp == NULL ||
		    (h->c.trim_aware && h->trim_nak == NULL))
			abort();
		h->link_next = now;
		h->rxbuf_at = now;
		h->arp_next = now;
		h->storm_from = 0; /* set when the workload starts */
		if (h->c.gw_mac_static) {
			h->gw_mac = h->c.gw_mac;
			h->gw_resolved = true;
		}
	}
	for (uint32_t i = 0; i < e->n_qps; i++) {
		struct lsw_qp *qp = &e->qp[i];
		struct lsw_host *h = &e->host[qp->src];
		lsw_dcqcn_rp_init(&qp->rp, &h->c.dcqcn, h->c.speed_bps, now);
		qp->next_tx = now;
	}
}

void
lsw_hosts_free(struct lsw_hosts *e)
{
	for (uint16_t i = 0; i < e->n_hosts; i++) {
		free(e->host[i].ctl_ack);
		free(e->host[i].ctl_cnp);
		free(e->host[i].trim_nak);
		free(e->host[i].active);
	}
	for (uint32_t i = 0; i < e->n_qps; i++) {
		free(e->qp[i].msg);
		lsw_host_trim_free(&e->qp[i]);
	}
	for (uint32_t i = 0; i < e->n_coll; i++) {
		free(e->coll[i].qps);
		free(e->coll[i].jct_ns);
	}
	free(e->qp);
	free(e->post);
	free(e->coll);
	free(e->fct);
	free(e->sample);
	free(e->idle);
	memset(e, 0, sizeof(*e));
}
