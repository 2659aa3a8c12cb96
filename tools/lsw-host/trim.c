/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trim-aware hosts (trim.h). Ultra Ethernet's PDS NACKs a trimmed packet (UEC 1.0
 * §3.5.8.2, NACK codes TRIMMED and TRIMMED_LAST_HOP) and its sender resends that packet;
 * here the same on RoCE RC: the NACK is an AETH NAK with a reserved code naming the PSN,
 * the requester resends that PSN alone, and the responder keeps what arrived past the
 * hole. Every other loss is still recovered by go-back-N (a sequence-error NAK, or the
 * timeout), as a RoCE NIC does.
 */
#include "host.h"

uint8_t
lsw_host_trim_code(const struct lsw_host *h, uint8_t dscp)
{
	if (!h->c.trim_aware)
		return 0;
	if (h->c.dscp_trimmed_last_hop >> dscp & 1)
		return LSW_UET_NACK_TRIMMED_LAST_HOP;
	return h->c.dscp_trimmed >> dscp & 1 ? LSW_UET_NACK_TRIMMED : 0;
}

static void
nak_push(struct lsw_host *h, uint32_t qp, uint32_t psn, uint8_t code)
{
	if (h->tnak_tail - h->tnak_head >= LSW_TRIM_NAK_RING) {
		h->ctr[LSW_HC_ctl_ring_full]++; /* the loss is then found as any other */
		return;
	}
	h->trim_nak[h->tnak_tail++ % LSW_TRIM_NAK_RING] =
		(struct lsw_trim_nak){.qp = qp, .psn = psn, .code = code};
}

bool
lsw_host_trim_nak_peek(const struct lsw_host *h, struct lsw_trim_nak *n)
{
	if (h->tnak_head == h->tnak_tail)
		return false;
	*n = h->trim_nak[h->tnak_head % LSW_TRIM_NAK_RING];
	return true;
}

void
lsw_host_trim_nak_pop(struct lsw_host *h)
{
	h->tnak_head++;
}

void
lsw_host_trim_rx(struct lsw_host *h, struct lsw_qp *qp, uint32_t psn, uint8_t code)
{
	int32_t d = lsw_psn_diff(psn, (uint32_t)qp->epsn);

	h->ctr[code == LSW_UET_NACK_TRIMMED_LAST_HOP ? LSW_HC_rx_trimmed_last_hop_packets :
						       LSW_HC_rx_trimmed_packets]++;
	/* A trim of what already arrived (a resent copy cut again) asks for nothing. */
	if (d < 0 || (d < LSW_TRIM_WINDOW && (qp->ooo_kept >> d & 1)))
		return;
	if (d < LSW_TRIM_WINDOW)
		qp->trim_holes |= 1ull << d;
	nak_push(h, qp->idx, psn, code);
}

bool
lsw_host_trim_keep(struct lsw_host *h, struct lsw_qp *qp, const struct lsw_roce_rx *r,
		   int32_t d, uint64_t now)
{
	if (!h->c.trim_aware || d >= LSW_TRIM_WINDOW)
		return false;
	const uint64_t bit = 1ull << d;
	/* Every PSN from ePSN up to this one arrived or is a trimmed hole: a gap that is not a
	 * trim is a real loss, left to go-back-N. */
	if (((qp->trim_holes | qp->ooo_kept) & (bit - 1)) != bit - 1)
		return false;
	if (qp->ooo_kept & bit) { /* kept already: a duplicate */
		h->ctr[LSW_HC_duplicate_request]++;
		qp->st.duplicates++;
		return true;
	}
	qp->ooo_kept |= bit;
	qp->trim_holes &= ~bit; /* a hole this resent packet fills */
	if (r->bth.opcode == LSW_OP_WRITE_LAST || r->bth.opcode == LSW_OP_WRITE_ONLY ||
	    r->bth.opcode == LSW_OP_SEND_LAST || r->bth.opcode == LSW_OP_SEND_ONLY)
		qp->ooo_last |= bit;
	if (r->bth.ackreq)
		qp->ooo_ackreq |= bit;
	h->ctr[LSW_HC_resp_ooo_kept]++;
	h->ctr[r->bth.opcode >= LSW_OP_WRITE_FIRST ? LSW_HC_rx_write_requests :
						     LSW_HC_rx_send_requests]++;
	qp->st.rx_packets++;
	qp->st.rx_bytes += r->payload;
	h->rx_last = now;
	return true;
}

/* ePSN moved by one: every window moves with it. */
static void
shift_one(struct lsw_qp *qp)
{
	qp->trim_holes >>= 1;
	qp->ooo_kept >>= 1;
	qp->ooo_last >>= 1;
	qp->ooo_ackreq >>= 1;
}

uint32_t
lsw_host_trim_advance(struct lsw_qp *qp, bool *ack)
{
	uint32_t ends = 0;

	*ack = false;
	shift_one(qp);
	while (qp->ooo_kept & 1) {
		ends += qp->ooo_last & 1;
		*ack |= (qp->ooo_ackreq | qp->ooo_last) & 1;
		qp->epsn++;
		shift_one(qp);
	}
	return ends;
}

void
lsw_host_trim_nak(struct lsw_host *h, struct lsw_qp *qp, uint64_t psn, uint8_t syn)
{
	h->ctr[syn == LSW_AETH_NAK_TRIM(LSW_UET_NACK_TRIMMED_LAST_HOP) ?
	       LSW_HC_req_nack_trimmed_last_hop : LSW_HC_req_nack_trimmed]++;
	if (psn < qp->snd_una || psn >= qp->snd_max)
		return; /* acknowledged since, or never sent: stale */
	/* Further than the window: left to go-back-N (the responder finds the gap). */
	if (psn - qp->snd_una < LSW_TRIM_WINDOW)
		qp->rtx_mask |= 1ull << (psn - qp->snd_una);
}

uint64_t
lsw_host_trim_rtx_take(struct lsw_qp *qp)
{
	unsigned int i = (unsigned int)__builtin_ctzll(qp->rtx_mask);

	qp->rtx_mask &= qp->rtx_mask - 1;
	return qp->snd_una + i;
}

void
lsw_host_trim_acked(struct lsw_qp *qp, uint64_t una)
{
	uint64_t moved = una - qp->snd_una;

	qp->rtx_mask = una < qp->snd_una ? qp->rtx_mask :
		       moved >= LSW_TRIM_WINDOW ? 0 : qp->rtx_mask >> moved;
}

void
lsw_host_trim_rewound(struct lsw_qp *qp, uint64_t psn)
{
	uint64_t keep = psn - qp->snd_una;

	/* Go-back-N sends every PSN from @psn on again: none of them alone besides. */
	if (psn <= qp->snd_una)
		qp->rtx_mask = 0;
	else if (keep < LSW_TRIM_WINDOW)
		qp->rtx_mask &= (1ull << keep) - 1;
}
