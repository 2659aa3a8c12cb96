/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 forwarding table shared by the control plane (the only writer) and the workers.
 *
 * DPDK's rte_fib6 (DIR-24-8-style trie) does the longest-prefix match: it takes ::/0, and
 * looked up faster than rte_lpm6 here (49 vs 38 M lookups/s); rte_lpm6 refuses depth 0,
 * keeps 21-bit next hops and costs a fixed 64 MiB. Next hops are 2 bytes (RTE_FIB6_TRIE_2B,
 * values up to 2^15 - 1), so that the trie's 2^24-entry first level is 32 MiB, not 64.
 * A value is, as in IPv4's table, a next-hop id | LSW_FIB6_NH_BIT or a group id; a miss
 * returns LSW_FIB6_MISS.
 *
 * Concurrency: rte_fib6 has no RCU support in DPDK 22.11: a delete or a replace frees and
 * rewrites tbl8 groups that a concurrent lookup may be reading. So there are two tables
 * with the same routes. The control plane changes the standby one (no worker reads it),
 * publishes it as active, waits for an RCU QSBR grace period of the workers' variable (no
 * worker still reads the old one), then makes the same change to the old one, which becomes
 * the standby (control/fib6ctl.c). Workers read the active index once per packet.
 * Groups and next hops follow IPv4's rules (include/lsw/fib.h).
 */
#ifndef LSW_FIB6_H
#define LSW_FIB6_H

#include <stdint.h>
#include <rte_fib6.h>
#include "lsw/fib.h"
#include "lsw/ip6.h"
#include "lsw/shared.h"

#define LSW_MAX_NH6         4096
#define LSW_MAX_NHG6        1024
#define LSW_FIB6_NH_BIT     (1u << 14)
#define LSW_FIB6_MISS       0x3fffu   /* neither a group id nor a next-hop id */

/* Fixed group ids, as IPv4's; FORWARD groups after them. */
#define LSW_NHG6_ID_LOCAL       0
#define LSW_NHG6_ID_BLACKHOLE   1
#define LSW_NHG6_ID_GLEAN0      2
#define LSW_NHG6_ID_FIRST_FREE  (LSW_NHG6_ID_GLEAN0 + LSW_MAX_PORTS)

struct lsw_nh6 {
	uint8_t ip[LSW_IP6_LEN]; /* cp: set before any rule or group refers to the id */
	uint16_t port;           /* cp: same; dp: ro */
	uint64_t mac;            /* cp: lsw_publish; dp: lsw_acquire. LSW_NH_MAC_VALID | MAC */
};

struct lsw_fib6 {
	struct rte_fib6 *tbl[2];                /* cp: changes the standby only; dp: lookup */
	uint32_t active;                        /* cp: lsw_publish; dp: lsw_acquire */
	struct lsw_nhg *group[LSW_MAX_NHG6];    /* cp: lsw_publish; dp: lsw_acquire */
	struct lsw_nh6 nh[LSW_MAX_NH6];
};

/* The value of the route for @ip (LSW_FIB6_MISS if none). */
static inline uint32_t
lsw_fib6_lookup(const struct lsw_fib6 *f, const uint8_t *ip)
{
	uint8_t a[1][LSW_IP6_LEN];
	uint64_t v;

	memcpy(a[0], ip, LSW_IP6_LEN);
	rte_fib6_lookup_bulk(f->tbl[lsw_acquire(&f->active)], a, &v, 1);
	return (uint32_t)v;
}

/* The resolved MAC of neighbor @ip on @port (LSW_NH_MAC_VALID | mac), or 0. A global address
 * by its /128 host route; a link-local one by @nh_hint, the next hop a route named. */
static inline uint64_t
lsw_fib6_neigh_mac(const struct lsw_fib6 *f, const uint8_t *ip, uint16_t port, uint32_t nh_hint)
{
	uint32_t v = nh_hint;

	if (v >= LSW_MAX_NH6) {
		v = lsw_fib6_lookup(f, ip);
		if (v == LSW_FIB6_MISS || !(v & LSW_FIB6_NH_BIT))
			return 0;
		v &= ~LSW_FIB6_NH_BIT;
	}
	const struct lsw_nh6 *nh = &f->nh[v];
	if (!lsw_ip6_eq(nh->ip, ip) || nh->port != port)
		return 0;
	return lsw_acquire(&nh->mac);
}

#endif
