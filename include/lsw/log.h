/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LSW_LOG_H
#define LSW_LOG_H

#include <rte_log.h>

extern int lsw_logtype;

/* LSW_LOG(INFO, "port %s up", name): DPDK's logger under the "lsw" type, one line each. */
#define LSW_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, lsw_logtype, "lsw: " fmt "\n", ##__VA_ARGS__)

#endif
