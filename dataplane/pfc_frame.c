/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFC and 802.3x PAUSE frame itself (IEEE 802.1Qbb, 802.3 Annex 31B): encode and
 * decode, with no state, so that lsw-host shares them with the switch.
 */
#include <string.h>
#include <rte_byteorder.h>
#include "lsw/pfc.h"
#include "lsw/parse.h"

static const struct rte_ether_addr pfc_dmac = {{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}};

enum lsw_drop
lsw_pfc_decode(const uint8_t *p, uint32_t len, struct lsw_pfc_frame *f)
{
	if (len < 2)
		return LSW_DROP_PFC_MALFORMED;
	f->opcode = (uint16_t)(p[0] << 8 | p[1]);
	if (f->opcode == LSW_MACCTL_PFC) {
		if (len < LSW_PFC_BODY_LEN)
			return LSW_DROP_PFC_MALFORMED;
		f->enable = p[3]; /* the upper byte of the vector is reserved */
		for (int i = 0; i < 8; i++)
			f->time[i] = (uint16_t)(p[4 + 2 * i] << 8 | p[5 + 2 * i]);
		return LSW_DROP_NONE;
	}
	if (f->opcode == LSW_MACCTL_PAUSE) {
		if (len < LSW_PAUSE_BODY_LEN)
			return LSW_DROP_PFC_MALFORMED;
		f->enable = 0xff;
		for (int i = 0; i < 8; i++)
			f->time[i] = (uint16_t)(p[2] << 8 | p[3]);
		return LSW_DROP_NONE;
	}
	return LSW_DROP_MAC_CONTROL_UNKNOWN;
}

void
lsw_pfc_encode(uint8_t *frame, const struct rte_ether_addr *src, uint8_t enable,
	       const uint16_t *time)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;
	uint8_t *p = frame + RTE_ETHER_HDR_LEN;

	memset(frame, 0, LSW_PFC_FRAME_LEN);
	eth->dst_addr = pfc_dmac;
	eth->src_addr = *src;
	eth->ether_type = rte_cpu_to_be_16(LSW_ETHERTYPE_MACCTL);
	p[0] = LSW_MACCTL_PFC >> 8;
	p[1] = LSW_MACCTL_PFC & 0xff;
	p[3] = enable;
	for (int i = 0; i < 8; i++)
		if (enable >> i & 1) {
			p[4 + 2 * i] = (uint8_t)(time[i] >> 8);
			p[5 + 2 * i] = (uint8_t)time[i];
		}
}
