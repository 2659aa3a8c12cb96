/* SPDX-License-Identifier: BSD-3-Clause */
/* lsw-agent's user side: what its parts (main.c, rpc.c, check.c, nic.c) share. */
#ifndef LSW_AGENT_USER_H
#define LSW_AGENT_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "agent.h"

/* A JSON-RPC connection to lsw (Unix socket, or tcp:HOST:PORT). */
struct agent_rpc {
	int fd;
	char *buf;            /* what has arrived and is not answered yet */
	size_t len, cap;
	unsigned int id;
};

int agent_rpc_open(struct agent_rpc *r, const char *where, char *err, size_t errlen);
/* The result of @method with @params (stolen, may be NULL), or NULL with the error in @err. */
json_t *agent_rpc_call(struct agent_rpc *r, const char *method, json_t *params, char *err,
		       size_t errlen);
void agent_rpc_close(struct agent_rpc *r);

/* One flow's counters summed over the CPUs. */
struct agent_flow {
	struct agent_flow_key k;
	struct agent_flow_ctr c;
};

struct agent_view {
	char iface[32];
	double seconds;
	struct agent_flow *flows;
	unsigned int n_flows;
	struct agent_pfc_ctr pfc[2][9];   /* [dir][priority; 8 = 802.3x PAUSE] */
	json_t *nic;                      /* a RoCE NIC's own counters, when it has them */
};

/* What the host is told to be, or seems to be from its traffic. */
struct agent_host {
	uint32_t ip;          /* network order; 0: unknown */
	char mac[24];         /* "" : unknown */
	char port[32];        /* the switch port, given or found */
	int dscp, prio;       /* -1: from the traffic */
	int cnp_dscp;         /* -1: from the traffic */
	unsigned int mtu;     /* the interface's */
};

/* check.c: compare the host with the switch's config and counters. @before is what the
 * switch counted when the agent started (for deltas); returns a document with "switch",
 * "checks" and "qps", or NULL with the reason in @err. */
json_t *agent_switch_before(struct agent_rpc *r, struct agent_host *h, char *err, size_t len);
json_t *agent_compare(struct agent_rpc *r, struct agent_host *h, const struct agent_view *v,
		      json_t *before, char *err, size_t len);

/* nic.c: a RoCE device's hw_counters and ethtool's per-priority pause counters of @iface,
 * each with the file or ioctl it came from; an empty object when there are none. */
json_t *agent_nic_counters(const char *iface);

#endif
