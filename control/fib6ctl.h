/* SPDX-License-Identifier: BSD-3-Clause */
/* The control plane's side of the IPv6 FIB: the only writer of struct lsw_fib6. */
#ifndef LSW_FIB6CTL_H
#define LSW_FIB6CTL_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_rcu_qsbr.h>
#include "lsw/fib6.h"
#include "fibctl.h"
#include "config.h"

struct lsw_fib6_op;

struct lsw_route6 {
	uint8_t prefix[16];
	uint8_t plen;
	uint8_t kind;       /* enum lsw_route_kind */
	uint16_t port;      /* CONNECTED, LOCAL, NEIGH */
	uint32_t value;     /* the rte_fib6 value: next-hop id | LSW_FIB6_NH_BIT, or group id */
};

struct lsw_fib6ctl {
	struct lsw_fib6 *fib;
	struct rte_rcu_qsbr *qsv;         /* the workers' QSBR variable (NULL: none) */
	struct rte_hash *nh_by_key;       /* (ip, port) -> next-hop id */
	struct lsw_nh_meta meta[LSW_MAX_NH6];
	uint32_t n_routes;                /* installed, sorted by (prefix, plen) */
	struct lsw_route6 *routes;        /* [LSW_MAX_ROUTES6] */
	uint64_t swaps;                   /* changes applied: table swaps */
	uint64_t ops;                     /* rule adds and deletes, per table */
	/* Groups freed since the last config change reclaimed them (bit per id): their ECMP
	 * counters start again from zero once no worker holds them (config_apply.c). */
	uint64_t dead_gid[LSW_MAX_NHG6 / 64];
	/* An update begun and not ended: the changes the old table still needs, and the
	 * config whose routes decide what is freed then (NULL: none). */
	struct lsw_fib6_op *pending;      /* [LSW_MAX_ROUTES6 * 2] */
	uint32_t n_pending;
	const struct lsw_config *collect_cfg;
};

/* @num_tbl8: the trie's second-level groups per table (0: the most, 32767). */
struct lsw_fib6ctl *lsw_fib6ctl_create(struct rte_rcu_qsbr *qsv, const char *name,
				       uint32_t num_tbl8);
void lsw_fib6ctl_destroy(struct lsw_fib6ctl *fc);
/* Make the tables say what @n and the learned neighbors say: connected subnets, local
 * addresses, static routes, static and learned neighbors. Routes that stay are never
 * missing. 0; -1: a table or the next hops are full, and nothing changed. */
int lsw_fib6ctl_update(struct lsw_fib6ctl *fc, const struct lsw_config *n, uint64_t now_ns);
/* The same in two steps, for a caller that waits for a grace period of the workers in
 * between anyway (a snapshot's publish): begin changes the standby table and makes it
 * active; end, after the grace period, makes the same changes to the other one and frees
 * what no rule names. @n must live until end. A begin whose end did not come is ended by
 * the next begin, which then waits for a grace period itself. */
int lsw_fib6ctl_update_begin(struct lsw_fib6ctl *fc, const struct lsw_config *n,
			     uint64_t now_ns);
void lsw_fib6ctl_update_end(struct lsw_fib6ctl *fc, const struct lsw_config *n);
/* What NDP taught (@ip on @port is at @mac): 1 if the table changed, 0 if not, -1 full.
 * @c is the running config (the link a global address must be on). */
int lsw_fib6ctl_neigh_learn(struct lsw_fib6ctl *fc, const struct lsw_config *c,
			    const uint8_t *ip, uint16_t port, uint64_t mac, bool update_only,
			    uint64_t now_ns);
int lsw_fib6ctl_nh_find(const struct lsw_fib6ctl *fc, const uint8_t *ip, uint16_t port);

#endif
