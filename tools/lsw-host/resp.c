/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder (lsw-host's engine, engine.h): a data packet taken in PSN order, or
 * counted as out of sequence (one NAK per expected PSN) or duplicate; ACKs and CNPs queued
 * on the host's control rings, which xmit.c sends. Trims and what is kept past their holes
 * are trim.c's.
 */
#include "lsw/parse.h"
#include "engine.h"

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

void
lsw_host_resp_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		   const struct lsw_roce_rx *r, uint64_t now)
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
