/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IEEE 802.1Qbb PFC and 802.3x PAUSE (IEEE 802.1Qbb): the frame, and each port's
 * pause state. A port's state belongs to the worker that owns the port: it receives the
 * port's PFC frames (rx side) and sends the port's own (tx side).
 */
#ifndef LSW_PFC_H
#define LSW_PFC_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "lsw/drop.h"
#include "lsw/shared.h"

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

/* A port's PFC state: its owner worker's, which alone writes it. The control plane reads
 * rx_paused, rx_until, rx_since and tx_since (pfc.stats, the watchdog): the owner stores
 * those with lsw_store_relaxed, and they read them with lsw_pfc_rx/tx_running. */
/* One vocabulary for PFC, here and in lsw-host: rx_* is what the peer's frames do to us
 * (it pauses us), tx_* what ours do to the peer (we pause it). */
struct lsw_pfc_port {
	/* The flags every loop reads, together in one cache line. */
	uint8_t rx_paused;      /* priorities paused now (by what has been seen) */
	uint8_t tx_xoff_pg;     /* our PGs over their XOFF point: the peer is paused for them */
	uint8_t tx_xoff;        /* priorities to send XOFF for in the next frame */
	uint8_t tx_xon;         /* priorities to send XON for */
	uint8_t tx_paused;      /* priorities whose last frame from us was an XOFF */
	uint8_t ignore_applied; /* the watchdog's ignore-pause queues the pauses reflect */
	uint8_t rx_port_paused; /* an 802.3x PAUSE stops the whole port until rx_port_until */
	uint64_t rx_port_until;
	uint64_t rx_until[8];  /* priority paused by the peer until this tsc */
	uint64_t rx_since[8];  /* when that pause started; 0 = not paused */
	uint64_t tx_refresh[8]; /* per PG: when the XOFF is sent again */
	uint64_t tx_since[8];  /* per priority: when we started pausing the peer; 0 = not */
};

/* Readers on another lcore (RPC, watchdog): ticks of @prio's pause from the peer still
 * running at @now, and whether it still runs. Read as it stands, so a timestamp may be
 * later than @now: that counts as nothing rather than wrapping. */
static inline uint64_t
lsw_pfc_rx_running(const struct lsw_pfc_port *pf, int prio, uint64_t now, bool *paused)
{
	uint8_t mask = lsw_load_relaxed(&pf->rx_paused);
	uint64_t since = lsw_load_relaxed(&pf->rx_since[prio]);
	uint64_t until = lsw_load_relaxed(&pf->rx_until[prio]);

	*paused = false;
	if (!(mask >> prio & 1) || since == 0)
		return 0;
	*paused = (int64_t)(until - now) > 0;
	uint64_t end = *paused ? now : until;
	return (int64_t)(end - since) > 0 ? end - since : 0;
}

/* The same for our pause of the peer on @prio (since the XOFF, until the XON). */
static inline uint64_t
lsw_pfc_tx_running(const struct lsw_pfc_port *pf, int prio, uint64_t now, bool *pausing)
{
	uint64_t since = lsw_load_relaxed(&pf->tx_since[prio]);

	*pausing = since != 0;
	return since != 0 && (int64_t)(now - since) > 0 ? now - since : 0;
}

#endif
