/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMPv6 the switch answers (echo) and originates (time exceeded, packet too big,
 * destination unreachable), under the same switch-wide limit as IPv4's errors (icmp.c). */
#include <rte_ip.h>
#include "lsw/dataplane.h"

#define ICMP6_ERR_MAX_QUOTE (1280 - 40 - 8) /* RFC 4443 2.4(c): within the minimum MTU */
#define ICMP6_ECHO_REQUEST  128
#define ICMP6_ECHO_REPLY    129

uint16_t
lsw_icmp6_sum(const struct rte_ipv6_hdr *ip, const void *l4, uint32_t len)
{
	/* Pseudo header (RFC 8200 8.1): addresses, upper-layer length, next header 58, in
	 * network order like the rest: rte_raw_cksum sums words as they lie in memory. */
	const rte_be32_t ph[2] = {rte_cpu_to_be_32(len), rte_cpu_to_be_32(IPPROTO_ICMPV6)};
	uint32_t sum = (uint32_t)rte_raw_cksum(ip->src_addr, 32) + rte_raw_cksum(ph, 8) +
		       rte_raw_cksum(l4, len);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Set the checksum of the @len-byte ICMPv6 message at @icmp under @ip. */
static void
icmp6_csum_set(const struct rte_ipv6_hdr *ip, uint8_t *icmp, uint32_t len)
{
	icmp[2] = icmp[3] = 0;
	uint16_t s = (uint16_t)~lsw_icmp6_sum(ip, icmp, len);
	memcpy(icmp + 2, &s, 2);
}

enum lsw_drop
lsw_icmp6_echo_reply(struct rte_mbuf *m, const struct lsw_pkt_info *pi,
		     const struct lsw_port_dp *port)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, pi->l3_off);
	uint8_t *icmp = (uint8_t *)(ip + 1);
	uint32_t len = pi->l3_len - sizeof(*ip);

	if (len < 8 || lsw_icmp6_sum(ip, icmp, len) != 0xffff)
		return LSW_DROP_ICMP_MALFORMED;
	if (icmp[0] != ICMP6_ECHO_REQUEST)
		return LSW_DROP_LOCAL_UNSUPPORTED;
	/* Answer from the address asked (a multicast one is never asked here: the caller
	 * passes only the switch's unicast addresses). */
	uint8_t a[16];
	memcpy(a, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, a, 16);
	ip->hop_limits = 64;
	icmp[0] = ICMP6_ECHO_REPLY;
	icmp6_csum_set(ip, icmp, len);
	struct rte_ether_hdr *eth = lsw_icmp_untag(m, pi);
	eth->dst_addr = eth->src_addr;
	eth->src_addr = port->mac;
	/* Bytes after the IPv6 packet go (Ethernet padding). */
	if (m->pkt_len > (uint32_t)pi->l3_off + pi->l3_len - ((pi->flags & LSW_PF_VLAN) ? 4 : 0))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - (pi->l3_off + pi->l3_len -
					((pi->flags & LSW_PF_VLAN) ? 4 : 0))));
	return LSW_DROP_NONE;
}

/* An ICMPv6 error message (types 0-127), never answered with an error (RFC 4443 2.4(e)). */
static bool
is_icmp6_error(const struct rte_ipv6_hdr *ip, const struct lsw_pkt_info *pi)
{
	return pi->l4_proto == IPPROTO_ICMPV6 && pi->l3_len > sizeof(*ip) &&
	       *((const uint8_t *)(ip + 1)) < 128;
}

/*
 * Send ICMPv6 @type/@code about @orig (left untouched) back out of @in_port to the neighbor
 * it came from; @mtu is packet too big's MTU (type 2), else 0. RFC 4443 2.4: not about an
 * error, nor about a packet from a multicast or unspecified source.
 */
__rte_noinline __rte_cold void
lsw_icmp6_error(struct lsw_worker *w, const struct lsw_snapshot *conf, uint16_t in_port,
		struct rte_mbuf *orig, const struct lsw_pkt_info *pi, uint8_t type, uint8_t code,
		uint32_t mtu, uint64_t now)
{
	const struct rte_ipv6_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv6_hdr *, pi->l3_off);
	const struct lsw_port_dp *p = &conf->port[in_port];

	/* As IPv4's: a port without an address of the family sends no errors (an IPv4-only
	 * port stays silent in IPv6, though it has a link-local address). */
	if (p->n_addr6 == 0 || is_icmp6_error(oip, pi) || lsw_ip6_is_mc(oip->src_addr) ||
	    lsw_ip6_is_zero(oip->src_addr))
		return;
	if (!lsw_icmp_allow(w->dp, conf, now)) {
		w->ctr->event[LSW_EV_ICMP_RATE_LIMITED]++;
		return;
	}
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->dp->pool);
	if (m == NULL) {
		w->ctr->event[LSW_EV_MBUF_ALLOC_FAILED]++;
		return;
	}
	uint16_t quote = RTE_MIN(pi->l3_len, ICMP6_ERR_MAX_QUOTE);
	uint16_t plen = (uint16_t)(8 + quote);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + 40 + plen));
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)d;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	uint8_t *icmp = (uint8_t *)(ip + 1);

	eth->dst_addr = rte_pktmbuf_mtod(orig, struct rte_ether_hdr *)->src_addr;
	eth->src_addr = p->mac;
	eth->ether_type = rte_cpu_to_be_16(LSW_ETHERTYPE_IPV6);
	*ip = (struct rte_ipv6_hdr){
		.vtc_flow = rte_cpu_to_be_32(6u << 28),
		.payload_len = rte_cpu_to_be_16(plen),
		.proto = IPPROTO_ICMPV6,
		.hop_limits = 64,
	};
	memcpy(ip->src_addr, lsw_port_src_addr6(p, oip->src_addr), 16);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	icmp[0] = type;
	icmp[1] = code;
	uint32_t word = rte_cpu_to_be_32(mtu); /* unused but for packet too big */
	memcpy(icmp + 4, &word, 4);
	memcpy(icmp + 8, oip, quote);
	icmp6_csum_set(ip, icmp, plen);
	w->ctr->event[LSW_EV_ICMP6_ERROR_TX]++;
	lsw_tx_ctl(w, conf, in_port, m);
}
