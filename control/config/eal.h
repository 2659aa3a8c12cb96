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

/* Bytes of free hugepages (2 MB or 1 GB) on this machine. */
uint64_t lsw_hugepages_free(void);
/* The EAL command line for @c: lcores, memory mode, file prefix, one --vdev per virtual port,
 * PCI allow-list or --no-pci, log level. */
void lsw_eal_args_build(const struct lsw_config *c, bool hugepages, int pid,
			struct lsw_eal_args *a);
void lsw_eal_args_free(struct lsw_eal_args *a);
/* Bytes of mbuf data room for the largest configured MTU. */
uint16_t lsw_mbuf_data_room(const struct lsw_config *c);
/* Bytes lsw allocates from the EAL's memory for @c at start, and with @later what it may
 * allocate later too (capture, timeline, config.set), with or without hugepages. */
uint64_t lsw_eal_memory_bytes(const struct lsw_config *c, bool hugepages, bool later);
/* The MB lsw asks the EAL for (-m) when the config does not say (LSW.global.memory_mb): all
 * of it, and the heap's overhead. */
uint32_t lsw_eal_memory_mb(const struct lsw_config *c, bool hugepages);
/* The least LSW.global.memory_mb lsw starts with (without hugepages, which takes the most):
 * what it allocates at start and the heap's overhead. */
uint32_t lsw_eal_memory_min_mb(const struct lsw_config *c);

#endif
