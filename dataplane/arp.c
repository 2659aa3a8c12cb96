/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP on the worker: answer requests for the port's addresses, pass what ARP teaches to the
 * control plane (which owns the neighbor table), and ask for a next hop's MAC while packets
 * wait for it (nexthop.c).
 */
#include <rte_arp.h>
#include "lsw/dataplane.h"

#define ARP_FRAME_LEN 60 /* minimum Ethernet frame without FCS */

static void
learn(struct lsw_worker *w, uint16_t port, uint32_t ip, const struct rte_ether_addr *mac,
      uint16_t flags)
{
	struct lsw_neigh_msg msg = {
		.ip = ip, .port = port, .flags = flags,
		.mac = lsw_mac_to_u64(mac) | LSW_NH_MAC_VALID,
	};

	/* What the FIB already says needs no message: an ARP flood costs no ring space. */
	if (lsw_fib_neigh_mac(w->dp->fib, ip, port) == msg.mac)
		return;
	if (rte_ring_mp_enqueue_elem(w->dp->neigh_ring, &msg, sizeof(msg)) == 0)
		w->ctr->event[LSW_EV_ARP_LEARN_MSG]++;
	else
		w->ctr->event[LSW_EV_ARP_LEARN_RING_FULL]++;
}

__rte_noinline void
lsw_arp_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	      struct rte_mbuf *m, const struct lsw_pkt_info *pi)
{
	const struct lsw_port_dp *p = &conf->port[in_port];
	struct rte_arp_hdr *arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, pi->l3_off);
	struct rte_arp_ipv4 *a = &arp->arp_data;
	uint16_t op = rte_be_to_cpu_16(arp->arp_opcode);
	uint32_t sip = rte_be_to_cpu_32(a->arp_sip), tip = rte_be_to_cpu_32(a->arp_tip);

	if ((op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) ||
	    !rte_is_unicast_ether_addr(&a->arp_sha)) {
		lsw_count_drop(w, in_port, LSW_DROP_ARP_MALFORMED, m);
		return;
	}
	bool for_us = lsw_port_has_addr(p, tip);
	/* RFC 826: learn from any ARP aimed at us; a gratuitous ARP only refreshes. */
	if (sip != 0 && lsw_port_on_link(p, sip) && !lsw_port_has_addr(p, sip)) {
		if (for_us)
			learn(w, in_port, sip, &a->arp_sha, 0);
		else if (sip == tip)
			learn(w, in_port, sip, &a->arp_sha, LSW_NEIGH_MSG_UPDATE_ONLY);
	}
	if (!for_us) {
		lsw_count_drop(w, in_port, LSW_DROP_ARP_OTHER_TARGET, m);
		return;
	}
	if (op == RTE_ARP_OP_REPLY) {
		w->ctr->event[LSW_EV_ARP_REPLY_RX]++;
		rte_pktmbuf_free(m);
		return;
	}
	w->ctr->event[LSW_EV_ARP_REQUEST_RX]++;

	/* Answer in place. */
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	a->arp_tha = a->arp_sha;
	a->arp_tip = a->arp_sip;
	a->arp_sha = p->mac;
	a->arp_sip = rte_cpu_to_be_32(tip);
	if (pi->flags & LSW_PF_VLAN)
		rte_pktmbuf_adj(m, 4); /* the tag's 4 bytes go; the header is rewritten whole */
	lsw_l2_write(m, lsw_mac_to_u64(&a->arp_tha), &p->mac, LSW_ETHERTYPE_ARP);
	w->ctr->event[LSW_EV_ARP_REPLY_TX]++;
	lsw_tx_ctl(w, conf, in_port, m);
}

void
lsw_arp_request(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		uint32_t ip)
{
	const struct lsw_port_dp *p = &conf->port[port];
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->dp->pool);

	if (m == NULL) {
		w->ctr->event[LSW_EV_MBUF_ALLOC_FAILED]++;
		return;
	}
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, ARP_FRAME_LEN);
	memset(d, 0, ARP_FRAME_LEN);
	struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(d + RTE_ETHER_HDR_LEN);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = p->mac;
	arp->arp_data.arp_sip = rte_cpu_to_be_32(lsw_port_src_addr(p, ip));
	arp->arp_data.arp_tip = rte_cpu_to_be_32(ip);
	lsw_l2_write(m, UINT64_C(0xffffffffffff), &p->mac, LSW_ETHERTYPE_ARP);
	w->ctr->event[LSW_EV_ARP_REQUEST_TX]++;
	lsw_tx_ctl(w, conf, port, m);
}
