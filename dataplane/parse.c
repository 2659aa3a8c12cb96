/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_arp.h>
#include <rte_ether.h>
#include "lsw/parse.h"

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* UDP/TCP ports and, on UDP 4791, the BTH. @avail counts bytes from @off to the end of the
 * IP payload (not of the frame, which may carry Ethernet padding). */
/* Inlined into both IP parsers: a call costs a dozen instructions a packet (callgrind). */
static __rte_always_inline enum lsw_drop
parse_l4(const uint8_t *pkt, uint32_t off, uint32_t avail, struct lsw_pkt_info *pi)
{
	/* The protocol in a local: through @pi, GCC reloads it after every store. */
	const uint8_t proto = pi->l4_proto;
	uint32_t ports;

	pi->l4_off = (uint16_t)off;
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return LSW_DROP_NONE;
	/* A UDP header is 8 bytes; for TCP the ports are all the switch reads. */
	if (avail < (proto == IPPROTO_UDP ? 8u : 20u))
		return LSW_DROP_L4_TRUNCATED;
	memcpy(&ports, pkt + off, sizeof(ports)); /* both ports in one load */
	ports = rte_be_to_cpu_32(ports);
	pi->sport = (uint16_t)(ports >> 16);
	pi->dport = (uint16_t)ports;
	pi->flags |= LSW_PF_L4;
	if (proto != IPPROTO_UDP || (uint16_t)ports != LSW_ROCEV2_PORT)
		return LSW_DROP_NONE;
	if (avail < 8u + LSW_BTH_LEN)
		return LSW_DROP_BTH_TRUNCATED;
	const uint8_t *bth = pkt + off + 8;
	pi->bth_opcode = bth[0];
	pi->bth_dqpn = rd24(bth + 5);
	pi->bth_psn = rd24(bth + 9);
	pi->flags |= LSW_PF_ROCE;
	return LSW_DROP_NONE;
}

/* The one's complement sum of an IPv4 header, 32 bits at a time: DPDK 22.11's rte_raw_cksum
 * adds 16 bits a step and was 6% of the full path's time at 64 B (perf). RFC 1071: the
 * folded sum of 32-bit words is the sum of the 16-bit ones, and a correct header sums to
 * 0xffff in either byte order. Nonzero sums never fold to 0. */
static inline uint64_t
sum32(const uint8_t *h, uint32_t len)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < len; i += 4) {
		uint32_t v;
		memcpy(&v, h + i, sizeof(v));
		sum += v;
	}
	return sum;
}

static inline uint16_t
ipv4_hdr_sum(const uint8_t *h, uint32_t ihl)
{
	/* A header without options, nearly every one: the loop unrolled (44 instructions
	 * a packet went to the loop, callgrind). */
	uint64_t sum = likely(ihl == sizeof(struct rte_ipv4_hdr)) ?
		       sum32(h, sizeof(struct rte_ipv4_hdr)) : sum32(h, ihl);

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static enum lsw_drop
parse_ipv4(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	uint32_t off = pi->l3_off, avail = len - off;

	if (avail < sizeof(struct rte_ipv4_hdr))
		return LSW_DROP_IPV4_TRUNCATED;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(pkt + off);
	/* Version, IHL and total length from one 32-bit load. Read as a byte, GCC kept the
	 * version/IHL byte in a stack slot and reloaded it as 32 bits: a load that the byte
	 * store cannot forward to, which stalled the worker about 5 ns a packet (perf: 9% of
	 * the full path's time at 64 B). */
	uint32_t w0;
	memcpy(&w0, ip, sizeof(w0));
	w0 = rte_be_to_cpu_32(w0);
	if ((w0 >> 28) != 4)
		return LSW_DROP_IPV4_BAD_VERSION;
	uint32_t ihl = (w0 >> 24 & 0xf) * 4;
	if (ihl < sizeof(struct rte_ipv4_hdr))
		return LSW_DROP_IPV4_BAD_IHL;
	if (ihl > avail)
		return LSW_DROP_IPV4_TRUNCATED;
	uint32_t tlen = w0 & 0xffff;
	if (tlen < ihl)
		return LSW_DROP_IPV4_BAD_LENGTH;
	if (tlen > avail)
		return LSW_DROP_IPV4_TRUNCATED;
	/* A header with a correct checksum sums to 0xffff. */
	if (ipv4_hdr_sum((const uint8_t *)ip, ihl) != 0xffff)
		return LSW_DROP_IPV4_BAD_CHECKSUM;
	pi->l3_len = (uint16_t)tlen;
	pi->l4_proto = ip->next_proto_id;
	uint16_t frag = rte_be_to_cpu_16(ip->fragment_offset);
	if (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		pi->flags |= LSW_PF_FRAGMENT;
		/* Only the first fragment carries the L4 header. */
		if (frag & RTE_IPV4_HDR_OFFSET_MASK) {
			pi->l4_off = (uint16_t)(off + ihl);
			return LSW_DROP_NONE;
		}
	}
	return parse_l4(pkt, off + ihl, tlen - ihl, pi);
}

static enum lsw_drop
parse_ipv6(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	uint32_t off = pi->l3_off, avail = len - off;

	if (avail < sizeof(struct rte_ipv6_hdr))
		return LSW_DROP_IPV6_TRUNCATED;
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(pkt + off);
	if ((pkt[off] >> 4) != 6)
		return LSW_DROP_IPV6_BAD_VERSION;
	uint32_t plen = rte_be_to_cpu_16(ip6->payload_len);
	if (plen + sizeof(*ip6) > avail)
		return LSW_DROP_IPV6_TRUNCATED;
	pi->l3_len = (uint16_t)(plen + sizeof(*ip6));
	pi->l4_proto = ip6->proto;
	/* Extension headers are not walked: a packet with one simply has no L4 info. */
	return parse_l4(pkt, off + sizeof(*ip6), plen, pi);
}

/*
 * The frame nearly every one is: untagged IPv4 without options, not a fragment. Two wide
 * loads and a few compares accept it, where the careful path takes a branch and a narrow
 * load per field; anything else, and every malformed frame, goes the careful way, which
 * names the reason. Both fill lsw_pkt_info alike (test_parse: test_plain_equals_careful).
 */
static __rte_always_inline bool
plain_ipv4(const uint8_t *pkt, uint32_t len, uint32_t *tlen)
{
	uint64_t a, b;

	if (unlikely(len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)))
		return false;
	memcpy(&a, pkt + 12, sizeof(a)); /* EtherType, version/IHL, ToS, total length, ID */
	memcpy(&b, pkt + 20, sizeof(b)); /* fragment field, TTL, protocol, checksum, source */
	a = rte_be_to_cpu_64(a);
	b = rte_be_to_cpu_64(b);
	*tlen = (uint32_t)(a >> 16 & 0xffff);
	return (a >> 40) == ((uint64_t)LSW_ETHERTYPE_IPV4 << 8 | 0x45) &&
	       !(b >> 48 & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) &&
	       *tlen >= sizeof(struct rte_ipv4_hdr) && *tlen <= len - RTE_ETHER_HDR_LEN &&
	       ipv4_hdr_sum(pkt + RTE_ETHER_HDR_LEN, sizeof(struct rte_ipv4_hdr)) == 0xffff;
}

enum lsw_drop
lsw_parse(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	const uint32_t l4 = RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr);
	uint32_t tlen;

	if (likely(plain_ipv4(pkt, len, &tlen))) {
		memset(pi, 0, sizeof(*pi));
		pi->flags = pkt[0] & 1 ? LSW_PF_DMAC_MC : 0;
		pi->ethertype = LSW_ETHERTYPE_IPV4;
		pi->l3_off = RTE_ETHER_HDR_LEN;
		pi->l3_len = (uint16_t)tlen;
		pi->l4_proto = pkt[RTE_ETHER_HDR_LEN + 9];
		return parse_l4(pkt, l4, tlen - sizeof(struct rte_ipv4_hdr), pi);
	}
	return lsw_parse_careful(pkt, len, pi);
}

/* Out of line: the plain path alone is inlined into the worker loop. */
__rte_noinline enum lsw_drop
lsw_parse_careful(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	if (len < 14)
		return LSW_DROP_L2_TRUNCATED;
	if (pkt[0] & 1)
		pi->flags |= LSW_PF_DMAC_MC;
	uint32_t off = 12;
	uint16_t et = rd16(pkt + off);
	if (et == LSW_ETHERTYPE_VLAN) {
		if (len < 18)
			return LSW_DROP_VLAN_TRUNCATED;
		pi->flags |= LSW_PF_VLAN;
		pi->vlan_tci = rd16(pkt + 14);
		off += 4;
		et = rd16(pkt + off);
	}
	off += 2;
	pi->ethertype = et;
	pi->l3_off = (uint16_t)off;

	switch (et) {
	case LSW_ETHERTYPE_IPV4:
		return parse_ipv4(pkt, len, pi);
	case LSW_ETHERTYPE_IPV6:
		return parse_ipv6(pkt, len, pi);
	case LSW_ETHERTYPE_ARP: {
		const struct rte_arp_hdr *arp = (const struct rte_arp_hdr *)(pkt + off);
		if (len - off < sizeof(*arp) ||
		    arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
		    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		    arp->arp_hlen != 6 || arp->arp_plen != 4)
			return LSW_DROP_ARP_MALFORMED;
		return LSW_DROP_NONE;
	}
	case LSW_ETHERTYPE_MACCTL:
		return LSW_DROP_NONE;
	default:
		return LSW_DROP_UNKNOWN_ETHERTYPE;
	}
}
