/* SPDX-License-Identifier: BSD-3-Clause */
/* Limits and small helpers shared by the dataplane, the control plane and the tests. */
#ifndef LSW_COMMON_H
#define LSW_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/resource.h>
#include "lsw/shared.h"

#ifndef LSW_VERSION
#define LSW_VERSION "0.0.0"
#endif

#define LSW_MAX_PORTS     32    /* switch ports (index = position in the config) */
#define LSW_MAX_WORKERS   16    /* worker lcores */
#define LSW_MAX_ADDRS     4     /* IPv4 addresses per port */
#define LSW_MAX_ADDRS6    4     /* IPv6 addresses per port, besides its link-local one */
#define LSW_MAX_ECMP      16    /* members per next-hop group */
#define LSW_MAX_NH        4096  /* next hops = neighbors, resolved or not */
#define LSW_MAX_NHG       4096  /* next-hop groups */
#define LSW_MAX_ROUTES    65536 /* LPM rules, including host routes of neighbors */
#define LSW_MAX_ROUTES6   32768 /* IPv6 rules, including host routes of neighbors */
#define LSW_NAME_LEN      32
#define LSW_DEVARGS_LEN   256
#define LSW_BURST         32    /* rx/tx burst, as in l3fwd */
#define LSW_NUM_TC        8     /* traffic classes */
#define LSW_NUM_PG        8     /* ingress priority groups per port */
#define LSW_NUM_QUEUES    8     /* egress queues per port */
#define LSW_MAX_POOLS     8     /* buffer pools */
#define LSW_MAX_FRAME     9238  /* 9216-byte MTU + Ethernet, one VLAN tag and FCS */
#define LSW_MIN_MTU       68    /* RFC 791 */
#define LSW_MAX_MTU       9216
#define LSW_CNP_TC_DSCP   0xff  /* LSW.global.cnp_tc "dscp": CNPs classified like the rest */
#define LSW_BTH_OP_CNP    0x81  /* RoCEv2 congestion notification packet */

/* IPv4 addresses are kept in host byte order everywhere outside packet headers:
 * rte_lpm takes them that way and comparisons read naturally. */
#define LSW_IPV4(a, b, c, d) \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

static inline uint32_t
lsw_prefix_mask(uint8_t plen)
{
	return plen == 0 ? 0 : ~UINT32_C(0) << (32 - plen);
}

/* Give thread @tid (0: the calling process) ten nice steps more than it has: ten times the
 * share of its siblings, however the whole was started (an absolute -10 would put it below
 * the rest of a run started with nice -15). Without privilege it stays as it is. */
static inline void
lsw_raise_priority(id_t tid)
{
	errno = 0;
	int now = getpriority(PRIO_PROCESS, tid);

	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, tid, now - 10 < -20 ? -20 : now - 10);
}

#endif
