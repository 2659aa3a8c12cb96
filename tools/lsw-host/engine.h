/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host engine's rooms and what they call of each other; the state they share is in
 * host.h (each field says which room writes it). Modelled on Linux's soft RoCE driver
 * (drivers/infiniband/sw/rxe: rxe_req.c, rxe_resp.c, rxe_recv.c, rxe_comp.c, rxe_loc.h):
 *
 *   host.c   the engine's clock: lsw_hosts_poll (timers, posts, transmission), the
 *            workload's start, rate samples, stalls; building a run; start and free
 *   recv.c   receive: a frame parsed and handed to its room (lsw_host_rx)
 *   resp.c   the responder: data in PSN order, ACK/NAK and CNP queued
 *   req.c    the requester: messages posted, data packets built and paced, active QPs
 *   comp.c   completion: ACKs and NAKs heard back, timeouts, messages completed,
 *            collectives' barriers
 *   xmit.c   transmit: which frame goes next, and when a host next has work
 *   frame.c  the frames besides data (PFC, ARP, ACK/NAK, CNP, trim NACK) and the link's time
 *   pause.c  PFC at the link: pauses received, the slow receiver's buffer, the storm
 *   dcqcn.c  DCQCN's reaction and notification points (dcqcn.h), trim.c trimming (trim.h)
 *
 * Frames and time come from the caller; nothing here reads a clock or touches a device.
 * Not for main.c or the tests: they use host.h.
 */
#ifndef LSW_HOST_ENGINE_H
#define LSW_HOST_ENGINE_H

#include "host.h"

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

/* Message @n of @qp (an absolute number, from msg_base on). */
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

/* pause.c */
static inline bool
paused(const struct lsw_host *h, int prio, uint64_t now)
{
	return !due(h->rx_port_until, now) ||
	       (h->rx_since[prio] != 0 && !due(h->rx_until[prio], now));
}
void lsw_host_pause_expire(struct lsw_host *h, uint64_t now);
/* A MAC control frame's body (PAUSE or PFC) received by @h. */
void lsw_host_pfc_rx(struct lsw_host *h, const uint8_t *body, uint32_t len, uint64_t now);
void lsw_host_rxbuf_drain(struct lsw_host *h, uint64_t now);
uint64_t lsw_host_half_pause_ns(const struct lsw_host *h, uint16_t quanta);
bool lsw_host_storm_on(const struct lsw_host *h, uint64_t now);

/* frame.c: each false when the frame source had no room (counted as tx_no_buffer). */
void lsw_host_l2l3(const struct lsw_host *h, uint32_t dip, uint8_t dscp, uint8_t prio,
		   uint16_t sport, struct lsw_roce_l2l3 *l);
void lsw_host_link_take(struct lsw_hosts *e, struct lsw_host *h, uint16_t len, uint64_t now);
bool lsw_host_send_pfc(struct lsw_hosts *e, struct lsw_host *h, uint8_t prio, uint16_t quanta,
		       uint64_t now);
bool lsw_host_send_arp(struct lsw_hosts *e, struct lsw_host *h, bool reply, uint64_t now);
bool lsw_host_send_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		       uint64_t now);
bool lsw_host_send_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		       uint64_t now);
bool lsw_host_send_trim_nak(struct lsw_hosts *e, struct lsw_host *h,
			    const struct lsw_trim_nak *n, uint64_t now);

/* req.c */
void lsw_host_qp_deactivate(struct lsw_hosts *e, struct lsw_qp *qp);
void lsw_host_post_msg(struct lsw_hosts *e, struct lsw_qp *qp, uint32_t size, int32_t step,
		       uint64_t now);
void lsw_host_req_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		      uint64_t now);
double lsw_host_qp_rate(struct lsw_host *h, struct lsw_qp *qp, uint64_t now);
bool lsw_host_send_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
			uint64_t now);

/* comp.c */
void lsw_host_req_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
		      const struct lsw_roce_rx *r, uint64_t now);
void lsw_host_qp_timers(struct lsw_hosts *e, struct lsw_host *h, uint64_t now);
void lsw_host_coll_step_start(struct lsw_hosts *e, struct lsw_coll *c, uint64_t now);

/* resp.c */
void lsw_host_resp_data(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp,
			const struct lsw_roce_rx *r, uint64_t now);

/* xmit.c */
bool lsw_host_tx_one(struct lsw_hosts *e, struct lsw_host *h, uint64_t now);
uint64_t lsw_host_next(struct lsw_hosts *e, struct lsw_host *h, uint64_t now);

#endif
