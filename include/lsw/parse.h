/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet parser: Ethernet, one 802.1Q tag, ARP, MAC control, IPv4, IPv6, UDP, TCP and the
 * RoCEv2 Base Transport Header (UDP destination port 4791). Pure function of the bytes, so
 * unit tests feed it arrays without mbufs.
 */
#ifndef LSW_PARSE_H
#define LSW_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_core.h>
#include "lsw/drop.h"

#define LSW_ETHERTYPE_IPV4   0x0800
#define LSW_ETHERTYPE_ARP    0x0806
#define LSW_ETHERTYPE_VLAN   0x8100
#define LSW_ETHERTYPE_IPV6   0x86dd
#define LSW_ETHERTYPE_MACCTL 0x8808
#define LSW_ROCEV2_PORT      4791
#define LSW_BTH_LEN          12

enum lsw_pkt_flag {
	LSW_PF_VLAN     = 1 << 0, /* had an 802.1Q tag (vlan_tci valid) */
	LSW_PF_L4       = 1 << 1, /* sport/dport valid (first fragment of UDP or TCP) */
	LSW_PF_ROCE     = 1 << 2, /* RoCEv2: bth_* valid */
	LSW_PF_FRAGMENT = 1 << 3, /* IPv4 fragment (MF set or offset non-zero) */
	LSW_PF_DMAC_MC  = 1 << 4, /* destination MAC is multicast or broadcast */
};

struct lsw_pkt_info {
	uint16_t ethertype;  /* after the VLAN tag, host order */
	uint16_t vlan_tci;   /* host order */
	uint16_t l3_off;     /* offset of the ARP/IP/MAC-control header */
	uint16_t l4_off;     /* offset of the UDP/TCP/ICMP header */
	uint16_t l3_len;     /* IPv4 total length or IPv6 40 + payload length */
	uint8_t flags;       /* enum lsw_pkt_flag */
	uint8_t l4_proto;    /* IPv4 protocol or IPv6 next header */
	uint16_t sport;      /* host order */
	uint16_t dport;
	uint8_t bth_opcode;
	uint32_t bth_dqpn;   /* 24 bits */
	uint32_t bth_psn;    /* 24 bits */
};

/* The fast path for plain IPv4, inlined where frames are parsed (dataplane/worker.c,
 * dataplane/ipv4.c); the rest of the parser is in parse.c. */

/* UDP/TCP ports and, on UDP 4791, the BTH. @avail counts bytes from @off to the end of the
 * IP payload (not of the frame, which may carry Ethernet padding). */
/* Inlined into both IP parsers: a call costs a dozen instructions a packet (callgrind). */
static __rte_always_inline enum lsw_drop
lsw_parse_l4(const uint8_t *pkt, uint32_t off, uint32_t avail, struct lsw_pkt_info *pi)
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
	pi->bth_dqpn = (uint32_t)bth[5] << 16 | (uint32_t)bth[6] << 8 | bth[7];
	pi->bth_psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
	pi->flags |= LSW_PF_ROCE;
	return LSW_DROP_NONE;
}

/* The one's complement sum of an IPv4 header, 32 bits at a time: DPDK 22.11's rte_raw_cksum
 * adds 16 bits a step and was 6% of the full path's time at 64 B (perf). RFC 1071: the
 * folded sum of 32-bit words is the sum of the 16-bit ones, and a correct header sums to
 * 0xffff in either byte order. Nonzero sums never fold to 0. */
static inline uint64_t
lsw_sum32(const uint8_t *h, uint32_t len)
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
lsw_ipv4_hdr_sum(const uint8_t *h, uint32_t ihl)
{
	/* A header without options, nearly every one: the loop unrolled (44 instructions
	 * a packet went to the loop, callgrind). */
	uint64_t sum = likely(ihl == sizeof(struct rte_ipv4_hdr)) ?
		       lsw_sum32(h, sizeof(struct rte_ipv4_hdr)) : lsw_sum32(h, ihl);

	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * Whether an IPv4 header's checksum is good, by what the NIC reported of it (@rx: a frame's
 * ol_flags, RTE_MBUF_F_RX_IP_CKSUM_*), which lsw trusts as every DPDK router does: GOOD is
 * not summed again, BAD is not summed at all; UNKNOWN (0) or NONE, what ports without the
 * offload report (net_pcap, net_null, taps, memif), is verified here.
 */
static __rte_always_inline bool
lsw_ipv4_cksum_ok(const uint8_t *h, uint32_t ihl, uint64_t rx)
{
	const uint64_t ck = rx & RTE_MBUF_F_RX_IP_CKSUM_MASK;

	if (ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD)
		return true;
	return ck != RTE_MBUF_F_RX_IP_CKSUM_BAD && lsw_ipv4_hdr_sum(h, ihl) == 0xffff;
}

/*
 * The frame nearly every one is: untagged IPv4 without options, not a fragment. Two wide
 * loads and a few compares accept it, where the careful path takes a branch and a narrow
 * load per field; anything else, and every malformed frame, goes the careful way, which
 * names the reason. Both fill lsw_pkt_info alike (test_parse: test_plain_equals_careful).
 * True for such a frame, with its IPv4 total length in *@tlen; @rx: its ol_flags
 * (lsw_ipv4_cksum_ok).
 */
static __rte_always_inline bool
lsw_parse_plain_ipv4(const uint8_t *pkt, uint32_t len, uint64_t rx, uint32_t *tlen)
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
	       lsw_ipv4_cksum_ok(pkt + RTE_ETHER_HDR_LEN, sizeof(struct rte_ipv4_hdr), rx);
}

/* @pi for a frame lsw_parse_plain_ipv4 accepted, IPv4 total length @tlen. */
static __rte_always_inline enum lsw_drop
lsw_parse_plain(const uint8_t *pkt, uint32_t tlen, struct lsw_pkt_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->flags = pkt[0] & 1 ? LSW_PF_DMAC_MC : 0;
	pi->ethertype = LSW_ETHERTYPE_IPV4;
	pi->l3_off = RTE_ETHER_HDR_LEN;
	pi->l3_len = (uint16_t)tlen;
	pi->l4_proto = pkt[RTE_ETHER_HDR_LEN + 9];
	return lsw_parse_l4(pkt, RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr),
			    tlen - sizeof(struct rte_ipv4_hdr), pi);
}

/* Fill @pi from the @len bytes at @pkt, received with ol_flags @rx (what the NIC says of
 * its checksums: lsw_ipv4_cksum_ok). Returns LSW_DROP_NONE, or the reason the frame is
 * malformed. IPv4 header checksums are verified here. */
enum lsw_drop lsw_parse_rx(const uint8_t *pkt, uint32_t len, uint64_t rx,
			   struct lsw_pkt_info *pi);
/* The same without the fast path for plain IPv4 frames: every field one by one. For the
 * tests that check the two against each other. */
enum lsw_drop lsw_parse_careful_rx(const uint8_t *pkt, uint32_t len, uint64_t rx,
				   struct lsw_pkt_info *pi);
/* A frame of which the NIC said nothing (a host's, a test's). */
static inline enum lsw_drop
lsw_parse(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	return lsw_parse_rx(pkt, len, 0, pi);
}

static inline enum lsw_drop
lsw_parse_careful(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi)
{
	return lsw_parse_careful_rx(pkt, len, 0, pi);
}

#endif
