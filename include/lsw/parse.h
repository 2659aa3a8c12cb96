/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet parser: Ethernet, one 802.1Q tag, ARP, MAC control, IPv4, IPv6, UDP, TCP and the
 * RoCEv2 Base Transport Header (UDP destination port 4791). Pure function of the bytes, so
 * unit tests feed it arrays without mbufs.
 */
#ifndef LSW_PARSE_H
#define LSW_PARSE_H

#include <stdint.h>
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

/* Fill @pi from the @len bytes at @pkt. Returns LSW_DROP_NONE, or the reason the frame is
 * malformed. IPv4 header checksums are verified here. */
enum lsw_drop lsw_parse(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi);
/* The same without the fast path for plain IPv4 frames: every field one by one. For the
 * tests that check the two against each other. */
enum lsw_drop lsw_parse_careful(const uint8_t *pkt, uint32_t len, struct lsw_pkt_info *pi);

#endif
