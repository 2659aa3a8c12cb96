/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trim-aware hosts (trim.h). Ultra Ethernet's PDS NACKs a trimmed packet (UEC 1.0
 * §3.5.8.2, NACK codes TRIMMED and TRIMMED_LAST_HOP) and its sender resends that packet;
 * here the same on RoCE RC: the NACK is an AETH NAK with a reserved code naming the PSN,
 * the requester resends that PSN alone, and the responder keeps what arrived past the
 * hole. Every other loss is still recovered by go-back-N (a sequence-error NAK, or the
 * timeout), as a RoCE NIC does.
 */
#include <stdlib.h>
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

#define W LSW_TRIM_WINDOW

static inline bool
bit(const uint64_t *m, uint64_t psn)
{
	return m[psn % W / 64] >> (psn % 64) & 1;
}

static inline void
set_bit(uint64_t *m, uint64_t psn, bool on)
{
	if (on)
		m[psn % W / 64] |= 1ull << (psn % 64);
	else
		m[psn % W / 64] &= ~(1ull << (psn % 64));
}

/* The QP's trim state, made now if it has none (a responder's from its ePSN). */
static struct lsw_trim_qp *
state(struct lsw_qp *qp)
{
	if (qp->trim == NULL) {
		qp->trim = calloc(1, sizeof(*qp->trim));
		if (qp->trim == NULL)
			abort(); /* a few hundred bytes: the run cannot go on without them */
		qp->trim->frontier = qp->epsn;
	}
	return qp->trim;
}

void
lsw_host_trim_free(struct lsw_qp *qp)
{
	free(qp->trim);
	qp->trim = NULL;
}

/* Responder: the frontier past every hole and kept packet that follow it. */
static void
extend(struct lsw_trim_qp *t, uint64_t epsn)
{
	if (t->frontier < epsn)
		t->frontier = epsn;
	while (t->frontier - epsn < W && (bit(t->hole, t->frontier) || bit(t->kept, t->frontier)))
		t->frontier++;
}

void
lsw_host_trim_rx(struct lsw_host *h, struct lsw_qp *qp, uint32_t psn, uint8_t code)
{
	int32_t d = lsw_psn_diff(psn, (uint32_t)qp->epsn);
	const uint64_t p = qp->epsn + (uint64_t)(int64_t)d;

	h->ctr[code == LSW_UET_NACK_TRIMMED_LAST_HOP ? LSW_HC_rx_trimmed_last_hop_packets :
						       LSW_HC_rx_trimmed_packets]++;
	/* A trim of what already arrived (a resent copy cut again) asks for nothing; one too
	 * far ahead to remember is left to go-back-N (its gap shows). */
	if (d < 0 || d >= W || (qp->trim != NULL && bit(qp->trim->kept, p))) {
		h->ctr[LSW_HC_rx_trimmed_stale]++;
		return;
	}
	struct lsw_trim_qp *t = state(qp);
	set_bit(t->hole, p, true);
	extend(t, qp->epsn);
	nak_push(h, qp->idx, psn, code);
}

bool
lsw_host_trim_keep(struct lsw_host *h, struct lsw_qp *qp, const struct lsw_roce_rx *r,
		   int32_t d, uint64_t now)
{
	struct lsw_trim_qp *t = qp->trim;
	const uint64_t p = qp->epsn + (uint64_t)d;

	/* Past the frontier (a gap that is no trim: a real loss, left to go-back-N), or too
	 * far ahead: not kept. A packet resent for a trim fills its hole wherever it is: it
	 * may come ahead of data sent before it (the trim and the resend pass the standing
	 * data queue), and the gaps before it are still found by what follows. */
	if (t == NULL || d >= W || (p > t->frontier && !bit(t->hole, p)))
		return false;
	if (bit(t->kept, p)) { /* kept already: a duplicate */
		h->ctr[LSW_HC_duplicate_request]++;
		qp->st.duplicates++;
		return true;
	}
	set_bit(t->kept, p, true);
	set_bit(t->hole, p, false); /* a hole this resent packet fills */
	set_bit(t->last, p, r->bth.opcode == LSW_OP_WRITE_LAST ||
		r->bth.opcode == LSW_OP_WRITE_ONLY || r->bth.opcode == LSW_OP_SEND_LAST ||
		r->bth.opcode == LSW_OP_SEND_ONLY);
	set_bit(t->ackreq, p, r->bth.ackreq);
	extend(t, qp->epsn);
	h->ctr[LSW_HC_resp_ooo_kept]++;
	h->ctr[r->bth.opcode >= LSW_OP_WRITE_FIRST ? LSW_HC_rx_write_requests :
						     LSW_HC_rx_send_requests]++;
	qp->st.rx_packets++;
	qp->st.rx_bytes += r->payload;
	h->rx_last = now;
	return true;
}

uint32_t
lsw_host_trim_advance(struct lsw_qp *qp, bool *ack)
{
	struct lsw_trim_qp *t = qp->trim;
	uint32_t ends = 0;

	*ack = false;
	set_bit(t->hole, qp->epsn - 1, false); /* the packet just taken filled its PSN */
	while (bit(t->kept, qp->epsn)) {
		ends += bit(t->last, qp->epsn);
		*ack |= bit(t->ackreq, qp->epsn) || bit(t->last, qp->epsn);
		set_bit(t->kept, qp->epsn, false);
		qp->epsn++;
	}
	extend(t, qp->epsn);
	return ends;
}

void
lsw_host_trim_nak(struct lsw_host *h, struct lsw_qp *qp, uint64_t psn, uint8_t syn)
{
	h->ctr[syn == LSW_AETH_NAK_TRIM(LSW_UET_NACK_TRIMMED_LAST_HOP) ?
	       LSW_HC_req_nack_trimmed_last_hop : LSW_HC_req_nack_trimmed]++;
	/* Acknowledged since, or never sent: stale. Further than the window: left to
	 * go-back-N (the responder finds the gap). */
	if (psn < qp->snd_una || psn >= qp->snd_max || psn - qp->snd_una >= W)
		return;
	struct lsw_trim_qp *t = state(qp);
	if (!bit(t->rtx, psn)) {
		set_bit(t->rtx, psn, true);
		t->n_rtx++;
	}
}

/* Requester: the PSNs to resend alone from @from on (within the window), each cleared. */
static void
rtx_clear_from(struct lsw_trim_qp *t, uint64_t una, uint64_t from)
{
	for (uint64_t p = from; p < una + W && t->n_rtx != 0; p++)
		if (bit(t->rtx, p)) {
			set_bit(t->rtx, p, false);
			t->n_rtx--;
		}
}

uint64_t
lsw_host_trim_rtx_take(struct lsw_qp *qp)
{
	struct lsw_trim_qp *t = qp->trim;
	uint64_t p = qp->snd_una;

	/* The first set bit from snd_una on, a word at a time. */
	for (uint32_t k = 0; k <= W / 64; k++) {
		uint64_t word = t->rtx[p % W / 64] >> (p % 64);
		if (word != 0) {
			p += (uint64_t)__builtin_ctzll(word);
			break;
		}
		p += 64 - p % 64;
	}
	set_bit(t->rtx, p, false);
	t->n_rtx--;
	return p;
}

void
lsw_host_trim_acked(struct lsw_qp *qp, uint64_t una)
{
	struct lsw_trim_qp *t = qp->trim;

	/* What is acknowledged needs no resending. */
	if (t == NULL || t->n_rtx == 0 || una <= qp->snd_una)
		return;
	for (uint64_t p = qp->snd_una; p < una && t->n_rtx != 0; p++)
		if (bit(t->rtx, p)) {
			set_bit(t->rtx, p, false);
			t->n_rtx--;
		}
}

void
lsw_host_trim_rewound(struct lsw_qp *qp, uint64_t psn)
{
	/* Go-back-N sends every PSN from @psn on again: none of them alone besides. */
	if (qp->trim != NULL && qp->trim->n_rtx != 0)
		rtx_clear_from(qp->trim, qp->snd_una, psn < qp->snd_una ? qp->snd_una : psn);
}
