/* SPDX-License-Identifier: BSD-3-Clause */
/* The control plane's side of the FIB: the only writer of struct lsw_fib. */
#ifndef LSW_FIBCTL_H
#define LSW_FIBCTL_H

#include <stdint.h>
#include <stdbool.h>
#include <rte_rcu_qsbr.h>
#include "lsw/fib.h"
#include "config.h"

enum lsw_route_kind {
	LSW_RT_CONNECTED,   /* subnet of a port address: glean */
	LSW_RT_LOCAL,       /* a port address /32 */
	LSW_RT_STATIC,      /* STATIC_ROUTE */
	LSW_RT_NEIGH,       /* host route of a resolved neighbor */
};
extern const char *const lsw_route_kind_names[]; /* route.list's "type" */

enum lsw_nh_state {
	LSW_NH_FREE = 0,
	LSW_NH_INCOMPLETE,  /* wanted by a route, not resolved yet */
	LSW_NH_LEARNED,     /* resolved by ARP */
	LSW_NH_STATIC,      /* NEIGH table */
	LSW_NH_RECLAIM,     /* forgotten; the slot is free after the grace period */
};
extern const char *const lsw_nh_state_names[];   /* neighbor.list's "state" */

struct lsw_route {
	uint32_t prefix;
	uint8_t plen;
	uint8_t kind;       /* enum lsw_route_kind */
	uint16_t port;      /* CONNECTED, LOCAL */
	uint32_t value;     /* the LPM value: next-hop id | LSW_FIB_NH_BIT, or group id */
};

struct lsw_nh_meta {
	uint8_t state;      /* enum lsw_nh_state */
	bool host_route;    /* its /32 is in the LPM */
	uint32_t refs;      /* static routes through it */
	uint64_t updated_ns;
};

/* Fixed group ids; FORWARD groups are allocated after them. */
#define LSW_NHG_ID_LOCAL      0
#define LSW_NHG_ID_BLACKHOLE  1
#define LSW_NHG_ID_GLEAN0     2
#define LSW_NHG_ID_FIRST_FREE (LSW_NHG_ID_GLEAN0 + LSW_MAX_PORTS)

struct lsw_fibctl {
	struct lsw_fib *fib;
	struct rte_hash *nh_by_ip;        /* ip -> next-hop id */
	struct lsw_nh_meta meta[LSW_MAX_NH];
	uint32_t n_routes, cap;
	struct lsw_route *routes;
	uint32_t next_group;              /* one past the highest group id ever used */
	/* Freed by lsw_fibctl_update, reclaimed once no worker can hold them. */
	uint32_t n_dead_gid, dead_gid[LSW_MAX_NHG];
	uint32_t n_dead_nh, dead_nh[LSW_MAX_NH];
};

struct lsw_fibctl *lsw_fibctl_create(struct rte_rcu_qsbr *qsv, const char *name);
void lsw_fibctl_destroy(struct lsw_fibctl *fc);
/* Connected subnets, local addresses, static routes and static neighbors of @c. */
int lsw_fibctl_load(struct lsw_fibctl *fc, const struct lsw_config *c);
/* Go from what @o (NULL: nothing) installed to what @n says, without a moment where a
 * route that stays is missing. Groups and next hops it frees wait in dead_gid/dead_nh for
 * lsw_fibctl_reclaim, which the caller runs after an RCU grace period. -2: no room for @n,
 * nothing changed; -1: a table filled up half-way (the caller goes back to @o). */
int lsw_fibctl_update(struct lsw_fibctl *fc, const struct lsw_config *o,
		      const struct lsw_config *n, uint64_t now_ns);
void lsw_fibctl_reclaim(struct lsw_fibctl *fc);

/* What ARP taught: returns 1 if the table changed, 0 if not, -1 if full. */
int lsw_fibctl_neigh_learn(struct lsw_fibctl *fc, uint32_t ip, uint16_t port, uint64_t mac,
			   bool update_only, uint64_t now_ns);
int lsw_fibctl_nh_find(const struct lsw_fibctl *fc, uint32_t ip);

#endif
