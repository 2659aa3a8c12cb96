/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port may have in flight: handed to its PMD but not yet carried by the wire. A
 * switch ASIC has nothing there; a software port has the shaper's burst (what lsw may send
 * ahead of the line rate) and the PMD's ring (a net_memif ring of 1024 slots holds a
 * megabyte: a cable 80 km long at 100G). After a pause all of it still arrives, so lsw
 * keeps both small and the computed headroom counts them (SONiC's dynamic headroom model). The
 * ring counts twice: lsw decides a pause once per rx burst, and a burst is a ring's worth.
 */
#include <stdlib.h>
#include <string.h>
#include <rte_ether.h>
#include "config.h"
#include "eal.h"

#define MEMIF_MIN_BSIZE  2048 /* net_memif's default packet buffer size */
#define MEMIF_MIN_SLOTS  16   /* half a burst: a full ring waits for the peer's next poll */
#define MEMIF_MAX_SLOTS  1024 /* net_memif's own default */

bool
lsw_port_is_memif(const struct lsw_config *c, uint16_t port)
{
	return strncmp(c->port[port].devargs, "net_memif", 9) == 0;
}

uint32_t
lsw_port_memif_bsize(const struct lsw_config *c, uint16_t port)
{
	const char *bs = strstr(c->port[port].devargs, "bsize=");
	uint32_t frame = c->port[port].mtu + RTE_ETHER_HDR_LEN + 4 + RTE_ETHER_CRC_LEN;
	uint32_t b = MEMIF_MIN_BSIZE;

	if (!lsw_port_is_memif(c, port))
		return 0;
	if (bs != NULL)
		return (uint32_t)atoi(bs + 6);
	/* A frame in one buffer: with 4 KB RoCE frames chained over 2 KB buffers, net_memif
	 * 22.11 delivered some frames split here (their tails arrived as frames of their own,
	 * dropped as UNKNOWN_ETHERTYPE). */
	while (b < frame)
		b *= 2;
	return b;
}

uint64_t
lsw_port_tx_burst_bytes(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps)
{
	const struct lsw_buffer_conf *b = &c->qos.buf;
	uint64_t frame = c->port[port].mtu + RTE_ETHER_HDR_LEN + 4 + b->shaper_overhead;
	/* Two frames, so that the largest one always fits behind a PFC frame, and the time
	 * a worker may wake late at the line rate, so that the rate holds. */
	return 2 * frame + (uint64_t)speed_mbps * b->shaper_burst_us / 8;
}

uint32_t
lsw_port_ring_slots(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps)
{
	const char *rs;
	uint32_t slots = MEMIF_MIN_SLOTS;

	if (!lsw_port_is_memif(c, port))
		return 0;
	rs = strstr(c->port[port].devargs, "rsize=");
	if (rs != NULL) /* the user's choice: 2^rsize slots */
		return 1u << (uint32_t)atoi(rs + 6);
	/* A burst's worth of slots, a power of two between the bounds. */
	uint32_t frame = RTE_MIN(lsw_port_memif_bsize(c, port),
				 c->port[port].mtu + RTE_ETHER_HDR_LEN + 4u);
	/* A slot carries a frame (or a bsize's part of one). */
	while (slots < MEMIF_MAX_SLOTS &&
	       (uint64_t)slots * frame < lsw_port_tx_burst_bytes(c, port, speed_mbps))
		slots *= 2;
	return slots;
}

uint32_t
lsw_port_ring_frames(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps)
{
	uint32_t slots = lsw_port_ring_slots(c, port, speed_mbps);

	/* The rx burst in which the PG crossed its XOFF point: the worker admits it whole
	 * before it decides to pause (a ring of frames at most on net_memif, LSW_BURST
	 * elsewhere). On net_memif the ring refills behind it if the worker is preempted
	 * before the XOFF goes out: with only the ring counted, a 1 Gb/s PFC incast of 4 KB
	 * frames (lab_dcqcn in CI) dropped one frame as HEADROOM_OVERFLOW. What waits before
	 * other PMDs (a NIC's rx ring, a tap's kernel queue) is not bounded by lsw. */
	if (!lsw_port_is_memif(c, port))
		return LSW_BURST;
	return slots + RTE_MIN(slots, (uint32_t)LSW_BURST);
}
