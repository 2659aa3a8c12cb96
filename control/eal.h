/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LSW_EAL_H
#define LSW_EAL_H

#include <stdbool.h>
#include "config.h"

#define LSW_EAL_MAX_ARGS (16 + 2 * LSW_MAX_PORTS)

struct lsw_eal_args {
	int argc;
	char *argv[LSW_EAL_MAX_ARGS];
};

/* Free 2 MB or 1 GB hugepages on this machine. */
bool lsw_hugepages_free(void);
/* The EAL command line for @c: lcores, memory mode, file prefix, one --vdev per virtual port,
 * PCI allow-list or --no-pci, log level. */
void lsw_eal_args_build(const struct lsw_config *c, bool hugepages, int pid,
			struct lsw_eal_args *a);
void lsw_eal_args_free(struct lsw_eal_args *a);
/* Bytes of mbuf data room for the largest configured MTU. */
uint16_t lsw_mbuf_data_room(const struct lsw_config *c);

/* inflight.c: what @port may have handed its PMD that the wire has not carried yet. */
bool lsw_port_is_memif(const struct lsw_config *c, uint16_t port);
/* The shaper's depth: what lsw may send ahead of the line rate (two frames, and
 * LSW.buffer.shaper_burst_us at the port speed). */
uint64_t lsw_port_tx_burst_bytes(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);
/* Slots of a net_memif port's ring: rsize from the devargs, else lsw's choice (a burst's
 * worth, 16 to 1024), which lsw passes as rsize; 0 for other ports. */
uint32_t lsw_port_ring_slots(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);
/* The burst and the ring: what arrives after a pause, beyond the cable. */
uint64_t lsw_port_inflight_bytes(const struct lsw_config *c, uint16_t port, uint32_t speed_mbps);

#endif
