/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbor discovery on the worker (RFC 4861), in the shape of ARP's (arp.c): answer
 * solicitations for the port's addresses (global and link-local), pass what solicitations
 * and advertisements teach to the control plane (which owns the neighbor table), solicit a
 * next hop (solicited-node multicast) while packets wait for it (nexthop.c); announce the
 * addresses of ports that have IPv6 addresses with unsolicited advertisements when they
 * appear. ICMPv6 echo to the switch is answered here.
 */
#include <rte_ip.h>
#include "lsw/dataplane.h"

#define ND_NS          135
#define ND_NA          136
#define ND_OPT_SLLA    1
#define ND_OPT_TLLA    2
#define ND_NA_ROUTER   0x80
#define ND_NA_SOLICIT  0x40
#define ND_NA_OVERRIDE 0x20
#define ND_LEN         (RTE_ETHER_HDR_LEN + 40 + 24 + 8) /* NS or NA with one MAC option */

static void
learn6(struct lsw_worker *w, uint16_t port, const uint8_t *ip, const uint8_t *mac,
       uint16_t flags)
{
	struct lsw_neigh_msg msg = {.port = port, .flags = flags | LSW_NEIGH_MSG_V6};
	struct rte_ether_addr ea;

	memcpy(ea.addr_bytes, mac, RTE_ETHER_ADDR_LEN);
	if (!rte_is_valid_assigned_ether_addr(&ea))
		return;
	msg.mac = lsw_mac_to_u64(&ea) | LSW_NH_MAC_VALID;
	memcpy(msg.ip6, ip, 16);
	/* What the FIB already says needs no message (a global address: by its host route). */
	if (!lsw_ip6_is_ll(ip) &&
	    lsw_fib6_neigh_mac(w->dp->fib6, ip, port, LSW_MAX_NH6) == msg.mac)
		return;
	if (rte_ring_mp_enqueue_elem(w->dp->neigh_ring, &msg, sizeof(msg)) == 0)
		w->ctr->event[LSW_EV_NDP_LEARN_MSG]++;
	else
		w->ctr->event[LSW_EV_ARP_LEARN_RING_FULL]++;
}

/* The first option of type @type in the @len bytes at @o (a MAC: its 6 bytes), or NULL;
 * *@bad when an option has length 0 (RFC 4861 4.6: the message is invalid). */
static const uint8_t *
nd_option(const uint8_t *o, uint32_t len, uint8_t type, bool *bad)
{
	while (len >= 2) {
		uint32_t l = o[1] * 8u;
		if (l == 0 || l > len) {
			*bad = true;
			return NULL;
		}
		if (o[0] == type && l >= 8)
			return o + 2;
		o += l;
		len -= l;
	}
	return NULL;
}

/* A new NS or NA frame from @p: Ethernet to @dmac, IPv6 @src -> @dst, hop limit 255, the
 * ICMPv6 header with @flags, @target and a MAC option of @opt. NULL: no mbuf. */
static struct rte_mbuf *
nd_build(struct lsw_worker *w, const struct lsw_port_dp *p, uint64_t dmac, const uint8_t *src,
	 const uint8_t *dst, uint8_t type, uint8_t flags, const uint8_t *target, uint8_t opt)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->dp->pool);

	if (m == NULL) {
		w->ctr->event[LSW_EV_MBUF_ALLOC_FAILED]++;
		return NULL;
	}
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, ND_LEN);
	memset(d, 0, ND_LEN);
	lsw_l2_write(m, dmac, &p->mac, LSW_ETHERTYPE_IPV6);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(d + RTE_ETHER_HDR_LEN);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(32);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255; /* RFC 4861: receivers check it was not routed */
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = opt;
	icmp[25] = 1;
	memcpy(icmp + 26, p->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	uint16_t s = (uint16_t)~lsw_icmp6_sum(ip, icmp, 32);
	memcpy(icmp + 2, &s, 2);
	return m;
}

void
lsw_ndp_solicit(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
		const uint8_t *target)
{
	const struct lsw_port_dp *p = &conf->port[port];
	uint8_t sn[16];

	lsw_ip6_solicited(sn, target);
	struct rte_mbuf *m = nd_build(w, p, lsw_ip6_mc_mac(sn), lsw_port_src_addr6(p, target),
				      sn, ND_NS, 0, target, ND_OPT_SLLA);
	if (m == NULL)
		return;
	w->ctr->event[LSW_EV_NDP_NS_TX]++;
	lsw_tx_ctl(w, conf, port, m);
}

/* An unsolicited NA for @target to all nodes (RFC 4861 7.2.6). */
static void
announce(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t port,
	 const uint8_t *target)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	struct rte_mbuf *m = nd_build(w, &conf->port[port], lsw_ip6_mc_mac(all_nodes), target,
				      all_nodes, ND_NA, ND_NA_ROUTER | ND_NA_OVERRIDE, target,
				      ND_OPT_TLLA);

	if (m == NULL)
		return;
	w->ctr->event[LSW_EV_NDP_NA_UNSOLICITED_TX]++;
	lsw_tx_ctl(w, conf, port, m);
}

void
lsw_ndp_announce(struct lsw_worker *w, const struct lsw_snapshot *conf)
{
	for (unsigned int i = 0; i < conf->n_owned[w->idx]; i++) {
		uint16_t port = conf->owned[w->idx][i];
		const struct lsw_port_dp *p = &conf->port[port];
		uint8_t (*sent)[16] = w->na_sent[port];
		uint8_t now[LSW_MAX_ADDRS6 + 1][16] = {{0}};
		/* A port without an IPv6 address stays silent in IPv6, as it does for ICMPv6
		 * errors: IPv4-only ports send nothing new. */
		if (!p->admin_up || p->suspended || p->n_addr6 == 0)
			continue;
		memcpy(now[0], p->ll6, 16);
		for (unsigned int a = 0; a < p->n_addr6; a++)
			memcpy(now[a + 1], p->addr6[a], 16);
		if (memcmp(now, sent, sizeof(now)) == 0)
			continue;
		for (unsigned int a = 0; a <= LSW_MAX_ADDRS6; a++) {
			bool old = false;
			if (lsw_ip6_is_zero(now[a]))
				continue;
			for (unsigned int b = 0; b <= LSW_MAX_ADDRS6; b++)
				old |= lsw_ip6_eq(now[a], sent[b]);
			if (!old)
				announce(w, conf, port, now[a]);
		}
		memcpy(sent, now, sizeof(now));
	}
}

/* A neighbor solicitation: answered when its target is the port's. */
static enum lsw_drop
ns_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	 struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, const uint8_t *icmp, uint32_t len)
{
	const struct lsw_port_dp *p = &conf->port[in_port];
	const uint8_t *target = icmp + 8;
	bool bad = false, dad = lsw_ip6_is_zero(ip->src_addr);
	const uint8_t *slla = nd_option(icmp + 24, len - 24, ND_OPT_SLLA, &bad);
	uint8_t sn[16];

	lsw_ip6_solicited(sn, target);
	/* RFC 4861 7.1.1: a duplicate-address probe (source ::) goes to the solicited-node
	 * group and carries no source link-layer option. */
	if (bad || lsw_ip6_is_mc(target) ||
	    (dad && (slla != NULL || !lsw_ip6_eq(ip->dst_addr, sn))))
		return LSW_DROP_NDP_MALFORMED;
	if (!lsw_port_has_addr6(p, target))
		return LSW_DROP_NDP_OTHER_TARGET;
	w->ctr->event[LSW_EV_NDP_NS_RX]++;
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint64_t dmac;
	if (slla != NULL && lsw_port_on_link6(p, ip->src_addr))
		learn6(w, in_port, ip->src_addr, slla, 0);
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	const uint8_t *dst = dad ? all_nodes : ip->src_addr;
	if (dad) {
		dmac = lsw_ip6_mc_mac(all_nodes);
	} else if (slla != NULL) {
		struct rte_ether_addr ea;
		memcpy(ea.addr_bytes, slla, RTE_ETHER_ADDR_LEN);
		dmac = lsw_mac_to_u64(&ea);
	} else {
		dmac = lsw_mac_to_u64(&eth->src_addr);
	}
	struct rte_mbuf *na = nd_build(w, p, dmac, target, dst, ND_NA,
				       ND_NA_ROUTER | ND_NA_OVERRIDE |
				       (dad ? 0 : ND_NA_SOLICIT), target, ND_OPT_TLLA);
	rte_pktmbuf_free(m);
	if (na != NULL) {
		w->ctr->event[LSW_EV_NDP_NA_TX]++;
		lsw_tx_ctl(w, conf, in_port, na);
	}
	return LSW_DROP_NONE;
}

/* A neighbor advertisement: what it says of its target is learned (unsolicited ones only
 * refresh, as a gratuitous ARP does). */
static enum lsw_drop
na_input(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	 struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, const uint8_t *icmp, uint32_t len)
{
	const struct lsw_port_dp *p = &conf->port[in_port];
	const uint8_t *target = icmp + 8;
	bool bad = false;
	const uint8_t *tlla = nd_option(icmp + 24, len - 24, ND_OPT_TLLA, &bad);

	/* RFC 4861 7.1.2: solicited ones are never sent to a multicast group. */
	if (bad || lsw_ip6_is_mc(target) ||
	    (lsw_ip6_is_mc(ip->dst_addr) && (icmp[4] & ND_NA_SOLICIT)))
		return LSW_DROP_NDP_MALFORMED;
	w->ctr->event[LSW_EV_NDP_NA_RX]++;
	if (tlla == NULL)
		tlla = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->src_addr.addr_bytes;
	if (lsw_port_on_link6(p, target) && !lsw_port_has_addr6(p, target))
		learn6(w, in_port, target, tlla,
		       (icmp[4] & ND_NA_SOLICIT) ? 0 : LSW_NEIGH_MSG_UPDATE_ONLY);
	rte_pktmbuf_free(m);
	return LSW_DROP_NONE;
}

void
lsw_ndp_local(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
	      struct rte_mbuf *m, const struct lsw_pkt_info *pi, uint64_t now)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, pi->l3_off);
	const uint8_t *icmp = (const uint8_t *)(ip + 1);
	uint32_t len = pi->l3_len - sizeof(*ip);
	bool mc = lsw_ip6_is_mc(ip->dst_addr);
	enum lsw_drop d;

	RTE_SET_USED(now);
	if (pi->l4_proto != IPPROTO_ICMPV6) {
		d = mc ? LSW_DROP_DIP_MULTICAST : LSW_DROP_LOCAL_UNSUPPORTED;
		goto drop;
	}
	if (len < 4 || lsw_icmp6_sum(ip, icmp, len) != 0xffff) {
		d = LSW_DROP_ICMP_MALFORMED;
		goto drop;
	}
	if (icmp[0] == ND_NS || icmp[0] == ND_NA) {
		/* RFC 4861 7.1: hop limit 255 (not routed), code 0, 24 bytes at least. */
		if (ip->hop_limits != 255 || icmp[1] != 0 || len < 24) {
			d = LSW_DROP_NDP_MALFORMED;
			goto drop;
		}
		d = icmp[0] == ND_NS ? ns_input(w, conf, in_port, m, ip, icmp, len) :
				       na_input(w, conf, in_port, m, ip, icmp, len);
		if (d == LSW_DROP_NONE)
			return;
		goto drop;
	}
	if (mc) {
		d = LSW_DROP_DIP_MULTICAST; /* router solicitations, MLD, echo to a group */
		goto drop;
	}
	d = lsw_icmp6_echo_reply(m, pi, &conf->port[in_port]);
	if (d == LSW_DROP_NONE) {
		w->ctr->event[LSW_EV_ICMP6_ECHO_REPLY_TX]++;
		lsw_tx_ctl(w, conf, in_port, m);
		return;
	}
drop:
	lsw_count_drop(w, in_port, d, m);
}
