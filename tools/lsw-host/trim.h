/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hosts that use packet trimming (dataplane/TRIMMING.md, tools/lsw-host/README.md): a
 * sender that marks its data trimmable (a DSCP the switch's trimming queue carries), and a
 * trim-aware receiver that knows a trimmed packet by its DSCP before the ICRC check (the
 * ICRC of a cut RoCE packet cannot verify), counts it, and NACKs that PSN at once with
 * Ultra Ethernet's NACK code; the sender then resends that PSN alone (selective repeat),
 * while go-back-N stays for real losses. The receiver keeps packets that arrive past a
 * trimmed hole, so that the one resent packet fills it. A packet resent alone may carry a
 * DSCP of its own (UET's DSCP_RTX), so that the switch carries it apart from the standing
 * data queue where it was trimmed. A stock receiver drops a trim as a bad ICRC.
 */
#ifndef LSW_HOST_TRIM_H
#define LSW_HOST_TRIM_H

#include <stdbool.h>
#include <stdint.h>

struct lsw_hosts;
struct lsw_host;
struct lsw_qp;
struct lsw_roce_rx;

/* UET's NACK codes for trims (uet-ref-prov uet_pkt_hdr.h: UET_NACK_TRIMMED 0x01,
 * UET_NACK_TRIMMED_LAST_HOP 0x02). */
#define LSW_UET_NACK_TRIMMED          0x01
#define LSW_UET_NACK_TRIMMED_LAST_HOP 0x02
/* RoCE has no such NAK: lsw-host carries them as AETH NAK codes 0x11 and 0x12, in the range
 * the InfiniBand spec reserves (0x05-0x1f), so that a stock requester never mistakes one
 * for a sequence error. */
#define LSW_AETH_NAK_TRIM(code)       (0x70 | (code))
#define LSW_AETH_IS_NAK_TRIM(s)       ((s) == LSW_AETH_NAK_TRIM(LSW_UET_NACK_TRIMMED) || \
				       (s) == LSW_AETH_NAK_TRIM(LSW_UET_NACK_TRIMMED_LAST_HOP))

/* How far past the expected PSN a receiver keeps packets behind trimmed holes, and how far
 * past the oldest unacknowledged one a sender remembers PSNs to resend: a message of 4 MB
 * at a 4 KB MTU. Bit (PSN % window) of a ring of words, so that nothing shifts as the
 * window moves. */
#define LSW_TRIM_WINDOW 1024
/* Trim NACKs a host holds before it sends them (each a QP, a PSN and a code). */
#define LSW_TRIM_NAK_RING 1024

struct lsw_trim_nak {
	uint32_t qp;
	uint32_t psn;
	uint8_t code;
};

/* A QP's trim state, made on its first trim (most QPs of a large run never see one). */
struct lsw_trim_qp {
	/* Requester: PSNs to resend alone, within [snd_una, snd_una + window). */
	uint64_t rtx[LSW_TRIM_WINDOW / 64];
	uint32_t n_rtx;
	/* Responder, within [ePSN, ePSN + window): trimmed holes; packets kept past them,
	 * those ending a message, those asking for an ACK. Every PSN in [ePSN, frontier) is a
	 * hole or kept: a packet may be kept at the frontier or in a hole, no further. */
	uint64_t hole[LSW_TRIM_WINDOW / 64], kept[LSW_TRIM_WINDOW / 64];
	uint64_t last[LSW_TRIM_WINDOW / 64], ackreq[LSW_TRIM_WINDOW / 64];
	uint64_t frontier;
};

/* The UET NACK code of a packet of DSCP @dscp to a trim-aware host, 0 when it is no trim
 * DSCP (or the host is a stock one). */
uint8_t lsw_host_trim_code(const struct lsw_host *h, uint8_t dscp);
/* Responder: a trim of data packet @psn (24 bits) for @qp: counted, its PSN remembered as
 * a hole, and a NACK of UET code @code queued for it. */
void lsw_host_trim_rx(struct lsw_host *h, struct lsw_qp *qp, uint32_t psn, uint8_t code);
/* Responder: @r arrived @d > 0 PSNs ahead of ePSN. True when it was kept (every PSN before
 * it arrived or is a trimmed hole): counted as accepted, delivered when the holes fill. */
bool lsw_host_trim_keep(struct lsw_host *h, struct lsw_qp *qp, const struct lsw_roce_rx *r,
			int32_t d, uint64_t now);
/* Responder: ePSN just moved past one packet; kept packets that now follow it in order are
 * delivered (ePSN moves over them). Returns how many of them ended a message; *@ack says
 * whether one asked for an ACK. Call only when qp->trim is set. */
uint32_t lsw_host_trim_advance(struct lsw_qp *qp, bool *ack);
/* Requester: a trim NACK for @psn (in the QP's 64-bit space) with AETH syndrome @syn. */
void lsw_host_trim_nak(struct lsw_host *h, struct lsw_qp *qp, uint64_t psn, uint8_t syn);
/* Requester: whether a PSN waits to be resent alone, and the first of them, taken off. */
static inline bool
lsw_host_trim_rtx_pending(const struct lsw_trim_qp *t)
{
	return t != NULL && t->n_rtx != 0;
}
uint64_t lsw_host_trim_rtx_take(struct lsw_qp *qp);
/* Requester: snd_una moves to @una; a rewind (go-back-N) to @psn resends what follows. */
void lsw_host_trim_acked(struct lsw_qp *qp, uint64_t una);
void lsw_host_trim_rewound(struct lsw_qp *qp, uint64_t psn);
/* The next trim NACK of @h into *@n (false: none). */
bool lsw_host_trim_nak_peek(const struct lsw_host *h, struct lsw_trim_nak *n);
void lsw_host_trim_nak_pop(struct lsw_host *h);
void lsw_host_trim_free(struct lsw_qp *qp);

#endif
