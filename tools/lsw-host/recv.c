/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive (lsw-host's engine, engine.h): a frame parsed and handed to its room: PFC to
 * pause.c, ARP and ICMP echo here, ACK/NAK to comp.c, CNP to req.c, data to resp.c (through
 * a slow receiver's buffer), trims to trim.c. What is not for this host is counted.
 */
#include <string.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include "lsw/parse.h"
#include "engine.h"

static struct lsw_qp *
qp_by_qpn(struct lsw_hosts *e, uint32_t qpn)
{
	if (qpn < LSW_QPN_BASE || qpn - LSW_QPN_BASE >= e->n_qps)
		return NULL;
	return &e->qp[qpn - LSW_QPN_BASE];
}

static bool
is_data(uint8_t op)
{
	return op <= LSW_OP_SEND_ONLY || (op >= LSW_OP_WRITE_FIRST && op <= LSW_OP_WRITE_ONLY);
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
		lsw_host_pfc_rx(h, f + pi.l3_off, (uint32_t)(len - pi.l3_off), now);
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
			lsw_host_req_ack(e, h, qp, &r, now);
		else
			lsw_host_req_cnp(e, h, qp, now);
		return;
	}
	if (!is_data(r.bth.opcode) || qp == NULL || qp->dst != h->idx) {
		h->ctr[LSW_HC_rx_unknown_qp]++;
		return;
	}
	/* A slow receiver's buffer: what does not fit is lost (and NAKed later). */
	if (h->c.rx_buffer) {
		lsw_host_rxbuf_drain(h, now);
		if (h->rxbuf + len > h->c.rx_buffer) {
			h->ctr[LSW_HC_out_of_buffer]++;
			return;
		}
		h->rxbuf += len;
		lsw_host_rxbuf_drain(h, now);
	}
	lsw_host_resp_data(e, h, qp, &r, now);
}
