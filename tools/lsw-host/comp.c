/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion (lsw-host's engine, engine.h): what the requester hears back. An ACK moves
 * the QP's oldest unacknowledged PSN and completes the messages it covers (their FCT
 * recorded against the ideal), a sequence-error NAK goes back to its PSN (go-back-N), a
 * timeout to the oldest, retry_cnt of them end the QP; a collective's step ends when its
 * messages complete.
 */
#include <stdlib.h>
#include <rte_common.h>
#include "engine.h"

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

void
lsw_host_req_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		 const struct lsw_roce_rx *r, uint64_t now)
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
qp_fail(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp)
{
	qp->error = true;
	h->ctr[LSW_HC_req_transport_retries_exceeded]++;
	e->msgs_failed += qp->msg_tail - qp->msg_head;
	qp->msg_head = qp->msg_tail;
	lsw_host_qp_deactivate(e, qp);
}

/* Timeouts and retirement of @h's QPs. */
void
lsw_host_qp_timers(struct lsw_hosts *e, struct lsw_host *h, uint64_t now)
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
			/* All acknowledged: idle until the next post. */
			lsw_host_qp_deactivate(e, qp);
			continue;
		}
		i++;
	}
}

/* ---- collectives ---------------------------------------------------------------------- */

void
lsw_host_coll_step_start(struct lsw_hosts *e, struct lsw_coll *c, uint64_t now)
{
	c->done_in_step = 0;
	for (uint32_t i = 0; i < c->n; i++)
		lsw_host_post_msg(e, &e->qp[c->qps[i]], c->chunk, (int32_t)(c - e->coll), now);
}

static void
coll_msg_done(struct lsw_hosts *e, int32_t id, uint64_t now)
{
	struct lsw_coll *c = &e->coll[id];

	if (++c->done_in_step < c->n)
		return;
	/* The barrier: every host's chunk of this step has arrived. */
	if (++c->step < c->steps) {
		lsw_host_coll_step_start(e, c, now);
		return;
	}
	c->jct_ns[c->iter++] = now - c->start_ns;
	c->running = false;
	c->step = 0;
	/* The next iteration computes first (nothing on the wire), then its steps start. */
	c->start_at = now + c->compute_ns;
}
