/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop (and mark) snapshots: a worker that drops or ECN-marks a packet copies its first
 * bytes and where it was into its own ring (SP/SC, the worker produces, the main lcore
 * consumes: control/dropsnap.c), so that an operator can see which RDMA packets were
 * dropped or marked, and why. A full ring costs a counter, never a wait.
 */
#ifndef LSW_DROPSNAP_H
#define LSW_DROPSNAP_H

#include <stdint.h>

#define LSW_DROPSNAP_BYTES     128   /* bytes of each packet kept */
#define LSW_DROPSNAP_RING      1024  /* entries per worker ring (a power of two) */
#define LSW_DROPSNAP_NONE      0xff  /* port or queue unknown */
#define LSW_DROPSNAP_PORT_NONE 0xffff

/* dp->dropsnap_mode bits (the control plane writes, workers read). */
enum { LSW_DROPSNAP_DROPS = 1, LSW_DROPSNAP_MARKS = 2 };
/* A trim's snapshot is taken with the drops': the trim as it left (or its reason, when the
 * trim queue refused it), after its original's drop. */
enum lsw_dropsnap_kind { LSW_DROPSNAP_DROP, LSW_DROPSNAP_MARK, LSW_DROPSNAP_TRIM };
extern const char *const lsw_dropsnap_kind_names[]; /* "drop", "mark", "trim" */

struct lsw_dropsnap {
	uint64_t tsc;          /* when */
	uint16_t len;          /* the packet's length (pkt_len) */
	uint16_t reason;       /* enum lsw_drop; 0 for marks and trims taken */
	uint16_t rx_port_id;   /* DPDK port it arrived on (mbuf port); LSW_DROPSNAP_PORT_NONE */
	uint8_t kind;          /* enum lsw_dropsnap_kind */
	uint8_t port;          /* the lsw port the drop or mark is counted on */
	uint8_t out_port;      /* where it was going, once routed; LSW_DROPSNAP_NONE before */
	uint8_t queue;         /* its egress queue, once classified; LSW_DROPSNAP_NONE */
	uint8_t caplen;        /* bytes in data */
	uint8_t pad;
	uint8_t data[LSW_DROPSNAP_BYTES];
};
/* rte_ring_create_elem takes elements of a multiple of 4 bytes. */
_Static_assert(sizeof(struct lsw_dropsnap) % 4 == 0, "a snapshot is whole ring words");

#endif
