/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live capture, as tcpdump on a switch port: the worker that receives or sends a frame of a
 * captured port runs the session's filter on it and copies what it keeps into its own ring
 * (SP/SC: the worker produces, the main lcore consumes), from a mempool of its own; the
 * control plane (control/capture.c) drains the rings into each session's pcapng file. A full
 * ring or an empty pool costs a counter (CAPTURE_MISSED), never a wait. What the workers
 * need (which ports and directions, the filters, the snap length) is in the immutable
 * snapshot, so that with nothing captured the fast path pays one predictable branch.
 */
#ifndef LSW_CAPTURE_H
#define LSW_CAPTURE_H

#include <stdint.h>

#define LSW_CAPTURE_MAX    4     /* sessions running at once */
#define LSW_CAPTURE_RING   1024  /* records per worker ring (a power of two) */
/* The copies' mempool: 2 KB segments (a jumbo frame takes a chain of five), enough for every
 * worker's ring of full-size frames and what the main lcore holds while it writes them. */
#define LSW_CAPTURE_MBUFS  8192
#define LSW_CAPTURE_SEG    2048
#define LSW_CAPTURE_SNAPLEN_MAX 262144 /* the default: whole frames (tcpdump's -s 0) */

enum lsw_capture_dir { LSW_CAPTURE_RX, LSW_CAPTURE_TX };
/* Direction bits of a session: 1 << enum lsw_capture_dir. */
enum { LSW_CAPTURE_DIR_RX = 1, LSW_CAPTURE_DIR_TX = 2, LSW_CAPTURE_DIR_BOTH = 3 };

struct rte_mbuf;
struct rte_bpf;

/* One copied frame, worker to main lcore (the ring's element). */
struct lsw_capture_rec {
	struct rte_mbuf *m;    /* the copy, from the capture pool: the first snaplen bytes */
	uint64_t tsc;          /* when it was received (the burst's clock) or handed to the PMD */
	uint32_t len;          /* the frame's length on the wire (without FCS) */
	uint8_t port;          /* lsw port */
	uint8_t dir;           /* enum lsw_capture_dir */
	uint8_t slot;          /* the session's slot (struct lsw_capture_sess_dp) */
	uint8_t pad;
};

/* A running session as the workers see it; part of the snapshot. */
struct lsw_capture_sess_dp {
	const struct rte_bpf *bpf;      /* NULL: every frame */
	uint64_t (*jit)(void *mbuf);    /* the filter compiled to native code; NULL: interpret */
	uint32_t snaplen;               /* bytes of each frame kept */
	uint8_t slot;                   /* where its counters are (lsw_lcore_counters) */
	uint8_t port;
	uint8_t dirs;                   /* LSW_CAPTURE_DIR_* */
};

struct lsw_capture_dp {
	/* The one test on the fast path: a bit per port with a session on that direction. */
	uint32_t rx_ports;
	uint32_t tx_ports;
	uint8_t n;                                 /* sessions in s[] */
	struct lsw_capture_sess_dp s[LSW_CAPTURE_MAX];
};

#endif
