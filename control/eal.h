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

#endif
