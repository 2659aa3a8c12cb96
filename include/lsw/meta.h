/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lsw keeps in each mbuf: the packet's record (struct lsw_pkt_meta, a DPDK dynamic
 * field) and the unicast flag (a dynamic flag), registered once at start (dataplane/meta.c).
 * Every stage of the dataplane reads or writes them; this header depends on nothing else of
 * lsw's, so that no file has to include the buffer's or the worker's headers for them.
 */
#ifndef LSW_META_H
#define LSW_META_H

#include <stdint.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

/* Per-packet record, in an mbuf dynamic field. */
struct lsw_pkt_meta {
	uint32_t charged;     /* bytes charged: the frame rounded up to cells */
	uint8_t in_port;
	uint8_t pg;
	uint8_t out_port;
	uint8_t queue;
	uint8_t tc;
	uint8_t in_part;      /* enum lsw_buffer_part */
	uint8_t eg_part;
	uint8_t flags;        /* enum lsw_meta_flag */
};

enum lsw_meta_flag {
	LSW_META_CHARGED = 1, /* admitted: release on the way out */
	LSW_META_CTL = 2,     /* switch-originated (ARP, ICMP): control queue, not charged */
	LSW_META_ROCE = 4,    /* RoCEv2 */
	LSW_META_CNP = 8,     /* RoCEv2 CNP: never marked nor WRED-dropped */
	LSW_META_TRIMMED = 16, /* a trim (dataplane/trim.c): never marked nor WRED-dropped */
	LSW_META_UNSCHED = 32, /* its DSCP is in LSW.buffer.abm_unsched_dscp: ABM's alpha_u */
};

extern int lsw_meta_offset;
/* An ol_flags bit (a DPDK dynamic flag) on a frame whose destination MAC lsw wrote and
 * found unicast (lsw_l2_write): the port's owner counts it as unicast without reading the
 * frame, whose line another worker wrote (tx.c). Every other frame is read. */
extern uint64_t lsw_ucast_flag;
/* Registers the meta's dynamic field and the flag. */
int lsw_meta_register(void);

static inline struct lsw_pkt_meta *
lsw_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, lsw_meta_offset, struct lsw_pkt_meta *);
}

#endif /* LSW_META_H */
