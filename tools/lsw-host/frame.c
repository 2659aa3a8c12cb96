/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames a host builds (lsw-host's engine, engine.h), data aside (req.c): PFC, ARP,
 * ACK/NAK, CNP and trim NACKs, each into a buffer of the frame source (lsw_host_io); and
 * the link's time each frame takes.
 */
#include <string.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include "lsw/parse.h"
#include "lsw/pfc.h"
#include "engine.h"

static inline uint8_t
tos_of(uint8_t dscp)
{
	return (uint8_t)(dscp << 2 | LSW_ECN_ECT0); /* RoCE NICs send every packet ECT(0) */
}

/* Where @h's frames to @dip go: the gateway's MAC (or the static one). */
void
lsw_host_l2l3(const struct lsw_host *h, uint32_t dip, uint8_t dscp, uint8_t prio,
	      uint16_t sport, struct lsw_roce_l2l3 *l)
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
void
lsw_host_link_take(struct lsw_hosts *e, struct lsw_host *h, uint16_t len, uint64_t now)
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

bool
lsw_host_send_pfc(struct lsw_hosts *e, struct lsw_host *h, uint8_t prio, uint16_t quanta,
		  uint64_t now)
{
	uint8_t *f = e->io.tx_frame(e->io.ctx, h, LSW_PFC_FRAME_LEN);
	uint16_t time[8] = {0};

	if (f == NULL) {
		h->ctr[LSW_HC_tx_no_buffer]++;
		return false;
	}
	time[prio] = quanta;
	lsw_pfc_encode(f, &h->c.mac, (uint8_t)(1u << prio), time);
	lsw_host_link_take(e, h, LSW_PFC_FRAME_LEN, now);
	h->ps.tx_pause[prio]++;
	return true;
}

bool
lsw_host_send_arp(struct lsw_hosts *e, struct lsw_host *h, bool reply, uint64_t now)
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
	lsw_host_link_take(e, h, 60, now);
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
	lsw_host_l2l3(h, peer->c.ip, h->c.dscp_ack, h->c.prio_ack, qp->sport, &l);
	lsw_roce_build(f, &l, &b, &x, 0);
	lsw_host_link_take(e, h, len, now);
	if (LSW_AETH_IS_NAK(syndrome)) {
		qp->st.naks_sent++;
		if (h->first_nak_ns == 0)
			h->first_nak_ns = now;
	}
	return true;
}

/* The responder's ACK or NAK of @qp, as it stands now (the latest replaces the earlier). */
bool
lsw_host_send_ack(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
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

bool
lsw_host_send_cnp(struct lsw_hosts *e, struct lsw_host *h, struct lsw_qp *qp, uint64_t now)
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
	lsw_host_l2l3(h, peer->c.ip, h->c.dscp_cnp, h->c.prio_cnp, 0, &l);
	lsw_roce_build(f, &l, &b, &x, 0);
	lsw_host_link_take(e, h, len, now);
	h->ctr[LSW_HC_np_cnp_sent]++;
	qp->st.cnps_sent++;
	return true;
}

/* A trim NACK (trim.h): an AETH NAK of UET's code for the trimmed PSN, sent at once. */
bool
lsw_host_send_trim_nak(struct lsw_hosts *e, struct lsw_host *h, const struct lsw_trim_nak *n,
		       uint64_t now)
{
	if (!send_aeth(e, h, &e->qp[n->qp], (uint8_t)LSW_AETH_NAK_TRIM(n->code), n->psn, now))
		return false;
	h->ctr[n->code == LSW_UET_NACK_TRIMMED_LAST_HOP ? LSW_HC_resp_nack_trimmed_last_hop_sent :
						     LSW_HC_resp_nack_trimmed_sent]++;
	return true;
}
