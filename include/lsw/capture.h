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

/* Sessions running at once: every port of a lab's switch (lsw-lab --capture), both ways. */
#define LSW_CAPTURE_MAX    16
/*
 * The copies wait in the worker's ring until the main loop writes them, so what the pools
 * hold is what a capture rides out while the main lcore is away (another process on its
 * CPU, a slow disk). Two pools, so that a whole frame costs one copy and a header one small
 * one: frames of up to LSW_CAPTURE_SMALL bytes kept (PFC, ACKs, CNPs, or any frame under a
 * snap length as small) come from the small pool, the others from the big one, whose
 * segments hold the switch's largest frame (lsw_mbuf_data_room). At a 4 KB RoCE lab's
 * speeds (each port 1 Gb/s, all of them captured both ways: about 2 Gb/s of whole frames
 * through a switch) the big pool rides out a quarter of a second. A worker's ring takes
 * every copy of both pools, so that it is never full before they are empty.
 */
#define LSW_CAPTURE_POOL_BYTES (64u << 20) /* the big pool: LSW_CAPTURE_POOL_BYTES / frame */
#define LSW_CAPTURE_SMALL      256         /* bytes of a small copy */
#define LSW_CAPTURE_SMALL_N    32768       /* small copies (about 20 MB) */
#define LSW_CAPTURE_OBJ_EXTRA  320         /* an mbuf's header, headroom and pool header */
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
