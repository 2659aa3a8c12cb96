/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 on the wire (the InfiniBand Architecture Specification's Annex A17): Ethernet, an
 * optional priority tag, IPv4, UDP
 * 4791, the BTH and, by opcode, a RETH or an AETH, the payload padded to 4 bytes and the
 * ICRC. Pure functions of bytes, so that unit tests check them against published vectors.
 */
#ifndef LSW_HOST_ROCE_H
#define LSW_HOST_ROCE_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>

#define LSW_ROCE_UDP_PORT 4791
#define LSW_ROCE_BTH_LEN  12
#define LSW_ROCE_RETH_LEN 16
#define LSW_ROCE_AETH_LEN 4
#define LSW_ROCE_ICRC_LEN 4
#define LSW_ROCE_CNP_PAD  16
#define LSW_ROCE_PKEY     0xffff
#define LSW_PSN_MASK      0xffffffu

/* BTH opcodes of the RC transport, and the CNP. */
enum lsw_roce_op {
	LSW_OP_SEND_FIRST = 0x00,
	LSW_OP_SEND_MIDDLE = 0x01,
	LSW_OP_SEND_LAST = 0x02,
	LSW_OP_SEND_ONLY = 0x04,
	LSW_OP_WRITE_FIRST = 0x06,
	LSW_OP_WRITE_MIDDLE = 0x07,
	LSW_OP_WRITE_LAST = 0x08,
	LSW_OP_WRITE_ONLY = 0x0a,
	LSW_OP_ACK = 0x11,
	LSW_OP_CNP = 0x81,
};

/* AETH syndromes (Linux rxe_hdr.h): 0x00-0x1f ACK (credits), 0x20 RNR NAK, 0x60.. NAKs. */
#define LSW_AETH_ACK         0x1f /* an ACK with "credits invalid", as responders send */
#define LSW_AETH_NAK_PSN     0x60
#define LSW_AETH_NAK_INVALID 0x61
#define LSW_AETH_IS_ACK(s)   ((s) < 0x20)
#define LSW_AETH_IS_NAK(s)   (((s) & 0xe0) == 0x60)

/* IPv4 TOS ECN codepoints. */
#define LSW_ECN_MASK 0x03
#define LSW_ECN_ECT0 0x02
#define LSW_ECN_CE   0x03

/* Where a host's frames go and how they are marked. */
struct lsw_roce_l2l3 {
	struct rte_ether_addr dmac, smac;
	uint32_t sip, dip;     /* host order */
	uint8_t tos;           /* DSCP << 2 | ECN */
	bool tagged;           /* priority tag: VLAN 0 with @pcp */
	uint8_t pcp;
	uint16_t sport;        /* UDP source port: per-QP entropy for ECMP */
	uint16_t ip_id;        /* 0 with DF set, as RoCE NICs send */
	uint8_t ttl;           /* 0: 64 */
};

/* What a packet carries beyond the headers. */
struct lsw_roce_bth {
	uint8_t opcode;
	bool ackreq, becn, fecn;
	uint8_t pad;           /* PadCnt */
	uint16_t pkey;
	uint32_t dqpn;         /* 24 bits */
	uint32_t psn;          /* 24 bits */
};

/* Bytes of headers before the payload for @opcode (Ethernet to BTH and its extension). */
uint16_t lsw_roce_hdr_len(bool tagged, uint8_t opcode);
/* Bytes of the whole frame (no FCS) for @payload bytes of @opcode. */
uint16_t lsw_roce_frame_len(bool tagged, uint8_t opcode, uint32_t payload);

/* Write a frame of lsw_roce_frame_len() bytes at @f: headers, the RETH (@va, @rkey,
 * @dma_len) for WRITE_FIRST/ONLY, the AETH (@syndrome, @msn) for ACK, @payload bytes of a
 * pattern from @psn (or 16 zero bytes for a CNP), the pad and the ICRC. Returns the length. */
struct lsw_roce_ext {
	uint64_t va;
	uint32_t rkey, dma_len;
	uint8_t syndrome;
	uint32_t msn;
};
uint16_t lsw_roce_build(uint8_t *f, const struct lsw_roce_l2l3 *l, const struct lsw_roce_bth *b,
			const struct lsw_roce_ext *x, uint32_t payload);

/* The ICRC of the @len-byte frame at @f whose IP header is at @l3 (Annex A17):
 * CRC-32 over 8 bytes of ones, the IP header with TOS, TTL and checksum as ones, the UDP
 * header with its checksum as ones, the BTH with byte 4 as ones, and the rest up to the
 * ICRC. The frame is masked in place and restored, so that the CRC is one pass. */
uint32_t lsw_roce_icrc(uint8_t *f, uint16_t l3, uint16_t len);
/* The ICRC at the end of the frame, as it is on the wire (little-endian). */
uint32_t lsw_roce_icrc_stored(const uint8_t *f, uint16_t len);

/* A received RoCEv2 frame, parsed. */
struct lsw_roce_rx {
	struct rte_ether_addr smac;
	uint32_t sip, dip;
	uint8_t tos;
	uint16_t sport;
	struct lsw_roce_bth bth;
	uint8_t syndrome;       /* ACK */
	uint32_t msn;
	uint32_t dma_len;       /* RETH */
	uint32_t payload;       /* bytes of payload, without the pad */
	uint16_t l3_off;
};

/* Parse a RoCEv2 frame (IPv4, UDP 4791); false when it is not one or is malformed. */
bool lsw_roce_parse(const uint8_t *f, uint16_t len, struct lsw_roce_rx *r);

/* PSNs are 24-bit: the signed distance from @b to @a. */
static inline int32_t
lsw_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
