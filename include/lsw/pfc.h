/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IEEE 802.1Qbb PFC and 802.3x PAUSE (reference/buffers.md 2.4): the frame, and each port's
 * pause state. A port's state belongs to the worker that owns the port: it receives the
 * port's PFC frames (rx side) and sends the port's own (tx side).
 */
#ifndef LSW_PFC_H
#define LSW_PFC_H

#include <stdint.h>
#include <rte_ether.h>
#include "lsw/drop.h"

#define LSW_MACCTL_PAUSE   0x0001
#define LSW_MACCTL_PFC     0x0101
#define LSW_PFC_FRAME_LEN  60      /* 64 on the wire with the FCS */
#define LSW_PFC_BODY_LEN   20      /* opcode, class-enable vector, 8 timers */
#define LSW_PAUSE_BODY_LEN 4       /* opcode, time */

struct lsw_pfc_frame {
	uint16_t opcode;
	uint8_t enable;        /* PFC: priority n's bit; PAUSE: 0xff */
	uint16_t time[8];      /* quanta of 512 bit times; 0 = resume (XON) */
};

/* Decode the MAC control payload at @p (after the EtherType), @len bytes of it. */
enum lsw_drop lsw_pfc_decode(const uint8_t *p, uint32_t len, struct lsw_pfc_frame *f);
/* Write a 60-byte PFC frame from @src: priorities in @enable get time[n]. */
void lsw_pfc_encode(uint8_t *frame, const struct rte_ether_addr *src, uint8_t enable,
		    const uint16_t *time);

/* A pause of @quanta at @rate_bps, in ticks of @hz. */
static inline uint64_t
lsw_pause_ticks(uint16_t quanta, uint64_t rate_bps, uint64_t hz)
{
	return rate_bps ? (uint64_t)quanta * 512 * hz / rate_bps : 0;
}

/* A port's PFC state (its owner worker's). */
struct lsw_pfc_port {
	/* The flags every loop reads, together in one cache line. */
	uint8_t rx_paused;     /* priorities paused now (by what has been seen) */
	uint8_t xoff_pg;       /* our PGs over their XOFF point: the peer is paused for them */
	uint8_t tx_xoff;       /* priorities to send XOFF for in the next frame */
	uint8_t tx_xon;        /* priorities to send XON for */
	uint8_t ignore_applied; /* the watchdog's ignore-pause queues the pauses reflect */
	uint64_t rx_until[8];  /* priority paused by the peer until this tsc */
	uint64_t rx_since[8];  /* when that pause started; 0 = not paused */
	uint64_t refresh[8];   /* per PG: when the XOFF is sent again */
	uint64_t tx_since[8];  /* per priority: when we started pausing the peer; 0 = not */
};

#endif
