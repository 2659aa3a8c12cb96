/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test fixture: EAL without hugepages or PCI, a mempool, and a switch built from a JSON
 * config the way lsw builds it (config validation, FIB, snapshot), but with no ports
 * started: packets are fed to lsw_process_burst and read back from the worker's tx buffers,
 * so nothing is ever sent and time is whatever the test says.
 */
#ifndef LSW_TEST_HARNESS_H
#define LSW_TEST_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <rte_mbuf.h>
#include "lsw/dataplane.h"
#include "fibctl.h"
#include "fib6ctl.h"
#include "switch.h"

#define T_HZ UINT64_C(1000000000) /* fake TSC: one tick per nanosecond */

struct t_switch {
	struct lsw_switch sw;
	struct lsw_worker w;
	struct lsw_snapshot *conf;
	bool ports_started;
};

void t_eal_init(void);
struct rte_mempool *t_pool(void);
/* Build a switch from @json (must validate). Ports get DPDK ids 0..n-1 and never start. */
struct t_switch *t_switch_new(const char *json);
void t_switch_free(struct t_switch *t);
/* Create the vdevs of the config and start the ports as lsw does (net_null in tests). */
int t_start_ports(struct t_switch *t);
/* Rebuild the snapshot from sw.cfg after a test changed it (tables carried over). */
void t_rebuild(struct t_switch *t);
/* Feed one frame in on @port at time @now. */
void t_rx(struct t_switch *t, uint16_t port, const void *frame, uint16_t len, uint64_t now);
/* Take the @i-th frame queued for tx on @port (NULL if none); the caller frees it. */
struct rte_mbuf *t_tx_take(struct t_switch *t, uint16_t port);
uint16_t t_tx_count(struct t_switch *t, uint16_t port);
uint64_t t_drops(struct t_switch *t, uint16_t port, enum lsw_drop d);
uint64_t t_event(struct t_switch *t, enum lsw_event e);
struct rte_mbuf *t_mbuf(const void *frame, uint16_t len);

/* Frame builders: return the length written into @buf. */
struct t_flow {
	const char *dmac, *smac;
	const char *src, *dst;
	uint8_t proto;          /* IPPROTO_UDP by default */
	uint16_t sport, dport;
	uint8_t ttl;            /* 64 by default */
	uint16_t payload;       /* bytes after the L4 header */
	int vlan;               /* >= 0: add an 802.1Q tag with this VID */
	bool df;
	uint8_t tos;            /* DSCP << 2 | ECN (IPv6: the traffic class) */
	uint32_t flow_label;    /* IPv6 */
	uint8_t icmp_type;      /* IPv6 with proto IPPROTO_ICMPV6: the type (checksum set) */
};
uint16_t t_build_ipv4(uint8_t *buf, const struct t_flow *f);
uint16_t t_build_arp(uint8_t *buf, uint16_t op, const char *smac, const char *sip,
		     const char *tmac, const char *tip, const char *eth_dst);
uint32_t t_ip(const char *s);
/* IPv6: @src and @dst of @f are IPv6 text; proto UDP, TCP or ICMPv6 (8-byte header). */
uint16_t t_build_ipv6(uint8_t *buf, const struct t_flow *f);
void t_ip6(const char *s, uint8_t *ip);
/* Call RPC @method with @params (JSON text, NULL for none) on the test switch, as the socket
 * would; the response object (the caller frees it). The harness follows the snapshot. */
json_t *t_rpc(struct t_switch *t, const char *method, const char *params);
/* The "result" of a call that must succeed (a borrowed reference into *@resp). */
/* The first error's path in a refused call's response. */
const char *t_error_path(json_t *resp);
json_t *t_rpc_ok(struct t_switch *t, const char *method, const char *params, json_t **resp);
void t_mac(const char *s, struct rte_ether_addr *m);
/* Config tests: @base with the RFC 7386 merge patch @patch applied, validated. */
struct lsw_config *t_config_patch(const char *base, const char *patch, struct lsw_errs *errs);
/* Each of @n patches over @base must be refused with an error at path[i] holding
 * words[i]; the arrays are {patch, path, words} triples. */
void t_config_refused(const char *base, const char *const (*cases)[3], size_t n);
/* Does the IPv4 header at @ip carry a correct checksum? */
bool t_ipv4_csum_ok(const struct rte_ipv4_hdr *ip);
/* Damage the IPv4 frame of *@len bytes in @buf as @kind says: 1 a bit of the Ethernet or
 * IPv4 header flipped; 2 a bit of the IPv4 header (at byte 14) flipped, its checksum made
 * right again; 3 cut short, or padded with what @buf held; any other, nothing. */
void t_mangle_ipv4(uint8_t *buf, uint16_t *len, int kind);

#endif

/*
 * The switch most tests use:
 *   Ethernet0  10.0.0.0/31   host 10.0.0.1 (learned by ARP)           mtu 9100
 *   Ethernet4  10.0.1.0/31   next hop 10.0.1.1 = 02:00:00:00:04:01     mtu 1500
 *   Ethernet8  10.0.1.2/31   next hop 10.0.1.3 = 02:00:00:00:08:01     mtu 9100
 *   Ethernet12 192.168.5.1/24, nothing resolved                        mtu 9100
 *   10.1.0.0/16 ECMP via 10.0.1.1 and 10.0.1.3; 10.2.0.0/16 via 10.0.1.1;
 *   10.3.0.0/16 blackhole; 10.4.0.0/16 via 192.168.5.77 (unresolved)
 */
#define T_PORT0 0
#define T_PORT4 1
#define T_PORT8 2
#define T_PORT12 3
#define T_SWITCH_MAC "02:00:00:00:00:01"
#define T_CONFIG \
	"{\"DEVICE_METADATA\": {\"localhost\": {\"mac\": \"02:00:00:00:00:01\"}}," \
	" \"LSW\": {\"global\": {\"workers\": [1], \"mbufs\": 200000}}," \
	" \"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {\"mtu\": \"1500\"}," \
	"            \"Ethernet8\": {}, \"Ethernet12\": {}}," \
	" \"LSW_PORT\": {\"Ethernet0\": {\"devargs\": \"net_null0\"}," \
	"   \"Ethernet4\": {\"devargs\": \"net_null1\"}," \
	" \"Ethernet8\": {\"devargs\": \"net_null2\"}," \
	"   \"Ethernet12\": {\"devargs\": \"net_null3\"}}," \
	" \"INTERFACE\": {\"Ethernet0|10.0.0.0/31\": {}, \"Ethernet4|10.0.1.0/31\": {}," \
	"   \"Ethernet8|10.0.1.2/31\": {}, \"Ethernet12|192.168.5.1/24\": {}}," \
	" \"STATIC_ROUTE\": {\"10.1.0.0/16\": {\"nexthop\": \"10.0.1.1,10.0.1.3\"}," \
	"   \"10.2.0.0/16\": {\"nexthop\": \"10.0.1.1\", \"ifname\": \"Ethernet4\"}," \
	"   \"10.3.0.0/16\": {\"blackhole\": \"true\"}," \
	"   \"10.4.0.0/16\": {\"nexthop\": \"192.168.5.77\"}}," \
	" \"NEIGH\": {\"Ethernet4|10.0.1.1\": {\"neigh\": \"02:00:00:00:04:01\"}," \
	"   \"Ethernet8|10.0.1.3\": {\"neigh\": \"02:00:00:00:08:01\"}}}"
