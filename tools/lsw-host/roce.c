/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <rte_net_crc.h>
#include "roce.h"

#define VLAN_LEN 4

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
wr24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

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

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

static uint16_t
ext_len(uint8_t opcode)
{
	switch (opcode) {
	case LSW_OP_WRITE_FIRST:
	case LSW_OP_WRITE_ONLY:
		return LSW_ROCE_RETH_LEN;
	case LSW_OP_ACK:
		return LSW_ROCE_AETH_LEN;
	default:
		return 0;
	}
}

uint16_t
lsw_roce_hdr_len(bool tagged, uint8_t opcode)
{
	return (uint16_t)(RTE_ETHER_HDR_LEN + (tagged ? VLAN_LEN : 0) +
			  sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) +
			  LSW_ROCE_BTH_LEN + ext_len(opcode));
}

uint16_t
lsw_roce_frame_len(bool tagged, uint8_t opcode, uint32_t payload)
{
	if (opcode == LSW_OP_CNP)
		payload = LSW_ROCE_CNP_PAD;
	return (uint16_t)(lsw_roce_hdr_len(tagged, opcode) + RTE_ALIGN_CEIL(payload, 4) +
			  LSW_ROCE_ICRC_LEN);
}

uint32_t
lsw_roce_icrc(uint8_t *f, uint16_t l3, uint16_t len)
{
	uint8_t *ip = f + l3, *udp = ip + 20, *bth = udp + 8;
	uint8_t save_pre[8], save_ip[12], save_udp[2], save_b4;
	uint32_t crc;

	/* Mask in place: the 8 bytes before the IP header stand for the masked LRH. */
	memcpy(save_pre, ip - 8, 8);
	memcpy(save_ip, ip, 12);
	memcpy(save_udp, udp + 6, 2);
	save_b4 = bth[4];
	memset(ip - 8, 0xff, 8);
	ip[1] = 0xff;                    /* TOS */
	ip[8] = 0xff;                    /* TTL */
	ip[10] = ip[11] = 0xff;          /* header checksum */
	udp[6] = udp[7] = 0xff;          /* UDP checksum */
	bth[4] = 0xff;                   /* FECN, BECN, resv6 */
	crc = rte_net_crc_calc(ip - 8, (uint32_t)(len - LSW_ROCE_ICRC_LEN - (l3 - 8)),
			       RTE_NET_CRC32_ETH);
	memcpy(ip - 8, save_pre, 8);
	memcpy(ip, save_ip, 12);
	memcpy(udp + 6, save_udp, 2);
	bth[4] = save_b4;
	return crc;
}

uint32_t
lsw_roce_icrc_stored(const uint8_t *f, uint16_t len)
{
	const uint8_t *p = f + len - LSW_ROCE_ICRC_LEN;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint16_t
lsw_roce_build(uint8_t *f, const struct lsw_roce_l2l3 *l, const struct lsw_roce_bth *b,
	       const struct lsw_roce_ext *x, uint32_t payload)
{
	uint16_t len = lsw_roce_frame_len(l->tagged, b->opcode, payload);
	uint16_t l3 = RTE_ETHER_HDR_LEN + (l->tagged ? VLAN_LEN : 0);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	uint8_t *ip = f + l3, *udp = ip + 20, *bth = udp + 8, *p = bth + LSW_ROCE_BTH_LEN;
	uint16_t ip_len = (uint16_t)(len - l3);
	uint8_t pad = b->opcode == LSW_OP_CNP ? 0 : (uint8_t)((4 - (payload & 3)) & 3);

	eth->dst_addr = l->dmac;
	eth->src_addr = l->smac;
	if (l->tagged) {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
		wr16(f + 14, (uint16_t)(l->pcp << 13)); /* VID 0: a priority tag */
		wr16(f + 16, RTE_ETHER_TYPE_IPV4);
	} else {
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	}

	ip[0] = 0x45;
	ip[1] = l->tos;
	wr16(ip + 2, ip_len);
	wr16(ip + 4, l->ip_id);
	wr16(ip + 6, 0x4000);                  /* DF */
	ip[8] = l->ttl ? l->ttl : 64;
	ip[9] = IPPROTO_UDP;
	wr16(ip + 10, 0);
	wr32(ip + 12, l->sip);
	wr32(ip + 16, l->dip);
	wr16(ip + 10, rte_be_to_cpu_16(rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip)));

	wr16(udp, l->sport);
	wr16(udp + 2, LSW_ROCE_UDP_PORT);
	wr16(udp + 4, (uint16_t)(ip_len - 20));
	wr16(udp + 6, 0);                       /* RoCEv2 sends no UDP checksum */

	bth[0] = b->opcode;
	bth[1] = (uint8_t)(pad << 4);            /* SE 0, M 0, TVer 0 */
	wr16(bth + 2, b->pkey);
	bth[4] = (uint8_t)((b->fecn ? 0x80 : 0) | (b->becn ? 0x40 : 0));
	wr24(bth + 5, b->dqpn & LSW_PSN_MASK);
	bth[8] = b->ackreq ? 0x80 : 0;
	wr24(bth + 9, b->psn & LSW_PSN_MASK);

	switch (b->opcode) {
	case LSW_OP_WRITE_FIRST:
	case LSW_OP_WRITE_ONLY:
		wr32(p, (uint32_t)(x->va >> 32));
		wr32(p + 4, (uint32_t)x->va);
		wr32(p + 8, x->rkey);
		wr32(p + 12, x->dma_len);
		p += LSW_ROCE_RETH_LEN;
		break;
	case LSW_OP_ACK:
		p[0] = x->syndrome;
		wr24(p + 1, x->msn & LSW_PSN_MASK);
		p += LSW_ROCE_AETH_LEN;
		break;
	case LSW_OP_CNP:
		payload = LSW_ROCE_CNP_PAD;
		break;
	default:
		break;
	}
	/* The payload: the PSN in its first word (a receiver can tell packets apart in a
	 * capture), zeros after it, then the pad. */
	memset(p, 0, payload + pad);
	if (b->opcode != LSW_OP_CNP && payload >= 4)
		wr32(p, b->psn);

	uint32_t crc = lsw_roce_icrc(f, l3, len);
	uint8_t *c = f + len - LSW_ROCE_ICRC_LEN;
	c[0] = (uint8_t)crc;
	c[1] = (uint8_t)(crc >> 8);
	c[2] = (uint8_t)(crc >> 16);
	c[3] = (uint8_t)(crc >> 24);
	return len;
}

bool
lsw_roce_parse(const uint8_t *f, uint16_t len, struct lsw_roce_rx *r)
{
	uint16_t off = RTE_ETHER_HDR_LEN, et;

	if (len < RTE_ETHER_HDR_LEN + 20 + 8 + LSW_ROCE_BTH_LEN + LSW_ROCE_ICRC_LEN)
		return false;
	memcpy(&r->smac, f + 6, sizeof(r->smac));
	et = rd16(f + 12);
	if (et == RTE_ETHER_TYPE_VLAN) {
		et = rd16(f + 16);
		off += VLAN_LEN;
	}
	if (et != RTE_ETHER_TYPE_IPV4)
		return false;
	const uint8_t *ip = f + off;
	uint16_t ihl = (uint16_t)((ip[0] & 0xf) * 4);
	uint16_t ip_len = rd16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl != 20 || ip[9] != IPPROTO_UDP || ip_len > len - off ||
	    ip_len < 20 + 8 + LSW_ROCE_BTH_LEN + LSW_ROCE_ICRC_LEN)
		return false;
	const uint8_t *udp = ip + 20, *bth = udp + 8;
	if (rd16(udp + 2) != LSW_ROCE_UDP_PORT)
		return false;
	r->l3_off = off;
	r->tos = ip[1];
	r->sip = rd32(ip + 12);
	r->dip = rd32(ip + 16);
	r->sport = rd16(udp);
	r->bth.opcode = bth[0];
	r->bth.pad = (bth[1] >> 4) & 3;
	r->bth.pkey = rd16(bth + 2);
	r->bth.fecn = bth[4] & 0x80;
	r->bth.becn = bth[4] & 0x40;
	r->bth.dqpn = rd24(bth + 5);
	r->bth.ackreq = bth[8] & 0x80;
	r->bth.psn = rd24(bth + 9);

	uint32_t rest = (uint32_t)ip_len - 20 - 8 - LSW_ROCE_BTH_LEN - LSW_ROCE_ICRC_LEN;
	uint32_t ext = ext_len(r->bth.opcode);
	const uint8_t *x = bth + LSW_ROCE_BTH_LEN;
	if (rest < ext + r->bth.pad)
		return false;
	r->dma_len = 0;
	r->syndrome = 0;
	r->msn = 0;
	if (r->bth.opcode == LSW_OP_ACK) {
		r->syndrome = x[0];
		r->msn = rd24(x + 1);
	} else if (ext == LSW_ROCE_RETH_LEN) {
		r->dma_len = rd32(x + 12);
	}
	r->payload = rest - ext - r->bth.pad;
	return true;
}
