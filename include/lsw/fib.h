/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 forwarding table shared by the control plane (the only writer) and the workers.
 *
 * An rte_lpm rule's 24-bit value is either a next-hop id (LSW_FIB_NH_BIT set) or a next-hop
 * group id. Resolved neighbors are /32 host routes to their next hop, so a single lookup of
 * a destination or of a next hop's address gives the MAC to write. Connected subnets point
 * to a GLEAN group: the destination itself must be resolved by ARP.
 *
 * Concurrency: rte_lpm deletes are made safe by the RCU QSBR variable the workers report to.
 * Groups are immutable; the control plane publishes a new one by pointer store and frees the
 * old after a grace period. A next hop's MAC is one 64-bit word (include/lsw/shared.h).
 */
#ifndef LSW_FIB_H
#define LSW_FIB_H

#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_lpm.h>
#include <rte_ether.h>
#include "lsw/common.h"

#define LSW_FIB_NH_BIT      (1u << 23)
#define LSW_NH_MAC_VALID    (UINT64_C(1) << 63)

enum lsw_nhg_type {
	LSW_NHG_FORWARD = 0, /* ECMP over member next hops */
	LSW_NHG_LOCAL,       /* one of the switch's own addresses */
	LSW_NHG_GLEAN,       /* connected subnet on port: resolve the destination by ARP */
	LSW_NHG_BLACKHOLE,   /* drop, counted as BLACKHOLE_ROUTE */
};

struct lsw_nhg {                      /* immutable once published */
	uint8_t type;                 /* enum lsw_nhg_type */
	uint8_t n;                    /* FORWARD: number of members */
	uint16_t port;                /* GLEAN: the connected port */
	uint32_t member[LSW_MAX_ECMP]; /* FORWARD: next-hop ids */
};

struct lsw_nh {
	uint32_t ip;   /* cp: set before any rule or group refers to the id; dp: ro */
	uint16_t port; /* cp: same; dp: ro */
	uint64_t mac;  /* cp: lsw_publish; dp: lsw_acquire. LSW_NH_MAC_VALID | 48-bit MAC */
};

struct lsw_fib {
	struct rte_lpm *lpm;                  /* cp: add/delete under RCU; dp: lookup */
	struct lsw_nhg *group[LSW_MAX_NHG];   /* cp: lsw_publish; dp: lsw_acquire */
	struct lsw_nh nh[LSW_MAX_NH];
};

/* The six bytes of @a in the low bytes of a word, as they lie in memory (little-endian).
 * From two loads: a copy into a zeroed word went through the stack, and its wide load
 * waited on two narrow stores (no store forwarding). */
static inline uint64_t
lsw_mac_to_u64(const struct rte_ether_addr *a)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, a->addr_bytes, sizeof(lo));
	memcpy(&hi, a->addr_bytes + 4, sizeof(hi));
	return (uint64_t)hi << 32 | lo;
}
_Static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN,
	       "MACs in words (lsw_mac_to_u64, lsw_l2_write) are shifted as on x86 and Arm");

static inline void
lsw_u64_to_mac(uint64_t v, struct rte_ether_addr *a)
{
	memcpy(a->addr_bytes, &v, RTE_ETHER_ADDR_LEN);
}

/* The resolved MAC of neighbor @ip on @port, as LSW_NH_MAC_VALID | mac, or 0. */
static inline uint64_t
lsw_fib_neigh_mac(const struct lsw_fib *fib, uint32_t ip, uint16_t port)
{
	uint32_t v;

	if (rte_lpm_lookup(fib->lpm, ip, &v) != 0 || !(v & LSW_FIB_NH_BIT))
		return 0;
	const struct lsw_nh *nh = &fib->nh[v & ~LSW_FIB_NH_BIT];
	if (nh->ip != ip || nh->port != port)
		return 0;
	return lsw_acquire(&nh->mac);
}

#endif
