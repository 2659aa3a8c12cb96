/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester (lsw-host's engine, engine.h), as a NIC's send queue: messages posted on a
 * QP, its data packets built and paced at the QP's DCQCN rate (a CNP cuts it), and the
 * host's list of active QPs that xmit.c serves in round robin. What comes back (ACK, NAK,
 * timeouts) is comp.c's.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include "engine.h"

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

void
lsw_host_qp_deactivate(struct lsw_hosts *e, struct lsw_qp *qp)
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

/* Post a message of @size bytes on @qp now. */
void
lsw_host_post_msg(struct lsw_hosts *e, struct lsw_qp *qp, uint32_t size, int32_t step, uint64_t now)
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

void
lsw_host_req_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
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

double
lsw_host_qp_rate(struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
{
	if (h->c.cc == LSW_CC_NONE)
		return (double)h->c.speed_bps;
	lsw_dcqcn_rp_advance(&qp->rp, &h->c.dcqcn, h->c.speed_bps, now);
	return qp->rp.rc;
}

/* The next packet of @qp: opcode, payload and AckReq from its place in its message. */
bool
lsw_host_send_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
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
	 * the retransmission DSCP, when the host has them (trim.h); the message's first
	 * unsched_bytes the unscheduled DSCP, as ns3-datacenter's RdmaHw tags its first BDP
	 * (sent bytes <= BDP; a resent one again: it is still of the first BDP). */
	const bool rtx = alone && h->c.dscp_rtx < 64;
	const bool unsched = !rtx && h->c.dscp_unsched < 64 && h->c.unsched_bytes != 0 &&
			     (uint64_t)i * qp->mtu <= h->c.unsched_bytes;
	lsw_host_l2l3(h, e->host[qp->dst].c.ip, rtx ? h->c.dscp_rtx :
	     unsched ? h->c.dscp_unsched :
	     h->c.dscp_trimmable < 64 ? h->c.dscp_trimmable : h->c.dscp_data, h->c.prio_data,
	     qp->sport, &l);
	h->ctr[LSW_HC_req_unsched_packets] += unsched;
	if (!alone && qp->snd_nxt == qp->snd_max && (int64_t)qp->snd_nxt == h->c.ttl_one_psn)
		l.ttl = 1;
	lsw_roce_build(f, &l, &b, &x, pay);
	lsw_host_link_take(e, h, len, now);

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

	double rate = lsw_host_qp_rate(h, qp, now);
	uint64_t from = qp->next_tx;
	if ((int64_t)(now - h->c.tx_burst_ns - from) > 0)
		from = now - h->c.tx_burst_ns;
	qp->next_tx = from + ns_at(lsw_wire_bytes(len), rate);
	if (h->c.cc != LSW_CC_NONE)
		lsw_dcqcn_rp_sent(&qp->rp, &h->c.dcqcn, h->c.speed_bps, lsw_wire_bytes(len));
	return true;
}
